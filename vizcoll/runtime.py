"""Process-wide settings of the two long-running faces of the engine (the web app, the command line).

:func:`tune_gc`: Python's cyclic garbage collector re-scans every live object
at each full collection. Building a tree or its routes over 40,000 processes
allocates a few million small lists, which triggers dozens of full
collections, each walking the large fabrics and cached results already in
memory: at paper scale that was up to half of a page's time. The objects
created at start-up (modules, the app) are frozen out of the collector's
scans, and a collection starts after 20,000 net allocations instead of 700;
a full one still follows every 2,000,000, so that garbage held in reference
cycles (a simulation's engine and its handlers) is freed in time.
"""

from __future__ import annotations

import gc

__all__ = ["GC_THRESHOLDS", "tune_gc"]

GC_THRESHOLDS = (20_000, 10, 10)
"""Net allocations before a young collection, then young collections per middle one, middle per full one."""


def tune_gc() -> None:
    """Freeze what exists now (imported modules, the app) and make collections rarer (see the module docstring)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
