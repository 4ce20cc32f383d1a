"""drsim.compare: variants x seeds, summarised with Student t intervals.

The variants are the Route 53 region failover with its default 10 s health
checks and with 30 s checks: slower checks detect the loss later, so the RTO
grows by about a minute, well outside the seed-to-seed noise."""

from __future__ import annotations

import math
import pathlib

import pytest

import drsim
from drsim.compare import t_quantile

ROOT = pathlib.Path(__file__).resolve().parents[2]
TWO_CELL = ROOT / "scenarios" / "two_cell_region_failover.yaml"
SLOW = {"spec.load[spain].routing.healthCheck.requestInterval": "30s"}
RTO = "ireland-cell-deleted.rto_s"


@pytest.fixture(scope="module")
def scenario() -> drsim.Scenario:
    return drsim.load(TWO_CELL)


@pytest.fixture(scope="module")
def six(scenario: drsim.Scenario) -> drsim.Comparison:
    return drsim.compare(scenario, {"base": {}, "slow-checks": SLOW}, seeds=range(6), kpis=["client.availability"])


def test_t_quantile_matches_the_tables() -> None:
    # Two-sided 95% critical values of Student's t.
    table = {1: 12.7062, 2: 4.3027, 4: 2.7764, 9: 2.2622, 29: 2.0452, 1000: 1.9623}
    for df, value in table.items():
        assert t_quantile(0.975, df) == pytest.approx(value, abs=5e-4)
    assert t_quantile(0.5, 7) == pytest.approx(0.0, abs=1e-9)
    assert t_quantile(0.025, 4) == pytest.approx(-t_quantile(0.975, 4))
    with pytest.raises(ValueError, match="p must be in"):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError, match="df must be positive"):
        t_quantile(0.9, 0)


def test_table_shape_and_figures(six: drsim.Comparison) -> None:
    table = six.table
    assert list(table.columns) == ["mean", "ci_low", "ci_high", "min", "max", "n"]
    assert table.index.names == ["variant", "figure"]
    assert list(dict.fromkeys(table.index.get_level_values("variant"))) == ["base", "slow-checks"]
    figures = set(table.index.get_level_values("figure"))
    assert {RTO, "ireland-cell-deleted.detection_s", "ireland-cell-deleted.traffic_switch_s",
            "ireland-cell-deleted.switch_errors", "ireland-cell-deleted.errors", "objectives.passed",
            "objectives.failed", "client.availability{population=spain}"} <= figures
    assert len(six.runs) == 12 and list(six.runs.columns[:2]) == ["variant", "seed"]
    assert six.variants == {"base": [], "slow-checks": ["spec.load[spain].routing.healthCheck.requestInterval=30s"]}
    # A region loss with no database: no RPO in any run, so n is 0 and the mean NaN.
    rpo = table.loc[("base", "ireland-cell-deleted.rpo_s")]
    assert rpo["n"] == 0 and math.isnan(rpo["mean"])


def test_the_interval_contains_the_mean_and_separates_the_variants(six: drsim.Comparison) -> None:
    for (variant, figure), row in six.table.iterrows():
        if row["n"] >= 2:
            assert row["ci_low"] <= row["mean"] <= row["ci_high"], (variant, figure)
            assert row["min"] <= row["mean"] <= row["max"]
    base, slow = six.figure(RTO).loc["base"], six.figure(RTO).loc["slow-checks"]
    assert base["n"] == 6 and slow["n"] == 6
    assert base["ci_high"] < slow["ci_low"]
    # The interval is the t interval of the six values.
    values = six.runs.loc[six.runs["variant"] == "base", RTO]
    half = t_quantile(0.975, 5) * values.std(ddof=1) / math.sqrt(6)
    assert base["ci_high"] - base["mean"] == pytest.approx(half)


def test_more_seeds_shrink_the_interval(scenario: drsim.Scenario, six: drsim.Comparison) -> None:
    three = drsim.compare(scenario, {"base": {}}, seeds=range(3))
    width = lambda c: float(c.figure(RTO).loc["base", "ci_high"] - c.figure(RTO).loc["base", "ci_low"])  # noqa: E731
    assert width(six) < width(three)


def test_same_seeds_same_frame(scenario: drsim.Scenario, six: drsim.Comparison) -> None:
    again = drsim.compare(scenario, {"base": {}, "slow-checks": SLOW}, seeds=range(6), kpis=["client.availability"],
                          workers=1, progress=True)
    assert again.runs.equals(six.runs)
    assert again.table.equals(six.table)


def test_plot(six: drsim.Comparison) -> None:
    fig = six.plot()
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert RTO in titles and "ireland-cell-deleted.detection_s" in titles
    ax = next(a for a in fig.axes if a.get_title() == RTO)
    assert ax.get_ylabel() == "rto_s (s)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["base", "slow-checks"]
    fig.clear()
    fig = drsim.plot.distribution(six.runs, RTO, by="variant", kind="cdf")
    assert [l.get_label() for l in fig.axes[0].get_lines()] == ["base", "slow-checks"]
    fig.clear()
    with pytest.raises(ValueError, match="no figure 'nope'"):
        six.plot(["nope"])


def test_bad_input(scenario: drsim.Scenario) -> None:
    with pytest.raises(drsim.ScenarioError, match=r"spec\.timeline\[nope\]"):
        drsim.compare(scenario, {"base": {}, "bad": {"spec.timeline[nope].at": "5m"}}, seeds=[1])
    with pytest.raises(drsim.ScenarioError, match="bogus"):
        drsim.compare(scenario, {"bad": {"spec.bogus": 1}}, seeds=[1])
    with pytest.raises(ValueError, match="non-empty mapping"):
        drsim.compare(scenario, {}, seeds=[1])
    with pytest.raises(ValueError, match="seeds is empty"):
        drsim.compare(scenario, {"base": {}}, seeds=[])
    with pytest.raises(ValueError, match="seeds repeat"):
        drsim.compare(scenario, {"base": {}}, seeds=[1, 1])
    with pytest.raises(ValueError, match="non-negative int"):
        drsim.compare(scenario, {"base": {}}, seeds=[-1])
    with pytest.raises(ValueError, match="workers"):
        drsim.compare(scenario, {"base": {}}, seeds=[1], workers=0)
    with pytest.raises(ValueError, match="no run recorded the KPI.*'client.nope'"):
        drsim.compare(scenario, {"base": {}}, seeds=[1], kpis=["client.nope"], until="10s")
    with pytest.raises(ValueError, match="no figure 'x'"):
        drsim.compare(scenario, {"base": {}}, seeds=[1], until="10s").figure("x")


def test_reprs_say_what_is_compared(six: drsim.Comparison) -> None:
    assert repr(six) == ("<drsim.Comparison 'two-cell-region-failover' variants=['base', 'slow-checks'] seeds=6"
                         f" figures={len(six.runs.columns) - 2} confidence=95%>")
    html = six._repr_html_()
    assert html.startswith("<p><b>&lt;drsim.Comparison ") and "<table" in html and "slow-checks" in html
