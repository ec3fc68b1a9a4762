"""Barrier algorithms on the simulated grid network and the paper's benchmark program (seed 002, section 4).

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
variants (:data:`GRID_ONLY`) need the grid and refuse participants
(:func:`grid_only_reason`).

**Algorithms** (:data:`ALGOS`; the paper names them, their details here are
our choices where it is silent):

- ``ms`` (master-slave, a single-level tree): everyone sends its Gather to the
  master, the processor nearest the grid centre (off the grid: the process
  with the smallest total hop distance to the others), which then releases
  everyone, one message each;
- ``tree``: the paper's "minimum spanning tree of the real network". A
  minimum spanning tree needs link weights; on a grid of positions the natural
  one is the link's length (1 for a row or column link, √2 for a diagonal),
  so with 8 neighbours the tree keeps to row and column links while they
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

**Correctness is checked inside the simulation**: a processor leaving
barrier ``b`` before every processor has entered it, a Gather or Release of
one barrier consumed in another, or a Release from anyone but the node the
Gather went to raise :class:`BarrierViolation`.

**Failure.** When broken links cut processors off, messages hit dead ends
(see :mod:`vizcoll.barrier.network`); the barrier then cannot complete: the
run ends when nothing is left to do, ``figures["time"]`` is None,
``"dead_ends"`` > 0 and ``"failure"`` says what happened. Nothing loops.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from vizcoll.barrier.fabric import FabricNetwork
from vizcoll.barrier.network import (
    DEFAULT_HOP_LATENCY,
    DEFAULT_PROC,
    ROUTINGS,
    Block,
    EventQueue,
    GridNetwork,
    Message,
    Network,
    Recorder,
    grid_blocks,
    is_grid,
    mst_tree,
)
from vizcoll.barrier.structures import NUMBERINGS, STRUCTURES, lct_children, lct_parent
from vizcoll.errors import SpecError, VizcollError
from vizcoll.sim.timeline import Timeline, sort_events
from vizcoll.topology.model import Topology

__all__ = [
    "ALGOS",
    "GRID_ONLY",
    "TREE_ON",
    "LEGEND",
    "BarrierViolation",
    "SimParams",
    "Block",
    "grid_blocks",
    "mst_tree",
    "BarrierRun",
    "TwoPhase",
    "MasterSlave",
    "TreeBarrier",
    "Tournament",
    "DisseminationRounds",
    "Dissemination",
    "DisseminationTree",
    "grid_only_reason",
    "run_barriers",
]

ALGOS = ("ms", "tree", "tournament", "dissemination", "dissemination+tree", "dlct", "dlct+ms", "dlct+tree")
GRID_ONLY = ("dlct", "dlct+ms", "dlct+tree")
"""The algorithms that need the paper's grid (DLCT's IDs follow the grid's numbering); the others run on any fabric."""
TREE_ON = ("live", "intact")
JUDGES = ("model", "hops", "step", "never")

LEGEND = {
    "computing": "working between two barriers",
    "waiting": "entered the barrier; waiting for its Gather messages",
    "gathered": "sent its Gather upwards; waiting for the Release",
    "exchanging": "a leader exchanging dissemination messages with the other leaders",
    "released": "got the Release and passes it on",
    "left": "left the last barrier: the program is finished here",
    "stuck": "can never leave the barrier: a message it needs hit a dead end",
}


class BarrierViolation(AssertionError):
    """A barrier invariant broke inside the simulation (a bug, never a user error)."""


@dataclass(frozen=True)
class SimParams:
    """Parameters of one simulated run (see :func:`run_barriers`)."""

    barriers: int = 3
    compute: float = 0.5
    seed: int = 0
    hop_latency: float = DEFAULT_HOP_LATENCY
    proc: float = DEFAULT_PROC
    jitter: float = 0.0
    block: int = 4
    judge: str = "model"
    structure: str = "lct"
    numbering: str = "s-curve"
    routing: str = "greedy+recovery"
    tree_on: str = "live"
    record: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.barriers, bool) or not isinstance(self.barriers, (int, np.integer)) or self.barriers < 1:
            raise SpecError(f"barriers must be a positive integer, got {self.barriers!r}")
        if isinstance(self.compute, bool) or not (
                isinstance(self.compute, (int, float)) and math.isfinite(self.compute) and self.compute >= 0):
            raise SpecError(f"compute must be a number of seconds >= 0, got {self.compute!r}")
        if isinstance(self.jitter, bool) or not (isinstance(self.jitter, (int, float)) and 0 <= self.jitter < 1):
            raise SpecError(f"jitter must be in [0, 1), got {self.jitter!r}")
        if isinstance(self.block, bool) or not isinstance(self.block, (int, np.integer)) or self.block < 1:
            raise SpecError(f"block must be a positive integer, got {self.block!r}")
        for name, value, allowed in (("judge", self.judge, JUDGES), ("structure", self.structure, STRUCTURES),
                                     ("numbering", self.numbering, NUMBERINGS), ("routing", self.routing, ROUTINGS),
                                     ("tree_on", self.tree_on, TREE_ON)):
            if value not in allowed:
                raise SpecError(f"unknown {name} {value!r}; choose one of {', '.join(allowed)}")


def children_of(parent: dict[int, int]) -> dict[int, list[int]]:
    """Invert a parent map (children in node order)."""
    kids: dict[int, list[int]] = {u: [] for u in parent}
    for u in sorted(parent):
        if parent[u] >= 0:
            kids[parent[u]].append(u)
    return kids


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'s' * (k != 1)}"


class BarrierRun:
    """The benchmark program on every processor, with one barrier algorithm (subclasses).

    ``self.grid`` is the network: a :class:`GridNetwork` (the processors are
    the grid's switches) or, with ``participants``, a
    :class:`~vizcoll.barrier.fabric.FabricNetwork` (the processes are those
    nodes of any fabric). A subclass implements :meth:`setup`, :meth:`enter` (a processor enters
    its current barrier) and :meth:`deliver` (a message arrived); it calls
    :meth:`send` and :meth:`leave`.
    """

    name = "barrier"
    title = "Barrier"

    def __init__(self, topo: Topology, params: SimParams, participants=None):
        self.topo, self.p = topo, params
        if participants is None:
            self.grid: GridNetwork | FabricNetwork = GridNetwork(topo, params.routing)
        else:
            self.grid = FabricNetwork(topo, participants)
        self.queue = EventQueue()
        self.rec = Recorder(params.record)
        self.net = Network(self.grid, self.queue, self.deliver, self._dropped, self.rec,
                           params.hop_latency, params.proc, describe=self.describe)
        self.nodes, self.n, self.names = self.grid.nodes, self.grid.n, topo.names
        self.rank = {u: i for i, u in enumerate(self.nodes)}
        self.cur = dict.fromkeys(self.nodes, 0)
        self.phase = dict.fromkeys(self.nodes, "gather")
        b = params.barriers
        self.entered, self.left = [0] * b, [0] * b
        self.finished: list[float | None] = [None] * b
        rng = np.random.default_rng(params.seed)
        self.work = params.compute * (1 + params.jitter * rng.uniform(-1, 1, size=(b, self.n)))
        self.adjustments = 0
        self.early = 0
        self.extra: dict = {}
        self.setup()

    # ------------------------------------------------------------ to implement
    def setup(self) -> None:
        """Build the algorithm's structures (called once by ``__init__``)."""

    def enter(self, t: float, u: int) -> None:
        """Processor ``u`` enters barrier ``self.cur[u]``."""
        raise NotImplementedError

    def deliver(self, t: float, msg: Message) -> None:
        """``msg`` has been handled by its destination ``msg.dst``."""
        raise NotImplementedError

    def describe(self, msg: Message) -> str:
        """Short name of a message for captions."""
        return msg.kind.capitalize()

    # ------------------------------------------------------------ helpers for subclasses
    def require(self, ok: bool, what: str) -> None:
        """Raise :class:`BarrierViolation` unless ``ok``."""
        if not ok:
            raise BarrierViolation(f"{self.name}: {what}")

    def send(self, t: float, kind: str, u: int, v: int, content: int = 0, **data) -> None:
        """Send a message of ``u``'s current barrier."""
        self.net.send(t, Message(kind, u, v, self.cur[u], content, data))

    def mark(self, t: float, u: int, state: str, label: str = "", kind: str = "state", src: int = -1,
             **more) -> None:
        """Record ``u``'s new state (and any extra entity states) with a caption."""
        if self.rec.enabled:
            changes = {self.names[u]: state, **more}
            self.rec.add(t, kind, src, u, (), label, changes)

    def note(self, t: float, label: str, **changes) -> None:
        """A caption-only event."""
        self.rec.add(t, "note", label=label, changes=changes)

    def leave(self, t: float, u: int) -> None:
        """``u`` leaves its current barrier (checked: every processor must have entered it)."""
        b = self.cur[u]
        self.require(self.entered[b] == self.n, f"{self.names[u]} leaves barrier {b + 1} at t={t:.6f} while only "
                                                f"{self.entered[b]} of {self.n} processors entered it")
        self.left[b] += 1
        last = b + 1 == self.p.barriers
        self.phase[u] = "done" if last else "compute"
        self.mark(t, u, "left" if last else "computing", f"{self.names[u]} leaves barrier {b + 1}")
        if self.left[b] == self.n:
            self.finished[b] = t
            self.note(t, f"Barrier {b + 1} is complete at t = {t * 1000:.2f} ms: every processor has left it")
        if not last:
            self.queue.push(t + float(self.work[b + 1, self.rank[u]]), self._enter, u, b + 1)

    # ------------------------------------------------------------ run
    def _enter(self, t: float, u: int, b: int) -> None:
        self.cur[u], self.phase[u] = b, "gather"
        self.entered[b] += 1
        if self.entered[b] == 1:
            self.note(t, f"Barrier {b + 1} of {self.p.barriers}: the first processor enters")
        self.mark(t, u, "waiting", f"{self.names[u]} enters barrier {b + 1}")
        self.enter(t, u)

    def _dropped(self, t: float, msg: Message) -> None:
        """A message hit a dead end: nothing to do, the barrier will stall and be reported."""

    def run(self) -> tuple[Timeline, dict]:
        """Simulate the program; the timeline and the figures."""
        for u in self.nodes:
            self.queue.push(0.0, self._enter, u, 0)
        self.queue.run()
        figures = self.figures()
        if figures["failure"]:
            stuck = {self.names[u]: "stuck" for u in self.nodes if self.phase[u] != "done"}
            self.rec.add(self.queue.now, "note", label=figures["failure"], changes=stuck)
        return self.timeline(figures), figures

    def failure(self) -> str | None:
        """Why the program did not finish (None if it did)."""
        last = self.p.barriers - 1
        if self.left[last] == self.n:
            return None
        b = next(i for i in range(self.p.barriers) if self.left[i] < self.n)
        dead = self.net.dead
        text = f"barrier {b + 1} never completed ({self.n - self.left[b]} of {self.n} processors stuck)"
        if dead:
            shown = ", ".join(f"{self.describe(m)} {self.names[m.src]} → {self.names[m.dst]}" for m in dead[:3])
            more = f" and {len(dead) - 3} more" if len(dead) > 3 else ""
            text += f": {_plural(len(dead), 'message')} hit dead ends ({shown}{more})"
        comps = self.grid.components()
        if len(comps) > 1:
            cut = sum(len(c) for c in comps[1:])
            text += f"; the broken links cut the network into {len(comps)} parts ({cut} processors cut off)"
        return text

    def figures(self) -> dict:
        """The run's figures (see :func:`run_barriers`)."""
        failure = self.failure()
        time = None if failure else round(self.finished[-1], 9)
        return {
            "algo": self.name,
            "processors": self.n,
            "broken_links": int(self.topo.broken.sum()),
            "time": time,
            "sync_time": None if failure else round(time - (self.p.barriers - 1) * self.p.compute, 9),
            "barrier_done": [None if x is None else round(x, 9) for x in self.finished],
            "messages": self.net.messages,
            "hops": self.net.hops,
            "dead_ends": len(self.net.dead),
            "detours": self.net.detours,
            "max_link_load": self.net.max_link_load,
            "adjustments": self.adjustments,
            "early_gathers": self.early,
            "completed": failure is None,
            "failure": failure,
            **self.extra,
        }

    def initial_state(self) -> dict:
        """State before t = 0 (subclasses may add entities)."""
        return {self.names[u]: "computing" for u in self.nodes}

    def entities(self) -> dict:
        """Entity key -> drawing hint."""
        return {self.names[u]: {"node": u} for u in self.nodes}

    def timeline(self, figures: dict) -> Timeline:
        """The recorded events as a :class:`Timeline` (empty when recording is off)."""
        p = self.p
        return Timeline(
            title=f"{self.title}: {p.barriers} barriers on {self.n} processors",
            intro=(f"Every processor runs the test program: {_plural(p.barriers, 'barrier')} with "
                   f"{p.compute:g} s of work between two of them. {self.title}."),
            initial_state=self.initial_state(),
            events=sort_events(self.rec.events),
            entities=self.entities(),
            legend=dict(LEGEND),
            summary={**figures, "params": asdict(p)},
        )


class TwoPhase(BarrierRun):
    """Gather up a tree, then Release down (the two-phase family); subclasses give the tree.

    A processor waits for :meth:`expected` Gather messages, *clears its Gather
    queue* (consumes them all), then sends its own Gather to :meth:`parent`
    (or, at a root, calls :meth:`at_root`). A Gather that arrives after that
    belongs to the next barrier: it waits in a queue until the processor
    enters that barrier (checked). On Release a processor first forwards it
    (:meth:`plan`), then :meth:`adjust` s, then leaves.
    """

    def setup(self) -> None:
        self.got = dict.fromkeys(self.nodes, 0)
        self.acc = dict.fromkeys(self.nodes, 0)
        self.queued: dict[int, list[Message]] = {u: [] for u in self.nodes}
        self.sent_to = dict.fromkeys(self.nodes, -1)

    # ------------------------------------------------------------ hooks
    def expected(self, u: int) -> int:
        """Number of Gather messages ``u`` waits for in its current barrier."""
        raise NotImplementedError

    def parent(self, u: int) -> int:
        """Where ``u`` sends its Gather (-1: ``u`` is a root)."""
        raise NotImplementedError

    def plan(self, u: int, msg: Message | None) -> list[tuple[int, int, dict]]:
        """Release messages ``u`` sends: ``(target, content, data)`` (``msg`` is None at the root)."""
        raise NotImplementedError

    def belongs(self, u: int, msg: Message) -> bool:
        """Is this Gather one ``u`` expects in its current barrier?"""
        return True

    def release_ok(self, u: int, msg: Message) -> bool:
        """Is this Release the one ``u`` waits for? (By default: from the node its Gather went to.)"""
        return msg.src == self.sent_to[u]

    def consume(self, u: int, msg: Message) -> None:
        """Take one expected Gather into account (adds its path length)."""
        self.acc[u] += msg.content

    def gather_data(self, u: int) -> dict:
        """Extra fields of ``u``'s Gather message."""
        return {}

    def at_root(self, t: float, u: int) -> None:
        """A root has everything: release."""
        self.release(t, u, None)

    def adjust(self, t: float, u: int, msg: Message | None) -> None:
        """After forwarding the Release (DLCT applies ``round(K)`` here)."""

    # ------------------------------------------------------------ engine
    def enter(self, t: float, u: int) -> None:
        self.got[u], self.acc[u] = 0, 0
        waiting, self.queued[u] = self.queued[u], []
        for msg in waiting:
            self._take(u, msg)
        self._check(t, u)

    def deliver(self, t: float, msg: Message) -> None:
        u = msg.dst
        if msg.kind == "gather":
            self._gather(t, u, msg)
        elif msg.kind == "release":
            self.require(self.phase[u] == "release" and msg.barrier == self.cur[u] and self.release_ok(u, msg),
                         f"{self.names[u]} got a Release of barrier {msg.barrier + 1} from {self.names[msg.src]} "
                         f"while in phase {self.phase[u]} of barrier {self.cur[u] + 1}")
            self.mark(t, u, "released", f"{self.names[u]} gets the Release from {self.names[msg.src]}",
                      kind="deliver", src=msg.src)
            self.release(t, u, msg)
        else:
            self.other(t, msg)

    def other(self, t: float, msg: Message) -> None:
        """A message of another kind (none by default)."""
        self.require(False, f"unexpected {msg.kind} message")

    def _gather(self, t: float, u: int, msg: Message) -> None:
        name = self.names[u]
        if self.phase[u] == "gather":
            self.require(msg.barrier == self.cur[u], f"{name} in barrier {self.cur[u] + 1} got a Gather of "
                                                     f"barrier {msg.barrier + 1}")
            self._take(u, msg)
            self.mark(t, u, "waiting", f"{name} got the Gather of {self.names[msg.src]} "
                                       f"({self.got[u]} of {self.expected(u)})", kind="deliver", src=msg.src)
            self._check(t, u)
            return
        # u already sent its Gather (its queue was cleared): this one is the next barrier's
        self.require(msg.barrier == self.cur[u] + 1, f"{name} past the Gather of barrier {self.cur[u] + 1} got a "
                                                     f"Gather of barrier {msg.barrier + 1}: barriers mixed")
        self.queued[u].append(msg)
        self.early += 1
        self.rec.add(t, "deliver", msg.src, u, (), f"{name} queues an early Gather of barrier {msg.barrier + 1} "
                                                    f"from {self.names[msg.src]} until it enters that barrier")

    def _take(self, u: int, msg: Message) -> None:
        self.require(msg.barrier == self.cur[u] and self.belongs(u, msg),
                     f"{self.names[u]} cannot use the Gather of barrier {msg.barrier + 1} from "
                     f"{self.names[msg.src]} in barrier {self.cur[u] + 1}: barriers or patterns mixed")
        self.got[u] += 1
        self.require(self.got[u] <= self.expected(u), f"{self.names[u]} got too many Gather messages")
        self.consume(u, msg)

    def _check(self, t: float, u: int) -> None:
        if self.got[u] < self.expected(u):
            return
        self.phase[u] = "release"
        p = self.parent(u)
        if p < 0:
            self.at_root(t, u)
            return
        self.sent_to[u] = p
        self.send(t, "gather", u, p, self.acc[u], **self.gather_data(u))
        self.mark(t, u, "gathered", f"{self.names[u]} sends its Gather to {self.names[p]}")

    def release(self, t: float, u: int, msg: Message | None) -> None:
        """Forward the Release (``msg`` None: ``u`` is the root), adjust, leave."""
        targets = self.plan(u, msg)
        for v, content, data in targets:
            self.send(t, "release", u, v, content, **data)
        if msg is None:
            self.note(t, f"{self.names[u]} has every Gather of barrier {self.cur[u] + 1} and releases "
                         f"{_plural(len(targets), 'node')}")
        self.adjust(t, u, msg)
        self.leave(t, u)


class FixedTree:
    """Two-phase hooks for a fixed tree kept as ``self.par`` (parent per node) and ``self.kids``."""

    def expected(self, u: int) -> int:
        return len(self.kids[u])

    def parent(self, u: int) -> int:
        return self.par[u]

    def plan(self, u: int, msg: Message | None) -> list[tuple[int, int, dict]]:
        return [(v, 0, {}) for v in self.kids[u]]


class MasterSlave(TwoPhase):
    """``ms``: everyone ↔ the master (the processor nearest the grid centre; off the grid, the most central process)."""

    name, title = "ms", "Master–slave barrier"

    def setup(self) -> None:
        super().setup()
        self.master = self.grid.centre()

    def expected(self, u: int) -> int:
        return self.n - 1 if u == self.master else 0

    def parent(self, u: int) -> int:
        return -1 if u == self.master else self.master

    def plan(self, u: int, msg: Message | None) -> list[tuple[int, int, dict]]:
        return [(v, 0, {}) for v in self.nodes if v != u] if u == self.master else []


class TreeBarrier(FixedTree, TwoPhase):
    """``tree``: a minimum spanning tree (links weighted by length) from the centre, on the live or intact grid.

    Off the grid: the minimum spanning tree of the processes weighted by their
    hop distance (:meth:`~vizcoll.barrier.fabric.FabricNetwork.spanning_tree`).
    Processors the tree cannot reach (cut off) send to the root through the
    network: their Gather dead-ends and the failure is reported.
    """

    name, title = "tree", "Tree barrier (minimum spanning tree of the network)"

    def setup(self) -> None:
        super().setup()
        self.root = self.grid.centre()
        net = self.grid if self.p.tree_on == "live" else self.grid.intact()
        self.par = net.spanning_tree(self.root)
        for u in self.nodes:
            self.par.setdefault(u, self.root)
        self.kids = children_of(self.par)


class Tournament(TwoPhase):
    """``tournament``: binomial Gather on node order to the champion (node order 0), flat Release."""

    name, title = "tournament", "Tournament barrier"

    def expected(self, u: int) -> int:
        return len(lct_children(self.rank[u], self.n))

    def parent(self, u: int) -> int:
        up = lct_parent(self.rank[u])
        return -1 if up < 0 else self.nodes[up]

    def plan(self, u: int, msg: Message | None) -> list[tuple[int, int, dict]]:
        return [(v, 0, {}) for v in self.nodes if v != u] if msg is None else []

    def release_ok(self, u: int, msg: Message) -> bool:
        return msg.src == self.nodes[0]


class DisseminationRounds:
    """The dissemination rounds among :attr:`members`, shared by ``dissemination`` and ``dissemination+tree``.

    Round ``k`` (``k < ceil(log2 M)``) sends to the member ``2**k`` places
    further (cyclic) and waits for the one ``2**k`` places before; a message
    of a round not yet reached (or of the next barrier) is kept as a flag.
    Subclasses call :meth:`init_rounds` and :meth:`start_rounds` and implement
    :meth:`finished_rounds` and :meth:`in_rounds`.
    """

    def init_rounds(self, members: list[int]) -> None:
        """Set up the rounds among ``members`` (in this order)."""
        self.members = list(members)
        self._pos = {v: i for i, v in enumerate(self.members)}
        self.rounds = math.ceil(math.log2(len(self.members))) if len(self.members) > 1 else 0
        self.round = dict.fromkeys(self.nodes, 0)
        self.flags: dict[int, set] = {u: set() for u in self.nodes}

    def partner(self, u: int, k: int, step: int) -> int:
        """The member ``step * 2**k`` places after ``u`` (cyclic)."""
        return self.members[(self._pos[u] + step * (1 << k)) % len(self.members)]

    def finished_rounds(self, t: float, u: int) -> None:
        """All rounds done."""
        raise NotImplementedError

    def in_rounds(self, u: int) -> bool:
        """Is ``u`` running its rounds now?"""
        raise NotImplementedError

    def start_rounds(self, t: float, u: int) -> None:
        """Begin the rounds of ``u``'s current barrier."""
        self.round[u] = 0
        self._advance(t, u)

    def _advance(self, t: float, u: int) -> None:
        while True:
            k = self.round[u]
            if k == self.rounds:
                self.finished_rounds(t, u)
                return
            if ("sent", k) not in self.flags[u]:
                self.flags[u].add(("sent", k))
                self.send(t, "diss", u, self.partner(u, k, 1), round=k)
            key = (self.cur[u], k)
            if key not in self.flags[u]:
                return
            self.flags[u] -= {key, ("sent", k)}
            self.round[u] = k + 1

    def on_diss(self, t: float, msg: Message) -> None:
        """A dissemination message: set its flag, and go on if it was the one awaited."""
        u, k = msg.dst, msg.data["round"]
        self.require(msg.src == self.partner(u, k, -1), "dissemination message from the wrong partner")
        self.require(msg.barrier in (self.cur[u], self.cur[u] + 1),
                     f"{self.names[u]} in barrier {self.cur[u] + 1} got a message of barrier {msg.barrier + 1}")
        key = (msg.barrier, k)
        self.require(key not in self.flags[u], "duplicate dissemination message")
        self.flags[u].add(key)
        self.rec.add(t, "deliver", msg.src, u, (), f"{self.names[u]} got round {k + 1} of barrier "
                                                    f"{msg.barrier + 1} from {self.names[msg.src]}")
        if msg.barrier == self.cur[u] and self.in_rounds(u):
            self._advance(t, u)

    def describe(self, msg: Message) -> str:
        if msg.kind == "diss":
            return f"Dissemination round {msg.data['round'] + 1}"
        return msg.kind.capitalize()


class Dissemination(DisseminationRounds, BarrierRun):
    """``dissemination``: ``ceil(log2 N)`` rounds among all processors, in node order."""

    name, title = "dissemination", "Dissemination barrier"

    def setup(self) -> None:
        self.init_rounds(self.nodes)

    def enter(self, t: float, u: int) -> None:
        self.start_rounds(t, u)

    def finished_rounds(self, t: float, u: int) -> None:
        self.leave(t, u)

    def in_rounds(self, u: int) -> bool:
        return self.phase[u] == "gather"

    def deliver(self, t: float, msg: Message) -> None:
        self.on_diss(t, msg)


class DisseminationTree(DisseminationRounds, FixedTree, TwoPhase):
    """``dissemination+tree``: spanning trees inside ``block x block`` squares, Dissemination among their leaders.

    Off the grid the squares are the groups of processes under one leaf switch
    (:meth:`~vizcoll.barrier.fabric.FabricNetwork.groups`).
    """

    name, title = "dissemination+tree", "Dissemination + Tree barrier (two layers)"

    def setup(self) -> None:
        super().setup()
        leaders, self.par = [], {}
        for leader, members in self.grid.groups(self.p.block):
            par = self.grid.spanning_tree(leader, set(members))
            self.par.update({u: par.get(u, leader) for u in members})  # cut off inside the block: via the network
            self.par[leader] = -1
            leaders.append(leader)
        self.kids = children_of(self.par)
        self.init_rounds(leaders)
        self.exchanging = dict.fromkeys(self.nodes, False)

    def at_root(self, t: float, u: int) -> None:
        self.exchanging[u] = True
        self.mark(t, u, "exchanging", f"leader {self.names[u]} has its block and starts the dissemination")
        self.start_rounds(t, u)

    def finished_rounds(self, t: float, u: int) -> None:
        self.exchanging[u] = False
        self.release(t, u, None)

    def in_rounds(self, u: int) -> bool:
        return self.exchanging[u]

    def other(self, t: float, msg: Message) -> None:
        self.require(msg.kind == "diss", f"unexpected {msg.kind} message")
        self.on_diss(t, msg)


def _runners() -> dict[str, type[BarrierRun]]:
    from vizcoll.barrier.dlct import DLCT_RUNNERS

    return {
        "ms": MasterSlave,
        "tree": TreeBarrier,
        "tournament": Tournament,
        "dissemination": Dissemination,
        "dissemination+tree": DisseminationTree,
        **DLCT_RUNNERS,
    }


def grid_only_reason(topo: Topology, algo: str) -> str:
    """Why ``algo`` (one of :data:`GRID_ONLY`) cannot run among chosen nodes of ``topo``: one line.

    >>> from vizcoll.topology.generators import from_spec
    >>> grid_only_reason(from_spec("fat-tree:radix=4,levels=2"), "dlct")[:32]
    'DLCT needs a grid of processors:'
    """
    name = {"dlct": "DLCT", "dlct+ms": "DLCT + MS", "dlct+tree": "DLCT + Tree"}.get(algo, algo)
    why = (f"{name} needs a grid of processors: its IDs follow the grid's numbering (S-curve, Z-order, Hilbert) "
           "and its blocks are squares of the grid")
    if is_grid(topo):
        return f"{why}; on this grid it runs on the switches, without a list of participants."
    return (f"{why}, and this fabric is not a 2-D grid — choose MS, Tree, Tournament, Dissemination or "
            "Dissemination + Tree, or a mesh.")


def run_barriers(topo: Topology, algo: str, barriers: int = 3, compute: float = 0.5, seed: int = 0,
                 participants=None, **params) -> tuple[Timeline, dict]:
    """Run the paper's test program with barrier algorithm ``algo`` on the grid ``topo``, or among ``participants``.

    Parameters
    ----------
    topo : Topology
        Without ``participants``: a grid whose switches carry ``x`` / ``y``
        (e.g. ``mesh((8, 8), 8, hosts=0)``; see
        :func:`~vizcoll.barrier.network.is_grid`), every switch a processor.
        With ``participants``: any fabric. Its broken links are the failures.
    algo : str
        One of :data:`ALGOS` (with ``participants``: not one of :data:`GRID_ONLY`).
    barriers, compute : int, float
        The program: ``barriers`` barriers, ``compute`` seconds of work between two of them.
    seed : int
        Seed of the work jitter (``jitter`` > 0 only; the broken links are the caller's).
    participants : sequence of int, optional
        Node indices of the processes (e.g. a communicator's end nodes), in
        rank order. Messages then follow min-hop routes of the fabric that
        avoid its broken links, switches forwarding
        (:class:`~vizcoll.barrier.fabric.FabricNetwork`); ``routing`` and
        ``block`` do not apply.
    **params
        The other :class:`SimParams` fields: ``hop_latency``, ``proc`` (seconds
        per hop / per message handled), ``jitter`` (work ``compute * (1 ± jitter)``),
        ``block`` (square side of the two-level algorithms), ``judge``,
        ``structure``, ``numbering`` (DLCT), ``routing``, ``tree_on`` and
        ``record`` (False: no timeline events, faster).

    Returns
    -------
    (Timeline, dict)
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
        is :func:`grid_only_reason`, one line).
    """
    if algo not in ALGOS:
        raise SpecError(f"unknown barrier algorithm {algo!r}; choose one of {', '.join(ALGOS)}")
    if participants is not None and algo in GRID_ONLY:
        raise VizcollError(grid_only_reason(topo, algo))
    p = SimParams(barriers=barriers, compute=compute, seed=seed, **params)
    return _runners()[algo](topo, p, participants).run()
