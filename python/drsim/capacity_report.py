"""The N+1 capacity report (``drsim check``) as a Python object.

:func:`drsim.check` and :meth:`drsim.Scenario.check` both return a
:class:`CapacityReport`; it lives below both so that the scenario module can
build one without importing :mod:`drsim.check`, which loads scenarios.

The report is built from the JSON ``drsim check --json`` prints, so the
command line and Python cannot disagree.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from drsim import _core

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from drsim.scenario import Scenario

__all__ = ["CapacityReport", "capacity_report"]

# The columns of the tables, in order; the JSON keys of format_report_json().
_CASE_COLUMNS = ("case", "overloaded", "error", "notes", "blast_radius")
_STATION_COLUMNS = (
    "case",
    "service",
    "zone",
    "up_pods",
    "rate_per_s",
    "utilization",
    "headroom",
    "blocking",
    "spill",
    "mean_holding_s",
    "holding_lower_bound",
    "mean_wait_s",
    "mean_queue_length",
    "mean_response_s",
    "cpu_cores",
    "cpu_request_share",
    "cpu_limit_share",
    "stable",
    "overloaded",
)
_POOL_COLUMNS = (
    "case",
    "service",
    "database",
    "zone",
    "up_pods",
    "connections",
    "rate_per_s",
    "utilization",
    "mean_hold_s",
    "mean_wait_s",
    "stable",
    "overloaded",
)
_POPULATION_COLUMNS = ("case", "population", "rate_per_s", "unserved_rate_per_s", "mean_latency_s")
_OPERATION_COLUMNS = ("case", "population", "operation", "rate_per_s", "mean_latency_s")
_WORST_COLUMNS = (
    "service",
    "case",
    "zone",
    "utilization",
    "headroom",
    "holding_lower_bound",
    "stable",
    "overloaded",
    "overloaded_cases",
)
# JSON has no infinity: the report writes an infinite number (an unstable
# station's wait, queue and response, a utilisation whose calls never return,
# an idle station's headroom) as the string "inf", float('inf') here, so that
# max() and groupby().max() see it. JSON null means "none" (nothing to
# measure: no pods, no borrows): NaN, as pandas expects.
_FLOAT_COLUMNS = {
    "rate_per_s",
    "utilization",
    "headroom",
    "blocking",
    "spill",
    "mean_holding_s",
    "mean_wait_s",
    "mean_queue_length",
    "mean_response_s",
    "cpu_cores",
    "cpu_request_share",
    "cpu_limit_share",
    "mean_hold_s",
    "unserved_rate_per_s",
    "mean_latency_s",
}
_INFINITIES = {"inf": math.inf, "-inf": -math.inf}


class CapacityReport:
    """The N+1 report of :func:`drsim.check`. Times are seconds, rates per second,
    utilisation, headroom, blocking and spill fractions (``0.8`` for 80%)."""

    def __init__(self, report_json: str, text: str, scenario: Scenario) -> None:
        self._json = report_json
        self._data: dict[str, Any] = json.loads(report_json)
        self._text = text
        self._scenario = scenario

    @property
    def scenario(self) -> Scenario:
        """The scenario checked (overrides applied)."""
        return self._scenario

    @property
    def utilization_target(self) -> float:
        """The utilisation above which a station counts as overloaded."""
        return float(self._data["utilization_target"])

    @property
    def overloaded(self) -> bool:
        """Whether some case overloads some station or leaves a population
        unserved (``drsim check --fail-on-overload`` exits 3 then)."""
        return bool(self._data["overloaded"])

    @property
    def case_names(self) -> list[str]:
        """The cases in order: ``"steady"``, then ``"zone <z> down"`` for
        every zone, then ``"region <r> down"`` for every region."""
        return [case["name"] for case in self._data["cases"]]

    def overloaded_cases(self) -> list[str]:
        """The names of the cases that overload something."""
        return [case["name"] for case in self._data["cases"] if case["overloaded"]]

    @property
    def cases(self) -> pd.DataFrame:
        """One row per case: ``case``, ``overloaded``, ``error`` (the traffic
        equations have no solution: an unbounded call cycle; else None),
        ``notes`` and ``blast_radius`` (lists of str)."""
        rows = [
            {
                "case": case["name"],
                "overloaded": case["overloaded"],
                "error": case["error"],
                "notes": list(case["notes"]),
                "blast_radius": list(case["blast_radius"]),
            }
            for case in self._data["cases"]
        ]
        return _frame(rows, _CASE_COLUMNS)

    @property
    def stations(self) -> pd.DataFrame:
        """One row per case, service and zone: ``up_pods``, ``rate_per_s``
        arriving, ``utilization`` (rho = rate x holding / workers, 1.5 for a
        station 50% over its workers; inf only when calls are lost and never
        return), ``headroom`` (extra load before the target, ``target / rho
        - 1``, negative when over; inf when idle, NaN with no pods),
        ``blocking`` (rejected by the queue limit), ``spill`` (same-zone
        requests that find no idle worker), ``mean_holding_s`` (worker time
        per request, calls included), ``holding_lower_bound`` (the workers
        wait for an unstable station, whose growing wait is left out:
        ``mean_holding_s`` and ``utilization`` are lower bounds,
        ``headroom`` an upper bound), ``mean_wait_s`` (in the queue),
        ``mean_queue_length`` (waiting, over the zone's pods),
        ``mean_response_s`` (wait and holding) -- these three are inf for a
        station without a steady state, never NaN --, ``cpu_cores`` (CPU
        one pod uses on average: its requests' CPU time plus idle),
        ``cpu_request_share`` and ``cpu_limit_share`` (of requests.cpu and
        limits.cpu; NaN without a limit: at or above 1 of the limit the CFS
        quota throttles the pod), ``stable``, ``overloaded``."""
        rows = [
            {"case": case["name"], **station} for case in self._data["cases"] for station in case["stations"]
        ]
        return _frame(rows, _STATION_COLUMNS)

    @property
    def pools(self) -> pd.DataFrame:
        """One row per case, service, database and zone: the connection pool
        each of the service's pods in the zone holds towards the database
        (empty when no service queries a database). ``up_pods``,
        ``connections`` (maximumPoolSize, per pod), ``rate_per_s`` (borrows
        per second into the zone's pods), ``utilization`` (borrows x hold /
        connections of the up pods; inf when unbounded), ``mean_hold_s``
        (connection time per borrow: queries, commit waits, validation; NaN
        without borrows), ``mean_wait_s`` (wait for a connection; inf when
        unstable, NaN without borrows), ``stable``, ``overloaded``."""
        rows = [{"case": case["name"], **pool} for case in self._data["cases"] for pool in case["pools"]]
        return _frame(rows, _POOL_COLUMNS)

    @property
    def populations(self) -> pd.DataFrame:
        """One row per case and client population: ``rate_per_s`` (peak),
        ``unserved_rate_per_s`` (no up pod or an unreachable zone),
        ``mean_latency_s`` (end to end; inf when a station it uses is
        unstable, NaN when nothing is served)."""
        rows = [
            {"case": case["name"], **population}
            for case in self._data["cases"]
            for population in case["populations"]
        ]
        return _frame(rows, _POPULATION_COLUMNS)

    @property
    def operations(self) -> pd.DataFrame:
        """One row per case, client population with a mix of operations, and
        operation of its mix: ``rate_per_s`` (the population's peak x the
        operation's weight), ``mean_latency_s`` (end to end, the operation's
        own calls followed down the graph; inf when a station on its way is
        unstable, NaN when nothing is served). Empty when no population sends
        a mix."""
        rows = [
            {"case": case["name"], **operation}
            for case in self._data["cases"]
            for operation in case.get("operations", [])
        ]
        return _frame(rows, _OPERATION_COLUMNS)

    def worst(self) -> pd.DataFrame:
        """The compact view: one row per service (in the report's order), its
        station with the highest utilisation over every case and zone (the
        first in report order on a tie) -- ``case``, ``zone``,
        ``utilization``, ``headroom``, ``holding_lower_bound``, ``stable``,
        ``overloaded`` of that row -- and ``overloaded_cases``, in how many
        cases some station of the service is overloaded. The table that
        ``drsim check`` prints first."""
        return _frame(list(self._data["worst"]), _WORST_COLUMNS)

    def utilization(self, service: str | None = None) -> pd.DataFrame:
        """Utilisation as a case x zone table (cases in report order, zones
        as columns). With several services, ``service`` picks one; without it
        the columns are ``(service, zone)``."""
        stations = self.stations
        services = list(dict.fromkeys(stations["service"]))
        if service is not None:
            if service not in services:
                raise KeyError(f"no service {service!r} in the report (services: {', '.join(services)})")
            stations = stations[stations["service"] == service]
        columns: list[str] | str = "zone" if service is not None or len(services) == 1 else ["service", "zone"]
        table = stations.pivot(index="case", columns=columns, values="utilization")
        table = table.reindex(index=self.case_names)
        order = list(dict.fromkeys(zip(stations["service"], stations["zone"])))
        if columns == "zone":
            table = table.reindex(columns=[zone for _, zone in order])
        else:
            table = table.reindex(columns=order)
        table.columns.name = None if columns == "zone" else table.columns.name
        return table

    def to_json(self) -> str:
        """The report as ``drsim check --json`` prints it."""
        return self._json

    @property
    def text(self) -> str:
        """The report as ``drsim check`` prints it."""
        return self._text

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        over = self.overloaded_cases()
        verdict = f"overloaded in {len(over)} of {len(self.case_names)} cases" if over else "holds in every case"
        return (
            f"<drsim.CapacityReport {self._scenario.name!r} target={self.utilization_target:.0%} "
            f"{verdict}>"
        )

    def _repr_html_(self) -> str:
        """Notebooks: the verdict and the utilisation table, overloaded
        cells marked."""
        import html

        table = self.utilization()
        target = self.utilization_target

        def cell(value: float) -> str:
            if isinstance(value, float) and math.isnan(value):
                return "<td>-</td>"
            style = ' style="background:#f8d0d0;font-weight:bold"' if value > target else ""
            return f"<td{style}>{value:.0%}</td>" if math.isfinite(value) else f"<td{style}>unstable</td>"

        header = "".join(f"<th>{html.escape(' / '.join(map(str, c)) if isinstance(c, tuple) else str(c))}</th>" for c in table.columns)
        body = "".join(
            f"<tr><th>{html.escape(str(case))}</th>" + "".join(cell(float(v)) for v in row) + "</tr>"
            for case, row in zip(table.index, table.to_numpy())
        )
        return (
            f"<p><b>{html.escape(repr(self))}</b></p>"
            f"<table><thead><tr><th>utilisation</th>{header}</tr></thead><tbody>{body}</tbody></table>"
        )


def _frame(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame(rows, columns=list(columns))
    for column in columns:
        if column in _FLOAT_COLUMNS:
            frame[column] = frame[column].map(_number).astype("float64")
    for column in ("up_pods", "connections", "overloaded_cases"):
        if column in frame:
            frame[column] = frame[column].astype("int64")
    for column in ("stable", "overloaded", "holding_lower_bound"):
        if column in frame:
            frame[column] = frame[column].astype(bool)
    return frame


def _number(value: Any) -> float:
    """A JSON number of the report: null is NaN, "inf" / "-inf" infinite."""
    if value is None:
        return math.nan
    if isinstance(value, str):
        return _INFINITIES[value]
    return float(value)


def _utilization_target(value: Any) -> float:
    """A positive fraction, or text like ``"80%"``."""
    if isinstance(value, bool):
        raise TypeError("utilization_target must be a number or a percentage such as '80%', not bool")
    if isinstance(value, str):
        text = value.strip()
        try:
            number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise ValueError(f"utilization_target: expected a fraction or a percentage such as '80%', got {value!r}") from None
    elif isinstance(value, (int, float)):
        number = float(value)
    else:
        raise TypeError(f"utilization_target must be a number or a percentage such as '80%', not {type(value).__name__}")
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"utilization_target: expected a positive fraction (0.8 for 80%), got {value!r}")
    return number


def capacity_report(scenario: Scenario, utilization_target: Any) -> CapacityReport:
    """The report of a loaded scenario; ``utilization_target`` as
    :func:`drsim.check` takes it (``0.8`` or ``"80%"``)."""
    target = _utilization_target(utilization_target)
    report_json, text = _core.capacity_check(scenario._core, target)
    return CapacityReport(report_json, text, scenario)
