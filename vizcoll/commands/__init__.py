"""The commands of the CLI and their registry: every module here registers its commands with :func:`command`.

:mod:`vizcoll.commands.registry` holds the registry (:data:`COMMANDS`, the
:func:`command` decorator) and the arguments many commands share; this
package re-exports them, so a feature module starts with
``from vizcoll.commands import command``. The sweeps' ``--dask`` / ``--workers``
and progress bar are :mod:`vizcoll.commands.cluster`'s. :func:`vizcoll.cli.build_parser`
calls :func:`load_all`, so a new feature only adds a module here
(``mcast.py``, ``trees.py``, ...). The built-in ``topo`` and ``comm``
commands (:mod:`vizcoll.commands.topo`) register as soon as the package is
imported, ahead of every feature. No module here imports :mod:`vizcoll.cli`.
"""

import importlib
import pkgutil

from vizcoll.commands import topo as _builtin  # noqa: F401 (registers topo info/export and comm first)
from vizcoll.commands.registry import (
    COMMANDS,
    GROUP_HELP,
    Command,
    Result,
    Setup,
    add_communicators,
    add_topology,
    command,
    load_communicators,
    load_topology,
)

__all__ = [
    "COMMANDS",
    "GROUP_HELP",
    "Command",
    "Result",
    "Setup",
    "add_communicators",
    "add_topology",
    "command",
    "load_all",
    "load_communicators",
    "load_topology",
]


def load_all() -> None:
    """Import every module of this package (each registers its commands)."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
