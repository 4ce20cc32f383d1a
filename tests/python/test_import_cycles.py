"""The drsim modules import each other without a cycle.

A cycle between modules only works while one side imports inside a function,
so it breaks as soon as someone moves that import to the top. The graph here
counts every import, at the top or inside a function, except those under
``if TYPE_CHECKING:`` (they never run). Needs no build: it reads the sources
with ``ast``.
"""

from __future__ import annotations

import ast
import pathlib

from layering_script import layering

PACKAGE = "drsim"
PACKAGE_DIR = pathlib.Path(__file__).resolve().parents[2] / "python" / PACKAGE


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of the tree, skipping the bodies of TYPE_CHECKING blocks."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _init_names(tree: ast.Module, package: str) -> set[str]:
    """The names the package's __init__ binds at its top level, but not the
    submodules it imports as `from drsim import x` (x is a module then, a
    compiled one such as _core when there is no x.py)."""
    bound: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.ImportFrom) and node.module == package and not node.level:
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                bound.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return bound


def import_graph(package_dir: pathlib.Path, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, the package itself (its
    __init__) included when a module imports it or one of its names."""
    modules = {p.stem: p for p in sorted(package_dir.glob("*.py"))}
    names = {(package if stem == "__init__" else f"{package}.{stem}") for stem in modules}

    def resolve(name: str) -> str | None:
        # drsim.x.y is the module drsim.x. A submodule without a source
        # (drsim._core) is no node: importing it runs the package's __init__
        # first, but as its parent, not as an import of the package's names.
        if name == package:
            return package
        while name not in names:
            if "." not in name:
                return None
            name = name.rsplit(".", 1)[0]
        return None if name == package else name

    init_names = _init_names(ast.parse(modules["__init__"].read_text()), package) if "__init__" in modules else set()
    graph: dict[str, set[str]] = {}
    for stem, path in modules.items():
        me = package if stem == "__init__" else f"{package}.{stem}"
        edges: set[str] = set()
        for node in _imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    base = ".".join([package] + ([base] if base else []))
                # `from drsim import x` imports the module drsim.x when there
                # is one; else a name of drsim's __init__ (an edge to the
                # package itself), or a compiled module such as _core, which
                # has no source here and so is no node.
                targets = []
                for alias in node.names:
                    module = f"{base}.{alias.name}"
                    if module in names:
                        targets.append(module)
                    elif base != package:
                        targets.append(base)
                    elif alias.name in init_names:
                        targets.append(package)
            for target in targets:
                resolved = resolve(target)
                if resolved is not None and resolved != me:
                    edges.add(resolved)
        graph[me] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module
    (Tarjan), each as a path that starts and ends at the same module."""
    # The components come from the layering checker's Tarjan (scripts/layering.py),
    # which works on edges between folders; here the nodes are modules.
    components = layering.cycles([(a, b) for a, targets in graph.items() for b in targets])

    found = []
    for component in components:
        # A shortest path from the component's first module back to itself.
        start, members = component[0], set(component)
        previous: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in previous:
            following = []
            for v in frontier:
                for w in sorted(graph[v] & members):
                    if w not in previous:
                        previous[w] = v
                        following.append(w)
            frontier = following
        path = [start]
        v = previous[start]
        while v != start:
            path.append(v)
            v = previous[v]
        path.append(start)
        found.append(list(reversed(path)))
    return found


def test_the_drsim_modules_import_each_other_without_a_cycle():
    graph = import_graph(PACKAGE_DIR)
    assert "drsim.scenario" in graph and "drsim.result" in graph["drsim"]
    found = cycles(graph)
    assert found == [], "import cycles between drsim modules:\n" + "\n".join(" -> ".join(c) for c in found)


def _write(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    package = root / "fake"
    package.mkdir()
    for name, text in files.items():
        (package / name).write_text(text)
    return package


def test_the_checker_finds_a_cycle_held_apart_by_an_import_in_a_function(tmp_path):
    package = _write(
        tmp_path,
        {
            "__init__.py": "from fake.a import f\n",
            "a.py": "from fake import b\n\ndef f():\n    return b.g()\n",
            "b.py": "def g():\n    from fake.c import h\n    return h()\n",
            "c.py": "import fake.a\n\ndef h():\n    return 1\n",
        },
    )
    graph = import_graph(package, "fake")
    assert graph["fake.c"] == {"fake.a"}
    assert cycles(graph) == [["fake.a", "fake.b", "fake.c", "fake.a"]]


def test_the_checker_skips_type_checking_imports_and_relative_ones_count(tmp_path):
    package = _write(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fake.b import B\nimport fake.c\n",
            "b.py": "from .a import thing\n",
            "c.py": "from . import b\n",
        },
    )
    graph = import_graph(package, "fake")
    assert graph["fake.a"] == {"fake.c"}
    assert graph["fake.b"] == {"fake.a"}
    assert graph["fake.c"] == {"fake.b"}
    assert cycles(graph) == [["fake.a", "fake.c", "fake.b", "fake.a"]]
