"""Pages of features that are not built yet: each says so plainly and what it will show."""

from __future__ import annotations

from dash import dcc, html

__all__ = ["PLANNED", "layout"]

PLANNED = {
    "/erasure": ("Erasure codes",
                 "Erasure-coded storage over several data centres and the cross-data-centre traffic of a repair."),
}


def layout(path: str) -> html.Div:
    title, what = PLANNED[path]
    return html.Div(className="page planned", children=[
        html.H2(title),
        html.P(["Not built yet. This page will show: ", what]),
        html.P(["Meanwhile, the ", dcc.Link("topology page", href="/topology"),
                " draws fabrics, communicators and a broadcast animation."]),
    ])
