"""The rules of vizcoll's job queue, shared by its two job pools: forked processes on one host
(:class:`vizcoll.ui.pool.JobPool`, the default) and Celery workers on Redis (:class:`vizcoll.ui.celery_pool.
CeleryJobPool`, with ``VIZCOLL_REDIS_URL``).

- **Bounded.** Jobs wait in one first-come queue of at most :data:`MAX_WAITING` (``VIZCOLL_JOB_QUEUE``, default
  100) for one of the workers (``VIZCOLL_JOB_WORKERS`` processes on one host, default the CPU count; the Celery
  workers' concurrency). A request that finds the queue full is answered at once: "the server is busy: try again
  in a minute".
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
- **Per-job limits**: memory (:data:`MEMORY_MB`, ``VIZCOLL_JOB_MEMORY_MB``, default 2,048) and time
  (:data:`SECONDS`, ``VIZCOLL_JOB_SECONDS``, default 300). A job over either ends with a message naming the limit
  (:func:`limit_message`); the pool, its workers and the web workers live on.

The state is one plain dict, ``{"tickets": {ticket: {"key", "visitor", "slot", "seen"[, "error"]}}, "jobs":
{key: {"state": "waiting" | "running", ...}}, "queue": [key, ...]}``, kept where every web worker sees it and
changed in transactions; :class:`FairQueue` implements Dash's manager interface on it, and a pool says how the
state is stored and how its jobs start, run and stop.
"""

from __future__ import annotations

import os
import time
import uuid
from contextlib import AbstractContextManager

from flask import has_request_context, request

__all__ = [
    "FairQueue",
    "slot_of",
    "WORKERS",
    "MAX_WAITING",
    "MEMORY_MB",
    "SECONDS",
    "GRACE_S",
    "KEEP_S",
    "LIMIT_MARK",
    "BUSY",
    "VISITOR_COOKIE",
    "JobTimeLimit",
    "limit_message",
    "visitor_of",
    "error_result",
]


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
GRACE_S = 5  # a job past its time limit is killed this long after it was told to stop
KEEP_S = 600  # a finished job's result waits this long for the requests holding it to read it
ABANDON_S = 120  # a ticket whose page has not asked for its job this long is given up (the tab was closed)
SEEN_EVERY_S = 5  # how often a page's polls are written down (each write is a transaction)
VISITOR_COOKIE = "vizcoll_visitor"
LIMIT_MARK = "vizcoll job: "
"""Starts the message of a job the pool ended or refused; the app's error handler shows what follows it."""
BUSY = "the server is busy: try again in a minute"


class JobTimeLimit(Exception):
    """Raised in a job when it has run :data:`SECONDS`."""


def limit_message(kind: str, memory_mb: int = MEMORY_MB, seconds: int = SECONDS) -> str:
    """The message of a job over a limit (``memory`` or ``time``), of one that vanished (``lost``), or of a full
    queue (``busy``)."""
    return (
        LIMIT_MARK
        + {
            "memory": f"the job needed more memory than a job may use ({memory_mb:,} MB): try a smaller case",
            "time": f"the job ran longer than a job may ({seconds:,} s): try a smaller case",
            "lost": "the job ended without an answer (it was stopped, perhaps out of memory): try again",
            "busy": BUSY,
        }[kind]
    )


def error_result(message: str) -> dict:
    """A job's result that Dash hands to the app's error handler."""
    return {"background_callback_error": {"msg": message, "tb": ""}}


def visitor_of() -> str:
    """The visitor of the request being answered: its ``vizcoll_visitor`` cookie (a new id when it has none)."""
    if has_request_context():
        cookie = request.cookies.get(VISITOR_COOKIE, "")
        if 8 <= len(cookie) <= 64 and cookie.isalnum():
            return cookie
    return uuid.uuid4().hex


def slot_of(context) -> str:
    """A background callback's name: its first output, ``id.property`` (the same in every worker). Dash's
    ``outputs_list`` is one output (a dict), a list of them, or lists of them (pattern-matching outputs)."""
    first = (context or {}).get("outputs_list") or {}
    while isinstance(first, list | tuple):
        first = first[0] if first else {}
    return f"{first.get('id', '')}.{first.get('property', '')}" if isinstance(first, dict) else ""


def _named(result, memory_mb: int, seconds: int):
    """A job's result, its error named when the job went over a limit (numpy's "Unable to allocate" is a
    ``MemoryError`` too)."""
    error = result.get("background_callback_error") if isinstance(result, dict) else None
    if not isinstance(error, dict):
        return result
    raised = str(error.get("tb", "")).strip().rsplit("\n", 1)[-1].split(":", 1)[0]
    if raised.endswith("MemoryError"):
        return error_result(limit_message("memory", memory_mb, seconds))
    if raised.endswith("JobTimeLimit"):
        return error_result(limit_message("time", memory_mb, seconds))
    return result


class FairQueue:
    """Dash's background-callback manager interface on the queue's state (see the module). A pool, also a Dash
    manager (whose ``UNDEFINED`` it uses), stores the state (:meth:`_changing`, :meth:`_state`) and the results
    (:meth:`_result`, :meth:`_keep`, :meth:`_forget`, :meth:`_progress`) and starts (:meth:`_enqueue`), watches
    (:meth:`_running`, :meth:`_ended`) and stops (:meth:`_stop`) its jobs."""

    max_waiting, memory_mb, seconds = MAX_WAITING, MEMORY_MB, SECONDS

    # ------------------------------------------------------------ Dash's interface
    def call_job_fn(self, key, job_fn, args, context):
        return self.submit(key, job_fn, args, context, visitor_of(), slot_of(context))

    def job_running(self, job) -> bool:
        """Whether ticket ``job`` still waits for its job: queued, running, or ended with a result it has not read.
        Dash reads the result first and then asks this: a job that ended in between is no cancelled job (its
        answer would be lost, a 204), its result is read at the next poll."""
        state = self._state()
        ticket = state["tickets"].get(str(job))
        if ticket is None or ticket.get("error"):
            return False
        entry = state["jobs"].get(ticket["key"])
        if entry is not None and (entry["state"] == "waiting" or self._running(entry)):
            return True
        return self._result(ticket["key"]) is not self.UNDEFINED

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
            text = (
                f"waiting: {ahead:,} job{'s' * (ahead != 1)} ahead of yours"
                if ahead
                else "waiting for a free worker: yours is the next job to start"
            )
            return [0, 1, text]
        return self._progress(key)  # kept: every request sharing the job reads it

    def get_result(self, key, job):
        ticket = self._state()["tickets"].get(str(job)) if job is not None else None
        if ticket is not None and ticket.get("error"):
            self.terminate_job(job)
            return error_result(limit_message(ticket["error"], self.memory_mb, self.seconds))
        result = self._result(key)
        if result is self.UNDEFINED:
            if ticket is None or self.job_running(job):
                self._seen(job, ticket)
                return self.UNDEFINED
            with self._changing() as state:
                self._ended(state)  # a job ended past a limit gets its message as its result
            result = self._result(key)  # or it wrote one as it ended
            if result is self.UNDEFINED:
                self.terminate_job(job)
                return error_result(limit_message("lost"))
        with self._changing() as state:
            state["tickets"].pop(str(job), None)
            if self._held(state, key):
                self._keep(key)
            else:  # every holder has it
                self._forget(key)
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
                self._forget(key)  # an earlier run's result and progress
                state["queue"].append(key)
                state["jobs"][key] = self._enqueue(key, job_fn, args, context)
        return ticket

    def _seen(self, job, ticket: dict | None) -> None:
        """The page of ticket ``job`` still waits for it (written down every :data:`SEEN_EVERY_S`)."""
        if ticket is not None and time.time() - ticket["seen"] > SEEN_EVERY_S:
            with self._changing() as state:
                if str(job) in state["tickets"]:
                    state["tickets"][str(job)]["seen"] = time.time()

    @staticmethod
    def _held(state: dict, key: str, but: str = "") -> bool:
        """Whether a ticket other than ``but`` holds the job ``key``."""
        return any(held["key"] == key for ticket, held in state["tickets"].items() if ticket != but)

    def _tidy(self, state: dict) -> None:
        """Forget ended jobs and old tickets; drop the jobs nobody holds a ticket of."""
        self._ended(state)
        for ticket, held in list(state["tickets"].items()):
            if time.time() - held["seen"] > ABANDON_S:
                del state["tickets"][ticket]
        self._drop_unheld(state)

    def _drop_unheld(self, state: dict) -> None:
        """Drop the queued jobs nobody holds a ticket of, and stop such running ones."""
        held = {ticket["key"] for ticket in state["tickets"].values()}
        for key in [k for k in state["jobs"] if k not in held]:
            entry = state["jobs"].pop(key)
            if entry["state"] == "waiting":
                state["queue"].remove(key)
            self._stop(entry)

    # ------------------------------------------------------------ what a pool provides
    def _changing(self) -> AbstractContextManager[dict]:
        """The state, written back when the block ends, no other process changing it meanwhile."""
        raise NotImplementedError

    def _state(self) -> dict:
        raise NotImplementedError

    def _result(self, key: str):
        """The job's result, or ``UNDEFINED`` while it has none."""
        raise NotImplementedError

    def _keep(self, key: str) -> None:
        """Keep the result :data:`KEEP_S` more for the requests holding it."""
        raise NotImplementedError

    def _forget(self, key: str) -> None:
        """Delete the job's result and progress."""
        raise NotImplementedError

    def _progress(self, key: str):
        raise NotImplementedError

    def _enqueue(self, key: str, job_fn, args, context) -> dict:
        """The entry of a new waiting job (in the state's transaction); the pool starts it in its turn."""
        raise NotImplementedError

    def _running(self, entry: dict) -> bool:
        """Whether a running job still runs."""
        raise NotImplementedError

    def _ended(self, state: dict) -> None:
        """Forget the jobs that have ended (in the state's transaction)."""
        raise NotImplementedError

    def _stop(self, entry: dict) -> None:
        """Stop a dropped job, running or waiting."""
        raise NotImplementedError
