"""``python -m vizcoll erasure`` and ``erasure-compare``: erasure codes over data centres (FMEL paper).

Usage::

    python -m vizcoll erasure --code rs|lrc|replication|fmel --n 9 --k 5 --dcs 3 [--placement 0,0,0,1,1,1,2,2,2]
        [--seed 0] [--traffic blocks|aggregated] [--d D] [--local-groups L] [--budget N]
    python -m vizcoll erasure-compare --n 9 --k 5 --dcs 3 [--seed 0] [--traffic blocks|aggregated] [--d D]
        [--dask ADDRESS | --workers N]

``erasure`` prints ``{code, name, n, k, dcs, placement, generator, repair_groups, cross_dc_traffic,
mean_traffic, dc_failures_survived, block_failures_tolerated, overhead, repair_time_ms_per_mb, ...}`` with
every traffic figure also for the aggregated model (``*_aggregated``: each remote DC sends one combined
block); for ``fmel`` also ``search`` (the scheme, the lower bound, whether it is met, the search's counts).
``erasure-compare`` prints every family's headline numbers at the same parameters and FMEL's reduction of
T̄ over each, next to the paper's claim (42.9–56.0 %). See :mod:`vizcoll.erasure`.
"""

from __future__ import annotations

import argparse

from vizcoll.commands import command
from vizcoll.commands.cluster import add_cluster, on_cluster
from vizcoll.erasure.codes import FAMILIES, lrc, parse_placement
from vizcoll.erasure.compare import compare, d_candidates, measure
from vizcoll.erasure.fmel import SearchOptions
from vizcoll.erasure.metrics import DEFAULT_BUDGET, TRAFFIC, CheckBudgets, evaluate
from vizcoll.errors import SpecError

__all__: list[str] = []


def _stripe(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--n", type=int, required=True, help="coded blocks per stripe (at most 32)")
    parser.add_argument("--k", type=int, required=True, help="data blocks per stripe")
    parser.add_argument("--dcs", type=int, required=True, help="data centres N (at most 16)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the FMEL search's random coefficients")
    parser.add_argument(
        "--traffic",
        choices=TRAFFIC,
        default="blocks",
        help="count every remote block read (default) or one combined block per remote DC; "
        "the FMEL search minimises this one",
    )
    parser.add_argument(
        "--d",
        type=int,
        default=None,
        help="DC failures the FMEL code must survive (default: the most the parameters allow)",
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        help=f"subset rank checks the exact metrics may make (default {DEFAULT_BUDGET:,})",
    )


def _erasure_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--code", choices=tuple(FAMILIES), default="rs", help="code family (default rs)")
    _stripe(parser)
    parser.add_argument("--placement", help="DC of every block, e.g. 0,0,0,1,1,1,2,2,2 (default: the family's)")
    parser.add_argument("--local-groups", type=int, default=None, help="LRC local groups (default min(N, k, n−k))")


def _check(args: argparse.Namespace) -> None:
    if args.budget < 1:
        raise SpecError(f"--budget must be at least 1, got {args.budget}")
    if args.d is not None and args.d < 0:
        raise SpecError(f"--d (DC failures to survive) must be ≥ 0, got {args.d}")


@command(
    "erasure", "one erasure code over data centres: repair groups, cross-DC traffic, fault tolerance", _erasure_args
)
def _erasure(args: argparse.Namespace) -> dict:
    _check(args)
    placement = None if args.placement is None else parse_placement(args.placement, args.n, args.dcs)
    if args.local_groups is not None:
        if args.code != "lrc":
            raise SpecError("--local-groups applies to --code lrc only")
        metrics = evaluate(lrc(args.n, args.k, args.dcs, args.local_groups, placement), budget=args.budget)
        return metrics.to_dict() | {"traffic": args.traffic, "d_candidates": d_candidates(metrics)}
    return measure(
        args.code,
        args.n,
        args.k,
        args.dcs,
        placement=placement,
        search=SearchOptions(d=args.d, seed=args.seed, traffic=args.traffic),
        budgets=CheckBudgets(args.budget),
    )


@command(
    "erasure-compare",
    "every erasure code family at the same (n, k, N) and FMEL's traffic reduction",
    _stripe,
    add_cluster,
)
def _erasure_compare(args: argparse.Namespace) -> dict:
    _check(args)
    return on_cluster(
        args,
        lambda run: compare(
            args.n,
            args.k,
            args.dcs,
            SearchOptions(d=args.d, seed=args.seed, traffic=args.traffic),
            CheckBudgets(args.budget),
            run=run,
        ),
    )
