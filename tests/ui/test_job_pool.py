"""The job pool (:mod:`vizcoll.ui.pool`): real forked jobs made by Dash's own job wrapper, on a real diskcache."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from dash.background_callback.managers.diskcache_manager import _make_job_fn
from dash.exceptions import BackgroundCallbackError
from dash.testing.wait import until

from tests.ui import pool_jobs
from tests.ui.pool_jobs import greedy, nap, result
from vizcoll.tasks import in_process
from vizcoll.ui import fairqueue
from vizcoll.ui import pool as pool_module
from vizcoll.ui.fairqueue import BUSY, limit_message
from vizcoll.ui.pool import JobPool, JobsCache
from vizcoll.ui.shell import error_text

OTHERS: set[int] = set()  # children of the test process that are not jobs (a renderer's browser, ...)


@pytest.fixture
def make_pool(tmp_path):
    made = []
    OTHERS.clear()
    OTHERS.update(child.pid for child in psutil.Process().children())

    def make(**limits) -> JobPool:
        made.append(JobPool(JobsCache(str(tmp_path / f"jobs{len(made)}")), expire=3600, **limits))
        return made[-1]

    yield make
    for pool in made:
        pool.stop()
        for entry in pool._state()["jobs"].values():
            pool_module._kill(entry["pid"])


def picture() -> int:
    import plotly.graph_objects as go

    from vizcoll.ui.export.render import render

    return len(render(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), "png", 200, 100))


def stubborn(seconds: float):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)  # ignores the pool's alarm: the dispatcher must kill it
    time.sleep(seconds)


def submit(pool: JobPool, key: str, fn, *args, visitor: str = "v1", slot: str = "page.figure") -> str:
    return pool.submit(key, _make_job_fn(fn, pool.handle, False), list(args), {}, visitor, slot)


def jobs_alive() -> int:
    return sum(
        child.pid not in OTHERS and child.status() != psutil.STATUS_ZOMBIE for child in psutil.Process().children()
    )


def no_job_left(timeout: float = 10) -> bool:
    """Every job process has ended (a killed or finished one takes a moment to exit)."""
    end = time.time() + timeout
    while jobs_alive() and time.time() < end:
        time.sleep(0.05)
    return jobs_alive() == 0


def timed_nap(seconds: float, answer, folder: str):
    """``nap``, its start and end written down (in the job) to count the jobs that overlapped."""
    start = time.time()
    time.sleep(seconds)
    Path(folder, f"{answer}.times").write_text(f"{start} {time.time()}")
    return answer


def most_at_once(folder: Path) -> int:
    spans = [tuple(map(float, path.read_text().split())) for path in folder.glob("*.times")]
    return max(sum(start <= moment < end for start, end in spans) for moment, _ in spans)


def test_at_most_workers_jobs_run_the_others_wait_in_order_and_say_so(make_pool, tmp_path):
    pool = make_pool(workers=2)
    tickets = {f"k{i}": submit(pool, f"k{i}", timed_nap, 1.0, i, str(tmp_path), visitor=f"v{i}") for i in range(5)}
    assert [entry["state"] for entry in pool._state()["jobs"].values()].count("running") == 2
    assert pool.get_progress("k4") == [0, 1, "waiting: 2 jobs ahead of yours"]
    assert pool.get_progress("k2") == [0, 1, "waiting for a free worker: yours is the next job to start"]
    assert pool.job_running(tickets["k4"])
    answers = {key: result(pool, key, ticket) for key, ticket in tickets.items()}
    assert answers == {f"k{i}": i for i in range(5)} and most_at_once(tmp_path) == 2


def test_a_visitor_holds_one_job_per_page_whatever_the_tabs(make_pool):
    pool = make_pool(workers=1)
    first = submit(pool, "k1", nap, 30, 1)
    second = submit(pool, "k2", nap, 30, 2)  # another tab, other inputs: the first gives way
    last = submit(pool, "k3", nap, 0.2, 3)
    other = submit(pool, "k4", nap, 0.2, 4, visitor="v2")  # another visitor queues behind it
    assert not pool.job_running(first) and not pool.job_running(second) and pool.job_running(last)
    assert set(pool._state()["jobs"]) == {"k3", "k4"}
    assert result(pool, "k3", last) == 3 and result(pool, "k4", other) == 4
    assert no_job_left()  # the first job was stopped, not left running


def test_identical_requests_share_one_job_and_its_result(make_pool, tmp_path):
    pool = make_pool(workers=2)
    tickets = [submit(pool, "same", nap, 1.0, "shared", visitor=f"student{i}") for i in range(30)]
    assert len(pool._state()["jobs"]) == 1 and jobs_alive() == 1
    pool.terminate_job(tickets[0])  # one student cancels: the others still wait for it
    assert pool.job_running(tickets[1])
    first = result(pool, "same", tickets[1])
    late = submit(pool, "same", nap, 1.0, "shared", visitor="late")  # ended, not read by all: its result too
    assert result(pool, "same", late) == first == "shared" and len(pool._state()["jobs"]) <= 1
    assert [result(pool, "same", ticket) for ticket in tickets[2:]] == ["shared"] * 28
    assert pool.handle.get("same") is None  # read by all: dropped, a later request runs the job again
    again = submit(pool, "same", nap, 0.1, "again", visitor="later")
    assert pool.job_running(again) and result(pool, "same", again) == "again"


def test_a_job_that_ended_unread_still_runs_for_dash_so_its_answer_is_not_lost(make_pool):
    """Dash reads a job's result, then asks whether it runs, and answers a job that ended in between as cancelled
    (a 204: the answer lost). A job with a result its ticket has not read still runs; once read, it does not."""
    pool = make_pool(workers=1)
    ticket = submit(pool, "quick", nap, 0.0, "answer")
    until(lambda: pool.handle.get("quick") is not None and not jobs_alive(), 10)
    assert pool.job_running(ticket)  # ended, its answer unread
    assert pool.get_result("quick", ticket) == "answer" and not pool.job_running(ticket)


def test_cancel_while_waiting_leaves_the_queue(make_pool):
    pool = make_pool(workers=1)
    running = submit(pool, "k1", nap, 1.0, 1)
    waiting = submit(pool, "k2", nap, 1.0, 2, visitor="v2")
    pool.terminate_job(waiting)
    assert pool._state()["queue"] == [] and not pool.job_running(waiting)
    assert result(pool, "k1", running) == 1


def test_end_all_kills_the_running_jobs_and_empties_the_queue(make_pool):
    pool = make_pool(workers=1)
    running = submit(pool, "k1", nap, 30.0, 1)
    submit(pool, "k2", nap, 30.0, 2, visitor="v2")
    until(lambda: pool._state()["jobs"]["k1"]["pid"], 10)
    pid = pool._state()["jobs"]["k1"]["pid"]
    pool.end_all()
    assert pool._state() == {"tickets": {}, "jobs": {}, "queue": []} and not pool.job_running(running)
    until(lambda: not pool_module._alive(pid), 10)
    again = submit(pool, "k3", nap, 0.1, 3)  # the worker is free again
    assert result(pool, "k3", again) == 3


def test_a_full_queue_refuses_at_once_with_a_message(make_pool):
    pool = make_pool(workers=1, waiting=1)
    submit(pool, "k1", nap, 1.0, 1)
    submit(pool, "k2", nap, 1.0, 2, visitor="v2")
    refused = submit(pool, "k3", nap, 1.0, 3, visitor="v3")
    assert not pool.job_running(refused)
    answer = pool.get_result("k3", refused)
    assert answer == {"background_callback_error": {"msg": limit_message("busy"), "tb": ""}}
    shown = error_text(
        BackgroundCallbackError(
            f"An error occurred inside a background callback: {answer['background_callback_error']['msg']}\n"
        )
    )
    assert shown == BUSY == "the server is busy: try again in a minute"


def test_a_job_over_the_memory_limit_ends_with_a_message_and_the_pool_lives_on(make_pool):
    pool = make_pool(workers=1, memory_mb=200)
    over = submit(pool, "big", greedy, 400)
    answer = result(pool, "big", over)
    assert answer["background_callback_error"]["msg"] == limit_message("memory", memory_mb=200)
    assert "more memory than a job may use (200 MB)" in error_text(
        BackgroundCallbackError(
            "An error occurred inside a background callback: " + answer["background_callback_error"]["msg"]
        )
    )
    fine = submit(pool, "small", greedy, 50)
    assert result(pool, "small", fine) == 50 * 1024 * 1024 // 8


def test_a_job_under_the_memory_limit_still_renders_an_image_with_its_browser(make_pool):
    pool = make_pool(workers=1, memory_mb=256)  # Chromium needs more than that: its start lifts the limit
    ticket = submit(pool, "png", picture)
    assert result(pool, "png", ticket, timeout=120) > 1000


def test_a_job_over_the_time_limit_ends_with_a_message(make_pool, monkeypatch):
    pool = make_pool(workers=1, seconds=1)
    slow = submit(pool, "slow", nap, 30, "never")
    assert result(pool, "slow", slow)["background_callback_error"]["msg"] == limit_message("time", seconds=1)
    assert "ran longer than a job may (1 s)" in limit_message("time", seconds=1)
    monkeypatch.setattr(pool_module, "GRACE_S", 0.5)
    deaf = submit(pool, "deaf", stubborn, 30, visitor="v2")  # ignores the alarm: killed by the pool
    assert result(pool, "deaf", deaf)["background_callback_error"]["msg"] == limit_message("time", seconds=1)
    assert no_job_left()


def test_a_job_whose_page_stopped_asking_for_it_is_given_up(make_pool, monkeypatch):
    pool = make_pool(workers=1)
    closed = submit(pool, "k1", nap, 30, 1)  # its tab is closed: nobody polls
    polled = submit(pool, "k2", nap, 0.5, 2, visitor="v2")
    monkeypatch.setattr(fairqueue, "ABANDON_S", 1.0)
    monkeypatch.setattr(fairqueue, "SEEN_EVERY_S", 0.2)
    end = time.time() + 10
    while pool.get_result("k2", polled) is pool.UNDEFINED and time.time() < end:
        time.sleep(0.1)  # k1 holds the one worker until the pool gives it up
    assert not pool.job_running(closed) and time.time() < end
    assert no_job_left()


def test_a_slot_is_the_callbacks_first_output_however_dash_lists_them():
    one, many = {"id": "ft-treft-overhead", "property": "figure"}, [{"id": "trees-compare", "property": "children"}]
    assert fairqueue.slot_of({"outputs_list": one}) == "ft-treft-overhead.figure"  # one output: a dict
    assert fairqueue.slot_of({"outputs_list": many}) == "trees-compare.children"
    assert fairqueue.slot_of({"outputs_list": [many]}) == "trees-compare.children"
    assert fairqueue.slot_of({}) == "."


def test_a_job_whose_worker_is_gone_is_forgotten(make_pool):
    pool = make_pool(workers=1)
    submit(pool, "k1", nap, 1.0, 1)
    with pool._changing() as state:  # a queued job of a web worker that died
        state["jobs"]["orphan"] = {"state": "waiting", "owner": 2**22 + 1, "pid": None, "started": None}
        state["queue"].append("orphan")
        state["tickets"]["t-orphan"] = {"key": "orphan", "visitor": "v9", "slot": "s", "seen": time.time()}
    assert not os.path.exists(f"/proc/{2**22 + 1}")
    pool.dispatch()
    assert "orphan" not in pool._state()["jobs"]
    assert pool.get_result("orphan", "t-orphan")["background_callback_error"]["msg"] == limit_message("lost")


def test_a_sweep_job_borrows_the_idle_workers_and_they_count_as_busy(make_pool):
    pool = pool_jobs.POOL = make_pool(workers=2)
    ticket = submit(pool, "sweep", pool_jobs.parallel_pids, 6, 0.5)
    until(lambda: pool._state()["jobs"].get("sweep", {}).get("lent") == 1, 20)
    waiting = submit(pool, "next", nap, 0.1, "after", visitor="v2")  # both workers are the sweep's
    assert pool._state()["jobs"]["next"]["state"] == "waiting"
    answer = result(pool, "sweep", ticket)
    assert answer["processes"] == 2 and len(answer["pids"]) == 2  # two processes computed the tasks
    assert result(pool, "next", waiting) == "after"


def test_a_busy_pool_lends_nothing_and_the_sweep_runs_in_its_one_process(make_pool):
    pool = pool_jobs.POOL = make_pool(workers=2)
    other = submit(pool, "busy", nap, 3, "busy", visitor="v2")
    ticket = submit(pool, "sweep", pool_jobs.parallel_pids, 3, 0.1)
    answer = result(pool, "sweep", ticket)
    assert answer["processes"] == 1 and len(answer["pids"]) == 1
    assert result(pool, "busy", other) == "busy"


def test_a_sweep_on_lent_workers_gives_the_same_result_as_one_process(make_pool):
    pool = pool_jobs.POOL = make_pool(workers=2)
    alone = pool_jobs.small_sweep(run=in_process)
    lent = result(pool, "sweep", submit(pool, "sweep", pool_jobs.small_sweep), timeout=120)
    assert lent == alone and len(alone["rows"]) == 4


def _exit_with_value(module: str) -> None:
    os._exit(importlib.import_module(module).VALUE)


def test_a_job_forked_while_another_thread_imports_a_module_can_import_it(tmp_path, monkeypatch):
    (tmp_path / "vizcoll_slow_import.py").write_text("import time\ntime.sleep(1)\nVALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "vizcoll_slow_import", raising=False)
    importing = threading.Thread(target=importlib.import_module, args=("vizcoll_slow_import",))
    importing.start()
    time.sleep(0.3)  # the thread is inside the module's body, its import lock held
    job = multiprocessing.get_context("fork").Process(target=_exit_with_value, args=("vizcoll_slow_import",))
    job.start()
    job.join(10)
    stuck = job.is_alive()
    job.kill()
    importing.join()
    assert not stuck and job.exitcode == 7


def test_a_job_running_past_the_stacks_delay_writes_where_it_is(make_pool, monkeypatch, capfd):
    monkeypatch.setattr(pool_module, "STACKS_AFTER_S", 0.5)
    pool = make_pool(workers=1)
    ticket = submit(pool, "slow", nap, 1.5, "done")
    assert result(pool, "slow", ticket) == "done"
    assert "in nap" in capfd.readouterr().err  # the job's stack, as it slept
