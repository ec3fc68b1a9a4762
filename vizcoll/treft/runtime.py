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

Code: :class:`Run` stacks the parts of the runtime, each in its own module —
:class:`~vizcoll.treft.replica.RunState` (state, bookkeeping, data),
:class:`~vizcoll.treft.checks.Checks` (monitor thread and votes, ④ to ⑨) and
:class:`~vizcoll.treft.threads.Threads` (executor, worker, subworkers, ① to ③
and ⑩) — on the shared event core :mod:`vizcoll.sim.engine` (threads are
generator processes, queues are :class:`~vizcoll.sim.engine.Queue`).

References: [TREFT15, Fig. 5, Table 2] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from vizcoll.treft.records import CIRCLED, OPERATIONS, ROLES, Fault, Recorder, Vote
from vizcoll.treft.threads import Threads

__all__ = ["CIRCLED", "OPERATIONS", "ROLES", "Fault", "Recorder", "Run", "Vote"]


class Run(Threads):
    """One simulated execution of ``program`` by ``options.replicas`` copies (fault tolerance on or off).

    ``Run(program, sections, cost, golden, RunOptions(ft=..., eager=..., replicas=3, faults=(), seed=0,
    record=True))`` (:class:`~vizcoll.treft.replica.RunOptions`); the state and bookkeeping are in
    :class:`~vizcoll.treft.replica.RunState`, the monitor and the votes in :class:`~vizcoll.treft.checks.Checks`,
    the executor, worker and subworker threads in :class:`~vizcoll.treft.threads.Threads`.
    """

    def run(self) -> float:
        """Simulate to the end; returns the completion time (the last executor to finish)."""
        for rep in self.reps:
            self.engine.start(self._executor(rep))
            self.engine.start(self._worker(rep))
        self.engine.run()
        return max(rep.finish for rep in self.reps)
