"""The threads of a TREFT replica that run the program: the executor (main program, sync points ① and ⑩), the
worker (wq: kernel tasks, ②, ③, ⑦) and the subworkers (cq: fetching inputs, running subtasks, checks).
"""

from __future__ import annotations

from collections.abc import Generator

import numpy as np

from vizcoll.treft.checks import Checks, vote_summary
from vizcoll.treft.program import KernelCall, Serial, Write, execute
from vizcoll.treft.records import BLOCKED, Msg, short
from vizcoll.treft.replica import Replica
from vizcoll.treft.sections import Section
from vizcoll.words import plural

__all__ = ["Threads"]


class Threads(Checks):
    """The executor, worker and subworker threads of every replica (as generator processes on the engine)."""

    # ------------------------------------------------------------ executor thread
    def _executor(self, rep: Replica) -> Generator:
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

    def _start_section(self, rep: Replica, sec: Section) -> Generator:
        rep.monitors[sec.index] = self.engine.start(self._monitor(rep, sec))
        self.rec.op(
            1,
            rep.r,
            f"r{rep.r} reaches the start sync point of section {sec.index}: its executor creates "
            f"a fault-tolerant monitor thread and gives it the section's index "
            f"({plural(len(sec.kernels), 'kernel')}, live: "
            f"{short(sec.live) or 'none'})",
            section=sec.index,
            changes={rep.key("executor"): f"creating the monitor of section {sec.index}"},
        )
        yield self.engine.timeout(self.cost.thread_op)

    def _serial(self, rep: Replica, stmt: Serial) -> Generator:
        self._set(
            rep,
            "executor",
            f"running {stmt.label}",
            f"r{rep.r}'s executor runs the serial statement {stmt.label} on the host",
        )
        yield self.engine.timeout(stmt.time)
        rep.store.update(execute(stmt, rep.store))
        for var in stmt.outputs:
            self._eager_push(rep, var)

    def _write(self, rep: Replica, stmt: Write) -> Generator:
        self._set(
            rep,
            "executor",
            f"Write: fetching {stmt.var}",
            f"r{rep.r}'s executor brings {stmt.var} back into the main program ({stmt.label})",
        )
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
        label = (
            f"the main program of r{rep.r} received a WRONG {stmt.var}: the error has escaped into the "
            f"output {stmt.target}"
            if wrong
            else ""
        )
        self.rec.emit(
            "note" if wrong else "state", label, {rep.key("data"): self._data_state(rep), rep.key("executor"): "idle"}
        )

    def _launch(self, rep: Replica, kernels: list[KernelCall]) -> Generator:
        names = " and ".join(k.label for k in kernels)
        for k in kernels:
            rep.wq.put(Msg("run", k.name))
        self._set(rep, "executor", f"waiting for {names}", f"r{rep.r}'s executor launches {names}")
        yield self.engine.all_of(rep.computed[k.name] for k in kernels)

    def _end_section(self, rep: Replica, sec: Section) -> Generator:
        self._set(rep, "executor", f"waiting at the compare sync point of section {sec.index}")
        yield self.engine.all_of([rep.ended[k] for k in sec.kernels])
        yield rep.monitors[sec.index]
        rep.position = sec.last
        self.rec.op(
            10,
            rep.r,
            f"r{rep.r}'s executor has seen every kernel of section {sec.index} end and its "
            f"monitor thread finish: the program goes on",
            section=sec.index,
            changes={
                rep.key("executor"): "idle",
                rep.key("monitor"): "finished",
                rep.key("data"): self._data_state(rep),
            },
        )

    # ------------------------------------------------------------ worker thread
    def _worker(self, rep: Replica) -> Generator:
        handlers = {
            "run": self._w_run,
            "done": self._w_done,
            "OPTR": self._w_optr,
            "checked": self._w_checked,
            "OPET": self._w_opet,
        }
        while True:
            msg = yield rep.wq.get()
            self._set(rep, "worker", f"handling {msg}", f"r{rep.r}'s worker takes “{msg}” from wq")
            yield self.engine.timeout(self.cost.thread_op)
            handlers[msg.kind](rep, msg)
            self._set(rep, "worker", "idle")

    def _spawn_subtasks(self, rep: Replica, kind: str, kernel: KernelCall, section: int | None = None) -> None:
        for j in range(kernel.subtasks):
            rep.cq.put(Msg(kind, kernel.name, j, section))
            self.engine.start(self._subworker(rep))

    def _w_run(self, rep: Replica, msg: Msg) -> None:
        kernel = self.program.kernels[msg.kernel]
        rep.subtasks_left[kernel.name] = kernel.subtasks
        self.rec.emit("state", f"r{rep.r}'s worker starts {kernel.label}: {kernel.subtasks} subtask threads")
        self._spawn_subtasks(rep, "run", kernel)

    def _w_done(self, rep: Replica, msg: Msg) -> None:
        rep.subtasks_left[msg.kernel] -= 1
        if rep.subtasks_left[msg.kernel]:
            self.rec.emit(
                "state",
                f"r{rep.r}'s worker notes subtask {msg.part + 1} of {msg.kernel} is done "
                f"({rep.subtasks_left[msg.kernel]} to go)",
            )
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

    def _report(self, rep: Replica, kernel: KernelCall, sec: Section) -> None:
        self._activity(rep, "device", kernel.name, f"{kernel.name} done, {BLOCKED}")
        self.rec.op(
            2,
            rep.r,
            f"{kernel.label} has finished on r{rep.r}: it reports to r{rep.r}'s worker and blocks "
            "instead of exiting (its data may still need repair)",
            section=sec.index,
            kernel=kernel.name,
        )
        rep.fq.put(Msg("done", kernel.name, section=sec.index))
        self.rec.op(
            3,
            rep.r,
            f"r{rep.r}'s worker tells the monitor (fq) that {kernel.name} is done",
            section=sec.index,
            kernel=kernel.name,
        )

    def _w_optr(self, rep: Replica, msg: Msg) -> None:
        kernel = self.program.kernels[msg.kernel]
        rep.checks[kernel.name] = []
        self.rec.emit("state", f"r{rep.r}'s worker hands the check of {kernel.name} to {kernel.subtasks} subworkers")
        self._spawn_subtasks(rep, "check", kernel, msg.section)

    def _w_checked(self, rep: Replica, msg: Msg) -> None:
        results = rep.checks[msg.kernel]
        results.extend(msg.payload)
        kernel = self.program.kernels[msg.kernel]
        left = kernel.subtasks - len({v.part for v in results})
        if left:
            self.rec.emit(
                "state", f"r{rep.r}'s worker notes part {msg.part + 1} of {kernel.name} is checked ({left} to go)"
            )
            return
        rep.fq.put(Msg("OPTF", kernel.name, section=msg.section, payload=list(results)))
        self._announce_votes(rep, results, kernel)
        outcome = vote_summary(results)
        self.rec.op(
            7,
            rep.r,
            f"OPTF: every subtask of {kernel.name} on r{rep.r} is checked ({outcome}); the worker tells the monitor",
            section=msg.section,
            kernel=kernel.name,
        )

    def _w_opet(self, rep: Replica, msg: Msg) -> None:
        self.rec.emit("state", f"r{rep.r}'s worker ends {msg.kernel}: it tells the kernel's device node to exit")

        def end() -> Generator:
            yield self.net.message()
            self._activity(rep, "device", msg.kernel, None, f"{msg.kernel} on r{rep.r} ends")
            rep.ended[msg.kernel].fire()

        self.engine.start(end())

    # ------------------------------------------------------------ subworker threads
    def _subworker(self, rep: Replica) -> Generator:
        msg = yield rep.cq.get()
        kernel = self.program.kernels[msg.kernel]
        if msg.part == 0:
            self.rec.emit(
                "state",
                f"r{rep.r}'s subworker threads take “{msg.kind} {msg.kernel}” ({kernel.subtasks} subtasks) from cq",
            )
        if msg.kind == "run":
            yield from self._run_subtask(rep, kernel, msg.part)
        else:
            yield from self._check_subtask(rep, kernel, msg.part, msg.section)

    def _run_subtask(self, rep: Replica, kernel: KernelCall, part: int) -> Generator:
        node = rep.node(kernel.name)
        first = part == 0
        how = "waits for the inputs sent early (eager)" if self.eager else "requests its inputs (lazy transfer)"
        self._activity(
            rep,
            "subworker",
            kernel.name,
            f"{kernel.name}: fetching inputs",
            f"r{rep.r}: each subtask of {kernel.name} {how}" if first else "",
        )
        waits = []
        for var in kernel.inputs:
            if self.eager:
                waits.append(self._arrival(rep, node, var))
            else:
                waits.append(self.engine.start(self._fetch(rep, var, node, kernel.subtasks)))
        yield self.engine.all_of(waits)
        self._activity(rep, "subworker", kernel.name, f"{kernel.name}: running on its device")
        self._activity(
            rep,
            "device",
            kernel.name,
            f"running {kernel.label}",
            f"r{rep.r}: {kernel.label} runs on its device node ({kernel.time:g} s)" if first else "",
        )
        yield self.engine.timeout(kernel.time)
        self._activity(rep, "subworker", kernel.name, None)
        rep.wq.put(Msg("done", kernel.name, part))
        if first:
            self.rec.emit("state", f"r{rep.r}: the subtasks of {kernel.name} finish and put “done” into wq")

    def _fetch(self, rep: Replica, var: str, node: str, parts: int) -> Generator:
        """Lazy transfer of one subtask's share of ``var``: a request, then the data."""
        yield self.net.message()
        value = rep.store[var]
        yield self.net.transfer(self._node_of(rep, var), node, self.program.sizes[var] / parts)
        rep.copies[(node, var)] = value
