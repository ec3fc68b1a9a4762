"""What every figure builder shares: the blank figure that says why there is nothing to draw (the layout rules of
every figure are :mod:`vizcoll.ui.figures.style`)."""

from __future__ import annotations

import plotly.graph_objects as go

from vizcoll.ui.figures.style import HALF, title_chars, wrap

__all__ = ["blank_figure"]


def blank_figure(text: str = "", height: int = 320) -> go.Figure:
    """A blank figure of ``height`` pixels saying ``text`` (nothing to draw yet, or why not), wrapped to fit the
    narrowest figure of a page (each break keeps its space: the page's text reads "the message above")."""
    return go.Figure().update_layout(
        height=height,
        plot_bgcolor="white",
        xaxis={"visible": False},
        yaxis={"visible": False},
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        annotations=[
            {"text": wrap(text, title_chars(HALF, 14)), "showarrow": False, "font": {"size": 14, "color": "#555"}}
        ],
    )
