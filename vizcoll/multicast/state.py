"""The load state one :func:`~vizcoll.multicast.routing.route` call keeps between groups, shared by every
algorithm family: live ports as arrays, link EFIs, per-switch root and use counts, the min-hop queries the
families need and the root choice (minimum eccentricity, optionally rotated by load).
"""

from __future__ import annotations

import numpy as np

from vizcoll.multicast.results import ints
from vizcoll.topology.hops import UNREACHABLE, MinHopTable
from vizcoll.topology.model import Topology

__all__ = ["BIG", "MAX_GROUPS", "RoutingState", "TreeParts", "first_per_owner"]

BIG = 1 << 40  # "no path" while taking minima
_ROW_BITS = 21  # switch rows and per-switch tree counts below 2**21: a root's load packs into one int64
MAX_GROUPS = (1 << _ROW_BITS) - 1
"""Most groups one routing call takes (InfiniBand has 16,384 multicast LIDs)."""


def first_per_owner(owner: np.ndarray) -> np.ndarray:
    """Positions where a sorted owner array starts a new owner."""
    if not len(owner):
        return owner
    starts = np.flatnonzero(owner[1:] != owner[:-1]) + 1
    return np.concatenate(([0], starts))


class RoutingState:
    """What one :func:`~vizcoll.multicast.routing.route` call keeps between groups (live ports, loads, marks)."""

    def __init__(self, topo: Topology, table: MinHopTable, rotate: bool):
        view = table.port_view
        self.table = table
        self.unreachable = table.unreachable
        self.indptr = view.indptr
        self.port = view.port.astype(np.int64)
        self.peer = view.peer.astype(np.int64)
        self.link = view.link.astype(np.int64)
        degree = np.diff(self.indptr)
        self.single_port = np.where(degree == 1, self.indptr[:-1], -1)  # position of a node's only live port
        self.port_bits = max(1, int(degree.max(initial=1)).bit_length())  # a port's offset among its node's
        self.peer_row = table.sw_pos[self.peer]
        self.switches = table.switches
        self.link_ids = topo.link_id.astype(np.int64)
        self.efi = np.zeros(topo.n_links, dtype=np.int64)
        self.rooted = np.zeros(len(self.switches), dtype=np.int64)
        self.using = np.zeros(len(self.switches), dtype=np.int64)
        self.stamp = np.full(topo.n_nodes, -1, dtype=np.int64)  # == group index: node is in that group's tree
        self.scratch = np.zeros(topo.n_nodes, dtype=np.int64)
        self.positions = np.arange(max(topo.n_nodes, len(self.link)), dtype=np.int64)  # nodes or ports at once
        self.levels = np.full(len(self.switches) + 1, self.unreachable, dtype=np.int64)
        self.entry_row, self.entry_hop = table.single_entry  # -1: no or several switches
        self.rotate = rotate
        glob = topo.link_attrs.get("global")
        self.glob = np.zeros(topo.n_links, np.int64) if glob is None else (glob > 0).astype(np.int64)
        self.global_cache: dict[int, np.ndarray] = {}  # FULB-MC's global-link distances per root row
        self.switch_edges: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.towards_switches: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self.sssp = None  # SSSP-MC's weighted switch graph (vizcoll.multicast.sssp.SsspGraph), kept up to date

    def expand(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Live ports of ``nodes``: port-view positions, the index in ``nodes`` owning each, segment starts.

        Every node must have a live port (true for any node a finite
        eccentricity says is connected).
        """
        starts = self.indptr[nodes]
        counts = self.indptr[nodes + 1] - starts
        if len(counts) and counts.min() == 0:
            raise RuntimeError("a node to route from has no live port")
        segments = np.cumsum(counts) - counts
        idx = np.repeat(starts - segments, counts) + np.arange(int(counts.sum()))
        return idx, np.repeat(np.arange(len(nodes)), counts), segments

    def switch_ports(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The live ports whose peer is a switch (the only ways towards a root), node by node: ``(indptr, offset
        among the node's live ports, peer row, link row)`` (computed once)."""
        if self.towards_switches is None:
            keep = self.peer_row >= 0
            owner = np.repeat(np.arange(len(self.indptr) - 1), np.diff(self.indptr))
            offset = np.arange(len(keep)) - self.indptr[owner]
            ptr = np.concatenate(([0], np.cumsum(np.bincount(owner[keep], minlength=len(self.indptr) - 1))))
            self.towards_switches = (ptr, offset[keep], self.peer_row[keep], self.link[keep])
        return self.towards_switches

    def switch_to_switch(self) -> tuple[np.ndarray, np.ndarray]:
        """Port-view positions of live switch-to-switch ports and the switch row owning each."""
        owner_row = self.table.sw_pos[np.repeat(np.arange(len(self.indptr) - 1), np.diff(self.indptr))]
        ss = np.flatnonzero((owner_row >= 0) & (self.peer_row >= 0))
        return ss, owner_row[ss]

    def firsts(self, nodes: np.ndarray) -> np.ndarray:
        """Where each distinct value of ``nodes`` occurs first (a boolean mask; no sorting)."""
        positions = self.positions[: len(nodes)]
        self.scratch[nodes[::-1]] = positions[::-1]
        return self.scratch[nodes] == positions

    def root_dist(self, row: int) -> np.ndarray:
        """Hops from switch row ``row`` to every switch row (int64, ``BIG`` = unreachable)."""
        raw = self.table.dist[row]
        out = raw.astype(np.int64)
        out[raw == self.unreachable] = BIG
        return out

    def root_levels(self, row: int) -> np.ndarray:
        """Hops from switch row ``row`` to every switch row, then one more entry for "not a switch" (indexed by a
        peer row of -1); :attr:`unreachable` where there is no path (int64, a buffer reused per call)."""
        self.levels[:-1] = self.table.dist[row]
        return self.levels

    def switch_hops(self, rows: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Hops from switch rows ``rows[i]`` to ``nodes[i]`` (int64, ``BIG`` = unreachable)."""
        entry = self.entry_row[nodes]
        if len(entry) and entry.min() >= 0:
            raw = self.table.dist[rows, entry]
            return np.where(raw == self.unreachable, BIG, raw.astype(np.int64) + self.entry_hop[nodes])
        far = self.table.hops(self.switches[rows], nodes).astype(np.int64)
        return np.where(far == UNREACHABLE, BIG, far)

    def choose_root(self, candidates: np.ndarray) -> int:
        """The root's switch row among the minimum-eccentricity switch rows ``candidates`` (ascending,
        :func:`vizcoll.multicast.roots.root_candidates`): the original algorithms take the first, the rotating
        ones the one with the fewest trees rooted there, then the fewest trees using it."""
        if not self.rotate or len(candidates) == 1:
            return int(candidates[0])
        load = (self.rooted[candidates] << 2 * _ROW_BITS) + (self.using[candidates] << _ROW_BITS) + candidates
        return int(candidates[np.argmin(load)])

    def commit(self, root_row: int, nodes: np.ndarray, link_rows: np.ndarray) -> None:
        """Count one more tree: EFIs of its links, the root's and the used switches' loads."""
        self.efi[link_rows] += 1
        self.rooted[root_row] += 1
        rows = self.table.sw_pos[nodes]
        self.using[rows[rows >= 0]] += 1
        if self.sssp is not None:
            self.sssp.update(link_rows)


class TreeParts:
    """Nodes added to a tree with their parents and parent links (link rows), in order."""

    def __init__(self, root: int):
        self.root = root
        self.nodes: list[np.ndarray] = []
        self.parents: list[np.ndarray] = []
        self.links: list[np.ndarray] = []

    def add(self, nodes, parents, links) -> None:
        self.nodes.append(ints(nodes))
        self.parents.append(ints(parents))
        self.links.append(ints(links))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(nodes, parents, link rows)`` with the root first (parent -1, link -1)."""
        head = np.array([self.root, -1], dtype=np.int64)
        return (
            np.concatenate([head[:1], *self.nodes]),
            np.concatenate([head[1:], *self.parents]),
            np.concatenate([head[1:], *self.links]),
        )
