"""Minimum-cross-DC repair groups of the blocks of a code, per remote block read or per remote DC.

See :mod:`vizcoll.erasure.metrics` for the definition (the group minimises the blocks read from other DCs,
then the blocks read, then the indices) and the budget.
"""

from __future__ import annotations

import itertools

import numpy as np

from vizcoll.erasure.bounds import dc_lower_bounds
from vizcoll.erasure.codes import Code
from vizcoll.erasure.gf import gf_in_span, gf_matmul, gf_rank
from vizcoll.erasure.subsets import Budget, min_remote_sets, min_sets, projector
from vizcoll.erasure.tolerance import dc_failures_survived
from vizcoll.errors import SpecError

__all__ = ["TRAFFIC", "check_traffic", "dc_bounds", "repair_group", "repair_group_aggregated", "repair_groups"]

#: the two ways to count cross-DC repair traffic: every remote block read, or one combined block per remote DC
TRAFFIC = ("blocks", "aggregated")
CHUNK = 4096
MAX_TIE_SETS = 256


def check_traffic(traffic: str) -> str:
    """``traffic`` if it is one of :data:`TRAFFIC`; else a SpecError."""
    if traffic not in TRAFFIC:
        raise SpecError(f"unknown traffic model {traffic!r}; choose {' or '.join(TRAFFIC)}")
    return traffic


def _unrepairable(code: Code, i: int, **extra) -> dict:
    """The repair-group record of a block that the other blocks cannot rebuild."""
    return {
        "block": i,
        "dc": code.placement[i],
        "group": None,
        "remote": None,
        "local": None,
        "cross_dc": None,
        "reads": None,
        "exact": True,
        **extra,
    }


def _group(code: Code, i: int, remote: list[int], local: list[int], exact: bool, **extra) -> dict:
    group = sorted(set(remote) | set(local))
    return {
        "block": i,
        "dc": code.placement[i],
        "group": group,
        "remote": sorted(remote),
        "local": sorted(local),
        "cross_dc": len(remote),
        "reads": len(group),
        "exact": exact,
        **extra,
    }


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
        return _group(code, i, remote[: k - len(local)], local, True)
    proj = projector(g[:, local], k)
    projected = gf_matmul(proj, g)
    by_dc: dict[int, list[int]] = {}
    for j in remote:
        by_dc.setdefault(code.placement[j], []).append(j)
    found = min_remote_sets(projected[:, i], {j: projected[:, j] for j in remote}, by_dc, budget, at_least)
    if found.size is None:  # out of budget
        chosen, used = _greedy(code, i, local, remote)
        return _group(code, i, chosen, used, False, lower_bound=found.checked_below)
    best: tuple | None = None
    exact = True
    for rset in found.sets:
        rset = list(rset)
        q = projector(g[:, rset], k) if rset else np.eye(k, dtype=np.uint8)
        inner = min_sets(gf_matmul(q, t[:, None])[:, 0], gf_matmul(q, g[:, local]), local, budget, first_only=True)
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
        hits = [
            list(dcs)
            for dcs in itertools.combinations(others, size)
            if gf_in_span(g[:, local + [j for w in dcs for j in blocks[w]]], t)
        ]
        if hits:
            break
    best: tuple | None = None
    exact = True
    for dcs in hits:  # fewest local reads given everything the remote DCs hold
        pool = [j for w in dcs for j in blocks[w]]
        q = projector(g[:, pool], k) if pool else np.eye(k, dtype=np.uint8)
        found = min_sets(gf_matmul(q, t[:, None])[:, 0], gf_matmul(q, g[:, local]), local, budget, first_only=True)
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


def repair_groups(
    code: Code,
    budget: Budget | None = None,
    traffic: str = "blocks",
    blocks: list[int] | None = None,
    bounds: list[int] | None = None,
) -> list[dict]:
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
