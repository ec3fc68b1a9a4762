"""What rails change for an aggregation tree: its edges crossing rails, for each placement of its ranks.

On a rail fabric (:mod:`vizcoll.comm.rails`) a type I tree's edge joins two ranks; it crosses rails when their NICs
are on different rails, inside a server (NVLink) or between servers (the network must carry it rail to rail).
:func:`tree_rails` builds the tree of one kind for each placement (a hierarchical kind groups the processes of
that placement, as :func:`vizcoll.trees.groups.hierarchy_from_topology` does) and counts them: the one computation
behind ``python -m vizcoll tree --topology rail-fat-tree:...`` (its ``rails``) and the /trees page's rails panel.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from vizcoll.comm.placement import Placement
from vizcoll.comm.rails import cross_rail_edges, rail_fabric
from vizcoll.topology.model import Topology
from vizcoll.trees import kinds
from vizcoll.trees.groups import Nested, hierarchy_from_topology
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import vertex_ranks

__all__ = ["tree_edges", "tree_rails"]


def tree_edges(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """(child rank, parent rank) of every edge of a type I tree (its vertices' ranks: :func:`vertex_ranks`)."""
    ranks = np.asarray(vertex_ranks(tree), dtype=np.int64)
    parent = np.asarray(tree.parent, dtype=np.int64)
    child = np.flatnonzero(parent >= 0)
    return ranks[child], ranks[parent[child]]


def tree_rails(
    topo: Topology, kind: str, k: int, placements: Mapping[str, Placement], groups: Nested | None = None
) -> dict:
    """The rail fabric (:func:`~vizcoll.comm.rails.rail_fabric`) and, for each placement (name -> placement, e.g.
    :func:`~vizcoll.comm.rails.rail_placements`), the ``kind`` tree of width ``k`` over its ranks and its edges
    crossing rails: ``{"rails", "servers", "cross_links", "placements": {name: {"order", "edges", "cross_rail",
    "within_server", "between_servers"}}}``.

    ``groups``: the processes' nested rank lists for a hierarchical kind (the same for every placement); None
    groups each placement's processes by the fabric (node, leaf switch, ``group`` attribute: on a rail fabric the
    rail). The other kinds ignore them.

    >>> from vizcoll.comm.rails import rail_placements
    >>> from vizcoll.topology import from_spec
    >>> topo = from_spec("rail-fat-tree:servers=4,rails=2,radix=8")
    >>> out = tree_rails(topo, kinds.KARY, 2, rail_placements(topo))  # rank i's parent: rank (i - 1) // 2
    >>> out["placements"]["rail-aware"]  # rank i on server i // 2, rail i mod 2: 1->0 | 4->1, 5->2 cross
    {'order': 'linear', 'edges': 7, 'cross_rail': 3, 'within_server': 1, 'between_servers': 2}
    >>> out["placements"]["naive"]  # ranks 0-3 on rail 0, 4-7 on rail 1: 6->2, 7->3 | 4->1, 5->2 cross
    {'order': 'rail-major', 'edges': 7, 'cross_rail': 4, 'within_server': 2, 'between_servers': 2}
    """
    builder = kinds.get(kind)
    out = {**rail_fabric(topo), "placements": {}}
    for name, placement in placements.items():
        nested = None
        if builder.hierarchical:
            nested = groups if groups is not None else hierarchy_from_topology(topo, placement)
        tree = builder.build(placement.nprocs, k, nested)
        out["placements"][name] = {"order": placement.order, **cross_rail_edges(topo, placement, *tree_edges(tree))}
    return out
