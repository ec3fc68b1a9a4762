"""A bounded, fair job pool for Dash's background callbacks on one host (the default, diskcache jobs).

Dash's :class:`~dash.DiskcacheManager` forks one process per request of a background callback, however many come:
ten tabs of a paper-scale page were fourteen processes and 4.8 GB. :class:`JobPool` keeps the same interface and
bounds it:

- **At most** :data:`WORKERS` **jobs run at once** (``VIZCOLL_JOB_WORKERS``, default the CPU count); the others
  wait in one first-come queue of at most :data:`MAX_WAITING` (``VIZCOLL_JOB_QUEUE``, default 100). A request
  that finds the queue full is answered at once: "the server is busy: try again in a minute".
- **Fair per visitor.** A visitor is a browser (a random id in the ``vizcoll_visitor`` cookie, never an IP
  address: a class shares one); a *slot* is one visitor's one background callback (one page's job). A new request
  from a slot with other inputs takes its place: the slot's waiting and running jobs are dropped (a job several
  visitors wait for runs on for the others), so one visitor holds at most one job per page, whatever the tabs.
- **Shared work is done once.** A job is keyed by Dash's cache key (the callback and its inputs): a request whose
  job is waiting or running (or has just ended, its result not read by all yet) attaches to it, so thirty
  students pressing the same preset make one computation. A result is dropped once every request holding it has
  read it: a job's result may point into the engine cache (a sweep's key), whose entry a later request must not
  trust; a later request runs the job again, which reads what the engine cache still holds. Every request holds a
  ticket (the job id Dash polls with); Cancel gives up the ticket, so does a page that stopped polling for
  :data:`ABANDON_S` (a closed tab: a hidden one still polls at least once a minute), and a job nobody holds a
  ticket of stops.
- **Where it stands.** A waiting job's progress reads "waiting: 3 jobs ahead of yours" (Cancel works while
  waiting), then the job's own progress.
- **Per-job limits**, set in the job's process: its memory may grow by at most :data:`MEMORY_MB`
  (``VIZCOLL_JOB_MEMORY_MB``, default 2,048: ``setrlimit(RLIMIT_DATA)`` above what the process had when forked,
  since a fork starts with its parent's memory; ``RLIMIT_DATA`` counts the heap and every private writable
  mapping, where numpy's arrays live, but not the address space a browser only reserves, so a job that renders an
  image with kaleido's Chromium still can) and it may run at most :data:`SECONDS` (``VIZCOLL_JOB_SECONDS``,
  default 300: an alarm in the job, then a kill :data:`GRACE_S` later). A job over either ends with a message naming
  the limit (:func:`limit_message`); the pool and the web workers live on.

The pool's state (tickets, jobs, the queue) is one entry of the jobs' diskcache, changed in its transactions, so
every web worker of a host shares it. A job can only be forked by the worker that took its request (Dash's job
function is a closure of that process); each worker's dispatcher thread starts its own jobs when they reach the
head of the queue and a slot is free, and ends those past the time limit.
"""

from __future__ import annotations

import logging
import os
import resource
import signal
import threading
import time
import uuid
from contextlib import contextmanager, suppress
from functools import wraps

import diskcache
import psutil
from dash import DiskcacheManager
from flask import has_request_context, request

__all__ = ["JobPool", "JobsCache", "LowPriorityJobs", "JOB_NICENESS", "WORKERS", "MAX_WAITING", "MEMORY_MB",
           "SECONDS", "LIMIT_MARK", "JobTimeLimit", "limit_message", "visitor_of", "memory_limit_lifted"]


def _env_int(name: str, default: int, low: int, high: int) -> int:
    try:
        value = int(os.environ.get(name, default))
    except ValueError:
        return default
    return min(max(value, low), high)


WORKERS = _env_int("VIZCOLL_JOB_WORKERS", os.cpu_count() or 1, 1, 256)
MAX_WAITING = _env_int("VIZCOLL_JOB_QUEUE", 100, 0, 100_000)
MEMORY_MB = _env_int("VIZCOLL_JOB_MEMORY_MB", 2048, 64, 1 << 20)
SECONDS = _env_int("VIZCOLL_JOB_SECONDS", 300, 1, 86_400)
GRACE_S = 5  # after the alarm, the dispatcher kills a job that has not ended
KEEP_S = 600  # a finished job's result waits this long for the requests holding it to read it
ABANDON_S = 120  # a ticket whose page has not asked for its job this long is given up (the tab was closed)
SEEN_EVERY_S = 5  # how often a page's polls are written down (each write is a transaction)
TICK_S = 0.1  # how often a worker's dispatcher looks at the queue
STATE = "vizcoll-pool"  # the pool's entry in the jobs' cache
VISITOR_COOKIE = "vizcoll_visitor"
LIMIT_MARK = "vizcoll job: "
"""Starts the message of a job the pool ended or refused; the app's error handler shows what follows it."""
BUSY = "the server is busy: try again in a minute"
JOB_NICENESS = 10  # a job process's CPU priority below the web workers' (nice 0)


class JobTimeLimit(Exception):
    """Raised in a job when it has run :data:`SECONDS`."""


def limit_message(kind: str, memory_mb: int = MEMORY_MB, seconds: int = SECONDS) -> str:
    """The message of a job over a limit (``memory`` or ``time``), of one that vanished (``lost``), or of a full
    queue (``busy``)."""
    return LIMIT_MARK + {
        "memory": f"the job needed more memory than a job may use ({memory_mb:,} MB): try a smaller case",
        "time": f"the job ran longer than a job may ({seconds:,} s): try a smaller case",
        "lost": "the job ended without an answer (it was stopped, perhaps out of memory): try again",
        "busy": BUSY}[kind]


def visitor_of() -> str:
    """The visitor of the request being answered: its ``vizcoll_visitor`` cookie (a new id when it has none)."""
    if has_request_context():
        cookie = request.cookies.get(VISITOR_COOKIE, "")
        if 8 <= len(cookie) <= 64 and cookie.isalnum():
            return cookie
    return uuid.uuid4().hex


def _slot_of(context) -> str:
    """A background callback's name: its first output, ``id.property`` (the same in every worker). Dash's
    ``outputs_list`` is one output (a dict), a list of them, or lists of them (pattern-matching outputs)."""
    first = (context or {}).get("outputs_list") or {}
    while isinstance(first, list | tuple):
        first = first[0] if first else {}
    return f"{first.get('id', '')}.{first.get('property', '')}" if isinstance(first, dict) else ""


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


def _limited(job_fn, memory_mb: int, seconds: int):
    """``job_fn`` run under the pool's limits (in the job's process)."""
    def run(*args):
        grown = psutil.Process().memory_info().data + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (grown, resource.getrlimit(resource.RLIMIT_DATA)[1]))

        def alarm(_signum, _frame):
            raise JobTimeLimit(f"over {seconds} s")
        signal.signal(signal.SIGALRM, alarm)
        signal.alarm(seconds)
        job_fn(*args)
    return run


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
    (:class:`LowPriorityJobs`), hold :data:`_SQLITE`, so no thread is inside SQLite when a job is forked."""

    get, set, add, delete, touch = (_guarded(name) for name in ("get", "set", "add", "delete", "touch"))

    @contextmanager
    def transact(self, retry=False):
        with _SQLITE, super().transact(retry):
            yield


class LowPriorityJobs(DiskcacheManager):
    """Dash's diskcache manager whose job processes are forked with no thread inside SQLite (:class:`JobsCache`)
    and run at nice :data:`JOB_NICENESS`."""

    def call_job_fn(self, key, job_fn, args, context):
        with _SQLITE:
            pid = super().call_job_fn(key, job_fn, args, context)
        with suppress(OSError):  # the job may be over already
            os.setpriority(os.PRIO_PROCESS, pid, JOB_NICENESS)
        return pid


def _error(message: str) -> dict:
    """A job's result that Dash hands to the app's error handler."""
    return {"background_callback_error": {"msg": message, "tb": ""}}


def _named(result, memory_mb: int, seconds: int):
    """A job's result, its error named when the job went over a limit (numpy's "Unable to allocate" is a
    ``MemoryError`` too)."""
    error = result.get("background_callback_error") if isinstance(result, dict) else None
    if not isinstance(error, dict):
        return result
    raised = str(error.get("tb", "")).strip().rsplit("\n", 1)[-1].split(":", 1)[0]
    if raised.endswith("MemoryError"):
        return _error(limit_message("memory", memory_mb, seconds))
    if raised.endswith("JobTimeLimit"):
        return _error(limit_message("time", memory_mb, seconds))
    return result


class JobPool(LowPriorityJobs):
    """Dash's diskcache manager with a bounded, fair queue in front of its job processes (see the module)."""

    def __init__(self, cache, expire: int, workers: int = WORKERS, waiting: int = MAX_WAITING,
                 memory_mb: int = MEMORY_MB, seconds: int = SECONDS, cache_by=None):
        super().__init__(cache, cache_by=cache_by, expire=expire)
        self.workers, self.max_waiting, self.memory_mb, self.seconds = workers, waiting, memory_mb, seconds
        self._pending: dict[str, tuple] = {}  # key -> (job_fn, args, context) of this process's waiting jobs
        self._thread: threading.Thread | None = None
        self._guard, self._stop = threading.Lock(), threading.Event()

    # ------------------------------------------------------------ Dash's interface
    def call_job_fn(self, key, job_fn, args, context):
        return self.submit(key, job_fn, args, context, visitor_of(), _slot_of(context))

    def job_running(self, job) -> bool:
        state = self._state()
        ticket = state["tickets"].get(str(job))
        if ticket is None or ticket.get("error"):
            return False
        entry = state["jobs"].get(ticket["key"])
        return entry is not None and (entry["state"] == "waiting" or self._running(entry))

    def terminate_job(self, job) -> None:
        """Give up the ticket ``job``; a job nobody holds a ticket of stops (or leaves the queue)."""
        if job is None:
            return
        with self._changing() as state:
            state["tickets"].pop(str(job), None)
            self._drop_unheld(state)

    def get_progress(self, key):
        state = self._state()
        entry = state["jobs"].get(key)
        if entry is not None and entry["state"] == "waiting":
            ahead = state["queue"].index(key) if key in state["queue"] else 0
            text = (f"waiting: {ahead:,} job{'s' * (ahead != 1)} ahead of yours" if ahead
                    else "waiting for a free worker: yours is the next job to start")
            return [0, 1, text]
        return self.handle.get(self._make_progress_key(key))  # kept: every request sharing the job reads it

    def get_result(self, key, job):
        ticket = self._state()["tickets"].get(str(job)) if job is not None else None
        if ticket is not None and ticket.get("error"):
            self.terminate_job(job)
            return _error(limit_message(ticket["error"]))
        result = self.handle.get(key, self.UNDEFINED)
        if result is self.UNDEFINED:
            if ticket is None or self.job_running(job):
                self._seen(job, ticket)
                return self.UNDEFINED
            result = self.handle.get(key, self.UNDEFINED)  # written as the job ended?
            if result is self.UNDEFINED:
                self.terminate_job(job)
                return _error(limit_message("lost"))
        with self._changing() as state:
            state["tickets"].pop(str(job), None)
            if not self._held(state, key):  # every holder has it
                self.handle.delete(key)
                self.handle.delete(self._make_progress_key(key))
            else:
                self.handle.touch(key, expire=KEEP_S)
        return _named(result, self.memory_mb, self.seconds)

    # ------------------------------------------------------------ the queue
    def submit(self, key: str, job_fn, args, context, visitor: str, slot: str) -> str:
        """A ticket for the job ``key`` of ``visitor``'s ``slot``: attached to the job if it waits, runs or has
        ended, else queued (or refused when the queue is full)."""
        ticket = "j" + uuid.uuid4().hex[:16]
        with self._changing() as state:
            self._tidy(state)
            state["tickets"][ticket] = {"key": key, "visitor": visitor, "slot": slot, "seen": time.time()}
            for other, held in list(state["tickets"].items()):  # the slot's other inputs give way
                if held["visitor"] == visitor and held["slot"] == slot and held["key"] != key:
                    del state["tickets"][other]
            self._drop_unheld(state)
            if key in state["jobs"] or self._held(state, key, ticket):
                pass  # attached: to the job, or to its result not read by all yet
            elif len(state["queue"]) >= self.max_waiting:
                state["tickets"][ticket]["error"] = "busy"
            else:
                state["jobs"][key] = {"state": "waiting", "owner": os.getpid(), "pid": None, "started": None}
                state["queue"].append(key)
                self.handle.delete(key)  # an earlier run's result and progress
                self.handle.delete(self._make_progress_key(key))
                self._pending[key] = (job_fn, args, context)
        self.dispatch()
        self._watch()
        return ticket

    def dispatch(self) -> None:
        """Start this process's jobs at the head of the queue while fewer than ``workers`` run."""
        with self._changing() as state:
            self._tidy(state)
            starting = self._next_jobs(state)
        for key, (job_fn, args, context) in starting:
            pid = super().call_job_fn(key, _limited(job_fn, self.memory_mb, self.seconds), args, context)
            with self._changing() as state:
                if key in state["jobs"]:
                    state["jobs"][key]["pid"] = pid
                else:
                    _kill(pid)  # nobody waits for it any more

    def _next_jobs(self, state: dict) -> list[tuple[str, tuple]]:
        """The jobs of this process to start now, marked running (in the pool's transaction, which
        :meth:`submit` also needs to add one: the two never interleave)."""
        running = sum(entry["state"] == "running" for entry in state["jobs"].values())
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

    # ------------------------------------------------------------ state
    def _seen(self, job, ticket: dict | None) -> None:
        """The page of ticket ``job`` still waits for it (written down every :data:`SEEN_EVERY_S`)."""
        if ticket is not None and time.time() - ticket["seen"] > SEEN_EVERY_S:
            with self._changing() as state:
                if str(job) in state["tickets"]:
                    state["tickets"][str(job)]["seen"] = time.time()

    def _state(self) -> dict:
        return self.handle.get(STATE) or {"tickets": {}, "jobs": {}, "queue": []}

    @contextmanager
    def _changing(self):
        with self.handle.transact():
            state = self._state()
            yield state
            self.handle.set(STATE, state)

    @staticmethod
    def _held(state: dict, key: str, but: str = "") -> bool:
        """Whether a ticket other than ``but`` holds the job ``key``."""
        return any(held["key"] == key for ticket, held in state["tickets"].items() if ticket != but)

    def _running(self, entry: dict) -> bool:
        if entry["pid"] is None:  # being forked
            return time.time() - entry["started"] < 30
        return _alive(entry["pid"])

    def _tidy(self, state: dict) -> None:
        """Forget ended jobs, jobs whose worker is gone and old tickets; end jobs past the time limit."""
        now = time.time()
        for key, entry in list(state["jobs"].items()):
            if entry["state"] == "waiting" and not _alive(entry["owner"]):
                state["queue"].remove(key)
                del state["jobs"][key]
            elif entry["state"] == "running" and not self._running(entry):
                del state["jobs"][key]
            elif entry["state"] == "running" and now - entry["started"] > self.seconds + GRACE_S:
                _kill(entry["pid"])
                self.handle.set(key, _error(limit_message("time", self.memory_mb, self.seconds)), expire=KEEP_S)
                del state["jobs"][key]
        for ticket, held in list(state["tickets"].items()):
            if now - held["seen"] > ABANDON_S:
                del state["tickets"][ticket]
        self._drop_unheld(state)

    def _drop_unheld(self, state: dict) -> None:
        """Drop the queued jobs nobody holds a ticket of, and stop such running ones."""
        held = {ticket["key"] for ticket in state["tickets"].values()}
        for key in [k for k in state["jobs"] if k not in held]:
            entry = state["jobs"].pop(key)
            if entry["state"] == "waiting":
                state["queue"].remove(key)
            else:
                _kill(entry["pid"])

    def _watch(self) -> None:
        """Start this process's dispatcher thread (once per process: a forked worker starts its own)."""
        with self._guard:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, daemon=True, name="vizcoll-job-pool")
                self._thread.start()

    def stop(self) -> None:
        """Stop this process's dispatcher thread (jobs already running go on)."""
        self._stop.set()

    def _loop(self) -> None:
        last = 0.0
        while not self._stop.wait(TICK_S):
            if self._pending or time.monotonic() - last > 1:  # the time limit is looked at every second
                last = time.monotonic()
                try:
                    self.dispatch()
                except Exception:  # noqa: BLE001 - the thread must live on; the next tick tries again
                    logging.getLogger("vizcoll.jobs").exception("the job pool's dispatcher failed")
