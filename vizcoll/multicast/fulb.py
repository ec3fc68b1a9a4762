"""FULB-MC: root rotation and link rotation by EFI (``fulb``), and the dragonfly rule (``fulb+global``).

Root rotation: among the minimum-eccentricity switches, the one
with the fewest trees rooted at it so far, then the fewest trees using it,
then the lowest node index. Link rotation, bottom-up: from each member,
walk towards the root; at each node take, among the live ports whose peer
is a switch one hop closer to the root, the one whose link has the lowest
EFI so far (ties: lowest port number); stop at a node already in this
group's tree. A node's choice depends only on the EFIs left by earlier
groups (a link leaving a node not yet in the tree cannot carry this
group), so the tree does not depend on the member order and is built one
level of walks at a time with numpy. Being local, the rule balances each
switch's own uplinks only: switches that see the same history (the
leaves of one pod) can all pick the same next switch and load the link
above it, which SSSP-MC's whole-path weights avoid.

``fulb+global`` adds the dragonfly rule of the paper's section 4.1.3: before
the EFI, prefer the port whose remaining shortest path to the root crosses the
fewest global links (link attribute ``global``; for each root the minimum is
computed once by a level-by-level pass over the shortest-path DAG,
:func:`global_dist`).
"""

from __future__ import annotations

import numpy as np

from vizcoll.multicast.state import BIG, RoutingState, TreeParts, first_per_owner

__all__ = ["fulb_tree", "global_dist"]


def fulb_tree(st: RoutingState, root_row: int, members: np.ndarray, gid: int, use_global: bool) -> TreeParts:
    """FULB-MC link rotation: walks from the members towards the root, one level of walks at a time."""
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
        dist = np.where(rows >= 0, droot[rows], BIG)  # only switches lead towards the root
        best = np.minimum.reduceat(dist, segments)
        if best.max() >= BIG:
            raise RuntimeError("FULB-MC lost a member")  # the root's eccentricity said it was reachable
        closer = dist == best[owner]
        idx, owner = idx[closer], owner[closer]
        if len(idx) == len(frontier):  # a single way up everywhere (always so in a standard fat tree)
            chosen = idx
        else:
            keys = [st.port[idx], st.efi[st.link[idx]]]
            if gmin is not None:
                keys.append(gmin[st.peer_row[idx]] + st.glob[st.link[idx]])
            order = np.lexsort((*keys, owner))
            chosen = idx[order][first_per_owner(owner[order])]
        up = st.peer[chosen]
        parts.add(frontier, up, st.link[chosen])
        fresh = up[st.stamp[up] != gid]
        frontier = fresh[st.first_positions(fresh)]
        st.stamp[frontier] = gid
    return parts


def global_dist(st: RoutingState, root_row: int, droot: np.ndarray) -> np.ndarray:
    """Fewest global links on a shortest path from every switch row to the root (cached per root)."""
    if root_row not in st.global_cache:
        st.global_cache[root_row] = _global_levels(st, root_row, droot)
    return st.global_cache[root_row]


def _global_levels(st: RoutingState, root_row: int, droot: np.ndarray) -> np.ndarray:
    if not st.glob.any():
        return np.zeros(len(st.switches), dtype=np.int64)
    if st.switch_edges is None:
        ss, owner_row = st.switch_to_switch()
        st.switch_edges = (owner_row, st.peer_row[ss], st.glob[st.link[ss]])
    u, v, glob = st.switch_edges
    down = droot[u] == droot[v] + 1  # u is one hop further from the root than v
    u, v, glob = u[down], v[down], glob[down]
    level = droot[u]
    order = np.argsort(level, kind="stable")
    u, v, glob, level = u[order], v[order], glob[order], level[order]
    gmin = np.full(len(st.switches), BIG, dtype=np.int64)
    gmin[root_row] = 0
    bounds = np.searchsorted(level, np.arange(1, int(level.max(initial=0)) + 2))
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        np.minimum.at(gmin, u[lo:hi], gmin[v[lo:hi]] + glob[lo:hi])
    return gmin
