"""The data tier from Python: the pool pile-up drill as a capacity planner
would look at it in a notebook, with the drill's fix as overrides."""

from __future__ import annotations

import pathlib

import pytest

import drsim

PILEUP = pathlib.Path(__file__).resolve().parents[2] / "scenarios" / "three_region_pool_pileup.yaml"
FIX = {
    "spec.topology.services[payments].calls[1].pool.idleTimeout": "10s",
    "spec.topology.services[payments].calls[1].pool.maxLifetime": "300s",
    "spec.topology.services[payments].calls[1].pool.socketTimeout": "5s",
    "spec.topology.services[payments].calls[1].pool.tcp.keepaliveTime": "60s",
}


def recovery_s(result: drsim.Result) -> float:
    """Seconds from the loss (300 s) to the first second with 300 of east's 400 requests/s through."""
    ok = result.timeseries("client.succeeded", population="east-users")
    after = ok[(ok["t_s"] > 300) & (ok["value"] >= 300)]
    return float(after["t_s"].min()) - 300


@pytest.fixture(scope="module")
def default_run() -> drsim.Result:
    return drsim.load(PILEUP).run()


def test_the_pool_series_are_dataframes_labelled_by_database(default_run: drsim.Result) -> None:
    pools = default_run.timeseries("pool.active", database="north-shard")
    assert set(pools["service"]) == {"payments"} and set(pools["zone"]) == {"east-a"}
    # All six pods' ten connections held by queries to the dead primary.
    assert pools[(pools["t_s"] >= 305) & (pools["t_s"] < 1200)]["value"].min() == 60
    assert default_run.kpi("database.peak_connections", database="north-shard") == 60


def test_defaults_pile_up_for_minutes_the_fix_recovers_in_seconds(default_run: drsim.Result) -> None:
    fixed = drsim.load(PILEUP).with_overrides(FIX).run()
    assert recovery_s(default_run) > 900  # the kernel's 924.6 s retransmission give-up
    assert 14 <= recovery_s(fixed) < 30  # after the endpoint switch at 14 s
    assert default_run.kpi("database.rto_seconds", database="north-shard") == 14
    assert fixed.kpi("database.rto_seconds", database="north-shard") == 14
