"""Jobs for the tests of the job pools (``test_job_pool.py``, ``test_celery_pool.py``). For the Celery pool, the
test process sends them and a real Celery worker started on this module
(``celery -A tests.ui.pool_jobs:celery_app worker``) runs them. Both build
the pool as the app does (:func:`vizcoll.ui.jobs.make_celery`, :class:`~vizcoll.ui.celery_pool.CeleryJobPool`)
on the Redis at ``VIZCOLL_TEST_REDIS_URL``; the worker takes its limits from the app's variables."""

from __future__ import annotations

import os
import time
from contextlib import suppress

import numpy as np
from celery.exceptions import SoftTimeLimitExceeded

from vizcoll.barrier.algorithms import ALGORITHMS
from vizcoll.barrier.benchmark import SweepGrids, sweep
from vizcoll.ui.cache import job_runner
from vizcoll.ui.celery_pool import CeleryJobPool
from vizcoll.ui.fairqueue import SECONDS
from vizcoll.ui.jobs import make_celery, parallel_tasks

URL_ENV = "VIZCOLL_TEST_REDIS_URL"


def nap(seconds: float, answer):
    time.sleep(seconds)
    return answer


def greedy(megabytes: int):
    return float(np.ones(megabytes * 1024 * 1024 // 8).sum())


def stubborn(seconds: float):
    """Sleeps on past Celery's soft time limit: the hard limit must end it."""
    end = time.time() + seconds
    while time.time() < end:
        with suppress(SoftTimeLimitExceeded):
            time.sleep(0.1)


POOL = None
"""The pool of a test's job that runs tasks in parallel (:func:`parallel_pids`, :func:`small_sweep`): set by the
test before it submits the job, so that the job's process, a fork of the test's, has it."""


def pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def parallel_pids(tasks: int, seconds: float) -> dict:
    """A job whose tasks report the process that ran them, computed with the workers its pool lends it."""
    with parallel_tasks(POOL) as processes:
        pids = list(job_runner()([(pid_after, (seconds,)) for _ in range(tasks)]))
    return {"processes": processes, "pids": sorted(set(pids))}


def small_sweep(run=None) -> dict:
    """A job running a small barrier sweep (the engine's) with the workers its pool lends it; with ``run``, the
    same sweep in the test's process."""
    if run is not None:
        return sweep(SweepGrids([4, 8], [0.0, 0.3], 2, 4), list(ALGORITHMS.names), run=run)
    with parallel_tasks(POOL):
        return sweep(SweepGrids([4, 8], [0.0, 0.3], 2, 4), list(ALGORITHMS.names), run=job_runner())


def result(pool, key: str, ticket: str, timeout: float = 60):
    """The job's result, read as Dash's renderer polls for it."""
    end = time.time() + timeout
    while time.time() < end:
        value = pool.get_result(key, ticket)
        if value is not pool.UNDEFINED:
            return value
        time.sleep(0.05)
    raise AssertionError(f"no result for {key}")


def make(url: str, **limits) -> tuple[CeleryJobPool, dict]:
    """The pool on ``url`` and its job functions by name."""
    pool = CeleryJobPool(make_celery(url, limits.get("seconds", SECONDS)), expire=3600, **limits)
    return pool, {fn.__name__: pool.make_job_fn(fn, False, fn.__name__) for fn in (nap, greedy, stubborn)}


celery_app = make(os.environ[URL_ENV])[0].handle if URL_ENV in os.environ else None
