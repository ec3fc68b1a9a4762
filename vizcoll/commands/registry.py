"""The registry of CLI commands and the arguments many commands share.

A command is one function registered with :func:`command`; the argument
helpers after the name add shared options and run in order::

    @command("mcast", "multicast trees for communicators", add_topology, add_communicators, _mcast_args)
    def _mcast(args: argparse.Namespace) -> dict:
        topo = load_topology(args.spec)
        comms = load_communicators(args, topo)
        ...

A name with a space (``"topo info"``) becomes a sub-command of a group
(:data:`GROUP_HELP` gives the group's help line). The function returns a
JSON-serialisable dict (printed as JSON), a string (printed as is) or None
(it printed nothing, e.g. it wrote a file itself). ``status`` (a keyword of
:func:`command`) turns the result into the exit status, for a command whose
answer scripts test (``goal check`` exits 1 when its file is not ok); 0 by
default. :mod:`vizcoll.cli` reads :data:`COMMANDS` (a :class:`~vizcoll.registry.Registry`, in registration
order) to build its parser; a name registered twice is a ValueError.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vizcoll.registry import Registry

if TYPE_CHECKING:  # the topology and communicator modules are imported by the commands that use them
    from vizcoll.comm import Communicators
    from vizcoll.topology.model import Topology

__all__ = [
    "COMMANDS",
    "GROUP_HELP",
    "Command",
    "Result",
    "Setup",
    "add_communicators",
    "add_topology",
    "command",
    "load_communicators",
    "load_topology",
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
    status: Callable[[Result], int] = lambda result: 0


COMMANDS: Registry[Command] = Registry("command")
"""Every command by name (``"topo info"``), in the order the help lists them."""
GROUP_HELP = {"topo": "inspect and convert topologies"}


def command(name: str, help: str, *setups: Setup, status: Callable[[Result], int] | None = None) -> Callable:
    """Decorator registering ``run(args) -> dict | str | None`` as the command ``name`` (``status(result)``: its
    exit status, 0 when not given); a name registered already is a ValueError."""

    def register(run: Callable[[argparse.Namespace], Result]) -> Callable:
        COMMANDS.register(Command(name, help, run, setups, *([status] if status else [])))
        return run

    return register


# ---------------------------------------------------------------- shared arguments and loaders
def add_topology(parser: argparse.ArgumentParser) -> None:
    """The positional ``SPEC``: a generator spec (the registered generators' syntax) or a topology file."""
    from vizcoll.topology.generators import syntax

    parser.add_argument("spec", metavar="SPEC", help=f"a generator spec ({syntax()}) or a topology file")


def add_communicators(parser: argparse.ArgumentParser) -> None:
    """``--pattern`` and the placement options ``--ppn``, ``--order``, ``--seed``."""
    from vizcoll.comm import ORDERS, pattern_help

    parser.add_argument("--pattern", required=True, help=f"communication pattern: {pattern_help()}")
    parser.add_argument("--ppn", type=int, default=1, help="processes per compute node (default 1)")
    parser.add_argument("--order", choices=ORDERS, default="linear", help="placement of ranks on nodes")
    parser.add_argument("--seed", type=int, default=0, help="seed for random placement and groups (default 0)")


def load_topology(spec: str) -> Topology:
    """The topology of a file path (if it exists) or of a generator spec."""
    from vizcoll.topology import io as topo_io

    return topo_io.load(spec)


def load_communicators(args: argparse.Namespace, topo: Topology) -> Communicators:
    """Communicators from the options of :func:`add_communicators`."""
    from vizcoll.comm import parse_pattern

    return parse_pattern(args.pattern, topo, ppn=args.ppn, order=args.order, seed=args.seed)
