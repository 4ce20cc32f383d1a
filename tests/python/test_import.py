"""drsim.import_kubernetes: the command's import from Python (docs/import.md)."""

from __future__ import annotations

import pathlib

import pytest

import drsim

ROOT = pathlib.Path(__file__).resolve().parents[2]
BASIC = ROOT / "tests" / "data" / "manifests" / "basic"
BAD = ROOT / "tests" / "data" / "manifests" / "bad"


def test_a_directory_gives_a_scenario_and_its_notes(tmp_path: pathlib.Path) -> None:
    imported = drsim.import_kubernetes(BASIC)
    assert (imported.objects, imported.files, imported.skipped) == (14, 4, 0)
    notes = imported.notes
    assert list(notes.columns) == ["file", "line", "column", "object", "path", "message"]
    liveness = notes[notes["path"] == "spec.template.spec.containers[0].livenessProbe"]
    assert liveness["object"].tolist() == ["Deployment frontend"]
    assert liveness["line"].tolist() == [33]
    # Notes are in file order.
    assert notes.equals(notes.sort_values(["file", "line", "column"], kind="stable"))
    scenario = imported.scenario
    assert scenario.name == "imported"
    out = tmp_path / "imported.yaml"
    imported.write(out)
    assert drsim.load_file(out).name == "imported"


def test_options_are_the_commands() -> None:
    imported = drsim.import_kubernetes(
        [BASIC / "frontend.yaml"],
        zones=["zone-a", "zone-b", "zone-c"],
        region="eu-west-1",
        name="web",
        metrics={"http_requests_per_second": "requests_per_second"},
    )
    assert "name: eu-west-1" in imported.scenario_yaml
    assert "metric: {name: requests_per_second}" in imported.scenario_yaml
    assert imported.scenario.name == "web"
    only_shop = drsim.import_kubernetes(BAD / "two_namespaces.yaml", zones=["a"], namespace="shop")
    assert only_shop.skipped == 1


def test_a_bad_manifest_raises_with_its_position() -> None:
    with pytest.raises(drsim.ScenarioError) as caught:
        drsim.import_kubernetes(BAD / "bad_cpu.yaml", zones=["a"])
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic["file"].endswith("tests/data/manifests/bad/bad_cpu.yaml")
    assert (diagnostic["line"], diagnostic["column"]) == (13, 29)
    assert diagnostic["path"] == "Deployment api: spec.template.spec.containers[0].resources.requests.cpu"


def test_an_experiment_joins_the_scenarios_timeline(tmp_path: pathlib.Path) -> None:
    experiments = ROOT / "tests" / "data" / "experiments"
    imported = drsim.import_experiment(
        ROOT / "scenarios" / "online_boutique_zone_loss.yaml",
        experiments / "fis_az_power_interruption.json",
        zone_map={"us-east-1a": "zone-b"},
        at="4m",
    )
    assert imported.steps == 4
    assert "actions.Pause-Instance-Launches" in imported.notes["path"].tolist()
    timeline = imported.scenario.spec.timeline
    assert [step.name for step in timeline][:2] == ["lose-zone-a", "Pause-network-connectivity"]
    with pytest.raises(drsim.ScenarioError):
        drsim.import_experiment(
            ROOT / "scenarios" / "online_boutique_zone_loss.yaml", experiments / "bad" / "unknown_zone.json"
        )


SHOP_TRACES = ROOT / "examples" / "online_boutique" / "traces" / "shop_traces.json"


def test_traces_give_the_workload_as_tables(tmp_path: pathlib.Path) -> None:
    shop = tmp_path / "shop.yaml"
    drsim.import_kubernetes(ROOT / "examples" / "online_boutique" / "kubernetes").write(shop)
    imported = drsim.import_traces(shop, SHOP_TRACES, sampling=0.01, window="30s", samples=50)
    operations = imported.operations
    assert len(operations) == 21
    assert set(operations["service"]) >= {"frontend", "cartservice", "checkoutservice"}
    assert operations["samples_s"].map(len).max() == 50
    assert (operations["self_time_p50_s"] <= operations["self_time_p99_s"]).all()
    calls = imported.calls
    place = calls[calls["operation"] == "hipstershop.CheckoutService/PlaceOrder"]
    assert place["callee"].tolist()[0] == "cartservice"
    convert = place[place["callee_operation"] == "hipstershop.CurrencyService/Convert"]
    assert convert["count"].tolist() == [3]  # twice for the items, once for the shipping quote
    entries = imported.entries
    assert set(entries["operation"]) == {"GET /", "GET /cart", "GET /product/{id}", "POST /cart",
                                         "POST /cart/checkout", "POST /setCurrency"}
    # About the hand model's 300 requests a second, the 1% sampling undone, in four windows of 30 s.
    per_window = entries.groupby("window")["rate_per_s"].sum()
    assert len(per_window) == 4
    assert 200 < per_window.mean() < 400
    scenario = imported.scenario
    assert [p.service for p in scenario.spec.load] == ["frontend"] * 6


def test_a_runs_traces_come_back_with_its_calls(tmp_path: pathlib.Path) -> None:
    model = drsim.load_text(
        """
apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {name: traced}
spec:
  duration: 20s
  traces: {sampling: 100%}
  topology:
    regions: [{name: r, zones: [{name: a}]}]
    services:
      - name: api
        concurrency: 32
        replicas: [{zone: a, replicas: 2}]
        serviceTime: {kind: constant, value: 2ms}
        calls: [{service: db-api, count: 2}]
      - name: db-api
        concurrency: 32
        replicas: [{zone: a, replicas: 2}]
        serviceTime: {kind: exponential, mean: 1ms}
  load:
    - {name: users, service: api, load: {kind: constant, rate: 50rps}, timeout: 2s}
""",
        name="traced.yaml",
    )
    result = model.run()
    folder = result.to_dir(tmp_path / "out")
    source = tmp_path / "traced.yaml"
    source.write_text(model.to_yaml())
    imported = drsim.import_traces(source, folder / "traces.json")
    calls = imported.calls
    assert calls[["service", "operation", "callee", "callee_operation", "count", "probability"]].values.tolist() == [
        ["api", "default", "db-api", "default", 2, 1.0]
    ]
    api = imported.operations.set_index("service").loc["api"]
    assert api["self_time_mean_s"] == pytest.approx(0.002)
    assert imported.entries["rate_per_s"].sum() == pytest.approx(50, rel=0.15)


def test_bad_traces_raise_with_their_position(tmp_path: pathlib.Path) -> None:
    with pytest.raises(drsim.ScenarioError) as caught:
        drsim.import_traces(
            ROOT / "scenarios" / "online_boutique_zone_loss.yaml", ROOT / "tests" / "data" / "traces" / "bad" / "orphan.json"
        )
    assert "orphan.json:7:3: span c1 (cart GetCart) has parent gone" in str(caught.value)
    with pytest.raises(drsim.ScenarioError):
        drsim.import_traces(ROOT / "scenarios" / "online_boutique_zone_loss.yaml", SHOP_TRACES)  # other names
