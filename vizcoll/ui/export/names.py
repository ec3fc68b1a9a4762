"""The pages and players the exports know, by name (no import of Dash or Plotly: the CLI's parser reads them).

``PACK_PAGES``: every page with a figure pack; ``PLAYERS``: page -> its players (the first is the page's
default). :mod:`vizcoll.ui.export.catalog` and :mod:`vizcoll.ui.export.animations` implement exactly these
(a test checks it).
"""

from __future__ import annotations

__all__ = ["PACK_PAGES", "PLAYERS"]

PACK_PAGES = ("topology", "trees", "multicast", "barrier", "faults", "erasure", "schedules")
PLAYERS = {"topology": ("broadcast",), "trees": ("aggregation",), "multicast": ("protocol",), "barrier": ("barrier",),
           "faults": ("reduction", "treft"), "schedules": ("replay",)}
