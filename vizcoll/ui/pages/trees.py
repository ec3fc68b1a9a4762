"""The trees page: aggregation trees for hardware collectives, compared, mapped on the fabric and animated.

One communicator (``nprocs`` processes placed ``ppn`` per node) on one fabric:
the type I trees (k-ary, k-nomial, Zhao's and the hierarchical k-nomial) side
by side with the type II tree (in the switches), the chosen tree drawn
logically and on the links, the width model F(k) with k* and the selection
table, the physical vs the minimum-cost type II tree, and an aggregation (up
the tree, result broadcast down) with the player.

**Broken links.** Trees are built and mapped on the intact fabric. A tree
whose routes cross a broken link is flagged (its packets would be lost there)
and the animation waits; "Rebuild avoiding broken links" keeps every type I
tree's shape and mapping and routes its edges again over live links (the type
II tree, which lives in the switches, is built again on the live fabric).
Edges without any live route are reported with the processes they cut off.
"""

from __future__ import annotations

import math
from urllib.parse import parse_qsl

import dash_cytoscape as cyto
import numpy as np
import plotly.graph_objects as go
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.comm import Placement, place
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.trees.aggregation import simulate_aggregation
from vizcoll.trees.cost import CostParams, kopt, selection_table
from vizcoll.trees.metrics import Router, edge_routes, map_tree, process_ports, tree_metrics
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import (
    hier_knomial_tree,
    hierarchy_from_topology,
    kary_tree,
    knomial_tree,
    leaf_switches,
    vertex_ranks,
    zhao_tree,
)
from vizcoll.trees.typetwo import type_two_tree
from vizcoll.ui import ids
from vizcoll.ui.cache import memo
from vizcoll.ui.calls import fabric, hops_of, parse_broken, topology_of
from vizcoll.ui.components.player import pid, player, register_player, timeline_at
from vizcoll.ui.figures.topology import SMALL_LIMIT, base_stylesheet, cytoscape_elements, state_stylesheet
from vizcoll.ui.figures.trees import AGG_COLOURS, aggregation_stylesheet, fk_figure, logical_tree_figure, packets_figure
from vizcoll.ui.forms import number

__all__ = ["layout", "register", "DEFAULTS", "KINDS"]

# a 3-level fat tree of 4-port switches with 16 processes and 4-ary trees: the paper's Fig. 7 setting
DEFAULTS = {"spec": "fat-tree:radix=4,levels=3", "nprocs": "16", "ppn": "1", "order": "linear", "kind": "kary",
            "k": "4", "broken": "", "degree": "4", "l": "0.28", "delta": "4", "theta": "0.01", "beta": "16000",
            "gamma": "3.75e-05", "S": "0", "eps": "0.1"}
KINDS = {"kary": "k-ary", "knomial": "k-nomial", "zhao": "Zhao et al. (k-nomial over group leaders)",
         "hier-knomial": "hierarchical k-nomial"}
BUILDERS = {"kary": lambda P, k, groups: kary_tree(P, k), "knomial": lambda P, k, groups: knomial_tree(P, k),
            "zhao": lambda P, k, groups: zhao_tree(groups, k),
            "hier-knomial": lambda P, k, groups: hier_knomial_tree(groups, k)}
COST_FIELDS = (("l", "l (μs per link)"), ("delta", "δ (hops of a route)"), ("theta", "θ (μs per packet)"),
               ("beta", "β (bytes per μs)"), ("gamma", "γ (μs per byte)"), ("S", "S (message bytes)"),
               ("eps", "ε (μs, for F(k))"))
NUMBER_IDS = {"nprocs": ids.TREES_NPROCS, "ppn": ids.TREES_PPN, "k": ids.TREES_K, "degree": ids.TREES_DEGREE,
              "l": ids.TREES_L, "delta": ids.TREES_DELTA, "theta": ids.TREES_THETA, "beta": ids.TREES_BETA,
              "gamma": ids.TREES_GAMMA, "S": ids.TREES_S, "eps": ids.TREES_EPS}
TYPE1, TYPE2 = "type1", "type2"
GRAPH_CONFIG = {"toImageButtonOptions": {"format": "svg", "filename": "vizcoll-trees"}}
METRIC_KEYS = ("height", "radius", "edge_links", "link_packets", "max_link", "max_switch_link", "cross_group",
               "latency_us", "flags")


def tree_name(kind: str, k: int) -> str:
    """``"4-ary"``, ``"4-nomial"``, ``"Zhao 4-nomial"``, ``"hierarchical 4-nomial"``."""
    return {"kary": f"{k}-ary", "knomial": f"{k}-nomial", "zhao": f"Zhao {k}-nomial",
            "hier-knomial": f"hierarchical {k}-nomial"}[kind]


# ---------------------------------------------------------------- parameters


def read_params(spec, nprocs, ppn, order, kind, k, broken, degree, l, delta, theta, beta, gamma, S, eps) -> dict:  # noqa: E741
    """Checked, canonical page parameters; raises VizcollError with a message for the page."""
    if kind not in KINDS:
        raise VizcollError(f"unknown tree kind {kind!r}; choose one of {', '.join(KINDS)}")
    if order not in ("linear", "random"):
        raise VizcollError(f"placement order must be linear or random, got {order!r}")
    params = {
        "spec": (spec or "").strip(), "broken": parse_broken(broken), "order": order, "kind": kind,
        "nprocs": number(nprocs, "processes", int, 2), "ppn": number(ppn, "processes per node", int, 1),
        "k": number(k, "k", int, 2), "degree": number(degree, "the type II degree bound", int, 2),
        "cost": {"l": number(l, "l"), "delta": number(delta, "δ", int, 0), "theta": number(theta, "θ"),
                 "beta": number(beta, "β"), "gamma": number(gamma, "γ"), "S": number(S, "S", int, 0)},
        "eps": number(eps, "ε", float, 0), "rebuilt": False,
    }
    cost = cost_of(params)
    if cost.l <= 0:
        raise VizcollError("l (μs per link) must be > 0")
    if cost.b <= 0:
        raise VizcollError("b = θ + S/β + S·γ must be > 0: raise θ or S")
    topo = topology_of(fabric(params["spec"], params["broken"]))  # checks the spec and the link ids
    placement_of(params, topo)
    return params


def cost_of(params: dict) -> CostParams:
    return CostParams(**params["cost"], P=params["nprocs"], k=params["k"])


def placement_of(params: dict, topo: Topology) -> Placement:
    return place(topo, params["nprocs"], params["ppn"], params["order"], seed=0)


def _intact(params: dict) -> Scenario:
    return fabric(params["spec"], [])


def _live(params: dict) -> Scenario:
    return fabric(params["spec"], params["broken"])


def _routing(params: dict) -> Scenario:
    """The fabric the routes are computed on: intact as built, live after a rebuild."""
    return _live(params) if params["rebuilt"] else _intact(params)


# ---------------------------------------------------------------- engine calls (cached)
def _vertex_switch(topo: Topology, placement: Placement, ports: np.ndarray, ranks: list[int]) -> np.ndarray:
    """The switch each vertex's process is attached to (through its own port), as a node index."""
    node = placement.node[ranks]
    port = ports[ranks]
    ends = np.where(topo.link_a[np.maximum(port, 0)] == node, topo.link_b[np.maximum(port, 0)],
                    topo.link_a[np.maximum(port, 0)])
    return np.where(port >= 0, ends, leaf_switches(topo, node))


def _type_one(params: dict, kind: str) -> dict:
    intact = topology_of(_intact(params))
    placement = placement_of(params, intact)
    tree = BUILDERS[kind](params["nprocs"], params["k"], hierarchy_from_topology(intact, placement))
    ranks = vertex_ranks(tree)
    switch = _vertex_switch(intact, placement, process_ports(intact, placement), ranks)
    group = intact.attr("group")[placement.node[ranks]]
    group = group if np.all(group >= 0) else switch
    scenario = _routing(params)
    topo, table = topology_of(scenario), hops_of(scenario)
    metrics = tree_metrics(tree, topo, placement, table=table, params=cost_of(params), k=params["k"])
    mapped = map_tree(tree, placement)
    routes = edge_routes(mapped, topo, Router(topo, table), process_ports(topo, placement)[ranks])
    route_ids = [None if r is None else [int(topo.link_id[x]) for x in r] for r in routes]
    broken = set(params["broken"])
    crossing = [] if params["rebuilt"] else [
        {"child": v, "parent": tree.parent[v], "links": sorted(broken & set(r))}
        for v, r in enumerate(route_ids) if r and broken & set(r)]
    cross_links: dict[int, int] = {}
    for v, r in enumerate(route_ids):
        if r and group[v] != group[tree.parent[v]]:
            for lid in r:
                cross_links[lid] = cross_links.get(lid, 0) + 1
    return {"tree": mapped.to_dict(), "ranks": ranks, "routes": route_ids,
            "crossing": crossing, "cross_links": cross_links, "switch": [intact.names[s] for s in switch.tolist()],
            "metrics": {key: metrics[key] for key in METRIC_KEYS}}


def type_one(params: dict, kind: str) -> dict:
    """A type I tree of ``kind``: the tree (mapped), its routes, metrics, flagged edges and cross-group links."""
    return memo(_type_one, params, kind)


def _type_two(params: dict) -> dict:
    scenario = _routing(params)
    topo, table = topology_of(scenario), hops_of(scenario)
    placement = placement_of(params, topology_of(_intact(params)))
    result = type_two_tree(topo, placement.node, table=table, degree=params["degree"])
    if not result.ok:
        return {"ok": False, "reason": result.reason}
    cost = cost_of(params)
    metrics = {name: {key: m[key] for key in METRIC_KEYS}
               for name, m in (("physical", tree_metrics(result.physical, topo, table=table, params=cost)),
                               ("tree", tree_metrics(result.tree, topo, table=table, params=cost)))}
    return {"ok": True, "root": result.root, "physical": result.physical.to_dict(), "tree": result.tree.to_dict(),
            "physical_switches": result.physical_switches.tolist(), "tree_switches": result.tree_switches.tolist(),
            "vertex_ranks": result.vertex_ranks(), "links": list(result.links), "metrics": metrics,
            "crossing": [] if params["rebuilt"] else sorted(set(params["broken"]) & set(result.links)),
            "candidates": result.candidates}


def type_two(params: dict) -> dict:
    """The physical and minimum-cost type II trees of the communicator (or why none could be built)."""
    return memo(_type_two, params)


def _timeline(params: dict, which: str) -> dict:
    scenario = _live(params)
    topo, table = topology_of(scenario), hops_of(scenario)
    cost = cost_of(params)
    if which == TYPE2:
        built = type_two(params)
        tree, ranks = Tree.from_dict(built["tree"]), built["vertex_ranks"]
        title = f"Aggregation (sum) in the switches: min-cost type II tree, degree ≤ {params['degree']}"
    else:
        built = type_one(params, params["kind"])
        tree, ranks = Tree.from_dict(built["tree"]), [[r] for r in built["ranks"]]
        title = f"Aggregation (sum) along the {tree_name(params['kind'], params['k'])} tree"
    return simulate_aggregation(topo, tree, ranks, latency=cost.l, theta=cost.b, table=table,
                                title=title).to_dict()


def timeline_of(params: dict, which: str) -> dict:
    return memo(_timeline, params, which)


# ---------------------------------------------------------------- layout
def _field(label: str, component) -> html.Div:
    return html.Div(className="row", children=[html.Label(label, className="label"), component])


def _number_input(id_: str, value: str, **kw) -> dcc.Input:
    """A number box showing ``value`` (raises ValueError if it is not a finite number)."""
    parsed = float(value) if "." in value or "e" in value.lower() else int(value)
    if not math.isfinite(parsed):
        raise ValueError(value)
    return dcc.Input(id=id_, type="number", value=parsed, **kw)


def layout(query: str = "") -> html.Div:
    """The page; a URL query (spec, nprocs, ppn, order, kind, k, broken, degree, l, delta, theta, beta, gamma,
    S, eps) pre-fills the controls."""
    values = DEFAULTS | {k: v for k, v in parse_qsl(query.lstrip("?")) if k in DEFAULTS}
    numbers = {}
    for key, id_ in NUMBER_IDS.items():
        try:
            numbers[key] = _number_input(id_, values[key], debounce=True)
        except ValueError:  # an unusable number in the URL: the default
            numbers[key] = _number_input(id_, DEFAULTS[key], debounce=True)
    sidebar = html.Div(className="sidebar", children=[
        html.Details(open=True, className="panel", children=[
            html.Summary("Fabric and communicator"),
            dcc.Input(id=ids.TREES_SPEC, value=values["spec"], className="wide", debounce=True,
                      placeholder="fat-tree:radix=4,levels=3, sunway-supernode"),
            _field("processes", numbers["nprocs"]),
            _field("processes per node", numbers["ppn"]),
            _field("placement", dcc.RadioItems(id=ids.TREES_ORDER, options=["linear", "random"],
                                               value=values["order"], inline=True)),
            _field("broken links", dcc.Input(id=ids.TREES_BROKEN, value=values["broken"],
                                             placeholder="link ids: 3, 17")),
        ]),
        html.Details(open=True, className="panel", children=[
            html.Summary("Tree"),
            _field("kind", dcc.Dropdown(id=ids.TREES_KIND, options=[{"label": v, "value": k} for k, v in KINDS.items()],
                                        value=values["kind"], clearable=False, className="grow")),
            _field("k (width / base)", numbers["k"]),
            _field("type II degree ≤", numbers["degree"]),
        ]),
        html.Details(open=False, className="panel", children=[
            html.Summary("Cost model (paper defaults)"),
            *[_field(label, numbers[key]) for key, label in COST_FIELDS],
            html.P(className="info", children=(
                "Eq. 2: T = r·l + h·k·b with b = θ + S'/β + S*·γ (S' = S* = S here); F(k) uses a = δ·l. "
                "The defaults model the paper's Sunway supernode: a = 1.12 μs, b = 0.01 μs.")),
        ]),
        html.Button("Build", id=ids.TREES_BUILD, n_clicks=0),
        html.Div(id=ids.TREES_MESSAGE, className="message", role="alert"),
        html.P(className="info", children=(
            "Type I trees reduce in the processes' NICs (one vertex per process); type II trees in the switches. "
            "Height = most tree edges to the root, radius = most links to the root. Click a link on the topology "
            "page to learn its id, then list it under broken links.")),
    ])
    main = html.Div(className="main", children=[
        dcc.Store(id=ids.TREES_PARAMS),
        html.Div(className="panel", children=[html.H3("Trees compared (same communicator, same k)"),
                                              html.Div(id=ids.TREES_COMPARE)]),
        html.Div(className="pair", children=[dcc.Graph(id=ids.TREES_LOGICAL, config=GRAPH_CONFIG),
                                             dcc.Graph(id=ids.TREES_MAPPED, config=GRAPH_CONFIG)]),
        html.Div(id=ids.TREES_MAPPED_INFO, className="info"),
        html.Div(className="pair", children=[
            dcc.Graph(id=ids.TREES_FK, config=GRAPH_CONFIG),
            html.Div(className="table-box", children=[
                html.H3("Type I or type II? (Table 3, eq. 7–9)"),
                html.Div(id=ids.TREES_SELECTION),
                html.Div(id=ids.TREES_FK_INFO, className="info")])]),
        html.Div(id=ids.TREES_T2_INFO, className="panel"),
        html.Div(className="pair", children=[dcc.Graph(id=ids.TREES_T2_PHYSICAL, config=GRAPH_CONFIG),
                                             dcc.Graph(id=ids.TREES_T2_MINCOST, config=GRAPH_CONFIG)]),
        html.Div(className="panel player-panel", children=[
            html.H3("Aggregation: partial results up the tree, the result broadcast down"),
            _field("animate", dcc.RadioItems(id=ids.TREES_ANIM_TREE, value=TYPE1, inline=True, options=[
                {"label": "the chosen type I tree", "value": TYPE1},
                {"label": "the min-cost type II tree", "value": TYPE2}])),
            html.Div(id=ids.TREES_FLAG, className="flag", role="status"),
            html.Button("Rebuild avoiding broken links", id=ids.TREES_REBUILD, n_clicks=0, style={"display": "none"}),
            cyto.Cytoscape(id=ids.TREES_CANVAS, elements=[], layout={"name": "preset", "fit": True},
                           stylesheet=base_stylesheet(), style={"width": "100%", "height": "520px"},
                           minZoom=0.05, maxZoom=4, boxSelectionEnabled=False, autoungrabify=True),
            _legend(),
            player(ids.TREES_PLAYER),
            html.Div(id=ids.TREES_ANIM_SUMMARY, className="info"),
        ]),
    ])
    return html.Div(className="page trees-page", children=[html.Div(className="columns", children=[sidebar, main])])


def _legend() -> html.Div:
    items = [("own value, not sent", "value"), ("partial result", "partial"), ("sent, waits for the result", "sent"),
             ("has the final result", "result"), ("blocked (broken edge below)", "blocked")]
    return html.Div(id=ids.TREES_LEGEND, className="legend", children=[
        *[html.Span([html.Span(className="swatch ring", style={"borderColor": AGG_COLOURS[c]}), label])
          for label, c in items],
        html.Span([html.Span(className="swatch legend-root", style={"background": "#f5b800"}), "root"]),
        html.Span([html.Span(className="swatch legend-active"), "packet on the move"]),
        html.Span([html.Span(className="swatch legend-broken"), "broken link"])])


# ---------------------------------------------------------------- pure views
def _fmt(value, digits: int = 2) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"


def _busiest(m: dict | None) -> str:
    return "—" if not m else f"{m['packets']:,} ({m['ends'][0]}–{m['ends'][1]})"


def comparison_rows(params: dict) -> list[dict]:
    """One row per tree: the type I kinds for ``params`` and the min-cost type II tree."""
    rows = []
    for kind in KINDS:
        built = type_one(params, kind)
        rows.append({"tree": tree_name(kind, params["k"]), "kind": kind, **built["metrics"],
                     "crossing": len(built["crossing"])})
    two = type_two(params)
    if two["ok"]:
        rows.append({"tree": f"type II min-cost, degree ≤ {params['degree']} ({len(two['tree_switches'])} "
                             "switches)", "kind": TYPE2, **two["metrics"]["tree"], "cross_group": {},
                     "crossing": len(two["crossing"])})
    return rows


def comparison_table(params: dict) -> html.Table:
    rows = comparison_rows(params)
    groups = any("group" in r["cross_group"] for r in rows)
    hurt = any(r["flags"] or r["crossing"] for r in rows)
    head = ["tree", "height", "radius (links)", "max packets on a link", "max packets switch–switch",
            "packets between leaf switches", *(["packets between groups"] if groups else []),
            "modelled latency (μs, eq. 2)", *(["broken links"] if hurt else [])]
    body = []
    for r in rows:
        cells = [r["tree"], _fmt(r["height"]), _fmt(r["radius"]), _busiest(r["max_link"]),
                 _busiest(r["max_switch_link"]), _fmt(r["cross_group"].get("switch")),
                 *([_fmt(r["cross_group"].get("group"))] if groups else []), _fmt(r["latency_us"], 3)]
        if hurt:
            cells.append(f"⚠ {r['crossing']} edge(s) cross them" if r["crossing"] else
                         f"✕ {len(r['flags'])} edge(s) cut" if r["flags"] else "avoided")
        chosen = r["kind"] == params["kind"]
        body.append(html.Tr([html.Td(c) for c in cells], className="chosen" if chosen else ""))
    return html.Table(className="summary compare", children=[html.Thead(html.Tr([html.Th(h) for h in head])),
                                                             html.Tbody(body)])


def selection_view(params: dict) -> html.Table:
    """Table 3 (the tree type and width per switch degree and packet size) for the page's cost model."""
    rows = memo(_selection, params["cost"], params["nprocs"], params["k"])
    head = html.Tr([html.Th(h) for h in ("switch degree d", "packet bytes", "tree type", "k")])
    body = [html.Tr([html.Td("no type II available" if r["d"] is None else str(r["d"])), html.Td(r["range"]),
                     html.Td(r["type"]), html.Td(str(r["k"]))]) for r in rows]
    return html.Table(className="summary", children=[html.Thead(head), html.Tbody(body)])


def _selection(cost: dict, nprocs: int, k: int) -> list[dict]:
    return selection_table(CostParams(**cost, P=nprocs, k=k), P=nprocs)


def fk_info(params: dict) -> str:
    cost = cost_of(params)
    best = kopt(params["nprocs"], cost.a, cost.b, params["eps"])
    return (f"F is smallest at k* = {best['k_star']} (F* = {best['F_star']:.3f} μs); every k from {best['kmin']} "
            f"to {best['kmax']} is within ε = {params['eps']:g} μs of it. Table 3 for P = {params['nprocs']:,}: "
            "small packets favour a type II tree (short paths), large ones a type I tree (the reduction work "
            "spread over many NICs).")


def _cut_off(tree: Tree, ranks: list[int], flags: list[dict]) -> list[int]:
    """Ranks whose values never reach the root: every vertex below an edge without a live route."""
    order = [f["child"] for f in flags]
    for v in order:
        order.extend(tree.children[v])
    return sorted({ranks[v] for v in order})


def _edge(tree_dict: dict, ranks: list[int], v: int) -> str:
    return f"rank {ranks[v]} → rank {ranks[tree_dict['parent'][v]]}"


def _list(items: list[str], limit: int = 4) -> str:
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


def flag_type_one(params: dict) -> tuple[str, bool]:
    """What the broken links do to the chosen type I tree, and whether it needs a rebuild."""
    kind, broken = params["kind"], params["broken"]
    built = type_one(params, kind)
    ranks, tree = built["ranks"], built["tree"]
    name = f"{tree_name(kind, params['k'])} tree"
    if built["crossing"]:
        links = sorted({lid for c in built["crossing"] for lid in c["links"]})
        edges = [f"{_edge(tree, ranks, c['child'])} over link {', '.join(map(str, c['links']))}"
                 for c in built["crossing"]]
        return (f"⚠ The {name} was mapped on the intact fabric: {len(edges)} of its edges route over broken "
                f"link{'s' * (len(links) > 1)} {', '.join(map(str, links))} ({_list(edges)}). Their packets would "
                "be lost and the root would never get every value. Rebuild: a type I tree's shape and mapping stay "
                "(each rank keeps its NIC), only its routes are computed again over live links.", True)
    if not params["rebuilt"]:
        return (f"No edge of the {name} crosses a broken link." if broken else ""), False
    flags = built["metrics"]["flags"]
    before = type_one(params | {"rebuilt": False}, kind)
    moved = [v for v, (a, b) in enumerate(zip(before["routes"], built["routes"], strict=True))
             if v and a != b and b is not None]
    longer = [f"{_edge(tree, ranks, v)}: {len(built['routes'][v])} links instead of {len(before['routes'][v])}"
              for v in moved if len(built["routes"][v]) != len(before["routes"][v])]
    avoided = f"link{'s' * (len(broken) > 1)} {', '.join(map(str, broken))}"
    if moved:
        text = (f"Rebuilt: the {name} keeps its shape and mapping; {len(moved)} of its edges now take other "
                f"routes over live links, avoiding {avoided}: "
                + (f"{_list(longer)}." if longer else "every new route is as short as the old one."))
    else:
        text = f"Rebuilt: the {name} keeps its shape and mapping; no edge could be routed around {avoided}."
    radius = (before["metrics"]["radius"], built["metrics"]["radius"])
    if None not in radius:
        text += f" Radius {radius[0]} → {radius[1]} links."
    if flags:
        cut = _cut_off(Tree.from_dict(tree), ranks, flags)
        edges = [_edge(tree, ranks, f["child"]) for f in flags]
        alone = _isolated(topology_of(_live(params)), tree["node"])
        why = f" ({_list(alone)} {'have' if len(alone) > 1 else 'has'} no live link left)" if alone else ""
        text = (f"⚠ {text} But {len(flags)} edge(s) have no live route at all{why}: {_list(edges)}. "
                f"Rank{'s' * (len(cut) > 1)} {_list([str(r) for r in cut], 12)} "
                + ("are cut off: their values never reach the root." if len(cut) > 1 else
                   "is cut off: its value never reaches the root."))
    return text, False


def _isolated(topo: Topology, nodes: list[int]) -> list[str]:
    """Names of the tree's nodes without any live link."""
    live = np.bincount(np.r_[topo.link_a[topo.live], topo.link_b[topo.live]], minlength=topo.n_nodes)
    return [topo.names[n] for n in dict.fromkeys(nodes) if live[n] == 0]


def flag_type_two(params: dict) -> tuple[str, bool]:
    two = type_two(params)
    if not two["ok"]:
        return f"⚠ No type II tree: {two['reason']}", False
    if two["crossing"]:
        links = ", ".join(map(str, two["crossing"]))
        return (f"⚠ The type II tree was built on the intact fabric and uses broken link(s) {links}. Rebuild: "
                "its root, physical tree and aggregation switches are chosen again over live links.", True)
    if params["rebuilt"] and params["broken"]:
        return "Rebuilt: the type II tree was built again on the live fabric, avoiding the broken links.", False
    return ("No link of the type II tree is broken." if params["broken"] else ""), False


def anim_summary(s: dict) -> str:
    if s.get("result") is None:
        return (f"No result: {len(s.get('broken_edges', []))} tree edge(s) have no live route, so the root never "
                f"gets every value ({s.get('packets', 0)} packets went up).")
    return (f"Result {s['result']:,} ({s['op']} of every process's rank), expected {s['expected']:,}: "
            f"{'correct ✓' if s['correct'] else 'WRONG ✕'}. Every vertex has it at t = {s['time']:g} μs; "
            f"{s['packets']} packets up, {s['bcast_packets']} down, at most {s['max_link_packets']} upward packets "
            f"on one link; height {s['height']}, radius {s['radius']} links.")


def type_one_figures(params: dict) -> tuple[go.Figure, go.Figure, str]:
    """The chosen tree drawn logically and on the fabric (packets per link, cross-group links dotted)."""
    kind = params["kind"]
    built = type_one(params, kind)
    tree, m = Tree.from_dict(built["tree"]), built["metrics"]
    topo = topology_of(_live(params))
    names = topo.names
    name = tree_name(kind, params["k"])
    hover = [f"rank {r} on {names[n]} (switch {s})<br>depth {d}, {len(kids)} children"
             for r, n, s, d, kids in zip(built["ranks"], tree.node, built["switch"], tree.depth().tolist(),
                                         tree.children, strict=True)]
    logical = logical_tree_figure(tree, built["switch"], f"{name} tree over {tree.size} processes: height "
                                  f"{m['height']}", hover=hover)
    cross = built["cross_links"]
    cross = {lid: n for lid, n in cross.items() if _between_switches(topo, lid)}
    packets_hover = {lid: f"{n} of them between groups" for lid, n in built["cross_links"].items()}
    busiest = m["max_link"]
    title = f"{name} on the fabric: max {busiest['packets']} packets on one link" if busiest else \
        f"{name} on the fabric"
    mapped = packets_figure(topo, m["link_packets"], title, hover=packets_hover, overlay=cross,
                            overlay_name="switch links with packets between groups",
                            marks={f"root: rank {built['ranks'][0]} on {names[tree.node[0]]}": [tree.node[0]]})
    switches, groups = m["cross_group"].get("switch", 0), m["cross_group"].get("group")
    info = (f"Link thickness and colour = aggregation packets (one per tree edge whose route uses the link, both "
            f"directions). {switches} of the {tree.size - 1} tree edges join processes on different leaf switches"
            + (f", {groups} of them different groups (pods, supernodes)" if groups is not None else "")
            + ": the dotted switch links carry packets between groups. Hover a link for its id and load.")
    if built["crossing"]:
        links = sorted({lid for c in built["crossing"] for lid in c["links"]})
        info += (f" ⚠ As built, {len(built['crossing'])} edges route over broken link{'s' * (len(links) > 1)} "
                 f"{', '.join(map(str, links))} (dashed): see the aggregation below to rebuild.")
    return logical, mapped, info


def _between_switches(topo: Topology, link_id: int) -> bool:
    row = topo.link_row(link_id)
    return bool(topo.kind[topo.link_a[row]] == SWITCH and topo.kind[topo.link_b[row]] == SWITCH)


def type_two_figures(params: dict) -> tuple[go.Figure, go.Figure, list]:
    """Physical tree vs minimum-cost derived tree: packets per link and the switches holding an entry."""
    two = type_two(params)
    topo = topology_of(_live(params))
    if not two["ok"]:
        empty = go.Figure().update_layout(height=200, xaxis={"visible": False}, yaxis={"visible": False},
                                          plot_bgcolor="white")
        return empty, empty, [html.H3("Type II trees"), html.P(f"⚠ No type II tree: {two['reason']}")]
    figures = []
    for which, switches, label in (("physical", two["physical_switches"], "Physical tree T"),
                                   ("tree", two["tree_switches"], f"Min-cost tree A (degree ≤ {params['degree']})")):
        m = two["metrics"][which]
        figures.append(packets_figure(
            topo, m["link_packets"], f"{label}: {len(switches)} switches hold an entry, height {m['height']}",
            marks={f"root: {topo.names[two['root']]}": [two["root"]],
                   f"switch with an entry ({len(switches)})": switches}))
    saved = len(two["physical_switches"]) - len(two["tree_switches"])
    info = [html.H3("Type II trees (aggregation in the switches, Algorithm 5)"), html.P(className="info", children=(
        f"Root {topo.names[two['root']]} (one of {two['candidates']} switches with the fewest hops to the farthest "
        f"member). The physical tree T joins every member NIC to the root by shortest paths and aggregates in all "
        f"its {len(two['physical_switches'])} switches; the minimum-cost derived tree A promotes processes to "
        f"ancestors (at most {params['degree']} children per switch) and needs {len(two['tree_switches'])} "
        f"switches: {saved} aggregation-tree entries saved."))]
    return figures[0], figures[1], info


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_player(app, ids.TREES_PLAYER)
    controls = [State(i, "value") for i in (
        ids.TREES_SPEC, ids.TREES_NPROCS, ids.TREES_PPN, ids.TREES_ORDER, ids.TREES_KIND, ids.TREES_K,
        ids.TREES_BROKEN, ids.TREES_DEGREE, ids.TREES_L, ids.TREES_DELTA, ids.TREES_THETA, ids.TREES_BETA,
        ids.TREES_GAMMA, ids.TREES_S, ids.TREES_EPS)]
    app.callback(
        Output(ids.TREES_PARAMS, "data"), Output(ids.TREES_MESSAGE, "children"), Output(ids.TREES_COMPARE, "children"),
        Input(ids.TREES_BUILD, "n_clicks"), Input(ids.TREES_REBUILD, "n_clicks"), *controls,
        State(ids.TREES_PARAMS, "data"),
    )(build)
    app.callback(
        Output(ids.TREES_LOGICAL, "figure"), Output(ids.TREES_MAPPED, "figure"),
        Output(ids.TREES_MAPPED_INFO, "children"), Input(ids.TREES_PARAMS, "data"),
    )(render_type_one)
    app.callback(
        Output(ids.TREES_FK, "figure"), Output(ids.TREES_SELECTION, "children"), Output(ids.TREES_FK_INFO, "children"),
        Input(ids.TREES_PARAMS, "data"),
    )(render_width)
    app.callback(
        Output(ids.TREES_T2_PHYSICAL, "figure"), Output(ids.TREES_T2_MINCOST, "figure"),
        Output(ids.TREES_T2_INFO, "children"), Input(ids.TREES_PARAMS, "data"),
    )(render_type_two)
    app.callback(
        Output(pid(ids.TREES_PLAYER, "timeline"), "data"), Output(ids.TREES_FLAG, "children"),
        Output(ids.TREES_FLAG, "className"), Output(ids.TREES_REBUILD, "style"), Output(ids.TREES_CANVAS, "elements"),
        Output(ids.TREES_ANIM_SUMMARY, "children"),
        Input(ids.TREES_PARAMS, "data"), Input(ids.TREES_ANIM_TREE, "value"),
    )(animate)
    app.callback(
        Output(ids.TREES_CANVAS, "stylesheet"),
        Input(pid(ids.TREES_PLAYER, "step"), "value"), Input(pid(ids.TREES_PLAYER, "timeline"), "data"),
        State(ids.TREES_PARAMS, "data"),
    )(render_step)


def build(_build, _rebuild, spec, nprocs, ppn, order, kind, k, broken, degree, l, delta, theta, beta, gamma,  # noqa: E741
          S, eps, stored):
    """Check the controls (or take the built parameters for a rebuild), build every tree (cached), compare."""
    try:
        if ctx.triggered_id == ids.TREES_REBUILD and stored:
            params = stored | {"rebuilt": True}
        else:
            params = read_params(spec, nprocs, ppn, order, kind, k, broken, degree, l, delta, theta, beta, gamma,
                                 S, eps)
        table = comparison_table(params)
    except VizcollError as exc:
        return no_update, f"⚠ {exc}", no_update
    return params, "", table


def render_type_one(params):
    if not params:
        return no_update, no_update, no_update
    return type_one_figures(params)


def render_width(params):
    if not params:
        return no_update, no_update, no_update
    cost = cost_of(params)
    return (fk_figure(params["nprocs"], cost.a, cost.b, params["eps"], params["k"]), selection_view(params),
            fk_info(params))


def render_type_two(params):
    if not params:
        return no_update, no_update, no_update
    return type_two_figures(params)


def animate(params, which):
    """The aggregation timeline of the animated tree, or the flag that stops it until the tree is rebuilt."""
    if not params:
        return (no_update,) * 6
    which = which or TYPE1
    text, needs_rebuild = (flag_type_two if which == TYPE2 else flag_type_one)(params)
    flag_class = "flag warn" if text.startswith("⚠") else "flag"
    button = {"display": "inline-block" if needs_rebuild else "none"}
    topo = topology_of(_live(params))
    if topo.n_nodes > SMALL_LIMIT:
        return None, f"The animation is drawn for fabrics up to {SMALL_LIMIT:,} nodes.", "flag", button, [], ""
    elements = cytoscape_elements(topo)
    if needs_rebuild:
        return None, text, flag_class, button, elements, "Rebuild the tree to play the aggregation."
    if which == TYPE2 and not type_two(params)["ok"]:
        return None, text, flag_class, button, elements, ""
    try:
        timeline = timeline_of(params, which)
    except VizcollError as exc:  # e.g. more events than a timeline may hold
        return None, f"⚠ {exc}", "flag warn", button, elements, ""
    return timeline, text, flag_class, button, elements, anim_summary(timeline["summary"])


def render_step(step, timeline, params):
    """Stylesheet for one player step: every vertex's state on its node, this step's hops in orange."""
    sheet = base_stylesheet()
    if not timeline or not params:
        return sheet
    tl, step = timeline_at(timeline, step)
    events = tl.active_at(step) if step >= 0 else []
    links = list(dict.fromkeys(lid for e in events for lid in e.path_links))
    receivers = list(dict.fromkeys(e.dst for e in events if e.dst >= 0 and e.path_links))
    state = {tl.entities[key]["node"]: value for key, value in tl.state_at(step).items() if key in tl.entities}
    root = next((e["node"] for e in tl.entities.values() if e.get("vertex") == 0), None)
    names = topology_of(_live(params)).names
    return sheet + aggregation_stylesheet(state, names, root) + state_stylesheet({}, links, receivers)
