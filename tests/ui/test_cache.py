"""flask-caching around engine calls: filesystem by default, Redis by configuration."""

from flask import Flask

from vizcoll.ui import cache as cache_mod

calls = []


def slow_square(x):
    calls.append(x)
    return {"square": x * x}


def test_config_default_is_filesystem_and_redis_by_env(monkeypatch, tmp_path):
    monkeypatch.delenv("VIZCOLL_CACHE_REDIS_URL", raising=False)
    monkeypatch.setenv("VIZCOLL_CACHE_DIR", str(tmp_path))
    assert cache_mod.cache_config()["CACHE_TYPE"] == "FileSystemCache"
    assert cache_mod.cache_config()["CACHE_DIR"] == str(tmp_path)
    monkeypatch.setenv("VIZCOLL_CACHE_REDIS_URL", "redis://cache.internal:6379/0")
    config = cache_mod.cache_config()
    assert config["CACHE_TYPE"] == "RedisCache" and config["CACHE_REDIS_URL"].endswith("/0")


def test_memo_computes_once_per_input_and_is_shared_through_the_directory(tmp_path):
    config = {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": str(tmp_path)}
    first, second = Flask("a"), Flask("b")  # two "workers" sharing one cache directory
    cache_mod.init_cache(first, config)
    cache_mod.init_cache(second, config)
    calls.clear()
    with first.app_context():
        assert cache_mod.memo(slow_square, 7) == {"square": 49}
        assert cache_mod.memo(slow_square, 7) == {"square": 49}
        assert cache_mod.memo(slow_square, 8) == {"square": 64}
    with second.app_context():
        assert cache_mod.memo(slow_square, 7) == {"square": 49}
    assert calls == [7, 8]


def test_memo_without_app_context_just_computes():
    calls.clear()
    assert cache_mod.memo(slow_square, 3) == {"square": 9}
    assert cache_mod.memo(slow_square, 3) == {"square": 9}
    assert calls == [3, 3]
