"""Event kinds come from one catalog (sim/event_kind.h, models/*/*_event_kinds.h):
the Python package sees it, and no source makes up a kind elsewhere.

The C++ tests check the spelling rule and duplicates (tests/models/
event_kind_catalog_test.cc) and that runs log only catalogued kinds
(tests/drills/logged_event_kinds_test.cc).
"""

from __future__ import annotations

import pathlib
import re

import drsim

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_package_lists_the_catalog() -> None:
    kinds = {k["name"]: k for k in drsim.event_kinds()}
    assert kinds["database.switched"]["formerly"] == "switched"
    assert kinds["node.not_ready"]["detectsFailure"] is True
    assert kinds["pod.crashed"]["formerly"] == ""
    assert all(k["doc"] for k in kinds.values())


def test_kinds_are_declared_only_in_the_area_headers() -> None:
    # An EventKind is built from a literal only in an <area>_event_kinds.h (tests declare their own),
    # and only the timeline logs its actions' names.
    made_up = []
    for path in sorted(ROOT.glob("*/**/*.[ch]*")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(("build", "tests/")) or path.suffix not in (".h", ".cc"):
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"EventKind k\w+\{", text) and not relative.endswith("_event_kinds.h"):
            made_up.append(f"{relative}: declares an EventKind outside an <area>_event_kinds.h")
        if "EventKind::timeline_action(" in text and relative != "models/actions/timeline.cc":
            made_up.append(f"{relative}: logs a timeline kind outside the timeline")
    assert made_up == []


def test_each_area_header_lists_every_kind_it_declares() -> None:
    # The catalog reads the list at the end of each header: a kind declared but left out of it
    # would be missing from the docs and the tests.
    headers = sorted(ROOT.glob("models/*/*_event_kinds.h"))
    assert len(headers) == 5
    for header in headers:
        text = header.read_text(encoding="utf-8")
        declared = re.findall(r"namespace (\w+) \{|inline constexpr EventKind (k\w+)\{", text)
        names, area = [], None
        for namespace, constant in declared:
            if namespace:
                area = namespace
            else:
                names.append(f"{area}::{constant}")
        listed = re.search(r"inline constexpr EventKind k\w+EventKinds\[\] = \{(.*?)\};", text, re.S)
        assert listed, header
        assert re.findall(r"\w+::k\w+", listed.group(1)) == names, header
