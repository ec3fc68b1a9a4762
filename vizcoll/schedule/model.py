"""A communication schedule: per rank, its sends, receives and computations, and the order between them.

This is what LogGOPSim's GOAL format describes (Hoefler, Schneider, Lumsdaine,
HPDC 2010): every rank has a list of operations; ``requires`` makes one
operation start only after another has *finished*, ``irequires`` after it has
*started*. Operations are numbered per rank in the order they were added (the
order they are written to a GOAL file).

References: [LOGGOPSIM10] (keys: ``docs/papers.md``).

>>> s = Schedule(2)
>>> a = s.send(0, to=1, size=8)
>>> b = s.recv(1, source=0, size=8)
>>> c = s.calc(1, 500, after=[b])
>>> s.ops[1][c], s.requires[1]
(Op(kind='calc', size=500, peer=-1, tag=0, cpu=0, nic=0), [(1, 0)])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from vizcoll.errors import SpecError

__all__ = ["ANY", "KINDS", "MAX_OPS", "Op", "Schedule"]

ANY = -1
"""``from -1`` (any source) and ``tag -1`` (any tag) of a receive."""
KINDS = ("send", "recv", "calc")
MAX_OPS = 2_000_000
"""Most operations one schedule may hold (a file of about 60 MB of GOAL text)."""


@dataclass(frozen=True)
class Op:
    """One operation: ``send`` ``size`` bytes to ``peer``, ``recv`` ``size`` bytes from ``peer`` (``ANY`` = any
    source), or ``calc`` (``size`` = time units); ``tag`` matches sends with receives (``ANY`` on a receive =
    any tag); ``cpu`` / ``nic`` pick the host's processor and network interface."""

    kind: str
    size: int
    peer: int = -1
    tag: int = 0
    cpu: int = 0
    nic: int = 0


@dataclass
class Schedule:
    """Operations and dependencies of ``num_ranks`` ranks; see the module docstring."""

    num_ranks: int
    ops: list[list[Op]] = field(default_factory=list)
    requires: list[list[tuple[int, int]]] = field(default_factory=list)
    irequires: list[list[tuple[int, int]]] = field(default_factory=list)
    name: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.num_ranks, bool) or not isinstance(self.num_ranks, int) or self.num_ranks < 1:
            raise SpecError(f"a schedule needs at least one rank, got {self.num_ranks!r}")
        for lists in (self.ops, self.requires, self.irequires):
            lists.extend([] for _ in range(self.num_ranks - len(lists)))

    # ------------------------------------------------------------ building
    def add(self, rank: int, op: Op, after: Iterable[int] = (), started: Iterable[int] = ()) -> int:
        """Append ``op`` to ``rank``; it waits for the ops ``after`` to finish and ``started`` to start."""
        if not 0 <= rank < self.num_ranks:
            raise SpecError(f"rank {rank} is outside 0..{self.num_ranks - 1}")
        if self.n_ops >= MAX_OPS:
            raise SpecError(f"a schedule holds at most {MAX_OPS:,} operations")
        index = len(self.ops[rank])
        self.ops[rank].append(op)
        self.requires[rank].extend((index, b) for b in after)
        self.irequires[rank].extend((index, b) for b in started)
        return index

    def send(self, rank: int, to: int, size: int, tag: int = 0, after: Iterable[int] = ()) -> int:
        return self.add(rank, Op("send", size, to, tag), after)

    def recv(self, rank: int, source: int, size: int, tag: int = 0, after: Iterable[int] = ()) -> int:
        return self.add(rank, Op("recv", size, source, tag), after)

    def calc(self, rank: int, time: int, after: Iterable[int] = ()) -> int:
        return self.add(rank, Op("calc", time), after)

    # ------------------------------------------------------------ reading
    @property
    def n_ops(self) -> int:
        return sum(len(ops) for ops in self.ops)

    def messages(self) -> int:
        """Number of sends."""
        return sum(op.kind == "send" for ops in self.ops for op in ops)

    def to_dict(self) -> dict:
        return {
            "schema": "vizcoll.schedule/1",
            "name": self.name,
            "num_ranks": self.num_ranks,
            "ops": [[[op.kind, op.size, op.peer, op.tag, op.cpu, op.nic] for op in ops] for ops in self.ops],
            "requires": [[list(d) for d in deps] for deps in self.requires],
            "irequires": [[list(d) for d in deps] for deps in self.irequires],
        }
