"""LogGP timing of a schedule, as LogGOPSim computes it (Hoefler, Schneider, Lumsdaine, HPDC 2010).

One CPU and one NIC per host unless operations name others (``cpu`` /
``nic``). For a message of ``n`` bytes:

- a **send** starts when its dependencies allow, the CPU and the sending NIC
  are free; the CPU is then busy ``o + (n-1)·O``, the NIC ``g + (n-1)·G``, and
  the message reaches the receiver at ``start + o + L``;
- the receiver **handles** an arrived message when its CPU and receiving NIC
  are free (whether or not a receive is posted: an unposted one waits in the
  unexpected queue): CPU busy ``o + max((n-1)·O, (n-1)·G)``, NIC ``g + (n-1)·G``;
- posting a **receive** costs nothing; it finishes when its message has been
  handled (at once if the message was already handled);
- ``calc N`` keeps the CPU busy ``N``;
- **eager** (``n <= S``): the send finishes once the CPU is free again;
  **rendezvous** (``n > S``): it finishes only when the receiver matches it,
  and the sender's CPU and NIC are then busy until that moment at least;
- a host finishes when its CPU is last free; the makespan is the latest host.

The event order is LogGOPSim's, on :class:`vizcoll.sim.engine.Engine`: events
by time, then by the order operations first became ready (a deferred operation
keeps its place); operations freed together queue sends, then receives, then
computations. Matching is MPI's: the first posted receive (or unexpected
message) whose source and tag fit, ``-1`` matching anything. Messages travel
without congestion (LogGOPSim without a network file).

References: [LOGGP95]; [LOGGOPSIM10] (keys: ``docs/papers.md``).

>>> from vizcoll.schedule.model import Schedule
>>> s = Schedule(2); a = s.send(0, 1, 1); b = s.recv(1, 0, 1)
>>> simulate(s, LogGP(L=1000, o=100, g=0, G=0, O=0)).finish
[100, 1200]
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from dataclasses import asdict, dataclass, field

from vizcoll.errors import SpecError
from vizcoll.schedule.model import ANY, Schedule
from vizcoll.sim.engine import Engine

__all__ = ["LogGP", "LogGPResult", "simulate", "MAX_EVENTS"]

MAX_EVENTS = 50_000_000
_TYPE_ORDER = {"send": 1, "recv": 2, "calc": 3}


@dataclass(frozen=True)
class LogGP:
    """The LogGP parameters (integers, nominally ns); the defaults are LogGOPSim's."""

    L: int = 2500
    o: int = 1500
    g: int = 1000
    G: int = 6
    O: int = 0  # noqa: E741 - the model's name
    S: int = 65535

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10**12:
                raise SpecError(f"LogGP parameter {name} must be a whole number from 0 to 10^12, got {value!r}")

    @classmethod
    def parse(cls, text: str) -> LogGP:
        """``"L=1000,o=100,g=0,G=0,O=0,S=65535"`` (any subset; the others keep LogGOPSim's defaults)."""
        values = {}
        for part in filter(None, (p.strip() for p in str(text).split(","))):
            match = re.fullmatch(r"([LogGOS])\s*=\s*([0-9]+)", part)
            if not match:
                raise SpecError(f"bad LogGP parameter {part!r}; write L=1000,o=100,g=0,G=0,O=0,S=65535")
            values[match[1]] = int(match[2])
        return cls(**values)


@dataclass
class LogGPResult:
    """Finishing time per rank, the makespan and the host reaching it, and what did not complete."""

    finish: list[int]
    unexpected: list[dict] = field(default_factory=list)
    unreceived: list[dict] = field(default_factory=list)
    not_run: list[int] = field(default_factory=list)
    trace: list[dict] = field(default_factory=list)

    @property
    def makespan(self) -> int:
        return max(self.finish, default=0)

    @property
    def host(self) -> int:
        """The first rank finishing at the makespan (LogGOPSim's "Maximum finishing time at host H")."""
        return self.finish.index(self.makespan) if self.finish else 0

    @property
    def complete(self) -> bool:
        return not (self.unexpected or self.unreceived or any(self.not_run))

    def to_dict(self, trace: bool = False) -> dict:
        out = {
            "makespan": self.makespan,
            "host": self.host,
            "finish": list(self.finish),
            "complete": self.complete,
            "unexpected": self.unexpected,
            "unreceived": self.unreceived,
            "not_run": {str(r): n for r, n in enumerate(self.not_run) if n},
        }
        if trace:
            out["trace"] = self.trace
        return out


def simulate(schedule: Schedule, params: LogGP | None = None, trace: bool = False) -> LogGPResult:
    """The LogGP timing of ``schedule`` (see the module docstring); ``trace`` records every operation."""
    run = _Run(schedule, params or LogGP(), trace)
    return run.result()


@dataclass
class _Elem:
    """An entry of the active queue: an operation of ``host`` (or a message in flight, ``kind`` = "msg")."""

    kind: str
    host: int
    index: int
    size: int
    peer: int
    tag: int
    cpu: int
    nic: int
    ts: int = 0
    start: int = 0  # a message: when its send started


class _Run:
    """One simulation; the state is LogGOPSim's: per host next free CPU / send NIC / receive NIC times, the
    posted receives and unexpected messages, and per operation its count of unmet dependencies."""

    def __init__(self, schedule: Schedule, p: LogGP, trace: bool) -> None:
        self.s, self.p, self.tracing = schedule, p, trace
        self._check_sizes()
        n = schedule.num_ranks
        cpus = 1 + max((op.cpu for ops in schedule.ops for op in ops), default=0)
        nics = 1 + max((op.nic for ops in schedule.ops for op in ops), default=0)
        self.nexto = [[0] * cpus for _ in range(n)]
        self.nextgs = [[0] * nics for _ in range(n)]
        self.nextgr = [[0] * nics for _ in range(n)]
        self.rq: list[list[_Elem]] = [[] for _ in range(n)]
        self.uq: list[list[_Elem]] = [[] for _ in range(n)]
        self.waiting = [[0] * len(ops) for ops in schedule.ops]
        self.on_done = [[[] for _ in ops] for ops in schedule.ops]
        self.on_start = [[[] for _ in ops] for ops in schedule.ops]
        for rank in range(n):
            for a, b in schedule.requires[rank]:
                self.on_done[rank][b].append(a)
                self.waiting[rank][a] += 1
            for a, b in schedule.irequires[rank]:
                self.on_start[rank][b].append(a)
                self.waiting[rank][a] += 1
        self.ready: list[deque[int]] = [deque(i for i, w in enumerate(ws) if w == 0) for ws in self.waiting]
        self.started = [[False] * len(ops) for ops in schedule.ops]
        self.engine = Engine()
        self.ts = itertools.count()
        self.trace: list[dict] = []
        self.touched: set[int] = set()

    def _check_sizes(self) -> None:
        if self.p.G or self.p.O:
            for rank, ops in enumerate(self.s.ops):
                if any(op.kind != "calc" and op.size == 0 for op in ops):
                    raise SpecError(
                        f"rank {rank} has a 0-byte message: LogGOPSim computes (n-1)·G and (n-1)·O "
                        "on unsigned integers, so 0-byte messages need G = O = 0"
                    )

    # ------------------------------------------------------------ the loop
    def result(self) -> LogGPResult:
        for host in range(self.s.num_ranks):
            self._issue(host, initial=True)
        self.engine.run(limit=MAX_EVENTS)
        finish = [max(cpus) for cpus in self.nexto]

        def left(queues):
            return [{"rank": h, "peer": e.peer, "tag": e.tag, "size": e.size} for h, q in enumerate(queues) for e in q]

        not_run = [sum(not started for started in ranks) for ranks in self.started]
        return LogGPResult(finish, left(self.uq), left(self.rq), not_run, self.trace)

    def _push(self, elem: _Elem, time: int) -> None:
        self.engine.at(time, self._dispatch, elem, priority=elem.ts)

    def _dispatch(self, elem: _Elem) -> None:
        self.touched = set()
        {"send": self._send, "recv": self._recv, "calc": self._calc, "msg": self._message}[elem.kind](elem)
        for host in sorted(self.touched):
            self._issue(host)

    def _issue(self, host: int, initial: bool = False) -> None:
        """Queue the host's newly ready operations: sends, then receives, then computations."""
        fresh = sorted(self.ready[host], key=lambda i: _TYPE_ORDER[self.s.ops[host][i].kind])
        self.ready[host].clear()
        for index in fresh:
            op = self.s.ops[host][index]
            elem = _Elem(op.kind, host, index, op.size, op.peer, op.tag, op.cpu, op.nic, ts=next(self.ts))
            time = 0 if initial else self.nexto[host][op.cpu]
            if op.kind == "send" and not initial:
                time = max(time, self.nextgs[host][op.nic])
            self._push(elem, time)

    # ------------------------------------------------------------ dependencies
    def _started(self, host: int, index: int) -> None:
        self.started[host][index] = True
        self._release(host, self.on_start[host][index])

    def _done(self, host: int, index: int) -> None:
        self._release(host, self.on_done[host][index])

    def _release(self, host: int, dependents: list[int]) -> None:
        self.touched.add(host)
        for a in dependents:
            self.waiting[host][a] -= 1
            if self.waiting[host][a] == 0:
                self.ready[host].append(a)

    # ------------------------------------------------------------ the four kinds of events
    def _calc(self, e: _Elem) -> None:
        t = self.engine.now
        if self.nexto[e.host][e.cpu] > t:
            self._push(e, self.nexto[e.host][e.cpu])
            return
        self.nexto[e.host][e.cpu] = t + e.size
        self._started(e.host, e.index)
        self._done(e.host, e.index)
        self._record(t, t + e.size, e.host, "calc", -1, e.size)

    def _send(self, e: _Elem) -> None:
        t, p = self.engine.now, self.p
        free = max(self.nexto[e.host][e.cpu], self.nextgs[e.host][e.nic])
        if free > t:
            self._push(e, free)
            return
        self._started(e.host, e.index)
        self.nexto[e.host][e.cpu] = t + p.o + (e.size - 1) * p.O
        self.nextgs[e.host][e.nic] = t + p.g + (e.size - 1) * p.G
        msg = _Elem("msg", e.peer, e.index, e.size, e.host, e.tag, e.cpu, e.nic, ts=next(self.ts), start=t)
        self._push(msg, t + p.o + p.L)
        if e.size <= p.S:
            self._done(e.host, e.index)
        self._record(t, self.nexto[e.host][e.cpu], e.host, "send", e.peer, e.size)

    def _recv(self, e: _Elem) -> None:
        t = self.engine.now
        self._started(e.host, e.index)
        msg = _match(e, self.uq[e.host])
        if msg is None:
            self.rq[e.host].append(e)
            return
        if e.size > self.p.S:
            self._rendezvous(msg.peer, msg.index, e.cpu, e.nic, t)
        self._done(e.host, e.index)
        self._record(t, t, e.host, "recv", msg.peer, msg.size)

    def _message(self, m: _Elem) -> None:
        t, p = self.engine.now, self.p
        if m.host >= self.s.num_ranks:
            return  # a send to a rank that does not exist: check() reports it
        free = max(self.nexto[m.host][m.cpu], self.nextgr[m.host][m.nic])
        if free > t:
            self._push(m, free)
            return
        self.nexto[m.host][m.cpu] = t + p.o + max((m.size - 1) * p.O, (m.size - 1) * p.G)
        self.nextgr[m.host][m.nic] = t + p.g + (m.size - 1) * p.G
        recv = _match(m, self.rq[m.host])
        if recv is None:
            self.uq[m.host].append(m)
        else:
            if m.size > p.S:
                self._rendezvous(m.peer, m.index, m.cpu, m.nic, t)
            self._done(m.host, recv.index)
        self._record(t, self.nexto[m.host][m.cpu], m.host, "recv", m.peer, m.size)

    def _rendezvous(self, sender: int, index: int, cpu: int, nic: int, t: int) -> None:
        """The matched rendezvous send finishes now; its host's CPU and NIC are busy until now at least."""
        self._done(sender, index)
        self.nexto[sender][cpu] = max(self.nexto[sender][cpu], t)
        self.nextgs[sender][nic] = max(self.nextgs[sender][nic], t)

    def _record(self, start: int, end: int, rank: int, kind: str, peer: int, size: int) -> None:
        if self.tracing:
            self.trace.append({"start": start, "end": end, "rank": rank, "kind": kind, "peer": peer, "size": size})


def _match(elem: _Elem, queue: list[_Elem]) -> _Elem | None:
    """Remove and return the first entry of ``queue`` whose source and tag fit ``elem`` (``-1`` fits all)."""
    for i, other in enumerate(queue):
        if _fits(elem.peer, other.peer) and _fits(elem.tag, other.tag):
            return queue.pop(i)
    return None


def _fits(a: int, b: int) -> bool:
    return a == b or ANY in (a, b)
