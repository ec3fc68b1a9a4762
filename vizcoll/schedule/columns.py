"""A schedule as columns: one row per operation of every rank, the dependencies as pairs of rows.

Operation ``i`` of rank ``r`` is row ``start[r] + i``; ``kind`` is :data:`SEND`, :data:`RECV` or :data:`CALC`
(LogGOPSim's order of queueing operations freed together), ``size``, ``peer``, ``tag``, ``cpu`` and ``nic`` are
the :class:`~vizcoll.schedule.model.Op` fields; ``requires`` / ``irequires`` hold one row ``(a, b)`` per
dependency (operation ``a`` waits for ``b`` to finish / to start), in the order the schedule lists them.

This is the form the GOAL reader builds and the LogGP timing and the checks read: a paper-scale schedule (a
Rabenseifner reduction on 4,096 ranks: 106,494 operations, 192,510 dependencies) costs seconds as one
:class:`~vizcoll.schedule.model.Op` object and one tuple per entry (measured: docs/design.md), which a
:class:`~vizcoll.schedule.model.Schedule` read from a file makes only if asked for them.

>>> c = Columns.from_lists(2, [[Op("send", 8, 1)], [Op("recv", 8, 0), Op("calc", 5)]], [[], [(1, 0)]], [[], []])
>>> c.n_ops, c.start.tolist(), c.kind.tolist(), c.requires.tolist()
(3, [0, 1, 3], [0, 1, 2], [[2, 1]])
>>> c.to_lists()[0][1]
[Op(kind='recv', size=8, peer=0, tag=0, cpu=0, nic=0), Op(kind='calc', size=5, peer=-1, tag=0, cpu=0, nic=0)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.schedule.model import Op

__all__ = ["SEND", "RECV", "CALC", "KINDS", "Columns", "columns_of", "integers"]

SEND, RECV, CALC = 0, 1, 2
KINDS = ("send", "recv", "calc")
_CODE = {name: code for code, name in enumerate(KINDS)}
FIELDS = ("size", "peer", "tag", "cpu", "nic")


def integers(values) -> np.ndarray:
    """``values`` as an int64 array, or an object array of Python ints when one does not fit in 64 bits
    (``np.array`` would silently make floats of integers from 2^63 on)."""
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return np.array(values, dtype=object)


@dataclass(frozen=True, eq=False)
class Columns:
    """The operations and dependencies of ``num_ranks`` ranks as columns (see the module docstring)."""

    num_ranks: int
    start: np.ndarray
    kind: np.ndarray
    size: np.ndarray
    peer: np.ndarray
    tag: np.ndarray
    cpu: np.ndarray
    nic: np.ndarray
    requires: np.ndarray
    irequires: np.ndarray

    @property
    def n_ops(self) -> int:
        return len(self.kind)

    def rank(self) -> np.ndarray:
        """The rank of every row."""
        return np.repeat(np.arange(self.num_ranks), np.diff(self.start))

    def messages(self) -> int:
        return int(np.count_nonzero(self.kind == SEND))

    @classmethod
    def from_lists(cls, num_ranks: int, ops: list, requires: list, irequires: list) -> Columns:
        """The columns of per-rank lists of :class:`Op` and of ``(a, b)`` index pairs."""
        start = np.zeros(num_ranks + 1, dtype=np.int64)
        start[1:] = np.cumsum([len(rank_ops) for rank_ops in ops])
        flat = [op for rank_ops in ops for op in rank_ops]
        fields = [integers([getattr(op, name) for op in flat]) for name in FIELDS]
        kind = np.array([_CODE[op.kind] for op in flat], dtype=np.int8)
        return cls(num_ranks, start, kind, *fields, _pairs(start, requires), _pairs(start, irequires))

    def to_lists(self) -> tuple[list[list[Op]], list[list[tuple[int, int]]], list[list[tuple[int, int]]]]:
        """(ops, requires, irequires) per rank, as :class:`~vizcoll.schedule.model.Schedule` holds them."""
        names = [KINDS[k] for k in self.kind.tolist()]
        flat = list(map(Op, names, *(getattr(self, name).tolist() for name in FIELDS)))
        bounds = self.start.tolist()
        ops = [flat[lo:hi] for lo, hi in zip(bounds, bounds[1:], strict=False)]
        return ops, self._per_rank(self.requires), self._per_rank(self.irequires)

    def _per_rank(self, pairs: np.ndarray) -> list[list[tuple[int, int]]]:
        out: list[list[tuple[int, int]]] = [[] for _ in range(self.num_ranks)]
        if len(pairs):
            rank = np.searchsorted(self.start, pairs[:, 0], side="right") - 1
            local = (pairs - self.start[rank][:, None]).tolist()
            for r, (a, b) in zip(rank.tolist(), local, strict=True):
                out[r].append((a, b))
        return out


def columns_of(schedule) -> Columns:
    """The columns of a :class:`~vizcoll.schedule.model.Schedule`: the ones it was read as, else made from its
    lists (made anew at each call: the lists may have changed)."""
    if schedule.columns is not None:
        return schedule.columns
    return Columns.from_lists(schedule.num_ranks, schedule.ops, schedule.requires, schedule.irequires)


def _pairs(start: np.ndarray, per_rank: list) -> np.ndarray:
    """Per-rank ``(a, b)`` index pairs as rows of global row numbers (SpecError for an index past the rank's
    operations)."""
    bounds = start.tolist()
    rows = []
    for rank, pairs in enumerate(per_rank):
        lo, count = bounds[rank], bounds[rank + 1] - bounds[rank]
        for a, b in pairs:
            if not (0 <= a < count and 0 <= b < count):
                raise SpecError(f"rank {rank}: the dependency ({a}, {b}) names an operation it does not have")
            rows.append((lo + a, lo + b))
    return np.array(rows, dtype=np.int64).reshape(-1, 2)
