"""The paper's task-parallel, fault-tolerant Master/Worker reduction as a discrete-event simulation.

**Reduction (steps 1–6).** Every worker Wi, when it calls reduce, sends the
reduction message ``(Wi, Pi = {i})`` to the master (θ). The master handles
messages one at a time (λ each) and puts them in the queue Q of their
reduction instance. The scheduler S takes two messages at a time and makes a
task ``(Wi, Pi, Wj, Pj)``, sent (θ) to one of the two:

1. if one of them is a *known failed* process: to the other (recovery step 4;
   an unflagged message of a failed process is fault location 1 instead);
2. else if one is the root: to the root (so the result ends on the root);
3. else if exactly one carries the fault-tolerance flag: to that one;
4. else to the one whose last task took less time (performance counters).
   *The paper is silent on ties, on processes without a finished task yet
   and on concurrent reductions:* an unknown counter counts as the mean of
   the known ones; with concurrent reductions a process's counter is
   multiplied by ``1 + its unfinished tasks`` (within one reduction a process
   whose message is in Q has none, so this is the paper's rule); a tie goes
   to the process with fewer unfinished tasks, then to the process of the
   second message, which gives the paper's Fig. 4: with arrival order
   0, 3, 1, 2 and root 1, tasks (0,3) → 3, (1,2) → 1, (1,3) → 1.

The worker reads the other's data with a one-sided get (a request and a reply:
``2α + n·β``; only the reader's speed matters, the other CPU takes no part,
while a two-sided MPI message is as slow as the slower end), reduces it with
the user's operation (``n·γ`` at its own speed) and sends ``(Wi, Pi ∪ Pj)``
back to S. When a message with all ``p`` processes reaches S the reduction is
done, and a 4-byte "done" is broadcast (``⌈log p⌉·(α + 4β)``).

**Fault tolerance (section 3).** When a worker calls reduce its original data
is copied to its local disk and to the disk of ``W(i+1) mod p`` (eq. 4, an image
in the source: the neighbour is the natural reading), asynchronously: the
copy reaches the neighbour ``α + n·β`` later (from then on a failure of Wi
cannot lose it) and is on its disk, readable, ``n·disk_beta`` after that.
The master pings every ``ping_period``; a process that died at ``T`` misses
the first ping at or after ``T`` and is declared failed ``ping_timeout``
later (every worker is told).
The master then locates the fault (Fig. 5; Wi got the task, Wj supplies data):

- ``sending-task`` (1): S finds Wi failed when sending it the task (Wi died
  before the task reached it, or its message is still waiting in Q);
- ``executing-task`` (2): Wi dies while executing the task;
- ``fetching-data`` (3): Wj dies while Wi is fetching its data.

and applies recovery steps 1–5 exactly: (1) for 1 or 2 ``M = Mj, P = Pi``, for
3 ``M = Mi, P = Pj``; (2) M goes back into Q; (3) P is split into single-process
messages ``(Pk, {Pk})`` with the fault-tolerance flag, put into Q; (4) the
scheduling rules above; (5) a worker handling a flagged process reads that
process's *original* data: its own local disk first, else the process's local
disk, else (failed process) the remote replica. Each step takes the master
λ, so a student can step through them.

A failure that hits nothing (the process's data was already reduced into
another's) needs no recovery. It is **unrecoverable** when the failed process's
original data is needed but it died before its copy reached the remote node
(or before it called reduce): the reduction ends with ``unrecoverable = True``.

*Also not in the paper (design choices):* the master itself never fails; the
replica traffic takes time but does not compete with the reduction for the
network; a failed root's data is recovered like any other and the result then
ends on a live worker (``result_at``); only one process is killed per run.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.reduction.common import Recorder, RunSetup, make_setup, mib, rank_name
from vizcoll.reduction.params import C1, ReductionParams
from vizcoll.reduction.static import task_cost
from vizcoll.sim.timeline import Timeline

__all__ = [
    "FAULT_LOCATIONS",
    "LOCATION_ALIASES",
    "TASK_LEGEND",
    "place_fault",
    "simulate_task_reduction",
    "task_figures",
    "task_run",
    "TaskRun",
]

FAULT_LOCATIONS = ("sending-task", "executing-task", "fetching-data")
QUEUE_SHOWN = 12
LOCATION_ALIASES = {"before-task": "sending-task", "after-result": "executing-task", "during-fetch": "fetching-data"}

TASK_LEGEND = {
    "computing": "busy with its own work, has not called reduce yet",
    "ready": "its data is ready: its message waits in the master's queue",
    "task": "received a task",
    "fetching": "reading the other process's data (one-sided get)",
    "serving": "its data is being read by another worker",
    "reducing": "applying the reduce operation",
    "idle": "its data has been reduced into another worker's",
    "recovering": "reading original data back from disk",
    "result": "holds the reduced result",
    "failed": "the process died",
    "aborted": "the reduction could not be recovered",
    "waiting": "the master waits for messages",
    "scheduling": "the master pairs messages into tasks",
    "done": "the reduction is finished",
}


@dataclass(eq=False)
class Msg:
    """A reduction message: its sender, path (processes folded into its data) and fault-tolerance flag."""

    red: int
    sender: int
    path: frozenset
    flagged: bool = False
    sent_at: float = 0.0
    depth: int = 0


@dataclass(eq=False)
class Task:
    """A reduction task ``(Wi, Pi, Wj, Pj)``: ``assignee`` (Wi) gets the data of ``other`` (Wj's message)."""

    id: int
    red: int
    assignee: int
    mine: Msg
    other: Msg
    sent: float
    received: float | None = None
    source: int = -1
    fetch_start: float | None = None
    fetch_end: float | None = None
    reduced: float | None = None
    aborted: bool = False
    own_ready: float = 0.0
    supplied: np.ndarray | None = None


@dataclass
class _Red:
    """State of one reduction instance."""

    idx: int
    root: int
    queue: deque = field(default_factory=deque)
    tasks: dict[int, Task] = field(default_factory=dict)
    mem: dict[int, np.ndarray] = field(default_factory=dict)
    called: set = field(default_factory=set)
    local_done: dict[int, float] = field(default_factory=dict)
    remote_sent: dict[int, float] = field(default_factory=dict)  # the copy has reached the neighbour
    remote_done: dict[int, float] = field(default_factory=dict)  # ... and is on its disk (readable)
    end: float | None = None
    failed: bool = False
    result_at: int | None = None
    result: np.ndarray | None = None
    location: str | None = None
    recovered: bool = False
    depth: int | None = None


def _counters(setup: RunSetup, counters: str | Mapping[int, float] | None) -> dict[int, float]:
    """The performance counters at the start of a run (see :func:`simulate_task_reduction`)."""
    if counters is None:
        return {}
    if isinstance(counters, str):
        if counters != "warm":
            raise SpecError(f"counters must be None, 'warm' or a mapping rank -> seconds, got {counters!r}")
        prm = setup.params
        one = 2 * prm.alpha + setup.size * (prm.beta + prm.gamma)
        return {r: one * setup.env.factor(r, 0.0) for r in range(setup.procs)}
    out = {}
    for rank, value in dict(counters).items():
        if not 0 <= int(rank) < setup.procs or not 0 <= float(value) < math.inf:
            raise SpecError(f"counter {rank!r}: {value!r} needs a rank in 0..{setup.procs - 1} and a time >= 0")
        out[int(rank)] = float(value)
    return out


def _path_text(path: frozenset) -> str:
    if len(path) <= 4:
        return "{" + ",".join(str(r) for r in sorted(path)) + "}"
    return "{" + f"{len(path)} processes" + "}"


class TaskRun:
    """One simulation of the task-based reduction (possibly several concurrent instances)."""

    def __init__(self, setup: RunSetup, record: bool = True, counters: str | Mapping[int, float] | None = None):
        self.s, self.rec = setup, Recorder(record)
        self.p, self.n = setup.procs, float(setup.size)
        self.now = 0.0
        self._heap: list = []
        self._seq = 0
        self.reds = [_Red(c, r) for c, r in enumerate(setup.roots)]
        self.tx = np.zeros(self.p)  # full duplex links: sending and receiving do not wait for each other
        self.rx = np.zeros(self.p)
        self.cpu = np.zeros(self.p)
        self.perf: dict[int, float] = _counters(setup, counters)
        self.master_free = 0.0
        self.death = {setup.kill[0]: setup.kill[1]} if setup.kill else {}
        self.known_failed: set[int] = set()
        self.detected_at: float | None = None
        self.formed: list[dict] = []
        self.all_tasks: list[Task] = []
        self.counts = dict.fromkeys(("received", "sent", "fetches", "replicas"), 0)
        self.requested: str | None = None
        self.flying: set[Msg] = set()
        self.busy = np.zeros(self.p, dtype=int)  # tasks sent to each worker and not finished

    # ------------------------------------------------------------------ event loop
    def at(self, t: float, fn: Callable, *args) -> None:
        """Run ``fn(*args)`` at simulated time ``t``."""
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, fn, args))

    def run(self) -> TaskRun:
        """Simulate until nothing is left to do."""
        for r in range(self.p):
            for red in self.reds:
                self.at(float(self.s.call[r]), self._call, red, r)
        if self.s.kill:
            rank, t = self.s.kill
            self.at(t, self._die, rank)
            period, timeout = self.s.params.ping_period, self.s.params.ping_timeout
            self.detected_at = math.ceil(t / period) * period + timeout
            self.at(self.detected_at, self._detect, rank)
        while self._heap:
            self.now, _, fn, args = heapq.heappop(self._heap)
            fn(*args)
        return self

    def alive(self, rank: int, t: float | None = None) -> bool:
        """True when ``rank`` has not died by time ``t`` (default: now)."""
        return self.death.get(rank, math.inf) > (self.now if t is None else t)

    def qkey(self, red: _Red) -> str:
        """Timeline key of a queue: ``Q`` (one reduction) or ``Q0``, ``Q1``, ..."""
        return "Q" if len(self.reds) == 1 else f"Q{red.idx}"

    def qtext(self, red: _Red) -> str:
        """The queue's contents as a caption string."""
        items = [f"w{m.sender}{_path_text(m.path)}{'!' if m.flagged else ''}" for m in list(red.queue)[:QUEUE_SHOWN]]
        if len(red.queue) > QUEUE_SHOWN:
            items.append(f"… +{len(red.queue) - QUEUE_SHOWN} more")
        return " ".join(items) if items else "(empty)"

    def note(self, kind: str, label: str, changes: dict | None = None, src: int = -1, dst: int = -1,
             t: float | None = None) -> None:
        """Record an event now (or at ``t``); a dead worker's state stays "failed"."""
        node, t = self.s.node, self.now if t is None else t
        if changes and self.death:
            for rank, died in self.death.items():
                if t >= died and changes.get(rank_name(rank), "failed") != "failed":
                    del changes[rank_name(rank)]
        self.rec.add(t, kind, label, changes, node(src) if src >= 0 else -1, node(dst) if dst >= 0 else -1)

    def live(self, red: _Red) -> bool:
        return red.end is None and not red.failed

    # ------------------------------------------------------------------ step 1: call and replicas
    def _call(self, red: _Red, r: int) -> None:
        if not self.alive(r):
            return
        prm, env = self.s.params, self.s.env
        red.called.add(r)
        red.mem[r] = self.s.data[red.idx].original(r)
        red.local_done[r] = env.finish((r,), self.now, self.n * prm.disk_beta)
        nb = (r + 1) % self.p
        red.remote_sent[r] = env.finish((r,), self.now, prm.alpha + self.n * prm.beta)
        red.remote_done[r] = env.finish((nb,), red.remote_sent[r], self.n * prm.disk_beta)
        self.counts["replicas"] += 1
        if self.alive(r, red.remote_sent[r]):
            self.at(red.remote_sent[r], self._replicated, red, r)
        self._send(Msg(red.idx, r, frozenset((r,))), "calls reduce")

    def _replicated(self, red: _Red, r: int) -> None:
        if self.rec.on and self.live(red):
            nb = (r + 1) % self.p
            self.note("replica", f"w{r}'s original data has reached w{nb}, which writes it to its disk: w{r} may "
                      "fail safely now", src=r, dst=nb)

    def _send(self, msg: Msg, why: str) -> None:
        msg.sent_at = self.now
        red = self.reds[msg.red]
        self.flying.add(msg)
        if self.rec.on:
            self.note("send", f"w{msg.sender} {why} and tells the master: (w{msg.sender}, {_path_text(msg.path)})",
                      {rank_name(msg.sender): "ready"}, src=msg.sender)
        self.at(self.now + self.s.params.theta, self._master_receive, red, msg)

    # ------------------------------------------------------------------ steps 2-4: master and scheduler
    def _master_receive(self, red: _Red, msg: Msg) -> None:
        self.counts["received"] += 1
        start = max(self.now, self.master_free)
        self.master_free = start + self.s.params.lam
        self.at(self.master_free, self._enqueue, red, msg)

    def _enqueue(self, red: _Red, msg: Msg) -> None:
        self.flying.discard(msg)
        if not self.live(red):
            return
        if len(msg.path) == self.p:
            self._complete(red, msg)
            return
        red.queue.append(msg)
        if self.rec.on:
            self.note("arrive", f"the master queues w{msg.sender}'s message {_path_text(msg.path)}",
                      {self.qkey(red): self.qtext(red), "master": "waiting"}, dst=msg.sender)
        self._schedule(red)

    def _schedule(self, red: _Red) -> None:
        while self.live(red) and len(red.queue) >= 2:
            m1, m2 = red.queue.popleft(), red.queue.popleft()
            self._form(red, m1, m2)

    def _assign(self, red: _Red, m1: Msg, m2: Msg) -> tuple[int, str]:
        """Step 4 (with recovery step 4): who gets the task, and why."""
        a, b = m1.sender, m2.sender
        if a in self.known_failed or b in self.known_failed:
            dead, other = (a, b) if a in self.known_failed else (b, a)
            return other, f"w{dead} has failed"
        if red.root in (a, b):
            return red.root, "the root"
        if m1.flagged != m2.flagged:
            return (a if m1.flagged else b), "it carries the fault-tolerance flag"
        ta, tb = self.perf.get(a), self.perf.get(b)
        if ta is None or tb is None:
            known = list(self.perf.values())
            guess = sum(known) / len(known) if known else 0.0
            ta, tb = (guess if ta is None else ta), (guess if tb is None else tb)
        ta, tb = ta * (1 + self.busy[a]), tb * (1 + self.busy[b])  # tasks at hand: concurrent reductions only
        if ta != tb:
            return (a, "faster last time") if ta < tb else (b, "faster last time")
        if self.busy[a] != self.busy[b]:
            return (a, "fewer tasks at hand") if self.busy[a] < self.busy[b] else (b, "fewer tasks at hand")
        return b, "as fast: the later message"

    def _form(self, red: _Red, m1: Msg, m2: Msg) -> None:
        for dead, other in ((m1, m2), (m2, m1)):
            if dead.sender in self.known_failed and not dead.flagged:
                self._recover(red, "sending-task", other, dead.path, dead.sender)
                return
        assignee, why = self._assign(red, m1, m2)
        mine, other = (m1, m2) if assignee == m1.sender else (m2, m1)
        task = Task(len(self.all_tasks), red.idx, assignee, mine, other, self.now)
        self.all_tasks.append(task)
        red.tasks[task.id] = task
        self.busy[assignee] += 1
        entry = {"pair": sorted((m1.sender, m2.sender)), "to": assignee}
        if len(self.reds) > 1:
            entry["reduction"] = red.idx
        self.formed.append(entry)
        self.counts["sent"] += 1
        if self.rec.on:
            i, j = entry["pair"]
            self.note("task", f"S pairs ({i},{j}) → {assignee} ({why}): w{assignee} will fetch w{other.sender}'s data",
                      {self.qkey(red): self.qtext(red), rank_name(assignee): "task", "master": "scheduling"},
                      dst=assignee)
        self.at(self.now + self.s.params.theta, self._task_arrive, task)

    # ------------------------------------------------------------------ step 5: the worker's task
    def _source(self, task: Task) -> tuple[int, float, float]:
        """Where the other data comes from (node), when it is available there, and the work to fetch it."""
        prm, other, me = self.s.params, task.other, task.assignee
        red = self.reds[task.red]
        if not other.flagged:
            return other.sender, self.now, 2 * prm.alpha + self.n * prm.beta
        if other.sender in self.known_failed:
            holder, ready = (other.sender + 1) % self.p, red.remote_done[other.sender]
        else:
            holder, ready = other.sender, red.local_done.get(other.sender, self.now)
        if holder == me:
            return holder, ready, self.n * prm.disk_beta
        return holder, ready, 2 * prm.alpha + self.n * (prm.beta + prm.disk_beta)

    def _task_arrive(self, task: Task) -> None:
        me = task.assignee
        if task.aborted or not self.alive(me):
            return
        task.received = self.now
        red, env, prm = self.reds[task.red], self.s.env, self.s.params
        if task.mine.flagged:
            start = max(self.now, red.local_done.get(me, self.now))
            task.own_ready = env.finish((me,), start, self.n * prm.disk_beta)
        else:
            task.own_ready = self.now
        holder, ready, work = self._source(task)
        local = holder == me
        start = max(self.now, ready, self.rx[me], self.now if local else self.tx[holder])
        end = env.finish((me,), start, work)  # one-sided: the holder's CPU takes no part
        if not local:
            self.rx[me], self.tx[holder] = end, end
        task.source, task.fetch_start, task.fetch_end = holder, start, end
        self.counts["fetches"] += 1
        if self.rec.on:
            self._note_fetch(task, holder)
        if holder != me and self.death.get(holder, math.inf) < end:
            self.at(max(self.death[holder], start), self._fetch_failed, task)
        elif self.alive(me, end):
            self.at(end, self._fetched, task)

    def _note_fetch(self, task: Task, holder: int) -> None:
        me, other = task.assignee, task.other.sender
        what = f"w{other}'s original data from " + ("its own disk" if holder == me else f"w{holder}'s disk")
        if not task.other.flagged:
            what = f"w{other}'s data {_path_text(task.other.path)}"
        if task.mine.flagged:
            what += " and its own original data from its local disk"
        changes = {rank_name(me): "recovering" if task.mine.flagged or task.other.flagged else "fetching"}
        if holder == other and self.alive(holder, task.fetch_start):
            changes[rank_name(holder)] = "serving"
        self.note("fetch", f"w{me} reads {what} (one-sided get, {mib(self.n)})", changes, src=holder, dst=me,
                  t=task.fetch_start)

    def _fetch_failed(self, task: Task) -> None:
        if self.rec.on and not task.aborted:
            me, dead = task.assignee, task.source
            self.note("fail", f"w{me}'s read from w{dead} fails: w{dead} does not answer; w{me} waits for the master",
                      src=dead, dst=me)

    def _fetched(self, task: Task) -> None:
        me = task.assignee
        if task.aborted or not self.alive(me):
            return
        red, data = self.reds[task.red], self.s.data[task.red]
        other = task.other
        task.supplied = data.original(other.sender) if other.flagged else red.mem[other.sender]
        start = max(self.now, task.own_ready, self.cpu[me])
        end = self.s.env.finish((me,), start, self.n * self.s.params.gamma)
        self.cpu[me] = end
        if self.rec.on:
            changes = {rank_name(me): "reducing"}
            if task.source == other.sender != me:
                changes[rank_name(other.sender)] = "idle"
            self.note("state", f"w{me} has the data and reduces it", changes, dst=me)
        if self.alive(me, end):
            self.at(end, self._reduced, task)

    def _reduced(self, task: Task) -> None:
        me, red = task.assignee, self.reds[task.red]
        if task.aborted or not self.live(red):
            return
        data = self.s.data[task.red]
        own = data.original(me) if task.mine.flagged else red.mem[me]
        red.mem[me] = data.combine(own, task.supplied)
        task.reduced = self.now
        self.perf[me] = self.now - task.received
        self._drop(red, task)
        path = task.mine.path | task.other.path
        if self.rec.on:
            self.note("reduce", f"w{me} reduced {_path_text(task.mine.path)} with {_path_text(task.other.path)} "
                      f"→ {_path_text(path)} in {self.perf[me] * 1e3:.3g} ms", dst=me)
        self._send(Msg(red.idx, me, path, depth=1 + max(task.mine.depth, task.other.depth)), "finished its task")

    # ------------------------------------------------------------------ the end
    def _complete(self, red: _Red, msg: Msg) -> None:
        prm = self.s.params
        red.result_at, red.result, red.depth = msg.sender, red.mem.get(msg.sender), msg.depth
        red.end = self.now + (self.p - 1).bit_length() * (prm.alpha + 4 * prm.beta)
        if self.rec.on:
            self.note("note", f"w{msg.sender}'s message holds all {self.p} processes: the reduction is done and the "
                      "master broadcasts 'done' (4 bytes)",
                      {"master": "done", rank_name(msg.sender): "result", self.qkey(red): "(empty)"})
            self.note("note", f"every worker has the 'done' message: reduce() returns true (w{msg.sender} holds the "
                      "result)", t=red.end)

    def _fail_reduction(self, red: _Red, label: str) -> None:
        prm = self.s.params
        red.failed = True
        red.end = self.now + (self.p - 1).bit_length() * (prm.alpha + 4 * prm.beta)
        for task in list(red.tasks.values()):
            task.aborted = True
            self._drop(red, task)
        if self.rec.on:
            changes = {rank_name(r): "aborted" for r in range(self.p) if self.alive(r)}
            changes.update({"master": "done", self.qkey(red): "(empty)"})
            self.note("unrecoverable", label, changes)

    # ------------------------------------------------------------------ faults
    def _die(self, rank: int) -> None:
        if self.rec.on and any(self.live(red) for red in self.reds):
            self.note("fail", f"w{rank} dies (the master will notice at the next ping)", {rank_name(rank): "failed"},
                      src=rank)

    def _detect(self, rank: int) -> None:
        if not any(self.live(red) for red in self.reds):
            return
        self.known_failed.add(rank)
        if self.rec.on:
            self.note("detect", f"w{rank} did not answer the master's ping within {self.s.params.ping_timeout * 1e3:g}"
                      f" ms: w{rank} has failed, and every worker is told", {"master": "recovering"}, src=rank)
        for red in self.reds:
            if self.live(red):
                self._locate(red, rank)

    def _locate(self, red: _Red, dead: int) -> None:
        """Find where the failed process is in S–Wi–Wj and start recovery (or say nothing is lost)."""
        t_dead = self.death[dead]
        for task in list(red.tasks.values()):
            if task.assignee == dead:
                where = "sending-task" if task.received is None else "executing-task"
                return self._abort_and_recover(red, task, where, task.other, task.mine.path, dead)
            supplier = task.source == dead or (task.fetch_start is None and task.other.sender == dead)
            if supplier and (task.fetch_end is None or task.fetch_end > t_dead):
                return self._abort_and_recover(red, task, "fetching-data", task.mine, task.other.path, dead)
        if dead not in red.called:
            self._record_location(red, "before-call")
            return self._fail_reduction(red, f"w{dead} died before it called reduce: its data never left it, so "
                                        "this reduction cannot be recovered")
        if any(m.sender == dead and not m.flagged for m in red.queue) or self._in_flight(red, dead):
            if self.rec.on:
                self.note("note", f"w{dead}'s message is in the master's queue: the scheduler will meet the failure "
                          "when it makes a task from it (fault location 1)", {"master": "waiting"})
            return None
        if self.rec.on:
            self.note("note", f"w{dead}'s data had already been reduced into another worker's: this reduction "
                      "is not affected", {"master": "waiting"})
        return None

    def _in_flight(self, red: _Red, rank: int) -> bool:
        """True when a message of ``rank`` is on its way to the queue of ``red``."""
        return any(m.red == red.idx and m.sender == rank for m in self.flying)

    def _drop(self, red: _Red, task: Task) -> None:
        """Forget a finished or aborted task."""
        if red.tasks.pop(task.id, None) is not None:
            self.busy[task.assignee] -= 1

    def _abort_and_recover(self, red: _Red, task: Task, where: str, keep: Msg, lost: frozenset, dead: int) -> None:
        task.aborted = True
        self._drop(red, task)
        self._recover(red, where, keep, lost, dead)

    @staticmethod
    def _record_location(red: _Red, where: str) -> None:
        if red.location is None:
            red.location = where

    def _recover(self, red: _Red, where: str, keep: Msg, lost: frozenset, dead: int) -> None:
        """Recovery step 1 now; steps 2 and 3 follow, λ apart (the master's handling time)."""
        self._record_location(red, where)
        if not red.remote_sent.get(dead, math.inf) <= self.death[dead]:
            return self._fail_reduction(red, f"w{dead} died before its data was replicated on w{(dead + 1) % self.p}: "
                                        "this reduction cannot be recovered")
        red.recovered = True
        kind = {"sending-task": "1", "executing-task": "2", "fetching-data": "3"}[where]
        if self.rec.on:
            mp = "M = Mj, P = Pi" if kind in "12" else "M = Mi, P = Pj"
            self.note("recover", f"recovery step 1: fault location {kind} ({where.replace('-', ' ')}): {mp}, "
                      f"so M = w{keep.sender}'s message and P = {_path_text(lost)}", {"master": "recovering"})
        self.at(self.now + self.s.params.lam, self._requeue, red, keep, lost)
        return None

    def _requeue(self, red: _Red, keep: Msg, lost: frozenset) -> None:
        if not self.live(red):
            return
        red.queue.append(keep)
        if self.rec.on:
            self.note("recover", f"recovery step 2: w{keep.sender}'s message goes back into the queue",
                      {self.qkey(red): self.qtext(red), rank_name(keep.sender): "ready"})
        self.at(self.now + self.s.params.lam, self._split, red, lost)

    def _split(self, red: _Red, lost: frozenset) -> None:
        if not self.live(red):
            return
        for k in sorted(lost):
            red.queue.append(Msg(red.idx, k, frozenset((k,)), flagged=True, sent_at=self.now))
        if self.rec.on:
            self.note("recover", f"recovery step 3: P = {_path_text(lost)} is split into {len(lost)} single-process "
                      "messages with the fault-tolerance flag (! in the queue): their original data will be read "
                      "from disk", {self.qkey(red): self.qtext(red), "master": "scheduling"})
        self._schedule(red)


# ---------------------------------------------------------------------- placing a fault at a named location
def _windows(run: TaskRun, location: str) -> list[tuple[int, float, float, float]]:
    """Candidate kills for ``location`` in a fault-free run: (victim, window start, window end, time the
    victim's copy reaches its neighbour)."""
    out = []
    red = run.reds[0]
    for task in run.all_tasks:
        if task.red != 0 or task.reduced is None:
            continue
        if location == "fetching-data":
            victim, a, b = task.other.sender, task.fetch_start, task.fetch_end
        elif location == "executing-task":
            victim, a, b = task.assignee, task.received, task.reduced
        else:
            victim, a, b = task.assignee, task.mine.sent_at, task.sent
        if victim != red.root and b > a:
            out.append((victim, a, b, red.remote_sent[victim]))
    return out


def place_fault(location: str, setup_args: dict, counters: str | Mapping[int, float] | None = None
                ) -> tuple[int, float]:
    """``(rank, time)`` of a kill that lands in ``location``: the first task (not on the root) whose
    window for that location ends after the victim's remote replica exists (a recoverable fault),
    killed in the middle of what is left of the window; if none does, the last window (unrecoverable)."""
    location = LOCATION_ALIASES.get(location, location)
    if location not in FAULT_LOCATIONS:
        names = ", ".join(FAULT_LOCATIONS + tuple(LOCATION_ALIASES))
        raise SpecError(f"unknown fault location {location!r}; choose (rank, time) or one of {names}")
    args = dict(setup_args, kill=None)
    run = TaskRun(make_setup(**args), record=False, counters=counters).run()
    windows = _windows(run, location)
    if not windows:
        raise SpecError(f"no task of this run has a {location} window away from the root (too few processes?)")
    for victim, a, b, replica in windows:
        if b > replica:
            lo = max(a, replica)
            return victim, lo + (b - lo) / 2
    victim, a, b, _ = windows[-1]
    return victim, a + (b - a) / 2


# ---------------------------------------------------------------------- public entry points
def task_run(procs: int, size: int, root: int = 0, arrival: Sequence[int] | None = None,
             speeds: Sequence[float] | None = None, slow: Iterable = (), interference: Iterable = (),
             kill: tuple[int, float] | str | None = None, seed: int = 0, op: str | Callable = "sum",
             params: ReductionParams = C1, concurrent: int = 1, nodes: Sequence[int] | None = None,
             record: bool = True, counters: str | Mapping[int, float] | None = None) -> TaskRun:
    """Run the simulation and return the :class:`TaskRun` itself (arguments of :func:`simulate_task_reduction`)."""
    args = dict(procs=procs, size=size, root=root, arrival=arrival, speeds=speeds, slow=list(slow),
                interference=list(interference), seed=seed, op=op, params=params, concurrent=concurrent,
                nodes=nodes)
    requested = None
    if isinstance(kill, str):
        requested = LOCATION_ALIASES.get(kill, kill)
        kill = place_fault(kill, args, counters)
    run = TaskRun(make_setup(**args, kill=kill), record=record, counters=counters)
    run.requested = requested
    return run.run()


def simulate_task_reduction(procs: int, size: int, root: int = 0, arrival: Sequence[int] | None = None,
                            speeds: Sequence[float] | None = None, slow: Iterable = (), interference: Iterable = (),
                            kill: tuple[int, float] | str | None = None, seed: int = 0,
                            op: str | Callable = "sum", params: ReductionParams = C1, concurrent: int = 1,
                            nodes: Sequence[int] | None = None, record: bool = True,
                            counters: str | Mapping[int, float] | None = None) -> tuple[Timeline, dict]:
    """Simulate the task-based reduction; returns ``(timeline, figures)``.

    Parameters
    ----------
    procs, size : int
        Number of worker processes (2..4096) and bytes each one reduces.
    root : int
        Rank that receives the result (instance ``c`` of concurrent reductions uses ``root + c``).
    arrival : sequence of int, optional
        Order in which processes call reduce (others follow in rank order),
        ``params.arrival_gap`` apart.
    speeds : sequence of float, optional
        Relative speed of every process (1 = nominal, 0.5 = twice as slow).
    slow : iterable of (rank, factor)
        Processes slowed by ``factor`` for the whole run (CPU and network).
    interference : iterable of (rank, start, end, factor)
        Episodes during which a process is slowed by ``factor``.
    kill : (rank, time) or str, optional
        Kill ``rank`` at ``time`` (s), or a fault location: ``sending-task``,
        ``executing-task``, ``fetching-data`` (aliases ``before-task``,
        ``after-result``, ``during-fetch``) placed by :func:`place_fault`.
    seed : int
        Seed of the input data.
    op : str or callable
        ``sum``, ``prod``, ``max``, ``min`` or a commutative, associative ``op(a, b) -> array``.
    params : ReductionParams
        Machine times (default: the calibrated cluster C1).
    concurrent : int
        Number of reductions running at once on the same processes.
    nodes : sequence of int, optional
        Topology node of each process (timeline entities are drawn there); the master sits on process 0's node.
    record : bool
        Build the timeline's events (False: only the figures, much faster).
    counters : "warm", mapping or None
        The performance counters at the start: None (no task done yet),
        ``"warm"`` (each process has just done one task at its speed at time
        0, as when reductions follow one another) or ``{rank: seconds}``.

    Returns
    -------
    (Timeline, dict)
        The replayable timeline and the figures: ``time`` (s, until the "done"
        broadcast or the failure report); ``messages`` (reduction messages,
        tasks and one-sided gets; pings, replica copies and the final broadcast
        are not counted), ``master_received``, ``master_sent``; ``result_ok``
        (the result equals the direct reduction of all inputs), ``completed``,
        ``recovered`` (a failure hit the reduction and was repaired),
        ``unrecoverable``; ``tasks`` (``{"pair": [i, j], "to": w}`` in formation
        order); ``fault`` (``rank``, ``time``, ``location``, ``detected_at``,
        ``remote_replica_at``); ``result_at``; ``rounds`` (height of the tree
        the tasks built); ``model_time`` (reconstructed eq. 3).
    """
    run = task_run(procs, size, root, arrival, speeds, slow, interference, kill, seed, op, params, concurrent,
                   nodes, record, counters)
    figures = task_figures(run)
    return _timeline(run, figures), figures


def task_figures(run: TaskRun) -> dict:
    """The figures of a finished :class:`TaskRun`."""
    s = run.s
    completed = all(not red.failed for red in run.reds)
    oks = [not red.failed and s.data[red.idx].check(red.result) for red in run.reds]
    fault = None
    if s.kill:
        rank = s.kill[0]
        fault = {
            "rank": rank, "time": s.kill[1], "location": next((r.location for r in run.reds if r.location), None),
            "requested": getattr(run, "requested", None), "detected_at": run.detected_at,
            "remote_replica_at": _float(run.reds[0].remote_sent.get(rank)),
        }
    if any(red.end is None for red in run.reds):
        raise RuntimeError("a reduction neither finished nor failed (simulation bug)")
    control = run.counts["received"] + run.counts["sent"]
    return {
        "algo": "task", "procs": s.procs, "size": s.size, "root": s.roots[0], "reductions": len(run.reds),
        "time": float(max(red.end for red in run.reds)), "times": [float(red.end) for red in run.reds],
        "model_time": task_cost(s.procs, s.size, s.params),
        "messages": control + run.counts["fetches"], "data_messages": run.counts["fetches"],
        "control_messages": control, "master_received": run.counts["received"], "master_sent": run.counts["sent"],
        "bytes": run.counts["fetches"] * float(s.size), "rounds": run.reds[0].depth,
        "result_ok": completed and all(oks), "completed": completed,
        "recovered": completed and any(red.recovered for red in run.reds),
        "unrecoverable": not completed, "fault": fault, "tasks": list(run.formed),
        "result_at": [red.result_at for red in run.reds],
    }


def _float(value) -> float | None:
    return None if value is None else float(value)


def _timeline(run: TaskRun, figures: dict) -> Timeline:
    s = run.s
    events = run.rec.sorted()
    if run.rec.on:
        events = _with_pings(run, events, figures["time"])
    workers = {rank_name(r): {"node": s.node(r), "kind": "worker"} for r in range(s.procs)}
    entities = {"master": {"node": s.node(0), "kind": "master"}, **workers}
    initial = {"master": "waiting", **dict.fromkeys(workers, "computing")}
    for red in run.reds:
        entities[run.qkey(red)] = {"node": -1, "kind": "queue", "reduction": red.idx}
        initial[run.qkey(red)] = "(empty)"
    roots = ", ".join(f"w{r}" for r in s.roots)
    return Timeline(
        title=f"Task-based reduction of {mib(s.size)} over {s.procs} workers (root {roots})",
        intro=("Each worker tells the master when its data is ready; the master pairs ready workers into tasks, "
               "and one of the two fetches the other's data and reduces it. Slow workers never hold up the "
               "others, and a failed worker's data is rebuilt from its replicas."),
        initial_state=initial, events=events, entities=entities, legend=dict(TASK_LEGEND), summary=figures,
    )


def _with_pings(run: TaskRun, events: list, end: float) -> list:
    """Add one "ping" event per ping period up to ``end`` (at most 500), merged in time order."""
    period = run.s.params.ping_period
    pings = []
    for k in range(1, min(int(end / period), 500) + 1):
        t = k * period
        silent = [r for r, d in run.death.items() if d <= t]
        label = (f"the master pings all {run.s.procs} workers: "
                 + (", ".join(f"w{r}" for r in silent) + " does not answer" if silent else "all answer"))
        pings.append((t, label))
    if not pings:
        return events
    from vizcoll.sim.timeline import Event

    merged = events + [Event(t, "ping", label=label) for t, label in pings]
    return sorted(merged, key=lambda e: e.t)
