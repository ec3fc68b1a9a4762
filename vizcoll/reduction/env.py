"""Node speeds that differ and change: slow nodes, interference episodes, the work a node does in time.

A node's *slowdown factor* at time ``t`` is its base factor (``1/speed``,
times the factor of ``slow``) times the factors of the interference episodes
active at ``t``. Work ``w`` (seconds at full speed) started at ``t0`` on a set
of nodes ends when ``∫ dt / f(t) = w``, with ``f`` the largest factor of the
set (a transfer is as slow as the slower of its two ends).

:func:`interference` draws the episodes of a busy cluster (a co-scheduled job
like the paper's PSDM, or the production cluster C2).

>>> env = Environment.build(2, slow=[(1, 4.0)], interference=[(0, 1.0, 2.0, 3.0)])
>>> env.finish((0,), 0.0, 1.25)   # 1 s at full speed, then 0.25 s of work takes 0.75 s
1.75
>>> env.finish((0, 1), 0.0, 1.0)  # node 1 is 4 times slower
4.0
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from vizcoll.errors import SpecError

__all__ = ["Environment", "interference", "parse_slow", "parse_interference"]

Episode = tuple[int, float, float, float]


@dataclass
class _Profile:
    """Piecewise-constant slowdown of one node: ``factors[k]`` holds on ``[times[k], times[k+1])``."""

    times: list[float]
    factors: list[float]

    def at(self, t: float) -> int:
        return max(bisect_right(self.times, t) - 1, 0)


class Environment:
    """Slowdown factors of ``procs`` nodes over time (build with :meth:`build`)."""

    def __init__(self, procs: int, base: np.ndarray, episodes: Sequence[Episode] = ()):
        self.procs = int(procs)
        self.base = np.asarray(base, dtype=float)
        self.episodes = [tuple(e) for e in episodes]
        by_rank: dict[int, list[Episode]] = {}
        for ep in self.episodes:
            by_rank.setdefault(int(ep[0]), []).append(ep)
        self._profiles = {r: self._profile(r, eps) for r, eps in by_rank.items()}

    @classmethod
    def build(
        cls, procs: int, speeds: Sequence[float] | None = None, slow: Iterable = (), interference: Iterable = ()
    ) -> Environment:
        """Check and combine ``speeds`` (per rank, 1 = nominal), ``slow`` ((rank, factor) pairs)
        and ``interference`` ((rank, start, end, factor) episodes)."""
        base = np.ones(procs)
        if speeds is not None:
            speeds = np.asarray(speeds, dtype=float)
            if speeds.shape != (procs,) or not np.all(np.isfinite(speeds)) or np.any(speeds <= 0):
                raise SpecError(f"speeds must be {procs} positive numbers")
            base /= speeds
        for rank, factor in slow:
            _check_rank(rank, procs, "slow")
            _check_factor(factor, "slow")
            base[int(rank)] *= float(factor)
        episodes = []
        for ep in interference:
            if len(ep) != 4:
                raise SpecError(f"an interference episode is (rank, start, end, factor), got {ep!r}")
            rank, start, end, factor = ep
            _check_rank(rank, procs, "interference")
            _check_factor(factor, "interference")
            if not (0 <= float(start) < float(end) and math.isfinite(float(end))):
                raise SpecError(f"interference episode {ep!r} needs 0 <= start < end")
            episodes.append((int(rank), float(start), float(end), float(factor)))
        return cls(procs, base, episodes)

    def _profile(self, rank: int, eps: list[Episode]) -> _Profile:
        """Sweep the episode boundaries in time order, multiplying the factors active on each segment."""
        marks = sorted([(e[1], 1, e[3]) for e in eps] + [(e[2], -1, e[3]) for e in eps])
        active: list[float] = []
        times, factors = [0.0], [float(self.base[rank])]
        for t, sign, factor in marks:
            if sign > 0:
                active.append(factor)
            else:
                active.remove(factor)
            f = float(self.base[rank] * math.prod(active))
            if t == times[-1]:
                factors[-1] = f
            else:
                times.append(t)
                factors.append(f)
        return _Profile(times, factors)

    def factor(self, rank: int, t: float) -> float:
        """Slowdown factor of ``rank`` at time ``t`` (1 = full speed)."""
        prof = self._profiles.get(rank)
        if prof is None:
            return float(self.base[rank])
        return prof.factors[prof.at(t)]

    def finish(self, ranks: tuple[int, ...], start: float, work: float) -> float:
        """End time of ``work`` seconds (at full speed) started at ``start`` on ``ranks`` together."""
        if work <= 0:
            return start
        profs = [self._profiles[r] for r in ranks if r in self._profiles]
        base = max(float(self.base[r]) for r in ranks)
        if not profs:
            return start + work * base
        t, left = start, work
        while True:
            f = max([base] + [p.factors[p.at(t)] for p in profs])
            nxt = min(
                (p.times[p.at(t) + 1] for p in profs if p.at(t) + 1 < len(p.times) and p.times[p.at(t) + 1] > t),
                default=math.inf,
            )
            if (nxt - t) / f >= left:
                return t + left * f
            left -= (nxt - t) / f
            t = nxt

    def is_uniform(self) -> bool:
        """True when every node runs at full speed all the time."""
        return not self.episodes and bool(np.all(self.base == 1.0))


def _check_rank(rank, procs: int, what: str) -> None:
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or not 0 <= rank < procs:
        raise SpecError(f"{what}: rank {rank!r} is not in 0..{procs - 1}")


def _check_factor(factor, what: str) -> None:
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not (1 <= factor < math.inf):
        raise SpecError(f"{what}: the slowdown factor must be a number >= 1, got {factor!r}")


def interference(
    procs: int,
    horizon: float,
    seed: int = 0,
    nodes: int | None = None,
    load: float = 0.5,
    factors: tuple[float, float] = (2.0, 8.0),
    mean_length: float = 0.2,
) -> list[Episode]:
    """Random interference episodes of a co-scheduled job on ``nodes`` of the ``procs`` nodes.

    Each affected node alternates between quiet and busy periods (exponential
    lengths, busy ``load`` of the time on average, busy periods of mean
    ``mean_length`` seconds); while busy it is slowed by a factor drawn
    uniformly from ``factors``. Nodes are chosen at random (``nodes=None``: all).
    Episodes cover ``[0, horizon)``.
    """
    if not 0 < load < 1:
        raise SpecError("load must be in (0, 1)")
    rng = np.random.default_rng(seed)
    count = procs if nodes is None else min(int(nodes), procs)
    chosen = np.sort(rng.choice(procs, size=count, replace=False))
    quiet = mean_length * (1 - load) / load
    out: list[Episode] = []
    for rank in chosen.tolist():
        t = -rng.uniform(0, quiet + mean_length)  # a random phase
        busy = bool(rng.random() < load)
        while t < horizon:
            length = rng.exponential(mean_length if busy else quiet)
            if busy and t + length > 0:
                out.append((rank, max(t, 0.0), min(t + length, horizon), float(rng.uniform(*factors))))
            t += length
            busy = not busy
    return [e for e in out if e[2] > e[1]]


def parse_slow(text: str) -> list[tuple[int, float]]:
    """Read the command line's ``--slow``: ``"2:4,5:3"`` -> ``[(2, 4.0), (5, 3.0)]``.

    Parameters
    ----------
    text : str
        Comma-separated ``rank:factor`` items; a bare rank means factor 4.

    Returns
    -------
    list of (int, float)
        The ``slow`` argument of the reduction simulations.

    Raises
    ------
    SpecError
        For an item that is not ``rank[:factor]``.

    Examples
    --------
    >>> parse_slow("2:4,5:3,7")
    [(2, 4.0), (5, 3.0), (7, 4.0)]
    """
    out = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        rank, _, factor = item.partition(":")
        try:
            out.append((int(rank), float(factor) if factor else 4.0))
        except ValueError:
            raise SpecError(f"--slow takes rank:factor items like 2:4,5:3, got {item!r}") from None
    return out


def parse_interference(text: str) -> list[Episode]:
    """Read the command line's ``--interference``: ``"3@0.1-0.5x4,7@0-1x2"`` -> episodes.

    Parameters
    ----------
    text : str
        Comma-separated ``rank@start-end x factor`` items (times in seconds).

    Returns
    -------
    list of (int, float, float, float)
        ``(rank, start, end, factor)`` episodes, the ``interference`` argument of the reduction simulations.

    Raises
    ------
    SpecError
        For an item that is not of that form.

    Examples
    --------
    >>> parse_interference("3@0.1-0.5x4,7@0-1x2")
    [(3, 0.1, 0.5, 4.0), (7, 0.0, 1.0, 2.0)]
    """
    out = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        try:
            rank, _, rest = item.partition("@")
            span, _, factor = rest.partition("x")
            start, _, end = span.partition("-")
            out.append((int(rank), float(start), float(end), float(factor)))
        except ValueError:
            raise SpecError(
                f"--interference takes rank@start-endxfactor items like 3@0.1-0.5x4, got {item!r}"
            ) from None
    return out
