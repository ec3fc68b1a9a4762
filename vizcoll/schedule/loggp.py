"""LogGP timing of a schedule, as LogGOPSim computes it (Hoefler, Schneider, Lumsdaine, HPDC 2010).

One CPU and one NIC per host unless operations name others (``cpu`` /
``nic``). For a message of ``n`` bytes:

- a **send** starts when its dependencies allow, the CPU and the sending NIC
  are free; the CPU is then busy ``o + (n-1)·O``, the NIC ``g + (n-1)·G``, and
  the message reaches the receiver at ``start + o + L``;
- the receiver **handles** an arrived message when its CPU and receiving NIC
  are free (whether or not a receive is posted: an unposted one waits in the
  unexpected queue): CPU busy ``o + max((n-1)·O, (n-1)·G)``, NIC ``g + (n-1)·G``;
- posting a **receive** costs nothing; it finishes when its message has been
  handled (at once if the message was already handled);
- ``calc N`` keeps the CPU busy ``N``;
- **eager** (``n <= S``): the send finishes once the CPU is free again;
  **rendezvous** (``n > S``): it finishes only when the receiver matches it,
  and the sender's CPU and NIC are then busy until that moment at least;
- a host finishes when its CPU is last free; the makespan is the latest host.

The event order is LogGOPSim's, on :class:`vizcoll.sim.engine.Engine`: events
by time, then by the order operations first became ready (a deferred operation
keeps its place); operations freed together queue sends, then receives, then
computations. Matching is MPI's: the first posted receive (or unexpected
message) whose source and tag fit, ``-1`` matching anything. Messages travel
without congestion (LogGOPSim without a network file).

References: [LOGGP95]; [LOGGOPSIM10] (keys: ``docs/papers.md``).

>>> from vizcoll.schedule.model import Schedule
>>> s = Schedule(2); a = s.send(0, 1, 1); b = s.recv(1, 0, 1)
>>> simulate(s, LogGP(L=1000, o=100, g=0, G=0, O=0)).finish
[100, 1200]
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.schedule.columns import CALC, Columns, columns_of
from vizcoll.schedule.loggp_events import run
from vizcoll.schedule.model import Schedule

__all__ = ["LogGP", "LogGPResult", "simulate", "MAX_EVENTS"]

MAX_EVENTS = 50_000_000


@dataclass(frozen=True)
class LogGP:
    """The LogGP parameters (integers, nominally ns); the defaults are LogGOPSim's.

    Every parameter is a whole number from 0 to 10^12 (:class:`~vizcoll.errors.SpecError` otherwise).

    Parameters
    ----------
    L : int
        Latency of a message on the wire.
    o : int
        CPU overhead of sending or receiving a message.
    g : int
        Gap between two messages on a NIC.
    G : int
        Gap per byte (``(n-1)·G`` for ``n`` bytes).
    O : int
        CPU overhead per byte.
    S : int
        Largest eager message; a larger one uses rendezvous.

    References
    ----------
    [LOGGP95] A. Alexandrov, M. F. Ionescu, K. E. Schauser, C. Scheiman, "LogGP: Incorporating Long Messages into
    the LogP Model", SPAA 1995, pp. 95–105, DOI [10.1145/215399.215427](https://doi.org/10.1145/215399.215427).

    [LOGGOPSIM10] Torsten Hoefler, Timo Schneider, Andrew Lumsdaine, "LogGOPSim — Simulating Large-Scale
    Applications in the LogGOPS Model", HPDC 2010, pp. 597–604, DOI
    [10.1145/1851476.1851564](https://doi.org/10.1145/1851476.1851564). The defaults.

    Examples
    --------
    >>> LogGP.parse("L=1000,o=100")
    LogGP(L=1000, o=100, g=1000, G=6, O=0, S=65535)
    """

    L: int = 2500
    o: int = 1500
    g: int = 1000
    G: int = 6
    O: int = 0  # noqa: E741 - the model's name
    S: int = 65535

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10**12:
                raise SpecError(f"LogGP parameter {name} must be a whole number from 0 to 10^12, got {value!r}")

    @classmethod
    def parse(cls, text: str) -> LogGP:
        """Read the command line's ``--loggp``: ``"L=1000,o=100,g=0,G=0,O=0,S=65535"``.

        Parameters
        ----------
        text : str
            Any subset of the parameters, ``NAME=integer`` separated by commas; the others keep LogGOPSim's
            defaults.

        Returns
        -------
        LogGP
            The parameters.

        Raises
        ------
        SpecError
            For an item that is not ``NAME=integer`` or a value out of range.
        """
        values = {}
        for part in filter(None, (p.strip() for p in str(text).split(","))):
            match = re.fullmatch(r"([LogGOS])\s*=\s*([0-9]+)", part)
            if not match:
                raise SpecError(f"bad LogGP parameter {part!r}; write L=1000,o=100,g=0,G=0,O=0,S=65535")
            values[match[1]] = int(match[2])
        return cls(**values)


@dataclass
class LogGPResult:
    """Finishing time per rank, the makespan and the host reaching it, and what did not complete.

    What :func:`simulate` returns; ``makespan``, ``host`` and ``complete`` are properties.

    Attributes
    ----------
    finish : list of int
        When each rank finishes (its CPU is last free).
    unexpected : list of dict
        Messages sent that no receive matched.
    unreceived : list of dict
        Receives posted that no message matched.
    not_run : list of int
        Per rank, operations that never ran (blocked by a dependency).
    trace : list of dict
        With ``trace=True``: every operation's start and end.
    """

    finish: list[int]
    unexpected: list[dict] = field(default_factory=list)
    unreceived: list[dict] = field(default_factory=list)
    not_run: list[int] = field(default_factory=list)
    trace: list[dict] = field(default_factory=list)

    @property
    def makespan(self) -> int:
        return max(self.finish, default=0)

    @property
    def host(self) -> int:
        """The first rank finishing at the makespan (LogGOPSim's "Maximum finishing time at host H")."""
        return self.finish.index(self.makespan) if self.finish else 0

    @property
    def complete(self) -> bool:
        return not (self.unexpected or self.unreceived or any(self.not_run))

    def to_dict(self, trace: bool = False) -> dict:
        out = {
            "makespan": self.makespan,
            "host": self.host,
            "finish": list(self.finish),
            "complete": self.complete,
            "unexpected": self.unexpected,
            "unreceived": self.unreceived,
            "not_run": {str(r): n for r, n in enumerate(self.not_run) if n},
        }
        if trace:
            out["trace"] = self.trace
        return out


def simulate(schedule: Schedule, params: LogGP | None = None, trace: bool = False) -> LogGPResult:
    """The LogGP timing of ``schedule``, as LogGOPSim computes it.

    A send keeps the CPU busy ``o + (n-1)·O`` and the NIC ``g + (n-1)·G`` and reaches the receiver ``o + L`` after
    it starts; the receiver handles an arrived message when its CPU and NIC are free; eager messages (``n <= S``)
    finish when the CPU is free again, rendezvous ones when the receiver matches them; matching is MPI's; no
    congestion (see the module docstring for every rule and the event order).

    Parameters
    ----------
    schedule : Schedule
        The schedule.
    params : LogGP, optional
        The parameters (default: LogGOPSim's).
    trace : bool
        Record every operation (what :func:`vizcoll.schedule.replay.loggp_timeline` draws).

    Returns
    -------
    LogGPResult
        The finishing times and what did not complete.

    Raises
    ------
    SpecError
        For a 0-byte message with ``G`` or ``O`` > 0 (LogGOPSim's unsigned ``(n-1)``).
    RuntimeError
        When the run takes more than :data:`MAX_EVENTS` events.

    References
    ----------
    [LOGGOPSIM10] Torsten Hoefler, Timo Schneider, Andrew Lumsdaine, "LogGOPSim — Simulating Large-Scale
    Applications in the LogGOPS Model", HPDC 2010, pp. 597–604, DOI
    [10.1145/1851476.1851564](https://doi.org/10.1145/1851476.1851564). The timing rules.

    [LOGGP95] A. Alexandrov, M. F. Ionescu, K. E. Schauser, C. Scheiman, "LogGP: Incorporating Long Messages into
    the LogP Model", SPAA 1995, pp. 95–105, DOI [10.1145/215399.215427](https://doi.org/10.1145/215399.215427).

    Examples
    --------
    >>> from vizcoll.schedule.model import Schedule
    >>> s = Schedule(2); a = s.send(0, 1, 1); b = s.recv(1, 0, 1)
    >>> result = simulate(s, LogGP(L=1000, o=100, g=0, G=0, O=0))
    >>> result.finish, result.makespan, result.host, result.complete
    ([100, 1200], 1200, 1, True)
    """
    params = params or LogGP()
    columns = columns_of(schedule)
    _check_sizes(columns, params)
    return LogGPResult(*run(columns, params, trace, MAX_EVENTS))


def _check_sizes(c: Columns, p: LogGP) -> None:
    if p.G or p.O:
        zero = (c.kind != CALC) & (c.size == 0)
        if zero.any():
            rank = int(np.searchsorted(c.start, np.argmax(zero), side="right")) - 1
            raise SpecError(
                f"rank {rank} has a 0-byte message: LogGOPSim computes (n-1)·G and (n-1)·O "
                "on unsigned integers, so 0-byte messages need G = O = 0"
            )
