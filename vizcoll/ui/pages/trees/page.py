"""The trees page: aggregation trees of the shared scenario's communicator, compared, mapped and animated.

On the one shared :class:`~vizcoll.scenario.Scenario`'s fabric and one of its communicators: the type I trees
(k-ary, k-nomial, Zhao's and the hierarchical k-nomial) side by side with the type II tree (in the switches), the
chosen tree drawn logically and on the links, the width model F(k) with k* and the selection table, the physical vs
the minimum-cost type II tree, and an aggregation (up the tree, result broadcast down) with the player, on the
canvas node by node or on a large fabric's overview (:func:`~vizcoll.ui.pages.trees._views.aggregation_player`).

Every control change is checked on the server and written to the scenario (``scenario.params["trees"]``), so the
views, the share link and a reload follow it. Each view computes from the scenario store, with the plan the
server derives from it once per scenario and parameters (:func:`._model.page_plan`, cached); the browser holds
only the plan's key, the views' trigger. Clicking a link of the drawing breaks or repairs it in the scenario
(every page follows). The parameters, limits, presets and cached engine calls are the page's model
(:mod:`._model`); tables and sentences its views (:mod:`._views`); figures :mod:`._figures`. "Download GOAL"
writes the chosen type I tree's broadcast, reduce or allreduce (a collective and a message size of its own, kept
in the page's parameters) as LogGOPSim's schedule (:func:`._model.goal_file`).
"""

from __future__ import annotations

from contextlib import suppress

import dash_cytoscape as cyto
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.scenario import WORLD, Scenario
from vizcoll.schedule.collectives import TREE_COLLECTIVES
from vizcoll.ui import jobs
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.canvashint import ELSEWHERE, canvas_hint, register_canvas_hint
from vizcoll.ui.components.exports import animation_export, figure_pack, register_animation_export, register_figure_pack
from vizcoll.ui.components.kit import (
    download_button,
    dropdown,
    field,
    graph,
    info,
    job_bar,
    message_box,
    number_input,
    section,
    status_box,
    titled,
)
from vizcoll.ui.components.links import link_list, register_link_list
from vizcoll.ui.components.player import (
    first_frame,
    on_canvas,
    pid,
    player,
    register_overview,
    register_player,
)
from vizcoll.ui.components.sidebyside import (
    comparison_order,
    register_side_by_side,
    result_outputs,
    shown,
    side_by_side,
)
from vizcoll.ui.figures.common import blank_figure
from vizcoll.ui.figures.topology import base_stylesheet
from vizcoll.ui.forms import choice, whole_or
from vizcoll.ui.models.parts import drawn_view, natural_part, part_options, read_part
from vizcoll.ui.pages.trees import ORDER
from vizcoll.ui.pages.trees._figures import fk_figure
from vizcoll.ui.pages.trees._model import (
    ANIM,
    CONTROL_KEYS,
    COST_FIELDS,
    COST_KEYS,
    KINDS,
    MAX_DEGREE,
    MAX_GOAL_BYTES,
    MAX_K,
    PAGE,
    PRESETS,
    ROUTES,
    comm_options,
    computed,
    cost_of,
    engine_key,
    goal_file,
    heavy,
    job_stages,
    page_plan,
    placement_of,
    prepare,
    preset_scenario,
    read_params,
    shown_params,
    tree_name,
)
from vizcoll.ui.pages.trees._views import (
    aggregation_player,
    aggregation_ready,
    compare_view,
    compared_trees,
    fabric_line,
    fk_info,
    legend_items,
    selection_view,
    step_stylesheet,
    type_one_view,
    type_two_view,
)
from vizcoll.ui.routing import filled, page_scenario, register_page
from vizcoll.ui.store import (
    DEFAULT_SCENARIO,
    SCENARIO,
    changed,
    checked,
    key_of,
    remembered,
    store_output,
    tapped_link,
    topology_of,
    user_action,
)
from vizcoll.ui.views import rails

__all__ = [
    "PAGE",
    "layout",
    "body",
    "examples",
    "register",
    "first_views",
    "update",
    "build",
    "refresh",
    "dispatch",
    "render_compare",
    "render_type_one",
    "render_width",
    "render_type_two",
    "animate",
    "compute_views",
    "stop_animation",
    "compute_animation",
    "cancelled",
    "animation_cancelled",
    "render_step",
    "compare_trees",
    "side_sheet",
    "export_goal",
    "part_choices",
    "play_part",
]

# the page's components ("trees-k", "trees-build" and "trees-message" are a stable interface of outside browser
# checks: keep them)
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
TREES_BUILD, TREES_REBUILD, TREES_HEAVY, TREES_JOB = "trees-build", "trees-rebuild", "trees-heavy", "trees-views"
TREES_PACK, TREES_T2_SEEN, TREES_RAILS = "trees-pack", "trees-t2-seen", "trees-rails"  # rails: a stable id
TREES_ANIM_ORDER, TREES_ANIM_JOB = "trees-anim-order", "trees-anim"  # the aggregation's job: its order, its bar
TREES_COMPARE_KIND, TREES_SIDES = "trees-compare-kind", "trees-cmp"  # side by side: the kind compared, its player
TREES_SIDES_ORDER = "trees-cmp-order"  # the side-by-side job's order: the kind compared and the plan's key
TREES_PART = "trees-part"  # which part of the fabric the trees are drawn on (a large fabric: overview or one pod)
PARAM_CONTROLS = {
    "comm": TREES_COMM,
    "kind": TREES_KIND,
    "k": TREES_K,
    "degree": TREES_DEGREE,
    "routes": TREES_ROUTES,
    "l": TREES_L,
    "delta": TREES_DELTA,
    "theta": TREES_THETA,
    "beta": TREES_BETA,
    "gamma": TREES_GAMMA,
    "S": TREES_S,
    "eps": TREES_EPS,
    "anim": TREES_ANIM_TREE,
    "goal_op": TREES_GOAL_OP,
    "goal_bytes": TREES_GOAL_BYTES,
    "compare": TREES_COMPARE_KIND,
}
FIGURES = "vizcoll-trees"  # the file name of a figure saved from its mode bar


def _again(outputs: dict[str, Output]) -> dict[str, Output]:
    """``outputs`` written by one more callback (``allow_duplicate``)."""
    return {name: Output(o.component_id, o.component_property, allow_duplicate=True) for name, o in outputs.items()}


# what the callbacks write, by name (vizcoll.ui.callbacks.by_name)
WRITTEN = {"store": store_output(), "message": Output(TREES_MESSAGE, "children")}
BUILT = {**_again(WRITTEN), "rebuild": Output(TREES_REBUILD, "data")}
# the views' trigger (the key of their plan), the line about the processes and the controls (refresh)
REFRESHED = {
    "key": Output(TREES_PARAMS, "data"),
    "fabric": Output(TREES_FABRIC, "children"),
    "controls": Output(TREES_CONTROLS, "children"),
    "costs": Output(TREES_COST_CONTROLS, "children"),
}
COMPARED = {"compared": Output(TREES_COMPARE, "children")}
TYPE_ONE = {
    "logical": Output(TREES_LOGICAL, "figure"),
    "mapped": Output(TREES_MAPPED, "figure"),
    "mapped_info": Output(TREES_MAPPED_INFO, "children"),
}
TYPE_TWO = {
    "physical": Output(TREES_T2_PHYSICAL, "figure"),
    "mincost": Output(TREES_T2_MINCOST, "figure"),
    "type_two_info": Output(TREES_T2_INFO, "children"),
}
# the figures drawn on the fabric
ON_FABRIC = {"mapped": TYPE_ONE["mapped"], "physical": TYPE_TWO["physical"], "mincost": TYPE_TWO["mincost"]}
FLAG = {"flag": Output(TREES_FLAG, "children"), "flag_class": Output(TREES_FLAG, "className")}
ANIMATION = {
    "timeline": Output(pid(TREES_PLAYER, "timeline"), "data"),
    **FLAG,
    "elements": Output(TREES_CANVAS, "elements"),
    "summary": Output(TREES_ANIM_SUMMARY, "children"),
}
"""The aggregation's player, flag, canvas and summary (:func:`~vizcoll.ui.pages.trees._views.aggregation_player`)."""
ANIM_ORDER = {"order": Output(TREES_ANIM_ORDER, "data", allow_duplicate=True)}  # the order of the aggregation's job
JOB_VIEWS = {**_again({**COMPARED, **TYPE_ONE, **TYPE_TWO, **FLAG}), **ANIM_ORDER}
"""What the background job of a large plan computes: the trees compared and drawn, then the aggregation's flag
saying it follows, and the order of the aggregation's own job (:func:`compute_animation`), which the views' job
gives as it ends. The aggregation of a paper-scale tree (its timeline, the player's handle and the overview's
frames) takes longer than every other view together; the page shows the trees without waiting for it."""
# what Cancel under the views' job writes (cancelled): the comparison, the four drawings and the flag
CANCELLED = _again({**COMPARED, "logical": TYPE_ONE["logical"], **ON_FABRIC, "flag": FLAG["flag"]})
WIDTH = {
    "fk": Output(TREES_FK, "figure"),
    "selection": Output(TREES_SELECTION, "children"),
    "fk_info": Output(TREES_FK_INFO, "children"),
}
RAILS = {"rails": Output(TREES_RAILS, "children")}
PART = {"options": Output(TREES_PART, "options"), "part": Output(TREES_PART, "value")}
# what another part of the fabric chosen writes (play_part): the store, the message, the three figures on the
# fabric, the aggregation played on it and the order of the aggregation's job
PLAYED = {**_again(WRITTEN), **_again(ON_FABRIC), **_again(ANIMATION), **ANIM_ORDER}
GOAL = {"file": Output(TREES_GOAL_FILE, "data"), "message": Output(TREES_GOAL_MESSAGE, "children")}
CANVAS_STYLE = {"width": "100%", "height": "520px"}
SHOW_CANVAS_JS = """function (elements) {  // the canvas and its legend only while they draw the fabric
    const shown = Array.isArray(elements) && elements.length > 0, hidden = {display: "none"};
    return [shown ? {width: "100%", height: "520px"} : hidden, shown ? {} : hidden];  // shown: CANVAS_STYLE
}"""


def compare_options() -> list[dict]:
    """What "compare with" offers: nothing, or a type I tree kind (read from the kinds' registry on each use)."""
    return [{"label": "nothing (one run)", "value": ""}, *({"label": t, "value": k} for k, t in KINDS.items())]


JOB_POLL_MS = 500  # how often the page asks a running job for its progress
COMPUTING = "Computed in the background: see the progress bar at the top."  # a drawing the job computes
SIMULATING = "The aggregation is simulated in the background once the trees are drawn: see the progress bar above."
BUILD_TIP = (
    "Every change applies at once; Build applies every control again and computes the views (large "
    "communicators in the background, with a progress bar and Cancel)"
)


def layout(**kwargs) -> html.Div:
    """Dash's entry: the page for the link's or the store's scenario (query parameters are ignored)."""
    return body(page_scenario(kwargs))


register_page(__name__, layout, path="/trees", name="Trees", order=ORDER)


# ---------------------------------------------------------------- layout
def tree_controls(v: dict, options: list[dict]) -> list:
    """The communicator and tree controls showing the parameters ``v``."""
    return [
        field("communicator", dropdown(TREES_COMM, options, v["comm"])),
        field("kind", dropdown(TREES_KIND, [{"label": t, "value": k} for k, t in KINDS.items()], v["kind"])),
        field("k (width / base)", number_input(TREES_K, v["k"], min=2, max=MAX_K, step=1)),
        field("type II degree ≤", number_input(TREES_DEGREE, v["degree"], min=2, max=MAX_DEGREE, step=1)),
        html.Div(
            className="row",
            children=[
                html.Label("routes", className="label"),
                dcc.RadioItems(
                    id=TREES_ROUTES,
                    value=v["routes"],
                    options=[{"label": text, "value": key} for key, text in ROUTES.items()],
                ),
            ],
        ),
    ]


def cost_controls(v: dict) -> list:
    return [field(label, number_input(PARAM_CONTROLS[key], v[key])) for key, label in COST_FIELDS]


def body(scenario: Scenario) -> html.Div:
    """The page on ``scenario``: the controls show its trees parameters (bad stored values: the defaults; the
    communicator and tree controls and the cost model's are drawn by :func:`refresh`, among the first views)."""
    v = shown_params(scenario)
    page = html.Div(
        className="page trees-page", children=[html.Div(className="columns", children=[_sidebar(v), _main(v)])]
    )
    return filled(page, first_views, scenario)


def examples() -> list[tuple[str, Scenario]]:
    """The quick presets: (its label, the scenario it makes of the default one) each (the help page links them)."""
    return [(label, preset_scenario(DEFAULT_SCENARIO, key)) for key, (label, _, _) in PRESETS.items()]


def first_views(scenario: Scenario) -> list[tuple[dict[str, Output], dict]]:
    """What the page's callbacks draw for ``scenario`` as it opens (:func:`~vizcoll.ui.routing.filled`): the plan's
    key, the controls, the views on the plan (the type II trees once on the screen), the player's first frame, the
    parts of the fabric."""
    data = scenario.to_dict(thin=True)
    refreshed = refresh(data)
    key = refreshed["key"]
    animation = animate(key, data)
    return [
        (REFRESHED, refreshed),
        (COMPARED, {"compared": render_compare(key, data)}),
        (RAILS, {"rails": trees_panel(key, data)}),
        (TYPE_ONE, render_type_one(key, data)),
        (WIDTH, render_width(key, data)),
        (ANIMATION, animation),
        first_frame(TREES_PLAYER, animation.get("timeline", no_update)),
        (PART, part_choices(data)),
    ]


def _sidebar(v: dict) -> html.Div:
    return html.Div(
        className="sidebar",
        children=[
            section(
                "Processes and trees",
                html.Div(id=TREES_CONTROLS),
                html.Div(
                    className="buttons", children=[html.Button("Build", id=TREES_BUILD, n_clicks=0, title=BUILD_TIP)]
                ),
                info(id=TREES_FABRIC),
            ),
            section(
                "Cost model (paper defaults)",
                html.Div(id=TREES_COST_CONTROLS),
                info(
                    "Eq. 2: T = r·l + h·k·b with b = θ + S'/β + S*·γ (S' = S* = S here); F(k) uses a = δ·l. "
                    "The defaults model the paper's Sunway supernode: a = 1.12 μs, b = 0.01 μs."
                ),
                open=False,
            ),
            section(
                "Quick presets",
                titled(
                    dcc.Dropdown(
                        id=TREES_PRESET,
                        clearable=False,
                        value="sunway",
                        options=[{"label": label, "value": key} for key, (label, _, _) in PRESETS.items()],
                    ),
                    "a preset: the button below opens it",
                ),
                html.Button("Replace the scenario with this preset", id=TREES_USE_PRESET, n_clicks=0),
                info(
                    "A preset replaces the shared scenario (fabric, communicators, broken links: see the badge "
                    "above) for every page."
                ),
                open=False,
                id=TREES_PRESETS,
            ),
            link_list("trees"),
            _goal_section(v),
            section("Export for papers", figure_pack(TREES_PACK)),
            message_box(TREES_MESSAGE),
            info(
                "The fabric and its broken links are the scenario's: load or draw them on the Topology page, repair "
                "from the badge, or click a link of the drawing below to break or repair it. Type I trees reduce in "
                "the processes' NICs (one vertex per process); type II trees in the switches. Height = most tree "
                "edges to the root, radius = most links to the root."
            ),
        ],
    )


def _goal_section(v: dict) -> html.Details:
    return section(
        "Export as GOAL (LogGOPSim)",
        field("collective", dropdown(TREES_GOAL_OP, list(TREE_COLLECTIVES.names), v["goal_op"])),
        field("bytes per message", number_input(TREES_GOAL_BYTES, v["goal_bytes"], min=1, max=MAX_GOAL_BYTES, step=1)),
        html.Div(
            className="buttons",
            children=[download_button("Download GOAL", TREES_GOAL), dcc.Download(id=TREES_GOAL_FILE)],
        ),
        message_box(TREES_GOAL_MESSAGE),
        info(
            "The chosen type I tree (kind and k above) of the communicator, as the schedule LogGOPSim simulates: "
            "a vertex sends to its parent once its children's messages are in (reduce), to its children once it "
            "has the value (broadcast). Open it on the Schedules page."
        ),
        open=False,
    )


def _main(v: dict) -> html.Div:
    return html.Div(
        className="main",
        children=[
            dcc.Store(id=TREES_PARAMS),
            dcc.Store(id=TREES_HEAVY),
            dcc.Store(id=TREES_REBUILD),
            html.Div(
                className="panel",
                children=[
                    html.H3("Trees compared (same communicator, same k)"),
                    job_bar(TREES_JOB),
                    html.Div(id=TREES_COMPARE),
                ],
            ),
            html.Div(id=TREES_RAILS),  # what rails change (vizcoll.ui.views.rails), on a rail fabric
            field("draw the fabric", dropdown(TREES_PART, [], None)),
            html.Div(
                className="pair", children=[graph(TREES_LOGICAL, FIGURES, later=True), graph(TREES_MAPPED, FIGURES)]
            ),
            html.Div(id=TREES_MAPPED_INFO, className="info"),
            html.Div(
                className="pair",
                children=[
                    graph(TREES_FK, FIGURES, later=True),
                    html.Div(
                        className="table-box",
                        children=[
                            html.H3("Type I or type II? (Table 3, eq. 7–9)"),
                            html.Div(id=TREES_SELECTION),
                            html.Div(id=TREES_FK_INFO, className="info"),
                        ],
                    ),
                ],
            ),
            html.Div(id=TREES_T2_INFO, className="panel"),
            dcc.Store(id=TREES_T2_SEEN, data=False),
            html.Div(
                className="pair",
                children=[graph(TREES_T2_PHYSICAL, FIGURES, later=True), graph(TREES_T2_MINCOST, FIGURES, later=True)],
                **{"data-seen": TREES_T2_SEEN},
            ),  # drawn once on the screen (assets/lazy.js)
            html.Div(
                className="panel player-panel",
                children=[
                    html.H3("Aggregation: partial results up the tree, the result broadcast down"),
                    field(
                        "animate",
                        dcc.RadioItems(
                            id=TREES_ANIM_TREE,
                            value=v["anim"],
                            inline=True,
                            options=[{"label": text, "value": key} for key, text in ANIM.items()],
                        ),
                    ),
                    dcc.Store(id=TREES_ANIM_ORDER),
                    job_bar(TREES_ANIM_JOB),
                    status_box(TREES_FLAG),
                    canvas_hint(TREES_CANVAS, *ELSEWHERE),
                    cyto.Cytoscape(
                        id=TREES_CANVAS,
                        elements=[],
                        layout={"name": "preset", "fit": True},
                        stylesheet=base_stylesheet(),
                        style=CANVAS_STYLE,
                        minZoom=0.05,
                        maxZoom=4,
                        boxSelectionEnabled=False,
                        autoungrabify=True,
                    ),
                    html.Div(id=TREES_LEGEND, className="legend", children=legend_items()),
                    player(TREES_PLAYER),
                    animation_export(TREES_PLAYER),
                    html.Div(id=TREES_ANIM_SUMMARY, className="info"),
                ],
            ),
            dcc.Store(id=TREES_SIDES_ORDER),
            side_by_side(
                TREES_SIDES,
                "Side by side: the animated tree and another tree kind, one clock",
                dropdown(TREES_COMPARE_KIND, compare_options(), v["compare"]),
                base_stylesheet(),
            ),
        ],
    )


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_link_list(app, "trees")
    register_player(app, TREES_PLAYER)
    app.clientside_callback(
        SHOW_CANVAS_JS, Output(TREES_CANVAS, "style"), Output(TREES_LEGEND, "style"), Input(TREES_CANVAS, "elements")
    )
    register_canvas_hint(app, TREES_CANVAS)
    for overview in (TREES_MAPPED, TREES_T2_MINCOST):  # a large fabric: the animated tree's overview lights up
        register_overview(app, TREES_PLAYER, overview)
    register_animation_export(app, TREES_PLAYER, PAGE)
    register_figure_pack(app, TREES_PACK, PAGE)
    controls = lambda dependency: {key: dependency(i, "value") for key, i in PARAM_CONTROLS.items()}  # noqa: E731
    scenario = State(SCENARIO, "data")
    reads = {"scenario": "scenario", "message": "message", "prevent_initial_call": True}  # the store, checked
    choices = {
        "values": controls(Input),
        "use_preset": Input(TREES_USE_PRESET, "n_clicks"),
        "tap_edge": Input(TREES_CANVAS, "tapEdge"),
        "preset": State(TREES_PRESET, "value"),
        "scenario": scenario,
    }
    by_name(app, WRITTEN, choices, **reads)(update)
    by_name(
        app, BUILT, {"clicks": Input(TREES_BUILD, "n_clicks"), "values": controls(State), "scenario": scenario}, **reads
    )(build)
    drawn = {"prevent_initial_call": True}  # drawn as the page opens (first_views); then on every change
    shown = {key: State(PARAM_CONTROLS[key], "value") for key in (*CONTROL_KEYS, *COST_KEYS)}
    now = {"plan_now": State(TREES_PARAMS, "data"), "options_now": State(TREES_COMM, "options"), "shown_now": shown}
    by_name(app, REFRESHED, {"data": Input(SCENARIO, "data"), **now}, **drawn)(refresh)
    key = Input(TREES_PARAMS, "data")
    plan = {"key": key, "data": scenario}
    app.callback(Output(TREES_HEAVY, "data"), key, Input(TREES_REBUILD, "data"), State(TREES_HEAVY, "data"), scenario)(
        dispatch
    )
    app.callback(COMPARED["compared"], key, scenario, **drawn)(render_compare)
    app.callback(RAILS["rails"], key, scenario, **drawn)(trees_panel)  # rails: computed in the request
    by_name(app, TYPE_ONE, plan, **drawn)(render_type_one)
    by_name(app, WIDTH, plan, **drawn)(render_width)
    by_name(app, TYPE_TWO, {"key": key, "seen": Input(TREES_T2_SEEN, "data"), "data": scenario}, **drawn)(
        render_type_two
    )
    by_name(app, ANIMATION, plan, **drawn)(animate)
    _register_jobs(app, scenario)
    _register_side_by_side(app, scenario)
    by_name(app, PART, {"data": Input(SCENARIO, "data"), "value_now": State(TREES_PART, "value")}, **drawn)(
        part_choices
    )
    by_name(app, PLAYED, {"value": Input(TREES_PART, "value"), "scenario": scenario}, **reads)(play_part)
    by_name(app, GOAL, {"clicks": Input(TREES_GOAL, "n_clicks"), "scenario": scenario}, **reads)(export_goal)
    app.callback(
        Output(TREES_CANVAS, "stylesheet"),
        Input(pid(TREES_PLAYER, "shown"), "data"),
        scenario,
    )(on_canvas(render_step))


def _register_side_by_side(app: Dash, scenario: State) -> None:
    """The side-by-side panel: the two aggregations (a background job) and their player."""
    app.callback(Output(TREES_SIDES_ORDER, "data"), Input(TREES_COMPARE_KIND, "value"), Input(TREES_PARAMS, "data"))(
        comparison_order(TREES_COMPARE_KIND)
    )
    by_name(
        app,
        result_outputs(TREES_SIDES),
        {"order": Input(TREES_SIDES_ORDER, "data"), "data": scenario},
        prevent_initial_call=True,
        interval=JOB_POLL_MS,
        **jobs.background(f"{TREES_SIDES}-run"),
    )(compare_trees)
    register_side_by_side(app, TREES_SIDES, PAGE, "side-by-side", side_sheet, [scenario], base_stylesheet)


def _register_jobs(app: Dash, scenario: State) -> None:
    """The views' job of a large plan, then the aggregation's job it orders as it ends, and their Cancel buttons."""
    job = {"prevent_initial_call": True, "interval": JOB_POLL_MS}
    views, running = {"job": Input(TREES_HEAVY, "data"), "data": scenario}, (TREES_BUILD, TREES_USE_PRESET)
    by_name(app, JOB_VIEWS, views, **job, **jobs.background(TREES_JOB, running))(compute_views)
    app.callback(
        ANIM_ORDER["order"], Input(TREES_HEAVY, "data"), State(TREES_ANIM_ORDER, "data"), prevent_initial_call=True
    )(stop_animation)
    animation = {"order": Input(TREES_ANIM_ORDER, "data"), "data": scenario}
    by_name(app, _again(ANIMATION), animation, **job, **jobs.background(TREES_ANIM_JOB, running))(compute_animation)
    cancel = lambda prefix: {"clicks": Input(f"{prefix}-cancel", "n_clicks")}  # noqa: E731
    by_name(app, CANCELLED, cancel(TREES_JOB), prevent_initial_call=True)(cancelled)
    by_name(app, _again(FLAG), cancel(TREES_ANIM_JOB), prevent_initial_call=True)(animation_cancelled)


def update(scenario: Scenario, values, use_preset, tap_edge, preset) -> dict:
    """A control changed (``values``: control key -> its value): the shared scenario (its ``store``) with the page's
    checked parameters; a preset or a clicked link of the drawing changes the scenario itself. A bad value leaves
    the store as it is, with a ``message``."""
    trigger = ctx.triggered_id
    try:
        if trigger == TREES_USE_PRESET:
            return {"store": preset_scenario(scenario, preset).to_dict(thin=True), "message": ""}
        if trigger == TREES_CANVAS:
            return {"store": scenario.toggled(tapped_link(tap_edge)).to_dict(thin=True), "message": ""}
        params = _checked_params(scenario, values)
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    return {"store": remembered(scenario.to_dict(thin=True), PAGE, params), "message": ""}


def _checked_params(scenario: Scenario, values) -> dict:
    """The controls' values checked (VizcollError names the first bad one, or a communicator that does not exist)."""
    values = values if isinstance(values, dict) else {}
    params = read_params({key: values.get(key) for key in PARAM_CONTROLS})
    if params["comm"] != WORLD:
        placement_of(scenario, params["comm"])  # the communicator exists
    return params


def build(scenario: Scenario, clicks, values) -> dict:
    """Build: every control read and checked on the server, written to the scenario (the views follow it), and the
    views computed again even when the plan is the same (e.g. after a cancelled job: a new ``rebuild``). A bad value
    leaves the store as it is, with a message naming the limit. The button drawn again (no click yet) does
    nothing."""
    if not clicks:
        return {}
    try:
        params = _checked_params(scenario, values)
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    store = remembered(scenario.to_dict(thin=True), PAGE, params)
    return {"store": store, "message": "", "rebuild": whole_or(clicks, 0, 0, 10**9)}


def refresh(data, plan_now=None, options_now=None, shown_now=None) -> dict:
    """The views' trigger (the ``key`` of their plan, written only when it changed), the line about the processes
    (``fabric``), and the ``controls`` and ``costs`` controls drawn again when the scenario's parameters or
    communicators differ from what they show (a preset, another tab)."""
    scenario, message = checked(data)
    if scenario is None:
        return {"key": changed(key_of({"error": message}), plan_now), "fabric": message}
    plan = page_plan(scenario)
    v = shown_params(scenario)
    text = fabric_line(scenario, plan, topology_of(scenario))
    options = comm_options(scenario)
    now = shown_now if isinstance(shown_now, dict) else {}
    controls = no_update
    if options != options_now or any(now.get(key) != v[key] for key in CONTROL_KEYS):
        controls = tree_controls(v, options)
    costs = no_update if all(now.get(key) == v[key] for key in COST_KEYS) else cost_controls(v)
    return {"key": changed(key_of(plan), plan_now), "fabric": text, "controls": controls, "costs": costs}


def trees_panel(key, data):
    """What rails change for the views' plan (computed in the request: it shows while the other views are a job)."""
    scenario, plan, _ = _pending(key, data)
    if not plan or "error" in plan:
        return None
    return rails.trees_panel(plan, tree_name(plan["kind"], plan["k"]), scenario)


def dispatch(key, _rebuild=None, job_now=None, data=None):
    """The background job's order: ``{"run"}`` for a plan whose views are a job (a new run each time, so that Build
    runs it again); None once the plan is computed in the request again (which stops a running job)."""
    return jobs.order(_pending(key, data)[2], job_now)


def _pending(key, data) -> tuple[Scenario | None, dict | None, bool]:
    """(the scenario, the views' plan, whether its views are left to the background job) for the views' trigger
    ``key`` (None before the page's first answer: nothing to draw yet) and the scenario store ``data``, read once
    for the request. The plan is the server's (:func:`~vizcoll.ui.pages.trees._model.page_plan`); the key the
    browser sends back only says when to draw."""
    if key is None:
        return None, None, False
    scenario, message = checked(data)
    plan = page_plan(scenario) if scenario is not None else {"error": message}
    return scenario, plan, heavy(plan)


def render_compare(key, data):
    scenario, plan, job = _pending(key, data)
    if job:
        return html.P(
            f"Computing the trees of {plan['nprocs']:,} processes in the background: see the progress bar above.",
            className="info",
        )
    return compare_view(plan, scenario)


def render_type_one(key, data) -> dict:
    """The chosen tree drawn (:data:`TYPE_ONE`), or what says that the background job draws it."""
    scenario, plan, job = _pending(key, data)
    if job:
        return {"logical": _computing(), "mapped": _computing(), "mapped_info": ""}
    return type_one_view(plan, scenario)


def _computing():
    return blank_figure(COMPUTING, height=300)


def render_width(key, data) -> dict:
    """F(k) with k* (``fk``), the ``selection`` table and the sentence about them (``fk_info``)."""
    _, plan, _ = _pending(key, data)
    if not plan or "error" in plan:
        return {"fk": blank_figure("", height=300), "selection": "", "fk_info": ""} if plan else {}
    cost = cost_of(plan, plan["nprocs"])
    fk = fk_figure(plan["nprocs"], cost.a, cost.b, plan["eps"], plan["k"])
    return {"fk": fk, "selection": selection_view(plan), "fk_info": fk_info(plan)}


def render_type_two(key, seen, data) -> dict:
    """The type II views (:data:`TYPE_TWO`), once they come on the screen (they are below the fold, and a large
    fabric's two overviews take the browser half a second to draw: after the first answers, not before them). A
    plan left to the background job says so when it comes; coming on the screen then changes nothing (the job
    draws them, and may have drawn them already)."""
    if seen is not True:
        return {}
    scenario, plan, job = _pending(key, data)
    if job and ctx.triggered_id == TREES_T2_SEEN:
        return {}
    if job:
        return {"physical": _computing(), "mincost": _computing(), "type_two_info": ""}
    return type_two_view(plan, scenario)


def animate(key, data) -> dict:
    """The aggregation's player on what the page draws of the fabric, or the flag that stops it (:data:`ANIMATION`,
    :func:`~vizcoll.ui.pages.trees._views.aggregation_player`)."""
    scenario, plan, job = _pending(key, data)
    if job:
        follows = "The aggregation follows once the trees are computed (see the progress bar above)."
        return {"timeline": None, "flag": follows, "flag_class": "flag", "elements": [], "summary": ""}
    return aggregation_player(plan, scenario)


def compute_views(set_progress, job, data) -> dict:
    """The background job of a large plan: every view but F(k) and the aggregation (:data:`JOB_VIEWS`), stage by
    stage with its progress (:func:`vizcoll.ui.pages.trees._model.prepare`) of the scenario's plan, then the order
    of the aggregation's job; a forged order changes nothing."""
    scenario, _ = checked(data)
    plan = page_plan(scenario) if isinstance(job, dict) and scenario is not None else None
    if plan is None or "error" in plan:
        return {}
    progress = jobs.JobProgress(set_progress, job_stages(plan))
    with suppress(VizcollError):  # each view says what went wrong
        prepare(engine_key(scenario, plan), plan, progress)
    progress.stage(len(KINDS) + 1)
    views = {"compared": compare_view(plan, scenario), **type_one_view(plan, scenario), **type_two_view(plan, scenario)}
    return views | {"flag": SIMULATING, "flag_class": "flag", "order": jobs.order(True, job)}


def stop_animation(_job, order_now=None):
    """A new order of the views' job (or none: the views drawn in the request): the aggregation's job of the plan
    before stops (its order emptied); the views' job orders the next one as it ends."""
    return None if order_now is not None else no_update


def compute_animation(set_progress, order, data):
    """The aggregation's job the views' job of a large plan orders as it ends: the player's handle, flag, canvas
    and summary (:data:`ANIMATION`, :func:`~vizcoll.ui.pages.trees._views.aggregation_player`) of the scenario's
    plan; a forged order changes nothing."""
    scenario, _ = checked(data)
    plan = page_plan(scenario) if isinstance(order, dict) and scenario is not None else None
    if plan is None or "error" in plan:
        return {}
    jobs.JobProgress(set_progress, ["simulating the aggregation"]).stage(0)
    return aggregation_player(plan, scenario)


def animation_cancelled(clicks) -> dict:
    """Cancel pressed under the player: the flag says the aggregation was not simulated."""
    flag = "⚠ Cancelled: the aggregation was not simulated. Press Build to simulate it."
    return {"flag": flag, "flag_class": "flag warn"}


def cancelled(clicks) -> dict:
    """Cancel pressed: the comparison, the four drawings and the flag say the views were not computed
    (:data:`CANCELLED`)."""
    blank = blank_figure("Cancelled: not computed. Press Build to compute the trees.", height=300)
    note = html.P("⚠ Cancelled: the trees were not computed. Press Build to compute them.", className="message")
    return {"compared": note, **dict.fromkeys(("logical", *ON_FABRIC), blank), "flag": "Cancelled: nothing to play."}


def part_choices(data, value_now=None) -> dict:
    """The parts of the scenario's fabric the trees can be drawn on (``options``), and the one drawn (``part``)."""
    scenario, _ = checked(data)
    if scenario is None:
        return {}
    view = drawn_view(scenario, PAGE)
    return {"options": part_options(scenario, topology_of(scenario), view.part), "part": changed(view.part, value_now)}


def play_part(scenario: Scenario, value) -> dict:
    """Another part of the fabric chosen: remembered in the scenario, and the trees drawn on it at once from the
    computed trees (a plan still computing in the background draws the part chosen when it is done): the store,
    the message, the three figures on the fabric, then the aggregation played on it (:data:`ANIMATION`), and the
    ``order`` of the aggregation's job when a large plan's aggregation is not simulated yet: the job plays it on
    this part (:data:`PLAYED`)."""
    if not user_action():
        return {}
    topo = topology_of(scenario)
    try:
        part = read_part(value, scenario, topo)
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    store = remembered(scenario.to_dict(thin=True), PAGE, {"part": None if part == natural_part(topo) else part})
    if store is no_update:  # the part the views draw already (the menu drawn again)
        return {"message": ""}
    moved, plan, job = _pending(True, store)
    if "error" in plan or (job and not computed(engine_key(moved, plan), plan)):
        return {"store": store, "message": ""}
    two = type_two_view(plan, moved)
    drawn = {"store": store, "message": "", "mapped": type_one_view(plan, moved)["mapped"]}
    drawn |= {"physical": two["physical"], "mincost": two["mincost"]}
    if job and not aggregation_ready(plan, moved):  # its job plays it on this part (not simulated in the request)
        follows = {"timeline": None, "flag": SIMULATING, "flag_class": "flag", "elements": [], "summary": ""}
        return drawn | follows | {"order": {"run": 1, "part": part}}
    return drawn | aggregation_player(plan, moved)


def export_goal(scenario: Scenario, clicks) -> dict:
    """Download GOAL: the chosen type I tree's collective as LogGOPSim's schedule (``file``), or a ``message``
    saying why not."""
    try:
        return {"file": goal_file(scenario), "message": ""}
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}


def compare_trees(set_progress, order, data) -> dict:
    """(A background job.) The animated tree's aggregation and that of the tree kind the ``order`` names, side by
    side on one clock (:func:`~vizcoll.ui.pages.trees._views.compared_trees`), or why not."""
    scenario, plan, _ = _pending(True, data)
    if scenario is None or "error" in plan:
        return shown(None, message=(plan or {}).get("error", ""))
    if not isinstance(order, dict):
        return shown(None)
    set_progress((0, 1, "Simulating both aggregations"))
    try:
        compare = choice(order.get("compare"), tuple(KINDS), "tree kind to compare with")
        ls, handles, elements = compared_trees(plan, scenario, compare)
    except VizcollError as exc:
        return shown(None, message=f"⚠ {exc}")
    return shown(ls, handles, [elements, elements])


def side_sheet(run, position, data):
    """A side's stylesheet at its own ``position`` of its ``run`` (a handle)."""
    scenario, plan, _ = _pending(True, data)
    return step_stylesheet(position, run, plan, scenario)


def render_step(step, timeline, data):
    """Stylesheet for one player step: every vertex's state on its node, this step's hops in orange."""
    scenario, plan, _ = _pending(True, data)
    return step_stylesheet(step, timeline, plan, scenario)
