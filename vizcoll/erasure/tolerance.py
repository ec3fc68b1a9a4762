"""Fault tolerance of a code: DC failures survived, block failures tolerated, the MDS check, one DC failure."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from vizcoll.erasure.codes import Code
from vizcoll.erasure.gf import gf_in_span, gf_nullspace, gf_rank, gf_rank_batch, gf_rref
from vizcoll.erasure.subsets import CHUNK, Budget, combination_chunks

__all__ = [
    "MDS_CHECK_LIMIT",
    "block_failures_tolerated",
    "dc_failure",
    "dc_failures_survived",
    "is_mds",
    "survives",
    "with_mds_flag",
]

MDS_CHECK_LIMIT = 300_000


def is_mds(g, limit: int = MDS_CHECK_LIMIT) -> bool | None:
    """Are every k columns of ``g`` independent? Checked on all C(n, k) subsets (on the dual code's
    (n − k)-subsets when that is smaller); None when there are more than ``limit`` subsets.

    >>> from vizcoll.erasure.codes import lrc, reed_solomon
    >>> is_mds(reed_solomon(7, 3, 1).generator), is_mds(lrc(9, 5, 3).generator)
    (True, False)
    """
    g = np.asarray(g, dtype=np.uint8)
    k, n = g.shape
    if math.comb(n, k) > limit:
        return None
    m, size = (g, k) if k <= n - k else (gf_nullspace(g), n - k)
    if size == 0:
        return True
    return all(
        np.all(gf_rank_batch(np.transpose(m[:, chunk], (1, 0, 2))) == size) for chunk in combination_chunks(n, size)
    )


def with_mds_flag(code: Code, limit: int = MDS_CHECK_LIMIT) -> Code:
    """``code`` with ``mds`` set when an exhaustive check (within ``limit`` subsets) proves it MDS."""
    if code.mds or not is_mds(code.generator, limit):
        return code
    return dataclasses.replace(code, mds=True, params=dict(code.params) | {"mds_checked": True})


# ---------------------------------------------------------------- fault tolerance
def _survivor_ranks(g: np.ndarray, keep_sets: list[list[int]]) -> np.ndarray:
    width = max((len(s) for s in keep_sets), default=0)
    stack = np.zeros((len(keep_sets), g.shape[0], max(width, 1)), dtype=np.uint8)
    for b, cols in enumerate(keep_sets):
        stack[b, :, : len(cols)] = g[:, cols]
    return gf_rank_batch(stack)


def survives(code: Code, f: int) -> bool:
    """Does losing any ``f`` DCs leave rank k? (Every f-subset is checked; smaller losses follow.)"""
    if f <= 0:
        return True
    blocks = code.dc_blocks()
    lost_sets = itertools.combinations(range(code.dcs), f)
    while True:
        chunk = list(itertools.islice(lost_sets, CHUNK))
        if not chunk:
            return True
        keeps = [[j for z in range(code.dcs) if z not in lost for j in blocks[z]] for lost in chunk]
        if np.any(_survivor_ranks(code.generator, keeps) < code.k):
            return False


def dc_failures_survived(code: Code) -> int:
    """The largest f such that losing any f DCs (every subset checked) leaves rank k.

    >>> from vizcoll.erasure.codes import replication
    >>> dc_failures_survived(replication(3, 1, 3))
    2
    """
    for f in range(1, code.dcs + 1):
        if not survives(code, f):
            return f - 1
    return code.dcs  # unreachable: losing every DC leaves nothing


def block_failures_tolerated(code: Code, budget: Budget | None = None) -> dict:
    """The largest t such that any t lost blocks can be rebuilt, and a smallest set that cannot.

    Returns ``{"tolerated", "exact", "worst", "upper"}``; ``worst`` is the first unrecoverable set of
    ``tolerated + 1`` blocks found (None for an MDS code, whose every set of n − k + 1 blocks is one). With
    ``exact`` False the budget ran out: any ``tolerated`` blocks are recoverable, larger sets were not all
    checked, and ``upper`` bounds the true value from above.

    >>> from vizcoll.erasure.codes import lrc
    >>> block_failures_tolerated(lrc(9, 5, 3))["tolerated"]
    2
    """
    budget = budget or Budget()
    n, k = code.n, code.k
    if code.mds:
        return {"tolerated": n - k, "exact": True, "worst": None, "upper": n - k}
    h = gf_nullspace(code.generator)  # rows: a basis of the dual code
    for t in range(1, n - k + 2):
        for chunk in combination_chunks(n, t):
            if not budget.take(len(chunk)):
                return {"tolerated": t - 1, "exact": False, "worst": None, "upper": _tolerance_upper(code)}
            ranks = gf_rank_batch(np.transpose(h[:, chunk], (1, 0, 2)))
            bad = np.flatnonzero(ranks < t)
            if bad.size:
                return {"tolerated": t - 1, "exact": True, "worst": [int(c) for c in chunk[bad[0]]], "upper": t - 1}
    return {"tolerated": n - k, "exact": True, "worst": None, "upper": n - k}  # unreachable (Singleton bound)


def _tolerance_upper(code: Code) -> int:
    """An upper bound on the block failures tolerated: n − k (Singleton), the support of a row of the reduced
    generator (a codeword) minus one, and the blocks of the smallest fatal set of DCs minus one."""
    rows, _ = gf_rref(code.generator)
    bound = min(code.n - code.k, int(np.count_nonzero(rows, axis=1).min()) - 1)
    blocks = code.dc_blocks()
    f = dc_failures_survived(code) + 1
    for lost in sorted(itertools.combinations(range(code.dcs), f), key=lambda c: sum(len(blocks[z]) for z in c)):
        alive = [j for z in range(code.dcs) if z not in lost for j in blocks[z]]
        if not alive or gf_rank(code.generator[:, alive]) < code.k:
            return min(bound, sum(len(blocks[z]) for z in lost) - 1)
    return bound


def dc_failure(code: Code, failed) -> dict:
    """What losing the DCs in ``failed`` does: lost blocks, whether the stripe survives, which lost blocks return.

    >>> from vizcoll.erasure.codes import reed_solomon
    >>> out = dc_failure(reed_solomon(6, 2, 3), [0, 1])
    >>> out["survives"], out["lost"], out["recoverable"]
    (True, [0, 1, 2, 3], [0, 1, 2, 3])
    """
    failed = sorted({int(z) for z in failed if 0 <= int(z) < code.dcs})
    lost = [i for i, z in enumerate(code.placement) if z in failed]
    alive = [i for i in range(code.n) if i not in set(lost)]
    g = code.generator
    rank = gf_rank(g[:, alive]) if alive else 0
    recoverable = list(lost) if rank == code.k else [i for i in lost if gf_in_span(g[:, alive], g[:, i])]
    return {
        "failed": failed,
        "lost": lost,
        "survives": rank == code.k,
        "rank": rank,
        "recoverable": recoverable,
        "unrecoverable": [i for i in lost if i not in set(recoverable)],
    }
