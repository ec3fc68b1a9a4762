"""The paper's grid network as a seeded, message-level discrete-event simulation (seed 002, section 4).

The paper builds its experiment on JADE agents placed on a grid: every node
knows its neighbours from their positions, a message goes to the neighbour
closest to its destination, which repeats until it arrives, and a broken link
``a -- b`` removes ``b`` from ``a``'s neighbours and ``a`` from ``b``'s. This
module simulates that network on a :class:`~vizcoll.topology.model.Topology`
whose switches carry ``x`` / ``y`` attributes (e.g. ``mesh((8, 8), 8, hosts=0)``:
every grid node is one processor-router; end nodes, if any, are ignored).

**Routing** (:meth:`GridNetwork.route`), deterministic:

1. *Greedy*, the paper's rule and the same rule as
   :func:`vizcoll.barrier.structures.greedy_route`: forward to the live
   neighbour with the smallest Euclidean distance to the destination (not
   necessarily closer than the current node), ties to the smallest
   ``(row, col)`` = ``(y, x)``, then node index. Greedy forwarding is
   memoryless, so a message that would come back to a node it already visited
   would circulate forever: the network detects that (``"loop"``), or a node
   without any live neighbour (``"dead end"``), *before* the hop.
2. *Recovery* (``routing="greedy+recovery"``, the default; the paper is
   silent): from the node where greedy forwarding failed, the message follows
   a shortest live path to the destination (neighbour one BFS hop closer,
   ties as above), the way a routing protocol would fall back. Such a message
   is a *detour*. If the destination cannot be reached at all (the broken
   links cut the network), the message is a **dead end**: it is dropped where
   it is, reported with its path, and never loops. With ``routing="greedy"``
   every greedy failure is a dead end.

**Timing** (:class:`Network`): every node handles one message at a time, in
FIFO order of arrival, for ``proc`` seconds (sending, forwarding or
receiving); a hop then takes ``hop_latency`` seconds on the link. A message of
``h`` hops without contention takes ``(h + 1) * proc + h * hop_latency``.
Gather messages count the hops they travel (``content += 1`` per hop: the
paper's "path length so far, updated by every node it passes").

**Event core** (:class:`EventQueue`): a heap of ``(t, seq)``; events at equal
times run in the order they were scheduled, so a run is deterministic.

**Any other fabric**: :class:`vizcoll.barrier.fabric.FabricNetwork` has the
same interface as :class:`GridNetwork` (processors ``nodes``, ``route``,
``hops``, ``components``, ``centre``, ``spanning_tree``, ``groups``,
``intact``) for barriers among chosen nodes of any fabric over min-hop
routes; :class:`Network` (the timing) serves both. :func:`is_grid` tells
whether a topology is a grid this module can run on.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from vizcoll.errors import SpecError, TopologyError
from vizcoll.sim.timeline import Event
from vizcoll.topology.model import SWITCH, Topology

__all__ = [
    "ROUTINGS",
    "DEFAULT_HOP_LATENCY",
    "DEFAULT_PROC",
    "EventQueue",
    "NetRoute",
    "Message",
    "Recorder",
    "GridNetwork",
    "Network",
    "Block",
    "grid_blocks",
    "mst_tree",
    "is_grid",
    "break_links",
]

ROUTINGS = ("greedy+recovery", "greedy")
DEFAULT_HOP_LATENCY = 0.0005
"""Seconds a message spends on one link (the paper leaves it open)."""
DEFAULT_PROC = 0.001
"""Seconds a node needs to handle (send, forward or receive) one message (the paper leaves it open)."""
MAX_EVENTS = 20_000_000


class EventQueue:
    """A discrete-event core: ``push(t, fn, *args)`` then :meth:`run` calls ``fn(t, *args)`` in time order.

    Ties in ``t`` run in scheduling order (a sequence number breaks them).

    >>> q, seen = EventQueue(), []
    >>> q.push(2.0, lambda t, x: seen.append((t, x)), "b")
    >>> q.push(1.0, lambda t, x: seen.append((t, x)), "a")
    >>> q.run(); seen
    [(1.0, 'a'), (2.0, 'b')]
    """

    def __init__(self) -> None:
        self._heap: list = []
        self._seq = 0
        self.now = 0.0
        self.processed = 0

    def push(self, t: float, fn: Callable, *args) -> None:
        """Schedule ``fn(t, *args)`` at time ``t`` (never before the current time)."""
        if t < self.now:
            raise ValueError(f"cannot schedule at t={t} before the current time {self.now}")
        heapq.heappush(self._heap, (t, self._seq, fn, args))
        self._seq += 1

    def run(self, limit: int = MAX_EVENTS) -> None:
        """Process events until none is left; raises ``RuntimeError`` after ``limit`` events."""
        while self._heap:
            t, _, fn, args = heapq.heappop(self._heap)
            self.now = t
            self.processed += 1
            if self.processed > limit:
                raise RuntimeError(f"the simulation did not finish within {limit:,} events")
            fn(t, *args)


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


@dataclass
class Message:
    """A barrier message: ``kind`` (``"gather"``, ``"release"``, ...), ``barrier`` index and ``content``.

    ``content`` is the path length travelled so far for Gather messages and
    ``K`` for DLCT Release messages; ``data`` holds algorithm fields (round,
    sender ID, level, ...). The network fills ``route``, ``hops``, ``path``
    (link ids crossed so far), ``sent_at`` and ``mid`` (a serial number).
    """

    kind: str
    src: int
    dst: int
    barrier: int
    content: int = 0
    data: dict = field(default_factory=dict)
    route: NetRoute | None = None
    hops: int = 0
    path: list[int] = field(default_factory=list)
    sent_at: float = 0.0
    mid: int = -1


class Recorder:
    """Collects timeline :class:`~vizcoll.sim.timeline.Event` objects (a no-op when ``enabled`` is False)."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.events: list[Event] = []

    def add(self, t: float, kind: str, src: int = -1, dst: int = -1, links=(), label: str = "",
            changes: dict | None = None) -> None:
        """Record one event (events may come out of time order; sort them at the end)."""
        if self.enabled:
            self.events.append(Event(t, kind, src, dst, list(links), label, changes or {}))


def is_grid(topo: Topology) -> bool:
    """True when ``topo`` is a 2-D grid the paper's model (:class:`GridNetwork`) runs on.

    That is: it has switches, every switch has ``x`` and ``y`` attributes
    ``>= 0`` at distinct positions, and no switch has a ``z`` (a 3-D torus is
    not a grid). :func:`~vizcoll.topology.generators.mesh` (any ``hosts``) and a
    2-D :func:`~vizcoll.topology.generators.torus` are grids; a fat tree, a
    dragonfly, a 3-D torus or a file without positions are not.

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


def mst_tree(nbrs: dict[int, list[int]], root: int, length: Callable[[int, int], float],
             members: set[int] | None = None) -> dict[int, int]:
    """Parent of every node of a minimum spanning tree (link weight ``length(u, v)``) grown from ``root``; root -> -1.

    Prim's algorithm over ``nbrs`` (restricted to ``members``): equal weights
    are taken in the order the links were reached, so with one weight it is a
    BFS tree (breadth first, neighbours in ``nbrs`` order). Nodes ``root``
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
    """Positions, live neighbour lists and deterministic routing of a grid topology.

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
        self._dist: dict[int, dict[int, int]] = {}

    def _check_positions(self) -> None:
        xs, ys = self.x[self.nodes], self.y[self.nodes]
        if (xs < 0).any() or (ys < 0).any():
            raise TopologyError("the barrier network needs a grid: every switch needs x and y attributes "
                                "(build it with mesh(..., hosts=0))")
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
        return (int(self.x[u]) - int(self.x[v])) ** 2 + (int(self.y[u]) - int(self.y[v])) ** 2

    def length(self, u: int, v: int) -> float:
        """Euclidean length of the link ``u -- v`` (1 along a row or column, √2 on a diagonal)."""
        return math.sqrt(self.d2(u, v))

    def _key(self, v: int, dst: int) -> tuple[int, int, int, int]:
        return self.d2(v, dst), int(self.y[v]), int(self.x[v]), v

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
        """Hops of the route, or ``math.inf`` for a dead end."""
        r = self.route(src, dst)
        return r.hops if r.reached else math.inf

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


class Network:
    """Message transport over a :class:`GridNetwork` or a :class:`~vizcoll.barrier.fabric.FabricNetwork`.

    One timing model for both: every node a message passes (its source, each
    forwarding node, its destination) handles it for ``proc`` seconds, one
    message at a time in FIFO order, and every link takes ``hop_latency``.

    ``deliver(t, msg)`` is called when a message has been handled by its
    destination; ``drop(t, msg)`` when it hits a dead end. ``describe(msg)``
    gives the text used in event labels (e.g. ``"Gather"``).
    """

    def __init__(self, grid: GridNetwork, queue: EventQueue, deliver: Callable, drop: Callable,
                 recorder: Recorder, hop_latency: float = DEFAULT_HOP_LATENCY, proc: float = DEFAULT_PROC,
                 describe: Callable[[Message], str] = lambda m: m.kind):
        for name, value in (("hop_latency", hop_latency), ("proc", proc)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    math.isfinite(value) and value > 0):
                raise SpecError(f"{name} must be a positive number of seconds, got {value!r}")
        self.grid, self.queue, self.rec = grid, queue, recorder
        self._deliver, self._drop, self.describe = deliver, drop, describe
        self.hop_latency, self.proc = float(hop_latency), float(proc)
        self.busy: dict[int, float] = {}  # when each node (processor or forwarding switch) is free again
        self.messages = 0
        self.hops = 0
        self.detours = 0
        self.link_load: dict[int, int] = {}
        self.dead: list[Message] = []

    def send(self, t: float, msg: Message) -> None:
        """Hand ``msg`` to the network at its source at time ``t`` (it queues behind the source's work)."""
        msg.route = self.grid.route(msg.src, msg.dst)
        msg.sent_at, msg.mid = t, self.messages
        self.messages += 1
        self.detours += msg.route.detour and msg.route.reached
        self._arrive(t, msg, 0)

    def _arrive(self, t: float, msg: Message, i: int) -> None:
        u = msg.route.nodes[i]
        done = max(t, self.busy.get(u, 0.0)) + self.proc
        self.busy[u] = done
        self.queue.push(done, self._handled, msg, i)

    def _handled(self, t: float, msg: Message, i: int) -> None:
        route = msg.route
        if i == len(route.nodes) - 1:
            if route.reached:
                self._deliver(t, msg)
            else:
                self._dead_end(t, msg)
            return
        u, v, lid = route.nodes[i], route.nodes[i + 1], route.links[i]
        msg.hops += 1
        msg.path.append(lid)
        if msg.kind == "gather":
            msg.content += 1
        self.hops += 1
        self.link_load[lid] = self.link_load.get(lid, 0) + 1
        if self.rec.enabled:
            names = self.grid.topo.names
            what = f"{self.describe(msg)} {names[msg.src]} → {names[msg.dst]}"
            hop = f"hop {i + 1} of {route.hops}" + (" (detour)" if route.detour else "")
            self.rec.add(t, "send", u, v, [lid], f"{what}: {names[u]} → {names[v]}, {hop}")
        self.queue.push(t + self.hop_latency, self._arrive, msg, i + 1)

    def _dead_end(self, t: float, msg: Message) -> None:
        self.dead.append(msg)
        if self.rec.enabled:
            names = self.grid.topo.names
            where = names[msg.route.nodes[-1]]
            self.rec.add(t, "drop", msg.route.nodes[-1], msg.dst, [], (
                f"{self.describe(msg)} {names[msg.src]} → {names[msg.dst]} is stuck at {where} after "
                f"{msg.hops} hops: {msg.route.reason} (dead end, the message is dropped)"))
        self._drop(t, msg)

    @property
    def max_link_load(self) -> int:
        """Most messages that crossed one link (both directions) so far."""
        return max(self.link_load.values(), default=0)


def _components(n: int, ends: np.ndarray, alive: np.ndarray) -> int:
    a, b = ends[alive, 0], ends[alive, 1]
    mat = sp.coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
    return connected_components(mat, directed=False, return_labels=False)


def break_links(topo: Topology, rate: float, seed: int = 0, keep_connected: bool = True) -> list[int]:
    """Break ``round(rate * L)`` random processor-to-processor links of ``topo`` in place; their ids.

    ``L`` counts every switch-to-switch link (links already broken count
    towards the target). Links are tried in a random order drawn from
    ``numpy.random.default_rng(seed)``; with ``keep_connected`` a link whose
    loss would cut the live network further is skipped, so fewer links may
    break than asked (4 neighbours at 50%: a 16x16 grid has 480 links and
    needs at least 255 of them).
    """
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise SpecError(f"the break rate must be between 0 and 1, got {rate!r}")
    sw = topo.kind == SWITCH
    rows = np.flatnonzero(sw[topo.link_a] & sw[topo.link_b])
    index = np.full(topo.n_nodes, -1, dtype=np.int64)
    index[topo.switches] = np.arange(len(topo.switches))
    ends = np.stack([index[topo.link_a[rows]], index[topo.link_b[rows]]], axis=1)
    alive = ~topo.broken[rows]
    target = int(round(rate * len(rows))) - int((~alive).sum())
    pieces = _components(len(topo.switches), ends, alive)
    out: list[int] = []
    for i in np.random.default_rng(seed).permutation(np.flatnonzero(alive)).tolist():
        if len(out) >= target:
            break
        alive[i] = False
        if keep_connected and _components(len(topo.switches), ends, alive) > pieces:
            alive[i] = True
            continue
        out.append(int(topo.link_id[rows[i]]))
    for lid in out:
        topo.set_broken(lid)
    return out
