"""The paper's grid as a network: positions, live neighbors and deterministic greedy routing (DLCT paper, section 4).

The paper builds its experiment on JADE agents placed on a grid: every node
knows its neighbors from their positions, a message goes to the neighbor
closest to its destination, which repeats until it arrives, and a broken link
``a -- b`` removes ``b`` from ``a``'s neighbors and ``a`` from ``b``'s.
:class:`GridNetwork` is that network on a :class:`~vizcoll.topology.model.Topology`
whose switches carry ``x`` / ``y`` attributes (e.g. ``mesh((8, 8), 8, hosts=0)``:
every grid node is one processor-router; end nodes, if any, are ignored).
The timing of the messages is :class:`vizcoll.barrier.network.Network`.

**Routing** (:meth:`GridNetwork.route`), deterministic:

1. *Greedy*, the paper's rule and the same rule as
   :func:`vizcoll.barrier.structures.greedy_route`: forward to the live
   neighbor with the smallest Euclidean distance to the destination (not
   necessarily closer than the current node), ties to the smallest
   ``(row, col)`` = ``(y, x)``, then node index. Greedy forwarding is
   memoryless, so a message that would come back to a node it already visited
   would circulate forever: the network detects that (``"loop"``), or a node
   without any live neighbor (``"dead end"``), *before* the hop.
2. *Recovery* (``routing="greedy+recovery"``, the default; the paper is
   silent): from the node where greedy forwarding failed, the message follows
   a shortest live path to the destination (neighbor one BFS hop closer,
   ties as above), the way a routing protocol would fall back. Such a message
   is a *detour*. If the destination cannot be reached at all (the broken
   links cut the network), the message is a **dead end**: it is dropped where
   it is, reported with its path, and never loops. With ``routing="greedy"``
   every greedy failure is a dead end.

It also gives the structures the algorithms ask for: :func:`mst_tree` (a
minimum spanning tree; a search heap, not an event core), :func:`grid_blocks`
(the squares of the two-level algorithms) and :func:`is_grid`.

References: [DLCT19, §4] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vizcoll.errors import SpecError, TopologyError
from vizcoll.topology.model import SWITCH, Topology

__all__ = ["ROUTINGS", "NetRoute", "GridNetwork", "Block", "grid_blocks", "mst_tree", "is_grid"]

ROUTINGS = ("greedy+recovery", "greedy")


@dataclass(frozen=True)
class NetRoute:
    """The hops a message takes: nodes visited (source first) and the link id of every hop.

    ``reached`` is False for a dead end (the message stops at ``nodes[-1]``);
    ``detour`` is True when greedy forwarding failed and recovery took over;
    ``reason`` says why greedy forwarding failed (``"loop"``, ``"dead end"``)
    or, for an undeliverable message, ``"unreachable"``.
    """

    nodes: tuple[int, ...]
    links: tuple[int, ...]
    reached: bool = True
    detour: bool = False
    reason: str = ""

    @property
    def hops(self) -> int:
        """Number of links crossed."""
        return len(self.links)


def is_grid(topo: Topology) -> bool:
    """True when ``topo`` is a 2-D grid the paper's model (:class:`GridNetwork`) runs on.

    That is: it has switches, every switch has ``x`` and ``y`` attributes
    ``>= 0`` at distinct positions, and no switch has a ``z`` (a 3-D torus is
    not a grid). :func:`~vizcoll.topology.generators.mesh` (any ``hosts``) and a
    2-D :func:`~vizcoll.topology.generators.torus` are grids; a fat tree, a
    dragonfly, a 3-D torus or a file without positions are not.

    Parameters
    ----------
    topo : Topology
        The fabric.

    Returns
    -------
    bool
        Whether the DLCT variants (and the grid model) run on it.

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> [is_grid(from_spec(s)) for s in ("mesh:4x4,hosts=0", "torus:4x4", "torus:4x4x4", "fat-tree:radix=4,levels=2")]
    [True, True, False, False]
    """
    sw = topo.switches
    if not len(sw):
        return False
    x, y, z = topo.attr("x")[sw], topo.attr("y")[sw], topo.attr("z")[sw]
    if (x < 0).any() or (y < 0).any() or (z >= 0).any():
        return False
    return len(set(zip(y.tolist(), x.tolist(), strict=True))) == len(sw)


def mst_tree(
    nbrs: dict[int, list[int]], root: int, length: Callable[[int, int], float], members: set[int] | None = None
) -> dict[int, int]:
    """Parent of every node of a minimum spanning tree (link weight ``length(u, v)``) grown from ``root``; root -> -1.

    Prim's algorithm over ``nbrs`` (restricted to ``members``): equal weights
    are taken in the order the links were reached, so with one weight it is a
    BFS tree (breadth first, neighbors in ``nbrs`` order). Nodes ``root``
    cannot reach get no entry.

    >>> nbrs = {0: [1, 2], 1: [0, 2], 2: [0, 1]}
    >>> mst_tree(nbrs, 0, lambda u, v: 5.0 if {u, v} == {0, 2} else 1.0)
    {0: -1, 1: 0, 2: 1}
    """
    parent: dict[int, int] = {root: -1}
    heap: list[tuple[float, int, int, int]] = []
    order = itertools.count()

    def reach(u: int) -> None:
        for v in nbrs[u]:
            if v not in parent and (members is None or v in members):
                heapq.heappush(heap, (length(u, v), next(order), u, v))

    reach(root)
    while heap:
        _, _, u, v = heapq.heappop(heap)
        if v not in parent:
            parent[v] = u
            reach(v)
    return parent


@dataclass
class Block:
    """A rectangle of the grid: rows ``r0..r0+h-1``, columns ``c0..c0+w-1`` and its processors (row-major)."""

    index: int
    r0: int
    c0: int
    h: int
    w: int
    nodes: list[int]


def grid_blocks(grid: GridNetwork, size: int) -> list[Block]:
    """Cut the grid into ``size x size`` squares (smaller at the far edges), numbered row-major; empty ones skipped."""
    out: list[Block] = []
    for r0 in range(0, grid.rows, size):
        for c0 in range(0, grid.cols, size):
            h, w = min(size, grid.rows - r0), min(size, grid.cols - c0)
            nodes = [grid.cell[(r, c)] for r in range(r0, r0 + h) for c in range(c0, c0 + w) if (r, c) in grid.cell]
            if nodes:
                out.append(Block(len(out), r0, c0, h, w, nodes))
    return out


class GridNetwork:
    """Positions, live neighbor lists and deterministic routing of a grid topology.

    Processors are the topology's switches (each needs ``x`` = column and
    ``y`` = row attributes, unique per switch); links to end nodes are ignored.
    With ``include_broken=True`` broken links count as live (the intact
    network, e.g. for ideal path lengths).
    """

    def __init__(self, topo: Topology, routing: str = "greedy+recovery", include_broken: bool = False):
        if routing not in ROUTINGS:
            raise SpecError(f"unknown routing {routing!r}; choose one of {', '.join(ROUTINGS)}")
        self.topo = topo
        self.routing = routing
        self.nodes = [int(u) for u in topo.switches]
        if not self.nodes:
            raise TopologyError("the barrier network needs at least one switch")
        self.x, self.y = topo.attr("x").astype(int), topo.attr("y").astype(int)
        self._xy = list(zip(self.x.tolist(), self.y.tolist(), strict=True))  # plain ints: routing reads them a lot
        self._check_positions()
        self.rows = int(self.y[self.nodes].max()) + 1
        self.cols = int(self.x[self.nodes].max()) + 1
        self.cell = {(int(self.y[u]), int(self.x[u])): u for u in self.nodes}
        self.link = self._links(include_broken)
        order = {u: (int(self.y[u]), int(self.x[u]), u) for u in self.nodes}
        self.nbrs: dict[int, list[int]] = {u: [] for u in self.nodes}
        for u, v in self.link:
            self.nbrs[u].append(v)
        for u in self.nodes:
            self.nbrs[u].sort(key=order.__getitem__)
        self._routes: dict[tuple[int, int], NetRoute] = {}
        self._hops: dict[tuple[int, int], float] = {}  # DLCT's judge asks for hop counts hundreds of thousands of times
        self._dist: dict[int, dict[int, int]] = {}

    def _check_positions(self) -> None:
        xs, ys = self.x[self.nodes], self.y[self.nodes]
        if (xs < 0).any() or (ys < 0).any():
            raise TopologyError(
                "the barrier network needs a grid: every switch needs x and y attributes "
                "(build it with mesh(..., hosts=0))"
            )
        if len(set(zip(ys.tolist(), xs.tolist(), strict=True))) != len(self.nodes):
            raise TopologyError("two switches share the same (x, y) grid position")

    def _links(self, include_broken: bool) -> dict[tuple[int, int], int]:
        """(u, v) -> the lowest live link id joining two processors, both directions."""
        topo = self.topo
        keep = np.ones(topo.n_links, bool) if include_broken else topo.live
        sw = topo.kind == SWITCH
        out: dict[tuple[int, int], int] = {}
        rows = np.flatnonzero(keep & sw[topo.link_a] & sw[topo.link_b])
        for row in rows[np.argsort(topo.link_id[rows], kind="stable")].tolist():
            a, b, lid = int(topo.link_a[row]), int(topo.link_b[row]), int(topo.link_id[row])
            if a != b:
                out.setdefault((a, b), lid)
                out.setdefault((b, a), lid)
        return out

    # ------------------------------------------------------------ geometry
    @property
    def n(self) -> int:
        """Number of processors."""
        return len(self.nodes)

    def d2(self, u: int, v: int) -> int:
        """Squared Euclidean distance between two nodes' positions."""
        (xu, yu), (xv, yv) = self._xy[u], self._xy[v]
        return (xu - xv) ** 2 + (yu - yv) ** 2

    def length(self, u: int, v: int) -> float:
        """Euclidean length of the link ``u -- v`` (1 along a row or column, √2 on a diagonal)."""
        return math.sqrt(self.d2(u, v))

    def _key(self, v: int, dst: int) -> tuple[int, int, int, int]:
        (xv, yv), (xd, yd) = self._xy[v], self._xy[dst]
        return (xv - xd) ** 2 + (yv - yd) ** 2, yv, xv, v

    def centre(self) -> int:
        """The processor closest to the middle of the grid (ties: smallest (row, col))."""
        cy, cx = (self.rows - 1) / 2, (self.cols - 1) / 2
        return min(self.nodes, key=lambda u: ((self.y[u] - cy) ** 2 + (self.x[u] - cx) ** 2, self.y[u], self.x[u]))

    def components(self) -> list[list[int]]:
        """Connected components of the live network, largest first (ties: smallest node)."""
        seen: set[int] = set()
        comps = []
        for u in self.nodes:
            if u not in seen:
                comp = sorted(self.distances(u))
                seen.update(comp)
                comps.append(comp)
        return sorted(comps, key=lambda c: (-len(c), c[0]))

    def spanning_tree(self, root: int, members: set[int] | None = None) -> dict[int, int]:
        """The minimum spanning tree of the live links (weighted by length) grown from ``root`` (:func:`mst_tree`).

        Restricted to ``members`` when given; processors it cannot reach get no entry.
        """
        return mst_tree(self.nbrs, root, self.length, members)

    def groups(self, size: int) -> list[tuple[int, list[int]]]:
        """``(leader, members)`` of the two-level algorithms: the ``size x size`` squares of the grid
        (:func:`grid_blocks`), each led by its processor nearest the square's centre (ties: smallest (row, col))."""
        out = []
        for blk in grid_blocks(self, size):
            cy, cx = blk.r0 + (blk.h - 1) / 2, blk.c0 + (blk.w - 1) / 2
            leader = min(blk.nodes, key=lambda u: ((self.y[u] - cy) ** 2 + (self.x[u] - cx) ** 2, self.y[u], self.x[u]))
            out.append((leader, blk.nodes))
        return out

    def intact(self) -> GridNetwork:
        """The same grid with its broken links counted as live (the network before the links broke)."""
        return GridNetwork(self.topo, include_broken=True)

    def distances(self, dst: int) -> dict[int, int]:
        """Live hop distance of every node that can reach ``dst`` (BFS, cached)."""
        if dst not in self._dist:
            dist, todo = {dst: 0}, deque([dst])
            while todo:
                u = todo.popleft()
                for v in self.nbrs[u]:
                    if v not in dist:
                        dist[v] = dist[u] + 1
                        todo.append(v)
            self._dist[dst] = dist
        return self._dist[dst]

    # ------------------------------------------------------------ routing
    def route(self, src: int, dst: int) -> NetRoute:
        """The deterministic route of a message from ``src`` to ``dst`` (cached); see the module docstring."""
        key = (src, dst)
        if key not in self._routes:
            self._routes[key] = self._route(src, dst)
        return self._routes[key]

    def hops(self, src: int, dst: int) -> int:
        """Hops of the route, or ``math.inf`` for a dead end (cached)."""
        key = (src, dst)
        hops = self._hops.get(key)
        if hops is None:
            r = self.route(src, dst)
            hops = self._hops[key] = r.hops if r.reached else math.inf
        return hops

    def _route(self, src: int, dst: int) -> NetRoute:
        path, reason = self._greedy(src, dst)
        if not reason:
            return self._as_route(path)
        if self.routing == "greedy":
            return self._as_route(path, reached=False, reason=reason)
        dist = self.distances(dst)
        if path[-1] not in dist:
            return self._as_route(path, reached=False, detour=True, reason="unreachable")
        cur = path[-1]
        while cur != dst:
            cur = min((v for v in self.nbrs[cur] if dist.get(v) == dist[cur] - 1), key=lambda v: self._key(v, dst))
            path.append(cur)
        return self._as_route(path, detour=True, reason=reason)

    def _greedy(self, src: int, dst: int) -> tuple[list[int], str]:
        path, seen, cur = [src], {src}, src
        while cur != dst:
            near = self.nbrs[cur]
            if not near:
                return path, "dead end"
            nxt = min(near, key=lambda v: self._key(v, dst))
            if nxt in seen:
                return path, "loop"
            path.append(nxt)
            seen.add(nxt)
            cur = nxt
        return path, ""

    def _as_route(self, path: list[int], **kw) -> NetRoute:
        links = tuple(self.link[(a, b)] for a, b in zip(path, path[1:], strict=False))
        return NetRoute(tuple(path), links, **kw)
