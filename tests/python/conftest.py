"""Shared fixtures for the drsim Python tests.

Run from a build tree without installing:
    PYTHONPATH=<build>/python /usr/bin/python3 -m pytest tests/python -q
or after `cmake --install <build>` with no PYTHONPATH at all. The package is
taken from sys.path as given; nothing here points at a particular build.
"""

from __future__ import annotations

import pathlib
import textwrap
from typing import Callable

import pytest

try:
    import drsim
except ImportError as e:  # pragma: no cover - a setup problem, not a test failure
    raise ImportError(
        "cannot import drsim: build the _core target and run pytest with "
        "PYTHONPATH=<build>/python, or install the package (cmake --install <build>)"
    ) from e

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIO_DATA = REPO_ROOT / "tests" / "data" / "scenarios"

# A small, self-contained scenario: two regions (3 + 1 zones), one link, a
# zone failure, then a link degradation that starts after it. Times:
#   fail-a        zone:fail     10m .. 40m  (eu-west-1a)
#   degrade-link  link:degrade  45m .. 55m  (startAfter fail-a, delay 5m)
INLINE_SCENARIO = textwrap.dedent(
    """\
    apiVersion: drsim/v1alpha1
    kind: Scenario
    metadata:
      name: py-inline
      description: Inline scenario for the Python tests.
    spec:
      duration: 2h
      seed: 7
      topology:
        regions:
          - name: eu-west-1
            zones:
              - name: eu-west-1a
              - name: eu-west-1b
              - name: eu-west-1c
          - name: eu-central-1
            zones:
              - name: eu-central-1a
        links:
          - name: west-central
            between: [eu-west-1, eu-central-1]
            rtt: 28ms
            bandwidth: 10Gbps
      timeline:
        - name: fail-a
          action: zone:fail
          at: 10m
          duration: 30m
          target:
            zone: eu-west-1a
        - name: degrade-link
          action: link:degrade
          startAfter: [fail-a]
          delay: 5m
          duration: 10m
          target:
            link: west-central
          latency: 50ms
    """
)


def many_steps_scenario(steps: int, name: str = "py-many-steps") -> str:
    """A scenario whose timeline has `steps` zone failures, one a second,
    each lasting half a second: 2 * steps events, cheap to load per event."""
    lines = [
        "apiVersion: drsim/v1alpha1",
        "kind: Scenario",
        "metadata:",
        f"  name: {name}",
        "spec:",
        f"  duration: {steps + 10}s",
        "  topology:",
        "    regions:",
        "      - name: r1",
        "        zones: [{name: z1}, {name: z2}, {name: z3}]",
        "  timeline:",
    ]
    zones = ("z1", "z2", "z3")
    for i in range(steps):
        lines.append(
            f"    - {{name: s{i}, action: 'zone:fail', at: {i + 1}s, duration: 500ms, target: {{zone: {zones[i % 3]}}}}}"
        )
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="session")
def repo_root() -> pathlib.Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def inline_text() -> str:
    return INLINE_SCENARIO


@pytest.fixture(scope="session")
def inline_scenario() -> drsim.Scenario:
    return drsim.load(INLINE_SCENARIO)


@pytest.fixture(scope="session")
def inline_result(inline_scenario: drsim.Scenario) -> drsim.Result:
    return inline_scenario.run()


@pytest.fixture(scope="session")
def default_scenario_path() -> pathlib.Path:
    path = REPO_ROOT / "scenarios" / "default.yaml"
    if not path.is_file():
        pytest.skip("scenarios/default.yaml does not exist yet")
    return path


@pytest.fixture(scope="session")
def many_steps() -> Callable[[int], drsim.Scenario]:
    cache: dict[int, drsim.Scenario] = {}

    def make(steps: int) -> drsim.Scenario:
        if steps not in cache:
            cache[steps] = drsim.load_text(many_steps_scenario(steps))
        return cache[steps]

    return make


def good_scenarios() -> list[pathlib.Path]:
    return sorted((SCENARIO_DATA / "good").glob("*.yaml"))


def bad_scenarios() -> list[pathlib.Path]:
    return sorted((SCENARIO_DATA / "bad").glob("*.yaml"))


def shipped_scenarios() -> list[pathlib.Path]:
    return sorted((REPO_ROOT / "scenarios").glob("*.yaml"))
