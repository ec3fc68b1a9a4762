"""The TREFT runtime of the paper (Fig. 5, Table 2) as a discrete-event simulation.

Each replica ``r`` (``r0``, ``r1``, ``r2``) has, on its host node, an
**executor** thread running the main program, a **worker** thread (queue
``wq``) managing kernel tasks, **subworker** threads (queue ``cq``), one per
subtask, and, in fault-tolerant mode, a **fault-tolerant monitor** thread
(queue ``fq``) per section; its kernels run on **device** nodes. Threads
exchange messages through the queues; a thread takes ``thread_op`` seconds to
pick a message up and ``thread_op`` to handle it.

A kernel call: the executor pushes ``run K`` into ``wq``; the worker pushes
one ``run K/j`` per subtask into ``cq``; each subworker fetches its part of
the inputs (lazy transfer: a request, then the data; eager transfer (E1):
the producer pushed the data as soon as it was computed) and runs the
subtask on the device; when every subtask is done the kernel's outputs are
computed (real numpy values). Outside a section the kernel then exits.

Inside a section (the numbered operations of the paper):

- ① at the start sync point the executor creates the monitor thread;
- ② a finished kernel reports to the worker and *blocks* instead of exiting;
- ③ the worker tells the monitor (``fq``);
- ④ when all kernels of the section are done the monitor sends **OPRS** to
  the other two monitors and waits for both replies (the replicas also
  learn where each other's live variables are);
- ⑤ the monitor pushes **OPTR** (detect and correct) into ``wq`` for each
  kernel with live variables;
- ⑥ the worker hands one check per subtask to the subworkers; each asks the
  other two replicas (and its own device) to send their copy of its part of
  the live variables to this replica's *check node* (the node bound to the
  replica, "指定副本程序绑定的节点"), whose RMK compares the three copies
  (hashes) and repairs its own copy when the two others agree against it
  (2-of-3 vote). A repaired value stays on the check node: the replica's
  global information list now points there, so later readers fetch it from
  there. With eager transfer a repaired value that had been sent early to a
  later reader is sent again (rule 4);
- ⑦ the subworkers return **OPTF** to the worker, which, once all subtasks are
  checked, passes OPTF to the monitor;
- ⑧ the monitors synchronise again with **OPRFS** (sharing their results);
- ⑨ the monitor pushes **OPET** for every kernel of the section: the kernels end;
- ⑩ the executor, which waited at the compare sync point for the section's
  kernels and then for the monitor thread, goes on.

Design choices where the paper is silent: every kernel runs on its own
device node (data between kernels crosses the network, which is what eager
transfer speeds up); OPRS and OPRFS are request/reply rounds (two latencies
each); OPET is one message to the device nodes; with eager transfer, data a
Write will bring into the main program is sent to the host only after its
section's check (rule 1), while data for later kernels is sent at once and
re-sent if repaired (rule 4).
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vizcoll.sim.timeline import Event
from vizcoll.sim.engine import Engine, Queue, Signal
from vizcoll.treft.network import CostModel, Network
from vizcoll.treft.program import KernelCall, Program, Serial, Write, execute
from vizcoll.treft.sections import Section

__all__ = ["CIRCLED", "OPERATIONS", "ROLES", "Fault", "Recorder", "Run", "Vote"]

CIRCLED = ("①", "②", "③", "④", "⑤", "⑥", "⑦", "⑧", "⑨", "⑩")
#: short name of each numbered operation
OPERATIONS = {1: "create-monitor", 2: "kernel-done", 3: "notify-monitor", 4: "OPRS", 5: "OPTR",
              6: "exchange-vote", 7: "OPTF", 8: "OPRFS", 9: "OPET", 10: "join"}
#: the entities drawn per replica: role -> (kind, where, description)
ROLES = {
    "executor": ("thread", "host", "Executor thread: runs the main program (AK)"),
    "worker": ("thread", "host", "Worker thread: starts kernel tasks, watches them, handles OPTR/OPET"),
    "subworker": ("thread", "host", "Subworker threads: one per subtask; fetch data, run and check subtasks"),
    "monitor": ("thread", "host", "Fault-tolerant monitor thread: syncs with the other replicas (OPRS, OPRFS)"),
    "device": ("thread", "device", "Executor threads on the device nodes: run the kernel subtasks"),
    "wq": ("queue", "host", "wq: the worker thread's event queue"),
    "cq": ("queue", "host", "cq: the subworker threads' event queue"),
    "fq": ("queue", "host", "fq: the fault-tolerant monitor's queue (messages from workers and other monitors)"),
    "data": ("data", "device", "The replica's data: are its live values correct?"),
}
BLOCKED = "blocked until OPET"
INITIAL = {"executor": "idle", "worker": "idle", "subworker": "idle", "monitor": "not started",
           "device": "idle", "wq": "empty", "cq": "empty", "fq": "empty", "data": "ok"}


@dataclass(frozen=True)
class Fault:
    """A soft error: one bit of ``var`` flips on ``replica``'s device right after ``kernel`` computes it."""

    replica: int
    kernel: str
    var: str


@dataclass(frozen=True)
class Vote:
    """The outcome of one 2-of-3 comparison, seen by ``replica`` for one part of ``var``.

    ``outcome``: ``"agree"``, ``"corrected"`` (own copy repaired), ``"majority"``
    (own copy agrees with one other; the third is wrong) or ``"no-majority"``.
    ``truth``: whether the value the replica holds afterwards is the fault-free one.
    """

    replica: int
    section: int
    kernel: str
    var: str
    part: int
    outcome: str
    truth: bool


@dataclass(eq=False)
class Msg:
    """A message in a queue (compared by identity)."""

    kind: str
    kernel: str | None = None
    part: int | None = None
    section: int | None = None
    sender: int | None = None
    payload: Any = None

    def __str__(self) -> str:
        text = self.kind
        if self.kernel is not None:
            text += f" {self.kernel}" + (f"/{self.part + 1}" if self.part is not None else "")
        if self.sender is not None:
            text += f" from r{self.sender}"
        return text


def _natural(name: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


def _short(names, limit: int = 3) -> str:
    names = sorted(names, key=_natural)
    text = ", ".join(names[:limit])
    return text + (f" (+{len(names) - limit} more)" if len(names) > limit else "")


def _plain(value):
    """A JSON-safe scalar: non-finite floats become strings."""
    return value if not isinstance(value, float) or np.isfinite(value) else str(value)


def _digest(values: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(values).tobytes(), digest_size=16).hexdigest()


def _parts(size: int, m: int) -> list[slice]:
    bounds = np.linspace(0, size, m + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


class Recorder:
    """Collects timeline events (only real state changes) and the numbered operations."""

    def __init__(self, engine: Engine, enabled: bool) -> None:
        self.engine = engine
        self.enabled = enabled
        self.state: dict[str, str] = {}
        self.events: list[Event] = []
        self.ops: list[dict] = []

    def emit(self, kind: str, label: str = "", changes: dict | None = None, src: int = -1, dst: int = -1) -> None:
        """One event now; unchanged states are dropped, an event with nothing left is skipped."""
        if not self.enabled:
            return
        changes = {k: v for k, v in (changes or {}).items() if self.state.get(k) != v}
        if not changes and not label:
            return
        self.state.update(changes)
        self.events.append(Event(self.engine.now, kind, src, dst, [], label, changes))

    def op(self, step: int, replica: int, label: str, *, section: int | None = None, kernel: str | None = None,
           changes: dict | None = None, kind: str = "state", dst: int = -1) -> None:
        """Numbered operation ``step`` (1..10) by ``replica``: an event labelled with its circled number."""
        if not self.enabled:
            return
        text = f"{CIRCLED[step - 1]} {label}"
        self.ops.append({"t": round(self.engine.now, 6), "step": step, "symbol": CIRCLED[step - 1],
                         "op": OPERATIONS[step], "replica": replica, "section": section, "kernel": kernel,
                         "label": text})
        self.emit(kind, text, changes, src=replica if kind == "send" else -1, dst=dst)


@dataclass
class _Replica:
    """Everything one replica owns while the simulation runs."""

    r: int
    wq: Queue
    cq: Queue
    fq: Queue
    store: dict[str, np.ndarray] = field(default_factory=dict)
    copies: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    arrivals: dict[tuple[str, str], Signal] = field(default_factory=dict)
    computed: dict[str, Signal] = field(default_factory=dict)
    ended: dict[str, Signal] = field(default_factory=dict)
    monitors: dict[int, Signal] = field(default_factory=dict)
    subtasks_left: dict[str, int] = field(default_factory=dict)
    checks: dict[str, list] = field(default_factory=dict)
    early: dict[str, set] = field(default_factory=dict)
    location: dict[str, str] = field(default_factory=dict)
    backlog: list[Msg] = field(default_factory=list)
    activity: dict[str, str] = field(default_factory=dict)
    device: dict[str, str] = field(default_factory=dict)
    #: what the data cell shows: variables wrong, and whether a vote repaired / could not repair one, as the
    #: timeline has told so far (a vote counts from its caption on, see ``Run._announce_votes``)
    wrong: set[str] = field(default_factory=set)
    position: int = 0
    corrected: bool = False
    unrecoverable: set[str] = field(default_factory=set)
    finish: float = 0.0

    def key(self, role: str) -> str:
        return f"r{self.r}.{role}"

    @property
    def host(self) -> str:
        return f"r{self.r}:host"

    def node(self, kernel: str) -> str:
        return f"r{self.r}:{kernel}"

    @property
    def check(self) -> str:
        """The node bound to this replica, whose RMK runs the 2-of-3 votes."""
        return f"r{self.r}:check"


class Run:
    """One simulated execution of ``program`` by ``replicas`` copies (fault tolerance on or off)."""

    def __init__(self, program: Program, sections: list[Section], cost: CostModel, golden: dict, *,
                 ft: bool, eager: bool, replicas: int = 3, faults: tuple[Fault, ...] = (), seed: int = 0,
                 record: bool = True) -> None:
        self.program, self.cost, self.golden = program, cost, golden
        self.ft, self.eager, self.faults, self.seed = ft, eager, faults, seed
        self.sections = sections if ft else []
        self.engine = Engine()
        self.net = Network(self.engine, cost)
        self.rec = Recorder(self.engine, record)
        self.section_of = {k: s for s in self.sections for k in s.kernels}
        self.section_live = {v for s in self.sections for v in s.live}
        self.votes: list[Vote] = []
        self.injected: list[dict] = []
        self.reps = [self._replica(r) for r in range(replicas)]

    # ------------------------------------------------------------ set-up and bookkeeping
    def _replica(self, r: int) -> _Replica:
        op = self.cost.thread_op
        queues = {name: Queue(self.engine, op) for name in ("wq", "cq", "fq")}
        rep = _Replica(r, **queues)
        for name, queue in queues.items():
            queue.on_change = self._queue_watcher(rep, name)
        for k in self.program.kernels:
            rep.computed[k], rep.ended[k] = self.engine.signal(), self.engine.signal()
        return rep

    def _queue_watcher(self, rep: _Replica, name: str) -> Callable[[Queue], None]:
        def changed(queue: Queue) -> None:
            items = queue.pending
            text = "empty" if not items else f"queue: {len(items)} item{'s' * (len(items) != 1)}: " + ", ".join(
                str(m) for m in items[:3]) + (" …" if len(items) > 3 else "")
            self.rec.emit("state", "", {rep.key(name): text})
        return changed

    def initial_state(self) -> dict[str, str]:
        return {rep.key(role): value for rep in self.reps for role, value in INITIAL.items()}

    def _set(self, rep: _Replica, role: str, value: str, label: str = "", kind: str = "state") -> None:
        self.rec.emit(kind, label, {rep.key(role): value})

    def _show_activity(self, rep: _Replica, role: str) -> dict[str, str]:
        table = rep.activity if role == "subworker" else rep.device
        texts = [t for t in dict.fromkeys(table.values()) if not t.endswith(BLOCKED)]
        blocked = [k for k, t in table.items() if t.endswith(BLOCKED)]
        if len(blocked) == 1:
            texts.append(table[blocked[0]])
        elif blocked:
            texts.append(f"{len(blocked)} kernels done, {BLOCKED}")
        value = "idle" if not texts else "; ".join(texts[:2]) + (f" (+{len(texts) - 2} more)" if len(texts) > 2 else "")
        return {rep.key(role): value}

    def _activity(self, rep: _Replica, role: str, kernel: str, text: str | None, label: str = "") -> None:
        table = rep.activity if role == "subworker" else rep.device
        if text is None:
            table.pop(kernel, None)
        else:
            table[kernel] = text
        self.rec.emit("state", label, self._show_activity(rep, role))

    def _needed(self, rep: _Replica, var: str) -> bool:
        return self.program.last_use[var] > rep.position or var in self.program.outputs

    def _still_wrong(self, rep: _Replica) -> list[str]:
        """The wrong variables the replica will still use (or has written out)."""
        return [v for v in rep.wrong if self._needed(rep, v)]

    def _data_state(self, rep: _Replica) -> str:
        bad = self._still_wrong(rep)
        if rep.unrecoverable:
            return "NO MAJORITY for " + _short(rep.unrecoverable)
        if bad:
            return "ERROR in " + _short(bad)
        return "corrected" if rep.corrected else "ok"

    def _refresh_truth(self, rep: _Replica, names) -> list[str]:
        """Re-check ``names`` against the fault-free run; returns the wrong ones."""
        for var in names:
            if np.array_equal(rep.store[var], self.golden[var]):
                rep.wrong.discard(var)
            else:
                rep.wrong.add(var)
        return [v for v in names if v in rep.wrong]

    def _node_of(self, rep: _Replica, var: str) -> str:
        if var in rep.location:
            return rep.location[var]
        stmt = self.program.statements[self.program.producer[var]]
        return rep.node(stmt.name) if isinstance(stmt, KernelCall) else rep.host

    def _consumer_node(self, rep: _Replica, index: int) -> str:
        stmt = self.program.statements[index]
        return rep.node(stmt.name) if isinstance(stmt, KernelCall) else rep.host

    def _arrival(self, rep: _Replica, node: str, var: str) -> Signal:
        key = (node, var)
        if key not in rep.arrivals:
            rep.arrivals[key] = self.engine.signal()
        return rep.arrivals[key]

    def _peers(self, rep: _Replica) -> list[_Replica]:
        return [q for q in self.reps if q is not rep]

    def _post(self, rep: _Replica, dst: _Replica, msg: Msg) -> None:
        """A control message from ``rep``'s monitor to ``dst``'s fq (after the network latency)."""
        def land() -> None:
            dst.fq.put(msg)
            what = msg.kind.replace("-ack", "") + (" reply" if msg.kind.endswith("-ack") else "")
            self.rec.emit("arrive", f"r{rep.r}'s {what} arrives in r{dst.r}'s fq", src=rep.r, dst=dst.r)
        self.engine.schedule(self.cost.latency, land)

    # ------------------------------------------------------------ running
    def run(self) -> float:
        """Simulate to the end; returns the completion time (the last executor to finish)."""
        for rep in self.reps:
            self.engine.start(self._executor(rep))
            self.engine.start(self._worker(rep))
        self.engine.run()
        return max(rep.finish for rep in self.reps)

    # ------------------------------------------------------------ executor thread
    def _executor(self, rep: _Replica) -> Generator:
        for group in self.program.groups():
            rep.position = group[0]
            for sec in (s for s in self.sections if s.first in group):
                yield from self._start_section(rep, sec)
            stmt = self.program.statements[group[0]]
            if isinstance(stmt, Serial):
                yield from self._serial(rep, stmt)
            elif isinstance(stmt, Write):
                yield from self._write(rep, stmt)
            else:
                yield from self._launch(rep, [self.program.statements[i] for i in group])
            for sec in (s for s in self.sections if s.last in group):
                yield from self._end_section(rep, sec)
        rep.finish = self.engine.now
        self._set(rep, "executor", "done", f"r{rep.r}'s main program has finished")

    def _start_section(self, rep: _Replica, sec: Section) -> Generator:
        rep.monitors[sec.index] = self.engine.start(self._monitor(rep, sec))
        self.rec.op(1, rep.r, f"r{rep.r} reaches the start sync point of section {sec.index}: its executor creates "
                              f"a fault-tolerant monitor thread and gives it the section's index "
                              f"({len(sec.kernels)} kernel{'s' * (len(sec.kernels) != 1)}, live: "
                              f"{_short(sec.live) or 'none'})", section=sec.index,
                    changes={rep.key("executor"): f"creating the monitor of section {sec.index}"})
        yield self.engine.timeout(self.cost.thread_op)

    def _serial(self, rep: _Replica, stmt: Serial) -> Generator:
        self._set(rep, "executor", f"running {stmt.label}", f"r{rep.r}'s executor runs the serial statement "
                                                           f"{stmt.label} on the host")
        yield self.engine.timeout(stmt.time)
        rep.store.update(execute(stmt, rep.store))
        for var in stmt.outputs:
            self._eager_push(rep, var)

    def _write(self, rep: _Replica, stmt: Write) -> Generator:
        self._set(rep, "executor", f"Write: fetching {stmt.var}",
                  f"r{rep.r}'s executor brings {stmt.var} back into the main program ({stmt.label})")
        if self.eager and (rep.host, stmt.var) in rep.arrivals:
            yield self._arrival(rep, rep.host, stmt.var)
            value = rep.copies[(rep.host, stmt.var)]
        elif self.eager:  # rule 1: pushed to the main program only once its section is checked
            value = rep.store[stmt.var]
            yield self.net.transfer(self._node_of(rep, stmt.var), rep.host, self.program.sizes[stmt.var])
        else:
            yield self.net.message()
            value = rep.store[stmt.var]
            yield self.net.transfer(self._node_of(rep, stmt.var), rep.host, self.program.sizes[stmt.var])
        rep.store[stmt.target] = np.array(value, copy=True)
        wrong = self._refresh_truth(rep, [stmt.target])
        label = (f"the main program of r{rep.r} received a WRONG {stmt.var}: the error has escaped into the "
                 f"output {stmt.target}" if wrong else "")
        self.rec.emit("note" if wrong else "state", label,
                      {rep.key("data"): self._data_state(rep), rep.key("executor"): "idle"})

    def _launch(self, rep: _Replica, kernels: list[KernelCall]) -> Generator:
        names = " and ".join(k.label for k in kernels)
        for k in kernels:
            rep.wq.put(Msg("run", k.name))
        self._set(rep, "executor", f"waiting for {names}", f"r{rep.r}'s executor launches {names}")
        yield self.engine.all_of(rep.computed[k.name] for k in kernels)

    def _end_section(self, rep: _Replica, sec: Section) -> Generator:
        self._set(rep, "executor", f"waiting at the compare sync point of section {sec.index}")
        yield self.engine.all_of([rep.ended[k] for k in sec.kernels])
        yield rep.monitors[sec.index]
        rep.position = sec.last
        self.rec.op(10, rep.r, f"r{rep.r}'s executor has seen every kernel of section {sec.index} end and its "
                               f"monitor thread finish: the program goes on", section=sec.index,
                    changes={rep.key("executor"): "idle", rep.key("monitor"): "finished",
                             rep.key("data"): self._data_state(rep)})

    # ------------------------------------------------------------ worker thread
    def _worker(self, rep: _Replica) -> Generator:
        handlers = {"run": self._w_run, "done": self._w_done, "OPTR": self._w_optr,
                    "checked": self._w_checked, "OPET": self._w_opet}
        while True:
            msg = yield rep.wq.get()
            self._set(rep, "worker", f"handling {msg}", f"r{rep.r}'s worker takes “{msg}” from wq")
            yield self.engine.timeout(self.cost.thread_op)
            handlers[msg.kind](rep, msg)
            self._set(rep, "worker", "idle")

    def _spawn_subtasks(self, rep: _Replica, kind: str, kernel: KernelCall, section: int | None = None) -> None:
        for j in range(kernel.subtasks):
            rep.cq.put(Msg(kind, kernel.name, j, section))
            self.engine.start(self._subworker(rep))

    def _w_run(self, rep: _Replica, msg: Msg) -> None:
        kernel = self.program.kernels[msg.kernel]
        rep.subtasks_left[kernel.name] = kernel.subtasks
        self.rec.emit("state", f"r{rep.r}'s worker starts {kernel.label}: {kernel.subtasks} subtask threads")
        self._spawn_subtasks(rep, "run", kernel)

    def _w_done(self, rep: _Replica, msg: Msg) -> None:
        rep.subtasks_left[msg.kernel] -= 1
        if rep.subtasks_left[msg.kernel]:
            self.rec.emit("state", f"r{rep.r}'s worker notes subtask {msg.part + 1} of {msg.kernel} is done "
                                   f"({rep.subtasks_left[msg.kernel]} to go)")
            return
        kernel = self.program.kernels[msg.kernel]
        self._compute(rep, kernel)
        sec = self.section_of.get(kernel.name)
        if sec is None:
            self._activity(rep, "device", kernel.name, None)
            rep.ended[kernel.name].fire()
        else:
            self._report(rep, kernel, sec)
        rep.computed[kernel.name].fire()
        for var in kernel.outputs:
            self._eager_push(rep, var)

    def _report(self, rep: _Replica, kernel: KernelCall, sec: Section) -> None:
        self._activity(rep, "device", kernel.name, f"{kernel.name} done, {BLOCKED}")
        self.rec.op(2, rep.r, f"{kernel.label} has finished on r{rep.r}: it reports to r{rep.r}'s worker and blocks "
                              "instead of exiting (its data may still need repair)", section=sec.index,
                    kernel=kernel.name)
        rep.fq.put(Msg("done", kernel.name, section=sec.index))
        self.rec.op(3, rep.r, f"r{rep.r}'s worker tells the monitor (fq) that {kernel.name} is done",
                    section=sec.index, kernel=kernel.name)

    def _w_optr(self, rep: _Replica, msg: Msg) -> None:
        kernel = self.program.kernels[msg.kernel]
        rep.checks[kernel.name] = []
        self.rec.emit("state", f"r{rep.r}'s worker hands the check of {kernel.name} to {kernel.subtasks} subworkers")
        self._spawn_subtasks(rep, "check", kernel, msg.section)

    def _w_checked(self, rep: _Replica, msg: Msg) -> None:
        results = rep.checks[msg.kernel]
        results.extend(msg.payload)
        kernel = self.program.kernels[msg.kernel]
        left = kernel.subtasks - len({v.part for v in results})
        if left:
            self.rec.emit("state", f"r{rep.r}'s worker notes part {msg.part + 1} of {kernel.name} is checked "
                                   f"({left} to go)")
            return
        rep.fq.put(Msg("OPTF", kernel.name, section=msg.section, payload=list(results)))
        self._announce_votes(rep, results, kernel)
        outcome = _summary(results)
        self.rec.op(7, rep.r, f"OPTF: every subtask of {kernel.name} on r{rep.r} is checked ({outcome}); the "
                              "worker tells the monitor", section=msg.section, kernel=kernel.name)

    def _w_opet(self, rep: _Replica, msg: Msg) -> None:
        self.rec.emit("state", f"r{rep.r}'s worker ends {msg.kernel}: it tells the kernel's device node to exit")

        def end() -> Generator:
            yield self.net.message()
            self._activity(rep, "device", msg.kernel, None, f"{msg.kernel} on r{rep.r} ends")
            rep.ended[msg.kernel].fire()
        self.engine.start(end())

    # ------------------------------------------------------------ subworker threads
    def _subworker(self, rep: _Replica) -> Generator:
        msg = yield rep.cq.get()
        kernel = self.program.kernels[msg.kernel]
        if msg.part == 0:
            self.rec.emit("state", f"r{rep.r}'s subworker threads take “{msg.kind} {msg.kernel}” "
                                   f"({kernel.subtasks} subtasks) from cq")
        if msg.kind == "run":
            yield from self._run_subtask(rep, kernel, msg.part)
        else:
            yield from self._check_subtask(rep, kernel, msg.part, msg.section)

    def _run_subtask(self, rep: _Replica, kernel: KernelCall, part: int) -> Generator:
        node = rep.node(kernel.name)
        first = part == 0
        how = "waits for the inputs sent early (eager)" if self.eager else "requests its inputs (lazy transfer)"
        self._activity(rep, "subworker", kernel.name, f"{kernel.name}: fetching inputs",
                       f"r{rep.r}: each subtask of {kernel.name} {how}" if first else "")
        waits = []
        for var in kernel.inputs:
            if self.eager:
                waits.append(self._arrival(rep, node, var))
            else:
                waits.append(self.engine.start(self._fetch(rep, var, node, kernel.subtasks)))
        yield self.engine.all_of(waits)
        self._activity(rep, "subworker", kernel.name, f"{kernel.name}: running on its device")
        self._activity(rep, "device", kernel.name, f"running {kernel.label}",
                       f"r{rep.r}: {kernel.label} runs on its device node ({kernel.time:g} s)" if first else "")
        yield self.engine.timeout(kernel.time)
        self._activity(rep, "subworker", kernel.name, None)
        rep.wq.put(Msg("done", kernel.name, part))
        if first:
            self.rec.emit("state", f"r{rep.r}: the subtasks of {kernel.name} finish and put “done” into wq")

    def _fetch(self, rep: _Replica, var: str, node: str, parts: int) -> Generator:
        """Lazy transfer of one subtask's share of ``var``: a request, then the data."""
        yield self.net.message()
        value = rep.store[var]
        yield self.net.transfer(self._node_of(rep, var), node, self.program.sizes[var] / parts)
        rep.copies[(node, var)] = value

    def _compute(self, rep: _Replica, kernel: KernelCall) -> None:
        node = rep.node(kernel.name)
        inputs = {v: rep.copies.get((node, v), rep.store[v]) for v in kernel.inputs}
        bad_inputs = [v for v in kernel.inputs if not np.array_equal(inputs[v], self.golden[v])]
        rep.store.update(execute(kernel, inputs))
        for fault in self.faults:
            if (fault.replica, fault.kernel) == (rep.r, kernel.name):
                self._inject(rep, fault)
        wrong = self._refresh_truth(rep, kernel.outputs)
        if bad_inputs and wrong:
            self.rec.emit("note", f"the error spreads on r{rep.r}: {kernel.name} read the wrong "
                                  f"{_short(bad_inputs)}, so {_short(wrong)} is wrong too",
                          {rep.key("data"): self._data_state(rep)})

    def _inject(self, rep: _Replica, fault: Fault) -> None:
        value = np.array(rep.store[fault.var], copy=True)
        rng = np.random.default_rng([self.seed, zlib.crc32(f"{fault.kernel}:{fault.var}".encode())])
        flat = value.reshape(-1)
        i = int(rng.integers(flat.size))
        before = flat[i].item()
        raw = flat[i:i + 1].view(np.uint8)
        # float64: a high mantissa bit (the value changes by 0.4 % .. 50 %); otherwise any bit
        bit = int(rng.integers(44, 52) if value.dtype == np.float64 else rng.integers(8 * value.itemsize))
        raw[bit // 8] ^= np.uint8(1 << (bit % 8))
        rep.store[fault.var] = value
        self.injected.append({"replica": rep.r, "kernel": fault.kernel, "var": fault.var, "index": i,
                              "bit": bit, "before": _plain(before), "after": _plain(flat[i].item())})
        self._refresh_truth(rep, [fault.var])
        self.rec.emit("note", f"⚡ soft error: a transient fault on r{rep.r}'s device node flips bit {bit} of "
                              f"{fault.var}[{i}] ({fault.kernel}'s output): {before:.6g} → {flat[i].item():.6g}. "
                              "Nothing notices it yet.", {rep.key("data"): self._data_state(rep)})

    def _eager_push(self, rep: _Replica, var: str) -> None:
        """Eager stream transfer: send ``var`` now to every node that will read it."""
        if not self.eager:
            return
        src = self._node_of(rep, var)
        checked = self.ft and var in self.section_live
        for index in self.program.readers[var]:
            if checked and isinstance(self.program.statements[index], Write):
                continue  # rule 1: data for the main program waits for its section's check
            dst = self._consumer_node(rep, index)
            rep.early.setdefault(var, set()).add((dst, index))
            if dst == src:
                self._deliver(rep, dst, var, rep.store[var], self.engine.fired())
            else:
                self._deliver(rep, dst, var, rep.store[var], self.net.transfer(src, dst, self.program.sizes[var]))

    def _deliver(self, rep: _Replica, node: str, var: str, value: np.ndarray, arrived: Signal) -> None:
        signal = self._arrival(rep, node, var)

        def land(_value: Any) -> None:
            rep.copies[(node, var)] = value
            if not signal.fired:
                signal.fire()
        arrived.then(land)

    # ------------------------------------------------------------ ⑥: exchange and 2-of-3 vote
    def _check_subtask(self, rep: _Replica, kernel: KernelCall, part: int, s: int) -> Generator:
        sec = self.sections[s - 1]
        live = [v for v in kernel.outputs if v in sec.live]
        peers = self._peers(rep)
        if part == 0:
            self.rec.op(6, rep.r, f"r{rep.r}'s subworkers ask r{peers[0].r} and r{peers[1].r} (and r{rep.r}'s own "
                                  f"device) to send their copies of {_short(live)} to r{rep.r}'s check node, where "
                                  "the RMK compares the three copies", section=s, kernel=kernel.name)
        self._activity(rep, "subworker", kernel.name, f"{kernel.name}: gathering the copies of {_short(live)}")
        yield self.net.message()
        senders = [(q, var) for q in [rep, *peers] for var in live]
        received = yield self.engine.all_of(self.engine.start(self._send_copy(q, rep, kernel, var, part))
                                            for q, var in senders)
        copies = {(q.r, var): value for (q, var), value in zip(senders, received, strict=True)}
        self._activity(rep, "subworker", kernel.name, f"voting on {_short(live)}",
                       f"r{rep.r}'s RMK has the three copies of {_short(live)} and compares them (hashes, 2-of-3 "
                       "vote)" if part == 0 else "")
        nbytes = sum(self.program.sizes[v] for v in live) / kernel.subtasks
        yield self.engine.timeout(self.cost.compare_time(nbytes))
        votes = [self._vote(rep, sec, kernel, var, part, [copies[(q.r, var)] for q in peers]) for var in live]
        for vote in votes:
            if vote.outcome == "corrected":
                yield from self._repaired(rep, kernel, vote.var, part, sec)
        self._activity(rep, "subworker", kernel.name, None)
        rep.wq.put(Msg("checked", kernel.name, part, s, payload=votes))
        if part == 0:
            self.rec.emit("state", f"r{rep.r}: the subworkers put the results (OPTF) of {kernel.name} into wq")

    def _send_copy(self, src: _Replica, dst: _Replica, kernel: KernelCall, var: str, part: int) -> Generator:
        """``src``'s device sends its (current) part ``part`` of ``var`` to ``dst``'s check node."""
        piece = src.store[var].reshape(-1)[_parts(src.store[var].size, kernel.subtasks)[part]].copy()
        if part == 0 and src is not dst:
            self.rec.emit("send", f"r{src.r} sends its copy of {var} ({self.program.sizes[var] / 1e6:.1f} MB in "
                                  f"{kernel.subtasks} parts) to r{dst.r}'s check node", src=src.r, dst=dst.r)
        nbytes = self.program.sizes[var] / kernel.subtasks
        yield self.net.transfer(src.node(kernel.name), dst.check, nbytes)
        return piece

    def _vote(self, rep: _Replica, sec: Section, kernel: KernelCall, var: str, part: int,
              others: list[np.ndarray]) -> Vote:
        own_full = rep.store[var]
        where = _parts(own_full.size, kernel.subtasks)[part]
        own = own_full.reshape(-1)[where]
        h_own, h_a, h_b = _digest(own), _digest(others[0]), _digest(others[1])
        if h_own == h_a == h_b:
            outcome = "agree"
        elif h_a == h_b:
            fixed = np.array(own_full, copy=True)
            fixed.reshape(-1)[where] = others[0]
            rep.store[var] = fixed
            outcome = "corrected"
        elif h_own in (h_a, h_b):
            outcome = "majority"
        else:
            outcome = "no-majority"
        truth = np.array_equal(rep.store[var].reshape(-1)[where], self.golden[var].reshape(-1)[where])
        vote = Vote(rep.r, sec.index, kernel.name, var, part, outcome, bool(truth))
        self.votes.append(vote)
        return vote

    def _announce_votes(self, rep: _Replica, votes: list[Vote], kernel: KernelCall) -> None:
        """One plain-language caption per variable whose copies did not all agree, and the data cell with it.

        The subworkers vote on all live variables of a section at about the same time, but the worker reports
        them kernel by kernel: a variable's vote changes the data cell only here, with its own caption, so the
        cell never says "corrected" while a wrong variable's vote is still to be told.
        """
        for var in dict.fromkeys(v.var for v in votes):
            mine = [v for v in votes if v.var == var]
            parts = f"{len(mine)} of {kernel.subtasks} parts" if len(mine) < kernel.subtasks else "all parts"
            outcomes = {v.outcome for v in mine if v.outcome != "agree"}
            self._refresh_truth(rep, [var])
            rep.corrected |= "corrected" in outcomes
            if "no-majority" in outcomes:
                rep.unrecoverable.add(var)
                label = (f"r{rep.r}'s RMK finds the three copies of {var} all different: there is no majority, "
                         "the error cannot be corrected")
            elif "corrected" in outcomes and all(v.truth for v in mine):
                still_wrong = self._still_wrong(rep)
                result = f"{var} corrected, {_short(still_wrong)} still wrong" if still_wrong else "corrected"
                label = (f"r{rep.r}'s copy of {var} differs from the two others, which agree: the 2-of-3 vote "
                         f"overwrites it ({parts} checked) with the majority value — {result}")
            elif "corrected" in outcomes:
                label = (f"r{rep.r}'s correct copy of {var} is outvoted by two identical wrong copies and "
                         "overwritten: the error wins the vote and is not detected")
            elif "majority" in outcomes:
                label = f"r{rep.r}'s copy of {var} agrees with one other copy; the third replica must repair its own"
            else:
                continue
            self.rec.emit("note", label, {rep.key("data"): self._data_state(rep)})

    def _repaired(self, rep: _Replica, kernel: KernelCall, var: str, part: int, sec: Section) -> Generator:
        """A repaired part stays on the check node (later readers fetch it there); rule 4 re-sends early copies."""
        if rep.location.get(var) != rep.check:
            rep.location[var] = rep.check
            self.rec.emit("state", f"r{rep.r}'s global information list now points to the repaired {var} on its "
                                   "check node")
        where = _parts(rep.store[var].size, kernel.subtasks)[part]
        piece = rep.store[var].reshape(-1)[where].copy()
        targets = [(node, index) for node, index in sorted(rep.early.get(var, ()))
                   if index > sec.last and (node, var) in rep.copies]
        sends = []
        for node, index in targets:
            self.rec.emit("send", f"rule 4: r{rep.r} re-sends the repaired part {part + 1} of {var} to "
                                  f"{self.program.statements[index].name}'s node, which got it early",
                          src=rep.r, dst=rep.r)
            sends.append(self.net.transfer(rep.check, node, self.program.sizes[var] / kernel.subtasks))
        yield self.engine.all_of(sends)
        for node, _index in targets:
            value = np.array(rep.copies[(node, var)], copy=True)
            value.reshape(-1)[where] = piece
            rep.copies[(node, var)] = value

    # ------------------------------------------------------------ fault-tolerant monitor thread
    def _await(self, rep: _Replica, match: Callable[[Msg], bool]) -> Generator:
        """The next message of ``rep.fq`` that ``match``es (others wait in the backlog)."""
        for i, msg in enumerate(rep.backlog):
            if match(msg):
                return rep.backlog.pop(i)
        while True:
            msg = yield rep.fq.get()
            if match(msg):
                return msg
            rep.backlog.append(msg)

    def _monitor(self, rep: _Replica, sec: Section) -> Generator:
        s, n = sec.index, len(sec.kernels)
        self._set(rep, "monitor", f"watching section {s}: 0/{n} kernels done")
        for done in range(1, n + 1):
            msg = yield from self._await(rep, lambda m: m.kind == "done" and m.section == s)
            self._set(rep, "monitor", f"watching section {s}: {done}/{n} kernels done",
                      f"r{rep.r}'s monitor reads “{msg}” from fq: {done} of {n} kernels of section {s} done")
        yield from self._handshake(rep, sec, "OPRS", 4)
        checked = [k for k in sec.kernels if any(v in sec.live for v in self.program.kernels[k].outputs)]
        for k in checked:
            rep.wq.put(Msg("OPTR", k, section=s))
            self.rec.op(5, rep.r, f"r{rep.r}'s monitor pushes OPTR (detect and correct) for {k} into the worker's "
                                  "queue wq", section=s, kernel=k)
        self._set(rep, "monitor", f"waiting for OPTF: 0/{len(checked)} kernels checked")
        for done in range(1, len(checked) + 1):
            msg = yield from self._await(rep, lambda m: m.kind == "OPTF" and m.section == s)
            self._set(rep, "monitor", f"waiting for OPTF: {done}/{len(checked)} kernels checked",
                      f"r{rep.r}'s monitor reads “{msg}”: {done} of {len(checked)} kernels checked")
        yield from self._handshake(rep, sec, "OPRFS", 8)
        for k in sec.kernels:
            rep.wq.put(Msg("OPET", k, section=s))
        self.rec.op(9, rep.r, f"OPET: r{rep.r}'s monitor tells the kernels of section {s} ({_short(sec.kernels)}) "
                              "to end; their device nodes are freed", section=s,
                    changes={rep.key("monitor"): f"ending section {s}"})

    def _handshake(self, rep: _Replica, sec: Section, kind: str, step: int) -> Generator:
        """Send ``kind`` to both other monitors and wait for both replies (answering theirs)."""
        s = sec.index
        peers = self._peers(rep)
        for q in peers:
            self._post(rep, q, Msg(kind, section=s, sender=rep.r))
        what = (f"it has reached the compare sync point of section {s} and waits for both replies (which also "
                "say where their live variables are)" if step == 4 else
                f"it has finished checking section {s} and waits for both replies")
        self.rec.op(step, rep.r, f"{kind}: r{rep.r}'s monitor tells r{peers[0].r} and r{peers[1].r} that {what}",
                    section=s, kind="send", dst=peers[0].r,
                    changes={rep.key("monitor"): f"{kind}: waiting for 2 replies"})
        replies = answered = 0
        while replies < len(peers) or answered < len(peers):
            msg = yield from self._await(rep, lambda m: m.section == s and m.kind in (kind, kind + "-ack"))
            if msg.kind == kind:
                answered += 1
                self._post(rep, self.reps[msg.sender], Msg(kind + "-ack", section=s, sender=rep.r))
                self.rec.emit("send", f"r{rep.r}'s monitor answers r{msg.sender}'s {kind}", src=rep.r, dst=msg.sender)
            else:
                replies += 1
                self._set(rep, "monitor", f"{kind}: {replies}/{len(peers)} replies",
                          f"r{rep.r}'s monitor gets r{msg.sender}'s reply to its {kind} ({replies}/{len(peers)})")


def _summary(votes: list[Vote]) -> str:
    outcomes = {v.outcome for v in votes}
    if "no-majority" in outcomes:
        return "no majority"
    if "corrected" in outcomes:
        return "own copy repaired"
    if "majority" in outcomes:
        return "own copy agrees with the majority"
    return "all copies agree"
