"""Schedules of the collectives vizcoll animates: barriers, tree broadcast / reduce / allreduce, static reductions.

Every message is at least 1 byte (LogGOPSim wraps ``(n-1)`` for 0-byte messages
when G or O > 0). Receives are posted as soon as a rank starts; a message that
a rank forwards or combines waits for the receives it needs.

Barriers on ``P`` logical ranks: every barrier algorithm of
:data:`vizcoll.barrier.algorithms.ALGORITHMS` that carries a ``goal_schedule``
(its builder, :mod:`vizcoll.barrier.schedules` describes their shapes).

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

from collections.abc import Callable
from dataclasses import dataclass

from vizcoll.errors import SpecError
from vizcoll.reduction import static as static_reductions
from vizcoll.registry import Registry
from vizcoll.schedule.model import Schedule
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import vertex_ranks
from vizcoll.words import plural

__all__ = [
    "TREE_COLLECTIVES",
    "TreeCollective",
    "BCAST",
    "REDUCE",
    "ALLREDUCE",
    "MAX_RANKS",
    "barrier",
    "tree_collective",
    "static_reduction",
]

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
    """The barrier ``algo`` on ranks ``0..P-1``: the ``goal_schedule`` of its barrier algorithm.

    Every algorithm of :data:`vizcoll.barrier.algorithms.ALGORITHMS` with a builder has one (read when this runs:
    a registered one too); the module docstring of :mod:`vizcoll.barrier.schedules` gives their shapes.

    Parameters
    ----------
    algo : str
        A barrier algorithm with a ``goal_schedule``
        (:func:`~vizcoll.barrier.algorithms.logical_barriers`; DLCT needs a grid: its schedule is exported from a
        grid run).
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
    from vizcoll.barrier.algorithms import ALGORITHMS, logical_barriers  # the barriers only when one is built

    build = getattr(ALGORITHMS.get(algo), "goal_schedule", None) if isinstance(algo, str) else None
    if build is None:
        raise SpecError(
            f"unknown barrier {str(algo)[:40]!r}; choose one of {', '.join(logical_barriers())} (DLCT needs a grid: "
            "export it from a grid run, goal barrier --size ...)"
        )
    s = Schedule(_ranks(P), name=f"{algo} barrier, {plural(P, 'rank')}")
    _size(size)
    build(s, P, size, block)
    return s


# ---------------------------------------------------------------- trees
@dataclass(frozen=True)
class TreeCollective:
    """A collective along a tree: ``name`` (``goal tree --op``, the /trees page's GOAL collective), ``label``,
    ``help`` (one sentence: what it sends) and ``build(schedule, tree, size)``, which adds its operations to
    ``schedule`` (vertex ``v`` is rank ``vertex_ranks(tree)[v]``, ``size`` bytes per message)."""

    name: str
    label: str
    help: str
    build: Callable[[Schedule, Tree, int], None]


TREE_COLLECTIVES: Registry[TreeCollective] = Registry("tree operation")
"""Every tree collective by name, in the order the CLI and the /trees page list them (read when they run)."""


def tree_collective(tree: Tree, op: str, size: int = 8) -> Schedule:
    """The collective ``op`` (one of :data:`TREE_COLLECTIVES`) of ``size`` bytes along ``tree``.

    ``bcast`` goes from the root down (a vertex sends to its children in the tree's order after its receive),
    ``reduce`` up (a vertex sends to its parent after every child's message), ``allreduce`` is reduce then bcast.

    Parameters
    ----------
    tree : Tree
        A type I tree; vertex ``v`` is rank ``vertex_ranks(tree)[v]``.
    op : str
        A registered tree collective: ``"bcast"``, ``"reduce"`` or ``"allreduce"``.
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
    collective = TREE_COLLECTIVES.lookup(op)
    _size(size)
    ranks = vertex_ranks(tree)
    s = Schedule(_ranks(max(ranks) + 1), name=f"{op} along a {tree.kind or 'tree'}, {plural(tree.size, 'rank')}")
    collective.build(s, tree, size)
    return s


def _reduce_up(s: Schedule, tree: Tree, size: int) -> dict[int, list[int]]:
    """Up the tree: a vertex sends to its parent after every child's message; returns each vertex's last ops (the
    root's receives, every other vertex's send)."""
    ranks = vertex_ranks(tree)
    last: dict[int, list[int]] = {}
    for v in reversed(_top_down(tree)):
        got = [s.recv(ranks[v], ranks[c], size, GATHER) for c in tree.children[v]]
        last[v] = got if tree.parent[v] < 0 else [s.send(ranks[v], ranks[tree.parent[v]], size, GATHER, after=got)]
    return last


def _bcast_down(s: Schedule, tree: Tree, size: int, first: dict[int, list[int]] | None = None) -> None:
    """Down the tree: a vertex sends to its children in the tree's order after its receive (and after its ops
    ``first[v]``)."""
    ranks = vertex_ranks(tree)
    for v in _top_down(tree):
        last = (first or {}).get(v, [])
        if tree.parent[v] >= 0:
            last = [s.recv(ranks[v], ranks[tree.parent[v]], size, RELEASE, after=last)]
        for c in tree.children[v]:
            s.send(ranks[v], ranks[c], size, RELEASE, after=last)


def _reduce(s: Schedule, tree: Tree, size: int) -> None:
    _reduce_up(s, tree, size)


def _allreduce(s: Schedule, tree: Tree, size: int) -> None:
    _bcast_down(s, tree, size, _reduce_up(s, tree, size))


def _top_down(tree: Tree) -> list[int]:
    """Vertices from the root down (breadth first, children in the tree's order)."""
    root = tree.parent.index(-1)
    order = [root]
    for v in order:
        order.extend(tree.children[v])
    return order


# the built-in tree collectives, in the order listed
BCAST = TREE_COLLECTIVES.register(
    TreeCollective(
        "bcast", "broadcast", "from the root down: a rank sends to its children after its receive", _bcast_down
    )
)
REDUCE = TREE_COLLECTIVES.register(
    TreeCollective(
        "reduce", "reduce", "up to the root: a rank sends to its parent after every child's message", _reduce
    )
)
ALLREDUCE = TREE_COLLECTIVES.register(
    TreeCollective("allreduce", "allreduce", "a reduce to the root, then a broadcast from it", _allreduce)
)


# ---------------------------------------------------------------- static reductions
def static_reduction(algo: str, P: int, size: int, root: int = 0) -> Schedule:
    """The static reduction ``algo`` (a registered one: binomial, mst, rabenseifner) of ``size`` bytes to ``root``.

    Each round's transfers carry ``size · (hi - lo) / blocks`` bytes; a rank's operations of a round wait for all
    its operations of earlier rounds (never for each other, so an exchange cannot deadlock under rendezvous).

    Parameters
    ----------
    algo : str
        A registered static reduction (:data:`vizcoll.reduction.static.REGISTRY`): ``"binomial"``, ``"mst"`` or
        ``"rabenseifner"``.
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
    reduction = static_reductions.reduction(algo)
    plan = reduction.schedule(_ranks(P), root)
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
