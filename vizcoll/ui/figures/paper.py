"""The "paper" theme of every export: a Plotly template and the pass that makes a page's figure print-ready.

:data:`TEMPLATE` (registered as ``plotly.io.templates["paper"]``) is white, sans-serif (Liberation Sans /
Arial metrics, DejaVu Sans as fallback), with the Okabe–Ito colour-blind-safe colours as its colour way and
cividis as its colour scale. :func:`paper_figure` applies it to a figure a page builder made (the builders stay
the single source of every figure) and

- maps the app's saturated colours (matplotlib's tab10 blue, orange, green, red, purple, cyan and the gold of
  roots) to their Okabe–Ito counterparts (:data:`PAPER_COLOURS`), wherever they appear: traces, shapes,
  annotations, colour scales; red and green, which a deuteranope cannot tell apart, become vermillion and
  bluish green;
- raises every font below ``min_font`` px to it: at a figure's print size (1 px = 0.75 pt), 13.5 px is 10 pt;
- sets the size and, for print (``title=False``), drops the in-figure title (a paper gives it as the caption),
  puts the legend under the plot, lets the margins grow to what the axes need, wraps long axis titles and lets
  crowded tick labels turn.

Print sizes (:data:`COLUMN_WIDTH`, :data:`PAGE_WIDTH`) are those of a two-column paper: a figure one column
wide (3.5 in) or across the page (7 in), both at 96 px per inch.
"""

from __future__ import annotations

import copy

import plotly.graph_objects as go
import plotly.io as pio

from vizcoll.ui.figures.style import wrap

__all__ = [
    "TEMPLATE",
    "PAPER_COLOURS",
    "OKABE_ITO",
    "FONT_FAMILY",
    "MIN_FONT_PX",
    "COLUMN_WIDTH",
    "PAGE_WIDTH",
    "paper_colour",
    "paper_figure",
]

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
"""Okabe & Ito's colours (blue, orange, bluish green, vermillion, reddish purple, sky blue, yellow, black)."""
PAPER_COLOURS = {
    "#1f77b4": "#0072B2",
    "#ff7f0e": "#E69F00",
    "#2ca02c": "#009E73",
    "#d62728": "#D55E00",
    "#9467bd": "#CC79A7",
    "#17becf": "#56B4E9",
    "#f5b800": "#F0E442",
}
FONT_FAMILY = "Liberation Sans, Arial, DejaVu Sans, sans-serif"
MIN_FONT_PX = 13.5  # 10 pt at print size
COLUMN_WIDTH, PAGE_WIDTH = 336, 672  # 3.5 in and 7 in at 96 px per inch
FONT_KEYS = ("font", "textfont", "tickfont", "insidetextfont", "outsidetextfont", "hoverlabel")

TEMPLATE = go.layout.Template(
    layout={
        "font": {"family": FONT_FAMILY, "size": 14, "color": "#000000"},
        "title": {"font": {"size": 16}},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "colorway": OKABE_ITO,
        "colorscale": {"sequential": "cividis", "sequentialminus": "cividis"},
        "xaxis": {
            "showline": True,
            "linecolor": "#000000",
            "ticks": "outside",
            "gridcolor": "#e6e6e6",
            "zeroline": False,
        },
        "yaxis": {
            "showline": True,
            "linecolor": "#000000",
            "ticks": "outside",
            "gridcolor": "#e6e6e6",
            "zeroline": False,
        },
        "legend": {"bgcolor": "rgba(255,255,255,0)"},
    }
)
pio.templates["paper"] = TEMPLATE


def paper_colour(value):
    """The paper theme's colour for ``value`` (a colour of the app's palette), else ``value`` unchanged.

    >>> paper_colour("#D62728"), paper_colour("#b8c2cc")
    ('#D55E00', '#b8c2cc')
    """
    return PAPER_COLOURS.get(value.lower(), value) if isinstance(value, str) else value


def _same(value):
    return value


def _restyled(node, min_font: float, in_font: bool = False, recolour=paper_colour):
    """A copy of a figure's JSON with colours mapped (by ``recolour``) and fonts raised."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if in_font and key == "size" and isinstance(value, int | float):
                out[key] = max(value, min_font)
            elif in_font and key == "size" and isinstance(value, list):
                out[key] = [max(v, min_font) if isinstance(v, int | float) else v for v in value]
            else:
                out[key] = _restyled(value, min_font, key in FONT_KEYS, recolour)
        return out
    if isinstance(node, list):
        return [_restyled(value, min_font, in_font, recolour) for value in node]
    return recolour(node)


def _wrapped(text: str, px: float) -> str:
    """``text`` in lines of at most ``px`` pixels of a 14 px font (about 8.5 px a character)."""
    return wrap(" ".join(text.replace("<br>", " ").split()), max(int(px / 8.5), 16))


def _for_print(fig: go.Figure, width: int, height: int) -> None:
    """No title, the legend under the plot, margins as the axes need, long axis titles wrapped."""
    fig.update_layout(
        title=None,
        margin={"l": 10, "r": 10, "t": 20, "b": 10, "autoexpand": True},
        legend={
            "orientation": "h",
            "yref": "container",
            "y": 0,
            "yanchor": "bottom",
            "x": 0,
            "xanchor": "left",
            "title": {"side": "top"},
        },
    )
    for axes, room in ((fig.select_xaxes(), width), (fig.select_yaxes(), 0.55 * height)):
        for axis in axes:
            if axis.title.text:
                axis.title.text = _wrapped(axis.title.text, room)
            axis.automargin = True
    fig.update_xaxes(tickangle=None)


def paper_figure(
    fig: go.Figure,
    width: int,
    height: int | None = None,
    title: bool = True,
    min_font: float = MIN_FONT_PX,
    app_colours: bool = False,
) -> go.Figure:
    """``fig`` in the paper theme at ``width`` x ``height`` px (``height``: the figure's own, else 0.6 of the
    width); ``title=False`` prepares it for print (see the module); ``app_colours`` keeps the app's colours (an
    animation shown to a class looks as the page does: issue 46). The page's figure is not changed."""
    data = _restyled(copy.deepcopy(fig.to_plotly_json()), min_font, recolour=_same if app_colours else paper_colour)
    for i, trace in enumerate(data.get("data", [])):
        trace["uid"] = f"trace{i}"  # not a random one: the same figure draws the same SVG
    out = go.Figure(data)
    own = out.layout.height
    out.update_layout(
        template="paper", width=width, height=height or own or round(0.6 * width), font={"family": FONT_FAMILY}
    )
    if not title:
        _for_print(out, width, out.layout.height)
    return out
