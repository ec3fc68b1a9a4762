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
(:class:`Cone`). It depends on the root and the members' switches alone, not
on the loads, so it is kept for the next groups with the same ones (the lines
of one plane of a grid share their switches). Distances are then relaxed
top-down one hop level at a time with numpy (:meth:`SsspGraph.shortest_paths`;
a level where every switch has a single parent in the cone, the common case
on a fat tree, is a plain sum). Without parallel links an edge's weight is
read from its link's EFI as the relaxation needs it, so the graph has nothing
to update after a group. A switch with several cheapest parents takes
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

__all__ = ["Cone", "SsspGraph", "sssp_tree"]

_OFFSET_BITS = 20  # a port's position among its node's live ports, packed below a cost (ports per node < 2**20)


class Cone:
    """The min-hop DAG above some target switch rows, towards one root, one level per item of :attr:`levels`
    (deepest first): ``(rows, child, parent, entries, children, starts)``, the level's distinct switch rows
    (sorted), its edges up (child row, parent row, entry; sorted by child), the distinct children and where each
    starts among the edges (None when every child has a single parent)."""

    __slots__ = ("levels", "size")

    def __init__(self, graph: SsspGraph, droot: np.ndarray, targets: np.ndarray):
        level = droot[targets]
        height = int(level.max(initial=0))
        rows, self.levels = targets[level == height], []
        for h in range(height, 0, -1):
            starts = graph.row_ptr[rows]
            entries = ranges(starts, graph.row_ptr[rows + 1])  # by child: the rows are sorted
            entries = entries[droot[graph.entry_peer[entries]] == h - 1]
            child, parent = graph.entry_owner[entries], graph.entry_peer[entries]
            first = first_per_owner(child)
            single = len(first) == len(child)
            self.levels.append((rows, child, parent, entries, child[first], None if single else first))
            rows = unique(np.concatenate((parent, targets[level == h - 1])))
        self.size = sum(len(rows) + 2 * len(child) for rows, child, *_ in self.levels)  # numbers it holds, roughly


class SsspGraph:
    """The weighted switch graph of SSSP-MC: one entry per ordered pair of linked switches, with its cost."""

    KEPT = 1 << 22  # numbers the kept cones and root distances may hold (then they are forgotten)

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
        self.entry_owner, self.entry_peer = self.keys // max(n_sw, 1), self.keys % max(n_sw, 1)
        self.row_ptr = np.searchsorted(self.keys, np.arange(n_sw + 1) * n_sw)  # a switch row's entries
        self.parallel = bool(np.any(np.diff(self.entry_ptr) > 1))
        self.first_link = self.entry_link[first]  # an entry's link, when no two links join the same switches
        # each live switch-to-switch link appears at both its ends: one entry per direction
        by_link = np.argsort(self.entry_link, kind="stable")
        self.link_entries = np.full((len(state.efi), 2), -1, dtype=np.int64)
        self.link_entries[self.entry_link[by_link[0::2]], 0] = entry[by_link[0::2]]
        self.link_entries[self.entry_link[by_link[1::2]], 1] = entry[by_link[1::2]]
        self.weight = (n_groups + 1) * (state.table.diameter + 1)  # > diameter x the largest load
        self.cost = np.full(len(self.keys), self.weight, dtype=np.int64)  # kept up to date with parallel links only
        self.cones: dict[tuple[int, bytes], Cone] = {}  # the lines of a grid's plane share their switches
        self.droots: dict[int, np.ndarray] = {}
        self.kept = 0  # numbers held by both

    def root_dist(self, root_row: int) -> np.ndarray:
        """:meth:`RoutingState.root_dist` of ``root_row``, kept for the next groups of that root."""
        droot = self.droots.get(root_row)
        if droot is None:
            droot = self.droots[root_row] = self._keep(self.state.root_dist(root_row))
        return droot

    def cone(self, root_row: int, droot: np.ndarray, targets: np.ndarray) -> Cone:
        """The :class:`Cone` of the reachable switch rows ``targets`` below ``root_row`` (kept for the next groups
        with the same root and targets)."""
        targets = unique(targets[droot[targets] < BIG])
        key = (root_row, targets.tobytes())
        cone = self.cones.get(key)
        if cone is None:
            cone = self.cones[key] = self._keep(Cone(self, droot, targets))
        return cone

    def _keep(self, kept):
        """``kept`` (a root's distances or a cone), after forgetting every other once they hold too many numbers."""
        size = len(kept) if isinstance(kept, np.ndarray) else kept.size
        if self.kept + size > self.KEPT:
            self.cones.clear()
            self.droots.clear()
            self.kept = 0
        self.kept += size
        return kept

    def shortest_paths(self, root_row: int, cone: Cone) -> tuple[np.ndarray, np.ndarray]:
        """Weighted distances (``BIG`` where not computed) and parents (-1) over switch rows, for the switches of
        ``cone`` (min-hop paths from ``root_row`` to its targets; see the module docstring)."""
        dist = np.full(self.n_sw, BIG, dtype=np.int64)
        pred = np.full(self.n_sw, -1, dtype=np.int64)
        dist[root_row] = 0
        for _, child, parent, entries, children, starts in reversed(cone.levels):
            before = dist[parent]
            if self.parallel:
                total = before + self.cost[entries]
            else:
                total = before + self.state.efi[self.first_link[entries]] + self.weight
            if starts is None:  # a single parent per child
                dist[child], pred[child] = total, parent
                continue
            pick = np.lexsort((-parent, before, total, child))[starts]
            dist[children], pred[children] = total[pick], parent[pick]
        return dist, pred

    def links_between(self, u_rows: np.ndarray, v_rows: np.ndarray) -> np.ndarray:
        """Least-loaded live link (row) from switch row ``u_rows[i]`` to ``v_rows[i]``; ties: lowest port at u."""
        entries = np.searchsorted(self.keys, u_rows * self.n_sw + v_rows)
        if not self.parallel:
            return self.first_link[entries]
        starts = self.entry_ptr[entries]
        counts = self.entry_ptr[entries + 1] - starts
        segments = np.cumsum(counts) - counts
        pos = ranges(starts, self.entry_ptr[entries + 1])
        offset = pos - np.repeat(starts, counts)
        best = np.minimum.reduceat((self.state.efi[self.entry_link[pos]] << _OFFSET_BITS) + offset, segments)
        return self.entry_link[starts + (best & ((1 << _OFFSET_BITS) - 1))]

    def update(self, link_rows: np.ndarray) -> None:
        """Refresh the costs of the entries of links whose EFI changed (with parallel links: the cost of an entry
        without is read from its link's EFI when needed)."""
        if not self.parallel:
            return
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
    graph = st.sssp
    root = int(st.switches[root_row])
    droot = graph.root_dist(root_row)
    index = np.flatnonzero(members != root)
    members = members[index]
    rows = st.table.sw_pos[members]
    ends = rows < 0
    chosen = st.single_port[members[ends]]
    if len(chosen) and chosen.min() < 0:  # an end node on several switches: its ports are candidates
        idx, owner, segments = st.expand(members[ends])
        peer = st.peer_row[idx]
        cone = graph.cone(root_row, droot, np.concatenate((rows[~ends], peer[peer >= 0])))
        dist, pred = graph.shortest_paths(root_row, cone)
        chosen = _attachments(st, idx, owner, segments, dist)
    else:
        cone = graph.cone(root_row, droot, np.concatenate((rows[~ends], st.peer_row[chosen])))
        dist, pred = graph.shortest_paths(root_row, cone)
    rows[ends] = st.peer_row[chosen]
    first, switch = _first_member(cone, pred, rows, index)
    node = np.concatenate((members[ends], st.switches[switch]))
    parent = np.concatenate((st.peer[chosen], st.switches[pred[switch]]))
    link = np.concatenate((st.link[chosen], graph.links_between(pred[switch], switch)))
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


def _first_member(cone: Cone, pred: np.ndarray, rows: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Over switch rows: the first member (``index[i]`` for the member entering at ``rows[i]``) whose path to the
    root passes the switch, ``BIG`` if none: the walk of that member adds the switch to the tree; and the switch
    rows of the tree but its root (those of ``cone``'s levels that some member's path passes)."""
    first = np.full(len(pred), BIG, dtype=np.int64)
    np.minimum.at(first, rows, index)
    switch = []
    for level in cone.levels:
        at = level[0][first[level[0]] < BIG]
        np.minimum.at(first, pred[at], first[at])
        switch.append(at)
    return first, np.concatenate(switch) if switch else np.zeros(0, dtype=np.int64)
