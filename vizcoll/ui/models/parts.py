"""Which part of the scenario's fabric a drawing shows: the whole fabric, its overview, or one pod drawn alone.

A fabric of up to ``DRAWN_NODES`` nodes is drawn whole; a larger one opens on its **overview** (its blocks and
bundles of links, :mod:`vizcoll.topology.blocks`), and the user drills into one **group** (``"group:7"``: a pod
of a fat tree, a group of a dragonfly, a plane of a torus; any block group of :func:`~vizcoll.topology.blocks.
blocks`), cut out with its own links, with the switches of no group it is linked to (a pod's top switches), and
drawn alone at a readable scale (its own layout). Every page drawing a large fabric (topology, trees,
multicast) offers the same parts and computes them here (:func:`view_of`, cached: drilling into a pod again
answers from the cache).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vizcoll.arrays import unique
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.topology import drill
from vizcoll.topology.blocks import Blocks, blocks, subfabric
from vizcoll.topology.layout import positions
from vizcoll.topology.model import Topology
from vizcoll.ui.cache import cached
from vizcoll.ui.limits import DRAWN_NODES
from vizcoll.ui.store import positions_of, topology_of
from vizcoll.words import plural

__all__ = [
    "OVERVIEW",
    "WHOLE",
    "MAX_PART_OPTIONS",
    "FabricView",
    "natural_part",
    "fabric_groups",
    "read_part",
    "part_options",
    "view_of",
    "drawn_view",
]

OVERVIEW, WHOLE, SERVER = "overview", "whole", "server:"
MAX_PART_OPTIONS = 2000  # groups offered in a dropdown at most (TaihuLight has 160 pods)


@dataclass
class FabricView:
    """What a drawing of ``part`` shows: ``topo`` (the whole fabric, or the part cut out) at ``pos``; ``rows``,
    the fabric's link row of each of its links; ``kept``, the fabric's node index of each of its nodes;
    ``overview``, the blocks of the whole fabric when the part is the overview (else None); ``name`` for people."""

    part: str
    topo: Topology
    pos: np.ndarray
    rows: np.ndarray
    kept: np.ndarray
    overview: Blocks | None
    name: str


def natural_part(topo: Topology) -> str:
    """What a drawing shows when the user chose nothing: the whole fabric if it is small, else its overview."""
    return WHOLE if topo.n_nodes <= DRAWN_NODES else OVERVIEW


@cached
def _blocks(source: dict) -> Blocks:
    scenario = Scenario(**source)
    return blocks(topology_of(scenario), positions_of(scenario))


def _key(scenario: Scenario) -> dict:
    return {**scenario.source_key(), "broken": []}  # breaks change no block


def fabric_groups(scenario: Scenario) -> dict[int, str]:
    """The fabric's groups (pods, dragonfly groups, torus planes...) and a name for each, with its size."""
    part = _blocks(_key(scenario))
    out: dict[int, str] = {}
    for g in sorted(set(part.group.tolist()) - {-1}):
        word = part.names[int(np.argmax(part.group == g))].split(",", 1)[0]
        out[g] = f"{word} ({plural(int(part.count[part.group == g].sum()), 'node')})"
    return out


def part_options(scenario: Scenario, topo: Topology, current: str | None = None) -> list[dict]:
    """The parts a dropdown offers: the whole fabric (when small), the overview, each group alone; on a fabric
    whose groups nest (a rail's pods, a pod's leaves: :mod:`vizcoll.topology.drill`), also the parts above the
    ``current`` one and those in it (a leaf's servers, each with its NICs on every rail)."""
    options = [{"label": "overview (blocks and bundles of links)", "value": OVERVIEW}]
    if topo.n_nodes <= DRAWN_NODES:
        options.insert(0, {"label": "whole fabric", "value": WHOLE})
    groups = list(fabric_groups(scenario).items())[:MAX_PART_OPTIONS]
    options += [{"label": f"{label} alone", "value": f"group:{g}"} for g, label in groups]
    path = _path(current) if current else None
    if path and drill.levels(topo)[1:]:
        options += _inner_options(topo, path)
    elif isinstance(current, str) and current.startswith(SERVER):
        options.append({"label": f"server {current[len(SERVER) :]}: its NICs on every rail", "value": current})
    return options[:MAX_PART_OPTIONS]


def _inner_options(topo: Topology, path: tuple[int, ...]) -> list[dict]:
    """The parts above ``path`` (but the fabric's groups) and those in it."""
    above = [path[:depth] for depth in range(2, len(path) + 1)]
    out = [{"label": f"{drill.path_text(topo, p)} alone", "value": _part(p)} for p in above]
    inside = drill.children(topo, path)
    word = drill.levels(topo)[len(path)][1] if inside else ""
    out += [
        {"label": f"{drill.path_text(topo, path)}, {word} {g} ({plural(n, 'node')}) alone", "value": _part((*path, g))}
        for g, n in inside.items()
    ]
    if not inside and "server" in topo.node_attrs:
        servers = unique(topo.attr("server")[drill.members(topo, path)])
        out += [
            {"label": f"server {s}: its NICs on every rail", "value": f"{SERVER}{s}"}
            for s in servers[servers >= 0].tolist()
        ]
    return out


def _path(value) -> tuple[int, ...] | None:
    """``"group:3/group:5"`` as ``(3, 5)``; None when it is not a path of groups."""
    if not isinstance(value, str) or len(value) > 100:
        return None
    steps = value.split("/")
    if len(steps) > 4 or not all(step.startswith("group:") and step[6:].isdigit() for step in steps):
        return None
    return tuple(int(step[6:]) for step in steps)


def _part(path: tuple[int, ...]) -> str:
    return "/".join(f"group:{g}" for g in path)


def read_part(value, scenario: Scenario, topo: Topology) -> str | None:
    """The part to draw, checked: None (the natural one), ``whole``, ``overview``, ``group:N``, a path of groups
    (``group:3/group:5``, on a fabric whose groups nest) or ``server:N`` (a fabric of servers: its NICs)."""
    if value is None:
        return None
    if value == WHOLE:
        if topo.n_nodes > DRAWN_NODES:
            raise VizcollError(
                f"the whole fabric is drawn up to {DRAWN_NODES:,} nodes (this one has "
                f"{topo.n_nodes:,}): choose the overview or one group"
            )
        return WHOLE
    if value == OVERVIEW:
        return OVERVIEW
    if isinstance(value, str) and value.startswith(SERVER) and len(value) < 20:
        number = value[len(SERVER) :]
        if "server" in topo.node_attrs and number.isdigit() and 0 <= int(number) <= topo.attr("server").max():
            return f"{SERVER}{int(number)}"
        raise VizcollError(f"the fabric has no server {number[:12]!r}")
    path = _path(value)
    if path is None and isinstance(value, str) and value.startswith("group:") and len(value) < 20:
        raise VizcollError(f"the fabric has no group {value[6:18]!r}")
    if path is None:
        raise VizcollError(f"unknown part {str(value)[:40]!r}; choose the whole fabric, the overview or a group")
    if path[0] not in fabric_groups(scenario):
        raise VizcollError(f"the fabric has no group '{path[0]}'")
    for depth in range(1, len(path)):
        if depth >= len(drill.levels(topo)) or path[depth] not in drill.children(topo, path[:depth]):
            raise VizcollError(f"{drill.path_text(topo, path[:depth])} has no part {path[depth]}")
    return _part(path)


@cached
def _group(source: dict, group: int) -> tuple[Topology, np.ndarray, np.ndarray, np.ndarray, str]:
    """One group cut out of the scenario's fabric (breaks applied) with the switches of no group it is linked to
    (a pod's uplinks to the top switches), laid out alone, and its name."""
    scenario = Scenario(**source)
    topo, part = topology_of(scenario), _blocks({**source, "broken": []})
    node_group = part.group[part.of]
    members = node_group == group
    sub, kept, rows = subfabric(topo, np.flatnonzero(members | (drill.linked(topo, members) & (node_group < 0))))
    name = part.names[int(np.argmax(part.group == group))].split(",", 1)[0]
    return sub, positions(sub), rows, kept, name


def drawn_view(scenario: Scenario, page: str) -> FabricView:
    """The part of the fabric ``page`` draws: its stored ``part`` parameter when it is one of the fabric's, else
    the natural one (the whole fabric, or a large one's overview)."""
    topo = topology_of(scenario)
    try:
        part = read_part(scenario.params.get(page, {}).get("part"), scenario, topo)
    except VizcollError:
        part = None
    return view_of(scenario, part or natural_part(topo))


def view_of(scenario: Scenario, part: str) -> FabricView:
    """The drawing of ``part`` (checked by :func:`read_part`, or a natural part) of the scenario's fabric."""
    topo, pos = topology_of(scenario), positions_of(scenario)
    everything = np.arange(topo.n_links), np.arange(topo.n_nodes)
    if part == WHOLE:
        return FabricView(part, topo, pos, *everything, None, "the whole fabric")
    if part == OVERVIEW:
        return FabricView(part, topo, pos, *everything, _blocks(_key(scenario)), "overview")
    path = _path(part)
    if path is None or drill.levels(topo)[1:]:  # a server, or a part of a fabric whose groups nest
        focused = _focus(scenario.source_key(), part) if path else None
        if focused is not None:
            return FabricView(part, topo, pos, *everything, focused, drill.path_text(topo, path))
        sub, sub_pos, rows, kept, name = _cut(scenario.source_key(), part)
        return FabricView(part, sub, sub_pos, rows, kept, None, name)
    sub, sub_pos, rows, kept, name = _group(scenario.source_key(), path[0])
    return FabricView(part, sub, sub_pos, rows, kept, None, name)


@cached
def _focus(source: dict, part: str) -> Blocks | None:
    """The blocks of a nested part too large to draw node by node (None when it is drawn node by node)."""
    scenario = Scenario(**source)
    topo, path = topology_of(scenario), _path(part)
    if int(drill.members(topo, path).sum()) <= DRAWN_NODES or len(path) == len(drill.levels(topo)):
        return None
    return drill.focus(topo, path, part + "/")


@cached
def _cut(source: dict, part: str) -> tuple[Topology, np.ndarray, np.ndarray, np.ndarray, str]:
    """A nested part or a server (its NICs and the switches they hang from) cut out and laid out alone."""
    topo = topology_of(Scenario(**source))
    path = _path(part)
    if path is not None:
        nodes, name = drill.members(topo, path), drill.path_text(topo, path)
    else:
        server = int(part[len(SERVER) :])
        nodes = topo.attr("server") == server
        nodes |= drill.linked(topo, nodes)
        name = f"server {server}"
    sub, kept, rows = subfabric(topo, np.flatnonzero(nodes))
    return sub, positions(sub), rows, kept, name
