"""The trees page: aggregation trees of the shared scenario's communicator, compared, mapped and animated.

The page looks at the one shared :class:`~vizcoll.scenario.Scenario` (the
shell's store): its fabric is the scenario's (:func:`topology_of`, breaks
applied; :func:`fabric_of`, intact), its processes are one of the scenario's
communicators (``comm``; :data:`WORLD` = every process of the scenario,
:meth:`Scenario.placement`). On them: the type I trees (k-ary, k-nomial,
Zhao's and the hierarchical k-nomial) side by side with the type II tree (in
the switches), the chosen tree drawn logically and on the links, the width
model F(k) with k* and the selection table, the physical vs the minimum-cost
type II tree, and an aggregation (up the tree, result broadcast down) with
the player.

**Parameters** live in ``scenario.params["trees"]`` (:data:`DEFAULTS`).
Every control change is checked on the server (:func:`read_params`; the
browser is untrusted) and written to the scenario, so the views, the share
link and a reload follow it; the views are computed from the scenario store.
A quick preset (:data:`PRESETS`) *replaces* the shared scenario (the badge
shows it).

**Broken links.** A tree's shape and mapping (which rank sits where) come
from the intact fabric. Its routes are, by default (``routes = "live"``),
computed over the live links, so every tree avoids the breaks; an edge left
without any live route is flagged and the ranks it cuts off are named.
``routes = "intact"`` shows the tree as built on the intact fabric: edges
whose route crosses a broken link are flagged and the animation waits.
Clicking a link of the drawing breaks or repairs it in the scenario (every
page follows).

**Limits.** Trees of up to :data:`MAX_PROCESSES` processes (a larger
communicator gets a message pointing to ``python -m vizcoll tree``), the
aggregation animated up to :data:`MAX_ANIMATED` processes on fabrics up to
``SMALL_LIMIT`` nodes, the logical tree drawn for its first 512 vertices;
k and the type II degree up to :data:`MAX_K` / :data:`MAX_DEGREE`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import dash_cytoscape as cyto
import numpy as np
import plotly.graph_objects as go
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.comm import Placement
from vizcoll.errors import VizcollError
from vizcoll.scenario import WORLD, Scenario
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.trees.aggregation import simulate_aggregation
from vizcoll.trees.cost import CostParams, kopt, selection_table
from vizcoll.trees.metrics import mapped_type_one, tree_metrics
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import hier_knomial_tree, hierarchy_from_topology, kary_tree, knomial_tree, zhao_tree
from vizcoll.trees.typetwo import type_two_tree
from vizcoll.ui import calls, ids
from vizcoll.ui.cache import memo
from vizcoll.ui.calls import (
    SCENARIO,
    changed,
    checked,
    fabric_of,
    hops_of,
    page_params,
    remembered,
    store_output,
    tapped_link,
    topology_of,
)
from vizcoll.ui.components.kit import field
from vizcoll.ui.components.player import pid, player, register_player, timeline_at
from vizcoll.ui.figures.topology import SMALL_LIMIT, base_stylesheet, cytoscape_elements, state_stylesheet
from vizcoll.ui.figures.trees import AGG_COLOURS, aggregation_stylesheet, fk_figure, logical_tree_figure, packets_figure
from vizcoll.ui.forms import number

__all__ = ["PAGE", "layout", "register", "DEFAULTS", "KINDS", "PRESETS", "MAX_K", "MAX_DEGREE", "MAX_PROCESSES",
           "MAX_ANIMATED",
           "read_params", "shown_params", "tree_plan", "update", "refresh", "render_compare", "render_type_one",
           "render_width", "render_type_two", "animate", "render_step"]

PAGE = "trees"
# the page's own components (the others are the TREES_* ids of vizcoll.ui.ids)
TREES_COMM = "trees-comm"
TREES_ROUTES = "trees-routes"
TREES_CONTROLS = "trees-controls"
TREES_COST_CONTROLS = "trees-cost-controls"
TREES_FABRIC = "trees-fabric"
TREES_PRESET = "trees-preset"
TREES_USE_PRESET = "trees-use-preset"
TREES_PRESETS = "trees-presets"

TYPE1, TYPE2 = "type1", "type2"
LIVE, INTACT = "live", "intact"
# the page's parameters (scenario.params["trees"]): on the default scenario (a 3-level fat tree of 4-port
# switches, every one of its 16 processes) 4-ary trees give the paper's Fig. 7 setting
DEFAULTS = {"comm": WORLD, "kind": "kary", "k": 4, "degree": 4, "routes": LIVE, "l": 0.28, "delta": 4,
            "theta": 0.01, "beta": 16000.0, "gamma": 3.75e-05, "S": 0, "eps": 0.1, "anim": TYPE1}
KINDS = {"kary": "k-ary", "knomial": "k-nomial", "zhao": "Zhao et al. (k-nomial over group leaders)",
         "hier-knomial": "hierarchical k-nomial"}
ROUTES = {LIVE: "avoid broken links (routes over live links)",
          INTACT: "as built on the intact fabric (flag the breaks)"}
ANIM = {TYPE1: "the chosen type I tree", TYPE2: "the min-cost type II tree"}
BUILDERS = {"kary": lambda P, k, groups: kary_tree(P, k), "knomial": lambda P, k, groups: knomial_tree(P, k),
            "zhao": lambda P, k, groups: zhao_tree(groups, k),
            "hier-knomial": lambda P, k, groups: hier_knomial_tree(groups, k)}
COST_FIELDS = (("l", "l (μs per link)"), ("delta", "δ (hops of a route)"), ("theta", "θ (μs per packet)"),
               ("beta", "β (bytes per μs)"), ("gamma", "γ (μs per byte)"), ("S", "S (message bytes)"),
               ("eps", "ε (μs, for F(k))"))
# no NIC or switch holds a 1,024-wide tree node (the paper's widths stop at 128, F(k) is drawn to 128); wider
# only turns the page's trees (at most MAX_PROCESSES processes) into near-stars
MAX_K = 1024
MAX_DEGREE = 1024  # no switch has more than 1,024 ports to aggregate from (the paper's degrees are 16 and 64)
# each of the five trees routes every edge over the fabric in Python: ~1 s per tree at 4,096 processes, tens of
# seconds at TaihuLight's 40,960; larger communicators are for the command line (python -m vizcoll tree)
MAX_PROCESSES = 4096
# the player's timeline travels to the browser: ~2 KB per process (2 MB at 1,024 processes)
MAX_ANIMATED = 1024
MAX_COMM_OPTIONS = 200  # communicators offered in the dropdown (the first ones)
MAX_TIME = 1e6  # μs: bound of the time parameters (l, θ, γ, ε) — larger is a typo, not a network
MAX_BANDWIDTH = 1e12  # bytes per μs
MAX_DELTA = 1000  # hops of one route
MAX_BYTES = 1 << 30  # message size S
# quick presets: each REPLACES the shared scenario (fabric, communicators, breaks) and sets the tree
PRESETS = {
    "fig7": ("Paper Fig. 7: fat tree of 4-port switches, 16 processes, 4-ary",
             {"spec": "fat-tree:radix=4,levels=3", "pattern": "grid2d:4x4"},
             {"comm": WORLD, "kind": "kary", "k": 4, "degree": 4}),
    "sunway": ("Sunway supernode: 512 processes (2 per node), 32-ary",
               {"spec": "sunway-supernode", "ppn": 2},
               {"comm": WORLD, "kind": "kary", "k": 32, "degree": 16}),
}
CONTROL_KEYS = ("comm", "kind", "k", "degree", "routes")
COST_KEYS = ("l", "delta", "theta", "beta", "gamma", "S", "eps")
PARAM_CONTROLS = {"comm": TREES_COMM, "kind": ids.TREES_KIND, "k": ids.TREES_K, "degree": ids.TREES_DEGREE,
                  "routes": TREES_ROUTES, "l": ids.TREES_L, "delta": ids.TREES_DELTA, "theta": ids.TREES_THETA,
                  "beta": ids.TREES_BETA, "gamma": ids.TREES_GAMMA, "S": ids.TREES_S, "eps": ids.TREES_EPS,
                  "anim": ids.TREES_ANIM_TREE}
GRAPH_CONFIG = {"toImageButtonOptions": {"format": "svg", "filename": "vizcoll-trees"}}
METRIC_KEYS = ("height", "radius", "edge_links", "link_packets", "max_link", "max_switch_link", "cross_group",
               "latency_us", "flags")


def tree_name(kind: str, k: int) -> str:
    """``"4-ary"``, ``"4-nomial"``, ``"Zhao 4-nomial"``, ``"hierarchical 4-nomial"``."""
    return {"kary": f"{k}-ary", "knomial": f"{k}-nomial", "zhao": f"Zhao {k}-nomial",
            "hier-knomial": f"hierarchical {k}-nomial"}[kind]


# ---------------------------------------------------------------- parameters (the browser is untrusted)
def _choice(value, allowed, what: str):
    if not isinstance(value, str) or value not in allowed:
        raise VizcollError(f"unknown {what} {value!r}; choose one of {', '.join(allowed)}")
    return value


def _number(values: dict, key: str, what: str, kind, low, high):
    """``values[key]`` as a number of ``kind`` in [low, high]; a missing one (a number box the browser found out of
    its range, or a forged store) gets a message saying what to enter."""
    value = values.get(key)
    if value is None or value == "":
        raise VizcollError(f"{what}: enter {'a whole number' if kind is int else 'a number'} from {low:g} to "
                           f"{high:g}")
    if isinstance(value, bool):
        raise VizcollError(f"{what} must be a number, got {value!r}")
    return number(value, what, kind, low, high)


def read_params(values: dict) -> dict:
    """The page's parameters checked and canonical (plain JSON values); VizcollError names the first bad one."""
    num = lambda key, what, *args: _number(values, key, what, *args)  # noqa: E731
    params = {
        "comm": num("comm", "communicator", int, WORLD, 10**7),
        "kind": _choice(values.get("kind"), KINDS, "tree kind"),
        "k": num("k", "k (width / base)", int, 2, MAX_K),
        "degree": num("degree", "the type II degree bound", int, 2, MAX_DEGREE),
        "routes": _choice(values.get("routes"), ROUTES, "routes choice"),
        "l": num("l", "l (μs per link)", float, 0, MAX_TIME),
        "delta": num("delta", "δ (hops of a route)", int, 0, MAX_DELTA),
        "theta": num("theta", "θ (μs per packet)", float, 0, MAX_TIME),
        "beta": num("beta", "β (bytes per μs)", float, 0, MAX_BANDWIDTH),
        "gamma": num("gamma", "γ (μs per byte)", float, 0, MAX_TIME),
        "S": num("S", "S (message bytes)", int, 0, MAX_BYTES),
        "eps": num("eps", "ε (μs)", float, 0, MAX_TIME),
        "anim": _choice(values.get("anim"), ANIM, "animated tree"),
    }
    if params["l"] <= 0:
        raise VizcollError("l (μs per link) must be > 0")
    if params["beta"] <= 0:
        raise VizcollError("β (bytes per μs) must be > 0")
    if cost_of(params, 2).b <= 0:
        raise VizcollError("b = θ + S/β + S·γ must be > 0: raise θ or S")
    return params


def shown_params(scenario: Scenario) -> dict:
    """The parameters for the controls: each bad stored value replaced by its default (never raises)."""
    return calls.shown_params(scenario, PAGE, DEFAULTS, read_params)


def cost_of(params: dict, nprocs: int) -> CostParams:
    return CostParams(**{key: params[key] for key in ("l", "delta", "theta", "beta", "gamma", "S")}, P=nprocs,
                      k=params["k"])


# ---------------------------------------------------------------- the scenario's processes
def placement_of(scenario: Scenario, comm: int) -> Placement:
    """Where communicator ``comm``'s processes run (:data:`WORLD`: every process of the scenario)."""
    return scenario.placement(fabric_of(scenario), comm)


def _names(topo: Topology, nodes, limit: int = 6) -> str:
    nodes = list(dict.fromkeys(int(n) for n in nodes))
    shown = ", ".join(topo.names[n] for n in nodes[:limit])
    return shown + (f" … and {len(nodes) - limit:,} more" if len(nodes) > limit else "")


def comm_text(scenario: Scenario, comm: int, placement: Placement) -> str:
    fabric = fabric_of(scenario)
    what = "every process of the scenario" if comm == WORLD else f"communicator {comm}"
    nodes = np.unique(placement.node)
    return (f"{what}: {placement.nprocs:,} processes on {len(nodes):,} node{'s' * (len(nodes) != 1)} "
            f"({_names(fabric, placement.node)})")


def comm_options(scenario: Scenario) -> list[dict]:
    """Every process of the scenario, then its first :data:`MAX_COMM_OPTIONS` communicators."""
    fabric = fabric_of(scenario)
    try:
        world = f"every process ({placement_of(scenario, WORLD).nprocs:,})"
        comms = scenario.communicators(fabric)
    except VizcollError:
        world, comms = "every process", None
    options = [{"label": world, "value": WORLD}]
    if comms is not None:
        options += [{"label": f"communicator {i} ({len(comms[i]):,} processes)", "value": i}
                    for i in range(min(len(comms), MAX_COMM_OPTIONS))]
    return options


def digest(scenario: Scenario) -> str:
    """A short key of everything the trees depend on besides the page's parameters."""
    raw = json.dumps([scenario.source_key(), scenario.pattern, scenario.ppn, scenario.lists], sort_keys=True,
                     separators=(",", ":"), default=str).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def tree_plan(scenario: Scenario) -> dict:
    """What the views show (plain values, small: it travels to the browser); VizcollError when they cannot."""
    p = read_params(page_params(scenario, PAGE, DEFAULTS))
    placement = placement_of(scenario, p["comm"])
    n = placement.nprocs
    if n < 2:
        raise VizcollError(f"a tree needs at least 2 processes; {comm_text(scenario, p['comm'], placement)}")
    if n > MAX_PROCESSES:
        what = "every process of the scenario" if p["comm"] == WORLD else f"communicator {p['comm']}"
        raise VizcollError(f"{what} is "
                           f"{n:,} processes: the page builds trees of up to {MAX_PROCESSES:,} (five trees, every "
                           "edge routed over the fabric). Choose a smaller communicator, or use the command line "
                           "(python -m vizcoll tree --topology ...)")
    topo = topology_of(scenario)
    return {"digest": digest(scenario), **p, "nprocs": n, "nodes": topo.n_nodes, "broken": int(topo.broken.sum())}


def engine_key(scenario: Scenario, plan: dict) -> dict:
    """Everything the engine calls depend on (their cache key): the scenario's fabric, communicators, the tree."""
    return {"source": scenario.source_key(), "pattern": scenario.pattern, "ppn": scenario.ppn,
            "lists": scenario.lists, "comm": plan["comm"], "k": plan["k"], "degree": plan["degree"],
            "cost": {key: plan[key] for key in ("l", "delta", "theta", "beta", "gamma", "S")}}


# ---------------------------------------------------------------- engine calls (cached)
def _scenario(key: dict) -> Scenario:
    return Scenario(**key["source"], pattern=key["pattern"], ppn=key["ppn"], lists=key["lists"])


def _routing(scenario: Scenario, routes: str):
    """(topology, min-hop table) the routes are computed on: the live fabric, or the intact one."""
    target = scenario if routes == LIVE else replace(scenario, broken=[])
    return topology_of(target), hops_of(target)


def _cost(key: dict, nprocs: int) -> CostParams:
    return CostParams(**key["cost"], P=nprocs, k=key["k"])


def _type_one(key: dict, kind: str, routes: str) -> dict:
    scenario = _scenario(key)
    fabric, live = fabric_of(scenario), topology_of(scenario)
    placement = scenario.placement(fabric, key["comm"])
    tree = BUILDERS[kind](placement.nprocs, key["k"], hierarchy_from_topology(fabric, placement))
    routing, table = _routing(scenario, routes)
    built = mapped_type_one(tree, fabric, placement, routing, table=table, params=_cost(key, placement.nprocs),
                            k=key["k"], broken=live.link_id[live.broken].tolist())
    built["metrics"] = {name: built["metrics"][name] for name in METRIC_KEYS}
    return built


def type_one(key: dict, kind: str, routes: str = LIVE) -> dict:
    """A type I tree of ``kind`` mapped on the scenario's fabric, routed over live links or as built on the intact
    fabric: the tree, its routes, metrics, edges crossing broken links and cross-group links
    (:func:`vizcoll.trees.metrics.mapped_type_one`)."""
    return memo(_type_one, key, kind, routes)


def _type_two(key: dict, routes: str) -> dict:
    scenario = _scenario(key)
    live = topology_of(scenario)
    topo, table = _routing(scenario, routes)
    placement = scenario.placement(fabric_of(scenario), key["comm"])
    result = type_two_tree(topo, placement.node, table=table, degree=key["degree"])
    if not result.ok:
        return {"ok": False, "reason": result.reason}
    cost = _cost(key, placement.nprocs)
    metrics = {}
    for name, tree in (("physical", result.physical), ("tree", result.tree)):
        m = tree_metrics(tree, topo, table=table, params=cost)
        metrics[name] = {key: m[key] for key in METRIC_KEYS}
    return {"ok": True, "root": result.root, "physical": result.physical.to_dict(), "tree": result.tree.to_dict(),
            "physical_switches": result.physical_switches.tolist(), "tree_switches": result.tree_switches.tolist(),
            "vertex_ranks": result.vertex_ranks(), "links": list(result.links), "metrics": metrics,
            "crossing": sorted(set(live.link_id[live.broken].tolist()) & set(result.links)),
            "candidates": result.candidates}


def type_two(key: dict, routes: str = LIVE) -> dict:
    """The physical and minimum-cost type II trees of the communicator (or why none could be built)."""
    return memo(_type_two, key, routes)


def _timeline(key: dict, which: str, kind: str, routes: str) -> dict:
    scenario = _scenario(key)
    topo, table = topology_of(scenario), hops_of(scenario)
    placement = scenario.placement(fabric_of(scenario), key["comm"])
    cost = _cost(key, placement.nprocs)
    if which == TYPE2:
        built = type_two(key, routes)
        tree, ranks = Tree.from_dict(built["tree"]), built["vertex_ranks"]
        title = f"Aggregation (sum) in the switches: min-cost type II tree, degree ≤ {key['degree']}"
    else:
        built = type_one(key, kind, routes)
        tree, ranks = Tree.from_dict(built["tree"]), [[r] for r in built["ranks"]]
        title = f"Aggregation (sum) along the {tree_name(kind, key['k'])} tree"
    return simulate_aggregation(topo, tree, ranks, latency=cost.l, theta=cost.b, table=table,
                                title=title).to_dict()


def timeline_of(key: dict, which: str, kind: str, routes: str) -> dict:
    return memo(_timeline, key, which, kind, routes)


def _selection(cost: dict, nprocs: int, k: int) -> list[dict]:
    return selection_table(CostParams(**cost, P=nprocs, k=k), P=nprocs)


# ---------------------------------------------------------------- layout
def _number_input(id_: str, value, **kw) -> dcc.Input:
    return dcc.Input(id=id_, type="number", value=value, debounce=True, **kw)


def tree_controls(v: dict, options: list[dict]) -> list:
    """The communicator and tree controls showing the parameters ``v``."""
    return [
        field("communicator", dcc.Dropdown(id=TREES_COMM, options=options, value=v["comm"], clearable=False,
                                            className="grow")),
        field("kind", dcc.Dropdown(id=ids.TREES_KIND, options=[{"label": t, "value": k} for k, t in KINDS.items()],
                                    value=v["kind"], clearable=False, className="grow")),
        field("k (width / base)", _number_input(ids.TREES_K, v["k"], min=2, max=MAX_K, step=1)),
        field("type II degree ≤", _number_input(ids.TREES_DEGREE, v["degree"], min=2, max=MAX_DEGREE, step=1)),
        html.Div(className="row", children=[
            html.Label("routes", className="label"),
            dcc.RadioItems(id=TREES_ROUTES, value=v["routes"],
                           options=[{"label": text, "value": key} for key, text in ROUTES.items()])]),
    ]


def cost_controls(v: dict) -> list:
    return [field(label, _number_input(PARAM_CONTROLS[key], v[key])) for key, label in COST_FIELDS]


def layout(scenario: Scenario) -> html.Div:
    """The page on ``scenario``: the controls show its trees parameters (bad stored values: the defaults)."""
    v = shown_params(scenario)
    try:
        options = comm_options(scenario)
    except VizcollError:
        options = [{"label": "every process", "value": WORLD}]
    sidebar = html.Div(className="sidebar", children=[
        html.Details(open=True, className="panel", children=[
            html.Summary("Processes and trees"),
            html.Div(id=TREES_CONTROLS, children=tree_controls(v, options)),
            html.P(id=TREES_FABRIC, className="info"),
        ]),
        html.Details(open=False, className="panel", children=[
            html.Summary("Cost model (paper defaults)"),
            html.Div(id=TREES_COST_CONTROLS, children=cost_controls(v)),
            html.P(className="info", children=(
                "Eq. 2: T = r·l + h·k·b with b = θ + S'/β + S*·γ (S' = S* = S here); F(k) uses a = δ·l. "
                "The defaults model the paper's Sunway supernode: a = 1.12 μs, b = 0.01 μs.")),
        ]),
        html.Details(id=TREES_PRESETS, open=False, className="panel", children=[
            html.Summary("Quick presets"),
            dcc.Dropdown(id=TREES_PRESET, clearable=False, value="sunway",
                         options=[{"label": label, "value": key} for key, (label, _, _) in PRESETS.items()]),
            html.Button("Replace the scenario with this preset", id=TREES_USE_PRESET, n_clicks=0),
            html.P(className="info", children=(
                "A preset replaces the shared scenario (fabric, communicators, broken links: see the badge "
                "above) for every page.")),
        ]),
        html.Div(id=ids.TREES_MESSAGE, className="message", role="alert"),
        html.P(className="info", children=(
            "The fabric and its broken links are the scenario's: load or draw them on the Topology page, repair "
            "from the badge, or click a link of the drawing below to break or repair it. Type I trees reduce in "
            "the processes' NICs (one vertex per process); type II trees in the switches. Height = most tree "
            "edges to the root, radius = most links to the root.")),
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
            field("animate", dcc.RadioItems(id=ids.TREES_ANIM_TREE, value=v["anim"], inline=True, options=[
                {"label": text, "value": key} for key, text in ANIM.items()])),
            html.Div(id=ids.TREES_FLAG, className="flag", role="status"),
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
        html.Span([html.Span(className="swatch legend-broken"), "broken link (click a link to break / repair)"])])


# ---------------------------------------------------------------- pure views
def _fmt(value, digits: int = 2) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"


def _busiest(m: dict | None) -> str:
    return "—" if not m else f"{m['packets']:,} ({m['ends'][0]}–{m['ends'][1]})"


def _list(items: list[str], limit: int = 4) -> str:
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _links(topo: Topology, link_ids) -> str:
    """``"link a[1]-b[2]"`` / ``"links ..."``: links named by their ends and ports."""
    labels = [topo.link_label(topo.link_row(int(lid))) for lid in link_ids]
    return f"link{'s' * (len(labels) > 1)} {_list(labels)}"


def comparison_rows(key: dict, plan: dict) -> list[dict]:
    """One row per tree: the type I kinds for ``plan`` and the min-cost type II tree."""
    rows = []
    for kind in KINDS:
        built = type_one(key, kind, plan["routes"])
        rows.append({"tree": tree_name(kind, plan["k"]), "kind": kind, **built["metrics"],
                     "crossing": len(built["crossing"])})
    two = type_two(key, plan["routes"])
    if two["ok"]:
        rows.append({"tree": f"type II min-cost, degree ≤ {plan['degree']} ({len(two['tree_switches'])} "
                             "switches)", "kind": TYPE2, **two["metrics"]["tree"], "cross_group": {},
                     "crossing": len(two["crossing"])})
    return rows


def _break_cell(r: dict, routes: str) -> str:
    """How a tree meets the scenario's broken links, in a few words (the flag above the player says more)."""
    if r["flags"]:
        n = len(r["flags"])
        return f"⚠ {n} edge{'s' * (n > 1)} cut off"
    if r["crossing"]:
        n = r["crossing"]
        if r["kind"] == TYPE2:
            return f"⚠ uses {n} of them"
        return f"⚠ {n} edge{'s cross' if n > 1 else ' crosses'}"
    return "avoided" if routes == LIVE else "not crossed"


def comparison_table(key: dict, plan: dict) -> html.Table:
    rows = comparison_rows(key, plan)
    groups = any("group" in r["cross_group"] for r in rows)
    broken = plan["broken"] > 0
    head = ["tree", "height", "radius (links)", "max packets on a link", "max packets switch–switch",
            "packets between leaf switches", *(["packets between groups"] if groups else []),
            "modelled latency (μs, eq. 2)", *(["broken links"] if broken else [])]
    body = []
    for r in rows:
        cells = [r["tree"], _fmt(r["height"]), _fmt(r["radius"]), _busiest(r["max_link"]),
                 _busiest(r["max_switch_link"]), _fmt(r["cross_group"].get("switch")),
                 *([_fmt(r["cross_group"].get("group"))] if groups else []), _fmt(r["latency_us"], 3)]
        tds = [html.Td(c) for c in cells]
        if broken:
            tds.append(html.Td(_break_cell(r, plan["routes"])))
        chosen = r["kind"] == plan["kind"]
        body.append(html.Tr(tds, className="chosen" if chosen else ""))
    return html.Table(className="summary compare", children=[html.Thead(html.Tr([html.Th(h) for h in head])),
                                                             html.Tbody(body)])


def selection_view(plan: dict) -> html.Table:
    """Table 3 (the tree type and width per switch degree and packet size) for the page's cost model."""
    cost = {key: plan[key] for key in ("l", "delta", "theta", "beta", "gamma", "S")}
    rows = memo(_selection, cost, plan["nprocs"], plan["k"])
    head = html.Tr([html.Th(h) for h in ("switch degree d", "packet bytes", "tree type", "k")])
    body = [html.Tr([html.Td("no type II available" if r["d"] is None else str(r["d"])), html.Td(r["range"]),
                     html.Td(r["type"]), html.Td(str(r["k"]))]) for r in rows]
    return html.Table(className="summary", children=[html.Thead(head), html.Tbody(body)])


def fk_info(plan: dict) -> str:
    cost = cost_of(plan, plan["nprocs"])
    best = kopt(plan["nprocs"], cost.a, cost.b, plan["eps"])
    return (f"F is smallest at k* = {best['k_star']} (F* = {best['F_star']:.3f} μs); every k from {best['kmin']} "
            f"to {best['kmax']} is within ε = {plan['eps']:g} μs of it. Table 3 for P = {plan['nprocs']:,}: "
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


def _isolated(topo: Topology, nodes: list[int]) -> list[str]:
    """Names of the tree's nodes without any live link."""
    live = np.bincount(np.r_[topo.link_a[topo.live], topo.link_b[topo.live]], minlength=topo.n_nodes)
    return [topo.names[n] for n in dict.fromkeys(nodes) if live[n] == 0]


def flag_type_one(key: dict, plan: dict, topo: Topology) -> tuple[str, bool]:
    """What the scenario's broken links do to the chosen type I tree, and whether the animation must wait."""
    kind = plan["kind"]
    built = type_one(key, kind, plan["routes"])
    ranks, tree = built["ranks"], built["tree"]
    name = f"{tree_name(kind, plan['k'])} tree"
    broken = topo.link_id[topo.broken].tolist()
    if not broken:
        return "", False
    if plan["routes"] == INTACT:
        if not built["crossing"]:
            return (f"As built on the intact fabric, no route of the {name} crosses the broken "
                    f"{_links(topo, broken)}."), False
        links = sorted({lid for c in built["crossing"] for lid in c["links"]})
        edges = [f"{_edge(tree, ranks, c['child'])} over {_links(topo, c['links'])}" for c in built["crossing"]]
        return (f"⚠ As built on the intact fabric, {_plural(len(edges), 'edge')} of the {name} route"
                f"{'s' * (len(edges) == 1)} over the broken "
                f"{_links(topo, links)} ({_list(edges)}). Their packets would be lost and the root would never get "
                "every value, so the animation waits. Choose routes “avoid broken links”: the tree keeps its shape "
                "and mapping (each rank keeps its NIC), its routes go over live links.", True)
    before = type_one(key, kind, INTACT)
    moved = [v for v, (a, b) in enumerate(zip(before["routes"], built["routes"], strict=True))
             if v and a != b and b is not None]
    longer = [f"{_edge(tree, ranks, v)}: {len(built['routes'][v])} links instead of {len(before['routes'][v])}"
              for v in moved if before["routes"][v] is not None and len(built["routes"][v]) != len(before["routes"][v])]
    if moved:
        text = (f"The {name}'s routes avoid the broken {_links(topo, broken)}: {len(moved)} of its edges take "
                "another route than on the intact fabric, "
                + (f"some longer ({_list(longer)})." if longer else "every one as short as before."))
        radius = (before["metrics"]["radius"], built["metrics"]["radius"])
        if None not in radius:
            text += f" Radius {radius[0]} → {radius[1]} links."
    else:
        text = f"The {name}'s routes avoid the broken {_links(topo, broken)}: none of them needed it."
    flags = built["metrics"]["flags"]
    if flags:
        cut = _cut_off(Tree.from_dict(tree), ranks, flags)
        edges = [_edge(tree, ranks, f["child"]) for f in flags]
        alone = _isolated(topo, tree["node"])
        why = f" ({_list(alone)} {'have' if len(alone) > 1 else 'has'} no live link left)" if alone else ""
        text = (f"⚠ {text} But {_plural(len(flags), 'edge')} ha{'ve' if len(flags) > 1 else 's'} no live route at "
                f"all{why}: {_list(edges)}. "
                f"Rank{'s' * (len(cut) > 1)} {_list([str(r) for r in cut], 12)} "
                + ("are cut off: their values never reach the root." if len(cut) > 1 else
                   "is cut off: its value never reaches the root."))
    return text, False


def flag_type_two(key: dict, plan: dict, topo: Topology) -> tuple[str, bool]:
    two = type_two(key, plan["routes"])
    if not two["ok"]:
        return f"⚠ No type II tree: {two['reason']}", False
    if not topo.broken.any():
        return "", False
    if two["crossing"]:
        return (f"⚠ As built on the intact fabric, the type II tree uses the broken {_links(topo, two['crossing'])}: "
                "the animation waits. Choose routes “avoid broken links”: its root, physical tree and aggregation "
                "switches are then chosen over live links.", True)
    if plan["routes"] == LIVE:
        return "The type II tree is built on the live fabric: it avoids the broken links.", False
    return "As built on the intact fabric, the type II tree uses no broken link.", False


def anim_summary(s: dict) -> str:
    if s.get("result") is None:
        return (f"No result: {len(s.get('broken_edges', []))} tree edge(s) have no live route, so the root never "
                f"gets every value ({s.get('packets', 0)} packets went up).")
    return (f"Result {s['result']:,} ({s['op']} of every process's rank), expected {s['expected']:,}: "
            f"{'correct ✓' if s['correct'] else 'WRONG ✕'}. Every vertex has it at t = {s['time']:g} μs; "
            f"{s['packets']} packets up, {s['bcast_packets']} down, at most {s['max_link_packets']} upward packets "
            f"on one link; height {s['height']}, radius {s['radius']} links.")


def _between_switches(topo: Topology, link_id: int) -> bool:
    row = topo.link_row(link_id)
    return bool(topo.kind[topo.link_a[row]] == SWITCH and topo.kind[topo.link_b[row]] == SWITCH)


def type_one_figures(key: dict, plan: dict, topo: Topology) -> tuple[go.Figure, go.Figure, str]:
    """The chosen tree drawn logically and on the fabric (packets per link, cross-group links dotted)."""
    kind = plan["kind"]
    built = type_one(key, kind, plan["routes"])
    tree, m = Tree.from_dict(built["tree"]), built["metrics"]
    names = topo.names
    switch = [names[s] if s >= 0 else "no switch" for s in built["switch"]]
    name = tree_name(kind, plan["k"])
    hover = [f"rank {r} on {names[n]} (switch {s})<br>depth {d}, {len(kids)} children"
             for r, n, s, d, kids in zip(built["ranks"], tree.node, switch, tree.depth().tolist(), tree.children,
                                         strict=True)]
    logical = logical_tree_figure(tree, switch, f"{name} tree over {tree.size:,} processes: height {m['height']}",
                                  hover=hover, names=[names[n] for n in tree.node])
    cross = {lid: n for lid, n in built["cross_links"].items() if _between_switches(topo, lid)}
    packets_hover = {lid: f"{n} of them between groups" for lid, n in built["cross_links"].items()}
    busiest = m["max_link"]
    where = "on the fabric" if plan["routes"] == LIVE else "as built (intact fabric)"
    title = f"{name} {where}" + (f": max {busiest['packets']} packets on one link" if busiest else "")
    mapped = packets_figure(topo, m["link_packets"], title, hover=packets_hover, overlay=cross,
                            overlay_name="switch links with packets between groups",
                            marks={f"root: rank {built['ranks'][0]} on {names[tree.node[0]]}": [tree.node[0]]})
    switches, groups = m["cross_group"].get("switch", 0), m["cross_group"].get("group")
    info = (f"Link thickness and colour = aggregation packets (one per tree edge whose route uses the link, both "
            f"directions). {switches} of the {tree.size - 1} tree edges join processes on different leaf switches"
            + (f", {groups} of them different groups (pods, supernodes)" if groups is not None else "")
            + ": the dotted switch links carry packets between groups. Broken links are dashed. Hover a link for "
              "its ends and load.")
    if built["crossing"]:
        links = sorted({lid for c in built["crossing"] for lid in c["links"]})
        n = len(built["crossing"])
        info += (f" ⚠ As built, {_plural(n, 'edge')} route{'s' * (n == 1)} over the broken {_links(topo, links)}: "
                 "choose routes “avoid broken links” to route them over live links.")
    return logical, mapped, info


def _empty(message: str, height: int = 300) -> go.Figure:
    return go.Figure().update_layout(height=height, xaxis={"visible": False}, yaxis={"visible": False},
                                     plot_bgcolor="white", annotations=[{"text": message, "showarrow": False,
                                                                         "font": {"size": 14}}])


def type_two_figures(key: dict, plan: dict, topo: Topology) -> tuple[go.Figure, go.Figure, list]:
    """Physical tree vs minimum-cost derived tree: packets per link and the switches holding an entry."""
    two = type_two(key, plan["routes"])
    if not two["ok"]:
        empty = _empty("No type II tree", 200)
        return empty, empty, [html.H3("Type II trees"), html.P(f"⚠ No type II tree: {two['reason']}")]
    figures = []
    for which, switches, label in (("physical", two["physical_switches"], "Physical tree T"),
                                   ("tree", two["tree_switches"], f"Min-cost tree A (degree ≤ {plan['degree']})")):
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
        f"ancestors (at most {plan['degree']} children per switch) and needs {len(two['tree_switches'])} "
        f"switches: {saved} aggregation-tree entries saved."))]
    return figures[0], figures[1], info


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_player(app, ids.TREES_PLAYER)
    app.callback(
        store_output(), Output(ids.TREES_MESSAGE, "children"),
        *[Input(i, "value") for i in PARAM_CONTROLS.values()],
        Input(TREES_USE_PRESET, "n_clicks"), Input(ids.TREES_CANVAS, "tapEdge"), State(TREES_PRESET, "value"),
        State(SCENARIO, "data"), prevent_initial_call=True,
    )(update)
    app.callback(
        Output(ids.TREES_PARAMS, "data"), Output(TREES_FABRIC, "children"), Output(TREES_CONTROLS, "children"),
        Output(TREES_COST_CONTROLS, "children"),
        Input(SCENARIO, "data"), State(ids.TREES_PARAMS, "data"), State(TREES_COMM, "options"),
        *[State(PARAM_CONTROLS[key], "value") for key in (*CONTROL_KEYS, *COST_KEYS)],
    )(refresh)
    app.callback(Output(ids.TREES_COMPARE, "children"), Input(ids.TREES_PARAMS, "data"),
                 State(SCENARIO, "data"))(render_compare)
    app.callback(
        Output(ids.TREES_LOGICAL, "figure"), Output(ids.TREES_MAPPED, "figure"),
        Output(ids.TREES_MAPPED_INFO, "children"), Input(ids.TREES_PARAMS, "data"), State(SCENARIO, "data"),
    )(render_type_one)
    app.callback(
        Output(ids.TREES_FK, "figure"), Output(ids.TREES_SELECTION, "children"), Output(ids.TREES_FK_INFO, "children"),
        Input(ids.TREES_PARAMS, "data"),
    )(render_width)
    app.callback(
        Output(ids.TREES_T2_PHYSICAL, "figure"), Output(ids.TREES_T2_MINCOST, "figure"),
        Output(ids.TREES_T2_INFO, "children"), Input(ids.TREES_PARAMS, "data"), State(SCENARIO, "data"),
    )(render_type_two)
    app.callback(
        Output(pid(ids.TREES_PLAYER, "timeline"), "data"), Output(ids.TREES_FLAG, "children"),
        Output(ids.TREES_FLAG, "className"), Output(ids.TREES_CANVAS, "elements"),
        Output(ids.TREES_ANIM_SUMMARY, "children"), Input(ids.TREES_PARAMS, "data"), State(SCENARIO, "data"),
    )(animate)
    app.callback(
        Output(ids.TREES_CANVAS, "stylesheet"),
        Input(pid(ids.TREES_PLAYER, "step"), "value"), Input(pid(ids.TREES_PLAYER, "timeline"), "data"),
        State(ids.TREES_PARAMS, "data"), State(SCENARIO, "data"),
    )(render_step)


def preset_scenario(scenario: Scenario, preset) -> Scenario:
    """The shared scenario replaced by a quick preset (the other pages' parameters kept)."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise VizcollError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    _, source, values = PRESETS[preset]
    return Scenario(**source, params={**scenario.params, PAGE: shown_params(scenario) | values})


def update(*args):
    """A control changed: the shared scenario with the page's checked parameters; a preset or a clicked link of
    the drawing changes the scenario itself. A bad value leaves the store as it is, with a message."""
    *values, _preset_clicks, tap_edge, preset, data = args
    scenario, message = checked(data)
    if scenario is None:
        return no_update, message
    trigger = ctx.triggered_id
    try:
        if trigger == TREES_USE_PRESET:
            return preset_scenario(scenario, preset).to_dict(), ""
        if trigger == ids.TREES_CANVAS:
            return scenario.toggled(tapped_link(tap_edge)).to_dict(), ""
        params = read_params(dict(zip(PARAM_CONTROLS, values, strict=True)))
        if params["comm"] != WORLD:
            placement_of(scenario, params["comm"])  # the communicator exists
    except VizcollError as exc:
        return no_update, f"⚠ {exc}"
    return remembered(data, PAGE, params), ""


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "es" if word.endswith("ch") else "s")


def refresh(data, plan_now=None, options_now=None, *shown_now):
    """The views' plan (written only when it changed), the line about the processes, and the controls drawn again
    when the scenario's parameters or communicators differ from what they show (a preset, another tab)."""
    scenario, message = checked(data)
    if scenario is None:
        return changed({"error": message}, plan_now), message, no_update, no_update
    try:
        plan = tree_plan(scenario)
    except VizcollError as exc:
        plan = {"error": f"⚠ {exc}"}
    v = shown_params(scenario)
    topo = topology_of(scenario)
    s = topo.summary()
    counts = ", ".join(_plural(s[key], word) for key, word in (("switches", "switch"), ("endpoints", "end node"),
                                                                 ("broken_links", "broken link")))
    text = f"Fabric: {scenario.title} ({counts})."
    if "error" not in plan:
        text += f" Processes: {comm_text(scenario, plan['comm'], placement_of(scenario, plan['comm']))}."
    options = comm_options(scenario)
    now = dict(zip((*CONTROL_KEYS, *COST_KEYS), shown_now, strict=False))
    controls = no_update
    if options != options_now or any(now.get(key) != v[key] for key in CONTROL_KEYS):
        controls = tree_controls(v, options)
    costs = no_update if all(now.get(key) == v[key] for key in COST_KEYS) else cost_controls(v)
    return changed(plan, plan_now), text, controls, costs


def _view(plan, data):
    """(scenario, engine key, topology with breaks) of a plan, or None when there is nothing to show."""
    if not plan or "error" in plan:
        return None
    scenario, _ = checked(data)
    if scenario is None:
        return None
    return scenario, engine_key(scenario, plan), topology_of(scenario)


def _problem(plan) -> str:
    return (plan or {}).get("error") or ""


def render_compare(plan, data):
    view = _view(plan, data)
    if view is None:
        return html.P(_problem(plan) or "…", className="message" if _problem(plan) else "info")
    try:
        return comparison_table(view[1], plan)
    except VizcollError as exc:
        return html.P(f"⚠ {exc}", className="message")


def render_type_one(plan, data):
    view = _view(plan, data)
    if view is None:
        empty = _empty("No tree: see the message on the left." if _problem(plan) else "")
        return (empty, empty, "") if plan else (no_update,) * 3
    try:
        return type_one_figures(view[1], plan, view[2])
    except VizcollError as exc:
        empty = _empty("No tree")
        return empty, empty, f"⚠ {exc}"


def render_width(plan):
    if not plan or "error" in plan:
        return (_empty(""), "", "") if plan else (no_update,) * 3
    cost = cost_of(plan, plan["nprocs"])
    return (fk_figure(plan["nprocs"], cost.a, cost.b, plan["eps"], plan["k"]), selection_view(plan),
            fk_info(plan))


def render_type_two(plan, data):
    view = _view(plan, data)
    if view is None:
        empty = _empty("")
        return (empty, empty, "") if plan else (no_update,) * 3
    try:
        return type_two_figures(view[1], plan, view[2])
    except VizcollError as exc:
        empty = _empty("No type II tree")
        return empty, empty, [html.P(f"⚠ {exc}")]


def animate(plan, data):
    """The aggregation timeline of the animated tree, or the flag that stops it (routes crossing broken links)."""
    view = _view(plan, data)
    if view is None:
        return (None, _problem(plan), "flag warn", [], "") if plan else (no_update,) * 5
    _, key, topo = view
    which = plan["anim"]
    try:
        text, waits = (flag_type_two if which == TYPE2 else flag_type_one)(key, plan, topo)
    except VizcollError as exc:
        return None, f"⚠ {exc}", "flag warn", [], ""
    flag_class = "flag warn" if text.startswith("⚠") else "flag"
    if topo.n_nodes > SMALL_LIMIT:
        note = f"The animation is drawn for fabrics up to {SMALL_LIMIT:,} nodes (this one has {topo.n_nodes:,})."
        return None, "\n".join(filter(None, [text, note])), flag_class, [], ""
    elements = cytoscape_elements(topo)
    if plan["nprocs"] > MAX_ANIMATED:
        note = (f"The aggregation is animated for up to {MAX_ANIMATED:,} processes (this communicator has "
                f"{plan['nprocs']:,}: its timeline would be too large for the browser).")
        return None, "\n".join(filter(None, [text, note])), flag_class, elements, ""
    if waits:
        return None, text, flag_class, elements, "Choose routes “avoid broken links” to play the aggregation."
    if which == TYPE2 and not type_two(key, plan["routes"])["ok"]:
        return None, text, flag_class, elements, ""
    try:
        timeline = timeline_of(key, which, plan["kind"], plan["routes"])
    except VizcollError as exc:  # e.g. more events than a timeline may hold
        return None, f"⚠ {exc}", "flag warn", elements, ""
    return timeline, text, flag_class, elements, anim_summary(timeline["summary"])


def render_step(step, timeline, plan, data):
    """Stylesheet for one player step: every vertex's state on its node, this step's hops in orange."""
    sheet = base_stylesheet()
    view = _view(plan, data) if timeline else None
    if view is None:
        return sheet
    tl, step = timeline_at(timeline, step)
    events = tl.active_at(step) if step >= 0 else []
    links = list(dict.fromkeys(lid for e in events for lid in e.path_links))
    receivers = list(dict.fromkeys(e.dst for e in events if e.dst >= 0 and e.path_links))
    state = {tl.entities[key]["node"]: value for key, value in tl.state_at(step).items() if key in tl.entities}
    root = next((e["node"] for e in tl.entities.values() if e.get("vertex") == 0), None)
    return sheet + aggregation_stylesheet(state, view[2].names, root) + state_stylesheet({}, links, receivers)
