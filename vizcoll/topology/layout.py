"""Node positions for drawing a topology, chosen by what the generator knows.

- fat trees and other levelled fabrics: one row per level (top switches at the
  top, end nodes at the bottom), nodes of a row spread evenly, ordered so that
  a pod's switches sit above its end nodes;
- tori and meshes: their grid coordinates (a 3D torus is drawn as its z-planes
  tiled in a square), each end node just below its switch;
- dragonflies: groups on a big circle, a group's switches on a small circle,
  end nodes around their switch;
- anything else (files, hand-drawn fabrics): fabrics with end nodes layered
  by height (end nodes at the bottom, each switch one row above the nearest
  end node's), each row ordered by the mean place of its neighbors in the row
  below, so that cables cross little; graphs of switches only (Internet
  Topology Zoo) by a force layout that starts from the same place every time
  (networkx's Kamada–Kawai, or its spring layout with a fixed seed).

**Edits keep the drawing** (:func:`edited_positions`): the scenario's fabric
is drawn from its source (the generated or uploaded fabric), then every edit
is replayed on the positions: a removed or renamed node takes nothing from the
others, a new node waits right of the drawing until its first link places it
next to what it connects to (below a switch for an end node), on the first
free spot.

Positions are in arbitrary units, y growing upwards.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np
from scipy.spatial import cKDTree

from vizcoll.arrays import unique
from vizcoll.topology.model import ENDPOINT, Topology

__all__ = ["positions", "edited_positions", "unit", "stretched"]


def positions(topo: Topology) -> np.ndarray:
    """An ``(n, 2)`` float array of node positions for drawing ``topo``."""
    generator = str(topo.meta.get("generator") or "")
    if topo.n_nodes == 0:
        return np.zeros((0, 2))
    has = lambda key: key in topo.node_attrs and np.all(topo.node_attrs[key] >= 0)  # noqa: E731
    if generator.startswith("dragonfly") and has("group"):
        return _dragonfly(topo)
    if has("x") and has("y"):
        return _grid(topo)
    if has("level"):
        return _levels(topo, topo.node_attrs["level"])
    return _fallback(topo)


def _spread(keys: np.ndarray) -> np.ndarray:
    """x positions 0..1 for the nodes of one row, in the order of ``keys``."""
    order = np.argsort(keys, kind="stable")
    x = np.empty(len(keys))
    x[order] = (np.arange(len(keys)) + 0.5) / max(len(keys), 1)
    return x


def _levels(topo: Topology, level: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """Rows by level, each spread over the full width, in the order of ``order`` (default: grouped by pod). When
    switches serve more than :data:`ROW_HOSTS` end nodes each, the end nodes go in a small block under their
    switch (:func:`_host_blocks`) instead of one row many times wider than the switches'."""
    pos = np.zeros((topo.n_nodes, 2))
    if order is None:
        group = topo.attr("group").astype(np.int64)
        order = np.where(group >= 0, group, 0) * topo.n_nodes + np.arange(topo.n_nodes)
    hosts, switch_of = _hosts_under_switches(topo, level)
    cols = int(np.ceil(np.sqrt(len(hosts) / max(len(unique(switch_of)), 1)))) if len(hosts) else 1
    blocks = len(hosts) > ROW_HOSTS * max(len(unique(switch_of)), 1)
    in_rows = np.ones(topo.n_nodes, dtype=bool)
    if blocks:
        in_rows[hosts] = False  # a mask, not setdiff1d: faster on a million nodes (measured: docs/design.md)
    in_rows = np.flatnonzero(in_rows)
    rows = unique(level[in_rows])
    counts = np.bincount(level[in_rows] - level.min())
    width = max(int(counts.max()), len(unique(switch_of)) * (cols + 1) if blocks else 1, 1)
    gap = max(2.0 + (cols if blocks else 0), width / (1.5 * (len(rows) + blocks)))
    for lv in rows:
        row = in_rows[level[in_rows] == lv]
        pos[row, 0] = _spread(order[row]) * width
        pos[row, 1] = lv * gap
    if blocks:
        _host_blocks(pos, hosts, switch_of, cols)
    return pos


ROW_HOSTS = 4  # end nodes per switch drawn in one row with the others; more: a block under their switch


def _hosts_under_switches(topo: Topology, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The end nodes of the lowest row that hang from a switch, and that switch (their first one)."""
    low = (topo.kind == ENDPOINT) & (level == level.min())
    a, b = np.r_[topo.link_a, topo.link_b], np.r_[topo.link_b, topo.link_a]
    edge = low[a] & (topo.kind[b] != ENDPOINT)
    first = np.full(topo.n_nodes, -1, dtype=np.int64)
    first[a[edge][::-1]] = b[edge][::-1]  # the first listed switch wins
    hosts = np.flatnonzero(low & (first >= 0))
    return hosts, first[hosts]


def _host_blocks(pos: np.ndarray, hosts: np.ndarray, switch_of: np.ndarray, cols: int) -> None:
    """Each switch's end nodes in rows of ``cols`` under it, one unit apart, starting 2.5 units below the lowest
    switch row (room for the switches' captions)."""
    top = pos[switch_of, 1].min() - 2.5
    order = np.lexsort((hosts, switch_of))
    hosts, switch_of = hosts[order], switch_of[order]
    slot = np.arange(len(hosts)) - np.searchsorted(switch_of, switch_of)
    pos[hosts, 0] = pos[switch_of, 0] + (slot % cols) - (cols - 1) / 2
    pos[hosts, 1] = top - slot // cols


def _grid(topo: Topology) -> np.ndarray:
    x, y = topo.node_attrs["x"].astype(float), topo.node_attrs["y"].astype(float)
    if "z" in topo.node_attrs:  # z-planes tiled in a near-square grid of planes
        z = topo.node_attrs["z"]
        per_row = int(np.ceil(np.sqrt(z.max() + 1)))
        x = x + (z % per_row) * (x.max() + 2)
        y = y + (z // per_row) * (y.max() + 2)
    pos = np.stack([x * 2.0, -y * 2.0], axis=1)
    hosts = np.flatnonzero(topo.kind == ENDPOINT)
    if len(hosts):
        slot = _slot_in_switch(topo, hosts)
        pos[hosts, 0] += 0.5 + 0.35 * slot
        pos[hosts, 1] -= 0.7
    return pos


def _slot_in_switch(topo: Topology, hosts: np.ndarray) -> np.ndarray:
    """0, 1, 2... for the end nodes that share the same coordinates."""
    keys = np.stack([topo.attr(k)[hosts] for k in ("x", "y", "z")], axis=1)
    _, inverse = np.unique(keys, axis=0, return_inverse=True)
    slot = np.zeros(len(hosts))
    for value in unique(inverse):
        members = np.flatnonzero(inverse == value)
        slot[members] = np.arange(len(members))
    return slot


def _dragonfly(topo: Topology) -> np.ndarray:
    """Groups on a big circle; in a group, end nodes on an outer ring next to their switch."""
    group, local = topo.node_attrs["group"], topo.attr("local")
    n_groups, a = int(group.max()) + 1, int(local.max()) + 1
    is_host = topo.kind == ENDPOINT
    p = max(1, int(round(is_host.sum() / max(1, (~is_host).sum()))))
    ring = max(1.5, a * p / (2 * np.pi))  # end nodes about one unit apart
    big = (ring + 1.5) / np.sin(np.pi / max(n_groups, 2))
    slot = np.zeros(topo.n_nodes)
    hosts = np.flatnonzero(is_host)
    slot[hosts] = np.arange(len(hosts)) % p
    frac = np.where(is_host, local * p + slot + 0.5, local * p + p / 2) / (a * p)
    angle_g = 2 * np.pi * group / n_groups
    angle = angle_g + np.pi + 2 * np.pi * frac
    radius = np.where(is_host, ring, 0.55 * ring)
    centre = np.stack([np.cos(angle_g), np.sin(angle_g)], axis=1) * big
    return centre + np.stack([np.cos(angle), np.sin(angle)], axis=1) * radius[:, None]


def _fallback(topo: Topology) -> np.ndarray:
    if 0 < len(topo.endpoints) < topo.n_nodes:
        return _levels(topo, _height_levels(topo), _barycentric_order(topo, _height_levels(topo)))
    if topo.n_nodes <= 300:
        graph = nx.Graph()
        graph.add_nodes_from(range(topo.n_nodes))
        graph.add_edges_from(zip(topo.link_a.tolist(), topo.link_b.tolist(), strict=True))
        layout = nx.kamada_kawai_layout(graph) if nx.is_connected(graph) else nx.spring_layout(graph, seed=0)
        return np.array([layout[i] for i in range(topo.n_nodes)]) * 10
    return _levels(topo, _height_levels(topo))


def _height_levels(topo: Topology) -> np.ndarray:
    """Level = 0 for end nodes, otherwise 1 + hops to the nearest end node (BFS)."""
    from scipy.sparse.csgraph import dijkstra

    ends = topo.endpoints if len(topo.endpoints) else np.array([0])
    dist = dijkstra(topo.adjacency(include_broken=True), unweighted=True, indices=ends, min_only=True)
    dist = np.where(np.isfinite(dist), dist, 0).astype(int)
    return np.where(topo.kind == ENDPOINT, 0, np.maximum(dist, 1))


def _barycentric_order(topo: Topology, level: np.ndarray) -> np.ndarray:
    """A sort key per node: row 1 (the switches next to end nodes) in file order, the end nodes under their
    switch, each higher row by the mean key of its neighbors one row below (one barycentric sweep)."""
    key = np.arange(topo.n_nodes, dtype=float)
    a, b = np.r_[topo.link_a, topo.link_b], np.r_[topo.link_b, topo.link_a]
    ends = topo.kind[a] == ENDPOINT
    np.minimum.at(key, a[ends], key[b[ends]] + (a[ends] + 1) / (topo.n_nodes + 1))  # under their first switch
    for lv in range(2, int(level.max(initial=0)) + 1):
        below = (level[a] == lv) & (level[b] == lv - 1)
        total, count = np.zeros(topo.n_nodes), np.zeros(topo.n_nodes)
        np.add.at(total, a[below], key[b[below]])
        np.add.at(count, a[below], 1)
        row = np.flatnonzero((level == lv) & (count > 0))
        key[row] = total[row] / count[row]
    return key


def stretched(pos: np.ndarray, aspect: float = 0.8) -> np.ndarray:
    """``pos`` made at least ``aspect`` times as high as wide (rows pulled apart), for a part of a fabric drawn
    alone in a figure of about that shape (a pod of 256 end nodes is otherwise a thin strip)."""
    pos = np.asarray(pos, dtype=float)
    if len(pos) < 2:
        return pos
    span = pos.max(axis=0) - pos.min(axis=0)
    if span[1] <= 0 or span[1] >= aspect * span[0]:
        return pos
    return np.c_[pos[:, 0], pos.min(axis=0)[1] + (pos[:, 1] - pos.min(axis=0)[1]) * aspect * span[0] / span[1]]


# ---------------------------------------------------------------- edits
def unit(pos: np.ndarray) -> float:
    """The drawing's unit: the distance from a node to its nearest neighbor in the most crowded rows (the 10th
    percentile of those distances; 1 for fewer than 2 nodes)."""
    if len(pos) < 2:
        return 1.0
    dist, _ = cKDTree(pos).query(pos, k=2)
    return float(np.percentile(dist[:, 1], 10)) or 1.0


def _around(rings: int = 8) -> np.ndarray:
    """Offsets around a node, nearest first, and among equals below first, then right, left, above."""
    offsets = [(dx, dy) for dy in range(-rings, rings + 1) for dx in range(-rings, rings + 1) if dx or dy]
    return np.array(
        sorted(offsets, key=lambda o: (max(abs(o[0]), abs(o[1])), o[1] >= 0, abs(o[0]), -o[0], -o[1])), dtype=float
    )


AROUND = _around()


def _free_spot(taken: np.ndarray, centre: np.ndarray, step: float, within: np.ndarray | None = None) -> np.ndarray:
    """The first spot around ``centre`` (in :data:`AROUND` order, ``step`` apart) with no node of ``taken``
    closer than 0.9 step (in x or in y); only spots inside the box ``within`` (``[[x0, y0], [x1, y1]]``) when
    one of them is free."""
    spots = centre + AROUND * step
    if within is not None:
        inside = np.all((spots >= within[0] - 1e-9) & (spots <= within[1] + 1e-9), axis=1)
        spots = np.r_[spots[inside], spots[~inside]]
    if len(taken) == 0:
        return spots[0]
    near = np.abs(spots[:, None, :] - taken[None, :, :]).max(axis=2).min(axis=1)
    free = np.flatnonzero(near >= 0.9 * step)
    return spots[free[0]] if len(free) else spots[-1]


def edited_positions(base: Topology, edits: Sequence[dict], topo: Topology) -> np.ndarray:
    """Positions of ``topo`` = ``base`` after ``edits``, every node of ``base`` where :func:`positions` drew it.

    A node added by an edit is *parked* on the first free spot inside the drawing near its bottom right corner
    (at the height of its kind's lowest row; the first of its kind just below the lowest row) until an
    ``add_link`` joins it to a placed node: then it moves to the first free spot next to that node (below it
    first). Removing, renaming and linking placed nodes moves nobody. Edits are replayed by name, as
    :func:`vizcoll.scenario.apply_edit` does; one that does not apply (the scenario checked it) is skipped.
    """
    pos = positions(base)
    step = unit(pos)
    where = dict(zip(base.names, map(tuple, pos), strict=True))
    kinds = dict(zip(base.names, base.kind.tolist(), strict=True))
    parked: set[str] = set()
    for edit in edits:
        op, name = edit.get("op"), edit.get("name")
        if op == "add_node" and isinstance(name, str):
            kind = ENDPOINT if edit.get("kind") in ("endpoint", ENDPOINT) else 1 - ENDPOINT
            same = [y for n, (_, y) in where.items() if kinds.get(n) == kind]
            taken = np.array(list(where.values())).reshape(-1, 2)
            box = np.array([taken.min(axis=0), taken.max(axis=0)]) if len(taken) else None
            low = box[0, 1] if box is not None else 0.0  # none of its kind yet: the spot below the lowest row
            corner = np.array([box[1, 0] if box is not None else 0.0, min(same) if same else low])
            where[name], kinds[name] = tuple(_free_spot(taken, corner, step, box)), kind
            parked.add(name)
        elif op == "remove_node":
            where.pop(name, None)
            parked.discard(name)
        elif op == "rename" and name in where:
            where[edit.get("new")] = where.pop(name)
            kinds[edit.get("new")] = kinds.get(name)
            if name in parked:
                parked.discard(name)
                parked.add(edit.get("new"))
        elif op == "add_link":
            _place_linked(where, parked, edit.get("a"), edit.get("b"), step)
    fallback = np.array([max((x for x, _ in where.values()), default=0.0) + step, 0.0])
    return np.array([where.get(n, fallback) for n in topo.names], dtype=float).reshape(-1, 2)


def _place_linked(where: dict, parked: set, a, b, step: float) -> None:
    """A link from a parked node to a placed one (or to another parked one) places the parked node next to it."""
    for new, old in ((a, b), (b, a)):
        if new in parked and old in where and new != old and (old not in parked or a == new):
            others = np.array([p for n, p in where.items() if n != new])
            where[new] = tuple(_free_spot(others, np.array(where[old]), step))
            parked.discard(new)
            return
