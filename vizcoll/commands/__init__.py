"""Feature commands of the CLI: every module here registers its commands with ``vizcoll.cli.command``.

Modules are imported on demand by :func:`vizcoll.cli.build_parser`, so a new
feature only adds a module here (``mcast.py``, ``trees.py``, ...).
"""

import importlib
import pkgutil


def load_all() -> None:
    """Import every module of this package (each registers its commands)."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
