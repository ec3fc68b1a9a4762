"""The built-in commands: ``topo info``, ``topo links``, ``topo export`` and ``comm``.

``python -m vizcoll topo info SPEC`` prints the size of a topology, its connected ``parts`` and ``warnings`` (its file's
oddities: :mod:`vizcoll.topology.analysis`), and a file's ``format``;
``topo links SPEC --find NAMES [--limit N]`` lists the links whose ends are named so (:mod:`vizcoll.topology.listing`);
``topo export SPEC [--format FORMAT] [-o FILE]`` writes it (the formats: the registry of
:mod:`vizcoll.topology.formats`, read when the parser is built);
``comm SPEC --pattern PATTERN [--ppn N] [--order linear|random] [--seed N] [--list]`` splits its processes
into communicators. :mod:`vizcoll.commands` imports this module first, so these commands come first in the help.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vizcoll.commands.registry import (
    Result,
    add_communicators,
    add_topology,
    command,
    load_communicators,
    load_topology,
)
from vizcoll.errors import SpecError

__all__: list[str] = []


def _info_args(parser: argparse.ArgumentParser) -> None:
    from vizcoll.topology import formats

    parser.epilog = "file formats read (recognised by content): " + "; ".join(map(formats.describe, formats.readable()))


@command(
    "topo info",
    "print the size of a topology, its connected parts and its oddities (and, for a file, the format it was read as)",
    add_topology,
    _info_args,
)
def _topo_info(args: argparse.Namespace) -> dict:
    from vizcoll.topology import io as topo_io
    from vizcoll.topology.analysis import analysis

    topo = load_topology(args.spec)
    extra = {"format": topo.meta["format"]} if "format" in topo.meta else {}
    if "format" not in extra and Path(args.spec).is_file():  # JSON and GraphML keep a file's own meta
        extra["format"] = topo_io.detect(Path(args.spec).read_text(encoding="utf-8-sig"), args.spec).name
    return {**topo.summary(), **extra, **analysis(topo)}


def _links_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--find", default="", metavar="NAMES", help="words each part of an end's name, e.g. 'leaf3 spine'"
    )
    parser.add_argument("--limit", type=int, default=50, help="links listed at most (default 50)")


@command(
    "topo links", "list the links whose ends are named like --find (the app's Links by name)", add_topology, _links_args
)
def _topo_links(args: argparse.Namespace) -> dict:
    from vizcoll.topology.listing import find_links

    if not 0 <= args.limit <= 100_000:
        raise SpecError(f"--limit must be between 0 and 100000, got {args.limit}")
    return find_links(load_topology(args.spec), args.find, args.limit)


def _export_args(parser: argparse.ArgumentParser) -> None:
    from vizcoll.topology import formats

    written = [formats.REGISTRY[name] for name in formats.writable()]
    described = "; ".join(formats.describe(fmt, with_extensions=True) for fmt in written)
    parser.add_argument(
        "--format",
        metavar="{" + ",".join(fmt.name for fmt in written) + "}",
        help=f"one of {described} (default: from the extension of FILE; {formats.DEFAULT} on stdout)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="file to write (default: the text on stdout)")


@command(
    "topo export", "write a topology in one of the file formats vizcoll writes (--format)", add_topology, _export_args
)
def _topo_export(args: argparse.Namespace) -> Result:
    from vizcoll.topology import formats
    from vizcoll.topology import io as topo_io

    if args.format is not None and args.format not in formats.writable():
        raise SpecError(f"unknown format {args.format!r}; choose one of {', '.join(formats.writable())}")
    topo = load_topology(args.spec)
    if args.output is None:
        text = topo_io.dumps(topo, args.format or formats.DEFAULT)
        return text if text.endswith("\n") else text + "\n"
    topo_io.write(topo, args.output, args.format)
    return {"path": args.output, "format": args.format, "nodes": topo.n_nodes, "links": topo.n_links}


def _comm_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--list", action="store_true", help="also print the members and each rank's node")


@command("comm", "split processes into communicators", add_topology, add_communicators, _comm_args)
def _comm(args: argparse.Namespace) -> dict:
    topo = load_topology(args.spec)
    comms = load_communicators(args, topo)
    out = {
        "pattern": comms.label,
        "communicators": len(comms),
        "processes": comms.nprocs,
        "sizes": comms.sizes(),
        "ppn": comms.placement.ppn,
        "nodes_used": len(set(comms.placement.node.tolist())),
    }
    if args.list:
        out["members"] = comms.lists()
        out["rank_node"] = [topo.names[u] for u in comms.placement.node.tolist()]
    return out
