"""The vectorised SSSP-MC and FULB-MC give exactly the trees of their first, straightforward implementations.

SSSP-MC searched the whole switch graph with scipy's Dijkstra per group and
walked each member's path in Python; FULB-MC sorted each level's candidate
ports with ``np.lexsort``. Both are kept here as references (written for
readability, not speed) and compared, tree by tree and node by node, with what
:func:`vizcoll.multicast.route` returns on fabrics with broken links, parallel
cables and end nodes on two switches.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from vizcoll.comm import parse_pattern
from vizcoll.multicast import communicator_groups, route
from vizcoll.multicast.algorithms import REGISTRY
from vizcoll.multicast.fulb import global_dist
from vizcoll.multicast.state import BIG, RoutingState, TreeParts, first_per_owner
from vizcoll.topology.generators import from_spec
from vizcoll.topology.model import SWITCH, Topology


# ---------------------------------------------------------------- the references
def reference_sssp_tree(st: RoutingState, root_row: int, members: np.ndarray, gid: int) -> TreeParts:
    """SSSP-MC as first written: scipy's Dijkstra over every switch, then each member's path walked up."""
    graph = st.sssp
    n_sw = graph.n_sw
    cost = graph.weight + np.minimum.reduceat(st.efi[graph.entry_link], graph.entry_ptr[:-1])  # the least loaded
    matrix = sp.csr_matrix((cost.astype(float), (graph.keys // n_sw, graph.keys % n_sw)), shape=(n_sw, n_sw))
    dist, pred = dijkstra(matrix, directed=True, indices=root_row, return_predecessors=True)
    root = int(st.switches[root_row])
    parts = TreeParts(root)
    st.stamp[root] = gid
    nodes, parents, links = [], [], []
    for member in members.tolist():
        if st.stamp[member] == gid:
            continue
        st.stamp[member] = gid
        row = int(st.table.sw_pos[member])
        if row < 0:  # an end node: its cheapest attachment (fewest hops, then load, then port)
            sl = slice(int(st.indptr[member]), int(st.indptr[member + 1]))
            rows = st.peer_row[sl]
            cost = np.where(rows >= 0, dist[np.maximum(rows, 0)], np.inf) + st.efi[st.link[sl]]
            k = int(np.argmin(cost))
            row = int(rows[k])
            nodes.append(member)
            parents.append(int(st.peer[sl][k]))
            links.append(int(st.link[sl][k]))
            if st.stamp[st.switches[row]] == gid:
                continue
            st.stamp[st.switches[row]] = gid
        while row != root_row:
            up = int(pred[row])
            nodes.append(int(st.switches[row]))
            parents.append(int(st.switches[up]))
            links.append(_least_loaded(st, up, row))
            if st.stamp[st.switches[up]] == gid:
                break
            st.stamp[st.switches[up]] = gid
            row = up
    parts.add(nodes, parents, links)
    return parts


def _least_loaded(st: RoutingState, u_row: int, v_row: int) -> int:
    """The live link from switch row u to v with the lowest EFI, then the lowest port at u."""
    at = slice(int(st.indptr[st.switches[u_row]]), int(st.indptr[st.switches[u_row] + 1]))
    links = st.link[at][st.peer_row[at] == v_row]
    return int(links[np.argmin(st.efi[links])])


def reference_fulb_tree(st: RoutingState, root_row: int, members: np.ndarray, gid: int, use_global: bool) -> TreeParts:
    """FULB-MC as first written: per level, the closer ports sorted by (owner, global, EFI, port)."""
    root = int(st.switches[root_row])
    parts = TreeParts(root)
    droot = st.root_dist(root_row)
    gmin = global_dist(st, root_row, droot) if use_global else None
    st.stamp[root] = gid
    frontier = members[members != root]
    st.stamp[frontier] = gid
    while len(frontier):
        idx, owner, segments = st.expand(frontier)
        rows = st.peer_row[idx]
        dist = np.where(rows >= 0, droot[rows], BIG)
        closer = dist == np.minimum.reduceat(dist, segments)[owner]
        idx, owner = idx[closer], owner[closer]
        keys = [st.port[idx], st.efi[st.link[idx]]]
        if gmin is not None:
            keys.append(gmin[st.peer_row[idx]] + st.glob[st.link[idx]])
        order = np.lexsort((*keys, owner))
        chosen = idx[order][first_per_owner(owner[order])]
        up = st.peer[chosen]
        parts.add(frontier, up, st.link[chosen])
        fresh = up[st.stamp[up] != gid]
        frontier = fresh[st.firsts(fresh)]
        st.stamp[frontier] = gid
    return parts


# ---------------------------------------------------------------- fabrics
def with_parallel_cables(topo: Topology) -> Topology:
    """A second cable next to every third switch-to-switch link."""
    rows = np.flatnonzero((topo.kind[topo.link_a] == SWITCH) & (topo.kind[topo.link_b] == SWITCH))
    for row in rows[::3].tolist():
        topo.add_link(topo.names[topo.link_a[row]], topo.names[topo.link_b[row]])
    return topo


def broken(topo: Topology, rate: float, seed: int) -> Topology:
    """``rate`` of the switch-to-switch links and 2% of the others broken at random (groups may be cut apart)."""
    rng = np.random.default_rng(seed)
    inside = (topo.kind[topo.link_a] == SWITCH) & (topo.kind[topo.link_b] == SWITCH)
    for rows, share in ((np.flatnonzero(inside), rate), (np.flatnonzero(~inside), 0.02)):
        topo.broken[rng.choice(rows, size=int(share * len(rows)), replace=False)] = True
    return topo


FABRICS = [
    ("fat-tree:radix=8,levels=3", "random:40", False),
    ("pruned-fat-tree:pods=4,leaves=4,hosts=8,spines=4,up=2,paths=2", "grid2d:8x16", True),
    ("torus:4x4x3,hosts=2", "random:30", True),
    ("dragonfly:a=4,p=2,h=2", "random:30", False),
    ("sunway-supernode", "random:30", False),  # every node on two leaf switches
    ("mesh:6x6", "random:20", False),
]


@pytest.mark.parametrize(("spec", "pattern", "parallel"), FABRICS)
@pytest.mark.parametrize(("rate", "seed"), [(0.0, 0), (0.05, 1), (0.2, 2)])
def test_fast_paths_give_the_reference_trees(spec, pattern, parallel, rate, seed, monkeypatch):
    topo = from_spec(spec)
    topo = broken(with_parallel_cables(topo) if parallel else topo, rate, seed)
    groups = communicator_groups(parse_pattern(pattern, topo))
    fast = {algo: route(topo, groups, algo).to_dict() for algo in ("sssp", "sssp-new", "fulb", "fulb+global")}
    references = {
        "sssp": reference_sssp_tree,
        "sssp-new": reference_sssp_tree,
        "fulb": partial(reference_fulb_tree, use_global=False),
        "fulb+global": partial(reference_fulb_tree, use_global=True),
    }
    for algo, reference_tree in references.items():  # route() calls the registry's tree builders
        monkeypatch.setitem(REGISTRY, algo, replace(REGISTRY[algo], build_tree=reference_tree))
    routed = 0
    for algo, result in fast.items():
        reference = route(topo, groups, algo).to_dict()
        result.pop("runtime_s"), reference.pop("runtime_s")
        assert result == reference, algo
        routed += sum(tree is not None for tree in result["trees"])
    assert routed > 0


def test_references_are_exercised():
    """The comparison above is not vacuous: broken links cut some groups apart, parallel cables and two-switch
    end nodes exist, and the loads make SSSP-MC choose between equally short paths."""
    topo = broken(with_parallel_cables(from_spec("torus:4x4x3,hosts=2")), 0.2, 2)
    groups = communicator_groups(parse_pattern("random:30", topo))
    assert route(topo, groups, "sssp").unroutable
    ends = from_spec("sunway-supernode")
    assert (np.bincount(np.r_[ends.link_a, ends.link_b], minlength=ends.n_nodes)[ends.endpoints] == 2).all()
    fat = from_spec("fat-tree:radix=8,levels=3")
    result = route(fat, communicator_groups(parse_pattern("random:40", fat)), "sssp")
    assert len(set(t.root for t in result.trees)) == 1 and result.efi.max() > 1
