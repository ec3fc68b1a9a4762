"""The schedules page: open a GOAL file (LogGOPSim's schedules), see its problems, its LogGP timing and its replay.

The file is read from the bytes the browser uploads (at most 2 MB) and kept
in a store of this browser tab only: it is not part of the scenario, so the
share link does not carry it (the page says so). Its problems are listed with
their lines, it is timed with vizcoll's LogGP model exactly as LogGOPSim times
it (makespan, the host reaching it, a bar per rank), and it is replayed on
the timeline player on the scenario's fabric: rank ``r`` runs where the
scenario places its process ``r``, every message drawn along the min-hop
route between the two nodes at the time LogGP sends it
(:func:`vizcoll.schedule.replay.loggp_timeline`). A fabric of up to
``SMALL_LIMIT`` nodes is drawn node by node on the canvas (each step's
stylesheet from the server); a larger one on its overview of blocks and
bundles of links (:func:`~vizcoll.ui.figures.topology.fabric_drawing`), each
step lit in the browser from the frames the player's handle carries
(:func:`~vizcoll.ui.pages.schedules._views.replay_player`,
:func:`~vizcoll.ui.components.player.register_overview`); the overview is sent
again only when the fabric changes (its digest in ``sched-drawn``). The LogGP
parameters (LogGOPSim's defaults) are the page's parameters,
``scenario.params["schedules"]``, checked on the server. The model is
:mod:`vizcoll.ui.pages.schedules._model`, the texts :mod:`vizcoll.ui.pages.schedules._views`,
the figures :mod:`vizcoll.ui.pages.schedules._figures`.
"""

from __future__ import annotations

from contextlib import suppress

import dash_cytoscape as cyto
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui import jobs
from vizcoll.ui.cache import is_cached
from vizcoll.ui.components.exports import animation_export, figure_pack, register_animation_export, register_figure_pack
from vizcoll.ui.components.kit import (
    field,
    graph,
    info,
    job_bar,
    message_box,
    number_input,
    panel,
    section,
    status_box,
)
from vizcoll.ui.components.legend import legend_spans
from vizcoll.ui.components.player import on_canvas, pid, player, register_overview, register_player
from vizcoll.ui.figures.common import blank_figure
from vizcoll.ui.figures.style import FULL, title_chars, wrap
from vizcoll.ui.figures.topology import SMALL_LIMIT, base_stylesheet, fabric_drawing
from vizcoll.ui.models.parts import natural_part, view_of
from vizcoll.ui.pages.schedules import ORDER
from vizcoll.ui.pages.schedules._figures import (
    finish_figure,
)
from vizcoll.ui.pages.schedules._model import (
    DEFAULTS,
    FIELDS,
    MAX_GOAL_BYTES,
    MAX_PARAM,
    PAGE,
    analysis,
    drawing_plan,
    example_goal,
    goal_from_upload,
    needs_job,
    read_goal,
    read_params,
    replay_key,
    shown_params,
    stored_params,
)
from vizcoll.ui.pages.schedules._views import (
    LEGEND,
    file_line,
    problems_view,
    replay_flag,
    replay_handle,
    replay_stylesheet,
    timing_view,
)
from vizcoll.ui.routing import page_scenario, register_page
from vizcoll.ui.store import SCENARIO, checked, remembered, store_output, topology_of, user_action
from vizcoll.uploads import content_ref
from vizcoll.words import plural

__all__ = [
    "PAGE",
    "layout",
    "body",
    "register",
    "load_goal",
    "update",
    "dispatch",
    "analyse",
    "compute_views",
    "cancelled",
    "render_step",
    "replay_later",
]

# the page's components
SCHED_UPLOAD, SCHED_GOAL, SCHED_EXAMPLE = "sched-upload", "sched-goal", "sched-example"
SCHED_FILE, SCHED_FILE_MESSAGE, SCHED_MESSAGE = "sched-file", "sched-file-message", "sched-message"
SCHED_PROBLEMS, SCHED_TIMING, SCHED_FINISH = "sched-problems", "sched-timing", "sched-finish"
SCHED_CANVAS, SCHED_FLAG, SCHED_LEGEND, SCHED_PLAYER = "sched-canvas", "sched-flag", "sched-legend", "sched-player"
SCHED_PACK, SCHED_OVERVIEW, SCHED_DRAWN = "sched-pack", "sched-overview", "sched-drawn"
SCHED_LATER = "sched-replay-later"  # the order to replay on the fabric's overview after the first view
PARAM_CONTROLS = {
    "L": "sched-latency",
    "o": "sched-overhead",
    "g": "sched-gap",
    "G": "sched-gap-byte",
    "O": "sched-overhead-byte",
    "S": "sched-eager",
}
SCHED_HEAVY, SCHED_JOB = "sched-heavy", "sched-analysis"  # the background job's order and its job bar's prefix
FIGURES = "vizcoll-schedules"  # the file name of a figure saved from its mode bar
VIEWS = [
    Output(SCHED_FILE, "children"),
    Output(SCHED_PROBLEMS, "children"),
    Output(SCHED_TIMING, "children"),
    Output(SCHED_FINISH, "figure"),
    Output(pid(SCHED_PLAYER, "timeline"), "data"),
    Output(SCHED_CANVAS, "elements"),
    Output(SCHED_FLAG, "children"),
    Output(SCHED_FLAG, "className"),
    Output(SCHED_OVERVIEW, "figure"),
    Output(SCHED_DRAWN, "data"),
    Output(SCHED_OVERVIEW, "style"),
    Output(SCHED_CANVAS, "style"),
    Output(SCHED_LEGEND, "style"),
    Output(SCHED_LATER, "data"),
]
"""What :func:`analyse` shows (also written by the background job of a large file): the file's line, problems,
timing and chart, the player's handle, the canvas's elements, the flag, and the fabric's overview (its figure, the
digest of the fabric it draws, and which of the overview, the canvas and the canvas's legend show)."""
POLL_MS = 400  # how often the page asks a running job for its progress
CANVAS_STYLE = {"width": "100%", "height": "520px"}  # its border: assets/style.css
HIDDEN = {"display": "none"}
OVERVIEW_STYLE = {"width": "100%"}


def layout(**kwargs) -> html.Div:
    """Dash's entry: the page for the link's or the store's scenario (query parameters are ignored)."""
    return body(page_scenario(kwargs))


register_page(__name__, layout, path="/schedules", name="Schedules", order=ORDER)


# ---------------------------------------------------------------- layout
def body(scenario: Scenario) -> html.Div:
    """The page on ``scenario``: the LogGP controls show its page parameters (bad stored values: the defaults)."""
    v = shown_params(scenario)
    try:
        drawn = topology_of(scenario).n_nodes <= SMALL_LIMIT
    except VizcollError:
        drawn = None  # neither: the flag says why
    sidebar = html.Div(
        className="sidebar",
        children=[
            section(
                "GOAL file",
                dcc.Upload(
                    id=SCHED_UPLOAD,
                    className="upload",
                    max_size=MAX_GOAL_BYTES,
                    children=html.Div(
                        [
                            "Drop or ",
                            html.A("choose a GOAL file"),
                            html.Br(),
                            html.Small(f"LogGOPSim / Schedgen text, up to {MAX_GOAL_BYTES >> 20} MB"),
                        ]
                    ),
                ),
                html.Div(
                    className="buttons",
                    children=[html.Button("Open an example: dissemination barrier", id=SCHED_EXAMPLE, n_clicks=0)],
                ),
                html.P(id=SCHED_FILE, className="info"),
                message_box(SCHED_FILE_MESSAGE),
                info(
                    "The file stays in this browser tab: it is not part of the scenario, so the share link and "
                    "scenario files do not carry it. Export one from Barrier, Trees or Fault replays (Download GOAL) "
                    "or with python -m vizcoll goal ..."
                ),
            ),
            section(
                "LogGP parameters (LogGOPSim's defaults)",
                *[
                    field(label, number_input(PARAM_CONTROLS[key], v[key], min=0, max=MAX_PARAM, step=1))
                    for key, label in FIELDS.items()
                ],
                info(
                    "Whole numbers, nominally ns (S in bytes: messages up to S bytes go eagerly, larger ones wait for "
                    "their receive). Defaults as LogGOPSim's: " + ", ".join(f"{k}={d}" for k, d in DEFAULTS.items())
                ),
            ),
            message_box(SCHED_MESSAGE),
            section("Export for papers", figure_pack(SCHED_PACK)),
        ],
    )
    main = html.Div(
        className="main",
        children=[
            dcc.Store(id=SCHED_GOAL, storage_type="session"),
            dcc.Store(id=SCHED_HEAVY),
            dcc.Store(id=SCHED_DRAWN),
            dcc.Store(id=SCHED_LATER),
            job_bar(SCHED_JOB),
            panel(html.H3("Problems (LogGOPSim's silent ones too)"), html.Div(id=SCHED_PROBLEMS)),
            panel(html.H3("LogGP timing"), html.Div(id=SCHED_TIMING), graph(SCHED_FINISH, FIGURES)),
            panel(
                html.H3("Replay on the scenario's fabric: rank r runs where the scenario places process r"),
                status_box(SCHED_FLAG),
                cyto.Cytoscape(
                    id=SCHED_CANVAS,
                    elements=[],
                    layout={"name": "preset", "fit": True, "padding": 20},
                    stylesheet=base_stylesheet(),
                    style=CANVAS_STYLE if drawn else HIDDEN,
                    minZoom=0.05,
                    maxZoom=4,
                    boxSelectionEnabled=False,
                    autoungrabify=True,
                    autounselectify=True,
                ),
                graph(SCHED_OVERVIEW, FIGURES, style=OVERVIEW_STYLE if drawn is False else HIDDEN),
                _legend(drawn is not False),
                player(SCHED_PLAYER),
                animation_export(SCHED_PLAYER),
                className="player-panel",
            ),
        ],
    )
    return html.Div(className="page schedules-page", children=[html.Div(className="columns", children=[sidebar, main])])


def _legend(shown: bool) -> html.Div:
    """The canvas's legend (the overview's colours are explained by its colour bar and the flag)."""
    return html.Div(id=SCHED_LEGEND, className="legend", style={} if shown else HIDDEN, children=legend_spans(LEGEND))


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_player(app, SCHED_PLAYER)
    register_overview(app, SCHED_PLAYER, SCHED_OVERVIEW)
    register_animation_export(app, SCHED_PLAYER, PAGE, extra=State(SCHED_GOAL, "data"))
    register_figure_pack(app, SCHED_PACK, PAGE, State(SCHED_GOAL, "data"))
    app.callback(
        Output(SCHED_GOAL, "data"),
        Output(SCHED_UPLOAD, "contents"),
        Output(SCHED_FILE_MESSAGE, "children"),
        Input(SCHED_UPLOAD, "contents"),
        Input(SCHED_EXAMPLE, "n_clicks"),
        State(SCHED_UPLOAD, "filename"),
        State(SCENARIO, "data"),
        prevent_initial_call=True,
    )(load_goal)
    app.callback(
        store_output(),
        Output(SCHED_MESSAGE, "children"),
        inputs={"values": {key: Input(i, "value") for key, i in PARAM_CONTROLS.items()}},
        state={"data": State(SCENARIO, "data")},
        prevent_initial_call=True,
    )(update)
    goal, scenario = Input(SCHED_GOAL, "data"), Input(SCENARIO, "data")
    app.callback(Output(SCHED_HEAVY, "data"), goal, scenario, State(SCHED_HEAVY, "data"))(dispatch)
    app.callback(*VIEWS, goal, scenario, State(SCHED_DRAWN, "data"))(analyse)
    app.callback(
        *[Output(o.component_id, o.component_property, allow_duplicate=True) for o in VIEWS],
        Input(SCHED_HEAVY, "data"),
        State(SCHED_GOAL, "data"),
        State(SCENARIO, "data"),
        State(SCHED_DRAWN, "data"),
        prevent_initial_call=True,
        interval=POLL_MS,
        **jobs.background(SCHED_JOB, (SCHED_EXAMPLE,)),
    )(compute_views)
    app.callback(
        Output(SCHED_PROBLEMS, "children", allow_duplicate=True),
        Output(SCHED_FINISH, "figure", allow_duplicate=True),
        Input(f"{SCHED_JOB}-cancel", "n_clicks"),
        prevent_initial_call=True,
    )(cancelled)
    app.callback(
        Output(pid(SCHED_PLAYER, "timeline"), "data", allow_duplicate=True),
        Output(SCHED_FLAG, "children", allow_duplicate=True),
        Output(SCHED_FLAG, "className", allow_duplicate=True),
        Output(SCHED_OVERVIEW, "figure", allow_duplicate=True),
        Output(SCHED_DRAWN, "data", allow_duplicate=True),
        Input(SCHED_LATER, "data"),
        State(SCHED_GOAL, "data"),
        State(SCENARIO, "data"),
        State(SCHED_DRAWN, "data"),
        prevent_initial_call=True,
    )(replay_later)
    app.callback(
        Output(SCHED_CANVAS, "stylesheet"),
        Input(pid(SCHED_PLAYER, "shown"), "data"),
        State(SCENARIO, "data"),
    )(on_canvas(render_step))


def load_goal(contents, _example, filename, data):
    """An uploaded file (or the example) into the page's store; the upload box is emptied so that the same file
    can be opened again. A file that cannot be read leaves the store as it is, with a message."""
    if ctx.triggered_id == SCHED_EXAMPLE:
        scenario, message = checked(data)
        if scenario is None:
            return no_update, no_update, message
        return example_goal(scenario), no_update, ""
    if contents is None:
        return no_update, no_update, no_update
    try:
        return goal_from_upload(contents, filename), None, ""
    except VizcollError as exc:
        return no_update, None, f"⚠ {exc}"


def update(values, data):
    """A LogGP parameter changed (``values``: control key -> its value): the page's checked parameters into the
    scenario; a bad value gives a message."""
    if not user_action():
        return no_update, no_update
    values = values if isinstance(values, dict) else {}
    try:
        params = read_params({key: values.get(key) for key in PARAM_CONTROLS})
    except VizcollError as exc:
        return no_update, f"⚠ {exc}"
    return remembered(data, PAGE, params), ""


def _opened(goal, data) -> tuple[tuple | None, tuple | None]:
    """((name, text, scenario, parameters), None) of the opened file, or (None, (scenario or None, the views'
    head, the flag)) saying why there is nothing to show."""
    nothing = blank_figure("Open a GOAL file to see every rank's finishing time.", height=300)
    scenario, message = checked(data)
    if goal is None:
        hint = "Open a GOAL file: its ranks run where the scenario places its processes."
        return None, (
            scenario,
            ("No file yet.", html.P("Open a GOAL file, or the example.", className="info"), "", nothing, None),
            hint,
        )
    try:
        name, text = read_goal(goal)
        if scenario is None:
            raise VizcollError(message.removeprefix("⚠ "))
        return (name, text, scenario, stored_params(scenario)), None
    except VizcollError as exc:
        return None, (scenario, (no_update, no_update, [html.P(f"⚠ {exc}", className="message")], nothing, None), "")


def dispatch(goal, data, job_now=None):
    """The background job's order: a new run for each large file (or parameters) not analysed yet; None once the
    views are drawn in the request again."""
    opened, _ = _opened(goal, data)
    return jobs.order(opened is not None and needs_job(opened[1], opened[3]), job_now)


def analyse(goal, data, drawn=None):
    """The opened file's line, problems, LogGP timing and chart, its replay on the scenario's fabric (those of
    a large file come from the background job) and the fabric (``drawn``: the digest of the overview the browser
    shows, not sent again)."""
    opened, why = _opened(goal, data)
    if opened is None:
        return _shown(why[1], why[0], drawn, why[2])
    name, text, scenario, params = opened
    if needs_job(text, params):
        waiting = blank_figure("Timed in the background: see the progress bar at the top.", height=300)
        return _shown(
            (f"{name}: {len(text):,} bytes, checked and timed in the background…", "", "", waiting, None),
            scenario,
            drawn,
        )
    return _views(name, text, scenario, params, drawn)


def _views(name: str, text: str, scenario: Scenario, params: dict, drawn, now: bool = False) -> tuple:
    result = analysis(text, params)
    timing = result["timing"]
    figure = (
        finish_figure(timing["finish"], timing["host"])
        if timing
        else blank_figure("No timing while the file has errors.", height=300)
    )
    drawn_replay = _replay(scenario, text, params, result, now) if timing else (None, "", "flag", None)
    handle, flag, flag_class, later = drawn_replay
    return _shown(
        (file_line(name, result), problems_view(result["problems"]), timing_view(result, params), figure, handle),
        scenario,
        drawn,
        flag,
        flag_class,
        later,
    )


def compute_views(set_progress, job, goal, data, drawn=None):
    """(A background job.) Check and time the file, then replay it, with the progress of each; a forged order or
    store changes nothing."""
    opened, _ = _opened(goal, data)
    if not isinstance(job, dict) or opened is None:
        return (no_update,) * len(VIEWS)
    name, text, scenario, params = opened
    progress = jobs.JobProgress(
        set_progress, [f"checking and timing {len(text) / 1e6:.1f} MB of GOAL", "replaying it on the fabric"]
    )
    progress.stage(0)
    with suppress(VizcollError):  # the views say what went wrong
        analysis(text, params)
    progress.stage(1)
    return _views(name, text, scenario, params, drawn, now=True)


def cancelled(_clicks):
    """Cancel pressed: the problems box and the chart say the file was not checked (the job wrote nothing)."""
    return (
        html.P("⚠ Cancelled: the file was not checked or timed. Open it again to do so.", className="message"),
        blank_figure("Cancelled: not timed.", height=300),
    )


def _shown(
    head: tuple, scenario: Scenario | None, drawn, flag: str = "", flag_class: str = "flag", later=None
) -> tuple:
    """:data:`VIEWS` from their ``head`` (file line, problems, timing, chart, player's handle), the flag, the
    scenario's fabric (:func:`_fabric`) and the order to replay after the first view (:func:`replay_later`)."""
    elements, *overview = _fabric(scenario, drawn, later is not None)
    return (*head, elements, flag, flag_class, *overview, later)


def _fabric(scenario: Scenario | None, drawn, later: bool = False) -> tuple:
    """The replay's background: (canvas elements, overview figure, its digest, overview style, canvas style,
    legend style). A fabric of up to ``SMALL_LIMIT`` nodes is drawn node by node on the canvas; a larger one as
    its overview, sent only when the browser's (its digest ``drawn``) shows another fabric, and with the replay
    when that comes ``later`` (:func:`replay_later`); an unreadable scenario draws nothing."""
    if scenario is None:
        return [], no_update, no_update, no_update, no_update, no_update
    topo = topology_of(scenario)
    view = view_of(scenario, natural_part(topo))
    if view.overview is None:
        return fabric_drawing(view, topo)[0], no_update, None, HIDDEN, CANVAS_STYLE, {}
    digest = content_ref(scenario.source_key())
    if later:
        return [], no_update, digest if drawn == digest else no_update, OVERVIEW_STYLE, HIDDEN, HIDDEN
    figure = no_update if drawn == digest else _overview(view, topo)
    return [], figure, digest, OVERVIEW_STYLE, HIDDEN, HIDDEN


def _overview(view, topo):
    """The fabric's overview with the player's two layers, titled for this page (no group to click into here)."""
    figure = fabric_drawing(view, topo)[1]
    s = topo.summary()
    title = (
        f"{plural(s['switches'], 'switch')}, {plural(s['endpoints'], 'end node')} and "
        f"{plural(s['links'], 'link')}, grouped: each step lights the bundles its messages cross"
    )
    return figure.update_layout(title_text=wrap(title, title_chars(FULL)))


def _replay(scenario: Scenario, text: str, params: dict, result: dict, now: bool = False):
    """(player's handle, flag, flag class, order to replay later) of the replay, or why it is not drawn. A replay
    on a large fabric's overview not made yet is made after the first view (``now``: by :func:`replay_later`): it
    took longer than the rest of the page (a binomial reduce of 16,384 ranks on TaihuLight: docs/design.md)."""
    try:
        nodes, why = drawing_plan(scenario, result["ranks"], result["messages"], any_size=True)
        if nodes is None:
            return None, why, "flag warn" if why.startswith("⚠") else "flag", None
        key = replay_key(scenario)
        if (
            not now
            and topology_of(scenario).n_nodes > SMALL_LIMIT
            and not is_cached(replay_handle, text, params, key, nodes)
        ):
            order = {"file": content_ref(text), "params": params, "source": content_ref(key)}
            return None, "Replaying it on the fabric's overview…", "flag", order
        made = replay_handle(text, params, key, nodes)
    except VizcollError as exc:
        return None, f"⚠ {exc}", "flag warn", None
    handle, s = made["handle"], made["summary"]
    return handle, replay_flag(scenario, s, "overview" in handle), "flag warn" if s["unrouted"] else "flag", None


def replay_later(order, goal, data, drawn=None):
    """(After the first view of a file on a large fabric.) The replay on the fabric's overview: the player's
    handle, the flag, and the overview (its figure and digest, as :func:`_fabric`); nothing when the file, its
    parameters or the fabric changed since."""
    opened, _ = _opened(goal, data)
    nothing = (no_update,) * 5
    if not isinstance(order, dict) or opened is None:
        return nothing
    _, text, scenario, params = opened
    if order != {"file": content_ref(text), "params": params, "source": content_ref(replay_key(scenario))}:
        return nothing
    result = analysis(text, params)
    if result["timing"] is None:
        return nothing
    return (*_replay(scenario, text, params, result, now=True)[:3], *_fabric(scenario, drawn)[1:3])


def render_step(step, timeline, data):
    """Stylesheet for one player step: each rank node's label and state, this step's messages and handlings (the
    overview's steps are drawn in the browser)."""
    if isinstance(timeline, dict) and "overview" in timeline:
        return no_update
    scenario, _ = checked(data)
    return replay_stylesheet(topology_of(scenario) if scenario is not None else None, timeline, step)
