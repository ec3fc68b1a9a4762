"""Schedules of the collectives vizcoll animates: barriers, tree broadcast / reduce / allreduce, static reductions.

Every message is at least 1 byte (LogGOPSim wraps ``(n-1)`` for 0-byte messages
when G or O > 0). Receives are posted as soon as a rank starts; a message that
a rank forwards or combines waits for the receives it needs.

Barriers on ``P`` logical ranks (our choices where the barrier paper leaves
the logical pattern open, the same shapes as :mod:`vizcoll.barrier`):

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

Trees (:class:`vizcoll.trees.tree.Tree`, vertex ``v`` is rank
``vertex_ranks(tree)[v]``): ``bcast`` from the root down (a vertex sends to
its children in the tree's order after its receive), ``reduce`` up (a vertex
sends to its parent after every child's message), ``allreduce`` = reduce then
bcast. Static reductions (:mod:`vizcoll.reduction.static`): each round's
transfers, ``size · (hi - lo) / blocks`` bytes; a rank's operations of round
``k`` wait for all its operations of earlier rounds (never for each other, so
an exchange cannot deadlock under rendezvous).

References: [LOGGOPSIM10]; barriers: [DLCT19, §4]; trees: [AGGT24]; static reductions:
[THAKUR05], [CHAN07] (keys: ``docs/papers.md``).

>>> from vizcoll.schedule.loggp import LogGP, simulate
>>> simulate(barrier("dissemination", 13), LogGP(L=1000, o=100, g=0, G=0, O=0)).makespan
4800
"""

from __future__ import annotations

import math

from vizcoll.errors import SpecError
from vizcoll.reduction.static import STATIC_ALGOS
from vizcoll.reduction.static import schedule as static_schedule
from vizcoll.schedule.model import Schedule
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import vertex_ranks
from vizcoll.words import plural

__all__ = ["BARRIERS", "TREE_OPS", "MAX_RANKS", "barrier", "tree_collective", "static_reduction"]

BARRIERS = ("ms", "tree", "tournament", "dissemination", "dissemination+tree")
TREE_OPS = ("bcast", "reduce", "allreduce")
MAX_RANKS = 65_536
GATHER, RELEASE = 1, 2  # tags: a barrier's gather and release messages (dissemination rounds: 10 + round)


def _ranks(P: int) -> int:
    if isinstance(P, bool) or not isinstance(P, int) or not 1 <= P <= MAX_RANKS:
        raise SpecError(f"the number of ranks must be a whole number from 1 to {MAX_RANKS:,}, got {P!r}")
    return P


def _size(size: int) -> int:
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 2**40:
        raise SpecError(f"a message size must be a whole number of bytes from 1 to 2^40, got {size!r}")
    return size


# ---------------------------------------------------------------- barriers
def barrier(algo: str, P: int, size: int = 1, block: int = 4) -> Schedule:
    """The barrier ``algo`` (one of :data:`BARRIERS`) on ranks ``0..P-1``.

    ``dissemination``, ``ms``, ``tree``, ``tournament`` and ``dissemination+tree`` have the shapes of
    :mod:`vizcoll.barrier` (see the module docstring).

    Parameters
    ----------
    algo : str
        One of :data:`BARRIERS` (DLCT needs a grid: its schedule is exported from a grid run).
    P : int
        Number of ranks, 1 to :data:`MAX_RANKS`.
    size : int
        Bytes per message (at least 1).
    block : int
        Block size of ``dissemination+tree``.

    Returns
    -------
    Schedule
        The barrier's operations.

    Raises
    ------
    SpecError
        For an unknown algorithm, a number of ranks or a size out of range.

    References
    ----------
    [DLCT19] Xiang Zhehui, Qin Xiaolin, You Feng, Liu Liang, "Synchronization Mechanism for Network Disconnection
    Perception", Journal of Frontiers of Computer Science and Technology, 13(2): 195–204, 2019, DOI
    [10.3778/j.issn.1673-9418.1805061](https://doi.org/10.3778/j.issn.1673-9418.1805061). Section 4 (the barriers
    compared).

    [LOGGOPSIM10] Torsten Hoefler, Timo Schneider, Andrew Lumsdaine, "LogGOPSim — Simulating Large-Scale
    Applications in the LogGOPS Model", HPDC 2010, pp. 597–604, DOI
    [10.1145/1851476.1851564](https://doi.org/10.1145/1851476.1851564).

    Examples
    --------
    >>> from vizcoll.schedule.loggp import LogGP, simulate
    >>> simulate(barrier("dissemination", 13), LogGP(L=1000, o=100, g=0, G=0, O=0)).makespan
    4800
    """
    if algo not in BARRIERS:
        raise SpecError(
            f"unknown barrier {algo!r}; choose one of {', '.join(BARRIERS)} (DLCT needs a grid: "
            "export it from a grid run, goal barrier --size ...)"
        )
    s = Schedule(_ranks(P), name=f"{algo} barrier, {plural(P, 'rank')}")
    _size(size)
    if algo == "dissemination":
        _dissemination(s, list(range(P)), size, {r: [] for r in range(P)})
    elif algo == "ms":
        _flat(s, 0, list(range(1, P)), size)
    elif algo == "tree":
        _gather_release(s, _binary(list(range(P))), size)
    elif algo == "tournament":
        _tournament(s, P, size)
    else:
        _dissemination_tree(s, P, size, block)
    return s


def _binary(ranks: list[int]) -> dict[int, list[int]]:
    """Children of each rank in the binary tree over ``ranks`` (position ``i``'s parent: ``(i-1)//2``)."""
    return {r: [ranks[c] for c in (2 * i + 1, 2 * i + 2) if c < len(ranks)] for i, r in enumerate(ranks)}


def _flat(s: Schedule, master: int, others: list[int], size: int) -> None:
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


def _gather_release(s: Schedule, children: dict[int, list[int]], size: int) -> None:
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


def _tournament(s: Schedule, P: int, size: int) -> None:
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


def _dissemination_tree(s: Schedule, P: int, size: int, block: int) -> None:
    if isinstance(block, bool) or not isinstance(block, int) or block < 1:
        raise SpecError(f"the block size must be a whole number ≥ 1, got {block!r}")
    trees = [_binary(list(range(lo, min(lo + block, P)))) for lo in range(0, P, block)]
    gathered = [_gather(s, tree, size) for tree in trees]
    leaders = [next(iter(tree)) for tree in trees]
    done = _dissemination(s, leaders, size, {r: got for r, (got, _) in zip(leaders, gathered, strict=True)})
    for tree, leader, (_, sent) in zip(trees, leaders, gathered, strict=True):
        _release(s, tree, size, done[leader], sent)


# ---------------------------------------------------------------- trees
def tree_collective(tree: Tree, op: str, size: int = 8) -> Schedule:
    """Broadcast, reduce or allreduce (:data:`TREE_OPS`) of ``size`` bytes along ``tree``.

    ``bcast`` goes from the root down (a vertex sends to its children in the tree's order after its receive),
    ``reduce`` up (a vertex sends to its parent after every child's message), ``allreduce`` is reduce then bcast.

    Parameters
    ----------
    tree : Tree
        A type I tree; vertex ``v`` is rank ``vertex_ranks(tree)[v]``.
    op : str
        ``"bcast"``, ``"reduce"`` or ``"allreduce"``.
    size : int
        Bytes per message.

    Returns
    -------
    Schedule
        The collective's operations.

    Raises
    ------
    SpecError
        For an unknown operation or a size out of range.

    References
    ----------
    [AGGT24] Chen Shuping, Wei Hongmei, Wang Fei, Li Yi, He Wangquan, Qi Fengbin, "Method to Create Aggregate Tree
    for Hardware Supported Collectives", Journal of Computer Research and Development, 61(2): 503–517, 2024, DOI
    [10.7544/issn1000-1239.202220684](https://doi.org/10.7544/issn1000-1239.202220684). The aggregation trees.

    Examples
    --------
    >>> from vizcoll.trees.typeone import knomial_tree
    >>> tree_collective(knomial_tree(8, 2), "allreduce").messages()
    14
    """
    if op not in TREE_OPS:
        raise SpecError(f"unknown tree operation {op!r}; choose one of {', '.join(TREE_OPS)}")
    _size(size)
    ranks = vertex_ranks(tree)
    s = Schedule(_ranks(max(ranks) + 1), name=f"{op} along a {tree.kind or 'tree'}, {plural(tree.size, 'rank')}")
    order = _top_down(tree)
    last: dict[int, list[int]] = {v: [] for v in order}
    if op in ("reduce", "allreduce"):
        for v in reversed(order):
            got = [s.recv(ranks[v], ranks[c], size, GATHER) for c in tree.children[v]]
            last[v] = got if tree.parent[v] < 0 else [s.send(ranks[v], ranks[tree.parent[v]], size, GATHER, after=got)]
    if op in ("bcast", "allreduce"):
        for v in order:
            if tree.parent[v] >= 0:
                last[v] = [s.recv(ranks[v], ranks[tree.parent[v]], size, RELEASE, after=last[v])]
            for c in tree.children[v]:
                s.send(ranks[v], ranks[c], size, RELEASE, after=last[v])
    return s


def _top_down(tree: Tree) -> list[int]:
    """Vertices from the root down (breadth first, children in the tree's order)."""
    root = tree.parent.index(-1)
    order = [root]
    for v in order:
        order.extend(tree.children[v])
    return order


# ---------------------------------------------------------------- static reductions
def static_reduction(algo: str, P: int, size: int, root: int = 0) -> Schedule:
    """The static reduction ``algo`` (binomial, mst, rabenseifner) of ``size`` bytes to ``root``.

    Each round's transfers carry ``size · (hi - lo) / blocks`` bytes; a rank's operations of a round wait for all
    its operations of earlier rounds (never for each other, so an exchange cannot deadlock under rendezvous).

    Parameters
    ----------
    algo : str
        ``"binomial"``, ``"mst"`` or ``"rabenseifner"``.
    P : int
        Number of ranks.
    size : int
        Bytes each rank reduces.
    root : int
        The rank receiving the result.

    Returns
    -------
    Schedule
        The reduction's operations.

    Raises
    ------
    SpecError
        For an unknown algorithm, a number of ranks or a size out of range.

    References
    ----------
    [THAKUR05] Rajeev Thakur, Rolf Rabenseifner, William Gropp, "Optimization of collective communication operations
    in MPICH", International Journal of High Performance Computing Applications, 19(1): 49–66, 2005, DOI
    [10.1177/1094342005051521](https://doi.org/10.1177/1094342005051521).

    [CHAN07] Ernie Chan, Marcel Heimlich, Avi Purkayastha, Robert van de Geijn, "Collective communication: theory,
    practice, and experience", Concurrency and Computation: Practice and Experience, 19(13): 1749–1783, 2007, DOI
    [10.1002/cpe.1206](https://doi.org/10.1002/cpe.1206).

    Examples
    --------
    >>> static_reduction("binomial", 8, 1024).messages()
    7
    """
    if algo not in STATIC_ALGOS:
        raise SpecError(f"unknown reduction {algo!r}; choose one of {', '.join(STATIC_ALGOS)}")
    plan = static_schedule(algo, _ranks(P), root)
    s = Schedule(P, name=f"{algo} reduction of {plural(_size(size), 'byte')}, {plural(P, 'rank')}, root {root}")
    before: dict[int, list[int]] = {r: [] for r in range(P)}
    for rnd in plan.rounds:
        now: dict[int, list[int]] = {r: [] for r in range(P)}
        for tag, t in enumerate(rnd):
            nbytes = max(1, size * (t.hi - t.lo) // plan.blocks)
            now[t.src].append(s.send(t.src, t.dst, nbytes, tag, after=before[t.src]))
            now[t.dst].append(s.recv(t.dst, t.src, nbytes, tag, after=before[t.dst]))
        for r, ops in now.items():
            if ops:
                before[r] = ops
    return s
