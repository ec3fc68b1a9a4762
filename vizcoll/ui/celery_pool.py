"""vizcoll's job pool on Celery workers (with ``VIZCOLL_REDIS_URL``): Dash's Celery jobs behind the fair queue of
:mod:`vizcoll.ui.fairqueue`, so that the queue, the sharing, the fairness, the messages and the limits are those of
the pool on one host (:mod:`vizcoll.ui.pool`).

- The queue's state is one Redis key, changed under a Redis lock, so every web worker and every Celery worker on
  any host shares it.
- A job is sent to Celery as soon as it is queued (its task id chosen by the pool); the Celery workers'
  concurrency bounds how many run at once. A job is *waiting* until a worker starts it: the job's first act, in
  the worker, is to mark itself running, which is what moves the queue's "N jobs ahead of yours".
- A dropped job (its visitor asked for something else, or every holder cancelled) is revoked: a waiting one never
  starts, a running one is terminated (as Dash's own Celery manager cancels).
- A sweep's tasks run in its job's worker process, one after the other: a Celery worker's processes are daemons,
  which cannot fork a pool, and sending the tasks to the other workers would need pickled messages (functions and
  their arguments), which Celery refuses to accept in a worker running as root.
- Limits: the job's memory may grow by at most ``VIZCOLL_JOB_MEMORY_MB`` (``RLIMIT_DATA`` in the worker's process
  for the job's duration, as on one host) and it may run ``VIZCOLL_JOB_SECONDS`` (Celery's soft time limit raises
  in the job; its hard limit, :data:`~vizcoll.ui.fairqueue.GRACE_S` later, ends the worker's process, which Celery
  replaces). Both end with the pool's messages; the worker lives on.
"""

from __future__ import annotations

import json
import time
import uuid
from contextlib import contextmanager
from functools import wraps

from celery import current_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from celery.states import FAILURE, READY_STATES
from dash import CeleryManager
from dash.exceptions import PreventUpdate

from vizcoll.ui.fairqueue import (
    KEEP_S,
    MAX_WAITING,
    MEMORY_MB,
    SECONDS,
    FairQueue,
    JobTimeLimit,
    error_result,
    limit_message,
)
from vizcoll.ui.pool import memory_capped

__all__ = ["CeleryJobPool"]

STATE = "vizcoll-pool"  # the queue's Redis key
LOCK = "vizcoll-pool-lock"


class CeleryJobPool(FairQueue, CeleryManager):
    """Dash's Celery manager with vizcoll's fair queue in front of its tasks (see the module)."""

    def __init__(
        self,
        celery_app,
        expire: int,
        waiting: int = MAX_WAITING,
        memory_mb: int = MEMORY_MB,
        seconds: int = SECONDS,
        cache_by=None,
    ):
        super().__init__(celery_app, cache_by=cache_by, expire=expire)
        self.max_waiting, self.memory_mb, self.seconds = waiting, memory_mb, seconds

    def make_job_fn(self, fn, progress, key=None):
        return super().make_job_fn(self._limited(fn), progress, key)

    def _limited(self, fn):
        """``fn`` as a job runs it in the worker: marked running, under the memory limit, its time limit named."""

        @wraps(fn)
        def run(*args, **kwargs):
            if not self._started(current_task.request.id):
                raise PreventUpdate  # dropped before a worker took it
            with memory_capped(self.memory_mb):
                try:
                    return fn(*args, **kwargs)
                except SoftTimeLimitExceeded:
                    raise JobTimeLimit(f"over {self.seconds} s") from None

        return run

    def _started(self, task: str) -> bool:
        """Mark the job of Celery task ``task`` running; False when the queue no longer has it."""
        with self._changing() as state:
            key = next((k for k, entry in state["jobs"].items() if entry["task"] == task), None)
            if key is None:
                return False
            if key in state["queue"]:
                state["queue"].remove(key)
            state["jobs"][key].update(state="running", started=time.time())
            return True

    # ------------------------------------------------------------ the state, the results, the jobs
    @property
    def _redis(self):
        return self.handle.backend.client

    def _state(self) -> dict:
        raw = self._redis.get(STATE)
        return json.loads(raw) if raw else {"tickets": {}, "jobs": {}, "queue": []}

    @contextmanager
    def _changing(self):
        with self._redis.lock(LOCK, timeout=30, blocking_timeout=60):
            state = self._state()
            yield state
            self._redis.set(STATE, json.dumps(state))

    def _result(self, key: str):
        raw = self.handle.backend.get(key)
        return self.UNDEFINED if raw is None else json.loads(raw)

    def _keep(self, key: str) -> None:
        self.handle.backend.expire(key, KEEP_S)

    def _forget(self, key: str) -> None:
        self.handle.backend.delete(key)
        self.handle.backend.delete(self._make_progress_key(key))

    def _progress(self, key: str):
        raw = self.handle.backend.get(self._make_progress_key(key))
        return json.loads(raw) if raw else None

    def _enqueue(self, key: str, job_fn, args, context) -> dict:
        task = uuid.uuid4().hex
        job_fn.apply_async((key, self._make_progress_key(key), args, context), task_id=task)
        return {"state": "waiting", "task": task, "started": None}

    def _running(self, entry: dict) -> bool:
        return self.handle.AsyncResult(entry["task"]).state not in READY_STATES

    def _ended(self, state: dict) -> None:
        """Forget the jobs that have ended; a job Celery's hard time limit ended gets the time message."""
        for key, entry in list(state["jobs"].items()):
            if entry["state"] == "running" and not self._running(entry):
                task = self.handle.AsyncResult(entry["task"])
                if task.state == FAILURE and isinstance(task.result, TimeLimitExceeded):
                    self.handle.backend.set(
                        key, json.dumps(error_result(limit_message("time", self.memory_mb, self.seconds)))
                    )
                    self.handle.backend.expire(key, KEEP_S)
                del state["jobs"][key]

    def _stop(self, entry: dict) -> None:
        self.handle.control.revoke(entry["task"], terminate=True)
