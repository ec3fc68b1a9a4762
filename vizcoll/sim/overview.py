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
    ``{"steps", "n_bundles", "n_blocks", "bundles", "messages", "blocks", "nodes"}``, plain JSON. Read from the
    timeline's columns, every step at once."""
    pairs, which = link_bundles(topo, part)
    cols, steps = timeline.columns, timeline.event_steps() + 1  # positions: 0 is the initial state
    frames = {"steps": timeline.n_steps, "n_bundles": len(pairs), "n_blocks": len(part)}
    order = np.argsort(topo.link_id, kind="stable")
    sorted_ids = topo.link_id[order]
    at = np.searchsorted(sorted_ids, cols.links)
    known = at < len(sorted_ids)
    known[known] = sorted_ids[at[known]] == cols.links[known]
    crossing = np.repeat(steps, np.diff(cols.link_start))[known]
    frames["bundles"], frames["messages"] = _sparse(crossing, which[order[at[known]]], timeline.n_steps)
    node_of = _node_of(timeline, topo)
    code = {key: i for i, key in enumerate(node_of)}
    changed = np.fromiter((code.get(key, -1) for key in cols.change_key), dtype=np.int64, count=len(cols.change_key))
    at_step = np.repeat(steps, np.diff(cols.change_start))[changed >= 0]
    # a key changing twice in a step counts once, as in the state it leaves (Timeline.changes_at)
    pair = np.unique(at_step * max(len(code), 1) + changed[changed >= 0])
    nodes = np.fromiter(node_of.values(), dtype=np.int64, count=len(node_of))
    block = part.of[nodes[pair % max(len(code), 1)]]
    frames["blocks"], frames["nodes"] = _sparse(pair // max(len(code), 1), block, timeline.n_steps)
    return frames


def _sparse(position: np.ndarray, items: np.ndarray, steps: int) -> tuple[list[list[int]], list[list[int]]]:
    """Per position ``0..steps``, the distinct ``items`` at it (sorted) and how many times each is there."""
    width = int(items.max(initial=0)) + 1
    key, count = np.unique(position.astype(np.int64) * width + items, return_counts=True)
    cut = np.searchsorted(key // width, np.arange(steps + 2))
    index, count = (key % width).tolist(), count.tolist()
    return [index[cut[p] : cut[p + 1]] for p in range(steps + 1)], [
        count[cut[p] : cut[p + 1]] for p in range(steps + 1)
    ]


def _node_of(timeline: Timeline, topo: Topology) -> dict[str, int]:
    """The fabric node of each state key that names one (its name, or an entity's ``"node"``)."""
    keys = dict.fromkeys(timeline.initial_state) | dict.fromkeys(timeline.columns.change_key)
    out = {}
    for key in keys:
        entity = timeline.entities.get(key)
        node = entity.get("node") if isinstance(entity, dict) else None
        if isinstance(node, int) and 0 <= node < topo.n_nodes:
            out[key] = node
        elif key in topo:
            out[key] = topo.index(key)
    return out
