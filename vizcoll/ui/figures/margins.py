"""Margins wide enough at once, so that Plotly draws a figure once.

Plotly starts a figure with the margins its layout gives and then pushes them out for what must fit around the
plot: the names on an axis, a colour bar with its title, the x axis's labels and title, a legend below. A margin
pushed out after the first draw makes Plotly draw the whole figure again. That second draw was about half the
time of drawing the 1,570-node cluster's overview (issue 23, its 1,038 link bundles drawn once; measured:
docs/design.md), and every figure with a legend below or an axis title paid it.

:func:`seeded` estimates those pushes from the figure's texts, with the widths of Arial's characters (the font
Chromium draws Plotly's default "Open Sans, verdana, arial" with where Open Sans and Verdana are not installed,
as on Linux: Liberation Sans has Arial's widths), a little wider, and the sizes Plotly gives them (measured in
Chromium, issue 23: a legend row is 19 px, an x axis with labels and a title 51 px, a colour bar 20 px beside
its title's width or 42 px beside its labels'). Plotly still pushes out a margin the estimate left short (a
wider font): it then draws the figure twice, as before, and never cuts a text.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

__all__ = ["text_px", "legend_px", "seeded"]

# Arial's widths, in ems, by kind of character (digits and most lower-case letters are 0.556 em wide)
NARROW, WIDE, UPPER, OTHER = 0.3, 0.85, 0.68, 0.56
NARROW_CHARS, WIDE_CHARS = frozenset("fijlrtI.,:;'|!()[] "), frozenset("mwMW@%")
SAFETY = 1.05  # the estimate a little wider than Arial, for the fonts that are
SLACK = 4  # pixels each seeded side keeps free beyond the estimate
TICK_SIZE, TITLE_SIZE = 12, 14  # Plotly's axis-label and axis-title font sizes
LEGEND_ROW, LEGEND_PAD = 19, 10  # a horizontal legend's height: 19 px a row, 10 more in all
X_AXIS, X_AXIS_UNTITLED = 51, 30  # what an x axis's labels (and title) take below the plot
COLORBAR_TITLE, COLORBAR_LABELS = 20, 42  # a colour bar beside its title's width, or its labels' (pads, bar, ticks)
X_OVERHANG = 20  # the last label of an x axis reaches past the plot's right edge


def text_px(text: str, size: float) -> float:
    """The width of ``text`` in a ``size`` px font, estimated with Arial's widths (a little wider)."""
    ems = sum(
        NARROW if c in NARROW_CHARS else WIDE if c in WIDE_CHARS else UPPER if c.isupper() else OTHER for c in str(text)
    )
    return ems * size * SAFETY


def legend_px(rows: int) -> int:
    """The height of a horizontal legend of ``rows`` rows."""
    return rows * LEGEND_ROW + LEGEND_PAD if rows else 0


def _colorbar_px(fig: go.Figure) -> float:
    """The width a colour bar takes right of the plot (its title's or its labels'); 0 without one."""
    widest = 0.0
    for trace in fig.data:
        bar, low, high = _colorbar(trace)
        if bar is None:
            continue
        title = bar.title.text if bar.title and bar.title.text else ""
        labels = "0" * (max(len(f"{low:g}"), len(f"{high:g}")) + 2)  # room for a decimal tick between them
        widest = max(widest, COLORBAR_TITLE + text_px(title, TITLE_SIZE), COLORBAR_LABELS + text_px(labels, TICK_SIZE))
    return widest


def _colorbar(trace):
    """(The colour bar a trace draws, its lowest and highest value) or (None, 0, 0)."""
    if trace.type == "heatmap" and trace.showscale is not False:
        return trace.colorbar, *_range(trace.zmin, trace.zmax, trace.z)
    marker = getattr(trace, "marker", None)
    if marker is not None and marker.showscale:
        return marker.colorbar, *_range(marker.cmin, marker.cmax, marker.color)
    return None, 0, 0


def _range(low, high, values) -> tuple[float, float]:
    if low is not None and high is not None:
        return float(low), float(high)
    try:
        data = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return 0.0, 0.0
    data = data[np.isfinite(data)]
    return (float(data.min()), float(data.max())) if data.size else (0.0, 0.0)


def _axis_names_px(axis) -> float:
    """The width of a y axis's widest name, when the figure names its ticks (``ticktext``); else 0."""
    if axis.visible is False or not axis.ticktext:
        return 0.0
    return max(text_px(name, TICK_SIZE) for name in axis.ticktext) + 10


def seeded(fig: go.Figure, base: dict, width: int, legend_rows: int) -> dict:
    """The margins for ``fig`` (a figure ``width`` px wide, a legend of ``legend_rows`` rows below its plot),
    from the ``base`` margins its builder gave (``l``, ``r``, ``b``): each side at least what Plotly would push
    it out to (see the module)."""
    layout = fig.layout
    left = max(base["l"], _axis_names_px(layout.yaxis) + SLACK)
    xaxis = layout.xaxis
    axis = 0 if xaxis.visible is False else X_AXIS if xaxis.title and xaxis.title.text else X_AXIS_UNTITLED
    bar = _colorbar_px(fig)
    right = bar + 0.02 * width if bar else X_OVERHANG if axis else 0
    right = max(base["r"], right + SLACK if right else 0)
    bottom = max(base["b"], axis) + legend_px(legend_rows) + (SLACK if legend_rows or axis else 0)
    return {"l": math.ceil(left), "r": math.ceil(right), "b": math.ceil(bottom)}
