"""A schedule from a recorded run: every message hop of a simulation's timeline, in the order it happened.

The grid barriers (the DLCT variants among them, with broken links) move
their Gather and Release messages hop by hop through the processors, each
processor forwarding what is not for it. :func:`hop_schedule` turns the
``"send"`` events of such a :class:`~vizcoll.sim.timeline.Timeline` into a
schedule: one send and one matching receive per hop (a tag per hop, so
messages between the same pair cannot be confused), and each processor's
operations chained in the order it did them in the run (each waits for the
previous one). The chain is causal, so the schedule runs to the end under any
LogGP parameters; LogGP then times the same messages in the same order.

>>> from vizcoll.topology.generators import mesh
>>> from vizcoll.barrier.algorithms import run_barriers
>>> timeline, _ = run_barriers(mesh((2, 2), 4, hosts=0), "dlct", barriers=1, compute=0.0)
>>> s = hop_schedule(timeline, [0, 1, 2, 3])
>>> s.num_ranks, s.messages() == sum(e.kind == "send" for e in timeline.events)
(4, True)
"""

from __future__ import annotations

from collections.abc import Sequence

from vizcoll.errors import SpecError
from vizcoll.schedule.model import Schedule
from vizcoll.sim.timeline import Timeline

__all__ = ["hop_schedule"]


def hop_schedule(timeline: Timeline, nodes: Sequence[int], size: int = 1, name: str = "") -> Schedule:
    """Every hop of ``timeline`` between the topology nodes ``nodes`` (rank ``i`` = ``nodes[i]``) as a schedule."""
    rank_of = {int(node): rank for rank, node in enumerate(nodes)}
    s = Schedule(len(nodes), name=name)
    last: dict[int, list[int]] = {rank: [] for rank in range(len(nodes))}
    hops = [e for e in timeline.events if e.kind == "send" and e.src >= 0 and e.dst >= 0]
    for tag, event in enumerate(hops):
        if event.src not in rank_of or event.dst not in rank_of:
            raise SpecError(f"hop {tag} goes between nodes {event.src} and {event.dst}, not both processes")
        src, dst = rank_of[event.src], rank_of[event.dst]
        last[src] = [s.send(src, dst, size, tag, after=last[src])]
        last[dst] = [s.recv(dst, src, size, tag, after=last[dst])]
    return s
