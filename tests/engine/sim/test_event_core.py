"""The one event core of every simulation (vizcoll.sim.engine): order, absolute times, limits, processes."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from vizcoll.sim.engine import Engine, Queue


def test_equal_times_run_in_scheduling_order():
    eng, seen = Engine(), []
    for tag in "abcde":
        eng.at(1.0, seen.append, tag)
    eng.run()
    assert seen == list("abcde")


def test_time_first_then_priority_then_fifo():
    eng, seen = Engine(), []
    eng.at(2.0, seen.append, "late, urgent", priority=-5)
    eng.at(1.0, seen.append, "p2 first", priority=2)
    eng.at(1.0, seen.append, "p0 first")
    eng.at(1.0, seen.append, "p2 second", priority=2)
    eng.at(1.0, seen.append, "p1", priority=1)
    eng.at(1.0, seen.append, "p0 second")
    eng.run()
    assert seen == ["p0 first", "p0 second", "p1", "p2 first", "p2 second", "late, urgent"]


def test_at_is_absolute_and_schedule_relative():
    eng, seen = Engine(), []

    def later():
        seen.append(("later", eng.now))
        eng.at(5.0, lambda: seen.append(("at 5", eng.now)))
        eng.schedule(0.5, lambda: seen.append(("+0.5", eng.now)))
        eng.schedule(-1.0, lambda: seen.append(("negative delay = now", eng.now)))

    eng.at(3.0, later)
    eng.run()
    assert seen == [("later", 3.0), ("negative delay = now", 3.0), ("+0.5", 3.5), ("at 5", 5.0)]
    assert eng.now == 5.0 and eng.processed == 4 and eng.pending == 0


def test_at_refuses_the_past():
    eng = Engine()
    eng.at(2.0, lambda: None)
    eng.step()
    assert eng.now == 2.0
    with pytest.raises(ValueError, match="before the current time"):
        eng.at(1.0, lambda: None)
    eng.at(2.0, lambda: None)  # the current time itself is fine
    assert eng.pending == 1


def test_callbacks_scheduled_at_the_current_time_run_after_the_waiting_ones():
    eng, seen = Engine(), []
    eng.at(1.0, lambda: (seen.append("first"), eng.at(1.0, seen.append, "added by first")))
    eng.at(1.0, seen.append, "second")
    eng.run()
    assert seen == ["first", "second", "added by first"]


def test_run_limit_raises_after_that_many_events():
    eng = Engine()

    def tick():
        eng.schedule(1.0, tick)

    eng.at(0.0, tick)
    with pytest.raises(RuntimeError, match="exceeded 100 events"):
        eng.run(limit=100)
    assert eng.processed == 100 and eng.now == 99.0


def test_run_limit_not_reached_is_silent():
    eng, seen = Engine(), []
    for i in range(10):
        eng.at(float(i), seen.append, i)
    eng.run(limit=10)
    assert seen == list(range(10)) and eng.processed == 10


def test_processes_timeouts_and_queues_are_deterministic():
    eng, log = Engine(), []
    q = Queue(eng, dispatch_delay=0.25)

    def consumer(name):
        while True:
            item = yield q.get()
            log.append((eng.now, name, item))

    def producer():
        for k in range(3):
            yield eng.timeout(1.0)
            q.put(k)

    eng.start(consumer("a"))
    eng.start(consumer("b"))
    done = eng.start(producer())
    eng.run()
    assert done.fired
    assert log == [(1.25, "a", 0), (2.25, "b", 1), (3.25, "a", 2)]


def test_all_of_fires_with_the_values_in_order():
    eng = Engine()
    both = eng.all_of([eng.timeout(2.0, "slow"), eng.timeout(1.0, "fast")])
    got = []
    both.then(got.append)
    eng.run()
    assert got == [["slow", "fast"]] and eng.now == 2.0


def _load_benchmark(monkeypatch, simpy_available: bool):
    if not simpy_available:
        monkeypatch.setitem(sys.modules, "simpy", None)  # import simpy -> ImportError
    path = Path(__file__).resolve().parents[3] / "benchmarks" / "event_core.py"
    spec = importlib.util.spec_from_file_location("event_core_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_runs_without_simpy(monkeypatch, capsys):
    bench = _load_benchmark(monkeypatch, simpy_available=False)
    assert bench.main(["--size", "4", "--rate", "0.3", "--repeat", "1", "--events", "500"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["algo"] for r in out["barrier"]] == ["dlct+tree", "tree"] and out["barrier"][0]["events"] > 0
    assert out["core"]["ours"]["events"] == out["core"]["ours_schedule"]["events"] == 500
    assert out["core"]["simpy"].startswith("missing") and "barrier_on_simpy_s" not in out


def test_the_benchmark_compares_with_simpy_when_installed(monkeypatch, capsys):
    pytest.importorskip("simpy")
    bench = _load_benchmark(monkeypatch, simpy_available=True)
    assert bench.main(["--size", "4", "--repeat", "1", "--events", "500", "--chains", "7"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["core"]["simpy"]["events"] == out["core"]["ours"]["events"] == 500 and out["core"]["ratio"] > 0


def test_a_time_keeps_its_order_however_its_events_come():
    """Events of one time in order (a FIFO), then one out of order (a heap), and others added while it runs."""
    eng, seen = Engine(), []
    for p in (1, 1, 2, 5):
        eng.at(3.0, seen.append, f"p{p}", priority=p)
    eng.at(3.0, seen.append, "p0", priority=0)  # out of order: before every other

    def add_more():
        seen.append("adds")
        eng.at(3.0, seen.append, "p3 later", priority=3)
        eng.at(3.0, seen.append, "p9 later", priority=9)

    eng.at(3.0, add_more, priority=2)
    eng.at(1.0, seen.append, "alone at 1")
    eng.at(3, seen.append, "int 3, p0")  # the same time as 3.0, after the first p0
    eng.run()
    assert seen == ["alone at 1", "p0", "int 3, p0", "p1", "p1", "p2", "adds", "p3 later", "p5", "p9 later"]
    assert eng.pending == 0 and eng.processed == 10
