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

Where the parts live: the subset enumerations and the :class:`Budget` in
:mod:`vizcoll.erasure.subsets`, the repair groups in
:mod:`vizcoll.erasure.repair`, the fault tolerance and the MDS check in
:mod:`vizcoll.erasure.tolerance`; this module adds the repair-time model and
:class:`Metrics` (:func:`evaluate`) and re-exports the rest.

References: [FMEL23] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from vizcoll.erasure.codes import Code
from vizcoll.erasure.repair import (
    TRAFFIC,
    check_traffic,
    dc_bounds,
    repair_group,
    repair_group_aggregated,
    repair_groups,
)
from vizcoll.erasure.subsets import DEFAULT_BUDGET, Budget
from vizcoll.erasure.tolerance import (
    block_failures_tolerated,
    dc_failure,
    dc_failures_survived,
    is_mds,
    survives,
    with_mds_flag,
)
from vizcoll.errors import SpecError

__all__ = [
    "DEFAULT_BUDGET",
    "Budget",
    "CheckBudgets",
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


@dataclass(frozen=True)
class CheckBudgets:
    """The subset checks the exact metrics of a code may make (see :func:`evaluate`).

    Parameters
    ----------
    budget : int
        Subset checks of the repair groups.
    tolerance_budget : int, optional
        Subset checks of the block tolerance.
    """

    budget: int = DEFAULT_BUDGET
    tolerance_budget: int | None = None


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

    What :func:`evaluate` returns. ``repair`` counts every remote block read; ``repair_aggregated`` lets each
    remote DC send one combination of its blocks (see :func:`repair_group_aggregated`).

    Parameters
    ----------
    code : Code
        The code measured (with its MDS flag checked).
    repair : list of dict
        Per block its repair group when every remote block read counts (``group``, ``local``, ``cross_dc``,
        ``exact``, ...).
    repair_aggregated : list of dict
        The same when each remote DC sends one combined block.
    dc_failures_survived : int
        The largest ``f`` such that losing any ``f`` DCs leaves rank ``k``.
    block_tolerance : dict
        ``tolerated`` (any that many lost blocks can be rebuilt), ``exact``, ``worst`` and ``upper``.
    model : RepairTimeModel
        The repair-time model.
    budget_used : int
        Subset checks spent.
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
        """T̄: the mean cross-DC repair traffic over the n blocks.

        Parameters
        ----------
        traffic : str
            ``"blocks"`` or ``"aggregated"``.

        Returns
        -------
        float or None
            Blocks read from other DCs per repaired block; None if a block cannot be rebuilt.
        """
        return _mean(self.traffic(traffic))

    def repair_times(self, traffic: str = "blocks") -> list[float | None]:
        """Modelled repair time of every block, ms per MB (local reads + cross-DC blocks + decoding)."""
        return [
            None if r["group"] is None else self.model.block_ms_per_mb(r["cross_dc"], len(r["local"]))
            for r in self.groups(traffic)
        ]

    def repair_time(self, traffic: str = "blocks") -> float | None:
        """t̄: the mean modelled repair time, ms per MB.

        Parameters
        ----------
        traffic : str
            ``"blocks"`` or ``"aggregated"``.

        Returns
        -------
        float or None
            The mean over the blocks of :class:`RepairTimeModel`'s time; None if a block cannot be rebuilt.
        """
        return _mean(self.repair_times(traffic))

    @property
    def exact(self) -> bool:
        return all(r["exact"] for r in self.repair + self.repair_aggregated) and bool(self.block_tolerance["exact"])

    def summary(self) -> dict:
        """The headline numbers (what the comparison tables show).

        Returns
        -------
        dict
            ``code``, ``name``, ``n``, ``k``, ``dcs``, ``mean_traffic`` (and ``_aggregated``),
            ``dc_failures_survived``, ``block_failures_tolerated``, ``block_tolerance_exact``,
            ``block_tolerance_upper``, ``overhead``, ``repair_time_ms_per_mb`` (and ``_aggregated``) and ``exact``.
        """
        c = self.code
        return {
            "code": c.family,
            "name": c.name,
            "n": c.n,
            "k": c.k,
            "dcs": c.dcs,
            "mean_traffic": _round(self.mean_traffic("blocks"), 6),
            "mean_traffic_aggregated": _round(self.mean_traffic("aggregated"), 6),
            "dc_failures_survived": self.dc_failures_survived,
            "block_failures_tolerated": self.block_tolerance["tolerated"],
            "block_tolerance_exact": self.block_tolerance["exact"],
            "block_tolerance_upper": self.block_tolerance.get("upper", self.block_tolerance["tolerated"]),
            "overhead": round(c.overhead, 6),
            "repair_time_ms_per_mb": _round(self.repair_time("blocks"), 3),
            "repair_time_ms_per_mb_aggregated": _round(self.repair_time("aggregated"), 3),
            "exact": self.exact,
        }

    def to_dict(self) -> dict:
        """JSON-ready form: :meth:`summary` plus the code, the repair groups, per-block traffic and times.

        Returns
        -------
        dict
            What ``vizcoll erasure --json`` prints for one code.
        """
        c = self.code
        return {
            **self.summary(),
            "placement": list(c.placement),
            "generator": c.generator.tolist(),
            "kinds": list(c.kinds),
            "data_blocks": list(c.data_blocks),
            "mds": c.mds,
            "params": dict(c.params),
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
        code = Code.from_dict(
            {
                "family": d["code"],
                **{
                    key: d[key]
                    for key in (
                        "name",
                        "n",
                        "k",
                        "dcs",
                        "generator",
                        "placement",
                        "kinds",
                        "data_blocks",
                        "mds",
                        "params",
                    )
                },
            }
        )
        return cls(
            code=code,
            repair=[dict(r) for r in d["repair_groups"]],
            repair_aggregated=[dict(r) for r in d["repair_groups_aggregated"]],
            dc_failures_survived=int(d["dc_failures_survived"]),
            block_tolerance={
                "tolerated": d["block_failures_tolerated"],
                "exact": d["block_tolerance_exact"],
                "worst": d.get("worst_block_failure"),
                "upper": d.get("block_tolerance_upper", d["block_failures_tolerated"]),
            },
            model=RepairTimeModel(**d.get("repair_time_model", {})),
            budget_used=int(d.get("budget_used", 0)),
        )


def evaluate(
    code: Code, model: RepairTimeModel | None = None, budget: int = DEFAULT_BUDGET, tolerance_budget: int | None = None
) -> Metrics:
    """Repair groups (both traffic models), T̄, DC and block fault tolerance, overhead and repair time of ``code``.

    A block's repair group reads every surviving block of its own DC for free and minimises the blocks read
    from other DCs, then the total read; the enumerations are exact within ``budget`` subset checks, else the
    group is the best found and flagged ``exact: False`` (see the module docstring).

    Parameters
    ----------
    code : Code
        Any code on any placement.
    model : RepairTimeModel, optional
        The repair-time model (default: the one fitted to the paper's Table 2).
    budget : int
        Subset checks for the repair groups.
    tolerance_budget : int, optional
        Subset checks for the block tolerance (default ``budget``).

    Returns
    -------
    Metrics
        Every metric of the code.

    References
    ----------
    [FMEL23] Bao Han, Wang Yijie, "A Fast Construction Method of the Erasure Code with Small Cross-Cloud Data Center
    Repair Traffic", Journal of Computer Research and Development, 60(10): 2418–2439, 2023, DOI
    [10.7544/issn1000-1239.202220580](https://doi.org/10.7544/issn1000-1239.202220580). Table 1 (T̄, D), Table 2.

    Examples
    --------
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
    return Metrics(
        code=code,
        repair=repair,
        repair_aggregated=aggregated,
        dc_failures_survived=survived,
        block_tolerance=tolerance,
        model=model or RepairTimeModel(),
        budget_used=spent.used + spent_tolerance.used,
    )
