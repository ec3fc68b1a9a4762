"""Breadth-first search from many sources at once, one bit per source (the engine of :func:`min_hops`).

Each node holds a bit per source ("reached yet?"); one level of the search
ORs the new bits of a node's neighbors together (:func:`bfs`), and the depth
at which each bit appears is kept in a few bit planes (its binary digits).
:func:`store_u8` turns the planes into a ``uint8`` block of the distance
matrix; :func:`widen_dist` redoes the matrix in ``uint16``/``uint32`` when a
search went 255 levels deep or more. :func:`vizcoll.topology.hops.min_hops`
cuts the sources into passes and runs them on threads.

>>> import numpy as np
>>> indptr, indices = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])  # the path 0 - 1 - 2
>>> dist = np.empty((3, 3), dtype=np.uint8)
>>> unreached, planes, depth = bfs(buckets_of(indptr, indices), 3, np.arange(3), 1)
>>> store_u8(dist, 0, unreached, planes)
>>> dist.tolist(), depth
([[0, 1, 2], [1, 0, 1], [2, 1, 0]], 2)

(:func:`min_hops` uses the matrix as symmetric: row ``u``, column ``s`` is the distance from source ``s``.)
"""

from __future__ import annotations

import numpy as np

from vizcoll.arrays import unique

__all__ = ["bfs", "buckets_of", "store_u8", "widen_dist"]

# _BYTE_BITS[x] is a uint64 whose 8 bytes are the bits of x (bit 0 first, in memory order).
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").view(np.uint64)
_BYTE_BITS = _BYTE_BITS.ravel()


def buckets_of(indptr: np.ndarray, indices: np.ndarray):
    """Neighbor tables by degree class (powers of two), padded with ``n`` (an all-zero row).

    Returns a list of ``(rows, table)``, ``rows`` a slice when contiguous;
    rows without neighbors are in no bucket.
    """
    n = len(indptr) - 1
    deg = np.diff(indptr)
    cls = np.zeros(n, dtype=np.int64)
    cls[deg > 0] = 1 + np.ceil(np.log2(deg[deg > 0])).astype(np.int64)
    buckets = []
    for c in unique(cls[deg > 0]):
        rows = np.flatnonzero(cls == c)
        width = np.arange(deg[rows].max())
        ok = width[None, :] < deg[rows][:, None]
        table = np.full(ok.shape, n, dtype=np.intp)
        table[ok] = indices[(indptr[rows][:, None] + width[None, :])[ok]]
        contiguous = rows[-1] - rows[0] + 1 == len(rows)
        buckets.append((slice(rows[0], rows[-1] + 1) if contiguous else rows, table))
    return buckets


def bfs(buckets, n: int, sources: np.ndarray, words: int):
    """Breadth-first search from up to ``64 * words`` sources at once.

    Bit ``i`` (byte ``i // 8``, bit ``i % 8`` of a row) stands for
    ``sources[i]``. Returns ``(unreached, planes, depth)``: rows = nodes,
    ``unreached`` bits set where the source never reached the node, and the
    node's distance from the source is ``sum(plane bit << b)``.
    """
    unreached = np.full((n + 1, words), ~np.uint64(0), dtype=np.uint64)
    frontier = np.zeros_like(unreached)
    k = np.arange(len(sources))
    frontier.view(np.uint8)[sources, k // 8] = (1 << (k % 8)).astype(np.uint8)
    unreached ^= frontier
    nxt = np.zeros_like(unreached)
    tmp = np.empty((max(len(t) for _, t in buckets), words), dtype=np.uint64) if buckets else None
    planes: list[np.ndarray] = []
    depth = 0
    while True:
        for rows, table in buckets:
            _gather_or(frontier, table, nxt, rows, tmp)
        nxt &= unreached  # also clears rows no bucket wrote (they hold older, reached bits)
        if not nxt.any():
            return unreached[:n], [p[:n] for p in planes], depth
        depth += 1
        unreached ^= nxt
        while len(planes) < depth.bit_length():
            planes.append(np.zeros_like(unreached))
        for bit, plane in enumerate(planes):
            if depth >> bit & 1:
                plane |= nxt
        frontier, nxt = nxt, frontier


def _gather_or(frontier: np.ndarray, table: np.ndarray, out: np.ndarray, rows, tmp: np.ndarray) -> None:
    """``out[rows[i]] = OR over j of frontier[table[i, j]]``."""
    acc = out[rows] if isinstance(rows, slice) else np.empty((len(table), out.shape[1]), dtype=out.dtype)
    spare = tmp[: len(table)]
    np.take(frontier, table[:, 0], axis=0, out=acc, mode="clip")
    for j in range(1, table.shape[1]):
        np.take(frontier, table[:, j], axis=0, out=spare, mode="clip")
        acc |= spare
    if not isinstance(rows, slice):
        out[rows] = acc


def store_u8(dist: np.ndarray, lo: int, unreached: np.ndarray, planes: list[np.ndarray]) -> None:
    """Write per-bit distances into ``dist[:, lo:]`` as uint8 (255 = unreached); needs depth < 255.

    Works in blocks of rows so the uint64 temporaries stay in the CPU cache
    (eight times faster than whole-array passes).
    """
    n, count = len(unreached), min(unreached.shape[1] * 64, dist.shape[1] - lo)
    tables = [_BYTE_BITS << np.uint64(bit) for bit in range(len(planes))] + [_BYTE_BITS * np.uint64(255)]
    layers = [p.view(np.uint8) for p in planes] + [unreached.view(np.uint8)]
    if not unreached[:, : -(-count // 64)].any():
        tables, layers = tables[:-1], layers[:-1]
    rows = max(1, (1 << 18) // (unreached.shape[1] * 64))
    out = np.empty((rows, unreached.shape[1] * 8), dtype=np.uint64)
    tmp = np.empty_like(out)
    for top in range(0, n, rows):
        o, t = out[: min(rows, n - top)], tmp[: min(rows, n - top)]
        o[:] = 0
        for table, layer in zip(tables, layers, strict=True):
            np.take(table, layer[top : top + rows], out=t)
            o |= t
        dist[top : top + rows, lo : lo + count] = o.view(np.uint8)[:, :count]


def _levels_wide(unreached: np.ndarray, planes: list[np.ndarray], dtype) -> np.ndarray:
    """Per-bit distances (nodes x sources) for any depth, in ``dtype`` (max = unreached)."""
    bits = lambda arr: np.unpackbits(arr.view(np.uint8), axis=1, bitorder="little")
    out = np.zeros((unreached.shape[0], unreached.shape[1] * 64), dtype=dtype)
    for bit, plane in enumerate(planes):
        out |= bits(plane).astype(dtype) << dtype(bit)
    out[bits(unreached).astype(bool)] = np.iinfo(dtype).max
    return out


def widen_dist(dist: np.ndarray, deep: list) -> np.ndarray:
    """Redo ``dist`` in uint16/uint32 because some searches went 255 levels deep or more."""
    depth = max(d for *_, d in deep)
    dtype = np.uint16 if depth < np.iinfo(np.uint16).max else np.uint32
    wide = dist.astype(dtype)
    wide[dist == 255] = np.iinfo(dtype).max
    for lo, unreached, planes, _ in deep:
        block = _levels_wide(unreached, planes, dtype)
        count = min(block.shape[1], len(dist) - lo)
        wide[:, lo : lo + count] = block[:, :count]
    return wide
