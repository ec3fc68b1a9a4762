"""Pure views of the topology page: the counts bar and the legend of the drawing."""

from __future__ import annotations

from dash import html

from vizcoll.topology.model import Topology

__all__ = ["counts_text", "legend_items"]

LEGEND = [("switch", "legend-switch"), ("end node", "legend-endpoint"), ("broken link", "legend-broken"),
          ("root", "legend-root"), ("packet on the move", "legend-active"), ("has the packet", "legend-received"),
          ("unreachable", "legend-unreachable")]


def counts_text(topo: Topology) -> list:
    """The counts bar: switches, end nodes, links, broken links and the most ports of a node."""
    s = topo.summary()
    parts = [("switch", "switches", s["switches"]), ("end node", "end nodes", s["endpoints"]),
             ("link", "links", s["links"]), ("broken link", "broken links", s["broken_links"]),
             ("max ports", "max ports", s["max_ports"])]
    return [html.Span([html.B(f"{value:,}"), f" {one if value == 1 else many}"], className="count")
            for one, many, value in parts]


def legend_items() -> list:
    """The legend of the drawing and of the broadcast's states."""
    return [html.Span([html.Span(className=f"swatch {cls}"), label]) for label, cls in LEGEND]
