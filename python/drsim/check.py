"""``drsim check`` from Python: the N+1 capacity report, in closed form.

For the steady state and for every single zone and every single region
failure, where the traffic goes under the scenario's routing rules and what
that does to every service in every zone, solved with queueing formulas (no
simulation; analysis/n_plus_one.h explains the model)::

    report = drsim.check("scenarios/default.yaml")           # or a drsim.Scenario
    report.overloaded                                        # any case over the target
    report.utilization("payments")                           # case x zone, fractions
    report.worst()                                           # one row per service: its worst case
    report.stations                                          # one row per case, service, zone
    report.populations                                       # end-to-end latency per case
    report.operations                                        # per population and operation of its mix
    report.pools                                             # connection pools (database calls)
    print(report)                                            # drsim check's text

The report itself is :mod:`drsim.capacity_report`; this module adds loading a
scenario file first.
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from drsim.capacity_report import CapacityReport, _utilization_target, capacity_report
from drsim.scenario import Scenario, load

__all__ = ["CapacityReport", "check"]


def check(
    scenario: Scenario | str | os.PathLike[str],
    *,
    utilization_target: float | str = 0.8,
    overrides: Mapping[str, Any] | None = None,
) -> CapacityReport:
    """The N+1 capacity report of ``scenario`` (a :class:`drsim.Scenario` or
    a scenario file), as ``drsim check``: a station is overloaded above
    ``utilization_target`` (``0.8`` or ``"80%"``). ``overrides`` are applied
    first, as :meth:`drsim.Scenario.with_overrides`. Raises
    :class:`drsim.ScenarioError` for a bad file or override."""
    # The target is checked before the scenario is loaded, so a bad target
    # is reported even for a bad file.
    target = _utilization_target(utilization_target)
    if isinstance(scenario, Scenario):
        loaded = scenario.with_overrides(overrides) if overrides else scenario
    elif isinstance(scenario, (str, os.PathLike)):
        loaded = load(scenario, overrides=overrides)
    else:
        raise TypeError(f"scenario must be a drsim.Scenario or a file path, not {type(scenario).__name__}")
    return capacity_report(loaded, target)
