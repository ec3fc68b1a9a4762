"""The command line, ``python -m vizcoll COMMAND ...``: each command prints one JSON document.

Usage::

    python -m vizcoll topo info SPEC
    python -m vizcoll topo export SPEC [--format FORMAT] [-o FILE]
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
Commands live in ``vizcoll/commands/<feature>.py`` (the built-in ``topo`` and
``comm`` ones in ``vizcoll/commands/topo.py``) and register with the
registry of :mod:`vizcoll.commands`, which this module reads when it builds
the parser; the registry's names are re-exported here.
The function returns a JSON-serialisable dict (printed as JSON), a string
(printed as is) or None (it printed nothing, e.g. it wrote a file itself).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from vizcoll import __version__, commands
from vizcoll.commands import (
    COMMANDS,
    GROUP_HELP,
    Command,
    add_communicators,
    add_topology,
    command,
    load_communicators,
    load_topology,
)
from vizcoll.errors import VizcollError
from vizcoll.runtime import tune_gc

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


# ---------------------------------------------------------------- parser and entry point
def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argparse parser of every registered command (grouped by their first word).

    Given a command line ``argv``, only the command it names has its arguments set up (the others are listed
    by name and help line, as the help shows them), and when its group is the name of a module of
    :mod:`vizcoll.commands` (``goal`` -> ``goal.py``) only that module is imported: a command's start-up then
    costs what it uses, not the import of every feature (measured: docs/design.md)."""
    words = list(argv or [])[:2]
    named = argv is not None and bool(words) and not words[0].startswith("-")
    commands.load(words[0]) if named else commands.load_all()
    parser = argparse.ArgumentParser(prog="vizcoll", description="Collective communication on HPC interconnects.")
    parser.add_argument("--version", action="version", version=f"vizcoll {__version__}")
    top = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    groups: dict[str, argparse._SubParsersAction] = {}
    for cmd in list(COMMANDS.values()):  # a setup may import a module that registers more
        group, _, sub = cmd.name.partition(" ")
        if sub:
            if group not in groups:
                group_parser = top.add_parser(group, help=GROUP_HELP.get(group, f"{group} commands"))
                groups[group] = group_parser.add_subparsers(dest="subcommand", metavar="SUBCOMMAND", required=True)
            target = groups[group].add_parser(sub, help=cmd.help, description=cmd.help)
        else:
            target = top.add_parser(group, help=cmd.help, description=cmd.help)
        if not named or cmd.name == " ".join(words[: 2 if sub else 1]):
            for setup in cmd.setups:
                setup(target)
        target.set_defaults(run=cmd.run, status=cmd.status)
    return parser


def _message(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (argparse exits 2 itself on bad usage)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    tune_gc()
    try:
        result = args.run(args)
    except (VizcollError, OSError) as exc:
        print(f"vizcoll: error: {_message(exc)}", file=sys.stderr)
        return 2
    if isinstance(result, str):
        sys.stdout.write(result)
    elif result is not None:
        sys.stdout.write(json.dumps(result, sort_keys=True) + "\n")
    return args.status(result)
