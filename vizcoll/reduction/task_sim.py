"""The event handlers of the task-based reduction, on the shared event core :mod:`vizcoll.sim.engine`.

:class:`TaskRun` is one simulation (one or several concurrent reductions on the
same processes): every step of the model described in
:mod:`vizcoll.reduction.task` is one small handler that the engine calls at its
time (``Engine.at``: events at equal times run in the order they were
scheduled, FIFO).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from vizcoll.reduction.common import Recorder, RunSetup, mib, rank_name
from vizcoll.reduction.task_state import QUEUE_SHOWN, Msg, RedState, Task, initial_counters, path_text
from vizcoll.sim.engine import Engine

__all__ = ["TaskRun"]


def _ms(seconds: float) -> str:
    return f"{float(seconds) * 1e3:,.2f} ms"


class TaskRun:
    """One simulation of the task-based reduction (possibly several concurrent instances)."""

    def __init__(self, setup: RunSetup, record: bool = True, counters: str | Mapping[int, float] | None = None):
        self.s, self.rec = setup, Recorder(record)
        self.p, self.n = setup.procs, float(setup.size)
        self.engine = Engine()  # the clock and the event heap
        self.reds = [RedState(c, r) for c, r in enumerate(setup.roots)]
        self.tx = np.zeros(self.p)  # full duplex links: sending and receiving do not wait for each other
        self.rx = np.zeros(self.p)
        self.cpu = np.zeros(self.p)
        self.perf: dict[int, float] = initial_counters(setup, counters)
        self.master_free = 0.0
        self.death = {setup.kill[0]: setup.kill[1]} if setup.kill else {}
        self.known_failed: set[int] = set()
        self.detected_at: float | None = None
        self.formed: list[dict] = []
        self.all_tasks: list[Task] = []
        self.counts = dict.fromkeys(("received", "sent", "fetches", "replicas"), 0)
        self.requested: str | None = None  # the fault location asked for, if any (vizcoll.reduction.task)
        self.after_copy: bool | None = None  # ... and whether its kill could be placed after the victim's copy
        self.flying: set[Msg] = set()
        self.busy = np.zeros(self.p, dtype=int)  # tasks sent to each worker and not finished

    # ------------------------------------------------------------------ running
    @property
    def now(self) -> float:
        """The simulated time (the engine's clock)."""
        return self.engine.now

    def run(self) -> TaskRun:
        """Simulate until nothing is left to do (the calls to reduce, the kill and its detection start it)."""
        for r in range(self.p):
            for red in self.reds:
                self.engine.at(float(self.s.call[r]), self._call, red, r)
        if self.s.kill:
            rank, t = self.s.kill
            self.engine.at(t, self._die, rank)
            period, timeout = self.s.params.ping_period, self.s.params.ping_timeout
            self.detected_at = math.ceil(t / period) * period + timeout
            self.engine.at(self.detected_at, self._detect, rank)
        self.engine.run()
        return self

    def alive(self, rank: int, t: float | None = None) -> bool:
        """True when ``rank`` has not died by time ``t`` (default: now)."""
        return self.death.get(rank, math.inf) > (self.now if t is None else t)

    def qkey(self, red: RedState) -> str:
        """Timeline key of a queue: ``Q`` (one reduction) or ``Q0``, ``Q1``, ..."""
        return "Q" if len(self.reds) == 1 else f"Q{red.idx}"

    def qtext(self, red: RedState) -> str:
        """The queue's contents as a caption string."""
        items = [f"w{m.sender}{path_text(m.path)}{'!' if m.flagged else ''}" for m in list(red.queue)[:QUEUE_SHOWN]]
        if len(red.queue) > QUEUE_SHOWN:
            items.append(f"… +{len(red.queue) - QUEUE_SHOWN} more")
        return " ".join(items) if items else "(empty)"

    def note(
        self, kind: str, label: str, changes: dict | None = None, src: int = -1, dst: int = -1, t: float | None = None
    ) -> None:
        """Record an event now (or at ``t``); a dead worker's state stays "failed"."""
        node, t = self.s.node, self.now if t is None else t
        if changes and self.death:
            for rank, died in self.death.items():
                if t >= died and changes.get(rank_name(rank), "failed") != "failed":
                    del changes[rank_name(rank)]
        self.rec.add(t, kind, label, changes, node(src) if src >= 0 else -1, node(dst) if dst >= 0 else -1)

    def live(self, red: RedState) -> bool:
        return red.end is None and not red.failed

    # ------------------------------------------------------------------ step 1: call and replicas
    def _call(self, red: RedState, r: int) -> None:
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
            self.engine.at(red.remote_sent[r], self._replicated, red, r)
        self._send(Msg(red.idx, r, frozenset((r,))), "calls reduce")

    def _replicated(self, red: RedState, r: int) -> None:
        if self.rec.on and self.live(red):
            nb = (r + 1) % self.p
            self.note(
                "replica",
                f"w{r}'s original data has reached w{nb}, which writes it to its disk: w{r} may fail safely now",
                src=r,
                dst=nb,
            )

    def _send(self, msg: Msg, why: str) -> None:
        msg.sent_at = self.now
        red = self.reds[msg.red]
        self.flying.add(msg)
        if self.rec.on:
            self.note(
                "send",
                f"w{msg.sender} {why} and tells the master: (w{msg.sender}, {path_text(msg.path)})",
                {rank_name(msg.sender): "ready"},
                src=msg.sender,
            )
        self.engine.at(self.now + self.s.params.theta, self._master_receive, red, msg)

    # ------------------------------------------------------------------ steps 2-4: master and scheduler
    def _master_receive(self, red: RedState, msg: Msg) -> None:
        self.counts["received"] += 1
        start = max(self.now, self.master_free)
        self.master_free = start + self.s.params.lam
        self.engine.at(self.master_free, self._enqueue, red, msg)

    def _enqueue(self, red: RedState, msg: Msg) -> None:
        self.flying.discard(msg)
        if not self.live(red):
            return
        if len(msg.path) == self.p:
            self._complete(red, msg)
            return
        red.queue.append(msg)
        if self.rec.on:
            self.note(
                "arrive",
                f"the master queues w{msg.sender}'s message {path_text(msg.path)}",
                {self.qkey(red): self.qtext(red), "master": "waiting"},
                dst=msg.sender,
            )
        self._schedule(red)

    def _schedule(self, red: RedState) -> None:
        while self.live(red) and len(red.queue) >= 2:
            m1, m2 = red.queue.popleft(), red.queue.popleft()
            self._form(red, m1, m2)

    def _assign(self, red: RedState, m1: Msg, m2: Msg) -> tuple[int, str]:
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

    def _form(self, red: RedState, m1: Msg, m2: Msg) -> None:
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
            self.note(
                "task",
                f"S pairs ({i},{j}) → {assignee} ({why}): w{assignee} will fetch w{other.sender}'s data",
                {self.qkey(red): self.qtext(red), rank_name(assignee): "task", "master": "scheduling"},
                dst=assignee,
            )
        self.engine.at(self.now + self.s.params.theta, self._task_arrive, task)

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
            self.engine.at(max(self.death[holder], start), self._fetch_failed, task)
        elif self.alive(me, end):
            self.engine.at(end, self._fetched, task)

    def _note_fetch(self, task: Task, holder: int) -> None:
        me, other = task.assignee, task.other.sender
        what = f"w{other}'s original data from " + ("its own disk" if holder == me else f"w{holder}'s disk")
        if not task.other.flagged:
            what = f"w{other}'s data {path_text(task.other.path)}"
        if task.mine.flagged:
            what += " and its own original data from its local disk"
        changes = {rank_name(me): "recovering" if task.mine.flagged or task.other.flagged else "fetching"}
        if holder == other and self.alive(holder, task.fetch_start):
            changes[rank_name(holder)] = "serving"
        self.note(
            "fetch",
            f"w{me} reads {what} (one-sided get, {mib(self.n)})",
            changes,
            src=holder,
            dst=me,
            t=task.fetch_start,
        )

    def _fetch_failed(self, task: Task) -> None:
        if self.rec.on and not task.aborted:
            me, dead = task.assignee, task.source
            self.note(
                "fail",
                f"w{me}'s read from w{dead} fails: w{dead} does not answer; w{me} waits for the master",
                src=dead,
                dst=me,
            )

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
            self.engine.at(end, self._reduced, task)

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
            self.note(
                "reduce",
                f"w{me} reduced {path_text(task.mine.path)} with {path_text(task.other.path)} "
                f"→ {path_text(path)} in {self.perf[me] * 1e3:.3g} ms",
                dst=me,
            )
        self._send(Msg(red.idx, me, path, depth=1 + max(task.mine.depth, task.other.depth)), "finished its task")

    # ------------------------------------------------------------------ the end
    def _complete(self, red: RedState, msg: Msg) -> None:
        prm = self.s.params
        red.result_at, red.result, red.depth = msg.sender, red.mem.get(msg.sender), msg.depth
        red.end = self.now + (self.p - 1).bit_length() * (prm.alpha + 4 * prm.beta)
        if self.rec.on:
            self.note(
                "note",
                f"w{msg.sender}'s message holds all {self.p} processes: the reduction is done and the "
                "master broadcasts 'done' (4 bytes)",
                {"master": "done", rank_name(msg.sender): "result", self.qkey(red): "(empty)"},
            )
            self.note(
                "note",
                f"every worker has the 'done' message: reduce() returns true (w{msg.sender} holds the result)",
                t=red.end,
            )

    def _lost(self, red: RedState, dead: int) -> str:
        """Why ``dead``'s original data has no surviving copy (the reason an unrecoverable reduction gives)."""
        died, nb = self.death[dead], (dead + 1) % self.p
        if dead not in red.called:
            return (
                f"w{dead} died at {_ms(died)}, before it called reduce (due at {_ms(self.s.call[dead])}): "
                f"its data was never copied, so no live worker holds it"
            )
        return (
            f"w{dead} died at {_ms(died)}, before the copy of its original data reached w{nb} (due at "
            f"{_ms(red.remote_sent[dead])}); its other copy, on w{dead}'s own disk, died with it: "
            f"no live worker holds w{dead}'s data"
        )

    def _fail_reduction(self, red: RedState, dead: int) -> None:
        prm = self.s.params
        red.failed, red.lost = True, self._lost(red, dead)
        red.end = self.now + (self.p - 1).bit_length() * (prm.alpha + 4 * prm.beta)
        for task in list(red.tasks.values()):
            task.aborted = True
            self._drop(red, task)
        if self.rec.on:
            changes = {rank_name(r): "aborted" for r in range(self.p) if self.alive(r)}
            changes.update({"master": "done", self.qkey(red): "(empty)"})
            label = f"{red.lost}, so this reduction cannot be recovered"
            self.note("unrecoverable", label, changes)
            self.note("note", label)  # the step's caption (a detection at the same time would hide the event's)

    # ------------------------------------------------------------------ faults
    def _die(self, rank: int) -> None:
        if self.rec.on and any(self.live(red) for red in self.reds):
            self.note(
                "fault",
                f"w{rank} dies (the master will notice at the next ping)",
                {rank_name(rank): "failed"},
                src=rank,
            )

    def _detect(self, rank: int) -> None:
        if not any(self.live(red) for red in self.reds):
            return
        self.known_failed.add(rank)
        if self.rec.on:
            self.note(
                "detect",
                f"w{rank} did not answer the master's ping within {self.s.params.ping_timeout * 1e3:g}"
                f" ms: w{rank} has failed, and every worker is told",
                {"master": "recovering"},
                src=rank,
            )
        for red in self.reds:
            if self.live(red):
                self._locate(red, rank)

    def _locate(self, red: RedState, dead: int) -> None:
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
            return self._fail_reduction(red, dead)
        if any(m.sender == dead and not m.flagged for m in red.queue) or self._in_flight(red, dead):
            if self.rec.on:
                self.note(
                    "note",
                    f"w{dead}'s message is in the master's queue: the scheduler will meet the failure "
                    "when it makes a task from it (fault location 1)",
                    {"master": "waiting"},
                )
            return None
        if self.rec.on:
            self.note(
                "note",
                f"w{dead}'s data had already been reduced into another worker's: this reduction is not affected",
                {"master": "waiting"},
            )
        return None

    def _in_flight(self, red: RedState, rank: int) -> bool:
        """True when a message of ``rank`` is on its way to the queue of ``red``."""
        return any(m.red == red.idx and m.sender == rank for m in self.flying)

    def _drop(self, red: RedState, task: Task) -> None:
        """Forget a finished or aborted task."""
        if red.tasks.pop(task.id, None) is not None:
            self.busy[task.assignee] -= 1

    def _abort_and_recover(self, red: RedState, task: Task, where: str, keep: Msg, lost: frozenset, dead: int) -> None:
        task.aborted = True
        self._drop(red, task)
        self._recover(red, where, keep, lost, dead)

    @staticmethod
    def _record_location(red: RedState, where: str) -> None:
        if red.location is None:
            red.location = where

    def _recover(self, red: RedState, where: str, keep: Msg, lost: frozenset, dead: int) -> None:
        """Recovery step 1 now; steps 2 and 3 follow, λ apart (the master's handling time)."""
        self._record_location(red, where)
        if not red.remote_sent.get(dead, math.inf) <= self.death[dead]:
            return self._fail_reduction(red, dead)
        red.recovered = True
        kind = {"sending-task": "1", "executing-task": "2", "fetching-data": "3"}[where]
        if self.rec.on:
            mp = "M = Mj, P = Pi" if kind in "12" else "M = Mi, P = Pj"
            self.note(
                "recover",
                f"recovery step 1: fault location {kind} ({where.replace('-', ' ')}): {mp}, "
                f"so M = w{keep.sender}'s message and P = {path_text(lost)}",
                {"master": "recovering"},
            )
        self.engine.at(self.now + self.s.params.lam, self._requeue, red, keep, lost)
        return None

    def _requeue(self, red: RedState, keep: Msg, lost: frozenset) -> None:
        if not self.live(red):
            return
        red.queue.append(keep)
        if self.rec.on:
            self.note(
                "recover",
                f"recovery step 2: w{keep.sender}'s message goes back into the queue",
                {self.qkey(red): self.qtext(red), rank_name(keep.sender): "ready"},
            )
        self.engine.at(self.now + self.s.params.lam, self._split, red, lost)

    def _split(self, red: RedState, lost: frozenset) -> None:
        if not self.live(red):
            return
        for k in sorted(lost):
            red.queue.append(Msg(red.idx, k, frozenset((k,)), flagged=True, sent_at=self.now))
        if self.rec.on:
            self.note(
                "recover",
                f"recovery step 3: P = {path_text(lost)} is split into {len(lost)} single-process "
                "messages with the fault-tolerance flag (! in the queue): their original data will be read "
                "from disk",
                {self.qkey(red): self.qtext(red), "master": "scheduling"},
            )
        self._schedule(red)
