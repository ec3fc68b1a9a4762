"""``python -m vizcoll mcast SPEC --pattern PATTERN [--algo ALGO] [--dump-mcfdbs FILE]``.

Routes one multicast group per communicator with MINIHOP-MC, SSSP-MC or
FULB-MC (and their variants, see :mod:`vizcoll.multicast.routing`) and prints
:meth:`MulticastResult.summary` as JSON, plus the pattern. ``--dump-mcfdbs``
also writes the forwarding tables in OpenSM's ``opensm.mcfdbs`` layout.

On a rail fabric (``rail-fat-tree:...``) the output adds ``rails``: the
fabric's rails and, for the pattern placed rail-aware (a server's GPUs on
consecutive ranks) and naive (ranks fill rail 0 first), how many groups span
more than one rail (``{"groups", "cross_rail", "max_rails"}``, see
:func:`vizcoll.comm.rails.group_rails`); the groups are routed with ``--order``'s placement.
Without ``cross=1`` a group spanning rails is cut apart (no path between rails).
"""

from __future__ import annotations

import argparse

from vizcoll.comm.rails import group_rails, has_rails
from vizcoll.commands import add_communicators, add_topology, command, load_communicators, load_topology
from vizcoll.multicast import ALGORITHMS, dump_mcfdbs, route_communicators
from vizcoll.multicast.algorithms import DEFAULT_ALGORITHM, REGISTRY

__all__: list[str] = []


def _mcast_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--algo",
        choices=ALGORITHMS,
        default=DEFAULT_ALGORITHM,
        help=f"routing algorithm (default {DEFAULT_ALGORITHM}): "
        + ", ".join(f"{a.name} = {a.label}" for a in REGISTRY.values()),
    )
    parser.add_argument("--dump-mcfdbs", metavar="FILE", help="write the multicast forwarding tables (opensm.mcfdbs)")


@command(
    "mcast",
    "multicast trees (MINIHOP-MC, SSSP-MC, FULB-MC) and link EFIs for communicators",
    add_topology,
    add_communicators,
    _mcast_args,
)
def _mcast(args: argparse.Namespace) -> dict:
    topo = load_topology(args.spec)
    comms = load_communicators(args, topo)
    result = route_communicators(topo, comms, args.algo)
    out = result.summary()
    out["pattern"] = comms.label
    if has_rails(topo):
        out["rails"] = group_rails(topo, args.pattern, args.ppn, args.seed)
    if args.dump_mcfdbs:
        text = dump_mcfdbs(topo, result)
        with open(args.dump_mcfdbs, "w", encoding="ascii") as handle:
            handle.write(text)
        out["mcfdbs"] = args.dump_mcfdbs
    return out
