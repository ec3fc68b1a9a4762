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

References: [FULB22, Alg. 3] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.multicast.state import BIG, MAX_GROUPS, RoutingState, TreeParts

__all__ = ["fulb_tree", "global_dist"]


def fulb_tree(st: RoutingState, root_row: int, members: np.ndarray, gid: int, use_global: bool) -> TreeParts:
    """FULB-MC link rotation: walks from the members towards the root, one level of walks at a time.

    At each level every walking node's live ports get one packed key
    (:func:`_best_ports`: distance of the peer to the root, then global links
    left, then EFI, then port), and the smallest key per node is its way up;
    when every walking node has a single live port (the members' own links)
    they simply take it.
    """
    root = int(st.switches[root_row])
    parts = TreeParts(root)
    levels = st.root_levels(root_row)
    gmin = global_dist(st, root_row, st.root_dist(root_row)) if use_global else None
    st.stamp[root] = gid
    frontier = members[members != root]
    st.stamp[frontier] = gid
    while len(frontier):
        chosen = st.single_port[frontier]
        if chosen.min() < 0:
            chosen = _best_ports(st, frontier, levels, gmin)
        up = st.peer[chosen]
        parts.add(frontier, up, st.link[chosen])
        fresh = up[st.stamp[up] != gid]
        frontier = fresh[st.firsts(fresh)]
        st.stamp[frontier] = gid
    return parts


def _best_ports(st: RoutingState, nodes: np.ndarray, levels: np.ndarray, gmin: np.ndarray | None) -> np.ndarray:
    """Port-view position of each node's way up: one packed int64 key per live port towards a switch (a port to an
    end node never leads to the root; :meth:`RoutingState.switch_ports`), the smallest per node.

    Key fields, most significant first: the peer's hops to the root
    (``levels[peer row]``, the table's "unreachable" where there is no path),
    the global links left on the way (``fulb+global``), the link's EFI, the
    port's offset among the node's live ports (port order).
    """
    port_bits, glob_shift, dist_shift = _key_layout(st, gmin is not None)
    ptr, offset, peer_row, link = st.switch_ports()
    starts = ptr[nodes]
    counts = ptr[nodes + 1] - starts
    if counts.min() == 0:
        raise RuntimeError("FULB-MC lost a member")  # the root's eccentricity said it was reachable
    segments = counts.cumsum() - counts
    pos = np.repeat(starts - segments, counts) + st.positions[: int(segments[-1] + counts[-1])]
    peer, link = peer_row[pos], link[pos]
    key = (levels[peer] << dist_shift) + (st.efi[link] << port_bits) + offset[pos]
    if gmin is not None:
        key += np.minimum(gmin[peer] + st.glob[link], (1 << (dist_shift - glob_shift)) - 1) << glob_shift
    best = np.minimum.reduceat(key, segments)
    if best.max() >= st.unreachable << dist_shift:
        raise RuntimeError("FULB-MC lost a member")
    return st.indptr[nodes] + (best & ((1 << port_bits) - 1))


def _key_layout(st: RoutingState, use_global: bool) -> tuple[int, int, int]:
    """Shifts of :func:`_best_ports`' key fields: ``(port bits, global shift, distance shift)``."""
    dist_bits = 8 * st.table.dist.itemsize
    glob_bits = dist_bits if use_global else 0
    glob_shift = MAX_GROUPS.bit_length() + st.port_bits  # an EFI never exceeds the number of groups
    if glob_shift + glob_bits + dist_bits > 63:
        raise SpecError("FULB-MC: the fabric's diameter and port counts do not fit its routing keys")
    return st.port_bits, glob_shift, glob_shift + glob_bits


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
