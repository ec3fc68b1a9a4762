"""All-pairs hop counts through *twins*: switches with the same neighbors are searched from once.

Two nodes with the same set of neighbors (false twins: never linked to each other) are at the same distance from
every other node, and 2 hops from each other. So the breadth-first search of :mod:`vizcoll.topology.bitbfs` runs
on one representative per class of twins, and the matrix is read out of the small one
(:class:`~vizcoll.topology.blockdist.BlockDist`) without ever being written whole. In a 3-level fat tree
the leaves of a pod are twins, and so are the cores that serve the same spine index: the 20,480 switches of
``fat-tree:radix=128,levels=3`` are 8,384 classes, the graph the search walks is 64 times smaller, and the table
takes 70 MB instead of 420 MB, and a fraction of the time (docs/design.md). A fabric without twins (a torus) is
searched as before.

>>> import numpy as np
>>> indptr, indices = np.array([0, 1, 2, 4]), np.array([2, 2, 0, 1])  # 0 - 2 - 1: 0 and 1 are twins
>>> twin_classes(indptr, indices)[0].tolist()
[0, 0, 1]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vizcoll.arrays import ranges

__all__ = ["twin_classes", "twin_search"]


def twin_classes(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(cls, reps)``: the class of every node (classes numbered in the order of their first members) and each
    class's first member. Nodes with the same non-empty sorted neighbor list share a class (found by a hash of the
    set, then checked neighbor by neighbor); a node without neighbors is alone in its own.
    """
    n = len(indptr) - 1
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    deg = np.diff(indptr)
    salt = np.random.default_rng(0).integers(1, 2**63, size=n, dtype=np.uint64)
    key = np.arange(n, dtype=np.uint64)  # an isolated node: a key of its own (degree 0 sets it apart)
    has = deg > 0
    if has.any():
        key[has] = np.add.reduceat(salt[indices], indptr[:-1][has])
    order = np.lexsort((np.arange(n), key, deg))
    new = np.r_[True, (key[order][1:] != key[order][:-1]) | (deg[order][1:] != deg[order][:-1])]
    rep = np.empty(n, dtype=np.int64)
    rep[order] = order[new][np.cumsum(new) - 1]
    rep = _split_collisions(indptr, indices, rep)
    reps, cls = np.unique(rep, return_inverse=True)
    return cls.astype(np.int64), reps.astype(np.int64)


def _split_collisions(indptr: np.ndarray, indices: np.ndarray, rep: np.ndarray) -> np.ndarray:
    """Each node whose neighbors differ from its representative's (a hash collision) becomes its own."""
    deg = np.diff(indptr)
    differs = np.zeros(len(deg), dtype=bool)
    if len(indices):
        mine = ranges(indptr[:-1], indptr[1:])
        theirs = ranges(indptr[rep], indptr[rep] + deg)
        np.logical_or.at(differs, np.repeat(np.arange(len(deg)), deg), indices[mine] != indices[theirs])
    return np.where(differs, np.arange(len(deg)), rep)


def twin_search(
    indptr: np.ndarray, indices: np.ndarray, search: Callable, classes: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(small, cls)``: ``search(indptr, indices)`` run on the graph of one node per class of twins, and the class
    of every node. Distance ``u -> v`` = ``small[cls[u], cls[v]]``, except 2 between two twins and 0 from a node to
    itself (:class:`~vizcoll.topology.blockdist.BlockDist` reads it so). ``classes``: :func:`twin_classes` of the
    graph when already known."""
    n = len(indptr) - 1
    cls, reps = classes if classes is not None else twin_classes(indptr, indices)
    if len(reps) == n:
        return search(indptr, indices), cls
    inside = np.zeros(n, dtype=bool)
    inside[reps] = True
    new_id = np.cumsum(inside) - 1
    rows = ranges(indptr[reps], indptr[reps + 1])
    keep = inside[indices[rows]]
    counts = np.bincount(np.repeat(np.arange(len(reps)), np.diff(indptr)[reps])[keep], minlength=len(reps))
    return search(np.r_[0, np.cumsum(counts)].astype(np.int64), new_id[indices[rows][keep]].astype(np.int64)), cls
