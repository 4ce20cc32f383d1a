"""Scenario.run and the Result's DataFrames, KPIs and files."""

from __future__ import annotations

import datetime
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import drsim


def test_outcome(inline_result: drsim.Result) -> None:
    o = inline_result.outcome
    assert o.complete is True
    assert o.reason == "horizon"
    assert o.message == ""
    assert o.end_t_s == 7200.0
    assert o.events > 0
    assert o.wall_seconds >= 0.0
    assert inline_result.complete
    assert inline_result.seed == 7
    assert inline_result.horizon_s == 7200.0
    assert inline_result.scenario.name == "py-inline"


def test_timeseries_columns_and_dtypes(inline_result: drsim.Result) -> None:
    ts = inline_result.timeseries()
    cols = list(ts.columns)
    assert cols[:2] == ["t_s", "metric"] and cols[-1] == "value"
    assert "zone" in cols and "region" in cols
    assert cols[2:-1] == sorted(cols[2:-1])
    assert ts["t_s"].dtype == np.float64
    assert ts["value"].dtype == np.float64
    assert ts["metric"].dtype == object
    assert ts["zone"].dtype == object
    assert len(ts) > 0
    # Label values are strings where present, NaN where a series lacks the label.
    zone_up = ts[ts["metric"] == "zone.up"]
    assert zone_up["zone"].map(type).eq(str).all()
    link_rows = ts[ts["metric"].str.startswith("link.")]
    assert link_rows["zone"].isna().all()


def test_zone_failure_is_in_the_series(inline_result: drsim.Result) -> None:
    a = inline_result.timeseries("zone.up", zone="eu-west-1a")
    assert set(a["metric"]) == {"zone.up"}
    assert set(a["zone"]) == {"eu-west-1a"}
    # Down at 10m, back at 40m.
    down = a.loc[a["value"] == 0.0, "t_s"].tolist()
    up_again = a.loc[(a["value"] == 1.0) & (a["t_s"] > 600.0), "t_s"].tolist()
    assert down == [600.0]
    assert up_again == [2400.0]
    assert a["t_s"].is_monotonic_increasing


def test_timeseries_filters(inline_result: drsim.Result) -> None:
    all_rows = inline_result.timeseries()
    links = inline_result.timeseries("link.*")
    assert len(links) > 0 and links["metric"].str.startswith("link.").all()
    assert len(links) == all_rows["metric"].str.startswith("link.").sum()
    two = inline_result.timeseries(["zone.up", "region.zones_up"])
    assert set(two["metric"]) == {"zone.up", "region.zones_up"}
    zones = inline_result.timeseries(zone=["eu-west-1a", "eu-west-1b"])
    assert set(zones["zone"]) == {"eu-west-1a", "eu-west-1b"}
    empty = inline_result.timeseries("no.such.metric")
    assert len(empty) == 0
    assert list(empty.columns) == list(all_rows.columns)
    assert empty["t_s"].dtype == np.float64 and empty["value"].dtype == np.float64
    with pytest.raises(ValueError, match="zonee"):
        inline_result.timeseries(zonee="eu-west-1a")
    assert "zone.up" in inline_result.metrics()
    series = inline_result.series()
    assert int(series["points"].sum()) == len(all_rows)


def test_events(inline_result: drsim.Result) -> None:
    ev = inline_result.events()
    assert list(ev.columns) == ["t_s", "component", "kind", "detail"]
    assert ev["t_s"].dtype == np.float64
    for c in ("component", "kind", "detail"):
        assert ev[c].dtype == object
    fail = ev[ev["kind"] == "zone:fail"]
    assert fail["t_s"].tolist() == [600.0]
    assert "fail-a" in fail["detail"].iloc[0]
    assert ev["t_s"].is_monotonic_increasing


def test_kpis(inline_result: drsim.Result) -> None:
    k = inline_result.kpis()
    assert list(k.columns)[0] == "name" and list(k.columns)[-1] == "value"
    assert k["value"].dtype == np.float64
    assert inline_result.kpi("zone.downtime_s", zone="eu-west-1a") == pytest.approx(1800.0)
    assert inline_result.kpi("zone.downtime_s", zone="eu-west-1b") == 0.0
    assert inline_result.kpi("timeline.actions_applied") == 2.0
    assert inline_result.kpi("zone.downtime_s", region="eu-west-1", zone="eu-west-1a") == pytest.approx(1800.0)
    assert inline_result.kpi("zone.availability", zone="eu-west-1a") == pytest.approx(0.75)
    with pytest.raises(KeyError):
        inline_result.kpi("zone.downtime_s", zone="nowhere")
    with pytest.raises(KeyError, match="pick one of"):
        inline_result.kpi("zone.downtime_s", region="eu-west-1")
    with pytest.raises(KeyError):
        inline_result.kpi("no.such.kpi")


@pytest.mark.parametrize("until", ["30m", 1800, 1800.0, datetime.timedelta(minutes=30), np.int64(1800)])
def test_until(inline_scenario: drsim.Scenario, until: object) -> None:
    r = inline_scenario.run(until=until)  # type: ignore[arg-type]
    assert r.outcome.end_t_s == 1800.0
    assert r.horizon_s == 1800.0
    assert r.complete
    assert r.timeseries()["t_s"].max() <= 1800.0


def test_seed_argument(inline_scenario: drsim.Scenario) -> None:
    assert inline_scenario.run(seed=99).seed == 99
    assert inline_scenario.with_overrides({"spec.seed": 5}).run().seed == 5


def test_summary_and_repr(inline_result: drsim.Result) -> None:
    assert "py-inline" in inline_result.summary()
    r = repr(inline_result)
    assert r.startswith("<drsim.Result 'py-inline' seed=7 complete")


def test_to_dir(inline_result: drsim.Result, tmp_path: pathlib.Path) -> None:
    out = inline_result.to_dir(tmp_path / "a" / "b")
    assert out == tmp_path / "a" / "b"
    names = {p.name for p in out.iterdir()}
    assert {"timeseries.csv", "events.csv", "kpis.json", "scenario.yaml", "run.json"} <= names
    kpis = json.loads((out / "kpis.json").read_text())
    assert kpis["complete"] is True
    assert kpis["seed"] == 7
    run = json.loads((out / "run.json").read_text())
    assert run["complete"] is True
    # The resolved scenario loads back.
    assert drsim.load(out / "scenario.yaml").name == "py-inline"


def test_to_dir_that_cannot_be_created(inline_result: drsim.Result, tmp_path: pathlib.Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(OSError):
        inline_result.to_dir(blocker / "out")


def test_to_dir_errors_name_the_path_and_the_reason(inline_result: drsim.Result, tmp_path: pathlib.Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(NotADirectoryError, match=f"cannot create the results folder {blocker / 'out'}: Not a directory"):
        inline_result.to_dir(blocker / "out")
    # A folder where kpis.json goes: the files before it are written, no temporary file is left.
    (tmp_path / "blocked" / "kpis.json").mkdir(parents=True)
    with pytest.raises(IsADirectoryError, match="kpis.json: Is a directory"):
        inline_result.to_dir(tmp_path / "blocked")
    names = sorted(p.name for p in (tmp_path / "blocked").iterdir())
    assert names == ["events.csv", "kpis.json", "timeseries.csv"]


def test_dataframes_match_the_csv_files(inline_result: drsim.Result, tmp_path: pathlib.Path) -> None:
    out = inline_result.to_dir(tmp_path)
    ts_csv = pd.read_csv(out / "timeseries.csv", dtype={"metric": object}, keep_default_na=False)
    ts = inline_result.timeseries()
    assert list(ts_csv.columns) == list(ts.columns)
    labels = [c for c in ts.columns if c not in ("t_s", "metric", "value")]
    pd.testing.assert_series_equal(ts_csv["t_s"].astype(np.float64), ts["t_s"])
    pd.testing.assert_series_equal(ts_csv["value"].astype(np.float64), ts["value"])
    assert (ts_csv["metric"] == ts["metric"]).all()
    for c in labels:
        assert (ts_csv[c].astype(str) == ts[c].fillna("")).all(), c
    ev_csv = pd.read_csv(out / "events.csv", keep_default_na=False)
    ev = inline_result.events()
    pd.testing.assert_series_equal(ev_csv["t_s"].astype(np.float64), ev["t_s"])
    for c in ("component", "kind", "detail"):
        assert (ev_csv[c] == ev[c]).all()


def test_max_events_guard_keeps_partial_data(inline_scenario: drsim.Scenario, tmp_path: pathlib.Path) -> None:
    s = inline_scenario.with_overrides({"spec.guards.maxEvents": 2})
    r = s.run()
    o = r.outcome
    assert o.complete is False
    assert o.reason == "max_events"
    assert "maxEvents" in o.message
    assert o.events == 2
    assert o.end_t_s < 7200.0
    assert len(r.timeseries()) > 0
    assert len(r.events()) >= 1
    assert len(r.kpis()) > 0
    assert "stopped (max_events)" in repr(r)
    out = r.to_dir(tmp_path)
    assert json.loads((out / "run.json").read_text())["complete"] is False
    assert json.loads((out / "kpis.json").read_text())["stop_reason"] == "max_events"


def test_result_outlives_scenario_and_intermediates(inline_text: str) -> None:
    r = drsim.load(inline_text).with_overrides({"spec.seed": 2}).run()
    import gc

    gc.collect()
    assert r.scenario.seed == 2
    assert len(r.timeseries()) > 0


def test_default_scenario_runs(default_scenario_path: pathlib.Path) -> None:
    r = drsim.load(default_scenario_path).run()
    assert r.complete
    zone_up = r.timeseries("zone.up")
    assert (zone_up["value"] == 0.0).any()
    assert len(r.events()) > 0
