"""Deterministic unicast routes of tree edges over live links: one edge (:meth:`Router.route`) or many at once
(:meth:`Router.routes`).

A packet leaves its node through its *port* when one is given (a link row;
see :func:`vizcoll.trees.metrics.process_ports`) and is reached through the
destination's port the same way; otherwise a node leaves through its
lowest-numbered live port with the fewest hops to the target. Every switch
forwards through ``MinHopTable.min_ports(switch, target)[0]``, the
lowest-numbered port with the fewest hops (OpenSM's choice).

:meth:`Router.routes` gives exactly the routes of :meth:`Router.route` for
many edges at once: all edges take their next hop together, one numpy pass
per hop over the distinct (switch, target) pairs, instead of a Python loop per
edge and hop. An end node without a port leaves through the port a switch would
choose (the lowest-numbered one with the fewest hops). Edges whose target is
on several switches or on none are routed one by one.

References: [OPENSM] (min-hop tables and port choice; keys: ``docs/papers.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import chain

import numpy as np

from vizcoll.topology.hops import MinHopTable, min_hops
from vizcoll.topology.model import SWITCH, Topology

__all__ = ["FlatRoutes", "Router", "Routing"]

_FAR = 1 << 40  # no path, while taking minima
_OFFSET_BITS = 20  # a port's position among its switch's ports, packed below the hop count


@dataclass(frozen=True)
class Routing:
    """Where the routes of a tree's edges are computed: a fabric and its min-hop table.

    Parameters
    ----------
    fabric : Topology, optional
        The fabric the routes are computed on, when not the one the tree is on: e.g. the intact fabric (without
        its breaks), whose routes a packet follows until a link broken in the other stops it.
    table : MinHopTable, optional
        The min-hop table of the fabric the routes follow (default: built, ``min_hops`` of it).
    """

    fabric: Topology | None = None
    table: MinHopTable | None = None


class Router:
    """Deterministic shortest routes between tree vertices (see the module docstring)."""

    def __init__(self, topo: Topology, table: MinHopTable | None = None):
        self.topo = topo
        self.table = table if table is not None else min_hops(topo)
        self.view = self.table.port_view
        self._next: dict[tuple[int, int], tuple[int, int] | None] = {}

    def _other_end(self, link: int, node: int) -> int:
        a, b = int(self.topo.link_a[link]), int(self.topo.link_b[link])
        return b if a == node else a

    def next_hop(self, switch: int, target: int) -> tuple[int, int] | None:
        """``(link row, next node)`` leaving ``switch`` towards ``target`` by its lowest min-hop port."""
        key = (switch, target)
        if key not in self._next:
            ports = self.table.min_ports(switch, target)
            hop = None
            if ports:
                at = self.view.of(switch)
                i = int(np.flatnonzero(self.view.port[at] == ports[0])[0])
                hop = int(self.view.link[at][i]), int(self.view.peer[at][i])
            self._next[key] = hop
        return self._next[key]

    def _leave(self, node: int, target: int) -> tuple[int, int] | None:
        """First hop of a non-switch node: its lowest-numbered live port with the fewest hops to ``target``."""
        at = self.view.of(node)
        best = None
        for link, peer in zip(self.view.link[at].tolist(), self.view.peer[at].tolist(), strict=True):
            if peer == target:
                cost = 0
            elif self.topo.kind[peer] == SWITCH:
                cost = int(self.table.hops([peer], [target])[0])
                cost = np.inf if cost < 0 else cost
            else:
                cost = np.inf
            if cost < np.inf and (best is None or cost < best[0]):
                best = cost, link, peer
        return None if best is None else best[1:]

    def route(self, src: int, dst: int, src_link: int = -1, dst_link: int = -1) -> list[int] | None:
        """Link rows from node ``src`` to node ``dst`` (through the given port links, if any); None if impossible."""
        if src == dst:
            return []
        broken = self.topo.broken
        if (src_link >= 0 and broken[src_link]) or (dst_link >= 0 and broken[dst_link]):
            return None
        target, suffix = (self._other_end(dst_link, dst), [dst_link]) if dst_link >= 0 else (dst, [])
        path: list[int] = []
        if self.topo.kind[src] == SWITCH:
            cur = src
        elif src_link >= 0:
            path, cur = [src_link], self._other_end(src_link, src)
        else:
            hop = self._leave(src, target)
            if hop is None:
                return None
            path, cur = [hop[0]], hop[1]
        for _ in range(self.topo.n_nodes):
            if cur == target:
                return path + suffix
            hop = self.next_hop(cur, target) if self.topo.kind[cur] == SWITCH else None
            if hop is None:
                return None
            path.append(hop[0])
            cur = hop[1]
        return None

    # ------------------------------------------------------------ many edges at once
    def routes(self, src, dst, src_link=None, dst_link=None, progress=None) -> list[list[int] | None]:
        """``route(src[i], dst[i], src_link[i], dst_link[i])`` for every ``i`` (port links default to -1).

        ``progress(done, total)``, if given, counts the edges whose route is complete, after each hop of all
        edges together.
        """
        return self.flat_routes(src, dst, src_link, dst_link, progress).lists()

    def flat_routes(self, src, dst, src_link=None, dst_link=None, progress=None) -> FlatRoutes:
        """:meth:`routes` as :class:`FlatRoutes` (one route per edge ``i``)."""
        src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
        none = np.full(len(src), -1, dtype=np.int64)
        out_link = none if src_link is None else np.asarray(src_link, dtype=np.int64)
        in_link = none if dst_link is None else np.asarray(dst_link, dtype=np.int64)
        target = np.where(in_link >= 0, self._other_ends(in_link, dst), dst)
        start = np.where(
            self.topo.kind[src] == SWITCH, src, np.where(out_link >= 0, self._other_ends(out_link, src), -1)
        )
        broken = self.topo.broken
        dead = ((out_link >= 0) & broken[np.maximum(out_link, 0)]) | ((in_link >= 0) & broken[np.maximum(in_link, 0)])
        known = (src != dst) & ~dead & (self.table.single_entry[0][target] >= 0)
        leave = known & (start < 0)  # an end node without a port: its best port, as a switch chooses one
        first = out_link.copy()
        first[leave], start[leave] = self._next_hops(src[leave], target[leave])
        fast = known & (start >= 0)
        steps = [(np.flatnonzero(fast & (start != src)), first[fast & (start != src)])]
        edges, reached = self._walk(np.flatnonzero(fast), start[fast], target[fast], steps, progress)
        ends = reached & (in_link[edges] >= 0)
        steps.append((edges[ends], in_link[edges[ends]]))
        slow = np.flatnonzero(~fast & (src != dst) & ~dead & ~leave)
        routed = np.zeros(len(src), dtype=bool)
        routed[edges[reached]] = True
        routed[self._one_by_one(slow, src, dst, out_link, in_link, steps)] = True
        owner, rows = (np.concatenate(part) for part in zip(*steps, strict=True))
        keep = routed[owner]  # the entries of edges that walked only part of the way are dropped
        length = np.where(src == dst, 0, -1)
        length[routed] = np.bincount(owner[keep], minlength=len(src))[routed]
        return FlatRoutes.from_entries(owner[keep], rows[keep], length)

    def _one_by_one(self, edges: np.ndarray, src, dst, out_link, in_link, steps: list) -> list[int]:
        """Route the ``edges`` the walk cannot take (a target on several switches or on none) one by one with
        :meth:`route`; appends ``(edges, links)`` per route to ``steps``; returns the edges that have one."""
        routed = []
        for i in edges.tolist():
            route = self.route(int(src[i]), int(dst[i]), int(out_link[i]), int(in_link[i]))
            if route is not None:
                steps.append((np.full(len(route), i, dtype=np.int64), np.asarray(route, dtype=np.int64)))
                routed.append(i)
        return routed

    def _other_ends(self, links: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        rows = np.maximum(links, 0)
        a, b = self.topo.link_a[rows].astype(np.int64), self.topo.link_b[rows].astype(np.int64)
        return np.where(a == nodes, b, a)

    def _walk(self, edges: np.ndarray, cur: np.ndarray, target: np.ndarray, steps: list, progress):
        """Move every edge hop by hop from ``cur`` to its ``target``; appends ``(edges, links)`` per hop to
        ``steps``; returns the edges and whether each reached its target."""
        reached = np.zeros(len(edges), dtype=bool)
        moving = np.flatnonzero(cur != target)
        reached[cur == target] = True
        for _ in range(self.topo.n_nodes):
            if progress is not None:
                progress(len(edges) - len(moving), len(edges))
            moving = moving[self.topo.kind[cur[moving]] == SWITCH]  # only switches forward
            if not len(moving):
                break
            link, nxt = self._next_hops(cur[moving], target[moving])
            moving = moving[link >= 0]
            link, nxt = link[link >= 0], nxt[link >= 0]
            steps.append((edges[moving], link))
            cur[moving] = nxt
            arrived = nxt == target[moving]
            reached[moving[arrived]] = True
            moving = moving[~arrived]
        return edges, reached

    def _next_hops(self, switches: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``next_hop`` of every (switch, target) pair as arrays ``(link rows, next nodes)``, -1 where none; each
        distinct pair computed once."""
        table, view = self.table, self.view
        pairs, back = np.unique(switches * self.topo.n_nodes + targets, return_inverse=True)
        s, t = pairs // self.topo.n_nodes, pairs % self.topo.n_nodes
        starts, counts = view.indptr[s], view.indptr[s + 1] - view.indptr[s]
        segments = np.cumsum(counts) - counts
        owner = np.repeat(np.arange(len(pairs)), counts)
        offset = np.arange(int(counts.sum())) - segments[owner]
        idx = starts[owner] + offset
        peer = view.peer[idx].astype(np.int64)
        row = table.sw_pos[peer]
        entry_row, entry_hop = table.single_entry
        far = table.dist[np.maximum(row, 0), entry_row[t][owner]]
        hops = np.where(far == table.unreachable, _FAR, 1 + far.astype(np.int64) + entry_hop[t][owner])
        hops = np.where(row >= 0, hops, np.where(peer == t[owner], 1, _FAR))
        best = np.full(len(pairs), _FAR << _OFFSET_BITS, dtype=np.int64)
        some = counts > 0  # a switch without live ports has no next hop
        best[some] = np.minimum.reduceat((hops << _OFFSET_BITS) + offset, segments[some])
        chosen = starts + (best & ((1 << _OFFSET_BITS) - 1))
        ok = (best >> _OFFSET_BITS) < _FAR
        link = np.where(ok, view.link[np.where(ok, chosen, 0)], -1)
        nxt = np.where(ok, view.peer[np.where(ok, chosen, 0)], -1)
        return link[back].astype(np.int64), nxt[back].astype(np.int64)


@dataclass
class FlatRoutes:
    """Routes (lists of link rows or ids, None for none) as flat arrays: ``rows`` of every route one after the
    other (``start`` and ``length`` per vertex; length -1: no route) and the ``owner`` vertex of each entry."""

    rows: np.ndarray
    start: np.ndarray
    length: np.ndarray
    owner: np.ndarray

    @classmethod
    def of(cls, routes: Sequence[list[int] | None]) -> FlatRoutes:
        length = np.array([-1 if r is None else len(r) for r in routes], dtype=np.int64)
        size = np.maximum(length, 0)
        rows = np.fromiter(chain.from_iterable(r for r in routes if r), dtype=np.int64, count=int(size.sum()))
        return cls(rows, np.cumsum(size) - size, length, np.repeat(np.arange(len(routes)), size))

    @classmethod
    def from_entries(cls, owner: np.ndarray, rows: np.ndarray, length: np.ndarray) -> FlatRoutes:
        """Routes from their entries in any order: entry ``i`` is ``rows[i]`` on ``owner[i]``'s route (entries of
        one owner in route order); ``length`` per route (-1: no route; its owner has no entries)."""
        order = np.argsort(owner, kind="stable")
        size = np.maximum(length, 0)
        return cls(rows[order], np.cumsum(size) - size, length, owner[order])

    def renumbered(self, owners: np.ndarray, n: int) -> FlatRoutes:
        """These routes as those of ``owners`` (increasing) among ``0..n-1``; the others have an empty route."""
        length = np.zeros(n, dtype=np.int64)
        length[owners] = self.length
        size = np.maximum(length, 0)
        return FlatRoutes(self.rows, np.cumsum(size) - size, length, owners[self.owner])

    def with_values(self, rows: np.ndarray) -> FlatRoutes:
        """The same routes with their entries replaced by ``rows`` (e.g. link ids for link rows)."""
        return replace(self, rows=rows)

    def lists(self) -> list[list[int] | None]:
        """The routes as lists again (None for no route)."""
        values = self.rows.tolist()
        return [
            None if n < 0 else values[at : at + n]
            for at, n in zip(self.start.tolist(), self.length.tolist(), strict=True)
        ]

    def per_link(self, n_links: int, vertices: np.ndarray | None = None) -> np.ndarray:
        """Packets on every link row (of the routes of ``vertices`` only, when given)."""
        rows = self.rows if vertices is None else self.rows[np.isin(self.owner, vertices)]
        return np.bincount(rows, minlength=n_links)
