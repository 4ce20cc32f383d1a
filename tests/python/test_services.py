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


OPERATIONS = """\
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: shop}
spec:
  duration: 60s
  seed: 4
  metricsWindow: 10s
  topology:
    regions: [{name: r, zones: [{name: a}]}]
    services:
      - name: front
        replicas: [{zone: a, replicas: 1}]
        server: eventLoop
        concurrency: 2
        maxInFlight: 200
        discovery: oracle
        serviceTime: {kind: constant, value: 1ms}
        operations:
          - {name: browse, calls: [{service: catalog}]}
          - {name: buy, serviceTime: {kind: constant, value: 3ms}, calls: [{service: catalog, count: 2}]}
      - name: catalog
        replicas: [{zone: a, replicas: 1}]
        concurrency: 50
        discovery: oracle
        serviceTime: {kind: constant, value: 2ms}
  load:
    - name: users
      service: front
      load: {kind: constant, rate: 50rps}
      arrivals: deterministic
      operations: [{name: browse, weight: 4}, {name: buy, weight: 1}]
"""


def test_operations_have_their_own_figures_in_the_result() -> None:
    scenario = drsim.load_text(OPERATIONS)
    ops = scenario.spec.load[0].operations
    assert [(o.name, o.weight) for o in ops] == [("browse", 4.0), ("buy", 1.0)]
    result = scenario.run()
    offered = result.timeseries(metric="operation.offered").groupby("operation")["value"].sum()
    assert offered.sum() == result.timeseries(metric="client.offered")["value"].sum()
    assert 0.1 < offered["buy"] / offered.sum() < 0.3
    kpis = result.kpis()
    p50 = kpis[kpis["name"] == "operation.latency_p50_s"].set_index("operation")["value"]
    # browse: 1 ms + one 2 ms call; buy: 3 ms + two: no queueing at this load.
    assert abs(p50["browse"] - 0.003) < 0.003 * 0.01
    assert abs(p50["buy"] - 0.007) < 0.007 * 0.01
