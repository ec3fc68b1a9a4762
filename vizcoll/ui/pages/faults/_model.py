"""The fault replays page's model: its parameters checked, the scenario's process count, cached replays.

- The task-based Master/Worker reduction (the paper's distributed reduction with fault tolerance) and the
  binomial tree under the same slow nodes and kill, for comparison.
- TREFT: three replicas with their threads and queues, an injected soft error, the 2-of-3 vote; the overhead
  of TREFT / E1 / E2 on HC, VP, MB.

The page's parameters live in ``scenario.params["faults"]`` (:data:`DEFAULTS`).

**Download GOAL** (:func:`goal_file`) writes a static reduction (binomial, MST
or Rabenseifner: every registered one, :func:`goal_algo_options`) with the page's process count, data size
and root as LogGOPSim's GOAL schedule (:func:`vizcoll.schedule.static_reduction`).

Timings (the 2-core development machine, cold cache; the figures: docs/design.md): a reduction replay of 32
processes and one TREFT replay take a small fraction of a second; the overhead chart runs TREFT 18 times (3
variants x 6 programs) and takes seconds, more with the first imports and on a busy host. The page computes
that chart in a background job, run by run
(:func:`overheads` with ``progress``; each run cached on its own, so the next visit reads 18 cache entries).
The page's views read the checked parameters from the scenario on the server (:func:`scenario_reduction`,
:func:`scenario_treft`: the controls write them there); the browser's parameter stores hold only their key.
The clicked worker is the one parameter the scenario does not hold: its store is checked with the rest.
"""

from __future__ import annotations

from dataclasses import replace

from vizcoll.errors import VizcollError
from vizcoll.reduction import FAULT_LOCATIONS, ReductionRun, simulate_binomial, simulate_task_reduction
from vizcoll.reduction.env import parse_slow
from vizcoll.reduction.static import BINOMIAL
from vizcoll.reduction.static import REGISTRY as STATIC_REDUCTIONS
from vizcoll.scenario import Scenario
from vizcoll.schedule import dumps, static_reduction
from vizcoll.sim.timeline import Timeline
from vizcoll.treft import WORKFLOWS, simulate_treft
from vizcoll.ui.cache import cached, job_runner
from vizcoll.ui.forms import choice, number, text, whole
from vizcoll.ui.limits import FAULTS_MAX_PROCS
from vizcoll.ui.pages.faults._figures import VARIANT_NAMES
from vizcoll.ui.store import page_params, topology_of

__all__ = [
    "PAGE",
    "DEFAULTS",
    "SIZES",
    "CLICK",
    "FAULTS",
    "MAX_PROCS",
    "reduction_runs",
    "treft_run",
    "overheads",
    "overhead_of",
    "read_reduction",
    "read_treft",
    "kernel_options",
    "var_options",
    "scenario_procs",
    "default_slow",
    "GOAL_DEFAULT",
    "goal_algo_options",
    "goal_file",
    "OVERHEAD_RUNS",
    "shown_values",
    "scenario_reduction",
    "scenario_treft",
]

PAGE = "faults"
DEFAULTS = {
    "procs": "8",
    "size": str(8 << 20),
    "root": "0",
    "slow": "2,5",
    "fault": "none",
    "seed": "0",
    "workflow": "HC",
    "cls": "A",
    "variant": "treft",
    "inject": "1:K4:u4",
    "second": "",
}
SIZES = {1 << 16: "64 KiB", 1 << 20: "1 MiB", 8 << 20: "8 MiB", 32 << 20: "32 MiB"}
CLICK = "click"
FAULTS = {
    "none": "no fault",
    "sending-task": "(1) worker fails before it gets its task",
    "executing-task": "(2) worker fails while executing its task",
    "fetching-data": "(3) data supplier fails while being read",
    CLICK: "kill the worker I click, at the shown step",
}
MAX_PROCS = FAULTS_MAX_PROCS  # the reason: vizcoll.ui.limits
GOAL_DEFAULT = BINOMIAL.name  # the static reduction Download GOAL writes until another is chosen
CLASSES = ("A", "B")
REPLICAS = ("none", "0", "1", "2")  # where the soft error goes: nowhere, or the replica with that number
OVERHEAD_RUNS = [(variant, f"{name}.{cls}") for variant in VARIANT_NAMES for name in WORKFLOWS for cls in CLASSES]


# ---------------------------------------------------------------- engine calls (cached)
@cached
def reduction_runs(params: dict) -> tuple[Timeline, dict, dict]:
    """(task-based timeline, its figures, the binomial tree's figures under the same slow nodes and kill)."""
    kill = params["kill"]
    if params["fault"] in FAULT_LOCATIONS:
        kill = params["fault"]
    elif kill is not None:
        kill = (int(kill[0]), float(kill[1]))
    slow = [tuple(s) for s in params["slow"]]
    common = ReductionRun(params["procs"], params["size"], root=params["root"], slow=slow, seed=params["seed"])
    timeline, figures = simulate_task_reduction(replace(common, kill=kill, nodes=list(range(params["procs"]))))
    fault = figures.get("fault")
    same_kill = (fault["rank"], fault["time"]) if fault else None
    _, binomial = simulate_binomial(replace(common, kill=same_kill), record=False)
    return timeline, figures, binomial


@cached
def treft_run(params: dict) -> tuple[Timeline, dict]:
    """TREFT's timeline and figures for a workflow, a variant and the injected soft errors."""
    return simulate_treft(
        f"{params['workflow']}.{params['cls']}",
        params["variant"],
        inject=params["inject"],
        double_fault=params["second"],
    )


@cached
def overhead_of(variant: str, program: str) -> float:
    """Overhead % of ``program`` (``"HC.A"``) under ``variant`` without a fault (one TREFT run, cached)."""
    _, fig = simulate_treft(program, variant, record=False)
    return round(float(fig["overhead_pct"]), 3)


def overheads(progress=None) -> dict[str, dict[str, float]]:
    """Overhead % of every workflow × class under TREFT, E1, E2 (no fault): :data:`OVERHEAD_RUNS`, each run
    cached, as tasks of the running job's runner (:func:`~vizcoll.ui.cache.job_runner`: in parallel in a job that
    has workers); ``progress(done, total)`` after every run."""
    out: dict[str, dict[str, float]] = {}
    values = job_runner()([(overhead_of, run) for run in OVERHEAD_RUNS])
    for done, ((variant, program), value) in enumerate(zip(OVERHEAD_RUNS, values, strict=True), start=1):
        out.setdefault(variant, {})[program] = value
        if progress is not None:
            progress(done, len(OVERHEAD_RUNS))
    return out


# ---------------------------------------------------------------- checked parameters
def read_reduction(procs, size, root, slow, fault, seed, kill) -> dict:
    """Checked, canonical reduction parameters; raises VizcollError with a message for the page."""
    procs = whole(procs, "processes", 2, MAX_PROCS)
    size = whole(size, "data size", 1, 1 << 30)
    root = whole(root, "root", 0, procs - 1)
    seed = whole(seed if seed not in (None, "") else 0, "seed", 0, 2**31 - 1)
    if slow is not None and not isinstance(slow, str):
        raise VizcollError("slow ranks must be text like 2,5 or 2:8")
    try:
        slow_list = parse_slow(text(slow))
    except VizcollError as exc:
        raise VizcollError(str(exc).replace("--slow", "slow ranks")) from None
    for rank, factor in slow_list:
        if not 0 <= rank < procs:
            raise VizcollError(f"slow rank {rank} is not a worker (0..{procs - 1})")
        if factor <= 0:
            raise VizcollError(f"slow factor of rank {rank} must be positive")
    fault = choice(fault, tuple(FAULTS), "fault")
    if fault == CLICK and kill:
        if not isinstance(kill, list) or len(kill) != 2:
            raise VizcollError("the clicked worker must be [rank, time]")
        kill = [whole(kill[0], "killed rank", 0, procs - 1), number(kill[1], "kill time", float, 0)]
    else:
        kill = None
    return {
        "procs": procs,
        "size": size,
        "root": root,
        "slow": [list(s) for s in slow_list],
        "fault": fault,
        "kill": kill,
        "seed": seed,
    }


def _program(workflow, cls) -> tuple[str, str]:
    """(workflow, class) checked: both strings the page offers."""
    if not (isinstance(workflow, str) and workflow in WORKFLOWS and isinstance(cls, str) and cls in CLASSES):
        raise VizcollError(f"unknown workflow {str(workflow)[:20]}.{str(cls)[:20]}")
    return workflow, cls


def read_treft(workflow, cls, variant, replica, kernel, var, second) -> dict:
    """Checked, canonical TREFT parameters; raises VizcollError with a message for the page."""
    workflow, cls = _program(workflow, cls)
    variant = choice(variant, tuple(VARIANT_NAMES), "variant")
    inject = None
    if choice(replica, REPLICAS, "replica") != "none":
        if not kernel or not var:
            raise VizcollError("choose the kernel and the variable the soft error hits")
        kernel = choice(kernel, [o["value"] for o in kernel_options(workflow, cls)], "kernel")
        var = choice(var, [o["value"] for o in var_options(workflow, cls, kernel)], "variable")
        inject = [int(replica), kernel, var]
    if second is not None and not isinstance(second, str):
        raise VizcollError("the second fault must be text like r2:K4:u4")
    second = text(second) or None
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


def shown_values(scenario: Scenario) -> dict:
    """The controls' values: the scenario's page parameters (procs from its first communicator unless set here),
    each unusable one replaced by its default."""
    procs, procs_note = scenario_procs(scenario)
    v = {
        key: "" if val is None else str(val)
        for key, val in page_params(
            scenario, PAGE, DEFAULTS | {"procs": str(procs), "slow": default_slow(procs)}
        ).items()
    }
    for key in ("procs", "root", "seed"):
        v[key] = int(v[key]) if v[key].isdigit() else int(DEFAULTS[key])
    v["workflow"] = v["workflow"] if v["workflow"] in WORKFLOWS else "HC"
    v["cls"] = v["cls"] if v["cls"] in ("A", "B") else "A"
    replica, v["kernel"], v["var"] = (
        (v["inject"].split(":") + ["", "", ""])[:3] if v["inject"] else ("none", None, None)
    )
    v["replica"] = replica.lstrip("r") or "none"
    v["fault"] = v["fault"] if v["fault"] in FAULTS else "none"
    v["variant"] = v["variant"] if v["variant"] in VARIANT_NAMES else "treft"
    v["procs_note"] = procs_note
    return v


def scenario_reduction(scenario: Scenario, kill=None) -> dict:
    """The reduction's checked parameters: those the page shows on ``scenario`` with the clicked worker ``kill``
    (the page's ``ft-red-kill`` store, checked here); VizcollError when they do not check."""
    v = shown_values(scenario)
    return read_reduction(v["procs"], v["size"], v["root"], v["slow"], v["fault"], v["seed"], kill)


def scenario_treft(scenario: Scenario) -> dict:
    """TREFT's checked parameters, those the page shows on ``scenario``; VizcollError when they do not check."""
    v = shown_values(scenario)
    return read_treft(v["workflow"], v["cls"], v["variant"], v["replica"], v["kernel"], v["var"], v["second"])


def goal_algo_options() -> list[dict]:
    """The options of Download GOAL's static reduction: every registered one, read when the page is laid out."""
    return [{"label": entry.label, "value": entry.name} for entry in STATIC_REDUCTIONS.values()]


def goal_file(algo, procs, size, root) -> dict:
    """The static reduction ``algo`` of ``size`` bytes on ``procs`` processes to ``root`` (the page's controls,
    checked) as a GOAL file, ``{"content", "filename"}`` for a ``dcc.Download``."""
    algo = choice(algo, STATIC_REDUCTIONS.names, "reduction")
    procs = whole(procs, "processes", 2, MAX_PROCS)
    size = whole(size, "data size", 1, 1 << 30)
    root = whole(root, "root", 0, procs - 1)
    what = f"{STATIC_REDUCTIONS[algo].label} reduction of {size:,} bytes on {procs} processes to root {root}"
    text = dumps(static_reduction(algo, procs, size, root), comment=f"written by vizcoll: {what}")
    return {"content": text, "filename": f"vizcoll-reduction-{algo}-{procs}.goal"}
