"""Services and client load: the default scenario's requests in the Result."""

from __future__ import annotations

import pathlib

import drsim


def test_default_scenario_records_client_requests(default_scenario_path: pathlib.Path) -> None:
    result = drsim.load(default_scenario_path).run()
    ok = result.timeseries(metric="client.succeeded")
    assert len(ok) > 0
    assert (ok["population"] == "checkout").all()
    assert ok["value"].sum() > 0
    # The north-a outage moves that zone's traffic elsewhere: once payments'
    # cloud load balancer has found its targets dead (at most 65 s) and the
    # callers' cached answers have let go of its node (at most 34 s + the
    # 60 s TTL), the zone takes no arrivals (whole windows from 2 minutes in).
    timeline = result.scenario.timeline().set_index("name")
    start_s = float(timeline.loc["north-a-outage", "start_s"])
    end_s = float(timeline.loc["north-a-outage", "end_s"])
    arrivals = result.timeseries(metric="service.arrivals")
    north_a = arrivals[(arrivals["zone"] == "north-a")]
    inside = north_a[(north_a["t_s"] >= start_s + 120) & (north_a["t_s"] < end_s - 60)]
    assert len(inside) > 0 and inside["value"].sum() == 0
    before = north_a[north_a["t_s"] < start_s]
    assert before["value"].sum() > 0
