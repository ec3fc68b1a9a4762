"""Memoisation of expensive engine calls with flask-caching, keyed by a hash of the inputs.

The default is a filesystem cache (shared by all gunicorn workers on one host);
set ``VIZCOLL_CACHE_REDIS_URL`` to use Redis for a multi-host deployment, or
``VIZCOLL_CACHE_DIR`` to move the filesystem cache. Outside a Flask app
context (unit tests calling callbacks directly) calls are simply computed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable

from flask import Flask, has_app_context
from flask_caching import Cache

__all__ = ["cache", "init_cache", "cache_config", "memo"]

cache = Cache()


def cache_config() -> dict:
    """flask-caching settings from the environment."""
    redis_url = os.environ.get("VIZCOLL_CACHE_REDIS_URL")
    if redis_url:
        return {"CACHE_TYPE": "RedisCache", "CACHE_REDIS_URL": redis_url, "CACHE_DEFAULT_TIMEOUT": 3600}
    directory = os.environ.get("VIZCOLL_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "vizcoll-cache")
    return {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": directory, "CACHE_THRESHOLD": 500,
            "CACHE_DEFAULT_TIMEOUT": 3600}


def init_cache(server: Flask, config: dict | None = None) -> None:
    cache.init_app(server, config=config or cache_config())


def memo(fn: Callable, *args):
    """``fn(*args)``, cached under the function's name and a SHA-256 of the JSON of ``args``."""
    if not has_app_context():
        return fn(*args)
    digest = hashlib.sha256(json.dumps(args, sort_keys=True, default=str).encode()).hexdigest()
    key = f"{fn.__module__}.{fn.__qualname__}:{digest}"
    value = cache.get(key)
    if value is None:
        value = fn(*args)
        cache.set(key, value)
    return value
