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

The comparisons the command line and the pages show are one call each: :func:`group_rails` (a pattern's
communicators as multicast groups, placed each way) here and :func:`vizcoll.trees.rails.tree_rails` (a tree of a
placement's ranks, built for each placement of :func:`rail_placements`).

References
----------
[NVRA] NVIDIA Enterprise Reference Architecture, HGX AI Factory (H100, H200, B200), "Networking Physical
Topologies": GPUs on a rail-optimized compute fabric (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vizcoll.comm.communicators import Communicators
from vizcoll.comm.patterns import parse_pattern
from vizcoll.comm.placement import Placement, place
from vizcoll.topology.model import Topology

__all__ = [
    "PLACEMENTS",
    "cross_rail_edges",
    "cross_rail_groups",
    "group_rails",
    "has_rails",
    "rail_fabric",
    "rail_placements",
]

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
    return {
        "rails": int(len(np.unique(rail[rail >= 0]))),
        "servers": int(len(np.unique(server[server >= 0]))),
        "cross_links": cross,
    }


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
    return {
        "edges": len(a),
        "cross_rail": int(cross.sum()),
        "within_server": int(inside.sum()),
        "between_servers": int((cross & ~inside).sum()),
    }


def cross_rail_groups(topo: Topology, comms: Communicators | Sequence[Sequence[int]]) -> dict:
    """Communicators (multicast groups) whose processes' NICs are on more than one rail.

    ``comms``: communicators, or the groups' member nodes (lists of node numbers, e.g. the groups of a fabric's
    multicast tables). Returns ``{"groups", "cross_rail", "max_rails"}``: the groups, those spanning two rails or
    more (one multicast tree cannot reach them all without links between the rails), the most rails any group
    spans.

    >>> from vizcoll.topology import from_spec
    >>> topo = from_spec("rail-fat-tree:servers=4,rails=2,radix=8")
    >>> [topo.names[n] for n in (2, 3, 4)]  # the rails are one switch each: rail0-leaf0, rail1-leaf0
    ['s0-nic0', 's0-nic1', 's1-nic0']
    >>> cross_rail_groups(topo, [[2, 4], [2, 3, 4], [3]])
    {'groups': 3, 'cross_rail': 1, 'max_rails': 2}
    """
    if isinstance(comms, Communicators):
        nodes, comm, count = comms.node_array(), comms.comm_of_entry(), len(comms)
    else:
        sizes = [len(group) for group in comms]
        nodes = np.concatenate([np.asarray(g, dtype=np.int64) for g in comms]) if sum(sizes) else np.zeros(0, np.int64)
        comm, count = np.repeat(np.arange(len(sizes)), sizes), len(sizes)
    rail = topo.attr("rail")[nodes].astype(np.int64)
    width = int(rail.max()) + 2 if len(rail) else 1
    pairs = np.unique(comm * width + rail + 1)
    spans = np.bincount(pairs // width, minlength=count)
    return {"groups": count, "cross_rail": int((spans > 1).sum()), "max_rails": int(spans.max(initial=0))}


def rail_placements(
    topo: Topology, nprocs: int | None = None, ppn: int = 1, pattern: str = "", comm: int | None = None, seed: int = 0
) -> dict[str, Placement]:
    """The ranks placed by each of :data:`PLACEMENTS` (name -> placement, its ``order`` the order's name).

    Without ``pattern``: ``nprocs`` ranks, ``ppn`` per end node (:func:`~vizcoll.comm.place`). With one: the
    pattern's processes (``comm`` None) or its communicator ``comm`` alone, rank ``j`` its ``j``-th member, as the
    pattern places them in each order (:func:`~vizcoll.comm.parse_pattern`).

    Parameters
    ----------
    topo : Topology
        A rail fabric.
    nprocs : int, optional
        Ranks to place without a pattern (default: every slot).
    ppn : int
        Processes per end node.
    pattern : str
        A communication pattern (:func:`~vizcoll.comm.parse_pattern`), or ``""`` for none.
    comm : int, optional
        With ``pattern``: only this communicator's processes.
    seed : int
        Seed for the placement and the pattern.

    Returns
    -------
    dict of str to Placement
        ``{"rail-aware": ..., "naive": ...}``.

    Raises
    ------
    SpecError
        When the processes do not fit or the pattern is malformed.

    Examples
    --------
    >>> from vizcoll.topology import from_spec
    >>> topo = from_spec("rail-fat-tree:servers=4,rails=2,radix=8")
    >>> {name: [topo.names[n] for n in p.node] for name, p in rail_placements(topo, 3).items()}
    {'rail-aware': ['s0-nic0', 's0-nic1', 's1-nic0'], 'naive': ['s0-nic0', 's1-nic0', 's2-nic0']}
    >>> [topo.names[n] for n in rail_placements(topo, pattern="grid2d:4x2", comm=1)["naive"].node]
    ['s2-nic0', 's3-nic0']
    """
    out = {}
    for name, order in PLACEMENTS.items():
        if not pattern:
            out[name] = place(topo, nprocs, ppn, order, seed)
            continue
        comms = parse_pattern(pattern, topo, ppn, order, seed)
        if comm is None:
            out[name] = comms.placement
        else:
            nodes = comms.nodes(comm)
            out[name] = Placement(nodes, int(np.bincount(nodes).max()), order, seed)
    return out


def group_rails(topo: Topology, pattern: str, ppn: int = 1, seed: int = 0) -> dict:
    """How many of a pattern's communicators span rails, placed rail-aware and naively.

    Returns the rail fabric (:func:`rail_fabric`) and, for the communicators of ``pattern`` placed each way of
    :data:`PLACEMENTS`, the groups spanning rails (:func:`cross_rail_groups`, with the placement's ``order``).

    Parameters
    ----------
    topo : Topology
        A rail fabric.
    pattern : str
        A communication pattern (:func:`~vizcoll.comm.parse_pattern`).
    ppn : int
        Processes per end node.
    seed : int
        Seed for the placement and the pattern.

    Returns
    -------
    dict
        ``rails``, ``servers``, ``cross_links`` and ``placements``: per placement name its ``order``,
        ``groups``, ``cross_rail`` (groups spanning two rails or more) and ``max_rails``.

    Raises
    ------
    SpecError
        When the processes do not fit or the pattern is malformed.

    Examples
    --------
    >>> from vizcoll.topology import from_spec
    >>> out = group_rails(from_spec("rail-fat-tree:servers=4,rails=2,radix=8"), "grid2d:4x2")
    >>> out["rails"], out["servers"], out["cross_links"]
    (2, 4, 0)
    >>> out["placements"]["rail-aware"]  # the 4 rows are servers (2 rails each); the 2 columns, rails
    {'order': 'linear', 'groups': 6, 'cross_rail': 4, 'max_rails': 2}
    >>> out["placements"]["naive"]  # the rows fill one rail each; the columns span both
    {'order': 'rail-major', 'groups': 6, 'cross_rail': 2, 'max_rails': 2}
    """
    return {
        **rail_fabric(topo),
        "placements": {
            name: {"order": order, **cross_rail_groups(topo, parse_pattern(pattern, topo, ppn, order, seed))}
            for name, order in PLACEMENTS.items()
        },
    }
