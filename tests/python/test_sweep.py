"""drsim.sweep: grids of overrides x seeds on local processes or Dask.

The scenario is the two-cell Route 53 region failover (five simulated
minutes, a few hundredths of a second a run), so each sweep here is a
handful of runs and the file's time goes mostly into starting worker
processes. Nothing here asserts on wall-clock time."""

from __future__ import annotations

import datetime
import functools
import json
import math
import os
import pathlib
import subprocess
import sys

import pandas as pd
import pytest

import drsim
from drsim.figures import run_figures
from drsim.sweep import SweepFolderError, SweepWorkerLost

import sweep_helpers

ROOT = pathlib.Path(__file__).resolve().parents[2]
TWO_CELL = ROOT / "scenarios" / "two_cell_region_failover.yaml"
CHECKS = "spec.load[spain].routing.healthCheck.requestInterval"
AT = "spec.timeline[ireland-cell-deleted].at"
GRID = {CHECKS: ["10s", "30s"], AT: [datetime.timedelta(minutes=1), "90s"]}  # any override value
SEEDS = (3, 1)
RUNS = 8


def deterministic(frame: pd.DataFrame) -> pd.DataFrame:
    """Every column but the wall time."""
    return frame.drop(columns=["wall_s"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def scenario() -> drsim.Scenario:
    return drsim.load(TWO_CELL)


@pytest.fixture(scope="module")
def clean(scenario: drsim.Scenario) -> drsim.Sweep:
    """The reference: one worker process, no folder, nothing killed."""
    return drsim.sweep(scenario, GRID, SEEDS, workers=1, progress=False, kpis=["client.availability"])


# ---- grid expansion and validation ---------------------------------------------


def test_rows_follow_the_grid_then_the_seeds(clean: drsim.Sweep) -> None:
    runs = clean.runs
    assert len(runs) == RUNS and clean.executed == RUNS and clean.out is None
    assert list(runs["run"]) == ["0-3", "0-1", "1-3", "1-1", "2-3", "2-1", "3-3", "3-1"]
    assert list(runs[CHECKS]) == ["10s"] * 4 + ["30s"] * 4
    assert list(runs[AT]) == ([datetime.timedelta(minutes=1)] * 2 + ["90s"] * 2) * 2
    assert list(runs["seed"]) == [3, 1] * 4
    assert list(runs.columns[:4]) == ["run", CHECKS, AT, "seed"]
    assert list(runs.columns[-3:]) == ["complete", "stop_reason", "wall_s"]
    assert runs["complete"].all() and set(runs["stop_reason"]) == {"horizon"}
    assert {"ireland-cell-deleted.rto_s", "ireland-cell-deleted.detection_s", "ireland-cell-deleted.rpo_s",
            "objectives.passed", "client.availability{population=spain}"} <= set(clean.figures)
    assert (runs["wall_s"] > 0).all()
    # Slower health checks detect the region loss later, in every pairing.
    fast = runs[runs[CHECKS] == "10s"]["ireland-cell-deleted.detection_s"].to_numpy()
    slow = runs[runs[CHECKS] == "30s"]["ireland-cell-deleted.detection_s"].to_numpy()
    assert (slow > fast).all()


def test_a_row_holds_the_figures_of_that_run(scenario: drsim.Scenario, clean: drsim.Sweep) -> None:
    row = clean.runs.set_index("run").loc["2-1"]
    result = scenario.with_overrides({CHECKS: "30s", AT: "1m"}).run(seed=1)
    for name, value in run_figures(result, ["client.availability"]).items():
        assert (math.isnan(value) and math.isnan(row[name])) or row[name] == value, name


def test_bad_input_fails_before_any_run(scenario: drsim.Scenario, tmp_path: pathlib.Path) -> None:
    ran = []
    kw = dict(progress=False, on_run=ran.append, out=tmp_path / "never")
    typo = "spec.load[spain].routing.healthChek.requestInterval"
    # The loader's file:line:col line names the resolved path; the last line the override as written.
    message = (r"(?s)^.*two_cell_region_failover.yaml: .*unknown key \"healthChek\""
               r".*\n\(grid combination 0: spec\.load\[spain\]\.routing\.healthChek")
    with pytest.raises(drsim.ScenarioError, match=message):
        drsim.sweep(scenario, {typo: ["10s"]}, [0], **kw)
    # Each value alone loads; only the second combination's value is bad.
    with pytest.raises(drsim.ScenarioError, match=r"requestInterval=soon"):
        drsim.sweep(scenario, {CHECKS: ["10s", "soon"]}, [0], **kw)
    with pytest.raises(TypeError, match=r"grid\['spec.timeline\[ireland-cell-deleted\].at'\] is a list of values"):
        drsim.sweep(scenario, {AT: "90s"}, [0], **kw)
    with pytest.raises(TypeError, match=r"is a list of values to try, not a int"):
        drsim.sweep(scenario, {AT: 90}, [0], **kw)
    with pytest.raises(drsim.ScenarioError, match=r"at=90:1:1: .*expected a duration with a unit"):
        drsim.sweep(scenario, {AT: ["90s", 90]}, [0], **kw)
    with pytest.raises(ValueError, match=r"grid\[.*\] is empty"):
        drsim.sweep(scenario, {AT: []}, [0], **kw)
    with pytest.raises(ValueError, match=r"repeats the value\(s\) 90s"):
        drsim.sweep(scenario, {AT: ["90s", "90s"]}, [0], **kw)
    with pytest.raises(ValueError, match="vary the seed with seeds="):
        drsim.sweep(scenario, {"spec.seed": [1, 2]}, [0], **kw)
    with pytest.raises(TypeError, match="grid is a mapping"):
        drsim.sweep(scenario, [(AT, ["90s"])], [0], **kw)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seeds is empty"):
        drsim.sweep(scenario, GRID, [], **kw)
    with pytest.raises(ValueError, match="seeds repeat a value: \\[2\\]"):
        drsim.sweep(scenario, GRID, [2, 2], **kw)
    with pytest.raises(TypeError, match="seeds are int"):
        drsim.sweep(scenario, GRID, [1.5], **kw)
    with pytest.raises(ValueError, match="workers must be a positive int"):
        drsim.sweep(scenario, GRID, [0], workers=0, **kw)
    with pytest.raises(ValueError, match="with a Dask client"):
        drsim.sweep(scenario, GRID, [0], workers=2, client=object(), **kw)
    with pytest.raises(ValueError, match="until must be positive"):
        drsim.sweep(scenario, GRID, [0], until=0, **kw)
    assert ran == [] and not (tmp_path / "never").exists()


def test_an_empty_grid_sweeps_the_seeds_only(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    # Workers get the resolved scenario, topology inline: the relative
    # topology path of the file does not need to resolve from where they run.
    monkeypatch.chdir(tmp_path)
    sw = drsim.sweep(TWO_CELL, {}, range(2), workers=1, progress=False, until="3m")
    assert list(sw.runs["run"]) == ["0-0", "0-1"] and sw.grid == {}
    assert list(sw.runs.columns[:2]) == ["run", "seed"]
    assert sw.runs["ireland-cell-deleted.rto_s"].notna().all()


# ---- determinism -----------------------------------------------------------------


def test_two_processes_give_the_rows_of_one(scenario: drsim.Scenario, clean: drsim.Sweep) -> None:
    two = drsim.sweep(scenario.to_yaml(), GRID, SEEDS, workers=2, progress=False, kpis="client.availability")
    pd.testing.assert_frame_equal(deterministic(two.runs), deterministic(clean.runs))


# ---- the results folder and resuming ----------------------------------------------


def test_results_folder_format(scenario: drsim.Scenario, clean: drsim.Sweep, tmp_path: pathlib.Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    sw = drsim.sweep(scenario, GRID, SEEDS, out=out, workers=2, progress=False, kpis=["client.availability"])
    assert sw.out == out
    pd.testing.assert_frame_equal(deterministic(sw.runs), deterministic(clean.runs))
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "runs.jsonl"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == "drsim-sweep/1"
    assert manifest["grid"] == [[CHECKS, ["10s", "30s"]], [AT, ["1m", "90s"]]]
    assert manifest["seeds"] == [3, 1] and manifest["until"] is None
    assert manifest["kpis"] == ["client.availability"] and len(manifest["scenario_sha256"]) == 64
    lines = (out / "runs.jsonl").read_text().splitlines()
    assert len(lines) == RUNS
    records = {r["run"]: r for r in map(json.loads, lines)}  # strict JSON: NaN is written as null
    assert set(records) == set(clean.runs["run"])
    r = records["3-1"]
    assert r["combination"] == 3 and r["seed"] == 1 and r["overrides"] == {CHECKS: "30s", AT: "90s"}
    assert r["figures"]["ireland-cell-deleted.rpo_s"] is None and r["complete"] is True
    assert r["figures"]["ireland-cell-deleted.rto_s"] == clean.runs.set_index("run").loc["3-1",
                                                                                          "ireland-cell-deleted.rto_s"]
    # Everything is done: running it again reads the folder and runs nothing;
    # the progress bar starts (and ends) at the runs read back.
    again = drsim.sweep(scenario, GRID, SEEDS, out=out, workers=2, progress=True, kpis=["client.availability"])
    assert again.executed == 0
    err = capsys.readouterr().err
    assert "drsim.sweep" in err and "8/8" in err, err
    pd.testing.assert_frame_equal(again.runs, sw.runs)


def test_an_interrupted_sweep_resumes_where_it_stopped(scenario: drsim.Scenario, clean: drsim.Sweep,
                                                       tmp_path: pathlib.Path) -> None:
    out = tmp_path / "sweep"
    first: list[str] = []

    def stop_after_three(record: dict) -> None:
        first.append(record["run"])
        if len(first) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        drsim.sweep(scenario, GRID, SEEDS, out=out, workers=2, progress=False, kpis=["client.availability"],
                    on_run=stop_after_three)
    assert [json.loads(l)["run"] for l in (out / "runs.jsonl").read_text().splitlines()] == first
    # A crash in the middle of a write leaves a line without its newline: dropped.
    with open(out / "runs.jsonl", "a") as f:
        f.write('{"run": "3-1", "figu')
    second: list[str] = []
    sw = drsim.sweep(scenario, GRID, SEEDS, out=out, workers=2, progress=False, kpis=["client.availability"],
                     on_run=lambda r: second.append(r["run"]))
    assert sw.executed == RUNS - 3 and sorted(second) == sorted(set(clean.runs["run"]) - set(first))
    pd.testing.assert_frame_equal(deterministic(sw.runs), deterministic(clean.runs))
    assert len((out / "runs.jsonl").read_text().splitlines()) == RUNS


def test_a_folder_of_another_sweep_is_refused(scenario: drsim.Scenario, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "sweep"
    drsim.sweep(scenario, {AT: ["90s"]}, [0], out=out, workers=1, progress=False)
    with pytest.raises(SweepFolderError, match="holds a different sweep \\(grid differs\\)"):
        drsim.sweep(scenario, {AT: ["95s"]}, [0], out=out, workers=1, progress=False)
    with pytest.raises(SweepFolderError, match="grid differs"):  # the order of the paths numbers the runs
        drsim.sweep(scenario, {AT: ["90s"], CHECKS: ["10s"]}, [0], out=out, workers=1, progress=False)
    drsim.sweep(scenario, {CHECKS: ["10s"], AT: ["90s"]}, [0], out=tmp_path / "two", workers=1, progress=False)
    with pytest.raises(SweepFolderError, match="grid differs"):
        drsim.sweep(scenario, {AT: ["90s"], CHECKS: ["10s"]}, [0], out=tmp_path / "two", workers=1, progress=False)
    with pytest.raises(SweepFolderError, match="seeds differs"):
        drsim.sweep(scenario, {AT: ["90s"]}, [0, 1], out=out, workers=1, progress=False)
    with pytest.raises(SweepFolderError, match="scenario_sha256 differs"):
        drsim.sweep(scenario.with_overrides({CHECKS: "20s"}), {AT: ["90s"]}, [0], out=out, workers=1,
                    progress=False)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(SweepFolderError, match="is not empty and has no manifest.json \\(notes.txt\\)"):
        drsim.sweep(scenario, {AT: ["90s"]}, [0], out=other, workers=1, progress=False)


def test_a_run_that_raises_stops_the_sweep(scenario: drsim.Scenario, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "sweep"
    task = functools.partial(sweep_helpers.fail_on, run="1-0")
    message = r"run 1-0 \(seed -1, overrides .*at=90s'\]\) failed: ValueError: seed must be"
    with pytest.raises(drsim.SweepRunError, match=message):
        drsim.sweep(scenario, {AT: ["70s", "90s"]}, [0], out=out, workers=1, progress=False, _task=task)
    assert "1-0" not in (out / "runs.jsonl").read_text()


# ---- lost workers -------------------------------------------------------------------


def test_a_killed_local_worker_is_replaced(scenario: drsim.Scenario, clean: drsim.Sweep,
                                           tmp_path: pathlib.Path) -> None:
    marker = tmp_path / "killed"
    task = functools.partial(sweep_helpers.kill_once, run="1-3", marker=str(marker))
    sw = drsim.sweep(scenario, GRID, SEEDS, workers=2, progress=False, kpis=["client.availability"], _task=task)
    assert marker.exists()  # the worker did die once
    assert sw.executed == RUNS
    pd.testing.assert_frame_equal(deterministic(sw.runs), deterministic(clean.runs))


def test_a_run_that_always_kills_its_worker_stops_the_sweep(scenario: drsim.Scenario) -> None:
    task = functools.partial(sweep_helpers.kill_always, run="0-0")
    with pytest.raises(SweepWorkerLost, match=r"died 4 times in a row .* 1 run\(s\) left: 0-0"):
        drsim.sweep(scenario, {}, [0], workers=1, progress=False, _task=task)


@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")  # tornado, under distributed
def test_a_killed_dask_worker_is_replaced(scenario: drsim.Scenario, clean: drsim.Sweep,
                                          tmp_path: pathlib.Path) -> None:
    distributed = pytest.importorskip("distributed")
    marker = tmp_path / "killed"
    task = functools.partial(sweep_helpers.kill_once, run="2-3", marker=str(marker))
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        sw = drsim.sweep(scenario, GRID, SEEDS, client=client, out=tmp_path / "sweep", progress=False,
                         kpis=["client.availability"], _task=task)
    assert marker.exists()
    assert sw.executed == RUNS
    pd.testing.assert_frame_equal(deterministic(sw.runs), deterministic(clean.runs))


def test_reprs_say_what_was_swept(clean: drsim.Sweep) -> None:
    assert repr(clean) == (f"<drsim.Sweep {clean.scenario.name!r} combinations=4 seeds={len(SEEDS)} runs={RUNS}"
                           f" executed={RUNS}>")
    assert clean._repr_html_().startswith("<p><b>&lt;drsim.Sweep ") and "<table" in clean._repr_html_()


def test_the_local_pool_sizes_itself_to_the_cores_it_may_use() -> None:
    # A container or taskset limit shows in the affinity mask, not in os.cpu_count().
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("no CPU affinity on this platform")
    script = ("import os; from drsim.sweep_pools import usable_cores; "
              "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); print(usable_cores())")
    printed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert printed.stdout.strip() == "1"
