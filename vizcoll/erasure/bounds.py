"""Necessary conditions on the DC spans of any code that survives D DC failures (used by the search and the metrics).

For a code on N DCs, let ``ρ_z`` be the rank of DC z's blocks. Surviving any
``D`` DC failures means every set of ``N − D`` DCs keeps rank ``k``, so the
sum of their ranks is at least ``k`` (:func:`survivors_ok`). A repair group of
a block of an *independent* DC z (its blocks linearly independent) that reads
from the DCs ``W`` is a linear dependency across ``{z} ∪ W``: their spans are
not independent, so any surviving set containing them all has rank at most
``Σ ρ − 1`` (:func:`fits`). Hence such a block reads from at least
:func:`fewest_helpers` other DCs — under either traffic model.
"""

from __future__ import annotations

__all__ = ["counting_tolerance", "survivors_ok", "fits", "helpers", "fewest_helpers", "dc_lower_bounds"]


def counting_tolerance(sizes, k: int) -> int:
    """Largest D such that any N − D DCs hold at least k blocks (an upper bound on the DC failures survived).

    >>> counting_tolerance((3, 3, 3), 5), counting_tolerance((2, 2, 2), 2)
    (1, 2)
    """
    ordered = sorted(sizes)
    best = 0
    for d in range(len(ordered)):
        if sum(ordered[: len(ordered) - d]) >= k:
            best = d
    return best


def survivors_ok(ranks: list[int], k: int, d: int) -> bool:
    keep = len(ranks) - d
    return keep > 0 and sum(sorted(ranks)[:keep]) >= k


def fits(dcs: tuple[int, ...], ranks: list[int], k: int, d: int) -> bool:
    """Can a check over (some blocks of) these DCs exist? Every surviving set of N − D DCs containing them all
    must keep rank k with one block redundant."""
    keep = len(ranks) - d
    if len(dcs) > keep:
        return True
    rest = sorted(ranks[u] for u in range(len(ranks)) if u not in dcs)
    return sum(ranks[u] for u in dcs) + sum(rest[: keep - len(dcs)]) - 1 >= k


def helpers(z: int, ranks: list[int], sizes: list[int], k: int, d: int) -> list[int]:
    """DCs that may help a block of independent DC z alone: every surviving set of N − D DCs containing both
    must keep rank k with one of its blocks redundant (a necessary condition, :func:`fits`)."""
    return [w for w in range(len(ranks)) if w != z and sizes[w] and fits((z, w), ranks, k, d)]


def fewest_helpers(z: int, ranks: list[int], sizes: list[int], k: int, d: int) -> int | None:
    """The fewest other DCs a repair group of a block of independent DC z can span (:func:`fits`);
    None if no set of DCs can hold one.

    For m helpers the most favourable choice is the m other DCs of largest rank (the worst surviving set then
    adds the smallest ranks of the rest), so each m takes one sum.

    >>> fewest_helpers(0, [4] * 8, [4] * 8, 16, 4), fewest_helpers(0, [3, 3, 3], [3, 3, 3], 5, 1)
    (4, 1)
    """
    keep = len(ranks) - d
    others = sorted(ranks[w] for w in range(len(sizes)) if w != z and sizes[w])
    empty = [0] * sum(1 for w in range(len(sizes)) if w != z and not sizes[w])
    for m in range(1, len(others) + 1):
        if m + 1 > keep:
            return m
        top = others[len(others) - m :]
        rest = sorted(empty + others[: len(others) - m])
        if ranks[z] + sum(top) + sum(rest[: keep - m - 1]) - 1 >= k:
            return m
    return None


def dc_lower_bounds(sizes: list[int], ranks: list[int], k: int, d: int) -> list[int]:
    """For each DC, the fewest other DCs a repair group of one of its blocks must read from (0 when its
    blocks are dependent, or when nothing can be said).

    >>> dc_lower_bounds([3, 3, 3], [3, 3, 3], 5, 1), dc_lower_bounds([4, 4, 4, 4], [4, 4, 4, 4], 8, 2)
    ([1, 1, 1], [2, 2, 2, 2])
    """
    out = []
    for z, size in enumerate(sizes):
        if size == 0 or ranks[z] < size:
            out.append(0)
        else:
            out.append(fewest_helpers(z, ranks, sizes, k, d) or 0)
    return out
