"""SSSP-MC: Dijkstra from the root over load-weighted switch links (``sssp``; ``sssp-new`` adds FULB's root
rotation).

The root of MINIHOP-MC; Dijkstra (:func:`scipy.sparse.csgraph.dijkstra`) from
the root over the live switch-to-switch links with weight
``C + groups already on the link``, ``C = (groups + 1) * (diameter + 1)``
so that a longer path always costs more than any loaded one (paths stay
shortest). Tree = union of the shortest-path-tree paths to every member's
switch, plus the member's own link (for an end node on several switches,
the cheapest attachment). Parallel links between two switches count as one
edge weighted by the least-loaded of them, which the tree then uses.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from vizcoll.multicast.state import RoutingState, TreeParts, ranges

__all__ = ["SsspGraph", "sssp_tree"]


class SsspGraph:
    """The weighted switch graph of SSSP-MC: one CSR entry per ordered pair of linked switches."""

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
        # each live switch-to-switch link appears at both its ends: one entry per direction
        by_link = np.argsort(self.entry_link, kind="stable")
        self.link_entries = np.full((len(state.efi), 2), -1, dtype=np.int64)
        self.link_entries[self.entry_link[by_link[0::2]], 0] = entry[by_link[0::2]]
        self.link_entries[self.entry_link[by_link[1::2]], 1] = entry[by_link[1::2]]
        self.weight = float((n_groups + 1) * (state.table.diameter + 1))  # > diameter x the largest load
        indptr = np.zeros(n_sw + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.keys // max(n_sw, 1), minlength=n_sw), out=indptr[1:])
        data = np.full(len(self.keys), self.weight)
        self.matrix = sp.csr_matrix((data, (self.keys % max(n_sw, 1)).astype(np.int32), indptr.astype(np.int32)),
                                    shape=(n_sw, n_sw))

    def shortest_paths(self, root_row: int) -> tuple[np.ndarray, np.ndarray]:
        """Weighted distances and predecessors (switch rows) from the root."""
        return dijkstra(self.matrix, directed=True, indices=root_row, return_predecessors=True)

    def link_between(self, u_row: int, v_row: int) -> int:
        """Least-loaded live link (row) from switch row ``u_row`` to ``v_row``; ties: lowest port at u."""
        e = int(np.searchsorted(self.keys, u_row * self.n_sw + v_row))
        lo, hi = self.entry_ptr[e], self.entry_ptr[e + 1]
        if hi - lo == 1:
            return int(self.entry_link[lo])
        links = self.entry_link[lo:hi]
        return int(links[np.argmin(self.state.efi[links])])

    def update(self, link_rows: np.ndarray) -> None:
        """Refresh the weights of the entries of links whose EFI changed."""
        entries = self.link_entries[link_rows].ravel()
        entries = np.unique(entries[entries >= 0])
        if not len(entries):
            return
        starts = self.entry_ptr[entries]
        counts = self.entry_ptr[entries + 1] - starts
        loads = self.state.efi[self.entry_link[ranges(starts, counts)]]
        least = np.minimum.reduceat(loads, np.cumsum(counts) - counts)
        self.matrix.data[entries] = self.weight + least


def sssp_tree(st: RoutingState, root_row: int, members: np.ndarray, gid: int) -> TreeParts:
    """SSSP-MC: Dijkstra from the root, then each member's shortest-path-tree path."""
    graph = st.sssp
    root = int(st.switches[root_row])
    parts = TreeParts(root)
    dist, pred = graph.shortest_paths(root_row)
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
            links.append(graph.link_between(up, row))
            if st.stamp[st.switches[up]] == gid:
                break
            st.stamp[st.switches[up]] = gid
            row = up
    parts.add(nodes, parents, links)
    return parts
