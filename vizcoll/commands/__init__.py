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
    "MODULES",
    "Command",
    "Result",
    "Setup",
    "add_communicators",
    "add_topology",
    "command",
    "load",
    "load_all",
    "load_communicators",
    "load_topology",
]


def load_all() -> None:
    """Import every module of this package (each registers its commands), in alphabetical order but ``trees``
    before ``goal``: the help lists the commands in the order they register, and ``goal`` imported ``trees``
    when it took the tree commands' arguments at import time."""
    for info in pkgutil.iter_modules(__path__):
        name = info.name
        if name == "goal":
            importlib.import_module(f"{__name__}.trees")
        importlib.import_module(f"{__name__}.{name}")


# the module of each command group not named as its module (``goal`` is in goal.py, ``kopt`` in trees.py)
MODULES = {
    "animate": "export",
    "barrier-sweep": "barrier",
    "comm": "topo",
    "erasure-compare": "erasure",
    "figures": "export",
    "kopt": "trees",
    "mcast-import": "mcast_import",
    "reduce-reliability": "reduce",
    "tree": "trees",
}


def load(group: str) -> None:
    """Import the module of the command group ``group`` (:data:`MODULES`, else the module named as the group:
    ``goal`` -> ``goal.py``) when there is one and it registers commands of that group; every module otherwise
    (:func:`load_all`)."""
    module = MODULES.get(group, group)
    if module in {info.name for info in pkgutil.iter_modules(__path__)} and module != "registry":
        importlib.import_module(f"{__name__}.{module}")
        if any(name.partition(" ")[0] == group for name in COMMANDS):
            return
    load_all()
