"""Small layout pieces every page uses."""

from __future__ import annotations

from dash import html

__all__ = ["field"]


def field(label: str, component) -> html.Div:
    """A labelled control on one row."""
    return html.Div(className="row", children=[html.Label(label, className="label"), component])
