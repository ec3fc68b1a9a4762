"""Static reduction algorithms: their message schedules and the α-β-γ cost model.

The schedules fix every message before the reduction starts (the point the
paper makes against them):

- :func:`binomial_schedule`: round ``k`` sends from relative rank ``x`` with
  ``x mod 2^(k+1) = 2^k`` to ``x − 2^k`` (relative ranks count from the root);
- :func:`mst_schedule`: the minimum-spanning-tree reduce of Chan et al. (early
  MPICH): split the ranks in two halves, reduce each half to one process
  (the root in its half, the far end of the other half), then one message
  joins the halves;
- :func:`rabenseifner_schedule`: reduce-scatter by recursive halving, then a
  binomial gather of the pieces to the root (Thakur, Rabenseifner, Gropp
  2005). For ``p`` not a power of two, with ``p' = 2^⌊log p⌋`` and
  ``r = p − p'``, the first ``2r`` relative ranks pair up first: each odd one
  sends its whole vector to the even one below it and drops out, leaving
  ``p'`` processes (the root, relative rank 0, always stays).

Costs (``n`` bytes, ``p`` processes; ``α`` latency, ``β`` time per byte, ``γ``
reduce time per byte, see :class:`~vizcoll.reduction.params.ReductionParams`):

- binomial and MST: ``T1 = ⌈log p⌉ · (α + n·β + n·γ)`` (:func:`binomial_cost`);
- Rabenseifner: ``T2 = 2·log p·α + 2·((p−1)/p)·n·β + ((p−1)/p)·n·γ`` for ``p``
  a power of two, plus one ``α + n·β + n·γ`` step otherwise, with ``p'`` in
  place of ``p`` (:func:`rabenseifner_cost`);
- the task-based reduction (eq. 3, an image in the source; reconstructed):
  ``⌈log p⌉ · (2θ + λ + 2α + n·β + n·γ) + ⌈log p⌉ · (α + 4·β)``: per round one
  reduction message and one task (2θ), the master's handling λ, a one-sided
  get (a request and a reply, 2α), then the 4-byte "done" broadcast
  (:func:`task_cost`).

The static algorithms are the entries of :data:`REGISTRY` (a :class:`StaticReduction` each: name, label, help,
schedule builder and cost), registered at the end of this module; every consumer (:func:`schedule`,
:func:`static_cost`, the simulation, the GOAL export, the CLI, the faults page) reads it when it runs, so one
:func:`register` line adds an algorithm everywhere.

References: [THAKUR05]; MST: [CHAN04], [CHAN07]; eq. 1 and 3: [FTRED18] (keys: ``docs/papers.md``).

>>> list(REGISTRY.names)
['binomial', 'mst', 'rabenseifner']
>>> [[(t.src, t.dst) for t in rnd] for rnd in binomial_schedule(4, root=1).rounds]
[[(2, 1), (0, 3)], [(3, 1)]]
>>> s = rabenseifner_schedule(6)
>>> len(s.rounds), s.blocks
(5, 4)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from vizcoll.errors import SpecError
from vizcoll.reduction.params import C1, ReductionParams
from vizcoll.registry import Registry

__all__ = [
    "REGISTRY",
    "StaticReduction",
    "BINOMIAL",
    "MST",
    "RABENSEIFNER",
    "register",
    "unregister",
    "reduction",
    "Transfer",
    "Schedule",
    "binomial_schedule",
    "mst_schedule",
    "rabenseifner_schedule",
    "schedule",
    "binomial_cost",
    "mst_cost",
    "rabenseifner_cost",
    "task_cost",
    "static_cost",
]


@dataclass(frozen=True)
class Transfer:
    """``src`` sends blocks ``[lo, hi)`` to ``dst``, which reduces them into its own (or stores them)."""

    src: int
    dst: int
    lo: int = 0
    hi: int = 1
    reduce: bool = True


@dataclass
class Schedule:
    """The rounds of messages of one static reduction; the vector is cut into ``blocks`` equal blocks."""

    algo: str
    procs: int
    root: int
    blocks: int = 1
    rounds: list[list[Transfer]] = field(default_factory=list)

    def nbytes(self, transfer: Transfer, size: int) -> float:
        """Bytes ``transfer`` carries when the whole vector has ``size`` bytes."""
        return size * (transfer.hi - transfer.lo) / self.blocks

    @property
    def messages(self) -> int:
        """Number of point-to-point messages."""
        return sum(len(r) for r in self.rounds)

    def to_dict(self, size: int = 0) -> dict:
        """Plain form: ``rounds`` as lists of ``[src, dst, bytes]``."""
        return {
            "algo": self.algo,
            "procs": self.procs,
            "root": self.root,
            "blocks": self.blocks,
            "rounds": [[[t.src, t.dst, self.nbytes(t, size)] for t in rnd] for rnd in self.rounds],
        }


@dataclass(frozen=True)
class StaticReduction:
    """A static reduction algorithm: ``name`` (``--algo``, the page's value), ``label`` (the faults page's option),
    ``help`` (one sentence: what it is), ``schedule(procs, root) -> Schedule`` (every message, fixed in advance) and
    ``cost(procs, size, params) -> seconds`` (its α-β-γ time)."""

    name: str
    label: str
    help: str
    schedule: Callable[[int, int], Schedule]
    cost: Callable[[int, float, ReductionParams], float]


REGISTRY: Registry[StaticReduction] = Registry("static reduction")
"""Every static reduction by name, in the order the CLI and the faults page list them."""
register, unregister, reduction = REGISTRY.register, REGISTRY.unregister, REGISTRY.lookup


def _check(procs: int, root: int) -> None:
    if isinstance(procs, bool) or not isinstance(procs, int) or procs < 1:
        raise SpecError(f"the number of processes must be an integer >= 1, got {procs!r}")
    if isinstance(root, bool) or not isinstance(root, int) or not 0 <= root < procs:
        raise SpecError(f"root {root!r} is not a rank in 0..{procs - 1}")


def _log2ceil(p: int) -> int:
    return (p - 1).bit_length()


def binomial_schedule(procs: int, root: int = 0) -> Schedule:
    """Binomial-tree reduce to ``root``: ``⌈log p⌉`` rounds, one whole vector per message."""
    _check(procs, root)
    rounds = []
    for k in range(_log2ceil(procs)):
        mask = 1 << k
        rnd = [Transfer((x + root) % procs, (x - mask + root) % procs) for x in range(mask, procs, 2 * mask)]
        rounds.append(rnd)
    return Schedule("binomial", procs, root, 1, rounds)


def _mst(lo: int, hi: int, root: int, depth: int, out: list) -> None:
    if lo >= hi:
        return
    mid = (lo + hi) // 2
    other = hi if root <= mid else lo
    left_root, right_root = (root, other) if root <= mid else (other, root)
    _mst(lo, mid, left_root, depth + 1, out)
    _mst(mid + 1, hi, right_root, depth + 1, out)
    out.append((depth, other, root))


def mst_schedule(procs: int, root: int = 0) -> Schedule:
    """Minimum-spanning-tree reduce (Chan et al.): recursive halving of the rank range."""
    _check(procs, root)
    msgs: list[tuple[int, int, int]] = []
    _mst(0, procs - 1, root, 0, msgs)
    depth = max((d for d, _, _ in msgs), default=-1)
    rounds = [[Transfer(s, d) for k, s, d in msgs if k == level] for level in range(depth, -1, -1)]
    return Schedule("mst", procs, root, 1, rounds)


def rabenseifner_schedule(procs: int, root: int = 0) -> Schedule:
    """Reduce-scatter (recursive halving) + binomial gather, any number of processes."""
    _check(procs, root)
    p2 = 1 << (procs.bit_length() - 1)
    extra = procs - p2
    rank = lambda rel: (rel + root) % procs  # noqa: E731
    real = lambda new: rank(2 * new if new < extra else new + extra)  # noqa: E731
    rounds = []
    if extra:
        rounds.append([Transfer(rank(x), rank(x - 1), 0, p2) for x in range(1, 2 * extra, 2)])
    d = p2 // 2
    while d >= 1:
        rnd = []
        for x in range(p2):
            start = x & ~(2 * d - 1)
            lo = start if x & d else start + d  # the half the partner keeps
            rnd.append(Transfer(real(x), real(x ^ d), lo, lo + d))
        rounds.append(rnd)
        d //= 2
    d = 1
    while d < p2:
        rounds.append([Transfer(real(x), real(x - d), x, x + d, reduce=False) for x in range(d, p2, 2 * d)])
        d *= 2
    return Schedule("rabenseifner", procs, root, p2, rounds)


def schedule(algo: str, procs: int, root: int = 0) -> Schedule:
    """The schedule of the registered static algorithm ``algo`` (SpecError listing the choices for another name)."""
    return reduction(algo).schedule(procs, root)


def binomial_cost(procs: int, size: float, params: ReductionParams = C1) -> float:
    """The α-β-γ time of the binomial (and MST) reduce: ``T1 = ⌈log p⌉ · (α + n·β + n·γ)`` (seconds).

    Parameters
    ----------
    procs : int
        Number of processes ``p``.
    size : float
        Bytes ``n`` each process reduces.
    params : ReductionParams
        Machine times (default: the calibrated cluster C1).

    Returns
    -------
    float
        The modelled time in seconds.

    References
    ----------
    [THAKUR05] Rajeev Thakur, Rolf Rabenseifner, William Gropp, "Optimization of collective communication operations
    in MPICH", International Journal of High Performance Computing Applications, 19(1): 49–66, 2005, DOI
    [10.1177/1094342005051521](https://doi.org/10.1177/1094342005051521). The binomial reduce.

    [CHAN07] Ernie Chan, Marcel Heimlich, Avi Purkayastha, Robert van de Geijn, "Collective communication: theory,
    practice, and experience", Concurrency and Computation: Practice and Experience, 19(13): 1749–1783, 2007, DOI
    [10.1002/cpe.1206](https://doi.org/10.1002/cpe.1206). The MST reduce and its cost.

    Examples
    --------
    >>> round(binomial_cost(8, 0, C1) * 1e6, 1)  # three rounds of latency
    150.0
    """
    return _log2ceil(procs) * (params.alpha + size * (params.beta + params.gamma))


mst_cost = binomial_cost


def rabenseifner_cost(procs: int, size: float, params: ReductionParams = C1) -> float:
    """The α-β-γ time of Rabenseifner's reduce (reduce-scatter by recursive halving, then a binomial gather).

    ``T2 = 2·log p·α + 2·((p−1)/p)·n·β + ((p−1)/p)·n·γ`` on ``p' = 2^⌊log p⌋`` processes, plus one whole-vector
    step ``α + n·β + n·γ`` when ``p`` is not a power of two.

    Parameters
    ----------
    procs : int
        Number of processes ``p``.
    size : float
        Bytes ``n`` each process reduces.
    params : ReductionParams
        Machine times (default: the calibrated cluster C1).

    Returns
    -------
    float
        The modelled time in seconds.

    References
    ----------
    [THAKUR05] Rajeev Thakur, Rolf Rabenseifner, William Gropp, "Optimization of collective communication operations
    in MPICH", International Journal of High Performance Computing Applications, 19(1): 49–66, 2005, DOI
    [10.1177/1094342005051521](https://doi.org/10.1177/1094342005051521). Rabenseifner's reduce and its cost.

    Examples
    --------
    >>> rabenseifner_cost(8, 1 << 20) < binomial_cost(8, 1 << 20)
    True
    """
    p2 = 1 << (procs.bit_length() - 1)
    share = (p2 - 1) / p2
    t = 2 * math.log2(p2) * params.alpha + 2 * share * size * params.beta + share * size * params.gamma
    if p2 != procs:
        t += params.alpha + size * (params.beta + params.gamma)
    return t


def task_cost(procs: int, size: float, params: ReductionParams = C1) -> float:
    """The modelled time of the task-based reduction, reconstructed eq. 3.

    ``⌈log p⌉·(2θ + λ + 2α + n·β + n·γ) + ⌈log p⌉·(α + 4β)``: per round one reduction message and one task
    (2θ), the master's handling λ, a one-sided get (2α), then the 4-byte "done" broadcast.

    Parameters
    ----------
    procs : int
        Number of processes ``p``.
    size : float
        Bytes ``n`` each process reduces.
    params : ReductionParams
        Machine times (default: the calibrated cluster C1).

    Returns
    -------
    float
        The modelled time in seconds.

    References
    ----------
    [FTRED18] Li Chao, Zhao Changhai, Yan Haihua, Liu Chao, Wen Jiamin, Wang Zengbo, "A fault tolerant
    high-performance reduction framework in complex environment", Journal of Beijing University of Aeronautics and
    Astronautics, 44(10): 2115–2124, 2018, DOI
    [10.13700/j.bh.1001-5965.2017.0786](https://doi.org/10.13700/j.bh.1001-5965.2017.0786). Eq. 3 (an image in the
    source; reconstructed).

    Examples
    --------
    >>> task_cost(8, 1 << 20) > binomial_cost(8, 1 << 20)
    True
    """
    rounds = _log2ceil(procs)
    per_round = 2 * params.theta + params.lam + 2 * params.alpha + size * (params.beta + params.gamma)
    return rounds * per_round + rounds * (params.alpha + 4 * params.beta)


def static_cost(algo: str, procs: int, size: float, params: ReductionParams = C1) -> float:
    """The α-β-γ time of the registered static algorithm ``algo``."""
    return reduction(algo).cost(procs, size, params)


# ---------------------------------------------------------------- the built-in algorithms, in the order listed
BINOMIAL = register(
    StaticReduction(
        "binomial", "binomial tree", "Binomial-tree reduce (MPICH, Open MPI, MVAPICH)", binomial_schedule, binomial_cost
    )
)
MST = register(
    StaticReduction(
        "mst", "MST (minimum spanning tree)", "Minimum-spanning-tree reduce (early MPICH)", mst_schedule, mst_cost
    )
)
RABENSEIFNER = register(
    StaticReduction(
        "rabenseifner",
        "Rabenseifner (reduce-scatter + gather)",
        "Rabenseifner's reduce-scatter + binomial gather",
        rabenseifner_schedule,
        rabenseifner_cost,
    )
)
