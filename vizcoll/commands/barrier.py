"""``python -m vizcoll barrier`` and ``barrier-sweep``: the DLCT paper's barrier experiment (the DLCT barrier paper).

``barrier --size S --algo ALGO [--break-rate R] [--seed N] [--barriers 3] [--neighbors 4|8]`` runs the
test program once on an ``S x S`` grid (``S`` or ``RxC``) with ``R`` of its
links broken (seeded) and prints the figures ``{"time", "sync_time",
"messages", "hops", "dead_ends", "adjustments", ...}``.

``barrier --topology SPEC [--pattern PATTERN [--comm I]] [--broken LABEL ...] --algo ALGO`` runs it on any
fabric (a generator spec such as ``fat-tree:radix=4,levels=3`` or a topology
file), as the app's barrier page does: on a 2-D grid (a mesh) the paper's
grid model with the switches as processors; on any other fabric the
processes are **every end node**, at any size, or with ``--pattern`` the end
nodes of one communicator of the pattern (``--comm``, default 0; placed with
``--ppn`` / ``--order`` / ``--seed`` as ``mcast`` places them), and messages
follow min-hop routes that avoid the broken links (the DLCT variants need a
grid and say so). ``--broken a[pa]-b[pb]`` (repeatable, both modes) breaks
the link named by its ends and ports, as the app names links; ``--break-rate``
then breaks a random share of the switch-to-switch links on top.

``barrier-sweep [--sizes 4,8,16] [--rates 0,0.1,...] [--algos ...] [--seeds N] [--dask ADDRESS | --workers N]``
prints the Fig. 6/7-style table as JSON (see :mod:`vizcoll.barrier.benchmark`), its runs computed here or on
a Dask cluster (:mod:`vizcoll.commands.cluster`).
"""

from __future__ import annotations

import argparse

from vizcoll.barrier.algorithms import ALGORITHMS, COMMAND_LINE_ALGORITHM, JUDGES, TREE_ON, run_barriers
from vizcoll.barrier.benchmark import RATES, SIZES, SweepGrids, sweep
from vizcoll.barrier.fabric import communicator_processes
from vizcoll.barrier.network import break_links, is_grid
from vizcoll.comm import ORDERS, parse_pattern, pattern_help
from vizcoll.commands import command, load_topology
from vizcoll.commands.cluster import add_cluster, on_cluster
from vizcoll.errors import SpecError
from vizcoll.sim.lockstep import lockstep
from vizcoll.topology.generators import mesh
from vizcoll.topology.model import Topology

__all__: list[str] = []

SHOWN = (
    "algo",
    "model",
    "processors",
    "broken_links",
    "time",
    "sync_time",
    "messages",
    "hops",
    "dead_ends",
    "detours",
    "max_link_load",
    "adjustments",
    "early_gathers",
    "completed",
    "failure",
    "k",
    "processes",
)


def _dims(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        raise SpecError(f"--size must be S or RxC, got {text!r}") from None
    if len(dims) == 1:
        dims = dims * 2
    if len(dims) != 2 or min(dims) < 1:
        raise SpecError(f"--size must be S or RxC with positive numbers, got {text!r}")
    return dims


def _numbers(text: str, kind: type, what: str) -> list:
    try:
        return [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SpecError(f"{what} must be a comma-separated list, got {text!r}") from None


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--neighbors",
        type=int,
        choices=(4, 8),
        default=8,
        help="grid neighborhood (default 8: the model that reproduces the paper's Fig. 3)",
    )
    parser.add_argument("--barriers", type=int, default=3, help="barriers in the test program (default 3)")
    parser.add_argument("--compute", type=float, default=0.5, help="seconds of work between barriers (default 0.5)")
    parser.add_argument("--judge", choices=JUDGES, default="model", help="DLCT judge (default model)")
    parser.add_argument("--block", type=int, default=4, help="block side of the two-level algorithms (default 4)")
    parser.add_argument("--hop-latency", type=float, default=None, help="seconds per link hop")
    parser.add_argument("--proc", type=float, default=None, help="seconds a node needs per message")
    parser.add_argument(
        "--disconnect",
        action="store_true",
        help="break the asked share of links even if that cuts the grid (default: keep it connected)",
    )


def _params(args: argparse.Namespace) -> dict:
    out = {"barriers": args.barriers, "compute": args.compute, "judge": args.judge, "block": args.block}
    if args.hop_latency is not None:
        out["hop_latency"] = args.hop_latency
    if args.proc is not None:
        out["proc"] = args.proc
    return out


def _one_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", default=None, help="grid side S or RxC (default 8; not with --topology)")
    parser.add_argument(
        "--topology",
        metavar="SPEC",
        default=None,
        help="any fabric instead of a grid: a generator spec (e.g. fat-tree:radix=4,levels=3) or a "
        "topology file; not a 2-D grid: every end node is a process, min-hop routes",
    )
    parser.add_argument(
        "--broken",
        metavar="LABEL",
        action="append",
        default=[],
        help="break the link named a[pa]-b[pb] (ends and ports, e.g. edge0.0[4]-agg0.1[1]); repeatable",
    )
    parser.add_argument(
        "--pattern",
        default=None,
        help="with --topology: the processes are the end nodes of one communicator of this pattern "
        f"(default: every end node): {pattern_help()}",
    )
    parser.add_argument("--comm", type=int, default=0, help="the communicator of --pattern (default 0)")
    parser.add_argument("--ppn", type=int, default=1, help="processes per compute node of --pattern (default 1)")
    parser.add_argument("--order", choices=ORDERS, default="linear", help="placement of --pattern's ranks on nodes")
    parser.add_argument("--algo", choices=ALGORITHMS.names, default=COMMAND_LINE_ALGORITHM, help=_algo_help())
    parser.add_argument(
        "--compare",
        choices=ALGORITHMS.names,
        default=None,
        help="also run this algorithm on the same fabric and breaks, and print where the two runs part on one clock "
        '("side_by_side")',
    )
    parser.add_argument("--break-rate", type=float, default=0.0, help="share of links broken, 0..1 (default 0)")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the broken links (and of a random pattern or order; default 0)"
    )
    parser.add_argument(
        "--tree-on",
        choices=TREE_ON,
        default="live",
        help="tree: built on the live grid or on the grid before the breaks (default live)",
    )
    _common(parser)


def _algo_help() -> str:
    """``--algo``'s help: the default, then every registered algorithm's one line (read when the parser is built)."""
    lines = "; ".join(f"{cls.name} = {cls.help}" for cls in ALGORITHMS.values())
    return f"barrier algorithm (default {COMMAND_LINE_ALGORITHM}): {lines}"


def _break_labels(topo: Topology, labels: list[str]) -> None:
    """Break the links named ``a[pa]-b[pb]`` (SpecError naming the first one the fabric does not have)."""
    for label in labels:
        row = topo.find_link(label)
        if row is None:
            raise SpecError(
                f"--broken {label}: the fabric has no such link (name it a[pa]-b[pb] by its ends and "
                "ports, e.g. as the app's link labels show it)"
            )
        topo.set_broken(int(topo.link_id[row]))


def _processes(topo: Topology, args: argparse.Namespace) -> tuple[list[int], str]:
    """The processes on a fabric that is not a grid: every end node, or the end nodes of communicator ``--comm``
    of ``--pattern``; and a line saying which (SpecError when fewer than 2)."""
    if args.pattern is None:
        nodes, which = topo.endpoints.tolist(), "every end node"
    else:
        comms = parse_pattern(args.pattern, topo, ppn=args.ppn, order=args.order, seed=args.seed)
        nodes = communicator_processes(comms, args.comm)
        which = f"the end nodes of communicator {args.comm} of {comms.label or args.pattern}"
    if len(nodes) < 2:
        raise SpecError(f"{args.topology}: a barrier needs at least 2 processes; {which} gives {len(nodes)}")
    return nodes, which


@command("barrier", "run the barrier test program (3 barriers) on a grid or any fabric with broken links", _one_args)
def _barrier(args: argparse.Namespace) -> dict:
    if args.topology is not None and args.size is not None:
        raise SpecError("--size makes a grid and --topology names a fabric: give one of them")
    if args.topology is None and args.pattern is not None:
        raise SpecError("--pattern chooses processes among a fabric's end nodes: give --topology too")
    if args.topology is None:
        topo = mesh(_dims(args.size or "8"), neighbors=args.neighbors, hosts=0)
    else:
        topo = load_topology(args.topology)
    _break_labels(topo, args.broken)
    break_links(topo, args.break_rate, args.seed, keep_connected=not args.disconnect)
    grid = args.topology is None or (is_grid(topo) and args.pattern is None)
    nodes, which = (None, "the grid's switches") if grid else _processes(topo, args)
    extra = {} if grid else {"participants": nodes}
    run = lambda algo: run_barriers(  # noqa: E731
        topo, algo, seed=args.seed, tree_on=args.tree_on, record=args.compare is not None, **_params(args), **extra
    )
    timeline, figures = run(args.algo)
    figures["model"] = "grid" if grid else "min-hop routes among the end nodes"
    figures["processes"] = which
    out = {key: figures[key] for key in SHOWN if key in figures}
    if args.compare is not None:
        other, _ = run(args.compare)
        out["side_by_side"] = lockstep(timeline, other, (args.algo, args.compare)).to_dict()
    return out


def _sweep_args(parser: argparse.ArgumentParser) -> None:
    sizes = ",".join(map(str, SIZES))
    parser.add_argument("--sizes", default=sizes, help=f"grid sides (default {sizes})")
    parser.add_argument("--rates", default=",".join(f"{r:g}" for r in RATES), help="break rates (default 0,...,0.5)")
    parser.add_argument("--algos", default=",".join(ALGORITHMS.names), help="algorithms (default all)")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per (size, rate) (default 3)")
    parser.add_argument("--tree-on", default="live,intact", help="tree variants (default live,intact)")
    _common(parser)


@command(
    "barrier-sweep", "the paper's Fig. 6/7 experiment: run time vs grid size and break rate", _sweep_args, add_cluster
)
def _barrier_sweep(args: argparse.Namespace) -> dict:
    sizes, rates = _numbers(args.sizes, int, "--sizes"), _numbers(args.rates, float, "--rates")
    algos = [a.strip() for a in args.algos.split(",") if a.strip()]
    tree_on = [t.strip() for t in args.tree_on.split(",") if t.strip()]
    return on_cluster(
        args,
        lambda run: sweep(
            SweepGrids(sizes, rates, args.seeds, args.neighbors, not args.disconnect),
            algos,
            tree_on=tree_on,
            run=run,
            **_params(args),
        ),
    )
