"""Network-fidelity runs (spec.network.fidelity: flows) from Python.

SimGrid's engine is one per process: runs in threads must not trip over it.
drsim serialises network-fidelity runs, so threads get the same figures as
a run alone, one after the other.
"""

from __future__ import annotations

import threading

import pytest

import drsim
from conftest import REPO_ROOT

DRILL = REPO_ROOT / "scenarios" / "replication_under_bulk_copy.yaml"


@pytest.fixture(scope="module")
def drill() -> drsim.Scenario:
    return drsim.load(DRILL)


def test_flow_series_and_transfer_kpis(drill: drsim.Scenario) -> None:
    result = drill.run(until="200s")  # the copy runs from 180 s
    assert result.complete
    assert drill.spec.network.fidelity == "flows"
    assert result.kpi("transfer.completed", transfer="backup-copy") == 0.0
    assert result.kpi("transfer.bytes_sent", transfer="backup-copy") > 0
    ts = result.timeseries(metric="link.flows")
    on_line = ts[(ts["link"] == "north-east") & (ts["t_s"] >= 185) & (ts["t_s"] < 200)]
    assert len(on_line) == 15 and (on_line["value"] > 1.9).all()  # replication and the copy


def test_runs_in_threads_wait_for_each_other(drill: drsim.Scenario) -> None:
    expected = drill.run(until="190s").kpi("flow.bytes_total", transfer="backup-copy")
    results: list[float] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(drill.run(until="190s").kpi("flow.bytes_total", transfer="backup-copy"))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert results == [expected] * 3
