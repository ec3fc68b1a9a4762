"""/topology: its figure pack and player (the broadcast from the root).

Registered in :mod:`vizcoll.ui.export.names`. The page's own builders on the page's cached model calls for the
scenario as the page opens, tables from the engine's results; :mod:`vizcoll.ui.export.packs` writes the ZIP,
:mod:`vizcoll.ui.export.animation` the GIF/MP4.
"""

from __future__ import annotations

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.ui.export.animation import Animation
from vizcoll.ui.export.animations import drawing_animation, overview_animation
from vizcoll.ui.export.packs import Pack, PackFigure, PackTable, drawn, link_table, timeline_table
from vizcoll.ui.figures.topology import base_stylesheet, fabric_drawing
from vizcoll.ui.models.parts import drawn_view, natural_part, view_of
from vizcoll.ui.pages.topology._model import ANIMATION_LIMIT, broadcast_timeline, communicator_colours, root_of
from vizcoll.ui.pages.topology._views import LEGEND, broadcast_stylesheet
from vizcoll.ui.store import positions_of, topology_of

__all__ = ["topology_pack", "topology_animation"]


def _nodes_table(topo, pos, colours: dict, final: dict) -> PackTable:
    rows = [
        [
            i,
            name,
            "switch" if i in set(topo.switches.tolist()) else "end node",
            float(pos[i, 0]),
            float(pos[i, 1]),
            colours.get(i, ""),
            final.get(name, ""),
        ]
        for i, name in enumerate(topo.names)
    ]
    return PackTable(
        "nodes",
        "Every node of the fabric.",
        [
            ("index", "the node's index"),
            ("name", "its name"),
            ("kind", "switch or end node"),
            ("x", "its position in the drawing (layout units)"),
            ("y", "its position in the drawing (layout units)"),
            ("communicator", "the first communicator it hosts (empty: none)"),
            ("broadcast_state", "its state when the broadcast has ended"),
        ],
        rows,
    )


def topology_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    topo = topology_of(scenario)
    try:
        colours, _ = communicator_colours(scenario, topo)
    except VizcollError:
        colours = {}
    pack = Pack("topology", "Topology")
    pack.tables.append(link_table("links", "Every link of the fabric.", topo, {}))
    root = root_of(scenario, topo)
    tl = Timeline.from_dict(broadcast_timeline(scenario.source_key(), root)) if root else None
    pack.tables.insert(0, _nodes_table(topo, positions_of(scenario), colours, tl.final_state if tl else {}))
    whole = view_of(scenario, natural_part(topo))
    elements, figure = fabric_drawing(whole, topo, colours)
    if figure is not None:
        pack.figures.append(
            PackFigure(
                "fabric", f"The fabric {scenario.title} as the page draws it: its blocks and bundles of links.", figure
            )
        )
    else:
        pack.figures.append(
            drawn(
                "fabric",
                f"The fabric {scenario.title}: switches (squares), end nodes coloured "
                "by their first communicator, broken links dashed.",
                elements,
                base_stylesheet(),
            )
        )
        if tl is not None:
            pack.figures.append(
                drawn(
                    "broadcast-end",
                    f"{tl.title}: every node's state once the broadcast has "
                    "ended (ring: received; diamond: unreachable).",
                    elements,
                    broadcast_stylesheet(tl.to_dict(), tl.n_steps),
                )
            )
            pack.tables.append(
                timeline_table("broadcast-messages", f"{tl.title}: every message, hop by hop.", tl, topo.names)
            )
    view = drawn_view(scenario, "topology")
    if view.part != whole.part:  # the group the page draws alone, after the whole fabric
        name, caption = "fabric-" + view.part.replace(":", ""), f"{view.name} of {scenario.title}, drawn alone."
        part_elements, part_figure = fabric_drawing(view, topo, colours)
        pack.figures.append(
            PackFigure(name, caption, part_figure)
            if part_figure is not None
            else drawn(name, caption, part_elements, base_stylesheet())
        )
    return pack


def topology_animation(scenario: Scenario, extra=None) -> Animation:
    """/topology: the broadcast along a shortest-path tree from the scenario's root, on what the page draws (the
    whole fabric or a group alone node by node, a large fabric's overview)."""
    topo = topology_of(scenario)
    root = root_of(scenario, topo)
    if root is None:
        raise VizcollError("the fabric has no node to start a broadcast from")
    timeline = broadcast_timeline(scenario.source_key(), root)
    view = drawn_view(scenario, "topology")
    if view.overview is not None:
        return overview_animation(
            "vizcoll-topology-broadcast", timeline, topo, view.overview, fabric_drawing(view, topo)[1]
        )
    if view.topo.n_nodes > ANIMATION_LIMIT:
        raise VizcollError(
            f"a part of more than {ANIMATION_LIMIT:,} nodes is drawn without the animation: choose "
            "the overview or a smaller part"
        )
    try:
        colours, _ = communicator_colours(scenario, topo)
    except VizcollError:
        colours = {}
    drawn = {**timeline, "nodes": view.kept.tolist()}
    elements = fabric_drawing(view, topo, colours)[0]
    return drawing_animation(
        "vizcoll-topology-broadcast",
        timeline,
        elements,
        lambda position: broadcast_stylesheet(drawn, position),
        LEGEND,
    )
