"""The switch-to-switch distances of a fabric made of separate rails, kept as one block per rail.

A rail-optimized fabric without links between its rails (:mod:`vizcoll.topology.rails`) is several networks
side by side: a switch of rail ``q`` never reaches a switch of rail ``r``. Its ``S x S`` distance matrix is block
diagonal, and the rails wired alike (every rail of a generated fabric, until a link breaks) have the same block.
:class:`BlockDist` stores each distinct block once (the 1,048,576-NIC fabric: one 8,192 x 8,192 ``uint8`` block,
64 MB, instead of 4 GB) and answers the indexing that :class:`~vizcoll.topology.hops.MinHopTable` and its readers
use (``dist[i, j]`` with integer arrays that broadcast, ``dist[rows]``, ``dist[lo:hi]``, ``dist[row, col]``,
``dist[np.ix_(rows, cols)]``) with plain arrays, the dtype's maximum where two rails meet.

>>> import numpy as np
>>> block = np.array([[0, 1], [1, 0]], dtype=np.uint8)
>>> dist = BlockDist(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), [block], np.array([0, 0]))
>>> dist[[0, 0, 2], [1, 2, 3]].tolist(), dist[3].tolist()
([1, 255, 1], [255, 255, 1, 0])
"""

from __future__ import annotations

import numpy as np

__all__ = ["BlockDist", "rail_blocks"]


class BlockDist:
    """A block-diagonal distance matrix: row ``i`` is in block ``part[i]`` at position ``local[i]``.

    Parameters
    ----------
    part, local : ndarray of int
        Over the rows: the block (rail) of each row and its index inside the block.
    blocks : list of ndarray
        The distinct square blocks (same dtype, its maximum = unreachable).
    which : ndarray of int
        Over the parts: the index in ``blocks`` of each part's block.
    """

    def __init__(self, part: np.ndarray, local: np.ndarray, blocks: list[np.ndarray], which: np.ndarray):
        self.part, self.local = part.astype(np.int64), local.astype(np.int64)
        self.blocks = blocks
        self.dtype = blocks[0].dtype if blocks else np.dtype(np.uint8)
        sizes = np.array([len(b) for b in blocks], dtype=np.int64)
        starts = np.cumsum(sizes * sizes) - sizes * sizes
        self._flat = np.concatenate([b.ravel() for b in blocks]) if blocks else np.zeros(0, self.dtype)
        self._start, self._size = starts[which], sizes[which]

    # array-like attributes the readers use
    @property
    def shape(self) -> tuple[int, int]:
        return len(self.part), len(self.part)

    def __len__(self) -> int:
        return len(self.part)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes actually held (the distinct blocks)."""
        return int(self._flat.nbytes)

    def diameter(self) -> int:
        """Largest finite distance of any block (0 without one)."""
        top = np.iinfo(self.dtype).max
        return max((int(np.where(b == top, 0, b).max()) for b in self.blocks if b.size), default=0)

    def __getitem__(self, key) -> np.ndarray:
        rows, cols = _broadcast_key(key, len(self.part))
        part_r, part_c = self.part[rows], self.part[cols]
        same = part_r == part_c
        out = np.full(np.broadcast(rows, cols).shape, np.iinfo(self.dtype).max, dtype=self.dtype)
        if same.any():
            pr = np.broadcast_to(part_r, out.shape)[same]
            r = np.broadcast_to(self.local[rows], out.shape)[same]
            c = np.broadcast_to(self.local[cols], out.shape)[same]
            out[same] = self._flat[self._start[pr] + r * self._size[pr] + c]
        return out


def _broadcast_key(key, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column index arrays that broadcast to the shape numpy would give ``matrix[key]``."""
    if not isinstance(key, tuple):
        key = (key, slice(None))
    if len(key) != 2:
        raise IndexError("a distance matrix takes one or two indices")
    is_slice = [isinstance(k, slice) for k in key]
    rows, cols = (np.arange(n)[k] if s else np.asarray(k, dtype=np.int64) for k, s in zip(key, is_slice, strict=True))
    if is_slice[0] and is_slice[1]:
        return rows[:, None], cols[None, :]
    if is_slice[1]:
        return rows[..., None], cols
    if is_slice[0]:
        return rows.reshape(-1, *([1] * cols.ndim)), cols
    return rows, cols


def rail_blocks(rail: np.ndarray, sw_a: np.ndarray, sw_b: np.ndarray, distances) -> BlockDist | None:
    """The :class:`BlockDist` of a fabric whose switches lie on rails, or None when it has none.

    Parameters
    ----------
    rail : ndarray of int
        Over the switch rows, the rail of each (-1 for none).
    sw_a, sw_b : ndarray of int
        Switch rows joined by live switch-to-switch links.
    distances : callable
        ``distances(indptr, indices) -> ndarray``: the dense distances of one part's graph (CSR).

    None unless every switch is on a rail, there are at least two rails, and no live link joins two rails (with
    ``cross=1`` the fabric is one network: the dense matrix is built). Rails whose live links are the same in
    local numbers share one block.
    """
    if not len(rail) or rail.min() < 0 or np.any(rail[sw_a] != rail[sw_b]):
        return None
    parts, part = np.unique(rail, return_inverse=True)
    if len(parts) < 2:
        return None
    order = np.argsort(part, kind="stable")
    counts = np.bincount(part)
    local = np.empty(len(part), dtype=np.int64)
    local[order] = np.arange(len(part)) - np.repeat(np.cumsum(counts) - counts, counts)
    edge_part = part[sw_a]
    seen: dict[bytes, int] = {}
    blocks, which = [], np.zeros(len(parts), dtype=np.int64)
    by_part = np.argsort(edge_part, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(edge_part, minlength=len(parts)))]
    for p in range(len(parts)):
        rows = by_part[bounds[p]:bounds[p + 1]]
        a, b = local[sw_a[rows]], local[sw_b[rows]]
        key = np.int64(counts[p]).tobytes() + np.sort(np.r_[a * counts[p] + b, b * counts[p] + a]).tobytes()
        if key not in seen:
            seen[key] = len(blocks)
            blocks.append(distances(*_csr(a, b, int(counts[p]))))
        which[p] = seen[key]
    return BlockDist(part, local, _same_dtype(blocks), which)


def _csr(a: np.ndarray, b: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    key = np.unique(np.r_[a * n + b, b * n + a])
    src, dst = np.divmod(key, n)
    return np.r_[0, np.cumsum(np.bincount(src, minlength=n))].astype(np.int64), dst.astype(np.int64)


def _same_dtype(blocks: list[np.ndarray]) -> list[np.ndarray]:
    """The blocks in the widest of their dtypes, each sentinel moved to that dtype's maximum."""
    wide = max((b.dtype for b in blocks), key=lambda d: d.itemsize)
    out = []
    for b in blocks:
        w = b.astype(wide)
        w[b == np.iinfo(b.dtype).max] = np.iinfo(wide).max
        out.append(w)
    return out
