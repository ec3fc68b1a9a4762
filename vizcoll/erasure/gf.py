"""Arithmetic and linear algebra over GF(2^8), vectorised with numpy.

Elements are the integers 0..255 (``uint8`` arrays); addition is XOR, and
multiplication uses exp/log tables of the primitive polynomial
``x^8 + x^4 + x^3 + x^2 + 1`` (0x11d) with generator ``α = 2``, the field of
Reed–Solomon codes in storage (ISA-L, Jerasure). A full 256 × 256
multiplication table (64 KiB), built once from the exp/log tables, makes
``gf_mul`` a single fancy-index lookup on arrays of any shape.

Matrices are ``uint8`` arrays of shape (rows, columns). Gaussian elimination
(:func:`gf_rref`) gives the rank, solutions and null spaces; the ``*_batch``
functions eliminate thousands of small matrices at once (one numpy operation
per column for the whole batch), which is what makes the exact repair-group
and fault-tolerance enumerations of :mod:`vizcoll.erasure.metrics` fast.

Examples
--------
>>> int(gf_mul(2, 128))  # α · α^7 = α^8 = 0x11d ^ 0x100
29
>>> int(gf_mul(7, gf_inv(7)))
1
>>> gf_rank([[1, 2], [2, 4]])  # the second row is 2 × the first
1
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "PRIMITIVE_POLY",
    "ORDER",
    "EXP",
    "LOG",
    "MUL",
    "gf_mul",
    "gf_inv",
    "gf_pow",
    "gf_matmul",
    "gf_rref",
    "gf_rank",
    "gf_solve",
    "gf_in_span",
    "gf_inv_matrix",
    "gf_nullspace",
    "gf_rank_batch",
    "gf_in_span_batch",
    "as_gf",
]

PRIMITIVE_POLY = 0x11D
ORDER = 256


def _tables() -> tuple[np.ndarray, np.ndarray]:
    exp = np.zeros(512, dtype=np.uint8)
    log = np.zeros(256, dtype=np.int32)
    x = 1
    for i in range(255):
        exp[i] = x
        log[x] = i
        x <<= 1
        if x & 0x100:
            x ^= PRIMITIVE_POLY
    exp[255:510] = exp[:255]
    return exp, log


#: ``EXP[i] = α^i`` (doubled so that ``EXP[LOG[a] + LOG[b]]`` needs no modulo)
#: and ``LOG[a]`` for a ≠ 0 (``LOG[0]`` is unused).
EXP, LOG = _tables()
_a = np.arange(256)
#: ``MUL[a, b] = a · b`` in GF(2^8)
MUL = np.where((_a[:, None] == 0) | (_a[None, :] == 0), 0, EXP[LOG[_a][:, None] + LOG[_a][None, :]]).astype(np.uint8)
_INV = np.zeros(256, dtype=np.uint8)
_INV[1:] = EXP[(255 - LOG[1:]) % 255]
del _a


def as_gf(values) -> np.ndarray:
    """``values`` as a ``uint8`` array; raises ValueError for entries outside 0..255.

    >>> as_gf([[1, 255]]).dtype
    dtype('uint8')
    """
    arr = np.asarray(values)
    if arr.dtype != np.uint8:
        if arr.size and (not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0 or arr.max() > 255):
            raise ValueError("GF(2^8) elements must be integers from 0 to 255")
        arr = arr.astype(np.uint8)
    return arr


def gf_mul(a, b) -> np.ndarray:
    """Element-wise product (numpy broadcasting)."""
    return MUL[as_gf(a), as_gf(b)]


def gf_inv(a) -> np.ndarray:
    """Element-wise multiplicative inverse; raises ZeroDivisionError if an element is 0.

    >>> [int(gf_mul(a, gf_inv(a))) for a in (1, 2, 255)]
    [1, 1, 1]
    """
    a = as_gf(a)
    if np.any(a == 0):
        raise ZeroDivisionError("0 has no inverse in GF(2^8)")
    return _INV[a]


def gf_pow(a, e: int) -> np.ndarray:
    """a ** e element-wise for an integer e ≥ 0 (0 ** 0 = 1).

    >>> int(gf_pow(2, 8)), int(gf_pow(2, 255)), int(gf_pow(0, 0))
    (29, 1, 1)
    """
    a = as_gf(a)
    if e < 0:
        return gf_pow(gf_inv(a), -e)
    if e == 0:
        return np.ones_like(a)
    return np.where(a == 0, 0, EXP[(LOG[a].astype(np.int64) * e) % 255]).astype(np.uint8)


def gf_matmul(a, b) -> np.ndarray:
    """Matrix product over GF(2^8): ``(m × k) @ (k × n)``.

    >>> gf_matmul([[1, 2]], [[3], [4]]).tolist()  # 1·3 + 2·4 = 3 ^ 8
    [[11]]
    """
    a, b = as_gf(a), as_gf(b)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"cannot multiply {a.shape} by {b.shape}")
    if a.shape[1] == 0:
        return np.zeros((a.shape[0], b.shape[1]), dtype=np.uint8)
    return np.bitwise_xor.reduce(MUL[a[:, :, None], b[None, :, :]], axis=1)


def gf_rref(m, ncols: int | None = None) -> tuple[np.ndarray, list[int]]:
    """Reduced row echelon form and the pivot columns (pivots searched in the first ``ncols`` columns).

    Each pivot is 1 and is the only non-zero of its column. Returns a new array.

    >>> r, piv = gf_rref([[2, 4, 1], [3, 6, 0]])
    >>> piv, r.tolist()
    ([0, 2], [[1, 2, 0], [0, 0, 1]])
    """
    r = as_gf(m).copy()
    if r.ndim != 2:
        raise ValueError("gf_rref needs a 2-D matrix")
    rows, cols = r.shape
    ncols = cols if ncols is None else ncols
    pivots: list[int] = []
    row = 0
    for c in range(ncols):
        if row == rows:
            break
        nz = np.flatnonzero(r[row:, c])
        if nz.size == 0:
            continue
        p = row + int(nz[0])
        if p != row:
            r[[row, p]] = r[[p, row]]
        r[row] = MUL[r[row], _INV[r[row, c]]]
        factors = r[:, c].copy()
        factors[row] = 0
        r ^= MUL[factors[:, None], r[row][None, :]]
        pivots.append(c)
        row += 1
    return r, pivots


def gf_rank(m) -> int:
    """Rank of a matrix over GF(2^8)."""
    m = as_gf(m)
    if m.size == 0:
        return 0
    return len(gf_rref(m)[1])


def gf_solve(a, b) -> np.ndarray | None:
    """One solution x of ``a @ x = b`` (b a vector), or None when b is not in the column span of a.

    >>> a = [[1, 0], [0, 1], [1, 1]]
    >>> gf_solve(a, [5, 7, 2]).tolist()
    [5, 7]
    >>> gf_solve(a, [5, 7, 3]) is None
    True
    """
    a, b = as_gf(a), as_gf(b).reshape(-1)
    if a.ndim != 2 or a.shape[0] != b.size:
        raise ValueError(f"shapes {a.shape} and {b.shape} do not match")
    r, pivots = gf_rref(np.column_stack([a, b]), ncols=a.shape[1])
    if np.any(r[len(pivots) :, -1]):
        return None
    x = np.zeros(a.shape[1], dtype=np.uint8)
    x[pivots] = r[: len(pivots), -1]
    return x


def gf_in_span(columns, v) -> bool:
    """Is the vector ``v`` a linear combination of the columns of ``columns`` (k × s)?"""
    columns = as_gf(columns)
    v = as_gf(v).reshape(-1)
    if columns.size == 0:
        return not np.any(v)
    return gf_solve(columns, v) is not None


def gf_inv_matrix(m) -> np.ndarray:
    """Inverse of a square matrix; raises ValueError if it is singular.

    >>> gf_matmul([[1, 1], [1, 2]], gf_inv_matrix([[1, 1], [1, 2]])).tolist()
    [[1, 0], [0, 1]]
    """
    m = as_gf(m)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError("only a square matrix has an inverse")
    n = m.shape[0]
    r, pivots = gf_rref(np.column_stack([m, np.eye(n, dtype=np.uint8)]), ncols=n)
    if len(pivots) < n:
        raise ValueError("the matrix is singular")
    return r[:, n:]


def gf_nullspace(h) -> np.ndarray:
    """A basis of ``{x : h @ x = 0}`` as the rows of a matrix (dim × columns), systematic on the free columns.

    Row j is 1 at the j-th free (non-pivot) column of ``rref(h)`` and 0 at the other free columns.

    >>> g = gf_nullspace([[1, 1, 1]])
    >>> g.tolist(), gf_matmul([[1, 1, 1]], g.T).tolist()
    ([[1, 1, 0], [1, 0, 1]], [[0, 0]])
    """
    h = as_gf(h)
    cols = h.shape[1]
    r, pivots = gf_rref(h)
    free = [c for c in range(cols) if c not in set(pivots)]
    basis = np.zeros((len(free), cols), dtype=np.uint8)
    for j, f in enumerate(free):
        basis[j, f] = 1
        basis[j, pivots] = r[: len(pivots), f]  # x_p = −r[p, f] = r[p, f] in characteristic 2
    return basis


# ---------------------------------------------------------------- batched elimination
def _eliminate_batch(stack: np.ndarray, ncols: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Jordan on every matrix of ``stack`` (batch × rows × cols) over its first ``ncols`` columns.

    Returns the reduced stack and the (batch × rows) mask of the rows used as pivots.
    """
    b = stack.copy()
    batch, rows, _ = b.shape
    used = np.zeros((batch, rows), dtype=bool)
    every = np.arange(batch)
    for c in range(ncols):
        candidates = (b[:, :, c] != 0) & ~used
        has = candidates.any(axis=1)
        if not has.any():
            continue
        piv = candidates.argmax(axis=1)
        prow = b[every, piv, :]
        lead = np.where(has, prow[:, c], 1)
        prow = MUL[prow, _INV[lead][:, None]]
        prow[~has] = 0
        factors = b[:, :, c].copy()
        factors[every, piv] = 0
        b ^= MUL[factors[:, :, None], prow[:, None, :]]
        b[every[has], piv[has]] = prow[has]
        used[every[has], piv[has]] = True
    return b, used


def gf_rank_batch(stack) -> np.ndarray:
    """Ranks of a batch of matrices (batch × rows × cols) in one vectorised elimination.

    >>> gf_rank_batch([[[1, 2], [2, 4]], [[1, 0], [0, 1]]]).tolist()
    [1, 2]
    """
    stack = as_gf(stack)
    if stack.ndim != 3:
        raise ValueError("a batch is a 3-D array (batch, rows, columns)")
    if stack.shape[0] == 0 or stack.shape[2] == 0:
        return np.zeros(stack.shape[0], dtype=np.int64)
    _, used = _eliminate_batch(stack, stack.shape[2])
    return used.sum(axis=1)


def gf_in_span_batch(stack, target) -> np.ndarray:
    """For every matrix S of ``stack`` (batch × k × s): is ``target`` (k,) in the column span of S?

    >>> s = [[[1, 0], [0, 1], [0, 0]], [[1, 0], [1, 0], [0, 1]]]
    >>> gf_in_span_batch(s, [3, 5, 0]).tolist()
    [True, False]
    """
    stack, target = as_gf(stack), as_gf(target).reshape(-1)
    if stack.ndim != 3 or stack.shape[1] != target.size:
        raise ValueError(f"stack {stack.shape} does not match a target of length {target.size}")
    batch, rows, s = stack.shape
    if batch == 0:
        return np.zeros(0, dtype=bool)
    full = np.concatenate([stack, np.broadcast_to(target[None, :, None], (batch, rows, 1))], axis=2)
    reduced, used = _eliminate_batch(full, s)
    residue = np.where(used, 0, reduced[:, :, s])
    return ~residue.any(axis=1)
