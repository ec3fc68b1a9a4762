"""Pure views of the topology page: the counts bar, the legend of the drawing and the broadcast's step."""

from __future__ import annotations

import numpy as np
from dash import html

from vizcoll.scenario import Scenario
from vizcoll.sim.overview import overview_frames
from vizcoll.topology.analysis import cut_cause
from vizcoll.topology.model import Topology
from vizcoll.ui.cache import cached, timelines
from vizcoll.ui.components.legend import Key, legend_spans
from vizcoll.ui.components.player import player_data, timeline_at
from vizcoll.ui.figures.topology import (
    ACTIVE_COLOUR,
    BROKEN,
    END_NODE_COLOUR,
    STATE_COLOURS,
    SWITCH_COLOUR,
    base_stylesheet,
    state_stylesheet,
)
from vizcoll.ui.limits import BROADCAST_MAX_NODES
from vizcoll.ui.models.parts import drawn_view, view_of
from vizcoll.ui.pages.topology._model import ANIMATION_LIMIT, PAGE, broadcast_of, root_of
from vizcoll.ui.store import topology_of
from vizcoll.words import noun, plural

__all__ = ["LEGEND", "counts_text", "legend_items", "broadcast_stylesheet", "broadcast_player", "broadcast_handle"]

LEGEND = [
    Key("switch", "square", SWITCH_COLOUR),
    Key("end node", "dot", END_NODE_COLOUR),
    Key("broken link", "dashed", BROKEN),
    Key("root", "ring", STATE_COLOURS["root"]),
    Key("packet on the move", "line", ACTIVE_COLOUR),
    Key("has the packet", "ring", STATE_COLOURS["received"]),
    Key("unreachable", "diamond", STATE_COLOURS["unreachable"]),
]


def counts_text(topo: Topology) -> list:
    """The counts bar: switches, end nodes, links, broken links and the most ports of a node."""
    s = topo.summary()
    counted = [
        ("switch", s["switches"]),
        ("end node", s["endpoints"]),
        ("link", s["links"]),
        ("broken link", s["broken_links"]),
    ]
    parts = [(noun(value, word), value) for word, value in counted] + [("max ports", s["max_ports"])]
    return [html.Span([html.B(f"{value:,}"), f" {words}"], className="count") for words, value in parts]


def legend_items() -> list:
    """The legend of the drawing and of the broadcast's states (:data:`LEGEND`)."""
    return legend_spans(LEGEND)


def broadcast_player(scenario: Scenario) -> tuple[dict | None, str]:
    """(The player's data, a line) of the broadcast from the scenario's root, on what the page draws: the whole
    fabric, or a group alone, node by node (the handle's ``nodes``: the fabric's node of each drawn node); a large
    fabric's overview, its blocks and bundles lit step by step (the handle's ``overview`` frames). The handle is
    cached (:func:`broadcast_handle`), its timeline put back in the shared cache should that have let it go."""
    topo = topology_of(scenario)
    root = root_of(scenario, topo)
    if root is None:
        return None, "The fabric has no node to start a broadcast from."
    if topo.n_nodes > BROADCAST_MAX_NODES:
        return None, (
            f"The broadcast is played on fabrics of up to {BROADCAST_MAX_NODES:,} nodes (this one has "
            f"{topo.n_nodes:,}): its timeline names every node."
        )
    handle, info = broadcast_handle(scenario.source_key(), root, drawn_view(scenario, PAGE).part)
    if handle is not None and not timelines.holds(handle["ref"]):  # the same broadcast puts it back (same ref)
        player_data(broadcast_of(scenario.source_key(), root))
    return handle, info


def unreachable_cause(topo, unreachable: int) -> str:
    """Why a broadcast left nodes unreached: the fabric's own parts as loaded, or the broken links."""
    cause = cut_cause(topo, np.arange(topo.n_nodes), "node") if unreachable else None
    return f": {cause}" if cause else ""


@cached
def broadcast_handle(source: dict, root: str, part: str) -> tuple[dict | None, str]:
    """(The player's handle or None, the line) of the broadcast from ``root`` on ``part`` of the source's fabric
    (see :func:`broadcast_player`; cached: a paper-scale fabric's handle, its captions and the overview's frames
    take longer than the broadcast itself); its timeline waits in the shared cache
    (:func:`~vizcoll.ui.components.player.player_data`)."""
    scenario = Scenario(**source)
    timeline = broadcast_of(source, root)
    s = timeline.summary
    info = (
        f"From {root}: {plural(s['reached'], 'node')} reached in {plural(s['hops'], 'hop')} with "
        f"{plural(s['messages'], 'message')}; "
        f"{s['unreachable']:,} unreachable{unreachable_cause(topology_of(scenario), s['unreachable'])}."
    )
    view = view_of(scenario, part)
    if view.overview is not None:
        frames = overview_frames(timeline, topology_of(scenario), view.overview)
        return (
            player_data(timeline, overview=frames),
            info + " Played on the overview: a bundle lights with the "
            "packets crossing it, a block with its nodes receiving.",
        )
    if view.topo.n_nodes > ANIMATION_LIMIT:
        return (
            None,
            info + f" (a part of more than {ANIMATION_LIMIT:,} nodes is drawn without the animation: "
            "choose the overview or a smaller part)",
        )
    return player_data(timeline, nodes=view.kept.tolist()), info


def broadcast_stylesheet(timeline: dict | None, position) -> list[dict]:
    """The drawing's stylesheet at player ``position``: node states, the links and receivers of this hop (on the
    nodes the player's ``nodes`` name, when the drawing shows a part of the fabric)."""
    sheet = base_stylesheet()
    if not timeline:
        return sheet
    tl, step = timeline_at(timeline, position)
    drawn = timeline.get("nodes") if isinstance(timeline, dict) else None
    at = {int(n): i for i, n in enumerate(drawn)} if isinstance(drawn, list) else None
    drawn_index = (lambda node: node) if at is None else (lambda node: at.get(node, -1))  # noqa: E731
    events = tl.active_at(step) if step >= 0 else []
    links = [lid for e in events for lid in e.path_links]
    receivers = [drawn_index(e.dst) for e in events if e.dst >= 0]
    state = {}
    for key, value in tl.state_at(step).items():
        node = drawn_index(tl.entities[key]["node"]) if key in tl.entities else -1
        if node >= 0:
            state[f"n{node}"] = value
    return sheet + state_stylesheet(state, links, [r for r in receivers if r >= 0])
