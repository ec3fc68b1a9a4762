"""The load state one :func:`~vizcoll.multicast.routing.route` call keeps between groups, shared by every
algorithm family: live ports as arrays, link EFIs, per-switch root and use counts, the min-hop queries the
families need and the root choice (minimum eccentricity, optionally rotated by load).
"""

from __future__ import annotations

import numpy as np

from vizcoll.multicast.results import ints
from vizcoll.topology.hops import UNREACHABLE, MinHopTable
from vizcoll.topology.model import Topology

__all__ = ["BIG", "RoutingState", "TreeParts", "first_per_owner", "ranges"]

BIG = 1 << 40  # "no path" while taking minima


def ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(starts[i], starts[i] + counts[i])``."""
    return np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))


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
        self.peer_row = table.sw_pos[self.peer]
        self.switches = table.switches
        self.link_ids = topo.link_id.astype(np.int64)
        self.efi = np.zeros(topo.n_links, dtype=np.int64)
        self.rooted = np.zeros(len(self.switches), dtype=np.int64)
        self.using = np.zeros(len(self.switches), dtype=np.int64)
        self.stamp = np.full(topo.n_nodes, -1, dtype=np.int64)  # == group index: node is in that group's tree
        self.scratch = np.zeros(topo.n_nodes, dtype=np.int64)
        single = np.flatnonzero(np.diff(table.anchor_ptr) == 1)  # switches, end nodes on exactly one switch
        self.entry_row = np.full(topo.n_nodes, -1, dtype=np.int64)  # -1: no or several switches
        self.entry_row[single] = table.anchor_row[table.anchor_ptr[single]]
        self.entry_hop = np.zeros(topo.n_nodes, dtype=np.int64)
        self.entry_hop[single] = table.anchor_off[table.anchor_ptr[single]]
        self.rotate = rotate
        glob = topo.link_attrs.get("global")
        self.glob = np.zeros(topo.n_links, np.int64) if glob is None else (glob > 0).astype(np.int64)
        self.global_cache: dict[int, np.ndarray] = {}  # FULB-MC's global-link distances per root row
        self.switch_edges: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
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

    def switch_to_switch(self) -> tuple[np.ndarray, np.ndarray]:
        """Port-view positions of live switch-to-switch ports and the switch row owning each."""
        owner_row = self.table.sw_pos[np.repeat(np.arange(len(self.indptr) - 1), np.diff(self.indptr))]
        ss = np.flatnonzero((owner_row >= 0) & (self.peer_row >= 0))
        return ss, owner_row[ss]

    def first_positions(self, nodes: np.ndarray) -> np.ndarray:
        """Positions of the first occurrence of each distinct value of ``nodes``, ascending (no sorting)."""
        positions = np.arange(len(nodes))
        self.scratch[nodes[::-1]] = positions[::-1]
        return np.flatnonzero(self.scratch[nodes] == positions)

    def root_dist(self, row: int) -> np.ndarray:
        """Hops from switch row ``row`` to every switch row (int64, ``BIG`` = unreachable)."""
        raw = self.table.dist[row]
        out = raw.astype(np.int64)
        out[raw == self.unreachable] = BIG
        return out

    def eccentricity(self, members: np.ndarray) -> np.ndarray:
        """``MinHopTable.eccentricity_to(members)``, with a lean path for the usual case.

        When every member is a switch or an end node on exactly one switch,
        the rows of those switches are gathered straight from the distance
        matrix (an end node adding its own hop); otherwise the table answers.
        """
        rows = self.entry_row[members]
        if len(rows) == 0 or rows.min() < 0:
            return self.table.eccentricity_to(members)
        dist, ends = self.table.dist, self.entry_hop[members] > 0
        worst = np.zeros(len(self.switches), dtype=np.int64)
        unreachable = np.zeros(len(self.switches), dtype=bool)
        for chosen, extra in ((rows[~ends], 0), (rows[ends], 1)):
            if len(chosen):
                far = dist[np.unique(chosen)].max(axis=0)
                unreachable |= far == self.unreachable
                np.maximum(worst, far.astype(np.int64) + extra, out=worst)
        worst[unreachable] = UNREACHABLE
        return worst

    def switch_hops(self, rows: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Hops from switch rows ``rows[i]`` to ``nodes[i]`` (int64, ``BIG`` = unreachable)."""
        entry = self.entry_row[nodes]
        if len(entry) and entry.min() >= 0:
            raw = self.table.dist[rows, entry]
            return np.where(raw == self.unreachable, BIG, raw.astype(np.int64) + self.entry_hop[nodes])
        far = self.table.hops(self.switches[rows], nodes).astype(np.int64)
        return np.where(far == UNREACHABLE, BIG, far)

    def choose_root(self, members: np.ndarray) -> tuple[int, int] | None:
        """``(switch row of the root, tree height)``, None if no switch reaches every member.

        The root has the smallest eccentricity to the members; the original
        algorithms take the first such switch, the rotating ones the one with
        the fewest trees rooted there, then the fewest trees using it.
        """
        ecc = self.eccentricity(members)
        ok = ecc >= 0
        if not ok.any():
            return None
        height = int(ecc[ok].min())
        candidates = np.flatnonzero(ecc == height)
        if not self.rotate:
            return int(candidates[0]), height
        best = np.lexsort((candidates, self.using[candidates], self.rooted[candidates]))[0]
        return int(candidates[best]), height

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
        return (np.concatenate([[self.root], *self.nodes]).astype(np.int64),
                np.concatenate([[-1], *self.parents]).astype(np.int64),
                np.concatenate([[-1], *self.links]).astype(np.int64))

