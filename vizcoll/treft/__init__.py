"""TREFT: triple-modular-redundancy eager fault tolerance for a distributed stream architecture (the TREFT paper).

- :mod:`vizcoll.treft.program`: the program model (serial statements, kernel
  calls with subtasks and parallel patterns, Writes; real numpy values);
- :mod:`vizcoll.treft.sections`: fault-tolerant sections, live variables and
  the five placement rules (:func:`place_sections`);
- :mod:`vizcoll.treft.workflows`: the NGB workflows HC, VP, MB, classes A and B
  (:data:`WORKFLOWS`);
- :mod:`vizcoll.treft.runtime` and :mod:`vizcoll.treft.simulate`: three
  replicas' executor / worker / subworker / monitor threads and queues as a
  discrete-event simulation, soft errors, 2-of-3 voting, operations ① to ⑩
  (:func:`simulate_treft`); the runtime's parts: :mod:`~vizcoll.treft.records`
  (operations, messages, faults, votes, the recorder),
  :mod:`~vizcoll.treft.replica` (a replica's state and the bookkeeping),
  :mod:`~vizcoll.treft.checks` (monitor thread, 2-of-3 vote) and
  :mod:`~vizcoll.treft.threads` (executor, worker, subworkers);
- :mod:`vizcoll.treft.network` (on the shared event core :mod:`vizcoll.sim.engine`):
  the timing model (latency 100 ms, bandwidth 13.98 Mbps by default).

References: [TREFT15] (keys: ``docs/papers.md``).
"""

from vizcoll.treft.network import CostModel
from vizcoll.treft.program import KernelCall, Program, Serial, Write, run_reference
from vizcoll.treft.runtime import CIRCLED, OPERATIONS, Fault
from vizcoll.treft.sections import VARIANTS, Section, Violation, check_sections, live_variables, place_sections
from vizcoll.treft.simulate import parse_fault, simulate_treft
from vizcoll.treft.workflows import WORKFLOWS, build_workflow, workflow

__all__ = [
    "CIRCLED",
    "OPERATIONS",
    "VARIANTS",
    "WORKFLOWS",
    "CostModel",
    "Fault",
    "KernelCall",
    "Program",
    "Section",
    "Serial",
    "Violation",
    "Write",
    "build_workflow",
    "check_sections",
    "live_variables",
    "parse_fault",
    "place_sections",
    "run_reference",
    "simulate_treft",
    "workflow",
]
