"""A drawing's legend as data, so that the page and its exports show the same one (issue 46: an exported GIF, MP4
or PNG carries the legend the page shows beside its canvas).

A :class:`Key` says how a mark looks (``mark``: one of :data:`MARKS`, in ``colour``) and what it means;
:func:`legend_spans` writes keys as the page's HTML swatches (``assets/style.css``), :func:`legend_traces` as
Plotly legend entries for an exported frame.
"""

from __future__ import annotations

from typing import NamedTuple

import plotly.graph_objects as go
from dash import html

__all__ = ["Key", "MARKS", "legend_spans", "legend_traces"]


class Key(NamedTuple):
    """One entry of a legend: a ``mark`` (one of :data:`MARKS`) in ``colour``, its ``label``, and a longer
    ``help`` shown on hover on the page."""

    label: str
    mark: str
    colour: str
    help: str = ""


_SWATCH = {  # mark -> (CSS classes, the style property the colour goes to)
    "square": ("swatch", "background"),
    "dot": ("swatch legend-endpoint", "background"),
    "ring": ("swatch ring", "borderColor"),
    "disc": ("swatch legend-root", "background"),
    "line": ("swatch bar-line", "background"),
    "dashed": ("swatch legend-broken", None),
    "diamond": ("swatch legend-unreachable", "background"),
}  # "dashed" is a broken link's swatch: red whatever the colour
MARKS = tuple(_SWATCH)
_PLOTLY = {  # mark -> (marker symbol or None for a line, line dash)
    "square": ("square", None),
    "dot": ("circle", None),
    "ring": ("circle-open", None),
    "disc": ("circle", None),
    "line": (None, "solid"),
    "dashed": (None, "dash"),
    "diamond": ("diamond", None),
}


def legend_spans(keys: list[Key]) -> list[html.Span]:
    """The keys as the page's legend: a swatch and a label each."""
    spans = []
    for key in keys:
        classes, prop = _SWATCH[key.mark]
        style = {prop: key.colour} if prop else {}
        if key.mark == "disc":
            style["borderColor"] = key.colour
        swatch = html.Span(className=classes, style=style)
        spans.append(html.Span([swatch, key.label], title=key.help) if key.help else html.Span([swatch, key.label]))
    return spans


def legend_traces(keys: list[Key], size: float = 14) -> list[go.Scatter]:
    """The keys as Plotly legend entries (traces with no point), their marks ``size`` px."""
    traces = []
    for key in keys:
        symbol, dash = _PLOTLY[key.mark]
        if symbol is None:
            line = {"color": key.colour, "width": 4, "dash": dash}
            traces.append(go.Scatter(x=[None], y=[None], mode="lines", name=key.label, line=line))
            continue
        line = {"color": key.colour, "width": 3} if key.mark == "ring" else {"width": 0}
        traces.append(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=key.label,
                marker={"symbol": symbol, "color": key.colour, "size": size, "line": line},
            )
        )
    return traces
