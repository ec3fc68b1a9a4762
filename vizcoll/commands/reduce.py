"""Commands ``reduce`` (one simulated reduction) and ``reduce-reliability`` (the paper's fault experiment).

Usage::

    python -m vizcoll reduce --procs P --size BYTES --algo binomial|mst|rabenseifner|task [--root R]
                             [--arrival 0,3,1,2] [--slow 2:4,5:3] [--interference 3@0.1-0.5x4]
                             [--kill RANK@TIME | --kill sending-task|executing-task|fetching-data]
                             [--concurrent K] [--op sum|prod|max|min] [--warm] [--seed N]
    python -m vizcoll reduce-reliability --procs 200 --runs 700 [--size BYTES] [--load 0.5] --seed N
                                         [--dask ADDRESS | --workers N]

``reduce`` prints ``{"time", "messages", "result_ok", "recovered", "unrecoverable", "fault", "tasks"}``:
the time in seconds, every point-to-point message, whether the result equals
the direct reduction of all inputs, whether a failure was repaired, and the
tasks ``{"pair": [i, j], "to": w}`` in the order the scheduler formed them
(task-based only). ``reduce-reliability`` prints ``{"runs", "unrecoverable",
"reliability", "mean_time", "replica_time", "per_day"}``. See
:mod:`vizcoll.reduction`.
"""

from __future__ import annotations

import argparse

from vizcoll.commands import command
from vizcoll.commands.cluster import add_cluster, on_cluster
from vizcoll.errors import SpecError
from vizcoll.reduction.common import ReductionRun
from vizcoll.reduction.data import OPS
from vizcoll.reduction.env import parse_interference, parse_slow
from vizcoll.reduction.reliability import reliability_experiment
from vizcoll.reduction.static import REGISTRY as STATIC_REDUCTIONS
from vizcoll.reduction.static_sim import simulate_static
from vizcoll.reduction.task import FAULT_LOCATIONS, LOCATION_ALIASES, simulate_task_reduction

__all__ = ["TASK", "parse_kill", "parse_ranks"]

TASK = "task"
"""``--algo``'s name of the task-based reduction; the other choices are the static reductions registered when the
parser is built (:data:`vizcoll.reduction.static.REGISTRY`)."""
OUTPUT = ("time", "messages", "result_ok", "recovered", "unrecoverable", "fault", "tasks")


def parse_ranks(text: str) -> list[int]:
    """``"0,3,1,2"`` -> ``[0, 3, 1, 2]``."""
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SpecError(f"--arrival takes ranks like 0,3,1,2, got {text!r}") from None


def parse_kill(text: str) -> tuple[int, float] | str:
    """``"1@0.25"`` -> ``(1, 0.25)``; a fault location name is returned as is."""
    if text in FAULT_LOCATIONS or text in LOCATION_ALIASES:
        return text
    rank, sep, time = text.partition("@")
    try:
        if sep:
            return int(rank), float(time)
    except ValueError:
        pass
    names = ", ".join(FAULT_LOCATIONS)
    raise SpecError(f"--kill takes RANK@TIME (seconds) like 1@0.25 or a fault location ({names}), got {text!r}")


def _reduce_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--procs", type=int, required=True, help="number of processes")
    parser.add_argument("--size", type=int, required=True, help="bytes each process reduces")
    parser.add_argument(
        "--algo", choices=(*STATIC_REDUCTIONS.names, TASK), default=TASK, help=f"reduction algorithm (default {TASK})"
    )
    parser.add_argument("--root", type=int, default=0, help="root rank (default 0)")
    parser.add_argument("--arrival", default="", help="order in which processes call reduce, e.g. 0,3,1,2")
    parser.add_argument("--slow", default="", help="slow processes rank:factor, e.g. 2:4,5:3")
    parser.add_argument("--interference", default="", help="episodes rank@start-endxfactor (seconds), e.g. 3@0.1-0.5x4")
    parser.add_argument("--kill", help="RANK@TIME (seconds) or a fault location (task-based only)")
    parser.add_argument("--concurrent", type=int, default=1, help="reductions at once (default 1)")
    parser.add_argument("--op", choices=tuple(OPS), default="sum", help="reduce operation (default sum)")
    parser.add_argument("--warm", action="store_true", help="performance counters start from a previous reduction")
    parser.add_argument("--seed", type=int, default=0, help="seed of the input data (default 0)")


@command("reduce", "simulate one reduction: static (binomial, MST, Rabenseifner) or the task-based one", _reduce_args)
def _reduce(args: argparse.Namespace) -> dict:
    reduction = ReductionRun(
        procs=args.procs,
        size=args.size,
        root=args.root,
        arrival=parse_ranks(args.arrival) or None,
        slow=parse_slow(args.slow),
        interference=parse_interference(args.interference),
        kill=parse_kill(args.kill) if args.kill else None,
        seed=args.seed,
        op=args.op,
        concurrent=args.concurrent,
    )
    if args.algo == TASK:
        _, figures = simulate_task_reduction(reduction, record=False, counters="warm" if args.warm else None)
    else:
        _, figures = simulate_static(args.algo, reduction, record=False)
    return {key: figures[key] for key in OUTPUT}


def _reliability_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--procs", type=int, default=200, help="number of processes (default 200)")
    parser.add_argument("--runs", type=int, default=700, help="killed runs, 100 a day (default 700)")
    parser.add_argument("--size", type=int, default=32 << 20, help="bytes (default 32 MiB)")
    parser.add_argument("--victim", type=int, default=1, help="the killed process (default 1)")
    parser.add_argument("--load", type=float, default=0.5, help="share of time nodes are busy (default 0.5)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")


@command(
    "reduce-reliability",
    "the paper's fault experiment: kill a process at a random time, count unrecoverable runs",
    _reliability_args,
    add_cluster,
)
def _reliability(args: argparse.Namespace) -> dict:
    if not 2 <= args.procs <= 4096:
        raise SpecError("--procs must be in 2..4096")
    out = on_cluster(
        args,
        lambda run: reliability_experiment(
            ReductionRun(procs=args.procs, size=args.size, seed=args.seed),
            runs=args.runs,
            victim=args.victim,
            load=args.load,
            run=run,
        ),
    )
    keys = ("runs", "unrecoverable", "reliability", "mean_time", "replica_time", "per_day", "dask")
    return {key: out[key] for key in keys if key in out}
