"""drsim.check: the N+1 capacity report of `drsim check`, from Python."""

from __future__ import annotations

import math
import os
import pathlib
import subprocess

import pytest

import drsim


def test_every_case_of_the_default_scenario_holds(repo_root: pathlib.Path) -> None:
    report = drsim.check(repo_root / "scenarios" / "default.yaml")
    scenario = drsim.load(repo_root / "scenarios" / "default.yaml")
    zones = scenario.zones
    regions = [r["name"] for r in scenario.regions]
    assert report.case_names == ["steady"] + [f"zone {z} down" for z in zones] + [f"region {r} down" for r in regions]
    assert not report.overloaded and report.overloaded_cases() == []
    assert report.utilization_target == 0.8
    # One station per case and zone (one service), one population row per case.
    assert len(report.stations) == len(report.case_names) * len(zones)
    assert len(report.populations) == len(report.case_names)


def test_utilisation_is_littles_law_over_the_zones_workers(repo_root: pathlib.Path) -> None:
    # Steady state: 300/s spread evenly over 9 zones; each zone's workers are
    # its pods x concurrency, each held for the mean service time.
    scenario = drsim.load(repo_root / "scenarios" / "default.yaml")
    service = scenario.services["payments"]
    steady = drsim.check(scenario).stations.query("case == 'steady'")
    rate = scenario.spec.load[0].load.rate / len(scenario.zones)
    for row in steady.itertuples():
        assert row.rate_per_s == pytest.approx(rate)
        workers = row.up_pods * service.concurrency
        assert row.utilization == pytest.approx(rate * row.mean_holding_s / workers, rel=1e-9)
    # A zone down: its rate moves to the other 8 zones, its station has no pods.
    lost = drsim.check(scenario).stations.query("case == 'zone north-a down'").set_index("zone")
    assert lost.loc["north-a", "up_pods"] == 0 and lost.loc["north-a", "rate_per_s"] == 0
    assert math.isnan(lost.loc["north-a", "headroom"]) and math.isnan(lost.loc["north-a", "mean_response_s"])
    assert lost.drop("north-a")["rate_per_s"].tolist() == pytest.approx([300 / 8] * 8)


def test_the_skewed_deployment_overloads_when_a_big_zone_fails(repo_root: pathlib.Path) -> None:
    # docs/sources.md section 1: 10/10 over zones a and b, zone-c empty. Either
    # zone down puts everything on the other one: 88% of its workers.
    scenario = drsim.load(repo_root / "scenarios" / "appfabric_az_failure.yaml")
    report = scenario.check(utilization_target="70%")
    assert report.utilization_target == pytest.approx(0.7)
    assert report.overloaded_cases() == ["zone zone-a down", "zone zone-b down"]
    table = report.utilization("api")
    assert list(table.index) == report.case_names
    assert list(table.columns) == ["zone-a", "zone-b", "zone-c"]
    assert table.loc["zone zone-a down", "zone-b"] == pytest.approx(2 * table.loc["steady", "zone-b"])
    # The verdict follows the target: 87.5% is over 80% but under 90%.
    assert table.max().max() == pytest.approx(0.875)
    assert scenario.check().overloaded_cases() == ["zone zone-a down", "zone zone-b down"]
    assert not scenario.check(utilization_target=0.9).overloaded
    html = report._repr_html_()
    assert html.count("font-weight:bold") == 2 and "overloaded in 2 of 4 cases" in html


def test_overrides_change_the_report(repo_root: pathlib.Path) -> None:
    path = repo_root / "scenarios" / "appfabric_az_failure.yaml"
    base = drsim.check(path, utilization_target=0.7)
    more = drsim.check(path, utilization_target=0.7, overrides={"spec.topology.services[api].replicas[1].replicas": 20})
    assert more.utilization("api").loc["zone zone-a down", "zone-b"] == pytest.approx(
        base.utilization("api").loc["zone zone-a down", "zone-b"] / 2
    )
    assert "zone zone-a down" not in more.overloaded_cases()
    # The same through Scenario.replace.
    replaced = drsim.load(path).replace({"spec.topology.services[api].replicas[1].replicas": 20})
    assert drsim.check(replaced, utilization_target=0.7).to_json() == more.to_json()


def test_the_report_is_the_command_lines(repo_root: pathlib.Path) -> None:
    cli = pathlib.Path(os.environ.get("DRSIM_CLI", repo_root / "build" / "cli" / "drsim"))
    if not cli.exists():
        pytest.skip(f"no drsim binary at {cli} (set DRSIM_CLI)")
    path = repo_root / "scenarios" / "appfabric_az_failure.yaml"
    as_json = subprocess.run([str(cli), "check", str(path), "--json", "--target", "70%"], capture_output=True,
                             text=True, check=True).stdout
    as_text = subprocess.run([str(cli), "check", str(path), "--target", "70%"], capture_output=True, text=True,
                             check=True).stdout
    report = drsim.check(path, utilization_target="70%")
    assert report.to_json() == as_json
    assert str(report) == report.text == as_text


def test_the_report_is_deterministic_and_typed(repo_root: pathlib.Path) -> None:
    path = repo_root / "scenarios" / "default.yaml"
    assert drsim.check(path).to_json() == drsim.check(path).to_json()
    stations = drsim.check(path).stations
    assert str(stations["up_pods"].dtype) == "int64"
    assert str(stations["utilization"].dtype) == "float64"
    assert str(stations["overloaded"].dtype) == "bool"
    assert repr(drsim.check(path)) == "<drsim.CapacityReport 'default' target=80% holds in every case>"


@pytest.mark.parametrize(
    ("target", "error", "message"),
    [
        (0, ValueError, "positive fraction"),
        (-0.5, ValueError, "positive fraction"),
        (float("nan"), ValueError, "positive fraction"),
        ("eighty", ValueError, "percentage such as '80%'"),
        (True, TypeError, "not bool"),
        (None, TypeError, "not NoneType"),
    ],
)
def test_a_bad_target_is_refused(repo_root: pathlib.Path, target: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        drsim.check(repo_root / "scenarios" / "default.yaml", utilization_target=target)  # type: ignore[arg-type]


def test_bad_scenarios_are_refused(repo_root: pathlib.Path, tmp_path: pathlib.Path) -> None:
    with pytest.raises(TypeError, match="drsim.Scenario or a file path"):
        drsim.check(42)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        drsim.check(tmp_path / "missing.yaml")
    with pytest.raises(drsim.ScenarioError, match="replicaz"):
        drsim.check(repo_root / "scenarios" / "default.yaml", overrides={"spec.topology.services[payments].replicaz": 1})
    report = drsim.check(repo_root / "scenarios" / "appfabric_az_failure.yaml")
    with pytest.raises(KeyError, match="services: api"):
        report.utilization("web")


def test_the_pool_pileup_reports_its_pools(repo_root: pathlib.Path) -> None:
    # Each of east's 6 payments pods holds 10 connections towards each shard.
    # Steady, the north shard's transaction is 4 statements 29 ms away (1 ms
    # each on the server): 120 ms a borrow, 400 borrows/s over 60
    # connections, 80%. North lost: the shard fails over to its east replica
    # and the hold drops to the queries' server time.
    report = drsim.check(repo_root / "scenarios" / "three_region_pool_pileup.yaml")
    pools = report.pools
    assert list(pools.columns) == ["case", "service", "database", "zone", "up_pods", "connections", "rate_per_s",
                                   "utilization", "mean_hold_s", "mean_wait_s", "stable", "overloaded"]
    assert str(pools["connections"].dtype) == "int64" and str(pools["mean_wait_s"].dtype) == "float64"
    steady = pools.query("case == 'steady'").set_index("database")
    assert list(steady.index) == ["east-shard", "north-shard"]
    north = steady.loc["north-shard"]
    assert (north.service, north.zone, north.up_pods, north.connections) == ("payments", "east-a", 6, 10)
    assert north.rate_per_s == pytest.approx(400)
    assert north.mean_hold_s == pytest.approx(0.120, rel=1e-6)
    assert north.utilization == pytest.approx(400 * north.mean_hold_s / 60)
    assert north.mean_wait_s > 0 and north.stable and not north.overloaded
    lost = pools.query("case == 'region north down'").set_index("database").loc["north-shard"]
    assert lost.mean_hold_s == pytest.approx(0.004, rel=1e-6)
    assert lost.utilization < 0.05
    # East down: no pod left, no borrows, no times.
    gone = pools.query("case == 'region east down'")
    assert (gone["up_pods"] == 0).all() and (gone["rate_per_s"] == 0).all() and gone["mean_wait_s"].isna().all()
    cases = report.cases.set_index("case")
    assert "database north-shard in north-a loses its primary" in cases.loc["region north down", "blast_radius"]


def test_a_scenario_without_databases_has_no_pools(repo_root: pathlib.Path) -> None:
    pools = drsim.check(repo_root / "scenarios" / "default.yaml").pools
    assert pools.empty and "mean_wait_s" in pools.columns


def test_the_pool_report_is_the_command_lines(repo_root: pathlib.Path) -> None:
    cli = pathlib.Path(os.environ.get("DRSIM_CLI", repo_root / "build" / "cli" / "drsim"))
    if not cli.exists():
        pytest.skip(f"no drsim binary at {cli} (set DRSIM_CLI)")
    for name in ("three_region_pool_pileup.yaml", "same_city_dual_active.yaml"):
        path = repo_root / "scenarios" / name
        as_json = subprocess.run([str(cli), "check", str(path), "--json"], capture_output=True, check=True).stdout
        as_text = subprocess.run([str(cli), "check", str(path)], capture_output=True, text=True, check=True).stdout
        report = drsim.check(path)
        assert report.to_json().encode() == as_json
        assert report.text == as_text


# ---- overloaded stations: numbers, not null; inf, not NaN -------------------------


def _chain(front_calls: bool, rate: int, zones: int = 1) -> drsim.Scenario:
    """front (8 workers, 5 ms) optionally holding them for a call to back (4
    workers, 10 ms), one pod per zone, ``rate`` requests per second."""
    zone_list = ", ".join(f"{{name: z{i}}}" for i in range(zones))
    pods = ", ".join(f"{{zone: z{i}, replicas: 1}}" for i in range(zones))
    calls = "\n        calls: [{service: back}]" if front_calls else ""
    return drsim.load_text(f"""\
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {{name: chain}}
spec:
  duration: 10m
  topology:
    regions:
      - name: r
        interZoneRtt: 2ms
        zones: [{zone_list}]
    services:
      - name: front
        concurrency: {8 if front_calls else 4}
        serviceTime: {{kind: exponential, mean: {5 if front_calls else 10}ms}}
        replicas: [{pods}]{calls}
      - name: back
        concurrency: 4
        serviceTime: {{kind: exponential, mean: 10ms}}
        replicas: [{pods}]
  load:
    - {{name: users, service: front, load: {{kind: constant, rate: {rate}rps}}}}
""")


@pytest.mark.parametrize("rate", [400, 600])
def test_an_overloaded_mmc_station_reports_rho_and_infinite_waits(rate: int) -> None:
    # M/M/4, 10 ms: 400 rps is rho 1.0, 600 rps 1.5. No steady state: the
    # wait, queue and response are inf (never NaN), the headroom 0.8 / rho - 1.
    report = drsim.check(_chain(False, rate))
    front = report.stations.query("case == 'steady' and service == 'front'").iloc[0]
    rho = rate * 0.010 / 4
    assert front.utilization == pytest.approx(rho, rel=1e-12)
    assert front.headroom == pytest.approx(0.8 / rho - 1, rel=1e-9)
    assert front.mean_holding_s == pytest.approx(0.010)
    assert not front.holding_lower_bound and not front.stable and front.overloaded
    for column in ("mean_wait_s", "mean_queue_length", "mean_response_s"):
        assert front[column] == math.inf, column
    assert report.populations.loc[0, "mean_latency_s"] == math.inf
    # No null but the case's error and the CPU limit share of services without a limit.
    steady = report.to_json().split('"name": "zone z0 down"')[0]
    assert "inf" in report.text and "null" not in steady.replace('"error": null', "").replace(
        '"cpu_limit_share": null', "")
    assert math.isnan(front.cpu_limit_share) and front.cpu_request_share == pytest.approx(1.0)


@pytest.mark.parametrize("rate", [400, 600])
def test_a_caller_holding_its_workers_for_an_overloaded_callee_has_numbers(rate: int) -> None:
    # back at rho 1.0 and 1.5; front's workers wait for it. front's holding
    # time, utilisation and headroom were NaN, NaN and -100%: now bounds
    # (front's 5 ms + back's 10 ms, back's growing wait left out).
    stations = drsim.check(_chain(True, rate)).stations.query("case == 'steady'").set_index("service")
    back, front = stations.loc["back"], stations.loc["front"]
    assert back.utilization == pytest.approx(rate * 0.010 / 4, rel=1e-12)
    assert back.mean_wait_s == math.inf and back.mean_queue_length == math.inf
    assert front.holding_lower_bound and not front.stable and front.overloaded
    assert 0.015 <= front.mean_holding_s < 0.0151
    assert front.utilization == pytest.approx(rate * front.mean_holding_s / 8, rel=1e-9)
    assert front.headroom == pytest.approx(0.8 / front.utilization - 1, rel=1e-9)
    assert front.headroom > -1
    assert front.mean_wait_s == math.inf and front.mean_response_s == math.inf
    assert not stations[["utilization", "headroom", "mean_holding_s"]].isna().any().any()


def test_groupby_max_shows_the_overloaded_cells() -> None:
    # Two zones at 300 rps each (rho 0.75); either zone down puts 600 rps
    # (rho 1.5) on the other. The maximum over the cases is inf, not a
    # NaN that max() would skip.
    stations = drsim.check(_chain(False, 600, zones=2)).stations
    front = stations[stations["service"] == "front"]
    worst_wait = front.groupby("zone")["mean_wait_s"].max()
    assert (worst_wait == math.inf).all()
    assert front.groupby("case")["mean_response_s"].max().to_dict() == {
        "steady": pytest.approx(front.query("case == 'steady'")["mean_response_s"].max()),
        "zone z0 down": math.inf,
        "zone z1 down": math.inf,
    }
    assert front.groupby("zone")["utilization"].max().tolist() == pytest.approx([1.5, 1.5])
    # The zone without pods has nothing to measure: NaN there, and only there.
    lost = front.query("up_pods == 0")
    assert lost["mean_wait_s"].isna().all() and lost["headroom"].isna().all()
    assert not front.query("up_pods > 0")[["mean_wait_s", "mean_queue_length", "mean_response_s"]].isna().any().any()


def test_the_worst_case_view_picks_each_services_busiest_station(repo_root: pathlib.Path) -> None:
    for report in (drsim.check(_chain(True, 600, zones=3)), drsim.check(_chain(True, 600, zones=2)),
                   drsim.check(repo_root / "scenarios" / "three_region_pool_pileup.yaml")):
        worst = report.worst()
        stations = report.stations
        assert list(worst.columns) == ["service", "case", "zone", "utilization", "headroom", "holding_lower_bound",
                                       "stable", "overloaded", "overloaded_cases"]
        assert list(worst["service"]) == list(dict.fromkeys(stations["service"]))
        assert str(worst["overloaded_cases"].dtype) == "int64" and str(worst["overloaded"].dtype) == "bool"
        for row in worst.itertuples(index=False):
            mine = stations[stations["service"] == row.service]
            # idxmax: the first row with the maximum, as the report breaks ties.
            best = mine.loc[mine["utilization"].idxmax()]
            assert (row.case, row.zone) == (best["case"], best["zone"])
            assert row.utilization == best["utilization"] and row.headroom == best["headroom"]
            assert row.overloaded == best["overloaded"] and row.stable == best["stable"]
            assert row.holding_lower_bound == best["holding_lower_bound"]
            assert row.overloaded_cases == mine.groupby("case")["overloaded"].any().sum()
    # The chain over two zones: a zone down leaves 600 rps on one pod of
    # each, back at 1.5 (the first such case in report order), front holding
    # for it (a lower bound).
    report = drsim.check(_chain(True, 600, zones=2))
    worst = report.worst().set_index("service")
    assert worst.loc["back", "utilization"] == pytest.approx(1.5)
    assert (worst.loc["back", "case"], worst.loc["back", "zone"]) == ("zone z0 down", "z1")
    assert worst.loc["front", "holding_lower_bound"] and not worst.loc["front", "stable"]
    assert worst.loc["back", "overloaded_cases"] == 2 and worst.loc["front", "overloaded_cases"] == 2  # not steady
    # The text prints the same table first.
    assert report.text.index("worst case per service") < report.text.index("\nsteady")
    assert "  back           zone z0 down             z1" in report.text


def test_an_overloaded_report_is_the_command_lines(tmp_path: pathlib.Path, repo_root: pathlib.Path) -> None:
    cli = pathlib.Path(os.environ.get("DRSIM_CLI", repo_root / "build" / "cli" / "drsim"))
    if not cli.exists():
        pytest.skip(f"no drsim binary at {cli} (set DRSIM_CLI)")
    path = tmp_path / "chain.yaml"
    path.write_text(_chain(True, 600, zones=2).to_yaml())
    as_json = subprocess.run([str(cli), "check", str(path), "--json"], capture_output=True, check=True).stdout
    as_text = subprocess.run([str(cli), "check", str(path)], capture_output=True, text=True, check=True).stdout
    report = drsim.check(path)
    assert report.to_json().encode() == as_json and report.text == as_text
    assert b'"mean_wait_s": "inf"' in as_json and b'"holding_lower_bound": true' in as_json


# ---- CPU against request and limit --------------------------------------------


def test_cpu_per_pod_against_its_request_and_limit() -> None:
    # 100 rps per pod x 2 ms of CPU each (of 10 ms wall) = 0.2 cores: 200% of a 100m request, 80% of a 250m
    # limit; at 150 rps, 0.3 cores: above the limit, overloaded and noted, though its 8 workers are far from
    # busy (18.75%).
    def shop(rate: int) -> drsim.Scenario:
        return drsim.load_text(f"""\
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {{name: cpu}}
spec:
  duration: 1m
  topology:
    regions: [{{name: r, zones: [{{name: a}}]}}]
    services:
      - name: api
        concurrency: 8
        serviceTime: {{kind: exponential, mean: 10ms}}
        cpuTime: 2ms
        cpu: {{request: 100m, limit: 250m}}
        replicas: [{{zone: a, replicas: 1}}]
  load:
    - {{name: users, service: api, load: {{kind: constant, rate: {rate}rps}}}}
""")

    steady = drsim.check(shop(100)).stations.query("case == 'steady'").iloc[0]
    assert steady.cpu_cores == pytest.approx(0.2)
    assert steady.cpu_request_share == pytest.approx(2.0)
    assert steady.cpu_limit_share == pytest.approx(0.8)
    assert not steady.overloaded
    report = drsim.check(shop(150))
    over = report.stations.query("case == 'steady'").iloc[0]
    assert over.cpu_limit_share == pytest.approx(1.2)
    assert over.utilization == pytest.approx(0.1875)
    assert over.overloaded
    assert "120% of its CPU limit 250m" in report.text


def test_a_row_per_operation_of_a_populations_mix() -> None:
    # 40 rps: 3 browse (1 ms, then catalog once) to 1 buy (5 ms, then catalog's slow 20 ms operation twice).
    # catalog's operations make no calls, so the rows weighted by the mix are the population's mean
    # (self-consistency); buy waits for two slow answers, browse for one quick one.
    report = drsim.check(drsim.load_text("""\
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: mix}
spec:
  duration: 1m
  topology:
    regions: [{name: r, zones: [{name: a}]}]
    services:
      - name: web
        concurrency: 16
        serviceTime: {kind: exponential, mean: 1ms}
        replicas: [{zone: a, replicas: 1}]
        operations:
          - {name: browse, calls: [{service: catalog}]}
          - name: buy
            serviceTime: {kind: exponential, mean: 5ms}
            calls: [{service: catalog, operation: slow, count: 2}]
      - name: catalog
        concurrency: 8
        serviceTime: {kind: exponential, mean: 2ms}
        replicas: [{zone: a, replicas: 1}]
        operations:
          - {name: slow, serviceTime: {kind: exponential, mean: 20ms}}
  load:
    - name: users
      service: web
      load: {kind: constant, rate: 40rps}
      operations: [{name: browse, weight: 3}, {name: buy, weight: 1}]
"""))
    ops = report.operations.query("case == 'steady'").set_index("operation")
    assert list(ops.index) == ["browse", "buy"]
    assert ops.rate_per_s.tolist() == pytest.approx([30.0, 10.0])
    population = report.populations.query("case == 'steady'").iloc[0]
    assert 0.75 * ops.mean_latency_s["browse"] + 0.25 * ops.mean_latency_s["buy"] == pytest.approx(
        population.mean_latency_s, rel=1e-6)
    # (The JSON's seconds are rounded: buy's waits on top of its 45 ms of service may not show.)
    assert ops.mean_latency_s["buy"] >= 0.045 - 1e-9
    assert ops.mean_latency_s["browse"] < 0.005
    assert "operation buy" in report.text
    # A population without a mix has no rows.
    assert drsim.check(drsim.load_text("""\
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: plain}
spec:
  duration: 1m
  topology:
    regions: [{name: r, zones: [{name: a}]}]
    services: [{name: web, serviceTime: {kind: exponential, mean: 1ms}, replicas: [{zone: a, replicas: 1}]}]
  load: [{name: users, service: web, load: {kind: constant, rate: 1rps}}]
""")).operations.empty
