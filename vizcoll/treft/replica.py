"""What one TREFT replica owns, and the run's shared state and bookkeeping (set-up, the cells of the replay,
where data lives, computing kernels, soft errors, eager pushes).

:class:`RunState` is the base of :class:`vizcoll.treft.runtime.Run`; the threads built on it are in
:mod:`vizcoll.treft.checks` (monitor, 2-of-3 vote) and :mod:`vizcoll.treft.threads` (executor, worker,
subworkers).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vizcoll.sim.engine import Engine, Queue, Signal
from vizcoll.treft.network import CostModel, Network
from vizcoll.treft.program import KernelCall, Program, Write, execute
from vizcoll.treft.records import BLOCKED, INITIAL, Fault, Msg, Recorder, Vote, short
from vizcoll.treft.sections import Section
from vizcoll.words import plural

__all__ = ["Replica", "RunOptions", "RunState"]


def _plain(value):
    """A JSON-safe scalar: non-finite floats become strings."""
    return value if not isinstance(value, float) or np.isfinite(value) else str(value)


@dataclass
class Replica:
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
    #: timeline has told so far (a vote counts from its caption on, see ``Checks._announce_votes``)
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


@dataclass(frozen=True)
class RunOptions:
    """How one run executes: fault tolerance on or off, the transfer mode, the copies, the soft errors, the replay.

    Attributes
    ----------
    ft : bool
        Fault tolerance on (the sections with their monitor threads and votes) or off (the plain program).
    eager : bool
        Eager stream transfer (E1): a producer pushes its data as soon as it is computed; else lazy.
    replicas : int
        Copies of the program that run side by side.
    faults : tuple of Fault
        The soft errors injected.
    seed : int
        Chooses the flipped element and bit of each soft error.
    record : bool
        Record the replay's events (False: the figures only).
    """

    ft: bool
    eager: bool
    replicas: int = 3
    faults: tuple[Fault, ...] = ()
    seed: int = 0
    record: bool = True


class RunState:
    """The shared state and bookkeeping of one simulated execution of ``program`` by ``options.replicas`` copies."""

    def __init__(
        self, program: Program, sections: list[Section], cost: CostModel, golden: dict, options: RunOptions
    ) -> None:
        ft, replicas = options.ft, options.replicas
        self.program, self.cost, self.golden = program, cost, golden
        self.ft, self.eager, self.faults, self.seed = ft, options.eager, options.faults, options.seed
        self.sections = sections if ft else []
        self.engine = Engine()
        self.net = Network(self.engine, cost)
        self.rec = Recorder(self.engine, options.record)
        self.section_of = {k: s for s in self.sections for k in s.kernels}
        self.section_live = {v for s in self.sections for v in s.live}
        self.votes: list[Vote] = []
        self.injected: list[dict] = []
        self.reps = [self._replica(r) for r in range(replicas)]

    # ------------------------------------------------------------ set-up and bookkeeping
    def _replica(self, r: int) -> Replica:
        op = self.cost.thread_op
        queues = {name: Queue(self.engine, op) for name in ("wq", "cq", "fq")}
        rep = Replica(r, **queues)
        for name, queue in queues.items():
            queue.on_change = self._queue_watcher(rep, name)
        for k in self.program.kernels:
            rep.computed[k], rep.ended[k] = self.engine.signal(), self.engine.signal()
        return rep

    def _queue_watcher(self, rep: Replica, name: str) -> Callable[[Queue], None]:
        def changed(queue: Queue) -> None:
            if not self.rec.enabled:
                return
            items = queue.pending
            text = (
                "empty"
                if not items
                else f"queue: {plural(len(items), 'item')}: "
                + ", ".join(str(m) for m in items[:3])
                + (" …" if len(items) > 3 else "")
            )
            self.rec.emit("state", "", {rep.key(name): text})

        return changed

    def initial_state(self) -> dict[str, str]:
        return {rep.key(role): value for rep in self.reps for role, value in INITIAL.items()}

    def _set(self, rep: Replica, role: str, value: str, label: str = "", kind: str = "state") -> None:
        self.rec.emit(kind, label, {rep.key(role): value})

    def _show_activity(self, rep: Replica, role: str) -> dict[str, str]:
        table = rep.activity if role == "subworker" else rep.device
        texts = [t for t in dict.fromkeys(table.values()) if not t.endswith(BLOCKED)]
        blocked = [k for k, t in table.items() if t.endswith(BLOCKED)]
        if len(blocked) == 1:
            texts.append(table[blocked[0]])
        elif blocked:
            texts.append(f"{len(blocked)} kernels done, {BLOCKED}")
        value = "idle" if not texts else "; ".join(texts[:2]) + (f" (+{len(texts) - 2} more)" if len(texts) > 2 else "")
        return {rep.key(role): value}

    def _activity(
        self, rep: Replica, role: str, kernel: str, text: str | None, label: str = "", kind: str = "state"
    ) -> None:
        table = rep.activity if role == "subworker" else rep.device
        if text is None:
            table.pop(kernel, None)
        else:
            table[kernel] = text
        if self.rec.enabled:
            self.rec.emit(kind, label, self._show_activity(rep, role))

    def _needed(self, rep: Replica, var: str) -> bool:
        return self.program.last_use[var] > rep.position or var in self.program.outputs

    def _still_wrong(self, rep: Replica) -> list[str]:
        """The wrong variables the replica will still use (or has written out)."""
        return [v for v in rep.wrong if self._needed(rep, v)]

    def _data_state(self, rep: Replica) -> str:
        bad = self._still_wrong(rep)
        if rep.unrecoverable:
            return "NO MAJORITY for " + short(rep.unrecoverable)
        if bad:
            return "ERROR in " + short(bad)
        return "corrected" if rep.corrected else "ok"

    def _refresh_truth(self, rep: Replica, names) -> list[str]:
        """Re-check ``names`` against the fault-free run; returns the wrong ones."""
        for var in names:
            if np.array_equal(rep.store[var], self.golden[var]):
                rep.wrong.discard(var)
            else:
                rep.wrong.add(var)
        return [v for v in names if v in rep.wrong]

    def _node_of(self, rep: Replica, var: str) -> str:
        if var in rep.location:
            return rep.location[var]
        stmt = self.program.statements[self.program.producer[var]]
        return rep.node(stmt.name) if isinstance(stmt, KernelCall) else rep.host

    def _consumer_node(self, rep: Replica, index: int) -> str:
        stmt = self.program.statements[index]
        return rep.node(stmt.name) if isinstance(stmt, KernelCall) else rep.host

    def _arrival(self, rep: Replica, node: str, var: str) -> Signal:
        key = (node, var)
        if key not in rep.arrivals:
            rep.arrivals[key] = self.engine.signal()
        return rep.arrivals[key]

    def _peers(self, rep: Replica) -> list[Replica]:
        return [q for q in self.reps if q is not rep]

    def _post(self, rep: Replica, dst: Replica, msg: Msg) -> None:
        """A control message from ``rep``'s monitor to ``dst``'s fq (after the network latency)."""

        def land() -> None:
            dst.fq.put(msg)
            what = msg.kind.replace("-ack", "") + (" reply" if msg.kind.endswith("-ack") else "")
            self.rec.emit("arrive", f"r{rep.r}'s {what} arrives in r{dst.r}'s fq", src=rep.r, dst=dst.r)

        self.engine.schedule(self.cost.latency, land)

    # ------------------------------------------------------------ data: kernels, soft errors, eager pushes
    def _compute(self, rep: Replica, kernel: KernelCall) -> None:
        node = rep.node(kernel.name)
        inputs = {v: rep.copies.get((node, v), rep.store[v]) for v in kernel.inputs}
        bad_inputs = [v for v in kernel.inputs if not np.array_equal(inputs[v], self.golden[v])]
        rep.store.update(execute(kernel, inputs))
        for fault in self.faults:
            if (fault.replica, fault.kernel) == (rep.r, kernel.name):
                self._inject(rep, fault)
        wrong = self._refresh_truth(rep, kernel.outputs)
        if bad_inputs and wrong:
            self.rec.emit(
                "note",
                f"the error spreads on r{rep.r}: {kernel.name} read the wrong "
                f"{short(bad_inputs)}, so {short(wrong)} is wrong too",
                {rep.key("data"): self._data_state(rep)},
            )

    def _inject(self, rep: Replica, fault: Fault) -> None:
        value = np.array(rep.store[fault.var], copy=True)
        rng = np.random.default_rng([self.seed, zlib.crc32(f"{fault.kernel}:{fault.var}".encode())])
        flat = value.reshape(-1)
        i = int(rng.integers(flat.size))
        before = flat[i].item()
        raw = flat[i : i + 1].view(np.uint8)
        # float64: a high mantissa bit (the value changes by 0.4 % .. 50 %); otherwise any bit
        bit = int(rng.integers(44, 52) if value.dtype == np.float64 else rng.integers(8 * value.itemsize))
        raw[bit // 8] ^= np.uint8(1 << (bit % 8))
        rep.store[fault.var] = value
        self.injected.append(
            {
                "replica": rep.r,
                "kernel": fault.kernel,
                "var": fault.var,
                "index": i,
                "bit": bit,
                "before": _plain(before),
                "after": _plain(flat[i].item()),
            }
        )
        self._refresh_truth(rep, [fault.var])
        self.rec.emit(
            "fault",
            f"⚡ soft error: a transient fault on r{rep.r}'s device node flips bit {bit} of "
            f"{fault.var}[{i}] ({fault.kernel}'s output): {before:.6g} → {flat[i].item():.6g}. "
            "Nothing notices it yet.",
            {rep.key("data"): self._data_state(rep)},
        )

    def _eager_push(self, rep: Replica, var: str) -> None:
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

    def _deliver(self, rep: Replica, node: str, var: str, value: np.ndarray, arrived: Signal) -> None:
        signal = self._arrival(rep, node, var)

        def land(_value: Any) -> None:
            rep.copies[(node, var)] = value
            if not signal.fired:
                signal.fire()

        arrived.then(land)
