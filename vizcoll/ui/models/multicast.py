"""The multicast page's model: its parameters, the scenario's groups, their routes (cached).

The groups are the scenario's communicators, one multicast group per
communicator (its distinct end nodes); a scenario without communicators gets
:data:`NO_COMMUNICATORS`. The page's parameters live in
``scenario.params["multicast"]`` (:data:`DEFAULTS`: algorithm ``a`` and
``b``, the ``part`` shown — None for the whole fabric when small, else the
overview — and the highlighted ``group``). The quick presets
(:data:`PRESETS`) *replace* the shared scenario.
"""

from __future__ import annotations

from vizcoll.errors import VizcollError
from vizcoll.multicast.loads import switch_groups
from vizcoll.multicast.routing import ALGORITHMS, MulticastResult, communicator_groups, route
from vizcoll.scenario import Scenario
from vizcoll.topology.model import Topology
from vizcoll.ui.cache import cached
from vizcoll.ui.calls import hops_of, topology_of
from vizcoll.ui.figures.topology import SMALL_LIMIT

__all__ = ["PAGE", "DEFAULTS", "PRESETS", "OVERVIEW", "WHOLE", "NO_COMMUNICATORS", "MAX_GROUP_OPTIONS",
           "MAX_PROTOCOL_MEMBERS", "read_part", "read_group", "read_params", "stored_params", "natural_part",
           "preset_scenario", "clicked_label", "groups_of", "routed", "page_state"]

PAGE = "multicast"
OVERVIEW, WHOLE = "overview", "whole"
DEFAULTS = {"a": "minhop-new", "b": "fulb", "part": None, "group": None}
MAX_GROUP_OPTIONS = 2000
MAX_PROTOCOL_MEMBERS = 32
NO_COMMUNICATORS = ("No communicators: define them on the Topology page (a pattern such as grid2d:4x4, a file, "
                    "or end nodes clicked on the drawing); each communicator becomes one multicast group.")
PRESETS = {
    "pruned-fat-tree": {
        "label": "Pruned fat tree (teaching example)",
        "about": "a pruned fat tree with 4 shortest paths from each leaf to the top, "
                 "a 16×8 grid of communicators with 2 processes per node; MINIHOP-MC-new reaches max EFI 8 where "
                 "FULB-MC's link rotation keeps it at 3.",
        "spec": "pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4", "pattern": "grid2d:16x8",
        "ppn": 2, "a": "minhop-new", "b": "fulb"},
    "dragonfly": {
        "label": "Dragonfly (fulb vs fulb+global)",
        "about": "a dragonfly (a=4, p=2, h=2: 9 groups of 4 switches) with a 12×6 grid of communicators; "
                 "fulb+global prefers routes over fewer global links.",
        "spec": "dragonfly:a=4,p=2,h=2", "pattern": "grid2d:12x6", "ppn": 1, "a": "fulb", "b": "fulb+global"},
}
"""The page's quick presets; choosing one replaces the shared scenario (fabric, communicators, no breaks)."""


# ---------------------------------------------------------------- parameters (the browser is untrusted)
def _algo(value, which: str) -> str:
    if not isinstance(value, str) or value not in ALGORITHMS:
        raise VizcollError(f"unknown algorithm {which} {str(value)[:40]!r}; choose one of {', '.join(ALGORITHMS)}")
    return value


def read_part(value, topo: Topology) -> str | None:
    """The part of the fabric to draw: None (the natural one), ``whole``, ``overview`` or ``group:N``."""
    if value is None:
        return None
    if value == WHOLE:
        if topo.n_nodes > SMALL_LIMIT:
            raise VizcollError(f"the whole fabric is drawn up to {SMALL_LIMIT:,} nodes (this one has "
                               f"{topo.n_nodes:,}): choose the overview or one group of switches")
        return WHOLE
    if value == OVERVIEW:
        return OVERVIEW
    if isinstance(value, str) and value.startswith("group:") and len(value) < 20:
        number = value[6:]
        if number.isdigit() and int(number) in switch_groups(topo):
            return f"group:{int(number)}"
        raise VizcollError(f"the fabric has no switch group {number[:12]!r}")
    raise VizcollError(f"unknown part {str(value)[:40]!r}; choose the whole fabric, the overview or a group")


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


def read_params(values: dict, topo: Topology, n_groups: int) -> dict:
    """The page's parameters checked and canonical (plain JSON values); VizcollError names the first bad one."""
    return {"a": _algo(values.get("a"), "A"), "b": _algo(values.get("b"), "B"),
            "part": read_part(values.get("part"), topo), "group": read_group(values.get("group"), n_groups)}


def stored_params(scenario: Scenario, topo: Topology, n_groups: int) -> tuple[dict, str]:
    """The scenario's page parameters, each bad one replaced by its default, and a message naming them.

    A highlighted group that no longer exists (the communicators changed on the Topology page) is dropped
    without a message.
    """
    stored = dict(scenario.params.get(PAGE, {}))
    group = stored.get("group")
    if isinstance(group, int) and not isinstance(group, bool) and not 0 <= group < n_groups:
        stored["group"] = None
    out, bad = {}, []
    for key, default in DEFAULTS.items():
        try:
            out[key] = read_params(DEFAULTS | {key: stored.get(key, default)}, topo, n_groups)[key]
        except VizcollError as exc:
            out[key], bad = default, [*bad, str(exc)]
    return out, ("⚠ The page's stored settings: " + "; ".join(bad) + " — shown with the defaults.") if bad else ""


def natural_part(topo: Topology) -> str:
    return WHOLE if topo.n_nodes <= SMALL_LIMIT else OVERVIEW


def preset_scenario(name, scenario: Scenario) -> Scenario:
    """The scenario replaced by preset ``name`` (the other pages' settings kept)."""
    if not isinstance(name, str) or name not in PRESETS:
        raise VizcollError(f"unknown preset {str(name)[:40]!r}; choose one of {', '.join(PRESETS)}")
    p = PRESETS[name]
    return Scenario(spec=p["spec"], pattern=p["pattern"], ppn=p["ppn"],
                    params={**scenario.params, PAGE: DEFAULTS | {"a": p["a"], "b": p["b"]}})


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


def groups_of(scenario: Scenario) -> list[list[int]] | None:
    """Member nodes of each multicast group (one per communicator); None when the scenario has none."""
    return _groups(scenario.source_key(), _comm_key(scenario))


@cached
def _route(source: dict, comm: dict, algo: str) -> MulticastResult:
    scenario = Scenario(**source, **comm)
    return route(topology_of(scenario), _groups(source, comm) or [], algo, hops_of(scenario))


def routed(scenario: Scenario, algo: str) -> MulticastResult:
    """Every group of the scenario routed by ``algo`` on its fabric (breaks avoided), cached."""
    return _route(scenario.source_key(), _comm_key(scenario), algo)


def page_state(scenario: Scenario) -> tuple[Topology, list[list[int]] | None, dict, list[str]]:
    """(topology, groups or None, checked parameters, messages about the scenario) for the views."""
    topo = topology_of(scenario)
    notes = []
    try:
        groups = groups_of(scenario)
    except VizcollError as exc:
        groups = None
        notes.append(f"⚠ The scenario's communicators do not fit its fabric: {exc}")
    else:
        if groups is None:
            notes.append(NO_COMMUNICATORS)
    params, bad = stored_params(scenario, topo, len(groups or []))
    return topo, groups, params, [*notes, bad] if bad else notes
