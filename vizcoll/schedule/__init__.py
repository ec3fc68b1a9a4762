"""Communication schedules: built from vizcoll's collectives, written and read as LogGOPSim's GOAL, timed by LogGP.

- :mod:`vizcoll.schedule.model`: :class:`Schedule` (per rank: sends, receives,
  computations, ``requires`` / ``irequires``);
- :mod:`vizcoll.schedule.goal`: GOAL text out (:func:`dumps`) and in
  (:func:`parse`, with line-numbered problems);
- :mod:`vizcoll.schedule.loggp`: LogGOPSim's LogGP timing (:func:`simulate`);
- :mod:`vizcoll.schedule.check`: everything wrong with a schedule, LogGOPSim's
  silent failures included (:func:`check`);
- :mod:`vizcoll.schedule.collectives`: barriers, tree collectives and static
  reductions as schedules;
- :mod:`vizcoll.schedule.replay`: a traced LogGP run as a timeline on a fabric
  (:func:`loggp_timeline`, every message on its min-hop route).

References: [LOGGOPSIM10]; [LOGGP95] (keys: ``docs/papers.md``).
"""

from vizcoll.schedule.goal import GoalError, Parsed, Problem, dumps, loads, parse
from vizcoll.schedule.loggp import LogGP, LogGPResult, simulate
from vizcoll.schedule.model import ANY, Op, Schedule

__all__ = [
    "ANY",
    "TREE_COLLECTIVES",
    "GoalError",
    "LogGP",
    "LogGPResult",
    "Op",
    "Parsed",
    "Problem",
    "Schedule",
    "barrier",
    "dumps",
    "loads",
    "loggp_timeline",
    "parse",
    "simulate",
    "static_reduction",
    "tree_collective",
]


def __getattr__(name: str):
    """The collectives and the replay, imported when first asked for: they import the trees, reductions and
    topologies, which reading and timing a GOAL file need none of (PEP 562)."""
    if name in ("TREE_COLLECTIVES", "barrier", "static_reduction", "tree_collective"):
        from vizcoll.schedule import collectives as module
    elif name == "loggp_timeline":
        from vizcoll.schedule import replay as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value = getattr(module, name)
    return value
