"""Everything wrong with a schedule, LogGOPSim's silent failures included.

LogGOPSim crashes on a send to a rank that does not exist, prints "unexpected
queue on host i contains k elements" (an unmatched send or a tag mismatch) or
"receive queue on host i contains ..." (an unmatched receive) and exits 0, and
does not see a dependency cycle at all: the operations in it never run and the
times are printed as if they did not exist. :func:`check` finds all of these,
naming the GOAL line of each operation when the schedule came from a file.

References: [LOGGOPSIM10] (keys: ``docs/papers.md``).

>>> from vizcoll.schedule.model import Schedule
>>> s = Schedule(2); _ = s.send(0, 1, 8, tag=1); _ = s.recv(1, 0, 8, tag=2)
>>> [str(p) for p in check(s)]  # doctest: +NORMALIZE_WHITESPACE
['error: rank 1 receives a message that is never sent (from 0, tag 2): LogGOPSim prints "receive queue on host 1
  contains ..." and exits 0', 'error: rank 0 sends a message nobody receives (to 1, tag 1): LogGOPSim prints
  "unexpected queue on host 1 contains ..." and exits 0']
"""

from __future__ import annotations

from vizcoll.errors import SpecError
from vizcoll.schedule.goal import Problem
from vizcoll.schedule.loggp import LogGP, simulate
from vizcoll.schedule.model import ANY, Schedule
from vizcoll.words import plural

__all__ = ["check"]


def check(schedule: Schedule, lines: list[list[int]] | None = None, params: LogGP | None = None) -> list[Problem]:
    """Everything wrong with ``schedule``, LogGOPSim's silent failures included.

    Messages to or from ranks that do not exist and dependency cycles are errors found first (LogGOPSim would
    crash or hang); then a LogGP run finds receives never matched, messages nobody receives and operations that
    never run.

    Parameters
    ----------
    schedule : Schedule
        The schedule.
    lines : list of list of int, optional
        ``lines[rank][op]``: the GOAL line of each operation, when known (:attr:`Parsed.lines`).
    params : LogGP, optional
        The parameters of the LogGP run (default: LogGOPSim's with ``G = O = 0``).

    Returns
    -------
    list of Problem
        The problems, each with its line (0 = the whole file) and severity.

    Examples
    --------
    >>> from vizcoll.schedule.model import Schedule
    >>> s = Schedule(2); _ = s.recv(1, 0, 8)
    >>> [p.severity for p in check(s)]
    ['error']
    """

    def line(rank: int, op: int) -> int:
        return lines[rank][op] if lines and rank < len(lines) and op < len(lines[rank]) else 0

    problems = _peers(schedule, line) + _cycles(schedule, line)
    if any(p.severity == "error" for p in problems):
        return problems  # LogGOPSim would crash or hang before timing anything
    try:
        result = simulate(schedule, params or LogGP(G=0, O=0))
    except SpecError as exc:
        return [*problems, Problem(0, "error", str(exc))]
    for m in result.unreceived:
        source = "any source" if m["peer"] == ANY else f"from {m['peer']}"
        problems.append(
            Problem(
                0,
                "error",
                f"rank {m['rank']} receives a message that is never sent ({source}, "
                f'tag {m["tag"]}): LogGOPSim prints "receive queue on host '
                f'{m["rank"]} contains ..." and exits 0',
            )
        )
    for m in result.unexpected:
        problems.append(
            Problem(
                0,
                "error",
                f"rank {m['peer']} sends a message nobody receives (to {m['rank']}, "
                f'tag {m["tag"]}): LogGOPSim prints "unexpected queue on host '
                f'{m["rank"]} contains ..." and exits 0',
            )
        )
    for rank, count in enumerate(result.not_run):
        if count:
            problems.append(
                Problem(
                    0,
                    "error",
                    f"{plural(count, 'operation')} of rank {rank} never run: they wait for "
                    "messages that cannot come (a deadlock)",
                )
            )
    return problems


def _peers(schedule: Schedule, line) -> list[Problem]:
    """Sends to ranks that do not exist (LogGOPSim crashes) and receives from them (they never match)."""
    out = []
    for rank, ops in enumerate(schedule.ops):
        for i, op in enumerate(ops):
            if op.kind == "calc" or 0 <= op.peer < schedule.num_ranks or (op.kind == "recv" and op.peer == ANY):
                continue
            what = "sends to" if op.kind == "send" else "receives from"
            tail = " (LogGOPSim crashes)" if op.kind == "send" else ""
            out.append(
                Problem(
                    line(rank, i),
                    "error",
                    f"rank {rank} {what} rank {op.peer}, which does not exist (num_ranks {schedule.num_ranks}){tail}",
                )
            )
    return out


def _cycles(schedule: Schedule, line) -> list[Problem]:
    """Dependency cycles inside a rank (LogGOPSim silently never runs them)."""
    import networkx as nx  # here, not at import: networkx is a tenth of a second of the CLI's start-up

    out = []
    for rank in range(schedule.num_ranks):
        edges = schedule.requires[rank] + schedule.irequires[rank]
        if all(a > b for a, b in edges):  # every operation waits only for earlier ones: no cycle possible
            continue
        graph = nx.DiGraph(edges)
        for cycle in nx.simple_cycles(graph):
            shown = " → ".join(f"op {i}" + (f" (line {line(rank, i)})" if line(rank, i) else "") for i in cycle)
            out.append(
                Problem(
                    line(rank, cycle[0]),
                    "error",
                    f"a dependency cycle in rank {rank}: {shown}: "
                    "LogGOPSim never runs these operations and says nothing",
                )
            )
            if len(out) >= 20:
                return out
    return out
