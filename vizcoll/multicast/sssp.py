"""SSSP-MC: shortest paths from the root over load-weighted switch links (``sssp``; ``sssp-new`` adds FULB's root
rotation).

The root of MINIHOP-MC; shortest paths from the root over the live
switch-to-switch links with weight ``C + groups already on the link``,
``C = (groups + 1) * (diameter + 1)`` so that a longer path always costs more
than any loaded one (paths stay shortest). Tree = union of the
shortest-path-tree paths to every member's switch, plus the member's own link
(for an end node on several switches, the cheapest attachment: fewest hops,
then load, then port). Parallel links between two switches count as one edge
weighted by the least-loaded of them, which the tree then uses.

**The search is limited to the switches that can matter.** Every weighted
shortest path is a min-hop path, so a switch can lie on one only if it lies
on a min-hop path from the root to a member's switch: the *cone* of the
members, found bottom-up level by level from the min-hop distances
(:meth:`SsspGraph.shortest_paths`). Distances are then relaxed top-down one
hop level at a time with numpy. A switch with several cheapest parents takes
the one Dijkstra's algorithm over the whole switch graph (scipy's
:func:`~scipy.sparse.csgraph.dijkstra`, which vizcoll used before) records:
the parent with the smallest distance from the root, then the highest switch
index (it scans vertices by distance, higher indices first among equals, and
keeps the first strictly shortest relaxation). The trees are therefore the
same as a whole-graph Dijkstra's, at the cost of a few numpy calls per level
instead of a search over every switch per group.

References: [FULB22, Alg. 2] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import numpy as np

from vizcoll.arrays import ranges, unique
from vizcoll.multicast.state import BIG, RoutingState, TreeParts, first_per_owner

__all__ = ["SsspGraph", "sssp_tree"]

_OFFSET_BITS = 20  # a port's position among its node's live ports, packed below a cost (ports per node < 2**20)


class SsspGraph:
    """The weighted switch graph of SSSP-MC: one entry per ordered pair of linked switches, with its cost."""

    def __init__(self, state: RoutingState, n_groups: int):
        self.state = state
        n_sw = self.n_sw = len(state.switches)
        ss, owner_row = state.switch_to_switch()
        key = owner_row * n_sw + state.peer_row[ss]
        order = np.argsort(key, kind="stable")  # keeps port order within one pair of switches
        ss, key = ss[order], key[order]
        self.keys, first, entry = np.unique(key, return_index=True, return_inverse=True)
        self.entry_ptr = np.concatenate((first, [len(ss)]))
        self.entry_link = state.link[ss]
        self.parallel = bool(np.any(np.diff(self.entry_ptr) > 1))
        self.pos_entry = np.full(len(state.link), -1, dtype=np.int64)  # port-view position -> its entry
        self.pos_entry[ss] = entry
        # each live switch-to-switch link appears at both its ends: one entry per direction
        by_link = np.argsort(self.entry_link, kind="stable")
        self.link_entries = np.full((len(state.efi), 2), -1, dtype=np.int64)
        self.link_entries[self.entry_link[by_link[0::2]], 0] = entry[by_link[0::2]]
        self.link_entries[self.entry_link[by_link[1::2]], 1] = entry[by_link[1::2]]
        self.weight = (n_groups + 1) * (state.table.diameter + 1)  # > diameter x the largest load
        self.cost = np.full(len(self.keys), self.weight, dtype=np.int64)

    def shortest_paths(self, root_row: int, droot: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Weighted distances (``BIG`` where not computed) and parents (-1) over switch rows, for the switches on
        min-hop paths from ``root_row`` (``droot``: its hops to every switch row) to the switch rows ``targets``
        (see the module docstring)."""
        dist = np.full(self.n_sw, BIG, dtype=np.int64)
        pred = np.full(self.n_sw, -1, dtype=np.int64)
        dist[root_row] = 0
        for child, parent, entry in reversed(self._cone(droot, targets)):
            total = dist[parent] + self.cost[entry]
            order = np.lexsort((-parent, dist[parent], total, child))
            pick = order[first_per_owner(child[order])]
            dist[child[pick]], pred[child[pick]] = total[pick], parent[pick]
        return dist, pred

    def _cone(self, droot: np.ndarray, targets: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The min-hop DAG edges ``(child row, parent row, entry)`` above ``targets``, one level per item, from the
        deepest level up."""
        st = self.state
        targets = unique(targets[droot[targets] < BIG])
        level = droot[targets]
        height = int(level.max(initial=0))
        rows, edges = targets[level == height], []
        for h in range(height, 0, -1):
            idx, owner, _ = st.expand(st.switches[rows])
            peer = st.peer_row[idx]
            up = (peer >= 0) & (droot[peer] == h - 1)
            edges.append((rows[owner[up]], peer[up], self.pos_entry[idx[up]]))
            rows = unique(np.concatenate((peer[up], targets[level == h - 1])))
        return edges

    def links_between(self, u_rows: np.ndarray, v_rows: np.ndarray) -> np.ndarray:
        """Least-loaded live link (row) from switch row ``u_rows[i]`` to ``v_rows[i]``; ties: lowest port at u."""
        entries = np.searchsorted(self.keys, u_rows * self.n_sw + v_rows)
        starts = self.entry_ptr[entries]
        if not self.parallel:
            return self.entry_link[starts]
        counts = self.entry_ptr[entries + 1] - starts
        segments = np.cumsum(counts) - counts
        pos = ranges(starts, self.entry_ptr[entries + 1])
        offset = pos - np.repeat(starts, counts)
        best = np.minimum.reduceat((self.state.efi[self.entry_link[pos]] << _OFFSET_BITS) + offset, segments)
        return self.entry_link[starts + (best & ((1 << _OFFSET_BITS) - 1))]

    def update(self, link_rows: np.ndarray) -> None:
        """Refresh the costs of the entries of links whose EFI changed."""
        entries = self.link_entries[link_rows].ravel()
        entries = unique(entries[entries >= 0])
        if not len(entries):
            return
        starts = self.entry_ptr[entries]
        counts = self.entry_ptr[entries + 1] - starts
        loads = self.state.efi[self.entry_link[ranges(starts, self.entry_ptr[entries + 1])]]
        self.cost[entries] = self.weight + np.minimum.reduceat(loads, np.cumsum(counts) - counts)


def sssp_tree(st: RoutingState, root_row: int, members: np.ndarray, gid: int) -> TreeParts:
    """SSSP-MC: shortest paths from the root, then each member's path, in member order.

    Tree nodes are listed as walking from each member (in order) up to the
    tree built so far adds them: the member's own node, then its switches
    bottom-up.
    """
    root = int(st.switches[root_row])
    droot = st.root_dist(root_row)
    index = np.flatnonzero(members != root)
    members = members[index]
    rows = st.table.sw_pos[members]
    ends = rows < 0
    idx, owner, segments = st.expand(members[ends])
    peer = st.peer_row[idx]
    dist, pred = st.sssp.shortest_paths(root_row, droot, np.concatenate((rows[~ends], peer[peer >= 0])))
    chosen = _attachments(st, idx, owner, segments, dist)
    rows[ends] = st.peer_row[chosen]
    first = _first_member(pred, droot, rows, index)
    switch = np.flatnonzero(first < BIG)
    switch = switch[switch != root_row]
    node = np.concatenate((members[ends], st.switches[switch]))
    parent = np.concatenate((st.peer[chosen], st.switches[pred[switch]]))
    link = np.concatenate((st.link[chosen], st.sssp.links_between(pred[switch], switch)))
    level = np.concatenate((droot[rows[ends]] + 1, droot[switch]))
    walk = np.lexsort((-level, np.concatenate((index[ends], first[switch]))))
    parts = TreeParts(root)
    parts.add(node[walk], parent[walk], link[walk])
    return parts


def _attachments(
    st: RoutingState, idx: np.ndarray, owner: np.ndarray, segments: np.ndarray, dist: np.ndarray
) -> np.ndarray:
    """Port-view position of each end node's cheapest attachment (``idx``, ``owner``, ``segments``: its live ports,
    from :meth:`RoutingState.expand`): the smallest distance plus load, then the lowest port."""
    if not len(idx):
        return idx
    peer = st.peer_row[idx]
    cost = np.where(peer >= 0, dist[peer], BIG) + st.efi[st.link[idx]]
    start = idx[segments]
    best = np.minimum.reduceat((cost << _OFFSET_BITS) + idx - start[owner], segments)
    return start + (best & ((1 << _OFFSET_BITS) - 1))


def _first_member(pred: np.ndarray, droot: np.ndarray, rows: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Over switch rows: the first member (``index[i]`` for the member entering at ``rows[i]``) whose path to the
    root passes the switch, ``BIG`` if none: the walk of that member adds the switch to the tree."""
    first = np.full(len(pred), BIG, dtype=np.int64)
    np.minimum.at(first, rows, index)
    for h in range(int(droot[rows].max(initial=0)), 0, -1):
        at = np.flatnonzero((first < BIG) & (droot == h))
        np.minimum.at(first, pred[at], first[at])
    return first
