"""The repository's documents stand alone: nothing points outside it.

Every tracked text file is scanned for references to files that live outside
the repository (the old external brief and the articles it summarised); the
Markdown links of the top-level documents must resolve to files in the
repository (and their #anchors to headings); and every "docs/sources.md
section N" reference must name a section docs/sources.md has.

Needs no build: it imports nothing of drsim. `make test` runs it with the
other Python tests; on a machine without a build, run it alone with
`/usr/bin/python3 -m pytest --noconftest tests/python/test_docs_standalone.py`
(tests/python/conftest.py imports drsim).
"""

from __future__ import annotations

import collections
import os
import pathlib
import re
import subprocess
from collections.abc import Iterable

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = "docs/sources.md"

# Spelled in pieces so that this file does not match its own patterns.
FORBIDDEN = [
    ("domain" + ".md", re.compile(re.escape("domain" + ".md"))),
    ("../" + "shared", re.compile(re.escape("../" + "shared"))),
    ("shared/" + "seeds", re.compile(re.escape("shared/" + "seeds"))),
    ("a source article's file id", re.compile(r"\b00[0-4]" + r"_[0-9a-f]{16}\b")),
]

# Markdown documents whose relative links must resolve.
LINKED_DOCUMENTS = ["docs/*.md", "README.md", "notebooks/README.md", "bench/README.md"]

# "docs/sources.md section 5", "`docs/sources.md` section 1", "sources.md §2",
# "docs/sources.md sections 4 and\n# 5" (a comment wrapped mid-reference).
_GLUE = r"[\s#/*]*"
SECTION_REFERENCE = re.compile(
    r"sources\.md`?" + _GLUE + r"(?:sections?|§)\s*(\d+(?:" + _GLUE + r"(?:,|and|&)" + _GLUE + r"\d+)*)"
)
SECTION_HEADING = re.compile(r"^## (\d+)\. ", re.M)

LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def repository_files(root: pathlib.Path) -> list[pathlib.Path]:
    """The files git tracks under root; outside a git checkout, every file but build*/ and .git."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError):
        listed = None
    if listed is not None and (root / ".git").exists():
        return sorted(root / os.fsdecode(p) for p in listed.split(b"\0") if p)
    files = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != ".git" and not d.startswith("build"))
        files.extend(pathlib.Path(folder) / n for n in sorted(names))
    return files


def text_of(path: pathlib.Path) -> str | None:
    """The file's text, or None for a binary (NUL bytes, not UTF-8) or missing file."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def forbidden_references(root: pathlib.Path, files: Iterable[pathlib.Path]) -> list[str]:
    """file:line: what, for every reference to a file outside the repository."""
    found = []
    for path in files:
        text = text_of(path)
        if text is None:
            continue
        for what, pattern in FORBIDDEN:
            for m in pattern.finditer(text):
                found.append(f"{path.relative_to(root).as_posix()}:{_line_of(text, m.start())}: refers to {what}")
    return found


def github_anchors(markdown: str) -> set[str]:
    """The #anchors GitHub gives the document's headings (lower case, punctuation dropped, spaces to '-')."""
    anchors: set[str] = set()
    seen: collections.Counter[str] = collections.Counter()
    for heading in re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", FENCE.sub("", markdown), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug if seen[slug] == 0 else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return anchors


def broken_links(root: pathlib.Path, documents: Iterable[pathlib.Path]) -> list[str]:
    """file:line: target, for every relative link that leaves the repository or names nothing in it."""
    root = root.resolve()
    broken = []
    for document in documents:
        text = text_of(document)
        if text is None:
            continue
        # Blank out code (fenced blocks, `spans`) so that examples are not links; offsets stay put.
        prose = FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
        prose = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), prose)
        where = document.relative_to(root).as_posix()
        for m in LINK.finditer(prose):
            target = m.group(1)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path_part, _, anchor = target.partition("#")
            resolved = (document.parent / path_part).resolve() if path_part else document.resolve()
            line = _line_of(text, m.start())
            if not resolved.is_relative_to(root):
                broken.append(f"{where}:{line}: {target} leaves the repository")
            elif not resolved.exists():
                broken.append(f"{where}:{line}: {target} does not exist")
            elif anchor and resolved.suffix == ".md":
                heading_text = text_of(resolved) or ""
                if anchor not in github_anchors(heading_text):
                    broken.append(f"{where}:{line}: {target}: no heading with that anchor")
    return broken


def sections_of(sources_text: str) -> set[int]:
    return {int(n) for n in SECTION_HEADING.findall(sources_text)}


def section_references(root: pathlib.Path, files: Iterable[pathlib.Path]) -> list[tuple[str, int]]:
    """(file:line, section) for every "sources.md section N" style reference."""
    found = []
    for path in files:
        text = text_of(path)
        if text is None:
            continue
        for m in SECTION_REFERENCE.finditer(text):
            where = f"{path.relative_to(root).as_posix()}:{_line_of(text, m.start())}"
            found.extend((where, int(n)) for n in re.findall(r"\d+", m.group(1)))
    return found


def _documents(root: pathlib.Path) -> list[pathlib.Path]:
    return sorted({p for pattern in LINKED_DOCUMENTS for p in root.glob(pattern)})


# -- the repository --


def test_no_file_refers_outside_the_repository() -> None:
    files = repository_files(ROOT)
    assert any(p.name == "sources.md" for p in files), "the file list misses docs/sources.md"
    found = forbidden_references(ROOT, files)
    assert not found, "references to files outside the repository:\n" + "\n".join(found)


def test_every_markdown_link_resolves() -> None:
    documents = _documents(ROOT)
    assert ROOT / "README.md" in documents and ROOT / SOURCES in documents
    broken = broken_links(ROOT, documents)
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_every_section_reference_names_a_section_of_sources_md() -> None:
    sections = sections_of((ROOT / SOURCES).read_text(encoding="utf-8"))
    assert sections == {1, 2, 3, 4, 5}
    references = section_references(ROOT, repository_files(ROOT))
    dangling = [f"{where}: section {n}" for where, n in references if n not in sections]
    assert not dangling, f"references to sections {SOURCES} does not have:\n" + "\n".join(dangling)
    # Every section is cited somewhere; if not, the pattern has stopped finding the references.
    assert {n for _, n in references} == sections


def test_readme_and_validation_link_sources_md() -> None:
    assert "`docs/sources.md`" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](sources.md)" in (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")


# -- the checks themselves, on a scratch tree --


def test_the_checks_name_file_and_line(tmp_path: pathlib.Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "sources.md").write_text("# Sources\n\n## 1. One\n\n## 2. Two\n", encoding="utf-8")
    (tmp_path / "a.yaml").write_text(
        "# fine\n# see " + "domain" + ".md section 1\n# and ../" + "shared/" + "seeds/x.txt\n", encoding="utf-8"
    )
    (tmp_path / "b.cc").write_text(
        "// docs/sources.md section 2\n// docs/sources.md sections 1 and\n// 3, and sources" ".md §7\n",
        encoding="utf-8",
    )
    (tmp_path / "blob.bin").write_bytes(b"domain" + b".md\0\x01")
    (tmp_path / "README.md").write_text(
        "[ok](docs/sources.md#2-two) [gone](docs/missing.md) [out](../elsewhere.md)\n"
        "[anchor](docs/sources.md#3-three) [web](https://example.com/x.md)\n"
        "```\n[in code](nowhere.md)\n```\n`[span](nowhere.md)`\n",
        encoding="utf-8",
    )
    files = repository_files(tmp_path)  # not a git checkout: the tree is walked
    assert tmp_path / "blob.bin" in files

    assert forbidden_references(tmp_path, files) == [
        "a.yaml:2: refers to " + "domain" + ".md",
        "a.yaml:3: refers to ../" + "shared",
        "a.yaml:3: refers to shared/" + "seeds",
    ]
    assert broken_links(tmp_path, [tmp_path / "README.md"]) == [
        "README.md:1: docs/missing.md does not exist",
        "README.md:1: ../elsewhere.md leaves the repository",
        "README.md:2: docs/sources.md#3-three: no heading with that anchor",
    ]
    sections = sections_of((tmp_path / "docs" / "sources.md").read_text(encoding="utf-8"))
    assert sections == {1, 2}
    references = section_references(tmp_path, [tmp_path / "b.cc"])
    assert references == [("b.cc:1", 2), ("b.cc:2", 1), ("b.cc:2", 3), ("b.cc:3", 7)]
    assert [r for r in references if r[1] not in sections] == [("b.cc:2", 3), ("b.cc:3", 7)]


def test_the_tree_walk_skips_build_and_git(tmp_path: pathlib.Path) -> None:
    for folder in ("build", "build-asan", ".git", "docs"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.md").write_text("x\n", encoding="utf-8")
    assert repository_files(tmp_path) == [tmp_path / "docs" / "x.md"]
