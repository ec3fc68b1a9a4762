"""The registry of the pages' exports: each page's figure pack and players, by name.

An entry names its builders as ``"module:function"`` and they are imported when an export runs, so that the CLI's
parser (``vizcoll export figures --page``, ``export animation --page --player``) reads the names without importing
Dash or Plotly. :func:`vizcoll.ui.export.catalog.pack_of` and :func:`vizcoll.ui.export.animations.animation_of`
look their page up here. The registry is read from the page folders: a page's exports are the ``EXPORTS`` of its
``__init__`` (function names of its ``export`` module: a pack builder ``(scenario, extra, progress) -> Pack`` and,
per player, ``(scenario, extra) -> Animation``); :func:`register` adds one from elsewhere (a test's toy page).

>>> pack_pages()[:3], players("faults")
(('topology', 'trees', 'multicast'), ('reduction', 'treft'))
>>> "erasure" in player_pages(), players("erasure")  # a pack, no player
(False, ())
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from vizcoll.registry import Registry
from vizcoll.ui import pages

__all__ = ["PageExports", "REGISTRY", "pack_pages", "players", "player_pages", "register", "unregister", "builder"]


@dataclass(frozen=True)
class PageExports:
    """What page ``name`` exports: its figure pack's builder (None: no pack) and its players as ``(player,
    builder)`` pairs, the first the page's default; builders are ``"module:function"``."""

    name: str
    pack: str | None = None
    players: tuple[tuple[str, str], ...] = ()


REGISTRY: Registry[PageExports] = Registry("page with exports")


def _in(page: str, function: str) -> str:
    """``function`` of ``page``'s export module (``vizcoll/ui/pages/<page>/export.py``) as ``"module:function"``."""
    return f"vizcoll.ui.pages.{page}.export:{function}"


def _page_folders() -> list[PageExports]:
    """The exports every page folder declares (``EXPORTS`` in its ``__init__``, which imports nothing), in the
    navbar's order (its ``ORDER``)."""
    found = []
    for info in pkgutil.iter_modules(pages.__path__):
        folder = importlib.import_module(f"{pages.__name__}.{info.name}") if info.ispkg else None
        exports = getattr(folder, "EXPORTS", None)
        if exports is not None:
            pack = exports.get("pack")
            players = tuple((player, _in(info.name, fn)) for player, fn in exports.get("players", {}).items())
            found.append((folder.ORDER, PageExports(info.name, pack and _in(info.name, pack), players)))
    return [entry for _, entry in sorted(found, key=lambda found: found[0])]


for _entry in _page_folders():
    REGISTRY.register(_entry)


def players(page: str) -> tuple[str, ...]:
    """Page ``page``'s players' names, its default first (none for a page without a player or no page)."""
    entry = REGISTRY.get(page)
    return tuple(name for name, _ in entry.players) if entry is not None else ()


def player_pages() -> tuple[str, ...]:
    """The pages with a player, in the navbar's order."""
    return tuple(page for page, entry in tuple(REGISTRY.items()) if entry.players)


def pack_pages() -> tuple[str, ...]:
    """The pages with a figure pack, in the navbar's order."""
    return tuple(page for page, entry in tuple(REGISTRY.items()) if entry.pack)


def register(entry: PageExports, before: str | None = None) -> PageExports:
    return REGISTRY.register(entry, before)


def unregister(name: str) -> PageExports | None:
    return REGISTRY.unregister(name)


def builder(target: str) -> Callable:
    """The function ``"module:function"`` names (imported now)."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
