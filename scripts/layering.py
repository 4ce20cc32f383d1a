#!/usr/bin/python3
"""The include graph between drsim's folders, checked against cmake/layers.txt.

cmake/layers.txt lists the folders lowest first, one layer per line; folders
on one line are siblings. A file may include headers of its own folder and of
folders on lower lines, nothing else. A header whose opening comment says
"Internal to <folder>/" may be included only from that folder. Tests,
benchmarks and fuzz targets may include anything: they are not layered.

    scripts/layering.py            # the violations, exit 1 if any
    scripts/layering.py --graph    # edges between folders, with include counts
    scripts/layering.py --cycles   # the cycles between folders (ignoring the declared order)

tests/python/test_layering.py runs the check in make test; models/CMakeLists.txt
builds one library per models area in the same order.
"""

import argparse
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAYERS_FILE = ROOT / "cmake" / "layers.txt"
SOURCE_SUFFIXES = {".h", ".cc"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
INTERNAL = re.compile(r"Internal to ([\w/]+?)/?[.\s]")


def read_layers(path=LAYERS_FILE):
    """[[folder, ...], ...] lowest first."""
    layers = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            layers.append(line.split())
    return layers


def folder_of(relative, folders):
    """The longest declared folder that holds the path, or None."""
    best = None
    for folder in folders:
        if relative == folder or relative.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def layered_files(folders):
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                relative = path.relative_to(ROOT).as_posix()
                if folder_of(relative, folders) == folder:
                    yield relative


def opening_comment(text):
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#pragma") or not stripped:
            continue
        if not stripped.startswith("//"):
            break
        lines.append(stripped[2:])
    return " ".join(lines)


def internal_owner(header):
    """The folder a header is internal to, or None."""
    path = ROOT / header
    if not path.is_file():
        return None
    match = INTERNAL.search(opening_comment(path.read_text(encoding="utf-8", errors="replace")) + " ")
    return match.group(1) if match else None


def includes(folders):
    """(including file, its folder, included header, the header's folder, line)."""
    for relative in layered_files(folders):
        text = (ROOT / relative).read_text(encoding="utf-8", errors="replace")
        for match in INCLUDE.finditer(text):
            header = match.group(1)
            target = folder_of(header, folders)
            if target is None:
                continue  # a third-party or generated header
            line = text.count("\n", 0, match.start()) + 1
            yield relative, folder_of(relative, folders), header, target, line


def violations(layers):
    rank = {folder: i for i, layer in enumerate(layers) for folder in layer}
    found = []
    for source, folder, header, target, line in includes(list(rank)):
        if target != folder and rank[target] >= rank[folder]:
            why = "a sibling" if rank[target] == rank[folder] else "a higher layer"
            found.append(f"{source}:{line}: includes {header}: {target}/ is {why} of {folder}/ (cmake/layers.txt)")
        owner = internal_owner(header)
        if owner is not None and folder != owner and not folder.startswith(owner + "/"):
            found.append(f"{source}:{line}: includes {header}, internal to {owner}/")
    return found


def graph(layers):
    folders = [f for layer in layers for f in layer]
    edges = collections.Counter()
    for _, folder, _, target, _ in includes(folders):
        if target != folder:
            edges[(folder, target)] += 1
    return edges


def cycles(edges):
    """Strongly connected components of more than one folder (Tarjan)."""
    successors = collections.defaultdict(set)
    for a, b in edges:
        successors[a].add(b)
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(successors[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(set(successors) | {b for _, b in edges}):
        if v not in index:
            visit(v)
    return components


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", action="store_true")
    parser.add_argument("--cycles", action="store_true")
    args = parser.parse_args()
    layers = read_layers()
    if args.graph or args.cycles:
        edges = graph(layers)
        if args.graph:
            for (a, b), n in sorted(edges.items()):
                print(f"{a} -> {b}  ({n})")
        if args.cycles:
            found = cycles(edges)
            for c in found:
                print("cycle: " + " <-> ".join(c))
            print(f"{len(found)} cycles between folders")
        return 0
    found = violations(layers)
    for v in found:
        print(v)
    print(f"{len(found)} includes against cmake/layers.txt")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
