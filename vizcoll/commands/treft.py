"""``python -m vizcoll treft --workflow VP --class B --variant treft|e1|e2 [--inject REPLICA:KERNEL:VAR]``.

Simulates three replicas of a built-in NGB workflow under TREFT and prints
``{"overhead_pct", "detected", "corrected", "ops": [...]}`` plus
``final_output_ok``, ``outcome`` (and its ``reason`` when unrecoverable or
undetected), ``time``, ``baseline_time``, the sections and any rule
violations. ``ops`` lists the numbered operations ① to ⑩ of the
three replicas in time order. See :func:`vizcoll.treft.simulate_treft`.
"""

from __future__ import annotations

import argparse

from vizcoll.commands import command
from vizcoll.treft import CostModel, simulate_treft, workflow
from vizcoll.treft.sections import VARIANTS
from vizcoll.treft.workflows import CLASSES, NAMES

__all__: list[str] = []


def _args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workflow",
        type=str.upper,
        choices=NAMES,
        default="VP",
        help="NGB workflow: HC (Helical Chain), VP (Visualization Pipe), MB (Mixed Bag); default VP",
    )
    parser.add_argument(
        "--class", dest="cls", type=str.upper, choices=CLASSES, default="A", help="problem class A or B (default A)"
    )
    parser.add_argument(
        "--variant",
        type=str.lower,
        choices=VARIANTS,
        default="treft",
        help="treft (large sections), e1 (eager transfer), e2 (one section per kernel)",
    )
    parser.add_argument(
        "--inject",
        metavar="REPLICA:KERNEL:VAR",
        help="soft error: flip one bit of VAR on REPLICA (0-2) after KERNEL, e.g. 1:K3:u3",
    )
    parser.add_argument(
        "--double",
        metavar="REPLICA:KERNEL:VAR",
        help="a second soft error (same KERNEL:VAR on another replica = the same corruption)",
    )
    parser.add_argument("--latency", type=float, default=0.1, help="network latency in seconds (default 0.1)")
    parser.add_argument("--bandwidth", type=float, default=13.98, help="bandwidth in Mbps (default 13.98)")
    parser.add_argument("--seed", type=int, default=0, help="chooses the flipped element and bit (default 0)")


@command("treft", "TREFT: three replicas of an NGB workflow, soft errors and 2-of-3 voting", _args)
def _treft(args: argparse.Namespace) -> dict:
    program = workflow(args.workflow, args.cls)
    _timeline, fig = simulate_treft(
        program,
        args.variant,
        inject=args.inject,
        double_fault=args.double,
        seed=args.seed,
        cost=CostModel(latency=args.latency, bandwidth_mbps=args.bandwidth),
    )
    keys = (
        "overhead_pct",
        "detected",
        "corrected",
        "final_output_ok",
        "outcome",
        "reason",
        "time",
        "baseline_time",
        "sections",
        "violations",
        "injected",
        "ops",
    )
    out = {k: fig[k] for k in keys}
    out["overhead_pct"] = round(out["overhead_pct"], 4)
    out["time"], out["baseline_time"] = round(out["time"], 4), round(out["baseline_time"], 4)
    out["workflow"], out["class"], out["variant"] = args.workflow, args.cls, args.variant
    return out
