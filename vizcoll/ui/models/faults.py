"""The fault replays page's model: its parameters checked, the scenario's process count, cached replays.

- The task-based Master/Worker reduction (the paper's distributed reduction with fault tolerance) and the
  binomial tree under the same slow nodes and kill, for comparison.
- TREFT: three replicas with their threads and queues, an injected soft error, the 2-of-3 vote; the overhead
  of TREFT / E1 / E2 on HC, VP, MB.

The page's parameters live in ``scenario.params["faults"]`` (:data:`DEFAULTS`).

**Download GOAL** (:func:`goal_file`) writes a static reduction (binomial, MST
or Rabenseifner, :data:`GOAL_ALGOS`) with the page's process count, data size
and root as LogGOPSim's GOAL schedule (:func:`vizcoll.schedule.static_reduction`).
"""

from __future__ import annotations

from vizcoll.errors import VizcollError
from vizcoll.reduction import FAULT_LOCATIONS, simulate_binomial, simulate_task_reduction
from vizcoll.reduction.env import parse_slow
from vizcoll.scenario import Scenario
from vizcoll.schedule import dumps, static_reduction
from vizcoll.sim.timeline import Timeline
from vizcoll.treft import WORKFLOWS, simulate_treft
from vizcoll.ui.cache import cached
from vizcoll.ui.calls import topology_of
from vizcoll.ui.figures.faults import VARIANT_NAMES
from vizcoll.ui.forms import choice, whole
from vizcoll.ui.limits import FAULTS_MAX_PROCS

__all__ = ["PAGE", "DEFAULTS", "SIZES", "CLICK", "FAULTS", "MAX_PROCS", "reduction_runs", "treft_run", "overheads",
           "read_reduction", "read_treft", "kernel_options", "var_options", "scenario_procs", "default_slow",
           "GOAL_ALGOS", "goal_file"]

PAGE = "faults"
DEFAULTS = {"procs": "8", "size": str(8 << 20), "root": "0", "slow": "2,5", "fault": "none", "seed": "0",
            "workflow": "HC", "cls": "A", "variant": "treft", "inject": "1:K4:u4", "second": ""}
SIZES = {1 << 16: "64 KiB", 1 << 20: "1 MiB", 8 << 20: "8 MiB", 32 << 20: "32 MiB"}
CLICK = "click"
FAULTS = {"none": "no fault", "sending-task": "(1) worker fails before it gets its task",
          "executing-task": "(2) worker fails while executing its task",
          "fetching-data": "(3) data supplier fails while being read",
          CLICK: "kill the worker I click, at the shown step"}
MAX_PROCS = FAULTS_MAX_PROCS  # the reason: vizcoll.ui.limits
GOAL_ALGOS = {"binomial": "binomial tree", "mst": "MST (minimum spanning tree)",
              "rabenseifner": "Rabenseifner (reduce-scatter + gather)"}


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
    common = dict(procs=params["procs"], size=params["size"], root=params["root"], slow=slow, seed=params["seed"])
    timeline, figures = simulate_task_reduction(**common, kill=kill, nodes=list(range(params["procs"])))
    fault = figures.get("fault")
    same_kill = (fault["rank"], fault["time"]) if fault else None
    _, binomial = simulate_binomial(**common, kill=same_kill, record=False)
    return timeline, figures, binomial


@cached
def treft_run(params: dict) -> tuple[Timeline, dict]:
    """TREFT's timeline and figures for a workflow, a variant and the injected soft errors."""
    return simulate_treft(f"{params['workflow']}.{params['cls']}", params["variant"], inject=params["inject"],
                          double_fault=params["second"])


@cached
def overheads() -> dict[str, dict[str, float]]:
    """Overhead % of every workflow × class under TREFT, E1, E2 (no fault), computed once and cached."""
    out: dict[str, dict[str, float]] = {}
    for variant in VARIANT_NAMES:
        out[variant] = {}
        for name in WORKFLOWS:
            for cls in ("A", "B"):
                _, fig = simulate_treft(f"{name}.{cls}", variant)
                out[variant][f"{name}.{cls}"] = round(float(fig["overhead_pct"]), 3)
    return out


# ---------------------------------------------------------------- checked parameters
def read_reduction(procs, size, root, slow, fault, seed, kill) -> dict:
    """Checked, canonical reduction parameters; raises VizcollError with a message for the page."""
    procs = whole(procs, "processes", 2, MAX_PROCS)
    size = whole(size, "data size", 1, 1 << 30)
    root = whole(root, "root", 0, procs - 1)
    seed = whole(seed if seed not in (None, "") else 0, "seed", 0, 2**31 - 1)
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
    kill = [whole(kill[0], "killed rank", 0, procs - 1), float(kill[1])] if fault == CLICK and kill else None
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
        inject = [whole(replica, "replica", 0, 2), str(kernel), str(var)]
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


def goal_file(algo, procs, size, root) -> dict:
    """The static reduction ``algo`` of ``size`` bytes on ``procs`` processes to ``root`` (the page's controls,
    checked) as a GOAL file, ``{"content", "filename"}`` for a ``dcc.Download``."""
    algo = choice(algo, tuple(GOAL_ALGOS), "reduction")
    procs = whole(procs, "processes", 2, MAX_PROCS)
    size = whole(size, "data size", 1, 1 << 30)
    root = whole(root, "root", 0, procs - 1)
    what = f"{GOAL_ALGOS[algo]} reduction of {size:,} bytes on {procs} processes to root {root}"
    text = dumps(static_reduction(algo, procs, size, root), comment=f"written by vizcoll: {what}")
    return {"content": text, "filename": f"vizcoll-reduction-{algo}-{procs}.goal"}
