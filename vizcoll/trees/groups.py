"""Process groups of the hierarchical trees: nested lists of ranks, and the groups of a placement.

**Groups** are given as nested lists: a list of ints is a group of ranks (its
first rank is the group's first process), a list of lists a group of
sub-groups; an int next to lists is a group of that one rank. A flat list of
ints given as the *whole* hierarchy means group **sizes** over consecutive
ranks: ``[5, 4, 3, 2]`` is ``[[0..4], [5..8], [9..11], [12, 13]]``. Every
rank ``0..P-1`` must appear exactly once (:func:`normalize_groups`).

:func:`hierarchy_from_topology` gives the groups "same node → same leaf switch →
same pod/supernode (``group`` attribute) → all" of a placement.

References: [AGGT24, Fig. 10, Alg. 3–4] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vizcoll.arrays import unique
from vizcoll.comm.placement import Placement
from vizcoll.errors import SpecError
from vizcoll.topology.model import SWITCH, Topology

__all__ = [
    "Nested",
    "normalize_groups",
    "flatten_groups",
    "is_leaf_group",
    "group_sizes",
    "hierarchy_levels",
    "leaf_switches",
    "hierarchy_from_topology",
]

Nested = list  # nested lists of ranks, see the module docstring


def normalize_groups(groups: Sequence) -> Nested:
    """Nested lists of ranks from sizes or nested lists (see the module docstring); validated.

    >>> normalize_groups([3, 2])
    [[0, 1, 2], [3, 4]]
    """
    groups = list(groups)
    if not groups:
        raise SpecError("no groups given")
    if all(isinstance(g, (int, np.integer)) for g in groups):
        if any(g < 1 for g in groups):
            raise SpecError(f"group sizes must be positive, got {groups}")
        bounds = np.r_[0, np.cumsum(groups)]
        return [list(range(int(lo), int(hi))) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    out = _nested(groups)
    ranks = sorted(flatten_groups(out))
    if ranks != list(range(len(ranks))):
        seen = set()
        dup = next((r for r in ranks if r in seen or seen.add(r)), None)
        what = f"rank {dup} appears twice" if dup is not None else f"the ranks are not 0..{len(ranks) - 1}"
        raise SpecError(f"groups must hold every rank 0..P-1 exactly once: {what}")
    return out


def _nested(group) -> Nested:
    if isinstance(group, (int, np.integer)):
        return [int(group)]
    if not isinstance(group, (list, tuple)) or not group:
        raise SpecError(f"a group must be a non-empty list of ranks or of groups, got {group!r}")
    if _plain_ranks(group):
        return list(group)
    if all(isinstance(x, (int, np.integer)) for x in group):
        return [int(x) for x in group]
    return [_nested(x) for x in group]


def _plain_ranks(group) -> bool:
    """Whether ``group`` holds only Python ints (checked at C speed: most groups are)."""
    return set(map(type, group)) <= {int}


def flatten_groups(group) -> list[int]:
    if isinstance(group, (int, np.integer)):
        return [int(group)]
    if _plain_ranks(group):
        return list(group)
    out: list[int] = []
    for x in group:
        if isinstance(x, (int, np.integer)):
            out.append(int(x))
        else:
            out.extend(flatten_groups(x))
    return out


def is_leaf_group(group: Nested) -> bool:
    return _plain_ranks(group) or all(isinstance(x, int) for x in group)


def group_sizes(groups: Nested) -> list:
    """The shape of a hierarchy: sizes of leaf groups, nested like the groups."""
    return len(groups) if is_leaf_group(groups) else [group_sizes(g) for g in groups]


def hierarchy_levels(groups: Sequence) -> list[np.ndarray]:
    """Group id of every rank at each depth of the hierarchy, outermost level first.

    Level ``i`` numbers the groups at nesting depth ``i + 1`` (the whole
    communicator, depth 0, is left out); a rank whose branch is shallower
    keeps its deepest group. Used to count cross-group packets.

    >>> [x.tolist() for x in hierarchy_levels([[[0, 1], [2]], [3]])]
    [[0, 0, 0, 1], [0, 0, 1, 2]]
    """
    groups = normalize_groups(groups)
    paths: dict[int, tuple[int, ...]] = {}
    _paths(groups, (), paths)
    depth = max(len(p) for p in paths.values())
    levels = []
    for d in range(1, depth + 1):
        prefix = [paths[r][:d] for r in range(len(paths))]
        ids = {key: i for i, key in enumerate(dict.fromkeys(prefix))}
        levels.append(np.array([ids[key] for key in prefix], dtype=np.int64))
    return levels


def _paths(group: Nested, path: tuple[int, ...], out: dict[int, tuple[int, ...]]) -> None:
    if is_leaf_group(group):
        out.update((r, path) for r in group)
        return
    for i, sub in enumerate(group):
        _paths(_nested(sub), (*path, i), out)


# ---------------------------------------------------------------- groups of a placement
def leaf_switches(topo: Topology, nodes) -> np.ndarray:
    """Lowest-numbered switch each node is linked to by a live link (a switch: itself; none: -1)."""
    live = topo.live
    a, b = topo.link_a[live].astype(np.int64), topo.link_b[live].astype(np.int64)
    best = np.full(topo.n_nodes, np.iinfo(np.int64).max, dtype=np.int64)
    for x, y in ((a, b), (b, a)):
        sw = topo.kind[y] == SWITCH
        np.minimum.at(best, x[sw], y[sw])
    best[topo.kind == SWITCH] = np.flatnonzero(topo.kind == SWITCH)
    best[best == np.iinfo(np.int64).max] = -1
    return best[np.asarray(nodes, dtype=np.int64)]


def hierarchy_from_topology(topo: Topology, placement: Placement) -> Nested:
    """Groups of a placement: same node → same leaf switch → same ``group`` attribute → all.

    The leaf switch of a node is the lowest-numbered switch it is linked to
    (live links; a process on a switch: that switch). Keys are nested
    (``group``, leaf, node), so the levels always nest; a level that splits
    nothing is dropped (the supernode's ``group`` equals its port-1 leaf, so
    it adds no level), and groups are ordered by their lowest rank. When nothing splits the processes (one leaf
    switch, or one switch per process), the hierarchy is one group holding them all, ``[[0, 1, ...]]``: a flat
    list of ranks would read as group sizes (:func:`normalize_groups`).

    Parameters
    ----------
    topo : Topology
        The fabric.
    placement : Placement
        Where the ranks run.

    Returns
    -------
    list
        Nested lists of ranks, groups ordered by their lowest rank.

    Examples
    --------
    >>> from vizcoll.comm import place
    >>> from vizcoll.topology import from_spec
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> hierarchy_from_topology(topo, place(topo, 6, ppn=2))
    [[[0, 1], [2, 3]], [4, 5]]
    """
    nodes = np.asarray(placement.node, dtype=np.int64)
    keys = np.stack([topo.attr("group")[nodes], leaf_switches(topo, nodes), nodes], axis=1)
    if len(unique(nodes)) == len(nodes):  # one process per node: the node level only has single ranks
        keys = keys[:, :2]
    groups = _collapse(_group_by(list(range(len(nodes))), keys.tolist()))
    return [groups] if is_leaf_group(groups) else groups


def _group_by(ranks: list[int], keys: list[list[int]], column: int = 0) -> Nested:
    """``ranks`` grouped by ``keys[rank][column]`` (in the order first seen), each group by the next column."""
    width = len(keys[0]) if keys else 0
    if column >= width:
        return list(ranks)
    buckets: dict[int, list[int]] = {}
    for r in ranks:
        buckets.setdefault(keys[r][column], []).append(r)
    if column == width - 1:
        return list(buckets.values())
    return [_group_by(members, keys, column + 1) for members in buckets.values()]


def _collapse(group: Nested) -> Nested:
    """Drop levels with one sub-group; a group of single-rank groups becomes a group of ranks."""
    while not is_leaf_group(group) and len(group) == 1:
        group = group[0]
    if is_leaf_group(group):
        return group
    subs = [_collapse(g) for g in group]
    if all(is_leaf_group(s) and len(s) == 1 for s in subs):
        return [s[0] for s in subs]
    return subs
