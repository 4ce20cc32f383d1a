"""docs/python.md's examples run as written, in order, in one namespace,
from a scratch folder that sees the repository's scenarios and topologies."""

from __future__ import annotations

import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "python.md"


@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")  # tornado, under the Dask example
def test_examples_run(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 5
    for name in ("scenarios", "topologies"):
        os.symlink(ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOC.name}[python block {i}]", "exec"), namespace)  # noqa: S102
    assert (tmp_path / "two_cell.png").stat().st_size > 10_000
    for page in ("two_cell.html", "health_checks.html", "n_plus_one.html"):
        assert "<table" in (tmp_path / page).read_text(encoding="utf-8")
