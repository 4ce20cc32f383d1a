"""A finished run: its outcome, and the Recorder's data as pandas DataFrames.

The DataFrames are built from numpy arrays filled directly from the Recorder's
column vectors (python/src/bind_run.cc); per-series work happens in Python,
per-row work never does. String columns are ``object`` columns that share one
Python ``str`` per distinct value.
"""

from __future__ import annotations

import fnmatch
import json
import os
import pathlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Union

from drsim import _core

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from drsim.scenario import Scenario

__all__ = ["Result", "Outcome"]

_NS_PER_S = 1_000_000_000

#: A label or metric filter: one value, or any of several.
Selector = Union[str, Iterable[str]]


@dataclass(frozen=True)
class Outcome:
    """How a run ended."""

    complete: bool  #: reached the horizon (no guard or interrupt stopped it)
    reason: str  #: "horizon", "max_events", "max_wall_time", "max_memory", "event_storm" or "interrupted"
    message: str  #: why it stopped early; empty when complete
    events: int  #: events run
    end_t_s: float  #: simulated time reached, seconds
    wall_seconds: float  #: wall-clock duration of the run (not deterministic)


def _matcher(selector: Selector) -> Any:
    """A predicate on str: equality, membership, or a glob (``zone.*``)."""
    values = [selector] if isinstance(selector, str) else list(selector)
    for v in values:
        if not isinstance(v, str):
            raise TypeError(f"filters are str or lists of str, got {v!r}")
    exact = {v for v in values if not any(ch in v for ch in "*?[")}
    globs = [v for v in values if v not in exact]
    return lambda s: s in exact or any(fnmatch.fnmatchcase(s, g) for g in globs)


class Result:
    """The result of :meth:`drsim.Scenario.run`."""

    __slots__ = ("_core", "_scenario", "_series", "_series_keys")

    def __init__(self, core: _core.RunResult, scenario: Scenario) -> None:
        if not isinstance(core, _core.RunResult):
            raise TypeError("Results come from Scenario.run()")
        self._core = core
        # Wrapped by Scenario.run, which is above this module (it returns
        # Results), so that this module need not import drsim.scenario.
        self._scenario = scenario
        self._series: list[tuple[str, dict[str, str], int]] | None = None
        self._series_keys: list[str] | None = None

    # -- what ran --
    @property
    def scenario(self) -> Scenario:
        """The scenario that ran (with its overrides)."""
        return self._scenario

    @property
    def seed(self) -> int:
        """The seed this run used."""
        return self._core.seed

    @property
    def horizon_s(self) -> float:
        """The requested end of the run, seconds."""
        return self._core.horizon_ns / _NS_PER_S

    @property
    def outcome(self) -> Outcome:
        """How the run ended: complete, reason, message, events, end_t_s, wall_seconds."""
        o = self._core.outcome
        return Outcome(
            complete=bool(o.complete),
            reason=o.reason,
            message=o.message,
            events=int(o.events),
            end_t_s=o.end_ns / _NS_PER_S,
            wall_seconds=float(o.wall_seconds),
        )

    @property
    def complete(self) -> bool:
        """Shorthand for ``outcome.complete``."""
        return bool(self._core.outcome.complete)

    # -- series metadata --
    def _series_info(self) -> list[tuple[str, dict[str, str], int]]:
        if self._series is None:
            self._series = [(m, dict(labels), int(n)) for m, labels, n in self._core.series_info()]
        return self._series

    def _label_keys(self) -> list[str]:
        if self._series_keys is None:
            self._series_keys = sorted({k for _, labels, _ in self._series_info() for k in labels})
        return self._series_keys

    def metrics(self) -> list[str]:
        """The metric names recorded, sorted."""
        return sorted({m for m, _, _ in self._series_info()})

    def series(self) -> pd.DataFrame:
        """One row per series: metric, label columns, points."""
        import pandas as pd

        info = self._series_info()
        keys = self._label_keys()
        data: dict[str, Any] = {"metric": pd.Series([m for m, _, _ in info], dtype=object)}
        for key in keys:
            data[key] = pd.Series([labels.get(key) for _, labels, _ in info], dtype=object)
        data["points"] = pd.Series([n for _, _, n in info], dtype="int64")
        return pd.DataFrame(data)

    # -- tables --
    def timeseries(self, metric: Selector | None = None, **labels: Selector) -> pd.DataFrame:
        """The recorded series in long format: ``t_s`` (float64 seconds),
        ``metric``, one column per label key (str; NaN where a series has no
        such label), ``value`` (float64). The columns and row order are those of
        ``timeseries.csv``: series by series, each in time order; the label
        columns are every label key of the run (a KPI-only key gives a column
        of NaN).

        Filters keep the series whose metric / labels match: a str, a list of
        str, or a glob such as ``"zone.*"``; e.g.
        ``result.timeseries("zone.up", zone="eu-west-1a")``. A label key that
        no series has is an error (a typo would otherwise give an empty frame).
        """
        import numpy as np
        import pandas as pd

        info = self._series_info()
        selected = list(range(len(info)))
        if metric is not None:
            match = _matcher(metric)
            selected = [i for i in selected if match(info[i][0])]
        for key, selector in labels.items():
            if key not in self._label_keys():
                known = ", ".join(self._label_keys()) or "none"
                raise ValueError(f"no series has the label {key!r} (label keys: {known})")
            match = _matcher(selector)
            selected = [i for i in selected if key in info[i][1] and match(info[i][1][key])]

        t_ns, value = self._core.timeseries_arrays(selected)
        counts = np.fromiter((info[i][2] for i in selected), dtype=np.int64, count=len(selected))

        def per_series(values: list[Any]) -> np.ndarray:
            arr = np.empty(len(values), dtype=object)
            arr[:] = values
            return np.repeat(arr, counts)

        columns: dict[str, Any] = {"t_s": np.asarray(t_ns, dtype=np.int64) / _NS_PER_S}
        columns["metric"] = per_series([info[i][0] for i in selected])
        for key in self._core.label_keys():
            columns[key] = per_series([info[i][1].get(key, np.nan) for i in selected])
        columns["value"] = np.asarray(value, dtype=np.float64)
        return pd.DataFrame(columns)

    def events(self) -> pd.DataFrame:
        """The events table: ``t_s`` (float64 seconds), ``component``,
        ``kind``, ``detail`` (str), in the order they happened."""
        import numpy as np
        import pandas as pd

        arrays = self._core.events_arrays()

        def decode(column: str) -> np.ndarray:
            codes, names = arrays[column]
            categories = np.empty(len(names), dtype=object)
            categories[:] = names
            return categories[np.asarray(codes, dtype=np.intp)]

        return pd.DataFrame(
            {
                "t_s": np.asarray(arrays["t_ns"], dtype=np.int64) / _NS_PER_S,
                "component": decode("component"),
                "kind": decode("kind"),
                "detail": decode("detail"),
            }
        )

    def kpis(self) -> pd.DataFrame:
        """The run's KPIs: ``name``, one column per KPI label key (NaN where
        absent), ``value`` (float64)."""
        import pandas as pd

        rows = self._core.kpis()
        keys = sorted({k for _, labels, _ in rows for k in labels})
        data: dict[str, Any] = {"name": pd.Series([n for n, _, _ in rows], dtype=object)}
        for key in keys:
            data[key] = pd.Series([labels.get(key, float("nan")) for _, labels, _ in rows], dtype=object)
        data["value"] = pd.Series([v for _, _, v in rows], dtype="float64")
        return pd.DataFrame(data)

    def kpi(self, name: str, **labels: str) -> float:
        """One KPI's value. ``labels`` need only pick it out: with
        ``zone.downtime_s`` labelled region and zone, ``kpi("zone.downtime_s",
        zone="eu-west-1a")`` finds it. Raises KeyError when no KPI matches, or
        when several do (the message lists them)."""
        wanted = {str(k): str(v) for k, v in labels.items()}
        exact = self._core.find_kpi(name, sorted(wanted.items()))
        if exact is not None:
            return float(exact)
        matches = [
            (kpi_labels, value)
            for kpi_name, kpi_labels, value in self._core.kpis()
            if kpi_name == name and all(kpi_labels.get(k) == v for k, v in wanted.items())
        ]
        if len(matches) == 1:
            return float(matches[0][1])
        where = ", ".join(f"{k}={v}" for k, v in sorted(wanted.items()))
        if not matches:
            raise KeyError(f"no KPI {name!r}" + (f" with {where}" if where else ""))
        options = "; ".join(", ".join(f"{k}={v}" for k, v in sorted(l.items())) or "no labels" for l, _ in matches)
        raise KeyError(f"{len(matches)} KPIs {name!r} match {where or 'no labels'}; pick one of: {options}")

    # -- faults --
    @property
    def faults(self) -> pd.DataFrame:
        """What each timeline step the run applied did to the clients, one row
        per step in the order applied, all populations together; the rows and
        columns of ``faults.csv``:

        ``step``, ``action``, ``target`` (str, e.g. ``"zone=eu-west-1a"``),
        ``start_s``, ``end_s`` (float seconds; NaN when the step was not
        undone or repaired), ``offered``, ``succeeded``, ``errors`` and one
        ``failed_<cause>`` column per failure cause (int64: client requests
        in the step's counting window, which runs one client timeout past its
        end), ``success_ratio``, ``first_failure_s``, ``time_to_recover_s``
        and ``time_to_recover_after_end_s`` (float; NaN when there is none:
        nothing finished, no failure, never recovered).

        Recovery is judged per metrics window against the scenario's
        ``objectives.successRatio``: ``time_to_recover_s`` runs from the
        step's start to the first window from which every window up to the
        next fault is at or above it. The exact definitions (counting windows,
        empty windows, overlapping faults) are in the user documentation on
        fault impact and in models/results/fault_impact.h.
        """
        return self._fault_table(by_population=False)

    @property
    def faults_by_population(self) -> pd.DataFrame:
        """The figures of :attr:`faults` for each client population on its
        own: ``step``, ``population``, then the columns of :attr:`faults` from
        ``offered`` on, one row per (step, population)."""
        return self._fault_table(by_population=True)

    def _fault_table(self, *, by_population: bool) -> pd.DataFrame:
        import numpy as np
        import pandas as pd

        # The fault.* KPIs hold every figure (run.cc records them); the
        # scenario's timeline adds each step's action and target.
        steps: list[str] = []
        start: dict[str, float] = {}
        end: dict[str, float] = {}
        figures: dict[tuple[str, str | None], dict[str, float]] = {}
        causes: list[str] = []
        for name, labels, value in self._core.kpis():
            if not name.startswith("fault.") or "step" not in labels:
                continue
            step = labels["step"]
            figure = name[len("fault.") :]
            if figure == "start_s":
                steps.append(step)
                start[step] = value
                continue
            if figure == "end_s":
                end[step] = value
                continue
            if figure == "failed":
                cause = labels["cause"]
                if cause not in causes:
                    causes.append(cause)
                figure = f"failed_{cause}"
            figures.setdefault((step, labels.get("population")), {})[figure] = value

        counts = ["offered", "succeeded", "errors"] + [f"failed_{c}" for c in causes]
        measures = ["success_ratio", "first_failure_s", "time_to_recover_s", "time_to_recover_after_end_s"]
        if by_population:
            keys = [key for key in figures if key[1] is not None]  # recorded step by step
            data: dict[str, Any] = {
                "step": pd.Series([k[0] for k in keys], dtype=object),
                "population": pd.Series([k[1] for k in keys], dtype=object),
            }
        else:
            keys = [(step, None) for step in steps]
            actions = {row["name"]: row for row in self._core.scenario.timeline()}

            def target_text(target: dict[str, str]) -> str:
                order = ("zone", "region", "link", "service", "population")
                return " ".join(f"{k}={target[k]}" for k in order if target.get(k))

            data = {
                "step": pd.Series(steps, dtype=object),
                "action": pd.Series([actions[s]["action"] for s in steps], dtype=object),
                "target": pd.Series([target_text(actions[s]["target"]) for s in steps], dtype=object),
                "start_s": pd.Series([start[s] for s in steps], dtype="float64"),
                "end_s": pd.Series([end.get(s, np.nan) for s in steps], dtype="float64"),
            }
        for column in counts:
            data[column] = pd.Series([int(figures.get(k, {}).get(column, 0)) for k in keys], dtype="int64")
        for column in measures:
            data[column] = pd.Series([figures.get(k, {}).get(column, np.nan) for k in keys], dtype="float64")
        return pd.DataFrame(data)

    # -- objectives --
    def objectives(self) -> pd.DataFrame:
        """The verdicts on the targets of the scenario's ``spec.objectives``,
        one row per verdict (none when the scenario declares no target):

        ``objective`` (``"rto"``, ``"rpo"``, ``"availability"``,
        ``"errorBudget"``, ``"latencyP99"``), ``scope`` (``"run"`` or the
        fault step's name), ``unit`` (``"s"`` or ``"ratio"``),
        ``comparison`` (``"<="`` or ``">="``: how measured must compare to
        target), ``target`` and ``measured`` (float seconds or fractions;
        NaN when there is nothing to measure), ``note`` (why not, e.g.
        ``"never recovered"``), ``passed`` (bool). The same rows as
        ``objectives.json``; the definitions are in docs/objectives.md.
        """
        import numpy as np
        import pandas as pd

        rows = self._objectives()["verdicts"]
        return pd.DataFrame(
            {
                "objective": pd.Series([r["objective"] for r in rows], dtype=object),
                "scope": pd.Series([r["scope"] for r in rows], dtype=object),
                "unit": pd.Series([r["unit"] for r in rows], dtype=object),
                "comparison": pd.Series([r["comparison"] for r in rows], dtype=object),
                "target": pd.Series([r["target"] for r in rows], dtype="float64"),
                "measured": pd.Series([np.nan if r["measured"] is None else r["measured"] for r in rows],
                                      dtype="float64"),
                "note": pd.Series([r["note"] for r in rows], dtype=object),
                "passed": pd.Series([r["pass"] for r in rows], dtype=bool),
            }
        )

    def objectives_passed(self) -> bool:
        """True unless a target of ``spec.objectives`` failed (what
        ``drsim run --fail-on-objective`` exits 3 for)."""
        return bool(self._objectives()["passed"])

    def fault_figures(self) -> pd.DataFrame:
        """Per fault step (repairs and operator actions have no row): ``step``,
        ``action``, ``target``, ``start_s``, ``end_s``, ``detection_s``,
        ``detected_by``, ``traffic_switch_s``, ``rto_s``, ``rpo_s``,
        ``switch_errors``, ``switch_error_rate``, ``latency_p99_before_s``,
        ``latency_p99_during_s``, ``latency_p99_after_s`` (float seconds or
        fractions, NaN when there is none: nothing detected, never switched or
        recovered, no failover), judged on ``spec.objectives.population``.
        """
        import numpy as np
        import pandas as pd

        rows = self._objectives()["faults"]
        text = ["step", "action", "target", "detected_by"]
        numbers = [
            "start_s", "end_s", "detection_s", "traffic_switch_s", "rto_s", "rpo_s", "switch_errors",
            "switch_error_rate", "latency_p99_before_s", "latency_p99_during_s", "latency_p99_after_s",
        ]
        data: dict[str, Any] = {c: pd.Series([r[c] for r in rows], dtype=object) for c in text}
        for c in numbers:
            data[c] = pd.Series([np.nan if r[c] is None else r[c] for r in rows], dtype="float64")
        return pd.DataFrame(data)[["step", "action", "target", "start_s", "end_s", "detection_s", "detected_by",
                                   *numbers[3:]]]

    def _objectives(self) -> dict[str, Any]:
        return json.loads(self._core.objectives_json())

    # -- text and files --
    def summary(self) -> str:
        """A short human summary: what failed when, each fault's errors and
        time to recover, the other KPIs, how the run ended."""
        return self._core.summary()

    def to_dir(self, path: str | os.PathLike[str]) -> pathlib.Path:
        """Writes timeseries.csv, events.csv, kpis.json, faults.csv,
        scenario.yaml, run.json and objectives.json into ``path`` (created if needed); returns
        it. The CSV files are byte-identical for the same scenario and seed. Each file is
        written whole or not at all; a folder or file that cannot be written raises
        OSError (NotADirectoryError, PermissionError, ...) naming the path."""
        p = pathlib.Path(os.fsdecode(os.fspath(path)))
        self._core.write_results(str(p))
        return p

    def __repr__(self) -> str:
        o = self._core.outcome
        state = "complete" if o.complete else f"stopped ({o.reason})"
        return (
            f"<drsim.Result {self._core.scenario.name!r} seed={self.seed} {state}"
            f" t={_core.format_duration_ns(o.end_ns) if o.end_ns > 0 else '0s'}"
            f" events={o.events} series={self._core.series_count} points={self._core.point_count}"
            f" kpis={len(self._core.kpis())}>"
        )
