"""Pure builders for the trees page: the logical tree, a tree's packets on the fabric, F(k), type II trees, the player.

Every function takes plain engine results (a :class:`~vizcoll.trees.tree.Tree`,
``{link id: packets}`` dicts, a topology) and returns a Plotly figure or
cytoscape style rules; nothing here calls the engine's builders.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import plotly.graph_objects as go

from vizcoll.topology.blocks import bundles
from vizcoll.topology.layout import positions, stretched
from vizcoll.topology.model import Topology
from vizcoll.trees.cost import f_width, kopt
from vizcoll.trees.tree import Tree
from vizcoll.ui.figures.blocks import blocks_figure
from vizcoll.ui.figures.captions import node_hovers
from vizcoll.ui.figures.common import blank_figure
from vizcoll.ui.figures.efi import LinkHover, link_lines, link_value_figure
from vizcoll.ui.figures.style import ColourScale, ink, styled
from vizcoll.ui.figures.topology import PALETTE
from vizcoll.words import plural

__all__ = [
    "LOGICAL_LIMIT",
    "K_RANGE",
    "AGG_COLOURS",
    "tree_positions",
    "short_name",
    "logical_tree_figure",
    "Overlays",
    "packets_figure",
    "fk_figure",
    "aggregation_stylesheet",
    "state_category",
    "packets_on",
    "chosen_tree_figures",
    "type_two_figures",
]

LOGICAL_LIMIT = 512  # vertices drawn in the logical tree
NAMED_VERTICES = 40  # a logical tree this small gets each vertex's host name under it
NAME_CHARS = 14  # longer names are shortened on the drawings (hover texts keep them whole)
K_RANGE = (2, 128)  # widths on the F(k) curve
ROOT_COLOUR = "#f5b800"
CROSS_COLOUR = "#1f3a5f"
# player states of an aggregation (vizcoll.trees.aggregation) -> ring colour
AGG_COLOURS = {"value": "#1f77b4", "partial": "#9467bd", "sent": "#7f7f7f", "result": "#2ca02c", "blocked": "#d62728"}


# ---------------------------------------------------------------- the logical tree
def _bfs(tree: Tree, limit: int) -> list[int]:
    """The first ``limit`` vertices breadth-first (every parent comes before its children)."""
    order = [0] if tree.size else []
    for v in order:
        if len(order) >= limit:
            break
        order.extend(tree.children[v])
    return order[:limit]


def tree_positions(tree: Tree, shown: list[int] | None = None) -> dict[int, tuple[float, int]]:
    """``{vertex: (x, depth)}``: leaves 0, 1, 2, ... left to right in child order, parents centred over children."""
    keep = set(range(tree.size) if shown is None else shown)
    pos: dict[int, tuple[float, int]] = {}
    next_x = 0.0
    stack = [(0, 0, False)] if 0 in keep else []
    while stack:  # iterative post-order: children placed before their parent
        v, depth, done = stack.pop()
        kids = [c for c in tree.children[v] if c in keep]
        if done or not kids:
            if kids:
                pos[v] = (sum(pos[c][0] for c in kids) / len(kids), depth)
            else:
                pos[v], next_x = (next_x, depth), next_x + 1
            continue
        stack.append((v, depth, True))
        stack.extend((c, depth + 1, False) for c in reversed(kids))
    return pos


def short_name(name: str, limit: int = NAME_CHARS) -> str:
    """``name`` cut to ``limit`` characters (with an ellipsis) for a label on a drawing."""
    return name if len(name) <= limit else name[: limit - 1] + "…"


def logical_tree_figure(
    tree: Tree,
    group_of: list[str],
    title: str,
    hover: Callable[[int], str] | None = None,
    limit: int = LOGICAL_LIMIT,
    names: list[str] | None = None,
) -> go.Figure:
    """The tree drawn by depth: parent edges, vertices labelled by rank and coloured by ``group_of[v]``.

    Only the first ``limit`` vertices (breadth-first) are drawn on big trees;
    the title says so. ``hover(v)`` is vertex ``v``'s hover text (asked for the drawn vertices only).
    ``names[v]`` (the host of each vertex) is written under the vertices of a small tree (up to
    :data:`NAMED_VERTICES`).
    """
    if not tree.size:
        return blank_figure("No tree.", height=420)
    shown = _bfs(tree, limit)
    pos = tree_positions(tree, shown)
    xs, ys = [], []
    for v in shown[1:]:
        p = tree.parent[v]
        xs += [pos[p][0], pos[v][0], None]
        ys += [pos[p][1], pos[v][1], None]
    fig = go.Figure(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            line={"color": "#9fb3c8", "width": 1},
            name="tree edge (child → parent)",
            hoverinfo="skip",
        )
    )
    labels = {v: str(tree.label[v]).removeprefix("rank ") if len(tree.label) == tree.size else str(v) for v in shown}
    small = len(shown) <= 40
    groups = list(dict.fromkeys(group_of[v] for v in shown))
    if len(groups) <= len(PALETTE):
        for i, group in enumerate(groups):
            members = [v for v in shown if group_of[v] == group]
            fig.add_trace(_vertices(members, pos, labels, hover, small, PALETTE[i], f"{group} ({len(members)})"))
    else:
        colour = {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(groups)}
        trace = _vertices(shown, pos, labels, hover, small, "#4a6fa5", f"vertices ({plural(len(groups), 'group')})")
        trace.marker.color = [colour[group_of[v]] for v in shown]
        fig.add_trace(trace)
    if names is not None and small and len(shown) <= NAMED_VERTICES:
        fig.add_trace(
            go.Scatter(
                x=[pos[v][0] for v in shown],
                y=[pos[v][1] + 0.16 for v in shown],
                mode="text",
                text=[short_name(names[v]) for v in shown],
                textposition="bottom center",
                textfont={"size": 10, "color": "#52606d"},
                hoverinfo="skip",
                showlegend=False,
                name="host names",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[pos[0][0]],
            y=[pos[0][1]],
            mode="markers",
            name=f"root: rank {labels[0]}",
            marker={"symbol": "circle-open", "size": 30 if small else 16, "color": ROOT_COLOUR, "line": {"width": 3}},
            hoverinfo="skip",
        )
    )
    depth = max(p[1] for p in pos.values())
    cut = f" — first {len(shown):,} of {tree.size:,} vertices drawn" if len(shown) < tree.size else ""
    fig.update_layout(
        title={"text": title + cut},
        height=460,
        plot_bgcolor="white",
        hovermode="closest",
        margin={"l": 60, "r": 10, "b": 10},
        legend={"title": {"text": "colour = leaf switch of the process", "side": "top"}},
        xaxis={"visible": False},
        yaxis={
            "title": {"text": "depth (tree edges from the root)"},
            "autorange": "reversed",
            "tickmode": "array",
            "tickvals": list(range(depth + 1)),
            "zeroline": False,
            "range": [depth + (0.6 if names is not None and small else 0.4), -0.4],
        },
    )
    return styled(fig)


def _inks(colour):
    """The number written on each vertex: white or black, whichever reads better on its colour (one or a list)."""
    return [ink(c) for c in colour] if isinstance(colour, list | tuple) else ink(colour)


def _vertices(members, pos, labels, hover, small, colour, name) -> go.Scatter:
    many = len(pos) > 128
    return go.Scatter(
        x=[pos[v][0] for v in members],
        y=[pos[v][1] for v in members],
        mode="markers" if many else "markers+text",
        name=name,
        text=[labels[v] for v in members],
        textposition="middle center" if small else "top center",
        textfont={"size": 11 if small else 9, "color": _inks(colour) if small else "#1f2933"},  # in or beside
        marker={"size": 22 if small else (6 if many else 9), "color": colour, "line": {"width": 0}},
        hovertext=[hover(v) for v in members] if hover else None,
        hoverinfo="text",
    )


# ---------------------------------------------------------------- a tree on the fabric
@dataclass(frozen=True)
class Overlays:
    """What a drawing of packets per link shows over them (:func:`packets_figure`).

    Parameters
    ----------
    hover : dict, optional
        ``{link id: text}`` added to those links' hover boxes.
    overlay : dict, optional
        ``{link id: n}``: a dotted line over those links (e.g. links carrying packets between groups).
    overlay_name : str
        The dotted line's name in the legend.
    marks : dict, optional
        Node markers, ``{legend name: node indices}`` (the root, switches holding an entry).
    """

    hover: dict[int, str] | None = None
    overlay: dict[int, int] | None = None
    overlay_name: str = ""
    marks: dict[str, list[int]] | None = None


def packets_figure(
    topo: Topology,
    packets: dict[int, int],
    title: str,
    overlays: Overlays = Overlays(),
    pos: np.ndarray | None = None,
    top: float | None = None,
) -> go.Figure:
    """Aggregation packets per link (``{link id: n}``) on the fabric, with optional overlays.

    ``overlays``: its ``hover`` texts per link, its ``overlay`` (``{link id: n}``) drawn as a dotted line over
    those links (e.g. links carrying packets between groups) and its ``marks``, node markers
    (``{legend name: node indices}``: the root, switches holding an entry).
    Broken links are dashed (white dashes over the colour of one that still
    carries packets: a route as built on the intact fabric); nodes are named
    where their names fit (:func:`vizcoll.ui.figures.labels.add_labels`); ``top``: the colour scale's largest
    value (default: the most packets drawn).
    """
    hover, overlay, overlay_name, marks = overlays.hover, overlays.overlay, overlays.overlay_name, overlays.marks
    rows = {int(lid): r for r, lid in enumerate(topo.link_id.tolist())}
    values = np.zeros(topo.n_links)
    for lid, n in packets.items():
        values[rows[int(lid)]] = n
    text = [""] * topo.n_links
    for lid, extra in (hover or {}).items():
        text[rows[int(lid)]] = extra
    pos = positions(topo) if pos is None else pos
    fig = link_value_figure(topo, values, title, hover=LinkHover(text), scale=ColourScale("packets", top=top), pos=pos)
    if (values.max(initial=0) if top is None else top) <= 12:  # whole packets on the colour bar
        fig.update_traces(selector={"marker.showscale": True}, marker_colorbar_dtick=1)
    cut = np.flatnonzero(topo.broken & (values > 0))
    if len(cut):  # a route over a broken link (a tree as built on the intact fabric): white dashes cut its colour
        xs, ys = link_lines(topo, pos, cut)  # each parallel cable on its own curve, as link_value_figure draws it
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line={"color": "#fff", "width": 3, "dash": "dash"},
                hoverinfo="skip",
                name=f"⚠ broken, yet on a route ({len(cut)})",
            )
        )
    if overlay:
        xs, ys = link_lines(topo, pos, [rows[int(lid)] for lid in overlay])
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line={"color": CROSS_COLOUR, "width": 1.5, "dash": "dot"},
                name=overlay_name,
                hoverinfo="skip",
            )
        )
    symbols = {0: ("star", ROOT_COLOUR, 16), 1: ("square-open", "#d35400", 15), 2: ("diamond", "#8e44ad", 11)}
    for i, (name, nodes) in enumerate((marks or {}).items()):
        symbol, colour, size = symbols[i % len(symbols)]
        nodes = list(nodes)
        fig.add_trace(
            go.Scatter(
                x=pos[nodes, 0],
                y=pos[nodes, 1],
                mode="markers",
                name=name,
                marker={
                    "symbol": symbol,
                    "size": size,
                    "color": colour,
                    "line": {"width": 2.5 if "open" in symbol else 1, "color": colour},
                },
                text=node_hovers(topo, nodes, sep="<br>"),
                hoverinfo="text",
            )
        )
    return styled(fig)


# ---------------------------------------------------------------- F(k)
def fk_figure(
    P: int, a: float, b: float, eps: float, k: int | None = None, k_range: tuple[int, int] = K_RANGE
) -> go.Figure:
    """Eq. 5, ``F(k) = log_k P · (a + k·b)``, for ``k`` in ``k_range``: k*, the ε interval and the chosen k."""
    ks = np.arange(k_range[0], k_range[1] + 1)
    F = np.array([f_width(int(x), P, a, b) for x in ks])
    best = kopt(P, a, b, eps)
    lo, hi = float(F.min()), float(F.max())
    kmin, kmax = best["kmin"], min(best["kmax"], k_range[1])
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[kmin, kmax, kmax, kmin, kmin],
            y=[lo, lo, hi, hi, lo],
            fill="toself",
            mode="none",
            fillcolor="rgba(44, 160, 44, 0.15)",
            hoverinfo="skip",
            name=f"|F(k) − F*| ≤ ε = {eps:g} μs: {best['kmin']} ≤ k ≤ {best['kmax']}",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=ks,
            y=F,
            mode="lines",
            name="F(k) = log_k P · (a + k·b)",
            line={"color": "#1f3a5f", "width": 2.5},
            hovertemplate="k = %{x}: F = %{y:.3f} μs<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[best["k_star"]],
            y=[best["F_star"]],
            mode="markers+text",
            name=f"k* = {best['k_star']} (F* = {best['F_star']:.3f} μs)",
            text=[f"k* = {best['k_star']}"],
            textposition="bottom center",
            marker={"symbol": "star", "size": 16, "color": ROOT_COLOUR, "line": {"width": 1, "color": "#7a5c00"}},
            hovertemplate="k* = %{x}: F* = %{y:.3f} μs<extra></extra>",
        )
    )
    if k is not None and k >= 2:
        fk = f_width(int(k), P, a, b)
        fig.add_trace(
            go.Scatter(
                x=[k],
                y=[fk],
                mode="markers",
                name=f"your k = {k} (F = {fk:.3f} μs)",
                marker={"symbol": "diamond", "size": 12, "color": "#d62728"},
                hovertemplate="k = %{x}: F = %{y:.3f} μs<extra></extra>",
            )
        )
    ticks = [2, 4, 8, 16, 32, 64, 128]
    fig.update_layout(
        title={"text": f"Choosing the width: F(k) for P = {P:,}, a = δ·l = {a:g} μs, b = {b:g} μs"},
        height=440,
        plot_bgcolor="white",
        hovermode="closest",
        margin={"l": 60, "r": 10, "b": 10},
        xaxis={
            "title": {"text": "tree width k (k-ary) or base (k-nomial), log scale"},
            "type": "log",
            "tickvals": ticks,
            "ticktext": [str(t) for t in ticks],
            "gridcolor": "#eef2f7",
        },
        yaxis={"title": {"text": "F(k): modelled aggregation time (μs)"}, "gridcolor": "#eef2f7"},
    )
    return styled(fig)


# ---------------------------------------------------------------- the player on cytoscape
def state_category(value) -> str:
    """``"value=3"`` -> ``"value"``, ``"done, sent=7"`` -> ``"sent"``, ... (see vizcoll.trees.aggregation)."""
    text = str(value)
    if text.startswith("done"):
        return "sent"
    return text.split("=", 1)[0].strip()


def _short(value) -> str:
    text = str(value)
    category = state_category(text)
    number = text.split("=", 1)[1] if "=" in text else ""
    number = number.split(" ")[0]  # "12 (2/4)" -> "12"
    return {"value": number, "partial": f"Σ{number}", "sent": f"↑{number}", "result": f"✓{number}", "blocked": "✕"}.get(
        category, ""
    )


def aggregation_stylesheet(state: dict[int, str], names: list[str], root: int | None) -> list[dict]:
    """Cytoscape rules for the aggregation states of nodes (``{node index: state}``) over base_stylesheet.

    Each node's ring shows its state (:data:`AGG_COLOURS`) and its label adds
    the value it holds (the final result only at the root: the other nodes'
    green ring says they have it); the root node is drawn larger.
    """
    by_category: dict[str, list[str]] = {}
    sheet = []
    for node, value in sorted(state.items()):
        category = state_category(value)
        if category in AGG_COLOURS:
            by_category.setdefault(category, []).append(f"#n{node}")
        short = _short(value)
        if category == "result" and node != root:
            short = "✓"
        if short:
            sheet.append(
                {
                    "selector": f"#n{node}",
                    "style": {"label": f"{names[node]}\n{short}", "text-wrap": "wrap", "font-size": 8},
                }
            )
    sheet += [
        {"selector": ", ".join(members), "style": {"border-width": 4, "border-color": AGG_COLOURS[c]}}
        for c, members in sorted(by_category.items())
    ]
    if "blocked" in by_category:
        sheet.append(
            {
                "selector": ", ".join(by_category["blocked"]),
                "style": {"shape": "diamond", "background-color": AGG_COLOURS["blocked"]},
            }
        )
    if root is not None:
        sheet.append({"selector": f"#n{root}", "style": {"width": 20, "height": 20, "background-color": ROOT_COLOUR}})
    return sheet


# ---------------------------------------------------------------- the page's pairs of figures
def packets_on(
    view,
    topo: Topology,
    packets: dict[int, int],
    title: str,
    overlays: Overlays = Overlays(),
    animated: bool = False,
    top: float | None = None,
) -> go.Figure:
    """:func:`packets_figure` on the part of the fabric ``view`` shows (a :class:`~vizcoll.ui.models.parts.
    FabricView`): one group alone (the links and marks in it), or the overview, whose bundles are coloured by
    the most packets one of their links carries and sized by the mean (the blocks holding a mark ringed; with
    ``animated``, the two layers a player lights step by step: :func:`~vizcoll.ui.figures.blocks.
    add_animation_layers`)."""
    where = "" if view.part in ("whole", "overview") else f" ({view.name} alone)"
    marks = overlays.marks
    if view.overview is not None:  # the fabric's overview, or a part of it too large to draw node by node
        values = np.zeros(topo.n_links)
        values[topo.link_rows(list(packets))] = list(packets.values())
        nodes = [n for nodes in (marks or {}).values() for n in nodes]
        marked = np.asarray(view.overview.of)[np.asarray(nodes, dtype=np.int64)].tolist()  # at once, not per node
        return blocks_figure(
            view.overview,
            bundles(topo, view.overview, values),
            f"{title}{where}, per bundle of links",
            ColourScale("packets", top=top),
            selected=marked,
            animated=animated,
        )
    ids = set(view.topo.link_id.tolist())
    keep = lambda table: {lid: v for lid, v in (table or {}).items() if int(lid) in ids}  # noqa: E731
    index = {int(n): i for i, n in enumerate(view.kept.tolist())}
    shown = {name: [index[n] for n in nodes if n in index] for name, nodes in (marks or {}).items()}
    pos = view.pos if view.part == "whole" else stretched(view.pos)  # a group alone fills the figure
    kept = replace(
        overlays,
        hover=keep(overlays.hover),
        overlay=keep(overlays.overlay),
        marks={k: v for k, v in shown.items() if v},
    )
    return packets_figure(view.topo, keep(packets), title + where, kept, pos=pos, top=top)


def _top_on(view, *packets: dict[int, int]) -> int:
    """The most packets one link drawn on ``view`` carries in any of ``packets`` (``{link id: n}`` tables): the
    colour scale the compared drawings share (the overview draws every link; a part alone its own)."""
    if view.overview is not None:
        return max((max(map(int, table.values()), default=0) for table in packets), default=0)
    shown = set(view.topo.link_id.tolist())
    return max((int(n) for table in packets for lid, n in table.items() if int(lid) in shown), default=0)


def chosen_tree_figures(
    built: dict, name: str, where: str, topo: Topology, cross: dict[int, int], view, animated: bool = False
) -> tuple[go.Figure, go.Figure]:
    """A mapped type I tree (:func:`vizcoll.trees.metrics.mapped_type_one`'s dict) drawn logically and on the part
    of the fabric ``view`` shows (packets per link; ``cross``: the switch links carrying packets between
    groups, dotted; ``animated``: an overview with the layers a player lights)."""
    tree, m = Tree(**built["tree"]), built["metrics"]  # the server's own tree: no check of every vertex again
    names = topo.names
    switch = [names[s] if s >= 0 else "no switch" for s in built["switch"]]
    depth = tree.depth()

    def hover(v: int) -> str:
        return (
            f"rank {built['ranks'][v]} on {names[tree.node[v]]} (switch {switch[v]})<br>depth {depth[v]}, "
            f"{plural(len(tree.children[v]), 'child')}"
        )

    heading = f"{name} tree over {plural(tree.size, 'process')}: height {m['height']}"
    logical = logical_tree_figure(tree, switch, heading, hover=hover, names=[names[n] for n in tree.node])
    packets_hover = {lid: f"{n} of them between groups" for lid, n in built["cross_links"].items()}
    busiest = m["max_link"]
    title = f"{name} {where}" + (f": max {plural(busiest['packets'], 'packet')} on one link" if busiest else "")
    overlays = Overlays(
        hover=packets_hover,
        overlay=cross,
        overlay_name="switch links with packets between groups",
        marks={f"root: rank {built['ranks'][0]} on {names[tree.node[0]]}": [tree.node[0]]},
    )
    mapped = packets_on(view, topo, m["link_packets"], title, overlays, animated=animated)
    return logical, mapped


def type_two_figures(
    two: dict, degree: int, topo: Topology, view, animated: bool = False
) -> tuple[go.Figure, go.Figure]:
    """The physical type II tree and the minimum-cost derived tree on the part of the fabric ``view`` shows:
    packets per link, the switches holding an aggregation entry (``two``: the trees page's type II dict; blank
    figures when there is no tree; ``animated``: the minimum-cost tree's overview with the layers a player
    lights)."""
    if not two["ok"]:
        empty = blank_figure("No type II tree", height=200)
        return empty, empty
    top = _top_on(view, *(two["metrics"][which]["link_packets"] for which in ("physical", "tree")))
    figures = []
    for which, switches, label in (
        ("physical", two["physical_switches"], "Physical tree T"),
        ("tree", two["tree_switches"], f"Min-cost tree A (degree ≤ {degree})"),
    ):
        m = two["metrics"][which]
        held = f"{plural(len(switches), 'switch')} hold{'s' * (len(switches) == 1)} an entry"
        figures.append(
            packets_on(
                view,
                topo,
                m["link_packets"],
                f"{label}: {held}, height {m['height']} (colours 0–{top:g} packets in both)",
                Overlays(
                    marks={
                        f"root: {topo.names[two['root']]}": [two["root"]],
                        f"switch with an entry ({len(switches)})": switches,
                    }
                ),
                animated=animated and which == "tree",
                top=top,
            )
        )
    return figures[0], figures[1]
