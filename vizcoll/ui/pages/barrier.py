"""The barrier page: barrier messages on the shared scenario's fabric, and DLCT adjusting its pattern (the DLCT paper).

On a grid scenario the paper's grid model runs with the scenario's broken
links; on any other fabric the algorithms that need no grid run over min-hop
routes of the scenario's communicator's end nodes (see
:mod:`vizcoll.ui.models.barrier`, the page's model: parameters, limits, the
run plan and the cached engine calls; :mod:`vizcoll.ui.views.barrier` for
its tables and sentences).

Clicking a link on the drawing breaks or repairs it *in the scenario*
(``scenario.toggled(label)``), so the badge and every page follow; "Break at
random" and "Repair all" write the scenario's breaks too, and a grid preset
("Use this grid", or resizing a grid) replaces the scenario's fabric. Every
control change is checked on the server and written to
``scenario.params["barrier"]``, which updates the view and the shell's share
link.

Below: LCT vs BST on the numbered grid (the Gather links before and after
``round(K)`` and their update quantity: the paper's Fig. 3; the scenario's
grid, or the paper's 4 x 4 when the fabric is not a grid), run time vs break
rate and vs size for every algorithm (a small cached sweep, or the full one),
and the UQ(LCT) − UQ(BST) histogram (Fig. 5). "Download GOAL" writes the run's barrier as LogGOPSim's
schedule (:func:`vizcoll.ui.models.barrier.goal_file`), which the Schedules page opens.
"""

from __future__ import annotations

import dash_cytoscape as cyto
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.barrier import is_grid
from vizcoll.barrier.algorithms import ALGOS, JUDGES, LEGEND
from vizcoll.barrier.structures import NUMBERINGS
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui.calls import (
    SCENARIO,
    changed,
    checked,
    page_params,
    store_output,
    tapped_link,
    topology_of,
    user_action,
)
from vizcoll.ui.components.kit import (
    download_button,
    dropdown,
    field,
    graph,
    info,
    message_box,
    number_input,
    png_download,
    section,
    status_box,
)
from vizcoll.ui.components.player import pid, player, register_player, timeline_at
from vizcoll.ui.figures.barrier import (
    ADJUST_COLOUR,
    MESSAGE_COLOURS,
    NODE,
    ROOT_COLOUR,
    STATE_COLOURS,
    fabric_stylesheet,
    grid_stylesheet,
    message_kind,
    range_figure,
    step_stylesheet,
    sweep_figure,
    uq_histogram_figure,
)
from vizcoll.ui.forms import number, whole
from vizcoll.ui.models.barrier import (
    ALGO_NAMES,
    ALL_END_NODES,
    ANIMATION_LIMIT,
    FULL_MODE,
    MAX_PROCESSES,
    MAX_SEED,
    MAX_SIDE,
    PAGE,
    PRESET,
    QUICK_MODE,
    chosen_comm,
    comm_options,
    defaults_for,
    goal_file,
    grid_scenario,
    grid_shape,
    histogram_of,
    histogram_side,
    parse_size,
    random_breaks,
    read_neighbors,
    read_params,
    run_of,
    scenario_is_grid,
    shown_params,
    sweep_of,
    view_keys,
)
from vizcoll.ui.routing import page_scenario, register_page
from vizcoll.ui.views.barrier import drawing, judgement_text, summary_table, sweep_choices, sweep_info, uq_view
from vizcoll.ui.views.common import fabric_counts

__all__ = ["PAGE", "layout", "body", "register", "update", "refresh", "animate", "render_step", "render_uq",
           "compute_sweep", "render_sweep", "render_histogram", "export_goal"]

# the page's components
BAR_SIZE, BAR_NEIGHBORS, BAR_RATE, BAR_SEED = "bar-size", "bar-neighbors", "bar-rate", "bar-seed"
BAR_RANDOM, BAR_REPAIR, BAR_ALGO, BAR_JUDGE = "bar-random", "bar-repair", "bar-algo", "bar-judge"
BAR_BARRIERS, BAR_COMPUTE, BAR_MESSAGE, BAR_PARAMS = "bar-barriers", "bar-compute", "bar-message", "bar-params"
BAR_PNG, BAR_CANVAS, BAR_FLAG, BAR_SUMMARY = "bar-png", "bar-canvas", "bar-flag", "bar-summary"
BAR_LEGEND, BAR_PLAYER, BAR_K, BAR_NUMBERING = "bar-legend", "bar-player", "bar-k", "bar-numbering"
BAR_UQ_INFO, BAR_UQ_LCT, BAR_UQ_BST = "bar-uq-info", "bar-uq-lct", "bar-uq-bst"
BAR_SWEEP_MODE, BAR_SWEEP, BAR_SWEEP_SIZE = "bar-sweep-mode", "bar-sweep", "bar-sweep-size"
BAR_SWEEP_RATE, BAR_SWEEP_INFO, BAR_VS_RATE = "bar-sweep-rate", "bar-sweep-info", "bar-vs-rate"
BAR_VS_SIZE, BAR_RANGES, BAR_HIST = "bar-vs-size", "bar-ranges", "bar-hist"
BAR_USE_GRID, BAR_COMM, BAR_FABRIC = "bar-use-grid", "bar-comm", "bar-fabric"
BAR_UQ_KEY, BAR_SWEEP_KEY = "bar-uq-key", "bar-sweep-key"
BAR_GOAL, BAR_GOAL_FILE, BAR_GOAL_MESSAGE = "bar-goal", "bar-goal-file", "bar-goal-message"
PARAM_CONTROLS = {"algo": BAR_ALGO, "judge": BAR_JUDGE, "barriers": BAR_BARRIERS, "compute": BAR_COMPUTE,
                  "rate": BAR_RATE, "seed": BAR_SEED, "comm": BAR_COMM, "k": BAR_K, "numbering": BAR_NUMBERING,
                  "sweep": BAR_SWEEP_MODE}
FIGURES = "vizcoll-barrier"  # the file name of a figure saved from its mode bar


def layout(**kwargs) -> html.Div:
    """Dash's entry: the page for the link's or the store's scenario (query parameters are ignored)."""
    return body(page_scenario(kwargs))


register_page(__name__, layout, path="/barrier", name="Barrier", order=4)


# ---------------------------------------------------------------- layout
def body(scenario: Scenario) -> html.Div:
    """The page on ``scenario``: the controls show its page parameters (bad stored values: the defaults)."""
    try:
        topo = topology_of(scenario)
        grid = is_grid(topo)
    except VizcollError:
        topo, grid = None, False
    v = shown_params(scenario, grid)
    shape = grid_shape(scenario, topo) if grid else PRESET
    options = comm_options(scenario, topo) if topo is not None else []
    if topo is not None and options[1:] == [] and v["comm"] == 0:
        v["comm"] = ALL_END_NODES
    sidebar = html.Div(className="sidebar", children=[
        _fabric_section(shape), _breaks_section(v), _barrier_section(v, options, grid),
        message_box(BAR_MESSAGE),
        info("Every change runs at once. Break at random breaks that share of the links (seeded), never cutting "
             f"the switches apart. On a grid (up to {MAX_SIDE}×{MAX_SIDE}) messages go to the neighbor closest to "
             "their destination (the paper's rule) and detour along a shortest live path when that would loop; on "
             f"any other fabric the processes (up to {MAX_PROCESSES}) are end nodes and messages follow min-hop "
             "routes around the broken links."),
        html.Div(className="buttons", children=[download_button("Download PNG", BAR_PNG), download_button(
            "Download GOAL", BAR_GOAL), dcc.Download(id=BAR_GOAL_FILE)]),
        info("Download GOAL: this barrier as LogGOPSim's schedule (on a grid every hop of one barrier, ranks = the "
             "grid's switches; elsewhere the algorithm's logical pattern on the processes). Open it on Schedules."),
        message_box(BAR_GOAL_MESSAGE),
    ])
    main = html.Div(className="main", children=[
        dcc.Store(id=BAR_PARAMS), dcc.Store(id=BAR_UQ_KEY), dcc.Store(id=BAR_SWEEP_KEY),
        _run_panel(), *_uq_panels(v), *_sweep_panels(v),
        html.Div(className="pair", children=[graph(BAR_HIST, FIGURES)]),
    ])
    return html.Div(className="page barrier-page", children=[html.Div(className="columns", children=[sidebar, main])])


def _fabric_section(shape: tuple[int, int, int]) -> html.Details:
    rows, cols, neighbors = shape
    return section(
        "Fabric",
        html.P(id=BAR_FABRIC, className="info"),
        field("size (rows x cols)", dcc.Input(id=BAR_SIZE, value=f"{rows}x{cols}", debounce=True,
                                               placeholder=f"4x4 (up to {MAX_SIDE}x{MAX_SIDE})")),
        field("neighbors", dcc.RadioItems(id=BAR_NEIGHBORS, options=[4, 8], inline=True,
                                            value=neighbors if neighbors in (4, 8) else 8)),
        html.Div(className="buttons", children=[html.Button("Use this grid", id=BAR_USE_GRID, n_clicks=0)]),
        info("Use this grid replaces the scenario's fabric with this grid (every page follows; its page settings "
             "stay). On a grid, changing the size or the neighbors resizes it at once and keeps its broken links."))


def _breaks_section(v: dict) -> html.Details:
    return section(
        "Broken links",
        info("Click a link on the drawing to break it (red, dashed) and click again to repair it."),
        html.Div(className="row", children=[
            html.Label("break rate"), number_input(BAR_RATE, v["rate"], min=0, max=1, step=0.05),
            html.Label("seed"), number_input(BAR_SEED, v["seed"], min=0, max=MAX_SEED)]),
        html.Div(className="buttons", children=[html.Button("Break at random", id=BAR_RANDOM, n_clicks=0),
                                                html.Button("Repair all", id=BAR_REPAIR, n_clicks=0)]))


def _barrier_section(v: dict, options: list[dict], grid: bool) -> html.Details:
    return section(
        "Barrier",
        field("algorithm", dropdown(BAR_ALGO, [{"label": ALGO_NAMES[a], "value": a} for a in ALGOS], v["algo"])),
        field("DLCT judge", dropdown(BAR_JUDGE, list(JUDGES), v["judge"])),
        field("barriers", number_input(BAR_BARRIERS, v["barriers"], min=1, max=20)),
        field("work between (s)", number_input(BAR_COMPUTE, v["compute"], min=0, max=60, step=0.1)),
        field("processes", dropdown(BAR_COMM, options, v["comm"], disabled=grid)))


def _run_panel() -> html.Div:
    return html.Div(className="panel player-panel", children=[
        html.H3("Gather and Release, hop by hop (on a grid, the number on a node is its DLCT ID)"),
        cyto.Cytoscape(id=BAR_CANVAS, elements=[], layout={"name": "preset", "fit": True, "padding": 20},
                       stylesheet=grid_stylesheet(), style={"width": "100%", "height": "520px"},
                       minZoom=0.05, maxZoom=4, boxSelectionEnabled=False, autoungrabify=True,
                       autounselectify=True),
        _legend(),
        player(BAR_PLAYER),
        status_box(BAR_FLAG),
        html.Div(id=BAR_SUMMARY, className="bar-summary"),
    ])


def _legend() -> html.Div:
    rings = [("waiting", "waits for its Gathers"), ("gathered", "sent its Gather, waits for the Release"),
             ("released", "got the Release"), ("left", "left the last barrier"), ("stuck", "stuck")]
    return html.Div(id=BAR_LEGEND, className="legend", children=[
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


def _uq_panels(v: dict) -> list:
    return [
        html.Div(className="panel", children=[
            html.H3("LCT vs BST: the Gather links before and after round(K) (the paper's Fig. 3)"),
            html.Div(className="row", children=[
                html.Label("K"), number_input(BAR_K, v["k"], style={"width": 90, "flex": "none"}),
                html.Label("numbering", className="bar-gap"),
                dcc.Dropdown(id=BAR_NUMBERING, options=list(NUMBERINGS), clearable=False,
                             value=v["numbering"], style={"width": 160})]),
            html.Div(id=BAR_UQ_INFO, className="info"),
        ]),
        html.Div(className="pair", children=[graph(BAR_UQ_LCT, FIGURES), graph(BAR_UQ_BST, FIGURES)]),
    ]


def _sweep_panels(v: dict) -> list:
    return [
        html.Div(className="panel", children=[
            html.H3("Run time of every algorithm (the paper's Fig. 6 and 7)"),
            dcc.Store(id=BAR_SWEEP),
            field("sweep", dcc.RadioItems(id=BAR_SWEEP_MODE, value=v["sweep"], options=[
                {"label": "quick: 4×4 to 12×12, 0/20/40% broken, 1 seed (a few seconds)", "value": QUICK_MODE},
                {"label": "full: 4–20 × 0–50% broken, 1 seed (about 25 s)", "value": FULL_MODE}])),
            html.Div(className="row", children=[
                html.Label("grid of the rate chart"),
                dcc.Dropdown(id=BAR_SWEEP_SIZE, clearable=False, style={"width": 120}),
                html.Label("break rate of the size chart", className="bar-gap"),
                dcc.Dropdown(id=BAR_SWEEP_RATE, clearable=False, style={"width": 120})]),
            html.Div(id=BAR_SWEEP_INFO, className="info"),
        ]),
        dcc.Loading(type="dot", children=html.Div(className="pair", children=[
            graph(BAR_VS_RATE, FIGURES), graph(BAR_VS_SIZE, FIGURES)])),
        html.Div(className="pair", children=[graph(BAR_RANGES, FIGURES)]),
    ]


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_player(app, BAR_PLAYER)
    app.callback(
        store_output(), Output(BAR_MESSAGE, "children"),
        Input(BAR_CANVAS, "tapEdge"), Input(BAR_USE_GRID, "n_clicks"), Input(BAR_RANDOM, "n_clicks"),
        Input(BAR_REPAIR, "n_clicks"), Input(BAR_SIZE, "value"), Input(BAR_NEIGHBORS, "value"),
        *[Input(i, "value") for i in PARAM_CONTROLS.values()],
        State(SCENARIO, "data"), prevent_initial_call=True,
    )(update)
    app.callback(
        Output(BAR_PARAMS, "data"), Output(BAR_UQ_KEY, "data"), Output(BAR_SWEEP_KEY, "data"),
        Output(BAR_FABRIC, "children"), Output(BAR_COMM, "options"), Output(BAR_COMM, "disabled"),
        Input(SCENARIO, "data"),
        State(BAR_PARAMS, "data"), State(BAR_UQ_KEY, "data"), State(BAR_SWEEP_KEY, "data"),
    )(refresh)
    app.callback(Output(BAR_COMM, "value"), Input(BAR_COMM, "options"), State(SCENARIO, "data"),
                 prevent_initial_call=True)(shown_comm)
    app.callback(
        Output(pid(BAR_PLAYER, "timeline"), "data"), Output(BAR_CANVAS, "elements"),
        Output(BAR_SUMMARY, "children"), Output(BAR_FLAG, "children"), Output(BAR_FLAG, "className"),
        Input(BAR_PARAMS, "data"), State(SCENARIO, "data"),
    )(animate)
    app.callback(
        Output(BAR_CANVAS, "stylesheet"),
        Input(pid(BAR_PLAYER, "step"), "value"), Input(pid(BAR_PLAYER, "timeline"), "data"),
        State(BAR_PARAMS, "data"), State(SCENARIO, "data"),
    )(render_step)
    app.callback(Output(BAR_UQ_LCT, "figure"), Output(BAR_UQ_BST, "figure"), Output(BAR_UQ_INFO, "children"),
                 Input(BAR_UQ_KEY, "data"))(render_uq)
    app.callback(Output(BAR_HIST, "figure"), Input(BAR_UQ_KEY, "data"))(render_histogram)
    app.callback(
        Output(BAR_SWEEP, "data"), Output(BAR_SWEEP_SIZE, "options"), Output(BAR_SWEEP_SIZE, "value"),
        Output(BAR_SWEEP_RATE, "options"), Output(BAR_SWEEP_RATE, "value"), Output(BAR_SWEEP_INFO, "children"),
        Input(BAR_SWEEP_KEY, "data"), State(BAR_SWEEP_SIZE, "value"), State(BAR_SWEEP_RATE, "value"),
    )(compute_sweep)
    app.callback(
        Output(BAR_VS_RATE, "figure"), Output(BAR_VS_SIZE, "figure"), Output(BAR_RANGES, "figure"),
        Input(BAR_SWEEP, "data"), Input(BAR_SWEEP_SIZE, "value"), Input(BAR_SWEEP_RATE, "value"),
    )(render_sweep)
    png_download(app, BAR_PNG, BAR_CANVAS, "vizcoll-barrier")
    app.callback(Output(BAR_GOAL_FILE, "data"), Output(BAR_GOAL_MESSAGE, "children"), Input(BAR_GOAL, "n_clicks"),
                 State(SCENARIO, "data"), prevent_initial_call=True)(export_goal)


def scenario_after(trigger, scenario: Scenario, tap_edge, size, neighbors, values: dict) -> tuple[Scenario, str]:
    """The scenario after a fabric control (a clicked link, a grid preset, random breaks, repair) and a note."""
    if trigger == BAR_CANVAS:
        return scenario.toggled(tapped_link(tap_edge)), ""
    if trigger in (BAR_USE_GRID, BAR_SIZE, BAR_NEIGHBORS):
        rows, cols = parse_size(size)
        n = read_neighbors(neighbors)
        if trigger != BAR_USE_GRID and not scenario_is_grid(scenario):
            return scenario, (f"Press Use this grid to replace the scenario's fabric ({scenario.title}) with a "
                              f"{rows}×{cols} grid with {n} neighbors.")
        return grid_scenario(scenario, rows, cols, n), ""
    if trigger == BAR_RANDOM:
        rate = number(values["rate"], "break rate", float, 0, 1)
        return random_breaks(scenario, rate, whole(values["seed"], "seed", 0, MAX_SEED)), ""
    if trigger == BAR_REPAIR:
        return scenario.with_breaks([]), ""
    return scenario, ""


def update(tap_edge, _use_grid, _random, _repair, size, neighbors, algo, judge, barriers, compute, rate, seed, comm,
           k, numbering_kind, sweep_mode, data):
    """A control changed: the shared scenario with the page's checked parameters, or with the fabric change
    (clicked link, grid preset, random breaks, repair); a bad value leaves the store as it is, with a message."""
    if not user_action():  # the page appearing (every control at once): nothing to write
        return no_update, no_update
    trigger = ctx.triggered_id
    scenario, message = checked(data)
    if scenario is None:
        return no_update, message
    values = {"algo": algo, "judge": judge, "barriers": barriers, "compute": compute, "rate": rate, "seed": seed,
              "comm": comm, "k": k, "numbering": numbering_kind, "sweep": sweep_mode}
    try:
        params, bad = read_params(values | {"comm": chosen_comm(scenario, comm, checked_first=True)}), ""
        params["comm"] = chosen_comm(scenario, params["comm"])
    except VizcollError as exc:
        params, bad = None, f"⚠ {exc}"
    if params is None and trigger in PARAM_CONTROLS.values():
        return no_update, bad
    try:
        new, note = scenario_after(trigger, scenario, tap_edge, size, neighbors, values)
        if note:
            return no_update, note
        if params is not None:
            new = new.with_params(PAGE, params)
    except VizcollError as exc:
        return no_update, f"⚠ {exc}"
    return (no_update if new == scenario else new.to_dict()), bad


def shown_comm(options, data):
    """The processes control after its options changed: the stored choice when offered, on a grid (disabled)
    "every end node", else left as it is."""
    scenario, _ = checked(data)
    if scenario is None or not options:
        return no_update
    try:
        grid = scenario_is_grid(scenario)
        stored = page_params(scenario, PAGE, defaults_for(grid))["comm"]
    except VizcollError:
        return no_update
    offered = [o.get("value") for o in options if isinstance(o, dict)]
    if stored in offered:
        return stored
    return ALL_END_NODES if grid else no_update


def refresh(data, plan_now=None, uq_now=None, sweep_now=None):
    """The keys of the three views (each written only when it changed), the fabric's line, the process choice."""
    scenario, message = checked(data)
    if scenario is None:
        return changed({"error": message}, plan_now), no_update, no_update, message, no_update, no_update
    plan, uq, sweep_key = view_keys(scenario)
    topo = topology_of(scenario)
    grid = is_grid(topo)
    text = (f"The scenario's fabric: {scenario.title} ({fabric_counts(topo)}), {'a grid' if grid else 'not a grid'}. "
            + (plan.get("note") or ""))
    return (changed(plan, plan_now), changed(uq, uq_now), changed(sweep_key, sweep_now), text,
            comm_options(scenario, topo), grid)


def animate(plan, data):
    """The run of the plan: the timeline for the player, the drawing, the figures and a line about the run."""
    if not plan:
        return (no_update,) * 5
    scenario, message = checked(data)
    if scenario is None:
        return None, [], "", message, "flag warn"
    topo = topology_of(scenario)
    elements = drawing(topo, plan)
    if "error" in plan:
        return None, elements, "", plan["error"], "flag warn"
    if plan["reason"]:
        return None, elements, "", plan["reason"], "flag"
    try:
        run = run_of(scenario, plan)
    except VizcollError as exc:
        return None, elements, "", f"⚠ {exc}", "flag warn"
    figures = run["figures"]
    flag = judgement_text(figures)
    if not plan["animate"]:
        flag = "\n".join(filter(None, [f"The fabric has {topo.n_nodes:,} nodes: the run is computed but not "
                                       f"animated (the page draws fabrics up to {ANIMATION_LIMIT:,} nodes).",
                                       flag]))
    return run["timeline"], elements, summary_table(figures), flag, "flag warn" if "⚠" in flag else "flag"


def render_step(step, timeline, plan, data):
    """Stylesheet for one player step: states, DLCT IDs, this step's hops (Gather / Release) and adjustments."""
    sheet = grid_stylesheet() if plan and plan.get("grid") else fabric_stylesheet()
    scenario = checked(data)[0] if timeline and plan and "error" not in plan else None
    if scenario is None:
        return sheet
    topo = topology_of(scenario)
    tl, step = timeline_at(timeline, step)
    source = dict(zip(topo.link_id.tolist(), topo.link_a.tolist(), strict=True))
    hops = [{"link": lid, "src": e.src, "source": source[lid], "kind": message_kind(e.label)}
            for e in (tl.active_at(step) if step >= 0 else []) for lid in e.path_links if lid in source]
    state, idents = {}, {}
    for key, value in tl.state_at(step).items():
        entity = tl.entities.get(key)
        if entity is None:
            continue
        (idents if entity.get("kind") == "id" else state)[int(entity["node"])] = value
    changed = tl.changes_at(step) if step >= 0 else {}
    adjusted = [int(tl.entities[key]["node"]) for key in changed if tl.entities.get(key, {}).get("kind") == "id"]
    roots = [u for u, ident in idents.items() if ident == 0]
    return sheet + step_stylesheet(state, idents, adjusted, hops, roots)


def export_goal(_clicks, data):
    """Download GOAL: the current run's barrier as LogGOPSim's schedule, or a message saying why not."""
    scenario, message = checked(data)
    try:
        return (goal_file(scenario), "") if scenario is not None else (no_update, message)
    except VizcollError as exc:
        return no_update, f"⚠ {exc}"


def render_uq(key):
    if not key:
        return no_update, no_update, no_update
    try:
        return uq_view(key)
    except VizcollError as exc:
        return no_update, no_update, f"⚠ {exc}"


def compute_sweep(key, size, rate):
    """The sweep (cached) for the grid's neighborhood; the chart choices keep their value when still offered."""
    if not key:
        return (no_update,) * 6
    result = sweep_of(key["mode"], key["neighbors"]) | {"mode": key["mode"]}
    sizes, rates = sweep_choices(result)
    size = size if size in [o["value"] for o in sizes] else sizes[-1]["value"]
    rate = rate if rate in [o["value"] for o in rates] else rates[-1]["value"]
    return result, sizes, size, rates, rate, sweep_info(result)


def render_sweep(result, size, rate):
    if not result or size is None or rate is None:
        return no_update, no_update, no_update
    return sweep_figure(result, "rate", size), sweep_figure(result, "size", rate), range_figure(result)


def render_histogram(key):
    if not key:
        return no_update
    side = histogram_side(key)
    return uq_histogram_figure(histogram_of(side, key["neighbors"]),
                               paper=(side, key["neighbors"]) == (4, 8))
