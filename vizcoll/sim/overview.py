"""A timeline seen on a fabric's overview: per step, the messages crossing each bundle and the busy nodes of each
block.

A paper-scale fabric is drawn as blocks of nodes and bundles of links (:mod:`vizcoll.topology.blocks`); a
player animates any :class:`~vizcoll.sim.timeline.Timeline` on it by lighting, at each step, the bundles its
messages cross (how many messages cross each) and the blocks whose nodes change state (how many do). The
frames are computed once on the server and drawn in the browser, so that a step of the slider is instant.

:func:`overview_frames` gives, for every player position (0 = the initial state, ``p`` = after step ``p - 1``),
the sparse lists ``bundles[p]`` / ``messages[p]`` (bundle indices in :func:`~vizcoll.topology.blocks.bundles`'
order and the messages crossing each) and ``blocks[p]`` / ``nodes[p]`` (block indices and the nodes of each
whose state changes). A message's links are its events' ``path_links`` (stable link ids; a link the fabric does
not have, e.g. removed since, is skipped); a node is a state key naming a fabric node (or an entity with a
``"node"``).

>>> from vizcoll.sim.broadcast import broadcast
>>> from vizcoll.topology.blocks import blocks
>>> from vizcoll.topology.generators import from_spec
>>> topo = from_spec("fat-tree:radix=4,levels=3")
>>> frames = overview_frames(broadcast(topo, "h0"), topo, blocks(topo))
>>> len(frames["bundles"]) == frames["steps"] + 1 and frames["bundles"][0] == []
True
>>> sum(map(sum, frames["messages"]))  # every link of the shortest-path tree is crossed once
35
"""

from __future__ import annotations

import numpy as np

from vizcoll.sim.timeline import Timeline
from vizcoll.topology.blocks import Blocks, link_bundles
from vizcoll.topology.model import Topology

__all__ = ["overview_frames"]


def overview_frames(timeline: Timeline, topo: Topology, part: Blocks) -> dict:
    """The frames of ``timeline`` on the overview ``part`` of ``topo`` (see the module docstring):
    ``{"steps", "n_bundles", "n_blocks", "bundles", "messages", "blocks", "nodes"}``, plain JSON."""
    pairs, which = link_bundles(topo, part)
    order = np.argsort(topo.link_id, kind="stable")
    sorted_ids = topo.link_id[order]
    node_of = _node_of(timeline, topo)
    frames = {
        "steps": timeline.n_steps,
        "n_bundles": len(pairs),
        "n_blocks": len(part),
        "bundles": [[]],
        "messages": [[]],
        "blocks": [[]],
        "nodes": [[]],
    }
    for step in range(timeline.n_steps):
        ids = np.fromiter((lid for e in timeline.active_at(step) for lid in e.path_links), dtype=np.int64)
        at = np.searchsorted(sorted_ids, ids)
        known = at < len(sorted_ids)
        known[known] = sorted_ids[at[known]] == ids[known]
        _add(frames, "bundles", "messages", which[order[at[known]]])
        nodes = [node_of[key] for key in timeline.changes_at(step) if key in node_of]
        _add(frames, "blocks", "nodes", part.of[np.asarray(nodes, dtype=np.int64)])
    return frames


def _add(frames: dict, where: str, how_many: str, items: np.ndarray) -> None:
    """Append one position's sparse counts of ``items`` (bundle or block indices) to ``frames``."""
    index, count = np.unique(items, return_counts=True)
    frames[where].append(index.tolist())
    frames[how_many].append(count.tolist())


def _node_of(timeline: Timeline, topo: Topology) -> dict[str, int]:
    """The fabric node of each state key that names one (its name, or an entity's ``"node"``)."""
    keys = set(timeline.initial_state)
    for step in range(timeline.n_steps):
        keys.update(timeline.changes_at(step))
    out = {}
    for key in keys:
        node = timeline.entities.get(key, {}).get("node") if isinstance(timeline.entities.get(key), dict) else None
        if isinstance(node, int) and 0 <= node < topo.n_nodes:
            out[key] = node
        elif key in topo:
            out[key] = topo.index(key)
    return out
