"""Min-hop tables: the fewest hops between switches and end nodes over live links.

OpenSM builds a min-hop table after discovering the fabric (row = destination,
column = output port, cell = fewest hops leaving through that port); the
multicast routing engines (MINIHOP-MC, SSSP-MC, FULB-MC) read it to pick tree
roots and ports. :func:`min_hops` builds the part every query derives from:
the switch-to-switch distance matrix, plus how end nodes attach to switches.

Rules:

- broken links are ignored;
- only switches forward: a path may pass through switches only, an end node
  is only ever its first or last node (two end nodes linked directly are one
  hop apart, but nothing travels through an end node);
- a node is 0 hops from itself;
- query results are ``int32`` with :data:`UNREACHABLE` (-1) where no path
  exists; the compact matrix :attr:`MinHopTable.dist` uses the largest value of
  its unsigned dtype instead (:attr:`MinHopTable.unreachable`).

The switch distances come from a breadth-first search of many sources at
once: each switch holds a bit per source ("reached yet?"), one level of the
search ORs the new bits of a switch's neighbors together, and the depth at
which each bit appears is kept in a few bit planes (its binary digits). That
is about ten times faster than running :mod:`scipy.sparse.csgraph` once per
source and never holds a float matrix of all pairs (:mod:`vizcoll.topology.bitbfs`).

>>> from vizcoll.topology.generators import from_spec
>>> topo = from_spec("fat-tree:radix=4,levels=2")  # leaf0..3, spine0..1, h0..h7
>>> table = min_hops(topo)
>>> table.dist.dtype, table.diameter
(dtype('uint8'), 2)
>>> h0, h1, h2 = (topo.index(x) for x in ("h0", "h1", "h2"))
>>> table.hops([h0, h0, h0], [h0, h1, h2]).tolist()
[0, 2, 4]
>>> ports, hops = table.port_hops(topo.index("leaf0"), [h1, h2])
>>> ports.tolist(), hops.tolist()
([1, 2, 3, 4], [[-1, -1], [1, -1], [3, 3], [3, 3]])
>>> table.min_ports(topo.index("leaf0"), h2)
[3, 4]
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from vizcoll.arrays import ranges, unique
from vizcoll.errors import TopologyError
from vizcoll.topology.bitbfs import bfs, buckets_of, store_u8, widen_dist
from vizcoll.topology.blockdist import BlockDist, rail_blocks
from vizcoll.topology.model import ENDPOINT, SWITCH, PortView, Topology
from vizcoll.topology.twins import twin_classes, twin_search

__all__ = ["MAX_DENSE_SWITCHES", "UNREACHABLE", "MinHopTable", "min_hops"]

UNREACHABLE = -1
"""Hop count reported by every query when no path exists."""

_BIG = 1 << 30  # internal "infinity" while taking minima (int64 arithmetic, no overflow)
_CHUNK_WORDS = 32  # sources per breadth-first pass = 64 * this
_MAX_WORKERS = 4
_BLOCK_CELLS = 1 << 22  # cells per temporary block in eccentricity_to
_DENSE_CELLS = 1 << 26  # up to 8,192 switches (64 MB) the matrix is written whole: reading it is faster
MAX_DENSE_SWITCHES = 46_340
"""The most switches of one switch-to-switch block (46,340² cells: 2 GiB as uint8), twins counted once; a fabric of
separate rails keeps one block per rail (:mod:`vizcoll.topology.blockdist`) and is not held to it."""


# ---------------------------------------------------------------- the table
@dataclass(frozen=True, eq=False)
class MinHopTable:
    """Fewest hops between all nodes of a topology; build it with :func:`min_hops`.

    Attributes
    ----------
    switches : ndarray of int64
        Node indices of the switches, in node order; row ``r`` of :attr:`dist`
        is switch ``switches[r]``.
    sw_pos : ndarray of int64
        For every node its row in :attr:`dist`, or -1 for an end node.
    dist : ndarray or BlockDist
        ``S x S`` switch-to-switch hop counts (symmetric) in the smallest of
        ``uint8`` / ``uint16`` / ``uint32`` that holds the diameter; unreachable
        pairs hold :attr:`unreachable` (the dtype's maximum). On a fabric of
        separate rails a :class:`~vizcoll.topology.blockdist.BlockDist` (one
        block per rail, indexed like the matrix): pairs on two rails are
        unreachable.
    anchor_ptr, anchor_row, anchor_off : ndarray
        CSR over nodes of the switch rows each node enters the switch fabric
        through, with the hops that costs: a switch has one entry (itself, 0),
        an end node one per switch it is linked to by a live link (1 each).
    peer_ptr, peer_node : ndarray
        CSR over nodes of the end nodes directly linked (live) to each end node.
    kind : ndarray of int8
        Node kinds (``SWITCH`` / ``ENDPOINT``) at build time.
    port_view : PortView
        The live ports of every node (see :meth:`Topology.ports`).
    """

    switches: np.ndarray
    sw_pos: np.ndarray
    dist: np.ndarray
    anchor_ptr: np.ndarray
    anchor_row: np.ndarray
    anchor_off: np.ndarray
    peer_ptr: np.ndarray
    peer_node: np.ndarray
    kind: np.ndarray
    port_view: PortView

    # ------------------------------------------------------------ basics
    @property
    def n_nodes(self) -> int:
        """Number of nodes of the topology the table was built for."""
        return len(self.kind)

    @property
    def unreachable(self) -> int:
        """Sentinel for "no path" inside :attr:`dist` (the maximum of its dtype)."""
        return int(np.iinfo(self.dist.dtype).max)

    @property
    def diameter(self) -> int:
        """Largest finite switch-to-switch distance (0 without switch pairs)."""
        if isinstance(self.dist, BlockDist):
            return self.dist.diameter()
        best, step = 0, max(1, _BLOCK_CELLS // max(len(self.switches), 1))
        for lo in range(0, len(self.switches), step):
            block = self.dist[lo : lo + step]
            best = max(best, int(np.where(block == self.unreachable, 0, block).max()))
        return best

    @cached_property
    def single_entry(self) -> tuple[np.ndarray, np.ndarray]:
        """``(entry_row, entry_hop)`` over nodes: the one switch row a node enters the switch fabric through and
        the hops that costs (a switch: itself, 0; an end node on one switch: that switch, 1); -1 and 0 for a node
        on no or several switches."""
        single = np.flatnonzero(np.diff(self.anchor_ptr) == 1)
        row = np.full(self.n_nodes, -1, dtype=np.int64)
        hop = np.zeros(self.n_nodes, dtype=np.int64)
        row[single] = self.anchor_row[self.anchor_ptr[single]]
        hop[single] = self.anchor_off[self.anchor_ptr[single]]
        return row, hop

    def attached(self, node: int) -> np.ndarray:
        """Switches (node indices, ascending) an end node is linked to by live links.

        For a switch this is the switch itself.
        """
        node = self._node(node)
        rows = self.anchor_row[self.anchor_ptr[node] : self.anchor_ptr[node + 1]]
        return self.switches[rows]

    # ------------------------------------------------------------ queries
    def hops(self, src_nodes, dst_nodes) -> np.ndarray:
        """Fewest hops from ``src_nodes[i]`` to ``dst_nodes[i]`` (arrays broadcast together).

        Parameters
        ----------
        src_nodes, dst_nodes : array_like of int
            Node indices (switches or end nodes), broadcast together.

        Returns
        -------
        numpy.ndarray
            ``int32`` of the broadcast shape, :data:`UNREACHABLE` where no path exists.

        Raises
        ------
        TopologyError
            For a node index outside the topology.
        """
        src, dst = np.broadcast_arrays(self._nodes(src_nodes), self._nodes(dst_nodes))
        shape = src.shape
        src, dst = src.ravel(), dst.ravel()
        pair, a, b = _anchor_pairs(self.anchor_ptr, src, dst)
        val = _widen(self.dist[self.anchor_row[a], self.anchor_row[b]])
        val += self.anchor_off[a] + self.anchor_off[b]
        out = _segment_min(val, pair, len(src))
        out[self._direct_peers(src, dst)] = 1
        out[src == dst] = 0
        return _finish(out).reshape(shape)

    def hops_from(self, node: int) -> np.ndarray:
        """Fewest hops from ``node`` (switch or end node) to every node.

        Parameters
        ----------
        node : int
            A node index.

        Returns
        -------
        numpy.ndarray
            ``int32`` over nodes, :data:`UNREACHABLE` where no path exists.

        Raises
        ------
        TopologyError
            For a node index outside the topology.
        """
        node = self._node(node)
        rows = self.anchor_row[self.anchor_ptr[node] : self.anchor_ptr[node + 1]]
        offs = self.anchor_off[self.anchor_ptr[node] : self.anchor_ptr[node + 1]]
        if len(rows):
            to_switch = (_widen(self.dist[rows]) + offs[:, None]).min(axis=0)
        else:
            to_switch = np.full(len(self.switches), _BIG, dtype=np.int64)
        out = self._switch_vector_to_nodes(to_switch)
        out[self.peer_node[self.peer_ptr[node] : self.peer_ptr[node + 1]]] = 1
        out[node] = 0
        return _finish(out)

    def switch_to_all(self, switch_node: int) -> np.ndarray:
        """One row of the min-hop table: fewest hops from a switch to every node (``int32``)."""
        self._row(switch_node)
        return self.hops_from(switch_node)

    def port_hops(self, switch_node: int, dst_nodes) -> tuple[np.ndarray, np.ndarray]:
        """OpenSM's per-port min-hop table of one switch for some destinations.

        ``hops[j, i]`` = fewest hops to ``dst_nodes[i]`` leaving through ``ports[j]`` = 1 + the distance from the
        peer on that port. A peer end node only leads to itself (1 hop). Where no path exists:
        :data:`UNREACHABLE`. The switch itself as destination gets 1 + (peer's distance back), like any other
        destination.

        Parameters
        ----------
        switch_node : int
            The switch's node index.
        dst_nodes : array_like of int
            Destination node indices.

        Returns
        -------
        ports : numpy.ndarray
            The switch's live connected port numbers, ascending (``int32``).
        hops : numpy.ndarray
            ``int32`` of shape ``(len(ports), len(dst_nodes))``.

        Raises
        ------
        TopologyError
            When ``switch_node`` is not a switch, or an index is outside the topology.
        """
        self._row(switch_node)
        dst = self._nodes(dst_nodes).ravel()
        view = self.port_view.of(int(switch_node))
        ports, peers = self.port_view.port[view], self.port_view.peer[view]
        out = np.full((len(ports), len(dst)), _BIG, dtype=np.int64)
        via_switch = self.sw_pos[peers] >= 0
        out[via_switch] = 1 + self._rows_to_nodes(self.sw_pos[peers[via_switch]], dst)
        out[(~via_switch)[:, None] & (peers[:, None] == dst[None, :])] = 1
        return ports.astype(np.int32), _finish(out)

    def min_ports(self, switch_node: int, dst_node: int) -> list[int]:
        """Port numbers of a switch achieving the fewest hops to ``dst_node``, ascending.

        The first is OpenSM's choice ("lowest-numbered port with the least hops").

        Parameters
        ----------
        switch_node : int
            The switch's node index.
        dst_node : int
            The destination's node index.

        Returns
        -------
        list of int
            The ports; empty when ``dst_node`` is unreachable or is the switch itself.

        Raises
        ------
        TopologyError
            When ``switch_node`` is not a switch, or an index is outside the topology.
        """
        if self._node(dst_node) == self._node(switch_node):
            self._row(switch_node)
            return []
        ports, hops = self.port_hops(switch_node, [dst_node])
        hops = hops[:, 0]
        ok = hops != UNREACHABLE
        if not ok.any():
            return []
        return ports[ok & (hops == hops[ok].min())].tolist()

    def eccentricity_to(self, members) -> np.ndarray:
        """Largest number of hops from each switch to any of ``members`` (node indices).

        Returns ``int32`` over switches (row order of :attr:`switches`):
        :data:`UNREACHABLE` where some member cannot be reached (mask it out
        before taking a minimum), 0 for no members. An end node member counts
        one hop more than its switch, by the distance rules.
        """
        members = unique(self._nodes(members).ravel())
        n_sw = len(self.switches)
        worst = np.zeros(n_sw, dtype=np.int64)
        counts = self.anchor_ptr[members + 1] - self.anchor_ptr[members]
        if np.any(counts == 0):  # an end node without live links to switches
            worst[:] = _BIG
        # Members entering through one switch: only (switch, largest offset) matters.
        one = self.anchor_ptr[members[counts == 1]]
        key = unique(self.anchor_row[one] * 2 + self.anchor_off[one])
        last = np.r_[key[1:] // 2 != key[:-1] // 2, True][: len(key)]
        rows, offs = key[last] // 2, key[last] % 2
        step = max(1, _BLOCK_CELLS // max(n_sw, 1))
        for offset in (0, 1):
            chosen = rows[offs == offset]
            for lo in range(0, len(chosen), step):
                # dist is symmetric (row = column) and its sentinel is the dtype's maximum
                far = self.dist[chosen[lo : lo + step]].max(axis=0)
                np.maximum(worst, _widen(far) + offset, out=worst)
        several = members[counts > 1]
        for lo in range(0, len(several), step):
            block = self._rows_to_nodes(None, several[lo : lo + step])
            np.maximum(worst, block.max(axis=1), out=worst)
        return _finish(worst)

    # ------------------------------------------------------------ helpers
    def _node(self, node) -> int:
        node = int(node)
        if not 0 <= node < self.n_nodes:
            raise TopologyError(f"node index {node} is outside 0..{self.n_nodes - 1}")
        return node

    def _nodes(self, nodes) -> np.ndarray:
        arr = np.asarray(nodes, dtype=np.int64)
        if arr.size and (arr.min() < 0 or arr.max() >= self.n_nodes):
            raise TopologyError(f"node indices must lie in 0..{self.n_nodes - 1}")
        return arr

    def _row(self, switch_node) -> int:
        row = int(self.sw_pos[self._node(switch_node)])
        if row < 0:
            raise TopologyError(f"node {int(switch_node)} is not a switch")
        return row

    def _switch_vector_to_nodes(self, to_switch: np.ndarray) -> np.ndarray:
        """Given hops to every switch row, hops to every node (int64, ``_BIG`` = none)."""
        val = to_switch[self.anchor_row] + self.anchor_off
        out = np.full(self.n_nodes, _BIG, dtype=np.int64)
        has = np.diff(self.anchor_ptr) > 0
        if has.any():
            out[has] = np.minimum.reduceat(val, self.anchor_ptr[:-1][has])
        return np.minimum(out, _BIG)

    def _rows_to_nodes(self, rows: np.ndarray | None, nodes: np.ndarray) -> np.ndarray:
        """Hops from switch ``rows`` (None = all) to ``nodes``: int64 ``(len(rows), len(nodes))``."""
        ptr = self.anchor_ptr
        counts = ptr[nodes + 1] - ptr[nodes]
        flat = ranges(ptr[nodes], ptr[nodes] + counts)
        cols = self.anchor_row[flat]
        block = self.dist[cols].T if rows is None else self.dist[np.ix_(rows, cols)]
        val = _widen(block) + self.anchor_off[flat]
        out = np.full((val.shape[0], len(nodes)), _BIG, dtype=np.int64)
        has = counts > 0
        if has.any() and val.shape[0]:
            starts = np.cumsum(counts) - counts
            out[:, has] = np.minimum.reduceat(val, starts[has], axis=1)
        return np.minimum(out, _BIG)

    def _direct_peers(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        """Mask of pairs that are end nodes linked directly by a live link."""
        if not len(self.peer_node):
            return np.zeros(len(src), dtype=bool)
        owner = np.repeat(np.arange(self.n_nodes, dtype=np.int64), np.diff(self.peer_ptr))
        keys = owner * self.n_nodes + self.peer_node  # sorted: CSR rows, peers ascending
        wanted = src * self.n_nodes + dst
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return keys[at] == wanted


# ---------------------------------------------------------------- building
def min_hops(topo: Topology, workers: int | None = None) -> MinHopTable:
    """Build the :class:`MinHopTable` of ``topo`` (live links only).

    Only switches forward and broken links are ignored (see the module docstring). The switch distances come from
    a bit-parallel breadth-first search of many sources at once (:mod:`vizcoll.topology.bitbfs`).

    Parameters
    ----------
    topo : Topology
        The fabric.
    workers : int, optional
        Threads for the breadth-first search (default: the CPU count, at most 4).

    Returns
    -------
    MinHopTable
        The switch-to-switch distances and how nodes attach to switches.

    Raises
    ------
    TopologyError
        When one block of switch distances would exceed :data:`MAX_DENSE_SWITCHES` switches.

    References
    ----------
    [OPENSM] OpenSM, the InfiniBand subnet manager (linux-rdma/opensm, ``doc/current-routing.txt``: the min-hop
    tables its routing engines read; software, no DOI).

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> min_hops(from_spec("torus:4x4,hosts=1")).diameter
    4
    """
    switches = np.flatnonzero(topo.kind == SWITCH).astype(np.int64)
    sw_pos = np.full(topo.n_nodes, -1, dtype=np.int64)
    sw_pos[switches] = np.arange(len(switches))
    a, b = _live_ends(topo)
    both = (sw_pos[a] >= 0) & (sw_pos[b] >= 0)
    dist = _distances(topo, switches, sw_pos[a[both]], sw_pos[b[both]], workers)
    anchor_ptr, anchor_row, anchor_off = _anchors(topo, sw_pos, a, b)
    ends = (topo.kind[a] == ENDPOINT) & (topo.kind[b] == ENDPOINT)
    peer_ptr, peer_node = _csr(a[ends], b[ends], topo.n_nodes)
    return MinHopTable(
        switches=switches,
        sw_pos=sw_pos,
        dist=dist,
        anchor_ptr=anchor_ptr,
        anchor_row=anchor_row,
        anchor_off=anchor_off,
        peer_ptr=peer_ptr,
        peer_node=peer_node,
        kind=topo.kind.copy(),
        port_view=topo.ports(),
    )


def _distances(topo: Topology, switches: np.ndarray, sw_a: np.ndarray, sw_b: np.ndarray, workers: int | None):
    """The switch-to-switch distances: one block per rail on a fabric of separate rails, one block over the
    classes of twins when the fabric has twins and more than 8,192 switches (:class:`BlockDist`), else a dense
    matrix (searched through the twins all the same)."""
    search = lambda indptr, indices: _switch_distances(indptr, indices, workers)  # noqa: E731
    if "rail" in topo.node_attrs:
        dist = rail_blocks(
            topo.node_attrs["rail"][switches], sw_a, sw_b, lambda indptr, indices: twin_search(indptr, indices, search)
        )
        if dist is not None:
            return dist
    indptr, indices = _csr(sw_a, sw_b, len(switches))
    classes = twin_classes(indptr, indices)
    if len(classes[1]) > MAX_DENSE_SWITCHES:
        raise TopologyError(
            f"the min-hop table of {len(switches):,} switches ({len(classes[1]):,} without twins) "
            f"would take {len(classes[1]) ** 2 / 2**30:.1f} GiB; the limit is "
            f"{MAX_DENSE_SWITCHES:,} (a fabric of separate rails keeps one block per rail)"
        )
    if len(classes[1]) == len(switches):
        return search(indptr, indices)
    small, cls = twin_search(indptr, indices, search, classes)
    compact = BlockDist(np.zeros(len(switches), dtype=np.int64), cls, [small], np.zeros(1, dtype=np.int64))
    return compact if len(switches) ** 2 > _DENSE_CELLS else np.asarray(compact)


def _live_ends(topo: Topology) -> tuple[np.ndarray, np.ndarray]:
    live = topo.live
    return topo.link_a[live].astype(np.int64), topo.link_b[live].astype(np.int64)


def _csr(a: np.ndarray, b: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric, duplicate-free adjacency of edges ``a[i] -- b[i]`` as ``(indptr, indices)``."""
    ones = np.ones(2 * len(a), dtype=np.int8)
    mat = sp.csr_matrix((ones, (np.r_[a, b], np.r_[b, a])), shape=(n, n))
    mat.sum_duplicates()
    mat.sort_indices()
    return mat.indptr.astype(np.int64), mat.indices.astype(np.int64)


def _anchors(topo: Topology, sw_pos: np.ndarray, a: np.ndarray, b: np.ndarray):
    """CSR over nodes of (switch row, hops to enter it); see :class:`MinHopTable`."""
    switches = np.flatnonzero(sw_pos >= 0)
    mixed = (sw_pos[a] >= 0) != (sw_pos[b] >= 0)
    end = np.where(sw_pos[a] >= 0, b, a)[mixed]
    sw = np.where(sw_pos[a] >= 0, a, b)[mixed]
    node = np.r_[switches, end]
    row = np.r_[sw_pos[switches], sw_pos[sw]]
    key = unique(node * max(len(switches), 1) + row)
    node, row = key // max(len(switches), 1), key % max(len(switches), 1)
    ptr = np.zeros(topo.n_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(node, minlength=topo.n_nodes), out=ptr[1:])
    return ptr, row, (topo.kind[node] == ENDPOINT).astype(np.int64)


def _switch_distances(indptr: np.ndarray, indices: np.ndarray, workers: int | None) -> np.ndarray:
    """All-pairs hop counts of an unweighted graph, compact unsigned dtype (max = unreachable)."""
    n = len(indptr) - 1
    dist = np.empty((n, n), dtype=np.uint8)
    if n == 0:
        return dist
    buckets = buckets_of(indptr, indices)
    words = min(_CHUNK_WORDS, -(-n // 64))
    starts = range(0, n, 64 * words)

    def run(lo: int):
        sources = np.arange(lo, min(n, lo + 64 * words))
        unreached, planes, depth = bfs(buckets, n, sources, words)
        if depth >= 255:  # rare (a chain of >255 switches): widened below
            return lo, unreached, planes, depth
        store_u8(dist, lo, unreached, planes)
        return None

    workers = workers or min(os.cpu_count() or 1, _MAX_WORKERS)
    if workers > 1 and len(starts) > 1:
        with ThreadPoolExecutor(min(workers, len(starts))) as pool:
            deep = [r for r in pool.map(run, starts) if r is not None]
    else:
        deep = [r for r in map(run, starts) if r is not None]
    return widen_dist(dist, deep) if deep else dist


# ---------------------------------------------------------------- small vector helpers
def _widen(block: np.ndarray) -> np.ndarray:
    """Compact distances as int64 with ``_BIG`` for the unreachable sentinel."""
    out = block.astype(np.int64)
    out[block == np.iinfo(block.dtype).max] = _BIG
    return out


def _finish(values: np.ndarray) -> np.ndarray:
    """int64 with ``>= _BIG`` meaning none -> int32 with :data:`UNREACHABLE`."""
    return np.where(values >= _BIG, UNREACHABLE, values).astype(np.int32)


def _anchor_pairs(ptr: np.ndarray, src: np.ndarray, dst: np.ndarray):
    """All (anchor of src, anchor of dst) combinations per pair: ``(pair, a, b)`` entry arrays."""
    cu, cv = ptr[src + 1] - ptr[src], ptr[dst + 1] - ptr[dst]
    per = cu * cv
    pair = np.repeat(np.arange(len(src)), per)
    k = np.arange(len(pair)) - np.repeat(np.cumsum(per) - per, per)
    return pair, ptr[src][pair] + k // cv[pair], ptr[dst][pair] + k % cv[pair]


def _segment_min(values: np.ndarray, segment: np.ndarray, n: int) -> np.ndarray:
    """Minimum of ``values`` per (sorted) segment id, ``_BIG`` for empty segments."""
    out = np.full(n, _BIG, dtype=np.int64)
    if len(values):
        starts = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
        out[segment[starts]] = np.minimum.reduceat(values, starts)
    return np.minimum(out, _BIG)
