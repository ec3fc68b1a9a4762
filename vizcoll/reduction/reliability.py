"""The paper's fault-tolerance experiment (section 4.5): how often a killed process cannot be recovered.

Each "day" first runs ``warmup`` (9) fault-free reductions to get the mean
time ``t``, then ``per_day`` (100) reductions, each killing process ``victim``
(1) at a time drawn uniformly from ``[0, t]``; a run is unrecoverable when the
victim's original data was still needed but its remote replica did not exist
yet. The paper: 32 MB, 200 processes, the busy production cluster C2, 7 days,
2 + 1 + 0 + 2 + 3 + 1 + 2 unrecoverable out of 700: reliability 98.43 %
(printed; 689/700 is 98.43 %).

The environment is the production cluster: every node is busy with other
jobs about ``load`` of the time, slowed by a factor drawn from ``factors``
(:func:`vizcoll.reduction.env.interference`); every run sees a fresh sample.

What drives the figure: a kill is unrecoverable only while the victim's data
is still needed and its copy has not reached the remote node yet (``α + n·β``,
about 41 ms for 32 MB at full speed, longer while the victim is busy), so
``1 − δ ≈ w / t`` with ``w`` the part of that copy time before the victim's
data is reduced into another's (reconstructed eq. 5). ``t`` grows with ``log p`` and with the load while the
copy time does not depend on ``p``: the reliability grows with ``p`` and with
the load.

The runs are tasks (:mod:`vizcoll.tasks`): a day's warm-up, then :data:`CHUNK` killed runs, their seeds and
kill times drawn beforehand from the one stream the experiment always drew them from (the same figures
whether the tasks run here or on a Dask cluster).

References: [FTRED18, §4.5] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.reduction.common import ReductionRun
from vizcoll.reduction.env import interference
from vizcoll.reduction.params import ReductionParams
from vizcoll.reduction.static import task_cost
from vizcoll.reduction.task import task_figures, task_run
from vizcoll.tasks import Runner, in_process

__all__ = ["PAPER_RELIABILITY", "PAPER_RUN", "PAPER_UNRECOVERABLE", "reliability_experiment", "production"]

PAPER_UNRECOVERABLE = (2, 1, 0, 2, 3, 1, 2)
PAPER_RELIABILITY = 0.9843
CHUNK = 20
"""Killed runs per task (a day's 100 runs make five tasks)."""
PAPER_RUN = ReductionRun(200, 32 << 20)
"""The paper's reduction: 200 processes, 32 MB each (the root, not given by the paper: 0)."""


def production(
    procs: int,
    horizon: float,
    seed: int,
    load: float = 0.5,
    factors: tuple[float, float] = (2.0, 8.0),
    mean_length: float = 0.2,
) -> list:
    """Interference episodes of the busy production cluster (all nodes shared with other jobs)."""
    if load <= 0:
        return []
    return interference(procs, horizon, seed=seed, load=load, factors=factors, mean_length=mean_length)


def _one(
    reduction: ReductionRun, seed: int, load: float, horizon: float, kill: tuple[int, float] | None = None
) -> dict:
    eps = production(reduction.procs, horizon, seed, load)
    interfered = [*reduction.interference, *eps]
    run = task_run(replace(reduction, interference=interfered, kill=kill, seed=seed), record=False, counters="warm")
    return task_figures(run)


def _warmup(reduction: ReductionRun, seeds: list[int], load: float, horizon: float) -> list[float]:
    """One task: the times of a day's fault-free runs."""
    return [_one(reduction, seed, load, horizon)["time"] for seed in seeds]


def _killed(
    reduction: ReductionRun, runs: list[tuple[int, float]], load: float, horizon: float, victim: int
) -> list[tuple[bool, float | None]]:
    """One task: ``(unrecoverable, remote_replica_at)`` of runs ``(seed, kill time)`` killing ``victim``."""
    out = []
    for seed, when in runs:
        fig = _one(reduction, seed, load, horizon, (victim, when))
        out.append((bool(fig["unrecoverable"]), fig["fault"]["remote_replica_at"]))
    return out


def _draws(seed: int, days: list[int], warmup: int) -> list[tuple[list[int], list[tuple[float, int]]]]:
    """Per day, the seeds of the warm-up runs and ``(u, seed)`` of the killed runs (killed at ``u·t``), drawn
    from one stream in the order the experiment always drew them, so that tasks do not change the figures."""
    rng = np.random.default_rng(seed)
    out = []
    for n_runs in days:
        base = [int(rng.integers(2**31)) for _ in range(warmup)]
        out.append((base, [(float(rng.uniform(0, 1)), int(rng.integers(2**31))) for _ in range(n_runs)]))
    return out


def reliability_experiment(
    reduction: ReductionRun = PAPER_RUN,
    runs: int = 700,
    victim: int = 1,
    load: float = 0.5,
    per_day: int = 100,
    warmup: int = 9,
    run: Runner = in_process,
) -> dict:
    """Run the paper's fault-tolerance experiment: how often a killed process cannot be recovered.

    Each "day" first runs ``warmup`` fault-free reductions to get the mean time ``t``, then ``per_day``
    reductions, each killing process ``victim`` at a time drawn uniformly from ``[0, t]``, on a production
    cluster whose nodes are busy with other jobs about ``load`` of the time; a run is unrecoverable when the
    victim's original data was still needed but its remote replica did not exist yet. The paper reports 11
    unrecoverable runs out of 700 (reliability 98.43 %).

    Parameters
    ----------
    reduction : ReductionRun
        The reduction every run repeats (default :data:`PAPER_RUN`: 200 processes, 32 MB, root 0). Its ``seed``
        seeds the environment samples and the kill times (each run draws its own data seed); its
        ``interference`` is added to the production cluster's; its ``kill`` must be None (the experiment kills
        ``victim``); its machine times reduce at most 16 elements.
    runs : int
        Killed runs in all (paper: 700).
    victim : int
        The killed process (paper: 1).
    load : float
        Fraction of the time each node is busy with other jobs (0 = the ideal cluster).
    per_day : int
        Killed runs a day (paper: 100).
    warmup : int
        Fault-free runs a day that give the mean time ``t`` (paper: 9).
    run : Runner
        Computes the tasks (:mod:`vizcoll.tasks`): first a day's warm-up each, then :data:`CHUNK` killed runs
        each (default: here, one by one).

    Returns
    -------
    dict
        ``runs``, ``unrecoverable``, ``reliability`` (1 - unrecoverable / runs), ``per_day`` (per day its
        ``mean_time``, ``runs``, ``unrecoverable``), ``mean_time``, ``replica_time``, the parameters and
        ``paper`` (the paper's per-day counts and reliability).

    Raises
    ------
    SpecError
        For ``runs`` outside 1..100000, ``per_day`` or ``warmup`` below 1, a victim that is not a rank, a
        ``reduction`` with a kill, or a bad field of ``reduction``.

    References
    ----------
    [FTRED18] Li Chao, Zhao Changhai, Yan Haihua, Liu Chao, Wen Jiamin, Wang Zengbo, "A fault tolerant
    high-performance reduction framework in complex environment", Journal of Beijing University of Aeronautics and
    Astronautics, 44(10): 2115–2124, 2018, DOI
    [10.13700/j.bh.1001-5965.2017.0786](https://doi.org/10.13700/j.bh.1001-5965.2017.0786). Section 4.5.

    Examples
    --------
    >>> out = reliability_experiment(ReductionRun(8, 1 << 20), runs=4, per_day=4, warmup=1)
    >>> out["runs"], out["unrecoverable"], out["reliability"]
    (4, 1, 0.75)
    """
    procs, size = reduction.procs, reduction.size
    if not 1 <= runs <= 100_000 or per_day < 1 or warmup < 1:
        raise SpecError("runs must be in 1..100000, per_day and warmup >= 1")
    if not 0 <= victim < procs:
        raise SpecError(f"victim {victim} is not a rank in 0..{procs - 1}")
    if reduction.kill is not None:
        kill = reduction.kill
        raise SpecError(f"the experiment kills the victim itself: the reduction's kill must be None, got {kill}")
    params = reduction.params
    if not isinstance(params, ReductionParams):
        params = ReductionParams.from_dict(dict(params))
    params = params.with_(max_elements=min(params.max_elements, 16))
    horizon = 8 * task_cost(procs, size, params)  # beyond it the nodes run at full speed
    reduction = replace(reduction, params=params)
    days = _draws(reduction.seed, [min(per_day, runs - start) for start in range(0, runs, per_day)], warmup)
    times = [float(np.mean(day)) for day in run([(_warmup, (reduction, base, load, horizon)) for base, _ in days])]
    # a kill at u·t is the same float as the uniform(0, t) drawn before the tasks: 0 + t·u
    chunks = [
        (day, [(s, u * t) for u, s in kills[i : i + CHUNK]])
        for day, ((_, kills), t) in enumerate(zip(days, times, strict=True))
        for i in range(0, len(kills), CHUNK)
    ]
    outcomes = run([(_killed, (reduction, part, load, horizon, victim)) for _, part in chunks])
    bad, windows = [0] * len(days), []
    for (day, _), outcome in zip(chunks, outcomes, strict=True):
        bad[day] += sum(unrecoverable for unrecoverable, _ in outcome)
        windows += [window for _, window in outcome]
    per_day_out = [
        {"day": day + 1, "mean_time": t, "runs": len(kills), "unrecoverable": b}
        for day, ((_, kills), t, b) in enumerate(zip(days, times, bad, strict=True))
    ]
    count = sum(bad)
    return {
        "runs": runs,
        "unrecoverable": count,
        "reliability": 1 - count / runs,
        "per_day": per_day_out,
        "mean_time": float(np.mean(times)),
        "replica_time": float(np.nanmean([w for w in windows if w is not None])),
        "procs": procs,
        "size": size,
        "victim": victim,
        "root": reduction.root,
        "load": load,
        "paper": {"unrecoverable": list(PAPER_UNRECOVERABLE), "reliability": PAPER_RELIABILITY},
    }
