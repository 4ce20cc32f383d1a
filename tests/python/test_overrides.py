"""Scenario.with_overrides: the same validation as --set."""

from __future__ import annotations

import datetime

import pytest

import drsim
from drsim.scenario import _override_list


def test_seed_override(inline_scenario: drsim.Scenario) -> None:
    s = inline_scenario.with_overrides({"spec.seed": 11})
    assert s.seed == 11
    assert s.overrides == ("spec.seed=11",)
    # The original is unchanged: scenarios are immutable.
    assert inline_scenario.seed == 7
    assert inline_scenario.overrides == ()


def test_duration_override_text_verbatim(inline_scenario: drsim.Scenario) -> None:
    s = inline_scenario.with_overrides({"spec.duration": "30m"})
    assert s.duration_s == 1800.0


def test_timedelta_value(inline_scenario: drsim.Scenario) -> None:
    s = inline_scenario.with_overrides({"spec.duration": datetime.timedelta(minutes=90)})
    assert s.duration_s == 5400.0


def test_timeline_selector_by_name(inline_scenario: drsim.Scenario) -> None:
    s = inline_scenario.with_overrides({"spec.timeline[fail-a].at": "5m"})
    t = s.timeline()
    assert t.loc[t["name"] == "fail-a", "start_s"].item() == 300.0
    # degrade-link starts 5m after fail-a finishes: 5m + 30m + 5m.
    assert t.loc[t["name"] == "degrade-link", "start_s"].item() == 2400.0


def test_index_selector_and_list_value(inline_scenario: drsim.Scenario) -> None:
    s = inline_scenario.with_overrides({"spec.topology.regions[0].zones[1].name": "eu-west-1x"})
    assert "eu-west-1x" in s.zones
    s2 = inline_scenario.with_overrides({"spec.topology.links[0].between": ["eu-central-1", "eu-west-1"]})
    assert "eu-central-1" in s2.to_yaml()


def test_overrides_accumulate(inline_scenario: drsim.Scenario) -> None:
    s = inline_scenario.with_overrides({"spec.seed": 1}).with_overrides(["spec.duration=1h"])
    assert s.overrides == ("spec.seed=1", "spec.duration=1h")
    assert (s.seed, s.duration_s) == (1, 3600.0)


def test_load_with_overrides(inline_text: str) -> None:
    s = drsim.load(inline_text, overrides={"spec.guards.maxEvents": 5})
    assert s.guards["max_events"] == 5


def test_invalid_value_names_the_override(inline_scenario: drsim.Scenario) -> None:
    with pytest.raises(drsim.ScenarioError) as info:
        inline_scenario.with_overrides({"spec.duration": "30"})
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert "spec.duration" in message
    assert "spec.duration=30" in message or "--set" in message, message


def test_unknown_path(inline_scenario: drsim.Scenario) -> None:
    with pytest.raises(drsim.ScenarioError, match="nosuchkey"):
        inline_scenario.with_overrides({"spec.nosuchkey": 1})


def test_unknown_timeline_name(inline_scenario: drsim.Scenario) -> None:
    with pytest.raises(drsim.ScenarioError, match="no-such-step"):
        inline_scenario.with_overrides({"spec.timeline[no-such-step].at": "5m"})


def test_bad_override_arguments(inline_scenario: drsim.Scenario) -> None:
    with pytest.raises(TypeError):
        inline_scenario.with_overrides("spec.seed=3")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        inline_scenario.with_overrides(["spec.seed"])
    with pytest.raises(ValueError):
        inline_scenario.with_overrides({"spec.seed=3": 4})
    with pytest.raises(TypeError):
        inline_scenario.with_overrides({"spec.seed": object()})


def test_value_conversion() -> None:
    got = _override_list(
        {
            "a": "5m",
            "b": 7,
            "c": 2.5,
            "d": True,
            "e": False,
            "f": ["x", "y z", 3],
            "g": {"k": "v", "n": 1},
            "h": None,
            "i": datetime.timedelta(seconds=90),
            "j": [],
        }
    )
    assert got == [
        "a=5m",
        "b=7",
        "c=2.5",
        "d=true",
        "e=false",
        'f=[x, "y z", 3]',
        "g={k: v, n: 1}",
        "h=null",
        "i=1m30s",
        "j=[]",
    ]
