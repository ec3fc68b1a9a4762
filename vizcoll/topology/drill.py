"""Drilling into a large fabric level by level: a rail, one of its pods, one leaf switch with its end nodes.

A fabric whose generator nests its groups (``meta["nesting"]``, ``[[attribute, word], ...]``: a rail fabric's rails
hold pods, a pod holds leaf switches, :mod:`vizcoll.topology.rails`) is drilled into along a *path* of group
numbers: ``(3,)`` is rail 3 (node attribute ``group`` = 3), ``(3, 5)`` its pod 5 (``pod`` = 5 inside rail 3),
``(3, 5, 17)`` leaf 17 of that pod with its NICs. :func:`members` says which nodes a path holds, with the switches
of no group of its level it is linked to (a pod's top switches, a leaf's spines); :func:`focus` cuts the *whole*
fabric into blocks that show the path's members by the next level's groups and every other node as one block, so
that whatever is drawn on a fabric's overview (its bundles' values, a player's frames:
:mod:`vizcoll.topology.blocks`, :mod:`vizcoll.sim.overview`) is drawn on a part of it unchanged.
"""

from __future__ import annotations

import numpy as np

from vizcoll.arrays import unique
from vizcoll.topology.blocks import Blocks
from vizcoll.topology.model import ENDPOINT, Topology

__all__ = ["levels", "members", "linked", "children", "focus", "path_text"]


def levels(topo: Topology) -> list[tuple[str, str]]:
    """``(attribute, word)`` of each level a path goes down: ``("group", "rail")``, then the fabric's nesting."""
    word = topo.meta.get("group_word") or "group"
    return [("group", word), *((str(key), str(name)) for key, name in topo.meta.get("nesting") or [])]


def _inside(topo: Topology, path: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(the nodes of ``path``, those of its parent path) as masks, without the linked switches."""
    inside = parent = np.ones(topo.n_nodes, dtype=bool)
    for (key, _), value in zip(levels(topo), path, strict=False):
        parent, inside = inside, inside & (topo.attr(key) == value)
    return inside, parent


def members(topo: Topology, path: tuple[int, ...]) -> np.ndarray:
    """The nodes ``path`` holds (a mask): its own, and the nodes of its parent that belong to no group of its level
    and are linked to one of them (a pod's top switches). ValueError for a path longer than the fabric's levels."""
    if not 1 <= len(path) <= len(levels(topo)):
        raise ValueError(f"a path of this fabric has 1 to {len(levels(topo))} levels, not {len(path)}")
    inside, parent = _inside(topo, path)
    ungrouped = parent & (topo.attr(levels(topo)[len(path) - 1][0]) < 0)
    return inside | (linked(topo, inside) & ungrouped)


def linked(topo: Topology, nodes: np.ndarray) -> np.ndarray:
    """The nodes linked to one of ``nodes`` (masks)."""
    out = np.zeros(topo.n_nodes, dtype=bool)
    out[topo.link_b[nodes[topo.link_a]]] = True
    out[topo.link_a[nodes[topo.link_b]]] = True
    return out


def children(topo: Topology, path: tuple[int, ...]) -> dict[int, int]:
    """The groups one level below ``path`` (the fabric's own groups for ``()``) and the nodes of each."""
    if len(path) >= len(levels(topo)):
        return {}
    inside, _ = _inside(topo, path)
    values = topo.attr(levels(topo)[len(path)][0])[inside].astype(np.int64)
    values = values[values >= 0]
    found, counts = np.unique(values, return_counts=True)
    return dict(zip(found.tolist(), counts.tolist(), strict=True))


def path_text(topo: Topology, path: tuple[int, ...]) -> str:
    """``"rail 3, pod 5, leaf 17"``."""
    return ", ".join(f"{word} {value}" for (_, word), value in zip(levels(topo), path, strict=False))


def focus(topo: Topology, path: tuple[int, ...], prefix: str = "") -> Blocks:
    """Blocks of the whole fabric showing ``path``'s members (:func:`members`) by level and by the groups of the
    next level (each block's ``group``), every other node in one block ("the rest of the fabric", group -1).
    Drawn as a grid: a column per group in its order, the blocks of no group (a pod's top switches) in the middle,
    the rest of the fabric right of them on the top row. ``prefix`` is the blocks' ``path`` (the part a click on
    one drills into is ``prefix + "group:N"``).

    >>> from vizcoll.topology.generators import from_spec
    >>> part = focus(from_spec("rail-fat-tree:servers=64,rails=2,radix=8"), (1,))
    >>> part.names[0], part.names[-1], int(part.count[-1])
    ('pod 0, end nodes', 'the rest of the fabric', 112)
    """
    key, word = levels(topo)[len(path)]
    held = members(topo, path)
    row = topo.attr("level").astype(np.int64)
    rest = int(row.max(initial=0)) + 1
    width = topo.n_nodes + 1
    codes = np.where(held, row * width + topo.attr(key).astype(np.int64) + 1, rest * width)
    keys, of = np.unique(codes, return_inverse=True)
    level, group = keys // width, keys % width - 1
    count = np.bincount(of, minlength=len(keys))
    switches = np.bincount(of, weights=topo.kind != ENDPOINT, minlength=len(keys)) > count / 2
    rows = {int(lv): "end nodes" if lv == 0 else f"level {lv} switches" for lv in unique(level[level < rest])}
    names = [
        f"{word} {g}, {rows[lv]}" if g >= 0 else rows.get(lv, "")
        for lv, g in zip(level.tolist(), group.tolist(), strict=True)
    ]
    columns = unique(group[group >= 0])
    x = np.where(group >= 0, np.searchsorted(columns, group), (len(columns) - 1) / 2).astype(float)
    if level[-1] == rest:  # the rest of the fabric: right of the part, on its top row
        names[-1], group[-1] = "the rest of the fabric", -1
        x[-1], level[-1] = len(columns) + 1.0, int(level[:-1].max(initial=0))
    return Blocks(
        of=of,
        level=level,
        group=group,
        count=count,
        switches=switches,
        x=x,
        y=level.astype(float),
        names=names,
        rows=rows,
        path=prefix,
    )
