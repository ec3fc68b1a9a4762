"""Multicast routing: MINIHOP-MC, SSSP-MC and FULB-MC (seed 003), group by group, with link EFIs.

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
    OpenSM's MINIHOP-MC. Root: the first switch (lowest node index) of
    minimum eccentricity. Top-down: at each switch every member not yet
    reached leaves through the lowest-numbered live port with the fewest hops
    to it (``MinHopTable.min_ports(switch, member)[0]``); members are grouped
    per port and the split repeats at the peer. No balancing. Two branches
    never meet again: if they did, both would be shortest, so the switch where
    they split would have sent both members through the same lowest port
    (the code still keeps a switch's first parent only, defensively).
``sssp``
    SSSP-MC. Same root; Dijkstra (:func:`scipy.sparse.csgraph.dijkstra`) from
    the root over the live switch-to-switch links with weight
    ``C + groups already on the link``, ``C = (groups + 1) * (diameter + 1)``
    so that a longer path always costs more than any loaded one (paths stay
    shortest). Tree = union of the shortest-path-tree paths to every member's
    switch, plus the member's own link (for an end node on several switches,
    the cheapest attachment). Parallel links between two switches count as one
    edge weighted by the least-loaded of them, which the tree then uses.
``fulb``
    FULB-MC. Root rotation: among the minimum-eccentricity switches, the one
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
``minhop-new``, ``sssp-new``
    The original algorithms with FULB's root rotation.
``fulb+global``
    FULB-MC plus the dragonfly rule of the paper's section 4.1.3: before the
    EFI, prefer the port whose remaining shortest path to the root crosses the
    fewest global links (link attribute ``global``; for each root the minimum
    is computed once by a level-by-level pass over the shortest-path DAG).

A group whose members cannot all reach one common switch (broken links, an
end node without live links, an empty group) gets no tree and its index is
listed in :attr:`MulticastResult.unroutable`.

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
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from vizcoll.comm import Communicators
from vizcoll.errors import SpecError, VizcollError
from vizcoll.topology.hops import UNREACHABLE, MinHopTable, min_hops
from vizcoll.topology.model import Topology

__all__ = [
    "ALGORITHMS",
    "MulticastTree",
    "MulticastResult",
    "communicator_groups",
    "route",
    "route_communicators",
]

ALGORITHMS = ("minhop", "minhop-new", "sssp", "sssp-new", "fulb", "fulb+global")
"""Names accepted by :func:`route`."""

ROTATING = frozenset({"minhop-new", "sssp-new", "fulb", "fulb+global"})
"""Algorithms choosing the least-loaded root among the minimum-height ones."""

SCHEMA = "vizcoll.multicast/1"
_BIG = 1 << 40  # "no path" while taking minima


# ====================================================================== results
def _ints(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int64).reshape(-1)


@dataclass(eq=False)
class MulticastTree:
    """The multicast tree of one group.

    Attributes
    ----------
    group : int
        Index of the group (communicator).
    root : int
        Node index of the root switch.
    members : ndarray of int64
        The group's distinct member nodes, in member order.
    nodes : ndarray of int64
        Every node of the tree (switches and end-node members), root first.
    parent : ndarray of int64
        ``parent[i]`` is the node index of ``nodes[i]``'s parent (-1 for the root).
    parent_link : ndarray of int64
        Id (``Topology.link_id``) of the link from ``nodes[i]`` to its parent (-1 for the root).
    height : int
        Most hops from the root to a member (= the root's eccentricity).
    """

    group: int
    root: int
    members: np.ndarray
    nodes: np.ndarray
    parent: np.ndarray
    parent_link: np.ndarray
    height: int

    @property
    def links(self) -> np.ndarray:
        """Ids of the links the tree uses (one per non-root node)."""
        return self.parent_link[self.parent_link >= 0]

    def parent_of(self, node: int) -> tuple[int, int]:
        """``(parent node, link id)`` of a tree node; ``(-1, -1)`` for the root."""
        hit = np.flatnonzero(self.nodes == int(node))
        if not len(hit):
            raise VizcollError(f"node {node} is not in the tree of group {self.group}")
        return int(self.parent[hit[0]]), int(self.parent_link[hit[0]])

    def depths(self) -> np.ndarray:
        """Hops from the root to each of :attr:`nodes` (raises if the parents hold a cycle)."""
        order = np.argsort(self.nodes)
        has_parent = self.parent >= 0
        up = np.arange(len(self.nodes))
        up[has_parent] = order[np.searchsorted(self.nodes[order], self.parent[has_parent])]
        depth = np.zeros(len(self.nodes), dtype=np.int64)
        at = np.arange(len(self.nodes))
        moving = has_parent.copy()
        for _ in range(len(self.nodes)):
            if not moving.any():
                return depth
            depth[moving] += 1
            at[moving] = up[at[moving]]
            moving &= self.parent[at] >= 0
        raise VizcollError(f"the parents of group {self.group}'s tree hold a cycle")

    def to_dict(self) -> dict:
        return {"group": self.group, "root": self.root, "height": self.height,
                "members": self.members.tolist(), "nodes": self.nodes.tolist(),
                "parent": self.parent.tolist(), "parent_link": self.parent_link.tolist()}

    @classmethod
    def from_dict(cls, data: dict) -> MulticastTree:
        tree = cls(int(data["group"]), int(data["root"]), _ints(data["members"]), _ints(data["nodes"]),
                   _ints(data["parent"]), _ints(data["parent_link"]), int(data["height"]))
        if not len(tree.nodes) == len(tree.parent) == len(tree.parent_link) or tree.nodes[0] != tree.root:
            raise VizcollError(f"tree of group {tree.group}: nodes, parent and parent_link do not match")
        return tree


@dataclass(eq=False)
class MulticastResult:
    """Trees of all groups routed by one algorithm, and the link EFIs they make.

    Attributes
    ----------
    algo : str
        One of :data:`ALGORITHMS`.
    trees : list of MulticastTree or None
        One entry per group, None for an unroutable group.
    unroutable : list of int
        Indices of the groups that got no tree.
    efi : ndarray of int64
        Per link row of the topology: number of groups whose tree uses the link.
    link_ids : ndarray of int64
        ``Topology.link_id`` of each row (see :meth:`efi_by_link_id`).
    live_links : int
        Number of links that were not broken.
    runtime_s : float
        Wall-clock seconds of routing (root choice and trees; not the min-hop table).
    """

    algo: str
    trees: list[MulticastTree | None]
    unroutable: list[int]
    efi: np.ndarray
    link_ids: np.ndarray
    live_links: int
    runtime_s: float

    def efi_by_link_id(self) -> dict[int, int]:
        """``{link id: EFI}`` for every link."""
        return dict(zip(self.link_ids.tolist(), self.efi.tolist(), strict=True))

    def summary(self) -> dict:
        """The figures the CLI prints.

        ``mean_efi`` averages over the links some tree uses (EFI > 0);
        ``mean_efi_all`` over all live links. ``efi_histogram`` maps an EFI to
        its number of live links (including EFI 0).
        """
        used = self.efi[self.efi > 0]
        values, counts = np.unique(used, return_counts=True)
        histogram = {0: self.live_links - len(used)} if self.live_links > len(used) else {}
        histogram.update(zip(values.tolist(), counts.tolist(), strict=True))
        heights = [t.height for t in self.trees if t is not None]
        return {
            "algo": self.algo,
            "groups": len(self.trees),
            "unroutable": len(self.unroutable),
            "max_efi": int(used.max()) if len(used) else 0,
            "mean_efi": round(float(used.mean()), 4) if len(used) else 0.0,
            "mean_efi_all": round(float(used.sum()) / self.live_links, 4) if self.live_links else 0.0,
            "max_height": max(heights, default=0),
            "runtime_s": round(self.runtime_s, 4),
            "efi_histogram": histogram,
        }

    def to_dict(self) -> dict:
        """JSON-serialisable form (schema ``vizcoll.multicast/1``)."""
        return {"schema": SCHEMA, "algo": self.algo, "runtime_s": self.runtime_s,
                "unroutable": list(self.unroutable), "live_links": self.live_links,
                "link_ids": self.link_ids.tolist(), "efi": self.efi.tolist(),
                "trees": [None if t is None else t.to_dict() for t in self.trees]}

    @classmethod
    def from_dict(cls, data: dict) -> MulticastResult:
        """Inverse of :meth:`to_dict`; raises :class:`VizcollError` on a malformed dict."""
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise VizcollError(f"not a vizcoll multicast result: the field 'schema' must be {SCHEMA!r}")
        try:
            result = cls(str(data["algo"]), [None if t is None else MulticastTree.from_dict(t) for t in data["trees"]],
                         [int(g) for g in data["unroutable"]], _ints(data["efi"]), _ints(data["link_ids"]),
                         int(data["live_links"]), float(data["runtime_s"]))
        except KeyError as exc:
            raise VizcollError(f"multicast result: missing field {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            raise VizcollError(f"multicast result: a field has the wrong type or value ({exc})") from None
        if len(result.efi) != len(result.link_ids):
            raise VizcollError("multicast result: 'efi' and 'link_ids' differ in length")
        return result


# ====================================================================== load state
def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(starts[i], starts[i] + counts[i])``."""
    return np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))


def _first_per_owner(owner: np.ndarray) -> np.ndarray:
    """Positions where a sorted owner array starts a new owner."""
    if not len(owner):
        return owner
    starts = np.flatnonzero(owner[1:] != owner[:-1]) + 1
    return np.concatenate(([0], starts))


class _State:
    """What one :func:`route` call keeps between groups (live ports, loads, marks)."""

    def __init__(self, topo: Topology, table: MinHopTable, algo: str, n_groups: int):
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
        self.rotate = algo in ROTATING
        glob = topo.link_attrs.get("global")
        self.glob = np.zeros(topo.n_links, np.int64) if glob is None else (glob > 0).astype(np.int64)
        self._global_cache: dict[int, np.ndarray] = {}
        self._switch_edges: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.sssp = _SsspGraph(self, n_groups) if algo.startswith("sssp") else None

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
        """Hops from switch row ``row`` to every switch row (int64, ``_BIG`` = unreachable)."""
        raw = self.table.dist[row]
        out = raw.astype(np.int64)
        out[raw == self.unreachable] = _BIG
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
        """Hops from switch rows ``rows[i]`` to ``nodes[i]`` (int64, ``_BIG`` = unreachable)."""
        entry = self.entry_row[nodes]
        if len(entry) and entry.min() >= 0:
            raw = self.table.dist[rows, entry]
            return np.where(raw == self.unreachable, _BIG, raw.astype(np.int64) + self.entry_hop[nodes])
        far = self.table.hops(self.switches[rows], nodes).astype(np.int64)
        return np.where(far == UNREACHABLE, _BIG, far)

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

    def global_dist(self, root_row: int, droot: np.ndarray) -> np.ndarray:
        """Fewest global links on a shortest path from every switch row to the root (cached per root)."""
        if root_row not in self._global_cache:
            self._global_cache[root_row] = self._global_levels(root_row, droot)
        return self._global_cache[root_row]

    def _global_levels(self, root_row: int, droot: np.ndarray) -> np.ndarray:
        if not self.glob.any():
            return np.zeros(len(self.switches), dtype=np.int64)
        if self._switch_edges is None:
            ss, owner_row = self.switch_to_switch()
            self._switch_edges = (owner_row, self.peer_row[ss], self.glob[self.link[ss]])
        u, v, glob = self._switch_edges
        down = droot[u] == droot[v] + 1  # u is one hop further from the root than v
        u, v, glob = u[down], v[down], glob[down]
        level = droot[u]
        order = np.argsort(level, kind="stable")
        u, v, glob, level = u[order], v[order], glob[order], level[order]
        gmin = np.full(len(self.switches), _BIG, dtype=np.int64)
        gmin[root_row] = 0
        bounds = np.searchsorted(level, np.arange(1, int(level.max(initial=0)) + 2))
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            np.minimum.at(gmin, u[lo:hi], gmin[v[lo:hi]] + glob[lo:hi])
        return gmin

    def commit(self, root_row: int, nodes: np.ndarray, link_rows: np.ndarray) -> None:
        """Count one more tree: EFIs of its links, the root's and the used switches' loads."""
        self.efi[link_rows] += 1
        self.rooted[root_row] += 1
        rows = self.table.sw_pos[nodes]
        self.using[rows[rows >= 0]] += 1
        if self.sssp is not None:
            self.sssp.update(link_rows)


class _SsspGraph:
    """The weighted switch graph of SSSP-MC: one CSR entry per ordered pair of linked switches."""

    def __init__(self, state: _State, n_groups: int):
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
        loads = self.state.efi[self.entry_link[_ranges(starts, counts)]]
        least = np.minimum.reduceat(loads, np.cumsum(counts) - counts)
        self.matrix.data[entries] = self.weight + least


# ====================================================================== tree builders
class _Parts:
    """Nodes added to a tree with their parents and parent links (link rows), in order."""

    def __init__(self, root: int):
        self.root = root
        self.nodes: list[np.ndarray] = []
        self.parents: list[np.ndarray] = []
        self.links: list[np.ndarray] = []

    def add(self, nodes, parents, links) -> None:
        self.nodes.append(_ints(nodes))
        self.parents.append(_ints(parents))
        self.links.append(_ints(links))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(nodes, parents, link rows)`` with the root first (parent -1, link -1)."""
        return (np.concatenate([[self.root], *self.nodes]).astype(np.int64),
                np.concatenate([[-1], *self.parents]).astype(np.int64),
                np.concatenate([[-1], *self.links]).astype(np.int64))


def _minhop_tree(st: _State, root_row: int, members: np.ndarray, gid: int) -> _Parts:
    """MINIHOP-MC: top-down, lowest-numbered min-hop port per (switch, member)."""
    root = int(st.switches[root_row])
    parts = _Parts(root)
    st.stamp[root] = gid
    todo = members[members != root]
    at = np.full(len(todo), root, dtype=np.int64)
    while len(todo):
        idx, owner, segments = st.expand(at)
        peer, dst = st.peer[idx], todo[owner]
        hops = np.full(len(idx), _BIG, dtype=np.int64)
        via = st.peer_row[idx] >= 0
        hops[via] = 1 + st.switch_hops(st.peer_row[idx[via]], dst[via])
        hops[~via & (peer == dst)] = 1
        best = np.minimum.reduceat(hops, segments)
        if best.max() >= _BIG:
            raise RuntimeError("MINIHOP-MC lost a member")  # the root's eccentricity said it was reachable
        pos = np.flatnonzero(hops == best[owner])
        chosen = idx[pos[_first_per_owner(owner[pos])]]
        nxt = st.peer[chosen]
        fresh = np.flatnonzero(st.stamp[nxt] != gid)
        new = fresh[st.first_positions(nxt[fresh])]
        parts.add(nxt[new], at[new], st.link[chosen[new]])
        st.stamp[nxt[new]] = gid
        going = nxt != todo
        at, todo = nxt[going], todo[going]
    return parts


def _fulb_tree(st: _State, root_row: int, members: np.ndarray, gid: int, use_global: bool) -> _Parts:
    """FULB-MC link rotation: walks from the members towards the root, one level of walks at a time."""
    root = int(st.switches[root_row])
    parts = _Parts(root)
    droot = st.root_dist(root_row)
    gmin = st.global_dist(root_row, droot) if use_global else None
    st.stamp[root] = gid
    frontier = members[members != root]
    st.stamp[frontier] = gid
    while len(frontier):
        idx, owner, segments = st.expand(frontier)
        rows = st.peer_row[idx]
        dist = np.where(rows >= 0, droot[rows], _BIG)  # only switches lead towards the root
        best = np.minimum.reduceat(dist, segments)
        if best.max() >= _BIG:
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
            chosen = idx[order][_first_per_owner(owner[order])]
        up = st.peer[chosen]
        parts.add(frontier, up, st.link[chosen])
        fresh = up[st.stamp[up] != gid]
        frontier = fresh[st.first_positions(fresh)]
        st.stamp[frontier] = gid
    return parts


def _sssp_tree(st: _State, root_row: int, members: np.ndarray, gid: int) -> _Parts:
    """SSSP-MC: Dijkstra from the root, then each member's shortest-path-tree path."""
    graph = st.sssp
    root = int(st.switches[root_row])
    parts = _Parts(root)
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


# ====================================================================== entry points
def _members(group, n_nodes: int, index: int) -> np.ndarray:
    """Distinct node indices of one group in first-appearance order."""
    arr = _ints(group)
    if len(arr) and (arr.min() < 0 or arr.max() >= n_nodes):
        raise SpecError(f"group {index} refers to a node outside 0..{n_nodes - 1}")
    return np.fromiter(dict.fromkeys(arr.tolist()), dtype=np.int64)


def route(topo: Topology, groups: Sequence, algo: str, table: MinHopTable | None = None) -> MulticastResult:
    """Route every group with one algorithm, in order, and count link EFIs.

    Parameters
    ----------
    topo : Topology
        The fabric (broken links are never used).
    groups : sequence of array-like of int
        Member node indices of each group (repeats are dropped).
    algo : str
        One of :data:`ALGORITHMS` (see the module docstring).
    table : MinHopTable, optional
        ``min_hops(topo)`` if already built (it must match the topology's
        current broken links); not counted in ``runtime_s``.

    Returns
    -------
    MulticastResult
    """
    if algo not in ALGORITHMS:
        raise SpecError(f"unknown multicast algorithm {algo!r}; choose one of {', '.join(ALGORITHMS)}")
    table = min_hops(topo) if table is None else table
    if table.n_nodes != topo.n_nodes:
        raise SpecError("the min-hop table was built for another topology")
    start = time.perf_counter()
    st = _State(topo, table, algo, len(groups))
    trees: list[MulticastTree | None] = []
    unroutable: list[int] = []
    for gid, group in enumerate(groups):
        members = _members(group, topo.n_nodes, gid)
        choice = st.choose_root(members) if len(members) else None
        if choice is None:
            trees.append(None)
            unroutable.append(gid)
            continue
        root_row, height = choice
        if algo.startswith("minhop"):
            parts = _minhop_tree(st, root_row, members, gid)
        elif algo.startswith("sssp"):
            parts = _sssp_tree(st, root_row, members, gid)
        else:
            parts = _fulb_tree(st, root_row, members, gid, use_global=algo == "fulb+global")
        nodes, parents, rows = parts.arrays()
        st.commit(root_row, nodes, rows[1:])
        ids = np.where(rows >= 0, st.link_ids[rows], -1)
        trees.append(MulticastTree(gid, int(st.switches[root_row]), members, nodes, parents, ids, height))
    runtime = time.perf_counter() - start
    return MulticastResult(algo, trees, unroutable, st.efi, st.link_ids.copy(), int(topo.live.sum()), runtime)


def communicator_groups(comms: Communicators) -> list[np.ndarray]:
    """Member nodes of each communicator: the distinct nodes of its processes, in rank order."""
    nodes, comm = comms.node_array().astype(np.int64), comms.comm_of_entry()
    width = int(nodes.max()) + 1 if len(nodes) else 1
    _, first = np.unique(comm * width + nodes, return_index=True)
    first.sort()
    bounds = np.r_[0, np.cumsum(np.bincount(comm[first], minlength=len(comms)))]
    kept = nodes[first]
    return [kept[bounds[i]:bounds[i + 1]] for i in range(len(comms))]


def route_communicators(topo: Topology, comms: Communicators, algo: str,
                        table: MinHopTable | None = None) -> MulticastResult:
    """:func:`route` with one multicast group per communicator (see :func:`communicator_groups`)."""
    return route(topo, communicator_groups(comms), algo, table)
