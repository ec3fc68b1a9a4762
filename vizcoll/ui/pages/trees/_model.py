"""The trees page's model: its parameters, the scenario's processes, the plan of the views, cached engine calls.

The page looks at the one shared :class:`~vizcoll.scenario.Scenario`: its
fabric is the scenario's (:func:`topology_of`, breaks applied;
:func:`fabric_of`, intact), its processes are one of the scenario's
communicators (``comm``; :data:`WORLD` = every process of the scenario,
:meth:`Scenario.placement`).

**Parameters** live in ``scenario.params["trees"]`` (:data:`DEFAULTS`).
Every control change is checked on the server (:func:`read_params`; the
browser is untrusted). A quick preset (:data:`PRESETS`) *replaces* the shared
scenario (the badge shows it).

**Broken links.** A tree's shape and mapping (which rank sits where) come
from the intact fabric. Its routes are, by default (``routes = "live"``),
computed over the live links, so every tree avoids the breaks; an edge left
without any live route is flagged and the ranks it cuts off are named.
``routes = "intact"`` shows the tree as built on the intact fabric: edges
whose route crosses a broken link are flagged, and the animation plays their
packets up to the break, where they are lost (a key moment).

**Limits.** Trees of up to :data:`MAX_PROCESSES` processes, the paper
fabrics' largest (a larger communicator gets a message pointing to
``python -m vizcoll tree``), the
aggregation animated on every tree the page builds (node by node on the
canvas: a fabric of up to ``SMALL_LIMIT`` nodes, or a group drawn alone; else
on the overview: :func:`timeline_of` measures it); k and the type II degree up to
:data:`MAX_K` / :data:`MAX_DEGREE`.

**Download GOAL** (:func:`goal_file`) writes the chosen type I tree of the
communicator (kind and k of the page) as LogGOPSim's GOAL schedule of a
broadcast, reduce or allreduce (``goal_op``) of ``goal_bytes`` bytes per
message (1 to 2^30): two page parameters of their own, because the cost
model's S may be 0 and GOAL messages need at least 1 byte. They do not change
the views.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from vizcoll.arrays import unique
from vizcoll.comm import Placement
from vizcoll.errors import VizcollError
from vizcoll.scenario import WORLD, Scenario
from vizcoll.schedule import dumps, tree_collective
from vizcoll.schedule.collectives import REDUCE, TREE_COLLECTIVES
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.model import Topology
from vizcoll.topology.rails import RAIL_MILLION
from vizcoll.trees import kinds
from vizcoll.trees.aggregation import Timing, simulate_aggregation
from vizcoll.trees.cost import CostParams, selection_table
from vizcoll.trees.groups import hierarchy_from_topology
from vizcoll.trees.metrics import LatencyModel, mapped_type_one, tree_metrics
from vizcoll.trees.routing import Routing
from vizcoll.trees.tree import Tree
from vizcoll.trees.typetwo import type_two_tree
from vizcoll.ui import store
from vizcoll.ui.cache import cached, is_cached, job_progress, reporting, timelines
from vizcoll.ui.forms import choice, number
from vizcoll.ui.jobs import JobProgress
from vizcoll.ui.limits import (
    MAX_OPTIONS,
    TREE_MAX_BYTES,
    TREE_MAX_DEGREE,
    TREE_MAX_K,
    TREE_MAX_PROCESSES,
)
from vizcoll.ui.store import fabric_of, hops_of, page_params, plan_source, planned_scenario, topology_of
from vizcoll.words import plural

__all__ = [
    "PAGE",
    "DEFAULTS",
    "KINDS",
    "ROUTES",
    "ANIM",
    "PRESETS",
    "MAX_K",
    "MAX_DEGREE",
    "MAX_PROCESSES",
    "TYPE1",
    "TYPE2",
    "LIVE",
    "INTACT",
    "CONTROL_KEYS",
    "COST_KEYS",
    "COST_FIELDS",
    "tree_name",
    "read_params",
    "shown_params",
    "cost_of",
    "placement_of",
    "comm_text",
    "comm_options",
    "digest",
    "tree_plan",
    "engine_key",
    "preset_scenario",
    "type_one",
    "type_two",
    "timeline_of",
    "selection",
    "GOAL_KEYS",
    "NOT_VIEWS",
    "compared_kind",
    "goal_file",
    "type_one_summary",
    "type_two_summary",
    "page_plan",
    "JOB_PROCESSES",
    "JOB_NODES",
    "heavy",
    "job_stages",
    "prepare",
    "computed",
    "holds_timeline",
]

PAGE = "trees"
TYPE1, TYPE2 = "type1", "type2"
LIVE, INTACT = "live", "intact"
# the page's parameters (scenario.params["trees"]): on the default scenario (a 3-level fat tree of 4-port
# switches, every one of its 16 processes) 4-ary trees give the paper's Fig. 7 setting
DEFAULTS = {
    "comm": WORLD,
    "kind": kinds.KARY,
    "k": 4,
    "degree": 4,
    "routes": LIVE,
    "l": 0.28,
    "delta": 4,
    "theta": 0.01,
    "beta": 16000.0,
    "gamma": 3.75e-05,
    "S": 0,
    "eps": 0.1,
    "anim": TYPE1,
    "goal_op": REDUCE.name,
    "goal_bytes": 8,
    "compare": "",  # the tree kind run side by side with the animated tree ("": none)
}
KINDS = kinds.LABELS  # name -> option label of every registered tree kind, read from the registry on each use
ROUTES = {
    LIVE: "avoid broken links (routes over live links)",
    INTACT: "as built on the intact fabric (flag the breaks)",
}
ANIM = {TYPE1: "the chosen type I tree", TYPE2: "the min-cost type II tree"}
BUILDERS = kinds.BUILDERS  # name -> build(nprocs, k, groups); hierarchical kinds get the placement's groups
COST_FIELDS = (
    ("l", "l (μs per link)"),
    ("delta", "δ (hops of a route)"),
    ("theta", "θ (μs per packet)"),
    ("beta", "β (bytes per μs)"),
    ("gamma", "γ (μs per byte)"),
    ("S", "S (message bytes)"),
    ("eps", "ε (μs, for F(k))"),
)
MAX_K, MAX_DEGREE, MAX_PROCESSES = TREE_MAX_K, TREE_MAX_DEGREE, TREE_MAX_PROCESSES  # reasons: vizcoll.ui.limits
MAX_COMM_OPTIONS = MAX_OPTIONS
MAX_TIME = 1e6  # μs: bound of the time parameters (l, θ, γ, ε) — larger is a typo, not a network
MAX_BANDWIDTH = 1e12  # bytes per μs
MAX_DELTA = 1000  # hops of one route
MAX_BYTES = TREE_MAX_BYTES  # message size S
# quick presets: each REPLACES the shared scenario (fabric, communicators, breaks) and sets the tree
PRESETS = {
    "fig7": (
        "Paper Fig. 7: fat tree of 4-port switches, 16 processes, 4-ary",
        {"spec": "fat-tree:radix=4,levels=3", "pattern": "grid2d:4x4"},
        {"comm": WORLD, "kind": kinds.KARY, "k": 4, "degree": 4},
    ),
    "sunway": (
        "Sunway supernode: 512 processes (2 per node), 32-ary",
        {"spec": "sunway-supernode", "ppn": 2},
        {"comm": WORLD, "kind": kinds.KARY, "k": 32, "degree": 16},
    ),
    "taihulight": (
        "TaihuLight (paper scale): 40,960 processes on 160 supernodes, hierarchical 32-nomial",
        {"spec": "pruned-fat-tree:preset=taihulight"},
        {"comm": WORLD, "kind": kinds.HIER_KNOMIAL, "k": 32, "degree": 16},
    ),
    "fat-tree-64": (
        "Fat tree of 64-port switches (paper scale): 65,536 processes, 2-ary",
        {"spec": "fat-tree:radix=64,levels=3"},
        {"comm": WORLD, "kind": kinds.KARY, "k": 2, "degree": 64},
    ),
    "rail-million": (
        "1M-endpoint rail-optimized cluster: 65,536 GPUs of its 1,048,576, hierarchical 8-nomial",
        {"spec": RAIL_MILLION, "pattern": "hier:8,procs=65536"},
        {"comm": WORLD, "kind": kinds.HIER_KNOMIAL, "k": 8, "degree": 64},
    ),
}
CONTROL_KEYS = ("comm", "kind", "k", "degree", "routes")
COST_KEYS = ("l", "delta", "theta", "beta", "gamma", "S", "eps")
GOAL_KEYS = ("goal_op", "goal_bytes")  # the GOAL export's collective and message size (not the views')
NOT_VIEWS = (*GOAL_KEYS, "compare")  # nor the tree kind run side by side (its own panel)
MAX_GOAL_BYTES = TREE_MAX_BYTES  # bytes per message of the GOAL export
METRIC_KEYS = (
    "height",
    "radius",
    "edge_links",
    "link_packets",
    "max_link",
    "max_switch_link",
    "cross_group",
    "latency_us",
    "flags",
)


def tree_name(kind: str, k: int) -> str:
    """``"4-ary"``, ``"4-nomial"``, ``"Zhao 4-nomial"``, ``"hierarchical 4-nomial"``: the kind's title."""
    return kinds.get(kind).title_for(k)


# ---------------------------------------------------------------- parameters (the browser is untrusted)
def _number(values: dict, key: str, what: str, kind, low, high):
    """``values[key]`` as a number of ``kind`` in [low, high]; a missing one (a number box the browser found out of
    its range, or a forged store) gets a message saying what to enter."""
    value = values.get(key)
    if value is None or value == "":
        raise VizcollError(f"{what}: enter {'a whole number' if kind is int else 'a number'} from {low:g} to {high:g}")
    if isinstance(value, bool):
        raise VizcollError(f"{what} must be a number, got {value!r}")
    return number(value, what, kind, low, high)


def read_params(values: dict) -> dict:
    """The page's parameters checked and canonical (plain JSON values); VizcollError names the first bad one."""
    num = lambda key, what, *args: _number(values, key, what, *args)  # noqa: E731
    params = {
        "comm": num("comm", "communicator", int, WORLD, 10**7),
        "kind": choice(values.get("kind"), KINDS, "tree kind"),
        "k": num("k", "k (width / base)", int, 2, MAX_K),
        "degree": num("degree", "the type II degree bound", int, 2, MAX_DEGREE),
        "routes": choice(values.get("routes"), ROUTES, "routes choice"),
        "l": num("l", "l (μs per link)", float, 0, MAX_TIME),
        "delta": num("delta", "δ (hops of a route)", int, 0, MAX_DELTA),
        "theta": num("theta", "θ (μs per packet)", float, 0, MAX_TIME),
        "beta": num("beta", "β (bytes per μs)", float, 0, MAX_BANDWIDTH),
        "gamma": num("gamma", "γ (μs per byte)", float, 0, MAX_TIME),
        "S": num("S", "S (message bytes)", int, 0, MAX_BYTES),
        "eps": num("eps", "ε (μs)", float, 0, MAX_TIME),
        "anim": choice(values.get("anim"), ANIM, "animated tree"),
        "goal_op": choice(values.get("goal_op"), TREE_COLLECTIVES.names, "GOAL collective"),
        "goal_bytes": num("goal_bytes", "GOAL message bytes", int, 1, MAX_GOAL_BYTES),
        "compare": choice(values.get("compare") or "", ("", *KINDS), "tree kind to compare with"),
    }
    if params["l"] <= 0:
        raise VizcollError("l (μs per link) must be > 0")
    if params["beta"] <= 0:
        raise VizcollError("β (bytes per μs) must be > 0")
    if cost_of(params, 2).b <= 0:
        raise VizcollError("b = θ + S/β + S·γ must be > 0: raise θ or S")
    return params


def shown_params(scenario: Scenario) -> dict:
    """The parameters for the controls: each bad stored value replaced by its default (never raises)."""
    return store.shown_params(scenario, PAGE, DEFAULTS, read_params)


def cost_of(params: dict, nprocs: int) -> CostParams:
    return CostParams(
        **{key: params[key] for key in ("l", "delta", "theta", "beta", "gamma", "S")}, P=nprocs, k=params["k"]
    )


def preset_scenario(scenario: Scenario, preset) -> Scenario:
    """The shared scenario replaced by a quick preset (the other pages' parameters kept)."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise VizcollError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    _, source, values = PRESETS[preset]
    return Scenario(**source, params={**scenario.params_for_new_fabric(), PAGE: shown_params(scenario) | values})


# ---------------------------------------------------------------- the scenario's processes and the plan
def placement_of(scenario: Scenario, comm: int) -> Placement:
    """Where communicator ``comm``'s processes run (:data:`WORLD`: every process of the scenario)."""
    return scenario.placement(fabric_of(scenario), comm)


def _names(topo: Topology, nodes, limit: int = 6) -> str:
    nodes = list(dict.fromkeys(int(n) for n in nodes))
    shown = ", ".join(topo.names[n] for n in nodes[:limit])
    return shown + (f" … and {len(nodes) - limit:,} more" if len(nodes) > limit else "")


def comm_text(scenario: Scenario, comm: int, placement: Placement) -> str:
    fabric = fabric_of(scenario)
    what = "every process of the scenario" if comm == WORLD else f"communicator {comm}"
    nodes = unique(placement.node)
    return (
        f"{what}: {plural(placement.nprocs, 'process')} on {plural(len(nodes), 'node')} "
        f"({_names(fabric, placement.node)})"
    )


def comm_options(scenario: Scenario) -> list[dict]:
    """Every process of the scenario, then its first :data:`MAX_COMM_OPTIONS` communicators."""
    fabric = fabric_of(scenario)
    try:
        world = f"every process ({placement_of(scenario, WORLD).nprocs:,})"
        comms = scenario.communicators(fabric)
    except VizcollError:
        world, comms = "every process", None
    options = [{"label": world, "value": WORLD}]
    if comms is not None:
        options += [
            {"label": f"communicator {i} ({plural(len(comms[i]), 'process')})", "value": i}
            for i in range(min(len(comms), MAX_COMM_OPTIONS))
        ]
    return options


def digest(scenario: Scenario) -> str:
    """A short key of everything the trees depend on besides the page's parameters."""
    raw = json.dumps(
        [scenario.source_key(), scenario.pattern, scenario.ppn, scenario.lists],
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    ).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def compared_kind(scenario: Scenario) -> str:
    """The tree kind run side by side with the animated tree: the one chosen, else (an export asked for without a
    choice) the k-nomial tree, or beside a k-nomial tree the k-ary one."""
    p = read_params(page_params(scenario, PAGE, DEFAULTS))
    return p["compare"] or (kinds.KNOMIAL if p["kind"] != kinds.KNOMIAL or p["anim"] == TYPE2 else kinds.KARY)


def tree_plan(scenario: Scenario) -> dict:
    """What the views show (plain values); VizcollError when they cannot. The page reads it through
    :func:`page_plan`."""
    p = read_params(page_params(scenario, PAGE, DEFAULTS))
    placement = placement_of(scenario, p["comm"])
    n = placement.nprocs
    if n < 2:
        raise VizcollError(f"a tree needs at least 2 processes; {comm_text(scenario, p['comm'], placement)}")
    if n > MAX_PROCESSES:
        what = "every process of the scenario" if p["comm"] == WORLD else f"communicator {p['comm']}"
        raise VizcollError(
            f"{what} is "
            f"{n:,} processes: the page builds trees of up to {MAX_PROCESSES:,} (five trees, every "
            "edge routed over the fabric). Choose a smaller communicator, or use the command line "
            "(python -m vizcoll tree --topology ...)"
        )
    topo = topology_of(scenario)
    views = {key: value for key, value in p.items() if key not in NOT_VIEWS}
    return {"digest": digest(scenario), **views, "nprocs": n, "nodes": topo.n_nodes, "broken": int(topo.broken.sum())}


def engine_key(scenario: Scenario, plan: dict) -> dict:
    """Everything the engine calls depend on (their cache key): the scenario's fabric, communicators, the tree."""
    return {
        "source": scenario.source_key(),
        "pattern": scenario.pattern,
        "ppn": scenario.ppn,
        "lists": scenario.lists,
        "comm": plan["comm"],
        "k": plan["k"],
        "degree": plan["degree"],
        "cost": {key: plan[key] for key in ("l", "delta", "theta", "beta", "gamma", "S")},
    }


# ---------------------------------------------------------------- engine calls
def _scenario(key: dict) -> Scenario:
    return Scenario(**key["source"], pattern=key["pattern"], ppn=key["ppn"], lists=key["lists"])


def _routing(scenario: Scenario, routes: str):
    """(topology, min-hop table) the routes are computed on: the live fabric, or the intact one."""
    target = scenario if routes == LIVE else replace(scenario, broken=[])
    return topology_of(target), hops_of(target)


def _cost(key: dict, nprocs: int) -> CostParams:
    return CostParams(**key["cost"], P=nprocs, k=key["k"])


# ---------------------------------------------------------------- the plan, on the server
def page_plan(scenario: Scenario) -> dict:
    """The views' plan of ``scenario`` (:func:`tree_plan`, or ``{"error": text}`` when there is nothing to show),
    computed on the server once per trees digest and page parameters (cached): every callback of the page reads it
    from the scenario it gets, and the browser holds only its key (:func:`~vizcoll.ui.store.key_of`, the views'
    trigger)."""
    params = page_params(scenario, PAGE, DEFAULTS)
    return _plan(plan_source(scenario, PAGE, {key: params.get(key) for key in DEFAULTS if key not in NOT_VIEWS}))


@cached
def _plan(key: dict) -> dict:
    try:
        return tree_plan(planned_scenario(key))
    except VizcollError as exc:
        return {"error": f"⚠ {exc}"}


# ---------------------------------------------------------------- background jobs
JOB_PROCESSES = 2048
JOB_NODES = 50_000
"""The views of a plan with more than :data:`JOB_PROCESSES` processes or on a fabric of more than
:data:`JOB_NODES` nodes are a background job (progress bar, Cancel); smaller ones are computed in the request.

Measured on the 2-core test machine, each view's callback alone in a fresh process (as a web worker with a cold
cache answers it; the plan and the fabric built before), k = 2: none takes a second since every tree edge is
routed at once. In the request: 1,356 processes on the 1,570-node cluster of issue 23, 2,048 on
fat-tree:radix=40,levels=3 (18,000 nodes) and 2,048 on TaihuLight (46,144 nodes), each view well under a second
(the aggregation's player the most; the figures: docs/design.md). As a job: the 64-port fat tree (70,656
nodes) at any size, and every process of TaihuLight (40,960) or of the 64-port fat tree (65,536), a few seconds
(``benchmarks/pages.py``, docs/benchmarks.md, "Paper scale"). A job costs its process, its polls and a second
answer: the cluster's first frame in the browser came later as a job than in the request (``benchmarks/players.py``;
docs/design.md).
"""


def heavy(plan: dict) -> bool:
    """Whether ``plan``'s views are computed as a background job (see :data:`JOB_NODES`)."""
    return "error" not in plan and (plan["nprocs"] > JOB_PROCESSES or plan["nodes"] > JOB_NODES)


def _part(progress, index: int, parts: int):
    """Engine progress of part ``index`` of ``parts`` equal parts, as progress of the whole."""
    if progress is None:
        return None
    return lambda done, total: progress(index * max(total, 1) + done, parts * max(total, 1))


def job_stages(plan: dict) -> list[str]:
    """What a background job of ``plan`` does, stage by stage (the progress bar's text)."""
    return [
        *(f"building the {tree_name(kind, plan['k'])} tree" for kind in KINDS),
        "building the type II trees",
        "drawing the figures",
    ]


def prepare(key: dict, plan: dict, job: JobProgress) -> None:
    """Compute (and cache) the trees of ``plan`` one stage of ``job`` each, so that the views only read them."""
    for index, kind in enumerate(KINDS):
        with reporting(job.stage(index)):
            if not is_cached(type_one, key, kind, plan["routes"]):
                type_one(key, kind, plan["routes"])
    with reporting(job.stage(len(KINDS))):
        if not is_cached(type_two, key, plan["routes"]):
            type_two(key, plan["routes"])


def computed(key: dict, plan: dict) -> bool:
    """Whether the trees the figures of ``plan`` draw are computed already (by a background job, or a request), so
    that drawing them on another part of the fabric is quick."""
    return is_cached(type_one, key, plan["kind"], plan["routes"]) and is_cached(type_two, key, plan["routes"])


# ---------------------------------------------------------------- engine calls (cached)
@cached
def type_one(key: dict, kind: str, routes: str = LIVE) -> dict:
    """A type I tree of ``kind`` mapped on the scenario's fabric, routed over live links or as built on the intact
    fabric: the tree, its routes (flat arrays: a list per vertex of a paper-scale tree takes longer to make and
    to pickle than the routing), metrics, edges crossing broken links and cross-group links
    (:func:`vizcoll.trees.metrics.mapped_type_one`)."""
    scenario = _scenario(key)
    fabric, live = fabric_of(scenario), topology_of(scenario)
    placement = scenario.placement(fabric, key["comm"])
    groups = hierarchy_of({name: key[name] for name in COMM_KEYS}) if kinds.get(kind).hierarchical else None
    tree = BUILDERS[kind](placement.nprocs, key["k"], groups)
    routing, table = _routing(scenario, routes)
    built = mapped_type_one(
        tree,
        fabric,
        placement,
        Routing(routing, table),
        latency=LatencyModel(_cost(key, placement.nprocs), key["k"]),
        broken=live.link_id[live.broken].tolist(),
        progress=job_progress(),
        flat=True,
    )
    built["metrics"] = {name: built["metrics"][name] for name in METRIC_KEYS}
    return built


@cached
def type_one_summary(key: dict, kind: str, routes: str = LIVE) -> dict:
    """What the comparison and the sentences read of :func:`type_one`: its metrics without the packets per link
    and the edges crossing broken links (small: quick to read from the shared cache, unlike the routes)."""
    built = type_one(key, kind, routes)
    return {
        "metrics": {k: v for k, v in built["metrics"].items() if k != "link_packets"},
        "crossing": built["crossing"],
    }


@cached
def type_two_summary(key: dict, routes: str = LIVE) -> dict:
    """:func:`type_two` without its trees, their vertices' ranks and the packets per link (small, as above)."""
    two = type_two(key, routes)
    if not two["ok"]:
        return two
    metrics = {name: {k: v for k, v in m.items() if k != "link_packets"} for name, m in two["metrics"].items()}
    return {k: v for k, v in two.items() if k not in ("physical", "tree", "vertex_ranks", "links")} | {
        "metrics": metrics
    }


COMM_KEYS = ("source", "pattern", "ppn", "lists", "comm")  # what the processes and their groups depend on


@cached
def hierarchy_of(comm: dict) -> list:
    """The groups (node → leaf switch → pod) of the communicator's processes (:data:`COMM_KEYS` of an engine key),
    shared by the hierarchical kinds."""
    scenario = _scenario(comm)
    return hierarchy_from_topology(fabric_of(scenario), scenario.placement(fabric_of(scenario), comm["comm"]))


@cached
def type_two(key: dict, routes: str = LIVE) -> dict:
    """The physical and minimum-cost type II trees of the communicator (or why none could be built)."""
    scenario = _scenario(key)
    live = topology_of(scenario)
    topo, table = _routing(scenario, routes)
    placement = scenario.placement(fabric_of(scenario), key["comm"])
    progress = job_progress()
    result = type_two_tree(topo, placement.node, table=table, degree=key["degree"], progress=_part(progress, 0, 3))
    if not result.ok:
        return {"ok": False, "reason": result.reason}
    cost = _cost(key, placement.nprocs)
    metrics = {}
    for part, (name, tree) in enumerate((("physical", result.physical), ("tree", result.tree)), start=1):
        m = tree_metrics(tree, topo, table=table, latency=LatencyModel(cost), progress=_part(progress, part, 3))
        metrics[name] = {key: m[key] for key in METRIC_KEYS}
    return {
        "ok": True,
        "root": result.root,
        "physical": result.physical.to_dict(),
        "tree": result.tree.to_dict(),
        "physical_switches": result.physical_switches.tolist(),
        "tree_switches": result.tree_switches.tolist(),
        "vertex_ranks": result.vertex_ranks(),
        "links": list(result.links),
        "metrics": metrics,
        "crossing": sorted(set(live.link_id[live.broken].tolist()) & set(result.links)),
        "candidates": result.candidates,
    }


def timeline_of(key: dict, which: str, kind: str, routes: str) -> Timeline:
    """The aggregation timeline of the type I tree ``kind`` or of the min-cost type II tree (its events as
    columns), simulated: not cached here, the player's handle is (:func:`~vizcoll.ui.pages.trees._views.
    aggregation_core`), and the timeline waits in the shared cache by its ref (a paper-scale one is 100 MB
    pickled: stored once, not twice).

    Every tree the page builds plays. Measured on the 2-core test machine in the app (its cache; the tree built),
    then the player's handle on the overview (:func:`~vizcoll.ui.pages.trees._views.aggregation_handle`): every
    process of TaihuLight (40,960), hierarchical 32-nomial, 297,588 events in 115 steps; its 2-ary tree (the
    longest routes) 613,308 events; the 64-port fat tree's 65,536 processes 2-ary, 978,812 events, 1.0 GB at the
    peak: seconds each (the figures: docs/design.md). Above :data:`JOB_PROCESSES` processes the page
    computes it in a background job of its own, which the views' job orders as it ends (the trees are drawn without
    waiting for it: issue 44)."""
    scenario = _scenario(key)
    topo = topology_of(scenario)
    routed, table = _routing(scenario, routes)  # routes as built on the intact fabric stop at the breaks
    placement = scenario.placement(fabric_of(scenario), key["comm"])
    cost = _cost(key, placement.nprocs)
    if which == TYPE2:
        built = type_two(key, routes)
        tree, ranks = Tree(**built["tree"]), built["vertex_ranks"]
        title = f"Aggregation (sum) in the switches: min-cost type II tree, degree ≤ {key['degree']}"
    else:
        built = type_one(key, kind, routes)
        tree, ranks = Tree(**built["tree"]), [[r] for r in built["ranks"]]
        title = f"Aggregation (sum) along the {tree_name(kind, key['k'])} tree"
    return simulate_aggregation(
        topo, tree, ranks, timing=Timing(cost.l, cost.b), routing=Routing(routed, table), title=title
    )


def holds_timeline(ref: str) -> bool:
    """Whether the shared cache still holds a player's timeline ``ref`` (:data:`vizcoll.ui.cache.timelines`), asked
    without loading it: a handle cached longer than its timeline must put it back."""
    return timelines.holds(ref)


@cached
def selection(cost: dict, nprocs: int, k: int) -> list[dict]:
    """Table 3 (tree type and width per switch degree and packet size) for the cost model ``cost``."""
    return selection_table(CostParams(**cost, P=nprocs, k=k), P=nprocs)


def goal_file(scenario: Scenario) -> dict:
    """The chosen type I tree's collective as a GOAL file, ``{"content", "filename"}`` for a ``dcc.Download``
    (VizcollError when the page's parameters or the communicator cannot make one)."""
    plan = tree_plan(scenario)
    p = read_params(page_params(scenario, PAGE, DEFAULTS))
    placement = placement_of(scenario, plan["comm"])
    groups = hierarchy_from_topology(fabric_of(scenario), placement) if kinds.get(plan["kind"]).hierarchical else None
    tree = BUILDERS[plan["kind"]](placement.nprocs, plan["k"], groups)
    name = tree_name(plan["kind"], plan["k"])
    what = (
        f"{p['goal_op']} of {p['goal_bytes']:,} bytes along the {name} tree of "
        f"{'every process' if plan['comm'] == WORLD else 'communicator ' + str(plan['comm'])} "
        f"({plural(placement.nprocs, 'rank')})"
    )
    text = dumps(tree_collective(tree, p["goal_op"], p["goal_bytes"]), comment=f"written by vizcoll: {what}")
    return {"content": text, "filename": f"vizcoll-trees-{p['goal_op']}-{name.replace(' ', '-').lower()}.goal"}
