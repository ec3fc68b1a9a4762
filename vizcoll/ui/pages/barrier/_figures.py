"""Pure builders for the barrier page: the grid (or any fabric) on cytoscape with a barrier run's step, a large
fabric's overview for the run's player, LCT vs BST, the sweeps, UQ.

Every function takes plain engine results (a :class:`~vizcoll.topology.model.Topology`,
timeline pieces, ID arrays and link sets, :func:`~vizcoll.barrier.benchmark.sweep`
and :func:`~vizcoll.barrier.uq.uq_difference_histogram` dicts) and returns
cytoscape elements / style rules or a Plotly figure; nothing here runs the engine.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import plotly.graph_objects as go

from vizcoll.barrier.algorithms import ALGORITHMS
from vizcoll.barrier.benchmark import RANGE_COLUMNS
from vizcoll.topology.blocks import Blocks, bundles
from vizcoll.topology.layout import positions, unit
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.ui.figures.blocks import blocks_figure
from vizcoll.ui.figures.captions import fitted_captions
from vizcoll.ui.figures.common import blank_figure
from vizcoll.ui.figures.style import FULL, ink, styled
from vizcoll.ui.figures.topology import edge_id, links_selector
from vizcoll.words import plural

__all__ = [
    "SPACING",
    "NODE",
    "STATE_COLOURS",
    "MESSAGE_COLOURS",
    "ROOT_COLOUR",
    "ADJUST_COLOUR",
    "BROKEN",
    "message_kind",
    "grid_elements",
    "grid_stylesheet",
    "fabric_elements",
    "fabric_stylesheet",
    "step_stylesheet",
    "overview_figure",
    "uq_text",
    "numbering_figure",
    "sweep_figure",
    "range_figure",
    "uq_histogram_figure",
]

SPACING = 100  # px between neighboring grid nodes on the canvas
NODE = "#4a6fa5"
ROOT_COLOUR = "#f5b800"
ADJUST_COLOUR = "#d35400"
BROKEN = "#d62728"
# a processor's state in a barrier run (vizcoll.barrier.algorithms.LEGEND) -> ring colour
STATE_COLOURS = {
    "waiting": "#1f77b4",
    "gathered": "#9467bd",
    "exchanging": "#8c564b",
    "released": "#2ca02c",
    "left": "#52606d",
    "stuck": BROKEN,
}
MESSAGE_COLOURS = {"gather": "#ff7f0e", "release": "#17becf", "other": "#8c564b"}
# one colour per sweep column (algorithm); the DLCT family is drawn thicker
INTACT_COLOUR = "#aec7e8"  # the tree built before the links broke (``tree@intact``)


def algo_colour(column: str) -> str:
    """The colour of a sweep column: its algorithm's (``colour``), the intact tree's light blue."""
    if column.endswith("@intact"):
        return INTACT_COLOUR
    return getattr(ALGORITHMS.get(column), "colour", "#333")


KEPT, BEFORE, AFTER = "#1f3a5f", "#9fb3c8", "#ff7f0e"


# ---------------------------------------------------------------- the grid on cytoscape
def message_kind(label: str) -> str:
    """``"gather"``, ``"release"`` or ``"other"`` from a hop's caption (``"Gather sw0-1 → sw0-0: ..."``)."""
    head = label.split(" ", 1)[0].lower()
    return head if head in ("gather", "release") else "other"


def _edge(topo: Topology, row: int, classes: str) -> dict:
    """Edge :func:`~vizcoll.ui.figures.topology.edge_id` of link ``row`` (``data.link`` = its id); ``data.name``
    is its ``a[pa]-b[pb]`` label (what a click toggles)."""
    lid, a, b = int(topo.link_id[row]), int(topo.link_a[row]), int(topo.link_b[row])
    return {
        "data": {
            "id": edge_id(topo, row),
            "source": f"n{a}",
            "target": f"n{b}",
            "link": lid,
            "name": topo.link_label(row),
            "label": f"link {lid}: {topo.names[a]} – {topo.names[b]}",
        },
        "classes": classes,
    }


def grid_elements(topo: Topology) -> list[dict]:
    """The grid's processors ``n<index>`` at their (row, col) and its links, plus row/column labels.

    The processors are the switches of a mesh (attributes ``x`` = column,
    ``y`` = row; end nodes, if any, are not drawn); broken links get the class
    ``broken``, diagonal ones ``diagonal``; ``data.name`` of a link is its label.
    """
    x, y = topo.attr("x"), topo.attr("y")
    procs = [int(u) for u in topo.switches]
    nodes = [
        {
            "data": {"id": f"n{u}", "label": topo.names[u]},
            "classes": "proc",
            "position": {"x": float(x[u] * SPACING), "y": float(y[u] * SPACING)},
        }
        for u in procs
    ]
    rows, cols = (int(y[procs].max()) + 1, int(x[procs].max()) + 1) if procs else (0, 0)
    axes = [
        {
            "data": {"id": f"row{r}", "label": f"row {r}"},
            "classes": "axis",
            "selectable": False,
            "position": {"x": -0.62 * SPACING, "y": float(r * SPACING)},
        }
        for r in range(rows)
    ]
    axes += [
        {
            "data": {"id": f"col{c}", "label": f"col {c}"},
            "classes": "axis",
            "selectable": False,
            "position": {"x": float(c * SPACING), "y": -0.5 * SPACING},
        }
        for c in range(cols)
    ]
    sw = topo.kind == SWITCH
    edges = []
    for row in np.flatnonzero(sw[topo.link_a] & sw[topo.link_b]).tolist():
        a, b = int(topo.link_a[row]), int(topo.link_b[row])
        diagonal = x[a] != x[b] and y[a] != y[b]
        edges.append(
            _edge(topo, row, " ".join(c for c, on in (("broken", topo.broken[row]), ("diagonal", diagonal)) if on))
        )
    return nodes + axes + edges


def fabric_elements(
    topo: Topology, processes: list[int], pos: np.ndarray | None = None, crowded: float | None = None
) -> list[dict]:
    """Any fabric: every node ``n<index>`` (label = its name, caption = its description when the file gave one,
    shortened where captions would overlap) at ``pos`` (default :func:`~vizcoll.topology.layout.positions`),
    about :data:`SPACING` px between neighbors (or ``crowded`` px between the nodes of its most crowded rows, as a
    group drawn alone needs: :func:`~vizcoll.topology.layout.unit`), and every link.

    Switches get the class ``switch``, end nodes ``endpoint``, the barrier's
    processes also ``proc``; broken links ``broken``.
    """
    pos = positions(topo) if pos is None else np.asarray(pos, dtype=float)
    if crowded is not None:
        pos = pos * (crowded / unit(pos))
    elif len(pos) > 1:
        gaps = np.hypot(*(pos[topo.link_a] - pos[topo.link_b]).T) if topo.n_links else np.array([])
        gaps = gaps[gaps > 1e-9]
        pos = pos * (0.8 * SPACING / (float(np.median(gaps)) if len(gaps) else 1.0))
    procs = set(processes)
    nodes = [
        {
            "data": {"id": f"n{u}", "label": name, "caption": caption},
            "classes": ("switch" if topo.kind[u] == SWITCH else "endpoint") + (" proc" if u in procs else ""),
            "position": {"x": float(pos[u, 0]), "y": float(-pos[u, 1])},
        }
        for u, (name, caption) in enumerate(zip(topo.names, fitted_captions(topo, pos * [1, -1]), strict=True))
    ]
    return nodes + [_edge(topo, row, "broken" if topo.broken[row] else "") for row in range(topo.n_links)]


def grid_stylesheet() -> list[dict]:
    """Processors as circles (label = name until a run gives IDs), links, broken links dashed red (on top)."""
    return [
        {
            "selector": "node",
            "style": {
                "label": "data(label)",
                "font-size": 10,
                "text-valign": "bottom",
                "text-margin-y": 3,
                "color": "#333",
            },
        },
        {
            "selector": ".proc",
            "style": {"shape": "ellipse", "width": 38, "height": 38, "background-color": NODE, "border-width": 0},
        },
        {
            "selector": ".axis",
            "style": {
                "shape": "round-rectangle",
                "width": 1,
                "height": 1,
                "background-opacity": 0,
                "text-valign": "center",
                "text-halign": "center",
                "font-size": 13,
                "color": "#7b8794",
                "events": "no",
            },
        },
        {"selector": "edge", "style": {"width": 3, "line-color": "#b8c2cc", "curve-style": "bezier"}},
        {"selector": ".diagonal", "style": {"width": 2, "line-color": "#d3dae1"}},
        # drawn above the links they cross, so that they stay visible and a click on a crossing repairs them
        {"selector": ".broken", "style": {"line-color": BROKEN, "line-style": "dashed", "width": 4, "z-index": 5}},
    ]


def fabric_stylesheet() -> list[dict]:
    """:func:`grid_stylesheet` for a whole fabric: switches as small rectangles, end nodes grey, processes blue."""
    return grid_stylesheet() + [
        {"selector": "node", "style": {"label": "data(caption)"}},
        {
            "selector": ".switch",
            "style": {"shape": "round-rectangle", "width": 30, "height": 18, "background-color": "#9fb3c8"},
        },
        {
            "selector": ".endpoint",
            "style": {"shape": "ellipse", "width": 16, "height": 16, "background-color": "#cbd2d9"},
        },
        {"selector": ".proc", "style": {"width": 30, "height": 30, "background-color": NODE}},
        {"selector": ".switch.proc", "style": {"shape": "round-rectangle"}},
    ]


def step_stylesheet(
    state: dict[int, str], ids: dict[int, int], adjusted: list[int], hops: list[dict], roots: list[int]
) -> list[dict]:
    """Rules layered over :func:`grid_stylesheet` for one step of a barrier run.

    ``state`` maps processor -> its state (a ring, :data:`STATE_COLOURS`),
    ``ids`` processor -> its current DLCT ID (drawn inside the node; empty for
    other algorithms), ``adjusted`` the processors applying ``round(K)`` in this
    step (filled :data:`ADJUST_COLOUR`), ``hops`` this step's messages as
    ``{"link", "src", "source", "kind"}`` (``source`` = the edge's source node:
    the arrow points the way the message goes) and ``roots`` the processors
    holding ID 0 (filled gold).
    """
    sheet = []
    if ids:
        sheet.append(
            {
                "selector": ".proc",
                "style": {
                    "text-valign": "center",
                    "text-margin-y": 0,
                    "color": "#fff",
                    "font-size": 15,
                    "font-weight": "bold",
                },
            }
        )
        sheet += [{"selector": f"#n{u}", "style": {"label": str(ident)}} for u, ident in sorted(ids.items())]
    by_state: dict[str, list[str]] = {}
    for u, value in sorted(state.items()):
        if value in STATE_COLOURS:
            by_state.setdefault(value, []).append(f"#n{u}")
    sheet += [
        {"selector": ", ".join(members), "style": {"border-width": 5, "border-color": STATE_COLOURS[value]}}
        for value, members in sorted(by_state.items())
    ]
    if roots:
        sheet.append(
            {
                "selector": ", ".join(f"#n{u}" for u in roots),
                "style": {"background-color": ROOT_COLOUR, "color": "#1f2933"},
            }
        )
    if adjusted:
        sheet.append(
            {
                "selector": ", ".join(f"#n{u}" for u in adjusted),
                "style": {"background-color": ADJUST_COLOUR, "color": "#fff", "width": 46, "height": 46},
            }
        )
    for hop in hops:
        colour = MESSAGE_COLOURS[hop["kind"]]
        end = "target" if hop["src"] == hop["source"] else "source"
        sheet.append(
            {
                "selector": links_selector([hop["link"]]),
                "style": {
                    "line-color": colour,
                    "width": 7,
                    "z-index": 10,
                    "line-style": "solid",
                    f"{end}-arrow-shape": "triangle",
                    f"{end}-arrow-color": colour,
                    "arrow-scale": 1.3,
                },
            }
        )
    return sheet


def overview_figure(topo: Topology, part: Blocks, processes: list[int]) -> go.Figure:
    """A large fabric's overview for the run's player: its blocks and bundles of links (as
    :func:`~vizcoll.ui.figures.topology.fabric_drawing` draws them) with the two animation layers the player
    lights step by step (:func:`~vizcoll.ui.figures.blocks.add_animation_layers`), the blocks holding the
    barrier's ``processes`` ringed."""
    held = np.unique(part.of[np.asarray(processes, dtype=np.int64)]) if len(processes) else []
    s = topo.summary()
    title = (
        f"{plural(s['switches'], 'switch')}, {plural(s['endpoints'], 'end node')}, {plural(s['links'], 'link')} "
        f"in {plural(len(part), 'block')}; ringed: the {len(held):,} holding the barrier's "
        f"{plural(len(processes), 'process')}. Click a block to draw its group alone"
    )
    return blocks_figure(part, bundles(topo, part), title, width=FULL, animated=True, selected=held)


# ---------------------------------------------------------------- LCT vs BST: the numbering view
def uq_text(intersection: int, union: int) -> str:
    """``"1 − 7/26 = 19/26 = 73.1%"`` (the reduced fraction only when it differs)."""
    if not union:
        return "0 (no links)"
    uq = 1 - Fraction(intersection, union)
    reduced = f" = {uq.numerator}/{uq.denominator}" if uq.denominator != union else ""
    return f"1 − {intersection}/{union}{reduced} = {float(uq):.1%}"


def _cell_xy(cell) -> tuple[int, int]:
    return int(cell[1]), -int(cell[0])


def _link_trace(links, colour: str, width: float, dash: str, name: str) -> go.Scatter:
    xs, ys = [], []
    for a, b in sorted(links):
        (xa, ya), (xb, yb) = _cell_xy(a), _cell_xy(b)
        xs += [xa, xb, None]
        ys += [ya, yb, None]
    return go.Scatter(
        x=xs, y=ys, mode="lines", line={"color": colour, "width": width, "dash": dash}, name=name, hoverinfo="skip"
    )


def numbering_figure(
    name: str, before_ids: np.ndarray, after_ids: np.ndarray, before: set, after: set, k: int
) -> go.Figure:
    """One structure's Gather links before (A) and after ``round(k)`` (B) on the numbered grid, and its UQ.

    Links in both sets are drawn dark, links only in A light and dashed,
    links new in B orange; every node shows ``ID → ID'``.
    """
    before_ids, after_ids = np.asarray(before_ids), np.asarray(after_ids)
    rows, cols = before_ids.shape
    kept, gone, new = before & after, before - after, after - before
    fig = go.Figure()
    for links, colour, width, dash, label in (
        (gone, BEFORE, 3, "dash", f"only before round({k}) ({len(gone)})"),
        (new, AFTER, 4, "solid", f"new after round({k}) ({len(new)})"),
        (kept, KEPT, 4, "solid", f"kept: A ∩ B ({len(kept)})"),
    ):
        fig.add_trace(_link_trace(links, colour, width, dash, label))
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    colours = [ROOT_COLOUR if after_ids[r, c] == 0 else NODE for r, c in cells]
    small = rows * cols <= 16
    fig.add_trace(
        go.Scatter(
            x=[c for _, c in cells],
            y=[-r for r, _ in cells],
            mode="markers+text",
            name="ID → ID′",
            text=[f"{before_ids[r, c]}→{after_ids[r, c]}" for r, c in cells],
            textposition="middle center",
            textfont={"size": 12 if small else 9, "color": [ink(colour) for colour in colours]},
            marker={
                "size": 40 if small else 26,
                "color": colours,
                "line": {"width": 0},
            },
            hovertext=[f"row {r}, col {c}: ID {before_ids[r, c]} → {after_ids[r, c]}" for r, c in cells],
            hoverinfo="text",
            showlegend=False,
        )
    )
    union = before | after
    fig.update_layout(
        title={"text": f"{name}: UQ = {uq_text(len(kept), len(union))}"},
        height=430,
        plot_bgcolor="white",
        margin={"l": 10, "r": 10, "b": 10},
        hovermode="closest",
        xaxis={"visible": False, "range": [-0.6, cols - 0.4]},
        yaxis={"visible": False, "scaleanchor": "x", "range": [-rows + 0.4, 0.6]},
    )
    return styled(fig)


# ---------------------------------------------------------------- the sweep charts
def sweep_figure(result: dict, along: str, at: float) -> go.Figure:
    """Run time − work per algorithm along ``"rate"`` (at size ``at``) or along ``"size"`` (at rate ``at``)."""
    other = "size" if along == "rate" else "rate"
    rows = sorted((r for r in result["rows"] if r[other] == at), key=lambda r: r[along])
    if not rows:
        return blank_figure("No sweep row for this choice.", height=380)
    fig = go.Figure()
    xs = [r[along] * 100 if along == "rate" else r[along] for r in rows]
    for col in result["columns"]:
        ys = [r["sync_ms"][col] for r in rows]
        failed = [r["failures"][col] for r in rows]
        dlct = col.startswith("dlct")
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines+markers",
                name=col,
                line={
                    "color": algo_colour(col),
                    "width": 3.5 if dlct else 2,
                    "dash": "solid" if dlct else "dot" if col == "tree@intact" else "solid",
                },
                marker={"size": 8 if dlct else 6, "symbol": "diamond" if dlct else "circle"},
                customdata=failed,
                hovertemplate=f"{col}: %{{y:.1f}} ms<br>failed runs: %{{customdata}}<extra></extra>",
            )
        )
    p = result["params"]
    work = (p.get("barriers", 3) - 1) * p.get("compute", 0.5)
    if along == "rate":
        title = f"Run time vs broken links: {int(at)}×{int(at)} grid"
        xaxis = {"title": {"text": "share of links broken (%)"}, "tickvals": xs}
    else:
        title = f"Run time vs size: {at:.0%} of links broken"
        xaxis = {"title": {"text": "grid side (N = side²)"}, "tickvals": xs}
    seeds = p.get("seeds", 1)
    fig.update_layout(
        title={"text": f"{title} ({plural(seeds, 'seed')}, {plural(p.get('neighbors', 8), 'neighbor')})"},
        height=400,
        plot_bgcolor="white",
        hovermode="x unified",
        margin={"l": 60, "r": 10, "b": 10},
        xaxis={**xaxis, "gridcolor": "#eef2f7"},
        yaxis={"title": {"text": f"run time − {work:g} s of work (ms)"}, "gridcolor": "#eef2f7", "rangemode": "tozero"},
    )
    return styled(fig)


def range_figure(result: dict, columns=RANGE_COLUMNS) -> go.Figure:
    """The paper's Fig. 7: per grid size, each algorithm's run times over all break rates as a vertical line
    from the fastest to the slowest, a dot per rate (the longer the line, the more the breaks hurt)."""
    shown = [c for c in columns if c in result["columns"]]
    sizes = sorted({r["size"] for r in result["rows"]})
    if not shown or not sizes:
        return blank_figure("The sweep has none of Tree, ID1, ID2.", height=380)
    fig = go.Figure()
    width = 0.8 / len(shown)
    for i, col in enumerate(shown):
        line_x, line_y, dot_x, dot_y, dot_text = [], [], [], [], []
        for g, size in enumerate(sizes):
            x = g - 0.4 + width * (i + 0.5)
            points = sorted(
                (r["rate"], r["sync_ms"][col])
                for r in result["rows"]
                if r["size"] == size and r["sync_ms"][col] is not None
            )
            if not points:
                continue
            values = [v for _, v in points]
            line_x += [x, x, None]
            line_y += [min(values), max(values), None]
            dot_x += [x] * len(points)
            dot_y += values
            dot_text += [f"{col}, {size}×{size}, {rate:.0%} broken" for rate, _ in points]
        colour = algo_colour(col)
        fig.add_trace(
            go.Scatter(
                x=line_x,
                y=line_y,
                mode="lines",
                line={"color": colour, "width": 7},
                name=col,
                legendgroup=col,
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=dot_x,
                y=dot_y,
                mode="markers",
                legendgroup=col,
                showlegend=False,
                marker={"color": "#222", "size": 6},
                text=dot_text,
                hovertemplate="%{text}: %{y:.1f} ms<extra></extra>",
            )
        )
    p = result["params"]
    rates = [r * 100 for r in p.get("rates", [])]
    span = f"{min(rates):g}–{max(rates):g}%" if rates else "all"
    work = (p.get("barriers", 3) - 1) * p.get("compute", 0.5)
    fig.update_layout(
        title={"text": f"Run time over {span} broken links, per grid size (the paper's Fig. 7)"},
        height=420,
        plot_bgcolor="white",
        hovermode="closest",
        margin={"l": 60, "r": 10, "b": 10},
        xaxis={
            "tickvals": list(range(len(sizes))),
            "ticktext": [f"{s}×{s}" for s in sizes],
            "title": {"text": "grid"},
            "range": [-0.6, len(sizes) - 0.4],
        },
        yaxis={"title": {"text": f"run time − {work:g} s of work (ms)"}, "gridcolor": "#eef2f7", "rangemode": "tozero"},
    )
    return styled(fig, FULL)


def uq_histogram_figure(h: dict, paper: bool = False) -> go.Figure:
    """The UQ(LCT) − UQ(BST) histogram (Fig. 5) from :func:`~vizcoll.barrier.uq.uq_difference_histogram`."""
    edges, counts = np.asarray(h["edges"]), np.asarray(h["counts"])
    centres = (edges[:-1] + edges[1:]) / 2
    colours = [AFTER if c > 1e-9 else KEPT if c < -1e-9 else BEFORE for c in centres]
    n = len(h["values"])
    side = h["size"]
    fig = go.Figure(
        go.Bar(  # plain lists: the figure is cached as its dict, where arrays would be typed-array specs
            x=centres.tolist(),
            y=counts.tolist(),
            width=(np.diff(edges) * 0.95).tolist(),
            marker={"color": colours},
            name="transformations",
            hovertemplate="%{x:.2f}: %{y}<extra></extra>",
            showlegend=False,
        )
    )
    fig.add_vline(x=h["mean_difference"], line={"color": "#d62728", "dash": "dash", "width": 2})
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="lines",
            line={"color": "#d62728", "dash": "dash"},
            name=f"mean difference {h['mean_difference']:+.3f}",
        )
    )
    for colour, label in (
        (AFTER, f"LCT changes more links: {h['positive']}"),
        (KEPT, f"BST changes more links: {h['negative']}"),
    ):
        fig.add_trace(
            go.Scatter(
                x=[None], y=[None], mode="markers", marker={"symbol": "square", "size": 12, "color": colour}, name=label
            )
        )
    lct = f"{h['mean_lct']:.4f}" + (" (paper: 0.5527)" if paper else "")
    fig.update_layout(
        title={"text": f"UQ(LCT) − UQ(BST) over the {n} S-curve transformations of the {side}×{side} grid"},
        height=420,
        plot_bgcolor="white",
        bargap=0,
        margin={"l": 60, "r": 10, "b": 10},
        xaxis={
            "title": {"text": f"UQ(LCT) − UQ(BST)   (mean UQ: LCT {lct}, BST {h['mean_bst']:.4f}; {h['zero']} equal)"},
            "range": [-1, 1],
            "gridcolor": "#eef2f7",
        },
        yaxis={"title": {"text": "transformations"}, "gridcolor": "#eef2f7"},
    )
    return styled(fig, FULL)
