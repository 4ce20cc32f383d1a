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
