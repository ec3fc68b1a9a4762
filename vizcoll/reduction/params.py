"""Machine parameters of the reduction simulations (α-β-γ plus the task framework's θ and λ).

All times are in seconds, sizes in bytes. The defaults describe the paper's
test cluster C1 (200 nodes, 10 GbE) and are calibrated on what the paper
prints (the task-parallel reduction paper):

- ``beta = 1/812.7 MB/s``: the measured peak network bandwidth of one node
  (section 4.4); ``alpha = 50 μs``: an MPI point-to-point latency on 10 GbE.
- ``gamma = 0.2 ns/B``: reducing doubles at about 5 GB/s.
- ``lam`` (λ) = 12.6 μs: the master's handling time per message, the inverse
  of the measured peak of 79,365 received messages per second.
- ``theta`` (θ) = 4.2 ms: sending one reduction message or task through the
  framework. Table 1 gives the master's message rate during a reduction of
  200 processes; a reduction makes the master receive 399 messages (200 first
  messages + 199 results) and send 199 tasks, which matches the printed
  sent/received ratio (0.499). So the reduction time is 399 / rate: 76 ms at
  128 KB and 1.60 s at 128 MB, that is about 11.4 ns per byte (≈ 8 rounds of
  β + γ) plus ≈ 76 ms of fixed cost: ≈ 9.5 ms per round, two framework
  messages (2θ) per round. ``benchmarks/reduction.py`` prints the fit.
- Fault tolerance: the remote copy of the original data is a network transfer
  (α + n·β) followed by the neighbor's write into the page cache of its local
  disk (``disk_beta`` = 0.5 ns/B, 2 GB/s; the local copy is the same write);
  the master pings every ``ping_period`` and declares a process failed when
  it does not answer within ``ping_timeout``.

References: [FTRED18, §4.4] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

from vizcoll.errors import SpecError

__all__ = ["ReductionParams", "C1"]


@dataclass(frozen=True)
class ReductionParams:
    """Times of one machine (α-β-γ plus the task framework's θ and λ); the defaults are the paper's cluster C1.

    All times are in seconds, sizes in bytes; see the module docstring for how the defaults were calibrated.
    Construction raises :class:`~vizcoll.errors.SpecError` for a negative or non-numeric field,
    ``ping_period <= 0`` or ``max_elements < 1``.

    Parameters
    ----------
    alpha : float
        α, latency of one point-to-point data message (s).
    beta : float
        β, transfer time per byte (s/B).
    gamma : float
        γ, reduce time per byte (s/B).
    theta : float
        θ, time to send one reduction message (worker → master) or one task
        (master → worker) (s).
    lam : float
        λ, the master's handling time per received message (s); messages
        arriving together queue for it.
    disk_beta : float
        Write or read time per byte of the local disk holding replicas (s/B).
    ping_period : float
        The master pings every process every ``ping_period`` (s).
    ping_timeout : float
        No answer to a ping within ``ping_timeout`` means failed (s).
    arrival_gap : float
        Time between two processes calling reduce, in arrival order (s).
    max_elements : int
        Cap on the number of int64 elements each process really reduces (the
        timing always uses the full size).

    References
    ----------
    [FTRED18] Li Chao, Zhao Changhai, Yan Haihua, Liu Chao, Wen Jiamin, Wang Zengbo, "A fault tolerant
    high-performance reduction framework in complex environment", Journal of Beijing University of Aeronautics and
    Astronautics, 44(10): 2115–2124, 2018, DOI
    [10.13700/j.bh.1001-5965.2017.0786](https://doi.org/10.13700/j.bh.1001-5965.2017.0786). Section 4.4 and Table 1
    (the calibration).

    Examples
    --------
    >>> fast = ReductionParams().with_(alpha=1e-6)
    >>> fast.alpha, ReductionParams.from_dict(fast.to_dict()) == fast
    (1e-06, True)
    """

    alpha: float = 50e-6
    beta: float = 1 / 812.7e6
    gamma: float = 0.2e-9
    theta: float = 4.2e-3
    lam: float = 12.6e-6
    disk_beta: float = 0.5e-9
    ping_period: float = 0.05
    ping_timeout: float = 0.02
    arrival_gap: float = 1e-6
    max_elements: int = 4096

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise SpecError(f"reduction parameter {f.name!r} must be a number >= 0, got {value!r}")
        if self.ping_period <= 0:
            raise SpecError("ping_period must be > 0")
        if int(self.max_elements) < 1:
            raise SpecError("max_elements must be >= 1")

    def with_(self, **changes) -> ReductionParams:
        """A copy with some fields changed.

        Parameters
        ----------
        **changes
            New values by field name.

        Returns
        -------
        ReductionParams
            The copy, checked.
        """
        return replace(self, **changes)

    def to_dict(self) -> dict:
        """Plain JSON-serialisable form.

        Returns
        -------
        dict
            Every field by name.
        """
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ReductionParams:
        """Inverse of :meth:`to_dict`.

        Parameters
        ----------
        data : dict
            Fields by name (missing ones take their defaults).

        Returns
        -------
        ReductionParams
            The parameters, checked.

        Raises
        ------
        SpecError
            For an unknown key or a bad value.
        """
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise SpecError(f"unknown reduction parameter {unknown[0]!r}; known: {', '.join(sorted(names))}")
        return cls(**data)


C1 = ReductionParams()
"""The calibrated defaults (the paper's test cluster C1)."""
