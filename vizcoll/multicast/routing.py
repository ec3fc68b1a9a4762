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

    Every algorithm builds trees of minimum height on the min-hop table (live links only): the root is a switch of
    smallest eccentricity to the group's members, and every member hangs at its min-hop distance below it. The
    algorithm keeps its own load state between groups (the EFI of each link: the number of earlier groups whose
    tree uses it; per switch, the trees rooted at it and passing through it). ``minhop`` is OpenSM's MINIHOP-MC,
    ``sssp`` SSSP-MC, ``fulb`` FULB-MC (root rotation, then link rotation by EFI), ``minhop-new`` / ``sssp-new``
    add FULB's root rotation and ``fulb+global`` the dragonfly global-link rule (see the module docstring). A
    group whose members cannot all reach one common switch gets no tree and is listed in
    :attr:`MulticastResult.unroutable`.

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
        One tree per group (None for an unroutable one) and the EFI of every link.

    Raises
    ------
    SpecError
        For an unknown algorithm, more groups than one call takes, or a min-hop table of another topology.

    References
    ----------
    [FULB22] Chen Shuping, Zhou Huilin, He Wangquan, Qi Fengbin, "Load-Balanced Multicast Routing for Large-Scale
    Infiniband Network", Computer Engineering and Applications, 58(5): 138–147, 2022, DOI
    [10.3778/j.issn.1002-8331.2009-0276](https://doi.org/10.3778/j.issn.1002-8331.2009-0276). Algorithms 1–3
    (MINIHOP-MC, SSSP-MC, FULB-MC), section 4.1.3 (global links).

    [OPENSM] OpenSM, the InfiniBand subnet manager (https://github.com/linux-rdma/opensm,
    ``doc/current-routing.txt``; software, no DOI). MINIHOP-MC as OpenSM routes multicast.

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> topo = from_spec("fat-tree:radix=4,levels=3")
    >>> groups = [[topo.index(f"h{i}") for i in g] for g in ([0, 2], [1, 3], [0, 4])]
    >>> [topo.names[t.root] for t in route(topo, groups, "fulb").trees]
    ['agg0.0', 'agg0.1', 'core0']
    >>> [topo.names[t.root] for t in route(topo, groups, "minhop").trees]
    ['agg0.0', 'agg0.0', 'core0']
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
    """Route one multicast group per communicator (:func:`route` on :func:`communicator_groups`).

    A group's members are the distinct nodes of its communicator's processes, in rank order.

    Parameters
    ----------
    topo : Topology
        The fabric (broken links are never used).
    comms : Communicators
        The communicators, with their placement on ``topo``.
    algo : str
        One of :data:`ALGORITHMS`.
    table : MinHopTable, optional
        ``min_hops(topo)`` if already built.

    Returns
    -------
    MulticastResult
        Group ``i`` is communicator ``i``.

    Raises
    ------
    SpecError
        For an unknown algorithm, communicators without a placement, or as :func:`route`.

    Examples
    --------
    >>> from vizcoll.comm import parse_pattern
    >>> from vizcoll.topology.generators import from_spec
    >>> topo = from_spec("fat-tree:radix=4,levels=3")
    >>> result = route_communicators(topo, parse_pattern("grid2d:4x4", topo), "fulb")
    >>> result.summary()["groups"], result.summary()["max_efi"]
    (8, 3)
    """
    return route(topo, communicator_groups(comms), algo, table)
