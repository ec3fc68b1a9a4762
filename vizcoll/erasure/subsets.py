"""Smallest sets of blocks whose span reaches a target vector, under a budget of rank checks.

The enumerations behind the exact repair groups (:mod:`vizcoll.erasure.repair`) and the fault tolerance
(:mod:`vizcoll.erasure.tolerance`): subsets by increasing size, thousands at a time with batched rank checks
(:func:`~vizcoll.erasure.gf.gf_in_span_batch`), charged to a :class:`Budget`.

>>> import numpy as np
>>> found = min_sets(np.array([1, 1], dtype=np.uint8), np.eye(2, dtype=np.uint8), [0, 1], Budget(), first_only=False)
>>> found.size, found.sets
(2, [(0, 1)])
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from vizcoll.erasure.gf import MUL, gf_in_span, gf_in_span_batch, gf_inv, gf_nullspace

__all__ = [
    "CHUNK",
    "DEFAULT_BUDGET",
    "MAX_TIE_SETS",
    "Budget",
    "Found",
    "combination_chunks",
    "min_remote_sets",
    "min_sets",
    "projector",
]

DEFAULT_BUDGET = 3_000_000
CHUNK = 4096
MAX_TIE_SETS = 256


def combination_chunks(items: int, size: int):
    """Every ``size``-subset of ``range(items)`` in lexicographic order, as int64 arrays of up to CHUNK rows."""
    combos = itertools.combinations(range(items), size)
    while True:
        chunk = np.array(list(itertools.islice(combos, CHUNK)), dtype=np.int64).reshape(-1, size)
        if chunk.size == 0:
            return
        yield chunk


@dataclass
class Budget:
    """How many subset rank checks an evaluation may make (charged as they are made, a chunk at a time)."""

    limit: int = DEFAULT_BUDGET
    used: int = 0

    def take(self, count: int) -> bool:
        """Reserve ``count`` checks; False (nothing reserved) if that would exceed the limit."""
        if self.used + count > self.limit:
            return False
        self.used += count
        return True


# ---------------------------------------------------------------- minimum spanning subsets
def projector(cols: np.ndarray, k: int) -> np.ndarray:
    """A ``q × k`` matrix whose kernel is the span of ``cols`` (``q = k − rank``)."""
    if cols.shape[1] == 0:
        return np.eye(k, dtype=np.uint8)
    return gf_nullspace(cols.T)


def _classes(vecs: np.ndarray, labels: list[int]) -> list[tuple[np.ndarray, list[int]]]:
    """Non-zero columns grouped by direction (equal up to a factor): (unit vector, sorted labels), by first label."""
    groups: dict[bytes, tuple[np.ndarray, list[int]]] = {}
    for j, label in enumerate(labels):
        v = vecs[:, j]
        nz = np.flatnonzero(v)
        if nz.size == 0:
            continue
        unit = MUL[v, gf_inv(v[nz[0]])]
        key = unit.tobytes()
        if key not in groups:
            groups[key] = (unit, [])
        groups[key][1].append(label)
    return sorted(((u, sorted(ls)) for u, ls in groups.values()), key=lambda item: item[1][0])


@dataclass
class Found:
    size: int | None  # the minimum size, None if not found
    sets: list[tuple[int, ...]]  # class-index tuples of that size (all, or the first)
    classes: list[tuple[np.ndarray, list[int]]]
    exhausted: bool = False  # the budget ran out before ``size`` was settled
    checked_below: int = 0  # no set smaller than this spans the target


def min_sets(
    target: np.ndarray, vecs: np.ndarray, labels: list[int], budget: Budget, first_only: bool, start: int = 1
) -> Found:
    """Smallest subsets of the columns of ``vecs`` whose span contains ``target`` (enumerated by size from
    ``start``, a proven lower bound); at the smallest size at most ``MAX_TIE_SETS`` of them, in index order."""
    classes = _classes(vecs, labels)
    if not np.any(target):
        return Found(0, [()], classes)
    reps = np.array([u for u, _ in classes], dtype=np.uint8).reshape(len(classes), target.size)
    if not classes or not gf_in_span(reps.T, target):
        return Found(None, [], classes)
    for size in range(max(1, start), min(len(classes), target.size) + 1):
        hits: list[tuple[int, ...]] = []
        for chunk in combination_chunks(len(classes), size):
            if not budget.take(len(chunk)):
                return Found(None, [], classes, exhausted=True, checked_below=size)
            stack = np.transpose(reps[chunk], (0, 2, 1))
            ok = gf_in_span_batch(stack, target)
            hits.extend(tuple(int(c) for c in row) for row in chunk[ok])
            if hits and (first_only or len(hits) >= MAX_TIE_SETS):
                return Found(size, hits[:1] if first_only else hits[:MAX_TIE_SETS], classes)
        if hits:
            return Found(size, hits, classes)
    return Found(None, [], classes)  # unreachable: the span check above guarantees a set of size ≤ q


def _touching(groups: list[list[int]], size: int):
    """Every ``size``-set of blocks drawn from ``groups`` (one list per DC) with at least one from each."""
    if not groups:
        if size == 0:
            yield ()
        return
    first, rest = groups[0], groups[1:]
    for c in range(1, min(len(first), size - len(rest)) + 1):
        for pick in itertools.combinations(first, c):
            for tail in _touching(rest, size - c):
                yield pick + tail


def min_remote_sets(
    target: np.ndarray, vecs: dict[int, np.ndarray], by_dc: dict[int, list[int]], budget: Budget, start: int
) -> Found:
    """Smallest sets of remote blocks whose projected span contains ``target``, as sorted block tuples.

    Sets are enumerated by size, and within a size by the DCs they touch: a set of DCs whose blocks together
    cannot reach the target is skipped whole (one rank check instead of every subset of its blocks). At the
    smallest size at most ``MAX_TIE_SETS`` sets are collected.
    """
    if not np.any(target):
        return Found(0, [()], [])
    dcs = sorted(by_dc)
    reach: dict[tuple[int, ...], bool] = {}
    blocks = sorted(vecs)
    table = np.stack([vecs[b] for b in blocks]) if blocks else np.zeros((0, target.size), dtype=np.uint8)
    row = {b: i for i, b in enumerate(blocks)}  # each set's matrix gathered from one table, not stacked per set

    def reaches(group: tuple[int, ...]) -> bool:
        if group not in reach:
            reach[group] = gf_in_span(np.column_stack([vecs[b] for w in group for b in by_dc[w]]), target)
        return reach[group]

    total = sum(len(b) for b in by_dc.values())
    for size in range(max(1, start), min(total, target.size) + 1):
        hits: list[tuple[int, ...]] = []
        for width in range(max(1, start), min(size, len(dcs)) + 1):
            for group in itertools.combinations(dcs, width):
                if not reaches(group):
                    continue
                sets = _touching([by_dc[w] for w in group], size)
                while True:
                    chunk = list(itertools.islice(sets, CHUNK))
                    if not chunk:
                        break
                    if not budget.take(len(chunk)):
                        return Found(None, [], [], exhausted=True, checked_below=size)
                    stack = np.transpose(table[[[row[b] for b in c] for c in chunk]], (0, 2, 1))
                    ok = gf_in_span_batch(stack, target)
                    hits.extend(tuple(sorted(c)) for c, good in zip(chunk, ok, strict=True) if good)
                    if len(hits) >= MAX_TIE_SETS:
                        return Found(size, sorted(hits)[:MAX_TIE_SETS], [])
        if hits:
            return Found(size, sorted(hits), [])
    return Found(None, [], [])
