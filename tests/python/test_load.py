"""drsim.load: paths, PathLikes and text; the Scenario's properties."""

from __future__ import annotations

import os
import pathlib
import pickle

import pytest

import drsim
from conftest import INLINE_SCENARIO, good_scenarios, shipped_scenarios


def test_load_text(inline_scenario: drsim.Scenario) -> None:
    s = inline_scenario
    assert isinstance(s, drsim.Scenario)
    assert s.name == "py-inline"
    assert s.description == "Inline scenario for the Python tests."
    assert s.duration_s == 7200.0
    assert isinstance(s.duration_s, float)
    assert s.seed == 7
    assert s.source_file == "<text>"
    assert s.overrides == ()
    assert s.api_version == "drsim/v1alpha1"
    assert s.kind == "Scenario"
    assert s.zones == ["eu-west-1a", "eu-west-1b", "eu-west-1c", "eu-central-1a"]
    assert [r["name"] for r in s.regions] == ["eu-west-1", "eu-central-1"]
    assert s.links == [
        {"name": "west-central", "between": ["eu-west-1", "eu-central-1"], "rtt_s": 0.028, "bandwidth_bps": 10e9}
    ]


def test_load_text_explicitly_with_a_name() -> None:
    s = drsim.load_text(INLINE_SCENARIO, name="inline.yaml")
    assert s.source_file == "inline.yaml"


def test_load_path_str_and_pathlike(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "inline.yaml"
    path.write_text(INLINE_SCENARIO)
    from_str = drsim.load(str(path))
    from_path = drsim.load(path)
    from_file = drsim.load_file(path)
    for s in (from_str, from_path, from_file):
        assert s.name == "py-inline"
        assert s.source_file == str(path)
    assert from_str.to_yaml() == from_path.to_yaml() == drsim.load(INLINE_SCENARIO).to_yaml()


def test_existing_file_without_yaml_suffix_is_a_path(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "scenario.txt"
    path.write_text(INLINE_SCENARIO)
    assert drsim.load(str(path)).source_file == str(path)


def test_missing_file_is_file_not_found(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError):
        drsim.load(str(tmp_path / "nope.yaml"))
    with pytest.raises(FileNotFoundError):
        drsim.load(tmp_path / "nope")
    with pytest.raises(FileNotFoundError):
        drsim.load_file(tmp_path / "nope.yml")
    # A single line without ':' cannot be a scenario: taken as a mistyped path.
    with pytest.raises(FileNotFoundError):
        drsim.load("scenarios/defualt")


def test_single_line_flow_text_is_text() -> None:
    with pytest.raises(drsim.ScenarioError, match=r"^<text>:1:"):
        drsim.load("{apiVersion: drsim/v1alpha1, kind: Scenario}")


def test_load_rejects_other_types() -> None:
    with pytest.raises(TypeError):
        drsim.load(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        drsim.load_text(b"apiVersion: x")  # type: ignore[arg-type]


def test_default_scenario(default_scenario_path: pathlib.Path, repo_root: pathlib.Path) -> None:
    s = drsim.load(default_scenario_path)
    assert s.name == "default"
    assert s.duration_s > 0
    assert len(s.zones) >= 3
    timeline = s.timeline()
    assert list(timeline.columns) == ["name", "action", "target", "start_s", "end_s"]
    assert (timeline["action"] == "zone:fail").any()
    # Relative paths resolve against the file, whatever the current directory.
    cwd = os.getcwd()
    try:
        os.chdir(default_scenario_path.parent.parent / "tests")
        assert drsim.load(default_scenario_path).to_yaml() == s.to_yaml()
        rel = os.path.relpath(default_scenario_path)
        assert drsim.load(rel).name == "default"
    finally:
        os.chdir(cwd)


def test_text_resolves_topology_against_base_dir(default_scenario_path: pathlib.Path) -> None:
    text = default_scenario_path.read_text()
    s = drsim.load_text(text, base_dir=default_scenario_path.parent)
    assert s.to_yaml() == drsim.load(default_scenario_path).to_yaml()


@pytest.mark.parametrize("path", good_scenarios() + shipped_scenarios(), ids=lambda p: p.name)
def test_good_scenarios_load(path: pathlib.Path) -> None:
    s = drsim.load(path)
    assert s.name
    # The resolved YAML loads back to the same scenario.
    again = drsim.load_text(s.to_yaml(), name=str(path))
    assert again.to_yaml() == s.to_yaml()


def test_timeline_is_resolved(inline_scenario: drsim.Scenario) -> None:
    t = inline_scenario.timeline()
    assert list(t["name"]) == ["fail-a", "degrade-link"]
    assert list(t["start_s"]) == [600.0, 2700.0]
    assert list(t["end_s"]) == [2400.0, 3300.0]
    assert t["target"][0] == "zone=eu-west-1a"


def test_to_yaml_and_describe(inline_scenario: drsim.Scenario) -> None:
    text = inline_scenario.to_yaml()
    assert "apiVersion: drsim/v1alpha1" in text
    assert drsim.load(text).to_yaml() == text
    assert "py-inline" in inline_scenario.describe()


def test_repr(inline_scenario: drsim.Scenario) -> None:
    r = repr(inline_scenario)
    assert r.startswith("<drsim.Scenario 'py-inline'")
    assert "duration=2h" in r
    assert "seed=7" in r


def test_pickle_round_trip(inline_scenario: drsim.Scenario) -> None:
    s = inline_scenario.with_overrides({"spec.seed": 3})
    back = pickle.loads(pickle.dumps(s))
    assert back.to_yaml() == s.to_yaml()
    assert back.overrides == s.overrides


def test_version_matches_cmake_project(repo_root: pathlib.Path) -> None:
    import re

    cmake = (repo_root / "CMakeLists.txt").read_text()
    m = re.search(r"project\(drsim\s+VERSION\s+([0-9.]+)", cmake)
    assert m is not None
    assert drsim.__version__ == m.group(1)


def test_docs_generators() -> None:
    md = drsim.scenario_format_markdown()
    assert isinstance(md, str) and "duration" in md
    schema = drsim.scenario_json_schema()
    assert isinstance(schema, dict)
    assert schema.get("type") == "object" or "properties" in schema or "$defs" in schema
