"""FMEL-style search for a code with small cross-DC repair traffic (the FMEL paper: abstract, Tables 1–2).

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

Where the parts live: the schemes, the pattern filter and the trials in
:mod:`vizcoll.erasure.schemes`, the lower bound in
:mod:`vizcoll.erasure.traffic_bound`; this module runs the search.

References: [FMEL23, abstract, Tables 1–2] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass, field, replace

import numpy as np

from vizcoll.erasure.bounds import counting_tolerance
from vizcoll.erasure.codes import Code, check_parameters, parse_placement, placement_of, reed_solomon
from vizcoll.erasure.metrics import (
    Budget,
    CheckBudgets,
    Metrics,
    block_failures_tolerated,
    check_traffic,
    dc_bounds,
    evaluate,
    repair_groups,
    with_mds_flag,
)
from vizcoll.erasure.schemes import (
    Scheme,
    _match,  # noqa: F401 (Hall's matching, tested through this module)
    build_scheme,
    construct,
    options,
    pattern_ok,
)
from vizcoll.erasure.traffic_bound import local_bound, local_choices, lower_bound, partitions, ranks_of
from vizcoll.errors import SpecError

__all__ = [
    "Scheme",
    "SearchResult",
    "SearchOptions",
    "partitions",
    "lower_bound",
    "fmel_search",
    "fmel",
]

SEARCH_BUDGET = 300_000  # subset checks per constructed code while searching
TIE_BREAK_BUDGET = 50_000  # subset checks for the block tolerance of a code tied on traffic
STATES_PER_SCHEME = 25  # scheme states popped from the queue per scheme constructed, at most


# ---------------------------------------------------------------- the search
@dataclass(frozen=True)
class SearchOptions:
    """What the FMEL search looks for (the DC failures to survive, the traffic model) and how far it looks.

    Parameters
    ----------
    d : int, optional
        Required DC failures survived (the paper's D); default: the most any placement allows by counting.
    seed : int
        Seed of the random coefficients (the result is deterministic for a seed).
    traffic : str
        ``"blocks"`` (every remote block read counts) or ``"aggregated"`` (one block per remote DC).
    trials : int
        Random draws per scheme.
    max_schemes : int
        Schemes constructed at most.
    max_part_slack : int
        How many blocks more than ⌈n/N⌉ a DC may hold in the splits tried.
    budget : int
        Subset checks per code while searching.
    """

    d: int | None = None
    seed: int = 0
    traffic: str = "blocks"
    trials: int = 6
    max_schemes: int = 400
    max_part_slack: int = 2
    budget: int = SEARCH_BUDGET


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
        return {
            "metrics": self.metrics.to_dict(),
            "scheme": self.scheme.to_dict(),
            "D": self.dc_tolerance,
            "traffic": self.traffic,
            "lower_bound": self.lower_bound,
            "meets_lower_bound": self.meets_lower_bound,
            "stats": dict(self.stats),
        }

    @classmethod
    def from_dict(cls, d: dict) -> SearchResult:
        metrics = Metrics.from_dict(d["metrics"])
        return cls(
            code=metrics.code,
            metrics=metrics,
            scheme=Scheme.from_dict(d["scheme"]),
            dc_tolerance=int(d["D"]),
            traffic=d["traffic"],
            lower_bound=d["lower_bound"],
            stats=dict(d["stats"]),
        )


class _Search:
    """The state of one search: counters, the random generator and the best code so far."""

    TIE_LIMIT = 8  # codes measured at the best traffic before the search stops looking for a better tie-break

    def __init__(self, n: int, k: int, dcs: int, search: SearchOptions, progress=None, total: int = 1):
        """``search`` with its ``d`` decided (not None); the random generator is seeded with its ``seed``."""
        self.n, self.k, self.dcs, self.d, self.traffic = n, k, dcs, search.d, search.traffic
        self.trials, self.budget, self.rng = search.trials, search.budget, np.random.default_rng(search.seed)
        self.progress = progress or (lambda done, total: None)  # (schemes tried, total) after every scheme
        self.total = total
        self.best: tuple | None = None  # (key, code, scheme)
        self.ties = 0
        self.stats = {
            "states": 0,
            "schemes": 0,
            "too_many_checks": 0,
            "pattern_rejected": 0,
            "trials": 0,
            "constructed": 0,
            "measured": 0,
        }

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
        scheme = build_scheme(layout, (), {}, self.n, self.k, self.traffic)
        code = Code(
            "fmel",
            f"FMEL({self.n},{self.k})",
            self.n,
            self.k,
            self.dcs,
            rs.generator,
            placement,
            rs.kinds,
            rs.data_blocks,
            mds=True,
            params={"scheme": scheme.to_dict(), "baseline": "rs"},
        )
        self.measure(code, scheme)

    def measure(self, code: Code, scheme: Scheme) -> None:
        """Exact traffic (and, if it competes, block tolerance) of a constructed code; keep it if best.

        A block whose designed traffic equals its proven lower bound needs no enumeration."""
        floor = dc_bounds(code)
        open_blocks = [i for i in range(self.n) if scheme.cost[i] > floor[code.placement[i]]]
        spent = Budget(self.budget)
        total = sum(scheme.cost[i] for i in range(self.n) if i not in set(open_blocks))
        total += sum(r["cross_dc"] for r in repair_groups(code, spent, self.traffic, blocks=open_blocks, bounds=floor))
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
        if not pattern_ok(scheme, self.n, self.d):
            self.stats["pattern_rejected"] += 1
            return
        code = None
        for _ in range(self.trials):
            self.stats["trials"] += 1
            code = construct(scheme, self.n, self.k, self.dcs, self.d, self.rng, f"FMEL({self.n},{self.k})")
            if code is not None:
                break
        if code is None:
            return
        self.stats["constructed"] += 1
        self.measure(with_mds_flag(code), scheme)

    def run(self, pairs: list[tuple], max_schemes: int) -> None:
        """Explore the (placement, local set) pairs best bound first until none can beat the best code."""
        for bound, _, _, lay, local in pairs:
            if self.best is not None and (
                bound > self.best[0][0]
                or self.stats["schemes"] >= max_schemes
                or self.stats["states"] >= STATES_PER_SCHEME * max_schemes
            ):
                break
            self.explore(lay, local, max_schemes)

    def explore(self, lay: list[list[int]], local: tuple[int, ...], max_schemes: int) -> None:
        """Best-first over the owned-check options of one placement and local set.

        Queue entries: (cost, 0 = a built scheme / 1 = a choice of options to build, sequence, payload); at
        equal cost built schemes go first, so a plateau of equal estimates cannot starve them.
        """
        sizes = [len(b) for b in lay]
        ranks = ranks_of(sizes, local, self.k)
        independent = [z for z in range(self.dcs) if sizes[z] and z not in local]
        opts = [options(z, sizes, ranks, self.k, self.d, self.traffic) for z in independent]
        start = tuple(0 for _ in independent)
        counter = itertools.count()
        heap = [(sum(o[0][0] for o in opts), 1, next(counter), start)]
        seen = {start}
        limit = STATES_PER_SCHEME * max_schemes
        while heap and self.stats["schemes"] < max_schemes and self.stats["states"] < limit:
            priority, kind, _, payload = heapq.heappop(heap)
            self.stats["states"] += 1
            if self.done(priority):
                break
            if kind == 0:
                self.attempt(payload)
                self.progress(self.stats["schemes"], self.total)
                continue
            _push_next(heap, seen, counter, payload, opts)
            owners = {
                z: opts[a][s][1]
                for a, (z, s) in enumerate(zip(independent, payload, strict=True))
                if opts[a][s][1] is not None
            }
            scheme = build_scheme(lay, local, owners, self.n, self.k, self.traffic)
            if scheme is None:
                self.stats["too_many_checks"] += 1
                continue
            heapq.heappush(heap, (scheme.total, 0, next(counter), scheme))


def _push_next(heap: list, seen: set, counter, payload: tuple[int, ...], opts: list[list]) -> None:
    """Queue the option choices one step more expensive than ``payload`` along each axis."""
    for axis in range(len(payload)):
        if payload[axis] + 1 < len(opts[axis]):
            nxt = payload[:axis] + (payload[axis] + 1,) + payload[axis + 1 :]
            if nxt not in seen:
                seen.add(nxt)
                heapq.heappush(heap, (sum(opts[a][s][0] for a, s in enumerate(nxt)), 1, next(counter), nxt))


def _blocks_of(sizes: tuple[int, ...]) -> list[list[int]]:
    out, start = [], 0
    for s in sizes:
        out.append(list(range(start, start + s)))
        start += s
    return out


def _layouts(n: int, dcs: int, placement, max_part_slack: int) -> list[list[list[int]]]:
    """The block layouts to try: the fixed placement, or every partition with no DC above ⌈n/N⌉ + slack."""
    if placement is not None:
        fixed = parse_placement(placement, n, dcs)
        return [[[i for i in range(n) if fixed[i] == z] for z in range(dcs)]]
    cap = -(-n // dcs) + max_part_slack
    return [_blocks_of(p) for p in partitions(n, dcs, cap)]


def _tolerance(d: int | None, layouts: list[list[list[int]]], n: int, k: int, dcs: int) -> int:
    """The DC failures to survive: ``d`` checked, or by default the most any layout allows by counting."""
    best_d = max(counting_tolerance([len(b) for b in lay], k) for lay in layouts)
    if d is None:
        d = best_d
    d = int(d)
    if not 0 <= d < dcs:
        raise SpecError(f"D (DC failures to survive) must be between 0 and N − 1 = {dcs - 1}, got {d}")
    if d > best_d:
        raise SpecError(
            f"no placement of {n} blocks on {dcs} DCs can survive {d} DC failures with k = {k}: "
            f"the {dcs - d} surviving DCs would hold fewer than {k} blocks (at most D = {best_d})"
        )
    return d


def _pairs(layouts: list[list[list[int]]], n: int, k: int, d: int, traffic: str) -> list[tuple]:
    """(placement, local set) pairs with their lower bounds, best first."""
    pairs = []
    for lay in layouts:
        sizes = [len(b) for b in lay]
        for local in local_choices(sizes):
            bound = local_bound(sizes, local, n, k, d, traffic)
            if bound is not None:
                pairs.append((bound, -len(local), tuple(-s for s in sizes), lay, local))
    pairs.sort(key=lambda p: p[:3])
    return pairs


def _baseline_layouts(
    layouts: list[list[list[int]]], n: int, k: int, dcs: int, d: int, placement
) -> list[list[list[int]]]:
    """Where the baselines go: the Reed–Solomon code (MDS, so any N − D DCs holding k blocks are enough) on the
    most even placement that survives D and, unless the placement is given, on Reed–Solomon's own default
    placement when it survives D (so the search never ends worse than the RS code it is compared with); the
    best-first search has to improve on them."""
    even = max(layouts, key=lambda lay: (counting_tolerance([len(b) for b in lay], k) >= d, -max(len(b) for b in lay)))
    default = reed_solomon(n, k, dcs).dc_blocks()
    if placement is not None or default == even or counting_tolerance([len(b) for b in default], k) < d:
        return [even]
    return [even, default]


def fmel_search(
    n: int,
    k: int,
    dcs: int,
    placement=None,
    search: SearchOptions = SearchOptions(),
    budgets: CheckBudgets | None = None,
    progress=None,
) -> SearchResult:
    """Search for the code with the least mean cross-DC repair traffic that survives ``search.d`` DC failures.

    Repair-group distribution schemes (how many blocks each DC holds, which DCs keep a local parity check, which
    own a check with helpers from other DCs) are generated best-first, filtered by exact necessary conditions,
    given random GF(2^8) coefficients and kept when exact rank checks confirm every designed repair group and the
    survival of any ``search.d`` DC failures (see the module docstring). The paper gives only the outline; this is
    the method in its spirit.

    Parameters
    ----------
    n : int
        Coded blocks (checked by :func:`~vizcoll.erasure.codes.check_parameters`).
    k : int
        Data blocks.
    dcs : int
        Data centres ``N``.
    placement : str or sequence of int, optional
        A fixed DC per block (``"0,0,1,..."`` or a list); default: the search chooses the split, trying every
        partition in which no DC holds more than ⌈n/N⌉ + ``search.max_part_slack`` blocks.
    search : SearchOptions
        The DC failures to survive ``d`` (the paper's D; default: the most any placement allows by counting), the
        ``seed`` of the random coefficients (the result is deterministic for a seed), the ``traffic`` model
        minimised, and the search's limits: ``trials`` per scheme, ``max_schemes``, ``max_part_slack`` and the
        subset checks per code while searching (``budget``).
    budgets : CheckBudgets, optional
        Subset checks of the exact repair groups of the code found and of its block tolerance (see
        :func:`~vizcoll.erasure.metrics.evaluate`; default: ``CheckBudgets()``).
    progress : callable, optional
        ``progress(done, total)``, ``total = search.max_schemes + 1``: after every scheme tried,
        ``(search.max_schemes, total)`` when the search stops (often long before: no scheme left can beat its best
        code), ``(total, total)`` once the exact metrics of the code found (for large codes a good part of the
        time) and the bound are done.

    Returns
    -------
    SearchResult
        The code, its exact metrics, its scheme, the lower bound on T̄ and the search's statistics.

    Raises
    ------
    SpecError
        For bad parameters, or when no code is found (try another seed, a smaller D or more schemes).

    References
    ----------
    [FMEL23] Bao Han, Wang Yijie, "A Fast Construction Method of the Erasure Code with Small Cross-Cloud Data Center
    Repair Traffic", Journal of Computer Research and Development, 60(10): 2418–2439, 2023, DOI
    [10.7544/issn1000-1239.202220580](https://doi.org/10.7544/issn1000-1239.202220580). The abstract, Tables 1–2.

    Examples
    --------
    >>> r = fmel_search(6, 2, 3)
    >>> r.mean_traffic, r.metrics.dc_failures_survived, r.meets_lower_bound
    (1.0, 2, True)
    """
    started = time.perf_counter()
    budgets = budgets if budgets is not None else CheckBudgets()
    traffic, max_schemes = search.traffic, search.max_schemes
    n, k, dcs = check_parameters(n, k, dcs)
    check_traffic(traffic)
    if search.trials < 1 or max_schemes < 1:
        raise SpecError("trials and max_schemes must be at least 1")
    layouts = _layouts(n, dcs, placement, search.max_part_slack)
    d = _tolerance(search.d, layouts, n, k, dcs)
    pairs = _pairs(layouts, n, k, d, traffic)
    total, report = max_schemes + 1, progress or (lambda done, total: None)
    state = _Search(n, k, dcs, replace(search, d=d), report, total)
    state.stats.update({"placements": len(layouts), "placement_local_pairs": len(pairs)})
    for layout in _baseline_layouts(layouts, n, k, dcs, d, placement):
        state.baseline(layout)
    state.run(pairs, max_schemes)
    report(max_schemes, total)
    if state.best is None:
        raise SpecError(
            f"no code found for n = {n}, k = {k} on {dcs} DCs surviving {d} DC failures "
            f"after {state.stats['schemes']} schemes: try another seed, a smaller D or more schemes"
        )
    _, code, scheme = state.best
    metrics = evaluate(code, budget=budgets.budget, tolerance_budget=budgets.tolerance_budget)
    state.stats["seconds"] = round(time.perf_counter() - started, 3)
    bound = lower_bound(n, k, dcs, d, placement, traffic)
    report(total, total)
    return SearchResult(
        code=code,
        metrics=metrics,
        scheme=scheme,
        dc_tolerance=d,
        traffic=traffic,
        lower_bound=bound,
        stats=state.stats,
    )


def fmel(
    n: int, k: int, dcs: int, d: int | None = None, placement=None, seed: int = 0, traffic: str = "blocks"
) -> Code:
    """The searched code alone (see :func:`fmel_search`)."""
    return fmel_search(n, k, dcs, placement, SearchOptions(d=d, seed=seed, traffic=traffic)).code
