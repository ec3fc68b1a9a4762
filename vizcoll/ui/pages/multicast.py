"""The multicast page: route one multicast group per communicator with two algorithms and compare their EFI.

Everything is computed at full size on the server (cached); small fabrics are
drawn link by link, large ones start from a group-by-group overview and the
user drills into one group of switches. A group's tree can be highlighted, and
its join/leave protocol (paper section 3.2) is replayed with the player.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

import numpy as np
import plotly.graph_objects as go
from dash import Dash, Input, Output, State, dcc, html, no_update

from vizcoll.comm import parse_pattern
from vizcoll.errors import VizcollError
from vizcoll.multicast.groups import simulate_group
from vizcoll.multicast.routing import ALGORITHMS, MulticastResult, route_communicators
from vizcoll.topology.model import Topology
from vizcoll.ui import ids
from vizcoll.ui.cache import memo
from vizcoll.ui.calls import fabric, hops_of, parse_broken, topology_of
from vizcoll.ui.components.player import pid, player, register_player, timeline_at
from vizcoll.ui.figures.efi import efi_histogram, group_summary, link_value_figure
from vizcoll.ui.figures.timeline import process_diagram
from vizcoll.ui.figures.topology import SMALL_LIMIT

__all__ = ["layout", "register", "DEFAULTS"]

# a pruned fat tree with 4 shortest leaf -> top paths: MINIHOP-MC-new max EFI 8, FULB-MC 3
DEFAULTS = {"spec": "pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4", "pattern": "grid2d:16x8",
            "ppn": "2", "seed": "0", "broken": "", "a": "minhop-new", "b": "fulb"}
OVERVIEW, WHOLE = "overview", "whole"
GRAPH_CONFIG = {"toImageButtonOptions": {"format": "svg", "filename": "vizcoll-multicast"}}


# ---------------------------------------------------------------- engine calls (cached)
def _route(params: dict, algo: str) -> MulticastResult:
    scenario = fabric(params["spec"], params["broken"])
    topo = topology_of(scenario)
    comms = parse_pattern(params["pattern"], topo, ppn=params["ppn"], seed=params["seed"])
    return route_communicators(topo, comms, algo, hops_of(scenario))


def routed(params: dict, algo: str) -> MulticastResult:
    return memo(_route, params, algo)


def read_params(spec, pattern, ppn, seed, broken, a, b) -> dict:
    """Checked, canonical page parameters; raises VizcollError with a message for the page."""
    for algo in (a, b):
        if algo not in ALGORITHMS:
            raise VizcollError(f"unknown algorithm {algo!r}")
    try:
        ppn, seed = int(ppn or 1), int(seed or 0)
    except (TypeError, ValueError):
        raise VizcollError("processes per node and seed must be integers") from None
    params = {"spec": (spec or "").strip(), "pattern": (pattern or "").strip(), "ppn": ppn, "seed": seed,
              "broken": parse_broken(broken), "a": a, "b": b}
    topo = topology_of(fabric(params["spec"], params["broken"]))
    parse_pattern(params["pattern"], topo, ppn=ppn, seed=seed)
    return params


# ---------------------------------------------------------------- layout
def _field(label: str, component) -> html.Div:
    return html.Div(className="row", children=[html.Label(label, className="label"), component])


def layout(query: str = "") -> html.Div:
    """The page; a URL query (spec, pattern, ppn, seed, broken, a, b) pre-fills the controls."""
    values = DEFAULTS | {k: v for k, v in parse_qsl(query.lstrip("?")) if k in DEFAULTS}
    algos = [{"label": a, "value": a} for a in ALGORITHMS]
    sidebar = html.Div(className="sidebar", children=[html.Details(open=True, className="panel", children=[
        html.Summary("Fabric and communicators"),
        dcc.Input(id=ids.MC_SPEC, value=values["spec"], className="wide", debounce=True),
        dcc.Input(id=ids.MC_PATTERN, value=values["pattern"], className="wide", debounce=True,
                  placeholder="grid2d:8x8, grid3d:4x4x4, random:16"),
        _field("processes per node", dcc.Input(id=ids.MC_PPN, type="number", min=1, value=int(values["ppn"]))),
        _field("seed", dcc.Input(id=ids.MC_SEED, type="number", min=0, value=int(values["seed"]))),
        _field("broken links", dcc.Input(id=ids.MC_BROKEN, value=values["broken"], placeholder="link ids: 3, 17")),
        _field("algorithm A", dcc.Dropdown(id=ids.MC_ALGO_A, options=algos, value=values["a"], clearable=False,
                                           className="grow")),
        _field("algorithm B", dcc.Dropdown(id=ids.MC_ALGO_B, options=algos, value=values["b"], clearable=False,
                                           className="grow")),
        html.Button("Route", id=ids.MC_ROUTE, n_clicks=0),
        html.Div(id=ids.MC_MESSAGE, className="message", role="alert"),
        html.P(className="info", children=(
            "One multicast group per communicator. EFI (edge forwarding index) of a link = number of groups "
            "whose tree uses it; lower is better. -new = with FULB's root rotation; fulb+global prefers "
            "fewer dragonfly global links.")),
    ])])
    main = html.Div(className="main", children=[
        dcc.Store(id=ids.MC_PARAMS),
        html.Div(id=ids.MC_SUMMARY, className="panel"),
        html.Div(className="row", children=[
            _field("show", dcc.Dropdown(id=ids.MC_PART, clearable=False, className="grow", style={"width": 260})),
            _field("highlight group", dcc.Dropdown(id=ids.MC_GROUP, className="grow", style={"width": 260},
                                                   placeholder="choose a group")),
        ]),
        html.Div(id=ids.MC_GROUP_INFO, className="info"),
        html.Div(className="pair", children=[dcc.Graph(id=ids.MC_FIG_A, config=GRAPH_CONFIG),
                                             dcc.Graph(id=ids.MC_FIG_B, config=GRAPH_CONFIG)]),
        html.Div(className="pair", children=[dcc.Graph(id=ids.MC_FIG_DIFF, config=GRAPH_CONFIG),
                                             dcc.Graph(id=ids.MC_HIST, config=GRAPH_CONFIG)]),
        html.Div(id=ids.MC_WORST, className="info"),
        html.Div(className="panel player-panel", children=[
            html.H3("Join / leave protocol of the highlighted group (paper section 3.2)"),
            dcc.Graph(id=ids.MC_STATE_FIG, config=GRAPH_CONFIG),
            player(ids.MC_PLAYER),
        ]),
    ])
    return html.Div(className="page multicast-page", children=[html.Div(className="columns",
                                                                       children=[sidebar, main])])


# ---------------------------------------------------------------- pure views
def summary_table(params: dict, results: dict[str, MulticastResult]) -> html.Table:
    rows = [("max EFI", "max_efi"), ("mean EFI (used links)", "mean_efi"), ("max tree height", "max_height"),
            ("groups", "groups"), ("unroutable groups", "unroutable"), ("routing time (s)", "runtime_s")]
    summaries = {name: r.summary() for name, r in results.items()}
    head = html.Tr([html.Th("")] + [html.Th(f"{name}: {params[name]}") for name in results])
    body = [html.Tr([html.Td(label)] + [html.Td(f"{summaries[n][key]:,}") for n in results]) for label, key in rows]
    return html.Table(className="summary", children=[html.Thead(head), html.Tbody(body)])


def groups_on_links(result: MulticastResult, n_links: int, limit: int = 8) -> list[str]:
    """Per link row: the groups whose tree crosses it (first ``limit``), as hover text."""
    row_of = {int(i): r for r, i in enumerate(result.link_ids.tolist())}
    crossing: list[list[int]] = [[] for _ in range(n_links)]
    for tree in result.trees:
        if tree is not None:
            for link in tree.links.tolist():
                crossing[row_of[link]].append(tree.group)
    return [("groups " + ", ".join(map(str, g[:limit])) + (" …" if len(g) > limit else "")) if g else ""
            for g in crossing]


def part_rows(topo: Topology, part: str) -> np.ndarray | None:
    """Link rows to draw for a part (``whole`` = all, ``group:N`` = links touching switch group N)."""
    if part == WHOLE:
        return None
    group = int(part.split(":")[1])
    key = topo.attr("group")
    touching = (key[topo.link_a] == group) | (key[topo.link_b] == group)
    return np.flatnonzero(touching)


def part_options(topo: Topology) -> list[dict]:
    options = [{"label": "overview by group", "value": OVERVIEW}]
    if topo.n_nodes <= SMALL_LIMIT:
        options.insert(0, {"label": "whole fabric", "value": WHOLE})
    groups = np.unique(topo.attr("group"))
    options += [{"label": f"group {g}", "value": f"group:{g}"} for g in groups[groups >= 0].tolist()]
    return options


def tree_rows(result: MulticastResult, group: int | None) -> np.ndarray:
    tree = result.trees[group] if group is not None and group < len(result.trees) else None
    if tree is None:
        return np.zeros(0, dtype=int)
    return np.flatnonzero(np.isin(result.link_ids, tree.links))


def worst_links(topo: Topology, result: MulticastResult, name: str, count: int = 5) -> str:
    rows = np.argsort(-result.efi, kind="stable")[:count]
    parts = [f"link {int(topo.link_id[r])} ({topo.names[topo.link_a[r]]}–{topo.names[topo.link_b[r]]}): "
             f"EFI {int(result.efi[r])}" for r in rows.tolist() if result.efi[r] > 0]
    return f"Worst links under {name}: " + "; ".join(parts) if parts else ""


def figures(params: dict, part: str, group: int | None) -> tuple[go.Figure, go.Figure, go.Figure, go.Figure]:
    """Heatmaps of A and B, their difference and the EFI histogram for the chosen part and group."""
    topo = topology_of(fabric(params["spec"], params["broken"]))
    a, b = routed(params, params["a"]), routed(params, params["b"])
    hist = efi_histogram({f"A: {a.algo}": a.efi, f"B: {b.algo}": b.efi})
    if part == OVERVIEW:
        return (group_summary(topo, a.efi).update_layout(title_text=f"A: {a.algo} — max EFI between groups"),
                group_summary(topo, b.efi).update_layout(title_text=f"B: {b.algo} — max EFI between groups"),
                group_summary(topo, b.efi - a.efi, label="EFI B − A")
                .update_traces(colorscale="RdBu_r", zmid=0).update_layout(title_text="B − A, max per group pair"),
                hist)
    rows = part_rows(topo, part)
    heat = [link_value_figure(topo, r.efi, f"{name}: {r.algo} (max EFI {int(r.efi.max())})",
                              hover=groups_on_links(r, topo.n_links), rows=rows, highlight=tree_rows(r, group))
            for name, r in (("A", a), ("B", b))]
    diff = link_value_figure(topo, b.efi - a.efi, f"Difference B − A ({b.algo} − {a.algo})", rows=rows,
                             diverging=True, label="EFI B − A")
    return heat[0], heat[1], diff, hist


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_player(app, ids.MC_PLAYER)
    app.callback(
        Output(ids.MC_PARAMS, "data"), Output(ids.MC_MESSAGE, "children"), Output(ids.MC_SUMMARY, "children"),
        Output(ids.MC_GROUP, "options"), Output(ids.MC_PART, "options"), Output(ids.MC_PART, "value"),
        Input(ids.MC_ROUTE, "n_clicks"),
        State(ids.MC_SPEC, "value"), State(ids.MC_PATTERN, "value"), State(ids.MC_PPN, "value"),
        State(ids.MC_SEED, "value"), State(ids.MC_BROKEN, "value"), State(ids.MC_ALGO_A, "value"),
        State(ids.MC_ALGO_B, "value"),
    )(route_both)
    app.callback(
        Output(ids.MC_FIG_A, "figure"), Output(ids.MC_FIG_B, "figure"), Output(ids.MC_FIG_DIFF, "figure"),
        Output(ids.MC_HIST, "figure"), Output(ids.MC_GROUP_INFO, "children"), Output(ids.MC_WORST, "children"),
        Input(ids.MC_PARAMS, "data"), Input(ids.MC_PART, "value"), Input(ids.MC_GROUP, "value"),
    )(render)
    app.callback(
        Output(pid(ids.MC_PLAYER, "timeline"), "data"),
        Input(ids.MC_PARAMS, "data"), Input(ids.MC_GROUP, "value"),
    )(group_protocol)
    app.callback(
        Output(ids.MC_STATE_FIG, "figure"),
        Input(pid(ids.MC_PLAYER, "step"), "value"), Input(pid(ids.MC_PLAYER, "timeline"), "data"),
    )(render_protocol)


def route_both(_clicks, spec, pattern, ppn, seed, broken, algo_a, algo_b):
    """Check the controls, route with both algorithms (cached) and summarise."""
    try:
        params = read_params(spec, pattern, ppn, seed, broken, algo_a, algo_b)
        results = {"a": routed(params, algo_a), "b": routed(params, algo_b)}
    except VizcollError as exc:
        return no_update, f"⚠ {exc}", no_update, no_update, no_update, no_update
    topo = topology_of(fabric(params["spec"], params["broken"]))
    trees = results["b"].trees
    options = [{"label": f"group {t.group}: {len(t.members)} members", "value": t.group}
               for t in trees[:2000] if t is not None]
    parts = part_options(topo)
    part = WHOLE if topo.n_nodes <= SMALL_LIMIT else OVERVIEW
    return params, "", summary_table(params, results), options, parts, part


def render(params, part, group):
    if not params:
        return (no_update,) * 6
    fig_a, fig_b, diff, hist = figures(params, part or OVERVIEW, group)
    topo = topology_of(fabric(params["spec"], params["broken"]))
    info = ""
    if group is not None:
        described = []
        for name in ("a", "b"):
            tree = routed(params, params[name]).trees[group]
            described.append(f"{params[name]}: unroutable" if tree is None else
                             f"{params[name]}: root {topo.names[tree.root]}, height {tree.height}, "
                             f"{len(tree.links)} links")
        info = f"Group {group} — " + "; ".join(described)
    worst = [html.Div(worst_links(topo, routed(params, params[name]), name.upper())) for name in ("a", "b")]
    return fig_a, fig_b, diff, hist, info, worst


def group_protocol(params, group):
    """The join/leave timeline of the highlighted group (the subnet manager sits on its tree's root)."""
    if not params or group is None:
        return None
    topo = topology_of(fabric(params["spec"], params["broken"]))
    tree = routed(params, params["b"]).trees[group]
    if tree is None:
        return None
    members = tree.members[:32]
    return simulate_group(members.tolist(), sm_node=tree.root, names=topo.names, seed=params["seed"]).to_dict()


def render_protocol(position, timeline):
    if not timeline:
        return go.Figure().update_layout(
            height=200, xaxis={"visible": False}, yaxis={"visible": False}, plot_bgcolor="white",
            annotations=[{"text": "Choose a group to replay its join/leave protocol.", "showarrow": False}])
    return process_diagram(*timeline_at(timeline, position))
