"""A large fabric at a glance: its nodes grouped into blocks, its links into bundles between blocks.

A paper-scale fabric (TaihuLight's 46,144 nodes, a radix-64 fat tree's 70,656) cannot be drawn node by node in a
browser; drawn whole it is a grey blob. Its structure is in the generator's attributes: a *block* is the nodes of
one level (row) of one pod (group): TaihuLight's pod 7 has a block of 256 end nodes, one of 16 leaf switches and
one of 16 spine switches, and its 64 top switches form one block of their own. A *bundle* is every link between
two blocks, with the number of links and the largest and mean value a link of it carries (the EFI, aggregation
packets: :func:`bundles`). A user then drills into one pod or one level: :func:`subfabric` cuts that part out
as a fabric of its own, small enough to draw with every node named.

Which attributes make the blocks (:func:`blocks`):

- ``level`` and ``group`` (fat trees, pruned fat trees): the level is the row, the group the pod;
- ``group`` alone (dragonflies): end nodes and switches of each group;
- ``x``/``y`` (tori and meshes): the switches and end nodes of each z-plane (a 2D grid: each band of rows);
- none (a file): rows by height above the end nodes (as :mod:`vizcoll.topology.layout` draws them), each cut
  into at most :data:`CHUNKS` runs of nodes in drawing order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vizcoll.arrays import unique
from vizcoll.topology.layout import positions
from vizcoll.topology.model import ENDPOINT, Topology

__all__ = ["Blocks", "blocks", "bundles", "subfabric", "CHUNKS"]

CHUNKS = 32  # a row of a fabric without groups is cut into at most this many blocks
ROW_NAMES = {0: "end nodes", 1: "leaf switches", 2: "spine switches", 3: "top switches"}


@dataclass
class Blocks:
    """Nodes grouped into blocks: ``of[node]`` is the node's block; per block its ``level`` (row), ``group``
    (pod; -1 for none), number of nodes ``count``, whether it holds switches (``switches``), its drawing place
    (``x``, ``y``: the mean of its nodes') and a ``name`` for people ("pod 7, leaf switches")."""

    of: np.ndarray
    level: np.ndarray
    group: np.ndarray
    count: np.ndarray
    switches: np.ndarray
    x: np.ndarray
    y: np.ndarray
    names: list[str]

    def __len__(self) -> int:
        return len(self.count)

    def members(self, block: int) -> np.ndarray:
        """The nodes of ``block``."""
        return np.flatnonzero(self.of == block)


def _rows_and_groups(topo: Topology, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """(row, group) of every node and what a group is called."""
    has = lambda key: key in topo.node_attrs and (topo.node_attrs[key] >= 0).mean() > 0.5  # noqa: E731
    is_switch = (topo.kind != ENDPOINT).astype(np.int64)
    group = topo.attr("group").astype(np.int64)
    if has("x") and has("y"):
        y, z = topo.attr("y").astype(np.int64), topo.attr("z").astype(np.int64)
        if (z >= 0).any():
            return is_switch, np.maximum(z, -1), "plane"
        band = max(1, int(np.ceil((y.max() + 1) / CHUNKS)))
        return is_switch, np.where(y >= 0, y // band, -1), "band"
    word = "pod" if "fat-tree" in str(topo.meta.get("generator", "")) else "group"
    if has("level") and (group >= 0).any():
        return topo.node_attrs["level"].astype(np.int64), group, word
    if has("group"):
        return is_switch, group, word
    row = np.unique(np.round(pos[:, 1], 9), return_inverse=True)[1].astype(np.int64).reshape(-1)
    part = np.zeros(topo.n_nodes, dtype=np.int64)
    for r in unique(row):
        members = np.flatnonzero(row == r)
        order = members[np.argsort(pos[members, 0], kind="stable")]
        part[order] = np.arange(len(order)) * CHUNKS // max(len(order), 1)
    return row, part, "part"


def blocks(topo: Topology, pos: np.ndarray | None = None) -> Blocks:
    """The fabric's blocks (see the module), placed at the mean of their nodes' ``pos`` (default
    :func:`~vizcoll.topology.layout.positions`).

    >>> from vizcoll.topology.generators import from_spec
    >>> b = blocks(from_spec("fat-tree:radix=4,levels=3"))
    >>> len(b), b.names[0], int(b.count[0])
    (13, 'pod 0, end nodes', 4)
    """
    pos = positions(topo) if pos is None else np.asarray(pos, dtype=float)
    row, group, word = _rows_and_groups(topo, pos)
    low, width = group.min(initial=0), int(group.max(initial=0) - group.min(initial=0)) + 1
    base = row.min(initial=0)
    codes, of = _distinct((row - base) * width + (group - low), int(row.max(initial=0) - base + 1) * width)
    keys = np.stack([codes // width + base, codes % width + low], axis=1)  # (row, group) of each block, sorted
    count = np.bincount(of, minlength=len(keys))
    x = np.bincount(of, weights=pos[:, 0], minlength=len(keys)) / np.maximum(count, 1)
    y = np.bincount(of, weights=pos[:, 1], minlength=len(keys)) / np.maximum(count, 1)
    switches = np.bincount(of, weights=(topo.kind != ENDPOINT), minlength=len(keys)) > count / 2
    names = []
    for (lv, g), sw in zip(keys.tolist(), switches.tolist(), strict=True):
        what = ROW_NAMES.get(lv, f"level {lv} switches") if word == "pod" else (
            f"row {lv}" if word == "part" else "switches" if sw else "end nodes")
        names.append(f"{word} {g}, {what}" if g >= 0 else what)
    return Blocks(of=of, level=keys[:, 0], group=keys[:, 1], count=count, switches=switches, x=x, y=y,
                  names=names)


def bundles(topo: Topology, part: Blocks, values: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The links between (and inside) blocks, bundled: arrays ``a``, ``b`` (block indices, ``a <= b``),
    ``links`` (links in the bundle), ``broken`` (broken ones), and of ``values`` (one per link row, default 0)
    the ``max`` and ``mean`` over the bundle's links."""
    values = np.zeros(topo.n_links) if values is None else np.asarray(values, dtype=float)
    a, b = part.of[topo.link_a].astype(np.int64), part.of[topo.link_b].astype(np.int64)
    keys, which = _distinct(np.minimum(a, b) * len(part) + np.maximum(a, b), len(part) ** 2)
    pairs = np.stack([keys // len(part), keys % len(part)], axis=1)
    links = np.bincount(which, minlength=len(pairs))
    top = np.full(len(pairs), -np.inf)
    np.maximum.at(top, which, values)
    return {"a": pairs[:, 0], "b": pairs[:, 1], "links": links,
            "broken": np.bincount(which, weights=topo.broken, minlength=len(pairs)).astype(int),
            "max": np.where(links > 0, top, 0.0),
            "mean": np.bincount(which, weights=values, minlength=len(pairs)) / np.maximum(links, 1)}


def _distinct(codes: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` for codes in ``0..bound-1``: by counting when ``bound`` is
    small enough (no sort), else by sorting."""
    if bound > 8 * len(codes) + 1_000_000:
        keys, which = np.unique(codes, return_inverse=True)
        return keys, which.reshape(-1)
    present = np.zeros(bound, dtype=bool)
    present[codes] = True
    return np.flatnonzero(present), (np.cumsum(present) - 1)[codes]


def subfabric(topo: Topology, nodes) -> tuple[Topology, np.ndarray, np.ndarray]:
    """The fabric made of ``nodes`` and the links between them: ``(sub, kept, rows)`` with ``kept`` the
    parent's index of each node of ``sub`` and ``rows`` the parent's link row of each link of ``sub``. Names,
    ports, link ids, breaks, attributes and descriptions are the parent's, so a link of ``sub`` has the same
    ``a[pa]-b[pb]`` label (a click on it names the parent's link)."""
    kept = unique(np.asarray(nodes, dtype=np.int64))
    index = np.full(topo.n_nodes, -1, dtype=np.int64)
    index[kept] = np.arange(len(kept))
    rows = np.flatnonzero((index[topo.link_a] >= 0) & (index[topo.link_b] >= 0))
    sub = Topology.from_arrays(
        [topo.names[i] for i in kept.tolist()], topo.kind[kept], topo.nports[kept],
        np.stack([index[topo.link_a[rows]], topo.link_pa[rows], index[topo.link_b[rows]], topo.link_pb[rows]],
                 axis=1),
        node_attrs={k: v[kept] for k, v in topo.node_attrs.items()},
        link_attrs={k: v[rows] for k, v in topo.link_attrs.items()}, meta=dict(topo.meta), validate=False)
    sub.link_id = topo.link_id[rows].copy()
    sub.broken = topo.broken[rows].copy()
    if topo.desc is not None:
        sub.desc = [topo.desc[i] for i in kept.tolist()]
    return sub, kept, rows
