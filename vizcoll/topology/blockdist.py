"""Switch-to-switch distances kept small: one block per rail of a fabric of separate rails, over classes of twins.

A rail-optimized fabric without links between its rails (:mod:`vizcoll.topology.rails`) is several networks
side by side: a switch of rail ``q`` never reaches a switch of rail ``r``. Its ``S x S`` distance matrix is block
diagonal, and the rails wired alike (every rail of a generated fabric, until a link breaks) have the same block.
:class:`BlockDist` stores each distinct block once (the 1,048,576-NIC fabric: one 8,192 x 8,192 ``uint8`` block,
64 MB, instead of 4 GB) and answers the indexing that :class:`~vizcoll.topology.hops.MinHopTable` and its readers
use (``dist[i, j]`` with integer arrays that broadcast, ``dist[rows]``, ``dist[lo:hi]``, ``dist[row, col]``,
``dist[np.ix_(rows, cols)]``) with plain arrays, the dtype's maximum where two rails meet. Inside a block, rows
are read through their classes of twins (:mod:`vizcoll.topology.twins`): a fabric of one network (a fat tree) is
one block over its classes, 70 MB instead of 420 MB for the 20,480 switches of ``fat-tree:radix=128,levels=3``.

>>> import numpy as np
>>> block = np.array([[0, 1], [1, 0]], dtype=np.uint8)
>>> dist = BlockDist(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), [block], np.array([0, 0]))
>>> dist[[0, 0, 2], [1, 2, 3]].tolist(), dist[3].tolist()
([1, 255, 1], [255, 255, 1, 0])
>>> twins = BlockDist(np.zeros(3), np.array([0, 0, 1]), [block], np.array([0]))  # rows 0 and 1: one class
>>> twins[0].tolist(), twins.diameter()
([0, 2, 1], 2)
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from vizcoll.arrays import ranges

__all__ = ["BlockDist", "rail_blocks"]


class BlockDist:
    """A block-diagonal distance matrix read through classes: row ``i`` is class ``local[i]`` of block ``part[i]``.

    Parameters
    ----------
    part, local : ndarray of int
        Over the rows: the block (rail; all 0 for one block) of each row and its class inside the block.
    blocks : list of ndarray
        The distinct square blocks over classes (same dtype, its maximum = unreachable).
    which : ndarray of int
        Over the parts: the index in ``blocks`` of each part's block.

    Two rows of one class are twins (:mod:`vizcoll.topology.twins`): 2 hops apart; a row is 0 from itself.
    """

    def __init__(self, part: np.ndarray, local: np.ndarray, blocks: list[np.ndarray], which: np.ndarray):
        self.part, self.local = part.astype(np.int64), local.astype(np.int64)
        self.blocks = blocks
        self.dtype = blocks[0].dtype if blocks else np.dtype(np.uint8)
        sizes = np.array([len(b) for b in blocks], dtype=np.int64)
        starts = np.cumsum(sizes * sizes) - sizes * sizes
        self._flat = np.concatenate([b.ravel() for b in blocks]) if len(blocks) > 1 else None
        self._start, self._size = starts[which], sizes[which]
        self._one = len(which) == 1
        self._twins = len(np.unique(part * (int(local.max(initial=0)) + 1) + local)) < len(part)

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
        return int(sum(b.nbytes for b in self.blocks))

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        whole = self[:, :]
        return whole if dtype is None else whole.astype(dtype)

    def astype(self, dtype) -> np.ndarray:
        return np.asarray(self).astype(dtype)

    def __eq__(self, other) -> np.ndarray:  # type: ignore[override]
        return np.asarray(self) == other

    __hash__ = None  # type: ignore[assignment]

    def diameter(self) -> int:
        """Largest finite distance of any block (2 where twins are farther apart than any two classes)."""
        top = np.iinfo(self.dtype).max
        best = max((int(np.where(b == top, 0, b).max()) for b in self.blocks if b.size), default=0)
        return max(best, 2) if self._twins else best

    def __getitem__(self, key) -> np.ndarray:
        every_column = not isinstance(key, tuple) or (isinstance(key[1], slice) and key[1] == slice(None))
        if self._one and every_column:
            return self._rows_all(key[0] if isinstance(key, tuple) else key)
        rows, cols = _broadcast_key(key, len(self.part))
        out = np.asarray(self.blocks[0][self.local[rows], self.local[cols]] if self._one else self._gather(rows, cols))
        if self._twins:
            twin = (self.local[rows] == self.local[cols]) & (self.part[rows] == self.part[cols])
            out[np.broadcast_to(twin, out.shape)] = 2
        out[np.broadcast_to(rows == cols, out.shape)] = 0
        return out[()] if out.ndim == 0 else out

    def _rows_all(self, key) -> np.ndarray:
        """Rows ``key`` (an index, array or slice) against every column of the one block: one take per row, and
        the row's twins set to 2 through the members of its class."""
        rows = np.arange(len(self.part))[key] if isinstance(key, slice) else np.asarray(key, dtype=np.int64)
        flat = rows.reshape(-1)
        out = np.take(self.blocks[0][self.local[flat]], self.local, axis=1)
        if self._twins:
            ptr, members = self._class_members
            cls = self.local[flat]
            twins = members[ranges(ptr[cls], ptr[cls + 1])]
            out[np.repeat(np.arange(len(flat)), ptr[cls + 1] - ptr[cls]), twins] = 2
        out[np.arange(len(flat)), flat] = 0
        return out.reshape(*rows.shape, len(self.part))

    @cached_property
    def _class_members(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR over classes (one block) of their rows."""
        counts = np.bincount(self.local, minlength=len(self.blocks[0]))
        return np.r_[0, np.cumsum(counts)], np.argsort(self.local, kind="stable")

    def _gather(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        part_r, part_c = self.part[rows], self.part[cols]
        same = part_r == part_c
        out = np.full(np.broadcast(rows, cols).shape, np.iinfo(self.dtype).max, dtype=self.dtype)
        if same.any():
            flat = self._flat if self._flat is not None else self.blocks[0].ravel()
            pr = np.broadcast_to(part_r, out.shape)[same]
            r = np.broadcast_to(self.local[rows], out.shape)[same]
            c = np.broadcast_to(self.local[cols], out.shape)[same]
            out[same] = flat[self._start[pr] + r * self._size[pr] + c]
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
        ``distances(indptr, indices) -> (small, cls)``: the distances of one part's graph (CSR) over its classes of
        twins, and the class of each of its nodes (:func:`vizcoll.topology.twins.twin_search`).

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
    seen: dict[bytes, tuple[int, np.ndarray]] = {}
    blocks, which = [], np.zeros(len(parts), dtype=np.int64)
    by_part = np.argsort(edge_part, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(edge_part, minlength=len(parts)))]
    cls = np.empty(len(part), dtype=np.int64)
    for p in range(len(parts)):
        rows = by_part[bounds[p] : bounds[p + 1]]
        a, b = local[sw_a[rows]], local[sw_b[rows]]
        key = np.int64(counts[p]).tobytes() + np.sort(np.r_[a * counts[p] + b, b * counts[p] + a]).tobytes()
        if key not in seen:
            small, classes = distances(*_csr(a, b, int(counts[p])))
            seen[key] = (len(blocks), classes)
            blocks.append(small)
        which[p], classes = seen[key]
        cls[part == p] = classes[local[part == p]]
    return BlockDist(part, cls, _same_dtype(blocks), which)


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
