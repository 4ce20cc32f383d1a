"""The drill library (docs/drill_library.yaml): every drill runs over its seeds,
every simulated figure stays in its stated band (self-consistency), every
published figure the model claims to reproduce lies inside its 90% interval
over the documented ranges of the inputs the source leaves open (against the
source), and docs/validation.md holds exactly the tables this run generates
(byte for byte: the runs are deterministic)."""

from __future__ import annotations

import math
import pathlib
import subprocess
import sys
import os

import pandas as pd
import pytest

import drsim.drills as drills


@pytest.fixture(scope="module")
def library(repo_root: pathlib.Path) -> drills.Library:
    return drills.load_library(repo_root / "docs" / "drill_library.yaml")


@pytest.fixture(scope="module")
def tables(library: drills.Library) -> dict[str, pd.DataFrame]:
    return drills.run_drills(library.drills, library.root)


def test_every_source_architecture_has_a_drill(library: drills.Library) -> None:
    sections = {d.section.split(".")[0].rstrip("b") for d in library.drills}
    assert sections == {"1", "2", "3", "4", "5"}
    # Section 5's table has six drill rows, each its own scenario.
    assert sorted(d.section for d in library.drills if d.section.startswith("5.")) == [f"5.{k}" for k in range(1, 7)]
    for d in library.drills:
        assert (library.root / d.scenario).is_file()
        assert len(d.seeds) >= 3, "a median and a range need several seeds"


def test_every_figure_stays_in_its_band(library: drills.Library, tables: dict[str, pd.DataFrame]) -> None:
    out = [
        f"{name}: {row.figure}: {row.values} outside [{row.band_low}, {row.band_high}]"
        for name, table in tables.items()
        for row in table.itertuples()
        if not row.in_band
    ]
    assert not out, "\n".join(out)
    for d in library.drills:  # every figure with a band has a value in every seed's run
        for f, row in zip(d.figures, tables[d.name].itertuples()):
            if f.band is not None:
                assert all(math.isfinite(v) for v in row.values), (d.name, f.figure)


def test_every_published_figure_is_inside_its_interval_or_names_what_the_model_lacks(
    library: drills.Library, tables: dict[str, pd.DataFrame]
) -> None:
    unexplained = [
        f"{d.name}: {f.figure}: published {row.published_value} outside [{row.sim_low}, {row.sim_high}]"
        for d in library.drills
        for f, row in zip(d.figures, tables[d.name].itertuples())
        if f.published_value is not None and not row.inside and not f.lacks
    ]
    assert not unexplained, "\n".join(unexplained)
    # The comparison covers the numeric figures of sections 2 and 5 at least.
    published = [f for d in library.drills for f in d.figures if f.published_value is not None]
    assert len(published) >= 19
    ranged = [d for d in library.drills if d.ranges]
    assert ranged and all(i.source for d in ranged for i in d.ranges), "every range says where it comes from"


def test_the_summary_counts_what_the_tables_show(library: drills.Library, tables: dict[str, pd.DataFrame]) -> None:
    frame = drills.summary(library, tables)
    total = frame.iloc[-1]
    assert total["drill"] == "All"
    rows = [r for t in tables.values() for r in t.itertuples() if r.published_value == r.published_value]
    assert total["figures"] == len(rows)
    assert total["inside"] == sum(r.inside for r in rows)
    assert total["close"] == sum(abs(r.error) <= drills.CLOSE for r in rows)
    assert total["narrow"] == sum(r.narrow for r in rows)
    text = drills.summary_markdown(library, tables)
    assert "What misses, and the mechanism it lacks" in text and "**no mechanism named**" not in text


def test_sample_points_cover_the_ranges_in_strata(library: drills.Library) -> None:
    drill = library.drill("three-region-north-failure")
    points = drills.sample_points(drill)
    assert len(points) == drill.samples and [seed for _, seed in points][:5] == list(drill.seeds)
    timeouts = sorted(float(o["spec.load[users].timeout"].removesuffix("s")) for o, _ in points)
    # A Latin hypercube: one of the 16 points in each sixteenth of 1-5 s.
    assert [int((t - 1) / 4 * 16) for t in timeouts] == list(range(16))
    assert drills.sample_points(drill) == points  # the same design every time


def test_the_tables_do_not_depend_on_the_number_of_processes(
    library: drills.Library, tables: dict[str, pd.DataFrame]
) -> None:
    drill = library.drill("two-cell-region-failover")
    alone = drills.run_drill(drill, library.root, workers=1)  # in this process, from the file
    pd.testing.assert_frame_equal(alone, tables[drill.name])  # the fixture's: worker processes, resolved text


def test_validation_md_holds_the_generated_tables(
    library: drills.Library, tables: dict[str, pd.DataFrame], repo_root: pathlib.Path
) -> None:
    document = (repo_root / "docs" / "validation.md").read_text(encoding="utf-8")
    wanted = drills.replace_block(document, drills.markdown(library, tables))
    assert document == wanted, "docs/validation.md's drill tables are stale: run make drills"


def test_a_figure_out_of_band_is_reported(library: drills.Library, repo_root: pathlib.Path) -> None:
    drill = library.drill("two-cell-region-failover")
    tight = drills.Drill(
        **{**drill.__dict__, "seeds": (7,), "figures": (drills.Figure(**{**drill.figures[0].__dict__, "band": (0.0, 1.0)}),)}
    )
    table = drills.run_drill(tight, repo_root)
    assert not table.iloc[0]["in_band"]
    assert "**(out of band)**" in drills.drill_markdown(tight, table)


def test_the_command_line_checks_and_prints_one_drill(repo_root: pathlib.Path, tmp_path: pathlib.Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    printed = subprocess.run(
        [sys.executable, "-m", "drsim.drills", "docs/drill_library.yaml", "--drill", "two-cell-region-failover"],
        cwd=repo_root, capture_output=True, text=True, env=env,
    )
    assert printed.returncode == 0, printed.stderr
    assert "| Latency while Ireland serves | 230 ms |" in printed.stdout
    stale = tmp_path / "validation.md"
    stale.write_text(f"x\n{drills.BEGIN_MARKER}\nold\n{drills.END_MARKER}\ny\n")
    library_copy = tmp_path / "lib.yaml"
    text = (repo_root / "docs" / "drill_library.yaml").read_text()
    only_two_cell = text[: text.index("  - name: appfabric-az-failure")] + text[text.index("  - name: two-cell-region-failover") : text.index("  - name: same-city-dual-active")]
    library_copy.write_text(only_two_cell.replace("scenario: scenarios/", f"scenario: {repo_root}/scenarios/"))
    checked = subprocess.run(
        [sys.executable, "-m", "drsim.drills", str(library_copy), "--check", str(stale)],
        cwd=repo_root, capture_output=True, text=True, env=env,
    )
    assert checked.returncode == 1
    assert "out of date" in checked.stderr
    updated = subprocess.run(
        [sys.executable, "-m", "drsim.drills", str(library_copy), "--update", str(stale)],
        cwd=repo_root, capture_output=True, text=True, env=env,
    )
    assert updated.returncode == 0, updated.stderr
    assert stale.read_text().startswith("x\n" + drills.BEGIN_MARKER)
    assert stale.read_text().endswith(drills.END_MARKER + "\ny\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("drills: 3\n", "drills: expected list"),
        ("drills:\n  - {name: a}\n", "drill a: missing 'scenario'"),
        (
            "drills:\n  - {name: a, section: 1, title: t, scenario: scenarios/default.yaml, seeds: [], parameters: p, figures: []}\n",
            "seeds: expected a non-empty list of integers",
        ),
        (
            "drills:\n  - {name: a, section: 1, title: t, scenario: scenarios/nope.yaml, seeds: [1], parameters: p, figures: []}\n",
            "no file scenarios/nope.yaml",
        ),
        (
            "drills:\n  - name: a\n    section: 1\n    title: t\n    scenario: scenarios/default.yaml\n    seeds: [1]\n"
            "    parameters: p\n    figures:\n      - {figure: f, published: p, unit: s, band: [2, 1], measure: {kpi: x}}\n",
            "band: expected [low, high] with low <= high",
        ),
        (
            "drills:\n  - name: a\n    section: 1\n    title: t\n    scenario: scenarios/default.yaml\n    seeds: [1]\n"
            "    parameters: p\n    figures:\n      - {figure: f, published: p, unit: s, band: [1, 2], measure: {fault: x, field: rto}}\n",
            "field: expected one of",
        ),
        (
            "drills:\n  - name: a\n    section: 1\n    title: t\n    scenario: scenarios/default.yaml\n    seeds: [1]\n"
            "    parameters: p\n    figures:\n      - {figure: f, published: p, unit: min, band: [1, 2], measure: {kpi: x}}\n",
            "unit: expected one of",
        ),
        (
            "drills:\n  - name: a\n    section: 1\n    title: t\n    scenario: scenarios/default.yaml\n    seeds: [1]\n"
            "    parameters: p\n    figures:\n      - {figure: f, published: p, unit: s, band: [1, 2], measure: {event: cdn-switch, after: x}}\n",
            "figures[0].measure.event: event kind 'cdn-switch' is now spelled 'cdn.cname_switch'",
        ),
        (
            "drills:\n  - name: a\n    section: 1\n    title: t\n    scenario: scenarios/default.yaml\n    seeds: [1]\n"
            "    parameters: p\n    figures:\n      - {figure: f, published: p, unit: s, band: [1, 2], measure: {event: cdn.nope, after: x}}\n",
            "no event kind 'cdn.nope'",
        ),
        (
            "drills:\n  - name: a\n    section: 1\n    title: t\n    scenario: scenarios/default.yaml\n    seeds: [1]\n"
            "    parameters: p\n    samples: 4\n    ranges:\n      - path: spec.x\n        uniform: [3s, 1s]\n"
            "    figures: []\n",
            "lib.yaml:11:18: drill a.ranges[0].uniform: Uniform: low ('3s') must be below high ('1s')",
        ),
        (
            "drills:\n  - name: a\n    section: 1\n    title: t\n    scenario: scenarios/default.yaml\n    seeds: [1]\n"
            "    parameters: p\n    ranges:\n      - {path: spec.x, uniform: [1s, 3s]}\n    figures: []\n",
            "drill a.samples: expected the number of Latin hypercube points",
        ),
        (
            "drills:\n  - name: a\n    section: 1\n    title: t\n    scenario: scenarios/default.yaml\n    seeds: [1]\n"
            "    parameters: p\n    figures:\n      - {figure: f, published: p, published_value: about 3, unit: s, band: [1, 2], measure: {kpi: x}}\n",
            "published_value: expected the source's number",
        ),
    ],
)
def test_library_mistakes_say_where_and_what(repo_root: pathlib.Path, tmp_path: pathlib.Path, text: str, message: str) -> None:
    path = tmp_path / "lib.yaml"
    path.write_text(text)
    with pytest.raises(drills.LibraryError, match="lib.yaml") as err:
        drills.load_library(path, root=repo_root)
    assert message in str(err.value)
