"""Every kind of C++ exception arrives as the right Python exception (and
never aborts the interpreter)."""

from __future__ import annotations

import pytest

import drsim
from drsim import _core


def test_scenario_error() -> None:
    with pytest.raises(drsim.ScenarioError) as info:
        _core._throw_for_tests("scenario")
    err = info.value
    assert isinstance(err, ValueError)
    assert str(err).splitlines() == [
        "x.yaml:3:7: spec.duration: expected X, got Y",
        "x.yaml:9:1: spec.seed: expected Z",
    ]
    assert err.diagnostics == [
        {"file": "x.yaml", "line": 3, "column": 7, "path": "spec.duration", "message": "expected X, got Y"},
        {"file": "x.yaml", "line": 9, "column": 1, "path": "spec.seed", "message": "expected Z"},
    ]


def test_simulation_error() -> None:
    with pytest.raises(drsim.SimulationError, match="^broken invariant$") as info:
        _core._throw_for_tests("simulation")
    assert isinstance(info.value, RuntimeError)
    assert not isinstance(info.value, drsim.HandlerError)


def test_handler_error() -> None:
    with pytest.raises(drsim.HandlerError) as info:
        _core._throw_for_tests("handler")
    err = info.value
    assert isinstance(err, drsim.SimulationError) and isinstance(err, RuntimeError)
    assert str(err) == 'at t=00:00:01, component "c", event "e": boom'
    assert err.where == 'at t=00:00:01, component "c", event "e"'


@pytest.mark.parametrize(
    "kind, python_type",
    [
        ("filesystem", PermissionError),
        ("invalid_argument", ValueError),
        ("runtime", RuntimeError),
        ("bad_alloc", MemoryError),
        ("int", RuntimeError),
        ("logic", RuntimeError),
    ],
)
def test_other_exceptions(kind: str, python_type: type) -> None:
    with pytest.raises(python_type):
        _core._throw_for_tests(kind)


def test_unit_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unit"):
        _core.parse_duration_ns("30")
