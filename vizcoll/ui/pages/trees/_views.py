"""Pure views of the trees page: the trees compared, Table 3, what the broken links do to a tree, sentences.

They read the page's model (:mod:`vizcoll.ui.pages.trees._model`, whose engine
calls are cached) and return tables and text; figures are in
:mod:`vizcoll.ui.pages.trees._figures`.
"""

from __future__ import annotations

import numpy as np
from dash import dcc, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.lockstep import Lockstep, lockstep
from vizcoll.sim.overview import overview_frames
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.trees.cost import kopt
from vizcoll.trees.metrics import cut_off_ranks, isolated_nodes
from vizcoll.trees.tree import Tree
from vizcoll.ui.cache import cached, cached_figures, is_cached
from vizcoll.ui.components.legend import Key, legend_spans
from vizcoll.ui.components.player import player_data, player_timeline, timeline_at
from vizcoll.ui.components.tables import table
from vizcoll.ui.figures.common import blank_figure
from vizcoll.ui.figures.topology import (
    ACTIVE_COLOUR,
    BROKEN,
    SMALL_LIMIT,
    STATE_COLOURS,
    base_stylesheet,
    cytoscape_elements,
    state_stylesheet,
)
from vizcoll.ui.models.parts import WHOLE, drawn_view, view_of
from vizcoll.ui.pages.trees._figures import AGG_COLOURS, aggregation_stylesheet, chosen_tree_figures, type_two_figures
from vizcoll.ui.pages.trees._model import (
    INTACT,
    KINDS,
    LIVE,
    PAGE,
    TYPE1,
    TYPE2,
    comm_text,
    cost_of,
    engine_key,
    holds_timeline,
    placement_of,
    selection,
    timeline_of,
    tree_name,
    type_one,
    type_one_summary,
    type_two,
    type_two_summary,
)
from vizcoll.ui.store import topology_of
from vizcoll.ui.views.common import fabric_counts
from vizcoll.words import noun, plural

__all__ = [
    "LEGEND",
    "compared_trees",
    "comparison_rows",
    "comparison_table",
    "selection_view",
    "fk_info",
    "flag_type_one",
    "flag_type_two",
    "anim_summary",
    "fabric_line",
    "type_one_info",
    "type_two_info",
    "cross_group_links",
    "links_text",
    "compare_view",
    "type_one_view",
    "type_two_view",
    "animation_view",
    "aggregation_player",
    "aggregation_handle",
    "aggregation_core",
    "aggregation_ready",
    "step_stylesheet",
    "type_one_figures",
    "type_two_drawings",
    "legend_items",
]


def _fmt(value, digits: int = 2) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"


def _busiest(m: dict | None) -> str:
    return "—" if not m else f"{m['packets']:,} ({m['ends'][0]}–{m['ends'][1]})"


def _list(items: list[str], limit: int = 4) -> str:
    return ", ".join(items[:limit]) + (f" and {len(items) - limit:,} more" if len(items) > limit else "")


def links_text(topo: Topology, link_ids) -> str:
    """``"link a[1]-b[2]"`` / ``"links ..."``: links named by their ends and ports."""
    labels = [topo.link_label(topo.link_row(int(lid))) for lid in link_ids]
    return f"{noun(len(labels), 'link')} {_list(labels)}"


def comparison_rows(key: dict, plan: dict) -> list[dict]:
    """One row per tree: the type I kinds for ``plan`` and the min-cost type II tree."""
    rows = []
    for kind in KINDS:
        built = type_one_summary(key, kind, plan["routes"])
        rows.append(
            {"tree": tree_name(kind, plan["k"]), "kind": kind, **built["metrics"], "crossing": len(built["crossing"])}
        )
    two = type_two_summary(key, plan["routes"])
    if two["ok"]:
        name = f"type II min-cost, degree ≤ {plan['degree']} ({plural(len(two['tree_switches']), 'switch')})"
        rows.append(
            {"tree": name, "kind": TYPE2, **two["metrics"]["tree"], "cross_group": {}, "crossing": len(two["crossing"])}
        )
    return rows


def _break_cell(r: dict, routes: str) -> str:
    """How a tree meets the scenario's broken links, in a few words (the flag above the player says more)."""
    if r["flags"]:
        n = len(r["flags"])
        return f"⚠ {plural(n, 'edge')} cut off"
    if r["crossing"]:
        n = r["crossing"]
        if r["kind"] == TYPE2:
            return f"⚠ uses {n:,} of them"
        return f"⚠ {plural(n, 'edge')} cross{'es' * (n == 1)}"
    return "avoided" if routes == LIVE else "not crossed"


def comparison_table(key: dict, plan: dict) -> dcc.Markdown:
    rows = comparison_rows(key, plan)
    groups = any("group" in r["cross_group"] for r in rows)
    broken = plan["broken"] > 0
    head = [
        "tree",
        "height",
        "radius (links)",
        "max packets on a link",
        "max packets switch–switch",
        "packets between leaf switches",
        *(["packets between groups"] if groups else []),
        "modelled latency (μs, eq. 2)",
        *(["broken links"] if broken else []),
    ]
    body = [
        [
            r["tree"],
            _fmt(r["height"]),
            _fmt(r["radius"]),
            _busiest(r["max_link"]),
            _busiest(r["max_switch_link"]),
            _fmt(r["cross_group"].get("switch")),
            *([_fmt(r["cross_group"].get("group"))] if groups else []),
            _fmt(r["latency_us"], 3),
            *([_break_cell(r, plan["routes"])] if broken else []),
        ]
        for r in rows
    ]
    chosen = [i for i, r in enumerate(rows) if r["kind"] == plan["kind"]]
    return table(head, body, chosen=chosen, className="summary compare")


def selection_view(plan: dict) -> dcc.Markdown:
    """Table 3 (the tree type and width per switch degree and packet size) for the page's cost model."""
    cost = {key: plan[key] for key in ("l", "delta", "theta", "beta", "gamma", "S")}
    rows = selection(cost, plan["nprocs"], plan["k"])
    return table(
        ("switch degree d", "packet bytes", "tree type", "k"),
        [["no type II available" if r["d"] is None else r["d"], r["range"], r["type"], r["k"]] for r in rows],
    )


def fk_info(plan: dict) -> str:
    cost = cost_of(plan, plan["nprocs"])
    best = kopt(plan["nprocs"], cost.a, cost.b, plan["eps"])
    return (
        f"F is smallest at k* = {best['k_star']} (F* = {best['F_star']:.3f} μs); every k from {best['kmin']} "
        f"to {best['kmax']} is within ε = {plan['eps']:g} μs of it. Table 3 for P = {plan['nprocs']:,}: "
        "small packets favour a type II tree (short paths), large ones a type I tree (the reduction work "
        "spread over many NICs)."
    )


def _edge(tree_dict: dict, ranks: list[int], v: int) -> str:
    return f"rank {ranks[v]} → rank {ranks[tree_dict['parent'][v]]}"


def flag_type_one(key: dict, plan: dict, topo: Topology) -> str:
    """What the scenario's broken links do to the chosen type I tree."""
    kind = plan["kind"]
    broken = topo.link_id[topo.broken].tolist()
    if not broken:
        return ""
    built = type_one(key, kind, plan["routes"])
    ranks, tree = built["ranks"], built["tree"]
    name = f"{tree_name(kind, plan['k'])} tree"
    if plan["routes"] == INTACT:
        if not built["crossing"]:
            links = links_text(topo, broken)
            return f"As built on the intact fabric, no route of the {name} crosses the broken {links}."
        links = sorted({lid for c in built["crossing"] for lid in c["links"]})
        edges = [f"{_edge(tree, ranks, c['child'])} over {links_text(topo, c['links'])}" for c in built["crossing"]]
        return (
            f"⚠ As built on the intact fabric, {plural(len(edges), 'edge')} of the {name} route"
            f"{'s' * (len(edges) == 1)} over the broken "
            f"{links_text(topo, links)} ({_list(edges)}). Their packets are lost at the break and the root never "
            "gets every value: play the aggregation to see where they stop. Choose routes “avoid broken links”: "
            "the tree keeps its shape and mapping (each rank keeps its NIC), its routes go over live links."
        )
    before = type_one(key, kind, INTACT)
    was, now = before["routes"].lists(), built["routes"].lists()
    moved = [v for v, (a, b) in enumerate(zip(was, now, strict=True)) if v and a != b and b is not None]
    longer = [
        f"{_edge(tree, ranks, v)}: {plural(len(now[v]), 'link')} instead of {len(was[v])}"
        for v in moved
        if was[v] is not None and len(now[v]) != len(was[v])
    ]
    if moved:
        text = (
            f"The {name}'s routes avoid the broken {links_text(topo, broken)}: {len(moved):,} of its edges take "
            "another route than on the intact fabric, "
            + (f"some longer ({_list(longer)})." if longer else "every one as short as before.")
        )
        radius = (before["metrics"]["radius"], built["metrics"]["radius"])
        if None not in radius:
            text += f" Radius {radius[0]} → {plural(radius[1], 'link')}."
    else:
        text = f"The {name}'s routes avoid the broken {links_text(topo, broken)}: none of them needed it."
    flags = built["metrics"]["flags"]
    if flags:
        cut = cut_off_ranks(Tree.from_dict(tree), ranks, [f["child"] for f in flags])
        edges = [_edge(tree, ranks, f["child"]) for f in flags]
        alone = isolated_nodes(topo, tree["node"])
        why = f" ({_list(alone)} {'have' if len(alone) > 1 else 'has'} no live link left)" if alone else ""
        text = (
            f"⚠ {text} But {plural(len(flags), 'edge')} ha{'ve' if len(flags) > 1 else 's'} no live route at "
            f"all{why}: {_list(edges)}. "
            f"{noun(len(cut), 'Rank')} {_list([str(r) for r in cut], 12)} "
            + (
                "are cut off: their values never reach the root."
                if len(cut) > 1
                else "is cut off: its value never reaches the root."
            )
        )
    return text


def flag_type_two(key: dict, plan: dict, topo: Topology) -> str:
    """What the scenario's broken links do to the min-cost type II tree."""
    two = type_two_summary(key, plan["routes"])
    if not two["ok"]:
        return f"⚠ No type II tree: {two['reason']}"
    if not topo.broken.any():
        return ""
    if two["crossing"]:
        broken = links_text(topo, two["crossing"])
        return (
            f"⚠ As built on the intact fabric, the type II tree uses the broken {broken}: its packets are lost "
            "there (play the aggregation to see where they stop). Choose routes “avoid broken links”: its root, "
            "physical tree and aggregation switches are then chosen over live links."
        )
    if plan["routes"] == LIVE:
        return "The type II tree is built on the live fabric: it avoids the broken links."
    return "As built on the intact fabric, the type II tree uses no broken link."


LEGEND = [
    *(
        Key(label, "ring", AGG_COLOURS[state])
        for label, state in (
            ("own value, not sent", "value"),
            ("partial result", "partial"),
            ("sent, waits for the result", "sent"),
            ("has the final result", "result"),
            ("blocked (broken edge below)", "blocked"),
        )
    ),
    Key("root", "disc", STATE_COLOURS["root"]),
    Key("packet on the move", "line", ACTIVE_COLOUR),
    Key("broken link (click a link to break / repair)", "dashed", BROKEN),
]


def legend_items() -> list:
    """The legend of the aggregation on the canvas (:data:`LEGEND`): the rings of the vertices' states, the root,
    packets, breaks."""
    return legend_spans(LEGEND)


def anim_summary(s: dict) -> str:
    if s.get("result") is None:
        broken = len(s.get("broken_edges", []))
        return (
            f"No result: {plural(broken, 'tree edge')} {'has' if broken == 1 else 'have'} no live route, so the "
            f"root never gets every value ({plural(s.get('packets', 0), 'packet')} went up)."
        )
    return (
        f"Result {s['result']:,} ({s['op']} of every process's rank), expected {s['expected']:,}: "
        f"{'correct ✓' if s['correct'] else 'WRONG ✕'}. Every vertex has it at t = {s['time']:g} μs; "
        f"{plural(s['packets'], 'packet')} up, {s['bcast_packets']:,} down, at most "
        f"{plural(s['max_link_packets'], 'upward packet')} on one link; height {s['height']}, radius "
        f"{plural(s['radius'], 'link')}."
    )


def fabric_line(scenario: Scenario, plan: dict, topo: Topology) -> str:
    """The fabric and the processes the trees are built on, in one line."""
    text = f"Fabric: {scenario.title} ({fabric_counts(topo)})."
    if "error" not in plan:
        text += f" Processes: {comm_text(scenario, plan['comm'], placement_of(scenario, plan['comm']))}."
    return text


def cross_group_links(built: dict, topo: Topology) -> dict[int, int]:
    """Switch-to-switch links carrying packets between groups (link id -> packets), drawn dotted."""
    ids = list(built["cross_links"])
    rows = topo.link_rows(ids)
    between = (topo.kind[topo.link_a[rows]] == SWITCH) & (topo.kind[topo.link_b[rows]] == SWITCH)
    return {lid: built["cross_links"][lid] for lid, keep in zip(ids, between.tolist(), strict=True) if keep}


def type_one_info(built: dict, plan: dict, topo: Topology) -> str:
    """What the drawing of the chosen tree on the fabric shows, and the edges routed over broken links."""
    m = built["metrics"]
    size = plan["nprocs"]
    switches, groups = m["cross_group"].get("switch", 0), m["cross_group"].get("group")
    info = (
        f"Link thickness and colour = aggregation packets (one per tree edge whose route uses the link, both "
        f"directions). {switches:,} of the {plural(size - 1, 'tree edge')} join{'s' * (switches == 1)} processes "
        "on different leaf switches"
        + (f", {groups:,} of them different groups (pods, supernodes)" if groups is not None else "")
        + ": the dotted switch links carry packets between groups. Broken links are dashed. Hover a link for "
        "its ends and load."
    )
    if built["crossing"]:
        links = sorted({lid for c in built["crossing"] for lid in c["links"]})
        n = len(built["crossing"])
        info += (
            f" ⚠ As built, {plural(n, 'edge')} route{'s' * (n == 1)} over the broken {links_text(topo, links)}: "
            "choose routes “avoid broken links” to route them over live links."
        )
    return info


def type_two_info(two: dict, plan: dict, topo: Topology) -> list:
    """The heading and the sentence about the physical and the minimum-cost type II trees."""
    if not two["ok"]:
        return [html.H3("Type II trees"), html.P(f"⚠ No type II tree: {two['reason']}")]
    saved = len(two["physical_switches"]) - len(two["tree_switches"])
    candidates = "the only switch" if two["candidates"] == 1 else f"one of {two['candidates']:,} switches"
    return [
        html.H3("Type II trees (aggregation in the switches, Algorithm 5)"),
        html.P(
            className="info",
            children=(
                f"Root {topo.names[two['root']]} ({candidates} with the fewest hops to the farthest member). The "
                f"physical tree T joins every member NIC to the root by shortest paths and aggregates in all "
                f"its {plural(len(two['physical_switches']), 'switch')}; the minimum-cost derived tree A promotes "
                f"processes to ancestors (at most {plan['degree']} children per switch) and needs "
                f"{plural(len(two['tree_switches']), 'switch')}: {plural(saved, 'aggregation-tree entry')} saved."
            ),
        ),
    ]


# ---------------------------------------------------------------- the views of a checked plan (request or job)
def _view(plan: dict | None, scenario: Scenario | None):
    """(scenario, engine key, topology with breaks) of the scenario's plan, or None when there is nothing to show."""
    if not plan or "error" in plan or scenario is None:
        return None
    return scenario, engine_key(scenario, plan), topology_of(scenario)


def _problem(plan: dict | None) -> str:
    return (plan or {}).get("error") or ""


def compare_view(plan: dict | None, scenario: Scenario | None):
    """The trees compared, or the plan's problem."""
    view = _view(plan, scenario)
    if view is None:
        return html.P(_problem(plan) or "…", className="message" if _problem(plan) else "info")
    try:
        return comparison_table(view[1], plan)
    except VizcollError as exc:
        return html.P(f"⚠ {exc}", className="message")


def type_one_view(plan: dict | None, scenario: Scenario | None) -> dict:
    """The chosen tree drawn logically (``logical``) and on the fabric (``mapped``), and what the drawing shows
    (``mapped_info``); nothing without a plan."""
    view = _view(plan, scenario)
    if view is None:
        empty = blank_figure("No tree: see the message on the left." if _problem(plan) else "", height=300)
        return {"logical": empty, "mapped": empty, "mapped_info": ""} if plan else {}
    _, key, topo = view
    try:
        built = type_one_summary(key, plan["kind"], plan["routes"])
    except VizcollError as exc:
        empty = blank_figure("No tree", height=300)
        return {"logical": empty, "mapped": empty, "mapped_info": f"⚠ {exc}"}
    logical, mapped = type_one_figures(
        key, plan["kind"], plan["routes"], drawn_view(view[0], PAGE).part, plan["anim"] == TYPE1
    )
    return {"logical": logical, "mapped": mapped, "mapped_info": type_one_info(built, plan, topo)}


def type_two_view(plan: dict | None, scenario: Scenario | None) -> dict:
    """The ``physical`` and the minimum-cost (``mincost``) type II trees, and the sentence about them
    (``type_two_info``); nothing without a plan."""
    view = _view(plan, scenario)
    if view is None:
        empty = blank_figure("", height=300)
        return {"physical": empty, "mincost": empty, "type_two_info": ""} if plan else {}
    _, key, topo = view
    try:
        two = type_two_summary(key, plan["routes"])
    except VizcollError as exc:
        empty = blank_figure("No type II tree", height=300)
        return {"physical": empty, "mincost": empty, "type_two_info": [html.P(f"⚠ {exc}")]}
    physical, mincost = type_two_drawings(key, plan["routes"], drawn_view(view[0], PAGE).part, plan["anim"] == TYPE2)
    return {"physical": physical, "mincost": mincost, "type_two_info": type_two_info(two, plan, topo)}


@cached_figures
def type_one_figures(key: dict, kind: str, routes: str, part: str, animated: bool = False):
    """The chosen type I tree drawn logically and on ``part`` of the fabric (cached: the drawing of a paper-scale
    fabric costs more than reading the tree); ``animated``: its overview carries the layers the player lights."""
    scenario = Scenario(**key["source"])
    topo = topology_of(scenario)
    built = type_one(key, kind, routes)
    where = "on the fabric" if routes == LIVE else "as built (intact fabric)"
    return chosen_tree_figures(
        built,
        tree_name(kind, key["k"]),
        where,
        topo,
        cross_group_links(built, topo),
        view_of(scenario, part),
        animated=animated,
    )


@cached_figures
def type_two_drawings(key: dict, routes: str, part: str, animated: bool = False):
    """The physical and the minimum-cost type II trees drawn on ``part`` of the fabric (cached); ``animated``: the
    overview of the minimum-cost one carries the layers the player lights."""
    scenario = Scenario(**key["source"])
    return type_two_figures(
        type_two(key, routes), key["degree"], topology_of(scenario), view_of(scenario, part), animated=animated
    )


OVERVIEW_NOTE = (
    "Played on the fabric's overview ({figure}): at each step a bundle of links lights with the messages "
    "crossing it (size and colour), a block with its nodes changing state."
)
FIGURES = {TYPE1: "the chosen tree on the fabric, at the top", TYPE2: "the min-cost type II tree, above"}


def aggregation_player(plan: dict | None, scenario: Scenario | None) -> dict:
    """The player's handle (``timeline``), ``flag``, ``flag_class``, canvas ``elements`` and ``summary`` of the
    animated tree, or the flag that stops it; nothing without a plan. It plays on what the page draws of the fabric
    (:func:`aggregation_handle`): the whole fabric or a group alone, node by node on the canvas; a large fabric's
    overview, on the overview figure of the animated tree (its bundles and blocks lit step by step in the
    browser)."""
    played, shown = _animation(plan, scenario)
    if played is None:
        return shown
    try:
        handle, summary = aggregation_handle(*played)
        if not holds_timeline(handle["ref"]):  # the shared cache let it go: the same run puts it back (same ref)
            player_data(timeline_of(*played[:4]))
    except VizcollError as exc:  # e.g. more events than a timeline may hold
        return _flagged(f"⚠ {exc}", shown["elements"])
    if "overview" in handle:
        summary += " " + OVERVIEW_NOTE.format(figure=FIGURES[played[1]])
    return shown | {"timeline": handle, "summary": summary}


def animation_view(plan: dict | None, scenario: Scenario | None) -> dict:
    """What :func:`aggregation_player` answers, with the timeline itself (a dict) for its ``timeline`` (for
    exports): on the canvas, the whole fabric or a group alone (the dict's ``nodes``: the fabric's node of each
    drawn node); on a large fabric's overview, no elements (it plays on the animated tree's overview figure)."""
    played, shown = _animation(plan, scenario)
    if played is None:
        return shown
    try:
        timeline = _held(aggregation_handle(*played)[0], played[:4]).to_dict()
    except VizcollError as exc:
        return _flagged(f"⚠ {exc}", shown["elements"])
    if shown["elements"] and played[4] != WHOLE:
        timeline = {**timeline, "nodes": view_of(Scenario(**played[0]["source"]), played[4]).kept.tolist()}
    return shown | {"timeline": timeline, "summary": anim_summary(timeline["summary"])}


def _flagged(flag: str, elements: list, flag_class: str = "flag warn") -> dict:
    """The answer of :func:`aggregation_player` without a handle or a summary (yet): the ``flag`` and the
    canvas ``elements``."""
    return {"timeline": None, "flag": flag, "flag_class": flag_class, "elements": elements, "summary": ""}


def _animation(plan: dict | None, scenario: Scenario | None) -> tuple[tuple | None, dict]:
    """(what plays: the arguments of :func:`aggregation_handle`, else None; the answer of
    :func:`aggregation_player` but the handle and the summary) of the animated tree on the part of the fabric the
    page draws (nothing without a plan)."""
    view = _view(plan, scenario)
    if view is None:
        return None, (_flagged(_problem(plan), []) if plan else {})
    scenario, key, topo = view
    which = plan["anim"]
    drawn = drawn_view(scenario, PAGE)
    on_canvas = drawn.overview is None and drawn.topo.n_nodes <= SMALL_LIMIT
    elements = cytoscape_elements(drawn.topo, pos=drawn.pos) if on_canvas else []
    try:
        text = (flag_type_two if which == TYPE2 else flag_type_one)(key, plan, topo)
    except VizcollError as exc:
        return None, _flagged(f"⚠ {exc}", elements)
    flag_class = "flag warn" if text.startswith("⚠") else "flag"
    if drawn.overview is None and not on_canvas:
        note = (
            f"{drawn.name} alone has {drawn.topo.n_nodes:,} nodes: the aggregation plays node by node on parts "
            f"of up to {SMALL_LIMIT:,} nodes. Choose the overview or a smaller part."
        )
        return None, _flagged("\n".join(filter(None, [text, note])), elements, flag_class)
    if which == TYPE2 and not type_two_summary(key, plan["routes"])["ok"]:
        return None, _flagged(text, elements, flag_class)
    return (key, which, plan["kind"], plan["routes"], drawn.part), _flagged(text, elements, flag_class)


def compared_trees(plan: dict | None, scenario: Scenario | None, compare: str) -> tuple[Lockstep, list[dict], list]:
    """(the side-by-side run, the two players' handles, the canvas's elements) of the animated tree and the type I
    tree of kind ``compare`` on the same communicator, fabric and cost, aggregating on one clock; VizcollError when
    either cannot play or the page draws the fabric as a figure (side by side is drawn node by node)."""
    played, shown = _animation(plan, scenario)
    if played is None:
        raise VizcollError((shown.get("flag") or "no aggregation to play").removeprefix("⚠ "))
    elements = shown["elements"]
    if not elements:
        raise VizcollError(
            f"side by side draws the aggregations node by node, on parts of up to {SMALL_LIMIT:,} nodes: choose a "
            'part under "draw the fabric"'
        )
    key, which, kind, routes, part = played
    runs = [played, (key, TYPE1, compare, routes, part)]
    handles = [aggregation_handle(*run)[0] for run in runs]
    timelines = [_held(handle, run[:4]) for handle, run in zip(handles, runs, strict=True)]
    names = tuple("min-cost type II" if run[1] == TYPE2 else tree_name(run[2], key["k"]) for run in runs)
    return lockstep(*timelines, names), handles, elements


@cached
def aggregation_handle(key: dict, which: str, kind: str, routes: str, part: str) -> tuple[dict, str]:
    """(the player's handle, the summary) of the aggregation along the animated tree on ``part`` of the fabric
    (cached). The handle is the timeline's (:func:`aggregation_core`) with the overview's frames
    (:func:`~vizcoll.sim.overview.overview_frames`) when ``part`` is the overview, the fabric's node of each drawn
    node (``nodes``) when it is a group alone."""
    scenario = Scenario(**key["source"])
    core = aggregation_core(key, which, kind, routes)
    timeline = _held(core, (key, which, kind, routes))
    handle = dict(core)
    view = view_of(scenario, part)
    if view.overview is not None:
        handle["overview"] = overview_frames(timeline, topology_of(scenario), view.overview)
    elif view.part != WHOLE:
        handle["nodes"] = view.kept.tolist()
    return handle, anim_summary(timeline.summary)


def aggregation_ready(plan: dict, scenario: Scenario) -> bool:
    """Whether the aggregation of ``plan``'s animated tree is simulated already (in this process or the shared
    cache): another part of the fabric then plays it at once (False outside an app)."""
    return is_cached(aggregation_core, engine_key(scenario, plan), plan["anim"], plan["kind"], plan["routes"])


@cached
def aggregation_core(key: dict, which: str, kind: str, routes: str) -> dict:
    """The player's handle of the aggregation along the animated tree on any part of the fabric (cached: the
    simulation of a paper-scale tree takes seconds; another part of the fabric reads the same timeline): the
    timeline simulated once and left in the shared cache by its ref
    (:func:`~vizcoll.ui.components.player.player_data`)."""
    return player_data(timeline_of(key, which, kind, routes))


def _held(handle: dict, played: tuple) -> Timeline:
    """The timeline of ``handle`` (of the aggregation of ``played``: key, which, kind, routes) from the shared
    cache, simulated again should that have let it go (the same run: the same ref)."""
    if not holds_timeline(handle["ref"]):
        player_data(timeline_of(*played))
    return player_timeline(handle)


def step_stylesheet(step, timeline, plan: dict | None, scenario: Scenario | None) -> list[dict]:
    """Stylesheet for one player step: every vertex's state on its node, this step's hops in orange (on the nodes
    the handle's ``nodes`` name when the canvas draws a group alone); no update for a handle played on the
    overview (the browser draws its steps)."""
    if isinstance(timeline, dict) and "overview" in timeline:
        return no_update
    sheet = base_stylesheet()
    view = _view(plan, scenario) if timeline else None
    if view is None:
        return sheet
    try:
        tl, step = timeline_at(timeline, step)
        names, drawn = _drawn(timeline.get("nodes"), view[2].names)
        events = tl.active_at(step) if step >= 0 else []
        links = list(dict.fromkeys(lid for e in events for lid in e.path_links))
        receivers = list(dict.fromkeys(int(drawn[e.dst]) for e in events if e.dst >= 0 and e.path_links))
        state = {
            int(drawn[tl.entities[key]["node"]]): value
            for key, value in tl.state_at(step).items()
            if key in tl.entities
        }
        state.pop(-1, None)  # vertices on nodes the canvas does not draw (outside the group)
        root = next((int(drawn[e["node"]]) for e in tl.entities.values() if e.get("vertex") == 0), -1)
        return (
            sheet
            + aggregation_stylesheet(state, names, root if root >= 0 else None)
            + state_stylesheet({}, links, [r for r in receivers if r >= 0])
        )
    except (VizcollError, KeyError, TypeError, ValueError, IndexError, AttributeError):
        return sheet  # a malformed timeline from the browser, or one of another fabric


def _drawn(nodes, names: list[str]) -> tuple[list[str], np.ndarray]:
    """(the canvas's node names, its node of each fabric node or -1) for a handle's ``nodes`` (a group drawn alone;
    None: the whole fabric); ValueError for nodes the fabric does not have (a forged handle)."""
    if nodes is None:
        return names, np.arange(len(names))
    kept = np.asarray(nodes, dtype=np.int64)
    if kept.ndim != 1 or not ((kept >= 0) & (kept < len(names))).all():
        raise ValueError("nodes of another fabric")
    index = np.full(len(names), -1, dtype=np.int64)
    index[kept] = np.arange(len(kept))
    return [names[n] for n in kept.tolist()], index
