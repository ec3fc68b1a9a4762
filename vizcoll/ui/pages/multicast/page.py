"""The multicast page: one multicast group per communicator of the shared scenario, routed by two algorithms.

The page looks at the one shared :class:`~vizcoll.scenario.Scenario` (the
shell's store) and nothing else: the fabric is the scenario's, with its
breaks (the min-hop tables avoid the broken links); the groups are the
scenario's communicators (see :mod:`vizcoll.ui.pages.multicast._model`, the page's
model). Groups whose members cannot all reach one switch over the live links
are routed by nobody and listed by name.

Both algorithms (A and B, any of :data:`~vizcoll.multicast.algorithms.ALGORITHMS`)
route every group; the page shows their EFI (edge forwarding index: groups per
link) side by side on the fabric, their difference, a histogram and the worst
links, highlights one group's tree and replays its join/leave protocol (paper
section 3.2). Small fabrics are drawn link by link; large ones start from a
group-by-group overview and the user drills into one group of switches.

**On a fabric of more than** :data:`~vizcoll.ui.pages.multicast._model.JOB_NODES`
**nodes the routes are background jobs** (progress bar, Cancel), two in a row
so that the first view comes as soon as it can be drawn: the routes' job
routes the groups by A and draws A's views (summary, heatmap on its own colour
scale, worst links), then orders B's job, which routes them by B and draws
every view, the comparison included (the /trees page orders its aggregation's
job the same way). Once both are cached the views are drawn in the request.

**The fabric's multicast tables** (OpenSM's ``opensm.mcfdbs`` dump, loaded
in the sidebar and carried by the scenario, so the share link and a reload
keep them) replace the communicators as the groups, one per MLID; algorithm
A becomes "the fabric's tables" (what the fabric does today) and B routes
the same groups, so every view shows the real tables against B, with a
sentence saying whether B loads any link differently. A file that does not
fit the fabric (a switch GUID or port it does not have) gives a message
and changes nothing; "Forget the tables" goes back to the communicators.

**A click on a link** of a drawing breaks it *in the scenario*
(``scenario.toggled(label)``, the link named ``a[pa]-b[pb]``); a click on a
broken (dashed, black) link repairs it. The badge and every page follow, and
the routes are computed again around the break. Every control change is
checked on the server and written to ``scenario.params["multicast"]``, so the
view, the share link and a reload follow it. The quick presets (e.g. the
paper's teaching example where MINIHOP-MC-new reaches max EFI 8 and FULB-MC 3)
*replace* the shared scenario.
"""

from __future__ import annotations

from contextlib import suppress

from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui import jobs
from vizcoll.ui.cache import cached_figures
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.exports import animation_export, figure_pack, register_animation_export, register_figure_pack
from vizcoll.ui.components.kit import dropdown, field, graph, info, job_bar, message_box, section, status_box, titled
from vizcoll.ui.components.links import link_list, register_link_list
from vizcoll.ui.components.player import pid, player, player_data, register_player, timeline_at
from vizcoll.ui.components.sidebyside import (
    comparison_order,
    register_side_by_side,
    result_outputs,
    shown,
    side_by_side,
)
from vizcoll.ui.figures.common import blank_figure
from vizcoll.ui.figures.timeline import process_diagram
from vizcoll.ui.forms import whole_or
from vizcoll.ui.models.parts import part_options, view_of
from vizcoll.ui.pages.multicast import ORDER
from vizcoll.ui.pages.multicast._figures import first_figure, route_figures
from vizcoll.ui.pages.multicast._model import (
    COMPARE,
    MAX_UPLOAD_BYTES,
    PAGE,
    PRESETS,
    TABLES,
    clicked_label,
    groups_of,
    is_routed,
    natural_part,
    needs_job,
    page_state,
    preset_scenario,
    protocol_of,
    read_params,
    route_by,
    routed,
    tables_of,
    with_tables,
    without_tables,
)
from vizcoll.ui.pages.multicast._sides import buildup_figure, compared_routings
from vizcoll.ui.pages.multicast._views import (
    TABLES_ABOUT,
    TABLES_HINT,
    algo_options,
    fabric_line,
    group_info,
    group_options,
    summary_table,
    tables_line,
    unroutable_line,
    verdict,
    worst_links,
)
from vizcoll.ui.routing import page_scenario, register_page
from vizcoll.ui.store import (
    DEFAULT_SCENARIO,
    SCENARIO,
    changed,
    checked,
    key_of,
    remembered,
    store_output,
    topology_of,
    user_action,
)
from vizcoll.ui.views import rails
from vizcoll.words import plural

__all__ = [
    "PAGE",
    "layout",
    "body",
    "examples",
    "register",
    "update",
    "load_tables",
    "controls",
    "dispatch",
    "render",
    "views",
    "render_lower",
    "group_protocol",
    "compute_views",
    "compute_second",
    "stop_second",
    "cancelled",
    "cancelled_second",
    "render_protocol",
    "order_sides",
    "compare_routings",
    "side_figure",
    "drawings",
    "first_drawing",
]

# the page's components
MC_ALGO_A, MC_ALGO_B, MC_MESSAGE, MC_SUMMARY = "mc-algo-a", "mc-algo-b", "mc-message", "mc-summary"
MC_PART, MC_GROUP, MC_GROUP_INFO = "mc-part", "mc-group", "mc-group-info"
MC_FIG_A, MC_FIG_B, MC_FIG_DIFF, MC_HIST = "mc-fig-a", "mc-fig-b", "mc-fig-diff", "mc-hist"
MC_WORST, MC_STATE_FIG, MC_PLAYER = "mc-worst", "mc-state-fig", "mc-player"
MC_COMPARE, MC_SIDES, MC_SIDES_ORDER = "mc-compare", "mc-cmp", "mc-cmp-order"  # side by side: A and B built up
ORDER_SIDES = comparison_order(MC_COMPARE)  # the side-by-side job's order (order_sides)
MC_PRESET, MC_USE_PRESET, MC_FABRIC, MC_STATUS = "mc-preset", "mc-use-preset", "mc-fabric", "mc-status"
MC_TABLES_UPLOAD, MC_TABLES_FORGET = "mc-tables-upload", "mc-tables-forget"
MC_TABLES_INFO, MC_TABLES_MESSAGE = "mc-tables-info", "mc-tables-message"
MC_HEAVY, MC_JOB = "mc-heavy", "mc-routes"  # the background job's order and its job bar's prefix
MC_HEAVY_B, MC_JOB_B = "mc-heavy-b", "mc-routes-b"  # B's job, which the first orders as it ends: the same
MC_PACK, MC_LOWER_SEEN = "mc-pack", "mc-lower-seen"
MC_RAILS = "mc-rails"  # what rails change (vizcoll.ui.views.rails): a stable id
FIGURES = (MC_FIG_A, MC_FIG_B, MC_FIG_DIFF)  # the drawings a click on a link breaks or repairs it on
PARAM_CONTROLS = {
    "a": MC_ALGO_A,
    "b": MC_ALGO_B,
    "part": MC_PART,
    "group": MC_GROUP,
    "compare": MC_COMPARE,
}  # parameter -> its control
STORE = {"scenario": Input(SCENARIO, "data")}  # the input of the callbacks that follow the shared scenario
TOP = {
    "summary": Output(MC_SUMMARY, "children"),
    "status": Output(MC_STATUS, "children"),
    "heatmap_a": Output(MC_FIG_A, "figure"),
    "heatmap_b": Output(MC_FIG_B, "figure"),
    "group_info": Output(MC_GROUP_INFO, "children"),
    "worst": Output(MC_WORST, "children"),
}
"""The views of the routes :func:`render` draws with the page's first answers."""
LOWER = {"difference": Output(MC_FIG_DIFF, "figure"), "histogram": Output(MC_HIST, "figure")}
"""The views below the fold (:func:`render_lower`)."""
TIMELINE = Output(pid(MC_PLAYER, "timeline"), "data")  # the protocol's player (:func:`group_protocol`)
VIEWS = {**TOP, **LOWER, "timeline": TIMELINE}
"""The views of the routes (:func:`views`, then :func:`group_protocol`'s timeline), also written by the jobs."""
DRAWINGS = ("heatmap_a", "heatmap_b", "difference", "histogram")  # the views that are figures
B_DRAWINGS = ("heatmap_b", "difference", "histogram")  # those that show B: they wait for B's job


def _again(outputs: dict[str, Output]) -> dict[str, Output]:
    """``outputs`` written again, by another callback than theirs (``allow_duplicate``)."""
    return {
        name: Output(output.component_id, output.component_property, allow_duplicate=True)
        for name, output in outputs.items()
    }


ORDER_B = Output(MC_HEAVY_B, "data", allow_duplicate=True)  # B's job's order, written by the routes' job too
JOB_VIEWS = {**_again(VIEWS), "order_b": ORDER_B}
"""What the routes' job writes (:func:`compute_views`): the views, and the order of B's job."""
B_VIEWS = _again(VIEWS)  # what B's job writes (compute_second)
CANCELLED = _again({name: VIEWS[name] for name in ("status", *DRAWINGS)})  # Cancel of the routes' job
CANCELLED_B = _again({name: VIEWS[name] for name in ("status", *B_DRAWINGS)})
"""What Cancel of B's job writes (:func:`cancelled_second`): A's views stay."""
CONTROLS = {
    "fabric": Output(MC_FABRIC, "children"),
    "a": Output(MC_ALGO_A, "value"),
    "b": Output(MC_ALGO_B, "value"),
    "part_options": Output(MC_PART, "options"),
    "part": Output(MC_PART, "value"),
    "group_options": Output(MC_GROUP, "options"),
    "group": Output(MC_GROUP, "value"),
    "a_options": Output(MC_ALGO_A, "options"),
    "tables": Output(MC_TABLES_INFO, "children"),
    "no_forget": Output(MC_TABLES_FORGET, "disabled"),
}
"""What follows the store (:func:`controls`): the fabric's and the tables' lines and the controls."""
SHOWING = {
    "a_now": State(MC_ALGO_A, "value"),
    "b_now": State(MC_ALGO_B, "value"),
    "part_now": State(MC_PART, "value"),
    "group_now": State(MC_GROUP, "value"),
}
"""What the controls show (:func:`controls` reads them with the store)."""
WRITTEN = {"scenario": store_output(), "message": Output(MC_MESSAGE, "children")}
"""What a control's change writes (:func:`update`): the shared scenario, or a message."""
CHANGES = {
    "values": {key: Input(i, "value") for key, i in PARAM_CONTROLS.items()},
    "clicks": {figure: Input(figure, "clickData") for figure in FIGURES},
    "use_preset": Input(MC_USE_PRESET, "n_clicks"),
    "preset": State(MC_PRESET, "value"),
    "scenario": State(SCENARIO, "data"),
}
"""What :func:`update` reads: the controls' values and the drawings' clicks by key, the preset and the store."""
LOADED = {
    "scenario": store_output(),
    "message": Output(MC_TABLES_MESSAGE, "children"),
    "contents": Output(MC_TABLES_UPLOAD, "contents"),
}
"""What loading or forgetting the tables writes (:func:`load_tables`): the store, a message, the emptied box."""
UPLOADED = {
    "contents": Input(MC_TABLES_UPLOAD, "contents"),
    "forget": Input(MC_TABLES_FORGET, "n_clicks"),
    "filename": State(MC_TABLES_UPLOAD, "filename"),
    "scenario": State(SCENARIO, "data"),
}
"""What :func:`load_tables` reads."""
SIDES_SHOWN = result_outputs(MC_SIDES, canvas=False)  # what the side-by-side job writes (compare_routings)
CLICK_A_LINK = (
    "Click the middle of a link (its hover names it) to break or repair it; the overview has no links to click: "
    "choose a part above."
)  # what a click beside the links says
POLL_MS = 500  # how often the page asks a running job for its progress
SAVED_AS = "vizcoll-multicast"  # the file name of a figure saved from its mode bar


def layout(**kwargs) -> html.Div:
    """Dash's entry: the page for the link's or the store's scenario (query parameters are ignored)."""
    return body(page_scenario(kwargs))


register_page(__name__, layout, path="/multicast", name="Multicast", order=ORDER)


# ---------------------------------------------------------------- layout
def body(scenario: Scenario) -> html.Div:
    """The page on ``scenario``: the controls show its page parameters (bad stored values: the defaults)."""
    topo, groups, p, _ = page_state(scenario)
    has_tables = scenario.mcast_tables is not None
    sidebar = html.Div(
        className="sidebar",
        children=[
            section(
                "Multicast routing",
                info(fabric_line(scenario, topo, groups), id=MC_FABRIC),
                field("algorithm A", dropdown(MC_ALGO_A, algo_options(has_tables), p["a"], style={"minWidth": 180})),
                field("algorithm B", dropdown(MC_ALGO_B, algo_options(False, b=True), p["b"], style={"minWidth": 180})),
                message_box(MC_MESSAGE),
                info(
                    "One multicast group per communicator of the scenario (define them on the Topology page), or "
                    "per MLID of the fabric's tables when they are loaded. EFI (edge forwarding index) of a link = "
                    "number of groups whose tree uses it; lower is better. -new = with FULB's root rotation; "
                    "fulb+global prefers fewer dragonfly global links. Every change routes again."
                ),
            ),
            _tables_section(scenario),
            link_list("mc"),
            section(
                "Quick preset",
                titled(
                    dcc.Dropdown(
                        id=MC_PRESET,
                        clearable=False,
                        value=next(iter(PRESETS)),
                        optionHeight=60,
                        options=[{"label": v["label"], "value": k} for k, v in PRESETS.items()],
                    ),
                    "a preset: Use this preset opens it",
                ),
                html.Div(className="buttons", children=[html.Button("Use this preset", id=MC_USE_PRESET, n_clicks=0)]),
                html.Ul(
                    className="info",
                    children=[html.Li([html.B(preset["label"]), ": ", preset["about"]]) for preset in PRESETS.values()],
                ),
                info(
                    "A preset replaces the shared scenario — fabric, communicators, no broken links — for every "
                    "page (the badge above shows it); Download scenario first to keep the current one."
                ),
            ),
            section("Export for papers", figure_pack(MC_PACK)),
        ],
    )
    loaded = tables_of(scenario)
    return html.Div(
        className="page multicast-page",
        children=[
            html.Div(
                className="columns",
                children=[sidebar, _main(scenario, topo, groups, p, loaded.mlids if loaded is not None else None)],
            )
        ],
    )


def _tables_section(scenario: Scenario) -> html.Details:
    return section(
        "The fabric's multicast tables",
        dcc.Upload(
            id=MC_TABLES_UPLOAD,
            className="upload",
            max_size=MAX_UPLOAD_BYTES,
            children=html.Div(
                [
                    html.A("Load the fabric's multicast tables (opensm.mcfdbs)"),
                    " or drop the file here",
                    html.Br(),
                    html.Small(TABLES_HINT),
                ]
            ),
        ),
        info(tables_line(tables_of(scenario)), id=MC_TABLES_INFO),
        html.Div(
            className="buttons",
            children=[
                html.Button(
                    "Forget the tables", id=MC_TABLES_FORGET, n_clicks=0, disabled=scenario.mcast_tables is None
                )
            ],
        ),
        message_box(MC_TABLES_MESSAGE),
        info(TABLES_ABOUT),
    )


def _main(scenario: Scenario, topo, groups, p: dict, mlids: list[int] | None) -> html.Div:
    return html.Div(
        className="main",
        children=[
            dcc.Store(id=MC_HEAVY),
            job_bar(MC_JOB),
            dcc.Store(id=MC_HEAVY_B),
            job_bar(MC_JOB_B),
            html.Div(id=MC_SUMMARY, className="panel"),
            html.Div(id=MC_RAILS),  # empty on a fabric without rails
            status_box(MC_STATUS),
            html.Div(
                className="row",
                children=[
                    field(
                        "show",
                        dcc.Dropdown(
                            id=MC_PART,
                            clearable=False,
                            className="grow",
                            style={"width": 260},
                            options=part_options(scenario, topo),
                            value=p["part"] or natural_part(topo),
                        ),
                    ),
                    field(
                        "highlight group",
                        dcc.Dropdown(
                            id=MC_GROUP,
                            className="grow",
                            style={"width": 360},
                            options=group_options(topo, groups, mlids),
                            value=p["group"],
                            placeholder="choose a group",
                        ),
                    ),
                ],
            ),
            html.Div(id=MC_GROUP_INFO, className="info"),
            info(
                "Click a link on a drawing to break it in the scenario (every page follows and the groups are routed "
                "around it); click a broken link (dashed, black) to repair it."
            ),
            html.Div(className="pair", children=[graph(MC_FIG_A, SAVED_AS), graph(MC_FIG_B, SAVED_AS, later=True)]),
            dcc.Store(id=MC_LOWER_SEEN, data=False),  # the pair below: drawn once on the screen (assets/lazy.js)
            html.Div(
                className="pair",
                children=[graph(MC_FIG_DIFF, SAVED_AS, later=True), graph(MC_HIST, SAVED_AS, later=True)],
                **{"data-seen": MC_LOWER_SEEN},
            ),
            html.Div(id=MC_WORST, className="info"),
            html.Div(
                className="panel player-panel",
                children=[
                    html.H3("Join / leave protocol of the highlighted group under B (paper section 3.2)"),
                    graph(MC_STATE_FIG, SAVED_AS),
                    player(MC_PLAYER),
                    animation_export(MC_PLAYER),
                ],
            ),
            dcc.Store(id=MC_SIDES_ORDER),
            side_by_side(
                MC_SIDES,
                "Side by side: A and B route the groups one by one, one clock",
                dropdown(MC_COMPARE, [{"label": t, "value": k} for k, t in COMPARE.items()], p["compare"]),
                None,
            ),
        ],
    )


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_link_list(app, "mc")
    register_player(app, MC_PLAYER)
    register_animation_export(app, MC_PLAYER, PAGE)
    register_figure_pack(app, MC_PACK, PAGE)
    by_name(app, WRITTEN, CHANGES, prevent_initial_call=True)(update)
    by_name(app, LOADED, UPLOADED, prevent_initial_call=True)(load_tables)
    by_name(app, CONTROLS, STORE | SHOWING, scenario="scenario", message="fabric")(controls)
    app.callback(Output(MC_HEAVY, "data"), Input(SCENARIO, "data"), State(MC_HEAVY, "data"))(dispatch)
    by_name(app, TOP, STORE, scenario="scenario", message="status")(render)
    by_name(app, LOWER, STORE | {"seen": Input(MC_LOWER_SEEN, "data")})(render_lower)
    app.callback(TIMELINE, Input(SCENARIO, "data"))(group_protocol)
    app.callback(Output(MC_RAILS, "children"), Input(SCENARIO, "data"))(groups_panel)  # computed in the request
    _register_jobs(app)
    app.callback(
        Output(MC_STATE_FIG, "figure"),
        Input(pid(MC_PLAYER, "step"), "value"),
        Input(pid(MC_PLAYER, "ref"), "data"),  # the handle's ref alone: a step posts a few hundred bytes
    )(render_protocol)
    _register_side_by_side(app)


def _register_side_by_side(app: Dash) -> None:
    """The side-by-side panel: A's and B's routes built up group by group (a background job) and their player."""
    app.callback(Output(MC_SIDES_ORDER, "data"), Input(MC_COMPARE, "value"), Input(SCENARIO, "data"))(order_sides)
    by_name(
        app,
        SIDES_SHOWN,
        {"order": Input(MC_SIDES_ORDER, "data"), "scenario": State(SCENARIO, "data")},
        prevent_initial_call=True,
        interval=POLL_MS,
        **jobs.background(f"{MC_SIDES}-run"),
    )(compare_routings)
    register_side_by_side(app, MC_SIDES, PAGE, "side-by-side", side_figure, [State(SCENARIO, "data")], blank_side)


def _register_jobs(app: Dash) -> None:
    """The routes' job (A, and A's views), the job of B it orders as it ends (B, and every view), their Cancel."""
    job = {"scenario": "scenario", "message": "status", "prevent_initial_call": True, "interval": POLL_MS}
    ordered = {"order": Input(MC_HEAVY, "data"), "scenario": State(SCENARIO, "data")}
    by_name(app, JOB_VIEWS, ordered, **job, **jobs.background(MC_JOB, (MC_USE_PRESET,)))(compute_views)
    app.callback(ORDER_B, Input(MC_HEAVY, "data"), State(MC_HEAVY_B, "data"), prevent_initial_call=True)(stop_second)
    ordered_b = ordered | {"order": Input(MC_HEAVY_B, "data")}
    by_name(app, B_VIEWS, ordered_b, **job, **jobs.background(MC_JOB_B, (MC_USE_PRESET,)))(compute_second)
    cancel = {"clicks": Input(f"{MC_JOB}-cancel", "n_clicks")}
    by_name(app, CANCELLED, cancel, prevent_initial_call=True)(cancelled)
    cancel_b = {"clicks": Input(f"{MC_JOB_B}-cancel", "n_clicks")}
    by_name(app, CANCELLED_B, cancel_b, prevent_initial_call=True)(cancelled_second)


def update(values, clicks, use_preset, preset, scenario) -> dict:
    """A control changed (``values``: control key -> its value; ``clicks``: drawing -> its last click): the shared
    scenario with the page's checked parameters, a link broken or repaired (a click on a drawing), or a preset; a
    bad value leaves the store as it is, with a message. The store (``scenario``, as the browser sent it) is read
    only for a user's action: the page appearing says nothing."""
    if not user_action():  # the page appearing, or the controls following the store
        return {}
    read, message = checked(scenario)
    if read is None:
        return {"message": message}
    trigger = ctx.triggered_id
    values, clicks = (given if isinstance(given, dict) else {} for given in (values, clicks))
    try:
        if trigger == MC_USE_PRESET:
            return {"scenario": preset_scenario(preset, read).to_dict(thin=True), "message": ""}
        if trigger in FIGURES:  # a click, whatever the browser sent with it
            label = clicked_label(clicks.get(trigger))
            if label is None:
                return {"message": CLICK_A_LINK}
            return {"scenario": read.toggled(label).to_dict(thin=True), "message": ""}
        topo = topology_of(read)
        try:
            groups = groups_of(read)
        except VizcollError:  # the view says why; the algorithms can still be chosen
            groups = None
        params = read_params(
            {key: values.get(key) for key in PARAM_CONTROLS},
            read,
            topo,
            len(groups or []),
            tables=read.mcast_tables is not None,
        )
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    if params["part"] == natural_part(topo):
        params["part"] = None  # the natural part follows the fabric (whole when small, else the overview)
    return {"scenario": remembered(scenario, PAGE, params), "message": ""}


def load_tables(contents, forget, filename, scenario) -> dict:
    """The fabric's tables loaded from the upload box (checked on the scenario's fabric), or forgotten (``forget``:
    its clicks); a file that cannot be used leaves the store as it is, with a message. The box is emptied so the
    same file can be loaded again. The store (``scenario``) is read only for a user's action, as in :func:`update`."""
    if not user_action() or (ctx.triggered_id == MC_TABLES_UPLOAD and contents is None):
        return {}  # the page appearing, or the box emptied by this callback
    read, message = checked(scenario)
    if read is None:
        return {"message": message, "contents": None}
    name = filename if isinstance(filename, str) and filename.strip() else "the file"
    try:
        if ctx.triggered_id == MC_TABLES_FORGET:
            return {"scenario": without_tables(read).to_dict(thin=True), "message": ""}
        return {"scenario": with_tables(read, contents).to_dict(thin=True), "message": "", "contents": None}
    except VizcollError as exc:
        what = "The tables" if ctx.triggered_id == MC_TABLES_FORGET else f"{name[:80]} was not loaded"
        return {"message": f"⚠ {what}: {exc}", "contents": None}


def controls(scenario: Scenario, a_now=None, b_now=None, part_now=None, group_now=None) -> dict:
    """The fabric's line, the tables' line and the controls following the store (values written only when they
    changed from what the controls show, ``*_now``; A's choices hold the fabric's tables when the scenario carries
    them)."""
    topo, groups, p, _ = page_state(scenario)
    loaded = tables_of(scenario)
    mlids = loaded.mlids if loaded is not None else None
    return {
        "fabric": fabric_line(scenario, topo, groups),
        "a": changed(p["a"], a_now),
        "b": changed(p["b"], b_now),
        "part_options": part_options(scenario, topo, p["part"]),
        "part": changed(p["part"] or natural_part(topo), part_now),
        "group_options": group_options(topo, groups, mlids),
        "group": changed(p["group"], group_now),
        "a_options": algo_options(scenario.mcast_tables is not None),
        "tables": tables_line(loaded),
        "no_forget": scenario.mcast_tables is None,
    }


def dispatch(data, job_now=None):
    """The background job's order (a new run for each scenario whose routes are a job, see
    :func:`~vizcoll.ui.pages.multicast._model.needs_job`); None once the views are drawn in the request again."""
    scenario, _ = checked(data)
    return jobs.order(scenario is not None and _waits(scenario), job_now)


def _waits(scenario: Scenario) -> bool:
    _, groups, p, _ = page_state(scenario)
    return bool(groups) and needs_job(scenario, p)


def render(scenario: Scenario) -> dict:
    """The views above the fold (:data:`TOP`), drawn with the page's first answers."""
    drawn = views(scenario)
    return {name: drawn[name] for name in TOP}


def render_lower(scenario, seen) -> dict:
    """The difference and the histogram (:data:`LOWER`), once they come on the screen (``seen``): below the fold, a
    large fabric's two figures would take the browser a third of a second before the player's first frame. A store
    that cannot be read changes nothing here (:func:`render` says why)."""
    if seen is not True:
        return {}
    read, _ = checked(scenario)
    if read is None:
        return {}  # render says why
    drawn = views(read)
    return {name: drawn[name] for name in LOWER}


def views(scenario: Scenario) -> dict:
    """Summary, status, the four figures, the group's line and the worst links of the scenario's routes
    (:data:`VIEWS` but the timeline; those of a large fabric come from the background job)."""
    if _waits(scenario):
        waiting = blank_figure("Routing in the background: see the progress bar at the top.")
        status = f"Routing the groups on {topology_of(scenario).n_nodes:,} nodes in the background…"
        return _said(status, waiting)
    return _views(scenario)


def _said(status: str, figure) -> dict:
    """The views when there is nothing to show but ``status``: each drawing is ``figure``, the other views empty."""
    return {"summary": "", "status": status, **dict.fromkeys(DRAWINGS, figure), "group_info": "", "worst": ""}


def _views(scenario: Scenario) -> dict:
    topo, groups, p, notes = page_state(scenario)
    if not groups:
        blank = blank_figure("No multicast group to route: see the message above.")
        return _said("\n".join(notes) or "The scenario's communicators are empty.", blank)
    results = {"a": routed(scenario, p["a"]), "b": routed(scenario, p["b"])}
    status = "\n".join(filter(None, [*notes, unroutable_line(topo, groups, results)]))
    fig_a, fig_b, diff, hist = drawings(
        scenario.source_key(), scenario.pattern, scenario.ppn, scenario.lists, scenario.mcast_tables, p
    )
    worst = [html.Div(worst_links(topo, results[name], name.upper())) for name in ("a", "b")]
    summary = summary_table(p, results)
    if p["a"] == TABLES:  # the fabric's tables against B: one sentence says whether B loads any link differently
        summary = [summary, verdict(results["a"], results["b"])]
    return {
        "summary": summary,
        "status": status,
        "heatmap_a": fig_a,
        "heatmap_b": fig_b,
        "difference": diff,
        "histogram": hist,
        "group_info": group_info(topo, groups, p, results),
        "worst": worst,
    }


@cached_figures
def drawings(source: dict, pattern: str, ppn: int, lists, tables: str | None, p: dict):
    """The heatmaps of A and B, their difference and the histogram for the page's parameters ``p`` (cached: the
    drawing of a paper-scale fabric costs more than reading its routes, and a drill into a pod or a group comes
    back to drawings it made before)."""
    scenario = Scenario(**source, pattern=pattern, ppn=ppn, lists=lists, mcast_tables=tables)
    view = view_of(scenario, p["part"] or natural_part(topology_of(scenario)))
    return route_figures(view, routed(scenario, p["a"]), routed(scenario, p["b"]), p["group"])


def groups_panel(data):
    """What rails change for the page's groups (computed in the request)."""
    return rails.groups_panel(data, groups_of)


def group_protocol(data):
    """The join/leave timeline of the highlighted group under B (the subnet manager sits on its tree's root)."""
    scenario, _ = checked(data)
    if scenario is None or _waits(scenario):
        return None
    return player_data(protocol_of(scenario))


def compute_views(set_progress, order, scenario: Scenario) -> dict:
    """(A background job.) Route the groups by A with its progress, then A's views (:func:`first_views`) and the
    order of B's job (:func:`compute_second`); when B's routes are at hand already (only A changed), every view at
    once and no order. A forged or stale order changes nothing."""
    if not isinstance(order, dict):
        return {}
    _, groups, p, _ = page_state(scenario)
    _route_job(set_progress, scenario, p["a"], groups, "drawing A's figure")
    if not groups or is_routed(scenario, p["b"]):
        return {**_views(scenario), "timeline": player_data(protocol_of(scenario))}
    return {**first_views(scenario), "timeline": None, "order_b": jobs.order(True, order)}


def compute_second(set_progress, order, scenario: Scenario) -> dict:
    """(The background job :func:`compute_views` orders as it ends.) Route the groups by B with its progress, then
    every view, the comparison of A and B included; a forged or stale order changes nothing."""
    if not isinstance(order, dict):
        return {}
    _, groups, p, _ = page_state(scenario)
    _route_job(set_progress, scenario, p["b"], groups, "drawing the figures")
    return {**_views(scenario), "timeline": player_data(protocol_of(scenario))}


def _route_job(set_progress, scenario: Scenario, algo: str, groups, drawing: str) -> None:
    """A job's two stages: the groups routed by ``algo`` (an error is left to the views to say), then ``drawing``."""
    progress = jobs.JobProgress(set_progress, [f"routing {plural(len(groups or []), 'group')} by {algo}", drawing])
    with suppress(VizcollError):  # the views say what went wrong
        route_by(scenario, algo, progress, 0)
    progress.stage(1)


def stop_second(_job, order_now=None):
    """A new order of the routes' job (or none: the views drawn in the request): B's job of the scenario before
    stops (its order emptied); the routes' job orders the next one as it ends."""
    return None if order_now is not None else no_update


def examples() -> list[tuple[str, Scenario]]:
    """The quick presets: (its label, the scenario it makes of the default one) each (the help page links them)."""
    return [(preset["label"], preset_scenario(key, DEFAULT_SCENARIO)) for key, preset in PRESETS.items()]


def first_views(scenario: Scenario) -> dict:
    """The views of A alone (:data:`VIEWS` but the timeline), the first the job draws while B is being routed:
    the summary, the group's line and the worst links of A, A's figure on its own colour scale, and the three
    drawings that compare it with B saying that B follows."""
    topo, groups, p, notes = page_state(scenario)
    results = {"a": routed(scenario, p["a"])}
    following = f"Routing the groups by B ({p['b']}) in the background: see the progress bar at the top."
    status = "\n".join(filter(None, [*notes, unroutable_line(topo, groups, results), following]))
    fig_a = first_drawing(
        scenario.source_key(), scenario.pattern, scenario.ppn, scenario.lists, scenario.mcast_tables, p
    )
    later = blank_figure(f"B ({p['b']}) follows: it is being routed in the background.")
    worst = [html.Div(worst_links(topo, results["a"], "A"))]
    return {
        "summary": summary_table(p, results),
        "status": status,
        "heatmap_a": fig_a,
        **dict.fromkeys(B_DRAWINGS, later),
        "group_info": group_info(topo, groups, p, results),
        "worst": worst,
    }


@cached_figures
def first_drawing(source: dict, pattern: str, ppn: int, lists, tables: str | None, p: dict):
    """A's heatmap alone for the page's parameters ``p`` (cached: a reload while B is routed draws it again)."""
    scenario = Scenario(**source, pattern=pattern, ppn=ppn, lists=lists, mcast_tables=tables)
    view = view_of(scenario, p["part"] or natural_part(topology_of(scenario)))
    return first_figure(view, routed(scenario, p["a"]), p["group"])


def cancelled(clicks) -> dict:
    """Cancel pressed (``clicks``): the status and the four figures say the routes were not computed (the job wrote
    nothing; the figures said "routing in the background")."""
    blank = blank_figure("Cancelled: not routed.")
    status = "⚠ Cancelled: the groups were not routed. Change a control, or reload the page, to route them."
    return {"status": status, **dict.fromkeys(DRAWINGS, blank)}


def cancelled_second(clicks) -> dict:
    """Cancel pressed under B's job (``clicks``): the status and B's three drawings say B did not route the groups
    (A's views stay)."""
    blank = blank_figure("Cancelled: not routed by B.")
    status = "⚠ Cancelled: the groups were not routed by B. Change a control, or reload the page, to route them."
    return {"status": status, **dict.fromkeys(B_DRAWINGS, blank)}


def order_sides(compare, data):
    """The side-by-side job's order as the choice or the scenario (its fabric, groups, A or B) change."""
    scenario, _ = checked(data)
    return ORDER_SIDES(compare, None if scenario is None else key_of(scenario.to_dict(thin=True)))


def compare_routings(set_progress, order, scenario) -> dict:
    """(A background job.) A's and B's routes of the scenario's groups built up one by one, side by side on one
    clock (:func:`~vizcoll.ui.pages.multicast._sides.compared_routings`), or why not; nothing without an order. A
    store (``scenario``, as the browser sent it) that cannot be read empties the panel too, and says why."""
    read, message = checked(scenario)
    if read is None:
        return shown(None, message=message, canvas=False)
    if not isinstance(order, dict) or order.get("compare") not in COMPARE or not order["compare"]:
        return shown(None, canvas=False)
    set_progress((0, 1, "Routing the groups by A and B"))
    try:
        ls, timelines, top = compared_routings(read)
    except VizcollError as exc:
        return shown(None, message=f"⚠ {exc}", canvas=False)
    return shown(ls, [player_data(tl, top=top) for tl in timelines], canvas=False)


def side_figure(run, position, data):
    """A side's figure at its own ``position`` of its ``run`` (a handle carrying the shared colour scale's top)."""
    scenario, _ = checked(data)
    if scenario is None:
        raise VizcollError("no scenario")
    tl, step = timeline_at(run, position)
    return buildup_figure(topology_of(scenario), tl, step, whole_or(run.get("top"), 1, 1, 10**7))


def blank_side():
    """A side before any run."""
    return blank_figure("Choose A and B side by side above.", height=200)


def render_protocol(position, timeline):
    if not timeline:
        return blank_figure("Choose a group to replay its join/leave protocol.", height=200)
    return process_diagram(*timeline_at(timeline, position))
