"""Multicast routing: MINIHOP-MC, SSSP-MC and FULB-MC (the FULB-MC paper), group by group, with link EFIs.

One multicast group per communicator; its members are distinct topology
nodes (end nodes, or switches when the processes run on switches). Groups are
routed in order and every algorithm keeps its own load state: the EFI of each
link so far (number of earlier groups whose tree uses it) and, per switch, the
number of trees rooted at it and the number of trees passing through it.

All algorithms read the min-hop table (:func:`vizcoll.topology.hops.min_hops`,
built on live links only) and build trees of minimum height: the root is a
switch whose largest hop count to the members (its eccentricity, an end-node
member counting its own link) is the smallest, and every member hangs at its
min-hop distance below the root.

``minhop``
    OpenSM's MINIHOP-MC: the first root of minimum eccentricity, then top-down
    the lowest-numbered min-hop port per member (:mod:`vizcoll.multicast.minhop`).
``sssp``
    SSSP-MC: the same root, then Dijkstra over load-weighted switch links
    (:mod:`vizcoll.multicast.sssp`).
``fulb``
    FULB-MC: root rotation among the minimum-eccentricity switches by load,
    then link rotation bottom-up by EFI (:mod:`vizcoll.multicast.fulb`).
``minhop-new``, ``sssp-new``
    The original algorithms with FULB's root rotation.
``fulb+global``
    FULB-MC plus the dragonfly rule of the paper's section 4.1.3: before the
    EFI, prefer the port whose remaining shortest path to the root crosses the
    fewest global links (link attribute ``global``).

The algorithms are registered in :mod:`vizcoll.multicast.algorithms`
(:data:`ALGORITHMS`: their names); :func:`route` looks one up and calls its
tree builder. The load state all of them share (EFIs, root and use counts,
the root choice) is :class:`vizcoll.multicast.state.RoutingState`; the results are
:mod:`vizcoll.multicast.results`.

A group whose members cannot all reach one common switch (broken links, an
end node without live links, an empty group) gets no tree and its index is
listed in :attr:`MulticastResult.unroutable`.

References: [FULB22, Alg. 1–3]; [OPENSM] (keys: ``docs/papers.md``).

>>> from vizcoll.topology.generators import from_spec
>>> topo = from_spec("fat-tree:radix=4,levels=3")
>>> groups = [[topo.index(f"h{i}") for i in g] for g in ([0, 2], [1, 3], [0, 4])]
>>> result = route(topo, groups, "fulb")
>>> [topo.names[t.root] for t in result.trees]  # root rotation among the aggregation switches of pod 0
['agg0.0', 'agg0.1', 'core0']
>>> result.summary()["max_efi"], result.trees[2].height
(2, 3)
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from vizcoll.comm import Communicators
from vizcoll.errors import SpecError
from vizcoll.multicast.algorithms import ALGORITHMS, algorithm
from vizcoll.multicast.results import MulticastResult, MulticastTree
from vizcoll.multicast.roots import distinct_members, root_candidates
from vizcoll.multicast.state import MAX_GROUPS, RoutingState
from vizcoll.topology.hops import MinHopTable, min_hops
from vizcoll.topology.model import Topology

__all__ = [
    "ALGORITHMS",
    "MulticastTree",
    "MulticastResult",
    "communicator_groups",
    "route",
    "route_communicators",
]


def route(
    topo: Topology, groups: Sequence, algo: str, table: MinHopTable | None = None, progress=None
) -> MulticastResult:
    """Route every group with one algorithm, in order, and count link EFIs.

    Parameters
    ----------
    topo : Topology
        The fabric (broken links are never used).
    groups : sequence of array-like of int
        Member node indices of each group (repeats are dropped).
    algo : str
        One of :data:`ALGORITHMS`, the names in :mod:`vizcoll.multicast.algorithms` (SpecError otherwise).
    table : MinHopTable, optional
        ``min_hops(topo)`` if already built (it must match the topology's
        current broken links); not counted in ``runtime_s``.
    progress : callable, optional
        ``progress(done, total)`` every 1% of the groups.

    Returns
    -------
    MulticastResult
    """
    entry = algorithm(algo)
    if len(groups) > MAX_GROUPS:
        raise SpecError(f"{len(groups):,} groups is more than the {MAX_GROUPS:,} one routing call takes")
    table = min_hops(topo) if table is None else table
    if table.n_nodes != topo.n_nodes:
        raise SpecError("the min-hop table was built for another topology")
    start = time.perf_counter()
    st = RoutingState(topo, table, rotate=entry.rotates_roots)
    if entry.setup is not None:
        entry.setup(st, len(groups))
    trees: list[MulticastTree | None] = []
    unroutable: list[int] = []
    step = max(1, len(groups) // 100)
    groups = distinct_members(groups, topo.n_nodes)
    candidates = root_candidates(table, groups, st.entry_row, st.entry_hop)
    for gid, members in enumerate(groups):
        if progress is not None and gid % step == 0:
            progress(gid, len(groups))
        if candidates[gid] is None:
            trees.append(None)
            unroutable.append(gid)
            continue
        root_row, height = st.choose_root(candidates[gid][0]), candidates[gid][1]
        parts = entry.build_tree(st, root_row, members, gid)
        nodes, parents, rows = parts.arrays()
        st.commit(root_row, nodes, rows[1:])
        ids = st.link_ids[rows]
        ids[0] = -1  # the root's (rows[0] is -1, every other row a link's)
        trees.append(MulticastTree(gid, int(st.switches[root_row]), members, nodes, parents, ids, height))
    runtime = time.perf_counter() - start
    st.sssp = None  # the graph refers to the state: no cycle left for the garbage collector
    return MulticastResult(algo, trees, unroutable, st.efi, st.link_ids.copy(), int(topo.live.sum()), runtime)


def communicator_groups(comms: Communicators) -> list[np.ndarray]:
    """Member nodes of each communicator: the distinct nodes of its processes, in rank order."""
    nodes, comm = comms.node_array().astype(np.int64), comms.comm_of_entry()
    width = int(nodes.max()) + 1 if len(nodes) else 1
    _, first = np.unique(comm * width + nodes, return_index=True)
    first.sort()
    bounds = np.r_[0, np.cumsum(np.bincount(comm[first], minlength=len(comms)))]
    kept = nodes[first]
    return [kept[bounds[i] : bounds[i + 1]] for i in range(len(comms))]


def route_communicators(
    topo: Topology, comms: Communicators, algo: str, table: MinHopTable | None = None
) -> MulticastResult:
    """:func:`route` with one multicast group per communicator (see :func:`communicator_groups`)."""
    return route(topo, communicator_groups(comms), algo, table)
