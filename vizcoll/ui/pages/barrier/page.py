"""The barrier page: barrier messages on the shared scenario's fabric, and DLCT adjusting its pattern (the DLCT paper).

On a grid scenario the paper's grid model runs with the scenario's broken links; on any other fabric the algorithms
that need no grid run over min-hop routes of the scenario's communicator's end nodes (see
:mod:`vizcoll.ui.pages.barrier._model`, the page's model: parameters, limits, the run plan and the cached engine calls;
:mod:`vizcoll.ui.pages.barrier._views` for its tables and sentences).

The run plays on what the page draws (off a grid, the shared part choice "draw"): the fabric node by node on the
canvas (up to 1,500 nodes), a larger fabric's overview (``bar-overview``: each bundle of links lit by the Gather
and Release messages crossing it, each block by its processes changing state, in the browser), or one group alone
(a click on a block draws it). Clicking a link on the drawing breaks or repairs it *in the scenario*
(``scenario.toggled(label)``), so the badge and every page follow; "Break at random" and "Repair all" write the
scenario's breaks too, and a grid preset ("Use this grid", or resizing a grid) replaces the scenario's fabric. Every
control change is checked on the server and written to ``scenario.params["barrier"]``, which updates the view and
the shell's share link.

Below: LCT vs BST on the numbered grid (the Gather links before and after ``round(K)`` and their update
quantity: the paper's Fig. 3; the scenario's grid, or the paper's 4 x 4 when the fabric is not a grid), run time
vs break rate and vs size for every algorithm (a small cached sweep, or the full one), and the UQ(LCT) − UQ(BST)
histogram (Fig. 5). "Download GOAL" writes the run's barrier as LogGOPSim's schedule
(:func:`vizcoll.ui.pages.barrier._model.goal_file`). Exports: :mod:`vizcoll.ui.components.exports`.

Background jobs (:mod:`vizcoll.ui.jobs`; times in :mod:`vizcoll.ui.pages.barrier._model`), each with a progress bar
and a Cancel button that keeps the last result: the run when it is not light (``bar-run``; a change
while it runs replaces it), Break at random (``bar-breaks``) and the sweep (``bar-sweep``, quick or
full, cell by cell; the sweep choice is locked meanwhile; how long each takes: docs/design.md). The stores the
views read are checked again.
"""

from __future__ import annotations

import dash_cytoscape as cyto
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.barrier import is_grid
from vizcoll.barrier.algorithms import ALGORITHMS, JUDGES
from vizcoll.barrier.structures import NUMBERINGS
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import MAX_EVENTS as MAX_STEPS
from vizcoll.ui import jobs
from vizcoll.ui.cache import reporting
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.canvashint import ELSEWHERE, canvas_hint, register_canvas_hint
from vizcoll.ui.components.exports import animation_export, figure_pack, register_animation_export, register_figure_pack
from vizcoll.ui.components.kit import (
    download_button,
    dropdown,
    field,
    graph,
    image_download,
    info,
    job_bar,
    message_box,
    number_input,
    register_image_download,
    section,
    status_box,
)
from vizcoll.ui.components.links import link_list, register_link_list
from vizcoll.ui.components.player import first_frame, on_canvas, pid, player, register_overview, register_player
from vizcoll.ui.components.sidebyside import (
    comparison_order,
    register_side_by_side,
    result_outputs,
    shown,
    side_by_side,
)
from vizcoll.ui.forms import choice, number, whole, whole_or
from vizcoll.ui.models.parts import WHOLE, part_options
from vizcoll.ui.pages.barrier import ORDER
from vizcoll.ui.pages.barrier import _figures as charts
from vizcoll.ui.pages.barrier import _model as model
from vizcoll.ui.pages.barrier import _views as views
from vizcoll.ui.routing import filled, page_scenario, register_page
from vizcoll.ui.store import (
    DEFAULT_SCENARIO,
    SCENARIO,
    changed,
    checked,
    key_of,
    store_output,
    tapped_link,
    topology_of,
    user_action,
)
from vizcoll.ui.views.common import fabric_counts

__all__ = [
    "PAGE",
    "layout",
    "body",
    "examples",
    "first_views",
    "opening_order",
    "register",
    "update",
    "break_at_random",
    "refresh",
    "render_drawing",
    "run_job",
    "run_or_order",
    "animate",
    "render_step",
    "compare_runs",
    "side_sheet",
    "render_uq",
    "compute_sweep",
    "render_sweep",
    "render_histogram",
    "export_goal",
]

PAGE = model.PAGE  # the key of the page's parameters in scenario.params
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
BAR_UQ_KEY, BAR_SWEEP_KEY, BAR_DRAWN = "bar-uq-key", "bar-sweep-key", "bar-drawn-breaks"
BAR_GOAL, BAR_GOAL_FILE, BAR_GOAL_MESSAGE = "bar-goal", "bar-goal-file", "bar-goal-message"
BAR_RUN_JOB, BAR_BREAKS_JOB, BAR_SWEEP_JOB, BAR_PACK = "bar-run", "bar-breaks", "bar-sweep", "bar-pack"
BAR_RUN_ORDER = "bar-run-order"  # the run's background job order (a heavy run: run_or_order)
BAR_OVERVIEW, BAR_PART, BAR_DRAWN_KEY = "bar-overview", "bar-part", "bar-drawn-key"
BAR_COMPARE, BAR_SIDES = "bar-compare-algo", "bar-cmp"  # side by side: the algorithm compared, the panel's player
BAR_SIDES_ORDER = "bar-cmp-order"  # the side-by-side job's order: the algorithm compared and the run plan's key
POLL_MS, RUN_POLL_MS = 400, 200  # how often the page asks for a job's progress (the run's answer is its first frame)
SWEEP_OPTIONS = [
    {"label": "quick: 4×4 to 12×12, 0/20/40% broken, 1 seed (a few seconds)", "value": model.QUICK_MODE},
    {"label": "full: 4–20 × 0–50% broken, 1 seed (about 25 s)", "value": model.FULL_MODE},
]
PARAM_CONTROLS = {
    "algo": BAR_ALGO,
    "judge": BAR_JUDGE,
    "barriers": BAR_BARRIERS,
    "compute": BAR_COMPUTE,
    "rate": BAR_RATE,
    "seed": BAR_SEED,
    "comm": BAR_COMM,
    "k": BAR_K,
    "numbering": BAR_NUMBERING,
    "sweep": BAR_SWEEP_MODE,
    "part": BAR_PART,
    "compare": BAR_COMPARE,
}
FIGURES = "vizcoll-barrier"  # the file name of a figure saved from its mode bar
GRID_PART = [{"label": "the grid, node by node", "value": WHOLE}]  # what "draw" offers on a grid (disabled)
# a click on a block (or a bundle) of the overview chooses its group (its customdata) under "draw"
CLICKED_PART_JS = """function (click) { const point = click && Array.isArray(click.points) && click.points[0];
    const part = point && point.customdata;
    return typeof part === "string" && part.startsWith("group:") ? part : window.dash_clientside.no_update; }"""


WRITTEN = {"scenario": store_output(), "message": Output(BAR_MESSAGE, "children")}  # update's
CONTROLS = {  # what update reads: a fabric change, or a control of the page's parameters (``values``)
    "tap_edge": Input(BAR_CANVAS, "tapEdge"),
    "use_grid": Input(BAR_USE_GRID, "n_clicks"),
    "repair": Input(BAR_REPAIR, "n_clicks"),
    "drawn": Input(BAR_DRAWN, "data"),
    "size": Input(BAR_SIZE, "value"),
    "neighbors": Input(BAR_NEIGHBORS, "value"),
    "values": {key: Input(i, "value") for key, i in PARAM_CONTROLS.items()},
    "scenario": State(SCENARIO, "data"),
}
BREAKS = {"drawn": Output(BAR_DRAWN, "data"), "message": Output(BAR_MESSAGE, "children", allow_duplicate=True)}
BREAK_INPUTS = {
    "clicks": Input(BAR_RANDOM, "n_clicks"),
    "rate": State(BAR_RATE, "value"),
    "seed": State(BAR_SEED, "value"),
    "scenario": State(SCENARIO, "data"),
}
REFRESHED = {
    "plan": Output(BAR_PARAMS, "data"),
    "uq": Output(BAR_UQ_KEY, "data"),
    "sweep": Output(BAR_SWEEP_KEY, "data"),
    "fabric": Output(BAR_FABRIC, "children"),
    "comm_options": Output(BAR_COMM, "options"),
    "comm_disabled": Output(BAR_COMM, "disabled"),
    "part_options": Output(BAR_PART, "options"),
    "part": Output(BAR_PART, "value"),
    "part_disabled": Output(BAR_PART, "disabled"),
    "algos": Output(BAR_ALGO, "options"),
    "compare": Output(BAR_COMPARE, "options"),
}
SHOWN_NOW = {  # refresh's input and what the browser shows (each output is written only when it changed)
    "scenario": Input(SCENARIO, "data"),
    "plan_now": State(BAR_PARAMS, "data"),
    "uq_now": State(BAR_UQ_KEY, "data"),
    "sweep_now": State(BAR_SWEEP_KEY, "data"),
    "part_now": State(BAR_PART, "value"),
    "options_now": State(BAR_COMM, "options"),
    "algos_now": State(BAR_ALGO, "options"),
}
DRAWING = {
    "figure": Output(BAR_OVERVIEW, "figure"),
    "canvas_style": Output(BAR_CANVAS, "style"),
    "figure_style": Output(BAR_OVERVIEW, "style"),
    "legend": Output(BAR_LEGEND, "children"),
    "drawn": Output(BAR_DRAWN_KEY, "data"),
}
DRAWING_INPUTS = {
    "plan": Input(BAR_PARAMS, "data"),
    "scenario": State(SCENARIO, "data"),
    "drawn_now": State(BAR_DRAWN_KEY, "data"),
}
RUN = {
    "timeline": Output(pid(BAR_PLAYER, "timeline"), "data"),
    "elements": Output(BAR_CANVAS, "elements"),
    "summary": Output(BAR_SUMMARY, "children"),
    "flag": Output(BAR_FLAG, "children"),
    "flag_class": Output(BAR_FLAG, "className"),
}
RUN_OR_ORDER = RUN | {"order": Output(BAR_RUN_ORDER, "data")}
RUN_JOB = {name: Output(o.component_id, o.component_property, allow_duplicate=True) for name, o in RUN.items()}
PLAN = {  # run_or_order's and opening_order's
    "plan": Input(BAR_PARAMS, "data"),
    "scenario": State(SCENARIO, "data"),
    "order_now": State(BAR_RUN_ORDER, "data"),
}
ORDERED = {"order": Input(BAR_RUN_ORDER, "data"), "scenario": State(SCENARIO, "data")}  # run_job's
UQ = {"lct": Output(BAR_UQ_LCT, "figure"), "bst": Output(BAR_UQ_BST, "figure"), "info": Output(BAR_UQ_INFO, "children")}
SWEEP = {
    "sweep": Output(BAR_SWEEP, "data"),
    "size_options": Output(BAR_SWEEP_SIZE, "options"),
    "size": Output(BAR_SWEEP_SIZE, "value"),
    "rate_options": Output(BAR_SWEEP_RATE, "options"),
    "rate": Output(BAR_SWEEP_RATE, "value"),
    "info": Output(BAR_SWEEP_INFO, "children"),
}
SWEEP_INPUTS = {
    "key": Input(BAR_SWEEP_KEY, "data"),
    "size": State(BAR_SWEEP_SIZE, "value"),
    "rate": State(BAR_SWEEP_RATE, "value"),
}
SWEPT = {
    "vs_rate": Output(BAR_VS_RATE, "figure"),
    "vs_size": Output(BAR_VS_SIZE, "figure"),
    "ranges": Output(BAR_RANGES, "figure"),
}
SWEPT_INPUTS = {
    "key": Input(BAR_SWEEP, "data"),
    "size": Input(BAR_SWEEP_SIZE, "value"),
    "rate": Input(BAR_SWEEP_RATE, "value"),
}
GOAL = {"file": Output(BAR_GOAL_FILE, "data"), "message": Output(BAR_GOAL_MESSAGE, "children")}
SIDES_INPUTS = {"order": Input(BAR_SIDES_ORDER, "data"), "scenario": State(SCENARIO, "data")}  # compare_runs'


def layout(**kwargs) -> html.Div:
    """Dash's entry: the page for the link's or the store's scenario (query parameters are ignored)."""
    return body(page_scenario(kwargs))


register_page(__name__, layout, path="/barrier", name="Barrier", order=ORDER)


# ---------------------------------------------------------------- layout
def body(scenario: Scenario) -> html.Div:
    """The page on ``scenario``: the controls show its page parameters (bad stored values: the defaults)."""
    try:
        topo = topology_of(scenario)
        grid = is_grid(topo)
    except VizcollError:
        topo, grid = None, False
    v = model.shown_params(scenario, grid)
    shape = model.grid_shape(scenario, topo) if grid else model.PRESET
    options = model.comm_options(scenario, topo) if topo is not None else []
    algos = model.algo_options(scenario, topo)
    if topo is not None:  # the process shown as shown_comm shows it (it runs when the options change)
        shown = model.shown_comm(scenario, [option["value"] for option in options])
        v["comm"] = shown if shown is not None else model.ALL_END_NODES if options[1:] == [] else v["comm"]
    sidebar = html.Div(
        className="sidebar",
        children=[
            _fabric_section(shape),
            _breaks_section(v),
            link_list("bar"),
            _barrier_section(v, options, algos, grid),
            message_box(BAR_MESSAGE),
            info(
                "Every change runs at once. Break at random breaks that share of the links (seeded), never cutting "
                f"the switches apart. On a grid (up to {model.MAX_SIDE}×{model.MAX_SIDE}) messages go to the neighbor "
                "closest to their destination (the paper's rule) and detour along a shortest live path when that would "
                f"loop; on any other fabric the processes (up to {model.MAX_PROCESSES:,}) are end nodes and messages "
                f"follow min-hop routes around the broken links (runs of up to {model.MAX_MESSAGES:,} messages; a "
                "large one is a background job)."
            ),
            image_download(BAR_PNG, download_button("Download GOAL", BAR_GOAL), dcc.Download(id=BAR_GOAL_FILE)),
            info(
                "Download GOAL: this barrier as LogGOPSim's schedule (on a grid every hop of one barrier, ranks = the "
                "grid's switches; elsewhere the algorithm's logical pattern on the processes). Open it on Schedules."
            ),
            message_box(BAR_GOAL_MESSAGE),
            figure_pack(BAR_PACK),
        ],
    )
    main = html.Div(
        className="main",
        children=[
            dcc.Store(id=BAR_PARAMS),
            dcc.Store(id=BAR_UQ_KEY),
            dcc.Store(id=BAR_SWEEP_KEY),
            dcc.Store(id=BAR_DRAWN),
            _run_panel(),
            dcc.Store(id=BAR_SIDES_ORDER),
            _side_by_side_panel(v, algos),
            *_uq_panels(v),
            *_sweep_panels(v),
            _below_the_fold(BAR_HIST),
        ],
    )
    page = html.Div(className="page barrier-page", children=[html.Div(className="columns", children=[sidebar, main])])
    return filled(page, first_views, scenario)


def examples() -> list[tuple[str, Scenario]]:
    """The grid preset ("Use this grid" on a fabric that is no grid: the paper's Fig. 3) and the scenario it makes
    of the default one (the help page links it)."""
    rows, cols, neighbors = model.PRESET
    grid = model.grid_scenario(DEFAULT_SCENARIO, rows, cols, neighbors)
    return [(f"{rows}×{cols} grid, {neighbors} neighbors: the paper's Fig. 3", grid)]


def first_views(scenario: Scenario) -> list[tuple[dict[str, Output], dict]]:
    """What the page's callbacks draw for ``scenario`` as it opens (:func:`~vizcoll.ui.routing.filled`): the views'
    keys and the controls, the run's drawing, and a light run with its player's first frame (a heavy run is left to
    its background job, which :func:`opening_order` orders as the page opens). The LCT/BST view, the histogram and
    the sweep are drawn by their callbacks as the page opens, below the fold."""
    data = scenario.to_dict(thin=True)
    refreshed = refresh(data)
    plan = refreshed["plan"]
    run = run_or_order(plan, data)
    run.pop("order", None)  # a heavy run's order: opening_order's
    return [
        (REFRESHED, refreshed),
        (DRAWING, render_drawing(plan, data)),
        (RUN, run),
        first_frame(BAR_PLAYER, run.get("timeline", no_update)),
    ]


def _fabric_section(shape: tuple[int, int, int]) -> html.Details:
    rows, cols, neighbors = shape
    return section(
        "Fabric",
        html.P(id=BAR_FABRIC, className="info"),
        field(
            "size (rows x cols)",
            dcc.Input(
                id=BAR_SIZE,
                value=f"{rows}x{cols}",
                debounce=True,
                placeholder=f"4x4 (up to {model.MAX_SIDE}x{model.MAX_SIDE})",
            ),
        ),
        field(
            "neighbors",
            dcc.RadioItems(
                id=BAR_NEIGHBORS, options=[4, 8], inline=True, value=neighbors if neighbors in (4, 8) else 8
            ),
        ),
        html.Div(className="buttons", children=[html.Button("Use this grid", id=BAR_USE_GRID, n_clicks=0)]),
        info(
            "Use this grid replaces the scenario's fabric with this grid (every page follows; its page settings "
            "stay). On a grid, changing the size or the neighbors resizes it at once and keeps its broken links."
        ),
    )


def _breaks_section(v: dict) -> html.Details:
    return section(
        "Broken links",
        info("Click a link on the drawing to break it (red, dashed) and click again to repair it."),
        field("break rate", number_input(BAR_RATE, v["rate"], min=0, max=1, step=0.05)),
        field("seed", number_input(BAR_SEED, v["seed"], min=0, max=model.MAX_SEED)),
        html.Div(
            className="buttons",
            children=[
                html.Button("Break at random", id=BAR_RANDOM, n_clicks=0),
                html.Button("Repair all", id=BAR_REPAIR, n_clicks=0),
            ],
        ),
        job_bar(BAR_BREAKS_JOB),
    )


def _barrier_section(v: dict, options: list[dict], algos: list[dict], grid: bool) -> html.Details:
    return section(
        "Barrier",
        field("algorithm", dropdown(BAR_ALGO, algos, v["algo"])),
        field("DLCT judge", dropdown(BAR_JUDGE, list(JUDGES), v["judge"])),
        field("barriers", number_input(BAR_BARRIERS, v["barriers"], min=1, max=20)),
        field("work between (s)", number_input(BAR_COMPUTE, v["compute"], min=0, max=60, step=0.1)),
        field("processes", dropdown(BAR_COMM, options, v["comm"], disabled=grid)),
    )


def _run_panel() -> html.Div:
    return html.Div(
        className="panel player-panel",
        children=[
            html.H3("Gather and Release, hop by hop (on a grid, the number on a node is its DLCT ID)"),
            field("draw", dropdown(BAR_PART, [], None)),
            dcc.Store(id=BAR_DRAWN_KEY),
            dcc.Store(id=BAR_RUN_ORDER),
            canvas_hint(BAR_CANVAS, "press ", html.B("Use this grid"), ", ", *ELSEWHERE),
            cyto.Cytoscape(
                id=BAR_CANVAS,
                elements=[],
                layout={"name": "preset", "fit": True, "padding": 20},
                stylesheet=charts.grid_stylesheet(),
                style=views.CANVAS_STYLE,
                minZoom=0.05,
                maxZoom=4,
                boxSelectionEnabled=False,
                autoungrabify=True,
                autounselectify=True,
            ),
            graph(BAR_OVERVIEW, FIGURES, style=views.HIDDEN),
            views.legend(BAR_LEGEND),
            job_bar(BAR_RUN_JOB),
            player(BAR_PLAYER),
            animation_export(BAR_PLAYER),
            status_box(BAR_FLAG),
            html.Div(id=BAR_SUMMARY, className="bar-summary"),
        ],
    )


def _side_by_side_panel(v: dict, algos: list[dict]) -> html.Div:
    return side_by_side(
        BAR_SIDES,
        "Side by side: another algorithm on the same scenario, one clock",
        dropdown(BAR_COMPARE, compare_options(algos), v["compare"]),
        charts.grid_stylesheet(),
    )


def compare_options(algos: list[dict]) -> list[dict]:
    """What "compare with" offers: nothing, or one of the algorithm choices (disabled as they are)."""
    return [{"label": "nothing (one run)", "value": ""}, *algos]


def _uq_panels(v: dict) -> list:
    return [
        html.Div(
            className="panel",
            children=[
                html.H3("LCT vs BST: the Gather links before and after round(K) (the paper's Fig. 3)"),
                html.Div(
                    className="row",
                    children=[
                        html.Label("K", htmlFor=BAR_K),
                        number_input(BAR_K, v["k"], style={"width": 90, "flex": "none"}),
                        html.Label("numbering", className="bar-gap", id=f"{BAR_NUMBERING}-label"),
                        dcc.Dropdown(
                            id=BAR_NUMBERING,
                            options=list(NUMBERINGS),
                            clearable=False,
                            value=v["numbering"],
                            style={"width": 160},
                        ),
                    ],
                ),
                html.Div(id=BAR_UQ_INFO, className="info"),
            ],
        ),
        _below_the_fold(BAR_UQ_LCT, BAR_UQ_BST),
    ]


def _below_the_fold(*ids: str) -> html.Div:
    """Views side by side, drawn once the browser is idle (after the overview and the player's first frame)."""
    return html.Div(className="pair", children=[graph(i, FIGURES, later=True) for i in ids])


def _sweep_panels(v: dict) -> list:
    return [
        html.Div(
            className="panel",
            children=[
                html.H3("Run time of every algorithm (the paper's Fig. 6 and 7)"),
                dcc.Store(id=BAR_SWEEP),
                field("sweep", dcc.RadioItems(id=BAR_SWEEP_MODE, value=v["sweep"], options=SWEEP_OPTIONS)),
                job_bar(BAR_SWEEP_JOB),
                html.Div(
                    className="row",
                    children=[
                        html.Label("grid of the rate chart", id=f"{BAR_SWEEP_SIZE}-label"),
                        dcc.Dropdown(id=BAR_SWEEP_SIZE, clearable=False, style={"width": 120}),
                        html.Label("break rate of the size chart", className="bar-gap", id=f"{BAR_SWEEP_RATE}-label"),
                        dcc.Dropdown(id=BAR_SWEEP_RATE, clearable=False, style={"width": 120}),
                    ],
                ),
                html.Div(id=BAR_SWEEP_INFO, className="info"),
            ],
        ),
        dcc.Loading(
            type="dot",
            children=_below_the_fold(BAR_VS_RATE, BAR_VS_SIZE),
        ),
        _below_the_fold(BAR_RANGES),
    ]


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_link_list(app, "bar")
    register_player(app, BAR_PLAYER)
    register_overview(app, BAR_PLAYER, BAR_OVERVIEW)
    app.clientside_callback(
        CLICKED_PART_JS,
        Output(BAR_PART, "value", allow_duplicate=True),
        Input(BAR_OVERVIEW, "clickData"),
        prevent_initial_call=True,
    )
    register_animation_export(app, BAR_PLAYER, PAGE)
    register_figure_pack(app, BAR_PACK, PAGE)
    by_name(app, WRITTEN, CONTROLS, prevent_initial_call=True)(update)
    by_name(  # the job draws the breaks; update writes them into the scenario (as a clicked link)
        app,
        BREAKS,
        BREAK_INPUTS,
        scenario="scenario",
        message="message",
        prevent_initial_call=True,
        interval=POLL_MS,
        **jobs.background(BAR_BREAKS_JOB, (BAR_RANDOM, BAR_REPAIR)),
    )(break_at_random)
    drawn = {"prevent_initial_call": True}  # drawn as the page opens (first_views); then on every change
    by_name(app, REFRESHED, SHOWN_NOW, **drawn)(refresh)
    app.callback(
        Output(BAR_COMM, "value"), Input(BAR_COMM, "options"), State(SCENARIO, "data"), prevent_initial_call=True
    )(shown_comm)
    by_name(app, DRAWING, DRAWING_INPUTS, **drawn)(render_drawing)  # it draws (in the browser) while the job runs
    by_name(app, RUN_OR_ORDER, PLAN, **drawn)(run_or_order)
    app.callback(
        Output(BAR_RUN_ORDER, "data", allow_duplicate=True),
        *PLAN.values(),
        prevent_initial_call="initial_duplicate",
    )(opening_order)
    by_name(app, RUN_JOB, ORDERED, prevent_initial_call=True, interval=RUN_POLL_MS, **jobs.background(BAR_RUN_JOB))(
        run_job
    )
    app.callback(
        Output(BAR_CANVAS, "stylesheet"),
        Input(pid(BAR_PLAYER, "shown"), "data"),
        State(BAR_PARAMS, "data"),
        State(SCENARIO, "data"),
    )(on_canvas(render_step))
    _register_views(app)
    _register_side_by_side(app)
    register_image_download(app, BAR_PNG, BAR_CANVAS, PAGE, "vizcoll-barrier")
    register_canvas_hint(app, BAR_CANVAS)
    goal = {"clicks": Input(BAR_GOAL, "n_clicks"), "scenario": State(SCENARIO, "data")}
    by_name(app, GOAL, goal, scenario="scenario", message="message", prevent_initial_call=True)(export_goal)


def _register_side_by_side(app: Dash) -> None:
    """The side-by-side panel: the two runs (a background job: both may be large) and their player."""
    app.callback(Output(BAR_SIDES_ORDER, "data"), Input(BAR_COMPARE, "value"), Input(BAR_PARAMS, "data"))(
        comparison_order(BAR_COMPARE)
    )
    by_name(
        app,
        result_outputs(BAR_SIDES),
        SIDES_INPUTS,
        prevent_initial_call=True,
        interval=POLL_MS,
        **jobs.background(f"{BAR_SIDES}-run"),
    )(compare_runs)
    register_side_by_side(
        app, BAR_SIDES, PAGE, "side-by-side", side_sheet, [State(SCENARIO, "data")], charts.grid_stylesheet
    )


def _register_views(app: Dash) -> None:
    """The LCT / BST view, the histogram and the sweep (a background job: the sweep choice is locked while it
    runs, Cancel keeps the charts of the last sweep)."""
    by_name(app, UQ, {"key": Input(BAR_UQ_KEY, "data")})(render_uq)
    app.callback(Output(BAR_HIST, "figure"), Input(BAR_UQ_KEY, "data"))(render_histogram)
    sweep_job = jobs.background(BAR_SWEEP_JOB)
    sweep_job["running"].append(
        (Output(BAR_SWEEP_MODE, "options"), [o | {"disabled": True} for o in SWEEP_OPTIONS], SWEEP_OPTIONS)
    )
    by_name(
        app,
        SWEEP,
        SWEEP_INPUTS,
        prevent_initial_call=False,  # as the page opens too: its key is in the page (first_views)
        interval=POLL_MS,
        **sweep_job,
    )(compute_sweep)
    by_name(app, SWEPT, SWEPT_INPUTS)(render_sweep)


def scenario_after(trigger, scenario: Scenario, tap_edge, drawn, size, neighbors) -> tuple[Scenario, str]:
    """The scenario after a fabric control (a clicked link, breaks drawn at random, a grid preset, repair) and
    a note."""
    if trigger == BAR_CANVAS:
        return scenario.toggled(tapped_link(tap_edge)), ""
    if trigger == BAR_DRAWN:
        return model.drawn_breaks(scenario, drawn), ""
    if trigger in (BAR_USE_GRID, BAR_SIZE, BAR_NEIGHBORS):
        rows, cols = model.parse_size(size)
        n = model.read_neighbors(neighbors)
        if trigger != BAR_USE_GRID and not model.scenario_is_grid(scenario):
            return scenario, (
                f"Press Use this grid to replace the scenario's fabric ({scenario.title}) with a "
                f"{rows}×{cols} grid with {n} neighbors."
            )
        return model.grid_scenario(scenario, rows, cols, n), ""
    if trigger == BAR_REPAIR:
        return scenario.with_breaks([]), ""
    return scenario, ""


def update(tap_edge, use_grid, repair, drawn, size, neighbors, values, scenario):
    """A control changed (``values``: control key -> its value): the shared ``scenario`` (the store) with the page's
    checked parameters, or with the fabric change (clicked link, random breaks, grid preset, repair); a bad value
    leaves the store as it is, with a message. (It reads the store itself: the page appearing changes nothing.)"""
    # a size typed, then "Use this grid" clicked: one call (the box commits its value as it loses focus)
    clicked = bool(use_grid) and f"{BAR_USE_GRID}.n_clicks" in ctx.triggered_prop_ids
    trigger = BAR_USE_GRID if clicked else ctx.triggered_id
    if not user_action() and not clicked:  # the page appearing (every control at once, unclicked): nothing
        return {}
    scenario, message = checked(scenario)
    if scenario is None:
        return {"message": message}
    values = values if isinstance(values, dict) else {}
    values = {key: values.get(key) for key in PARAM_CONTROLS}
    comm = values["comm"]
    try:
        params, bad = model.read_params(values | {"comm": model.chosen_comm(scenario, comm, checked_first=True)}), ""
        params["comm"] = model.chosen_comm(scenario, params["comm"])
        params["part"] = model.chosen_part(scenario, params["part"])
    except VizcollError as exc:
        params, bad = None, f"⚠ {exc}"
    if params is None and trigger in PARAM_CONTROLS.values():
        return {"message": bad}
    try:
        new, note = scenario_after(trigger, scenario, tap_edge, drawn, size, neighbors)
        if note:
            return {"message": note}
        if params is not None:
            new = new.with_params(model.PAGE, params)
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    return ({} if new == scenario else {"scenario": new.to_dict(thin=True)}) | {"message": bad}


def break_at_random(set_progress, clicks, rate, seed, scenario: Scenario):
    """(A background job.) Break at random: that share of the scenario's links drawn (seeded, never cutting the
    switches apart) for :func:`update` to write into the scenario; a bad value gives a message."""
    try:
        rate, seed = number(rate, "break rate", float, 0, 1), whole(seed, "seed", 0, model.MAX_SEED)
        set_progress((0, 1, f"Breaking {rate:.0%} of the links at random…"))
        broken = model.random_breaks(scenario, rate, seed).broken
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    return {"drawn": {"broken": broken, "click": whole_or(clicks, 0, 0, 2**31)}, "message": ""}


def shown_comm(options, data):
    """The processes control after its options changed: the stored choice when offered, on a grid (disabled)
    "every end node", else left as it is."""
    scenario, _ = checked(data)
    if scenario is None or not isinstance(options, list) or not options:
        return no_update
    try:
        shown = model.shown_comm(scenario, [o.get("value") for o in options if isinstance(o, dict)])
    except VizcollError:
        return no_update
    return no_update if shown is None else shown


def refresh(scenario, plan_now=None, uq_now=None, sweep_now=None, part_now=None, options_now=None, algos_now=None):
    """The keys of the three views (each written only when it changed; the run's is the key of its plan, which
    the server computes again from the scenario: :func:`~vizcoll.ui.pages.barrier._model.page_keys`), the
    fabric's line, the process choice (its options written only when they changed: new options choose the
    shown process again, which writes the scenario), the part choice (off a grid: what the run's drawing shows),
    the algorithm choice (a run the page would not play is disabled) and the side-by-side choice following it.
    A store that cannot be read: the plan's key names the error and the fabric's line says it."""
    scenario, message = checked(scenario)
    if scenario is None:
        return {"plan": changed(key_of({"error": message}), plan_now), "fabric": message}
    plan, uq, sweep_key = model.page_keys(scenario)
    topo = topology_of(scenario)
    grid = is_grid(topo)
    text = (
        f"The scenario's fabric: {scenario.title} ({fabric_counts(topo)}), {'a grid' if grid else 'not a grid'}. "
        + (plan.get("note") or "")
    )
    part = WHOLE if grid else model.drawn_part(scenario, topo, scenario.params.get(PAGE, {}).get("part"))
    algos = model.algo_options(scenario, topo)
    return {
        "plan": changed(key_of(plan), plan_now),
        "uq": changed(uq, uq_now),
        "sweep": changed(sweep_key, sweep_now),
        "fabric": text,
        "comm_options": changed(model.comm_options(scenario, topo), options_now),
        "comm_disabled": grid,
        "part_options": GRID_PART if grid else part_options(scenario, topo),
        "part": changed(part, part_now),
        "part_disabled": grid,
        "algos": changed(algos, algos_now),
        "compare": no_update if algos == algos_now else compare_options(algos),
    }


def render_drawing(plan, scenario, drawn_now=None):
    """What the run panel draws for the scenario's plan: the canvas, or a Plotly figure (a large fabric's overview,
    whose layers the player lights; sent only when ``drawn_now``, the key of the last drawing, differs), and the
    legend of what it shows (:func:`~vizcoll.ui.pages.barrier._views.drawing_view`). The plan store only triggers
    it (the plan is recomputed from the scenario)."""
    scenario, _ = checked(scenario)
    if not plan or scenario is None:
        return {}
    return views.drawing_view(scenario, model.page_keys(scenario)[0], drawn_now)


def _no_run(message: str) -> dict:
    """The run's outputs for a store that cannot be read: no player, no drawing, the reason in the flag."""
    return {"timeline": None, "elements": [], "summary": "", "flag": message, "flag_class": "flag warn"}


def run_or_order(plan, scenario, order_now=None):
    """The run of the scenario's plan in the request when it is light (:func:`~vizcoll.ui.pages.barrier._model.
    heavy_run`), else the background job's ``order`` (:func:`run_job`); the plan store only triggers it. As the page
    opens, :func:`opening_order`."""
    read, message = checked(scenario)
    if not plan:
        return {}
    if read is None:
        return _no_run(message)
    heavy = model.heavy_run(model.page_keys(read)[0], topology_of(read))
    ran = {} if heavy else animate(lambda _: None, plan, scenario)
    return ran | {"order": jobs.order(heavy, order_now)}


def opening_order(plan, data, order_now=None):
    """As the page opens (Dash calls it with nothing triggered): the background job's order of a heavy run; the
    page shows a light run already (:func:`first_views`). Later plans go through :func:`run_or_order`. (Not
    :func:`run_or_order` itself: a callback that may write the player's timeline and leaves it as it is would
    keep the player's own callbacks from starting on the timeline the page holds.)"""
    scenario, _ = checked(data)
    if ctx.triggered_id is not None or not plan or scenario is None:
        return no_update
    heavy = model.heavy_run(model.page_keys(scenario)[0], topology_of(scenario))
    return jobs.order(True, order_now) if heavy else no_update


def run_job(set_progress, order, scenario):
    """(A background job.) The run of a heavy plan, on :func:`run_or_order`'s order."""
    return animate(set_progress, order, scenario) if order else {}


def animate(set_progress, plan, scenario) -> dict:
    """The run of the scenario's plan (recomputed from the scenario: the plan store only triggers it), as
    :data:`RUN` names them: the player's handle, the canvas's elements, the figures and a line about the run. The
    run reports how many processors have left their barriers (a background job's progress bar), then the player is
    made."""
    if not plan:
        return {}
    scenario, message = checked(scenario)
    if scenario is None:
        return _no_run(message)
    progress = jobs.JobProgress(set_progress, ["Running the barriers", "Making the player"])
    with reporting(progress.stage(0)):
        model.prepare_run(scenario)
    progress.stage(1)
    run = views.run_view(scenario, model.page_keys(scenario)[0])
    return run | {"flag_class": "flag warn" if "⚠" in run["flag"] else "flag"}


def render_step(step, timeline, key, data):
    """Stylesheet for one player step: states, DLCT IDs, this step's hops (Gather / Release) and adjustments
    (the timeline comes back from the browser: a forged one gives the plain drawing); on a group drawn alone, the
    nodes its handle names; an overview's steps are drawn in the browser. ``key``: the run plan's key (None before
    the page's first answer); the plan is the server's."""
    if isinstance(timeline, dict) and "overview" in timeline:
        return no_update
    scenario = checked(data)[0] if key else None
    run = model.page_keys(scenario)[0] if scenario is not None else {}
    grid = run.get("grid") is True
    if not timeline or scenario is None or "error" in run:
        return views.run_stylesheet(grid)
    try:
        return views.run_stylesheet(grid, topology_of(scenario), timeline, whole_or(step, 0, 0, MAX_STEPS))
    except VizcollError:
        return views.run_stylesheet(grid)


def compare_runs(set_progress, order, scenario):
    """(A background job.) The scenario's run and the run of the algorithm the ``order`` names, side by side on one
    clock (:func:`~vizcoll.ui.pages.barrier._views.compared_runs`), or why not, the sides hidden (a store that
    cannot be read too: it reads the store itself); nothing without an order."""
    scenario, message = checked(scenario)
    if scenario is None:
        return shown(None, message=message)
    if not isinstance(order, dict):
        return shown(None)
    set_progress((0, 1, "Running both algorithms"))
    try:
        compare = choice(order.get("compare"), ALGORITHMS.names, "algorithm to compare with")
        found = views.compared_runs(scenario, compare)
    except VizcollError as exc:
        return shown(None, message=f"⚠ {exc}")
    return shown(found.lockstep, views.compared_handles(found), [found.elements, found.elements])


def side_sheet(run, position, data):
    """A side's stylesheet at its own ``position`` of its ``run`` (a handle)."""
    scenario, _ = checked(data)
    if scenario is None:
        raise VizcollError("no scenario")
    return views.run_stylesheet(model.scenario_is_grid(scenario), topology_of(scenario), run, position)


def export_goal(clicks, scenario: Scenario):
    """Download GOAL: the current run's barrier as LogGOPSim's schedule, or a message saying why not (``clicks``
    only triggers it)."""
    try:
        return {"file": model.goal_file(scenario), "message": ""}
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}


def render_uq(key):
    """The LCT / BST view of the view's key (:func:`~vizcoll.ui.pages.barrier._views.uq_outputs`): nothing for a
    forged one."""
    return views.uq_outputs(model.read_uq_key(key))


def compute_sweep(set_progress, key, size, rate):
    """(A background job.) The sweep (cached; on the pool's idle workers too) for the grid's neighborhood, cell by
    cell; the view's store gets its key; the chart choices keep their value when still offered."""
    try:
        mode, neighbors = model.read_sweep_key(key)
    except VizcollError as exc:
        return {"info": f"⚠ {exc}"}
    what = "full" if mode == model.FULL_MODE else "quick"

    def progress(done: int, total: int) -> None:
        set_progress((done, total, f"The {what} sweep: {done} of {total} grids run…"))

    with jobs.parallel_tasks() as processes:
        set_progress((0, 1, f"The {what} sweep on {processes} process{'es' * (processes > 1)}…"))
        result = model.run_sweep(mode, neighbors, progress=progress)
    return {"sweep": {"mode": mode, "neighbors": neighbors}, **views.sweep_controls(result, size, rate)}


def render_sweep(key, size, rate):
    """The two run-time charts and the ranges of the sweep a job computed (nothing for a forged key)."""
    try:
        result = model.swept(*model.read_sweep_key(key))
    except VizcollError:
        result = None
    return views.sweep_view(result, size, rate)


def render_histogram(key):
    key = model.read_uq_key(key)
    return no_update if key is None else views.histogram_view(key)
