"""A lower bound on the mean cross-DC repair traffic of any scalar linear code (the FMEL paper; used by FMEL's search).

See :func:`lower_bound` and the module docstring of :mod:`vizcoll.erasure.fmel`.

References: [FMEL23] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from vizcoll.erasure.bounds import fewest_helpers, helpers, survivors_ok
from vizcoll.erasure.codes import dc_sizes, parse_placement

__all__ = ["local_bound", "local_choices", "lower_bound", "partitions", "ranks_of"]


def partitions(n: int, parts: int, max_part: int | None = None) -> list[tuple[int, ...]]:
    """Every split of n blocks over ``parts`` DCs, non-increasing, zeros allowed.

    >>> partitions(4, 2)
    [(4, 0), (3, 1), (2, 2)]
    """
    top = n if max_part is None else max_part
    out: list[tuple[int, ...]] = []

    def rec(left: int, slots: int, cap: int, prefix: tuple[int, ...]) -> None:
        if slots == 0:
            if left == 0:
                out.append(prefix)
            return
        for v in range(min(left, cap), -1, -1):
            if v * slots < left:
                break
            rec(left - v, slots - 1, v, prefix + (v,))

    rec(n, parts, top, ())
    return out


def _mutual_extra(a: int, b: int) -> int:
    """Extra traffic (blocks) of two independent DCs of a and b blocks that can only help each other along one
    common direction (per-block counting): see :func:`lower_bound`."""
    options = [a + b - 2]
    if b >= 2:
        options.append(a)
    if a >= 2:
        options.append(b)
    return min(options)


def local_choices(sizes: list[int]) -> list[tuple[int, ...]]:
    """Local sets up to symmetry: for each group of equal-size DCs, how many of them (the first ones) are local."""
    groups: dict[int, list[int]] = {}
    for z, s in enumerate(sizes):
        if s >= 2:
            groups.setdefault(s, []).append(z)
    choices = [()]
    for members in groups.values():
        choices = [c + tuple(members[:m]) for c in choices for m in range(len(members) + 1)]
    return [tuple(sorted(c)) for c in choices]


def ranks_of(sizes: list[int], local: tuple[int, ...], k: int) -> list[int]:
    return [min(s - (z in local), k) for z, s in enumerate(sizes)]


def local_bound(
    sizes: list[int], local: tuple[int, ...], n: int, k: int, d: int, traffic: str = "blocks"
) -> int | None:
    """Lower bound on the total traffic for a placement and local set; None if the counting filter fails."""
    if len(local) > n - k or any(sizes[z] > k and z not in local for z in range(len(sizes))):
        return None
    ranks = ranks_of(sizes, local, k)
    if not survivors_ok(ranks, k, d):
        return None
    independent = [z for z, s in enumerate(sizes) if s and z not in local]
    fewest = {z: fewest_helpers(z, ranks, sizes, k, d) for z in independent}
    if any(m is None for m in fewest.values()):
        return None
    total = sum(sizes[z] * fewest[z] for z in independent)
    if traffic == "blocks" and len(sizes) - d == 2:
        single = {z: helpers(z, ranks, sizes, k, d) for z in independent}
        for z in independent:
            (w,) = single[z] if len(single[z]) == 1 else (None,)
            if w is not None and z < w and single.get(w) == [z] and sizes[z] + sizes[w] - k == 1:
                total += _mutual_extra(sizes[z], sizes[w])
    return total


def lower_bound(n: int, k: int, dcs: int, d: int, placement=None, traffic: str = "blocks") -> dict | None:
    """A lower bound on the total (and mean) cross-DC traffic of any scalar linear code surviving ``d`` DCs.

    Minimum over every placement (or the given one) and set of local DCs of: 0 for each block of a DC whose
    blocks are dependent (a local DC, rank ≤ size − 1); for each block of an independent DC, the fewest other
    DCs its repair group can span (a repair group that crosses DCs makes their spans dependent, so it cannot
    lie inside a set of surviving DCs that needs all its rank, :func:`~vizcoll.erasure.bounds.fits`).
    Per-block counting adds one refinement when the surviving sets are pairs (N − D = 2): two independent DCs
    z, w of a and b blocks with a + b = k + 1 that can only help each other share a single direction
    ℓ = U_z ∩ U_w. A block of z costs 1 only through a
    w-block on ℓ whose coordinates in z's blocks include it, and conversely; a w-block on ℓ has one
    coordinate in w, so at most one side can be fully served and the extra cost is
    min(a + b − 2, a if b ≥ 2, b if a ≥ 2). ``None`` if no placement can survive ``d`` DC failures.

    >>> lower_bound(9, 5, 3, 1)["mean"], lower_bound(9, 5, 3, 1, traffic="aggregated")["mean"]
    (0.777778, 0.666667)
    >>> lower_bound(6, 2, 3, 2)["mean"]
    1.0
    """
    sizes_list = (
        [tuple(dc_sizes(parse_placement(placement, n, dcs), dcs))] if placement is not None else partitions(n, dcs)
    )
    best: dict | None = None
    for sizes in sizes_list:
        for local in local_choices(list(sizes)):
            total = local_bound(list(sizes), local, n, k, d, traffic)
            if total is not None and (best is None or total < best["total"]):
                best = {"total": total, "mean": round(total / n, 6), "sizes": list(sizes), "local": list(local)}
    return best
