"""Pure views of the barrier page: the run's figures as a table, what DLCT's roots decided, the LCT vs BST view,
the sweep's choices and sentence, the drawing's elements."""

from __future__ import annotations

import plotly.graph_objects as go
from dash import html

from vizcoll.barrier.algorithms import LEGEND
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.model import Topology
from vizcoll.ui.components.player import timeline_at
from vizcoll.ui.figures.barrier import (
    ADJUST_COLOUR,
    MESSAGE_COLOURS,
    NODE,
    ROOT_COLOUR,
    STATE_COLOURS,
    fabric_elements,
    fabric_stylesheet,
    grid_elements,
    grid_stylesheet,
    message_kind,
    numbering_figure,
    step_stylesheet,
    uq_text,
)
from vizcoll.ui.models.barrier import ANIMATION_LIMIT, MAX_SIDE, UQ_SIDE, uq_of

__all__ = ["summary_rows", "summary_table", "judgement_text", "uq_view", "sweep_choices", "sweep_info", "drawing",
           "legend", "step_styles",
           "run_stylesheet", "uq_grid"]


def _ms(seconds) -> str:
    return "—" if seconds is None else f"{seconds * 1000:,.1f} ms"


def summary_rows(figures: dict) -> list[tuple[str, str]]:
    """The run's figures as (what, value) rows."""
    done = figures["completed"]
    rows = [("processes", f"{figures['processors']:,}"),
            ("run time", "did not finish" if not done else f"{figures['time']:.4f} s"),
            ("run time − work (synchronisation)", _ms(figures["sync_time"])),
            ("messages", f"{figures['messages']:,}"), ("hops", f"{figures['hops']:,}"),
            ("detours", f"{figures['detours']:,}"), ("dead ends", f"{figures['dead_ends']:,}"),
            ("most messages on one link", f"{figures['max_link_load']:,}"),
            ("early Gathers (queued)", f"{figures['early_gathers']:,}")]
    if "k" in figures:
        ks = ["/".join("—" if k is None else str(k) for k in per_block) for per_block in figures["k"]]
        rows += [("adjustments (round(K), K ≠ 0)", f"{figures['adjustments']:,}"),
                 ("K per barrier" + (f" (per block of {figures['blocks']})" if figures["blocks"] > 1 else ""),
                  ", ".join(ks))]
    return rows


def summary_table(figures: dict) -> html.Table:
    return html.Table(className="summary", children=[html.Tbody(
        [html.Tr([html.Td(what), html.Td(value)]) for what, value in summary_rows(figures)])])


def judgement_text(figures: dict, limit: int = 6) -> str:
    """What the DLCT roots decided, barrier by barrier; the failure if the program could not finish."""
    if figures["failure"]:
        return f"⚠ The program cannot finish: {figures['failure']}."
    judged = [j for j in figures.get("judged", []) if j["k"] or j["gathered"] > j["ideal"]]
    if "judged" not in figures:
        return ""
    if not judged:
        return ("No harmful break: every root gathered the ideal total path length, so K = 0 and the IDs stay. "
                "Click a link to break it.")
    lines = [f"Barrier {j['barrier'] + 1}" + (f", block {j['block']}" if figures["blocks"] > 1 else "")
             + f": root {j['root']} gathered a total path length of {j['gathered']} (ideal {j['ideal']:g}) → "
             + (f"round({j['k']}): every ID of the block shifts by {j['k']}." if j["k"] else
                "no shift does better, round(0).") for j in judged[:limit]]
    if len(judged) > limit:
        lines.append(f"… and {len(judged) - limit} more")
    return "\n".join(lines)


def uq_grid(key: dict) -> tuple[int, int]:
    """The grid the LCT / BST view draws: the key's, or the paper's 4 x 4 when it is larger than
    :data:`UQ_SIDE` or has fewer than 2 processors."""
    rows, cols = key["rows"], key["cols"]
    return (4, 4) if max(rows, cols) > UQ_SIDE or rows * cols < 2 else (rows, cols)


def uq_view(key: dict) -> tuple[go.Figure, go.Figure, str]:
    """The two structures' Gather links before/after ``round(k)`` and their UQ on the key's grid (the paper's
    4 x 4 when it is larger than :data:`UQ_SIDE` or the scenario is not a grid)."""
    k, numbering_kind, neighbors = key["k"], key["numbering"], key["neighbors"]
    rows, cols = uq_grid(key)
    result = uq_of(rows, cols, neighbors, k, numbering_kind)
    as_set = lambda links: {tuple(tuple(c) for c in x) for x in links}  # noqa: E731
    figs = [numbering_figure(name, result["before"], result["after"], as_set(result[s]["before"]),
                             as_set(result[s]["after"]), k) for s, name in (("lct", "LCT"), ("bst", "BST"))]
    lct, bst = result["lct"]["uq"], result["bst"]["uq"]
    info = (f"{rows}×{cols} grid, {numbering_kind} numbering, {neighbors} neighbors, round({k}) "
            f"(every ID becomes (ID + {k}) mod {rows * cols}). A = the links the Gather messages cross before, "
            f"B = after; UQ = 1 − |A ∩ B| / |A ∪ B|. LCT: {uq_text(lct['intersection'], lct['union'])}; "
            f"BST: {uq_text(bst['intersection'], bst['union'])}. LCT's subtrees are contiguous ID ranges, so a "
            "shift moves its messages onto other links: that is what lets DLCT steer around a broken link.")
    if (rows, cols, neighbors, k, numbering_kind) == (4, 4, 8, 1, "s-curve"):
        info += " The paper (Fig. 3): UQ(LCT) = 73.1%, UQ(BST) = 18.2%."
    if not key.get("grid"):
        info += " (The scenario's fabric is not a grid: the paper's 4×4 grid with 8 neighbors.)"
    elif (rows, cols) != (key["rows"], key["cols"]):
        info += f" (The view draws grids up to {UQ_SIDE}×{UQ_SIDE}: the paper's 4×4 here.)"
    return figs[0], figs[1], info


def sweep_choices(result: dict) -> tuple[list, list]:
    sizes = list(dict.fromkeys(r["size"] for r in result["rows"]))
    rates = list(dict.fromkeys(r["rate"] for r in result["rows"]))
    return ([{"label": f"{s}×{s}", "value": s} for s in sizes],
            [{"label": f"{r:.0%}", "value": r} for r in rates])


def sweep_info(result: dict) -> str:
    claims = result["claims"].get("dlct_over_tree", {})
    pairs = claims.get("dlct+tree/tree@intact", {})
    worst = [(cell, ratio) for cell, ratio in pairs.items() if ratio is not None and not cell.endswith("@0")]
    text = ("Each point: the mean of the runs (3 barriers, 0.5 s of work between them) on grids with that share "
            "of links broken at random, never cut apart. tree = the minimum spanning tree (links weighted by "
            "length) of the live grid (rebuilt after the breaks), tree@intact = the same tree built before they "
            "broke (a fixed pattern that detours).")
    if worst:
        text += (" Synchronisation time of DLCT + Tree (ID2) ÷ tree@intact with breaks (size@rate): "
                 f"{', '.join(f'{c}: {r:.2f}' for c, r in worst)} (below 1 = DLCT faster; the paper reports "
                 "DLCT 30–50% faster than Tree).")
    return text


def drawing(topo: Topology, plan: dict, pos=None) -> list[dict]:
    """The canvas: the grid's switches on a grid, the whole fabric elsewhere (none above the drawing limits)."""
    if plan.get("grid"):
        return grid_elements(topo) if len(topo.switches) <= MAX_SIDE * MAX_SIDE else []
    if topo.n_nodes > ANIMATION_LIMIT:
        return []
    return fabric_elements(topo, plan.get("processes") or [], pos)


def legend(legend_id: str) -> html.Div:
    """The run drawing's legend: the rings of the processes' states, the root, the hops, a broken link."""
    rings = [("waiting", "waits for its Gathers"), ("gathered", "sent its Gather, waits for the Release"),
             ("released", "got the Release"), ("left", "left the last barrier"), ("stuck", "stuck")]
    return html.Div(id=legend_id, className="legend", children=[
        html.Span([html.Span(className="swatch legend-root", style={"background": NODE, "borderColor": NODE}),
                   "working between barriers (no ring)"], title=LEGEND["computing"]),
        *[html.Span([html.Span(className="swatch ring", style={"borderColor": STATE_COLOURS[s]}), label],
                    title=LEGEND[s]) for s, label in rings],
        html.Span([html.Span(className="swatch legend-root", style={"background": ROOT_COLOUR}), "root (ID 0)"]),
        html.Span([html.Span(className="swatch legend-root", style={"background": ADJUST_COLOUR,
                                                                    "borderColor": ADJUST_COLOUR}),
                   "applies round(K) now"]),
        html.Span([html.Span(className="swatch bar-line", style={"background": MESSAGE_COLOURS["gather"]}),
                   "Gather hop"]),
        html.Span([html.Span(className="swatch bar-line", style={"background": MESSAGE_COLOURS["release"]}),
                   "Release hop (carries K)"]),
        html.Span([html.Span(className="swatch legend-broken"), "broken link"])])


def _node_of(entity) -> int | None:
    """The node of a timeline entity (the timeline came back from the browser: a forged one gives None)."""
    node = entity.get("node") if isinstance(entity, dict) else None
    return node if isinstance(node, int) and not isinstance(node, bool) else None


def step_styles(topo: Topology, tl: Timeline, step: int) -> list[dict]:
    """The stylesheet rules of one player step: states, DLCT IDs, this step's hops and adjustments (entities
    or links the fabric does not have are skipped)."""
    source = dict(zip(topo.link_id.tolist(), topo.link_a.tolist(), strict=True))
    hops = [{"link": lid, "src": e.src, "source": source[lid], "kind": message_kind(e.label)}
            for e in (tl.active_at(step) if step >= 0 else []) for lid in e.path_links if lid in source]
    state, idents = {}, {}
    for key, value in tl.state_at(step).items():
        entity = tl.entities.get(key)
        node = _node_of(entity)
        if node is not None:
            (idents if entity.get("kind") == "id" else state)[node] = value
    changed = tl.changes_at(step) if step >= 0 else {}
    adjusted = [node for key in changed if (entity := tl.entities.get(key)) is not None
                and isinstance(entity, dict) and entity.get("kind") == "id" and (node := _node_of(entity)) is not None]
    roots = [u for u, ident in idents.items() if ident == 0]
    return step_stylesheet(state, idents, adjusted, hops, roots)


def run_stylesheet(grid: bool, topo: Topology | None = None, timeline: dict | None = None, position=0) -> list[dict]:
    """The drawing's stylesheet at player ``position`` of the run's ``timeline`` on ``topo`` (the grid's or the
    fabric's base rules, then :func:`step_styles`); the plain drawing without a timeline."""
    sheet = grid_stylesheet() if grid else fabric_stylesheet()
    if topo is None or not timeline:
        return sheet
    tl, step = timeline_at(timeline, position)
    return sheet + step_styles(topo, tl, step)
