"""What rails change, for the /trees and /multicast pages: the engine's comparisons on the scenario (cached).

On a rail fabric (:func:`~vizcoll.comm.rails.has_rails`) each page shows how its tree or its groups cross rails
under a rail-aware placement (the scenario's own: a server's GPUs on consecutive ranks) and a naive one (ranks fill
rail 0 first), by the engine calls of the command line (:func:`vizcoll.trees.rails.tree_rails`,
:func:`vizcoll.comm.rails.group_rails`). What is compared:

- **/trees** (:func:`trees_rails`): the page's tree (kind, k) over its communicator. The scenario's processes come
  from a pattern (or are every end node x ppn): the rail-aware placement is the scenario's, the naive one the same
  pattern placed rail-major; for communicator ``c`` of the pattern, communicator ``c`` of each (the same ranks of
  the pattern, on the NICs each placement gives them), for every process of the scenario the whole placement.
  Communicators drawn by hand or loaded from a file fix each process's NIC: there is no other placement of them,
  so only the page's own is counted (``compared`` False, ``why`` says so).
- **/multicast** (:func:`groups_rails`): the groups the page routes. A pattern's communicators are compared placed
  both ways; the fabric's multicast tables, communicators drawn by hand or loaded from a file, or no
  communicators (IPoIB's broadcast group of every end node) are counted as they are.

Neither depends on the scenario's broken links (the rails are the intact fabric's), so their cache keys leave them
out. Measured on the 2-core machine (busy with another test run), no cache, 65,536 processes, both placements
placed and their trees built, on the 1,048,576-NIC fabric ``rail-fat-tree:servers=131072,rails=8,radix=128``
(the engine: the app takes 200,000 nodes), every tree (2-ary, 4-ary, 4-nomial, Zhao's, the hierarchical 32-nomial,
half of whose time is grouping the processes by leaf switch) and a pattern's groups (grid3d:64x32x32, 5,120
groups; grid2d:1024x1024, every NIC) take under a second. Through the page's callback on
``rail-fat-tree:servers=16384,rails=8,radix=64`` (147,456 nodes), grid2d:256x256, the hierarchical 32-nomial:
under a second cold, next to nothing cached (the figures: docs/design.md).
"""

from __future__ import annotations

from collections.abc import Callable

from vizcoll.comm import PATTERNS
from vizcoll.comm.rails import cross_rail_groups, group_rails, has_rails, rail_fabric, rail_placements
from vizcoll.errors import VizcollError
from vizcoll.scenario import WORLD, Scenario
from vizcoll.trees.rails import tree_rails
from vizcoll.ui.cache import cached
from vizcoll.ui.store import fabric_of

__all__ = ["OWN", "LISTS", "TABLES", "NONE", "trees_rails", "groups_rails"]

OWN = "this placement"
"""The one row's name when only the scenario's own placement is counted."""
LISTS, TABLES, NONE = "lists", "tables", "none"
"""Why only the scenario's own placement is counted: its communicators are name lists (drawn by hand, or a file),
its groups are the fabric's multicast tables, or it has no communicators (/multicast's broadcast group)."""


def _intact(scenario: Scenario) -> dict:
    return {**scenario.source_key(), "broken": []}


def _built_in(pattern: str) -> str:
    """``pattern`` when it is one of the built-in kinds, as :meth:`Scenario.communicators` accepts them (a
    scenario comes from a stranger: never a path to a file on the server)."""
    if pattern and pattern.partition(":")[0] not in PATTERNS:
        raise VizcollError(f"unknown pattern {pattern[:40]!r}; use {', '.join(PATTERNS)}")
    return pattern


def trees_rails(scenario: Scenario, comm: int, kind: str, k: int) -> dict | None:
    """The rails of the scenario's fabric and the ``kind`` tree of width ``k`` over communicator ``comm`` under each
    placement (see the module docstring; ``{**tree_rails(...), "compared", "why"}``); None without rails.
    VizcollError when the communicator or the tree cannot be built."""
    return _trees_rails(_intact(scenario), _built_in(scenario.pattern), scenario.ppn, scenario.lists, comm, kind, k)


@cached
def _trees_rails(source: dict, pattern: str, ppn: int, lists, comm: int, kind: str, k: int) -> dict | None:
    scenario = Scenario(**source, pattern=pattern, ppn=ppn, lists=lists)
    fabric = fabric_of(scenario)
    if not has_rails(fabric):
        return None
    if lists is not None:
        placements = {OWN: scenario.placement(fabric, comm)}
    else:
        placements = rail_placements(fabric, ppn=ppn, pattern=pattern, comm=None if comm == WORLD else comm)
    return {**tree_rails(fabric, kind, k, placements), "compared": lists is None, "why": LISTS if lists else ""}


def groups_rails(scenario: Scenario, groups: Callable[[Scenario], list]) -> dict | None:
    """The rails of the scenario's fabric and its multicast groups spanning rails: ``{"rails", "servers",
        "cross_links", "placements": {name: {"order", "groups", "cross_rail", "max_rails"}}, "compared", "why"}``,
        a pattern's groups under each placement, else the groups as they are (see the module docstring); None without
        rails. ``groups`` gives the page's groups of a scenario (called only when they are counted as they are).
    VizcollError when the groups do not fit the fabric."""
    if scenario.pattern and scenario.lists is None and scenario.mcast_tables is None:
        return _pattern_rails(_intact(scenario), _built_in(scenario.pattern), scenario.ppn)
    fabric = fabric_of(scenario)
    if not has_rails(fabric):
        return None
    why = TABLES if scenario.mcast_tables is not None else LISTS if scenario.lists is not None else NONE
    counted = cross_rail_groups(fabric, groups(scenario))
    return {**rail_fabric(fabric), "placements": {OWN: {"order": why, **counted}}, "compared": False, "why": why}


@cached
def _pattern_rails(source: dict, pattern: str, ppn: int) -> dict | None:
    fabric = fabric_of(Scenario(**source))
    if not has_rails(fabric):
        return None
    return {**group_rails(fabric, pattern, ppn), "compared": True, "why": ""}
