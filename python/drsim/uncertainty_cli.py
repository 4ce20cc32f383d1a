"""``drsim uncertainty SCENARIO --ranges FILE ...``: :func:`drsim.uncertainty`
from a shell. Prints each figure's median and 5-95% interval and the
inputs' ranking (``--json`` for machines), optionally writes the HTML
report; exit 0, or 2 on bad input."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, Sequence

from drsim.errors import ScenarioError
from drsim.report import report
from drsim.uncertainty import METHODS, Uncertainty, uncertainty
from drsim.uncertainty_inputs import RangesError, UncertainInput, inputs_from, load_ranges

__all__ = ["main", "parse_seeds"]


def parse_seeds(text: str) -> list[int]:
    """``1,2,3`` or ``0..9`` (inclusive) or a mix: ``1,5..7``."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if ".." in part:
            a, _, b = part.partition("..")
            if not (a.strip().isdigit() and b.strip().isdigit()) or int(a) > int(b):
                raise ValueError(f"--seeds: {part!r} is not a range such as 0..9")
            seeds.extend(range(int(a), int(b) + 1))
        elif part.isdigit():
            seeds.append(int(part))
        else:
            raise ValueError(f"--seeds: expected seeds such as 1,2,3 or 0..9, got {part!r}")
    return seeds


def _inline_range(text: str) -> tuple[str, Any]:
    """``PATH=LOW..HIGH`` (uniform) or ``PATH=a|b|c`` (choice)."""
    import yaml

    from drsim.uncertainty_inputs import Choice, Uniform

    path, sep, spec = text.partition("=")
    if not sep or not path.strip():
        raise RangesError(f"--range {text!r}: expected PATH=LOW..HIGH or PATH=A|B|C")

    def scalar(s: str) -> Any:
        # As YAML reads a value: 3 an int, 0.5 a float, 10s a quantity (a str).
        value = yaml.safe_load(s.strip()) if s.strip() else s
        return value if isinstance(value, (int, float, str)) and not isinstance(value, bool) else s.strip()

    if "|" in spec:
        return path.strip(), Choice(tuple(scalar(s) for s in spec.split("|")))
    low, sep, high = spec.partition("..")
    if not sep:
        raise RangesError(f"--range {text!r}: expected PATH=LOW..HIGH or PATH=A|B|C")
    try:
        return path.strip(), Uniform(scalar(low), scalar(high))
    except RangesError as e:
        raise RangesError(f"--range {text!r}: {e}") from None


def _text_table(u: Uncertainty, figures: Sequence[str]) -> str:
    lines = [f"{u!r}", "", "inputs:"]
    for i in u.ranges:
        lines.append(f"  {i.path}: {i.distribution.describe()}" + (f"  [{i.source}]" if i.source else ""))
    lines += ["", f"{'figure':<44} {'median':>12} {'5%':>12} {'95%':>12} {'missing':>8} {'noise':>6}"]
    for f in figures:
        r = u.summary.loc[f]
        noise = "" if not math.isfinite(r["noise_share"]) else f"{r['noise_share']:.0%}"
        lines.append(f"{f:<44} {r['median']:>12.6g} {r['low']:>12.6g} {r['high']:>12.6g} {int(r['missing']):>8} "
                     f"{noise:>6}")
    score = "total" if u.method == "sobol" else "mu_star"
    lines += ["", f"sensitivity ({'Sobol total index' if u.method == 'sobol' else 'Morris mu*'}, most first):"]
    for f in figures:
        if not (u.summary.loc[f, "high"] > u.summary.loc[f, "low"]):
            continue
        ranked = u.ranking(f)
        shown = ", ".join(f"{p} {row[score]:.3g}" for p, row in ranked.iterrows())
        lines.append(f"  {f}: {shown}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``drsim uncertainty SCENARIO --ranges FILE ...``; exit 0, or 2 on bad input."""
    parser = argparse.ArgumentParser(
        prog="drsim uncertainty",
        description="Run a scenario over a design of its uncertain inputs and every seed; print each figure's "
                    "median and 5-95%% interval and the inputs that drive it (Sobol' indices or Morris "
                    "elementary effects).",
    )
    parser.add_argument("scenario", help="the scenario file")
    parser.add_argument("--ranges", help="YAML file of uncertain inputs (ranges: [{path, uniform|logUniform|"
                                         "triangular|normal|choice, source}])")
    parser.add_argument("--range", action="append", default=[], metavar="PATH=LOW..HIGH",
                        help="an input uniform between LOW and HIGH, or PATH=A|B|C one of those (repeatable)")
    parser.add_argument("--samples", type=int, default=32, help="Sobol' base points or Morris trajectories "
                                                                "(default 32)")
    parser.add_argument("--seeds", default="1,2,3", help="seeds, e.g. 1,2,3 or 0..9 (default 1,2,3)")
    parser.add_argument("--method", default="sobol", choices=METHODS)
    parser.add_argument("--levels", type=int, default=4, help="Morris grid levels (even, default 4)")
    parser.add_argument("--sampling-seed", type=int, default=0, help="the design's seed (default 0)")
    parser.add_argument("--kpi", action="append", default=[], help="a KPI to add as a figure (repeatable)")
    parser.add_argument("--figure", action="append", default=[],
                        help="print only this figure (repeatable; default: every figure that varies)")
    parser.add_argument("--workers", type=int, default=None, help="local worker processes (default: the cores)")
    parser.add_argument("--until", default=None, help="every run's horizon (default spec.duration)")
    parser.add_argument("--out", default=None, help="results folder: runs.jsonl as runs finish; resumes")
    parser.add_argument("--json", action="store_true", help="print inputs, summary and sensitivity as JSON")
    parser.add_argument("--report", default=None, help="also write an HTML report there")
    args = parser.parse_args(argv)
    try:
        ranges: list[UncertainInput] = list(load_ranges(args.ranges)) if args.ranges else []
        inline = dict(_inline_range(r) for r in args.range)
        if inline:
            ranges += inputs_from(inline)
        if not ranges:
            raise RangesError("give the uncertain inputs with --ranges FILE or --range PATH=LOW..HIGH")
        result = uncertainty(args.scenario, inputs_from(ranges), args.samples, parse_seeds(args.seeds),
                             method=args.method, levels=args.levels, sampling_seed=args.sampling_seed,
                             kpis=args.kpi or None, workers=args.workers, until=args.until, out=args.out,
                             progress=False)
        figures = args.figure or [f for f in result.figures
                                  if result.summary.loc[f, "high"] > result.summary.loc[f, "low"]]
        for f in figures:
            result._summary_row(f)
        if args.report:
            report(result, args.report)
    except (ScenarioError, RangesError, ValueError, TypeError, KeyError, OSError) as e:
        message = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"drsim uncertainty: {message}", file=sys.stderr)
        return 2
    if args.json:
        data = result.to_json()
        if args.figure:
            data["summary"] = {f: data["summary"][f] for f in figures}
            data["sensitivity"] = {f: data["sensitivity"][f] for f in figures}
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        sys.stdout.write(_text_table(result, figures))
    if args.report:
        print(f"report: {args.report}", file=sys.stderr if args.json else sys.stdout)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
