"""The vocabulary of the TREFT runtime: operations ① to ⑩, the entities drawn per replica, messages, faults,
votes, and the recorder that turns what the threads do into timeline events.

The runtime itself is :class:`vizcoll.treft.runtime.Run`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from vizcoll.sim.engine import Engine
from vizcoll.sim.timeline import Event

__all__ = ["BLOCKED", "CIRCLED", "INITIAL", "OPERATIONS", "ROLES", "Fault", "Msg", "Recorder", "Vote", "short"]

CIRCLED = ("①", "②", "③", "④", "⑤", "⑥", "⑦", "⑧", "⑨", "⑩")
#: short name of each numbered operation
OPERATIONS = {
    1: "create-monitor",
    2: "kernel-done",
    3: "notify-monitor",
    4: "OPRS",
    5: "OPTR",
    6: "exchange-vote",
    7: "OPTF",
    8: "OPRFS",
    9: "OPET",
    10: "join",
}
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
INITIAL = {
    "executor": "idle",
    "worker": "idle",
    "subworker": "idle",
    "monitor": "not started",
    "device": "idle",
    "wq": "empty",
    "cq": "empty",
    "fq": "empty",
    "data": "ok",
}


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


def short(names, limit: int = 3) -> str:
    """Up to ``limit`` names in natural order (K2 before K10), then how many more."""
    names = sorted(names, key=_natural)
    text = ", ".join(names[:limit])
    return text + (f" (+{len(names) - limit} more)" if len(names) > limit else "")


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

    def op(
        self,
        step: int,
        replica: int,
        label: str,
        *,
        section: int | None = None,
        kernel: str | None = None,
        changes: dict | None = None,
        kind: str = "state",
        dst: int = -1,
    ) -> None:
        """Numbered operation ``step`` (1..10) by ``replica``: an event labelled with its circled number."""
        if not self.enabled:
            return
        text = f"{CIRCLED[step - 1]} {label}"
        self.ops.append(
            {
                "t": round(self.engine.now, 6),
                "step": step,
                "symbol": CIRCLED[step - 1],
                "op": OPERATIONS[step],
                "replica": replica,
                "section": section,
                "kernel": kernel,
                "label": text,
            }
        )
        self.emit(kind, text, changes, src=replica if kind == "send" else -1, dst=dst)
