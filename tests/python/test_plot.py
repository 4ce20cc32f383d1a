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
