"""Side-by-side comparison of scenario variants over several seeds.

An architecture review asks "does policy B recover faster than policy A, or
was that one lucky seed?". :func:`compare` runs every variant (a dict of
overrides, as :meth:`drsim.Scenario.with_overrides` takes them) for every
seed and summarises each figure per variant as a mean with a 95% confidence
interval from Student's t distribution over the seeds, so the difference
between variants can be read against the noise between seeds.

The t quantile is computed here (regularised incomplete beta function and
bisection) so that the package needs numpy and pandas only, not scipy.
"""

from __future__ import annotations

import concurrent.futures
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from drsim.figure_canvas import new_figure, unit_of
from drsim.figures import FAULT_FIGURES, kpi_names, missing_kpis, run_figures
from drsim.scenario import Overrides, Scenario, Source, Until, load
from drsim.sweep_pools import usable_cores

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from drsim.result import Result

__all__ = ["compare", "Comparison", "comparison_summary", "t_quantile", "FAULT_FIGURES"]

_SUMMARY_COLUMNS = ["mean", "ci_low", "ci_high", "min", "max", "n"]


# ---- Student's t ------------------------------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def _t_cdf(t: float, df: float) -> float:
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: int | float) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` degrees of
    freedom (e.g. ``t_quantile(0.975, 4)`` = 2.776...), to about 1e-10."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    if not df > 0:
        raise ValueError(f"df must be positive, got {df!r}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while _t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


# ---- the comparison ----------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Comparison:
    """What :func:`compare` returns.

    ``table``: one row per (variant, figure), MultiIndex ``variant``,
    ``figure``; columns ``mean``, ``ci_low``, ``ci_high`` (the 95% Student t
    interval of the mean over the seeds; NaN with fewer than two values),
    ``min``, ``max``, ``n`` (runs where the figure has a value: a fault that
    never recovered has no RTO). ``runs``: one row per (variant, seed) with
    every figure as a column, for :func:`drsim.plot.distribution`.
    ``results``: ``{(variant, seed): Result}`` with ``keep_results=True``
    (a report then shows the first seed's runs side by side), else empty.
    """

    scenario: Scenario
    variants: dict[str, list[str]]  #: each variant's overrides, as ``path=value`` text
    seeds: tuple[int, ...]
    until: Until | None
    table: pd.DataFrame
    runs: pd.DataFrame
    confidence: float = 0.95
    results: dict[tuple[str, int], Any] = field(default_factory=dict, repr=False, compare=False)

    def figure(self, name: str) -> pd.DataFrame:
        """The summary rows of one figure, one per variant."""
        if name not in self.runs.columns:
            known = ", ".join(c for c in self.runs.columns if c not in ("variant", "seed"))
            raise ValueError(f"no figure {name!r} in this comparison (figures: {known})")
        return self.table.xs(name, level="figure")

    def plot(self, figures: Iterable[str] | None = None, *, title: str | None = None) -> Figure:
        """The per-fault figures (or ``figures``), one panel each: every
        variant's mean with its confidence interval as an error bar and each
        seed's value as a dot (see :func:`comparison_summary`)."""
        return comparison_summary(self, figures=figures, title=title)

    def __repr__(self) -> str:
        figures = sum(1 for c in self.runs.columns if c not in ("variant", "seed"))
        return (
            f"<drsim.Comparison {self.scenario.name!r} variants={list(self.variants)} seeds={len(self.seeds)}"
            f" figures={figures} confidence={self.confidence:.0%}>"
        )

    def _repr_html_(self) -> str:
        """Notebooks: what it compares, then the table of means and intervals."""
        import html

        return f"<p><b>{html.escape(repr(self))}</b></p>" + self.table.to_html()


# More variants than this, or a longer name, and the variants go down the
# y axis (one row each, names written horizontally) instead of along x.
_MAX_VARIANTS_ACROSS = 4
_MAX_NAME_ACROSS = 14


def _interval_bounds(values: Any, unit: str) -> tuple[float, float]:
    """The range a figure can take, judged from its values: never below 0
    when no run went below 0 (a time, a count, a ratio), never above 100%
    for a ratio no run exceeded."""
    import numpy as np

    finite = values[np.isfinite(values)]
    floor = 0.0 if finite.size == 0 or (finite >= 0).all() else -math.inf
    ceiling = 100.0 if unit == "%" and (finite.size == 0 or (finite <= 100.0).all()) else math.inf
    return floor, ceiling


def comparison_summary(comparison: Comparison, *, figures: Iterable[str] | None = None, title: str | None = None) -> Figure:
    """A :class:`drsim.Comparison` as one panel per figure: each variant's
    mean with its confidence interval (error bar) and every seed's value (dots).
    By default the per-fault RTO, detection, switch and error figures that
    have a value in some run.

    The Student t interval is symmetric and may reach below 0 for a figure
    that cannot (a time, a count of errors, a ratio): an error bar is clipped
    to the range the figure takes (at 0 when no run was negative, at 100%
    for a ratio); :attr:`Comparison.table` keeps the unclipped interval.
    With more than 4 variants, or a name longer than 14 characters, the
    variants go down the y axis, one row each, so their names never overlap."""
    import numpy as np

    if not isinstance(comparison, Comparison):
        raise TypeError(f"expected a drsim.Comparison (from drsim.compare), not {type(comparison).__name__}")
    runs = comparison.runs
    available = [c for c in runs.columns if c not in ("variant", "seed")]
    if figures is None:
        wanted = ("rto_s", "detection_s", "traffic_switch_s", "errors", "switch_errors")
        names = [c for c in available if c.rsplit(".", 1)[-1] in wanted and runs[c].notna().any()]
        if not names:
            names = [c for c in available if runs[c].notna().any()][:4]
    else:
        names = [figures] if isinstance(figures, str) else list(figures)
        for n in names:
            if n not in available:
                raise ValueError(f"no figure {n!r} in this comparison (figures: {', '.join(available)})")
    if not names:
        raise ValueError("the comparison has no figure with a value to plot")
    variants = list(dict.fromkeys(runs["variant"]))
    across = len(variants) <= _MAX_VARIANTS_ACROSS and max(len(str(v)) for v in variants) <= _MAX_NAME_ACROSS
    cols = min(3, len(names))
    rows = math.ceil(len(names) / cols)
    panel_height = 3.0 if across else max(3.0, 1.0 + 0.32 * len(variants))
    fig = new_figure(max(6.0, 4.2 * cols), 0.8 + panel_height * rows)
    # Down the y axis, the panels share it: the names are written once per row of panels.
    axes = fig.subplots(rows, cols, squeeze=False, sharey=not across).ravel()
    for ax, name in zip(axes, names):
        unit, scale = unit_of(name)
        summary = comparison.table.xs(name, level="figure").reindex(variants)
        positions = np.arange(len(variants))
        mean = summary["mean"].to_numpy(dtype=float) * scale
        floor, ceiling = _interval_bounds(runs[name].to_numpy(dtype=float) * scale, unit)
        low = np.clip(summary["ci_low"].to_numpy(dtype=float) * scale, floor, ceiling)
        high = np.clip(summary["ci_high"].to_numpy(dtype=float) * scale, floor, ceiling)
        err = np.vstack([np.nan_to_num(np.maximum(mean - low, 0.0)), np.nan_to_num(np.maximum(high - mean, 0.0))])
        label = f"{name.rsplit('.', 1)[-1]} ({unit})" if unit else name.rsplit(".", 1)[-1]
        if across:
            ax.errorbar(positions, mean, yerr=err, fmt="s", color="black", capsize=5, ms=6, gid=f"ci:{name}")
        else:
            ax.errorbar(mean, positions, xerr=err, fmt="s", color="black", capsize=4, ms=5, gid=f"ci:{name}")
        for i, v in enumerate(variants):
            values = runs.loc[runs["variant"] == v, name].to_numpy(dtype=float) * scale
            offset = np.full(len(values), i + 0.15)
            ax.plot(*((offset, values) if across else (values, offset)), "o", ms=3.5, alpha=0.6, color="tab:blue")
        if across:
            ax.set_xticks(positions, variants)
            ax.set_xlim(-0.5, len(variants) - 0.5)
            ax.set_ylabel(label)
            ax.grid(True, axis="y", alpha=0.3)
        else:
            ax.set_yticks(positions, variants)
            ax.set_ylim(len(variants) - 0.5, -0.5)  # the first variant on top
            ax.set_xlabel(label)
            ax.grid(True, axis="x", alpha=0.3)
        ax.set_title(name, fontsize="medium")
    for ax in axes[len(names):]:
        ax.set_visible(False)
    # The key goes in the title rather than in a legend that could cover a point.
    key = f"black: mean and {100 * comparison.confidence:g}% confidence interval; blue dots: one seed each"
    heading = title if title is not None else (
        f"{comparison.scenario.name}: {len(variants)} variants x {len(comparison.seeds)} seeds")
    fig.suptitle(f"{heading}\n{key}", fontsize="medium")
    return fig


def _variant_overrides(variants: Mapping[str, Overrides]) -> dict[str, Overrides]:
    if not isinstance(variants, Mapping) or not variants:
        raise ValueError("variants is a non-empty mapping {name: overrides}; use {} as a variant for the baseline")
    out: dict[str, Overrides] = {}
    for name, overrides in variants.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"variant names are non-empty str, got {name!r}")
        if overrides is None:
            overrides = {}
        out[name] = overrides
    return out


def _seeds(seeds: Iterable[int]) -> tuple[int, ...]:
    values = tuple(seeds)
    if not values:
        raise ValueError("seeds is empty")
    for s in values:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ValueError(f"seeds are non-negative int, got {s!r}")
    if len(set(values)) != len(values):
        raise ValueError(f"seeds repeat a value: {list(values)}")
    return values


def _summarise(runs: pd.DataFrame, confidence: float) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    figures = [c for c in runs.columns if c not in ("variant", "seed")]
    records = []
    index = []
    for variant, group in runs.groupby("variant", sort=False):
        for name in figures:
            values = pd.to_numeric(group[name], errors="coerce").to_numpy(dtype=float)
            values = values[~np.isnan(values)]
            n = len(values)
            mean = float(values.mean()) if n else math.nan
            if n >= 2:
                half = t_quantile(0.5 + confidence / 2.0, n - 1) * float(values.std(ddof=1)) / math.sqrt(n)
                low, high = mean - half, mean + half
            else:
                low = high = math.nan
            records.append([mean, low, high, float(values.min()) if n else math.nan,
                            float(values.max()) if n else math.nan, n])
            index.append((variant, name))
    table = pd.DataFrame(records, columns=_SUMMARY_COLUMNS,
                         index=pd.MultiIndex.from_tuples(index, names=["variant", "figure"]))
    return table.astype({"n": "int64"})


def compare(
    scenario: Scenario | Source,
    variants: Mapping[str, Overrides],
    seeds: Iterable[int] = range(5),
    *,
    kpis: Iterable[str] | None = None,
    until: Until | None = None,
    workers: int | None = None,
    confidence: float = 0.95,
    keep_results: bool = False,
    progress: bool = False,
) -> Comparison:
    """Runs each variant of ``scenario`` for each seed and summarises them.

    ``variants`` maps a name to overrides (``{"spec.timeline[fail-a].at":
    "5m"}``; ``{}`` is the baseline); every variant is loaded before any run,
    so a bad override path raises :class:`drsim.ScenarioError` naming it at
    once. ``kpis`` adds run KPIs by name (``["client.availability"]``; one
    column per label set). ``until`` shortens every run. Runs go to a pool of
    ``workers`` threads (default: the CPU count, at most 8; the simulation
    releases the GIL); the result does not depend on the pool: the same
    scenario, variants and seeds give the same frame. ``progress=True``
    shows a tqdm bar of finished runs (in a notebook, a widget when available);
    ``keep_results=True`` keeps every :class:`drsim.Result` in
    :attr:`Comparison.results`.
    """
    import pandas as pd

    base = scenario if isinstance(scenario, Scenario) else load(scenario)
    chosen = _variant_overrides(variants)
    seed_values = _seeds(seeds)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    kpi_list = kpi_names(kpis)
    if workers is None:
        workers = min(8, usable_cores())
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")

    # Load every variant first: bad overrides fail before anything runs.
    scenarios = {name: base.with_overrides(overrides) for name, overrides in chosen.items()}
    jobs = [(name, seed) for name in scenarios for seed in seed_values]

    def run(job: tuple[str, int]) -> Result:
        name, seed = job
        return scenarios[name].run(seed=seed, until=until)

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run, job) for job in jobs]
        if progress:
            from tqdm.auto import tqdm

            for _ in tqdm(concurrent.futures.as_completed(futures), total=len(futures), desc="drsim.compare",
                          unit="run"):
                pass
        results = [f.result() for f in futures]  # in job order, whatever order they finished in

    rows = []
    for (name, seed), result in zip(jobs, results):
        figures = run_figures(result, kpi_list)
        rows.append({"variant": name, "seed": seed, **figures})
    missing = missing_kpis(rows, kpi_list)
    if missing:
        raise ValueError(f"no run recorded the KPI(s) {', '.join(map(repr, missing))}")
    runs = pd.DataFrame(rows)
    # Columns in first-seen order; a figure absent from a run (e.g. a fault
    # step past a variant's horizon) is NaN there.
    runs = runs[["variant", "seed"] + [c for c in runs.columns if c not in ("variant", "seed")]]
    return Comparison(
        scenario=base,
        variants={name: list(s.overrides[len(base.overrides):]) for name, s in scenarios.items()},
        seeds=seed_values,
        until=until,
        table=_summarise(runs, confidence),
        runs=runs,
        confidence=confidence,
        results={job: r for job, r in zip(jobs, results)} if keep_results else {},
    )
