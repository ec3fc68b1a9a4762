"""FMEL's repair-group distribution schemes: their checks, the generic-rank filter and one random trial.

See the module docstring of :mod:`vizcoll.erasure.fmel` for what a scheme fixes.

>>> scheme = build_scheme([[0, 1], [2, 3], [4, 5]], (0,), {}, 6, 2, "blocks")
>>> scheme.checks, scheme.globals, scheme.cost
([[0, 1]], 3, [0, 0, 4, 4, 4, 4])
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from vizcoll.erasure.bounds import fewest_helpers, fits
from vizcoll.erasure.codes import Code, placement_of
from vizcoll.erasure.gf import gf_in_span, gf_nullspace, gf_rank, gf_rref
from vizcoll.erasure.tolerance import survives
from vizcoll.words import plural

__all__ = ["Scheme", "build_scheme", "construct", "options", "pattern_ok"]

EXTRA_HELPERS = 1  # helper DCs tried beyond the fewest a block needs
HELPER_SETS = 48  # helper sets of each size tried per DC


@dataclass
class Scheme:
    """A repair-group distribution scheme: blocks per DC, local groups, owned checks, global checks."""

    blocks: list[list[int]]
    local: list[int]
    owners: dict[int, dict]
    checks: list[list[int]]
    globals: int
    cost: list[int]
    traffic: str

    @property
    def total(self) -> int:
        return sum(self.cost)

    def rows(self, n: int) -> list[list[int]]:
        """The supports of all n − k checks: designed ones, then the global ones."""
        return [list(c) for c in self.checks] + [list(range(n))] * self.globals

    def describe(self) -> list[str]:
        """One line per DC, for people."""
        out = []
        for z, blocks in enumerate(self.blocks):
            if not blocks:
                continue
            if z in self.local:
                how = "local group (rebuilt inside the DC)"
            elif z in self.owners:
                o = self.owners[z]
                what = "one block" if o["width"] == "block" else "all blocks"
                how = f"own check with {what} of DC {', DC '.join(map(str, o['helpers']))}"
            else:
                how = "served by other DCs' checks"
            out.append(f"DC {z}: {plural(len(blocks), 'block')}, {how}")
        if self.globals:
            out.append(f"{plural(self.globals, 'global check')} over every block")
        return out

    def to_dict(self) -> dict:
        return {
            "blocks": [list(b) for b in self.blocks],
            "local": list(self.local),
            "owners": {str(z): dict(o) for z, o in self.owners.items()},
            "checks": [list(c) for c in self.checks],
            "globals": self.globals,
            "cost": list(self.cost),
            "traffic": self.traffic,
            "designed_total": self.total,
            "description": self.describe(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> Scheme:
        return cls(
            blocks=[list(b) for b in d["blocks"]],
            local=list(d["local"]),
            owners={int(z): dict(o) for z, o in d["owners"].items()},
            checks=[list(c) for c in d["checks"]],
            globals=int(d["globals"]),
            cost=list(d["cost"]),
            traffic=d["traffic"],
        )


def build_scheme(
    blocks: list[list[int]], local: tuple[int, ...], owners: dict[int, tuple], n: int, k: int, traffic: str
) -> Scheme | None:
    """The checks of a scheme and the designed cost of every block; None if it needs too many checks or a
    block is in no check."""
    if len(local) + len(owners) > n - k:
        return None
    dc_of = placement_of(blocks, n)
    checks = [sorted(blocks[z]) for z in local]
    used = [0] * n
    for z in sorted(owners):
        helpers, width = owners[z]
        support = list(blocks[z])
        for w in helpers:
            if width == "dc":
                support += blocks[w]
            else:
                pick = min(blocks[w], key=lambda b: (used[b], b))
                used[pick] += 1
                support.append(pick)
        checks.append(sorted(support))
    g = n - k - len(checks)
    rows = checks + [list(range(n))] * g
    member = np.zeros((len(rows), n), dtype=bool)
    for r, row in enumerate(rows):
        member[r, row] = True
    onehot = np.zeros((n, len(blocks)), dtype=np.int64)
    onehot[np.arange(n), dc_of] = 1
    per_dc = member.astype(np.int64) @ onehot  # blocks of each check in each DC
    if traffic == "blocks":
        costs = member.sum(axis=1)[:, None] - per_dc[:, dc_of]
    else:
        costs = (per_dc > 0).sum(axis=1)[:, None] - 1 + np.zeros((1, n), dtype=np.int64)
    costs = np.where(member, costs, np.iinfo(np.int64).max)
    best = costs.min(axis=0) if rows else np.full(n, np.iinfo(np.int64).max)
    if np.any(best == np.iinfo(np.int64).max):
        return None
    cost = [int(c) for c in best]
    return Scheme(
        blocks=[list(b) for b in blocks],
        local=list(local),
        owners={z: {"helpers": list(h), "width": w} for z, (h, w) in owners.items()},
        checks=checks,
        globals=g,
        cost=cost,
        traffic=traffic,
    )


def _match(rows_of: list[list[int]], n_rows: int, cols: list[int]) -> bool:
    """Can every column in ``cols`` be matched to a distinct row containing it (Hall's condition)?
    ``rows_of[c]`` lists the rows containing column c."""
    owner = [-1] * n_rows

    def augment(c: int, seen: set) -> bool:
        for r in rows_of[c]:
            if r in seen:
                continue
            seen.add(r)
            if owner[r] < 0 or augment(owner[r], seen):
                owner[r] = c
                return True
        return False

    return all(augment(c, set()) for c in cols)


def pattern_ok(scheme: Scheme, n: int, d: int) -> bool:
    """The generic-rank filter: H can have full rank and any d lost DCs leave a recoverable erasure pattern."""
    rows = scheme.rows(n)
    rows_of: list[list[int]] = [[] for _ in range(n)]
    for r, row in enumerate(rows):
        for c in row:
            rows_of[c].append(r)
    if not _match([list(row) for row in rows], n, list(range(len(rows)))):  # rows into distinct columns
        return False
    nonempty = [z for z, b in enumerate(scheme.blocks) if b]
    return all(
        _match(rows_of, len(rows), [b for z in lost for b in scheme.blocks[z]])
        for lost in itertools.combinations(nonempty, d)
    )


def construct(scheme: Scheme, n: int, k: int, dcs: int, d: int, rng: np.random.Generator, label: str) -> Code | None:
    """One trial: random non-zero coefficients on the checks; the code if every exact check passes."""
    rows = scheme.rows(n)
    h = np.zeros((len(rows), n), dtype=np.uint8)
    for r, row in enumerate(rows):
        h[r, row] = rng.integers(1, 256, size=len(row))
    if gf_rank(h) < n - k:
        return None
    g = gf_nullspace(h)
    if not np.all(g.any(axis=0)):
        return None
    _, pivots = gf_rref(h)
    data = [c for c in range(n) if c not in set(pivots)]
    placement = placement_of(scheme.blocks, n)
    kinds = [
        "data" if i in set(data) else "local parity" if any(i in scheme.blocks[z] for z in scheme.local) else "parity"
        for i in range(n)
    ]
    code = Code("fmel", label, n, k, dcs, g, placement, kinds, data, mds=False, params={"scheme": scheme.to_dict()})
    if not survives(code, d):
        return None
    for row in scheme.checks:
        for i in row:
            rest = [j for j in row if j != i]
            if not gf_in_span(g[:, rest], g[:, i]):
                return None
    return code


def options(z: int, sizes: list[int], ranks: list[int], k: int, d: int, traffic: str) -> list[tuple[int, tuple | None]]:
    """Per independent DC: (optimistic cost, option) with option None (no own check) or (helpers, width).

    Helper sets that would put a check inside a surviving set of DCs too small for it are left out."""
    n_dcs = len(sizes)
    others = sorted((w for w in range(n_dcs) if w != z and sizes[w]), key=lambda w: (w - z) % n_dcs)
    fewest = fewest_helpers(z, ranks, sizes, k, d) or len(others)
    out: list[tuple[int, tuple | None]] = [(sizes[z] * fewest, None)]
    for r in range(fewest, min(fewest + EXTRA_HELPERS, len(others)) + 1):
        # helper sets in cyclic order after z (z+1, z+2, ... first), at most HELPER_SETS of each size
        for group in itertools.islice(
            (g for g in itertools.combinations(others, r) if fits((z, *g), ranks, k, d)), HELPER_SETS
        ):
            group = tuple(sorted(group))
            for width in ("block", "dc"):
                if width == "dc" and all(sizes[w] == 1 for w in group):
                    continue
                per = sum(1 if width == "block" else sizes[w] for w in group) if traffic == "blocks" else len(group)
                out.append((sizes[z] * per, (group, width)))
    # cheapest first; at equal cost helpers closest after z in cyclic order first (z+1, z+2, ...: balanced over
    # the DCs when every DC does the same), then whole-DC helpers, and no own check last
    return sorted(
        out,
        key=lambda item: (
            item[0],
            item[1] is None,
            () if item[1] is None else tuple(sorted((w - z) % n_dcs for w in item[1][0])),
            () if item[1] is None else item[1][1] == "dc",
        ),
    )
