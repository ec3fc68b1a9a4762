"""The fault replays page: two fault-tolerance mechanisms replayed step by step with the player.

- The task-based Master/Worker reduction: the master's queue Q, the tasks it forms, data moving worker to worker
  and the dynamic tree growing; a fault at one of the paper's three locations (or a click on a worker, which
  kills it at the shown step) and the recovery; the binomial tree under the same slow nodes for comparison.
- TREFT: three replica lanes with their threads and queues, the ten numbered operations, an injected soft error
  spreading, the 2-of-3 vote and the correction; the overhead of TREFT / E1 / E2 on HC, VP, MB.

The reduction's process count comes from the scenario's first communicator unless set here; every control
change is written to ``scenario.params["faults"]`` (share link, reload). The model (parameters, cached
replays) is :mod:`._model`, the summaries :mod:`._views`. "Download GOAL" (with
the algorithm chosen next to it, not stored) writes the binomial / MST / Rabenseifner static reduction with the
page's processes, data size and root as LogGOPSim's schedule (:func:`vizcoll.ui.pages.faults._model.goal_file`).

The overhead chart (18 TREFT runs: seconds on the 2-core development machine, cold cache; docs/design.md) is a
background job (``ft-overhead``, :mod:`vizcoll.ui.jobs`) with a progress bar run by run and a Cancel button; the
replays (a small fraction of a second) answer at once. The views read the checked parameters from the scenario
on the server; the
parameter stores ``ft-red-params`` and ``ft-treft-params`` hold only their key (the views' trigger), and
``ft-red-kill`` the clicked worker, checked with the rest.
"""

from __future__ import annotations

from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import MAX_EVENTS as MAX_STEPS
from vizcoll.treft import OPERATIONS, WORKFLOWS
from vizcoll.ui import jobs
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.exports import animation_export, figure_pack, register_animation_export, register_figure_pack
from vizcoll.ui.components.kit import (
    download_button,
    dropdown,
    field,
    graph,
    info,
    job_bar,
    message_box,
    panel,
    section,
    titled,
)
from vizcoll.ui.components.player import pid, player, player_data, register_player, timeline_step
from vizcoll.ui.figures.common import blank_figure
from vizcoll.ui.forms import text, whole_or
from vizcoll.ui.pages.faults import ORDER
from vizcoll.ui.pages.faults._figures import VARIANT_NAMES, reduction_diagram, treft_lanes
from vizcoll.ui.pages.faults._model import (
    CLICK,
    FAULTS,
    GOAL_DEFAULT,
    MAX_PROCS,
    PAGE,
    SIZES,
    goal_algo_options,
    goal_file,
    kernel_options,
    overheads,
    read_reduction,
    read_treft,
    reduction_runs,
    scenario_reduction,
    scenario_treft,
    shown_values,
    treft_run,
    var_options,
)
from vizcoll.ui.pages.faults._views import overhead_figure, reduction_summary, task_list, treft_summary
from vizcoll.ui.routing import page_scenario, register_page
from vizcoll.ui.store import SCENARIO, checked, key_of, remembered, store_output, user_action

__all__ = [
    "PAGE",
    "layout",
    "body",
    "register",
    "run_reduction",
    "render_reduction",
    "click_kill",
    "kernel_choices",
    "var_choices",
    "run_treft",
    "render_lanes",
    "render_overhead",
    "export_goal",
]

# the page's components
FT_RED_PROCS, FT_RED_SIZE, FT_RED_ROOT = "ft-red-procs", "ft-red-size", "ft-red-root"
FT_RED_SLOW, FT_RED_FAULT, FT_RED_SEED = "ft-red-slow", "ft-red-fault", "ft-red-seed"
FT_RED_KILL, FT_RED_MESSAGE, FT_RED_PARAMS = "ft-red-kill", "ft-red-message", "ft-red-params"
FT_RED_DIAGRAM, FT_RED_SUMMARY, FT_RED_TASKS = "ft-red-diagram", "ft-red-summary", "ft-red-tasks"
FT_RED_PLAYER = "ft-red-player"
FT_GOAL, FT_GOAL_ALGO, FT_GOAL_FILE, FT_GOAL_MESSAGE = "ft-goal", "ft-goal-algo", "ft-goal-file", "ft-goal-message"
FT_TREFT_WORKFLOW, FT_TREFT_CLASS, FT_TREFT_VARIANT = "ft-treft-workflow", "ft-treft-class", "ft-treft-variant"
FT_TREFT_REPLICA, FT_TREFT_KERNEL, FT_TREFT_VAR = "ft-treft-replica", "ft-treft-kernel", "ft-treft-var"
FT_TREFT_SECOND, FT_TREFT_MESSAGE, FT_TREFT_PARAMS = "ft-treft-second", "ft-treft-message", "ft-treft-params"
FT_TREFT_LANES, FT_TREFT_SUMMARY, FT_TREFT_OVERHEAD = "ft-treft-lanes", "ft-treft-summary", "ft-treft-overhead"
FT_TREFT_PLAYER = "ft-treft-player"
FT_OVERHEAD_JOB = "ft-overhead"  # the overhead chart's background job (its job bar's prefix)
FT_PACK = "ft-pack"
REDUCTION_CONTROLS = {
    "procs": FT_RED_PROCS,
    "size": FT_RED_SIZE,
    "root": FT_RED_ROOT,
    "slow": FT_RED_SLOW,
    "fault": FT_RED_FAULT,
    "seed": FT_RED_SEED,
}  # parameter -> its control
TREFT_CONTROLS = {
    "workflow": FT_TREFT_WORKFLOW,
    "cls": FT_TREFT_CLASS,
    "variant": FT_TREFT_VARIANT,
    "replica": FT_TREFT_REPLICA,
    "kernel": FT_TREFT_KERNEL,
    "var": FT_TREFT_VAR,
    "second": FT_TREFT_SECOND,
}
SAVED_AS = "vizcoll-faults"  # the file name of a figure saved from its mode bar


def layout(**kwargs) -> html.Div:
    """Dash's entry: the page for the link's or the store's scenario (query parameters are ignored)."""
    return body(page_scenario(kwargs))


register_page(__name__, layout, path="/faults", name="Fault replays", order=ORDER)


# ---------------------------------------------------------------- layout
def body(scenario: Scenario) -> html.Div:
    """The page with the scenario's parameters."""
    v = shown_values(scenario)
    return html.Div(
        className="page faults-page",
        children=[
            html.H2("Fault-tolerant reduction", className="section-title"),
            html.Div(className="columns", children=[_reduction_sidebar(v), _reduction_main()]),
            html.H2("TREFT: triple modular redundancy against soft errors", className="section-title"),
            html.Div(className="columns", children=[_treft_sidebar(v), _treft_main()]),
        ],
    )


def _reduction_sidebar(v: dict) -> html.Div:
    sizes = [{"label": label, "value": str(size)} for size, label in SIZES.items()]
    if v["size"] not in {o["value"] for o in sizes}:
        sizes.append({"label": f"{v['size']} B", "value": v["size"]})
    return html.Div(
        className="sidebar",
        children=[
            section(
                "Reduction and fault",
                field(
                    "processes",
                    dcc.Input(id=FT_RED_PROCS, type="number", min=2, max=MAX_PROCS, value=v["procs"], debounce=True),
                ),
                field("data size", dropdown(FT_RED_SIZE, sizes, v["size"])),
                field("root", dcc.Input(id=FT_RED_ROOT, type="number", min=0, value=v["root"], debounce=True)),
                field(
                    "slow ranks",
                    dcc.Input(
                        id=FT_RED_SLOW, value=v["slow"], debounce=True, placeholder="rank:factor, e.g. 2,5 or 2:8"
                    ),
                ),
                field(
                    "fault", dropdown(FT_RED_FAULT, [{"label": t, "value": k} for k, t in FAULTS.items()], v["fault"])
                ),
                field("seed", dcc.Input(id=FT_RED_SEED, type="number", min=0, value=v["seed"], debounce=True)),
                info(v["procs_note"]),
                message_box(FT_RED_MESSAGE),
                html.Div(
                    className="row",
                    children=[
                        titled(
                            dropdown(FT_GOAL_ALGO, goal_algo_options(), GOAL_DEFAULT),
                            "the static reduction Download GOAL writes",
                        ),
                        download_button("Download GOAL", FT_GOAL),
                        dcc.Download(id=FT_GOAL_FILE),
                    ],
                ),
                message_box(FT_GOAL_MESSAGE),
                info(
                    "Download GOAL: the static reduction chosen there with these processes, data size and root, as the "
                    "schedule LogGOPSim simulates (open it on the Schedules page)."
                ),
                info(
                    "Each worker tells the master when its data is ready; the master pairs ready workers into tasks "
                    "and one of the two reads the other's data and reduces it. Slow ranks are slowed 4× (rank:factor "
                    "to choose). Click a worker in the diagram to kill it at the shown step. A killed worker's data "
                    "is read back from its copy on the next worker's disk if that copy had arrived; if not, and the "
                    "data is still needed, the run is unrecoverable (the summary says why)."
                ),
            ),
            section("Export for papers", figure_pack(FT_PACK)),
        ],
    )


def _reduction_main() -> html.Div:
    return html.Div(
        className="main",
        children=[
            dcc.Store(id=FT_RED_PARAMS),
            dcc.Store(id=FT_RED_KILL),
            panel(
                html.H3("Task-based reduction with fault tolerance, step by step"),
                graph(FT_RED_DIAGRAM, SAVED_AS, figure=blank_figure("Choose the reduction's parameters.", height=200)),
                player(FT_RED_PLAYER),
                animation_export(FT_RED_PLAYER),
                className="player-panel",
            ),
            html.Div(
                className="pair",
                children=[
                    html.Div(id=FT_RED_SUMMARY, className="table-box"),
                    html.Div(id=FT_RED_TASKS, className="table-box"),
                ],
            ),
        ],
    )


def _treft_sidebar(v: dict) -> html.Div:
    workflows = [
        {"label": "HC (Helical Chain)", "value": "HC"},
        {"label": "VP (Visualization Pipe)", "value": "VP"},
        {"label": "MB (Mixed Bag)", "value": "MB"},
    ]
    replicas = [{"label": "no error", "value": "none"}] + [
        {"label": f"replica r{r}", "value": str(r)} for r in range(3)
    ]
    return html.Div(
        className="sidebar",
        children=[
            section(
                "Program and soft error",
                field("workflow", dropdown(FT_TREFT_WORKFLOW, workflows, v["workflow"])),
                field("class", dropdown(FT_TREFT_CLASS, ["A", "B"], v["cls"])),
                field(
                    "variant",
                    dropdown(
                        FT_TREFT_VARIANT, [{"label": VARIANT_NAMES[k], "value": k} for k in VARIANT_NAMES], v["variant"]
                    ),
                ),
                field("soft error on", dropdown(FT_TREFT_REPLICA, replicas, v["replica"])),
                field("after kernel", dropdown(FT_TREFT_KERNEL, kernel_options(v["workflow"], v["cls"]), v["kernel"])),
                field(
                    "in variable", dropdown(FT_TREFT_VAR, var_options(v["workflow"], v["cls"], v["kernel"]), v["var"])
                ),
                field(
                    "second fault",
                    dcc.Input(
                        id=FT_TREFT_SECOND, value=v["second"], debounce=True, placeholder="optional, e.g. r2:K4:u4"
                    ),
                ),
                message_box(FT_TREFT_MESSAGE),
                info(
                    "Three replicas run the program; at the end of each fault-tolerant section they exchange its live "
                    "data and vote 2-of-3: a wrong copy is overwritten by the majority. A second fault on another "
                    "replica with the same kernel and variable makes two equal wrong copies (the vote cannot fix that)."
                ),
            )
        ],
    )


def _treft_main() -> html.Div:
    return html.Div(
        className="main",
        children=[
            dcc.Store(id=FT_TREFT_PARAMS),
            panel(
                html.H3("TREFT: three replicas, operations ① to ⑩, vote and correction"),
                graph(FT_TREFT_LANES, SAVED_AS, figure=blank_figure("Choose a workflow.", height=200)),
                player(FT_TREFT_PLAYER),
                animation_export(FT_TREFT_PLAYER),
                className="player-panel",
            ),
            html.Div(id=FT_TREFT_SUMMARY, className="panel table-box"),
            panel(job_bar(FT_OVERHEAD_JOB), graph(FT_TREFT_OVERHEAD, SAVED_AS)),
        ],
    )


# ---------------------------------------------------------------- callbacks: what each writes and reads, by name
REDUCTION_RUN = {
    "key": Output(FT_RED_PARAMS, "data"),
    "message": Output(FT_RED_MESSAGE, "children"),
    "summary": Output(FT_RED_SUMMARY, "children"),
    "timeline": Output(pid(FT_RED_PLAYER, "timeline"), "data"),
    "scenario": store_output(),
}
REDUCTION_INPUTS = {
    **{key: Input(i, "value") for key, i in REDUCTION_CONTROLS.items()},
    "kill": Input(FT_RED_KILL, "data"),
    "scenario": State(SCENARIO, "data"),
}
REDUCTION_VIEWS = {"figure": Output(FT_RED_DIAGRAM, "figure"), "tasks": Output(FT_RED_TASKS, "children")}
REDUCTION_SHOWN = {
    "position": Input(pid(FT_RED_PLAYER, "step"), "value"),
    "key": Input(FT_RED_PARAMS, "data"),
    "kill": State(FT_RED_KILL, "data"),
    "scenario": State(SCENARIO, "data"),
}
KILLED = {"kill": Output(FT_RED_KILL, "data"), "fault": Output(FT_RED_FAULT, "value")}
CLICKED = {
    "click": Input(FT_RED_DIAGRAM, "clickData"),
    "position": State(pid(FT_RED_PLAYER, "step"), "value"),
    "key": State(FT_RED_PARAMS, "data"),
    "kill": State(FT_RED_KILL, "data"),
    "scenario": State(SCENARIO, "data"),
}
KERNELS = {"options": Output(FT_TREFT_KERNEL, "options"), "kernel": Output(FT_TREFT_KERNEL, "value")}
KERNEL_INPUTS = {
    "workflow": Input(FT_TREFT_WORKFLOW, "value"),
    "cls": Input(FT_TREFT_CLASS, "value"),
    "kernel": State(FT_TREFT_KERNEL, "value"),
}
VARS = {"options": Output(FT_TREFT_VAR, "options"), "var": Output(FT_TREFT_VAR, "value")}
VAR_INPUTS = {
    "kernel": Input(FT_TREFT_KERNEL, "value"),
    "workflow": State(FT_TREFT_WORKFLOW, "value"),
    "cls": State(FT_TREFT_CLASS, "value"),
    "var": State(FT_TREFT_VAR, "value"),
}
TREFT_RUN = {
    "key": Output(FT_TREFT_PARAMS, "data"),
    "message": Output(FT_TREFT_MESSAGE, "children"),
    "summary": Output(FT_TREFT_SUMMARY, "children"),
    "timeline": Output(pid(FT_TREFT_PLAYER, "timeline"), "data"),
    "scenario": store_output(),
}
TREFT_INPUTS = {**{key: Input(i, "value") for key, i in TREFT_CONTROLS.items()}, "scenario": State(SCENARIO, "data")}
GOAL = {"file": Output(FT_GOAL_FILE, "data"), "message": Output(FT_GOAL_MESSAGE, "children")}
GOAL_INPUTS = {
    "clicks": Input(FT_GOAL, "n_clicks"),
    "algo": State(FT_GOAL_ALGO, "value"),
    "procs": State(FT_RED_PROCS, "value"),
    "size": State(FT_RED_SIZE, "value"),
    "root": State(FT_RED_ROOT, "value"),
}


def register(app: Dash) -> None:
    register_player(app, FT_RED_PLAYER)
    register_player(app, FT_TREFT_PLAYER)
    register_animation_export(app, FT_RED_PLAYER, PAGE, "reduction", State(FT_RED_KILL, "data"))
    register_animation_export(app, FT_TREFT_PLAYER, PAGE, "treft")
    register_figure_pack(app, FT_PACK, PAGE, State(FT_RED_KILL, "data"))
    run = {"scenario": "scenario", "message": "message", "prevent_initial_call": "initial_duplicate"}
    by_name(app, REDUCTION_RUN, REDUCTION_INPUTS, **run)(run_reduction)
    by_name(app, REDUCTION_VIEWS, REDUCTION_SHOWN)(render_reduction)
    by_name(app, KILLED, CLICKED, prevent_initial_call=True)(click_kill)
    by_name(app, KERNELS, KERNEL_INPUTS)(kernel_choices)
    by_name(app, VARS, VAR_INPUTS)(var_choices)
    by_name(app, TREFT_RUN, TREFT_INPUTS, **run)(run_treft)
    app.callback(
        Output(FT_TREFT_LANES, "figure"),
        Input(pid(FT_TREFT_PLAYER, "step"), "value"),
        Input(FT_TREFT_PARAMS, "data"),
        State(SCENARIO, "data"),
    )(render_lanes)
    app.callback(
        Output(FT_TREFT_OVERHEAD, "figure"),
        Input(FT_TREFT_OVERHEAD, "id"),
        interval=500,
        **jobs.background(FT_OVERHEAD_JOB),
    )(render_overhead)
    by_name(app, GOAL, GOAL_INPUTS, prevent_initial_call=True)(export_goal)


def run_reduction(scenario: Scenario, kill, **values) -> dict:
    """Check the controls (``values``: control key -> its value; ``kill``: the clicked worker), run the task-based
    reduction and the binomial tree (cached) and summarise.

    The controls' checked values become the scenario's ``faults`` parameters (shared link, reload), where the
    views read them; the parameters' key goes to ``ft-red-params``, the views' trigger.
    """
    try:
        params = read_reduction(**values, kill=kill)
        timeline, figures, binomial = reduction_runs(params)
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    waiting = values["fault"] == CLICK and not params["kill"]
    return {
        "key": key_of(params),
        "message": "Click a worker in the diagram to kill it." if waiting else "",
        "summary": reduction_summary(figures, binomial, timeline),
        "timeline": player_data(timeline),
        "scenario": remembered(scenario, PAGE, _stored(params, values["slow"]), _acted()),
    }


def _stored(params: dict, slow: str | None) -> dict:
    """The checked reduction parameters as the scenario keeps them (``slow``: as typed, checked)."""
    return {key: params[key] for key in ("procs", "size", "root", "fault", "seed")} | {"slow": text(slow)}


def _acted() -> bool:
    """A user's action: one control changed, or a click on a worker (it sets the kill and the fault at once)."""
    return user_action() or set(ctx.triggered_prop_ids) == {f"{FT_RED_KILL}.data", f"{FT_RED_FAULT}.value"}


def _shown(read, key, data, *args) -> dict:
    """The parameters ``read(scenario, *args)`` the page shows, read on the server from the scenario store
    ``data`` (the page's run wrote them there; ``key``, its answer, is None before it); VizcollError when there
    are none or they do not check. What the browser sends in a parameter store is never read."""
    scenario = checked(data)[0] if key is not None else None
    if scenario is None:
        raise VizcollError("nothing to show yet")
    return read(scenario, *args)


def render_reduction(position, key, kill, scenario) -> dict:
    """The diagram and the tasks formed at the shown step; nothing changes while there is nothing to show (before
    the run answered, or a store that cannot be read)."""
    try:
        params = _shown(scenario_reduction, key, scenario, kill)
        timeline, figures, _ = reduction_runs(params)
    except VizcollError:
        return {}
    step = timeline_step(whole_or(position, 0, 0, MAX_STEPS), timeline.n_steps)
    return {
        "figure": reduction_diagram(timeline, step, figures, params["procs"]),
        "tasks": task_list(timeline, step, figures),
    }


def export_goal(clicks, algo, procs, size, root) -> dict:
    """Download GOAL: the chosen static reduction with the page's processes, size and root, or a message."""
    try:
        return {"file": goal_file(algo, procs, size, root), "message": ""}
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}


def clicked_rank(click) -> int | None:
    """The worker a click on the diagram hit (its ``customdata``: the rank, or a list of it alone)."""
    points = click.get("points") if isinstance(click, dict) else None
    point = points[0] if isinstance(points, list) and points and isinstance(points[0], dict) else {}
    rank = point.get("customdata")
    rank = rank[0] if isinstance(rank, list) and len(rank) == 1 else rank
    return rank if isinstance(rank, int) and not isinstance(rank, bool) else None


def click_kill(click, position, key, kill, scenario) -> dict:
    """A click on a worker kills it at the time of the shown step (of the replay shown: ``kill``, the worker
    clicked before, included)."""
    try:
        params = _shown(scenario_reduction, key, scenario, kill)
        timeline, _, _ = reduction_runs(params)
    except VizcollError:
        return {}
    rank = clicked_rank(click)
    if rank is None or not 0 <= rank < params["procs"]:
        return {}
    step = timeline_step(whole_or(position, 0, 0, MAX_STEPS), timeline.n_steps)
    return {"kill": [rank, timeline.time_at(step)], "fault": CLICK}


def _offered(workflow, cls) -> bool:
    return isinstance(workflow, str) and workflow in WORKFLOWS and cls in ("A", "B")


def kernel_choices(workflow, cls, kernel) -> dict:
    """The kernels of the chosen program; the chosen one stays if the program has it."""
    if not _offered(workflow, cls):
        return {}
    options = kernel_options(workflow, cls)
    values = [o["value"] for o in options]
    default = values[len(values) // 4] if values else None
    return {"options": options, "kernel": kernel if kernel in values else default}


def var_choices(kernel, workflow, cls, var) -> dict:
    """The variables the chosen kernel writes; the chosen one stays if it writes it. A kernel the program does not
    have (none chosen yet, or a forged one) changes nothing."""
    if not _offered(workflow, cls) or kernel not in [o["value"] for o in kernel_options(workflow, cls)]:
        return {}
    options = var_options(workflow, cls, kernel)
    values = [o["value"] for o in options]
    return {"options": options, "var": var if var in values else (values[0] if values else None)}


def run_treft(scenario: Scenario, **values) -> dict:
    """Check the controls (``values``: control key -> its value), replay TREFT (cached) and summarise; the
    controls' values become the scenario's ``faults`` parameters."""
    try:
        params = read_treft(**values)
        timeline, figures = treft_run(params)
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    inject = ":".join(map(str, params["inject"])) if params["inject"] else ""
    stored = {
        "workflow": values["workflow"],
        "cls": values["cls"],
        "variant": values["variant"],
        "inject": inject,
        "second": values["second"] or "",
    }
    return {
        "key": key_of(params),
        "message": "",
        "summary": treft_summary(figures),
        "timeline": player_data(timeline),
        "scenario": remembered(scenario, PAGE, stored),
    }


def render_lanes(position, key, data):
    """TREFT's lanes at the shown step; nothing changes while there is nothing to show."""
    try:
        timeline, _ = treft_run(_shown(scenario_treft, key, data))
    except VizcollError:
        return no_update
    return treft_lanes(timeline, timeline_step(whole_or(position, 0, 0, MAX_STEPS), timeline.n_steps), OPERATIONS)


def render_overhead(set_progress, _):
    """(A background job.) The overhead of TREFT, E1 and E2 on every program, run by run."""

    def progress(done: int, total: int) -> None:
        set_progress((done, total, f"TREFT overhead: {done} of {total} runs"))

    set_progress((0, 1, "TREFT overhead…"))
    with jobs.parallel_tasks():
        return overhead_figure(overheads(progress=progress))
