"""Exact repair and fault-tolerance metrics of any code on any placement.

For a :class:`~vizcoll.erasure.codes.Code` (generator ``G``, DC of every block):

- **Repair group** of block ``i`` (:func:`repair_group`): the blocks read to
  rebuild it. Every surviving block of ``i``'s own DC may be read for free;
  the group minimises the number of blocks read from *other* DCs (its
  cross-DC repair traffic, in blocks), then the total number of blocks read,
  then the block indices (lexicographically). Exact: the local blocks are
  factored out (projection onto ``GF^k / span(local)``), and sets of remote
  blocks are enumerated by increasing size — starting from a proven lower
  bound (:mod:`vizcoll.erasure.bounds`) and skipping every set of DCs whose
  blocks together cannot reach the target — thousands at a time with rank
  checks (:func:`~vizcoll.erasure.gf.gf_in_span_batch`). The tie-breaks look
  at the first ``MAX_TIE_SETS`` (256) smallest remote sets in index order.
  For an MDS code the closed form holds: ``max(0, k − local survivors)``
  remote blocks, ``k`` reads in all.
- **T̄** (:meth:`Metrics.mean_traffic`): the mean cross-DC traffic over the
  ``n`` blocks.
- **DC failures survived** (:func:`dc_failures_survived`): the largest ``f``
  such that losing *any* ``f`` DCs leaves rank ``k`` (every subset checked).
- **Block failures tolerated** (:func:`block_failures_tolerated`): the
  largest ``t`` such that *any* ``t`` lost blocks can be rebuilt (= minimum
  distance − 1), checked on the parity-check matrix ``H`` (``t`` erasures are
  recoverable iff those ``t`` columns of ``H`` are independent).
- **Repair time** (:class:`RepairTimeModel`): ms per MB of a block.

The enumerations are exponential; a :class:`Budget` of subset checks bounds
them (one for the repair groups, one for the block tolerance). A block whose
search runs out of budget gets the best group found (greedy) with
``exact: False`` and the size up to which no smaller group exists; the page
and the CLI show the flag. The codes of this package keep
well inside the default budget up to ``n = 32`` except wide LRC global
parities (see the benchmark).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from vizcoll.erasure.bounds import dc_lower_bounds
from vizcoll.erasure.codes import Code
from vizcoll.erasure.gf import (
    MUL,
    gf_in_span,
    gf_in_span_batch,
    gf_inv,
    gf_matmul,
    gf_nullspace,
    gf_rank,
    gf_rank_batch,
    gf_rref,
)
from vizcoll.errors import SpecError

__all__ = [
    "DEFAULT_BUDGET",
    "Budget",
    "RepairTimeModel",
    "Metrics",
    "TRAFFIC",
    "check_traffic",
    "repair_group",
    "repair_group_aggregated",
    "repair_groups",
    "dc_bounds",
    "dc_failures_survived",
    "survives",
    "block_failures_tolerated",
    "dc_failure",
    "evaluate",
    "is_mds",
    "with_mds_flag",
]

DEFAULT_BUDGET = 3_000_000
#: the two ways to count cross-DC repair traffic: every remote block read, or one combined block per remote DC
TRAFFIC = ("blocks", "aggregated")
CHUNK = 4096
MAX_TIE_SETS = 256


def check_traffic(traffic: str) -> str:
    """``traffic`` if it is one of :data:`TRAFFIC`; else a SpecError."""
    if traffic not in TRAFFIC:
        raise SpecError(f"unknown traffic model {traffic!r}; choose {' or '.join(TRAFFIC)}")
    return traffic


def _combination_chunks(items: int, size: int):
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
def _projector(cols: np.ndarray, k: int) -> np.ndarray:
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
class _Found:
    size: int | None  # the minimum size, None if not found
    sets: list[tuple[int, ...]]  # class-index tuples of that size (all, or the first)
    classes: list[tuple[np.ndarray, list[int]]]
    exhausted: bool = False  # the budget ran out before ``size`` was settled
    checked_below: int = 0  # no set smaller than this spans the target


def _min_sets(target: np.ndarray, vecs: np.ndarray, labels: list[int], budget: Budget, first_only: bool,
              start: int = 1) -> _Found:
    """Smallest subsets of the columns of ``vecs`` whose span contains ``target`` (enumerated by size from
    ``start``, a proven lower bound); at the smallest size at most ``MAX_TIE_SETS`` of them, in index order."""
    classes = _classes(vecs, labels)
    if not np.any(target):
        return _Found(0, [()], classes)
    reps = np.array([u for u, _ in classes], dtype=np.uint8).reshape(len(classes), target.size)
    if not classes or not gf_in_span(reps.T, target):
        return _Found(None, [], classes)
    for size in range(max(1, start), min(len(classes), target.size) + 1):
        hits: list[tuple[int, ...]] = []
        for chunk in _combination_chunks(len(classes), size):
            if not budget.take(len(chunk)):
                return _Found(None, [], classes, exhausted=True, checked_below=size)
            stack = np.transpose(reps[chunk], (0, 2, 1))
            ok = gf_in_span_batch(stack, target)
            hits.extend(tuple(int(c) for c in row) for row in chunk[ok])
            if hits and (first_only or len(hits) >= MAX_TIE_SETS):
                return _Found(size, hits[:1] if first_only else hits[:MAX_TIE_SETS], classes)
        if hits:
            return _Found(size, hits, classes)
    return _Found(None, [], classes)  # unreachable: the span check above guarantees a set of size ≤ q


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


def _min_remote_sets(target: np.ndarray, vecs: dict[int, np.ndarray], by_dc: dict[int, list[int]], budget: Budget,
                     start: int) -> _Found:
    """Smallest sets of remote blocks whose projected span contains ``target``, as sorted block tuples.

    Sets are enumerated by size, and within a size by the DCs they touch: a set of DCs whose blocks together
    cannot reach the target is skipped whole (one rank check instead of every subset of its blocks). At the
    smallest size at most ``MAX_TIE_SETS`` sets are collected.
    """
    if not np.any(target):
        return _Found(0, [()], [])
    dcs = sorted(by_dc)
    reach: dict[tuple[int, ...], bool] = {}

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
                        return _Found(None, [], [], exhausted=True, checked_below=size)
                    stack = np.stack([np.column_stack([vecs[b] for b in c]) for c in chunk])
                    ok = gf_in_span_batch(stack, target)
                    hits.extend(tuple(sorted(c)) for c, good in zip(chunk, ok, strict=True) if good)
                    if len(hits) >= MAX_TIE_SETS:
                        return _Found(size, sorted(hits)[:MAX_TIE_SETS], [])
        if hits:
            return _Found(size, sorted(hits), [])
    return _Found(None, [], [])


# ---------------------------------------------------------------- repair groups
def _unrepairable(code: Code, i: int, **extra) -> dict:
    """The repair-group record of a block that the other blocks cannot rebuild."""
    return {"block": i, "dc": code.placement[i], "group": None, "remote": None, "local": None, "cross_dc": None,
            "reads": None, "exact": True, **extra}


def _group(code: Code, i: int, remote: list[int], local: list[int], exact: bool, **extra) -> dict:
    group = sorted(set(remote) | set(local))
    return {"block": i, "dc": code.placement[i], "group": group, "remote": sorted(remote), "local": sorted(local),
            "cross_dc": len(remote), "reads": len(group), "exact": exact, **extra}


def _greedy(code: Code, i: int, local: list[int], remote: list[int]) -> tuple[list[int], list[int]]:
    """An upper bound: add remote blocks that raise the rank until block i is covered, then drop what is not needed."""
    g = code.generator
    t = g[:, i]
    chosen: list[int] = []
    base = list(local)
    rank = gf_rank(g[:, base]) if base else 0
    for j in remote:
        if gf_in_span(g[:, base + chosen], t):
            break
        trial = gf_rank(g[:, base + chosen + [j]])
        if trial > rank:
            chosen.append(j)
            rank = trial
    for j in list(reversed(chosen)):
        rest = [c for c in chosen if c != j]
        if gf_in_span(g[:, base + rest], t):
            chosen = rest
    used_local = list(local)
    for j in list(reversed(used_local)):
        rest = [c for c in used_local if c != j]
        if gf_in_span(g[:, rest + chosen], t):
            used_local = rest
    return chosen, used_local


def repair_group(code: Code, i: int, budget: Budget | None = None, at_least: int = 0) -> dict:
    """The minimum-cross-DC repair group of block ``i``.

    Returns ``{"block", "dc", "group", "remote", "local", "cross_dc", "reads", "exact"}`` (``group`` = every
    block read, ``remote`` / ``local`` its parts in other DCs / in ``i``'s DC); ``group`` and the counts are
    None when block ``i`` cannot be rebuilt from the others at all. ``at_least`` is a proven lower bound on the
    remote blocks needed (:func:`~vizcoll.erasure.bounds.dc_lower_bounds`): smaller sets are not tried.

    >>> from vizcoll.erasure.codes import replication
    >>> repair_group(replication(3, 1, 3), 2)["group"]
    [0]
    """
    budget = budget or Budget()
    g = code.generator
    n, k = code.n, code.k
    t = g[:, i]
    z = code.placement[i]
    local = [j for j in range(n) if j != i and code.placement[j] == z]
    remote = [j for j in range(n) if code.placement[j] != z]
    if not gf_in_span(g[:, local + remote], t):
        return _unrepairable(code, i)
    if code.mds:  # any k blocks rebuild any other, fewer never do
        if len(local) >= k:
            return _group(code, i, [], local[:k], True)
        return _group(code, i, remote[:k - len(local)], local, True)
    proj = _projector(g[:, local], k)
    projected = gf_matmul(proj, g)
    by_dc: dict[int, list[int]] = {}
    for j in remote:
        by_dc.setdefault(code.placement[j], []).append(j)
    found = _min_remote_sets(projected[:, i], {j: projected[:, j] for j in remote}, by_dc, budget, at_least)
    if found.size is None:  # out of budget
        chosen, used = _greedy(code, i, local, remote)
        return _group(code, i, chosen, used, False, lower_bound=found.checked_below)
    best: tuple | None = None
    exact = True
    for rset in found.sets:
        rset = list(rset)
        q = _projector(g[:, rset], k) if rset else np.eye(k, dtype=np.uint8)
        inner = _min_sets(gf_matmul(q, t[:, None])[:, 0], gf_matmul(q, g[:, local]), local, budget,
                          first_only=True)
        if inner.size is None:
            exact = False
            continue
        lset = [inner.classes[c][1][0] for c in inner.sets[0]]
        key = (len(rset) + len(lset), sorted(rset + lset))
        if best is None or key < best[0]:
            best = (key, rset, lset)
    if best is None:
        chosen, used = _greedy(code, i, local, remote)
        return _group(code, i, chosen, used, False, lower_bound=found.size)
    return _group(code, i, best[1], best[2], exact)


def repair_group_aggregated(code: Code, i: int, budget: Budget | None = None, at_least: int = 0) -> dict:
    """The repair group of block ``i`` when every remote DC combines its blocks into one before sending.

    Cross-DC traffic is then the number of remote DCs contacted (one block each): the fewest DCs ``W`` with
    ``y_i`` in the span of its own DC's survivors and the blocks of ``W``; ties → fewest blocks read in the
    block's own DC (what the repair time depends on), then lowest indices. The remote blocks listed are an
    irredundant set that the remote DCs combine (each reads them inside its DC; not necessarily the fewest).
    Adds ``"remote_dcs"``.

    >>> from vizcoll.erasure.codes import reed_solomon
    >>> r = repair_group_aggregated(reed_solomon(9, 5, 3), 0)
    >>> r["cross_dc"], r["remote_dcs"], r["reads"]
    (1, [1], 5)
    """
    budget = budget or Budget()
    g = code.generator
    k = code.k
    t = g[:, i]
    z = code.placement[i]
    blocks = code.dc_blocks()
    local = [j for j in blocks[z] if j != i]
    others = [w for w in range(code.dcs) if w != z and blocks[w]]
    if not gf_in_span(g[:, local + [j for w in others for j in blocks[w]]], t):
        return _unrepairable(code, i, remote_dcs=None)
    if code.mds:  # any k blocks: the fewest DCs holding k − local blocks, then the lowest indices
        need = max(0, k - len(local))
        for size in range(0, len(others) + 1):
            for dcs in itertools.combinations(others, size):
                pool = sorted(j for w in dcs for j in blocks[w])
                if len(pool) >= need:
                    remote = pool[:need]
                    used = sorted({code.placement[j] for j in remote})
                    return _group(code, i, remote, local[:k], True) | {"cross_dc": len(used), "remote_dcs": used}
    for size in range(at_least, len(others) + 1):
        hits = [list(dcs) for dcs in itertools.combinations(others, size)
                if gf_in_span(g[:, local + [j for w in dcs for j in blocks[w]]], t)]
        if hits:
            break
    best: tuple | None = None
    exact = True
    for dcs in hits:  # fewest local reads given everything the remote DCs hold
        pool = [j for w in dcs for j in blocks[w]]
        q = _projector(g[:, pool], k) if pool else np.eye(k, dtype=np.uint8)
        found = _min_sets(gf_matmul(q, t[:, None])[:, 0], gf_matmul(q, g[:, local]), local, budget, first_only=True)
        if found.size is None:
            exact = False
            used = list(local)
        else:
            used = [found.classes[c][1][0] for c in found.sets[0]]
        if best is None or (len(used), used) < (len(best[1]), best[1]):
            best = (dcs, used)
    dcs, used = best
    remote = [j for w in dcs for j in blocks[w]]
    for j in reversed(list(remote)):  # an irredundant set of remote blocks (each remote DC combines these)
        rest = [r for r in remote if r != j]
        if gf_in_span(g[:, used + rest], t):
            remote = rest
    return _group(code, i, remote, used, exact) | {"cross_dc": len(dcs), "remote_dcs": sorted(dcs)}


def repair_groups(code: Code, budget: Budget | None = None, traffic: str = "blocks",
                  blocks: list[int] | None = None, bounds: list[int] | None = None) -> list[dict]:
    """The repair group of every block (or of ``blocks``; one shared budget), counting traffic per block or per
    remote DC; ``bounds`` are the code's :func:`dc_bounds` when the caller has them."""
    budget = budget or Budget()
    one = repair_group if check_traffic(traffic) == "blocks" else repair_group_aggregated
    bounds = dc_bounds(code) if bounds is None else bounds
    return [one(code, i, budget, bounds[code.placement[i]]) for i in (range(code.n) if blocks is None else blocks)]


def dc_bounds(code: Code, survived: int | None = None) -> list[int]:
    """Per DC, the fewest remote DCs any repair group of its blocks reads from (from the code's own DC ranks
    and the DC failures it survives, ``survived`` when the caller knows it)."""
    blocks = code.dc_blocks()
    ranks = [gf_rank(code.generator[:, b]) if b else 0 for b in blocks]
    survived = dc_failures_survived(code) if survived is None else survived
    return dc_lower_bounds([len(b) for b in blocks], ranks, code.k, survived)


# ---------------------------------------------------------------- MDS check
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
    return all(np.all(gf_rank_batch(np.transpose(m[:, chunk], (1, 0, 2))) == size)
               for chunk in _combination_chunks(n, size))


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
        stack[b, :, :len(cols)] = g[:, cols]
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
        for chunk in _combination_chunks(n, t):
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
    return {"failed": failed, "lost": lost, "survives": rank == code.k, "rank": rank, "recoverable": recoverable,
            "unrecoverable": [i for i in lost if i not in set(recoverable)]}


# ---------------------------------------------------------------- repair time
@dataclass(frozen=True)
class RepairTimeModel:
    """Time to rebuild one block, per MB of block: reads over the intra-DC and cross-DC links, then decoding.

    ``t = 1000 · (remote / cross_dc_mb_s + local / intra_dc_mb_s) + decode_ms_per_mb · reads`` (ms per MB),
    where the decode term applies only when the repair combines two or more blocks (copying a replica needs no
    arithmetic). Reads are sequential through the repairing node's links.

    Defaults and how they relate to the paper's Table 2 (t̄ = 86.6, 83.2, 62.1, 82.1 ms/MB for FMEL(6,2),
    3 replicas, FMEL(9,5), 2 replicas over 3, 3, 3, 2 DCs):

    - ``cross_dc_mb_s = 12.1`` is *fitted* to the replica columns: a replica repair is one cross-DC copy, so
      t = 1000 / B_x; 83.2 and 82.1 give B_x = 12.0 and 12.2 MB/s, mean 12.1 (about a 100 Mbit/s WAN link);
    - ``intra_dc_mb_s = 400`` and ``decode_ms_per_mb = 0.7`` are *chosen* (round numbers, a 3–4 Gbit/s LAN
      path and ~1.4 GB/s of GF(2^8) multiply-add per input) so that the two FMEL columns come out: FMEL(6,2)
      reads 1 local + 1 remote block → 82.6 + 2.5 + 1.4 = 86.6; FMEL(9,5) reads 2 local blocks and on average
      2/3 remote block → 55.1 + 5.0 + 1.9 = 62.0 (paper 62.1). Three parameters for four numbers: the two
      FMEL values determine the last two, so this is a fit, not a prediction.
    """

    cross_dc_mb_s: float = 12.1
    intra_dc_mb_s: float = 400.0
    decode_ms_per_mb: float = 0.7

    def __post_init__(self) -> None:
        for name in ("cross_dc_mb_s", "intra_dc_mb_s"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise SpecError(f"{name.replace('_', ' ')} must be a positive number, got {value!r}")
        if not (math.isfinite(self.decode_ms_per_mb) and self.decode_ms_per_mb >= 0):
            raise SpecError(f"decode ms per MB must be ≥ 0, got {self.decode_ms_per_mb!r}")

    def block_ms_per_mb(self, remote: int, local: int) -> float:
        reads = remote + local
        decode = self.decode_ms_per_mb * reads if reads > 1 else 0.0
        return 1000.0 * (remote / self.cross_dc_mb_s + local / self.intra_dc_mb_s) + decode

    def to_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------- everything at once
def _mean(values: list) -> float | None:
    return None if any(v is None for v in values) else sum(values) / len(values)


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


@dataclass
class Metrics:
    """Every metric of a code (JSON-ready with :meth:`to_dict`), under both traffic models.

    ``repair`` counts every remote block read; ``repair_aggregated`` lets each remote DC send one combination
    of its blocks (see :func:`repair_group_aggregated`).
    """

    code: Code
    repair: list[dict]
    repair_aggregated: list[dict]
    dc_failures_survived: int
    block_tolerance: dict
    model: RepairTimeModel = field(default_factory=RepairTimeModel)
    budget_used: int = 0

    def groups(self, traffic: str = "blocks") -> list[dict]:
        return self.repair if traffic == "blocks" else self.repair_aggregated

    def traffic(self, traffic: str = "blocks") -> list[int | None]:
        """Cross-DC repair traffic of every block (blocks); None for a block that cannot be rebuilt."""
        return [r["cross_dc"] for r in self.groups(traffic)]

    def mean_traffic(self, traffic: str = "blocks") -> float | None:
        """T̄: the mean cross-DC repair traffic over the n blocks (None if a block cannot be rebuilt)."""
        return _mean(self.traffic(traffic))

    def repair_times(self, traffic: str = "blocks") -> list[float | None]:
        """Modelled repair time of every block, ms per MB (local reads + cross-DC blocks + decoding)."""
        return [None if r["group"] is None else self.model.block_ms_per_mb(r["cross_dc"], len(r["local"]))
                for r in self.groups(traffic)]

    def repair_time(self, traffic: str = "blocks") -> float | None:
        """t̄: the mean modelled repair time, ms per MB."""
        return _mean(self.repair_times(traffic))

    @property
    def exact(self) -> bool:
        return (all(r["exact"] for r in self.repair + self.repair_aggregated)
                and bool(self.block_tolerance["exact"]))

    def summary(self) -> dict:
        """The headline numbers (what the comparison tables show)."""
        c = self.code
        return {"code": c.family, "name": c.name, "n": c.n, "k": c.k, "dcs": c.dcs,
                "mean_traffic": _round(self.mean_traffic("blocks"), 6),
                "mean_traffic_aggregated": _round(self.mean_traffic("aggregated"), 6),
                "dc_failures_survived": self.dc_failures_survived,
                "block_failures_tolerated": self.block_tolerance["tolerated"],
                "block_tolerance_exact": self.block_tolerance["exact"],
                "block_tolerance_upper": self.block_tolerance.get("upper", self.block_tolerance["tolerated"]),
                "overhead": round(c.overhead, 6),
                "repair_time_ms_per_mb": _round(self.repair_time("blocks"), 3),
                "repair_time_ms_per_mb_aggregated": _round(self.repair_time("aggregated"), 3),
                "exact": self.exact}

    def to_dict(self) -> dict:
        c = self.code
        return {
            **self.summary(),
            "placement": list(c.placement), "generator": c.generator.tolist(), "kinds": list(c.kinds),
            "data_blocks": list(c.data_blocks), "mds": c.mds, "params": dict(c.params),
            "repair_groups": [dict(r) for r in self.repair],
            "repair_groups_aggregated": [dict(r) for r in self.repair_aggregated],
            "cross_dc_traffic": self.traffic("blocks"),
            "cross_dc_traffic_aggregated": self.traffic("aggregated"),
            "worst_block_failure": self.block_tolerance.get("worst"),
            "repair_time_per_block": [_round(v, 3) for v in self.repair_times("blocks")],
            "repair_time_per_block_aggregated": [_round(v, 3) for v in self.repair_times("aggregated")],
            "repair_time_model": self.model.to_dict(),
            "budget_used": self.budget_used,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Metrics:
        code = Code.from_dict({"family": d["code"], **{key: d[key] for key in (
            "name", "n", "k", "dcs", "generator", "placement", "kinds", "data_blocks", "mds", "params")}})
        return cls(code=code, repair=[dict(r) for r in d["repair_groups"]],
                   repair_aggregated=[dict(r) for r in d["repair_groups_aggregated"]],
                   dc_failures_survived=int(d["dc_failures_survived"]),
                   block_tolerance={"tolerated": d["block_failures_tolerated"], "exact": d["block_tolerance_exact"],
                                    "worst": d.get("worst_block_failure"),
                                    "upper": d.get("block_tolerance_upper", d["block_failures_tolerated"])},
                   model=RepairTimeModel(**d.get("repair_time_model", {})), budget_used=int(d.get("budget_used", 0)))


def evaluate(code: Code, model: RepairTimeModel | None = None, budget: int = DEFAULT_BUDGET,
             tolerance_budget: int | None = None) -> Metrics:
    """Repair groups (both traffic models), T̄, DC and block fault tolerance, overhead and repair time of ``code``.

    >>> from vizcoll.erasure.codes import reed_solomon
    >>> m = evaluate(reed_solomon(9, 5, 3))
    >>> m.mean_traffic(), m.mean_traffic("aggregated"), m.dc_failures_survived, m.block_tolerance["tolerated"]
    (3.0, 1.0, 1, 4)
    """
    spent, spent_tolerance = Budget(budget), Budget(budget if tolerance_budget is None else tolerance_budget)
    code = with_mds_flag(code)
    survived = dc_failures_survived(code)
    bounds = dc_bounds(code, survived)
    repair = repair_groups(code, spent, "blocks", bounds=bounds)
    aggregated = repair_groups(code, spent, "aggregated", bounds=bounds)
    tolerance = block_failures_tolerated(code, spent_tolerance)
    return Metrics(code=code, repair=repair, repair_aggregated=aggregated,
                   dc_failures_survived=survived, block_tolerance=tolerance,
                   model=model or RepairTimeModel(), budget_used=spent.used + spent_tolerance.used)
