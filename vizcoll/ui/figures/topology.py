"""Pure builders: topology (and a player state) -> cytoscape elements / stylesheet or a Plotly figure.

Small fabrics are drawn node by node with dash-cytoscape (preset positions from
:mod:`vizcoll.topology.layout`); fabrics above :data:`SMALL_LIMIT` nodes are
drawn as their blocks and bundles of links (:mod:`vizcoll.ui.figures.blocks`),
and one group of them alone on the canvas, so the page stays responsive at
tens of thousands of nodes.

Parallel cables (two or more links between the same two nodes) are drawn as
distinct curves, as on the Plotly figures (:mod:`vizcoll.ui.figures.efi`):
each carries the class ``parallel`` and its own bend (``data.bend``, the
distance of its control point from the straight line, for cytoscape's
``unbundled-bezier``), so that every cable keeps its own colour, its own
hover and its own click. The bends are computed here rather than left to
cytoscape's bundled ``bezier``, whose order follows the canvas's internal
element order (it changes with edits): a cable is always on the same side,
on the page and in the static export
(:func:`vizcoll.ui.figures.cytoscape.drawing_figure`).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from vizcoll.topology.blocks import bundles
from vizcoll.topology.layout import positions, unit
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology
from vizcoll.ui.figures.blocks import blocks_figure
from vizcoll.ui.figures.captions import FONT, FONT_FAMILY, MIN_FONT, NODE_BOX, fitted_captions, node_hovers
from vizcoll.ui.figures.efi import BOW, CURVE_POINTS, parallel_cables
from vizcoll.ui.figures.fabric import view_figure
from vizcoll.ui.figures.labels import free_sides, switches_first
from vizcoll.ui.figures.style import FULL, ColourScale
from vizcoll.ui.limits import DRAWN_NODES
from vizcoll.words import plural

__all__ = [
    "SMALL_LIMIT",
    "PALETTE",
    "STATE_COLOURS",
    "BROKEN",
    "SWITCH_COLOUR",
    "END_NODE_COLOUR",
    "ACTIVE_COLOUR",
    "canvas_layout",
    "edge_id",
    "links_selector",
    "cytoscape_elements",
    "base_stylesheet",
    "state_stylesheet",
    "fabric_drawing",
]

SMALL_LIMIT = DRAWN_NODES  # the reason: vizcoll.ui.limits
# communicator fills: no orange, green, red or gold, which the player uses for packets and states
PALETTE = [
    "#1f77b4",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#aec7e8",
    "#c5b0d5",
    "#c49c94",
    "#f7b6d2",
    "#9edae5",
    "#dbdb8d",
    "#006d77",
    "#3d405b",
    "#b5838d",
    "#6d6875",
]
STATE_COLOURS = {
    "root": "#f5b800",
    "received": "#2ca02c",
    "forwarding": "#2ca02c",
    "done": "#2ca02c",
    "unreachable": "#d62728",
}
BROKEN = "#d62728"
SWITCH_COLOUR, END_NODE_COLOUR, ACTIVE_COLOUR = "#4a6fa5", "#9aa5b1", "#ff7f0e"
CAPTION_CLASSES = {"top center": " caption-above", "middle right": " caption-right", "middle left": " caption-left"}
CANVAS_GAP = 14  # px between the middles of two neighboring parallel cables on the canvas (before zooming)


def _pixel_positions(topo: Topology, pos: np.ndarray | None = None) -> np.ndarray:
    """Layout positions (``pos``, default :func:`positions`) on the canvas, y downwards: nodes of the most crowded
    rows :data:`SPACING` px apart, or closer (down to :data:`MIN_SPACING`) so that the drawing fits
    :data:`CANVAS` at about its own size, where its captions are readable."""
    pos = positions(topo) if pos is None else np.asarray(pos, dtype=float)
    step = unit(pos)
    span = (pos.max(axis=0) - pos.min(axis=0)) / step if len(pos) else np.ones(2)
    fit = min(CANVAS[0] / max(span[0], 1e-9), CANVAS[1] / max(span[1], 1e-9))
    return pos * (min(SPACING, max(MIN_SPACING, fit)) / step) * np.array([1.0, -1.0])


SPACING, MIN_SPACING = 45, 14  # px between neighboring nodes of a crowded row on the canvas (before zooming)
CANVAS = (840, 500)  # px a canvas of the pages offers a drawing at 1280 px wide


def canvas_layout(fabric: str) -> dict:
    """A cytoscape canvas's ``layout``: the nodes at their given positions, fitted to the canvas. ``fabric`` (a
    key of the drawn fabric) makes the layout differ, so the canvas fits again, only when the fabric does."""
    return {"name": "preset", "fit": True, "padding": 30, "fabric": fabric}


def edge_id(topo: Topology, row: int) -> str:
    """The cytoscape id of link ``row``: ``l<link id>-<a>-<b>`` (its ends' node indices). Two fabrics reuse
    link ids; with its ends in the id, an id always names the same pair of node ids, so a canvas that draws
    another fabric never keeps an edge whose old ends it removed (select links with :func:`links_selector`)."""
    return f"l{int(topo.link_id[row])}-{int(topo.link_a[row])}-{int(topo.link_b[row])}"


def links_selector(link_ids) -> str:
    """A cytoscape selector of the edges of these link ids (``edge[link = 5], edge[link = 9]``)."""
    return ", ".join(f"edge[link = {int(lid)}]" for lid in link_ids)


def _bends(topo: Topology, pixels: np.ndarray) -> np.ndarray:
    """Each link's bend on the canvas (0 for a cable alone): cytoscape's ``unbundled-bezier`` puts its control
    point this far from the middle of its ends, along the normal ``(-dy, dx)`` of its own direction (source ->
    target, y downwards); the curve's middle is half-way there, :data:`CANVAS_GAP` px times its lane
    (:func:`~vizcoll.ui.figures.efi.parallel_cables`) off the straight line (at most :data:`~vizcoll.ui.
    figures.efi.BOW` of its length), on the side the Plotly figures draw it."""
    lanes, _ = parallel_cables(topo)
    bends = np.zeros(topo.n_links)
    rows = np.flatnonzero(lanes != 0)
    d = pixels[topo.link_b[rows]] - pixels[topo.link_a[rows]]
    length = np.hypot(d[:, 0], d[:, 1])
    shift = np.clip(lanes[rows] * CANVAS_GAP, -BOW * length, BOW * length)
    # the figures' side, (-dy, dx) from the smaller node index with y upwards, is the other side here (y downwards)
    bends[rows] = 2 * shift * np.where(topo.link_a[rows] < topo.link_b[rows], -1.0, 1.0)
    return bends


def cytoscape_elements(
    topo: Topology, colour_of: dict[int, int] | None = None, pos: np.ndarray | None = None
) -> list[dict]:
    """Nodes ``n<index>`` at ``pos`` (default :func:`positions`; ``data.label`` = the node's name,
    ``data.caption`` = what is written under it, see :func:`fitted_captions`, ``data.hover`` = its name,
    description and GUID, see :func:`node_hovers`) and edges :func:`edge_id`
    (``data.link`` = the link id, ``data.name`` = its ``a[pa]-b[pb]`` label); ``colour_of`` maps node ->
    communicator. A parallel cable has the class ``parallel``, its bend (``data.bend``, see :func:`_bends`) and
    a hover saying which of the cables it is (``data.hover``)."""
    pixels = _pixel_positions(topo, pos)
    colour_of = colour_of or {}
    nodes = []
    bends = _bends(topo, pixels)
    fitted = fitted_captions(topo, pixels)
    half = np.where((topo.kind == SWITCH)[:, None], NODE_BOX[SWITCH], NODE_BOX[ENDPOINT]) / 2
    sides = free_sides(pixels, half, fitted, _canvas_lines(topo, pixels, bends), switches_first(topo, pixels))
    texts = zip(topo.names, fitted, sides, node_hovers(topo), strict=True)
    for i, (name, fit, side, hover) in enumerate(texts):
        caption = fit if side else ""
        classes = ("switch" if topo.kind[i] == SWITCH else "endpoint") + CAPTION_CLASSES.get(side, "")
        if i in colour_of:
            classes += f" comm{colour_of[i] % len(PALETTE)}"
        nodes.append(
            {
                "data": {"id": f"n{i}", "label": name, "caption": caption, "hover": hover},
                "classes": classes,
                "position": {"x": float(pixels[i, 0]), "y": float(pixels[i, 1])},
            }
        )
    return nodes + _edges(topo, bends)


def _canvas_lines(topo: Topology, pixels: np.ndarray, bends: np.ndarray) -> np.ndarray:
    """The links as the canvas draws them (px, NaN between links): a straight line, or a parallel cable's curve
    through its control point ``bends`` px off its middle (:func:`_bends`)."""
    a, b = pixels[topo.link_a], pixels[topo.link_b]
    d = b - a
    normal = np.c_[-d[:, 1], d[:, 0]] / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)[:, None]
    control = (a + b) / 2 + bends[:, None] * normal
    t = np.linspace(0.0, 1.0, CURVE_POINTS if np.any(bends) else 2)[None, :, None]
    curves = (1 - t) ** 2 * a[:, None] + 2 * t * (1 - t) * control[:, None] + t**2 * b[:, None]
    return np.concatenate([curves, np.full((len(a), 1, 2), np.nan)], axis=1).reshape(-1, 2)


def _edges(topo: Topology, bends: np.ndarray) -> list[dict]:
    """The edges of :func:`cytoscape_elements` (``bends``: :func:`_bends`)."""
    is_global = topo.link_attrs.get("global", np.zeros(topo.n_links, dtype=int))
    lanes, counts = parallel_cables(topo)
    edges = []
    for row in range(topo.n_links):
        lid = int(topo.link_id[row])
        a, b = int(topo.link_a[row]), int(topo.link_b[row])
        classes = "broken" if topo.broken[row] else ("global" if is_global[row] == 1 else "")
        data = {
            "id": edge_id(topo, row),
            "source": f"n{a}",
            "target": f"n{b}",
            "link": lid,
            "name": topo.link_label(row),
            "label": f"link {lid}: {topo.names[a]}[{topo.link_pa[row]}] – {topo.names[b]}[{topo.link_pb[row]}]",
        }
        if counts[row] > 1:
            classes = f"{classes} parallel".lstrip()
            data["bend"] = round(float(bends[row]), 2)
            data["hover"] = (
                f"{data['label']} · cable {int(lanes[row] + (counts[row] + 1) / 2)} of {counts[row]} between these two"
            )
        edges.append({"data": data, "classes": classes})
    return edges


def base_stylesheet() -> list[dict]:
    """Shapes and colours: switches, end nodes, broken / global links, parallel cables each on its own curve
    (:func:`_bends`), communicator colours."""
    sheet = [
        {
            "selector": "node",
            "style": {
                "label": "data(caption)",
                "font-size": FONT,
                "font-family": FONT_FAMILY,
                "text-valign": "bottom",
                "text-margin-y": 2,
                "color": "#333",
                "min-zoomed-font-size": MIN_FONT,
            },
        },
        {
            "selector": ".switch",
            "style": {"shape": "round-rectangle", "width": 22, "height": 14, "background-color": SWITCH_COLOUR},
        },
        {
            "selector": ".endpoint",
            "style": {"shape": "ellipse", "width": 12, "height": 12, "background-color": END_NODE_COLOUR},
        },
        {"selector": "edge", "style": {"width": 1.5, "line-color": "#b8c2cc", "curve-style": "bezier"}},
        {
            "selector": ".parallel",
            "style": {
                "curve-style": "unbundled-bezier",
                "control-point-distances": "data(bend)",
                "control-point-weights": 0.5,
                "edge-distances": "node-position",
            },
        },
        # a caption goes on the first side of its node that no link crosses (vizcoll.ui.figures.labels), below
        # by default
        {"selector": ".caption-above", "style": {"text-valign": "top", "text-margin-y": -2}},
        {
            "selector": ".caption-right",
            "style": {"text-valign": "center", "text-halign": "right", "text-margin-x": 2, "text-margin-y": 0},
        },
        {
            "selector": ".caption-left",
            "style": {"text-valign": "center", "text-halign": "left", "text-margin-x": -2, "text-margin-y": 0},
        },
        {"selector": ".global", "style": {"line-color": "#7f7f7f", "line-style": "dotted"}},
        {
            "selector": ".broken",
            "style": {
                "line-color": BROKEN,
                "line-style": "dashed",
                "width": 3,
                "target-arrow-shape": "none",
                "source-label": "✕",
            },
        },
        {"selector": ":selected", "style": {"border-width": 3, "border-color": "#000"}},
    ]
    sheet += [{"selector": f".comm{c}", "style": {"background-color": colour}} for c, colour in enumerate(PALETTE)]
    return sheet


def state_stylesheet(state: dict, active_links: list[int], active_nodes: list[int]) -> list[dict]:
    """Rules layered over :func:`base_stylesheet` for one step of a timeline on the topology.

    ``state`` maps ``"n<index>"`` to a state name. States show as a thick
    coloured ring (``STATE_COLOURS``) so communicator colours stay visible;
    the links and receiving nodes of the current step are highlighted.
    """
    by_state: dict[str, list[str]] = {}
    for entity, value in state.items():
        by_state.setdefault(str(value), []).append(f"#{entity}")
    sheet = [
        {"selector": ", ".join(members), "style": {"border-width": 4, "border-color": STATE_COLOURS.get(value, "#888")}}
        for value, members in sorted(by_state.items())
        if value != "waiting"
    ]
    if "unreachable" in by_state:
        sheet.append(
            {
                "selector": ", ".join(by_state["unreachable"]),
                "style": {"shape": "diamond", "background-color": STATE_COLOURS["unreachable"]},
            }
        )
    if active_links:
        sheet.append(
            {
                "selector": links_selector(active_links),
                "style": {"line-color": ACTIVE_COLOUR, "width": 5, "z-index": 10},
            }
        )
    if active_nodes:
        sheet.append(
            {
                "selector": ", ".join(f"#n{n}" for n in active_nodes),
                "style": {"border-width": 5, "border-color": ACTIVE_COLOUR},
            }
        )
    return sheet


def fabric_drawing(
    view, topo: Topology, colour_of: dict[int, int] | None = None
) -> tuple[list[dict], go.Figure | None]:
    """(cytoscape elements, Plotly figure) of the part of the fabric ``view`` shows (a :class:`~vizcoll.ui.models.
    parts.FabricView`): its nodes and links on the canvas (a group alone: its nodes keep the fabric's names, and
    ``colour_of``, fabric node -> communicator, follows them) up to :data:`SMALL_LIMIT` nodes; else a figure: the
    overview's blocks and bundles of links (sized by their links; a red ✕: some broken), or a large group's links
    (broken ones marked)."""
    if view.overview is not None:
        s = topo.summary()
        title = (
            f"{plural(s['switches'], 'switch')}, {plural(s['endpoints'], 'end node')} and "
            f"{plural(s['links'], 'link')}, grouped: click a block (or choose above) to draw its group alone"
        )
        if view.part != "overview":  # a part too large to draw node by node: its own blocks, the rest as one
            title = f"{view.name} alone, grouped: click a block (or choose above) to draw its part alone"
        return [], blocks_figure(view.overview, bundles(topo, view.overview), title, width=FULL, animated=True)
    if view.topo.n_nodes <= SMALL_LIMIT:
        index = {int(n): i for i, n in enumerate(view.kept.tolist())}
        colours = {index[n]: c for n, c in (colour_of or {}).items() if n in index}
        return cytoscape_elements(view.topo, colours, view.pos), None
    return [], view_figure(
        view,
        topo.broken.astype(float),
        f"{view.name} alone: {plural(view.topo.n_nodes, 'node')}",
        ColourScale("broken"),
        width=FULL,
    )
