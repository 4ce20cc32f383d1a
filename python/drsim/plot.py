"""Pictures of runs for notebooks, reviews and reports (matplotlib).

Capacity planners read a drill as a picture: when the fault started, when it
was detected, when traffic switched, when users were back, and what success
ratio, latency and utilisation did meanwhile. These functions build that
picture from a :class:`drsim.Result` (or several) and return a
:class:`matplotlib.figure.Figure`:

- :func:`timeline`: one run, stacked panels sharing the time axis;
- :func:`services`: one run's per-service series (utilisation by default),
  the busiest services only, optionally as small multiples per service or
  per zone;
- :func:`comparison`: several runs side by side, one column each;
- :func:`distribution`: a sweep's spread of one figure (boxes or CDFs).

They stay readable with tens of services, zones or populations: a panel
draws its ``top`` series (8 by default) ranked by what matters for it
(errors, peak utilisation, shortfall, change) and says in its corner title
how many it left out; legends sit right of the axes and never hold more
than :data:`LEGEND_LIMIT` entries (the rest counted in a last one).

Figures are made with :class:`matplotlib.figure.Figure` on an Agg canvas, not
through ``pyplot``: library code never touches the global backend, never
calls ``plt.show()`` and leaves no figure open in pyplot's registry. In
Jupyter the returned Figure displays itself as a PNG (the last expression of
a cell), with or without ``import matplotlib.pyplot``; :func:`save_png` /
:func:`png_bytes` write it as a PNG file or bytes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from drsim.compare import comparison_summary
from drsim.figure_canvas import new_figure, png_bytes, save_png, unit_of

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from drsim.result import Result

__all__ = ["timeline", "services", "comparison", "comparison_summary", "distribution", "png_bytes", "save_png",
           "PANELS", "TOP", "LEGEND_LIMIT"]

#: The panels :func:`timeline` can draw, in order. A panel whose series the
#: run did not record is left out (``replicas`` without a Kubernetes
#: deployment, ``routing`` without GSLB health checks or routing weights).
#: ``zones`` (zones up per region) is drawn by default only when the run has
#: no client population, so a topology-only scenario still gets a picture.
PANELS: tuple[str, ...] = ("success", "latency", "utilization", "replicas", "routing", "zones")

_PANEL_HEIGHT_IN = 1.9
_WIDTH_IN = 11.0
_FAULT_COLOR = "tab:red"
_ACTION_COLOR = "tab:purple"
# Darker than the tab10 series colours, so a mark is not read as a series.
_MARK_COLORS = {"detected": "#b8860b", "switched": "#1f3b73", "recovered": "#2e7d32"}
# tab10 without red (faults), then tab20's lighter shades: 18 distinct colours.
_SERIES_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive",
                  "tab:cyan", "tab:gray", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94", "#f7b6d2",
                  "#dbdb8d", "#9edae5", "#c7c7c7")

#: How many series a panel draws by default (``top=``): the rest are left
#: out and counted in the panel's corner title.
TOP = 8
#: The most entries one legend holds; beyond, the last entry counts the rest.
LEGEND_LIMIT = 16


def _population_color(populations: list[str], population: str) -> str:
    """One colour per population, the same in every panel and column."""
    return _SERIES_COLORS[populations.index(population) % len(_SERIES_COLORS)]


def _check_top(top: Any) -> int | None:
    """``top``: a positive int, or None for every series."""
    if top is None:
        return None
    if isinstance(top, bool) or not isinstance(top, int):
        raise TypeError(f"top is a positive int or None (every series), not {type(top).__name__}")
    if top < 1:
        raise ValueError(f"top must be at least 1 (or None for every series), got {top}")
    return top


def _ranked(scores: Mapping[str, float], top: int | None) -> list[str]:
    """The keys with the highest scores first (NaN last, ties by name), the
    first ``top`` of them (all with None)."""
    def key(item: tuple[str, float]) -> tuple[bool, float, str]:
        name, score = item
        missing = score != score  # NaN
        return (missing, 0.0 if missing else -float(score), name)

    order = [name for name, _ in sorted(scores.items(), key=key)]
    return order if top is None else order[:top]


def _note_left_out(ax: Axes, shown: int, total: int, what: str, by: str) -> None:
    """Says in the panel's top-right corner that only ``shown`` of ``total``
    series are drawn (gid ``"top"``); nothing when all are."""
    if shown < total:
        ax.set_title(f"top {shown} of {total} {what} by {by}", loc="right", fontsize="x-small", color="dimgray",
                     gid="top")


class _TimeAxis:
    """Seconds on short runs, minutes on runs longer than 20 minutes, so the
    tick labels stay readable; every x position goes through :meth:`x`."""

    def __init__(self, horizon_s: float) -> None:
        self.minutes = horizon_s > 1200
        self.unit = "min" if self.minutes else "s"
        self.horizon_s = horizon_s

    def x(self, seconds: Any) -> Any:
        return seconds / 60.0 if self.minutes else seconds

    @property
    def label(self) -> str:
        return f"simulated time ({self.unit})"


def _check_result(result: Any, what: str = "result") -> None:
    from drsim.result import Result

    if not isinstance(result, Result):
        raise TypeError(f"{what} must be a drsim.Result (from Scenario.run()), not {type(result).__name__}")


def _legend_outside(ax: Axes, handles: list[Any] | None = None, labels: list[str] | None = None,
                    *, anchor_x: float = 1.01) -> None:
    """A legend to the right of the panel, so it never covers data, with at
    most :data:`LEGEND_LIMIT` entries (the last one counts the rest). The
    handles default to the panel's own."""
    entries: list[Any]
    names: list[str]
    if handles is None or labels is None:
        own_handles, own_labels = ax.get_legend_handles_labels()
        entries, names = list(own_handles), list(own_labels)
    else:
        entries, names = list(handles), list(labels)
    if not entries:
        return
    if len(entries) > LEGEND_LIMIT:
        from matplotlib.lines import Line2D

        rest = len(entries) - (LEGEND_LIMIT - 1)
        entries = entries[:LEGEND_LIMIT - 1] + [Line2D([], [], linestyle="none")]
        names = names[:LEGEND_LIMIT - 1] + [f"... {rest} more"]
    # Two columns past 8 entries, so that a legend stays about as tall as its panel.
    ax.legend(entries, names, loc="upper left", bbox_to_anchor=(anchor_x, 1.0), fontsize="small", frameon=False,
              ncol=1 if len(entries) <= 8 else 2)


# ---- series -----------------------------------------------------------------


def _known_populations(result: Result) -> list[str]:
    series = result.series()
    return sorted(set(series.loc[series["metric"] == "client.offered", "population"].dropna())) if (
        "population" in series.columns) else []


def _failed_by_population(result: Result) -> dict[str, float]:
    """Failed client requests over the run, per population."""
    if "client.failed" not in result.metrics():
        return {}
    frame = result.timeseries("client.failed")
    return {str(k): float(v) for k, v in frame.groupby("population")["value"].sum().items()}


def _top_populations(results: Iterable[Result], top: int | None) -> list[str]:
    """The populations of the runs with the most failed requests (summed
    over the runs), at most ``top``; ties by name."""
    scores: dict[str, float] = {}
    for result in results:
        failed = _failed_by_population(result)
        for p in _known_populations(result):
            scores[p] = scores.get(p, 0.0) + failed.get(p, 0.0)
    return _ranked(scores, top)


def _populations(result: Result, populations: Iterable[str] | None, top: int | None = None) -> list[str]:
    """The client populations to draw: those asked for (each must exist), or
    the run's, the ``top`` with the most failed requests first."""
    known = _known_populations(result)
    if populations is None:
        return _top_populations([result], top)
    if isinstance(populations, str):
        populations = [populations]
    wanted = list(populations)
    for p in wanted:
        if not isinstance(p, str):
            raise TypeError(f"populations are str, got {p!r}")
        if p not in known:
            raise ValueError(f"no client population {p!r} in this run (populations: {', '.join(known) or 'none'})")
    if not wanted:
        raise ValueError("populations is empty; pass None for all of them")
    return wanted


def _wide(result: Result, metric: str, by: Sequence[str], **labels: Any) -> pd.DataFrame:
    """``metric`` as a wide frame: index t_s, one column per distinct value
    of the ``by`` labels (summed when several series share one), sorted."""
    import pandas as pd

    frame = result.timeseries(metric, **labels) if metric in result.metrics() else pd.DataFrame()
    if frame.empty:
        return pd.DataFrame()
    key = frame[list(by)].astype(str).agg("/".join, axis=1) if len(by) > 1 else frame[by[0]].astype(str)
    return frame.assign(key=key).pivot_table(index="t_s", columns="key", values="value", aggfunc="sum").sort_index()


def _latency(result: Result, metric: str, population: str) -> pd.DataFrame:
    """A latency series on the population's full window grid: a window in
    which nothing succeeded has no latency point, and NaN there breaks the
    line instead of drawing a ramp across an outage."""
    w = _wide(result, metric, ["population"], population=population)
    grid = _wide(result, "client.succeeded", ["population"], population=population)
    return w.reindex(grid.index.union(w.index)) if not w.empty and not grid.empty else w


def _success_ratio(result: Result, population: str) -> pd.Series:
    """Per window: succeeded / (succeeded + failed), NaN where nothing finished."""
    succeeded = _wide(result, "client.succeeded", ["population"], population=population)
    failed = _wide(result, "client.failed", ["population"], population=population)
    if succeeded.empty:
        import pandas as pd

        return pd.Series(dtype="float64")
    ok = succeeded.iloc[:, 0]
    bad = failed.iloc[:, 0].reindex(ok.index, fill_value=0.0) if not failed.empty else 0.0 * ok
    finished = ok + bad
    return (ok / finished.where(finished > 0)).rename(population)


# ---- fault marks ------------------------------------------------------------


def _fault_rows(result: Result) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(faults, operator actions) the run applied, each a dict with step,
    action, start_s, end_s (the run's end when not undone); figures of a fault
    (detection_s, traffic_switch_s, rto_s) are absolute seconds or NaN."""
    applied = result.faults
    figures = result.fault_figures().set_index("step") if len(result.fault_figures()) else None
    end_of_run = result.outcome.end_t_s or result.horizon_s
    faults: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []
    for row in applied.itertuples(index=False):
        end = row.end_s if not math.isnan(row.end_s) else end_of_run
        item = {"step": row.step, "action": row.action, "target": row.target, "start_s": row.start_s, "end_s": end}
        if figures is not None and row.step in figures.index:
            f = figures.loc[row.step]
            for name, column in (("detected", "detection_s"), ("switched", "traffic_switch_s"),
                                 ("recovered", "rto_s")):
                value = float(f[column])
                item[name] = row.start_s + value if not math.isnan(value) else math.nan
            faults.append(item)
        else:
            actions.append(item)
    return faults, actions


def _mark_faults(ax: Axes, t: _TimeAxis, faults: list[dict[str, Any]], actions: list[dict[str, Any]],
                 *, label: bool, annotate: bool) -> None:
    """Shades each fault's span, draws operator actions as dotted lines, and
    the detection / switch / recovery instants as dashed lines (text on the
    top panel only, ``annotate``)."""
    for i, f in enumerate(faults):
        ax.axvspan(t.x(f["start_s"]), t.x(f["end_s"]), color=_FAULT_COLOR, alpha=0.12, lw=0,
                   label=f"fault: {f['step']}" if label else None, gid=f"fault:{f['step']}")
        for name, color in _MARK_COLORS.items():
            at = f.get(name, math.nan)
            if math.isnan(at):
                continue
            ax.axvline(t.x(at), color=color, ls="--", lw=1.0, gid=f"{name}:{f['step']}",
                       label=name if (label and i == 0) else None)
            if annotate:
                delta = at - f["start_s"]
                ax.annotate(f"{name} +{delta:.4g}s", xy=(t.x(at), 1.0), xycoords=("data", "axes fraction"),
                            xytext=(2, -1 - 9 * list(_MARK_COLORS).index(name)), textcoords="offset points",
                            fontsize="x-small", color=color, va="top", ha="left")
    for j, a in enumerate(actions):
        ax.axvline(t.x(a["start_s"]), color=_ACTION_COLOR, ls=":", lw=1.2, gid=f"action:{a['step']}",
                   label="operator action" if (label and j == 0) else None)
        if annotate:
            ax.annotate(a["step"], xy=(t.x(a["start_s"]), 0.0), xycoords=("data", "axes fraction"),
                        xytext=(2, 2), textcoords="offset points", fontsize="x-small", color=_ACTION_COLOR,
                        rotation=90, va="bottom", ha="left")


# ---- panels -----------------------------------------------------------------


def _note_populations(ax: Axes, result: Result, populations: list[str]) -> None:
    _note_left_out(ax, len(populations), len(_known_populations(result)), "populations", "failed requests")


def _panel_success(ax: Axes, result: Result, t: _TimeAxis, populations: list[str]) -> bool:
    drew = False
    for p in populations:
        ratio = _success_ratio(result, p)
        if ratio.empty:
            continue
        ax.plot(t.x(ratio.index.to_numpy()), 100.0 * ratio.to_numpy(), lw=1.2, label=f"{p}",
                color=_population_color(populations, p))
        drew = True
    target = float(result.scenario.spec.objectives.success_ratio) if drew else math.nan
    if drew and not math.isnan(target):
        ax.axhline(100.0 * target, color="grey", lw=0.8, ls="-.", label=f"objective {100 * target:g}%")
    ax.set_ylabel("success ratio (%)")
    # Headroom above 100% for the detection / switch / recovery annotations.
    ax.set_ylim(-3, 130)
    ax.set_yticks([0, 20, 40, 60, 80, 100])
    return drew


def _panel_latency(ax: Axes, result: Result, t: _TimeAxis, populations: list[str]) -> bool:
    """p50 (solid) and p99 (dashed) per population. Up to 2 populations each
    line has its entry (``spain p50``); beyond, one entry per population and
    two for the line styles, so the legend does not double."""
    drew = False
    compact = len(populations) > 2
    for p in populations:
        for metric, style in (("client.latency_p50_s", "-"), ("client.latency_p99_s", "--")):
            w = _latency(result, metric, p)
            if w.empty:
                continue
            quantile = metric.split("_")[1]
            label = (p if quantile == "p99" else None) if compact else f"{p} {quantile}"
            ax.plot(t.x(w.index.to_numpy()), 1000.0 * w.iloc[:, 0].to_numpy(), ls=style, lw=1.1,
                    label=label, color=_population_color(populations, p))
            drew = True
    if drew and compact:
        ax.plot([], [], color="black", ls="-", lw=1.1, label="p50 (solid)")
        ax.plot([], [], color="black", ls="--", lw=1.1, label="p99 (dashed)")
    ax.set_ylabel("latency (ms)")
    return drew


def _top_columns(ax: Axes, wide: pd.DataFrame, top: int | None, what: str, by: str,
                 score: str = "peak") -> pd.DataFrame:
    """The ``top`` columns of a wide frame by their peak (``"peak"``) or
    their range, max - min (``"change"``), noted on the panel when some are
    left out."""
    values = wide.max() if score == "peak" else wide.max() - wide.min()
    keep = _ranked({str(k): float(v) for k, v in values.items()}, top)
    _note_left_out(ax, len(keep), len(wide.columns), what, by)
    return wide[keep]


def _panel_utilization(ax: Axes, result: Result, t: _TimeAxis, top: int | None = None) -> bool:
    """zone.utilization per zone; with several services in a zone, the
    busiest one at each window (what saturates first). The ``top`` zones by
    peak."""
    frame = result.timeseries("zone.utilization") if "zone.utilization" in result.metrics() else None
    if frame is None or frame.empty:
        return False
    wide = frame.pivot_table(index="t_s", columns="zone", values="value", aggfunc="max").sort_index()
    wide = _top_columns(ax, wide, top, "zones", "peak utilisation")
    for i, zone in enumerate(wide.columns):
        ax.plot(t.x(wide.index.to_numpy()), 100.0 * wide[zone].to_numpy(), lw=1.0, label=str(zone),
                color=_SERIES_COLORS[i % len(_SERIES_COLORS)])
    several = frame.groupby("zone")["service"].nunique().max() > 1 if "service" in frame.columns else False
    ax.set_ylabel("utilisation (%)" + ("\nbusiest service" if several else ""))
    return True


def _panel_replicas(ax: Axes, result: Result, t: _TimeAxis, top: int | None = None) -> bool:
    """Ready and target pods per service and zone: the ``top`` with the
    largest shortfall (target - ready at some window), then the most change."""
    ready = _wide(result, "deployment.zone_ready", ["service", "zone"])
    if ready.empty:
        return False
    target = _wide(result, "deployment.zone_target", ["service", "zone"])
    shortfall = (target.reindex(columns=ready.columns).reindex(ready.index).ffill() - ready).max().fillna(0.0) if (
        not target.empty) else ready.max() * 0.0
    change = ready.max() - ready.min()
    # Shortfall first; the change (pods, < 1e6) breaks its ties.
    scores = {str(k): float(shortfall.get(k, 0.0)) * 1e6 + float(change[k]) for k in ready.columns}
    keep = _ranked(scores, top)
    _note_left_out(ax, len(keep), len(ready.columns), "service/zone", "shortfall")
    for i, key in enumerate(keep):
        line = ax.plot(t.x(ready.index.to_numpy()), ready[key].to_numpy(), lw=1.2, drawstyle="steps-post",
                       label=f"{key} ready", color=_SERIES_COLORS[i % len(_SERIES_COLORS)])[0]
        if key in target.columns:
            ax.plot(t.x(target.index.to_numpy()), target[key].to_numpy(), lw=0.8, ls="--",
                    drawstyle="steps-post", color=line.get_color(), label=f"{key} target")
    ax.set_ylabel("pods per zone")
    return True


def _panel_routing(ax: Axes, result: Result, t: _TimeAxis, populations: list[str], top: int | None = None) -> bool:
    """Routing weights when recorded (``routing.weight*``); otherwise the
    GSLB's view (``health.region_healthy`` per region) with the clients whose
    DNS answer is stale on a right-hand axis. The ``top`` series that change
    most."""
    metrics = result.metrics()
    weights = [m for m in metrics if m.startswith("routing.weight")]
    if weights:
        frame = result.timeseries(weights)
        by = [c for c in ("population", "region", "zone") if c in frame.columns and frame[c].notna().any()]
        wide = _wide(result, weights[0], by) if by else None
        if wide is not None and not wide.empty:
            wide = _top_columns(ax, wide, top, "weights", "change", score="change")
            for key in wide.columns:
                ax.plot(t.x(wide.index.to_numpy()), wide[key].to_numpy(), lw=1.2, drawstyle="steps-post",
                        label=str(key))
            ax.set_ylabel("routing weight")
            return True
    healthy = _wide(result, "health.region_healthy", ["population", "region"])
    if healthy.empty:
        return False
    healthy = healthy[[c for c in healthy.columns if c.split("/")[0] in populations]]
    healthy = _top_columns(ax, healthy, top, "population/region", "change", score="change")
    for key in healthy.columns:
        ax.plot(t.x(healthy.index.to_numpy()), healthy[key].to_numpy(), lw=1.2, drawstyle="steps-post",
                label=f"{key} healthy")
    ax.set_ylabel("region healthy\n(GSLB, 0/1)")
    ax.set_ylim(-0.1, 1.1)
    stale = _wide(result, "dns.stale_clients", ["population"])
    stale = stale[[c for c in stale.columns if c in populations]] if not stale.empty else stale
    if not stale.empty:
        right = ax.twinx()
        for key in stale.columns:
            right.plot(t.x(stale.index.to_numpy()), stale[key].to_numpy(), lw=0.9, ls="--", color="tab:gray",
                       label=f"{key} stale DNS clients")
        right.set_ylabel("stale DNS\nclients")
        # One legend for both axes, outside the panel (past the right axis's labels).
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = right.get_legend_handles_labels()
        _legend_outside(ax, h1 + h2, l1 + l2, anchor_x=1.08)
    return True


def _panel_zones(ax: Axes, result: Result, t: _TimeAxis, top: int | None = None) -> bool:
    up = _wide(result, "region.zones_up", ["region"])
    if up.empty:
        return False
    up = _top_columns(ax, up, top, "regions", "change", score="change")
    for key in up.columns:
        ax.plot(t.x(up.index.to_numpy()), up[key].to_numpy(), lw=1.2, drawstyle="steps-post", label=str(key))
    ax.set_ylabel("zones up")
    ax.set_ylim(bottom=-0.2)
    return True


# ---- public -----------------------------------------------------------------


def timeline(
    result: Result,
    *,
    populations: Iterable[str] | None = None,
    panels: Iterable[str] | None = None,
    title: str | None = None,
    width: float = _WIDTH_IN,
    figure: Figure | None = None,
    top: int | None = TOP,
) -> Figure:
    """One run as stacked panels sharing the time axis.

    Panels (see :data:`PANELS`), each left out when the run has no such
    series: ``success`` (success ratio per population per metrics window, %,
    with the objective's line), ``latency`` (client p50 and p99, ms),
    ``utilization`` (per zone, %), ``replicas`` (ready and target pods per
    service and zone), ``routing`` (routing weights, or the GSLB's health view
    and stale DNS clients), ``zones`` (zones up per region; by default only
    when the run has no client population). Each fault step is a shaded span; its detection,
    traffic switch and recovery (from :meth:`Result.fault_figures`) are
    dashed lines, annotated on the top panel; operator actions are dotted
    lines. Artists carry ``gid`` values such as ``"fault:<step>"``,
    ``"detected:<step>"`` and ``"action:<step>"``.

    ``populations`` limits the client panels to those populations (each
    must exist); ``panels`` picks and orders panels; ``figure`` draws into an
    existing, cleared Figure instead of a new one.

    ``top`` (default :data:`TOP`, 8; None for all) caps the series of each
    panel: the populations with the most failed requests, the zones with
    the highest peak utilisation, the service/zone pairs with the largest
    shortfall of ready pods, the routing series and regions that change
    most. A panel that leaves some out says so in its top-right corner
    (``"top 8 of 12 populations by failed requests"``, gid ``"top"``).
    """
    _check_result(result)
    top = _check_top(top)
    pops = _populations(result, populations, top)
    if panels is None:
        chosen = [p for p in PANELS if p != "zones"] if pops else ["zones"]
    else:
        chosen = [panels] if isinstance(panels, str) else list(panels)
    for name in chosen:
        if name not in PANELS:
            raise ValueError(f"unknown panel {name!r} (panels: {', '.join(PANELS)})")
    if not chosen:
        raise ValueError("panels is empty; pass None for all of them")

    t = _TimeAxis(result.outcome.end_t_s or result.horizon_s)
    # Draw each candidate panel on a scratch figure first: only those with data
    # make it into the final layout, so no empty panel is left.
    scratch = new_figure(width, _PANEL_HEIGHT_IN)
    drawers = {
        "success": lambda ax: _panel_success(ax, result, t, pops),
        "latency": lambda ax: _panel_latency(ax, result, t, pops),
        "utilization": lambda ax: _panel_utilization(ax, result, t, top),
        "replicas": lambda ax: _panel_replicas(ax, result, t, top),
        "routing": lambda ax: _panel_routing(ax, result, t, pops, top),
        "zones": lambda ax: _panel_zones(ax, result, t, top),
    }
    present = [name for name in chosen if drawers[name](scratch.add_subplot())]
    if not present:
        raise ValueError(f"the run recorded none of the series of the panels {', '.join(chosen)}")

    height = 0.9 + _PANEL_HEIGHT_IN * len(present)
    if figure is None:
        fig = new_figure(width, height)
    else:
        fig = figure
        fig.clear()
    axes = fig.subplots(len(present), 1, sharex=True, squeeze=False)[:, 0]
    faults, actions = _fault_rows(result)
    for i, (name, ax) in enumerate(zip(present, axes)):
        drawers[name](ax)
        if name in ("success", "latency") and populations is None:
            _note_populations(ax, result, pops)
        ax.set_gid(f"panel:{name}")
        _mark_faults(ax, t, faults, actions, label=(i == 0), annotate=(i == 0))
        ax.grid(True, alpha=0.3)
        if ax.get_legend() is None:
            _legend_outside(ax)
    axes[-1].set_xlabel(t.label)
    axes[-1].set_xlim(0, t.x(t.horizon_s))
    scenario = result.scenario
    fig.suptitle(title if title is not None else f"{scenario.name} (seed {result.seed})", fontsize="medium")
    return fig


def _service_frame(result: Result, metric: str) -> tuple[pd.DataFrame, str, float, str]:
    """``metric``'s points with service and zone labels; (frame, how zones
    combine into a service's series, y scale, y label)."""
    if not isinstance(metric, str):
        raise TypeError(f"metric is a metric name (str), not {type(metric).__name__}")
    metrics = result.metrics()
    if metric not in metrics:
        per_service = [m for m in metrics if m.startswith(("zone.", "service."))]
        raise ValueError(f"the run recorded no {metric!r} (per-service metrics: {', '.join(per_service)})")
    frame = result.timeseries(metric)
    if "service" not in frame.columns or frame["service"].isna().all():
        raise ValueError(f"{metric!r} has no service label: not a per-service metric")
    frame = frame[frame["service"].notna()]
    if metric.endswith("utilization"):
        return frame, "max", 100.0, f"{metric} (%)"
    if metric.endswith("_s"):
        return frame, "max", 1000.0, f"{metric} (ms)"
    return frame, "sum", 1.0, metric


def services(
    result: Result,
    metric: str = "zone.utilization",
    *,
    top: int | None = TOP,
    facet: str | None = None,
    title: str | None = None,
    width: float = _WIDTH_IN,
) -> Figure:
    """A per-service metric over time, readable with tens of services.

    ``metric`` is a series with ``service`` and ``zone`` labels
    (``zone.utilization`` by default, or ``service.rejected``,
    ``service.response_mean_s``, ...). A service's series combines its zones:
    the busiest zone for a utilisation or a time (what saturates first), the
    sum for a count. Only the ``top`` services (8 by default; None for all)
    with the highest peak (utilisation, time) or total (count) are drawn;
    the title says how many were left out.

    ``facet``: ``None``, one panel with a line per service; ``"service"``,
    small multiples, one panel per service with a line per zone (its
    ``top`` zones by peak); ``"zone"``, one panel per zone (the ``top``
    zones) with a line per service. Panels share both axes; the legend is
    outside, right of the panels, one colour per service (per zone with
    ``facet="service"``). Axes carry gids ``"service:<name>"`` or
    ``"zone:<name>"`` (facets) or ``"services"``.
    """
    _check_result(result)
    top = _check_top(top)
    if facet not in (None, "service", "zone"):
        raise ValueError(f"facet is None, 'service' or 'zone', not {facet!r}")
    frame, how, scale, ylabel = _service_frame(result, metric)
    by_service = frame.pivot_table(index="t_s", columns="service", values="value", aggfunc="sum").sort_index() if (
        how == "sum") else None
    if by_service is None:
        per_zone = frame.pivot_table(index="t_s", columns=["service", "zone"], values="value", aggfunc="sum")
        by_service = per_zone.T.groupby(level="service").max().T.sort_index()
    scores = by_service.sum() if how == "sum" else by_service.max()
    all_services = [str(c) for c in by_service.columns]
    chosen = _ranked({str(k): float(v) for k, v in scores.items()}, top)
    ranking = "total" if how == "sum" else "peak"
    note = f"top {len(chosen)} of {len(all_services)} services by {ranking}" if len(chosen) < len(all_services) else (
        f"{len(all_services)} services")
    t = _TimeAxis(result.outcome.end_t_s or result.horizon_s)
    colors = {name: _SERIES_COLORS[i % len(_SERIES_COLORS)] for i, name in enumerate(chosen)}

    if facet is None:
        fig = new_figure(width, 0.9 + 2.6)
        ax = fig.add_subplot()
        ax.set_gid("services")
        for name in chosen:
            ax.plot(t.x(by_service.index.to_numpy()), scale * by_service[name].to_numpy(), lw=1.1, label=name,
                    color=colors[name])
        ax.set_ylabel(ylabel)
        ax.set_xlabel(t.label)
        ax.set_xlim(0, t.x(t.horizon_s))
        ax.grid(True, alpha=0.3)
        _legend_outside(ax)
    else:
        zone_frame = frame.pivot_table(index="t_s", columns=["service", "zone"], values="value", aggfunc="sum")
        zone_frame = zone_frame.sort_index()
        if facet == "service":
            panels = chosen
            zone_scores = zone_frame.T.groupby(level="zone").max().T.max()
            zones = _ranked({str(k): float(v) for k, v in zone_scores.items()}, top)
            keys = zones
            colors = {z: _SERIES_COLORS[i % len(_SERIES_COLORS)] for i, z in enumerate(zones)}
        else:
            zone_scores = zone_frame.T.groupby(level="zone").max().T.max()
            panels = _ranked({str(k): float(v) for k, v in zone_scores.items()}, top)
            keys = chosen
            all_zones = len(zone_scores)
            if len(panels) < all_zones:
                note += f"; top {len(panels)} of {all_zones} zones"
        cols = min(4, len(panels))
        rows = math.ceil(len(panels) / cols)
        fig = new_figure(max(width, 2.8 * cols + 2.0), 0.9 + 2.0 * rows)
        axes = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False).ravel()
        for ax, panel in zip(axes, panels):
            ax.set_gid(f"{facet}:{panel}")
            ax.set_title(panel, fontsize="small")
            for key in keys:
                column = (panel, key) if facet == "service" else (key, panel)
                if column not in zone_frame.columns:
                    continue
                ax.plot(t.x(zone_frame.index.to_numpy()), scale * zone_frame[column].to_numpy(), lw=1.0,
                        label=key, color=colors[key])
            ax.grid(True, alpha=0.3)
            ax.set_xlim(0, t.x(t.horizon_s))
        for ax in axes[len(panels):]:
            ax.set_visible(False)
        for ax in axes[(rows - 1) * cols:]:
            ax.set_xlabel(t.label)
        for ax in axes[::cols]:
            ax.set_ylabel(ylabel)
        # One legend for every panel: the same keys and colours in each.
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color=colors[k], lw=1.0) for k in keys]
        _legend_outside(axes[cols - 1], handles, list(keys))
    heading = title if title is not None else f"{result.scenario.name}: {metric}"
    fig.suptitle(f"{heading} ({note})", fontsize="medium")
    return fig


def comparison(
    results: Mapping[str, Result],
    *,
    populations: Iterable[str] | None = None,
    title: str | None = None,
    column_width: float = 4.2,
    top: int | None = TOP,
) -> Figure:
    """Several runs side by side, one column per run (``{name: result}``, in
    the mapping's order): success ratio (%) and client p99 latency (ms) per
    population, with each run's faults shaded and its detection / switch /
    recovery lines. Rows share their y axis, so the columns compare at a
    glance. Without ``populations``, the ``top`` populations with the most
    failed requests over all the runs (8 by default; None for all), the same
    in every column."""
    if not isinstance(results, Mapping) or not results:
        raise ValueError("results is a non-empty mapping {name: drsim.Result}")
    for name, result in results.items():
        if not isinstance(name, str):
            raise TypeError(f"run names are str, got {name!r}")
        _check_result(result, f"results[{name!r}]")
    top = _check_top(top)
    chosen = _top_populations(results.values(), top) if populations is None else None
    n = len(results)
    fig = new_figure(max(6.0, column_width * n + 1.5), 0.9 + 2 * _PANEL_HEIGHT_IN)
    axes = fig.subplots(2, n, sharey="row", squeeze=False)
    for col, (name, result) in enumerate(results.items()):
        if chosen is not None:
            known = set(_known_populations(result))
            pops = [p for p in chosen if p in known]
        else:
            pops = _populations(result, populations)
        t = _TimeAxis(result.outcome.end_t_s or result.horizon_s)
        upper, bottom = axes[0, col], axes[1, col]
        _panel_success(upper, result, t, pops)
        if chosen is not None:
            _note_left_out(upper, len(pops), len(_known_populations(result)), "populations", "failed requests")
        for p in pops:
            w = _latency(result, "client.latency_p99_s", p)
            if not w.empty:
                bottom.plot(t.x(w.index.to_numpy()), 1000.0 * w.iloc[:, 0].to_numpy(), lw=1.1, label=f"{p} p99",
                            color=_population_color(pops, p))
        bottom.set_ylabel("latency p99 (ms)")
        faults, actions = _fault_rows(result)
        for ax in (upper, bottom):
            _mark_faults(ax, t, faults, actions, label=(col == n - 1 and ax is upper), annotate=ax is upper)
            ax.grid(True, alpha=0.3)
            ax.set_xlim(0, t.x(t.horizon_s))
            if col > 0:
                ax.set_ylabel("")
        upper.set_title(name, fontsize="medium")
        upper.set_gid(f"run:{name}")
        bottom.set_xlabel(t.label)
    _legend_outside(axes[0, n - 1])
    _legend_outside(axes[1, n - 1])
    if title:
        fig.suptitle(title, fontsize="medium")
    return fig


def distribution(
    frame: pd.DataFrame,
    column: str | Sequence[str],
    *,
    by: str | None = None,
    kind: str = "box",
    title: str | None = None,
) -> Figure:
    """The spread of one or more figures over a sweep's runs: ``frame`` has
    one row per run (e.g. :attr:`drsim.Comparison.runs`), ``column`` the
    figure(s) (one panel each), ``by`` an optional column to group runs by
    (e.g. ``"variant"``). ``kind`` is ``"box"`` (box and whiskers, every run
    as a dot) or ``"cdf"`` (the empirical CDF per group). NaN values (e.g.
    never recovered) are left out and counted in the group's label. With
    more than 6 groups, or a group name longer than 14 characters, the boxes
    go down the y axis, one row each, so the names never overlap."""
    import numpy as np
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame is a pandas DataFrame with one row per run, not {type(frame).__name__}")
    columns = [column] if isinstance(column, str) else list(column)
    if not columns:
        raise ValueError("column is empty")
    for c in columns + ([by] if by is not None else []):
        if c not in frame.columns:
            raise ValueError(f"no column {c!r} in the frame (columns: {', '.join(map(str, frame.columns))})")
    if kind not in ("box", "cdf"):
        raise ValueError(f"kind is 'box' or 'cdf', not {kind!r}")
    groups: list[tuple[str, pd.DataFrame]] = (
        [(str(k), g) for k, g in frame.groupby(by, sort=False)] if by is not None else [("all runs", frame)]
    )
    # Many groups, or long names: the boxes go down the y axis, one row each,
    # so that the group names never overlap.
    across = len(groups) <= 6 and max(len(name) for name, _ in groups) <= 14
    height = 4.0 if kind == "cdf" or across else max(4.0, 1.0 + 0.35 * len(groups))
    fig = new_figure(max(6.0, 4.5 * len(columns)), height)
    axes = fig.subplots(1, len(columns), squeeze=False)[0]
    for ax, c in zip(axes, columns):
        unit, scale = unit_of(c)
        values = []
        labels = []
        for name, g in groups:
            v = pd.to_numeric(g[c], errors="coerce").to_numpy(dtype=float)
            missing = int(np.isnan(v).sum())
            values.append(np.sort(v[~np.isnan(v)]) * scale)
            labels.append(f"{name}" + (f"\n({missing} NaN)" if missing else ""))
        if kind == "box":
            ax.boxplot([v if len(v) else [np.nan] for v in values], labels=labels if across else
                       [label.replace("\n", " ") for label in labels], showfliers=False, vert=across)
            for i, v in enumerate(values, start=1):
                jitter = np.linspace(-0.12, 0.12, len(v)) if len(v) > 1 else np.zeros(len(v))
                ax.plot(*((i + jitter, v) if across else (v, i + jitter)), "o", ms=3, alpha=0.6, color="tab:blue")
            value_label = f"{c} ({unit})" if unit else c
            if across:
                ax.set_ylabel(value_label)
                if by is not None:
                    ax.set_xlabel(by)
            else:
                ax.set_xlabel(value_label)
                ax.set_ylim(len(values) + 0.5, 0.5)  # the first group on top
                if by is not None:
                    ax.set_ylabel(by)
        else:
            for v, label in zip(values, labels):
                if len(v):
                    ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", label=label.replace("\n", " "))
            ax.set_xlabel(f"{c} ({unit})" if unit else c)
            ax.set_ylabel("fraction of runs")
            ax.set_ylim(0, 1.02)
        ax.set_title(c, fontsize="medium")
        ax.grid(True, alpha=0.3)
    if kind == "cdf":
        _legend_outside(axes[-1])  # the groups are the same in every panel
    if title:
        fig.suptitle(title, fontsize="medium")
    return fig
