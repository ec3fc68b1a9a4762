"""The start page ``/``: the topology page with a banner that explains the default scenario (not in the navbar)."""

from __future__ import annotations

from dash import html

from vizcoll.ui.pages.topology import page as topology
from vizcoll.ui.routing import page_scenario, register_page

__all__ = ["layout"]


def layout(**kwargs) -> html.Div:
    """Dash's entry: the topology page and its banner (its callbacks are the topology page's)."""
    return topology.body(page_scenario(kwargs), banner=True)


register_page(__name__, layout, path="/", name="Start", order=0, nav=False)
