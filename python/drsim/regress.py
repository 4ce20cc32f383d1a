"""Regression checks for CI: did a change make any figure worse, beyond the
run-to-run noise?

A stored baseline (:func:`write_baseline`, ``drsim regress SCENARIO
--write-baseline base.json``) holds every figure of :mod:`drsim.figures` for
each of a list of seeds. :func:`regress` runs the candidate (a changed
scenario, ``--set`` overrides of it, or the same scenario under a new drsim
version) over the same seeds and tests each figure: a one-sided Mann-Whitney
U test of "the candidate's values tend to be worse than the baseline's",
since figures such as an RTO are skewed and often tied (whole windows), which
a t test assumes away. The p-values of all the figures tested are adjusted by
Holm's method, so a CI job that tests forty figures at ``alpha`` = 1% raises a
false alarm in at most 1% of unchanged runs, not in a third of them.

Which way is worse: higher for times (``detection_s``, ``traffic_switch_s``,
``rto_s``, ``rpo_s``), errors and failed objectives, and for KPIs named for
latency, errors, failures, loss, queueing or utilisation; lower for success
ratios, passed objectives and KPIs named for availability, success or
throughput. A KPI whose name says neither is tested both ways and reported as
``changed``, which does not fail the check; ``worse=`` (``--worse
NAME=higher``) says which way it goes. A run that never recovered or never
switched (no RTO, no switch time) counts as the worst possible value of that
figure: a change that stops a fault from recovering is a regression, not a
missing row.

``drsim regress`` exits 3 when a figure got worse, 0 otherwise, 2 on bad
input; ``--json`` prints the table for the CI system.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import pathlib
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from drsim import _core
from drsim.errors import ScenarioError
from drsim.figures import kpi_names
from drsim.scenario import Scenario, Source, Until, _until_ns, load
from drsim.sweep import _seed_values, sweep

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["write_baseline", "load_baseline", "regress", "Regression", "Baseline", "BaselineError",
           "mann_whitney_greater", "worse_direction", "main"]

FORMAT = "drsim-baseline/1"
#: The exit code when a figure got worse (as ``drsim run --fail-on-objective``'s).
EXIT_WORSE = 3

_HIGHER_WORSE_FAULT = ("detection_s", "traffic_switch_s", "rto_s", "rpo_s", "switch_errors", "errors")
_LOWER_WORSE_FAULT = ("success_ratio",)
#: A missing value of these is a fault that never got there: the worst value.
_MISSING_IS_WORST = ("detection_s", "traffic_switch_s", "rto_s")
_HIGHER_WORSE_WORDS = ("latency", "error", "fail", "lost", "loss", "drop", "reject", "timeout", "queue", "wait",
                       "utilization", "utilisation", "lag", "rto", "rpo", "pending", "retries", "retry")
_LOWER_WORSE_WORDS = ("availability", "success", "throughput", "served", "goodput", "passed")


class BaselineError(ValueError):
    """A baseline file that cannot be read or does not fit the check."""


def worse_direction(figure: str, overrides: Mapping[str, str] | None = None) -> str:
    """``"higher"``, ``"lower"`` or ``"unknown"``: which way ``figure`` gets worse."""
    if overrides and figure in overrides:
        return overrides[figure]
    base = figure.split("{", 1)[0]
    if base == "objectives.failed":
        return "higher"
    if base == "objectives.passed":
        return "lower"
    tail = base.rsplit(".", 1)[-1]
    if tail in _HIGHER_WORSE_FAULT and "{" not in figure and base.count(".") == 1:
        return "higher"
    if tail in _LOWER_WORSE_FAULT and "{" not in figure and base.count(".") == 1:
        return "lower"
    name = base.lower()
    if any(w in name for w in _LOWER_WORSE_WORDS):
        return "lower"
    if any(w in name for w in _HIGHER_WORSE_WORDS):
        return "higher"
    return "unknown"


# ---- the test ------------------------------------------------------------------------


def _ranks(values: Sequence[float]) -> list[float]:
    """Mid-ranks (ties share the mean of their ranks), 1-based."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        mid = (i + j) / 2.0 + 1.0
        for t in range(i, j + 1):
            ranks[order[t]] = mid
        i = j + 1
    return ranks


def _exact_upper_tail(u: float, n1: int, n2: int) -> float:
    """P(U >= u) under H0 with no ties: the number of arrangements of n1 + n2
    ranks with each U, by the recurrence f(n1, n2, u) = f(n1 - 1, n2, u - n2)
    + f(n1, n2 - 1, u) (Mann and Whitney 1947)."""
    # counts[a][b] is a list: counts of U = 0..a*b for samples of a and b.
    table: dict[tuple[int, int], list[int]] = {}
    for a in range(n1 + 1):
        for b in range(n2 + 1):
            if a == 0 or b == 0:
                table[(a, b)] = [1]
                continue
            size = a * b + 1
            out = [0] * size
            left = table[(a - 1, b)]  # the largest value is in sample 1: it beats all b
            for k, c in enumerate(left):
                out[k + b] += c
            right = table[(a, b - 1)]
            for k, c in enumerate(right):
                out[k] += c
            table[(a, b)] = out
    counts = table[(n1, n2)]
    total = sum(counts)
    start = max(0, math.ceil(u - 1e-9))
    return sum(counts[start:]) / total


def mann_whitney_greater(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """(U, p) of the one-sided test "x tends to be greater than y": U counts
    the pairs with x above y (a tie a half). Exact p without ties and up to
    30 values a side; otherwise the normal approximation with the tie
    correction and a continuity correction."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        return math.nan, math.nan
    ranks = _ranks(list(x) + list(y))
    r1 = sum(ranks[:n1])
    u = r1 - n1 * (n1 + 1) / 2.0
    values = list(x) + list(y)
    tied = len(set(values)) < len(values)
    if not tied and n1 <= 30 and n2 <= 30:
        return u, _exact_upper_tail(u, n1, n2)
    n = n1 + n2
    counts: dict[float, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    tie_term = sum(t ** 3 - t for t in counts.values())
    variance = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)))
    if variance <= 0:
        return u, 1.0  # every value equal: no evidence either way
    z = (u - n1 * n2 / 2.0 - 0.5) / math.sqrt(variance)
    return u, 0.5 * math.erfc(z / math.sqrt(2))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (NaN stays NaN and is not counted)."""
    indexed = [(p, i) for i, p in enumerate(p_values) if math.isfinite(p)]
    indexed.sort()
    m = len(indexed)
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


# ---- baselines -------------------------------------------------------------------------


@dataclass(frozen=True)
class Baseline:
    path: pathlib.Path
    scenario: str
    scenario_sha256: str
    drsim_version: str
    seeds: tuple[int, ...]
    until: str | None
    kpis: list[str] | None
    runs: list[dict[str, Any]]  # {seed, figures: {name: float | None}}


def _scenario_hash(scenario: Scenario) -> str:
    return hashlib.sha256(scenario.to_yaml().encode("utf-8")).hexdigest()


def _figure_runs(scenario: Scenario, seeds: tuple[int, ...], until: Until | None, kpis: list[str] | None,
                 workers: int | None, client: Any) -> list[dict[str, Any]]:
    study = sweep(scenario, {}, seeds, until=until, kpis=kpis, workers=workers if client is None else None,
                  client=client, progress=False)
    own = {"run", "seed", "complete", "stop_reason", "wall_s"}
    figures = [c for c in study.runs.columns if c not in own]
    runs = []
    for d in study.runs.to_dict("records"):
        runs.append({"seed": int(d["seed"]), "complete": bool(d["complete"]),
                     "figures": {f: (None if not math.isfinite(float(d[f])) else float(d[f])) for f in figures}})
    return runs


def write_baseline(scenario: Scenario | Source, path: str | os.PathLike[str], seeds: Iterable[int], *,
                   until: Until | None = None, kpis: Iterable[str] | str | None = None,
                   workers: int | None = None, client: Any = None) -> Baseline:
    """Runs the scenario for every seed and stores its figures in ``path`` (JSON)."""
    base = scenario if isinstance(scenario, Scenario) else load(scenario)
    seed_values = _seed_values(seeds)
    until_ns = _until_ns(until)
    kpi_list = kpi_names(kpis)
    runs = _figure_runs(base, seed_values, until, kpi_list, workers, client)
    document = {
        "format": FORMAT,
        "scenario": base.name,
        "scenario_sha256": _scenario_hash(base),
        "drsim_version": _core.__version__,
        "seeds": list(seed_values),
        "until": None if until_ns is None else _core.format_duration_ns(until_ns),
        "kpis": kpi_list,
        "runs": runs,
    }
    p = pathlib.Path(os.fspath(path))
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, p)
    return load_baseline(p)


def load_baseline(path: str | os.PathLike[str]) -> Baseline:
    p = pathlib.Path(os.fspath(path))
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BaselineError(f"{p}: cannot read the baseline: {e}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise BaselineError(f"{p}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise BaselineError(f"{p}: not a drsim baseline (expected \"format\": \"{FORMAT}\"; write one with "
                            f"drsim regress SCENARIO --write-baseline FILE)")
    try:
        seeds = tuple(int(s) for s in doc["seeds"])
        runs = doc["runs"]
        if not isinstance(runs, list) or len(runs) != len(seeds):
            raise ValueError("one run per seed")
        for r in runs:
            if not isinstance(r.get("figures"), dict) or int(r["seed"]) not in seeds:
                raise ValueError("each run has a seed of the list and figures")
        return Baseline(path=p, scenario=str(doc["scenario"]), scenario_sha256=str(doc["scenario_sha256"]),
                        drsim_version=str(doc["drsim_version"]), seeds=seeds, until=doc.get("until"),
                        kpis=doc.get("kpis"), runs=runs)
    except (KeyError, TypeError, ValueError) as e:
        raise BaselineError(f"{p}: a drsim baseline with a broken field: {e}") from None


# ---- the check ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Regression:
    """What :func:`regress` returns. ``table``: one row per figure:
    ``worse_if`` (higher, lower, unknown), ``baseline_median``,
    ``candidate_median``, ``change`` (relative, of the medians), ``p_value``
    (one-sided, towards worse; for ``unknown``, two-sided), ``p_adjusted``
    (Holm over the figures tested), ``verdict`` (``worse``, ``better``,
    ``same``, ``changed`` or ``untested``: fewer than two values a side or
    every value equal), ``n_baseline``, ``n_candidate``."""

    baseline: Baseline
    candidate: str
    same_scenario: bool
    alpha: float
    table: pd.DataFrame

    @property
    def worse(self) -> list[str]:
        return list(self.table.index[self.table["verdict"] == "worse"])

    @property
    def failed(self) -> bool:
        return bool(self.worse)

    def to_json(self) -> dict[str, Any]:
        def plain(v: Any) -> Any:
            if isinstance(v, float):
                return v if math.isfinite(v) else None
            return v

        return {
            "failed": self.failed,
            "worse": self.worse,
            "alpha": self.alpha,
            "baseline": {"file": str(self.baseline.path), "scenario": self.baseline.scenario,
                         "drsim_version": self.baseline.drsim_version, "seeds": list(self.baseline.seeds)},
            "candidate": {"scenario": self.candidate, "drsim_version": _core.__version__,
                          "same_scenario": self.same_scenario},
            "figures": {f: {k: plain(v.item() if hasattr(v, "item") else v) for k, v in row.items()}
                        for f, row in self.table.iterrows()},
        }


def _values(runs: list[dict[str, Any]], figure: str, direction: str) -> list[float]:
    out = []
    missing_worst = figure.rsplit(".", 1)[-1] in _MISSING_IS_WORST and direction == "higher"
    for r in runs:
        v = r["figures"].get(figure)
        if v is None or (isinstance(v, float) and not math.isfinite(v)):
            if missing_worst:
                out.append(math.inf)
            continue
        out.append(float(v))
    return out


def _median(v: list[float]) -> float:
    if not v:
        return math.nan
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def compare_runs(baseline: list[dict[str, Any]], candidate: list[dict[str, Any]], *, alpha: float = 0.01,
                 worse: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The per-figure table of :class:`Regression` from two lists of runs."""
    import pandas as pd

    names = sorted({f for r in baseline for f in r["figures"]} | {f for r in candidate for f in r["figures"]})
    rows = []
    for f in names:
        direction = worse_direction(f, worse)
        b, c = _values(baseline, f, direction), _values(candidate, f, direction)
        row = {"figure": f, "worse_if": direction, "baseline_median": _median(b), "candidate_median": _median(c),
               "n_baseline": len(b), "n_candidate": len(c)}
        bm, cm = row["baseline_median"], row["candidate_median"]
        row["change"] = (cm - bm) / abs(bm) if math.isfinite(bm) and math.isfinite(cm) and bm != 0 else math.nan
        testable = len(b) >= 2 and len(c) >= 2 and len(set(b) | set(c)) > 1
        # Both one-sided tests: "c tends above b" and "b tends above c".
        up, down = (mann_whitney_greater(c, b)[1], mann_whitney_greater(b, c)[1]) if testable else (math.nan, math.nan)
        worse_p, better_p = {"higher": (up, down), "lower": (down, up)}.get(direction, (math.nan, math.nan))
        two_sided = min(1.0, 2 * min(up, down)) if testable else math.nan
        row["p_value"] = worse_p if direction in ("higher", "lower") else two_sided
        row["_better_p"] = better_p
        rows.append(row)
    adjusted = holm([r["p_value"] for r in rows])
    tested = sum(math.isfinite(r["p_value"]) for r in rows)
    for r, pa in zip(rows, adjusted):
        r["p_adjusted"] = pa
        if not math.isfinite(pa):
            r["verdict"] = "untested"
        elif pa < alpha:
            r["verdict"] = "changed" if r["worse_if"] == "unknown" else "worse"
        elif r["_better_p"] * tested < alpha:
            # The opposite one-sided test (Bonferroni), for the reader only: never a failure.
            r["verdict"] = "better"
        else:
            r["verdict"] = "same"
    # The frame keeps these columns (not _better_p).
    columns = ["figure", "worse_if", "baseline_median", "candidate_median", "change", "p_value", "p_adjusted",
               "verdict", "n_baseline", "n_candidate"]
    return pd.DataFrame(rows, columns=columns).set_index("figure")


def regress(scenario: Scenario | Source, baseline: Baseline | str | os.PathLike[str], *,
            seeds: Iterable[int] | None = None, alpha: float = 0.01, worse: Mapping[str, str] | None = None,
            workers: int | None = None, client: Any = None) -> Regression:
    """Runs the candidate ``scenario`` over the baseline's seeds (or
    ``seeds``), with the baseline's horizon and KPIs, and tests each figure
    against the baseline's runs; see the module's docstring."""
    if not (isinstance(alpha, float) or isinstance(alpha, int)) or isinstance(alpha, bool) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    for f, d in (worse or {}).items():
        if d not in ("higher", "lower"):
            raise ValueError(f"worse[{f!r}] is 'higher' or 'lower', not {d!r}")
    base = baseline if isinstance(baseline, Baseline) else load_baseline(baseline)
    candidate = scenario if isinstance(scenario, Scenario) else load(scenario)
    seed_values = _seed_values(seeds) if seeds is not None else base.seeds
    runs = _figure_runs(candidate, seed_values, base.until, base.kpis, workers, client)
    table = compare_runs(base.runs, runs, alpha=float(alpha), worse=worse)
    return Regression(baseline=base, candidate=candidate.name,
                      same_scenario=_scenario_hash(candidate) == base.scenario_sha256, alpha=float(alpha),
                      table=table)


# ---- command line ------------------------------------------------------------------------


def _text(result: Regression) -> str:
    b = result.baseline
    lines = [f"baseline {b.path} ({b.scenario}, drsim {b.drsim_version}, {len(b.seeds)} seeds) against "
             f"{result.candidate} (drsim {_core.__version__}, "
             f"{'the same scenario' if result.same_scenario else 'a changed scenario'}); "
             f"one-sided Mann-Whitney U, Holm-adjusted, alpha {result.alpha:g}", ""]
    lines.append(f"{'figure':<48} {'worse if':>8} {'baseline':>12} {'candidate':>12} {'change':>8} "
                 f"{'p (adj.)':>9}  verdict")
    for f, r in result.table.iterrows():
        change = "" if not math.isfinite(r["change"]) else f"{r['change']:+.1%}"
        p = "" if not math.isfinite(r["p_adjusted"]) else f"{r['p_adjusted']:.3g}"
        lines.append(f"{f:<48} {r['worse_if']:>8} {r['baseline_median']:>12.6g} {r['candidate_median']:>12.6g} "
                     f"{change:>8} {p:>9}  {r['verdict']}")
    lines.append("")
    lines.append(f"worse: {', '.join(result.worse)}" if result.worse else "no figure got worse")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``drsim regress SCENARIO --baseline FILE`` (exit 3 when a figure got
    worse) or ``--write-baseline FILE``."""
    from drsim.uncertainty_cli import parse_seeds

    parser = argparse.ArgumentParser(
        prog="drsim regress",
        description="Store a scenario's figures over a list of seeds as a baseline, or check a candidate "
                    "(a changed scenario, --set overrides, a new drsim) against one: exit 3 when a figure got "
                    "worse beyond the run-to-run noise.",
    )
    parser.add_argument("scenario", help="the scenario file (the candidate, or the baseline's)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--baseline", help="the stored baseline to check against")
    mode.add_argument("--write-baseline", metavar="FILE", help="run the scenario and store its figures there")
    parser.add_argument("--seeds", default=None, help="seeds, e.g. 1..20 (default: the baseline's; "
                                                      "with --write-baseline, 1..20)")
    parser.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                        help="override a scenario value (repeatable)")
    parser.add_argument("--kpi", action="append", default=[], help="with --write-baseline: a KPI to keep")
    parser.add_argument("--until", default=None, help="with --write-baseline: every run's horizon")
    parser.add_argument("--alpha", type=float, default=0.01, help="family-wise false-alarm rate (default 0.01)")
    parser.add_argument("--worse", action="append", default=[], metavar="FIGURE=higher|lower",
                        help="which way a figure gets worse, where its name does not say (repeatable)")
    parser.add_argument("--workers", type=int, default=None, help="local worker processes (default: the cores)")
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    try:
        scenario = load(args.scenario)
        if args.set:
            scenario = scenario.with_overrides(args.set)
        if args.write_baseline:
            seeds = parse_seeds(args.seeds) if args.seeds else list(range(1, 21))
            stored = write_baseline(scenario, args.write_baseline, seeds, until=args.until, kpis=args.kpi or None,
                                    workers=args.workers)
            print(f"baseline: {stored.path} ({len(stored.seeds)} runs of {stored.scenario})")
            return 0
        if args.kpi or args.until:
            raise ValueError("--kpi and --until are the baseline's: give them with --write-baseline")
        worse = {}
        for item in args.worse:
            name, sep, direction = item.rpartition("=")
            if not sep or direction not in ("higher", "lower"):
                raise ValueError(f"--worse {item!r}: expected FIGURE=higher or FIGURE=lower")
            worse[name] = direction
        result = regress(scenario, args.baseline, seeds=parse_seeds(args.seeds) if args.seeds else None,
                         alpha=args.alpha, worse=worse, workers=args.workers)
    except (ScenarioError, BaselineError, ValueError, TypeError, OSError) as e:
        print(f"drsim regress: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json(), indent=2, sort_keys=True))
    else:
        sys.stdout.write(_text(result))
    return EXIT_WORSE if result.failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
