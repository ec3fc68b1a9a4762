"""flask-caching around engine calls: one @cached decorator, filesystem by default, Redis by configuration."""

import multiprocessing
import threading

import pytest
from flask import Flask

from vizcoll.ui import cache as cache_mod

calls = []


@cache_mod.cached
def slow_square(x, offset=0):
    calls.append(x)
    return {"square": x * x + offset}


@cache_mod.cached
def nothing(x):
    calls.append(x)


def test_config_default_is_filesystem_and_redis_by_env(monkeypatch, tmp_path):
    monkeypatch.delenv("VIZCOLL_CACHE_REDIS_URL", raising=False)
    monkeypatch.setenv("VIZCOLL_CACHE_DIR", str(tmp_path))
    assert cache_mod.cache_config()["CACHE_TYPE"] == "FileSystemCache"
    assert cache_mod.cache_config()["CACHE_DIR"] == str(tmp_path)
    monkeypatch.setenv("VIZCOLL_CACHE_REDIS_URL", "redis://cache.internal:6379/0")
    config = cache_mod.cache_config()
    assert config["CACHE_TYPE"] == "RedisCache" and config["CACHE_REDIS_URL"].endswith("/0")


def test_cached_computes_once_per_input_and_is_shared_through_the_directory(tmp_path):
    config = {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": str(tmp_path)}
    first, second = Flask("a"), Flask("b")  # two "workers" sharing one cache directory
    cache_mod.init_cache(first, config)
    cache_mod.init_cache(second, config)
    calls.clear()
    with first.app_context():
        assert slow_square(7) == {"square": 49}
        assert slow_square(7) == {"square": 49}
        assert slow_square(7, offset=0) == slow_square(7, 0) == {"square": 49}  # one key, however it is called
        assert slow_square(8) == {"square": 64}
        assert nothing(1) is None and nothing(1) is None  # a None result is cached too
    with second.app_context():
        assert slow_square(7) == {"square": 49}
    assert calls == [7, 8, 1]


def test_cached_before_any_app_just_computes(monkeypatch):
    monkeypatch.setattr(cache_mod, "_server", None)
    calls.clear()
    assert slow_square(3) == {"square": 9}
    assert slow_square(3) == {"square": 9}
    assert calls == [3, 3]
    assert slow_square.uncached(3) == {"square": 9}


def test_a_background_job_uses_the_cache_of_the_app_it_came_from(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "_server", cache_mod._server)  # restored after the test
    server = Flask("job")
    cache_mod.init_cache(server, {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": str(tmp_path)})
    calls.clear()
    assert slow_square(5) == {"square": 25} and slow_square(5) == {"square": 25}  # no request, no app context
    assert calls == [5]


def test_keys_must_be_plain_json():
    with pytest.raises(TypeError, match="plain JSON"):
        slow_square(object())
    key = cache_mod.cache_key(slow_square.uncached, ({"b": [1, 2], "a": "x"},), {})
    name, _, digest = key.partition(":")
    assert name.endswith(f".slow_square@{cache_mod.code_version()}") and len(digest) == 64


def test_a_key_changes_with_the_code_so_an_upgrade_never_serves_old_results(tmp_path, monkeypatch):
    (tmp_path / "vizcoll" / "ui").mkdir(parents=True)
    (tmp_path / "vizcoll" / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(cache_mod, "__file__", str(tmp_path / "vizcoll" / "ui" / "cache.py"))
    cache_mod.code_version.cache_clear()
    try:
        before = cache_mod.code_version()
        (tmp_path / "vizcoll" / "a.py").write_text("x = 2\n")
        cache_mod.code_version.cache_clear()
        assert cache_mod.code_version() != before and len(before) == 12
    finally:
        cache_mod.code_version.cache_clear()


def _enter_flight(key):
    with cache_mod._single_flight(key):
        pass


def test_a_job_forked_while_another_thread_computes_a_key_can_compute_it_too():
    key, holding, done = (0, "fabric"), threading.Event(), threading.Event()

    def hold():
        with cache_mod._single_flight(key):
            holding.set()
            done.wait(30)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait(10)
    job = multiprocessing.get_context("fork").Process(target=_enter_flight, args=(key,))
    job.start()  # forked with the key's lock held by a thread the job does not have
    job.join(10)
    done.set()
    thread.join()
    stuck = job.is_alive()
    job.kill()
    assert not stuck and job.exitcode == 0
