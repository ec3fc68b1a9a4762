"""The data really reduced: every process's input array, the reduce operation and the check.

Inputs are int64 arrays drawn from ``seed`` (values 1..99), so sums, products
(which wrap modulo 2^64), maxima and minima are exact whatever order the
reduction takes: a result is correct when it equals the direct reduction of
all inputs element by element. A user-defined operation is any function
``op(a, b) -> array``; it must be commutative and associative (the task-based
reduction combines data in arrival order), and for float results the check
allows a relative error of 1e-9.

>>> data = ReductionData(3, 64, op="sum", seed=1)
>>> acc = data.combine(data.original(0), data.original(2))
>>> bool(np.array_equal(data.combine(acc, data.original(1)), data.expected))
True
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce

import numpy as np

from vizcoll.errors import SpecError

__all__ = ["OPS", "ReductionData", "elements_for"]

OPS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "sum": np.add,
    "prod": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
}


def elements_for(size: int, max_elements: int) -> int:
    """Elements of 8 bytes each process really reduces: ``size / 8``, at least 1, at most ``max_elements``."""
    return int(max(1, min(int(size) // 8, int(max_elements))))


class ReductionData:
    """Inputs of ``procs`` processes (reduction instance ``instance``), the operation and the expected result."""

    def __init__(self, procs: int, elements: int, op: str | Callable = "sum", seed: int = 0, instance: int = 0):
        if isinstance(op, str):
            if op not in OPS:
                raise SpecError(f"unknown reduce operation {op!r}; choose one of {', '.join(OPS)} or pass a function")
            self.op_name, self._op = op, OPS[op]
        elif callable(op):
            self.op_name, self._op = getattr(op, "__name__", "user"), op
        else:
            raise SpecError("op must be a name or a function op(a, b) -> array")
        self.procs, self.elements = int(procs), int(elements)
        self.seed, self.instance = int(seed), int(instance)
        self._expected: np.ndarray | None = None

    def original(self, rank: int) -> np.ndarray:
        """The original data O_rank (a fresh array, regenerated from the seed)."""
        rng = np.random.default_rng((self.seed, self.instance, int(rank)))
        return rng.integers(1, 100, size=self.elements, dtype=np.int64)

    def combine(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The user's reduce operation on two arrays (a new array)."""
        with np.errstate(over="ignore"):
            out = np.asarray(self._op(a, b))
        if out.shape != a.shape:
            raise SpecError(f"the reduce operation returned shape {out.shape}, expected {a.shape}")
        return out

    @property
    def expected(self) -> np.ndarray:
        """The direct reduction of all inputs, in rank order."""
        if self._expected is None:
            self._expected = reduce(self.combine, (self.original(r) for r in range(self.procs)))
        return self._expected

    def check(self, result: np.ndarray | None) -> bool:
        """True when ``result`` equals the direct reduction (within 1e-9 for floats)."""
        if result is None or np.shape(result) != self.expected.shape:
            return False
        if np.issubdtype(np.asarray(result).dtype, np.floating):
            return bool(np.allclose(result, self.expected, rtol=1e-9, atol=0))
        return bool(np.array_equal(result, self.expected))
