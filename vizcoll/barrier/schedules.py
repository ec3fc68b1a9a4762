"""The barriers' GOAL schedules on ``P`` logical ranks: the builder each algorithm carries as ``goal_schedule``.

A builder is ``build(s, P, size, block)``: it adds the barrier's operations on ranks ``0..P-1`` to the
:class:`~vizcoll.schedule.model.Schedule` ``s``, every message ``size`` bytes (``block``: the block size of the
two-level barriers); :func:`vizcoll.schedule.collectives.barrier` makes the schedule and calls the builder of the
algorithm asked for. Our choices where the barrier paper leaves the logical pattern open, the same shapes as the
simulated algorithms:

- ``dissemination``: round ``j`` sends to ``(r + 2^j) mod P`` and receives from
  ``(r - 2^j) mod P``; a round's send requires the earlier rounds' receives
  (``⌈log2 P⌉ · (L + 2o)`` with g = G = O = 0);
- ``ms`` (master-slave): everyone sends to rank 0, which answers everyone once
  all have arrived;
- ``tree``: a gather up the binary tree of ranks (parent ``(r-1)//2``), then a
  release down it;
- ``tournament``: rank ``r`` loses round ``k`` to ``r - 2^k`` (a binomial gather
  to rank 0), then rank 0 releases everyone directly;
- ``dissemination+tree``: blocks of ``block`` consecutive ranks gather up a
  binary tree to their first rank, the block leaders run the dissemination,
  then each leader releases its block's tree.

The DLCT variants have none: their IDs follow a grid's numbering, so their schedule is exported from a grid run
(:mod:`vizcoll.schedule.recorded`).

References: [LOGGOPSIM10]; [DLCT19, §4] (keys: ``docs/papers.md``).

>>> from vizcoll.schedule.model import Schedule
>>> s = Schedule(4)
>>> ms_schedule(s, 4, 1, 4)
>>> s.messages()
6
"""

from __future__ import annotations

import math

from vizcoll.errors import SpecError
from vizcoll.schedule.model import Schedule

__all__ = [
    "GATHER",
    "RELEASE",
    "binary",
    "flat",
    "gather_release",
    "ms_schedule",
    "tree_schedule",
    "tournament_schedule",
    "dissemination_schedule",
    "dissemination_tree_schedule",
]

GATHER, RELEASE = 1, 2  # tags: a barrier's gather and release messages (dissemination rounds: 10 + round)


def binary(ranks: list[int]) -> dict[int, list[int]]:
    """Children of each rank in the binary tree over ``ranks`` (position ``i``'s parent: ``(i-1)//2``)."""
    return {r: [ranks[c] for c in (2 * i + 1, 2 * i + 2) if c < len(ranks)] for i, r in enumerate(ranks)}


def flat(s: Schedule, master: int, others: list[int], size: int) -> None:
    """Everyone in ``others`` sends its gather to ``master``, which releases each once all have arrived."""
    arrived = [s.recv(master, r, size, GATHER) for r in others]
    for r in others:
        s.send(r, master, size, GATHER)
        s.send(master, r, size, RELEASE, after=arrived)
        s.recv(r, master, size, RELEASE)


def _gather(s: Schedule, children: dict[int, list[int]], size: int) -> tuple[list[int], dict[int, int]]:
    """Gather up the tree ``children`` (its first key is the root): (the root's receives, each other rank's send)."""
    root = next(iter(children))
    parent = {c: p for p, kids in children.items() for c in kids}
    got = {r: [s.recv(r, c, size, GATHER) for c in kids] for r, kids in children.items()}
    sent = {r: s.send(r, parent[r], size, GATHER, after=got[r]) for r in children if r != root}
    return got[root], sent


def _release(
    s: Schedule, children: dict[int, list[int]], size: int, root_after: list[int], sent: dict[int, int]
) -> None:
    """Release down the tree: the root once its ops ``root_after`` are done, every other rank after its gather."""
    root = next(iter(children))
    parent = {c: p for p, kids in children.items() for c in kids}
    released = {root: root_after}
    for r in children:
        if r != root:
            released[r] = [s.recv(r, parent[r], size, RELEASE, after=[sent[r]])]
    for r, kids in children.items():
        for c in kids:
            s.send(r, c, size, RELEASE, after=released[r])


def gather_release(s: Schedule, children: dict[int, list[int]], size: int) -> None:
    """Gather up the tree ``children`` (its first key is the root), then release down it."""
    got, sent = _gather(s, children, size)
    _release(s, children, size, got, sent)


def _dissemination(s: Schedule, ranks: list[int], size: int, first: dict[int, list[int]]) -> dict[int, list[int]]:
    """Dissemination among ``ranks``; rank ``r`` starts after its ops ``first[r]``; returns, per rank, the ops
    after which it has heard from everyone (its receives)."""
    P = len(ranks)
    last = dict(first)
    for j in range(math.ceil(math.log2(P)) if P > 1 else 0):
        for i, r in enumerate(ranks):
            s.send(r, ranks[(i + 2**j) % P], size, 10 + j, after=last[r])
            last[r] = [*last[r], s.recv(r, ranks[(i - 2**j) % P], size, 10 + j)]
    return last


def ms_schedule(s: Schedule, P: int, size: int, block: int) -> None:
    """Master-slave: every rank sends to rank 0, which answers everyone once all have arrived."""
    flat(s, 0, list(range(1, P)), size)


def tree_schedule(s: Schedule, P: int, size: int, block: int) -> None:
    """A gather up the binary tree of ranks, then a release down it."""
    gather_release(s, binary(list(range(P))), size)


def tournament_schedule(s: Schedule, P: int, size: int, block: int) -> None:
    """A binomial gather to rank 0 (rank ``r`` loses round ``k`` to ``r - 2^k``), then rank 0 releases everyone."""
    got: dict[int, list[int]] = {r: [] for r in range(P)}
    loser_sent: dict[int, int] = {}
    k = 1
    while k < P:
        for r in range(0, P, 2 * k):
            if r + k < P:
                loser_sent[r + k] = s.send(r + k, r, size, GATHER, after=got[r + k])
                got[r].append(s.recv(r, r + k, size, GATHER))
        k *= 2
    for r in range(1, P):
        s.send(0, r, size, RELEASE, after=got[0])
        s.recv(r, 0, size, RELEASE, after=[loser_sent[r]])


def dissemination_schedule(s: Schedule, P: int, size: int, block: int) -> None:
    """Round ``j`` sends to ``(r + 2^j) mod P`` and receives from ``(r - 2^j) mod P``."""
    _dissemination(s, list(range(P)), size, {r: [] for r in range(P)})


def dissemination_tree_schedule(s: Schedule, P: int, size: int, block: int) -> None:
    """Blocks of ``block`` ranks gather up binary trees to their leaders, the leaders disseminate, then release."""
    if isinstance(block, bool) or not isinstance(block, int) or block < 1:
        raise SpecError(f"the block size must be a whole number ≥ 1, got {block!r}")
    trees = [binary(list(range(lo, min(lo + block, P)))) for lo in range(0, P, block)]
    gathered = [_gather(s, tree, size) for tree in trees]
    leaders = [next(iter(tree)) for tree in trees]
    done = _dissemination(s, leaders, size, {r: got for r, (got, _) in zip(leaders, gathered, strict=True)})
    for tree, leader, (_, sent) in zip(trees, leaders, gathered, strict=True):
        _release(s, tree, size, done[leader], sent)
