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

References: [AGGT24]; routes as [OPENSM] min-hop (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from vizcoll.arrays import unique
from vizcoll.comm.placement import Placement
from vizcoll.errors import SpecError
from vizcoll.topology.hops import MinHopTable
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.trees.cost import CostParams, t_aggregate
from vizcoll.trees.groups import leaf_switches
from vizcoll.trees.routing import FlatRoutes, Router, Routing
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import vertex_ranks

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
    "LatencyModel",
    "PortChoice",
    "vertex_switches",
    "routes_over",
    "mapped_type_one",
]


@dataclass(frozen=True)
class LatencyModel:
    """The cost model of a tree's latency (eq. 2, with the tree's height and radius): its parameters and width.

    Parameters
    ----------
    params : CostParams, optional
        Cost model parameters (default: :data:`vizcoll.trees.cost.SUNWAY`).
    k : int, optional
        Width used in eq. 2's ``h·k·b``; default the tree's largest child count.
    """

    params: CostParams | None = None
    k: int | None = None


@dataclass(frozen=True)
class PortChoice:
    """Which port each vertex of a mapped tree leaves its node through (see the module docstring's routes).

    Parameters
    ----------
    rows : sequence of int, optional
        Port link row per vertex (-1 = route from the node), overriding ``per_port``.
    per_port : bool
        With a placement: each process leaves its node through its own port (:func:`process_ports`, default
        True), else the node's best port.
    """

    rows: Sequence[int] | None = None
    per_port: bool = True


def map_tree(tree: Tree, placement: Placement, ranks: Sequence[int] | None = None) -> Tree:
    """A copy of a type I tree with ``node[v]`` = the node of vertex ``v``'s rank (``ranks[v]``, default
    :func:`vertex_ranks`)."""
    ranks = vertex_ranks(tree) if ranks is None else ranks
    if max(ranks, default=-1) >= placement.nprocs:
        raise SpecError(f"the tree has rank {max(ranks)} but the placement only {placement.nprocs} processes")
    return replace(tree, node=np.asarray(placement.node)[np.asarray(ranks, dtype=np.int64)].tolist())


def process_ports(topo: Topology, placement: Placement) -> np.ndarray:
    """The port (link row) each rank uses: the ``j``-th process of a node takes its ``j``-th live port.

    Ports are taken in port-number order, cyclically when a node runs more
    processes than it has ports. -1 for a process on a switch or on a node
    without live links. On ``sunway-supernode`` with ``ppn = 2`` rank ``2i``
    uses node ``i``'s port 1 (leaf ``i // 16``) and rank ``2i + 1`` its port 2
    (leaf ``16 + i // 16``).
    """
    view = topo.ports()
    node = np.asarray(placement.node, dtype=np.int64)
    order = np.argsort(node, kind="stable")
    nth = np.empty(len(node), dtype=np.int64)  # the rank is its node's nth process
    nth[order] = np.arange(len(node)) - np.searchsorted(node[order], node[order])
    count = view.indptr[node + 1] - view.indptr[node]
    uses = (topo.kind[node] != SWITCH) & (count > 0)
    out = np.full(len(node), -1, dtype=np.int64)
    out[uses] = view.link[view.indptr[node[uses]] + nth[uses] % count[uses]]
    return out


def _check_mapped(tree: Tree, topo: Topology) -> np.ndarray:
    node = np.asarray(tree.node, dtype=np.int64)
    if len(node) != tree.size or (tree.size and (node.min() < 0 or node.max() >= topo.n_nodes)):
        raise SpecError("the tree is not mapped on this topology: set tree.node (e.g. with map_tree)")
    return node


def edge_routes(
    tree: Tree, topo: Topology, router: Router | None = None, ports: Sequence[int] | None = None, progress=None
) -> list[list[int] | None]:
    """The route (link rows) of every vertex's packet to its parent; ``[]`` for the root, None if unreachable.

    ``progress(done, total)``, if given, counts the vertices whose edge is routed (``total``: every vertex):
    once at the start, after each hop of all edges together (:meth:`Router.routes`) and once at the end.
    """
    return flat_edge_routes(tree, topo, router, ports, progress).lists()


def flat_edge_routes(
    tree: Tree, topo: Topology, router: Router | None = None, ports: Sequence[int] | None = None, progress=None
) -> FlatRoutes:
    """:func:`edge_routes` as :class:`FlatRoutes` (one entry per vertex)."""
    node = _check_mapped(tree, topo)
    router = router or Router(topo)
    ports = np.full(tree.size, -1) if ports is None else np.asarray(ports, dtype=np.int64)
    parent = np.asarray(tree.parent, dtype=np.int64)
    child = np.flatnonzero(parent >= 0)
    report = None if progress is None else (lambda done, _: progress(done, tree.size))
    if progress is not None:
        progress(0, tree.size)
    found = router.flat_routes(node[child], node[parent[child]], ports[child], ports[parent[child]], report)
    if progress is not None:
        progress(tree.size, tree.size)
    return found.renumbered(child, tree.size)


def tree_radius(tree: Tree, lengths: Sequence[int | None] | np.ndarray) -> int | None:
    """Most summed edge lengths from a vertex up to the root (None if an edge has no length: None or -1).

    Every vertex climbs by pointer doubling (its sum and ancestor twice as far each round).

    >>> from vizcoll.trees.typeone import kary_tree
    >>> tree_radius(kary_tree(7, 2), [0, 1, 2, 1, 1, 3, 1])
    5
    """
    parent = np.asarray(tree.parent, dtype=np.int64)
    if not isinstance(lengths, np.ndarray):
        lengths = np.array([-1 if n is None else n for n in lengths], dtype=np.int64)
    up = np.where(parent >= 0, lengths, 0)
    if (up < 0).any():
        return None
    above = parent.copy()
    while (climbing := np.flatnonzero(above >= 0)).size:
        up[climbing] += up[above[climbing]]
        above[climbing] = above[above[climbing]]
    return int(up.max(initial=0))


def link_packets(routes: Sequence[list[int] | None] | FlatRoutes, topo: Topology) -> dict[int, int]:
    """``{stable link id: aggregation packets}`` over all routes (both directions together), by link row."""
    flat = routes if isinstance(routes, FlatRoutes) else FlatRoutes.of(routes)
    count = flat.per_link(topo.n_links)
    rows = np.flatnonzero(count)
    return dict(zip(topo.link_id[rows].tolist(), count[rows].tolist(), strict=True))


def cross_group_packets(tree: Tree | np.ndarray, group_of: Sequence[int]) -> int:
    """Tree edges (child → parent) whose two vertices are in different groups (``group_of[v]``); ``tree`` is a
    :class:`Tree` or its parent array (one array for the many levels of one tree)."""
    group, parent = np.asarray(group_of), np.asarray(tree.parent if isinstance(tree, Tree) else tree)
    child = np.flatnonzero(parent >= 0)
    return int(np.count_nonzero(group[child] != group[parent[child]]))


def switch_entries(tree: Tree, topo: Topology) -> int:
    """Distinct switches among the tree's vertices: the aggregation-tree entries a type II tree uses."""
    node = _check_mapped(tree, topo)
    return int(len(unique(node[topo.kind[node] == SWITCH])))


def _busiest(count: np.ndarray, topo: Topology, switches_only: bool) -> dict | None:
    """The link (row order: the first of equals) with the most packets, ``count`` per link row."""
    if switches_only:
        count = np.where((topo.kind[topo.link_a] == SWITCH) & (topo.kind[topo.link_b] == SWITCH), count, 0)
    row = int(np.argmax(count)) if len(count) else 0
    if not len(count) or count[row] == 0:
        return None
    a, b = int(topo.link_a[row]), int(topo.link_b[row])
    return {"link_id": int(topo.link_id[row]), "ends": [topo.names[a], topo.names[b]], "packets": int(count[row])}


def _leaf_pairs(flat: FlatRoutes, node: np.ndarray, topo: Topology) -> int:
    """Most packets from one fabric entry switch to one exit switch (routes through at least 2 switches)."""
    vertex = np.flatnonzero(flat.length > 0)
    at = node[vertex]
    is_switch = topo.kind[at] == SWITCH
    first, last = np.where(is_switch, at, -1), np.where(is_switch, at, -1)
    for i in range(int(flat.length.max(initial=0))):  # walk every route one link further
        going = flat.length[vertex] > i
        row = flat.rows[flat.start[vertex[going]] + i]
        a, b = topo.link_a[row].astype(np.int64), topo.link_b[row].astype(np.int64)
        at[going] = np.where(a == at[going], b, a)
        inside = going.copy()
        inside[going] = topo.kind[at[going]] == SWITCH
        first[inside & (first < 0)] = at[inside & (first < 0)]
        last[inside] = at[inside]
    pairs = (first >= 0) & (first != last)
    if not pairs.any():
        return 0
    return int(np.unique(first[pairs] * topo.n_nodes + last[pairs], return_counts=True)[1].max())


def _default_levels(node: np.ndarray, ports: np.ndarray | None, topo: Topology) -> dict[str, np.ndarray]:
    leaf = leaf_switches(topo, node)
    if ports is not None:
        ends = np.where(
            topo.link_a[np.maximum(ports, 0)] == node,
            topo.link_b[np.maximum(ports, 0)],
            topo.link_a[np.maximum(ports, 0)],
        )
        leaf = np.where(ports >= 0, ends, leaf)
    levels = {"node": node, "switch": leaf}
    group = topo.attr("group")[node]
    if np.any(group >= 0):
        levels["group"] = group
    return levels


def tree_metrics(
    tree: Tree,
    topo: Topology | None = None,
    placement: Placement | None = None,
    *,
    table: MinHopTable | None = None,
    ports: PortChoice = PortChoice(),
    levels: Mapping[str, Sequence[int]] | None = None,
    latency: LatencyModel = LatencyModel(),
    progress=None,
) -> dict:
    """All metrics of a tree mapped on a topology: height, radius, packets per link, latency, as a plain dict.

    Every tree edge sends one aggregation packet along a deterministic unicast min-hop route over live links (see
    the module docstring for the routes and the metrics).

    Parameters
    ----------
    tree : Tree
        A type I tree (vertex ↔ rank) or a mapped tree (``tree.node`` set).
    topo : Topology, optional
        Without it only ``height`` (and ``cross_group`` for given ``levels``).
    placement : Placement, optional
        Maps a type I tree's ranks to nodes (:func:`map_tree`); with
        ``ports.per_port`` (default) each process also gets its own port
        (:func:`process_ports`).
    table : MinHopTable, optional
        A prebuilt ``min_hops(topo)``.
    ports : PortChoice
        The port each vertex leaves its node through: a port link row per vertex, or (the default) with
        ``placement`` each process's own port.
    levels : mapping, optional
        ``{level name: group id per vertex}`` for ``cross_group``; default
        with a topology: ``node``, ``switch`` (the vertex's port switch, or its
        lowest-numbered switch) and ``group`` (the node attribute, if set).
    latency : LatencyModel
        Eq. 2's cost parameters (default: :data:`vizcoll.trees.cost.SUNWAY`) and width ``k`` (default: the largest
        child count).
    progress : callable, optional
        ``progress(done, total)`` over the vertices whose routes are computed (see :func:`edge_routes`).

    Returns
    -------
    dict
        ``height`` and ``vertices``; with a topology also ``radius``, ``edge_links``, ``link_packets``,
        ``max_link``, ``max_switch_link``, ``leaf_pairs_max``, ``cross_group``, ``switch_entries``, ``latency_us``
        (eq. 2; None when an edge has no route) and ``flags`` (the edges without a route).

    Raises
    ------
    SpecError
        When the tree is not mapped on ``topo`` (``tree.node`` unset, or a node outside it) and no placement maps
        it.

    References
    ----------
    [AGGT24] Chen Shuping, Wei Hongmei, Wang Fei, Li Yi, He Wangquan, Qi Fengbin, "Method to Create Aggregate Tree
    for Hardware Supported Collectives", Journal of Computer Research and Development, 61(2): 503–517, 2024, DOI
    [10.7544/issn1000-1239.202220684](https://doi.org/10.7544/issn1000-1239.202220684). Eq. 2 (latency), section 5
    (the metrics).

    [OPENSM] OpenSM, the InfiniBand subnet manager (https://github.com/linux-rdma/opensm,
    ``doc/current-routing.txt``; software, no DOI). Min-hop routes.

    Examples
    --------
    >>> from vizcoll.comm import place
    >>> from vizcoll.topology import from_spec
    >>> from vizcoll.trees.typeone import knomial_tree
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> m = tree_metrics(knomial_tree(8, 2), topo, place(topo, 8))
    >>> m["height"], m["radius"], m["edge_links"]
    (3, 10, 20)
    """
    out: dict = {"height": tree.height, "vertices": tree.size}
    if topo is None:
        if levels is not None:
            out["cross_group"] = {name: cross_group_packets(tree, ids) for name, ids in levels.items()}
        out["latency_us"] = None
        return out
    rows = ports.rows
    if placement is not None:
        ranks = vertex_ranks(tree)
        tree = map_tree(tree, placement, ranks)
        if rows is None and ports.per_port:
            rows = process_ports(topo, placement)[ranks]
    node = _check_mapped(tree, topo)
    rows = None if rows is None else np.asarray(rows, dtype=np.int64)
    routes = flat_edge_routes(tree, topo, Router(topo, table), rows, progress)
    out.update(_route_metrics(tree, topo, node, rows, routes, levels, latency, out["height"]))
    return out


def _route_metrics(
    tree: Tree,
    topo: Topology,
    node: np.ndarray,
    ports: np.ndarray | None,
    routes: FlatRoutes,
    levels: Mapping[str, Sequence[int]] | None,
    latency: LatencyModel,
    height: int,
) -> dict:
    """The metrics of a mapped tree of ``height`` whose edges take ``routes`` (see :func:`tree_metrics`)."""
    out: dict = {}
    k = latency.k if latency.k is not None else max(map(len, tree.children), default=0)
    flat, parent = routes, np.asarray(tree.parent)
    count = flat.per_link(topo.n_links)
    radius = tree_radius(tree, flat.length)
    levels = levels if levels is not None else _default_levels(node, ports, topo)
    out.update(
        {
            "radius": radius,
            "edge_links": int(flat.length[flat.length > 0].sum()),
            "link_packets": link_packets(flat, topo),
            "max_link": _busiest(count, topo, False),
            "max_switch_link": _busiest(count, topo, True),
            "leaf_pairs_max": _leaf_pairs(flat, node, topo),
            "cross_group": {name: cross_group_packets(parent, ids) for name, ids in levels.items()},
            "switch_entries": switch_entries(tree, topo),
            "latency_us": None if radius is None else t_aggregate(height, radius, k, latency.params),
            "flags": [
                {"child": v, "parent": tree.parent[v], "reason": "unreachable over live links"}
                for v in np.flatnonzero(flat.length < 0).tolist()
            ],
        }
    )
    return out


# ---------------------------------------------------------------- a type I tree on a fabric, as a page shows it
def vertex_switches(
    topo: Topology, placement: Placement, ranks: Sequence[int], ports: np.ndarray | None = None
) -> np.ndarray:
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


def routes_over(routes: Sequence[list[int] | None] | FlatRoutes, links: Sequence[int]) -> list[dict]:
    """The edges whose route (link ids) uses one of ``links``: ``{"child": v, "links": [ids]}``, by vertex."""
    flat = routes if isinstance(routes, FlatRoutes) else FlatRoutes.of(routes)
    hit = np.isin(flat.rows, np.asarray(list(links), dtype=np.int64))
    pairs = np.unique(np.stack([flat.owner[hit], flat.rows[hit]], axis=1), axis=0)  # by vertex, then link
    bounds = np.r_[np.flatnonzero(np.diff(pairs[:, 0], prepend=-1)), len(pairs)]
    return [
        {"child": int(pairs[lo, 0]), "links": pairs[lo:hi, 1].tolist()}
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
    ]


def mapped_type_one(
    tree: Tree,
    fabric: Topology,
    placement: Placement,
    routing: Routing | None = None,
    *,
    latency: LatencyModel = LatencyModel(),
    broken: Sequence[int] = (),
    progress=None,
    flat: bool = False,
) -> dict:
    """A type I tree mapped on a fabric with its routes and metrics, as plain values (with ``flat``, ``routes`` as
    :class:`~vizcoll.trees.routing.FlatRoutes` of link ids: arrays, not a list per vertex).

    ``fabric`` is the intact fabric: it gives each vertex its switch (through
    the process's own port) and group. The routes are computed on
    ``routing.fabric`` (default ``fabric``; e.g. the fabric with its broken
    links, so that every route avoids them) with ``routing.table``, its
    min-hop table; ``latency`` is eq. 2's model (:func:`tree_metrics`). Returns ``tree``
    (the mapped tree's dict), ``ranks`` (rank of each vertex), ``routes``
    (link ids of each vertex's route to its parent; ``[]`` for the root,
    None without a route), ``switch`` (node index of each vertex's switch),
    ``cross_links`` (``{link id: packets between vertices of different
    groups}``; groups are the ``group`` node attribute when every vertex has
    one, else the switches), ``crossing`` (edges whose route uses a link
    broken in ``routing.fabric`` or listed in ``broken``, link ids: the routes of a
    tree built on the intact fabric that a break would cut;
    :func:`routes_over`, plus ``parent``) and ``metrics``
    (:func:`tree_metrics` on ``routing.fabric``). ``progress(done, total)``, if given, follows the routing of the
    vertices' edges (:func:`edge_routes`).
    """
    table = None if routing is None else routing.table
    routed = fabric if routing is None or routing.fabric is None else routing.fabric
    ranks = vertex_ranks(tree)
    mapped = map_tree(tree, placement, ranks)
    switch = vertex_switches(fabric, placement, ranks)
    group = fabric.attr("group")[placement.node[ranks]]
    group = group if np.all(group >= 0) else switch
    ports = process_ports(routed, placement)[ranks]
    node = _check_mapped(mapped, routed)
    rows = flat_edge_routes(mapped, routed, Router(routed, table), ports, progress)
    metrics = {"height": mapped.height, "vertices": mapped.size}
    metrics.update(_route_metrics(mapped, routed, node, ports, rows, None, latency, metrics["height"]))
    routes = rows.with_values(routed.link_id[rows.rows])
    cut = [*routed.link_id[routed.broken].tolist(), *broken]
    crossing = [c | {"parent": mapped.parent[c["child"]]} for c in routes_over(routes, cut)]
    parent = np.asarray(mapped.parent, dtype=np.int64)
    across = np.flatnonzero((parent >= 0) & (group != group[np.maximum(parent, 0)]))
    count = rows.per_link(routed.n_links, across)
    used = np.flatnonzero(count)
    by_id = np.argsort(routed.link_id[used], kind="stable")
    cross_links = dict(zip(routed.link_id[used][by_id].tolist(), count[used][by_id].tolist(), strict=True))
    return {
        "tree": mapped.to_dict(),
        "ranks": ranks,
        "routes": routes if flat else routes.lists(),
        "switch": switch.tolist(),
        "cross_links": cross_links,
        "crossing": crossing,
        "metrics": metrics,
    }


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
