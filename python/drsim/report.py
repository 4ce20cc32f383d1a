"""One self-contained HTML file about a run or a comparison, for a review.

A review attaches one file: it must open anywhere, offline, years later. So
the report has its figures as base64 PNGs in ``<img src="data:...">``, its
tables as plain HTML, its style inline, no script and no external URL; every
text that comes from the scenario (names, descriptions, the resolved YAML)
is HTML-escaped.

Command line (the ``drsim report`` command will call this)::

    python3 -m drsim.report SCENARIO.yaml OUT.html [--seed N] [--until 10m]
    python3 -m drsim.report RESULTS_DIR OUT.html
    python3 -m drsim.report SCENARIO.yaml OUT.html --check [--target 70%]   # drsim check, no run

A results folder (``drsim run --out DIR``) holds tables, not the Recorder, so
it cannot be loaded back as a :class:`drsim.Result`; the report re-runs the
folder's resolved ``scenario.yaml`` up to the end time in its ``run.json``.
Runs are deterministic, so with the same seed this is the same run: the seed
is the scenario's ``spec.seed`` unless ``--seed`` says otherwise (a
``drsim run --seed N`` is not recorded in the folder; pass the same N).
"""

from __future__ import annotations

import argparse
import base64
import datetime
import html
import json
import os
import pathlib
import sys
from typing import TYPE_CHECKING, Any, Sequence, Union

from drsim import _core

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from drsim.check import CapacityReport
    from drsim.compare import Comparison
    from drsim.result import Result
    from drsim.uncertainty import Uncertainty

Subject = Union["Result", "Comparison", "CapacityReport", "Uncertainty"]

__all__ = ["report", "render", "main"]

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1200px;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
p.meta { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td.text, th.text { text-align: left; }
tr.fail td { background: #fde8e8; }
tr.pass td { background: #eaf7ea; }
td.over { background: #fde8e8; font-weight: bold; }
img { max-width: 100%; height: auto; border: 1px solid #eee; }
pre { background: #f7f7f7; border: 1px solid #ddd; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
details summary { cursor: pointer; }
div.scroll { overflow-x: auto; }
"""


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _img(fig: Any, alt: str) -> str:
    """The figure as an embedded PNG."""
    from drsim.plot import png_bytes

    data = base64.b64encode(png_bytes(fig)).decode("ascii")
    return f'<img alt="{_esc(alt)}" src="data:image/png;base64,{data}">'


def _number(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != value:  # NaN
            return "&ndash;"
        return _esc(f"{value:.6g}")
    return _esc(value)


def _table(frame: pd.DataFrame, *, css_class: str, index: bool = False, row_class: Any = None) -> str:
    """A DataFrame as an escaped HTML table; text columns left-aligned."""
    import pandas as pd

    if index:
        frame = frame.reset_index()
    if frame.empty:
        return '<p class="empty">none</p>'
    text_columns = {c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c]) or
                    pd.api.types.is_bool_dtype(frame[c])}
    head = "".join(f'<th class="{"text" if c in text_columns else "num"}">{_esc(c)}</th>' for c in frame.columns)
    rows = []
    for _, row in frame.iterrows():
        cls = f' class="{row_class(row)}"' if row_class else ""
        cells = "".join(
            f'<td class="{"text" if c in text_columns else "num"}">{_number(row[c])}</td>' for c in frame.columns
        )
        rows.append(f"<tr{cls}>{cells}</tr>")
    return (f'<div class="scroll"><table class="{css_class}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _page(title: str, meta: str, sections: list[str]) -> str:
    generated = f"drsim {_esc(_core.__version__)}"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{_esc(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{_esc(title)}</h1>\n<p class=\"meta\">{meta} &middot; {generated}</p>\n"
        + "\n".join(sections)
        + "\n</body>\n</html>\n"
    )


def _section(heading: str, body: str, section_id: str) -> str:
    return f'<section id="{_esc(section_id)}">\n<h2>{_esc(heading)}</h2>\n{body}\n</section>'


def _scenario_section(text: str) -> str:
    return _section("Resolved scenario", f"<details open><summary>scenario.yaml</summary><pre>{_esc(text)}</pre>"
                                         "</details>", "scenario")


def _verdict_class(row: Any) -> str:
    return "pass" if bool(row["passed"]) else "fail"


def _result_html(result: Result, title: str | None) -> str:
    from drsim import plot

    scenario = result.scenario
    o = result.outcome
    name = title if title is not None else f"drsim report: {scenario.name}"
    meta = (f"seed {result.seed} &middot; {_esc(f'{o.end_t_s:g}')} s simulated of {_esc(f'{result.horizon_s:g}')} s"
            f" &middot; {'complete' if o.complete else 'stopped: ' + _esc(o.reason)} &middot; {o.events} events")
    sections = []
    if scenario.description:
        sections.append(f"<p>{_esc(scenario.description)}</p>")
    try:
        timeline_html = _img(plot.timeline(result), f"timeline of {scenario.name}")
    except ValueError as e:  # a run that recorded none of the panels' series
        timeline_html = f"<p>No timeline to draw: {_esc(e)}</p>"
    sections.append(_section("Timeline", timeline_html, "timeline"))
    verdicts = result.objectives()
    body = _table(verdicts, css_class="objectives", row_class=_verdict_class) if len(verdicts) else (
        "<p>The scenario declares no objective (spec.objectives).</p>")
    if len(verdicts):
        body = f"<p>{'All objectives met.' if result.objectives_passed() else 'Some objectives missed.'}</p>" + body
    sections.append(_section("Objectives", body, "objectives"))
    sections.append(_section("Per-fault figures", _table(result.fault_figures(), css_class="fault-figures"),
                             "fault-figures"))
    sections.append(_section("Timeline steps and their impact", _table(result.faults, css_class="faults"), "faults"))
    kpis = result.kpis()
    kpis = kpis[~kpis["name"].str.startswith("fault.")]
    kpis = kpis.dropna(axis=1, how="all")
    sections.append(_section("KPIs", _table(kpis, css_class="kpis"), "kpis"))
    sections.append(_section("Summary", f"<pre>{_esc(result.summary())}</pre>", "summary"))
    sections.append(_scenario_section(scenario.to_yaml()))
    return _page(name, meta, sections)


def _comparison_html(comparison: Comparison, title: str | None) -> str:
    import pandas as pd

    scenario = comparison.scenario
    name = title if title is not None else f"drsim comparison: {scenario.name}"
    meta = (f"{len(comparison.variants)} variants &middot; seeds {_esc(', '.join(map(str, comparison.seeds)))}"
            f" &middot; {100 * comparison.confidence:g}% confidence intervals (Student t over seeds)")
    if comparison.until is not None:
        meta += f" &middot; until {_esc(comparison.until)}"
    variants = pd.DataFrame(
        {"variant": list(comparison.variants),
         "overrides": ["; ".join(v) if v else "(baseline: no override)" for v in comparison.variants.values()]}
    )
    sections = []
    if scenario.description:
        sections.append(f"<p>{_esc(scenario.description)}</p>")
    sections.append(_section("Variants", _table(variants, css_class="variants"), "variants"))
    try:
        figure_html = _img(comparison.plot(), f"comparison of {scenario.name}")
    except ValueError as e:  # nothing with a value to draw
        figure_html = f"<p>No figure to plot: {_esc(e)}</p>"
    sections.append(_section("Figures by variant", figure_html, "figures"))
    if comparison.results:  # compare(..., keep_results=True): the first seed's runs side by side
        from drsim import plot

        seed = comparison.seeds[0]
        runs = {name: comparison.results[(name, seed)] for name in comparison.variants}
        sections.append(_section(f"Timelines, seed {seed}", _img(plot.comparison(runs), f"timelines, seed {seed}"),
                                 "timelines"))
    sections.append(_section("Summary by variant", _table(comparison.table, css_class="comparison", index=True),
                             "comparison"))
    sections.append(_section("Every run", _table(comparison.runs, css_class="runs"), "runs"))
    sections.append(_scenario_section(scenario.to_yaml()))
    return _page(name, meta, sections)


#: Tornado plots in an uncertainty report: the figures that vary most, this many.
_TORNADO_FIGURES = 8


def _uncertainty_html(study: Uncertainty, title: str | None) -> str:
    scenario = study.scenario
    name = title if title is not None else f"drsim uncertainty: {scenario.name}"
    method = ("Sobol' indices (first order and total, 95% bootstrap intervals)" if study.method == "sobol"
              else "Morris elementary effects (mu*, sigma)")
    meta = (f"{len(study.ranges)} uncertain inputs &middot; {len(study.points)} design points x "
            f"{len(study.seeds)} seeds = {len(study.runs)} runs &middot; {_esc(method)}")
    sections = []
    if scenario.description:
        sections.append(f"<p>{_esc(scenario.description)}</p>")
    sections.append(_section("Uncertain inputs", _table(study.inputs, css_class="inputs"), "inputs"))
    sections.append(_section("Figures: median and 5-95% interval", _table(study.summary, css_class="summary",
                                                                          index=True), "summary"))
    varying = study.summary[study.summary["high"] > study.summary["low"]]
    spread = (varying["high"] - varying["low"]) / varying["median"].abs().where(varying["median"] != 0, 1.0)
    shown = list(spread.sort_values(ascending=False).index[:_TORNADO_FIGURES])
    tornados = []
    for figure in shown:
        tornados.append(f"<h3>{_esc(figure)}</h3>" + _img(study.tornado(figure), f"tornado of {figure}")
                        + _table(study.ranking(figure), css_class="sensitivity", index=True))
    if not tornados:
        tornados.append("<p>No figure varies over the design: nothing to rank.</p>")
    elif len(varying) > len(shown):
        tornados.append(f"<p>{len(varying) - len(shown)} more figures vary; the table below has them all.</p>")
    sections.append(_section("Which inputs drive each figure", "\n".join(tornados), "tornado"))
    sections.append(_section("Sensitivity of every figure", _table(study.sensitivity, css_class="sensitivity",
                                                                   index=True), "sensitivity"))
    sections.append(_section("Design points", _table(study.points, css_class="points"), "points"))
    sections.append(_scenario_section(scenario.to_yaml()))
    return _page(name, meta, sections)


def _utilization_table(check: CapacityReport) -> str:
    """Case x zone utilisation, the cells over the target marked (class over)."""
    import math

    table = check.utilization()
    target = check.utilization_target
    head = "".join(
        f'<th class="num">{_esc(" / ".join(map(str, c)) if isinstance(c, tuple) else c)}</th>' for c in table.columns
    )
    rows = []
    for case, values in zip(table.index, table.to_numpy()):
        cells = []
        for value in values:
            v = float(value)
            if math.isnan(v):
                cells.append('<td class="num">&ndash;</td>')
            else:
                over = ' over' if v > target else ""
                text = f"{100 * v:.1f}%" if math.isfinite(v) else "unstable"
                cells.append(f'<td class="num{over}">{text}</td>')
        rows.append(f'<tr><th class="text">{_esc(case)}</th>{"".join(cells)}</tr>')
    return (f'<div class="scroll"><table class="utilization"><thead><tr><th class="text">case</th>{head}</tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table></div>')


def _check_html(check: CapacityReport, title: str | None) -> str:
    scenario = check.scenario
    name = title if title is not None else f"drsim check: {scenario.name}"
    over = check.overloaded_cases()
    meta = (f"N+1 in closed form (no simulation) &middot; utilisation target {100 * check.utilization_target:g}%"
            f" &middot; {len(check.case_names)} cases")
    sections = []
    if scenario.description:
        sections.append(f"<p>{_esc(scenario.description)}</p>")
    verdict = (f"<p>Overloaded in {len(over)} of {len(check.case_names)} cases: {_esc(', '.join(over))}.</p>" if over
               else "<p>Every case holds: no station over the target, every population served.</p>")
    sections.append(_section("Utilisation by case and zone", verdict + _utilization_table(check), "utilization"))
    sections.append(_section("Worst case per service", _table(check.worst(), css_class="worst",
                                                               row_class=lambda row: "fail" if row["overloaded"]
                                                               else "pass"), "worst"))
    cases = check.cases.copy()
    for column in ("notes", "blast_radius"):
        cases[column] = cases[column].map(lambda items: "; ".join(items))
    sections.append(_section("Cases", _table(cases, css_class="cases",
                                             row_class=lambda row: "fail" if row["overloaded"] else "pass"), "cases"))
    sections.append(_section("Stations", _table(check.stations, css_class="stations"), "stations"))
    if len(check.pools):
        sections.append(_section("Connection pools", _table(check.pools, css_class="pools"), "pools"))
    sections.append(_section("Populations", _table(check.populations, css_class="populations"), "populations"))
    if len(check.operations):
        sections.append(_section("Operations", _table(check.operations, css_class="operations"), "operations"))
    sections.append(_section("drsim check", f"<pre>{_esc(check.text)}</pre>", "text"))
    sections.append(_scenario_section(scenario.to_yaml()))
    return _page(name, meta, sections)


def render(subject: Subject, *, title: str | None = None) -> str:
    """The report's HTML text (what :func:`report` writes)."""
    from drsim.check import CapacityReport
    from drsim.compare import Comparison
    from drsim.result import Result

    if isinstance(subject, Result):
        return _result_html(subject, title)
    if isinstance(subject, Comparison):
        return _comparison_html(subject, title)
    if isinstance(subject, CapacityReport):
        return _check_html(subject, title)
    from drsim.uncertainty import Uncertainty

    if isinstance(subject, Uncertainty):
        return _uncertainty_html(subject, title)
    raise TypeError(
        "report takes a drsim.Result, a drsim.Comparison, a drsim.CapacityReport or a drsim.Uncertainty, "
        f"not {type(subject).__name__}"
    )


def report(subject: Subject, path: str | os.PathLike[str], *, title: str | None = None) -> pathlib.Path:
    """Writes one self-contained HTML file about a run (its timeline figure,
    objectives verdicts, per-fault figures, step impact, KPIs, summary and
    resolved scenario), a :func:`drsim.compare` comparison (variants, the
    figure, the summary table with confidence intervals, every run, the
    scenario) or a :func:`drsim.check` capacity report (utilisation by case
    and zone with the overloaded cells marked, the cases' notes and blast
    radius, stations, pools, populations, the scenario) to ``path``; returns
    the path. The file has no script and no external reference."""
    text = render(subject, title=title)
    p = pathlib.Path(os.fspath(path))
    if p.is_dir():
        raise ValueError(f"{p} is a directory; give the report's file name, e.g. {p / 'report.html'}")
    p.write_text(text, encoding="utf-8")
    return p


# ---- command line --------------------------------------------------------------


def _run_from(source: pathlib.Path, seed: int | None, until: str | None) -> Result:
    from drsim.scenario import load

    if source.is_dir():
        scenario_file = source / "scenario.yaml"
        if not scenario_file.is_file():
            raise ValueError(f"{source} is not a drsim results folder: it has no scenario.yaml")
        run_file = source / "run.json"
        if until is None and run_file.is_file():
            end_s = json.loads(run_file.read_text(encoding="utf-8")).get("end_s")
            if isinstance(end_s, (int, float)) and end_s > 0:
                until_value: Any = datetime.timedelta(seconds=end_s)
                return load(scenario_file).run(seed=seed, until=until_value)
        return load(scenario_file).run(seed=seed, until=until)
    if not source.is_file():
        raise ValueError(f"{source}: no such scenario file or results folder")
    return load(source).run(seed=seed, until=until)


def _check_from(source: pathlib.Path, args: argparse.Namespace) -> CapacityReport:
    from drsim.check import check

    if args.seed is not None or args.until is not None:
        raise ValueError("--check analyses the scenario without running it: --seed and --until do not apply")
    scenario_file = source / "scenario.yaml" if source.is_dir() else source
    if not scenario_file.is_file():
        raise ValueError(f"{source}: no such scenario file or results folder")
    return check(scenario_file, utilization_target=args.target if args.target is not None else 0.8)


def main(argv: Sequence[str] | None = None) -> int:
    """``python3 -m drsim.report SOURCE OUT.html``; exit 0, or 2 on bad input."""
    parser = argparse.ArgumentParser(
        prog="python3 -m drsim.report",
        description="Write a self-contained HTML report of a scenario run (a scenario file, or a results folder "
                    "written by `drsim run --out`, whose scenario.yaml is run again), or with --check of its N+1 "
                    "capacity analysis (drsim check).",
    )
    parser.add_argument("source", help="scenario file, or results folder (with scenario.yaml and run.json)")
    parser.add_argument("out", help="the HTML file to write")
    parser.add_argument("--seed", type=int, default=None, help="run seed (default: the scenario's spec.seed)")
    parser.add_argument("--until", default=None, help="simulated time to run, e.g. 10m (default: spec.duration, "
                                                      "or the results folder's end time)")
    parser.add_argument("--title", default=None, help="the report's title")
    parser.add_argument("--check", action="store_true",
                        help="report drsim check's N+1 capacity analysis of the scenario instead of running it")
    parser.add_argument("--target", default=None,
                        help="with --check: the utilisation above which a station is overloaded (default 80%%)")
    args = parser.parse_args(argv)
    from drsim.errors import ScenarioError

    try:
        subject: Subject
        if args.check:
            subject = _check_from(pathlib.Path(args.source), args)
        else:
            if args.target is not None:
                raise ValueError("--target goes with --check")
            subject = _run_from(pathlib.Path(args.source), args.seed, args.until)
        path = report(subject, args.out, title=args.title)
    except (ScenarioError, ValueError, TypeError, OSError) as e:
        print(f"drsim report: {e}", file=sys.stderr)
        return 2
    print(f"report: {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
