"""vizcoll's job pool on one host (the default): Dash's diskcache jobs behind the fair queue of
:mod:`vizcoll.ui.fairqueue`.

Dash's :class:`~dash.DiskcacheManager` forks one process per request of a background callback, however many come:
ten tabs of a paper-scale page were fourteen processes and 4.8 GB. :class:`JobPool` keeps the same interface and
bounds it: at most :data:`~vizcoll.ui.fairqueue.WORKERS` jobs run at once (``VIZCOLL_JOB_WORKERS``, default the CPU
count), the others wait in the queue, shared, fair per visitor (see :mod:`vizcoll.ui.fairqueue`).

Per-job limits, set in the job's process: its memory may grow by at most ``VIZCOLL_JOB_MEMORY_MB``
(``setrlimit(RLIMIT_DATA)`` above what the process had when forked, since a fork starts with its parent's memory;
``RLIMIT_DATA`` counts the heap and every private writable mapping, where numpy's arrays live, but not the address
space a browser only reserves, so a job that renders an image with kaleido's Chromium still can) and it may run at
most ``VIZCOLL_JOB_SECONDS`` (an alarm in the job, then a kill ``GRACE_S`` later).

The pool's state (tickets, jobs, the queue) is one entry of the jobs' diskcache, changed in its transactions, so
every web worker of a host shares it. A job can only be forked by the worker that took its request (Dash's job
function is a closure of that process); each worker's dispatcher thread starts its own jobs when they reach the
head of the queue and a slot is free, and ends those past the time limit.
"""

from __future__ import annotations

import faulthandler
import logging
import multiprocessing
import os
import resource
import signal
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, suppress
from functools import wraps
from importlib import _bootstrap

import diskcache
import psutil
from dash import DiskcacheManager

from vizcoll.tasks import Runner, computed, in_process
from vizcoll.ui.fairqueue import (
    GRACE_S,
    KEEP_S,
    MAX_WAITING,
    MEMORY_MB,
    SECONDS,
    WORKERS,
    FairQueue,
    JobTimeLimit,
    error_result,
    limit_message,
)

__all__ = ["JobPool", "JobsCache", "LowPriorityJobs", "JOB_NICENESS", "in_job", "memory_capped", "memory_limit_lifted"]

TICK_S = 0.1  # how often a worker's dispatcher looks at the queue
STATE = "vizcoll-pool"  # the pool's entry in the jobs' cache
JOB_NICENESS = 10  # a job process's CPU priority below the web workers' (nice 0)


def _alive(pid: int | None) -> bool:
    try:
        return isinstance(pid, int) and pid > 0 and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _kill(pid: int | None) -> None:
    if not isinstance(pid, int) or pid <= 0:  # psutil.Process(None) is this process
        return
    with suppress(psutil.Error, ValueError):
        process = psutil.Process(pid)
        for child in process.children(recursive=True):
            with suppress(psutil.Error):
                child.kill()
        process.kill()


_JOB_KEY: str | None = None
"""In a job's process, the job's key (Dash's first argument to the job): :meth:`JobPool.parallel` finds the
job's entry by it."""


def in_job() -> bool:
    """Whether this process runs a job of the pool (forked inside a request, it still sees the request's context)."""
    return _JOB_KEY is not None


STACKS_AFTER_S = float(os.environ.get("VIZCOLL_JOB_STACKS_AFTER_S") or 0)
"""When positive, a job still running after so many seconds writes the stacks of its threads to standard error
(:func:`faulthandler.dump_traceback_later`: it needs no lock, so it also says where a hung job waits). Off by
default; the tests turn it on."""


def _limited(job_fn, memory_mb: int, seconds: int):
    """``job_fn`` run under the pool's limits (in the job's process)."""

    def run(*args):
        global _JOB_KEY
        _JOB_KEY = args[0]
        if STACKS_AFTER_S > 0:
            faulthandler.dump_traceback_later(STACKS_AFTER_S)

        def alarm(_signum, _frame):
            raise JobTimeLimit(f"over {seconds} s")

        signal.signal(signal.SIGALRM, alarm)
        signal.alarm(seconds)
        with memory_capped(memory_mb):
            job_fn(*args)

    return run


@contextmanager
def memory_capped(memory_mb: int):
    """This process's writable memory may grow by at most ``memory_mb`` in the block (``RLIMIT_DATA``)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    grown = psutil.Process().memory_info().data + memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_DATA, (grown if hard == resource.RLIM_INFINITY else min(grown, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


@contextmanager
def memory_limit_lifted():
    """A job's memory limit lifted while it starts a browser (kaleido's Chromium, which needs more writable memory
    than a job may grow by, and whose processes keep the limit they start with); elsewhere, nothing changes."""
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if soft == hard:
        yield
        return
    resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


_SQLITE = threading.RLock()
"""Held by every call of this process into the jobs' SQLite (:class:`JobsCache`) and around each job's fork."""


def _fresh_lock() -> None:
    global _SQLITE
    _SQLITE = threading.RLock()


os.register_at_fork(after_in_child=_fresh_lock)  # a job starts with the lock free


def _unfinished_imports_dropped() -> None:
    """In a forked job: forget the modules another thread of the parent was importing at the fork. CPython does
    not reset a module's import lock in a child, so a job that needs such a module would wait forever for a thread
    it does not have (plotly imports its figure classes lazily, on a page's first requests: the first /erasure
    comparison sometimes never ended). The half-made module is dropped and imported again with a new lock."""
    me = threading.get_ident()
    for name, ref in list(_bootstrap._module_locks.items()):
        lock = ref()
        if lock is not None and lock.count and lock.owner != me:
            sys.modules.pop(name, None)
            del _bootstrap._module_locks[name]


os.register_at_fork(after_in_child=_unfinished_imports_dropped)


def _fresh_log_streams() -> None:
    """In a forked job: the standard streams and the logging handlers writing to a file write through new stream
    objects on the same files. A thread of the parent writing a log line at the fork leaves the stream's buffer
    lock held in the job, whose first log line then waits forever (seen: a job whose cache logged a warning hung in
    ``StreamHandler.flush``); logging itself renews only its handlers' own locks."""
    for name in ("stdout", "stderr"):
        with suppress(AttributeError, OSError, ValueError):
            setattr(sys, name, open(os.dup(getattr(sys, name).fileno()), "w", buffering=1))  # noqa: SIM115 (the job's own)
    for ref in list(logging._handlerList):
        handler = ref()
        with suppress(AttributeError, OSError, ValueError):
            handler.stream = open(os.dup(handler.stream.fileno()), "w", buffering=1)  # noqa: SIM115 (the job's own)


os.register_at_fork(after_in_child=_fresh_log_streams)


def _guarded(name: str):
    """``diskcache.Cache.<name>`` called under :data:`_SQLITE`."""
    method = getattr(diskcache.Cache, name)

    @wraps(method)
    def call(self, *args, **kwargs):
        with _SQLITE:
            return method(self, *args, **kwargs)

    return call


class JobsCache(diskcache.Cache):
    """The jobs' diskcache, fork-safe: a job is a process forked from a threaded web worker, and a fork taken while
    another thread is inside SQLite copies SQLite's locks held, so the job hangs forever on its first cache call
    (seen as a job that never ends, about once in five full test runs). Each call Dash makes here, and the fork
    (:class:`LowPriorityJobs`), hold :data:`_SQLITE`, so no thread is inside SQLite when a job is forked.

    A job also never closes the SQLite connection it inherits (diskcache closes a connection of another process
    id on its next call): closing it hung a job in ``sqlite3`` ``close`` (a fresh clone's CI, 2026-12-06, the
    1,356-process barrier). SQLite's rule is that a connection is not carried across a fork: the job opens its own
    (:func:`_fresh_connections`) and leaves the parent's untouched, held so that no garbage collection closes it."""

    get, set, add, delete, touch = (_guarded(name) for name in ("get", "set", "add", "delete", "touch"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _CACHES.add(self)

    @contextmanager
    def transact(self, retry=False):
        with _SQLITE, super().transact(retry):
            yield


_CACHES: weakref.WeakSet = weakref.WeakSet()  # this process's JobsCache objects
_INHERITED: list = []  # in a job: the parent's SQLite connections (per thread), kept open and unused


def _fresh_connections() -> None:
    """In a forked job: every JobsCache forgets the connections it had in the parent (it opens its own)."""
    for cache in list(_CACHES):
        _INHERITED.append(cache._local)  # diskcache's per-thread connections (a private attribute, read-only here)
        cache._local = threading.local()


os.register_at_fork(after_in_child=_fresh_connections)


class LowPriorityJobs(DiskcacheManager):
    """Dash's diskcache manager whose job processes are forked with no thread inside SQLite (:class:`JobsCache`)
    and run at nice :data:`JOB_NICENESS`."""

    def call_job_fn(self, key, job_fn, args, context):
        with _SQLITE:
            pid = super().call_job_fn(key, job_fn, args, context)
        with suppress(OSError):  # the job may be over already
            os.setpriority(os.PRIO_PROCESS, pid, JOB_NICENESS)
        return pid


def _busy(state: dict) -> int:
    """Workers in use: the running jobs and the workers lent to them (:meth:`JobPool.parallel`)."""
    return sum(1 + entry.get("lent", 0) for entry in state["jobs"].values() if entry["state"] == "running")


class JobPool(FairQueue, LowPriorityJobs):
    """Dash's diskcache manager with a bounded, fair queue in front of its job processes (see the module)."""

    def __init__(
        self,
        cache,
        expire: int,
        workers: int = WORKERS,
        waiting: int = MAX_WAITING,
        memory_mb: int = MEMORY_MB,
        seconds: int = SECONDS,
        cache_by=None,
    ):
        super().__init__(cache, cache_by=cache_by, expire=expire)
        self.workers, self.max_waiting, self.memory_mb, self.seconds = workers, waiting, memory_mb, seconds
        self._pending: dict[str, tuple] = {}  # key -> (job_fn, args, context) of this process's waiting jobs
        self._thread: threading.Thread | None = None
        self._guard, self._stop_event = threading.Lock(), threading.Event()

    def submit(self, key: str, job_fn, args, context, visitor: str, slot: str) -> str:
        ticket = super().submit(key, job_fn, args, context, visitor, slot)
        self.dispatch()
        self.watch()
        return ticket

    def dispatch(self) -> None:
        """Start this process's jobs at the head of the queue while fewer than ``workers`` run."""
        with self._changing() as state:
            self._tidy(state)
            starting = self._next_jobs(state)
        for key, (job_fn, args, context) in starting:
            pid = LowPriorityJobs.call_job_fn(self, key, _limited(job_fn, self.memory_mb, self.seconds), args, context)
            with self._changing() as state:
                if key in state["jobs"]:
                    state["jobs"][key]["pid"] = pid
                else:
                    _kill(pid)  # nobody waits for it any more

    def _next_jobs(self, state: dict) -> list[tuple[str, tuple]]:
        """The jobs of this process to start now, marked running (in the pool's transaction, which
        :meth:`submit` also needs to add one: the two never interleave)."""
        running = _busy(state)
        starting = []
        while running < self.workers and state["queue"]:
            key = state["queue"][0]
            if state["jobs"][key]["owner"] != os.getpid():
                break  # its worker starts it
            state["queue"].pop(0)
            pending = self._pending.pop(key, None)
            if pending is None:  # this process no longer has the request's job function
                del state["jobs"][key]
                continue
            state["jobs"][key].update(state="running", started=time.time())
            starting.append((key, pending))
            running += 1
        mine = {k for k, e in state["jobs"].items() if e["state"] == "waiting" and e["owner"] == os.getpid()}
        for key in set(self._pending) - mine:
            del self._pending[key]  # dropped, by this worker or another
        return starting

    @contextmanager
    def parallel(self, most: int) -> Iterator[tuple[int, Runner]]:
        """In a job's process: ``(processes, runner)``, a :data:`~vizcoll.tasks.Runner` that computes a sweep's tasks
        in the job's process and in up to ``most - 1`` idle workers lent to the job (forked from it, counted as busy
        until the block ends, so that no other job starts on them), the results in the tasks' order; with no idle
        worker, or outside a job, ``(1, in_process)``."""
        with self._lent(most - 1) as lent:
            if not lent:
                yield 1, in_process
                return
            with ProcessPoolExecutor(lent + 1, mp_context=multiprocessing.get_context("fork")) as executor:
                yield lent + 1, lambda tasks: executor.map(computed, tasks)

    @contextmanager
    def _lent(self, most: int):
        """Up to ``most`` idle workers lent to this process's job until the block ends; yields how many."""
        with self._changing() as state:
            entry = state["jobs"].get(_JOB_KEY) if _JOB_KEY is not None else None
            lent = max(0, min(most, self.workers - _busy(state))) if entry is not None else 0
            if entry is not None:
                entry["lent"] = lent
        try:
            yield lent
        finally:
            if lent:
                with self._changing() as state:
                    if _JOB_KEY in state["jobs"]:
                        state["jobs"][_JOB_KEY]["lent"] = 0

    # ------------------------------------------------------------ the state, the results, the jobs
    def _state(self) -> dict:
        return self.handle.get(STATE) or {"tickets": {}, "jobs": {}, "queue": []}

    @contextmanager
    def _changing(self):
        with self.handle.transact():
            state = self._state()
            yield state
            self.handle.set(STATE, state)

    def _result(self, key: str):
        return self.handle.get(key, self.UNDEFINED)

    def _keep(self, key: str) -> None:
        self.handle.touch(key, expire=KEEP_S)

    def _forget(self, key: str) -> None:
        self.handle.delete(key)
        self.handle.delete(self._make_progress_key(key))

    def _progress(self, key: str):
        return self.handle.get(self._make_progress_key(key))

    def _enqueue(self, key: str, job_fn, args, context) -> dict:
        self._pending[key] = (job_fn, args, context)
        return {"state": "waiting", "owner": os.getpid(), "pid": None, "started": None}

    def _running(self, entry: dict) -> bool:
        if entry["pid"] is None:  # being forked
            return time.time() - entry["started"] < 30
        return _alive(entry["pid"])

    def _ended(self, state: dict) -> None:
        """Forget ended jobs and jobs whose worker is gone; end jobs past the time limit."""
        for key, entry in list(state["jobs"].items()):
            if entry["state"] == "waiting" and not _alive(entry["owner"]):
                state["queue"].remove(key)
                del state["jobs"][key]
            elif entry["state"] == "running" and not self._running(entry):
                del state["jobs"][key]
            elif entry["state"] == "running" and time.time() - entry["started"] > self.seconds + GRACE_S:
                _kill(entry["pid"])
                self.handle.set(key, error_result(limit_message("time", self.memory_mb, self.seconds)), expire=KEEP_S)
                del state["jobs"][key]

    def _stop(self, entry: dict) -> None:
        _kill(entry["pid"])

    def watch(self) -> None:
        """Start this process's dispatcher thread (once per process: a forked worker starts its own)."""
        with self._guard:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, daemon=True, name="vizcoll-job-pool")
                self._thread.start()

    def stop(self) -> None:
        """Stop this process's dispatcher thread (jobs already running go on)."""
        self._stop_event.set()

    def end_all(self) -> None:
        """End every job of the pool: the running ones killed, the waiting ones dropped, every ticket given up (a
        host's apps all gone; the browser tests, between two apps served by one process)."""
        with self._changing() as state:
            for entry in state["jobs"].values():
                if entry["state"] == "running":
                    _kill(entry["pid"])
            state.update(tickets={}, jobs={}, queue=[])
        self._pending.clear()

    def _loop(self) -> None:
        last = 0.0
        while not self._stop_event.wait(TICK_S):
            if self._pending or time.monotonic() - last > 1:  # the time limit is looked at every second
                last = time.monotonic()
                try:
                    self.dispatch()
                except Exception:  # noqa: BLE001 - the thread must live on; the next tick tries again
                    logging.getLogger("vizcoll.jobs").exception("the job pool's dispatcher failed")
