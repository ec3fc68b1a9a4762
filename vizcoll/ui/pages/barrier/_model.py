"""The barrier page's model: its parameters, the scenario's grid or processes, the run plan, cached engine calls.

The page looks at the one shared :class:`~vizcoll.scenario.Scenario`:

- **on a grid** (a 2-D mesh scenario, :func:`~vizcoll.barrier.is_grid`) the
  paper's grid model runs on the scenario's fabric with its broken links: the
  processors are the grid's switches, messages go to the neighbor closest to
  their destination, and every algorithm (DLCT included) can run. The page's
  grid presets (size up to :data:`MAX_SIDE` x :data:`MAX_SIDE`, 4 or 8
  neighbors) *replace* the scenario's fabric;
- **on any other fabric** (fat tree, uploaded file...) the barrier's processes are the end nodes of the scenario's
  communicator ``comm`` (every end node when it has none), at most :data:`MAX_PROCESSES`; the algorithms that do not
  need a grid run over min-hop routes avoiding the broken links and are animated hop by hop on what the page draws
  (its ``part``, the shared choice of :mod:`vizcoll.ui.models.parts`): the whole fabric node by node (fabrics up to
  :data:`ANIMATION_LIMIT` nodes), a larger fabric's overview (each bundle of links lit by the Gather and Release
  messages crossing it, each block by its processes changing state), or one group drawn alone, node by node. DLCT
  needs the grid's numbering: the page says so in one line.

The page's parameters live in ``scenario.params["barrier"]`` (:data:`DEFAULTS`).

**Download GOAL** (:func:`goal_file`) writes the current run's barrier as
LogGOPSim's GOAL schedule: on a grid every hop of one barrier of the run
(:func:`vizcoll.schedule.recorded.hop_schedule` of a one-barrier run without
work, the ranks being the grid's switches, DLCT included); on any other
fabric the logical pattern of the algorithm on the barrier's processes
(:func:`vizcoll.schedule.barrier`; DLCT is not available there, as on the page).

**What takes long** (measured on the 2-core development machine, cold cache; the figures: docs/design.md): the
full sweep and the quick one (:func:`run_sweep`, progress cell by cell); a run of 20 barriers on a 16 x 16 grid
(dissemination the longest, then MS and tournament; 3 barriers much less); on TaihuLight, 256 processes and 20
barriers (16 processes and 3 barriers with the overview's frames much less); Break at random on a fabric of
16,464 links (half broken to all), and the page allows 20,000 links. The page runs these as
background jobs (:mod:`vizcoll.ui.jobs`). The LCT / BST view, the UQ histogram (on 8 x 8),
the run plan and the GOAL export (on 16 x 16) answer at once. A view that reads a store from the
browser only shows a sweep a job computed (:func:`swept`): it never starts one.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import suppress
from dataclasses import replace

import numpy as np

from vizcoll.barrier import is_grid
from vizcoll.barrier.algorithms import (
    ALGORITHMS,
    ANY_FABRIC_ALGORITHM,
    DEFAULT_ALGORITHM,
    JUDGES,
    algorithm,
    grid_only_reason,
    run_barriers,
)
from vizcoll.barrier.benchmark import RATES, SIZES, SweepGrids, sweep
from vizcoll.barrier.fabric import communicator_processes, leaf_switches
from vizcoll.barrier.network import break_links
from vizcoll.barrier.structures import NUMBERINGS, adjust, numbering, pattern_links
from vizcoll.barrier.uq import uq_difference_histogram, uq_round
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.schedule import barrier, dumps
from vizcoll.schedule.recorded import hop_schedule
from vizcoll.topology.generators import parse_spec
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.ui import store
from vizcoll.ui.cache import cached, job_progress, job_runner, peek, reporting
from vizcoll.ui.forms import choice, number, whole
from vizcoll.ui.limits import (
    BARRIER_MAX_MESSAGES,
    BARRIER_MAX_PROCESSES,
    BARRIER_MAX_RANDOM_LINKS,
    BARRIER_MAX_SIDE,
    DRAWN_NODES,
    MAX_OPTIONS,
    MAX_SEED,
    UI_MAX_NODES,
)
from vizcoll.ui.models.parts import OVERVIEW, natural_part, read_part
from vizcoll.ui.store import fabric_of, page_params, plan_source, planned_scenario, topology_of
from vizcoll.words import plural

__all__ = [
    "PAGE",
    "DEFAULTS",
    "QUICK_MODE",
    "FULL_MODE",
    "ALL_END_NODES",
    "PRESET",
    "MAX_SIDE",
    "MAX_PROCESSES",
    "ANIMATION_LIMIT",
    "MAX_SEED",
    "UQ_SIDE",
    "parse_size",
    "read_neighbors",
    "read_params",
    "defaults_for",
    "stored_params",
    "shown_params",
    "scenario_is_grid",
    "grid_shape",
    "grid_spec",
    "grid_scenario",
    "random_breaks",
    "drawn_breaks",
    "processes_of",
    "digest",
    "run_plan",
    "run_of",
    "prepare_run",
    "sweep_of",
    "uq_of",
    "histogram_of",
    "view_keys",
    "page_keys",
    "comm_options",
    "algo_options",
    "too_many",
    "MAX_MESSAGES",
    "chosen_comm",
    "histogram_side",
    "goal_file",
    "run_sweep",
    "swept",
    "read_sweep_key",
    "read_uq_key",
    "MAX_K",
    "read_part_value",
    "chosen_part",
    "drawn_part",
    "shown_comm",
    "OVERVIEW_MAX_MARKS",
    "LIGHT_RUN",
    "heavy_run",
]

PAGE = "barrier"
QUICK_MODE, FULL_MODE = "quick", "full"
ALL_END_NODES = -1
# the page's parameters (scenario.params["barrier"]); on a fabric that is not a grid the algorithm defaults to tree
# (part: what the drawing shows off a grid, None = the natural part: see vizcoll.ui.models.parts; compare: the
# algorithm run side by side with it, "" for none)
DEFAULTS = {
    "algo": DEFAULT_ALGORITHM,
    "judge": "model",
    "barriers": 3,
    "compute": 0.5,
    "rate": 0.1,
    "seed": 0,
    "comm": 0,
    "k": 1,
    "numbering": "s-curve",
    "sweep": QUICK_MODE,
    "part": None,
    "compare": "",
}
NOT_GRID_ALGO = ANY_FABRIC_ALGORITHM
# the grid preset shown when the scenario is not a grid: the model that reproduces the paper's Fig. 3
# (a 4x4 grid with 8 neighbors: UQ 73.1% / 18.2% for round(1))
PRESET = (4, 4, 8)
MAX_SIDE, MAX_PROCESSES, MAX_MESSAGES = BARRIER_MAX_SIDE, BARRIER_MAX_PROCESSES, BARRIER_MAX_MESSAGES  # why: limits
ANIMATION_LIMIT = DRAWN_NODES  # fabrics (or parts) with more nodes are animated on their overview
OVERVIEW_MAX_MARKS = 1_000_000
"""A run whose overview frames light more marks than this (a block or a bundle at a step, about 10 bytes of JSON
each: 10 MB) plays its captions only: the frames travel to the browser once, in the player's handle. TaihuLight's
40,960 processes, 3 tree barriers: 5,001 steps, 1.4 MB."""
MAX_K = 1_000_000
MAX_COMM_OPTIONS, MAX_RANDOM_LINKS = MAX_OPTIONS, BARRIER_MAX_RANDOM_LINKS
UQ_SIDE = 8  # the LCT vs BST view draws the scenario's grid up to 8 x 8 (else the paper's 4 x 4)
QUICK = {"sizes": [4, 8, 12], "rates": [0.0, 0.2, 0.4], "seeds": 1}
FULL = {"sizes": list(SIZES), "rates": list(RATES), "seeds": 1}


# ---------------------------------------------------------------- parameters (the browser is untrusted)
def parse_size(text) -> tuple[int, int]:
    """``"4x4"``, ``"4"`` or ``"3x5"`` -> (rows, cols), each 1..MAX_SIDE and at least 2 processors."""
    parts = str(text if text is not None else "").lower().replace("×", "x").split("x")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        raise VizcollError(f"grid size must be ROWSxCOLS like 4x4, got {text!r}") from None
    dims = dims * 2 if len(dims) == 1 else dims
    if len(dims) != 2 or min(dims) < 1 or dims[0] * dims[1] < 2:
        raise VizcollError(f"grid size must be ROWSxCOLS with at least 2 processors, got {text!r}")
    if max(dims) > MAX_SIDE:
        raise VizcollError(
            f"the page runs grids up to {MAX_SIDE}x{MAX_SIDE}; run larger ones with "
            "python -m vizcoll barrier --size ..."
        )
    return dims[0], dims[1]


def read_neighbors(value) -> int:
    neighbors = number(value, "neighbors", int)
    if neighbors not in (4, 8):
        raise VizcollError(f"neighbors must be 4 or 8, got {neighbors}")
    return neighbors


def read_params(values: dict) -> dict:
    """The page's parameters checked and canonical (plain JSON values); VizcollError names the first bad one."""
    return {
        "algo": choice(values.get("algo"), ALGORITHMS.names, "barrier algorithm"),
        "judge": choice(values.get("judge"), JUDGES, "judge"),
        "barriers": whole(values.get("barriers"), "barriers", 1, 20),
        "compute": number(values.get("compute"), "work between barriers (s)", float, 0, 60),
        "rate": number(values.get("rate"), "break rate", float, 0, 1),
        "seed": whole(values.get("seed"), "seed", 0, MAX_SEED),
        "comm": whole(values.get("comm"), "communicator", ALL_END_NODES, 10**7),
        "k": whole(values.get("k"), "K", -MAX_K, MAX_K),
        "numbering": choice(values.get("numbering"), NUMBERINGS, "numbering"),
        "sweep": choice(values.get("sweep"), (QUICK_MODE, FULL_MODE), "sweep"),
        "part": read_part_value(values.get("part")),
        "compare": choice(values.get("compare") or "", ("", *ALGORITHMS.names), "algorithm to compare with"),
    }


def read_part_value(value) -> str | None:
    """The drawn part's form checked (None, ``whole``, ``overview`` or ``group:N``); whether the fabric has it is
    :func:`chosen_part`'s question."""
    if value is None or value in ("whole", OVERVIEW):
        return value
    if isinstance(value, str) and value.startswith("group:") and value[6:].isdigit() and len(value) <= 14:
        return f"group:{int(value[6:])}"
    raise VizcollError(f"unknown part to draw {str(value)[:40]!r}: choose the whole fabric, the overview or a group")


def chosen_part(scenario: Scenario, value) -> str | None:
    """The part the user chose, checked against the scenario's fabric (VizcollError names a part it does not
    have): None for the natural one (so that it is not stored) and always on a grid (the page draws the grid)."""
    value = read_part_value(value)
    topo = topology_of(scenario)
    if value is None or is_grid(topo):
        return None
    part = read_part(value, scenario, topo)
    return None if part == natural_part(topo) else part


def drawn_part(scenario: Scenario, topo: Topology, stored) -> str:
    """What the run's drawing shows off a grid: the stored part when the fabric has it, else the natural one (the
    whole fabric, or a large one's overview), as :func:`vizcoll.ui.models.parts.drawn_view` reads it."""
    try:
        part = read_part(stored, scenario, topo)
    except VizcollError:
        part = None
    return part or natural_part(topo)


def defaults_for(grid: bool) -> dict:
    """:data:`DEFAULTS`, with Tree as the algorithm on a fabric that is not a grid (DLCT needs one)."""
    return DEFAULTS if grid else DEFAULTS | {"algo": NOT_GRID_ALGO}


def stored_params(scenario: Scenario, grid: bool) -> dict:
    """The scenario's page parameters checked (raises VizcollError on a forged value)."""
    return read_params(page_params(scenario, PAGE, defaults_for(grid)))


def shown_params(scenario: Scenario, grid: bool) -> dict:
    """The parameters for the controls: each bad stored value replaced by its default (never raises)."""
    return store.shown_params(scenario, PAGE, defaults_for(grid), read_params)


# ---------------------------------------------------------------- the scenario's fabric
def scenario_is_grid(scenario: Scenario) -> bool:
    return is_grid(topology_of(scenario))


def grid_shape(scenario: Scenario, topo: Topology) -> tuple[int, int, int]:
    """(rows, cols, neighbors) of a grid scenario: its spec's, else read off the switches' x / y."""
    if not scenario.ref and scenario.spec.partition(":")[0] in ("mesh", "grid"):
        try:
            _, spec = parse_spec(scenario.spec)
            rows, cols = spec.get("dims", (4, 4))
            return int(rows), int(cols), int(spec.get("neighbors", 4))
        except (VizcollError, ValueError):
            pass
    sw = topo.switches
    x, y = topo.attr("x")[sw], topo.attr("y")[sw]
    rows, cols = (int(y.max()) + 1, int(x.max()) + 1) if len(sw) else (0, 0)
    s = topo.kind == SWITCH
    between = s[topo.link_a] & s[topo.link_b]
    xa, xb = topo.attr("x")[topo.link_a[between]], topo.attr("x")[topo.link_b[between]]
    ya, yb = topo.attr("y")[topo.link_a[between]], topo.attr("y")[topo.link_b[between]]
    return rows, cols, 8 if bool(np.any((xa != xb) & (ya != yb))) else 4


def grid_spec(rows: int, cols: int, neighbors: int) -> str:
    return f"mesh:{rows}x{cols},neighbors={neighbors},hosts=0"


def grid_scenario(scenario: Scenario, rows: int, cols: int, neighbors: int) -> Scenario:
    """The shared scenario replaced by the page's grid preset (its page parameters kept).

    Resizing a grid keeps its breaks: they name links by their ends and ports,
    so a break stays on its link, or is listed as missing when the link is
    gone. A fabric that was not a grid is replaced without its breaks.
    """
    fresh = Scenario(spec=grid_spec(rows, cols, neighbors), params=scenario.params_for_new_fabric())
    if scenario_is_grid(scenario):
        fresh = replace(fresh, broken=list(scenario.broken))
    return fresh


def random_breaks(scenario: Scenario, rate: float, seed: int) -> Scenario:
    """The scenario with ``rate`` of its switch-to-switch links broken at random (seeded), never cutting the
    switches apart; the other breaks are repaired."""
    fabric = fabric_of(scenario)
    if fabric.n_links > MAX_RANDOM_LINKS:
        raise VizcollError(
            f"Break at random works on fabrics up to {MAX_RANDOM_LINKS:,} links "
            f"(this one has {fabric.n_links:,}); break links on the Topology page"
        )
    topo = fabric.copy()
    labels = [topo.link_label(topo.link_row(lid)) for lid in break_links(topo, rate, seed, keep_connected=True)]
    return scenario.with_breaks(labels)


def drawn_breaks(scenario: Scenario, drawn) -> Scenario:
    """The scenario with exactly the breaks a Break at random job drew (``{"broken": [labels], ...}``, a store
    from the browser: each label is checked against the fabric, as a clicked link)."""
    broken = drawn.get("broken") if isinstance(drawn, dict) else None
    if not (isinstance(broken, list) and len(broken) <= MAX_RANDOM_LINKS and all(isinstance(b, str) for b in broken)):
        raise VizcollError("the links drawn at random are not a list of link names")
    return scenario.with_breaks(broken)


def processes_of(scenario: Scenario, topo: Topology, comm: int) -> tuple[list[int], str]:
    """The barrier's processes on a fabric that is not a grid: the end nodes of communicator ``comm`` (every end
    node when ``comm`` is :data:`ALL_END_NODES` or the scenario has none), and a sentence saying so."""
    comms = scenario.communicators(topo)
    if comms is None or len(comms) == 0 or comm == ALL_END_NODES:
        nodes = topo.endpoints.tolist()
        why = "" if comm == ALL_END_NODES else " (the scenario has no communicator)"
        text = f"every end node{why}: {plural(len(nodes), 'process')}"
    else:
        if not 0 <= comm < len(comms):
            raise VizcollError(
                f"communicator {comm} does not exist: the scenario has {len(comms)} (0–{len(comms) - 1})"
            )
        nodes, ranks = communicator_processes(comms, comm), len(comms[comm])
        text = f"the end nodes of communicator {comm}: {plural(len(nodes), 'process')}"
        if len(nodes) < ranks:
            text += f" (its {plural(ranks, 'rank')} share them: one barrier process per end node)"
    if len(nodes) < 2:
        raise VizcollError(f"a barrier needs at least 2 processes; {text.split(':')[0]} gives {len(nodes)}")
    if len(nodes) > MAX_PROCESSES:
        raise VizcollError(
            f"the page runs barriers of up to {MAX_PROCESSES:,} processes; {text} — choose a smaller "
            "communicator (Topology page) or run python -m vizcoll barrier"
        )
    return nodes, text


def too_many(algo: str, barriers: int, n: int, groups: int) -> str:
    """Why the page does not run ``barriers`` barriers of ``algo`` among ``n`` processes under ``groups`` leaf
    switches (their messages above :data:`MAX_MESSAGES`), or "" when it does."""
    cls = algorithm(algo)
    messages = barriers * cls.messages_per_barrier(n, groups)
    if messages <= MAX_MESSAGES:
        return ""
    return (
        f"{plural(barriers, 'barrier')} of {cls.label} among {plural(n, 'process')} send {messages:,} "
        f"messages; the page plays runs of up to {MAX_MESSAGES:,} (choose fewer barriers, another algorithm or a "
        "communicator, or run python -m vizcoll barrier)"
    )


def _option(label: str, value, why: str, off: bool = False) -> dict:
    """A dropdown choice, disabled and saying ``why`` when the page would not run it (or disabled: ``off``)."""
    return {"label": f"{label} ({why})" if why else label, "value": value, "disabled": bool(why) or off}


def algo_options(scenario: Scenario, topo: Topology | None) -> list[dict]:
    """The algorithm choices: on a fabric that is not a grid the DLCT variants are disabled (they need the grid's
    numbering), and so is an algorithm whose run the page would not play (:func:`too_many`); every one without a
    fabric (``topo`` None: the scenario cannot be built, the page says why)."""
    if topo is None or is_grid(topo):
        return [_option(cls.label, name, "") for name, cls in ALGORITHMS.items()]
    p = shown_params(scenario, False)
    try:
        nodes = processes_of(scenario, topo, p["comm"])[0]
    except VizcollError:
        nodes = []
    n, groups = len(nodes), len(np.unique(leaf_switches(topo, nodes)))  # the blocks off a grid

    def why(algo: str) -> str:
        if ALGORITHMS[algo].grid_only:
            return "needs a grid"
        return "too many messages" if n and too_many(algo, p["barriers"], n, groups) else ""

    return [_option(cls.label, name, why(name)) for name, cls in ALGORITHMS.items()]


def comm_options(scenario: Scenario, topo: Topology) -> list[dict]:
    """The processes a barrier on a fabric that is not a grid can run on: every end node, or a communicator; a
    choice the page would not run (more than :data:`MAX_PROCESSES` processes, or :func:`too_many` messages for the
    chosen algorithm and barriers) is disabled and says why."""
    try:
        comms = scenario.communicators(topo)
    except VizcollError:
        comms = None
    p = shown_params(scenario, is_grid(topo))
    leaf = leaf_switches(topo, np.arange(topo.n_nodes))

    def why(nodes: np.ndarray) -> str:
        if len(nodes) > MAX_PROCESSES:
            return f"more than {MAX_PROCESSES:,}"
        if algorithm(p["algo"]).grid_only or not too_many(
            p["algo"], p["barriers"], len(nodes), len(np.unique(leaf[nodes]))
        ):
            return ""
        return f"too many messages for {algorithm(p['algo']).label}"

    if is_grid(topo):  # its switches are the processors (the control is disabled): no "every end node (0)"
        return [_option(f"every switch of the grid ({plural(len(topo.switches), 'processor')})", ALL_END_NODES, "")]
    ends = topo.endpoints
    every = f"every end node ({len(ends):,})" if len(ends) else "no end node: the fabric has only switches"
    return [_option(every, ALL_END_NODES, why(ends), off=not len(ends))] + [
        _option(f"communicator {i} ({plural(len(comms[i]), 'process')})", i, why(np.unique(comms.nodes(i))))
        for i in range(min(len(comms) if comms is not None else 0, MAX_COMM_OPTIONS))
    ]


def chosen_comm(scenario: Scenario, comm, checked_first: bool = False):
    """The processes control's value when it is a choice, else the stored one.

    It is no choice when it is None (the dropdown drops its value when its
    options change, e.g. on a grid, which has no communicators) or when the
    scenario is a grid (the control is disabled there: the processes are the
    grid's switches). With ``checked_first`` only None is replaced, so that a
    forged value is still checked (and reported) by :func:`read_params`.
    """
    try:
        grid = scenario_is_grid(scenario)
    except VizcollError:
        grid = False
    if comm is None or (grid and not checked_first):
        return page_params(scenario, PAGE, defaults_for(grid))["comm"]
    return comm


def shown_comm(scenario: Scenario, offered: list) -> int | None:
    """The processes control's value after its options (``offered`` values) changed: the stored choice when
    offered, on a grid (disabled) "every end node", else None (left as it is); VizcollError for a scenario that
    cannot be built."""
    grid = scenario_is_grid(scenario)
    stored = page_params(scenario, PAGE, defaults_for(grid))["comm"]
    if stored in offered:
        return stored
    return ALL_END_NODES if grid else None


def digest(scenario: Scenario) -> str:
    """A short key of everything that determines the scenario's topology."""
    raw = json.dumps(scenario.source_key(), sort_keys=True, separators=(",", ":"), default=str).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def run_plan(scenario: Scenario) -> dict:
    """What the run view shows for this scenario (plain values, the key of the run); VizcollError when the
    scenario or the parameters cannot run.

    ``reason`` (DLCT on a fabric that is not a grid) is said in one line
    instead of a run.
    """
    topo = topology_of(scenario)
    grid = is_grid(topo)
    p = stored_params(scenario, grid)
    plan = {
        "digest": digest(scenario),
        "grid": grid,
        "algo": p["algo"],
        "judge": p["judge"],
        "barriers": p["barriers"],
        "compute": p["compute"],
        "seed": p["seed"],
        "processes": None,
        "part": None,
        "reason": "",
        "note": "",
    }
    if grid:
        rows, cols, neighbors = grid_shape(scenario, topo)
        if max(rows, cols) > MAX_SIDE:
            raise VizcollError(
                f"the scenario's grid is {rows}x{cols}: the page runs grids up to "
                f"{MAX_SIDE}x{MAX_SIDE} (choose a size and press Use this grid, or run python -m "
                "vizcoll barrier --size ...)"
            )
        plan["note"] = (
            f"The paper's grid model on the scenario's {rows}×{cols} grid ({neighbors} neighbors): "
            f"{plural(len(topo.switches), 'processor')}, the grid's switches."
        )
        return plan
    if algorithm(p["algo"]).grid_only:
        plan["reason"] = grid_only_reason(topo, p["algo"])
    nodes, text = processes_of(scenario, topo, p["comm"])
    if not plan["reason"] and (
        why := too_many(p["algo"], p["barriers"], len(nodes), len(np.unique(leaf_switches(topo, nodes))))
    ):
        raise VizcollError(why)
    plan["processes"] = nodes
    plan["note"] = f"The barrier runs on {text}, over min-hop routes that avoid the broken links."
    plan["part"] = drawn_part(scenario, topo, p["part"])
    if plan["part"] == OVERVIEW:
        plan["note"] += (
            f" The fabric has {topo.n_nodes:,} nodes: the run plays on its overview (a bundle of links "
            "lights with the messages crossing it, a block with its processes changing state); choose "
            'a group under "draw", or click a block, to see it alone node by node.'
        )
    return plan


# ---------------------------------------------------------------- engine calls (cached)
@cached
def _run(source: dict, plan: dict) -> dict:
    topo = topology_of(Scenario(**source))
    extra = {} if plan["processes"] is None else {"participants": plan["processes"]}
    report = job_progress()
    timeline, figures = run_barriers(
        topo,
        plan["algo"],
        barriers=plan["barriers"],
        compute=plan["compute"],
        seed=plan["seed"],
        judge=plan["judge"],
        record=True,
        progress=None if report is None else lambda share: report(round(1000 * share), 1000),
        **extra,
    )
    return {"timeline": timeline.to_dict(), "figures": figures}


def prepare_run(scenario: Scenario) -> None:
    """Compute the scenario's run (:func:`run_of`) into the cache, reporting to the running job
    (:func:`~vizcoll.ui.cache.job_progress`); a run that cannot be made is said by the view that reads it."""
    plan = page_keys(scenario)[0]
    if "error" not in plan and not plan["reason"]:
        with suppress(VizcollError):
            run_of(scenario, plan)


def run_of(scenario: Scenario, plan: dict) -> dict:
    """The run's timeline (as a dict, at every size: the page animates it on what it draws) and figures (the
    drawn part is no key of the run)."""
    return _run(scenario.source_key(), {k: v for k, v in plan.items() if k not in ("note", "part")})


@cached
def sweep_of(mode: str, neighbors: int) -> dict:
    """Run time of every algorithm over grid sizes and break rates (the quick or the full sweep)."""
    spec = FULL if mode == FULL_MODE else QUICK
    return sweep(
        SweepGrids(spec["sizes"], spec["rates"], spec["seeds"], neighbors),
        list(ALGORITHMS.names),
        progress=job_progress(),
        run=job_runner(),
    )


def run_sweep(mode: str, neighbors: int, progress=None) -> dict:
    """:func:`sweep_of` for a background job: computed once, ``progress(done, total)`` after every (size, rate)
    cell (:func:`vizcoll.barrier.benchmark.sweep`)."""
    with reporting(progress):
        return sweep_of(mode, neighbors)


def swept(mode: str, neighbors: int) -> dict | None:
    """The sweep if a job computed it, else None (a view never starts the long full sweep itself)."""
    return peek(sweep_of, mode, neighbors)


def read_sweep_key(key) -> tuple[str, int]:
    """(mode, neighbors) of the sweep view's key (a store: it comes from the browser); VizcollError if forged."""
    if not isinstance(key, dict):
        raise VizcollError("the sweep's key is not an object")
    return choice(key.get("mode"), (QUICK_MODE, FULL_MODE), "sweep"), read_neighbors(key.get("neighbors"))


@cached
def uq_of(rows: int, cols: int, neighbors: int, k: int, numbering_kind: str) -> dict:
    """IDs before/after ``round(k)``, both structures' Gather link sets and ``uq_round``."""
    ids_before = numbering(numbering_kind, rows, cols)
    ids_after = adjust(ids_before, k)
    out = {"before": ids_before.tolist(), "after": ids_after.tolist()}
    for structure in ("lct", "bst"):
        a = pattern_links(structure, ids_before, neighbors)
        b = pattern_links(structure, ids_after, neighbors)
        out[structure] = {
            "uq": uq_round(structure, ids_before, k, neighbors),
            "before": sorted([list(map(list, x)) for x in a]),
            "after": sorted([list(map(list, x)) for x in b]),
        }
    return out


@cached
def histogram_of(side: int, neighbors: int) -> dict:
    """The UQ(LCT) − UQ(BST) histogram of every shift on a side x side grid (the paper's Fig. 5)."""
    return uq_difference_histogram(side, neighbors)


LIGHT_RUN = 256
"""Runs of at most this many processes × barriers are computed in the request, larger ones in a background job
(measured: 16 processes, 3 barriers on TaihuLight; 16 x 16 grids per barrier; docs/design.md)."""


def heavy_run(plan: dict, topo) -> bool:
    """Whether the run ``plan`` (:func:`run_plan`) of the scenario on ``topo`` is a background job."""
    if "error" in plan or plan["reason"]:
        return False
    ranks = len(topo.switches) if plan["grid"] else len(plan["processes"] or [])
    return ranks * plan["barriers"] > LIGHT_RUN


def view_keys(scenario: Scenario) -> tuple[dict, dict, dict]:
    """(run plan, LCT/BST view key, sweep key) of the scenario; the run plan is ``{"error": message}`` when it
    cannot run (the other two then use the page's defaults)."""
    topo = topology_of(scenario)
    grid = is_grid(topo)
    try:
        plan = run_plan(scenario)
    except VizcollError as exc:  # the drawing still follows the part (a plan that changes when it does)
        plan = {"error": f"⚠ {exc}", "grid": grid, "part": scenario.params.get(PAGE, {}).get("part")}
    p = shown_params(scenario, grid)
    rows, cols, neighbors = grid_shape(scenario, topo) if grid else PRESET
    uq = {"rows": rows, "cols": cols, "neighbors": neighbors, "k": p["k"], "numbering": p["numbering"], "grid": grid}
    return plan, uq, {"mode": p["sweep"], "neighbors": neighbors}


def page_keys(scenario: Scenario) -> tuple[dict, dict, dict]:
    """:func:`view_keys`, computed on the server once per scenario and page parameters (cached): each view reads it
    from the scenario it gets; the browser holds the run plan's key only (:func:`~vizcoll.ui.store.key_of`)."""
    return _page_keys(plan_source(scenario, PAGE, scenario.params.get(PAGE, {})))


@cached
def _page_keys(key: dict) -> tuple[dict, dict, dict]:
    return view_keys(planned_scenario(key))


def read_uq_key(key) -> dict | None:
    """The LCT / BST view's key checked again (a store from the browser): None when absent or forged."""
    if not isinstance(key, dict) or set(key) != {"rows", "cols", "neighbors", "k", "numbering", "grid"}:
        return None
    try:
        checked = {
            "rows": whole(key["rows"], "rows", 0, UI_MAX_NODES),
            "cols": whole(key["cols"], "cols", 0, UI_MAX_NODES),
            "neighbors": read_neighbors(key["neighbors"]),
            "k": whole(key["k"], "K", -MAX_K, MAX_K),
            "numbering": choice(key["numbering"], NUMBERINGS, "numbering"),
            "grid": key["grid"],
        }
    except VizcollError:
        return None
    return checked if checked == key and isinstance(key["grid"], bool) else None


def histogram_side(key: dict) -> int:
    """The square grid of the UQ histogram: the scenario's grid if square and at most UQ_SIDE, else 4."""
    return key["rows"] if key["rows"] == key["cols"] and 2 <= key["rows"] <= UQ_SIDE else 4


# ---------------------------------------------------------------- the GOAL export
@cached
def _grid_goal(source: dict, algo: str, judge: str) -> str:
    topo = topology_of(Scenario(**source))
    timeline, figures = run_barriers(topo, algo, barriers=1, compute=0.0, judge=judge)
    if figures.get("time") is None:
        raise VizcollError(
            f"one {algorithm(algo).label} barrier does not complete on this grid: {figures.get('failure')}"
        )
    what = (
        f"every hop of one {algorithm(algo).label} barrier on the scenario's grid "
        f"({plural(len(topo.switches), 'switch')}, {plural(int(topo.broken.sum()), 'broken link')}); "
        "rank i = the grid's switch i"
    )
    return dumps(hop_schedule(timeline, topo.switches.tolist(), 1, what), comment=f"written by vizcoll: {what}")


def goal_file(scenario: Scenario) -> dict:
    """The current run's barrier as a GOAL file, ``{"content", "filename"}`` for a ``dcc.Download`` (see the module
    docstring); VizcollError says why it cannot be written."""
    plan = run_plan(scenario)
    algo = plan["algo"]
    if plan["grid"]:
        text = _grid_goal(scenario.source_key(), algo, plan["judge"])
    elif plan["reason"]:
        raise VizcollError(plan["reason"])
    else:
        what = f"the {algorithm(algo).label} barrier on {plural(len(plan['processes']), 'process')} (logical ranks)"
        text = dumps(barrier(algo, len(plan["processes"])), comment=f"written by vizcoll: {what}")
    return {"content": text, "filename": f"vizcoll-barrier-{algo.replace('+', '-')}.goal"}
