"""Result.objectives() and Result.fault_figures(): the verdicts on
spec.objectives and the per-fault recovery figures, as objectives.json has
them. The pool pile-up drill declares an RTO of 1 minute for east's users:
with the default pool settings they are back only after 15m50s, with the
drill's fix after 18 s."""

from __future__ import annotations

import json
import math
import pathlib

import pytest

import drsim

ROOT = pathlib.Path(__file__).resolve().parents[2]
PILEUP = ROOT / "scenarios" / "three_region_pool_pileup.yaml"
FIX = {
    "spec.topology.services[payments].calls[1].pool.idleTimeout": "10s",
    "spec.topology.services[payments].calls[1].pool.maxLifetime": "300s",
    "spec.topology.services[payments].calls[1].pool.socketTimeout": "5s",
    "spec.topology.services[payments].calls[1].pool.tcp.keepaliveTime": "60s",
}


@pytest.fixture(scope="module")
def default_run() -> drsim.Result:
    return drsim.load(PILEUP).run()


def test_one_row_per_verdict_in_declaration_order(default_run: drsim.Result) -> None:
    v = default_run.objectives()
    assert list(v.columns) == ["objective", "scope", "unit", "comparison", "target", "measured", "note", "passed"]
    assert list(v["objective"]) == ["rto", "rpo", "availability", "latencyP99"]
    assert list(v["scope"]) == ["north-lost", "north-lost", "run", "run"]
    rto = v.set_index("objective").loc["rto"]
    assert rto["unit"] == "s" and rto["comparison"] == "<=" and rto["target"] == 60
    assert rto["measured"] == 950  # 15m50s, the fault table's "recovered"
    assert not rto["passed"]
    assert v["passed"].dtype == bool
    assert not default_run.objectives_passed()


def test_the_rpo_is_the_shards_failover_loss(default_run: drsim.Result) -> None:
    v = default_run.objectives().set_index("objective")
    assert v.loc["rpo", "measured"] == pytest.approx(default_run.kpi("database.rpo_seconds", database="north-shard"))
    assert v.loc["rpo", "passed"]


def test_fault_figures(default_run: drsim.Result) -> None:
    f = default_run.fault_figures()
    assert list(f["step"]) == ["north-lost"]
    row = f.iloc[0]
    assert row["action"] == "region:fail" and row["target"] == "region=north"
    assert row["start_s"] == 300 and math.isnan(row["end_s"])
    # The shard's third failed health check, 2 s apart, the first due at 300 s.
    assert row["detection_s"] == 4 and row["detected_by"] == "database/north-shard: database.failure_detected"
    # North serves no requests at all: nothing to switch away.
    assert row["traffic_switch_s"] == 0
    assert row["rto_s"] == 950
    assert row["latency_p99_during_s"] > row["latency_p99_before_s"]
    assert math.isnan(row["latency_p99_after_s"])  # the fault is never repaired


def test_the_fix_passes_every_objective() -> None:
    fixed = drsim.load(PILEUP).with_overrides(FIX).run()
    assert fixed.objectives_passed()
    assert fixed.objectives()["passed"].all()
    assert fixed.fault_figures().iloc[0]["rto_s"] == 18


def test_objectives_json_is_written_with_the_results(default_run: drsim.Result, tmp_path: pathlib.Path) -> None:
    written = json.loads((default_run.to_dir(tmp_path) / "objectives.json").read_text())
    assert written["passed"] is False
    assert [v["objective"] for v in written["verdicts"]] == list(default_run.objectives()["objective"])


def test_without_targets_there_are_no_verdicts() -> None:
    run = drsim.load(ROOT / "scenarios" / "default.yaml").run()
    assert run.objectives().empty and list(run.objectives().columns)[0] == "objective"
    assert run.objectives_passed()
    assert len(run.fault_figures()) > 0  # the figures are there all the same
