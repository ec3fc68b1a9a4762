"""``python -m vizcoll mcast-import FABRIC MCFDBS [--compare fulb,minhop,sssp]``: a fabric's real multicast tables.

Reads the fabric (a topology file or a generator spec) and OpenSM's
``opensm.mcfdbs`` dump of its multicast forwarding tables, and prints
``{"groups": {"0xC001": [member end nodes]}, "links": [{"a", "a_port", "b",
"b_port", "groups"}], "max_efi", "warnings", "compare": {algo: {"max_efi",
"unroutable", "links"}}}``: the groups recovered from the tables, how many of
them cross each link (the EFI), and what each compared algorithm gives on the
same groups. See :mod:`vizcoll.multicast.tables`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vizcoll.commands import add_topology, command, load_topology
from vizcoll.errors import SpecError
from vizcoll.multicast.algorithms import ALGORITHMS, DEFAULT_ALGORITHM
from vizcoll.multicast.tables import compare, link_rows, read_tables

__all__: list[str] = []

MAX_DUMP_BYTES = 64 * 1024 * 1024


def _args(parser: argparse.ArgumentParser) -> None:
    add_topology(parser)
    parser.add_argument("mcfdbs", help="OpenSM's opensm.mcfdbs dump of the fabric's multicast tables")
    parser.add_argument(
        "--compare",
        default=DEFAULT_ALGORITHM,
        help=f"algorithms to route the same groups with, comma-separated (default "
        f"{DEFAULT_ALGORITHM}; any of "
        f"{', '.join(ALGORITHMS)}; '' for none)",
    )


@command("mcast-import", "a fabric's real multicast tables (opensm.mcfdbs): groups, per-link EFI, vs FULB-MC", _args)
def _mcast_import(args: argparse.Namespace) -> dict:
    algos = [a.strip() for a in args.compare.split(",") if a.strip()]
    unknown = [a for a in algos if a not in ALGORITHMS]
    if unknown:
        raise SpecError(f"unknown algorithm {unknown[0]!r}; choose from {', '.join(ALGORITHMS)}")
    path = Path(args.mcfdbs)
    if path.stat().st_size > MAX_DUMP_BYTES:
        raise SpecError(f"{path}: larger than {MAX_DUMP_BYTES >> 20} MB")
    topo = load_topology(args.spec)
    tables = read_tables(topo, path.read_text(errors="replace"))
    return {
        "groups": {f"0x{lid:04X}": names for lid, names in tables.groups.items()},
        "links": link_rows(topo, tables.efi),
        "max_efi": tables.max_efi,
        "warnings": tables.warnings,
        "compare": compare(topo, tables, algos),
    }
