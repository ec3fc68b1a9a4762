"""Barriers among chosen nodes of any fabric, over min-hop routes that avoid the broken links.

The paper runs its barriers on a grid where every node is a processor and
routes greedily by position (:class:`~vizcoll.barrier.grid.GridNetwork`).
A real cluster is not like that: the processes of a barrier are the end nodes
of a communicator, and switches only forward. :class:`FabricNetwork` is that
network, with the same interface as :class:`GridNetwork`, so the barrier
algorithms, the timing model (:class:`~vizcoll.barrier.network.Network`) and
the timeline are the same on both.

Where the paper is silent we built what a user of a subnet manager expects,
and chose:

**Processes.** ``participants``: any distinct nodes of the fabric (usually
end nodes; a switch listed there is a process too, and still forwards), in
the order given. That order is the rank order of Tournament and
Dissemination.

**Routes.** Every message follows a *min-hop route over the live links*
(the rules of :mod:`vizcoll.topology.hops`: broken links are skipped, only
switches forward, an end node is only the first or last node of a path).
At every node the message leaves through the **lowest-numbered port** whose
peer is one hop closer to the destination (OpenSM's min-hop choice,
:meth:`~vizcoll.topology.hops.MinHopTable.min_ports`), so routes are
deterministic and a message never crosses a broken link. When the broken
links cut the destination off, the source has no route: the message is a
**dead end** at its source (``reason = "unreachable"``), dropped and reported,
never looping.

**Timing**: the one model of :class:`~vizcoll.barrier.network.Network`:
every node on the route (the source process, each forwarding switch, the
destination process) handles the message for ``proc`` seconds, one message at
a time in FIFO order, and every link takes ``hop_latency``. Switches are thus
contended like the grid's processor-routers are.

**Structures** the algorithms ask the network for (``d(u, v)`` = live hop
distance between two processes):

- :meth:`FabricNetwork.centre`, the master of ``ms`` and the root of
  ``tree``: the process with the smallest total ``d`` to the others (ties:
  lowest node index); a process it cannot reach counts as ``n_nodes`` hops, so
  the master lies in the largest connected group;
- :meth:`FabricNetwork.spanning_tree`, the ``tree`` barrier: a **minimum
  spanning tree of the processes weighted by their live hop distance** (Prim
  from the master, equal weights in the order they were reached). We chose it
  over the shortest-path tree projected on the processes because it is the
  paper's "minimum spanning tree of the real network" where only some nodes
  are processes (the metric closure's MST, the classic Steiner-tree
  approximation): on a fat tree processes under one leaf switch gather to one
  of them (2 hops), one per leaf then gathers within its pod, one per pod
  across the top, so most messages stay local, whereas a projected
  shortest-path tree from the master sends nearly every process straight to
  it (a master-slave pattern). ``tree_on="intact"`` builds it on the
  fabric before the links broke (:meth:`FabricNetwork.intact`);
- :meth:`FabricNetwork.groups`, the blocks of ``dissemination+tree``: the
  processes grouped by their **leaf switch** (the lowest-index switch an end
  node is linked to, broken or not, so the grouping is the fabric's
  structure; a switch process is its own leaf), in the order of their first
  member; the leader of a group is its member closest to the master (ties:
  lowest node index). The ``block`` parameter is a grid notion and is
  ignored here.

DLCT needs a grid (its IDs follow the grid's numbering and its blocks are
squares of the grid); :func:`~vizcoll.barrier.algorithms.run_barriers`
refuses it with participants.

**At any size.** Nothing holds a process × process matrix. Processes that
enter the switch fabric through the same single switch (the end nodes under
one leaf, the common case) are *twins*: they are 2 hops apart and equally far
from every other process, so the structures above are computed over their
classes (:meth:`FabricNetwork.class_hops`, one row of class distances at a
time): the master from per-class hop sums, the spanning tree by Prim over
classes (the first member of a class to join the tree is the only one whose
links can be the best for anyone, so each class's row is read once), and a
message's route from the hops of every switch to its destination's class,
read from the min-hop table, one port at a time. Every choice, tie and route
is the one of the process × process definitions above (the tests compare
them on small fabrics); a fabric of 40,960 processes under 2,560 leaf
switches needs 2,560 class rows instead of a 40,960² matrix.

References: [OPENSM] (min-hop routes; keys: ``docs/papers.md``).
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from vizcoll.barrier.grid import NetRoute
from vizcoll.errors import SpecError
from vizcoll.topology.hops import UNREACHABLE, min_hops
from vizcoll.topology.model import SWITCH, Topology

__all__ = ["FabricNetwork", "check_participants", "communicator_processes", "leaf_switches"]

_BIG = 1 << 30  # "no path" while taking minima
_BLOCK_CELLS = 1 << 22  # class distances read per block


def check_participants(topo: Topology, participants) -> list[int]:
    """``participants`` as a list of distinct node indices of ``topo`` (order kept); SpecError otherwise.

    >>> from vizcoll.topology.generators import from_spec
    >>> check_participants(from_spec("fat-tree:radix=4,levels=2"), [6, 7])
    [6, 7]
    """
    if isinstance(participants, (str, bytes, dict)):
        raise SpecError(f"participants must be a list of node indices, got {participants!r}")
    try:
        raw = list(participants)
    except TypeError:
        raise SpecError(f"participants must be a list of node indices, got {participants!r}") from None
    nodes = []
    for u in raw:
        if isinstance(u, bool) or not isinstance(u, (int, np.integer)):
            raise SpecError(f"participants must be node indices (integers), got {u!r}")
        if not 0 <= int(u) < topo.n_nodes:
            raise SpecError(f"participant {int(u)} is not a node of the fabric (0..{topo.n_nodes - 1})")
        nodes.append(int(u))
    if not nodes:
        raise SpecError("a barrier needs at least one participant")
    seen: set[int] = set()
    for u in nodes:
        if u in seen:
            raise SpecError(f"participant {topo.names[u]} is listed twice")
        seen.add(u)
    return nodes


def leaf_switches(topo: Topology, nodes) -> np.ndarray:
    """The switch each of ``nodes`` hangs off: a switch itself, an end node the lowest-index switch it is linked to
    (broken links count: it is the fabric's structure), else the node itself.

    >>> from vizcoll.topology.generators import from_spec
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> [topo.names[s] for s in leaf_switches(topo, [topo.index("h0"), topo.index("h3"), topo.index("spine1")])]
    ['leaf0', 'leaf1', 'spine1']
    """
    arr = np.asarray(nodes, dtype=np.int64)
    view = topo.ports(include_broken=True)
    owner = np.repeat(np.arange(topo.n_nodes), np.diff(view.indptr))
    to_switch = topo.kind[view.peer] == SWITCH
    lowest = np.full(topo.n_nodes, _BIG, dtype=np.int64)
    np.minimum.at(lowest, owner[to_switch], view.peer[to_switch])
    leaf = np.where(lowest[arr] < _BIG, lowest[arr], arr)
    return np.where(topo.kind[arr] == SWITCH, arr, leaf)


def communicator_processes(comms, index: int) -> list[int]:
    """The processes of a barrier among communicator ``index`` of ``comms``: its end nodes in rank order, each once.

    Ranks sharing a node share its barrier process.

    Parameters
    ----------
    comms : Communicators
        The communicators, with their placement.
    index : int
        The communicator's index.

    Returns
    -------
    list of int
        Node indices: the ``participants`` of :func:`~vizcoll.barrier.algorithms.run_barriers`.

    Raises
    ------
    SpecError
        For a communicator that does not exist.

    Examples
    --------
    >>> from vizcoll.comm import parse_pattern
    >>> from vizcoll.topology.generators import from_spec
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> [topo.names[n] for n in communicator_processes(parse_pattern("grid2d:2x4", topo, ppn=2), 0)]
    ['h0', 'h1']
    """
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(comms):
        raise SpecError(f"communicator {index!r} does not exist: there are {len(comms)} (0–{len(comms) - 1})")
    return list(dict.fromkeys(comms.nodes(int(index)).tolist()))


class FabricNetwork:
    """Processes on chosen nodes of any fabric, min-hop routing over the live links (see the module docstring).

    Parameters
    ----------
    topo : Topology
        The fabric; its broken links are the failures.
    participants : sequence of int
        The processes' node indices (distinct), in rank order.
    include_broken : bool
        Count broken links as live (the fabric before the links broke).

    Attributes
    ----------
    nodes : list of int
        The processes (``participants``).
    cls : ndarray of int64
        The class of twins of every process (rank order); :attr:`reps` holds a member of each class.
    """

    def __init__(self, topo: Topology, participants, include_broken: bool = False):
        self.topo = topo
        self.nodes = check_participants(topo, participants)
        self.include_broken = include_broken
        fabric = topo
        if include_broken and topo.broken.any():
            fabric = topo.copy()
            fabric.broken[:] = False
        self.table = min_hops(fabric)
        self.ports = fabric.ports()
        self.rank = {u: i for i, u in enumerate(self.nodes)}
        self.array = np.asarray(self.nodes, dtype=np.int64)
        self.cls, self.reps, self._entry = self._classes()
        self.size = np.bincount(self.cls, minlength=len(self.reps))
        self._to: dict[int, np.ndarray] = {}  # per class: hops from every switch
        self._hops: dict[tuple[int, int], int] = {}  # per pair of classes
        self._next: dict[tuple[int, int], tuple[int, int]] = {}  # per (node, class): the next hop
        self._port_lists: dict[int, tuple] = {}
        self._routes: dict[tuple[int, int], NetRoute] = {}
        self._comps: list[list[int]] | None = None

    def _classes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The twins' classes: (class per process, a member per class, the one switch row a class enters the
        fabric through, -1 for a class of one process that is a switch, has direct end-node peers or several or
        no switches)."""
        row, _ = self.table.single_entry
        arr = self.array
        peers = np.diff(self.table.peer_ptr)[arr]
        twin = (self.table.kind[arr] != SWITCH) & (row[arr] >= 0) & (peers == 0)
        key = np.where(twin, row[arr], -1 - np.arange(len(arr)))
        _, first, cls = np.unique(key, return_index=True, return_inverse=True)
        return cls.astype(np.int64), arr[first], np.where(twin[first], row[arr[first]], -1)

    # ------------------------------------------------------------ basics
    @property
    def n(self) -> int:
        """Number of processes."""
        return len(self.nodes)

    def class_hops(self, a, b) -> np.ndarray:
        """Live hops from a member of each class of ``a`` to a member of each class of ``b`` (class ids),
        ``(len(a), len(b))`` int64, :data:`UNREACHABLE` where cut apart; two distinct members when the classes
        are the same (twins: 2 hops)."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        out = np.empty((len(a), len(b)), dtype=np.int64)
        ra, rb = self._entry[a], self._entry[b]
        fa, fb = ra >= 0, rb >= 0
        if fa.any() and fb.any():
            block = np.asarray(self.table.dist[ra[fa][:, None], rb[fb][None, :]]).astype(np.int64)
            out[np.ix_(fa, fb)] = np.where(block == self.table.unreachable, UNREACHABLE, block + 2)
        ia, ib = np.nonzero(~fa[:, None] | ~fb[None, :])
        if len(ia):
            out[ia, ib] = self.table.hops(self.reps[a[ia]], self.reps[b[ib]])
        return out

    def distance(self, u: int, v: int) -> float:
        """Live hops between two processes (``math.inf`` when cut apart)."""
        if u == v:
            return 0
        d = int(self.class_hops([self.cls[self.rank[u]]], [self.cls[self.rank[v]]])[0, 0])
        return math.inf if d == UNREACHABLE else d

    def _process_hops(self, u: int) -> np.ndarray:
        """Live hops from process ``u`` to every process (rank order), :data:`UNREACHABLE` where cut apart."""
        out = self.class_hops([self.cls[self.rank[u]]], np.arange(len(self.reps)))[0][self.cls]
        out[self.rank[u]] = 0
        return out

    def components(self) -> list[list[int]]:
        """The processes in groups that can reach each other, largest first (ties: smallest node)."""
        if self._comps is None:
            seen = np.zeros(self.n, dtype=bool)
            comps = []
            for i in range(self.n):
                if not seen[i]:
                    reach = self._process_hops(self.nodes[i]) != UNREACHABLE
                    comps.append(np.sort(self.array[reach]).tolist())
                    seen |= reach
            self._comps = sorted(comps, key=lambda c: (-len(c), c[0]))
        return self._comps

    # ------------------------------------------------------------ structures for the algorithms
    def centre(self) -> int:
        """The master: the process with the smallest total live hop distance to the others (ties: lowest index).

        A process it cannot reach counts as ``n_nodes`` hops.
        """
        k = len(self.reps)
        total = np.empty(k, dtype=np.int64)
        step = max(1, _BLOCK_CELLS // k)
        for lo in range(0, k, step):
            rows = np.arange(lo, min(k, lo + step))
            d = self.class_hops(rows, np.arange(k))
            d[d == UNREACHABLE] = self.topo.n_nodes
            total[rows] = d @ self.size - d[np.arange(len(rows)), rows]  # a process is 0 hops from itself
        best = np.lexsort((self.array, total[self.cls]))[0]
        return self.nodes[best]

    def spanning_tree(self, root: int, members: set[int] | None = None) -> dict[int, int]:
        """Minimum spanning tree of the processes (or ``members``) weighted by live hop distance, Prim from ``root``.

        Processes ``root`` cannot reach get no entry. Equal weights are taken in
        the order they were reached (neighbors in rank order), so the tree is
        as shallow as such a tree gets: the next process is the one of smallest
        ``(hops, when its tree end joined, rank)`` (see the module docstring).
        """
        ranks = np.arange(self.n) if members is None else np.sort([self.rank[u] for u in members])
        return _ClassPrim(self, ranks).grow(self.rank[root])

    def leaf_of(self, u: int) -> int:
        """The switch process ``u`` hangs off (:func:`leaf_switches`)."""
        return int(leaf_switches(self.topo, [u])[0])

    def groups(self, size: int = 0) -> list[tuple[int, list[int]]]:
        """``(leader, members)`` of the two-level algorithms: the processes grouped by leaf switch.

        Groups come in the order of their first member; the leader is the
        member closest to the master (:meth:`centre`; ties: lowest index).
        ``size`` (the grid's block side) is ignored.
        """
        by_leaf: dict[int, list[int]] = {}
        for u, leaf in zip(self.nodes, leaf_switches(self.topo, self.nodes).tolist(), strict=True):
            by_leaf.setdefault(leaf, []).append(u)
        hops = self._process_hops(self.centre()).astype(float)
        hops[hops == UNREACHABLE] = math.inf
        return [(min(members, key=lambda u: (hops[self.rank[u]], u)), members) for members in by_leaf.values()]

    def intact(self) -> FabricNetwork:
        """The same processes on the fabric before its links broke."""
        return FabricNetwork(self.topo, self.nodes, include_broken=True)

    # ------------------------------------------------------------ routing
    def route(self, src: int, dst: int) -> NetRoute:
        """The min-hop route of a message from ``src`` to ``dst`` (lowest port first; cached)."""
        key = (src, dst)
        if key not in self._routes:
            self._routes[key] = self._route(src, dst)
        return self._routes[key]

    def hops(self, src: int, dst: int) -> float:
        """Hops of the route, or ``math.inf`` for a dead end."""
        r = self.route(src, dst)
        return r.hops if r.reached else math.inf

    def _to_switches(self, c: int) -> np.ndarray:
        """Live hops from every switch (row order) to the processes of class ``c``, ``_BIG`` where none."""
        if c not in self._to:
            t, dst = self.table, int(self.reps[c])
            rows = t.anchor_row[t.anchor_ptr[dst] : t.anchor_ptr[dst + 1]]
            offs = t.anchor_off[t.anchor_ptr[dst] : t.anchor_ptr[dst + 1]]
            to = np.full(len(t.switches), _BIG, dtype=np.int64)
            for row, off in zip(rows.tolist(), offs.tolist(), strict=True):
                hops = np.asarray(t.dist[[row]])[0].astype(np.int64)
                np.minimum(to, np.where(hops == t.unreachable, _BIG, hops + off), out=to)
            self._to[c] = to
        return self._to[c]

    def _ports_of(self, node: int) -> tuple[list[int], list[int], list[int]]:
        """``(peers, their switch rows (-1: end node), link ids)`` of a node's live ports, lowest port first."""
        if node not in self._port_lists:
            at = self.ports.of(node)
            peers = self.ports.peer[at]
            links = self.topo.link_id[self.ports.link[at]]
            self._port_lists[node] = (peers.tolist(), self.table.sw_pos[peers].tolist(), links.tolist())
        return self._port_lists[node]

    def _pair_hops(self, src: int, dst: int) -> int:
        """Live hops between two processes (:data:`UNREACHABLE` when cut apart), kept per pair of classes."""
        if src == dst:
            return 0
        key = (int(self.cls[self.rank[src]]), int(self.cls[self.rank[dst]]))
        if key not in self._hops:
            t = self.table
            if dst in t.peer_node[t.peer_ptr[src] : t.peer_ptr[src + 1]]:
                self._hops[key] = 1
            else:
                lo, hi = t.anchor_ptr[src], t.anchor_ptr[src + 1]
                to = self._to_switches(key[1])
                best = int((to[t.anchor_row[lo:hi]] + t.anchor_off[lo:hi]).min()) if hi > lo else _BIG
                self._hops[key] = UNREACHABLE if best >= _BIG else best
        return self._hops[key]

    def _next_hop(self, cur: int, c: int, left: int) -> tuple[int, int]:
        """``(peer, link id)`` of the lowest port of ``cur`` leading to class ``c`` in ``left`` more hops (> 0),
        kept per (node, class): ``left`` is then the node's hops to the class less one."""
        key = (cur, c)
        if key not in self._next:
            to = self._to_switches(c)
            peers, rows, ids = self._ports_of(cur)
            i = next(i for i, r in enumerate(rows) if r >= 0 and to[r] == left)
            self._next[key] = peers[i], ids[i]
        return self._next[key]

    def _route(self, src: int, dst: int) -> NetRoute:
        left = self._pair_hops(src, dst)
        if left == UNREACHABLE:
            return NetRoute((src,), (), reached=False, reason="unreachable")
        c = int(self.cls[self.rank[dst]])
        path, links, cur = [src], [], src
        while left:
            left -= 1
            if left:
                cur, link = self._next_hop(cur, c, left)
            else:  # the last hop: the lowest port whose peer is dst
                peers, _, ids = self._ports_of(cur)
                cur, link = dst, ids[peers.index(dst)]
            path.append(cur)
            links.append(link)
        return NetRoute(tuple(path), tuple(links))


class _ClassPrim:
    """Prim's algorithm over the classes of twins of some processes (:meth:`FabricNetwork.spanning_tree`).

    Every class keeps its best known link into the tree, ``(hops, the join order of its tree end)``; the next
    process is the lowest-rank unjoined member of the class whose ``(hops, join order, that rank)`` is smallest,
    kept in a heap with stale entries skipped. Only the first member of a class to join can improve anyone's
    best link (a later one is as far from everyone, and joined later), so each class's row of distances is read
    once.
    """

    def __init__(self, net: FabricNetwork, ranks: np.ndarray):
        self.net, self.ranks = net, ranks
        self.present, local = np.unique(net.cls[ranks], return_inverse=True)
        order = np.argsort(local, kind="stable")  # members of each class in rank order
        self.members = order
        self.start = np.r_[0, np.cumsum(np.bincount(local, minlength=len(self.present)))]
        self.next = self.start[:-1].copy()  # the next unjoined member of each class (index into self.members)
        self.local = local
        m = len(self.present)
        self.best_d = np.full(m, _BIG, dtype=np.int64)  # hops of each class's best link into the tree
        self.best_when = np.full(m, _BIG, dtype=np.int64)  # when its tree end joined
        self.best_u = [-1] * m
        self.entered = np.zeros(m, dtype=bool)
        self.joined = np.zeros(len(ranks), dtype=bool)
        self.heap: list[tuple[int, int, int, int]] = []
        self.parent: dict[int, int] = {}

    def grow(self, root_rank: int) -> dict[int, int]:
        """The tree from the process of rank ``root_rank``: parent per node, the root's -1."""
        self._join(int(np.searchsorted(self.ranks, root_rank)), -1)
        while self.heap:
            d, when, rank, c = heapq.heappop(self.heap)
            i = self._first_unjoined(c)
            if d != self.best_d[c] or when != self.best_when[c] or i is None or self.ranks[i] != rank:
                continue  # stale: a better link came, or that member joined
            self._join(i, self.best_u[c])
        return self.parent

    def _first_unjoined(self, c: int) -> int | None:
        while self.next[c] < self.start[c + 1] and self.joined[self.members[self.next[c]]]:
            self.next[c] += 1
        return int(self.members[self.next[c]]) if self.next[c] < self.start[c + 1] else None

    def _push(self, c: int) -> None:
        i = self._first_unjoined(c)
        if i is not None and self.best_d[c] < _BIG:
            heapq.heappush(self.heap, (int(self.best_d[c]), int(self.best_when[c]), int(self.ranks[i]), c))

    def _join(self, i: int, parent: int) -> None:
        net, c, when = self.net, int(self.local[i]), len(self.parent)
        u = net.nodes[self.ranks[i]]
        self.parent[u] = parent
        self.joined[i] = True
        if not self.entered[c]:
            self.entered[c] = True
            row = net.class_hops([self.present[c]], self.present)[0]
            better = np.flatnonzero((row != UNREACHABLE) & (row < self.best_d))
            self.best_d[better], self.best_when[better] = row[better], when
            for g in better.tolist():
                self.best_u[g] = u
                self._push(g)
        self._push(c)
