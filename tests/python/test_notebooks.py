"""Every notebook under notebooks/ runs top to bottom with no edits, on a
short horizon (DRSIM_NOTEBOOK_SHORT=1), in a kernel of this interpreter that
sees the same drsim package."""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    # The kernel is a child process: it inherits the package path and the short horizon.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in sys.path if p))
    monkeypatch.setenv("DRSIM_NOTEBOOK_SHORT", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    # Each notebook ends its story with a picture or a table.
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in outputs), "no figure was drawn"


def test_every_notebook_of_the_issue_is_there() -> None:
    names = {p.stem for p in NOTEBOOKS}
    assert {"capacity_planning", "policy_comparison", "region_failover_drill", "connection_pool_pileup",
            "sweep_on_dask"} <= names
