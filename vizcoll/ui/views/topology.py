"""Pure views of the topology page: the counts bar, the legend of the drawing and the broadcast's step."""

from __future__ import annotations

from dash import html

from vizcoll.topology.model import Topology
from vizcoll.ui.components.player import timeline_at
from vizcoll.ui.figures.topology import base_stylesheet, state_stylesheet

__all__ = ["counts_text", "legend_items", "broadcast_stylesheet"]

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


def broadcast_stylesheet(timeline: dict | None, position) -> list[dict]:
    """The drawing's stylesheet at player ``position``: node states, the links and receivers of this hop."""
    sheet = base_stylesheet()
    if not timeline:
        return sheet
    tl, step = timeline_at(timeline, position)
    events = tl.active_at(step) if step >= 0 else []
    links = [lid for e in events for lid in e.path_links]
    receivers = [e.dst for e in events if e.dst >= 0]
    state = {f"n{tl.entities[key]['node']}": value for key, value in tl.state_at(step).items()
             if key in tl.entities}
    return sheet + state_stylesheet(state, links, receivers)
