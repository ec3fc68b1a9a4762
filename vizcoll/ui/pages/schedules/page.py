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
from vizcoll.ui.callbacks import by_name
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


def _again(outputs: dict[str, Output], *names: str) -> dict[str, Output]:
    """``outputs`` (those of ``names``; all without names) as a second callback writes them (``allow_duplicate``)."""
    return {
        name: Output(o.component_id, o.component_property, allow_duplicate=True)
        for name, o in outputs.items()
        if not names or name in names
    }


LOADED = {
    "goal": Output(SCHED_GOAL, "data"),
    "upload": Output(SCHED_UPLOAD, "contents"),
    "message": Output(SCHED_FILE_MESSAGE, "children"),
}
"""What :func:`load_goal` writes: the page's store of the file, the upload box (emptied) and the file's message."""
LOADING = {
    "contents": Input(SCHED_UPLOAD, "contents"),
    "example": Input(SCHED_EXAMPLE, "n_clicks"),
    "filename": State(SCHED_UPLOAD, "filename"),
    "scenario": State(SCENARIO, "data"),
}
PARAMS = {"scenario": store_output(), "message": Output(SCHED_MESSAGE, "children")}
"""What :func:`update` writes: the scenario with the page's LogGP parameters, and the message saying what is wrong."""
PARAM_INPUTS = {
    "values": {key: Input(i, "value") for key, i in PARAM_CONTROLS.items()},
    "scenario": State(SCENARIO, "data"),
}
VIEWS = {
    "file": Output(SCHED_FILE, "children"),
    "problems": Output(SCHED_PROBLEMS, "children"),
    "timing": Output(SCHED_TIMING, "children"),
    "chart": Output(SCHED_FINISH, "figure"),
    "timeline": Output(pid(SCHED_PLAYER, "timeline"), "data"),
    "elements": Output(SCHED_CANVAS, "elements"),
    "flag": Output(SCHED_FLAG, "children"),
    "flag_class": Output(SCHED_FLAG, "className"),
    "overview": Output(SCHED_OVERVIEW, "figure"),
    "drawn": Output(SCHED_DRAWN, "data"),
    "overview_style": Output(SCHED_OVERVIEW, "style"),
    "canvas_style": Output(SCHED_CANVAS, "style"),
    "legend_style": Output(SCHED_LEGEND, "style"),
    "later": Output(SCHED_LATER, "data"),
}
"""What :func:`analyse` shows (also written by the background job of a large file): the file's line, problems,
timing and chart, the player's handle, the canvas's elements, the flag, the fabric's overview (its figure, the
digest of the fabric it draws, and which of the overview, the canvas and the canvas's legend show) and the order to
replay on it later (:func:`replay_later`)."""
VIEW_INPUTS = {
    "goal": Input(SCHED_GOAL, "data"),
    "scenario": Input(SCENARIO, "data"),
    "drawn": State(SCHED_DRAWN, "data"),
}
JOB_VIEWS = _again(VIEWS)
""":data:`VIEWS` as the background job of a large file writes them (:func:`compute_views`)."""
JOB_INPUTS = {
    "job": Input(SCHED_HEAVY, "data"),
    "goal": State(SCHED_GOAL, "data"),
    "scenario": State(SCENARIO, "data"),
    "drawn": State(SCHED_DRAWN, "data"),
}
LATER_VIEWS = _again(VIEWS, "timeline", "flag", "flag_class", "overview", "drawn")
"""What :func:`replay_later` writes: the player's handle, the flag, and the overview (its figure and digest)."""
LATER_INPUTS = {
    "order": Input(SCHED_LATER, "data"),
    "goal": State(SCHED_GOAL, "data"),
    "scenario": State(SCENARIO, "data"),
    "drawn": State(SCHED_DRAWN, "data"),
}
CANCELLED = _again(VIEWS, "problems", "chart")
"""What Cancel writes (:func:`cancelled`): the problems box and the chart."""
CANCELLING = {"clicks": Input(f"{SCHED_JOB}-cancel", "n_clicks")}
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
    by_name(app, LOADED, LOADING, prevent_initial_call=True)(load_goal)
    by_name(app, PARAMS, PARAM_INPUTS, prevent_initial_call=True)(update)
    goal, scenario = Input(SCHED_GOAL, "data"), Input(SCENARIO, "data")
    app.callback(Output(SCHED_HEAVY, "data"), goal, scenario, State(SCHED_HEAVY, "data"))(dispatch)
    by_name(app, VIEWS, VIEW_INPUTS)(analyse)
    by_name(
        app,
        JOB_VIEWS,
        JOB_INPUTS,
        prevent_initial_call=True,
        interval=POLL_MS,
        **jobs.background(SCHED_JOB, (SCHED_EXAMPLE,)),
    )(compute_views)
    by_name(app, CANCELLED, CANCELLING, prevent_initial_call=True)(cancelled)
    by_name(app, LATER_VIEWS, LATER_INPUTS, prevent_initial_call=True)(replay_later)
    app.callback(
        Output(SCHED_CANVAS, "stylesheet"),
        Input(pid(SCHED_PLAYER, "shown"), "data"),
        State(SCENARIO, "data"),
    )(on_canvas(render_step))


def load_goal(contents, example, filename, scenario) -> dict:
    """An uploaded file (or the ``example``) into the page's store; the upload box is emptied so that the same file
    can be opened again. A file that cannot be read (or the example on a ``scenario`` store that cannot be read)
    leaves the store as it is, with a message (:data:`LOADED`)."""
    if ctx.triggered_id == SCHED_EXAMPLE:
        read, message = checked(scenario)
        if read is None:
            return {"message": message}
        return {"goal": example_goal(read), "message": ""}
    if contents is None:
        return {}
    try:
        return {"goal": goal_from_upload(contents, filename), "upload": None, "message": ""}
    except VizcollError as exc:
        return {"upload": None, "message": f"⚠ {exc}"}


def update(values, scenario) -> dict:
    """A LogGP parameter changed (``values``: control key -> its value): the page's checked parameters into the
    ``scenario`` store; a bad value, or a store that cannot be read, gives a message (:data:`PARAMS`)."""
    if not user_action():  # the page appearing (every control at once): nothing
        return {}
    read, message = checked(scenario)
    if read is None:
        return {"message": message}
    values = values if isinstance(values, dict) else {}
    try:
        params = read_params({key: values.get(key) for key in PARAM_CONTROLS})
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    return {"scenario": remembered(scenario, PAGE, params), "message": ""}


def _opened(goal, data) -> tuple[tuple | None, tuple | None]:
    """((name, text, scenario, parameters), None) of the opened file, or (None, (scenario or None, the views
    saying why there is nothing to show, by name)): no file yet, or one (or a scenario) that cannot be read."""
    nothing = blank_figure("Open a GOAL file to see every rank's finishing time.", height=300)
    scenario, message = checked(data)
    if goal is None:
        return None, (
            scenario,
            {
                "file": "No file yet.",
                "problems": html.P("Open a GOAL file, or the example.", className="info"),
                "timing": "",
                "chart": nothing,
                "timeline": None,
                "flag": "Open a GOAL file: its ranks run where the scenario places its processes.",
            },
        )
    try:
        name, text = read_goal(goal)
        if scenario is None:
            raise VizcollError(message.removeprefix("⚠ "))
        return (name, text, scenario, stored_params(scenario)), None
    except VizcollError as exc:
        return None, (
            scenario,
            {"timing": [html.P(f"⚠ {exc}", className="message")], "chart": nothing, "timeline": None},
        )


def dispatch(goal, data, job_now=None):
    """The background job's order: a new run for each large file (or parameters) not analysed yet; None once the
    views are drawn in the request again."""
    opened, _ = _opened(goal, data)
    return jobs.order(opened is not None and needs_job(opened[1], opened[3]), job_now)


def analyse(goal, scenario, drawn=None) -> dict:
    """The opened file's line, problems, LogGP timing and chart, its replay on the fabric of the ``scenario`` store
    (those of a large file come from the background job) and the fabric (``drawn``: the digest of the overview the
    browser shows, not sent again): :data:`VIEWS`."""
    opened, why = _opened(goal, scenario)
    if opened is None:
        read, head = why
        return _shown(head, read, drawn)
    name, text, read, params = opened
    if needs_job(text, params):
        waiting = blank_figure("Timed in the background: see the progress bar at the top.", height=300)
        head = {
            "file": f"{name}: {len(text):,} bytes, checked and timed in the background…",
            "problems": "",
            "timing": "",
            "chart": waiting,
            "timeline": None,
        }
        return _shown(head, read, drawn)
    return _views(name, text, read, params, drawn)


def _views(name: str, text: str, scenario: Scenario, params: dict, drawn, now: bool = False) -> dict:
    result = analysis(text, params)
    timing = result["timing"]
    figure = (
        finish_figure(timing["finish"], timing["host"])
        if timing
        else blank_figure("No timing while the file has errors.", height=300)
    )
    replay = _replay(scenario, text, params, result, now) if timing else {"timeline": None}
    head = {
        "file": file_line(name, result),
        "problems": problems_view(result["problems"]),
        "timing": timing_view(result, params),
        "chart": figure,
    }
    return _shown(head | replay, scenario, drawn)


def compute_views(set_progress, job, goal, scenario, drawn=None) -> dict:
    """(A background job.) Check and time the file, then replay it, with the progress of each (:data:`JOB_VIEWS`);
    a forged order or store changes nothing."""
    opened, _ = _opened(goal, scenario)
    if not isinstance(job, dict) or opened is None:
        return {}
    name, text, read, params = opened
    progress = jobs.JobProgress(
        set_progress, [f"checking and timing {len(text) / 1e6:.1f} MB of GOAL", "replaying it on the fabric"]
    )
    progress.stage(0)
    with suppress(VizcollError):  # the views say what went wrong
        analysis(text, params)
    progress.stage(1)
    return _views(name, text, read, params, drawn, now=True)


def cancelled(clicks) -> dict:
    """Cancel pressed: the problems box and the chart say the file was not checked (the job wrote nothing)."""
    return {
        "problems": html.P(
            "⚠ Cancelled: the file was not checked or timed. Open it again to do so.", className="message"
        ),
        "chart": blank_figure("Cancelled: not timed.", height=300),
    }


def _shown(head: dict, scenario: Scenario | None, drawn) -> dict:
    """:data:`VIEWS` from their ``head`` (file line, problems, timing, chart, player's handle, and the flag and the
    order to replay later when there are), the scenario's fabric (:func:`_fabric`); the flag is empty, and there is
    no order to replay after the first view (:func:`replay_later`), unless ``head`` says so."""
    later = head.get("later")
    return {"flag": "", "flag_class": "flag", "later": None, **head, **_fabric(scenario, drawn, later is not None)}


def _fabric(scenario: Scenario | None, drawn, later: bool = False) -> dict:
    """The replay's background, by name as in :data:`VIEWS`: the canvas's elements, the overview's figure and
    digest, and the styles of the overview, the canvas and its legend. A fabric of up to ``SMALL_LIMIT`` nodes is
    drawn node by node on the canvas; a larger one as its overview, sent only when the browser's (its digest
    ``drawn``) shows another fabric, and with the replay when that comes ``later`` (:func:`replay_later`); an
    unreadable scenario draws nothing."""
    if scenario is None:
        return {"elements": []}
    topo = topology_of(scenario)
    view = view_of(scenario, natural_part(topo))
    if view.overview is None:
        return {
            "elements": fabric_drawing(view, topo)[0],
            "drawn": None,
            "overview_style": HIDDEN,
            "canvas_style": CANVAS_STYLE,
            "legend_style": {},
        }
    digest = content_ref(scenario.source_key())
    shown = {"elements": [], "overview_style": OVERVIEW_STYLE, "canvas_style": HIDDEN, "legend_style": HIDDEN}
    if drawn == digest:
        return shown | {"drawn": digest}  # the browser shows this overview already
    return shown if later else shown | {"overview": _overview(view, topo), "drawn": digest}


def _overview(view, topo):
    """The fabric's overview with the player's two layers, titled for this page (no group to click into here)."""
    figure = fabric_drawing(view, topo)[1]
    s = topo.summary()
    title = (
        f"{plural(s['switches'], 'switch')}, {plural(s['endpoints'], 'end node')} and "
        f"{plural(s['links'], 'link')}, grouped: each step lights the bundles its messages cross"
    )
    return figure.update_layout(title_text=wrap(title, title_chars(FULL)))


def _replay(scenario: Scenario, text: str, params: dict, result: dict, now: bool = False) -> dict:
    """The replay's player's handle, flag, flag class and order to replay later (by name as in :data:`VIEWS`), or
    why it is not drawn. A replay on a large fabric's overview not made yet is made after the first view (``now``:
    by :func:`replay_later`): it took longer than the rest of the page (a binomial reduce of 16,384 ranks on
    TaihuLight: docs/design.md)."""
    try:
        nodes, why = drawing_plan(scenario, result["ranks"], result["messages"], any_size=True)
        if nodes is None:
            return {"timeline": None, "flag": why, "flag_class": "flag warn" if why.startswith("⚠") else "flag"}
        key = replay_key(scenario)
        if (
            not now
            and topology_of(scenario).n_nodes > SMALL_LIMIT
            and not is_cached(replay_handle, text, params, key, nodes)
        ):
            order = {"file": content_ref(text), "params": params, "source": content_ref(key)}
            return {"timeline": None, "flag": "Replaying it on the fabric's overview…", "later": order}
        made = replay_handle(text, params, key, nodes)
    except VizcollError as exc:
        return {"timeline": None, "flag": f"⚠ {exc}", "flag_class": "flag warn"}
    handle, s = made["handle"], made["summary"]
    flag = replay_flag(scenario, s, "overview" in handle)
    return {"timeline": handle, "flag": flag, "flag_class": "flag warn" if s["unrouted"] else "flag"}


def replay_later(order, goal, scenario, drawn=None) -> dict:
    """(After the first view of a file on a large fabric.) The replay on the fabric's overview
    (:data:`LATER_VIEWS`): the player's handle, the flag, and the overview (its figure and digest, as
    :func:`_fabric`); nothing when the file, its parameters or the fabric changed since."""
    opened, _ = _opened(goal, scenario)
    if not isinstance(order, dict) or opened is None:
        return {}
    _, text, read, params = opened
    if order != {"file": content_ref(text), "params": params, "source": content_ref(replay_key(read))}:
        return {}
    result = analysis(text, params)
    if result["timing"] is None:
        return {}
    shown = _replay(read, text, params, result, now=True) | _fabric(read, drawn)
    return {name: value for name, value in shown.items() if name in LATER_VIEWS}


def render_step(step, timeline, data):
    """Stylesheet for one player step: each rank node's label and state, this step's messages and handlings (the
    overview's steps are drawn in the browser)."""
    if isinstance(timeline, dict) and "overview" in timeline:
        return no_update
    scenario, _ = checked(data)
    return replay_stylesheet(topology_of(scenario) if scenario is not None else None, timeline, step)
