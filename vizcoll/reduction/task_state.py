"""The state of a task-based reduction: its messages, its tasks and one reduction instance.

The simulation itself is :class:`vizcoll.reduction.task_sim.TaskRun`; the model
(steps 1–6, fault locations, recovery) is described in :mod:`vizcoll.reduction.task`.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.reduction.common import RunSetup

__all__ = [
    "FAULT_LOCATIONS",
    "LOCATION_ALIASES",
    "QUEUE_SHOWN",
    "TASK_LEGEND",
    "Msg",
    "RedState",
    "Task",
    "initial_counters",
    "path_text",
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
class RedState:
    """State of one reduction instance."""

    idx: int
    root: int
    queue: deque = field(default_factory=deque)
    tasks: dict[int, Task] = field(default_factory=dict)
    mem: dict[int, np.ndarray] = field(default_factory=dict)
    called: set = field(default_factory=set)
    local_done: dict[int, float] = field(default_factory=dict)
    remote_sent: dict[int, float] = field(default_factory=dict)  # the copy has reached the neighbor
    remote_done: dict[int, float] = field(default_factory=dict)  # ... and is on its disk (readable)
    end: float | None = None
    failed: bool = False
    lost: str | None = None  # why it failed: whose data had no surviving copy
    result_at: int | None = None
    result: np.ndarray | None = None
    location: str | None = None
    recovered: bool = False
    depth: int | None = None


def initial_counters(setup: RunSetup, counters: str | Mapping[int, float] | None) -> dict[int, float]:
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


def path_text(path: frozenset) -> str:
    if len(path) <= 4:
        return "{" + ",".join(str(r) for r in sorted(path)) + "}"
    return "{" + f"{len(path)} processes" + "}"
