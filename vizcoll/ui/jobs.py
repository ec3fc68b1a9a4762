"""Background jobs: callbacks that can run longer than about a second run outside the web workers.

A heavy callback is a Dash background callback (:func:`background`): the web
worker answers at once, the job runs elsewhere, the page shows its progress
(an engine reports it through a plain ``progress(done, total)`` argument),
its buttons are disabled while it runs, and a Cancel button stops it.

Where jobs run:

- by default a :class:`dash.DiskcacheManager` behind a bounded, fair queue
  (:class:`vizcoll.ui.pool.JobPool`): each job is a process of its own on the
  same host, at most ``VIZCOLL_JOB_WORKERS`` at once, its result in a diskcache
  next to the engine cache (``VIZCOLL_CACHE_DIR``); works with ``vizcoll serve``
  in one or several processes, no extra service. Job processes run at a lower CPU
  priority (nice :data:`vizcoll.ui.pool.JOB_NICENESS`), so that pages keep
  answering while jobs run on the same cores;
- with ``VIZCOLL_REDIS_URL`` (e.g. ``redis://127.0.0.1:6379/0``) a
  :class:`dash.CeleryManager` on that Redis (broker and results) behind the
  same queue (:class:`vizcoll.ui.celery_pool.CeleryJobPool`), and the engine
  cache on the same Redis: start workers, on any number of hosts, with

      celery -A vizcoll.ui.app:celery_app worker --loglevel=INFO

  (``-A app:celery_app`` from a checkout's folder; the worker imports the app
  and so knows every background callback). This is how the demo scales past one machine.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache

from dash import Input, Output, no_update

from vizcoll.ui.cache import cache_config, running_tasks
from vizcoll.ui.fairqueue import GRACE_S, SECONDS
from vizcoll.ui.pool import JobPool, JobsCache

__all__ = [
    "REDIS_URL_ENV",
    "redis_url",
    "manager",
    "celery_app",
    "make_celery",
    "background",
    "JobProgress",
    "order",
    "parallel_tasks",
]

REDIS_URL_ENV = "VIZCOLL_REDIS_URL"
JOB_EXPIRE_S = 3600  # a finished job's result is kept an hour (a page polls it within seconds)


def redis_url() -> str | None:
    return os.environ.get(REDIS_URL_ENV) or None


@lru_cache(maxsize=1)
def celery_app():
    """The Celery application of the jobs (None without ``VIZCOLL_REDIS_URL``)."""
    url = redis_url()
    return None if url is None else make_celery(url)


def make_celery(url: str, seconds: int = SECONDS):
    """A Celery application on the Redis at ``url`` (broker and results) with the jobs' settings: a job may run
    ``seconds`` (the limits travel with each task, so the web workers and the Celery workers must agree)."""
    from celery import Celery

    app = Celery("vizcoll", broker=url, backend=url)
    app.conf.update(
        result_expires=JOB_EXPIRE_S,
        worker_prefetch_multiplier=1,
        task_acks_late=True,
        broker_connection_retry_on_startup=True,
        task_soft_time_limit=seconds,
        task_time_limit=seconds + GRACE_S,
    )
    return app


@lru_cache(maxsize=1)
def manager():
    """The app's background callback manager: Celery on ``VIZCOLL_REDIS_URL``, else diskcache on this host."""
    if celery_app() is not None:
        from vizcoll.ui.celery_pool import CeleryJobPool

        return CeleryJobPool(celery_app(), expire=JOB_EXPIRE_S, cache_by=[_engine_cache])
    base = os.environ.get("VIZCOLL_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "vizcoll-cache")
    return JobPool(JobsCache(os.path.join(base, "jobs")), expire=JOB_EXPIRE_S, cache_by=[_engine_cache])


def _engine_cache() -> str:
    """Which engine cache a request's job fills (part of the job's key): a job's result may point into it (a
    sweep's key), so requests on another cache never share it."""
    return json.dumps(cache_config(), sort_keys=True)


def background(prefix: str, buttons: tuple[str, ...] = ()) -> dict:
    """The keyword arguments that make a callback a background job of page component ``prefix``.

    The page's layout has :func:`vizcoll.ui.components.kit.job_bar` with ``prefix``:
    a progress bar (``<prefix>-progress``), its text and a Cancel button
    (``<prefix>-cancel``). ``buttons`` are disabled while the job runs. The
    callback's first argument is then ``set_progress((done, total, text))``.
    """
    running = [(Output(button, "disabled"), True, False) for button in buttons]
    running += [
        (Output(f"{prefix}-cancel", "disabled"), False, True),
        (Output(f"{prefix}-job", "className"), "job running", "job"),
    ]
    return {
        "background": True,
        "manager": manager(),
        "running": running,
        "progress": [
            Output(f"{prefix}-progress", "value"),
            Output(f"{prefix}-progress", "max"),
            Output(f"{prefix}-progress-text", "children"),
        ],
        "progress_default": [0, 1, ""],
        "cancel": [Input(f"{prefix}-cancel", "n_clicks")],
    }


@contextmanager
def parallel_tasks(pool=None, most: int | None = None) -> Iterator[int]:
    """In a background job: within the block, a sweep's tasks (:mod:`vizcoll.tasks`, reaching the engine through
    :func:`vizcoll.ui.cache.job_runner`) are computed in parallel where the pool has workers to spare, the results
    in the tasks' order, so the same as one process's: the job's process and up to ``most`` - 1 idle workers of
    the pool on this host lent to it (default ``most``: the CPU count; :meth:`vizcoll.ui.pool.JobPool.parallel`).
    Yields the number of processes: 1 outside a job, with no idle worker, or on Celery (see
    :mod:`vizcoll.ui.celery_pool`). ``pool``: the job's pool (default the app's)."""
    parallel = getattr(pool or manager(), "parallel", None)
    most = min(most or os.cpu_count() or 1, os.cpu_count() or 1)
    if parallel is None or most < 2:
        yield 1
        return
    with parallel(most) as (processes, run), running_tasks(run):
        yield processes


def order(needed: bool, job_now, **extra):
    """The value of a page's job-order store (a ``dcc.Store`` the background callback takes as its Input):
    ``{"run": n + 1, **extra}`` when the views need a job (a new run each time, so that the job runs again),
    None once they are drawn in the request (which also ends a running job), ``no_update`` when it stays None."""
    if not needed:
        return None if job_now is not None else no_update
    run = job_now.get("run") if isinstance(job_now, dict) else 0
    run = run if isinstance(run, int) and not isinstance(run, bool) and 0 <= run < 10**9 else 0
    return {"run": run + 1, **extra}


class JobProgress:
    """A background job's ``set_progress((done, total, text))`` fed by engines: ``stages`` of equal weight, each
    followed through :meth:`stage` as ``progress(done, total)``; written at most every ``every`` seconds (each
    write is a round trip to the jobs' cache), and always when a stage starts."""

    STEPS = 100  # steps of the bar per stage

    def __init__(self, set_progress: Callable, stages: list[str], every: float = 0.25):
        self.set_progress, self.stages, self.every = set_progress, list(stages), every
        self.last = float("-inf")

    def stage(self, index: int) -> Callable[[int, int], None]:
        """Start stage ``index``; its engine's ``progress(done, total)``."""
        self._write(index, 0, 1, force=True)
        return lambda done, total: self._write(index, done, total)

    def _write(self, index: int, done: int, total: int, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < self.every:
            return
        self.last = now
        fraction = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
        text = f"{self.stages[index]} ({index + 1} of {len(self.stages)})"
        self.set_progress((index * self.STEPS + round(self.STEPS * fraction), self.STEPS * len(self.stages), text))
