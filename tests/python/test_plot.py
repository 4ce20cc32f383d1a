"""drsim.plot: the figures are inspected as matplotlib objects (axes, labels,
spans, lines and their gids), not as pixels; one PNG is written to check it
is a real image. The runs are short: the Route 53 region failover (5 min of
20 rps) and 15 minutes of the AppFabric zone failure (a deployment, an HPA
and operator actions)."""

from __future__ import annotations

import math
import pathlib

import pandas as pd
import pytest

import drsim
from drsim import plot

ROOT = pathlib.Path(__file__).resolve().parents[2]
TWO_CELL = ROOT / "scenarios" / "two_cell_region_failover.yaml"
APPFABRIC = ROOT / "scenarios" / "appfabric_az_failure.yaml"


@pytest.fixture(scope="module")
def two_cell() -> drsim.Result:
    return drsim.load(TWO_CELL).run()


@pytest.fixture(scope="module")
def appfabric() -> drsim.Result:
    return drsim.load(APPFABRIC).run(until="15m")


def _panels(fig) -> dict[str, object]:
    return {ax.get_gid().split(":", 1)[1]: ax for ax in fig.axes if (ax.get_gid() or "").startswith("panel:")}


def _gids(ax) -> list[str]:
    return [a.get_gid() for a in ax.get_children() if a.get_gid()]


def test_timeline_panels_of_a_dns_failover(two_cell: drsim.Result) -> None:
    fig = plot.timeline(two_cell)
    panels = _panels(fig)
    # No Kubernetes deployment: no replicas panel; GSLB health checks: a routing panel.
    assert list(panels) == ["success", "latency", "utilization", "routing"]
    assert panels["success"].get_ylabel() == "success ratio (%)"
    assert panels["latency"].get_ylabel() == "latency (ms)"
    assert panels["utilization"].get_ylabel().startswith("utilisation (%)")
    assert "GSLB" in panels["routing"].get_ylabel()
    assert panels["routing"].get_xlabel() == "simulated time (s)"
    # Shared time axis over the whole run.
    assert all(ax.get_xlim() == (0.0, 300.0) for ax in panels.values())
    # The population's success ratio drops to 0 while Ireland is lost, in percent.
    line = next(l for l in panels["success"].get_lines() if l.get_label() == "spain")
    assert max(line.get_ydata()) == pytest.approx(100.0)
    assert min(line.get_ydata()) == pytest.approx(0.0)
    labels = [l.get_label() for l in panels["latency"].get_lines() if not l.get_label().startswith("_")]
    assert labels == ["spain p50", "spain p99"]
    fig.clear()


def test_timeline_marks_the_fault_and_its_figures(two_cell: drsim.Result) -> None:
    fig = plot.timeline(two_cell)
    figures = two_cell.fault_figures().iloc[0]
    for ax in _panels(fig).values():
        gids = _gids(ax)
        assert "fault:ireland-cell-deleted" in gids
        for mark in ("detected", "switched", "recovered"):
            assert f"{mark}:ireland-cell-deleted" in gids
        span = next(a for a in ax.get_children() if a.get_gid() == "fault:ireland-cell-deleted")
        xs = [x for x, _ in span.get_xy()]
        assert min(xs) == pytest.approx(70.0) and max(xs) == pytest.approx(240.0)
        detected = next(a for a in ax.get_children() if a.get_gid() == "detected:ireland-cell-deleted")
        assert detected.get_xdata()[0] == pytest.approx(70.0 + figures["detection_s"])
        recovered = next(a for a in ax.get_children() if a.get_gid() == "recovered:ireland-cell-deleted")
        assert recovered.get_xdata()[0] == pytest.approx(70.0 + figures["rto_s"])
    top = _panels(fig)["success"]
    texts = [t.get_text() for t in top.texts]
    assert any(t.startswith("detected +") for t in texts)
    assert f"recovered +{figures['rto_s']:.4g}s" in texts
    # The legend sits outside the axes, so it covers no data.
    legend = top.get_legend()
    assert legend is not None and "fault: ireland-cell-deleted" in [t.get_text() for t in legend.get_texts()]
    assert legend.get_bbox_to_anchor().x0 > top.get_window_extent().x1 - 1
    fig.clear()


def test_timeline_with_a_deployment_and_operator_actions(appfabric: drsim.Result) -> None:
    fig = plot.timeline(appfabric)
    panels = _panels(fig)
    assert list(panels) == ["success", "latency", "utilization", "replicas"]
    assert panels["replicas"].get_ylabel() == "pods per zone"
    assert {l.get_label() for l in panels["replicas"].get_lines()} >= {"api/zone-a ready", "api/zone-b target"}
    # 15 minutes: still seconds (minutes from 20 on); actions after the horizon are not drawn.
    assert panels["replicas"].get_xlabel() == "simulated time (s)"
    gids = _gids(panels["success"])
    assert {"action:cut-zone-a", "action:hpa-compensation", "action:degrade-policy"} <= set(gids)
    assert "action:traffic-back-half" not in gids
    fig.clear()


def test_long_runs_are_drawn_in_minutes() -> None:
    result = drsim.load(APPFABRIC).run(until="21m")
    fig = plot.timeline(result, panels=["utilization"])
    ax = _panels(fig)["utilization"]
    assert ax.get_xlabel() == "simulated time (min)"
    assert ax.get_xlim() == pytest.approx((0.0, 21.0))
    span = next(a for a in ax.get_children() if a.get_gid() == "fault:zone-a-down")
    assert min(x for x, _ in span.get_xy()) == pytest.approx(5.0)
    fig.clear()


def test_timeline_options_and_bad_input(two_cell: drsim.Result, inline_result: drsim.Result,
                                        tmp_path: pathlib.Path) -> None:
    fig = plot.timeline(two_cell, populations=["spain"], panels=["latency", "success"], title="T")
    assert list(_panels(fig)) == ["latency", "success"]
    assert fig._suptitle.get_text() == "T"
    path = plot.save_png(fig, tmp_path / "t.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    # Drawing into an existing figure clears it first.
    again = plot.timeline(two_cell, figure=fig, panels=["success"])
    assert again is fig and list(_panels(fig)) == ["success"]
    fig.clear()

    with pytest.raises(ValueError, match="no client population 'nobody'.*spain"):
        plot.timeline(two_cell, populations=["nobody"])
    with pytest.raises(ValueError, match="unknown panel 'pods'"):
        plot.timeline(two_cell, panels=["pods"])
    with pytest.raises(ValueError, match="recorded none of the series.*replicas"):
        plot.timeline(two_cell, panels=["replicas"])
    with pytest.raises(TypeError, match="drsim.Result"):
        plot.timeline("results/x")  # type: ignore[arg-type]
    # A run with no clients still gets a picture: zones up per region.
    fig = plot.timeline(inline_result)
    assert list(_panels(fig)) == ["zones"]
    assert "fault:fail-a" in _gids(_panels(fig)["zones"])
    fig.clear()


def test_comparison_side_by_side(two_cell: drsim.Result) -> None:
    late = drsim.load(TWO_CELL).with_overrides({"spec.timeline[ireland-cell-deleted].at": "120s"}).run()
    fig = plot.comparison({"at 70 s": two_cell, "at 120 s": late}, title="when")
    runs = [ax for ax in fig.axes if (ax.get_gid() or "").startswith("run:")]
    assert [ax.get_title() for ax in runs] == ["at 70 s", "at 120 s"]
    assert runs[0].get_ylabel() == "success ratio (%)" and runs[1].get_ylabel() == ""
    # Each column shades its own fault.
    spans = [next(a for a in ax.get_children() if a.get_gid() == "fault:ireland-cell-deleted") for ax in runs]
    assert [min(x for x, _ in s.get_xy()) for s in spans] == [pytest.approx(70.0), pytest.approx(120.0)]
    assert len(fig.axes) == 4
    fig.clear()
    with pytest.raises(ValueError, match="non-empty mapping"):
        plot.comparison({})
    with pytest.raises(TypeError, match=r"results\['x'\]"):
        plot.comparison({"x": 3})  # type: ignore[dict-item]


def test_distribution_boxes_and_cdfs() -> None:
    frame = pd.DataFrame(
        {
            "variant": ["a"] * 4 + ["b"] * 4,
            "f.rto_s": [30.0, 32.0, 35.0, math.nan, 80.0, 85.0, 90.0, 95.0],
            "f.success_ratio": [0.9, 0.8, 0.85, 0.9, 0.5, 0.4, 0.45, 0.5],
        }
    )
    fig = plot.distribution(frame, "f.rto_s", by="variant")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "f.rto_s (s)" and ax.get_xlabel() == "variant"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a\n(1 NaN)", "b"]
    fig.clear()
    fig = plot.distribution(frame, ["f.rto_s", "f.success_ratio"], by="variant", kind="cdf")
    assert [a.get_xlabel() for a in fig.axes] == ["f.rto_s (s)", "f.success_ratio (%)"]
    steps = fig.axes[1].get_lines()
    assert [l.get_label() for l in steps] == ["a", "b"]
    assert max(steps[1].get_xdata()) == pytest.approx(50.0)
    # One legend, right of the last panel, covering no data.
    assert fig.axes[0].get_legend() is None
    legend = fig.axes[1].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["a", "b"]
    fig.canvas.draw()
    assert legend.get_window_extent().x0 >= fig.axes[1].get_window_extent().x1
    fig.clear()
    with pytest.raises(ValueError, match="no column 'nope'"):
        plot.distribution(frame, "nope")
    with pytest.raises(ValueError, match="kind is 'box' or 'cdf'"):
        plot.distribution(frame, "f.rto_s", kind="violin")
    with pytest.raises(TypeError, match="DataFrame"):
        plot.distribution([1, 2], "x")  # type: ignore[arg-type]


def test_figures_show_in_a_notebook(tmp_path: pathlib.Path) -> None:
    """A timeline is the last expression of a cell: Jupyter shows it as a PNG,
    whether or not the notebook imported pyplot."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import drsim\n"
            f"r = drsim.load({str(TWO_CELL)!r}).run(until='2m')\n"
            "drsim.plot.timeline(r)"
        ),
        nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\ndrsim.plot.timeline(r, panels=['success'])"),
    ]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
                            ).execute()
    for cell in nb.cells:
        shown = [o for o in cell.outputs if o.output_type == "execute_result"]
        assert len(shown) == 1 and "image/png" in shown[0]["data"], cell.outputs
    # pyplot's registry holds no figure made by drsim.plot.
    import matplotlib.pyplot as plt

    plot.timeline(drsim.load(TWO_CELL).run(until="30s"))
    assert plt.get_fignums() == []


# ---- many services, populations, variants ------------------------------------------
#
# 12 services in 3 zones, each with its own population (60 to 610 rps on 12
# workers); zone z-a is lost from 40 s to 80 s. The figures must stay
# readable: a panel draws its top 8 series and says so, legends stay short and
# right of the axes, inside the figure, and names on a category axis never
# overlap.

_MANY = 12


def _many_yaml() -> str:
    services = "\n".join(
        f"      - name: svc{i:02d}\n        concurrency: 4\n        serviceTime: {{kind: exponential, mean: 10ms}}\n"
        f"        replicas: [{{zone: z-a, replicas: 1}}, {{zone: z-b, replicas: 1}}, {{zone: z-c, replicas: 1}}]"
        for i in range(_MANY))
    load = "\n".join(
        f"    - {{name: users{i:02d}, service: svc{i:02d}, load: {{kind: constant, rate: {60 + 50 * i}rps}}, "
        f"timeout: 2s}}" for i in range(_MANY))
    return (
        "apiVersion: drsim/v1alpha1\nkind: Scenario\nmetadata: {name: many-services}\nspec:\n  duration: 2m\n"
        "  metricsWindow: 5s\n  topology:\n    regions:\n      - name: r\n        interZoneRtt: 1ms\n"
        "        zones: [{name: z-a}, {name: z-b}, {name: z-c}]\n    services:\n" + services + "\n  load:\n" + load +
        "\n  timeline:\n    - {name: lose-a, action: zone:fail, target: {zone: z-a}, at: 40s, duration: 40s}\n")


@pytest.fixture(scope="module")
def many() -> drsim.Result:
    return drsim.load_text(_many_yaml()).run()


def _drawn(fig) -> None:
    """Draws the figure; a layout that collapses (constrained layout gives up
    when legends do not fit) is an error."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig.canvas.draw()


def _assert_legend_outside_and_inside_figure(fig, ax, legend) -> None:
    box = legend.get_window_extent()
    assert box.x0 >= ax.get_window_extent().x1 - 1, "the legend covers the axes"
    figure_box = fig.bbox
    assert box.x1 <= figure_box.x1 + 1 and box.y0 >= figure_box.y0 - 1 and box.y1 <= figure_box.y1 + 1, (
        "the legend is cut off", box, figure_box)


def _assert_no_overlap(labels) -> None:
    boxes = [(t.get_text(), t.get_window_extent()) for t in labels if t.get_text()]
    assert len(boxes) >= 2
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not box_a.overlaps(box_b), f"tick labels {a!r} and {b!r} overlap"


def _series_labels(ax) -> list[str]:
    return [l.get_label() for l in ax.get_lines() if not l.get_label().startswith("_") and l.get_xydata().size]


def test_a_timeline_of_many_services_draws_the_top_populations(many: drsim.Result) -> None:
    fig = plot.timeline(many)
    _drawn(fig)
    panels = _panels(fig)
    # The 8 populations with the most failed requests, by the run's own counts.
    failed = many.timeseries("client.failed").groupby("population")["value"].sum()
    expected = sorted(failed.index, key=lambda p: (-failed[p], p))[:plot.TOP]
    success = panels["success"]
    assert [l for l in _series_labels(success) if l.startswith("users")] == expected
    assert success.get_title(loc="right") == f"top 8 of {_MANY} populations by failed requests"
    # Latency: one entry per population (its p99 line) and two for the styles,
    # not one per population and quantile.
    latency = panels["latency"]
    entries = [t.get_text() for t in latency.get_legend().get_texts()]
    assert entries == expected + ["p50 (solid)", "p99 (dashed)"]
    assert len([l for l in latency.get_lines() if l.get_gid() is None and len(l.get_xdata()) > 2]) == 2 * plot.TOP
    for name, ax in panels.items():
        legend = ax.get_legend()
        assert legend is not None, name
        assert len(legend.get_texts()) <= plot.LEGEND_LIMIT
        _assert_legend_outside_and_inside_figure(fig, ax, legend)
    fig.clear()
    # top=None draws every population; top=3 three, and says so.
    assert len([l for l in _series_labels(_panels(plot.timeline(many, top=None))["success"])
                if l.startswith("users")]) == _MANY
    three = _panels(plot.timeline(many, top=3, panels=["success", "utilization"]))
    assert [l for l in _series_labels(three["success"]) if l.startswith("users")] == expected[:3]
    # Three zones fit in 3: nothing left out, no note.
    assert three["utilization"].get_title(loc="right") == ""
    with pytest.raises(ValueError, match="top must be at least 1"):
        plot.timeline(many, top=0)
    with pytest.raises(TypeError, match="top is a positive int"):
        plot.timeline(many, top="8")  # type: ignore[arg-type]
    # Explicit populations are drawn as asked, top does not cut them.
    asked = [f"users{i:02d}" for i in range(10)]
    assert len([l for l in _series_labels(_panels(plot.timeline(many, populations=asked, panels=["success"]))[
        "success"]) if l.startswith("users")]) == 10


def test_a_legend_never_holds_more_than_the_limit() -> None:
    from drsim.figure_canvas import new_figure

    fig = new_figure(8, 4)
    ax = fig.add_subplot()
    for i in range(30):
        ax.plot([0, 1], [i, i], label=f"series {i}")
    plot._legend_outside(ax)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(texts) == plot.LEGEND_LIMIT
    assert texts[-1] == f"... {30 - plot.LEGEND_LIMIT + 1} more" and texts[0] == "series 0"
    _drawn(fig)
    _assert_legend_outside_and_inside_figure(fig, ax, ax.get_legend())


def test_services_draws_the_busiest_services_alone_or_as_small_multiples(many: drsim.Result) -> None:
    frame = many.timeseries("zone.utilization")
    peak = frame.groupby("service")["value"].max()
    busiest = sorted(peak.index, key=lambda s: (-peak[s], s))[:plot.TOP]

    fig = plot.services(many)
    _drawn(fig)
    (ax,) = fig.axes
    assert ax.get_gid() == "services"
    assert _series_labels(ax) == busiest
    assert "top 8 of 12 services by peak" in fig._suptitle.get_text()
    assert max(max(l.get_ydata()) for l in ax.get_lines()) == pytest.approx(100 * peak.max())
    _assert_legend_outside_and_inside_figure(fig, ax, ax.get_legend())
    fig.clear()

    # Small multiples per service: one panel each, a line per zone, one legend.
    fig = plot.services(many, facet="service")
    _drawn(fig)
    panels = [a for a in fig.axes if a.get_visible()]
    assert [a.get_gid() for a in panels] == [f"service:{s}" for s in busiest]
    assert all(len(_series_labels(a)) == 3 for a in panels)
    legends = [a.get_legend() for a in panels if a.get_legend() is not None]
    assert len(legends) == 1 and sorted(t.get_text() for t in legends[0].get_texts()) == ["z-a", "z-b", "z-c"]
    right_edge = max(a.get_window_extent().x1 for a in panels)
    assert legends[0].get_window_extent().x0 >= right_edge - 1
    _assert_legend_outside_and_inside_figure(fig, panels[3], legends[0])
    # Shared axes: the panels compare at a glance.
    assert len({a.get_ylim() for a in panels}) == 1
    fig.clear()

    # Per zone, a count: services summed over their pods, ranked by total.
    fig = plot.services(many, "service.completed", facet="zone", top=4)
    zones = [a for a in fig.axes if a.get_visible()]
    assert sorted(a.get_gid() for a in zones) == ["zone:z-a", "zone:z-b", "zone:z-c"]
    completed = many.timeseries("service.completed").groupby("service")["value"].sum()
    assert sorted(_series_labels(zones[0])) == sorted(sorted(completed.index, key=lambda s: (-completed[s], s))[:4])
    fig.clear()

    with pytest.raises(ValueError, match="facet is None, 'service' or 'zone'"):
        plot.services(many, facet="region")
    with pytest.raises(ValueError, match="recorded no 'deployment.zone_ready'"):
        plot.services(many, "deployment.zone_ready")
    with pytest.raises(ValueError, match="no service label"):
        plot.services(many, "region.zones_up")


def test_comparison_of_many_runs_shares_its_top_populations(many: drsim.Result) -> None:
    fig = plot.comparison({"first": many, "again": many})
    _drawn(fig)
    runs = [ax for ax in fig.axes if (ax.get_gid() or "").startswith("run:")]
    for ax in runs:
        assert len([l for l in _series_labels(ax) if l.startswith("users")]) == plot.TOP
        assert ax.get_title(loc="right") == f"top 8 of {_MANY} populations by failed requests"
    legend = runs[-1].get_legend()
    assert len(legend.get_texts()) <= plot.LEGEND_LIMIT
    _assert_legend_outside_and_inside_figure(fig, runs[-1], legend)
    fig.clear()


def _synthetic_comparison(variants: list[str]) -> "drsim.Comparison":
    from drsim.compare import Comparison, _summarise

    rows = []
    for i, v in enumerate(variants):
        # Errors 0, 0, 6: mean 2, a t interval from about -6.6 to 10.6.
        for seed, errors in enumerate([0.0, 0.0, 6.0 + i]):
            rows.append({"variant": v, "seed": seed, "f.errors": errors, "f.rto_s": 30.0 + 5 * i + seed,
                         "f.success_ratio": [1.0, 0.999, 0.93][seed]})
    runs = pd.DataFrame(rows)
    return Comparison(scenario=drsim.load(TWO_CELL), variants={v: [] for v in variants}, seeds=(0, 1, 2),
                      until=None, table=_summarise(runs, 0.95), runs=runs)


def test_comparison_summary_intervals_stay_in_range() -> None:
    cmp = _synthetic_comparison(["a", "b", "c"])
    assert (cmp.table.xs("f.errors", level="figure")["ci_low"] < 0).all()  # the table keeps the t interval
    fig = plot.comparison_summary(cmp, figures=["f.errors", "f.success_ratio", "f.rto_s"])
    by_name = {ax.get_title(): ax for ax in fig.axes if ax.get_visible()}
    for name, ax in by_name.items():
        bars = ax.containers[0].lines[2][0].get_segments()  # the error bars' segments
        lows = [min(seg[0][1], seg[1][1]) for seg in bars]
        highs = [max(seg[0][1], seg[1][1]) for seg in bars]
        assert min(lows) >= 0, (name, lows)  # a count, a ratio, a time: never below 0
        if name == "f.success_ratio":
            assert max(highs) <= 100.0 + 1e-9, highs  # a ratio never above 100%
        if name == "f.rto_s":
            table = cmp.table.xs("f.rto_s", level="figure")
            assert lows == pytest.approx(list(table["ci_low"]))  # in range: unchanged
    fig.clear()


@pytest.mark.parametrize("names", [
    ["a", "b", "c"],
    [f"health check every {s} s, {n} failures to trip" for s in (5, 10, 30) for n in (1, 3, 5, 10)],
])
def test_comparison_summary_variant_names_never_overlap(names: list[str]) -> None:
    fig = plot.comparison_summary(_synthetic_comparison(names), figures=["f.rto_s", "f.errors"])
    _drawn(fig)
    across = len(names) <= 4
    panels = [a for a in fig.axes if a.get_visible()]
    for i, ax in enumerate(panels):
        labels = ax.get_xticklabels() if across else ax.get_yticklabels()
        if not across:
            # The values go across (errors clipped at 0 there too), the names down.
            bars = ax.containers[0].lines[2][0].get_segments()
            assert min(min(seg[0][0], seg[1][0]) for seg in bars) >= 0
        if not across and i > 0:
            # The panels share the y axis: the names only left of the first.
            assert not any(t.get_visible() for t in labels)
            continue
        assert [t.get_text() for t in labels] == names
        _assert_no_overlap(labels)
        if not across:  # the first variant on top
            assert labels[0].get_window_extent().y0 > labels[-1].get_window_extent().y0
    fig.clear()


def test_distribution_of_many_groups_goes_down_the_page() -> None:
    groups = [f"retry budget {p}% with jitter" for p in range(0, 100, 10)]
    frame = pd.DataFrame({"policy": [g for g in groups for _ in range(3)],
                          "rto_s": [30.0 + i for i in range(3 * len(groups))]})
    fig = plot.distribution(frame, "rto_s", by="policy")
    _drawn(fig)
    ax = fig.axes[0]
    labels = ax.get_yticklabels()
    assert [t.get_text() for t in labels] == groups
    assert ax.get_xlabel() == "rto_s (s)" and ax.get_ylabel() == "policy"
    _assert_no_overlap(labels)
    fig.clear()
    # A few short groups stay across.
    fig = plot.distribution(frame[frame["policy"].isin(groups[:2])].replace(
        {groups[0]: "a", groups[1]: "b"}), "rto_s", by="policy")
    _drawn(fig)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["a", "b"]
    fig.clear()


def test_a_png_keeps_what_is_drawn_outside_the_axes(many: drsim.Result, tmp_path: pathlib.Path) -> None:
    # bbox_inches="tight": the saved image is cropped to what is drawn, the
    # legends right of the panels included.
    import struct

    fig = plot.services(many, facet="service")
    data = plot.png_bytes(fig, dpi=50)
    width, height = struct.unpack(">II", data[16:24])
    renderer = fig.canvas.get_renderer()
    tight = fig.get_tightbbox(renderer)
    assert width == pytest.approx((tight.width + 0.2) * 50, abs=3)
    assert height == pytest.approx((tight.height + 0.2) * 50, abs=3)
    legend = next(a.get_legend() for a in fig.axes if a.get_legend() is not None)
    assert legend.get_window_extent(renderer).x1 <= tight.x1 * fig.dpi + 1
    fig.clear()
