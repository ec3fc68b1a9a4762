"""What every figure builder shares: the blank figure that says why there is nothing to draw, and the title frame."""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["blank_figure", "framed"]


def blank_figure(text: str = "", height: int = 320) -> go.Figure:
    """A blank figure of ``height`` pixels saying ``text`` (nothing to draw yet, or why not)."""
    return go.Figure().update_layout(
        height=height, plot_bgcolor="white", xaxis={"visible": False}, yaxis={"visible": False},
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        annotations=[{"text": text, "showarrow": False, "font": {"size": 14, "color": "#555"}}])


def framed(fig: go.Figure) -> go.Figure:
    """Title below the modebar (left-aligned, in the top margin), so neither hides the other."""
    return fig.update_layout(title={"x": 0.01, "xanchor": "left", "yref": "container", "y": 1, "yanchor": "top",
                                    "pad": {"t": 30}, "automargin": True, "font": {"size": 15}})
