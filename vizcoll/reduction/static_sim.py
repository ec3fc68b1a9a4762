"""Timed runs of the static reductions (binomial, MST, Rabenseifner) on nodes of changing speed.

Each process starts at its call time and works through its messages in the
schedule's order: a message starts when both ends have finished their
earlier messages of that reduction (and, with concurrent reductions, when
the sender's outgoing and the receiver's incoming link are free: full duplex), takes ``α + b·β`` times the larger
slowdown factor of its ends, and the receiver then reduces ``b`` bytes
(``b·γ`` at its own speed). A slow or late process therefore delays every
process waiting on it, which is the behaviour the paper criticises.

There is no fault tolerance (as in MPI): a process killed before it has done
all its messages stops the reduction, reported as ``completed = False``.
The data really moves: the root's final vector is compared with the direct
reduction of all inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.reduction.common import Recorder, ReductionRun, RunSetup, make_setup, mib, rank_name
from vizcoll.reduction.static import (
    BINOMIAL,
    MST,
    RABENSEIFNER,
    Schedule,
    StaticReduction,
    Transfer,
    schedule,
    static_cost,
)
from vizcoll.sim.engine import Engine
from vizcoll.sim.timeline import Timeline

__all__ = ["simulate_static", "simulate_binomial", "simulate_mst", "simulate_rabenseifner", "STATIC_LEGEND"]

STATIC_LEGEND = {
    "waiting": "has not finished its part yet",
    "sending": "sending data to its parent or partner",
    "reducing": "receiving and reducing data",
    "done": "finished its part of the reduction",
    "root": "the root, waiting for data",
    "result": "holds the reduced result",
    "failed": "the process died",
    "stuck": "waits for a dead process (no fault tolerance)",
}


@dataclass
class _Op:
    """The messages of one round between one pair of processes (an exchange has two)."""

    red: int
    round: int
    ranks: tuple[int, ...]
    transfers: list[Transfer]


def _ops(sched: Schedule, red: int) -> list[_Op]:
    ops = []
    for k, rnd in enumerate(sched.rounds):
        pairs: dict[tuple[int, int], list[Transfer]] = {}
        for t in rnd:
            pairs.setdefault(tuple(sorted((t.src, t.dst))), []).append(t)
        ops.extend(_Op(red, k, key, ts) for key, ts in pairs.items())
    return ops


def _apply_data(sched: Schedule, setup: RunSetup, red: int) -> np.ndarray:
    """Move the real data through the schedule; the root's final vector."""
    data = setup.data[red]
    vec = [data.original(r) for r in range(setup.procs)]
    edges = np.r_[0, np.cumsum([len(b) for b in np.array_split(np.arange(data.elements), sched.blocks)])]
    for rnd in sched.rounds:
        for t in rnd:
            a, b = edges[t.lo], edges[t.hi]
            incoming = vec[t.src][a:b]
            vec[t.dst][a:b] = data.combine(vec[t.dst][a:b], incoming) if t.reduce else incoming
    return vec[sched.root]


class _StaticRun:
    """Event-driven execution of one or more schedules on shared nodes, on the shared event core.

    An op is scheduled on the :class:`~vizcoll.sim.engine.Engine` at the time its processes are all ready (when it
    is next in line for each of them); the engine runs ops in that time order, FIFO among equal times.
    """

    def __init__(self, setup: RunSetup, scheds: list[Schedule], rec: Recorder):
        self.s, self.scheds, self.rec = setup, scheds, rec
        p = setup.procs
        self.tx = np.zeros(p)  # full duplex: a node sends and receives at the same time
        self.rx = np.zeros(p)
        self.cpu = np.zeros(p)
        self.done = [setup.call.copy() for _ in scheds]
        self.queues = []  # per reduction, per rank: its ops in order
        for red, sched in enumerate(scheds):
            per_rank: list[list[_Op]] = [[] for _ in range(p)]
            for op in _ops(sched, red):
                for r in op.ranks:
                    per_rank[r].append(op)
            self.queues.append(per_rank)
        self.pos = [np.zeros(p, dtype=int) for _ in scheds]
        self.failed_at: list[float | None] = [None] * len(scheds)
        self.messages = 0
        self.bytes = 0.0
        self.engine = Engine()  # ops start in time order (FIFO among equal times)
        self.pushed: set[int] = set()  # ids of the ops already scheduled

    def _eligible(self, op: _Op) -> bool:
        q, pos = self.queues[op.red], self.pos[op.red]
        return all(pos[r] < len(q[r]) and q[r][pos[r]] is op for r in op.ranks)

    def _push(self, op: _Op) -> None:
        """Schedule ``op`` once it is next in line for all its processes, at the time the last of them is ready."""
        if id(op) not in self.pushed and self._eligible(op):
            self.pushed.add(id(op))
            self.engine.at(self._ready(op), self._start, op)

    def run(self) -> None:
        """Schedule every process's first op, then run the engine until every op is done (or blocked)."""
        for red in range(len(self.scheds)):
            for q in self.queues[red]:
                if q:
                    self._push(q[0])
        self.engine.run()

    def _start(self, op: _Op) -> None:
        """The op's processes are ready (now): time its messages, then schedule what each process does next."""
        if self.failed_at[op.red] is not None or not self._execute(op, self.engine.now):
            return
        for r in op.ranks:
            self.pos[op.red][r] += 1
        for r in op.ranks:
            q, i = self.queues[op.red][r], self.pos[op.red][r]
            if i < len(q):
                self._push(q[i])

    def _ready(self, op: _Op) -> float:
        return max(self.done[op.red][r] for r in op.ranks)

    def _execute(self, op: _Op, ready: float) -> bool:
        """Time the op's messages; False when a killed process stops the reduction here."""
        s, prm, sched = self.s, self.s.params, self.scheds[op.red]
        start = max([ready] + [self.tx[t.src] for t in op.transfers] + [self.rx[t.dst] for t in op.transfers])
        ends: dict[int, float] = dict.fromkeys(op.ranks, start)
        timed = []
        for t in op.transfers:
            b = sched.nbytes(t, s.size)
            arrive = s.env.finish((t.src, t.dst), start, prm.alpha + b * prm.beta)
            reduced = s.env.finish((t.dst,), max(arrive, self.cpu[t.dst]), b * prm.gamma) if t.reduce else arrive
            ends[t.src] = max(ends[t.src], arrive)
            ends[t.dst] = max(ends[t.dst], reduced)
            timed.append((t, arrive, reduced, b))
        if s.kill is not None and s.kill[0] in op.ranks and s.kill[1] < ends[s.kill[0]]:
            self._fail(op, max(s.kill[1], start))
            return False
        for t, arrive, reduced, b in timed:
            if t.reduce:
                self.cpu[t.dst] = reduced
            self.tx[t.src] = max(self.tx[t.src], arrive)
            self.rx[t.dst] = max(self.rx[t.dst], arrive)
            self.messages += 1
            self.bytes += b
            self._record(op, t, start, reduced, b)
        for r, end in ends.items():
            self.done[op.red][r] = end
        return True

    def _fail(self, op: _Op, at: float) -> None:
        self.failed_at[op.red] = at
        if self.rec.on:
            dead = self.s.kill[0]
            others = [r for r in op.ranks if r != dead]
            changes = {rank_name(dead): "failed"} | {rank_name(r): "stuck" for r in others}
            self.rec.add(
                at,
                "fault",
                f"{rank_name(dead)} dies during its message: without fault tolerance the "
                "reduction cannot finish (MPI would abort or hang)",
                changes,
                src=self.s.node(dead),
            )

    def _record(self, op: _Op, t: Transfer, start: float, reduced: float, b: float) -> None:
        if not self.rec.on:
            return
        src, dst = rank_name(t.src), rank_name(t.dst)
        what = "reduces it" if t.reduce else "stores it"
        tag = f" (reduction {op.red})" if len(self.scheds) > 1 else ""
        self.rec.add(
            start,
            "send",
            f"round {op.round + 1}: {src} sends {mib(b)} to {dst}{tag}",
            {src: "sending", dst: "reducing"},
            self.s.node(t.src),
            self.s.node(t.dst),
        )
        last = self.pos[op.red][t.src] + 1 >= len(self.queues[op.red][t.src])
        changes = {src: "done" if last and t.src != self.scheds[op.red].root else "waiting", dst: "waiting"}
        self.rec.add(
            reduced,
            "reduce",
            f"{dst} has {src}'s data and {what}{tag}",
            changes,
            self.s.node(t.src),
            self.s.node(t.dst),
        )


def simulate_static(algo: str, reduction: ReductionRun, record: bool = True) -> tuple[Timeline, dict]:
    """Run a static reduction (``binomial``, ``mst`` or ``rabenseifner``); returns ``(timeline, figures)``.

    Every message is fixed in advance by the schedule (:mod:`vizcoll.reduction.static`): a message starts when
    both ends have finished their earlier messages, takes ``α + b·β`` times the larger slowdown of its ends, and
    the receiver reduces ``b`` bytes, so a slow or late process delays every process waiting on it. There is no
    fault tolerance (as in MPI): a process killed before it has done all its messages stops the reduction.

    Parameters
    ----------
    algo : str
        ``"binomial"``, ``"mst"`` or ``"rabenseifner"``.
    reduction : ReductionRun
        The processes, data, root, arrival order, node speeds, kill ``(rank, time)`` (fault locations belong to
        the task-based reduction), machine times and concurrent reductions of the run.
    record : bool
        Build the timeline's events.

    Returns
    -------
    tuple of (Timeline, dict)
        The timeline and the figures, with the keys of
        :func:`~vizcoll.reduction.task.simulate_task_reduction`'s (``tasks`` is empty, ``rounds`` counts the
        schedule's rounds, ``completed`` is False when a kill stopped the reduction).

    Raises
    ------
    SpecError
        For an unknown algorithm, a fault location as ``kill``, or a bad parameter.

    References
    ----------
    [THAKUR05] Rajeev Thakur, Rolf Rabenseifner, William Gropp, "Optimization of collective communication operations
    in MPICH", International Journal of High Performance Computing Applications, 19(1): 49–66, 2005, DOI
    [10.1177/1094342005051521](https://doi.org/10.1177/1094342005051521). Binomial and Rabenseifner's reduce.

    [CHAN07] Ernie Chan, Marcel Heimlich, Avi Purkayastha, Robert van de Geijn, "Collective communication: theory,
    practice, and experience", Concurrency and Computation: Practice and Experience, 19(13): 1749–1783, 2007, DOI
    [10.1002/cpe.1206](https://doi.org/10.1002/cpe.1206). The MST reduce.

    [FTRED18] Li Chao, Zhao Changhai, Yan Haihua, Liu Chao, Wen Jiamin, Wang Zengbo, "A fault tolerant
    high-performance reduction framework in complex environment", Journal of Beijing University of Aeronautics and
    Astronautics, 44(10): 2115–2124, 2018, DOI
    [10.13700/j.bh.1001-5965.2017.0786](https://doi.org/10.13700/j.bh.1001-5965.2017.0786). Eq. 1 (the static
    algorithms it compares with).

    Examples
    --------
    >>> figures = simulate_static("rabenseifner", ReductionRun(6, 1 << 20), record=False)[1]
    >>> figures["completed"], figures["result_ok"], figures["rounds"]
    (True, True, 5)
    """
    if isinstance(reduction.kill, str):
        raise SpecError("fault locations apply to the task-based reduction; kill a static one with (rank, time)")
    setup = make_setup(reduction)
    scheds = [schedule(algo, setup.procs, r) for r in setup.roots]
    rec = Recorder(record)
    run = _StaticRun(setup, scheds, rec)
    run.run()
    return _finish(algo, setup, scheds, run, rec)


def _finish(algo: str, setup: RunSetup, scheds: list[Schedule], run: _StaticRun, rec: Recorder):
    times, oks = [], []
    for red, sched in enumerate(scheds):
        if run.failed_at[red] is None:
            times.append(float(run.done[red][sched.root]))  # numpy -> float
            oks.append(setup.data[red].check(_apply_data(sched, setup, red)))
        else:
            times.append(float(run.failed_at[red]))
            oks.append(False)
    completed = all(f is None for f in run.failed_at)
    end = float(max(times))
    if rec.on and completed:
        roots = {rank_name(r): "result" for r in setup.roots}
        rec.add(end, "note", f"{algo} reduction complete: the root holds the result after {end * 1e3:.3g} ms", roots)
    fault = None
    if setup.kill is not None:
        fault = {
            "rank": setup.kill[0],
            "time": setup.kill[1],
            "location": None if completed else "static",
            "detected_at": None,
            "remote_replica_at": None,
        }
    figures = {
        "algo": algo,
        "procs": setup.procs,
        "size": setup.size,
        "root": setup.roots[0],
        "reductions": len(scheds),
        "time": end,
        "times": times,
        "model_time": static_cost(algo, setup.procs, setup.size, setup.params),
        "messages": run.messages,
        "data_messages": run.messages,
        "control_messages": 0,
        "bytes": run.bytes,
        "rounds": len(scheds[0].rounds),
        "result_ok": completed and all(oks),
        "completed": completed,
        "recovered": False,
        "unrecoverable": not completed,
        "fault": fault,
        "tasks": [],
        "result_at": list(setup.roots),
    }
    initial = {rank_name(r): "waiting" for r in range(setup.procs)}
    initial.update({rank_name(r): "root" for r in setup.roots})
    timeline = Timeline(
        title=f"{algo} reduction of {mib(setup.size)} over {setup.procs} processes",
        intro=(
            f"A static {algo} reduction: every message is fixed in advance, so a process waits for its "
            "partner even when the partner is slow."
        ),
        initial_state=initial,
        events=rec.sorted(),
        entities={rank_name(r): {"node": setup.node(r), "kind": "worker"} for r in range(setup.procs)},
        legend=dict(STATIC_LEGEND),
        summary=figures,
    )
    return timeline, figures


def _wrapper(entry: StaticReduction) -> Callable[..., tuple[Timeline, dict]]:
    def simulate(reduction: ReductionRun, record: bool = True) -> tuple[Timeline, dict]:
        return simulate_static(entry.name, reduction, record)

    simulate.__name__ = simulate.__qualname__ = f"simulate_{entry.name}"
    simulate.__doc__ = f"{entry.help}; returns ``(timeline, figures)``, see :func:`simulate_static`."
    return simulate


# the built-in algorithms' own entry points (any registered one runs through simulate_static)
simulate_binomial = _wrapper(BINOMIAL)
simulate_mst = _wrapper(MST)
simulate_rabenseifner = _wrapper(RABENSEIFNER)
