"""The multicast page's model: its parameters, the scenario's groups, their routes (cached).

The groups are the scenario's communicators, one multicast group per
communicator (its distinct end nodes); a scenario without communicators routes
the IPoIB broadcast group of every end node, and says so (:data:`NO_COMMUNICATORS`). The page's parameters live in
``scenario.params["multicast"]`` (:data:`DEFAULTS`: algorithm ``a`` and
``b``, the ``part`` shown — None for the whole fabric when small, else the
overview — and the highlighted ``group``). The quick presets
(:data:`PRESETS`) *replace* the shared scenario.

**The fabric's multicast tables.** When the scenario carries an
``opensm.mcfdbs`` dump (``scenario.mcast_tables``, loaded with
:func:`with_tables`), the groups are the tables' groups, one per MLID in
ascending order (their members: end nodes, and switches listing port 0),
whatever the communicators are, and algorithm A may be :data:`TABLES`: the
tables themselves as a routing (:func:`vizcoll.multicast.tables.tables_result`),
so every view compares the links the fabric uses today with what B gives on
the same groups. :func:`without_tables` goes back to the communicators.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import numpy as np

from vizcoll.errors import VizcollError
from vizcoll.multicast.algorithms import ALGORITHMS, FULB, FULB_GLOBAL, MINHOP_NEW, SSSP
from vizcoll.multicast.groups import GroupRun, simulate_group
from vizcoll.multicast.routing import MulticastResult, communicator_groups, route
from vizcoll.multicast.tables import read_tables, tables_result
from vizcoll.scenario import MAX_TABLES_CHARS, Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.model import Topology
from vizcoll.topology.rails import RAIL_MILLION
from vizcoll.ui.cache import cached, is_cached, job_progress, reporting
from vizcoll.ui.forms import choice, decode_upload
from vizcoll.ui.jobs import JobProgress
from vizcoll.ui.models.parts import OVERVIEW, WHOLE, natural_part, read_part
from vizcoll.ui.security import MAX_REQUEST_BYTES
from vizcoll.ui.store import hops_of, topology_of
from vizcoll.words import plural

__all__ = [
    "PAGE",
    "DEFAULTS",
    "COMPARE",
    "PRESETS",
    "OVERVIEW",
    "WHOLE",
    "NO_COMMUNICATORS",
    "MAX_GROUP_OPTIONS",
    "MAX_PROTOCOL_MEMBERS",
    "TABLES",
    "TABLES_TITLE",
    "MAX_UPLOAD_BYTES",
    "MAX_STORE_CHARS",
    "LoadedTables",
    "read_part",
    "read_group",
    "read_params",
    "stored_params",
    "natural_part",
    "preset_scenario",
    "clicked_label",
    "groups_of",
    "routed",
    "page_state",
    "tables_of",
    "with_tables",
    "without_tables",
    "JOB_NODES",
    "needs_job",
    "is_routed",
    "route_by",
    "protocol_of",
    "protocol_timeline",
]

PAGE = "multicast"
DEFAULTS = {"a": MINHOP_NEW.name, "b": FULB.name, "part": None, "group": None, "compare": ""}
COMPARE = {"": "nothing (one run)", "groups": "A and B, the groups routed one by one"}
"""What side by side offers (``compare``): nothing, or A's and B's routes built up group by group
(:mod:`vizcoll.ui.pages.multicast._sides`)."""
MAX_GROUP_OPTIONS = 2000
MAX_PROTOCOL_MEMBERS = 32
JOB_NODES = 20_000
"""Fabrics of more nodes are routed in background jobs (A's, then B's; progress bars, Cancel), smaller ones in the
request. Measured on two cores, cold (2026-12, ``benchmarks/pages.py``; the figures: docs/design.md): the
18,000-node fat tree (radix 40) with SSSP-MC and FULB-MC, both algorithms and the figures in the request, under a
second; TaihuLight (46,144 nodes) and the radix-64 fat tree (70,656 nodes) about a second for A's first view,
then less for B and the comparison."""
TABLES = "tables"
"""Algorithm A's value for the fabric's own multicast tables (only when the scenario carries them)."""
TABLES_TITLE = "the fabric's tables"
"""How the figures, the summary and the lists name the tables (the result's ``algo``)."""
MAX_STORE_CHARS = 5_000_000
"""Largest scenario (JSON characters) the page stores with tables: the browser's session storage holds 5 MiB
(5,242,880 characters) per origin and refuses more, which would leave the store broken."""
MAX_UPLOAD_BYTES = min(2 * MAX_TABLES_CHARS, (MAX_REQUEST_BYTES - MAX_STORE_CHARS) * 3 // 4 - 64 * 1024)
"""What the upload box lets through: a file a little over the limit still reaches the server, which says why
(its request, the file in base64 beside the scenario, stays under the server's request limit)."""
NO_COMMUNICATORS = (
    "No communicators, so the one group every InfiniBand subnet has is routed: IPoIB's broadcast "
    "group (MLID 0xC000), which every end node joins. Define communicators on the Topology page (a "
    "pattern such as grid2d:4x4, a file, or end nodes clicked on the drawing): each becomes one "
    "multicast group."
)
PRESETS = {
    "pruned-fat-tree": {
        "label": "Pruned fat tree (teaching example)",
        "about": "a pruned fat tree with 4 shortest paths from each leaf to the top, "
        "a 16×8 grid of communicators with 2 processes per node; MINIHOP-MC-new reaches max EFI 8 where "
        "FULB-MC's link rotation keeps it at 3.",
        "spec": "pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4",
        "pattern": "grid2d:16x8",
        "ppn": 2,
        "a": MINHOP_NEW.name,
        "b": FULB.name,
    },
    "dragonfly": {
        "label": "Dragonfly (fulb vs fulb+global)",
        "about": "a dragonfly (a=4, p=2, h=2: 9 groups of 4 switches) with a 12×6 grid of communicators; "
        "fulb+global prefers routes over fewer global links.",
        "spec": "dragonfly:a=4,p=2,h=2",
        "pattern": "grid2d:12x6",
        "ppn": 1,
        "a": FULB.name,
        "b": FULB_GLOBAL.name,
    },
    "taihulight": {
        "label": "TaihuLight (paper scale): 3,584 groups",
        "about": "our model of TaihuLight (40,960 end nodes, 2 shortest paths from a leaf to each top switch) with "
        "the lines of a 40×32×32 grid as groups, as in the paper: SSSP-MC against FULB-MC.",
        "spec": "pruned-fat-tree:preset=taihulight",
        "pattern": "grid3d:40x32x32",
        "ppn": 1,
        "a": SSSP.name,
        "b": FULB.name,
    },
    "fat-tree-64": {
        "label": "Fat tree of 64-port switches (paper scale): 5,120 groups",
        "about": "a 3-level fat tree of 64-port switches (65,536 end nodes) with the lines of a 64×32×32 grid as "
        "groups: SSSP-MC against FULB-MC.",
        "spec": "fat-tree:radix=64,levels=3",
        "pattern": "grid3d:64x32x32",
        "ppn": 1,
        "a": SSSP.name,
        "b": FULB.name,
    },
    "rail-million": {
        "label": "1M-endpoint rail-optimized cluster: 1,088 groups",
        "about": "1,048,576 NICs on 8 rails (131,072 servers of 8 GPUs, no link between rails) with the rows and "
        "columns of a 1,024×64 grid of GPUs as groups: a column is every 64th GPU, all on one rail (8 "
        "columns share each rail's fat tree); a row is 64 consecutive GPUs on 8 servers and 8 rails, which "
        "no multicast tree joins (they meet over NVLink): MINHOP-MC-new against FULB-MC.",
        "spec": RAIL_MILLION,
        "pattern": "grid2d:1024x64",
        "ppn": 1,
        "a": MINHOP_NEW.name,
        "b": FULB.name,
    },
}
"""The page's quick presets; choosing one replaces the shared scenario (fabric, communicators, no breaks)."""


# ---------------------------------------------------------------- parameters (the browser is untrusted)
def _algo(value, which: str, tables: bool = False) -> str:
    allowed = (*ALGORITHMS, *((TABLES,) if tables else ()))  # read at every call: registered ones included
    if not isinstance(value, str) or value not in allowed:
        raise VizcollError(f"unknown algorithm {which} {str(value)[:40]!r}; choose one of {', '.join(allowed)}")
    return value


def read_group(value, n_groups: int) -> int | None:
    """The highlighted group: None, or a group number of the scenario."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise VizcollError(f"the highlighted group must be a group number, got {str(value)[:40]!r}")
    if not 0 <= value < n_groups:
        have = f"{n_groups} (0–{n_groups - 1})" if n_groups else "none"
        raise VizcollError(f"group {value} does not exist: the scenario has {have}")
    return value


def read_params(values: dict, scenario: Scenario, topo: Topology, n_groups: int, tables: bool = False) -> dict:
    """The page's parameters checked and canonical (plain JSON values); VizcollError names the first bad one.

    ``tables``: the scenario carries multicast tables, so A may be :data:`TABLES`. The part of the fabric to draw
    is one of :mod:`vizcoll.ui.models.parts`.
    """
    return {
        "a": _algo(values.get("a"), "A", tables),
        "b": _algo(values.get("b"), "B"),
        "part": read_part(values.get("part"), scenario, topo),
        "group": read_group(values.get("group"), n_groups),
        "compare": choice(values.get("compare") or "", tuple(COMPARE), "side-by-side choice"),
    }


def stored_params(scenario: Scenario, topo: Topology, n_groups: int) -> tuple[dict, str]:
    """The scenario's page parameters, each bad one replaced by its default, and a message naming them.

    A highlighted group that no longer exists (the communicators changed on the Topology page) is dropped
    without a message, and so is A = the tables of a scenario that no longer has them (a new fabric).
    """
    stored = dict(scenario.params.get(PAGE, {}))
    group = stored.get("group")
    if isinstance(group, int) and not isinstance(group, bool) and not 0 <= group < n_groups:
        stored["group"] = None
    tables = scenario.mcast_tables is not None
    if stored.get("a") == TABLES and not tables:
        stored["a"] = DEFAULTS["a"]
    out, bad = {}, []
    for key, default in DEFAULTS.items():
        try:
            out[key] = read_params(DEFAULTS | {key: stored.get(key, default)}, scenario, topo, n_groups, tables)[key]
        except VizcollError as exc:
            out[key], bad = default, [*bad, str(exc)]
    return out, ("⚠ The page's stored settings: " + "; ".join(bad) + " — shown with the defaults.") if bad else ""


def preset_scenario(name, scenario: Scenario) -> Scenario:
    """The scenario replaced by preset ``name`` (the other pages' settings kept)."""
    if not isinstance(name, str) or name not in PRESETS:
        raise VizcollError(f"unknown preset {str(name)[:40]!r}; choose one of {', '.join(PRESETS)}")
    p = PRESETS[name]
    return Scenario(
        spec=p["spec"],
        pattern=p["pattern"],
        ppn=p["ppn"],
        params={**scenario.params_for_new_fabric(), PAGE: DEFAULTS | {"a": p["a"], "b": p["b"]}},
    )


def clicked_label(click) -> str | None:
    """The ``a[pa]-b[pb]`` label of the clicked link; None for a click on no link (a node, the overview)."""
    points = click.get("points") if isinstance(click, dict) else None
    if not isinstance(points, list) or not points or not isinstance(points[0], dict):
        raise VizcollError("the browser sent a malformed click")
    label = points[0].get("customdata")
    if label is None:
        return None
    if not isinstance(label, str) or not label or len(label) > 1000:
        raise VizcollError("the browser sent a malformed click on a link")
    return label


# ---------------------------------------------------------------- engine calls (cached)
def _comm_key(scenario: Scenario) -> dict:
    return {"pattern": scenario.pattern, "ppn": scenario.ppn, "lists": scenario.lists}


@cached
def _groups(source: dict, comm: dict) -> list[list[int]] | None:
    scenario = Scenario(**source, **comm)
    comms = scenario.communicators(topology_of(scenario))
    return None if comms is None else [g.tolist() for g in communicator_groups(comms)]


def groups_of(scenario: Scenario) -> list[list[int]]:
    """Member nodes of each multicast group: one per MLID of the scenario's tables when it carries them, else
    one per communicator; with neither, the IPoIB broadcast group of every end node (:data:`NO_COMMUNICATORS`).
    VizcollError when they do not fit the fabric."""
    loaded = tables_of(scenario)
    if loaded is not None:
        if loaded.error:
            raise VizcollError(loaded.error)
        return loaded.groups
    groups = _groups(scenario.source_key(), _comm_key(scenario))
    return [topology_of(scenario).endpoints.tolist()] if groups is None else groups


@cached
def _route(source: dict, comm: dict, algo: str) -> MulticastResult:
    scenario = Scenario(**source, **comm)
    return route(topology_of(scenario), groups_of(scenario), algo, hops_of(scenario), progress=job_progress())


@cached
def _route_tables(source: dict, text: str, algo: str) -> MulticastResult:
    scenario = Scenario(**source)
    return route(topology_of(scenario), _loaded(source, text).groups, algo, hops_of(scenario), progress=job_progress())


def routed(scenario: Scenario, algo: str) -> MulticastResult:
    """Every group of the scenario routed by ``algo`` on its fabric (breaks avoided), cached; :data:`TABLES`:
    the scenario's multicast tables as they are."""
    if algo == TABLES:
        loaded = tables_of(scenario)
        if loaded is None or loaded.result is None:
            raise VizcollError(loaded.error if loaded else "the scenario has no multicast tables")
        return loaded.result
    if scenario.mcast_tables is not None:
        return _route_tables(scenario.source_key(), scenario.mcast_tables, algo)
    return _route(scenario.source_key(), _comm_key(scenario), algo)


# ---------------------------------------------------------------- the fabric's multicast tables
@dataclass
class LoadedTables:
    """The scenario's tables read on its fabric: as a routing, the groups, their MLIDs, warnings (or an error)."""

    result: MulticastResult | None
    groups: list[list[int]]
    mlids: list[int]
    warnings: list[str]
    error: str = ""


@cached
def _loaded(source: dict, text: str) -> LoadedTables:
    topo = topology_of(Scenario(**source))
    try:
        tables = read_tables(topo, text)
    except VizcollError as exc:
        return LoadedTables(None, [], [], [], str(exc))
    result, notes = tables_result(topo, tables, TABLES_TITLE)
    broken = np.flatnonzero((tables.efi > 0) & topo.broken).tolist()
    if broken:
        named = ", ".join(topo.link_label(r) for r in broken[:4]) + (", …" if len(broken) > 4 else "")
        notes.append(
            f"the tables use {plural(len(broken), 'link')} the scenario breaks ({named}): "
            "they were computed before the break, the algorithms route around it"
        )
    # members in fabric order (h8 before h10); routing does not depend on the order of a group's members
    return LoadedTables(
        result, [sorted(m) for m in tables.members.values()], list(tables.members), tables.warnings + notes
    )


def tables_of(scenario: Scenario) -> LoadedTables | None:
    """The scenario's multicast tables read on its fabric (cached); None when it carries none."""
    return None if scenario.mcast_tables is None else _loaded(scenario.source_key(), scenario.mcast_tables)


def with_tables(scenario: Scenario, contents) -> Scenario:
    """The scenario carrying the ``opensm.mcfdbs`` file of a ``dcc.Upload`` (``contents``: its data URL), with
    A = the tables and no highlighted group; VizcollError says why the file cannot be used."""
    limit = f"the limit is {MAX_TABLES_CHARS:,} bytes ({MAX_TABLES_CHARS >> 20} MB)"
    if isinstance(contents, str) and len(contents) > MAX_UPLOAD_BYTES * 4 // 3 + 1024:
        raise VizcollError(f"the file is larger than {MAX_UPLOAD_BYTES >> 20} MB; {limit}")
    raw = decode_upload(contents)
    if len(raw) > MAX_TABLES_CHARS:
        raise VizcollError(f"the file is {len(raw):,} bytes; {limit}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise VizcollError("the file is not text: load OpenSM's opensm.mcfdbs dump") from None
    if not text.strip():
        raise VizcollError("the file is empty")
    new = replace(scenario, mcast_tables=text).with_params(
        PAGE, {**scenario.params.get(PAGE, {}), "a": TABLES, "group": None}
    )
    loaded = tables_of(new)
    if loaded.error:
        raise VizcollError(loaded.error)
    if not loaded.groups:
        raise VizcollError("the file lists no multicast group (no 'Switch 0x…' with MLID lines)")
    size = len(json.dumps(new.to_dict(thin=True), separators=(",", ":")))
    if size > MAX_STORE_CHARS:
        raise VizcollError(
            f"the scenario with these tables would be {size / 1e6:.1f} MB; the browser keeps at most "
            f"{MAX_STORE_CHARS / 1e6:.0f} MB of scenario (session storage)"
        )
    return new


def without_tables(scenario: Scenario) -> Scenario:
    """The scenario without its multicast tables: the groups are the communicators again, A no longer the tables."""
    if scenario.mcast_tables is None:
        raise VizcollError("no multicast tables are loaded")
    params = dict(scenario.params.get(PAGE, {}))
    if params.get("a") == TABLES:
        params["a"] = DEFAULTS["a"]
    return replace(scenario, mcast_tables=None).with_params(PAGE, {**params, "group": None})


def needs_job(scenario: Scenario, params: dict) -> bool:
    """Whether the views of the scenario wait for a background job: a fabric of more than :data:`JOB_NODES`
    nodes whose routes by A or B no job has computed yet (once they are, the views are drawn in the request)."""
    if topology_of(scenario).n_nodes <= JOB_NODES:
        return False
    return not all(_computed(scenario, algo) for algo in (params["a"], params["b"]) if algo != TABLES)


def _computed(scenario: Scenario, algo: str) -> bool:
    if scenario.mcast_tables is not None:
        return is_cached(_route_tables, scenario.source_key(), scenario.mcast_tables, algo)
    return is_cached(_route, scenario.source_key(), _comm_key(scenario), algo)


def is_routed(scenario: Scenario, algo: str) -> bool:
    """Whether the scenario's groups routed by ``algo`` are at hand (cached, or the fabric's tables)."""
    return algo == TABLES or _computed(scenario, algo)


def route_by(scenario: Scenario, algo: str, job: JobProgress, stage: int = 0) -> None:
    """Route the groups by ``algo`` (cached) as stage ``stage`` of ``job``, so that the views only read them."""
    with reporting(job.stage(stage)):
        if not is_routed(scenario, algo):
            routed(scenario, algo)


def page_state(scenario: Scenario) -> tuple[Topology, list[list[int]] | None, dict, list[str]]:
    """(topology, groups or None, checked parameters, messages about the scenario) for the views."""
    topo = topology_of(scenario)
    notes = []
    loaded = tables_of(scenario)
    if loaded is not None:
        groups = None if loaded.error else loaded.groups
        if loaded.error:
            notes.append(
                f"⚠ The fabric's multicast tables do not fit the scenario's fabric: {loaded.error} — load "
                "the tables of this fabric, or forget them"
            )
        elif loaded.warnings:
            notes.append("⚠ The fabric's tables: " + "; ".join(loaded.warnings))
    else:
        try:
            groups = groups_of(scenario)
        except VizcollError as exc:
            groups = None
            notes.append(f"⚠ The scenario's communicators do not fit its fabric: {exc}")
        else:
            if _groups(scenario.source_key(), _comm_key(scenario)) is None:  # cached: no pattern parsed again
                notes.append(NO_COMMUNICATORS)
    params, bad = stored_params(scenario, topo, len(groups or []))
    return topo, groups, params, [*notes, bad] if bad else notes


def protocol_of(scenario: Scenario) -> Timeline | None:
    """The join/leave timeline of the highlighted group under B (the subnet manager sits on its tree's root; at
    most :data:`MAX_PROTOCOL_MEMBERS` members), None when no group is highlighted or it has no tree."""
    topo, groups, p, _ = page_state(scenario)
    if not groups or p["group"] is None:
        return None
    tree = routed(scenario, p["b"]).trees[p["group"]]
    if tree is None:
        return None
    members = tree.members[:MAX_PROTOCOL_MEMBERS]
    return simulate_group(GroupRun(members.tolist(), sm_node=tree.root, names=topo.names, seed=0))


def protocol_timeline(scenario: Scenario) -> dict | None:
    """:func:`protocol_of` as a timeline dict (None as it)."""
    timeline = protocol_of(scenario)
    return None if timeline is None else timeline.to_dict()
