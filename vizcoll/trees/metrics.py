"""Metrics of an aggregation tree mapped on a topology: height, radius, packets per link, latency.

A tree is *mapped* when ``tree.node[v]`` names the topology node of every
vertex (an end node for a process, a switch for a type II aggregation point);
:func:`map_tree` does it for a type I tree from a :class:`Placement`
(vertex → rank → node).

**Routes.** Every tree edge (child → parent) sends one aggregation packet
along one deterministic unicast shortest path over live links:

- vertices on the same node exchange it without any link (two processes of
  one node, or of one NIC's two ports, as in the paper's supernode);
- a process leaves its node through its *port* when one is given
  (``ports[v]``, a link row; see :func:`process_ports`) and is reached
  through the destination's port the same way; otherwise a node leaves
  through its lowest-numbered live port with the fewest hops to the target;
- every switch forwards through ``MinHopTable.min_ports(switch, target)[0]``,
  the lowest-numbered port with the fewest hops (OpenSM's choice). On a fat
  tree this sends all traffic between two leaves through the lowest spine.

The *length* of an edge is the number of links of its route (with node-level
routing this is exactly ``min_hops(topo).hops(child, parent)``); an edge
without a route (its endpoints cannot reach each other over live links, or a
given port's link is broken) is reported in ``flags`` and makes the radius
and the latency undefined (None).

:func:`tree_metrics` returns a plain dict: ``height``, ``radius``,
``edge_links`` (total links of all routes), ``link_packets`` (``{link id:
packets}``, both directions together), ``max_link`` / ``max_switch_link``
(the busiest link overall / between two switches: ``link_id``, ``ends``,
``packets``), ``leaf_pairs_max`` (most packets from one switch where a route
enters the fabric to one switch where it leaves it), ``cross_group``
(``{level: packets between different groups}``), ``switch_entries`` (switch
vertices, one aggregation-tree entry each; 0 for type I), ``latency_us``
(eq. 2 with the tree's height and radius) and ``flags``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from vizcoll.comm.placement import Placement
from vizcoll.errors import SpecError
from vizcoll.topology.hops import MinHopTable, min_hops
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.trees.cost import CostParams, t_aggregate
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import leaf_switches, vertex_ranks

__all__ = [
    "cut_off_ranks",
    "isolated_nodes",
    "map_tree",
    "process_ports",
    "Router",
    "edge_routes",
    "tree_radius",
    "link_packets",
    "cross_group_packets",
    "switch_entries",
    "tree_metrics",
    "vertex_switches",
    "routes_over",
    "mapped_type_one",
]


def map_tree(tree: Tree, placement: Placement) -> Tree:
    """A copy of a type I tree with ``node[v]`` = the node of vertex ``v``'s rank (see :func:`vertex_ranks`)."""
    ranks = vertex_ranks(tree)
    if max(ranks, default=-1) >= placement.nprocs:
        raise SpecError(f"the tree has rank {max(ranks)} but the placement only {placement.nprocs} processes")
    return replace(tree, node=[int(placement.node[r]) for r in ranks])


def process_ports(topo: Topology, placement: Placement) -> np.ndarray:
    """The port (link row) each rank uses: the ``j``-th process of a node takes its ``j``-th live port.

    Ports are taken in port-number order, cyclically when a node runs more
    processes than it has ports. -1 for a process on a switch or on a node
    without live links. On ``sunway-supernode`` with ``ppn = 2`` rank ``2i``
    uses node ``i``'s port 1 (leaf ``i // 16``) and rank ``2i + 1`` its port 2
    (leaf ``16 + i // 16``).
    """
    view = topo.ports()
    out = np.full(placement.nprocs, -1, dtype=np.int64)
    seen: Counter[int] = Counter()
    for rank, node in enumerate(placement.node.tolist()):
        links = view.link[view.of(node)]
        if topo.kind[node] != SWITCH and len(links):
            out[rank] = links[seen[node] % len(links)]
        seen[node] += 1
    return out


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


def _check_mapped(tree: Tree, topo: Topology) -> np.ndarray:
    node = np.asarray(tree.node, dtype=np.int64)
    if len(node) != tree.size or (tree.size and (node.min() < 0 or node.max() >= topo.n_nodes)):
        raise SpecError("the tree is not mapped on this topology: set tree.node (e.g. with map_tree)")
    return node


def edge_routes(tree: Tree, topo: Topology, router: Router | None = None,
                ports: Sequence[int] | None = None, progress=None) -> list[list[int] | None]:
    """The route (link rows) of every vertex's packet to its parent; ``[]`` for the root, None if unreachable.

    ``progress(done, total)``, if given, is called every 1% of the vertices and once at the end
    (``done == total``).
    """
    node = _check_mapped(tree, topo)
    router = router or Router(topo)
    ports = np.full(tree.size, -1) if ports is None else np.asarray(ports, dtype=np.int64)
    routes: list[list[int] | None] = []
    step = max(1, tree.size // 100)
    for v, p in enumerate(tree.parent):
        if progress is not None and v % step == 0:
            progress(v, tree.size)
        if p < 0:
            routes.append([])
        else:
            routes.append(router.route(int(node[v]), int(node[p]), int(ports[v]), int(ports[p])))
    if progress is not None:
        progress(tree.size, tree.size)
    return routes


def tree_radius(tree: Tree, lengths: Sequence[int | None]) -> int | None:
    """Most summed edge lengths from a vertex up to the root (None if an edge has no length)."""
    if any(lengths[v] is None for v in range(1, tree.size) if tree.parent[v] >= 0):
        return None
    dist = [0] * tree.size
    order = [0] if tree.size else []
    for v in order:
        for c in tree.children[v]:
            dist[c] = dist[v] + lengths[c]
            order.append(c)
    return max(dist, default=0)


def link_packets(routes: Sequence[list[int] | None], topo: Topology) -> dict[int, int]:
    """``{stable link id: aggregation packets}`` over all routes (both directions together)."""
    count = Counter(row for route in routes if route for row in route)
    return {int(topo.link_id[row]): n for row, n in sorted(count.items())}


def cross_group_packets(tree: Tree, group_of: Sequence[int]) -> int:
    """Tree edges (child → parent) whose two vertices are in different groups (``group_of[v]``)."""
    group = np.asarray(group_of)
    child = np.flatnonzero(np.asarray(tree.parent) >= 0)
    return int(np.count_nonzero(group[child] != group[np.asarray(tree.parent)[child]]))


def switch_entries(tree: Tree, topo: Topology) -> int:
    """Distinct switches among the tree's vertices: the aggregation-tree entries a type II tree uses."""
    node = _check_mapped(tree, topo)
    return int(len(np.unique(node[topo.kind[node] == SWITCH])))


def _busiest(packets: dict[int, int], topo: Topology, switches_only: bool) -> dict | None:
    best = None
    for link_id, n in packets.items():
        row = topo.link_row(link_id)
        a, b = int(topo.link_a[row]), int(topo.link_b[row])
        if switches_only and not (topo.kind[a] == SWITCH and topo.kind[b] == SWITCH):
            continue
        if best is None or n > best["packets"]:
            best = {"link_id": link_id, "ends": [topo.names[a], topo.names[b]], "packets": n}
    return best


def _leaf_pairs(routes: Sequence[list[int] | None], node: np.ndarray, tree: Tree, topo: Topology) -> int:
    """Most packets from one fabric entry switch to one exit switch (routes through at least 2 switches)."""
    pairs: Counter[tuple[int, int]] = Counter()
    for v, route in enumerate(routes):
        if not route or tree.parent[v] < 0:
            continue
        hops = [int(node[v])]
        for row in route:
            a, b = int(topo.link_a[row]), int(topo.link_b[row])
            hops.append(b if a == hops[-1] else a)
        inside = [x for x in hops if topo.kind[x] == SWITCH]
        if len(inside) >= 2 and inside[0] != inside[-1]:
            pairs[inside[0], inside[-1]] += 1
    return max(pairs.values(), default=0)


def _default_levels(node: np.ndarray, ports: np.ndarray | None, topo: Topology) -> dict[str, np.ndarray]:
    leaf = leaf_switches(topo, node)
    if ports is not None:
        ends = np.where(topo.link_a[np.maximum(ports, 0)] == node, topo.link_b[np.maximum(ports, 0)],
                        topo.link_a[np.maximum(ports, 0)])
        leaf = np.where(ports >= 0, ends, leaf)
    levels = {"node": node, "switch": leaf}
    group = topo.attr("group")[node]
    if np.any(group >= 0):
        levels["group"] = group
    return levels


def tree_metrics(tree: Tree, topo: Topology | None = None, placement: Placement | None = None, *,
                 table: MinHopTable | None = None, ports: Sequence[int] | None = None, per_port: bool = True,
                 levels: Mapping[str, Sequence[int]] | None = None, params: CostParams | None = None,
                 k: int | None = None, progress=None) -> dict:
    """All metrics of a tree (see the module docstring) as a plain dict.

    Parameters
    ----------
    tree : Tree
        A type I tree (vertex ↔ rank) or a mapped tree (``tree.node`` set).
    topo : Topology, optional
        Without it only ``height`` (and ``cross_group`` for given ``levels``).
    placement : Placement, optional
        Maps a type I tree's ranks to nodes (:func:`map_tree`); with
        ``per_port`` (default) each process also gets its own port
        (:func:`process_ports`).
    table : MinHopTable, optional
        A prebuilt ``min_hops(topo)``.
    ports : sequence of int, optional
        Port link row per vertex (-1 = route from the node), overriding ``per_port``.
    levels : mapping, optional
        ``{level name: group id per vertex}`` for ``cross_group``; default
        with a topology: ``node``, ``switch`` (the vertex's port switch, or its
        lowest-numbered switch) and ``group`` (the node attribute, if set).
    params : CostParams, optional
        Cost model parameters (default: :data:`vizcoll.trees.cost.SUNWAY`).
    k : int, optional
        Width used in eq. 2's ``h·k·b``; default the largest child count.
    progress : callable, optional
        ``progress(done, total)`` over the vertices whose routes are computed (see :func:`edge_routes`).
    """
    out: dict = {"height": tree.height, "vertices": tree.size}
    k = k if k is not None else max((len(c) for c in tree.children), default=0)
    if topo is None:
        if levels is not None:
            out["cross_group"] = {name: cross_group_packets(tree, ids) for name, ids in levels.items()}
        out["latency_us"] = None
        return out
    if placement is not None:
        ranks = vertex_ranks(tree)
        tree = map_tree(tree, placement)
        if ports is None and per_port:
            ports = process_ports(topo, placement)[ranks]
    node = _check_mapped(tree, topo)
    ports = None if ports is None else np.asarray(ports, dtype=np.int64)
    routes = edge_routes(tree, topo, Router(topo, table), ports, progress)
    out.update(_route_metrics(tree, topo, node, ports, routes, levels, params, k))
    return out


def _route_metrics(tree: Tree, topo: Topology, node: np.ndarray, ports: np.ndarray | None,
                   routes: list[list[int] | None], levels: Mapping[str, Sequence[int]] | None,
                   params: CostParams | None, k: int) -> dict:
    """The metrics of a mapped tree whose edges take ``routes`` (see :func:`tree_metrics`)."""
    out: dict = {}
    lengths = [None if r is None else len(r) for r in routes]
    packets = link_packets(routes, topo)
    radius = tree_radius(tree, lengths)
    levels = levels if levels is not None else _default_levels(node, ports, topo)
    out.update({
        "radius": radius,
        "edge_links": int(sum(x for x in lengths if x)),
        "link_packets": packets,
        "max_link": _busiest(packets, topo, False),
        "max_switch_link": _busiest(packets, topo, True),
        "leaf_pairs_max": _leaf_pairs(routes, node, tree, topo),
        "cross_group": {name: cross_group_packets(tree, ids) for name, ids in levels.items()},
        "switch_entries": switch_entries(tree, topo),
        "latency_us": None if radius is None else t_aggregate(tree.height, radius, k, params),
        "flags": [{"child": v, "parent": tree.parent[v], "reason": "unreachable over live links"}
                  for v, r in enumerate(routes) if r is None],
    })
    return out


# ---------------------------------------------------------------- a type I tree on a fabric, as a page shows it
def vertex_switches(topo: Topology, placement: Placement, ranks: Sequence[int],
                    ports: np.ndarray | None = None) -> np.ndarray:
    """The switch (node index) each vertex's process is attached to: the far end of its port, else its leaf switch.

    ``ranks[v]`` is vertex ``v``'s rank; ``ports`` (link row per rank, default
    :func:`process_ports`) says which of a node's ports the process uses.
    """
    ranks = np.asarray(ranks, dtype=np.int64)
    node = placement.node[ranks]
    port = (process_ports(topo, placement) if ports is None else np.asarray(ports, dtype=np.int64))[ranks]
    row = np.maximum(port, 0)
    ends = np.where(topo.link_a[row] == node, topo.link_b[row], topo.link_a[row]) if topo.n_links else node
    return np.where(port >= 0, ends, leaf_switches(topo, node))


def routes_over(routes: Sequence[list[int] | None], links: Sequence[int]) -> list[dict]:
    """The edges whose route (link ids) uses one of ``links``: ``{"child": v, "links": [ids]}``, by vertex."""
    wanted = set(int(x) for x in links)
    out = []
    for v, route in enumerate(routes):
        hit = sorted(wanted.intersection(route or ()))
        if hit:
            out.append({"child": v, "links": hit})
    return out


def mapped_type_one(tree: Tree, fabric: Topology, placement: Placement, routing: Topology | None = None, *,
                    table: MinHopTable | None = None, params: CostParams | None = None,
                    k: int | None = None, broken: Sequence[int] = (), progress=None) -> dict:
    """A type I tree mapped on a fabric with its routes and metrics, as plain values.

    ``fabric`` is the intact fabric: it gives each vertex its switch (through
    the process's own port) and group. The routes are computed on ``routing``
    (default ``fabric``; e.g. the fabric with its broken links, so that every
    route avoids them) with ``table``, its min-hop table. Returns ``tree``
    (the mapped tree's dict), ``ranks`` (rank of each vertex), ``routes``
    (link ids of each vertex's route to its parent; ``[]`` for the root,
    None without a route), ``switch`` (node index of each vertex's switch),
    ``cross_links`` (``{link id: packets between vertices of different
    groups}``; groups are the ``group`` node attribute when every vertex has
    one, else the switches), ``crossing`` (edges whose route uses a link
    broken in ``routing`` or listed in ``broken``, link ids: the routes of a
    tree built on the intact fabric that a break would cut;
    :func:`routes_over`, plus ``parent``) and ``metrics``
    (:func:`tree_metrics` on ``routing``). ``progress(done, total)``, if given, follows the routing of the
    vertices' edges (:func:`edge_routes`).
    """
    routing = fabric if routing is None else routing
    ranks = vertex_ranks(tree)
    mapped = map_tree(tree, placement)
    switch = vertex_switches(fabric, placement, ranks)
    group = fabric.attr("group")[placement.node[ranks]]
    group = group if np.all(group >= 0) else switch
    ports = process_ports(routing, placement)[ranks]
    node = _check_mapped(mapped, routing)
    rows = edge_routes(mapped, routing, Router(routing, table), ports, progress)
    metrics = {"height": mapped.height, "vertices": mapped.size}
    k = k if k is not None else max((len(c) for c in tree.children), default=0)
    metrics.update(_route_metrics(mapped, routing, node, ports, rows, None, params, k))
    routes = [None if r is None else [int(routing.link_id[x]) for x in r] for r in rows]
    cut = [*routing.link_id[routing.broken].tolist(), *broken]
    crossing = [c | {"parent": mapped.parent[c["child"]]} for c in routes_over(routes, cut)]
    cross_links: Counter[int] = Counter()
    for v, route in enumerate(routes):
        if route and group[v] != group[mapped.parent[v]]:
            cross_links.update(route)
    return {"tree": mapped.to_dict(), "ranks": ranks, "routes": routes, "switch": switch.tolist(),
            "cross_links": dict(sorted(cross_links.items())), "crossing": crossing, "metrics": metrics}


def cut_off_ranks(tree: Tree, ranks: list[int], children: list[int]) -> list[int]:
    """Ranks whose values never reach the root: every vertex in the subtrees of ``children`` (vertices whose
    edge to their parent has no live route)."""
    order = list(children)
    for v in order:
        order.extend(tree.children[v])
    return sorted({ranks[v] for v in order})


def isolated_nodes(topo: Topology, nodes) -> list[str]:
    """Names of the ``nodes`` (each once, in order) without any live link."""
    live = np.bincount(np.r_[topo.link_a[topo.live], topo.link_b[topo.live]], minlength=topo.n_nodes)
    return [topo.names[n] for n in dict.fromkeys(nodes) if live[n] == 0]
