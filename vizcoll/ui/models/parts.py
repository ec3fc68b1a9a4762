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

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.topology.blocks import Blocks, blocks, subfabric
from vizcoll.topology.layout import positions
from vizcoll.topology.model import Topology
from vizcoll.ui.cache import cached
from vizcoll.ui.limits import DRAWN_NODES
from vizcoll.ui.store import positions_of, topology_of
from vizcoll.words import plural

__all__ = ["OVERVIEW", "WHOLE", "MAX_PART_OPTIONS", "FabricView", "natural_part", "fabric_groups", "read_part",
           "part_options", "view_of", "drawn_view"]

OVERVIEW, WHOLE = "overview", "whole"
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


def part_options(scenario: Scenario, topo: Topology) -> list[dict]:
    """The parts a dropdown offers: the whole fabric (when small), the overview, then each group alone."""
    options = [{"label": "overview (blocks and bundles of links)", "value": OVERVIEW}]
    if topo.n_nodes <= DRAWN_NODES:
        options.insert(0, {"label": "whole fabric", "value": WHOLE})
    groups = list(fabric_groups(scenario).items())[:MAX_PART_OPTIONS]
    return options + [{"label": f"{label} alone", "value": f"group:{g}"} for g, label in groups]


def read_part(value, scenario: Scenario, topo: Topology) -> str | None:
    """The part to draw, checked: None (the natural one), ``whole``, ``overview`` or ``group:N``."""
    if value is None:
        return None
    if value == WHOLE:
        if topo.n_nodes > DRAWN_NODES:
            raise VizcollError(f"the whole fabric is drawn up to {DRAWN_NODES:,} nodes (this one has "
                               f"{topo.n_nodes:,}): choose the overview or one group")
        return WHOLE
    if value == OVERVIEW:
        return OVERVIEW
    if isinstance(value, str) and value.startswith("group:") and len(value) < 20:
        number = value[6:]
        if number.isdigit() and int(number) in fabric_groups(scenario):
            return f"group:{int(number)}"
        raise VizcollError(f"the fabric has no group {number[:12]!r}")
    raise VizcollError(f"unknown part {str(value)[:40]!r}; choose the whole fabric, the overview or a group")


@cached
def _group(source: dict, group: int) -> tuple[Topology, np.ndarray, np.ndarray, np.ndarray, str]:
    """One group cut out of the scenario's fabric (breaks applied) with the switches of no group it is linked to
    (a pod's uplinks to the top switches), laid out alone, and its name."""
    scenario = Scenario(**source)
    topo, part = topology_of(scenario), _blocks({**source, "broken": []})
    node_group = part.group[part.of]
    members = node_group == group
    ends = np.r_[topo.link_b[members[topo.link_a]], topo.link_a[members[topo.link_b]]]
    sub, kept, rows = subfabric(topo, np.r_[np.flatnonzero(members), ends[node_group[ends] < 0]])
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
    sub, sub_pos, rows, kept, name = _group(scenario.source_key(), int(part.split(":", 1)[1]))
    return FabricView(part, sub, sub_pos, rows, kept, None, name)
