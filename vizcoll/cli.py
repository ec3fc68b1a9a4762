"""The command line, ``python -m vizcoll COMMAND ...``: each command prints one JSON document.

Usage::

    python -m vizcoll topo info SPEC
    python -m vizcoll topo export SPEC [--format json|graphml|ibsim|ibnetdiscover] [-o FILE]
    python -m vizcoll comm SPEC --pattern PATTERN [--ppn N] [--order linear|random] [--seed N] [--list]

``SPEC`` is a generator spec (``fat-tree:radix=40,levels=3``) or a topology
file. A user error (any :class:`~vizcoll.errors.VizcollError` or
:class:`OSError`) prints one line ``vizcoll: error: ...`` on stderr and exits
with status 2.

Adding a command takes one function registered with :func:`command`; the
argument helpers after the name add shared options and run in order::

    @command("mcast", "multicast trees for communicators", add_topology, add_communicators, _mcast_args)
    def _mcast(args: argparse.Namespace) -> dict:
        topo = load_topology(args.spec)
        comms = load_communicators(args, topo)
        ...

A name with a space (``"topo info"``) becomes a sub-command of a group.
Feature commands live in ``vizcoll/commands/<feature>.py`` and are loaded
when the parser is built.
The function returns a JSON-serialisable dict (printed as JSON), a string
(printed as is) or None (it printed nothing, e.g. it wrote a file itself).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vizcoll import __version__
from vizcoll.comm import ORDERS, PATTERN_HELP, Communicators, parse_pattern
from vizcoll.errors import SpecError, VizcollError
from vizcoll.topology.model import Topology

__all__ = [
    "COMMANDS",
    "GROUP_HELP",
    "Command",
    "add_communicators",
    "add_topology",
    "build_parser",
    "command",
    "load_communicators",
    "load_topology",
    "main",
]

Setup = Callable[[argparse.ArgumentParser], None]
Result = dict | str | None


@dataclass(frozen=True)
class Command:
    """A registered command: its name (``"topo info"``), help line, argument setups and function."""

    name: str
    help: str
    run: Callable[[argparse.Namespace], Result]
    setups: tuple[Setup, ...]


COMMANDS: dict[str, Command] = {}
GROUP_HELP = {"topo": "inspect and convert topologies"}


def command(name: str, help: str, *setups: Setup) -> Callable:
    """Decorator registering ``run(args) -> dict | str | None`` as the command ``name``."""

    def register(run: Callable[[argparse.Namespace], Result]) -> Callable:
        COMMANDS[name] = Command(name, help, run, setups)
        return run

    return register


# ---------------------------------------------------------------- shared arguments and loaders
def add_topology(parser: argparse.ArgumentParser) -> None:
    """The positional ``SPEC``: a generator spec or a topology file."""
    parser.add_argument("spec", metavar="SPEC", help="generator spec (e.g. fat-tree:radix=40,levels=3) or a file")


def add_communicators(parser: argparse.ArgumentParser) -> None:
    """``--pattern`` and the placement options ``--ppn``, ``--order``, ``--seed``."""
    parser.add_argument("--pattern", required=True, help=f"communication pattern: {PATTERN_HELP}")
    parser.add_argument("--ppn", type=int, default=1, help="processes per compute node (default 1)")
    parser.add_argument("--order", choices=ORDERS, default="linear", help="placement of ranks on nodes")
    parser.add_argument("--seed", type=int, default=0, help="seed for random placement and groups (default 0)")


def load_topology(spec: str) -> Topology:
    """The topology of a file path (if it exists) or of a generator spec."""
    from vizcoll.topology import io as topo_io

    return topo_io.load(spec)


def load_communicators(args: argparse.Namespace, topo: Topology) -> Communicators:
    """Communicators from the options of :func:`add_communicators`."""
    return parse_pattern(args.pattern, topo, ppn=args.ppn, order=args.order, seed=args.seed)


# ---------------------------------------------------------------- commands
@command("topo info", "print the size of a topology", add_topology)
def _topo_info(args: argparse.Namespace) -> dict:
    return load_topology(args.spec).summary()


def _export_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", help="json, graphml, ibsim or ibnetdiscover (default: from the file name)")
    parser.add_argument("-o", "--output", metavar="FILE", help="file to write (default: the text on stdout)")


@command("topo export", "write a topology as JSON, GraphML, ibsim or ibnetdiscover text", add_topology, _export_args)
def _topo_export(args: argparse.Namespace) -> Result:
    from vizcoll.topology import io as topo_io

    if args.format is not None and args.format not in topo_io.FORMATS:
        raise SpecError(f"unknown format {args.format!r}; choose one of {', '.join(topo_io.FORMATS)}")
    topo = load_topology(args.spec)
    if args.output is None:
        text = topo_io.dumps(topo, args.format or "json")
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


# ---------------------------------------------------------------- parser and entry point
def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of every registered command (grouped by their first word)."""
    from vizcoll import commands

    commands.load_all()
    parser = argparse.ArgumentParser(prog="vizcoll", description="Collective communication on HPC interconnects.")
    parser.add_argument("--version", action="version", version=f"vizcoll {__version__}")
    top = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    groups: dict[str, argparse._SubParsersAction] = {}
    for cmd in COMMANDS.values():
        group, _, sub = cmd.name.partition(" ")
        if sub:
            if group not in groups:
                group_parser = top.add_parser(group, help=GROUP_HELP.get(group, f"{group} commands"))
                groups[group] = group_parser.add_subparsers(dest="subcommand", metavar="SUBCOMMAND", required=True)
            target = groups[group].add_parser(sub, help=cmd.help, description=cmd.help)
        else:
            target = top.add_parser(group, help=cmd.help, description=cmd.help)
        for setup in cmd.setups:
            setup(target)
        target.set_defaults(run=cmd.run)
    return parser


def _message(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (argparse exits 2 itself on bad usage)."""
    args = build_parser().parse_args(argv)
    try:
        result = args.run(args)
    except (VizcollError, OSError) as exc:
        print(f"vizcoll: error: {_message(exc)}", file=sys.stderr)
        return 2
    if isinstance(result, str):
        sys.stdout.write(result)
    elif result is not None:
        sys.stdout.write(json.dumps(result, sort_keys=True) + "\n")
    return 0
