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
from dataclasses import dataclass

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


class Schedule:
    """Operations and dependencies of ``num_ranks`` ranks: what LogGOPSim's GOAL format describes.

    Every rank has a list of operations, numbered per rank in the order they were added (the order they are
    written to a GOAL file); ``requires`` makes one operation start only after another has *finished*,
    ``irequires`` after it has *started*. A schedule read from a GOAL file holds its operations as columns
    (:mod:`vizcoll.schedule.columns`, what the timing and the checks read) and makes the lists of :attr:`ops`,
    :attr:`requires` and :attr:`irequires` the first time one of them is read; from then on the lists are the
    schedule (a change to them counts).

    Parameters
    ----------
    num_ranks : int
        Number of ranks (at least 1; :class:`~vizcoll.errors.SpecError` otherwise).
    ops : list of list of Op, optional
        Each rank's operations.
    requires : list of list of (int, int), optional
        Each rank's ``(a, b)`` pairs: operation ``a`` starts after ``b`` has finished.
    irequires : list of list of (int, int), optional
        Each rank's ``(a, b)`` pairs: operation ``a`` starts after ``b`` has started.
    name : str
        What the schedule is (written as a comment).

    References
    ----------
    [LOGGOPSIM10] Torsten Hoefler, Timo Schneider, Andrew Lumsdaine, "LogGOPSim — Simulating Large-Scale
    Applications in the LogGOPS Model", HPDC 2010, pp. 597–604, DOI
    [10.1145/1851476.1851564](https://doi.org/10.1145/1851476.1851564). The GOAL format.

    Examples
    --------
    >>> s = Schedule(2, name="ping")
    >>> s.send(0, to=1, size=8), s.recv(1, source=0, size=8), s.calc(1, 500, after=[0])
    (0, 0, 1)
    >>> s.n_ops, s.messages(), s.requires
    (3, 1, [[], [(1, 0)]])
    """

    def __init__(
        self,
        num_ranks: int,
        ops: list[list[Op]] | None = None,
        requires: list[list[tuple[int, int]]] | None = None,
        irequires: list[list[tuple[int, int]]] | None = None,
        name: str = "",
    ) -> None:
        if isinstance(num_ranks, bool) or not isinstance(num_ranks, int) or num_ranks < 1:
            raise SpecError(f"a schedule needs at least one rank, got {num_ranks!r}")
        self.num_ranks, self.name, self.columns = num_ranks, name, None
        self._lists = tuple([] if lists is None else lists for lists in (ops, requires, irequires))
        for lists in self._lists:
            lists.extend([] for _ in range(num_ranks - len(lists)))

    @classmethod
    def of_columns(cls, columns, name: str = "") -> Schedule:
        """The schedule of :class:`~vizcoll.schedule.columns.Columns` (its lists made when first read)."""
        schedule = cls(columns.num_ranks, name=name)
        schedule.columns, schedule._lists = columns, None
        return schedule

    def _made(self) -> tuple[list, list, list]:
        if self._lists is None:
            self._lists, self.columns = self.columns.to_lists(), None
        return self._lists

    @property
    def ops(self) -> list[list[Op]]:
        return self._made()[0]

    @property
    def requires(self) -> list[list[tuple[int, int]]]:
        return self._made()[1]

    @property
    def irequires(self) -> list[list[tuple[int, int]]]:
        return self._made()[2]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Schedule):
            return NotImplemented
        return (self.num_ranks, self.name, self._made()) == (other.num_ranks, other.name, other._made())

    def __repr__(self) -> str:
        return f"Schedule(num_ranks={self.num_ranks!r}, name={self.name!r}, n_ops={self.n_ops})"

    # ------------------------------------------------------------ building
    def add(self, rank: int, op: Op, after: Iterable[int] = (), started: Iterable[int] = ()) -> int:
        """Append ``op`` to ``rank``; it waits for the ops ``after`` to finish and ``started`` to start.

        Parameters
        ----------
        rank : int
            The rank, ``0..num_ranks-1``.
        op : Op
            The operation.
        after : iterable of int
            Operations of ``rank`` that must finish first (``requires``).
        started : iterable of int
            Operations of ``rank`` that must have started (``irequires``).

        Returns
        -------
        int
            The new operation's number on ``rank``.

        Raises
        ------
        SpecError
            For a rank outside the schedule, or a schedule already at its most operations.
        """
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
        """Append a send of ``size`` bytes from ``rank`` to ``to`` (see :meth:`add`).

        Parameters
        ----------
        rank : int
            The sender.
        to : int
            The receiver.
        size : int
            Bytes.
        tag : int
            Matches the receive.
        after : iterable of int
            Operations of ``rank`` that must finish first.

        Returns
        -------
        int
            The operation's number on ``rank``.
        """
        return self.add(rank, Op("send", size, to, tag), after)

    def recv(self, rank: int, source: int, size: int, tag: int = 0, after: Iterable[int] = ()) -> int:
        """Append a receive of ``size`` bytes on ``rank`` from ``source`` (see :meth:`add`).

        Parameters
        ----------
        rank : int
            The receiver.
        source : int
            The sender, or ``ANY`` (-1).
        size : int
            Bytes.
        tag : int
            Matches the send (``ANY``: any tag).
        after : iterable of int
            Operations of ``rank`` that must finish first.

        Returns
        -------
        int
            The operation's number on ``rank``.
        """
        return self.add(rank, Op("recv", size, source, tag), after)

    def calc(self, rank: int, time: int, after: Iterable[int] = ()) -> int:
        """Append a computation of ``time`` units on ``rank`` (see :meth:`add`).

        Parameters
        ----------
        rank : int
            The rank.
        time : int
            Time units (nominally ns) the CPU is busy.
        after : iterable of int
            Operations of ``rank`` that must finish first.

        Returns
        -------
        int
            The operation's number on ``rank``.
        """
        return self.add(rank, Op("calc", time), after)

    # ------------------------------------------------------------ reading
    @property
    def n_ops(self) -> int:
        if self.columns is not None:
            return self.columns.n_ops
        return sum(len(ops) for ops in self.ops)

    def messages(self) -> int:
        """Number of sends.

        Returns
        -------
        int
            The messages of the schedule.
        """
        if self.columns is not None:
            return self.columns.messages()
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
