"""The trees page: aggregation trees of the shared scenario's communicator, compared, mapped and animated.

On the one shared :class:`~vizcoll.scenario.Scenario`'s fabric and one of
its communicators: the type I trees (k-ary, k-nomial, Zhao's and the
hierarchical k-nomial) side by side with the type II tree (in the switches),
the chosen tree drawn logically and on the links, the width model F(k) with
k* and the selection table, the physical vs the minimum-cost type II tree,
and an aggregation (up the tree, result broadcast down) with the player.

Every control change is checked on the server and written to the scenario
(``scenario.params["trees"]``), so the views, the share link and a reload
follow it; the views are computed from the scenario store. Clicking a link
of the drawing breaks or repairs it in the scenario (every page follows).
The parameters, limits, presets and cached engine calls are the page's model
(:mod:`vizcoll.ui.models.trees`); tables and sentences its views
(:mod:`vizcoll.ui.views.trees`); figures :mod:`vizcoll.ui.figures.trees`.
"Download GOAL" writes the chosen type I tree's broadcast, reduce or allreduce
(a collective and a message size of its own, kept in the page's parameters)
as LogGOPSim's schedule (:func:`vizcoll.ui.models.trees.goal_file`).
"""

from __future__ import annotations

import dash_cytoscape as cyto
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.scenario import WORLD, Scenario
from vizcoll.schedule import TREE_OPS
from vizcoll.ui.calls import SCENARIO, changed, checked, remembered, store_output, tapped_link, topology_of
from vizcoll.ui.components.kit import (
    download_button,
    dropdown,
    field,
    graph,
    info,
    message_box,
    number_input,
    section,
    status_box,
)
from vizcoll.ui.components.player import pid, player, register_player, timeline_at
from vizcoll.ui.figures.common import blank_figure
from vizcoll.ui.figures.topology import SMALL_LIMIT, base_stylesheet, cytoscape_elements, state_stylesheet
from vizcoll.ui.figures.trees import (
    AGG_COLOURS,
    aggregation_stylesheet,
    chosen_tree_figures,
    fk_figure,
    type_two_figures,
)
from vizcoll.ui.models.trees import (
    ANIM,
    CONTROL_KEYS,
    COST_FIELDS,
    COST_KEYS,
    KINDS,
    LIVE,
    MAX_ANIMATED,
    MAX_DEGREE,
    MAX_GOAL_BYTES,
    MAX_K,
    PAGE,
    PRESETS,
    ROUTES,
    TYPE2,
    comm_options,
    cost_of,
    engine_key,
    goal_file,
    placement_of,
    preset_scenario,
    read_params,
    shown_params,
    timeline_of,
    tree_name,
    tree_plan,
    type_one,
    type_two,
)
from vizcoll.ui.routing import page_scenario, register_page
from vizcoll.ui.views.trees import (
    anim_summary,
    comparison_table,
    cross_group_links,
    fabric_line,
    fk_info,
    flag_type_one,
    flag_type_two,
    selection_view,
    type_one_info,
    type_two_info,
)

__all__ = ["PAGE", "layout", "body", "register", "update", "refresh", "render_compare", "render_type_one",
           "render_width", "render_type_two", "animate", "render_step", "export_goal"]

# the page's components ("trees-k" and "trees-message" are a stable interface of outside browser checks)
TREES_COMM, TREES_KIND, TREES_K, TREES_DEGREE = "trees-comm", "trees-kind", "trees-k", "trees-degree"
TREES_ROUTES, TREES_L, TREES_DELTA, TREES_THETA = "trees-routes", "trees-l", "trees-delta", "trees-theta"
TREES_BETA, TREES_GAMMA, TREES_S, TREES_EPS = "trees-beta", "trees-gamma", "trees-s", "trees-eps"
TREES_MESSAGE, TREES_PARAMS, TREES_COMPARE = "trees-message", "trees-params", "trees-compare"
TREES_LOGICAL, TREES_MAPPED, TREES_MAPPED_INFO = "trees-logical", "trees-mapped", "trees-mapped-info"
TREES_FK, TREES_FK_INFO, TREES_SELECTION = "trees-fk", "trees-fk-info", "trees-selection"
TREES_T2_PHYSICAL, TREES_T2_MINCOST, TREES_T2_INFO = "trees-t2-physical", "trees-t2-mincost", "trees-t2-info"
TREES_ANIM_TREE, TREES_CANVAS, TREES_FLAG = "trees-anim-tree", "trees-canvas", "trees-flag"
TREES_ANIM_SUMMARY, TREES_LEGEND, TREES_PLAYER = "trees-anim-summary", "trees-legend", "trees-player"
TREES_CONTROLS, TREES_COST_CONTROLS, TREES_FABRIC = "trees-controls", "trees-cost-controls", "trees-fabric"
TREES_PRESET, TREES_USE_PRESET, TREES_PRESETS = "trees-preset", "trees-use-preset", "trees-presets"
TREES_GOAL, TREES_GOAL_FILE, TREES_GOAL_MESSAGE = "trees-goal", "trees-goal-file", "trees-goal-message"
TREES_GOAL_OP, TREES_GOAL_BYTES = "trees-goal-op", "trees-goal-bytes"
PARAM_CONTROLS = {"comm": TREES_COMM, "kind": TREES_KIND, "k": TREES_K, "degree": TREES_DEGREE,
                  "routes": TREES_ROUTES, "l": TREES_L, "delta": TREES_DELTA, "theta": TREES_THETA,
                  "beta": TREES_BETA, "gamma": TREES_GAMMA, "S": TREES_S, "eps": TREES_EPS, "anim": TREES_ANIM_TREE,
                  "goal_op": TREES_GOAL_OP, "goal_bytes": TREES_GOAL_BYTES}
FIGURES = "vizcoll-trees"  # the file name of a figure saved from its mode bar


def layout(**kwargs) -> html.Div:
    """Dash's entry: the page for the link's or the store's scenario (query parameters are ignored)."""
    return body(page_scenario(kwargs))


register_page(__name__, layout, path="/trees", name="Trees", order=2)


# ---------------------------------------------------------------- layout
def tree_controls(v: dict, options: list[dict]) -> list:
    """The communicator and tree controls showing the parameters ``v``."""
    return [
        field("communicator", dropdown(TREES_COMM, options, v["comm"])),
        field("kind", dropdown(TREES_KIND, [{"label": t, "value": k} for k, t in KINDS.items()], v["kind"])),
        field("k (width / base)", number_input(TREES_K, v["k"], min=2, max=MAX_K, step=1)),
        field("type II degree ≤", number_input(TREES_DEGREE, v["degree"], min=2, max=MAX_DEGREE, step=1)),
        html.Div(className="row", children=[
            html.Label("routes", className="label"),
            dcc.RadioItems(id=TREES_ROUTES, value=v["routes"],
                           options=[{"label": text, "value": key} for key, text in ROUTES.items()])]),
    ]


def cost_controls(v: dict) -> list:
    return [field(label, number_input(PARAM_CONTROLS[key], v[key])) for key, label in COST_FIELDS]


def body(scenario: Scenario) -> html.Div:
    """The page on ``scenario``: the controls show its trees parameters (bad stored values: the defaults)."""
    v = shown_params(scenario)
    try:
        options = comm_options(scenario)
    except VizcollError:
        options = [{"label": "every process", "value": WORLD}]
    return html.Div(className="page trees-page", children=[html.Div(className="columns", children=[
        _sidebar(v, options), _main(v)])])


def _sidebar(v: dict, options: list[dict]) -> html.Div:
    return html.Div(className="sidebar", children=[
        section("Processes and trees", html.Div(id=TREES_CONTROLS, children=tree_controls(v, options)),
                info(id=TREES_FABRIC)),
        section("Cost model (paper defaults)", html.Div(id=TREES_COST_CONTROLS, children=cost_controls(v)),
                info("Eq. 2: T = r·l + h·k·b with b = θ + S'/β + S*·γ (S' = S* = S here); F(k) uses a = δ·l. "
                     "The defaults model the paper's Sunway supernode: a = 1.12 μs, b = 0.01 μs."), open=False),
        section("Quick presets",
                dcc.Dropdown(id=TREES_PRESET, clearable=False, value="sunway",
                             options=[{"label": label, "value": key} for key, (label, _, _) in PRESETS.items()]),
                html.Button("Replace the scenario with this preset", id=TREES_USE_PRESET, n_clicks=0),
                info("A preset replaces the shared scenario (fabric, communicators, broken links: see the badge "
                     "above) for every page."), open=False, id=TREES_PRESETS),
        _goal_section(v),
        message_box(TREES_MESSAGE),
        info("The fabric and its broken links are the scenario's: load or draw them on the Topology page, repair "
             "from the badge, or click a link of the drawing below to break or repair it. Type I trees reduce in "
             "the processes' NICs (one vertex per process); type II trees in the switches. Height = most tree "
             "edges to the root, radius = most links to the root."),
    ])


def _goal_section(v: dict) -> html.Details:
    return section(
        "Export as GOAL (LogGOPSim)",
        field("collective", dropdown(TREES_GOAL_OP, list(TREE_OPS), v["goal_op"])),
        field("bytes per message", number_input(TREES_GOAL_BYTES, v["goal_bytes"], min=1, max=MAX_GOAL_BYTES,
                                                step=1)),
        html.Div(className="buttons", children=[download_button("Download GOAL", TREES_GOAL),
                                                dcc.Download(id=TREES_GOAL_FILE)]),
        message_box(TREES_GOAL_MESSAGE),
        info("The chosen type I tree (kind and k above) of the communicator, as the schedule LogGOPSim simulates: "
             "a vertex sends to its parent once its children's messages are in (reduce), to its children once it "
             "has the value (broadcast). Open it on the Schedules page."), open=False)


def _main(v: dict) -> html.Div:
    return html.Div(className="main", children=[
        dcc.Store(id=TREES_PARAMS),
        html.Div(className="panel", children=[html.H3("Trees compared (same communicator, same k)"),
                                              html.Div(id=TREES_COMPARE)]),
        html.Div(className="pair", children=[graph(TREES_LOGICAL, FIGURES), graph(TREES_MAPPED, FIGURES)]),
        html.Div(id=TREES_MAPPED_INFO, className="info"),
        html.Div(className="pair", children=[
            graph(TREES_FK, FIGURES),
            html.Div(className="table-box", children=[
                html.H3("Type I or type II? (Table 3, eq. 7–9)"),
                html.Div(id=TREES_SELECTION),
                html.Div(id=TREES_FK_INFO, className="info")])]),
        html.Div(id=TREES_T2_INFO, className="panel"),
        html.Div(className="pair", children=[graph(TREES_T2_PHYSICAL, FIGURES), graph(TREES_T2_MINCOST, FIGURES)]),
        html.Div(className="panel player-panel", children=[
            html.H3("Aggregation: partial results up the tree, the result broadcast down"),
            field("animate", dcc.RadioItems(id=TREES_ANIM_TREE, value=v["anim"], inline=True, options=[
                {"label": text, "value": key} for key, text in ANIM.items()])),
            status_box(TREES_FLAG),
            cyto.Cytoscape(id=TREES_CANVAS, elements=[], layout={"name": "preset", "fit": True},
                           stylesheet=base_stylesheet(), style={"width": "100%", "height": "520px"},
                           minZoom=0.05, maxZoom=4, boxSelectionEnabled=False, autoungrabify=True),
            _legend(),
            player(TREES_PLAYER),
            html.Div(id=TREES_ANIM_SUMMARY, className="info"),
        ]),
    ])


def _legend() -> html.Div:
    items = [("own value, not sent", "value"), ("partial result", "partial"), ("sent, waits for the result", "sent"),
             ("has the final result", "result"), ("blocked (broken edge below)", "blocked")]
    return html.Div(id=TREES_LEGEND, className="legend", children=[
        *[html.Span([html.Span(className="swatch ring", style={"borderColor": AGG_COLOURS[c]}), label])
          for label, c in items],
        html.Span([html.Span(className="swatch legend-root", style={"background": "#f5b800"}), "root"]),
        html.Span([html.Span(className="swatch legend-active"), "packet on the move"]),
        html.Span([html.Span(className="swatch legend-broken"), "broken link (click a link to break / repair)"])])


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_player(app, TREES_PLAYER)
    app.callback(
        store_output(), Output(TREES_MESSAGE, "children"),
        *[Input(i, "value") for i in PARAM_CONTROLS.values()],
        Input(TREES_USE_PRESET, "n_clicks"), Input(TREES_CANVAS, "tapEdge"), State(TREES_PRESET, "value"),
        State(SCENARIO, "data"), prevent_initial_call=True,
    )(update)
    app.callback(
        Output(TREES_PARAMS, "data"), Output(TREES_FABRIC, "children"), Output(TREES_CONTROLS, "children"),
        Output(TREES_COST_CONTROLS, "children"),
        Input(SCENARIO, "data"), State(TREES_PARAMS, "data"), State(TREES_COMM, "options"),
        *[State(PARAM_CONTROLS[key], "value") for key in (*CONTROL_KEYS, *COST_KEYS)],
    )(refresh)
    plan, scenario = Input(TREES_PARAMS, "data"), State(SCENARIO, "data")
    app.callback(Output(TREES_COMPARE, "children"), plan, scenario)(render_compare)
    app.callback(Output(TREES_LOGICAL, "figure"), Output(TREES_MAPPED, "figure"),
                 Output(TREES_MAPPED_INFO, "children"), plan, scenario)(render_type_one)
    app.callback(Output(TREES_FK, "figure"), Output(TREES_SELECTION, "children"), Output(TREES_FK_INFO, "children"),
                 plan)(render_width)
    app.callback(Output(TREES_T2_PHYSICAL, "figure"), Output(TREES_T2_MINCOST, "figure"),
                 Output(TREES_T2_INFO, "children"), plan, scenario)(render_type_two)
    app.callback(
        Output(pid(TREES_PLAYER, "timeline"), "data"), Output(TREES_FLAG, "children"),
        Output(TREES_FLAG, "className"), Output(TREES_CANVAS, "elements"),
        Output(TREES_ANIM_SUMMARY, "children"), plan, scenario,
    )(animate)
    app.callback(Output(TREES_GOAL_FILE, "data"), Output(TREES_GOAL_MESSAGE, "children"),
                 Input(TREES_GOAL, "n_clicks"), scenario, prevent_initial_call=True)(export_goal)
    app.callback(
        Output(TREES_CANVAS, "stylesheet"),
        Input(pid(TREES_PLAYER, "step"), "value"), Input(pid(TREES_PLAYER, "timeline"), "data"),
        State(TREES_PARAMS, "data"), scenario,
    )(render_step)


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
        if trigger == TREES_CANVAS:
            return scenario.toggled(tapped_link(tap_edge)).to_dict(), ""
        params = read_params(dict(zip(PARAM_CONTROLS, values, strict=True)))
        if params["comm"] != WORLD:
            placement_of(scenario, params["comm"])  # the communicator exists
    except VizcollError as exc:
        return no_update, f"⚠ {exc}"
    return remembered(data, PAGE, params), ""


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
    text = fabric_line(scenario, plan, topology_of(scenario))
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
        empty = blank_figure("No tree: see the message on the left." if _problem(plan) else "", height=300)
        return (empty, empty, "") if plan else (no_update,) * 3
    _, key, topo = view
    try:
        built = type_one(key, plan["kind"], plan["routes"])
    except VizcollError as exc:
        empty = blank_figure("No tree", height=300)
        return empty, empty, f"⚠ {exc}"
    where = "on the fabric" if plan["routes"] == LIVE else "as built (intact fabric)"
    logical, mapped = chosen_tree_figures(built, tree_name(plan["kind"], plan["k"]), where, topo,
                                          cross_group_links(built, topo))
    return logical, mapped, type_one_info(built, plan, topo)


def render_width(plan):
    if not plan or "error" in plan:
        return (blank_figure("", height=300), "", "") if plan else (no_update,) * 3
    cost = cost_of(plan, plan["nprocs"])
    return (fk_figure(plan["nprocs"], cost.a, cost.b, plan["eps"], plan["k"]), selection_view(plan),
            fk_info(plan))


def render_type_two(plan, data):
    view = _view(plan, data)
    if view is None:
        empty = blank_figure("", height=300)
        return (empty, empty, "") if plan else (no_update,) * 3
    _, key, topo = view
    try:
        two = type_two(key, plan["routes"])
    except VizcollError as exc:
        empty = blank_figure("No type II tree", height=300)
        return empty, empty, [html.P(f"⚠ {exc}")]
    return (*type_two_figures(two, plan["degree"], topo), type_two_info(two, plan, topo))


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


def export_goal(_clicks, data):
    """Download GOAL: the chosen type I tree's collective as LogGOPSim's schedule, or a message saying why not."""
    scenario, message = checked(data)
    try:
        return (goal_file(scenario), "") if scenario is not None else (no_update, message)
    except VizcollError as exc:
        return no_update, f"⚠ {exc}"


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
