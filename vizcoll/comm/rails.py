"""What rails change: how many tree edges and multicast groups cross rails, for a rail-aware and a naive placement.

On a rail-optimized fabric (:mod:`vizcoll.topology.rails`) NIC ``r`` of every server is on rail ``r``. Two
placements of ranks are compared (:data:`PLACEMENTS`):

- ``rail-aware`` (the default, ``order="linear"``): a server's GPUs are consecutive ranks, rank ``i`` on rail
  ``i mod R``; the ranks of one server are spread over the rails;
- ``naive`` (``order="rail-major"``): ranks fill rail 0 first (server by server), then rail 1, ...

A tree edge or a group *crosses rails* when its ranks' NICs are on different rails. A crossing between two GPUs of
one server goes over the server's NVLink (not modelled: it never enters the network); one between two servers needs
a path from one rail to the other, which only a fabric with ``cross=1`` (spine links between the rails) has:
without it the min-hop table says the pair is unreachable, and a multicast group spanning rails cannot be one
tree. So the counts are: ``cross_rail`` (all), ``within_server`` (over NVLink) and ``between_servers`` (the ones
the network must carry from rail to rail).

References
----------
[NVRA] NVIDIA Enterprise Reference Architecture, HGX AI Factory (H100, H200, B200), "Networking Physical
Topologies": GPUs on a rail-optimized compute fabric (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import numpy as np

from vizcoll.comm.communicators import Communicators
from vizcoll.comm.placement import Placement
from vizcoll.topology.model import Topology

__all__ = ["PLACEMENTS", "cross_rail_edges", "cross_rail_groups", "has_rails", "rail_fabric"]

PLACEMENTS = {"rail-aware": "linear", "naive": "rail-major"}
"""The compared placements and the :func:`~vizcoll.comm.place` order that makes each."""


def has_rails(topo: Topology) -> bool:
    """True for a fabric whose nodes carry a ``rail`` attribute with at least two rails (a rail fabric)."""
    rail = topo.node_attrs.get("rail")
    return rail is not None and len(np.unique(rail[rail >= 0])) > 1


def rail_fabric(topo: Topology) -> dict:
    """The rails of a rail fabric: ``{"rails", "servers", "cross_links"}`` (links between rails, live or not)."""
    rail = topo.attr("rail")
    server = topo.attr("server")
    cross = int((rail[topo.link_a] != rail[topo.link_b]).sum())
    return {"rails": int(len(np.unique(rail[rail >= 0]))), "servers": int(len(np.unique(server[server >= 0]))),
            "cross_links": cross}


def cross_rail_edges(topo: Topology, placement: Placement, child, parent) -> dict:
    """Tree edges ``child[i] -> parent[i]`` (ranks) whose ends are on different rails.

    Returns ``{"edges", "cross_rail", "within_server", "between_servers"}`` (see the module docstring).

    >>> from vizcoll.comm import place
    >>> from vizcoll.topology import from_spec
    >>> topo = from_spec("rail-fat-tree:servers=4,rails=2,radix=8")
    >>> chain = np.arange(1, 8), np.arange(7)  # rank i's parent is rank i - 1
    >>> cross_rail_edges(topo, place(topo), *chain)
    {'edges': 7, 'cross_rail': 7, 'within_server': 4, 'between_servers': 3}
    >>> cross_rail_edges(topo, place(topo, order="rail-major"), *chain)
    {'edges': 7, 'cross_rail': 1, 'within_server': 0, 'between_servers': 1}
    """
    a = placement.node[np.asarray(child, dtype=np.int64)]
    b = placement.node[np.asarray(parent, dtype=np.int64)]
    rail, server = topo.attr("rail"), topo.attr("server")
    cross = rail[a] != rail[b]
    inside = cross & (server[a] == server[b]) & (server[a] >= 0)
    return {"edges": len(a), "cross_rail": int(cross.sum()), "within_server": int(inside.sum()),
            "between_servers": int((cross & ~inside).sum())}


def cross_rail_groups(topo: Topology, comms: Communicators) -> dict:
    """Communicators (multicast groups) whose processes' NICs are on more than one rail.

    Returns ``{"groups", "cross_rail", "max_rails"}``: the groups, those spanning two rails or more (one multicast
    tree cannot reach them all without links between the rails), the most rails any group spans.
    """
    rail = topo.attr("rail")[comms.node_array()].astype(np.int64)
    comm = comms.comm_of_entry()
    width = int(rail.max()) + 2 if len(rail) else 1
    pairs = np.unique(comm * width + rail + 1)
    spans = np.bincount(pairs // width, minlength=len(comms))
    return {"groups": len(comms), "cross_rail": int((spans > 1).sum()), "max_rails": int(spans.max(initial=0))}
