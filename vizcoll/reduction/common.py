"""What every reduction simulation shares: checked arguments, call times, data, the timeline recorder.

A process calls reduce at ``position · arrival_gap`` where ``position`` is its
place in ``arrival`` (ranks not listed follow in rank order). With
``concurrent = k`` reductions, instance ``c`` has root ``(root + c) mod p``
and its own inputs; all instances start together and share the nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.reduction.data import ReductionData, elements_for
from vizcoll.reduction.env import Environment
from vizcoll.reduction.params import C1, ReductionParams
from vizcoll.sim.timeline import Event

__all__ = [
    "MAX_PROCS",
    "MAX_SIZE",
    "MAX_CONCURRENT",
    "ReductionRun",
    "RunSetup",
    "Recorder",
    "make_setup",
    "mib",
    "rank_name",
]

MAX_PROCS = 4096
MAX_SIZE = 1 << 40
MAX_CONCURRENT = 64


def rank_name(rank: int) -> str:
    """Timeline entity key of a worker: ``w3``."""
    return f"w{rank}"


def mib(size: float) -> str:
    """``1048576 -> '1 MiB'`` for captions."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size:.0f} B"


@dataclass(frozen=True)
class ReductionRun:
    """One reduction a caller asks for: processes, data, root, arrival order, node speeds, fault and machine.

    Nothing is checked when the object is made: the simulations check every field when the run starts
    (:func:`make_setup`) and raise :class:`~vizcoll.errors.SpecError` for a bad one. Change a field with
    :func:`dataclasses.replace`.

    Parameters
    ----------
    procs : int
        Number of processes (2..4096).
    size : int
        Bytes each process reduces.
    root : int
        Rank that receives the result (instance ``c`` of concurrent reductions uses ``root + c``).
    arrival : sequence of int, optional
        Order in which processes call reduce (others follow in rank order), ``params.arrival_gap`` apart.
    speeds : sequence of float, optional
        Relative speed of every process (1 = nominal, 0.5 = twice as slow).
    slow : iterable of (rank, factor)
        Processes slowed by ``factor`` for the whole run (CPU and network).
    interference : iterable of (rank, start, end, factor)
        Episodes during which a process is slowed by ``factor``.
    kill : (rank, time) or str, optional
        Kill ``rank`` at ``time`` (s), or (task-based reduction only) a fault location: ``sending-task``,
        ``executing-task``, ``fetching-data`` (aliases ``before-task``, ``after-result``, ``during-fetch``)
        placed by :func:`~vizcoll.reduction.task.place_fault`.
    seed : int
        Seed of the input data.
    op : str or callable
        ``sum``, ``prod``, ``max``, ``min`` or a commutative, associative ``op(a, b) -> array``.
    params : ReductionParams or mapping
        Machine times (default: the calibrated cluster C1), or a mapping of the fields that differ from C1.
    concurrent : int
        Number of reductions running at once on the same processes.
    nodes : sequence of int, optional
        Topology node of each process (timeline entities are drawn there); the task-based reduction's master sits
        on process 0's node.

    Examples
    --------
    >>> from dataclasses import replace
    >>> run = ReductionRun(8, 1 << 20, root=2)
    >>> replace(run, kill=(3, 0.01)).kill, run.kill
    ((3, 0.01), None)
    """

    procs: int
    size: int
    root: int = 0
    arrival: Sequence[int] | None = None
    speeds: Sequence[float] | None = None
    slow: Iterable = ()
    interference: Iterable = ()
    kill: tuple[int, float] | str | None = None
    seed: int = 0
    op: str | Callable = "sum"
    params: ReductionParams | Mapping[str, float] = C1
    concurrent: int = 1
    nodes: Sequence[int] | None = None


@dataclass
class RunSetup:
    """Checked arguments of one simulation run."""

    procs: int
    size: int
    roots: list[int]
    call: np.ndarray
    env: Environment
    params: ReductionParams
    data: list[ReductionData]
    kill: tuple[int, float] | None
    seed: int
    nodes: list[int] = field(default_factory=list)

    @property
    def concurrent(self) -> int:
        return len(self.roots)

    def node(self, rank: int) -> int:
        """Topology node of ``rank`` (-1 when the run is not placed on a topology)."""
        return self.nodes[rank] if self.nodes else -1


def _int(value, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise SpecError(f"{name} must be an integer in {lo}..{hi:,}, got {value!r}")
    return int(value)


def _call_times(procs: int, arrival: Sequence[int] | None, gap: float) -> np.ndarray:
    order = [] if arrival is None else [int(r) for r in arrival]
    if len(set(order)) != len(order) or any(not 0 <= r < procs for r in order):
        raise SpecError(f"arrival must list distinct ranks in 0..{procs - 1}, got {list(arrival or [])}")
    seen = set(order)
    order += [r for r in range(procs) if r not in seen]
    call = np.empty(procs)
    call[order] = np.arange(procs) * gap
    return call


def _kill(kill, procs: int) -> tuple[int, float] | None:
    if kill is None:
        return None
    try:
        rank, time = kill
        rank, time = int(rank), float(time)
    except (TypeError, ValueError):
        raise SpecError(f"kill must be (rank, time) or a fault location name, got {kill!r}") from None
    if not 0 <= rank < procs or not 0 <= time < float("inf"):
        raise SpecError(f"kill ({rank}, {time}) needs a rank in 0..{procs - 1} and a time >= 0")
    return rank, time


def make_setup(reduction: ReductionRun) -> RunSetup:
    """Check every field of ``reduction`` and build the :class:`RunSetup` (raises :class:`SpecError`)."""
    r = reduction
    procs = _int(r.procs, "procs", 2, MAX_PROCS)
    size = _int(r.size, "size (bytes)", 1, MAX_SIZE)
    root = _int(r.root, "root", 0, procs - 1)
    concurrent = _int(r.concurrent, "concurrent", 1, MAX_CONCURRENT)
    params = r.params
    if not isinstance(params, ReductionParams):
        params = ReductionParams.from_dict(dict(params))
    if r.nodes is not None and len(r.nodes) != procs:
        raise SpecError(f"nodes must give one topology node per process ({procs})")
    elements = elements_for(size, params.max_elements)
    data = [ReductionData(procs, elements, r.op, r.seed, c) for c in range(concurrent)]
    return RunSetup(
        procs=procs,
        size=size,
        roots=[(root + c) % procs for c in range(concurrent)],
        call=_call_times(procs, r.arrival, params.arrival_gap),
        env=Environment.build(procs, r.speeds, r.slow, r.interference),
        params=params,
        data=data,
        kill=_kill(r.kill, procs),
        seed=int(r.seed),
        nodes=[int(n) for n in r.nodes] if r.nodes is not None else [],
    )


class Recorder:
    """Collects timeline events (or nothing, when ``on`` is False: the fast path of batch experiments)."""

    def __init__(self, on: bool = True):
        self.on = on
        self.events: list[Event] = []

    def add(self, t: float, kind: str, label: str, changes: dict | None = None, src: int = -1, dst: int = -1) -> None:
        """Record one event (callers test :attr:`on` first when the label is costly to build)."""
        if self.on:
            self.events.append(Event(t, kind, src, dst, [], label, changes or {}))

    def sorted(self) -> list[Event]:
        """The events in time order (stable)."""
        return sorted(self.events, key=lambda e: e.t)
