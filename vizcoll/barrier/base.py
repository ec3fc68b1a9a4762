"""What every barrier algorithm builds on: the run's parameters, the benchmark program and its recording.

:class:`BarrierRun` runs the paper's test program (the DLCT barrier paper, section 4) on
every processor of a network (:class:`~vizcoll.barrier.grid.GridNetwork` or,
with ``participants``, :class:`~vizcoll.barrier.fabric.FabricNetwork`) over
the timing model of :class:`~vizcoll.barrier.network.Network`, on the one
event core :class:`vizcoll.sim.engine.Engine`. An algorithm is a subclass
(its own module, e.g. :mod:`vizcoll.barrier.tree`) registered in
:data:`vizcoll.barrier.algorithms.ALGORITHMS`; the Gather / Release family
builds on :class:`vizcoll.barrier.twophase.TwoPhase`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from vizcoll.barrier.fabric import FabricNetwork
from vizcoll.barrier.grid import ROUTINGS, GridNetwork
from vizcoll.barrier.network import DEFAULT_HOP_LATENCY, DEFAULT_PROC, MAX_EVENTS, Message, Network, Recorder
from vizcoll.barrier.structures import NUMBERINGS, STRUCTURES
from vizcoll.errors import SpecError, VizcollError
from vizcoll.sim.engine import Engine
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.analysis import cut_cause
from vizcoll.topology.model import Topology
from vizcoll.words import plural

__all__ = ["TREE_ON", "JUDGES", "LEGEND", "BarrierViolation", "SimParams", "BarrierRun", "children_of"]

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
            isinstance(self.compute, (int, float)) and math.isfinite(self.compute) and self.compute >= 0
        ):
            raise SpecError(f"compute must be a number of seconds >= 0, got {self.compute!r}")
        if isinstance(self.jitter, bool) or not (isinstance(self.jitter, (int, float)) and 0 <= self.jitter < 1):
            raise SpecError(f"jitter must be in [0, 1), got {self.jitter!r}")
        if isinstance(self.block, bool) or not isinstance(self.block, (int, np.integer)) or self.block < 1:
            raise SpecError(f"block must be a positive integer, got {self.block!r}")
        for name, value, allowed in (
            ("judge", self.judge, JUDGES),
            ("structure", self.structure, STRUCTURES),
            ("numbering", self.numbering, NUMBERINGS),
            ("routing", self.routing, ROUTINGS),
            ("tree_on", self.tree_on, TREE_ON),
        ):
            if value not in allowed:
                raise SpecError(f"unknown {name} {value!r}; choose one of {', '.join(allowed)}")


def children_of(parent: dict[int, int]) -> dict[int, list[int]]:
    """Invert a parent map (children in node order)."""
    kids: dict[int, list[int]] = {u: [] for u in parent}
    for u in sorted(parent):
        if parent[u] >= 0:
            kids[parent[u]].append(u)
    return kids


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
    """The name ``--algo`` and the page's parameters use (the key in :data:`vizcoll.barrier.algorithms.ALGORITHMS`)."""
    label = "Barrier"
    """What the page's dropdown and tables show (e.g. ``"DLCT + MS (ID1)"``)."""
    help = ""
    """One line for ``--help``."""
    title = "Barrier"
    """The title of a run's timeline."""
    short = ""
    """Short name in messages (e.g. ``"DLCT + MS"``; empty: the algorithm's name)."""
    colour = "#333"
    """The algorithm's line in the sweep's charts."""
    grid_only = False
    """True when the algorithm needs the paper's grid (its IDs follow the grid's numbering)."""
    goal_schedule: Callable | None = None
    """``goal_schedule(s, P, size, block)`` adds the barrier on ``P`` logical ranks to the schedule ``s``
    (:mod:`vizcoll.barrier.schedules`); None: none (``goal barrier`` exports it from a grid run only)."""

    @classmethod
    def messages_per_barrier(cls, n: int, groups: int) -> int:
        """Messages one complete barrier sends among ``n`` processors (``groups``: the blocks of the two-level
        algorithms): a Gather and a Release per processor but the root."""
        return 2 * (n - 1)

    def __init__(self, topo: Topology, params: SimParams, participants=None):
        self.topo, self.p = topo, params
        if participants is None:
            self.grid: GridNetwork | FabricNetwork = GridNetwork(topo, params.routing)
        else:
            self.grid = FabricNetwork(topo, participants)
        self.engine = Engine()
        self.rec = Recorder(params.record)
        self.net = Network(
            self.grid,
            self.engine,
            self.deliver,
            self._dropped,
            self.rec,
            params.hop_latency,
            params.proc,
            describe=self.describe,
        )
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
        self.progress: Callable[[float], None] | None = None
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
    def require(self, ok: bool, what: Callable[[], str]) -> None:
        """Raise :class:`BarrierViolation` unless ``ok``, saying ``what()`` (called only then: the checks run for
        every message)."""
        if not ok:
            raise BarrierViolation(f"{self.name}: {what()}")

    def send(self, t: float, kind: str, u: int, v: int, content: int = 0, **data) -> None:
        """Send a message of ``u``'s current barrier."""
        self.net.send(t, Message(kind, u, v, self.cur[u], content, data))

    def mark(self, t: float, u: int, state: str, label: str = "", kind: str = "state", src: int = -1, **more) -> None:
        """Record ``u``'s new state (and any extra entity states) with a caption."""
        if self.rec.enabled:
            changes = {self.names[u]: state, **more}
            self.rec.add(t, kind, src, u, (), label, changes)

    def note(self, t: float, label: str, kind: str = "note", **changes) -> None:
        """A caption-only event (``kind``: a key moment of the replay, see :data:`vizcoll.sim.timeline.KEY_MOMENTS`,
        or a plain note)."""
        self.rec.add(t, kind, label=label, changes=changes)

    def leave(self, t: float, u: int) -> None:
        """``u`` leaves its current barrier (checked: every processor must have entered it)."""
        b = self.cur[u]
        self.require(
            self.entered[b] == self.n,
            lambda: (
                f"{self.names[u]} leaves barrier {b + 1} at t={t:.6f} while only "
                f"{self.entered[b]:,} of {self.n:,} processors entered it"
            ),
        )
        self.left[b] += 1
        if self.progress is not None and self.left[b] % max(1, self.n // 50) == 0:
            self.progress((b + self.left[b] / self.n) / self.p.barriers)
        last = b + 1 == self.p.barriers
        self.phase[u] = "done" if last else "compute"
        if self.rec.enabled:
            self.mark(t, u, "left" if last else "computing", f"{self.names[u]} leaves barrier {b + 1}")
        if self.left[b] == self.n:
            self.finished[b] = t
            self.note(
                t, f"Barrier {b + 1} is complete at t = {t * 1000:.2f} ms: every processor has left it", kind="complete"
            )
        if not last:
            start = t + float(self.work[b + 1, self.rank[u]])
            self.engine.at(start, self._enter, start, u, b + 1)

    # ------------------------------------------------------------ run
    def _enter(self, t: float, u: int, b: int) -> None:
        self.cur[u], self.phase[u] = b, "gather"
        self.entered[b] += 1
        if self.entered[b] == 1:
            self.note(t, f"Barrier {b + 1} of {self.p.barriers}: the first processor enters")
        if self.rec.enabled:
            self.mark(t, u, "waiting", f"{self.names[u]} enters barrier {b + 1}")
        self.enter(t, u)

    def _dropped(self, t: float, msg: Message) -> None:
        """A message hit a dead end: nothing to do, the barrier will stall and be reported."""

    def run(self, progress: Callable[[float], None] | None = None) -> tuple[Timeline, dict]:
        """Simulate the program; the timeline and the figures. ``progress(share)`` hears the share of the
        processors' barriers left so far (0..1) now and then."""
        self.progress = progress
        for u in self.nodes:
            self.engine.at(0.0, self._enter, 0.0, u, 0)
        try:
            self.engine.run(MAX_EVENTS)
        except RuntimeError:
            raise VizcollError(
                f"{plural(self.p.barriers, 'barrier')} of {self.short or self.name} on "
                f"{plural(self.n, 'processor')} take more than {MAX_EVENTS:,} simulation events: choose fewer "
                "barriers or processors, or another algorithm"
            ) from None
        figures = self.figures()
        if figures["failure"]:
            stuck = {self.names[u]: "stuck" for u in self.nodes if self.phase[u] != "done"}
            self.rec.add(self.engine.now, "note", label=figures["failure"], changes=stuck)
        return self.timeline(figures), figures

    def failure(self) -> str | None:
        """Why the program did not finish (None if it did)."""
        last = self.p.barriers - 1
        if self.left[last] == self.n:
            return None
        b = next(i for i in range(self.p.barriers) if self.left[i] < self.n)
        dead = self.net.dead
        text = f"barrier {b + 1} never completed ({self.n - self.left[b]:,} of {self.n:,} processors stuck)"
        if dead:
            shown = ", ".join(f"{self.describe(m)} {self.names[m.src]} → {self.names[m.dst]}" for m in dead[:3])
            more = f" and {len(dead) - 3} more" if len(dead) > 3 else ""
            text += f": {plural(len(dead), 'message')} hit dead ends ({shown}{more})"
        cause = cut_cause(self.topo, self.nodes, "processor")  # the file's own parts, or the breaks
        return f"{text}; {cause}" if cause else text

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
            title=f"{self.title}: {plural(p.barriers, 'barrier')} on {plural(self.n, 'processor')}",
            intro=(
                f"Every processor runs the test program: {plural(p.barriers, 'barrier')} with "
                f"{p.compute:g} s of work between two of them. {self.title}."
            ),
            initial_state=self.initial_state(),
            events=self.rec.columns(),
            entities=self.entities(),
            legend=dict(LEGEND),
            summary={**figures, "params": asdict(p)},
        )
