"""Uncertainty and sensitivity: what a scenario predicts when some of its
inputs are known only to within a range, and which of them drive it.

An architecture review asks "our RTO is 40 s, give or take what?" and
"which setting drives it?". :func:`uncertainty` takes the scenario, the
inputs nobody knows exactly (override paths, each with a distribution and
where its range comes from: :mod:`drsim.uncertainty_inputs`), and a number
of samples; it runs a design of points in the inputs' space (Latin
hypercubes, :mod:`drsim.uncertainty_design`) for every seed, on local
processes or a Dask cluster, and returns for every figure of the runs
(:mod:`drsim.figures`):

- its median and 5-95% interval over the sampled inputs and the seeds
  (:attr:`Uncertainty.summary`), with the share of its variance that is the
  seeds' noise rather than the inputs';
- a ranking of the inputs (:attr:`Uncertainty.sensitivity`): Sobol' first
  order and total indices (method ``"sobol"``, n (k + 2) points for k
  inputs) or Morris' elementary effects (method ``"morris"``, r (k + 1)
  points, cheaper, a ranking without a variance share);
- a tornado plot per figure (:meth:`Uncertainty.tornado`): the figure's mean
  when each input is in the lowest and in the highest fifth of its range.

The command line is ``drsim uncertainty SCENARIO --ranges FILE``
(:mod:`drsim.uncertainty_cli`); the HTML report (``drsim.report(u,
"u.html")``) holds the tables and the tornados.
Same scenario, ranges, samples, seeds and ``sampling_seed``: the same
design, the same runs and the same tables on any machine and any number of
workers (except the wall-time column).
"""

from __future__ import annotations

import hashlib
import math
import os
import pathlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from drsim import _core
from drsim.errors import ScenarioError
from drsim.figures import kpi_names, missing_kpis
from drsim.scenario import Scenario, Source, Until, _override_text, _until_ns, load
from drsim.sweep import RunTask, _seed_values, open_recorded, run_recorded, run_task
from drsim.sweep_pools import usable_cores
from drsim.uncertainty_design import (
    MorrisDesign,
    SobolDesign,
    SplitMix64,
    empirical_interval,
    morris_design,
    morris_effects,
    sobol_design,
    sobol_indices,
)
from drsim.uncertainty_inputs import RangeLike, RangesError, UncertainInput, inputs_from

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["uncertainty", "Uncertainty", "RangesError"]

METHODS = ("sobol", "morris")
#: The interval every summary gives: the 5% and 95% quantiles.
LOW_Q, HIGH_Q = 0.05, 0.95
#: The tornado's bars: the figure's mean over the points whose input lies in
#: the lowest and the highest fifth of its range.
TORNADO_FRACTION = 0.2


@dataclass(frozen=True, eq=False)
class Uncertainty:
    """What :func:`uncertainty` returns.

    ``inputs``: one row per input (``path``, ``distribution``, ``source``).
    ``points``: one row per design point (``point``, ``role``: ``A``, ``B``,
    ``AB:<path>`` for Sobol', ``trajectory:<t>`` for Morris; then one column
    per input path with the value the point gave it, as written into the
    scenario). ``runs``: one row per (point, seed): ``point``, ``seed``, the
    figures, ``complete``, ``stop_reason``, ``wall_s``.
    ``summary``: one row per figure: ``median``, ``low`` (5%), ``high`` (95%),
    ``mean``, ``n`` (runs with a value), ``missing`` (runs without: a fault
    that never recovered has no RTO), ``noise_share`` (the mean variance over
    the seeds of one point, over the figure's whole variance: near 1, the
    inputs hardly matter next to the seed). ``sensitivity``: one row per
    (figure, input); Sobol': ``first``, ``first_low``, ``first_high``,
    ``total``, ``total_low``, ``total_high`` (95% bootstrap intervals),
    ``rank`` by ``total``; Morris: ``mu_star``, ``mu``, ``sigma`` (in the
    figure's unit per whole range of the input), ``rank`` by ``mu_star``
    (NaN for a figure no input moves).
    The indices use each point's mean over the seeds.
    """

    scenario: Scenario
    method: str
    ranges: tuple[UncertainInput, ...]
    seeds: tuple[int, ...]
    samples: int
    inputs: pd.DataFrame
    points: pd.DataFrame
    runs: pd.DataFrame
    summary: pd.DataFrame
    sensitivity: pd.DataFrame
    out: pathlib.Path | None
    executed: int
    unit_points: np.ndarray  # (points, inputs): the design in [0, 1]^k

    @property
    def figures(self) -> list[str]:
        """The figures summarised (the index of :attr:`summary`)."""
        return list(self.summary.index)

    def interval(self, figure: str) -> tuple[float, float, float]:
        """(5%, median, 95%) of a figure."""
        row = self._summary_row(figure)
        return float(row["low"]), float(row["median"]), float(row["high"])

    def ranking(self, figure: str) -> pd.DataFrame:
        """The inputs in order of influence on ``figure`` (most first)."""
        self._summary_row(figure)
        table = self.sensitivity.xs(figure, level="figure")
        return table.sort_values("rank")

    def tornado_table(self, figure: str) -> pd.DataFrame:
        """Per input, in ranking order: the figure's mean over the points
        whose input lies in its lowest fifth (``low_mean``) and highest fifth
        (``high_mean``) of its range, and their difference (``swing``)."""
        self._summary_row(figure)
        per_point = _point_means(self.runs, figure, len(self.points))
        usable = _uncertainty_points(self.points)
        rows = []
        for j, inp in enumerate(self.ranges):
            u = self.unit_points[usable, j]
            v = per_point[usable]
            low = v[(u <= TORNADO_FRACTION) & np.isfinite(v)]
            high = v[(u >= 1.0 - TORNADO_FRACTION) & np.isfinite(v)]
            low_mean = float(np.mean(low)) if len(low) else math.nan
            high_mean = float(np.mean(high)) if len(high) else math.nan
            rows.append({"input": inp.path, "low_mean": low_mean, "high_mean": high_mean,
                         "swing": high_mean - low_mean})
        import pandas as pd

        frame = pd.DataFrame(rows).set_index("input")
        order = self.ranking(figure).index
        return frame.loc[list(order)]

    def tornado(self, figure: str, *, title: str | None = None) -> Figure:
        """The tornado plot of ``figure``: one bar per input, from its mean in
        the input's lowest fifth to its mean in the highest, around the
        median; the most influential input on top."""
        from drsim.figure_canvas import new_figure, unit_of

        table = self.tornado_table(figure)
        _, median, _ = self.interval(figure)
        unit, scale = unit_of(figure)
        fig = new_figure(7.0, 1.2 + 0.45 * len(table))
        ax = fig.subplots()
        labels = []
        for y, (path, row) in enumerate(table.iterrows()):
            lo, hi = row["low_mean"] * scale, row["high_mean"] * scale
            if math.isfinite(lo) and math.isfinite(hi):
                ax.barh(y, hi - lo, left=lo, color="tab:red" if hi >= lo else "tab:blue", alpha=0.75)
                ax.plot([lo], [y], "|", color="black")
            labels.append(path if len(path) <= 48 else "..." + path[-45:])
        ax.axvline(median * scale, color="black", lw=1, ls="--", label="median")
        ax.set_yticks(range(len(table)), labels)
        ax.set_ylim(len(table) - 0.5, -0.5)
        ax.set_xlabel(f"{figure} ({unit})" if unit else figure)
        ax.set_title(title or f"{figure}: mean with each input in its lowest fifth (|) to its highest fifth",
                     fontsize="medium")
        ax.grid(True, axis="x", alpha=0.3)
        return fig

    def _summary_row(self, figure: str) -> Any:
        if figure not in self.summary.index:
            raise KeyError(f"no figure {figure!r} (figures: {', '.join(self.summary.index)})")
        return self.summary.loc[figure]

    def to_json(self) -> dict[str, Any]:
        """The inputs, summary and sensitivity as plain JSON data (NaN as null)."""
        def plain(v: Any) -> Any:
            if isinstance(v, (float, np.floating)):
                return float(v) if math.isfinite(float(v)) else None
            if isinstance(v, np.integer):
                return int(v)
            return v

        return {
            "scenario": self.scenario.name,
            "method": self.method,
            "samples": self.samples,
            "seeds": list(self.seeds),
            "points": len(self.points),
            "runs": len(self.runs),
            "inputs": [{"path": i.path, "distribution": i.distribution.describe(), "source": i.source}
                       for i in self.ranges],
            "summary": {f: {k: plain(v) for k, v in row.items()} for f, row in self.summary.iterrows()},
            "sensitivity": {
                f: {p: {k: plain(v) for k, v in row.items()} for p, row in table.iterrows()}
                for f, table in ((f, self.sensitivity.xs(f, level="figure")) for f in self.figures)
            },
        }

    def __repr__(self) -> str:
        where = f" out={str(self.out)!r}" if self.out is not None else ""
        return (f"<drsim.Uncertainty {self.scenario.name!r} method={self.method} inputs={len(self.ranges)} "
                f"points={len(self.points)} seeds={len(self.seeds)} runs={len(self.runs)}{where}>")

    def _repr_html_(self) -> str:
        import html

        return (f"<p><b>{html.escape(repr(self))}</b></p>" + self.summary.to_html()
                + self.sensitivity.to_html(max_rows=60))


# ---- helpers -------------------------------------------------------------------------


def _uncertainty_points(points: pd.DataFrame) -> np.ndarray:
    """The points whose inputs are drawn independently from their
    distributions (Sobol's A and B, every Morris point): the sample the
    intervals and the tornado are read from. The AB points mix two rows."""
    roles = points["role"].astype(str)
    return (~roles.str.startswith("AB:")).to_numpy()


def _point_means(runs: pd.DataFrame, figure: str, count: int) -> np.ndarray:
    """Each point's mean of ``figure`` over its seeds' finite values (NaN
    when no seed has one)."""
    values = np.full(count, np.nan)
    if figure not in runs.columns:
        return values
    grouped = runs.groupby("point")[figure].agg(lambda s: float(np.nanmean(s)) if s.notna().any() else np.nan)
    for point, v in grouped.items():
        values[int(point)] = v
    return values


def _noise_share(runs: pd.DataFrame, figure: str) -> float:
    """Mean variance between the seeds of one point, over the variance of all runs."""
    v = runs[figure].to_numpy(dtype=float)
    total = float(np.nanvar(v)) if np.isfinite(v).sum() > 1 else math.nan
    if not total > 0:
        return math.nan
    within = runs.groupby("point")[figure].agg(lambda s: float(np.nanvar(s)) if s.notna().sum() > 1 else np.nan)
    within = within.dropna()
    if within.empty:
        return math.nan
    return float(min(1.0, within.mean() / total))


def _design(method: str, samples: int, k: int, rng: SplitMix64,
            levels: int) -> tuple[SobolDesign | MorrisDesign, list[str]]:
    """The design and each point's role (A, B, trajectory:<t>; the AB roles
    are added by the caller, which knows the inputs' paths)."""
    if method == "sobol":
        return sobol_design(samples, k, rng), ["A"] * samples + ["B"] * samples
    roles = [f"trajectory:{t}" for t in range(samples) for _ in range(k + 1)]
    return morris_design(samples, k, rng, levels=levels), roles


def _check_args(samples: Any, method: Any, levels: Any, sampling_seed: Any) -> None:
    if method not in METHODS:
        raise ValueError(f"method is one of {', '.join(METHODS)}, not {method!r}")
    minimum = 4 if method == "sobol" else 2
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < minimum:
        raise ValueError(f"samples must be an int >= {minimum} for method {method!r} "
                         f"({'base points of the two Latin hypercubes' if method == 'sobol' else 'trajectories'}), "
                         f"got {samples!r}")
    if isinstance(levels, bool) or not isinstance(levels, int) or levels < 2 or levels % 2:
        raise ValueError(f"levels must be an even int >= 2, got {levels!r}")
    if isinstance(sampling_seed, bool) or not isinstance(sampling_seed, int) or sampling_seed < 0:
        raise ValueError(f"sampling_seed must be a non-negative int, got {sampling_seed!r}")


# ---- the study -----------------------------------------------------------------------


def uncertainty(
    scenario: Scenario | Source,
    ranges: Mapping[str, RangeLike] | Sequence[UncertainInput],
    samples: int = 32,
    seeds: Iterable[int] = (1, 2, 3),
    *,
    method: str = "sobol",
    levels: int = 4,
    sampling_seed: int = 0,
    kpis: Iterable[str] | str | None = None,
    client: Any = None,
    workers: int | None = None,
    until: Until | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: bool = True,
    _task: Callable[[RunTask], dict[str, Any]] = run_task,
) -> Uncertainty:
    """Runs the scenario over a design of the uncertain ``ranges`` for every
    seed; returns an :class:`Uncertainty`.

    ``ranges``: ``{override path: distribution}`` (a
    :mod:`drsim.uncertainty_inputs` distribution, or a ``(low, high)`` pair
    for a uniform one), or :func:`drsim.uncertainty_inputs.load_ranges`'s
    list. ``samples``: Sobol' base points n (the design has n (k + 2) points)
    or Morris trajectories r (r (k + 1) points). ``seeds``: every point runs
    with each. ``levels``: the Morris grid's levels (even). ``sampling_seed``:
    the design's own seed. ``kpis``, ``client``, ``workers``, ``until``,
    ``out`` and ``progress`` as for :func:`drsim.sweep` (``out`` resumes a
    stopped study from its folder). Every point's scenario loads before any
    run, so a bad path or value raises :class:`drsim.ScenarioError` at once.
    """
    import pandas as pd

    base = scenario if isinstance(scenario, Scenario) else load(scenario)
    inputs = tuple(inputs_from(ranges))
    _check_args(samples, method, levels, sampling_seed)
    seed_values = _seed_values(seeds)
    until_ns = _until_ns(until)
    kpi_list = kpi_names(kpis)
    if client is not None:
        if workers is not None:
            raise ValueError("workers sizes the local pool; with a Dask client the cluster's workers run the study")
        if not callable(getattr(client, "submit", None)):
            raise TypeError(f"client is a distributed.Client, not {type(client).__name__}")
    elif workers is None:
        workers = usable_cores()
    elif isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")

    k = len(inputs)
    design, roles = _design(method, samples, k, SplitMix64(sampling_seed), levels)
    if method == "sobol":
        roles += [f"AB:{inp.path}" for inp in inputs for _ in range(samples)]
    unit_points = design.points

    # Every point loads here, before any run: a bad value fails now.
    tasks: list[RunTask] = []
    point_rows = []
    texts: dict[tuple[str, ...], str] = {}
    for p, u in enumerate(unit_points):
        values = [inp.value(float(x)) for inp, x in zip(inputs, u)]
        overrides = {inp.path: v for inp, v in zip(inputs, values)}
        point_rows.append({"point": p, "role": roles[p], **overrides})
        try:
            combined = base.with_overrides(overrides)
        except ScenarioError as e:
            shown = ", ".join(f"{path}={v}" for path, v in overrides.items())
            raise ScenarioError(f"{e}\n(design point {p}: {shown})", e.diagnostics) from None
        override_texts = tuple(f"{path}={_override_text(v)}" for path, v in overrides.items())
        text = texts.get(override_texts)
        if text is None:
            text = combined.to_yaml()
            texts[override_texts] = text
        for seed in seed_values:
            tasks.append(RunTask(key=f"{p}-{seed}", text=text, source_name=base.source_file,
                                 overrides=override_texts, seed=seed, until=until,
                                 kpis=tuple(kpi_list) if kpi_list is not None else None))

    manifest = {
        "study": "uncertainty",
        "scenario": base.name,
        "scenario_sha256": hashlib.sha256(base.to_yaml().encode("utf-8")).hexdigest(),
        "drsim_version": _core.__version__,
        "method": method,
        "samples": samples,
        "levels": levels if method == "morris" else None,
        "sampling_seed": sampling_seed,
        "ranges": [[i.path, i.distribution.describe()] for i in inputs],
        "seeds": list(seed_values),
        "until": None if until_ns is None else _core.format_duration_ns(until_ns),
        "kpis": kpi_list,
    }
    folder, records = open_recorded(out, manifest, tasks, "study")

    def record_of(task: RunTask, value: dict[str, Any]) -> dict[str, Any]:
        return {"run": task.key, "point": int(task.key.split("-", 1)[0]), "seed": task.seed,
                "figures": value["figures"], "complete": value["complete"], "stop_reason": value["stop_reason"],
                "wall_s": value["wall_s"]}

    executed = run_recorded(tasks, records, folder, task_fn=_task, record_of=record_of, client=client,
                            workers=workers, progress=progress, desc="drsim.uncertainty")

    missing = missing_kpis([r["figures"] for r in records.values()], kpi_list)
    if missing:
        raise ValueError(f"no run recorded the KPI(s) {', '.join(map(repr, missing))}")
    figure_names = sorted({name for r in records.values() for name in r["figures"]})
    rows = []
    for task in tasks:
        record = records[task.key]
        row: dict[str, Any] = {"point": int(task.key.split("-", 1)[0]), "seed": task.seed}
        for name in figure_names:
            v = record["figures"].get(name)
            row[name] = math.nan if v is None else float(v)
        row["complete"] = bool(record["complete"])
        row["stop_reason"] = str(record["stop_reason"])
        row["wall_s"] = float(record["wall_s"])
        rows.append(row)
    runs = pd.DataFrame(rows, columns=["point", "seed", *figure_names, "complete", "stop_reason", "wall_s"])
    points = pd.DataFrame(point_rows)
    summary, sensitivity = _analyse(method, design, inputs, points, runs, figure_names)
    input_table = pd.DataFrame([{"path": i.path, "distribution": i.distribution.describe(), "source": i.source}
                                for i in inputs])
    return Uncertainty(scenario=base, method=method, ranges=inputs, seeds=seed_values, samples=samples,
                       inputs=input_table, points=points, runs=runs, summary=summary, sensitivity=sensitivity,
                       out=folder.path if folder is not None else None, executed=executed,
                       unit_points=unit_points)


def _analyse(method: str, design: SobolDesign | MorrisDesign, inputs: Sequence[UncertainInput],
             points: pd.DataFrame, runs: pd.DataFrame, figures: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    import pandas as pd

    usable = _uncertainty_points(points)
    usable_runs = runs[usable[runs["point"].to_numpy()]]
    summary_rows = []
    sensitivity_rows = []
    for figure in figures:
        v = usable_runs[figure].to_numpy(dtype=float)
        low, median, high = empirical_interval(v, LOW_Q, HIGH_Q)
        finite = v[np.isfinite(v)]
        summary_rows.append({
            "figure": figure, "median": median, "low": low, "high": high,
            "mean": float(np.mean(finite)) if len(finite) else math.nan,
            "n": int(len(finite)), "missing": int(len(v) - len(finite)),
            "noise_share": _noise_share(usable_runs, figure),
        })
        per_point = _point_means(runs, figure, len(points))
        if method == "sobol":
            assert isinstance(design, SobolDesign)
            idx = sobol_indices(design, per_point)
            order = _ranks(idx.total)
            for j, inp in enumerate(inputs):
                sensitivity_rows.append({
                    "figure": figure, "input": inp.path, "first": idx.first[j], "first_low": idx.first_low[j],
                    "first_high": idx.first_high[j], "total": idx.total[j], "total_low": idx.total_low[j],
                    "total_high": idx.total_high[j], "rank": order[j],
                })
        else:
            assert isinstance(design, MorrisDesign)
            eff = morris_effects(design, per_point)
            order = _ranks(eff.mu_star)
            for j, inp in enumerate(inputs):
                sensitivity_rows.append({
                    "figure": figure, "input": inp.path, "mu_star": eff.mu_star[j], "mu": eff.mu[j],
                    "sigma": eff.sigma[j], "rank": order[j],
                })
    summary = pd.DataFrame(summary_rows).set_index("figure")
    sensitivity = pd.DataFrame(sensitivity_rows).set_index(["figure", "input"])
    return summary, sensitivity


def _ranks(scores: np.ndarray) -> list[float]:
    """1 for the largest score; NaN scores last, ties in input order. A
    figure that no input moves (every score 0 or NaN: a constant figure) has
    no ranking: every rank is NaN."""
    if not any(math.isfinite(s) and s > 0 for s in scores):
        return [math.nan] * len(scores)
    order = sorted(range(len(scores)), key=lambda j: (not math.isfinite(scores[j]),
                                                      -scores[j] if math.isfinite(scores[j]) else 0.0, j))
    ranks = [0.0] * len(scores)
    for r, j in enumerate(order, start=1):
        ranks[j] = float(r)
    return ranks
