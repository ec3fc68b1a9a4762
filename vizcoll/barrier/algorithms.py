"""Barrier algorithms on the simulated grid network and the paper's benchmark program (DLCT paper, section 4).

:func:`run_barriers` runs the paper's test program on every processor of a
grid topology: ``barriers`` barriers (3 in the paper) with ``compute`` seconds
of work between two of them (0.5 s), and measures the program's run time (the
last processor leaving the last barrier). Messages travel over
:class:`~vizcoll.barrier.network.Network` (greedy forwarding, per-hop latency,
per-node FIFO processing). Every run returns a
:class:`~vizcoll.sim.timeline.Timeline` (one ``"send"`` event per hop, node
states, captions) and a dict of figures.

**Any fabric.** With ``participants`` (node indices, e.g. the end nodes of a
communicator of a fat tree or an uploaded file), the processes are those
nodes and messages follow min-hop routes of the fabric that avoid its broken
links (:class:`~vizcoll.barrier.fabric.FabricNetwork`, same timing model).
The algorithms only ask their network for a master (:meth:`centre`), a
spanning tree and the blocks of the two-level algorithms, so the five that do
not need a grid run unchanged; the module docstring of
:mod:`vizcoll.barrier.fabric` says what those are off the grid. The DLCT
variants (``grid_only``) need the grid and refuse participants
(:func:`grid_only_reason`).

**Algorithms** (:data:`ALGORITHMS`; the paper names them, their details here are
our choices where it is silent):

- ``ms`` (master-slave, a single-level tree): everyone sends its Gather to the
  master, the processor nearest the grid centre (off the grid: the process
  with the smallest total hop distance to the others), which then releases
  everyone, one message each;
- ``tree``: the paper's "minimum spanning tree of the real network". A
  minimum spanning tree needs link weights; on a grid of positions the natural
  one is the link's length (1 for a row or column link, √2 for a diagonal),
  so with 8 neighbors the tree keeps to row and column links while they
  connect (with equal weights every spanning tree would be "minimum" and the
  word would say nothing). :func:`mst_tree`: Prim from the processor nearest
  the centre, ties in the order links were reached (the shallowest such
  tree on an intact grid). ``tree_on="intact"`` (the paper's fixed pattern)
  builds it on the network before the links broke, so its messages detour
  around the breaks; ``tree_on="live"`` rebuilds it on the live links. Off
  the grid: the minimum spanning tree of the processes weighted by their hop
  distance;
- ``tournament`` (binomial + single-level): the tournament's rounds on the
  processors in node order (row-major: node ``i`` loses round ``k`` to
  ``i - 2**k``, i.e. a binomial Gather to the champion, node 0), and the
  champion releases everyone directly (the global wake-up flag); off the
  grid in participant order;
- ``dissemination``: round ``k`` (``k < ceil(log2 N)``) sends to rank
  ``(i + 2**k) mod N`` and waits for ``(i - 2**k) mod N``; ``N log N``
  messages (ranks: node order, off the grid participant order);
- ``dissemination+tree`` (multi-layer): the grid is cut into ``block x block``
  squares; inside each, a minimum spanning tree (:func:`mst_tree` on the
  live links of the block) gathers to the block's leader, the processor
  nearest the block's centre; the leaders run Dissemination among
  themselves; then each leader releases its tree. Off the grid the blocks
  are the processes under one leaf switch, led by the one closest to the
  master;
- ``dlct``, ``dlct+ms``, ``dlct+tree``: see :mod:`vizcoll.barrier.dlct`.

**One module per family, one registry.** The machinery is in
:mod:`vizcoll.barrier.base` (:class:`BarrierRun`, :class:`SimParams`) and
:mod:`vizcoll.barrier.twophase` (:class:`TwoPhase`); the families are
:mod:`vizcoll.barrier.tree` (``ms``, ``tree``, ``tournament``),
:mod:`vizcoll.barrier.dissemination` and :mod:`vizcoll.barrier.dlct`.
:data:`ALGORITHMS` is a :class:`~vizcoll.registry.Registry` of the classes
themselves: a class carries its ``name``, ``label`` (the page's dropdown and
tables), ``help`` (``--help``), ``grid_only`` and its ``goal_schedule`` (the
logical GOAL schedule, :mod:`vizcoll.barrier.schedules`; None for the DLCT
variants). Adding an algorithm is one class and one :func:`register` line;
the command line, the page, the sweep and ``goal barrier`` read the registry
when they run.

>>> list(ALGORITHMS.names)[:3], algorithm("dlct+ms").label
(['ms', 'tree', 'tournament'], 'DLCT + MS (ID1)')
>>> logical_barriers()[-1], DEFAULT_ALGORITHM
('dissemination+tree', 'dlct')

**Correctness is checked inside the simulation**: a processor leaving
barrier ``b`` before every processor has entered it, a Gather or Release of
one barrier consumed in another, or a Release from anyone but the node the
Gather went to raise :class:`BarrierViolation`.

**Failure.** When broken links cut processors off, messages hit dead ends
(see :mod:`vizcoll.barrier.network`); the barrier then cannot complete: the
run ends when nothing is left to do, ``figures["time"]`` is None,
``"dead_ends"`` > 0 and ``"failure"`` says what happened. Nothing loops.

References: [DLCT19, §4] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vizcoll.barrier.base import JUDGES, LEGEND, TREE_ON, BarrierRun, BarrierViolation, SimParams, children_of
from vizcoll.barrier.dissemination import Dissemination, DisseminationRounds, DisseminationTree
from vizcoll.barrier.dlct import DlctBarrier, DlctMs, DlctTree
from vizcoll.barrier.fabric import FabricNetwork, check_participants, leaf_switches
from vizcoll.barrier.grid import ROUTINGS, Block, GridNetwork, grid_blocks, is_grid, mst_tree
from vizcoll.barrier.network import DEFAULT_HOP_LATENCY, DEFAULT_PROC, MAX_EVENTS, Message, Network, Recorder
from vizcoll.barrier.tree import MasterSlave, Tournament, TreeBarrier
from vizcoll.barrier.twophase import FixedTree, TwoPhase
from vizcoll.errors import VizcollError
from vizcoll.registry import Registry
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.model import Topology
from vizcoll.words import plural

__all__ = [
    "ALGORITHMS",
    "DEFAULT_ALGORITHM",
    "ANY_FABRIC_ALGORITHM",
    "COMMAND_LINE_ALGORITHM",
    "algorithm",
    "logical_barriers",
    "register",
    "unregister",
    "TREE_ON",
    "JUDGES",
    "LEGEND",
    "BarrierViolation",
    "SimParams",
    "Block",
    "grid_blocks",
    "mst_tree",
    "children_of",
    "BarrierRun",
    "TwoPhase",
    "FixedTree",
    "MasterSlave",
    "TreeBarrier",
    "Tournament",
    "DisseminationRounds",
    "Dissemination",
    "DisseminationTree",
    "DlctBarrier",
    "DlctMs",
    "DlctTree",
    "grid_only_reason",
    "planned_messages",
    "run_barriers",
    # the networks, for callers that took them from here
    "DEFAULT_HOP_LATENCY",
    "DEFAULT_PROC",
    "ROUTINGS",
    "FabricNetwork",
    "GridNetwork",
    "Message",
    "Network",
    "Recorder",
    "is_grid",
]

ALGORITHMS: Registry[type[BarrierRun]] = Registry("barrier algorithm")
"""Every barrier algorithm (its :class:`BarrierRun` class) by name, in the order the UI and the tables show them."""
register, unregister, algorithm = ALGORITHMS.register, ALGORITHMS.unregister, ALGORITHMS.lookup

register(MasterSlave)
register(TreeBarrier)
register(Tournament)
register(Dissemination)
register(DisseminationTree)
register(DlctBarrier)
register(DlctMs)
register(DlctTree)

DEFAULT_ALGORITHM = DlctBarrier.name
"""The page's algorithm on a grid: the paper's."""
ANY_FABRIC_ALGORITHM = TreeBarrier.name
"""The page's algorithm on a fabric that is not a grid (DLCT needs one), and the one it compares with by default."""
COMMAND_LINE_ALGORITHM = DlctTree.name
"""The ``barrier`` command's ``--algo`` by default."""
EVENTS_PER_MESSAGE = 4
"""The fewest simulation events a message takes: handled at its source and at its destination, two events each."""


def logical_barriers() -> list[str]:
    """The algorithms with a logical GOAL schedule (``goal_schedule``), in registration order (the DLCT variants
    need a grid: ``goal barrier`` exports them from a grid run)."""
    return [name for name, cls in ALGORITHMS.items() if cls.goal_schedule is not None]


def grid_only_reason(topo: Topology, algo: str) -> str:
    """Why ``algo`` (a ``grid_only`` algorithm) cannot run among chosen nodes of ``topo``: one line.

    The DLCT variants' IDs follow the grid's numbering and their blocks are squares of the grid, so they run on a
    grid's switches only, never among participants; the message says what to choose instead.

    Parameters
    ----------
    topo : Topology
        The fabric.
    algo : str
        A barrier algorithm's name.

    Returns
    -------
    str
        The reason, one line (what :func:`run_barriers` raises).

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> grid_only_reason(from_spec("fat-tree:radix=4,levels=2"), "dlct")[:32]
    'DLCT needs a grid of processors:'
    """
    name = getattr(ALGORITHMS.get(algo), "short", "") or algo
    why = (
        f"{name} needs a grid of processors: its IDs follow the grid's numbering (S-curve, Z-order, Hilbert) "
        "and its blocks are squares of the grid"
    )
    anywhere = [cls.label.split(" (")[0] for cls in ALGORITHMS.values() if not cls.grid_only]
    if is_grid(topo):
        return f"{why}; on this grid it runs on the switches, without a list of participants."
    return f"{why}, and this fabric is not a 2-D grid — choose {_either(anywhere)}, or a mesh."


def _either(names: list[str]) -> str:
    """``"A, B or C"``."""
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def planned_messages(topo: Topology, algo: str, barriers: int = 3, participants=None, block: int = 4) -> int:
    """The messages a run of ``algo`` sends when every barrier completes (fewer when broken links cut
    processors off), counted without running it: what a page weighs before it offers a run.

    >>> from vizcoll.topology.generators import from_spec
    >>> topo = from_spec("fat-tree:radix=4,levels=2")  # 8 end nodes under 4 leaves
    >>> [planned_messages(topo, a, 3, topo.endpoints) for a in ("tree", "dissemination", "dissemination+tree")]
    [42, 72, 48]
    """
    cls = algorithm(algo)
    if participants is None:
        grid = GridNetwork(topo)
        n, groups = grid.n, len(grid_blocks(grid, block))
    else:
        n, groups = len(participants), len(np.unique(leaf_switches(topo, participants)))
    return barriers * cls.messages_per_barrier(n, groups)


def run_barriers(
    topo: Topology,
    algo: str,
    barriers: int = 3,
    compute: float = 0.5,
    seed: int = 0,
    participants=None,
    progress: Callable[[float], None] | None = None,
    **params,
) -> tuple[Timeline, dict]:
    """Run the paper's test program with barrier algorithm ``algo`` on the grid ``topo``, or among ``participants``.

    The program is ``barriers`` barriers with ``compute`` seconds of work between two of them, on every processor;
    its run time is when the last processor leaves the last barrier. Messages travel over the simulated network
    (greedy forwarding on the grid, min-hop routes avoiding broken links among participants; per-hop latency,
    per-node FIFO processing). Correctness is checked inside the simulation (a violation raises
    :class:`~vizcoll.barrier.base.BarrierViolation`); when broken links cut processors off the run ends with
    ``time`` None and ``failure`` saying what happened (see the module docstring for the algorithms).

    Parameters
    ----------
    topo : Topology
        Without ``participants``: a grid whose switches carry ``x`` / ``y``
        (e.g. ``mesh((8, 8), 8, hosts=0)``; see
        :func:`~vizcoll.barrier.grid.is_grid`), every switch a processor.
        With ``participants``: any fabric. Its broken links are the failures.
    algo : str
        One of :data:`ALGORITHMS` (with ``participants``: not a ``grid_only`` one).
    barriers : int
        The program's number of barriers (3 in the paper).
    compute : float
        Seconds of work between two barriers (0.5 in the paper).
    seed : int
        Seed of the work jitter (``jitter`` > 0 only; the broken links are the caller's).
    participants : sequence of int, optional
        Node indices of the processes (e.g. a communicator's end nodes), in
        rank order. Messages then follow min-hop routes of the fabric that
        avoid its broken links, switches forwarding
        (:class:`~vizcoll.barrier.fabric.FabricNetwork`); ``routing`` and
        ``block`` do not apply.
    progress : callable, optional
        ``progress(share)`` hears now and then the share (0..1) of the
        processors' barriers done.
    **params
        The other :class:`SimParams` fields: ``hop_latency``, ``proc`` (seconds
        per hop / per message handled), ``jitter`` (work ``compute * (1 ± jitter)``),
        ``block`` (square side of the two-level algorithms), ``judge``,
        ``structure``, ``numbering`` (DLCT), ``routing``, ``tree_on`` and
        ``record`` (False: no timeline events, faster).

    Returns
    -------
    tuple of (Timeline, dict)
        The animation and the figures: ``time`` (run time in s, None if the
        program could not finish), ``sync_time`` (time - the work),
        ``messages``, ``hops``, ``dead_ends``, ``detours``, ``max_link_load``,
        ``adjustments`` (DLCT ``round(K)`` with ``K != 0``), ``early_gathers``
        (next-barrier Gathers that had to wait), ``barrier_done``,
        ``completed``, ``failure`` (text or None) and, for DLCT, ``k``,
        ``judged`` and ``final_ids``.

    Raises
    ------
    VizcollError
        A bad parameter, a topology that is not a grid without
        ``participants``, or a DLCT variant with ``participants`` (the message
        is :func:`grid_only_reason`, one line), or a run that would exceed the
        simulation's event limit.

    References
    ----------
    [DLCT19] Xiang Zhehui, Qin Xiaolin, You Feng, Liu Liang, "Synchronization Mechanism for Network Disconnection
    Perception", Journal of Frontiers of Computer Science and Technology, 13(2): 195–204, 2019, DOI
    [10.3778/j.issn.1673-9418.1805061](https://doi.org/10.3778/j.issn.1673-9418.1805061). Section 4 (the test
    program, the algorithms compared), Algorithm 2 (DLCT).

    Examples
    --------
    >>> from vizcoll.topology.generators import mesh
    >>> timeline, figures = run_barriers(mesh((4, 4), 8, hosts=0), "dlct", barriers=2)
    >>> figures["completed"], figures["messages"], figures["failure"]
    (True, 60, None)
    """
    cls = algorithm(algo)
    if participants is not None and cls.grid_only:
        raise VizcollError(grid_only_reason(topo, algo))
    p = SimParams(barriers=barriers, compute=compute, seed=seed, **params)
    participants = None if participants is None else check_participants(topo, participants)
    planned = planned_messages(topo, algo, barriers, participants, p.block)
    if planned * EVENTS_PER_MESSAGE > MAX_EVENTS:
        raise VizcollError(
            f"{plural(barriers, 'barrier')} of {cls.short or algo} send {planned:,} messages, more "
            f"than the simulation's limit of {MAX_EVENTS:,} events allows: choose fewer barriers or processes, or "
            "another algorithm"
        )
    return cls(topo, p, participants).run(progress)
