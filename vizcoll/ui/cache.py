"""Memoisation of expensive engine calls with flask-caching: one ``@cached`` decorator.

The default is a filesystem cache (shared by all gunicorn workers on one host);
set ``VIZCOLL_REDIS_URL`` (the jobs' Redis, see :mod:`vizcoll.ui.jobs`) or
``VIZCOLL_CACHE_REDIS_URL`` to use Redis for a multi-host deployment, or
``VIZCOLL_CACHE_DIR`` to move the filesystem cache. A background job (a
process of its own, or a Celery worker) uses the cache of the app it was
started from. Before any app exists (unit tests calling callbacks directly)
calls are simply computed.

A cached function takes plain JSON values (dicts, lists, strings, numbers:
a scenario's :meth:`~vizcoll.scenario.Scenario.source_key`, a page's checked
parameters) and returns plain data or engine results that pickle; its key is
its qualified name and a SHA-256 of the JSON of its arguments, so every
worker computes the same key for the same question. An argument that is not
JSON (a Topology, a Scenario object) is a programming error: it raises
``TypeError`` instead of being cached under an unstable ``str()``.

In front of the shared cache each process keeps the last :data:`MEMO_SIZE`
results it read or computed (a result is a pure function of its key, so this
is never per-user state): a page reads the same fabric, min-hop table or tree
from several callbacks, and unpickling a 40,000-node result from disk each
time costs more than the figure built from it. A cached result is therefore
shared by every caller in the process: callers never modify it.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import ParamSpec, TypeVar

from flask import Flask, has_app_context
from flask_caching import Cache

from vizcoll import uploads
from vizcoll.tasks import Runner, in_process

__all__ = [
    "cache",
    "init_cache",
    "cache_config",
    "cached",
    "cached_figures",
    "cache_key",
    "code_version",
    "peek",
    "is_cached",
    "reporting",
    "job_progress",
    "running_tasks",
    "job_runner",
    "SharedStore",
    "timelines",
]

P = ParamSpec("P")
R = TypeVar("R")

cache = Cache()
_server: Flask | None = None  # the app whose cache a call outside a request (a background job) uses
_PROGRESS: ContextVar[Callable[[int, int], None] | None] = ContextVar("job_progress", default=None)
_RUNNER: ContextVar[Runner] = ContextVar("job_runner", default=in_process)
FABRIC_KEY = "vizcoll.uploads:"
FABRIC_TIMEOUT = 7 * 24 * 3600
"""How long an uploaded fabric stays in the shared cache after it was last put there (a week: a class's share
links keep working; a page whose fabric is gone says how to get it back)."""
TIMELINE_TIMEOUT = 24 * 3600
"""How long a player's timeline stays in the shared cache (a page computes it again from its scenario)."""
MEMO_SIZE = 24
"""Results each process keeps in memory, the most recently used (about 25 MB each for the largest fabrics)."""
_memo: OrderedDict[tuple[int, str], object] = OrderedDict()  # (the app's cache backend, key) -> result


_flights: dict[tuple[int, str], threading.Lock] = {}
_flights_lock = threading.Lock()


def _no_flights() -> None:
    """In a forked job: no flight. Another thread of the parent may have held a key's lock at the fork, and that
    thread does not exist here: the job would wait for it until its time limit (seen as jobs that never end)."""
    global _flights, _flights_lock
    _flights, _flights_lock = {}, threading.Lock()


os.register_at_fork(after_in_child=_no_flights)


@contextmanager
def _single_flight(key: tuple[int, str]) -> Iterator[None]:
    """Within the block, no other thread of this process computes or loads ``key``: the page's callbacks, answered
    at once by a threaded server, would each unpickle the same million-node fabric (slowly, one at a time:
    docs/design.md)."""
    with _flights_lock:
        lock = _flights.setdefault(key, threading.Lock())
    with lock:
        yield
    with _flights_lock:
        if not lock.locked():
            _flights.pop(key, None)


def _remember(key: tuple[int, str], value):
    _memo[key] = value
    _memo.move_to_end(key)
    while len(_memo) > MEMO_SIZE:
        _memo.popitem(last=False)
    return value


def cache_config() -> dict:
    """flask-caching settings from the environment."""
    redis_url = os.environ.get("VIZCOLL_CACHE_REDIS_URL") or os.environ.get("VIZCOLL_REDIS_URL")
    if redis_url:
        return {"CACHE_TYPE": "RedisCache", "CACHE_REDIS_URL": redis_url, "CACHE_DEFAULT_TIMEOUT": 3600}
    directory = os.environ.get("VIZCOLL_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "vizcoll-cache")
    return {
        "CACHE_TYPE": "FileSystemCache",
        "CACHE_DIR": directory,
        "CACHE_THRESHOLD": 500,
        "CACHE_DEFAULT_TIMEOUT": 3600,
    }


def init_cache(server: Flask, config: dict | None = None) -> None:
    """Use the cache ``config`` says for ``server`` (and keep uploaded fabrics in it: :class:`SharedStore`)."""
    global _server
    _memo.clear()  # results of another cache are not this one's
    code_version()  # read once here, at start, not in the first request
    cache.init_app(server, config=config or cache_config())
    _server = server
    uploads.use_store(SharedStore(FABRIC_KEY, FABRIC_TIMEOUT))


class SharedStore:
    """Plain JSON data kept by content ref (:func:`vizcoll.uploads.content_ref`) in the shared cache, so that
    every worker and job finds it, ``timeout`` seconds after it was last put there; this process keeps the last
    few in memory. Before any app exists (unit tests, the command line) it is this process's memory alone."""

    def __init__(self, prefix: str, timeout: int) -> None:
        self.prefix, self.timeout = prefix, timeout
        self.memory = uploads.MemoryStore(size=4)

    def get(self, ref: str) -> dict | None:
        found = self.memory.get(ref)
        if found is None:
            found = _in_app(lambda: cache.get(self.prefix + ref))
            if isinstance(found, dict):
                self.memory.put(ref, found)
        return found if isinstance(found, dict) else None

    def put(self, ref: str, payload: dict) -> None:
        self.memory.put(ref, payload)
        _in_app(lambda: cache.set(self.prefix + ref, payload, timeout=self.timeout))

    def holds(self, ref: str) -> bool:
        """Whether ``ref`` is here (this process's memory or the shared cache), asked without loading it: a handle
        cached longer than what it points to must put it back."""
        return self.memory.get(ref) is not None or bool(_in_app(lambda: cache.has(self.prefix + ref)))


def _in_app(call: Callable[[], R]) -> R | None:
    """``call()`` within the app's context (a job, a test calling callbacks); None before any app exists."""
    if has_app_context():
        return call()
    if _server is None:
        return None
    with _server.app_context():
        return call()


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """The first 12 hex digits of a SHA-256 of vizcoll's source files: a key holds it, so that an upgraded app
    never serves a result (a figure) that the code before it computed from a cache that outlived it."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def cache_key(fn: Callable, args: tuple, kwargs: dict) -> str:
    """``module.qualname@code:sha256`` of the JSON of the arguments by name, defaults filled in (so ``f(1)``,
    ``f(1, b=2)`` and ``f(1, 2)`` share a key when 2 is ``b``'s default), and ``code``, the
    :func:`code_version`; TypeError when one is not JSON."""
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    try:
        text = json.dumps(bound.arguments, sort_keys=True, separators=(",", ":"))
    except TypeError as exc:
        raise TypeError(f"@cached {fn.__qualname__}: arguments must be plain JSON values ({exc})") from None
    return f"{fn.__module__}.{fn.__qualname__}@{code_version()}:{hashlib.sha256(text.encode()).hexdigest()}"


def cached(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorator: ``fn(*args, **kwargs)`` computed once per distinct arguments and shared by every worker.

    The undecorated function stays reachable as ``fn.uncached``. A result of
    None is cached too (it is stored wrapped in a 1-tuple).
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        key = cache_key(fn, args, kwargs)  # checked outside an app too, so that unit tests catch a bad key
        if not has_app_context():
            if _server is None:
                return fn(*args, **kwargs)
            with _server.app_context():
                return wrapper(*args, **kwargs)
        mine = (id(cache.cache), key)  # results of another app's cache are not this one's
        with _single_flight(mine):  # callbacks asking at once for one result: the first computes or loads it
            if mine in _memo:
                _memo.move_to_end(mine)
                return _memo[mine]
            hit = cache.get(key)
            if isinstance(hit, tuple) and len(hit) == 1:
                return _remember(mine, hit[0])
            value = fn(*args, **kwargs)
            cache.set(key, (value,))
            return _remember(mine, value)

    wrapper.uncached = fn  # type: ignore[attr-defined]
    return wrapper


def cached_figures(fn: Callable[P, R]) -> Callable[P, R]:
    """:func:`cached` for a function of plain JSON values returning a Plotly figure or a tuple of figures.

    The figures are stored as their dicts and handed back as figures without
    validating them again: Plotly checks every value of a figure it builds
    (about a second for a paper-scale fabric's 100,000 links), once is enough.
    """
    import plotly.graph_objects as go

    def as_dicts(*args, **kwargs):
        out = fn(*args, **kwargs)
        return tuple(f.to_dict() for f in out) if isinstance(out, tuple) else out.to_dict()

    stored = cached(functools.update_wrapper(as_dicts, fn))

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        out = stored(*args, **kwargs)
        if isinstance(out, tuple):
            return tuple(go.Figure(d, _validate=False) for d in out)  # type: ignore[return-value]
        return go.Figure(out, _validate=False)  # type: ignore[return-value]

    wrapper.uncached = fn  # type: ignore[attr-defined]
    return wrapper


def peek(fn: Callable[..., R], *args) -> R | None:
    """``fn(*args)`` of a ``@cached`` function when a worker (a background job) has computed it, else None: a
    view never starts a long computation itself. Outside an app (unit tests, the CLI) it is computed."""
    if not has_app_context():
        return fn(*args)
    key = cache_key(fn.uncached, args, {})
    mine = (id(cache.cache), key)
    if mine in _memo:
        return _memo[mine]
    hit = cache.get(key)
    return _remember(mine, hit[0]) if isinstance(hit, tuple) and len(hit) == 1 else None


def is_cached(fn: Callable[..., object], *args) -> bool:
    """Whether ``fn(*args)`` of a ``@cached`` function is computed (in this process or the shared cache), read
    without loading it: a paper-scale result costs a tenth of a second to unpickle. Outside an app: False."""
    if not has_app_context():
        if _server is None:
            return False
        with _server.app_context():
            return is_cached(fn, *args)
    key = cache_key(fn.uncached, args, {})
    return (id(cache.cache), key) in _memo or bool(cache.has(key))


@contextmanager
def reporting(progress: Callable[[int, int], None] | None) -> Iterator[None]:
    """Within the block, :func:`job_progress` is ``progress``: a background job's ``progress(done, total)``
    reaches the engine inside a ``@cached`` call without being part of its key (a cached result reports
    nothing)."""
    token = _PROGRESS.set(progress)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def job_progress() -> Callable[[int, int], None] | None:
    """The running job's ``progress(done, total)`` (see :func:`reporting`), or None."""
    return _PROGRESS.get()


@contextmanager
def running_tasks(run: Runner) -> Iterator[None]:
    """Within the block, :func:`job_runner` is ``run``: a background job's way to compute a sweep's tasks
    (:mod:`vizcoll.tasks`) reaches the engine inside a ``@cached`` call, as :func:`reporting` does its progress."""
    token = _RUNNER.set(run)
    try:
        yield
    finally:
        _RUNNER.reset(token)


def job_runner() -> Runner:
    """The running job's :data:`~vizcoll.tasks.Runner` (see :func:`running_tasks`); else one by one, here."""
    return _RUNNER.get()


timelines = SharedStore("vizcoll.timelines:", TIMELINE_TIMEOUT)
"""The players' timelines by ref (:func:`vizcoll.ui.components.player.player_data`): the browser holds a handle."""
