"""Node positions for drawing a topology, chosen by what the generator knows.

- fat trees and other levelled fabrics: one row per level (top switches at the
  top, end nodes at the bottom), nodes of a row spread evenly, ordered so that
  a pod's switches sit above its end nodes;
- tori and meshes: their grid coordinates (a 3D torus is drawn as its z-planes
  tiled in a square), each end node just below its switch;
- dragonflies: groups on a big circle, a group's switches on a small circle,
  end nodes around their switch;
- anything else (files, hand-drawn fabrics): layered by hop distance from the
  switches with the most links (small graphs: networkx's spring layout).

Positions are in arbitrary units, y growing upwards.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from vizcoll.topology.model import ENDPOINT, Topology

__all__ = ["positions"]


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


def _levels(topo: Topology, level: np.ndarray) -> np.ndarray:
    """Rows by level, each spread over the full width, grouped by pod."""
    pos = np.zeros((topo.n_nodes, 2))
    group = topo.attr("group").astype(np.int64)
    rows = np.unique(level)
    width = max(int(np.bincount(level - level.min()).max()), 1)
    gap = max(2.0, width / (1.5 * len(rows)))
    for lv in rows:
        row = np.flatnonzero(level == lv)
        key = np.where(group[row] >= 0, group[row], 0) * topo.n_nodes + np.arange(len(row))
        pos[row, 0] = _spread(key) * width
        pos[row, 1] = lv * gap
    return pos


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
    for value in np.unique(inverse):
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
    if topo.n_nodes <= 300:
        graph = nx.Graph()
        graph.add_nodes_from(range(topo.n_nodes))
        graph.add_edges_from(zip(topo.link_a.tolist(), topo.link_b.tolist(), strict=True))
        layout = nx.kamada_kawai_layout(graph) if nx.is_connected(graph) else nx.spring_layout(graph, seed=0)
        return np.array([layout[i] for i in range(topo.n_nodes)]) * 10
    return _levels(topo, _height_levels(topo))


def _height_levels(topo: Topology) -> np.ndarray:
    """Level = 0 for end nodes, otherwise 1 + hops to the nearest end node (BFS)."""
    from scipy.sparse.csgraph import shortest_path

    ends = topo.endpoints if len(topo.endpoints) else np.array([0])
    dist = shortest_path(topo.adjacency(include_broken=True), unweighted=True, indices=ends, min_only=True)
    dist = np.where(np.isfinite(dist), dist, 0).astype(int)
    return np.where(topo.kind == ENDPOINT, 0, np.maximum(dist, 1))
