"""``python -m vizcoll goal ...``: schedules out as LogGOPSim's GOAL, GOAL files checked and timed.

Usage::

    python -m vizcoll goal barrier --algo dissemination --procs 13 [-o b.goal] [--loggp L=1000,o=100,...]
    python -m vizcoll goal barrier --algo dlct --size 8 [--neighbors 8] [--break-rate 0.2 --seed 1] [-o b.goal]
    python -m vizcoll goal tree --kind knomial --k 4 --nprocs 64 --op reduce [--groups 8,8,...] [-o t.goal]
    python -m vizcoll goal reduce --algo rabenseifner --procs 16 --size 4096 [--root 0] [-o r.goal]
    python -m vizcoll goal check FILE
    python -m vizcoll goal show FILE [--loggp ...] [--trace]

An export writes the GOAL file to ``-o`` (or prints it when neither ``-o``
nor ``--loggp`` is given); with ``--loggp`` it prints JSON: the LogGP
``makespan``, the ``host`` reaching it and every rank's ``finish`` time, as
LogGOPSim computes them (:mod:`vizcoll.schedule.loggp`; parameters not given
keep LogGOPSim's defaults L=2500, o=1500, g=1000, G=6, O=0, S=65535).
``goal barrier`` on a grid (``--size``, the ``barrier`` command's grid and
breaks options) exports every hop of one barrier of the run, the DLCT
variants included; without ``--size`` it exports the logical barrier on
``--procs`` ranks. ``goal check`` prints ``{"ok", "problems": [{"line",
"severity", "message"}], ...}`` for any GOAL file and exits 1 when ``ok`` is
false (0 when it is true), so that a script can test it; ``goal show`` times one.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from vizcoll.commands import command
from vizcoll.errors import SpecError
from vizcoll.schedule import LogGP, dumps, parse, simulate
from vizcoll.schedule.check import check
from vizcoll.schedule.goal import MAX_GOAL_BYTES
from vizcoll.schedule.model import Schedule

# Each command imports the rest where it runs (and its arguments' choices where they are set up): the command
# line imports only the command it runs (vizcoll.cli.build_parser), and ``goal show`` needs none of the
# barriers, trees, reductions and topologies of the exports.

__all__: list[str] = []


def _output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", help="write the GOAL file here")
    parser.add_argument("--loggp", help="print the LogGP timing as JSON, e.g. L=1000,o=100,g=0,G=0,O=0,S=65535")


def _export(schedule: Schedule, args: argparse.Namespace, what: str) -> dict | str:
    text = dumps(schedule, comment=f"written by vizcoll: {what}")
    if args.output:
        Path(args.output).write_text(text)
    if args.loggp is None:
        return (
            {
                "written": args.output,
                "ranks": schedule.num_ranks,
                "operations": schedule.n_ops,
                "messages": schedule.messages(),
            }
            if args.output
            else text
        )
    return _timing(schedule, LogGP.parse(args.loggp)) | {"written": args.output}


def _timing(schedule: Schedule, params: LogGP, trace: bool = False) -> dict:
    result = simulate(schedule, params, trace=trace)
    return result.to_dict(trace=trace) | {
        "loggp": asdict(params),
        "ranks": schedule.num_ranks,
        "messages": schedule.messages(),
    }


# ---------------------------------------------------------------- goal barrier
def _barrier_args(parser: argparse.ArgumentParser) -> None:
    from vizcoll.barrier.algorithms import ALGORITHMS

    parser.add_argument(
        "--algo", choices=ALGORITHMS.names, required=True, help="barrier algorithm (DLCT variants need --size)"
    )
    parser.add_argument("--procs", type=int, help="ranks of the logical barrier (without --size)")
    parser.add_argument("--size", help="grid S or RxC: export every hop of one barrier run on that grid")
    parser.add_argument("--neighbors", type=int, choices=(4, 8), default=8, help="grid neighbors (default 8)")
    parser.add_argument("--break-rate", type=float, default=0.0, help="share of grid links broken (seeded)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the broken links")
    parser.add_argument("--block", type=int, default=4, help="block side / size of the two-level barriers")
    parser.add_argument("--bytes", type=int, default=1, help="bytes per message (default 1)")
    _output(parser)


@command("goal barrier", "a barrier as a GOAL schedule (logical ranks, or every hop of a grid run)", _barrier_args)
def _goal_barrier(args: argparse.Namespace) -> dict | str:
    from vizcoll.barrier.algorithms import algorithm, run_barriers
    from vizcoll.barrier.network import break_links
    from vizcoll.commands.barrier import _dims as grid_dims
    from vizcoll.schedule import barrier
    from vizcoll.schedule.recorded import hop_schedule
    from vizcoll.topology.generators import mesh

    if args.size is None:
        if args.procs is None:
            raise SpecError("give --procs N (a logical barrier) or --size S (every hop on a grid)")
        if algorithm(args.algo).goal_schedule is None:
            raise SpecError(f"{args.algo} needs a grid: give --size S (every hop of a run on an S x S grid)")
        return _export(
            barrier(args.algo, args.procs, args.bytes, args.block), args, f"{args.algo} barrier on {args.procs} ranks"
        )
    rows, cols = grid_dims(args.size)
    topo = mesh((rows, cols), args.neighbors, hosts=0)
    for lid in break_links(topo, args.break_rate, args.seed, keep_connected=True):
        topo.set_broken(lid)
    timeline, figures = run_barriers(topo, args.algo, barriers=1, compute=0.0, block=args.block)
    if figures.get("time") is None:
        raise SpecError(f"the barrier did not complete on this grid: {figures.get('failure')}")
    what = (
        f"every hop of one {args.algo} barrier on a {rows}x{cols} grid, {args.neighbors} neighbors, "
        f"{int(topo.broken.sum())} broken links (seed {args.seed})"
    )
    return _export(hop_schedule(timeline, topo.switches.tolist(), args.bytes, what), args, what)


# ---------------------------------------------------------------- goal tree
def _tree_args(parser: argparse.ArgumentParser) -> None:
    from vizcoll.commands.trees import kind_args
    from vizcoll.schedule.collectives import REDUCE, TREE_COLLECTIVES

    kind_args(parser)
    parser.add_argument("--nprocs", type=int, required=True, help="ranks")
    parser.add_argument(
        "--op", choices=TREE_COLLECTIVES.names, default=REDUCE.name, help=f"collective (default {REDUCE.name})"
    )
    parser.add_argument(
        "--groups",
        help="groups of a hierarchical kind (zhao, hier-knomial, ...): sizes 8,8,8 or "
        "JSON rank lists (default: groups of k ranks)",
    )
    parser.add_argument("--bytes", type=int, default=8, help="bytes per message (default 8)")
    _output(parser)


@command("goal tree", "a type I tree's broadcast, reduce or allreduce as a GOAL schedule", _tree_args)
def _goal_tree(args: argparse.Namespace) -> dict | str:
    from vizcoll.commands.trees import parse_groups
    from vizcoll.schedule import tree_collective
    from vizcoll.trees import kinds

    kind, groups = kinds.get(args.kind), None
    if kind.hierarchical:
        groups = (
            parse_groups(args.groups)
            if args.groups
            else [
                list(range(lo, min(lo + args.k, args.nprocs))) for lo in range(0, max(args.nprocs, 1), max(args.k, 1))
            ]
        )
    tree = kind.build(args.nprocs, args.k, groups)
    return _export(
        tree_collective(tree, args.op, args.bytes),
        args,
        f"{args.op} along the {args.kind} tree, k = {args.k}, {args.nprocs} ranks",
    )


# ---------------------------------------------------------------- goal reduce
def _reduce_args(parser: argparse.ArgumentParser) -> None:
    from vizcoll.reduction.static import REGISTRY as STATIC_REDUCTIONS

    parser.add_argument("--algo", choices=STATIC_REDUCTIONS.names, required=True, help="static reduction")
    parser.add_argument("--procs", type=int, required=True, help="ranks")
    parser.add_argument("--size", type=int, required=True, help="bytes of the reduced vector")
    parser.add_argument("--root", type=int, default=0, help="root rank (default 0)")
    _output(parser)


@command("goal reduce", "a static reduction (binomial, MST, Rabenseifner) as a GOAL schedule", _reduce_args)
def _goal_reduce(args: argparse.Namespace) -> dict | str:
    from vizcoll.schedule import static_reduction

    return _export(
        static_reduction(args.algo, args.procs, args.size, args.root),
        args,
        f"{args.algo} reduction of {args.size} bytes on {args.procs} ranks, root {args.root}",
    )


# ---------------------------------------------------------------- goal check / show
def _file_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a GOAL file")


def _read(path: str):
    file = Path(path)
    if file.stat().st_size > MAX_GOAL_BYTES:
        raise SpecError(f"{path}: larger than {MAX_GOAL_BYTES >> 20} MB")
    return parse(file.read_bytes())


@command(
    "goal check",
    "every problem of a GOAL file, with line numbers (LogGOPSim's silent ones too); exits 1 "
    'when the file is not ok ("ok": false: an error, e.g. a receive no send matches), 0 when it is',
    _file_args,
    status=lambda result: 0 if result["ok"] else 1,
)
def _goal_check(args: argparse.Namespace) -> dict:
    parsed = _read(args.file)
    problems = list(parsed.problems)
    if parsed.schedule is not None and not parsed.errors:
        problems += check(parsed.schedule, parsed.lines)
    schedule = parsed.schedule
    return {
        "ok": not any(p.severity == "error" for p in problems),
        "problems": [{"line": p.line, "severity": p.severity, "message": p.message} for p in problems],
        "ranks": schedule.num_ranks if schedule else None,
        "operations": schedule.n_ops if schedule else None,
    }


def _show_args(parser: argparse.ArgumentParser) -> None:
    _file_args(parser)
    parser.add_argument("--loggp", default="", help="LogGP parameters (default LogGOPSim's)")
    parser.add_argument("--trace", action="store_true", help="also print every operation's start and end")


@command("goal show", "the LogGP timing of a GOAL file, as LogGOPSim computes it", _show_args)
def _goal_show(args: argparse.Namespace) -> dict:
    parsed = _read(args.file)
    if parsed.errors:
        raise SpecError(f"{args.file}: {parsed.errors[0]}")
    return _timing(parsed.schedule, LogGP.parse(args.loggp), args.trace)
