"""Numpy helpers the engines share."""

from __future__ import annotations

import numpy as np

__all__ = ["ranges", "unique"]


def ranges(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(starts[i], stops[i])`` for every ``i``, without a Python loop (e.g. the rows of
    some nodes in a CSR array: ``ranges(indptr[nodes], indptr[nodes + 1])``).

    >>> ranges(np.array([0, 5, 9]), np.array([2, 8, 9])).tolist()
    [0, 1, 5, 6, 7]
    """
    starts = np.asarray(starts, dtype=np.int64)
    counts = np.asarray(stops, dtype=np.int64) - starts
    return np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()), dtype=np.int64)


def unique(values) -> np.ndarray:
    """``np.unique(values)`` of an integer array (its distinct values, sorted, flattened) by one sort: numpy 2's
    hash-based ``np.unique`` is several times slower on the node and link arrays of a paper-scale fabric.

    >>> unique(np.array([[3, 1], [3, 2]])).tolist()
    [1, 2, 3]
    """
    flat = np.sort(np.asarray(values).reshape(-1))
    if len(flat) < 2:
        return flat
    keep = np.empty(len(flat), dtype=bool)
    keep[0] = True
    np.not_equal(flat[1:], flat[:-1], out=keep[1:])  # not np.r_: its indexing machinery costs more than the sort
    return flat[keep]
