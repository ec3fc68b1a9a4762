"""FMEL-style search for a code with small cross-DC repair traffic (seed 000: abstract, Tables 1–2).

The paper gives only the outline (schemes → feature vectors → SVM check →
parallel search for the least mean traffic → trial-and-error generator). This
module implements the *problem* exactly and the method in its spirit:

**Repair-group distribution scheme** (the paper's E = placement R + per-block
repair groups C). A scheme fixes

- how many blocks each DC holds (a partition of ``n`` into ``N`` parts,
  larger DCs first, blocks numbered DC by DC);
- which DCs hold a *local group*: one parity check over all of that DC's
  blocks, so each of them is rebuilt inside its DC (0 cross-DC traffic);
- for the other DCs, optionally an *owned* check: all of the DC's blocks
  plus helpers from 1 or 2 other DCs, either one helper block per DC
  (``width="block"``) or every block of the helper DC (``width="dc"``); a DC
  without its own check is served by the checks of others (e.g. replicas:
  the check ``{y0, y1}`` serves both DCs);
- the rest of the ``n − k`` parity checks are *global* (every block).

The checks are the rows of the parity-check matrix ``H`` (the check nodes of
the paper's Tanner graph), so every check is a repair group of each of its
blocks; a block's *designed* traffic is its cheapest check.

**Cheap necessary filters, before any trial** (exact, no learning needed):
(1) counting — ``n − k`` checks must cover the local and owned ones, and
every ``N − D`` surviving DCs must hold ``k`` blocks of rank, with a local DC
contributing one less; (2) the generic-rank (Hall) condition on ``H``'s zero
pattern: losing any ``D`` DCs, the lost blocks must be matchable to distinct
checks that contain them, and the checks to distinct blocks (full rank). For
*any* coefficients these are necessary; for random coefficients over a large
field they are sufficient with high probability, so the SVM of the paper is
not needed here (the pattern filter answers exactly what it approximates).

**Trial and error.** A scheme that passes gets random non-zero GF(2^8)
coefficients on its checks (seeded), ``G`` = null space of ``H`` (systematic
on the free columns), and is kept only if exact rank checks confirm every
designed repair group and the survival of any ``D`` DC failures; otherwise
up to ``trials`` new draws.

**Search order.** Schemes are generated best-first by an optimistic cost
(per non-local block, the fewest remote DCs its repair group can span) and
re-queued with their true designed cost; every constructed code is
measured exactly (:mod:`vizcoll.erasure.metrics`) under the chosen traffic
model. The best code minimises the exact total traffic, then maximises the
block failures tolerated (a tie-break the paper does not state; it makes
FMEL(6,2) the MDS code whose t̄ and ``d`` match Table 2), then the designed
traffic. The search stops when no remaining (placement, local set) can beat
the best by its lower bound, when the next scheme's designed cost exceeds
the best found (a heuristic: an exact cost can be lower than designed), or
after ``max_schemes`` constructions. It is deterministic for a seed and runs
in one process (the paper's search is parallel; ours is small enough).

**Lower bound** (:func:`lower_bound`). A block can be rebuilt with no
cross-DC read only if its DC's blocks are dependent (rank ≤ size − 1); a
repair group of a block of an independent DC ``z`` that reads from the DCs
``W`` makes the spans of ``{z} ∪ W`` dependent, so every surviving set of
``N − D`` DCs containing them must keep rank ``k`` with one block redundant
(Σ ranks − 1 ≥ k); the fewest such ``W`` bounds the block's traffic from
below (in both models). Per-block counting adds the "mutual helpers"
refinement proved there. Minimising over placements and
local sets gives a bound on T̄ valid for every scalar linear code; the search
reports whether its code meets it.

**Traffic models.** ``traffic="blocks"`` counts every remote block read (the
definition of :func:`vizcoll.erasure.metrics.repair_group`);
``"aggregated"`` lets each remote DC send one combination of its blocks.
With N = 3, (9,5) and D = 1 the paper's T̄ = 0.67 is reached only by the
aggregated model: per block, a DC with a local group (rank 2) meets each
other DC in no common direction (2 + 3 = 5), so a block of DC1 can only be
helped by a DC2 block on the line U1 ∩ U2; that vector has full support on
DC1's blocks, hence no DC1 block lies on it, and DC2's blocks need two
remote blocks — the per-block optimum is 7/9 (placement 4, 3, 2).
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass, field

import numpy as np

from vizcoll.erasure.bounds import counting_tolerance, fewest_helpers, fits, helpers, survivors_ok
from vizcoll.erasure.codes import Code, check_parameters, dc_sizes, parse_placement, placement_of, reed_solomon
from vizcoll.erasure.gf import gf_in_span, gf_nullspace, gf_rank, gf_rref
from vizcoll.erasure.metrics import (
    DEFAULT_BUDGET,
    Budget,
    Metrics,
    block_failures_tolerated,
    check_traffic,
    dc_bounds,
    evaluate,
    repair_groups,
    survives,
    with_mds_flag,
)
from vizcoll.errors import SpecError

__all__ = [
    "Scheme",
    "SearchResult",
    "partitions",
    "lower_bound",
    "fmel_search",
    "fmel",
]

SEARCH_BUDGET = 300_000  # subset checks per constructed code while searching
TIE_BREAK_BUDGET = 50_000  # subset checks for the block tolerance of a code tied on traffic
STATES_PER_SCHEME = 25  # scheme states popped from the queue per scheme constructed, at most
EXTRA_HELPERS = 1
HELPER_SETS = 48  # helper sets of each size tried per DC  # helper DCs tried beyond the fewest a block needs


# ---------------------------------------------------------------- placements and bounds
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


def _local_choices(sizes: list[int]) -> list[tuple[int, ...]]:
    """Local sets up to symmetry: for each group of equal-size DCs, how many of them (the first ones) are local."""
    groups: dict[int, list[int]] = {}
    for z, s in enumerate(sizes):
        if s >= 2:
            groups.setdefault(s, []).append(z)
    choices = [()]
    for members in groups.values():
        choices = [c + tuple(members[:m]) for c in choices for m in range(len(members) + 1)]
    return [tuple(sorted(c)) for c in choices]


def _ranks(sizes: list[int], local: tuple[int, ...], k: int) -> list[int]:
    return [min(s - (z in local), k) for z, s in enumerate(sizes)]


def _local_bound(sizes: list[int], local: tuple[int, ...], n: int, k: int, d: int,
                 traffic: str = "blocks") -> int | None:
    """Lower bound on the total traffic for a placement and local set; None if the counting filter fails."""
    if len(local) > n - k or any(sizes[z] > k and z not in local for z in range(len(sizes))):
        return None
    ranks = _ranks(sizes, local, k)
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
    sizes_list = [tuple(dc_sizes(parse_placement(placement, n, dcs), dcs))] if placement is not None else \
        partitions(n, dcs)
    best: dict | None = None
    for sizes in sizes_list:
        for local in _local_choices(list(sizes)):
            total = _local_bound(list(sizes), local, n, k, d, traffic)
            if total is not None and (best is None or total < best["total"]):
                best = {"total": total, "mean": round(total / n, 6), "sizes": list(sizes), "local": list(local)}
    return best


# ---------------------------------------------------------------- schemes
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
            out.append(f"DC {z}: {len(blocks)} blocks, {how}")
        if self.globals:
            out.append(f"{self.globals} global check{'s' * (self.globals > 1)} over every block")
        return out

    def to_dict(self) -> dict:
        return {"blocks": [list(b) for b in self.blocks], "local": list(self.local),
                "owners": {str(z): dict(o) for z, o in self.owners.items()}, "checks": [list(c) for c in self.checks],
                "globals": self.globals, "cost": list(self.cost), "traffic": self.traffic,
                "designed_total": self.total, "description": self.describe()}

    @classmethod
    def from_dict(cls, d: dict) -> Scheme:
        return cls(blocks=[list(b) for b in d["blocks"]], local=list(d["local"]),
                   owners={int(z): dict(o) for z, o in d["owners"].items()}, checks=[list(c) for c in d["checks"]],
                   globals=int(d["globals"]), cost=list(d["cost"]), traffic=d["traffic"])


def _build(blocks: list[list[int]], local: tuple[int, ...], owners: dict[int, tuple], n: int, k: int,
           traffic: str) -> Scheme | None:
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
    return Scheme(blocks=[list(b) for b in blocks], local=list(local),
                  owners={z: {"helpers": list(h), "width": w} for z, (h, w) in owners.items()}, checks=checks,
                  globals=g, cost=cost, traffic=traffic)


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


def _pattern_ok(scheme: Scheme, n: int, d: int) -> bool:
    """The generic-rank filter: H can have full rank and any d lost DCs leave a recoverable erasure pattern."""
    rows = scheme.rows(n)
    rows_of: list[list[int]] = [[] for _ in range(n)]
    for r, row in enumerate(rows):
        for c in row:
            rows_of[c].append(r)
    if not _match([list(row) for row in rows], n, list(range(len(rows)))):  # rows into distinct columns
        return False
    nonempty = [z for z, b in enumerate(scheme.blocks) if b]
    return all(_match(rows_of, len(rows), [b for z in lost for b in scheme.blocks[z]])
               for lost in itertools.combinations(nonempty, d))


def _construct(scheme: Scheme, n: int, k: int, dcs: int, d: int, rng: np.random.Generator, label: str) -> Code | None:
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
    kinds = ["data" if i in set(data) else "local parity" if any(i in scheme.blocks[z] for z in scheme.local)
             else "parity" for i in range(n)]
    code = Code("fmel", label, n, k, dcs, g, placement, kinds, data, mds=False,
                params={"scheme": scheme.to_dict()})
    if not survives(code, d):
        return None
    for row in scheme.checks:
        for i in row:
            rest = [j for j in row if j != i]
            if not gf_in_span(g[:, rest], g[:, i]):
                return None
    return code


def _options(z: int, sizes: list[int], ranks: list[int], k: int, d: int,
             traffic: str) -> list[tuple[int, tuple | None]]:
    """Per independent DC: (optimistic cost, option) with option None (no own check) or (helpers, width).

    Helper sets that would put a check inside a surviving set of DCs too small for it are left out."""
    n_dcs = len(sizes)
    others = sorted((w for w in range(n_dcs) if w != z and sizes[w]), key=lambda w: (w - z) % n_dcs)
    fewest = fewest_helpers(z, ranks, sizes, k, d) or len(others)
    out: list[tuple[int, tuple | None]] = [(sizes[z] * fewest, None)]
    for r in range(fewest, min(fewest + EXTRA_HELPERS, len(others)) + 1):
        # helper sets in cyclic order after z (z+1, z+2, ... first), at most HELPER_SETS of each size
        for group in itertools.islice((g for g in itertools.combinations(others, r) if fits((z, *g), ranks, k, d)),
                                      HELPER_SETS):
            group = tuple(sorted(group))
            for width in ("block", "dc"):
                if width == "dc" and all(sizes[w] == 1 for w in group):
                    continue
                per = sum(1 if width == "block" else sizes[w] for w in group) if traffic == "blocks" \
                    else len(group)
                out.append((sizes[z] * per, (group, width)))
    # cheapest first; at equal cost helpers closest after z in cyclic order first (z+1, z+2, ...: balanced over
    # the DCs when every DC does the same), then whole-DC helpers, and no own check last
    return sorted(out, key=lambda item: (item[0], item[1] is None,
                                         () if item[1] is None else tuple(sorted((w - z) % n_dcs for w in item[1][0])),
                                         () if item[1] is None else item[1][1] == "dc"))


# ---------------------------------------------------------------- the search
@dataclass
class SearchResult:
    """The searched code, its exact metrics, its scheme, the lower bound and what the search did."""

    code: Code
    metrics: Metrics
    scheme: Scheme
    dc_tolerance: int
    traffic: str
    lower_bound: dict | None
    stats: dict = field(default_factory=dict)

    @property
    def mean_traffic(self) -> float | None:
        return self.metrics.mean_traffic(self.traffic)

    @property
    def meets_lower_bound(self) -> bool:
        mean = self.mean_traffic
        return self.lower_bound is not None and mean is not None and abs(mean - self.lower_bound["mean"]) < 1e-6

    def to_dict(self) -> dict:
        return {"metrics": self.metrics.to_dict(), "scheme": self.scheme.to_dict(), "D": self.dc_tolerance,
                "traffic": self.traffic, "lower_bound": self.lower_bound,
                "meets_lower_bound": self.meets_lower_bound, "stats": dict(self.stats)}

    @classmethod
    def from_dict(cls, d: dict) -> SearchResult:
        metrics = Metrics.from_dict(d["metrics"])
        return cls(code=metrics.code, metrics=metrics, scheme=Scheme.from_dict(d["scheme"]), dc_tolerance=int(d["D"]),
                   traffic=d["traffic"], lower_bound=d["lower_bound"], stats=dict(d["stats"]))


class _Search:
    """The state of one search: counters, the random generator and the best code so far."""

    TIE_LIMIT = 8  # codes measured at the best traffic before the search stops looking for a better tie-break

    def __init__(self, n: int, k: int, dcs: int, d: int, traffic: str, trials: int, budget: int,
                 rng: np.random.Generator):
        self.n, self.k, self.dcs, self.d, self.traffic = n, k, dcs, d, traffic
        self.trials, self.budget, self.rng = trials, budget, rng
        self.best: tuple | None = None  # (key, code, scheme)
        self.ties = 0
        self.stats = {"states": 0, "schemes": 0, "too_many_checks": 0, "pattern_rejected": 0, "trials": 0,
                      "constructed": 0, "measured": 0}

    def done(self, priority: int) -> bool:
        """No scheme at this designed cost or above is worth building any more."""
        if self.best is None:
            return False
        best = self.best[0][0]
        return priority > best or (priority == best and self.ties >= self.TIE_LIMIT)

    def baseline(self, layout: list[list[int]]) -> None:
        """Start from the Reed–Solomon code on ``layout`` (its scheme: every check global)."""
        placement = placement_of(layout, self.n)
        rs = reed_solomon(self.n, self.k, self.dcs, placement)
        scheme = _build(layout, (), {}, self.n, self.k, self.traffic)
        code = Code("fmel", f"FMEL({self.n},{self.k})", self.n, self.k, self.dcs, rs.generator, placement,
                    rs.kinds, rs.data_blocks, mds=True, params={"scheme": scheme.to_dict(), "baseline": "rs"})
        self.measure(code, scheme)

    def measure(self, code: Code, scheme: Scheme) -> None:
        """Exact traffic (and, if it competes, block tolerance) of a constructed code; keep it if best.

        A block whose designed traffic equals its proven lower bound needs no enumeration."""
        floor = dc_bounds(code)
        open_blocks = [i for i in range(self.n) if scheme.cost[i] > floor[code.placement[i]]]
        spent = Budget(self.budget)
        total = sum(scheme.cost[i] for i in range(self.n) if i not in set(open_blocks))
        total += sum(r["cross_dc"] for r in repair_groups(code, spent, self.traffic, blocks=open_blocks,
                                                          bounds=floor))
        if self.best is not None and total > self.best[0][0]:
            return
        tolerance = block_failures_tolerated(code, Budget(TIE_BREAK_BUDGET))["tolerated"]
        self.stats["measured"] += 1
        key = (total, -tolerance, scheme.total, self.stats["measured"])
        if self.best is not None and key[0] == self.best[0][0]:
            self.ties += 1
        elif self.best is None or key[0] < self.best[0][0]:
            self.ties = 0
        if self.best is None or key < self.best[0]:
            self.best = (key, code, scheme)

    def attempt(self, scheme: Scheme | None) -> None:
        """Filter, construct (trial and error), measure exactly and keep the scheme's code if it is the best."""
        if scheme is None:
            return
        self.stats["schemes"] += 1
        if not _pattern_ok(scheme, self.n, self.d):
            self.stats["pattern_rejected"] += 1
            return
        code = None
        for _ in range(self.trials):
            self.stats["trials"] += 1
            code = _construct(scheme, self.n, self.k, self.dcs, self.d, self.rng, f"FMEL({self.n},{self.k})")
            if code is not None:
                break
        if code is None:
            return
        self.stats["constructed"] += 1
        self.measure(with_mds_flag(code), scheme)


def _blocks_of(sizes: tuple[int, ...]) -> list[list[int]]:
    out, start = [], 0
    for s in sizes:
        out.append(list(range(start, start + s)))
        start += s
    return out


def fmel_search(n: int, k: int, dcs: int, d: int | None = None, placement=None, seed: int = 0,
                traffic: str = "blocks", trials: int = 6, max_schemes: int = 400, max_part_slack: int = 2,
                budget: int = SEARCH_BUDGET, final_budget: int = DEFAULT_BUDGET,
                final_tolerance_budget: int | None = None) -> SearchResult:
    """Search for the code with the least mean cross-DC repair traffic that survives ``d`` DC failures.

    Parameters
    ----------
    n, k, dcs
        Coded blocks, data blocks, data centres (checked by :func:`~vizcoll.erasure.codes.check_parameters`).
    d
        Required DC failures survived (the paper's D); default: the most any placement allows by counting.
    placement
        A fixed DC per block (``"0,0,1,..."`` or a list); default: the search chooses the split, trying every
        partition in which no DC holds more than ⌈n/N⌉ + ``max_part_slack`` blocks.
    seed
        Seed of the random coefficients (the result is deterministic for a seed).
    traffic
        ``"blocks"`` (every remote block read counts) or ``"aggregated"`` (one block per remote DC).
    trials, max_schemes
        Random draws per scheme; schemes constructed at most.
    budget, final_budget, final_tolerance_budget
        Subset checks per code while searching; for the exact metrics of the code found (repair groups, block
        tolerance; see :func:`~vizcoll.erasure.metrics.evaluate`).

    Examples
    --------
    >>> r = fmel_search(6, 2, 3)
    >>> r.mean_traffic, r.metrics.dc_failures_survived, r.meets_lower_bound
    (1.0, 2, True)
    """
    started = time.perf_counter()
    n, k, dcs = check_parameters(n, k, dcs)
    check_traffic(traffic)
    if trials < 1 or max_schemes < 1:
        raise SpecError("trials and max_schemes must be at least 1")
    if placement is not None:
        fixed = parse_placement(placement, n, dcs)
        layouts = [[[i for i in range(n) if fixed[i] == z] for z in range(dcs)]]
    else:
        cap = -(-n // dcs) + max_part_slack
        layouts = [_blocks_of(p) for p in partitions(n, dcs, cap)]
    best_d = max(counting_tolerance([len(b) for b in lay], k) for lay in layouts)
    if d is None:
        d = best_d
    d = int(d)
    if not 0 <= d < dcs:
        raise SpecError(f"D (DC failures to survive) must be between 0 and N − 1 = {dcs - 1}, got {d}")
    if d > best_d:
        raise SpecError(f"no placement of {n} blocks on {dcs} DCs can survive {d} DC failures with k = {k}: "
                        f"the {dcs - d} surviving DCs would hold fewer than {k} blocks (at most D = {best_d})")
    # (placement, local set) pairs with their lower bounds, best first
    pairs = []
    for lay in layouts:
        sizes = [len(b) for b in lay]
        for local in _local_choices(sizes):
            bound = _local_bound(sizes, local, n, k, d, traffic)
            if bound is not None:
                pairs.append((bound, -len(local), tuple(-s for s in sizes), lay, local))
    pairs.sort(key=lambda p: p[:3])
    search = _Search(n, k, dcs, d, traffic, trials, budget, np.random.default_rng(seed))
    search.stats.update({"placements": len(layouts), "placement_local_pairs": len(pairs)})
    # a baseline that always exists: the Reed–Solomon code (MDS, so any N − D DCs holding k blocks are
    # enough) on the most even placement that survives D; the best-first search below has to improve on it
    baseline = max(layouts, key=lambda lay: (counting_tolerance([len(b) for b in lay], k) >= d,
                                             -max(len(b) for b in lay)))
    search.baseline(baseline)
    for bound, _, _, lay, local in pairs:
        if search.best is not None and (bound > search.best[0][0] or search.stats["schemes"] >= max_schemes
                                        or search.stats["states"] >= STATES_PER_SCHEME * max_schemes):
            break
        sizes = [len(b) for b in lay]
        ranks = _ranks(sizes, local, k)
        independent = [z for z in range(dcs) if sizes[z] and z not in local]
        opts = [_options(z, sizes, ranks, k, d, traffic) for z in independent]
        # queue entries: (cost, 0 = a built scheme / 1 = a choice of options to build, sequence, payload);
        # at equal cost built schemes go first, so a plateau of equal estimates cannot starve them
        start = tuple(0 for _ in independent)
        counter = itertools.count()
        heap = [(sum(o[0][0] for o in opts), 1, next(counter), start)]
        seen = {start}
        limit = STATES_PER_SCHEME * max_schemes
        while heap and search.stats["schemes"] < max_schemes and search.stats["states"] < limit:
            priority, kind, _, payload = heapq.heappop(heap)
            search.stats["states"] += 1
            if search.done(priority):
                break
            if kind == 0:
                search.attempt(payload)
                continue
            for axis in range(len(payload)):
                if payload[axis] + 1 < len(opts[axis]):
                    nxt = payload[:axis] + (payload[axis] + 1,) + payload[axis + 1:]
                    if nxt not in seen:
                        seen.add(nxt)
                        heapq.heappush(heap, (sum(opts[a][s][0] for a, s in enumerate(nxt)), 1, next(counter), nxt))
            owners = {z: opts[a][s][1] for a, (z, s) in enumerate(zip(independent, payload, strict=True))
                      if opts[a][s][1] is not None}
            scheme = _build(lay, local, owners, n, k, traffic)
            if scheme is None:
                search.stats["too_many_checks"] += 1
                continue
            heapq.heappush(heap, (scheme.total, 0, next(counter), scheme))
    best = search.best
    stats = search.stats
    if best is None:
        raise SpecError(f"no code found for n = {n}, k = {k} on {dcs} DCs surviving {d} DC failures "
                        f"after {stats['schemes']} schemes: try another seed, a smaller D or more schemes")
    _, code, scheme = best
    metrics = evaluate(code, budget=final_budget, tolerance_budget=final_tolerance_budget)
    stats["seconds"] = round(time.perf_counter() - started, 3)
    bound = lower_bound(n, k, dcs, d, placement, traffic)
    return SearchResult(code=code, metrics=metrics, scheme=scheme, dc_tolerance=d, traffic=traffic,
                        lower_bound=bound, stats=stats)


def fmel(n: int, k: int, dcs: int, d: int | None = None, placement=None, seed: int = 0,
         traffic: str = "blocks") -> Code:
    """The searched code alone (see :func:`fmel_search`)."""
    return fmel_search(n, k, dcs, d, placement, seed, traffic).code
