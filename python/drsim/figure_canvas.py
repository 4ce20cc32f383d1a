"""The matplotlib plumbing every drsim picture shares.

Figures are made with :class:`matplotlib.figure.Figure` on an Agg canvas, not
through ``pyplot``: library code never touches the global backend, never
calls ``plt.show()`` and leaves no figure open in pyplot's registry. In
Jupyter the returned Figure displays itself as a PNG. Kept apart from
:mod:`drsim.plot` so that :mod:`drsim.compare` can draw its summary without
importing the run plots (which re-export it).
"""

from __future__ import annotations

import io
import os
import pathlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["new_figure", "png_bytes", "save_png", "unit_of"]


def _figure_class() -> type:
    """A Figure that shows itself in Jupyter as a PNG even when pyplot (and so
    the inline backend's formatter) was never imported; when it was, that
    formatter is registered for Figure and takes precedence."""
    from matplotlib.figure import Figure

    class DrsimFigure(Figure):
        def _repr_png_(self) -> bytes:
            return png_bytes(self)

    return DrsimFigure


_FIGURE_CLASS: type | None = None


def new_figure(width: float, height: float) -> Figure:
    """A Figure on an Agg canvas, outside pyplot (see the module docstring)."""
    global _FIGURE_CLASS
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if _FIGURE_CLASS is None:
        _FIGURE_CLASS = _figure_class()
    fig = _FIGURE_CLASS(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def png_bytes(fig: Figure, *, dpi: int = 110) -> bytes:
    """The figure as PNG bytes (what :func:`drsim.report` embeds), cropped
    to what is drawn (``bbox_inches="tight"``): a legend right of the axes
    or a long tick label is never cut off."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", pad_inches=0.1)
    return buffer.getvalue()


def save_png(fig: Figure, path: str | os.PathLike[str], *, dpi: int = 110) -> pathlib.Path:
    """Writes the figure to ``path`` as a PNG; returns the path."""
    p = pathlib.Path(os.fspath(path))
    p.write_bytes(png_bytes(fig, dpi=dpi))
    return p


def unit_of(column: str) -> tuple[str, float]:
    """(axis unit, scale) guessed from a column's suffix."""
    if column.endswith("_ms"):
        return "ms", 1.0
    if column.endswith("_s") or column.endswith("_seconds"):
        return "s", 1.0
    if column.endswith(("ratio", "_rate", "availability")):
        return "%", 100.0
    if column.endswith("errors"):
        return "requests", 1.0
    return "", 1.0
