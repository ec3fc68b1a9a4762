"""A large fabric at a glance: its nodes grouped into blocks, its links into bundles between blocks.

A paper-scale fabric (TaihuLight's 46,144 nodes, a radix-64 fat tree's 70,656) cannot be drawn node by node in a
browser; drawn whole it is a grey blob. A *block* is the nodes of one row (tier) of one group: TaihuLight's pod
7 has a block of 256 end nodes, one of 16 leaf switches and one of 16 spine switches, and its 64 top switches
form one block of their own. A *bundle* is every link between two blocks, with the number of links, the largest
and mean value a link of it carries (the EFI, aggregation packets) and its hottest cables, each named and with
its own value (:func:`bundles`). A user then drills into one group: :func:`subfabric` cuts that part out as a
fabric of its own, small enough to draw with every node named.

Rows and blocks come from what the fabric knows (:func:`blocks`):

- ``level`` and ``group`` (fat trees, pruned fat trees): the level is the row, the group the pod; only a fabric
  a fat-tree generator made (``meta["generator"]`` ``fat-tree…``/``pruned-fat-tree…``) has rows named "leaf",
  "spine" and "top switches" (:data:`ROW_NAMES`): they are true there, and nowhere else;
- ``group`` alone (dragonflies): end nodes and switches of each group;
- ``x``/``y`` (tori and meshes): the switches and end nodes of each z-plane (a 2D grid: each band of rows);
- none (a file, e.g. ibnetdiscover): rows from the graph itself (:func:`tiers`): end nodes, edge switches (tier
  1: the switches linked to an end node), tier 2, 3... by hops from tier 1. An edge switch and the end nodes
  under it form a group, as a pod does (so that a group drawn alone is a leaf with its hosts and its uplinks);
  switches of a higher tier whose descriptions name one chassis (:func:`chassis`: the ASICs of a director
  switch) form one block, and the other switches of a tier are cut into at most :data:`CHUNKS` runs in drawing
  order.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from vizcoll.arrays import unique
from vizcoll.topology.layout import positions
from vizcoll.topology.model import ENDPOINT, Topology

__all__ = [
    "Blocks",
    "blocks",
    "bundles",
    "link_bundles",
    "tiers",
    "chassis",
    "subfabric",
    "CHUNKS",
    "EDGE_GROUPS",
    "LISTED",
    "ROW_NAMES",
]

CHUNKS = 32  # a row of switches that no group or chassis holds is cut into at most this many blocks
EDGE_GROUPS = 200  # a file's edge switches form at most this many groups (more: runs of neighbouring ones)
LISTED = 10  # cables a bundle lists by name, hottest first (the others are counted)
ROW_NAMES = {0: "end nodes", 1: "leaf switches", 2: "spine switches", 3: "top switches"}  # fat-tree generators only
_DESCRIPTION = re.compile(r"(?:[^;:/]*;)?(?P<host>[^:/]+)(?::[^/]*)?(?P<rest>/.*)?")


@dataclass
class Blocks:
    """Nodes grouped into blocks: ``of[node]`` is the node's block; per block its ``level`` (row), ``group``
    (pod, edge group...; -1 for none), number of nodes ``count``, whether it holds switches (``switches``), its
    drawing place (``x``, ``y``: the mean of its nodes') and a ``name`` for people ("pod 7, leaf switches");
    ``path``: the part its groups belong to (empty: the fabric; see :mod:`vizcoll.topology.drill`);
    ``rows`` names each row ("end nodes", "edge switches (tier 1)", "tier 2"...)."""

    of: np.ndarray
    level: np.ndarray
    group: np.ndarray
    count: np.ndarray
    switches: np.ndarray
    x: np.ndarray
    y: np.ndarray
    names: list[str]
    rows: dict[int, str] = field(default_factory=dict)
    path: str = ""  # a block of group N drills into part path + "group:N" (a part's parts: vizcoll.topology.drill)

    def __len__(self) -> int:
        return len(self.count)

    def members(self, block: int) -> np.ndarray:
        """The nodes of ``block``."""
        return np.flatnonzero(self.of == block)


@dataclass
class _Cut:
    """Per node its ``row``, its block ``sub`` within the row and its ``group`` (-1: none); ``rows`` names the
    rows and ``name(row, sub, switches)`` a block."""

    row: np.ndarray
    sub: np.ndarray
    group: np.ndarray
    rows: dict[int, str]
    name: Callable[[int, int, bool], str]


def _generated(topo: Topology, pos: np.ndarray) -> _Cut | None:
    """The cut of a fabric whose generator attributes say its rows and groups (None for a file)."""
    has = lambda key: key in topo.node_attrs and (topo.node_attrs[key] >= 0).mean() > 0.5  # noqa: E731
    is_switch = (topo.kind != ENDPOINT).astype(np.int64)
    group = topo.attr("group").astype(np.int64)
    plain = {0: "end nodes", 1: "switches"}
    if has("x") and has("y"):
        y, z = topo.attr("y").astype(np.int64), topo.attr("z").astype(np.int64)
        if (z >= 0).any():
            row, group, word = is_switch, np.maximum(z, -1), "plane"
        else:
            band = max(1, int(np.ceil((y.max() + 1) / CHUNKS)))
            row, group, word = is_switch, np.where(y >= 0, y // band, -1), "band"
    elif has("level") and (group >= 0).any():
        row = topo.node_attrs["level"].astype(np.int64)
        fat_tree = str(topo.meta.get("generator", "")).startswith(("fat-tree", "pruned-fat-tree"))
        word = topo.meta.get("group_word") or ("pod" if fat_tree else "group")  # a rail fabric: "rail"
        levels = unique(row[row > 0]).tolist()
        plain = {0: "end nodes", **{lv: "switches" if len(levels) == 1 else f"level {lv} switches" for lv in levels}}
        if fat_tree:
            plain.update({lv: ROW_NAMES.get(lv, f"level {lv} switches") for lv in levels})
    elif has("group"):
        row, word = is_switch, "group"
    else:
        return None
    rows = {int(lv): plain.get(int(lv), f"level {lv}") for lv in unique(row).tolist()}
    name = lambda lv, g, _: f"{word} {g}, {rows[lv]}" if g >= 0 else rows[lv]  # noqa: E731
    return _Cut(row, group, group, rows, name)


def tiers(topo: Topology) -> np.ndarray:
    """The row of every node of a fabric known by its graph alone: 0 for end nodes, 1 for the switches linked to
    an end node (edge switches, tier 1), ``n`` for a switch ``n - 1`` hops from tier 1 over switch–switch links,
    and the row above the highest tier for switches that no switch path joins to tier 1 (every switch: row 1, when
    the fabric has no end node).

    Hops count every link, broken or not: a break moves no switch to another row (the drawing's rows,
    :mod:`vizcoll.topology.layout`, count them the same way). End nodes never forward, so no path crosses one.

    >>> from vizcoll.topology.io import parse
    >>> tiers(parse('Switch 2 "s1"\\n[1] "s2"[1]\\n\\nSwitch 2 "s2"\\n[1] "s1"[1]\\n[2] "h1"[1]\\n\\n'
    ...             'Ca 1 "h1"\\n[1] "s2"[2]\\n', "f.txt")).tolist()
    [2, 1, 0]
    """
    return _tiers(topo)[0]


def _tiers(topo: Topology) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tiers` and which switches no switch path joins to an edge switch."""
    n, is_end = topo.n_nodes, topo.kind == ENDPOINT
    a, b = topo.link_a, topo.link_b
    edge = np.zeros(n, dtype=bool)
    edge[np.r_[a[is_end[b]], b[is_end[a]]]] = True
    edge &= ~is_end
    row = np.where(is_end, 0, -1).astype(np.int64)
    if edge.any():
        both = ~is_end[a] & ~is_end[b]
        graph = sp.csr_matrix((np.ones(int(both.sum())), (a[both], b[both])), shape=(n, n))
        hops = dijkstra(graph, directed=False, unweighted=True, indices=np.flatnonzero(edge), min_only=True)
        reached = ~is_end & np.isfinite(hops)
        row[reached] = hops[reached].astype(np.int64) + 1
    stray = row < 0
    row[stray] = row.max(initial=0) + 1
    return row, stray


def chassis(description: str) -> str | None:
    """The chassis a switch ASIC's description names, None when it names none (no ``/``: a single switch, or a
    vendor default such as ``Quantum Mellanox Technologies`` that many switches share).

    Mellanox/NVIDIA switches describe themselves as ``MF0;<system>:<model>/<ASIC>``: ``MF0;ib-l1-000:
    MQM8700/U1`` (a one-ASIC switch), ``MF0;core-1:MCS8500/L05/U1`` and ``…/S01/U1`` (the line and spine
    ASICs of one director); older directors and ibsim write ``<system>/L05/U1`` or ``ib-core-1/U3``. The
    chassis is ``<system>``: the text after the ``;`` and before the ``:`` or the first ``/``.

    >>> chassis("MF0;core-1:MCS8500/L05/U1"), chassis("ib-core-2/U8"), chassis("Quantum Mellanox Technologies")
    ('core-1', 'ib-core-2', None)
    """
    match = _DESCRIPTION.fullmatch(description.strip())
    return match["host"].strip() if match and match["rest"] else None


def _short(name: str) -> str:
    """A switch's name without the vendor prefix, its model and a lone ASIC ``/U1``: ``ib-l1-000`` for
    ``MF0;ib-l1-000:MQM8700/U1``, ``core-1/L05/U1`` for ``MF0;core-1:MCS8500/L05/U1``; commas become blanks (a
    block's name is "group, row")."""
    match = _DESCRIPTION.fullmatch(name.strip())
    short = match["host"] + (match["rest"] if match["rest"] not in (None, "/U1") else "") if match else name
    return short.replace(",", " ")


def _span(topo: Topology, nodes: np.ndarray) -> str:
    """The nodes (in drawing order) named by their first and last: ``ib-l2-00 … ib-l2-01``."""
    first, last = _short(topo.names[int(nodes[0])]), _short(topo.names[int(nodes[-1])])
    return first if len(nodes) == 1 else f"{first} … {last}"


def _edge_groups(
    topo: Topology, row: np.ndarray, edge: np.ndarray, pos: np.ndarray
) -> tuple[np.ndarray, dict[int, str]]:
    """The group of every node of a file: each edge switch with the end nodes under it (an end node under
    several: its first switch, as the drawing places it), numbered in drawing order; above
    :data:`EDGE_GROUPS` edge switches, runs of neighbouring ones. ``edge`` marks the edge switches. Returns the
    groups (-1: none) and their edge switches' blocks' names ("edge 7: ib-l1-007, edge switch")."""
    edge = np.flatnonzero(edge)
    edge = edge[np.argsort(pos[edge, 0], kind="stable")]
    group = np.full(topo.n_nodes, -1, dtype=np.int64)
    group[edge] = np.arange(len(edge)) * min(len(edge), EDGE_GROUPS) // max(len(edge), 1)
    a, b = np.r_[topo.link_a, topo.link_b], np.r_[topo.link_b, topo.link_a]
    under = (row[a] == 0) & (group[b] >= 0)
    group[a[under][::-1]] = group[b[under][::-1]]  # the first listed switch wins
    starts = np.flatnonzero(np.diff(group[edge], prepend=-1) != 0)
    names = {}
    for s, e in zip(starts.tolist(), starts[1:].tolist() + [len(edge)], strict=False):
        g = int(group[edge[s]])
        names[g] = f"edge {g}: {_span(topo, edge[s:e])}, edge switch{'es' if e - s > 1 else ''}"
    return group, names


def _upper_row(
    topo: Topology, members: np.ndarray, pos: np.ndarray, row_name: str
) -> tuple[np.ndarray, dict[int, str]]:
    """Blocks of one row above the edge: one per chassis with several ASICs in the row (at most :data:`CHUNKS`,
    the largest), the other switches in at most :data:`CHUNKS` runs in drawing order. Returns each member's
    block within the row (in the order of ``members``) and the blocks' names."""
    order = np.argsort(pos[members, 0], kind="stable")
    ordered = members[order]
    described = topo.desc if topo.desc is not None else topo.names
    keys = [chassis(described[i]) for i in ordered.tolist()]
    shared = [k for k, count in Counter(k for k in keys if k is not None).most_common(CHUNKS) if count > 1]
    shared.sort(key=keys.index)  # in drawing order
    index = {k: i for i, k in enumerate(shared)}
    sub = np.array([index.get(k, -1) for k in keys], dtype=np.int64)
    names = {i: f"{row_name}, chassis {k.replace(',', ' ')}" for i, k in enumerate(shared)}
    rest = np.flatnonzero(sub < 0)
    sub[rest] = len(shared) + np.arange(len(rest)) * CHUNKS // max(len(rest), 1)
    for run in unique(sub[rest]).tolist():
        names[run] = f"{row_name}, {_span(topo, ordered[sub == run])}"
    out = np.empty(len(members), dtype=np.int64)
    out[order] = sub
    return out, names


def _file_cut(topo: Topology, pos: np.ndarray) -> _Cut:
    """The cut of a fabric known by its graph alone (a file): rows by :func:`tiers`, a group per edge switch
    with its end nodes, chassis and runs above (see the module)."""
    row, stray = _tiers(topo)
    group, group_names = _edge_groups(topo, row, (row == 1) & ~stray, pos)
    sub, top = group.copy(), int(row.max(initial=0))
    rows = {0: "end nodes", 1: "edge switches (tier 1)", **{r: f"tier {r}" for r in range(2, top + 1)}}
    if stray.any():
        rows[top] = "switches with no path to an end node" if (row == 0).any() else "switches"
    names: dict[tuple[int, int], str] = {(0, -1): "end nodes with no switch"}
    for g, text in group_names.items():
        names[0, g], names[1, g] = f"{text.rsplit(', ', 1)[0]}, end nodes", text
    for r in range(2, top + 1):
        members = np.flatnonzero(row == r)
        if len(members):
            sub[members], found = _upper_row(topo, members, pos, rows[r])
            names.update({(r, s): text for s, text in found.items()})
    if stray.any() and top == 1:  # no end node: one row of switches, in runs
        sub[stray], found = _upper_row(topo, np.flatnonzero(stray), pos, rows[1])
        names.update({(1, s): text for s, text in found.items()})
    return _Cut(row, sub, group, {r: rows[r] for r in unique(row).tolist()}, lambda r, s, _: names[r, s])


def blocks(topo: Topology, pos: np.ndarray | None = None) -> Blocks:
    """The fabric's blocks (see the module), placed at the mean of their nodes' ``pos`` (default
    :func:`~vizcoll.topology.layout.positions`).

    >>> from vizcoll.topology.generators import from_spec
    >>> b = blocks(from_spec("fat-tree:radix=4,levels=3"))
    >>> len(b), b.names[0], int(b.count[0]), b.rows[1]
    (13, 'pod 0, end nodes', 4, 'leaf switches')
    """
    pos = positions(topo) if pos is None else np.asarray(pos, dtype=float)
    cut = _generated(topo, pos) or _file_cut(topo, pos)
    row, sub = cut.row, cut.sub
    low, width = sub.min(initial=0), int(sub.max(initial=0) - sub.min(initial=0)) + 1
    base = row.min(initial=0)
    codes, of = _distinct((row - base) * width + (sub - low), int(row.max(initial=0) - base + 1) * width)
    keys = np.stack([codes // width + base, codes % width + low], axis=1)  # (row, sub) of each block, sorted
    group = np.full(len(keys), -1, dtype=np.int64)
    group[of] = cut.group
    count = np.bincount(of, minlength=len(keys))
    x = np.bincount(of, weights=pos[:, 0], minlength=len(keys)) / np.maximum(count, 1)
    y = np.bincount(of, weights=pos[:, 1], minlength=len(keys)) / np.maximum(count, 1)
    switches = np.bincount(of, weights=(topo.kind != ENDPOINT), minlength=len(keys)) > count / 2
    names = [cut.name(r, s, sw) for (r, s), sw in zip(keys.tolist(), switches.tolist(), strict=True)]
    return Blocks(
        of=of, level=keys[:, 0], group=group, count=count, switches=switches, x=x, y=y, names=names, rows=cut.rows
    )


def bundles(topo: Topology, part: Blocks, values: np.ndarray | None = None, listed: int = LISTED) -> dict:
    """The links between (and inside) blocks, bundled: arrays ``a``, ``b`` (block indices, ``a <= b``),
    ``links`` (links in the bundle), ``broken`` (broken ones), and of ``values`` (one per link row, default 0)
    the ``max`` and ``mean`` over the bundle's links; ``cables``, per bundle its ``listed`` hottest links (the
    largest ``|value|`` first, then broken ones, then in link order) as ``[label, value, broken]`` with the label
    ``a[pa]-b[pb]`` of :meth:`~vizcoll.topology.model.Topology.link_label`: a bundle of parallel cables names the
    hot one, whatever the others carry.

    >>> from vizcoll.topology.generators import from_spec
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> values = np.zeros(topo.n_links)
    >>> values[topo.link_rows([9])] = 5
    >>> bundle = bundles(topo, blocks(topo), values, listed=1)
    >>> hot = int(np.argmax(bundle["max"]))
    >>> int(bundle["links"][hot]), bundle["cables"][hot]
    (2, [['leaf0[4]-spine1[1]', 5.0, False]])
    """
    values = np.zeros(topo.n_links) if values is None else np.asarray(values, dtype=float)
    pairs, which = link_bundles(topo, part)
    links = np.bincount(which, minlength=len(pairs))
    top = np.full(len(pairs), -np.inf)
    np.maximum.at(top, which, values)
    return {
        "a": pairs[:, 0],
        "b": pairs[:, 1],
        "links": links,
        "broken": np.bincount(which, weights=topo.broken, minlength=len(pairs)).astype(int),
        "max": np.where(links > 0, top, 0.0),
        "mean": np.bincount(which, weights=values, minlength=len(pairs)) / np.maximum(links, 1),
        "cables": _cables(topo, which, len(pairs), values, listed),
    }


def link_bundles(topo: Topology, part: Blocks) -> tuple[np.ndarray, np.ndarray]:
    """``(pairs, which)``: the ``(a, b)`` blocks of every bundle (``a <= b``, in :func:`bundles`' order) and the
    bundle of every link row."""
    a, b = part.of[topo.link_a].astype(np.int64), part.of[topo.link_b].astype(np.int64)
    keys, which = _distinct(np.minimum(a, b) * len(part) + np.maximum(a, b), len(part) ** 2)
    return np.stack([keys // len(part), keys % len(part)], axis=1), which


def _cables(topo: Topology, which: np.ndarray, n: int, values: np.ndarray, listed: int) -> list[list]:
    """Per bundle (``which``: each link's), its ``listed`` hottest links as ``[label, value, broken]``."""
    order = np.lexsort((np.arange(topo.n_links), ~topo.broken, -np.abs(values), which))
    first = np.searchsorted(which[order], np.arange(n))
    shown = order[np.arange(len(order)) - first[which[order]] < listed]
    cables: list[list] = [[] for _ in range(n)]
    for row in shown.tolist():
        cables[int(which[row])].append([topo.link_label(row), float(values[row]), bool(topo.broken[row])])
    return cables


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
        [topo.names[i] for i in kept.tolist()],
        topo.kind[kept],
        topo.nports[kept],
        np.stack([index[topo.link_a[rows]], topo.link_pa[rows], index[topo.link_b[rows]], topo.link_pb[rows]], axis=1),
        node_attrs={k: v[kept] for k, v in topo.node_attrs.items()},
        link_attrs={k: v[rows] for k, v in topo.link_attrs.items()},
        meta=dict(topo.meta),
        validate=False,
    )
    sub.link_id = topo.link_id[rows].copy()
    sub.broken = topo.broken[rows].copy()
    if topo.desc is not None:
        sub.desc = [topo.desc[i] for i in kept.tolist()]
    return sub, kept, rows
