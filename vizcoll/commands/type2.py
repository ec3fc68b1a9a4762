"""``python -m vizcoll type2 SPEC --pattern PATTERN [--entries 16] [--degree D]``: switch entries of type II trees.

Routes every communicator of the pattern with the physical-tree method and
with the minimum-cost method (Algorithm 5) under a per-switch entry limit and
prints ``{"physical": {...}, "mincost": {...}, "reduction": ...}`` (see
:func:`vizcoll.trees.entries.entry_experiment`).
"""

from __future__ import annotations

import argparse

from vizcoll.commands import add_communicators, add_topology, command, load_communicators, load_topology
from vizcoll.errors import SpecError
from vizcoll.trees.entries import DEFAULT_ENTRIES, entry_experiment

__all__: list[str] = []


def _args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--entries",
        type=int,
        default=DEFAULT_ENTRIES,
        help=f"aggregation-tree entries per switch (default {DEFAULT_ENTRIES}; 0 = unlimited)",
    )
    parser.add_argument(
        "--degree", type=int, default=None, help="degree bound D of the min-cost trees (default: each switch's radix)"
    )


@command(
    "type2",
    "type II aggregation trees: switch entries used by physical vs min-cost trees",
    add_topology,
    add_communicators,
    _args,
)
def _type2(args: argparse.Namespace) -> dict:
    if args.entries < 0:
        raise SpecError(f"--entries must be >= 0 (0 = unlimited), got {args.entries}")
    if args.degree is not None and args.degree < 2:
        raise SpecError(f"--degree must be at least 2, got {args.degree}")
    topo = load_topology(args.spec)
    comms = load_communicators(args, topo)
    out = entry_experiment(topo, comms, entries=args.entries or None, degree=args.degree)
    out["pattern"] = comms.label
    return out
