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

References: [OPENSM] (min-hop routes; keys: ``docs/papers.md``).
"""

from __future__ import annotations

import math

import numpy as np

from vizcoll.barrier.grid import NetRoute, mst_tree
from vizcoll.errors import SpecError
from vizcoll.topology.hops import UNREACHABLE, min_hops
from vizcoll.topology.model import SWITCH, Topology

__all__ = ["FabricNetwork", "check_participants"]


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
    dist : ndarray of int32
        ``dist[i, j]`` = live hops from ``nodes[i]`` to ``nodes[j]``, -1 when unreachable.
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
        arr = np.asarray(self.nodes, dtype=np.int64)
        self.dist = self.table.hops(arr[:, None], arr[None, :])
        self._to: dict[int, np.ndarray] = {}
        self._routes: dict[tuple[int, int], NetRoute] = {}

    # ------------------------------------------------------------ basics
    @property
    def n(self) -> int:
        """Number of processes."""
        return len(self.nodes)

    def distance(self, u: int, v: int) -> float:
        """Live hops between two processes (``math.inf`` when cut apart)."""
        d = int(self.dist[self.rank[u], self.rank[v]])
        return math.inf if d == UNREACHABLE else d

    def components(self) -> list[list[int]]:
        """The processes in groups that can reach each other, largest first (ties: smallest node)."""
        seen: set[int] = set()
        comps = []
        for i, u in enumerate(self.nodes):
            if u not in seen:
                comp = sorted(self.nodes[j] for j in np.flatnonzero(self.dist[i] != UNREACHABLE).tolist())
                seen.update(comp)
                comps.append(comp)
        return sorted(comps, key=lambda c: (-len(c), c[0]))

    # ------------------------------------------------------------ structures for the algorithms
    def centre(self) -> int:
        """The master: the process with the smallest total live hop distance to the others (ties: lowest index).

        A process it cannot reach counts as ``n_nodes`` hops.
        """
        d = self.dist.astype(np.int64)
        d[d == UNREACHABLE] = self.topo.n_nodes
        total = d.sum(axis=1)
        return min(self.nodes, key=lambda u: (int(total[self.rank[u]]), u))

    def spanning_tree(self, root: int, members: set[int] | None = None) -> dict[int, int]:
        """Minimum spanning tree of the processes (or ``members``) weighted by live hop distance, Prim from ``root``.

        Processes ``root`` cannot reach get no entry. Equal weights are taken in
        the order they were reached (neighbors in rank order), so the tree is
        as shallow as such a tree gets.
        """
        order = [u for u in self.nodes if members is None or u in members]
        nbrs = {u: [v for v in order if v != u and self.dist[self.rank[u], self.rank[v]] != UNREACHABLE] for u in order}
        return mst_tree(nbrs, root, lambda u, v: int(self.dist[self.rank[u], self.rank[v]]))

    def leaf_of(self, u: int) -> int:
        """The switch a process hangs off: itself for a switch, else the lowest-index switch it is linked to
        (broken links count: it is the fabric's structure), else the node itself."""
        topo = self.topo
        if topo.kind[u] == SWITCH:
            return u
        peers = np.r_[topo.link_b[topo.link_a == u], topo.link_a[topo.link_b == u]]
        peers = peers[topo.kind[peers] == SWITCH]
        return int(peers.min()) if len(peers) else u

    def groups(self, size: int = 0) -> list[tuple[int, list[int]]]:
        """``(leader, members)`` of the two-level algorithms: the processes grouped by leaf switch.

        Groups come in the order of their first member; the leader is the
        member closest to the master (:meth:`centre`; ties: lowest index).
        ``size`` (the grid's block side) is ignored.
        """
        by_leaf: dict[int, list[int]] = {}
        for u in self.nodes:
            by_leaf.setdefault(self.leaf_of(u), []).append(u)
        master = self.centre()
        out = []
        for members in by_leaf.values():
            leader = min(members, key=lambda u: (self.distance(master, u), u))
            out.append((leader, members))
        return out

    def intact(self) -> FabricNetwork:
        """The same processes on the fabric before its links broke."""
        return FabricNetwork(self.topo, self.nodes, include_broken=True)

    # ------------------------------------------------------------ routing
    def to(self, dst: int) -> np.ndarray:
        """Live hops from every node to ``dst`` (int32 over nodes, -1 = unreachable; cached)."""
        if dst not in self._to:
            self._to[dst] = self.table.hops_from(dst)
        return self._to[dst]

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

    def _route(self, src: int, dst: int) -> NetRoute:
        dist = self.to(dst)
        if dist[src] == UNREACHABLE:
            return NetRoute((src,), (), reached=False, reason="unreachable")
        kind, view, link_id = self.table.kind, self.ports, self.topo.link_id
        path, links, cur = [src], [], src
        while cur != dst:
            at = view.of(cur)
            peers = view.peer[at]
            ok = (dist[peers] == dist[cur] - 1) & ((kind[peers] == SWITCH) | (peers == dst))
            i = int(np.flatnonzero(ok)[0])  # ports are sorted: the lowest-numbered one
            cur = int(peers[i])
            path.append(cur)
            links.append(int(link_id[view.link[at][i]]))
        return NetRoute(tuple(path), tuple(links))
