"""The groups' members and root candidates, for every group at once.

Every algorithm roots a group's tree at a switch of minimum eccentricity
(the largest hop count to a member). Which of those switches a rotating
algorithm takes depends on the trees routed before, but the candidates
themselves do not, so the bookkeeping (distinct members, their entry
switches) is done for all groups up front in a few numpy calls; per group
there remains the largest row of its entry switches in the distance matrix.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vizcoll.arrays import unique
from vizcoll.errors import SpecError
from vizcoll.multicast.results import ints
from vizcoll.multicast.state import BIG
from vizcoll.topology.hops import UNREACHABLE, MinHopTable

__all__ = ["distinct_members", "root_candidates"]

Candidates = tuple[np.ndarray, int] | None
"""The switch rows of minimum eccentricity and that eccentricity (the tree height), or None: no switch reaches
every member (or the group is empty)."""


def distinct_members(groups: Sequence, n_nodes: int) -> list[np.ndarray]:
    """Distinct node indices of each group, in first-appearance order (SpecError: a node outside the fabric)."""
    arrays = [ints(g) for g in groups]
    sizes = np.array([len(a) for a in arrays], dtype=np.int64)
    flat = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
    bad = np.flatnonzero((flat < 0) | (flat >= n_nodes))
    if len(bad):
        index = int(np.searchsorted(np.cumsum(sizes), bad[0], side="right"))
        raise SpecError(f"group {index} refers to a node outside 0..{n_nodes - 1}")
    gid = np.repeat(np.arange(len(arrays)), sizes)
    _, first = np.unique(gid * max(n_nodes, 1) + flat, return_index=True)
    first.sort()
    bounds = np.r_[0, np.cumsum(np.bincount(gid[first], minlength=len(arrays)))]
    kept = flat[first]
    return [kept[bounds[i] : bounds[i + 1]] for i in range(len(arrays))]


def root_candidates(
    table: MinHopTable, members: list[np.ndarray], entry_row: np.ndarray, entry_hop: np.ndarray
) -> list[Candidates]:
    """Per group: its minimum-eccentricity switch rows (ascending) and the eccentricity.

    ``entry_row[n]`` / ``entry_hop[n]`` are the one switch row node ``n``
    enters the fabric through and the hops that costs (-1: none or several).
    Groups whose members all enter through one switch each, at equal cost,
    take the largest distance-matrix row of those switches (once per distinct set of entry switches: the
    lines of a grid often share theirs); the others ask :meth:`MinHopTable.eccentricity_to`.
    """
    n = len(members)
    sizes = np.array([len(m) for m in members], dtype=np.int64)
    flat = np.concatenate(members) if n else np.zeros(0, dtype=np.int64)
    gid = np.repeat(np.arange(n), sizes)
    rows, hops = entry_row[flat], entry_hop[flat]
    full = np.flatnonzero(sizes)
    starts = (np.cumsum(sizes) - sizes)[full]
    lean = np.zeros(n, dtype=bool)
    lean[full] = (np.minimum.reduceat(rows, starts) >= 0) & (
        np.minimum.reduceat(hops, starts) == np.maximum.reduceat(hops, starts)
    )
    out: list[Candidates] = [None] * n
    for g in np.flatnonzero(~lean & (sizes > 0)).tolist():
        ecc = table.eccentricity_to(members[g]).astype(np.int64)
        out[g] = _best(np.where(ecc == UNREACHABLE, BIG, ecc), BIG, 0)
    keep = lean[gid]
    extra = np.zeros(n, dtype=np.int64)
    extra[full] = hops[starts]
    n_sw = max(len(table.switches), 1)
    key = unique(gid[keep] * n_sw + rows[keep])  # distinct (group, entry switch), by group
    owner, rows = key // n_sw, key % n_sw
    bounds = np.r_[np.flatnonzero(np.diff(owner, prepend=-1)), len(key)] if len(key) else np.zeros(1, np.int64)
    seen: dict[bytes, Candidates] = {}  # groups entering through the same switches share their candidates
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        g, entries = int(owner[lo]), rows[lo:hi]
        signature = entries.tobytes()
        if signature not in seen:
            seen[signature] = _best(table.dist[entries].max(axis=0), table.unreachable, 0)
        found = seen[signature]
        out[g] = None if found is None else (found[0], found[1] + int(extra[g]))
    return out


def _best(ecc: np.ndarray, missing: int, extra: int) -> Candidates:
    """Candidates from one group's eccentricities (``missing``, the largest value: unreachable; ``extra``: hops to
    add)."""
    nearest = ecc.min()
    if nearest == missing:
        return None
    return np.flatnonzero(ecc == nearest), int(nearest) + extra
