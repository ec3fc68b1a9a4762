"""The fault replays page: two fault-tolerance mechanisms replayed step by step with the player.

- The task-based Master/Worker reduction (distributed-reduction.md): the master's queue Q, the tasks it forms,
  data moving worker to worker and the dynamic tree growing; a fault at one of the paper's three locations (or a
  click on a worker, which kills it at the shown step) and the recovery; the binomial tree under the same slow
  nodes for comparison.
- TREFT (treft.md): three replica lanes with their threads and queues, the ten numbered operations, an injected
  soft error spreading, the 2-of-3 vote and the correction; the overhead of TREFT / E1 / E2 on HC, VP, MB.
"""

from __future__ import annotations

import plotly.graph_objects as go
from dash import Dash, Input, Output, State, dcc, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.reduction import FAULT_LOCATIONS, simulate_binomial, simulate_task_reduction
from vizcoll.reduction.env import parse_slow
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.treft import OPERATIONS, WORKFLOWS, simulate_treft
from vizcoll.ui import ids
from vizcoll.ui.cache import memo
from vizcoll.ui.calls import SCENARIO, page_params, remembered, store_output, topology_of
from vizcoll.ui.components.kit import field
from vizcoll.ui.components.player import pid, player, register_player, timeline_step
from vizcoll.ui.figures.faults import (
    PAPER_AVERAGE,
    VARIANT_NAMES,
    overhead_chart,
    reduction_diagram,
    task_text,
    tasks_so_far,
    treft_lanes,
)

__all__ = ["PAGE", "layout", "register", "DEFAULTS"]

PAGE = "faults"

DEFAULTS = {"procs": "8", "size": str(8 << 20), "root": "0", "slow": "2,5", "fault": "none", "seed": "0",
            "workflow": "HC", "cls": "A", "variant": "treft", "inject": "1:K4:u4", "second": ""}
SIZES = {1 << 16: "64 KiB", 1 << 20: "1 MiB", 8 << 20: "8 MiB", 32 << 20: "32 MiB"}
CLICK = "click"
FAULTS = {"none": "no fault", "sending-task": "(1) worker fails before it gets its task",
          "executing-task": "(2) worker fails while executing its task",
          "fetching-data": "(3) data supplier fails while being read",
          CLICK: "kill the worker I click, at the shown step"}
MAX_PROCS = 32
GRAPH_CONFIG = {"toImageButtonOptions": {"format": "svg", "filename": "vizcoll-faults"}}


# ---------------------------------------------------------------- engine calls (cached)
def _reduction_runs(params: dict) -> tuple[Timeline, dict, dict]:
    kill = params["kill"]
    if params["fault"] in FAULT_LOCATIONS:
        kill = params["fault"]
    elif kill is not None:
        kill = (int(kill[0]), float(kill[1]))
    slow = [tuple(s) for s in params["slow"]]
    common = dict(procs=params["procs"], size=params["size"], root=params["root"], slow=slow, seed=params["seed"])
    timeline, figures = simulate_task_reduction(**common, kill=kill, nodes=list(range(params["procs"])))
    fault = figures.get("fault")
    same_kill = (fault["rank"], fault["time"]) if fault else None
    _, binomial = simulate_binomial(**common, kill=same_kill, record=False)
    return timeline, figures, binomial


def reduction_runs(params: dict) -> tuple[Timeline, dict, dict]:
    """(task-based timeline, its figures, the binomial tree's figures under the same slow nodes and kill)."""
    return memo(_reduction_runs, params)


def _treft_run(params: dict) -> tuple[Timeline, dict]:
    return simulate_treft(f"{params['workflow']}.{params['cls']}", params["variant"], inject=params["inject"],
                          double_fault=params["second"])


def treft_run(params: dict) -> tuple[Timeline, dict]:
    return memo(_treft_run, params)


def _overheads() -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for variant in VARIANT_NAMES:
        out[variant] = {}
        for name in WORKFLOWS:
            for cls in ("A", "B"):
                _, fig = simulate_treft(f"{name}.{cls}", variant)
                out[variant][f"{name}.{cls}"] = round(float(fig["overhead_pct"]), 3)
    return out


def overheads() -> dict[str, dict[str, float]]:
    """Overhead % of every workflow × class under TREFT, E1, E2 (no fault), computed once and cached."""
    return memo(_overheads)


# ---------------------------------------------------------------- checked parameters
def _int(value, what: str, lo: int, hi: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise VizcollError(f"{what} must be an integer") from None
    if not lo <= number <= hi:
        raise VizcollError(f"{what} must be between {lo} and {hi}, got {number}")
    return number


def read_reduction(procs, size, root, slow, fault, seed, kill) -> dict:
    """Checked, canonical reduction parameters; raises VizcollError with a message for the page."""
    procs = _int(procs, "processes", 2, MAX_PROCS)
    size = _int(size, "data size", 1, 1 << 30)
    root = _int(root, "root", 0, procs - 1)
    seed = _int(seed if seed not in (None, "") else 0, "seed", 0, 2**31 - 1)
    try:
        slow_list = parse_slow(slow or "")
    except VizcollError as exc:
        raise VizcollError(str(exc).replace("--slow", "slow ranks")) from None
    for rank, factor in slow_list:
        if not 0 <= rank < procs:
            raise VizcollError(f"slow rank {rank} is not a worker (0..{procs - 1})")
        if factor <= 0:
            raise VizcollError(f"slow factor of rank {rank} must be positive")
    if fault not in FAULTS:
        raise VizcollError(f"unknown fault {fault!r}")
    kill = [_int(kill[0], "killed rank", 0, procs - 1), float(kill[1])] if fault == CLICK and kill else None
    return {"procs": procs, "size": size, "root": root, "slow": [list(s) for s in slow_list], "fault": fault,
            "kill": kill, "seed": seed}


def read_treft(workflow, cls, variant, replica, kernel, var, second) -> dict:
    if workflow not in WORKFLOWS or cls not in ("A", "B"):
        raise VizcollError(f"unknown workflow {workflow}.{cls}")
    if variant not in VARIANT_NAMES:
        raise VizcollError(f"unknown variant {variant!r}")
    inject = None
    if replica not in (None, "", "none"):
        if not kernel or not var:
            raise VizcollError("choose the kernel and the variable the soft error hits")
        inject = [_int(replica, "replica", 0, 2), str(kernel), str(var)]
    second = (second or "").strip() or None
    if second and not inject:
        raise VizcollError("a second fault needs a first one")
    return {"workflow": workflow, "cls": cls, "variant": variant, "inject": inject, "second": second}


def kernel_options(workflow: str, cls: str) -> list[dict]:
    program = WORKFLOWS[workflow][cls]
    return [{"label": f"{k.name} ({k.solver})", "value": k.name} for k in program.kernels.values()]


def var_options(workflow: str, cls: str, kernel: str | None) -> list[dict]:
    program = WORKFLOWS[workflow][cls]
    call = program.kernels.get(kernel) if kernel else None
    return [{"label": v, "value": v} for v in (call.outputs if call else ())]


# ---------------------------------------------------------------- layout
def _dropdown(id_, options, value, **kw) -> dcc.Dropdown:
    return dcc.Dropdown(id=id_, options=options, value=value, clearable=False, className="grow", **kw)


def scenario_procs(scenario: Scenario) -> tuple[int, str]:
    """The reduction's default process count: the scenario's first communicator (2..MAX_PROCS), and why."""
    try:
        comms = scenario.communicators(topology_of(scenario))
    except VizcollError:
        comms = None
    if comms is None or len(comms) == 0:
        return int(DEFAULTS["procs"]), "The scenario has no communicator: 8 processes by default."
    size = len(comms[0])
    procs = min(max(size, 2), MAX_PROCS)
    capped = f" (the replay shows at most {MAX_PROCS})" if size > MAX_PROCS else ""
    return procs, f"Processes from the scenario's communicator 0: {size}{capped}."


def default_slow(procs: int) -> str:
    """The default slow ranks (2 and 5, as many of them as there are workers)."""
    return ",".join(rank for rank in DEFAULTS["slow"].split(",") if int(rank) < procs)


def layout(scenario: Scenario) -> html.Div:
    """The page with the scenario's parameters (procs from its first communicator unless set here)."""
    procs, procs_note = scenario_procs(scenario)
    v = {key: "" if val is None else str(val)
         for key, val in page_params(scenario, PAGE, DEFAULTS | {"procs": str(procs),
                                                                  "slow": default_slow(procs)}).items()}
    for key in ("procs", "root", "seed"):
        v[key] = int(v[key]) if v[key].isdigit() else int(DEFAULTS[key])
    workflow = v["workflow"] if v["workflow"] in WORKFLOWS else "HC"
    cls = v["cls"] if v["cls"] in ("A", "B") else "A"
    replica, kernel, var = (v["inject"].split(":") + ["", "", ""])[:3] if v["inject"] else ("none", None, None)
    replica = replica.lstrip("r") or "none"
    sizes = [{"label": label, "value": str(size)} for size, label in SIZES.items()]
    if v["size"] not in {o["value"] for o in sizes}:
        sizes.append({"label": f"{v['size']} B", "value": v["size"]})
    red_sidebar = html.Div(className="sidebar", children=[html.Details(open=True, className="panel", children=[
        html.Summary("Reduction and fault"),
        field("processes", dcc.Input(id=ids.FT_RED_PROCS, type="number", min=2, max=MAX_PROCS, value=v["procs"],
                                      debounce=True)),
        field("data size", _dropdown(ids.FT_RED_SIZE, sizes, v["size"])),
        field("root", dcc.Input(id=ids.FT_RED_ROOT, type="number", min=0, value=v["root"], debounce=True)),
        field("slow ranks", dcc.Input(id=ids.FT_RED_SLOW, value=v["slow"], debounce=True,
                                       placeholder="rank:factor, e.g. 2,5 or 2:8")),
        field("fault", _dropdown(ids.FT_RED_FAULT, [{"label": t, "value": k} for k, t in FAULTS.items()],
                                  v["fault"] if v["fault"] in FAULTS else "none")),
        field("seed", dcc.Input(id=ids.FT_RED_SEED, type="number", min=0, value=v["seed"], debounce=True)),
        html.P(procs_note, className="info"),
        html.Div(id=ids.FT_RED_MESSAGE, className="message", role="alert"),
        html.P(className="info", children=(
            "Each worker tells the master when its data is ready; the master pairs ready workers into tasks and "
            "one of the two reads the other's data and reduces it. Slow ranks are slowed 4× (rank:factor to "
            "choose). Click a worker in the diagram to kill it at the shown step.")),
    ])])
    red_main = html.Div(className="main", children=[
        dcc.Store(id=ids.FT_RED_PARAMS), dcc.Store(id=ids.FT_RED_KILL),
        html.Div(className="panel player-panel", children=[
            html.H3("Task-based reduction with fault tolerance, step by step"),
            dcc.Graph(id=ids.FT_RED_DIAGRAM, config=GRAPH_CONFIG),
            player(ids.FT_RED_PLAYER),
        ]),
        html.Div(className="pair", children=[
            html.Div(id=ids.FT_RED_SUMMARY, className="table-box"),
            html.Div(id=ids.FT_RED_TASKS, className="table-box"),
        ]),
    ])
    treft_sidebar = html.Div(className="sidebar", children=[html.Details(open=True, className="panel", children=[
        html.Summary("Program and soft error"),
        field("workflow", _dropdown(ids.FT_TREFT_WORKFLOW, [
            {"label": "HC (Helical Chain)", "value": "HC"}, {"label": "VP (Visualization Pipe)", "value": "VP"},
            {"label": "MB (Mixed Bag)", "value": "MB"}], workflow)),
        field("class", _dropdown(ids.FT_TREFT_CLASS, ["A", "B"], cls)),
        field("variant", _dropdown(ids.FT_TREFT_VARIANT,
                                    [{"label": VARIANT_NAMES[k], "value": k} for k in VARIANT_NAMES],
                                    v["variant"] if v["variant"] in VARIANT_NAMES else "treft")),
        field("soft error on", _dropdown(ids.FT_TREFT_REPLICA, [{"label": "no error", "value": "none"}] + [
            {"label": f"replica r{r}", "value": str(r)} for r in range(3)], replica)),
        field("after kernel", _dropdown(ids.FT_TREFT_KERNEL, kernel_options(workflow, cls), kernel)),
        field("in variable", _dropdown(ids.FT_TREFT_VAR, var_options(workflow, cls, kernel), var)),
        field("second fault", dcc.Input(id=ids.FT_TREFT_SECOND, value=v["second"], debounce=True,
                                         placeholder="optional, e.g. r2:K4:u4")),
        html.Div(id=ids.FT_TREFT_MESSAGE, className="message", role="alert"),
        html.P(className="info", children=(
            "Three replicas run the program; at the end of each fault-tolerant section they exchange its live "
            "data and vote 2-of-3: a wrong copy is overwritten by the majority. A second fault on another replica "
            "with the same kernel and variable makes two equal wrong copies (the vote cannot fix that).")),
    ])])
    treft_main = html.Div(className="main", children=[
        dcc.Store(id=ids.FT_TREFT_PARAMS),
        html.Div(className="panel player-panel", children=[
            html.H3("TREFT: three replicas, operations ① to ⑩, vote and correction"),
            dcc.Graph(id=ids.FT_TREFT_LANES, config=GRAPH_CONFIG),
            player(ids.FT_TREFT_PLAYER),
        ]),
        html.Div(id=ids.FT_TREFT_SUMMARY, className="panel table-box"),
        html.Div(className="panel", children=dcc.Graph(id=ids.FT_TREFT_OVERHEAD, config=GRAPH_CONFIG)),
    ])
    return html.Div(className="page faults-page", children=[
        html.H2("Fault-tolerant reduction", className="section-title"),
        html.Div(className="columns", children=[red_sidebar, red_main]),
        html.H2("TREFT: triple modular redundancy against soft errors", className="section-title"),
        html.Div(className="columns", children=[treft_sidebar, treft_main]),
    ])


# ---------------------------------------------------------------- pure views
def _ms(seconds) -> str:
    return f"{float(seconds) * 1e3:,.2f}"


def task_outcome(figures: dict) -> str:
    if figures.get("unrecoverable"):
        return "unrecoverable"
    if figures.get("recovered"):
        return "recovered"
    if figures.get("fault"):
        return "fault hit nothing (its data was already reduced)"
    return "no fault"


def binomial_outcome(figures: dict) -> str:
    if not figures.get("fault"):
        return "no fault"
    if not figures.get("completed"):
        return "failed: a binomial tree has no fault tolerance"
    return "finished: the victim's data was already sent"


def comparison_sentence(task: dict, binomial: dict) -> str:
    if not binomial.get("completed"):
        return ("The binomial tree cannot survive this failure; the task-based reduction "
                + ("could not recover either (the data was lost)." if task.get("unrecoverable") else
                   f"finished in {_ms(task['time'])} ms."))
    if not task.get("completed"):
        return "The task-based reduction could not recover; the binomial tree finished."
    t, b = float(task["time"]), float(binomial["time"])
    if t < b:
        return f"The task-based reduction is {b / t:.2f}× faster than the binomial tree here."
    return f"The binomial tree is {t / b:.2f}× faster than the task-based reduction here."


def reduction_summary(figures: dict, binomial: dict) -> html.Div:
    fault = figures.get("fault")
    fault_text = "none"
    if fault:
        where = fault.get("location") or "?"
        fault_text = f"w{fault['rank']} killed at {_ms(fault['time'])} ms ({where})"
        if fault.get("detected_at") is not None:
            fault_text += f", detected at {_ms(fault['detected_at'])} ms"
    rows = [("completion time (ms)", _ms(figures["time"]) if figures.get("completed") else "—",
             _ms(binomial["time"]) if binomial.get("completed") else "—"),
            ("messages", f"{figures['messages']:,}", f"{binomial['messages']:,}"),
            ("result correct", "yes" if figures.get("result_ok") else "no",
             "yes" if binomial.get("result_ok") else "no"),
            ("tree height (rounds)", str(figures.get("rounds", "")), str(binomial.get("rounds", ""))),
            ("outcome", task_outcome(figures), binomial_outcome(binomial))]
    head = html.Tr([html.Th(""), html.Th("task-based"), html.Th("binomial tree")])
    body = [html.Tr([html.Td(a), html.Td(b), html.Td(c)]) for a, b, c in rows]
    return html.Div([
        html.H3("Summary (same slow nodes and same kill for both)"),
        html.Table(className="summary", children=[html.Thead(head), html.Tbody(body)]),
        html.P(f"Fault: {fault_text}.", className="info"),
        html.P(comparison_sentence(figures, binomial), className="info ft-verdict"),
    ])


def task_list(timeline: Timeline, step: int, figures: dict) -> html.Div:
    formed = tasks_so_far(timeline, step, figures.get("tasks", []))
    items = [html.Li(task_text(t)) for t in formed]
    return html.Div([
        html.H3(f"Tasks formed so far: {len(formed)} of {len(figures.get('tasks', []))}"),
        html.P("(i,j) → w: the master pairs the messages of i and j; w fetches the other's data and reduces it.",
               className="info"),
        html.Ol(items, className="ft-tasks") if items else html.P("none yet", className="info"),
    ])


def treft_summary(figures: dict) -> html.Div:
    yes = lambda x: "yes" if x else "no"  # noqa: E731
    injected = "; ".join(f"r{i['replica']}: bit {i['bit']} of {i['var']}[{i['index']}] after {i['kernel']}"
                         for i in figures.get("injected", [])) or "none"
    rows = [("outcome", str(figures["outcome"])), ("soft error", injected),
            ("detected", yes(figures["detected"])), ("corrected", yes(figures["corrected"])),
            ("final output correct", yes(figures["final_output_ok"])),
            ("fault-tolerant sections", str(len(figures.get("sections", [])))),
            ("run time (s)", f"{figures['time']:,.1f}"), ("without TREFT (s)", f"{figures['baseline_time']:,.1f}"),
            ("overhead", f"{figures['overhead_pct']:.2f} %")]
    average = PAPER_AVERAGE.get(figures.get("variant", "treft"))
    return html.Div([
        html.H3(f"Summary: {figures.get('program', '')} under {VARIANT_NAMES.get(figures.get('variant'), '')}"),
        html.Table(className="summary", children=html.Tbody([html.Tr([html.Td(a), html.Td(b)]) for a, b in rows])),
        html.P(f"The paper's average overhead for this variant: {average} %." if average else "", className="info"),
    ])


def empty_figure(text: str) -> go.Figure:
    return go.Figure().update_layout(height=200, xaxis={"visible": False}, yaxis={"visible": False},
                                     plot_bgcolor="white",
                                     annotations=[{"text": text, "showarrow": False}])


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_player(app, ids.FT_RED_PLAYER)
    register_player(app, ids.FT_TREFT_PLAYER)
    app.callback(
        Output(ids.FT_RED_PARAMS, "data"), Output(ids.FT_RED_MESSAGE, "children"),
        Output(ids.FT_RED_SUMMARY, "children"), Output(pid(ids.FT_RED_PLAYER, "timeline"), "data"), store_output(),
        Input(ids.FT_RED_PROCS, "value"), Input(ids.FT_RED_SIZE, "value"), Input(ids.FT_RED_ROOT, "value"),
        Input(ids.FT_RED_SLOW, "value"), Input(ids.FT_RED_FAULT, "value"), Input(ids.FT_RED_SEED, "value"),
        Input(ids.FT_RED_KILL, "data"), State(SCENARIO, "data"), prevent_initial_call="initial_duplicate",
    )(run_reduction)
    app.callback(
        Output(ids.FT_RED_DIAGRAM, "figure"), Output(ids.FT_RED_TASKS, "children"),
        Input(pid(ids.FT_RED_PLAYER, "step"), "value"), Input(ids.FT_RED_PARAMS, "data"),
    )(render_reduction)
    app.callback(
        Output(ids.FT_RED_KILL, "data"), Output(ids.FT_RED_FAULT, "value"),
        Input(ids.FT_RED_DIAGRAM, "clickData"),
        State(pid(ids.FT_RED_PLAYER, "step"), "value"), State(ids.FT_RED_PARAMS, "data"),
        prevent_initial_call=True,
    )(click_kill)
    app.callback(
        Output(ids.FT_TREFT_KERNEL, "options"), Output(ids.FT_TREFT_KERNEL, "value"),
        Input(ids.FT_TREFT_WORKFLOW, "value"), Input(ids.FT_TREFT_CLASS, "value"),
        State(ids.FT_TREFT_KERNEL, "value"),
    )(kernel_choices)
    app.callback(
        Output(ids.FT_TREFT_VAR, "options"), Output(ids.FT_TREFT_VAR, "value"),
        Input(ids.FT_TREFT_KERNEL, "value"),
        State(ids.FT_TREFT_WORKFLOW, "value"), State(ids.FT_TREFT_CLASS, "value"), State(ids.FT_TREFT_VAR, "value"),
    )(var_choices)
    app.callback(
        Output(ids.FT_TREFT_PARAMS, "data"), Output(ids.FT_TREFT_MESSAGE, "children"),
        Output(ids.FT_TREFT_SUMMARY, "children"), Output(pid(ids.FT_TREFT_PLAYER, "timeline"), "data"),
        store_output(),
        Input(ids.FT_TREFT_WORKFLOW, "value"), Input(ids.FT_TREFT_CLASS, "value"),
        Input(ids.FT_TREFT_VARIANT, "value"), Input(ids.FT_TREFT_REPLICA, "value"),
        Input(ids.FT_TREFT_KERNEL, "value"), Input(ids.FT_TREFT_VAR, "value"), Input(ids.FT_TREFT_SECOND, "value"),
        State(SCENARIO, "data"), prevent_initial_call="initial_duplicate",
    )(run_treft)
    app.callback(
        Output(ids.FT_TREFT_LANES, "figure"),
        Input(pid(ids.FT_TREFT_PLAYER, "step"), "value"), Input(ids.FT_TREFT_PARAMS, "data"),
    )(render_lanes)
    app.callback(Output(ids.FT_TREFT_OVERHEAD, "figure"), Input(ids.FT_TREFT_OVERHEAD, "id"))(render_overhead)


def run_reduction(procs, size, root, slow, fault, seed, kill, scenario=None):
    """Check the controls, run the task-based reduction and the binomial tree (cached) and summarise.

    The controls' values become the scenario's ``faults`` parameters (shared link, reload).
    """
    try:
        params = read_reduction(procs, size, root, slow, fault, seed, kill)
        timeline, figures, binomial = reduction_runs(params)
    except VizcollError as exc:
        return no_update, f"⚠ {exc}", no_update, no_update, no_update
    message = "Click a worker in the diagram to kill it." if fault == CLICK and not params["kill"] else ""
    values = {"procs": procs, "size": size, "root": root, "slow": slow, "fault": fault, "seed": seed}
    return (params, message, reduction_summary(figures, binomial), timeline.to_dict(),
            remembered(scenario, PAGE, values))


def render_reduction(position, params):
    if not params:
        return empty_figure("Choose the reduction's parameters."), ""
    timeline, figures, _ = reduction_runs(params)
    step = timeline_step(position, timeline.n_steps)
    return reduction_diagram(timeline, step, figures, params["procs"]), task_list(timeline, step, figures)


def click_kill(click, position, params):
    """A click on a worker kills it at the time of the shown step."""
    points = (click or {}).get("points") or []
    rank = points[0].get("customdata") if points else None
    if rank is None or not params:
        return no_update, no_update
    if isinstance(rank, list):
        rank = rank[0]
    timeline, _, _ = reduction_runs(params)
    step = timeline_step(position, timeline.n_steps)
    return [int(rank), timeline.time_at(step)], CLICK


def kernel_choices(workflow, cls, kernel):
    if workflow not in WORKFLOWS or cls not in ("A", "B"):
        return no_update, no_update
    options = kernel_options(workflow, cls)
    values = [o["value"] for o in options]
    return options, kernel if kernel in values else (values[len(values) // 4] if values else None)


def var_choices(kernel, workflow, cls, var):
    if workflow not in WORKFLOWS or cls not in ("A", "B"):
        return no_update, no_update
    options = var_options(workflow, cls, kernel)
    values = [o["value"] for o in options]
    return options, var if var in values else (values[0] if values else None)


def run_treft(workflow, cls, variant, replica, kernel, var, second, scenario=None):
    try:
        params = read_treft(workflow, cls, variant, replica, kernel, var, second)
        timeline, figures = treft_run(params)
    except VizcollError as exc:
        return no_update, f"⚠ {exc}", no_update, no_update, no_update
    inject = ":".join(map(str, params["inject"])) if params["inject"] else ""
    values = {"workflow": workflow, "cls": cls, "variant": variant, "inject": inject, "second": second or ""}
    return params, "", treft_summary(figures), timeline.to_dict(), remembered(scenario, PAGE, values)


def render_lanes(position, params):
    if not params:
        return empty_figure("Choose a workflow.")
    timeline, _ = treft_run(params)
    return treft_lanes(timeline, timeline_step(position, timeline.n_steps), OPERATIONS)


def render_overhead(_):
    return overhead_chart(overheads())
