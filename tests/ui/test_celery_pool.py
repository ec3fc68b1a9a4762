"""The job pool on Celery (:mod:`vizcoll.ui.celery_pool`) keeps the queue's rules (:mod:`vizcoll.ui.fairqueue`):
real ``redis-server``, a real Celery worker of two processes, jobs made by Dash's own Celery job wrapper."""

from __future__ import annotations

import re
import shutil
import time
import uuid

import pytest
from dash.testing.wait import until

from tests.gunicorn_server import celery_worker, redis_server
from tests.ui import pool_jobs
from tests.ui.pool_jobs import result
from vizcoll.ui.fairqueue import BUSY, limit_message

pytestmark = pytest.mark.skipif(
    shutil.which("redis-server") is None, reason="needs Debian's redis-server (scripts/test.sh installs it)"
)

LIMITS = {"waiting": 2, "memory_mb": 200, "seconds": 4}  # the worker's, from the app's variables below


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    """(pool, jobs, worker log) of a test-process pool and a worker of two processes on one Redis."""
    folder = tmp_path_factory.mktemp("celery-pool")
    with (
        redis_server(folder) as url,
        celery_worker(
            folder,
            url,
            "tests.ui.pool_jobs:celery_app",
            "--concurrency",
            "2",
            VIZCOLL_TEST_REDIS_URL=url,
            VIZCOLL_JOB_QUEUE="2",
            VIZCOLL_JOB_MEMORY_MB="200",
            VIZCOLL_JOB_SECONDS="4",
        ),
    ):
        made, jobs = pool_jobs.make(url, **LIMITS)
        yield made, jobs, folder / "celery.log"


def submit(pool, jobs, name: str, *args, key: str = "", visitor: str = "", slot: str = "page.figure"):
    key = key or uuid.uuid4().hex
    return key, pool.submit(key, jobs[name], list(args), {}, visitor or uuid.uuid4().hex, slot)


def running(pool, key: str) -> bool:
    entry = pool._state()["jobs"].get(key)
    return entry is not None and entry["state"] == "running"


def received(log) -> int:
    return len(re.findall(r"Task background_callback_\w+\[\w+\] received", log.read_text()))


def test_jobs_wait_for_a_free_worker_in_order_and_say_so(pool):
    made, jobs, _ = pool
    first, second = (submit(made, jobs, "nap", 2, n) for n in range(2))
    until(lambda: running(made, first[0]) and running(made, second[0]), 20)
    third = submit(made, jobs, "nap", 2, 2)
    assert made.get_progress(third[0])[2] == "waiting for a free worker: yours is the next job to start"
    assert [result(made, *job) for job in (first, second, third)] == [0, 1, 2]
    assert made._state()["queue"] == []


def test_identical_requests_from_many_visitors_share_one_task(pool):
    made, jobs, log = pool
    before = received(log)
    key = uuid.uuid4().hex
    tickets = [submit(made, jobs, "nap", 1.5, "shared", key=key)[1] for _ in range(6)]
    assert [result(made, key, ticket) for ticket in tickets] == ["shared"] * 6
    until(lambda: received(log) == before + 1, 10)  # one computation
    assert made._state()["tickets"] == {}


def test_a_visitor_holds_one_job_per_page_whatever_the_tabs(pool):
    made, jobs, _ = pool
    old_key, old = submit(made, jobs, "nap", 30, "old", visitor="tabs")
    until(lambda: running(made, old_key), 20)
    task = made._state()["jobs"][old_key]["task"]
    new_key, new = submit(made, jobs, "nap", 0.5, "new", visitor="tabs")
    assert not made.job_running(old)  # its ticket gave way
    until(lambda: made.handle.AsyncResult(task).state == "REVOKED", 20, msg="the old job was not terminated")
    assert result(made, new_key, new) == "new"


def test_cancel_while_waiting_leaves_the_queue_and_the_job_never_runs(pool):
    made, jobs, log = pool
    busy = [submit(made, jobs, "nap", 3, n) for n in range(2)]
    until(lambda: all(running(made, key) for key, _ in busy), 20)
    key, ticket = submit(made, jobs, "nap", 0.1, "never")
    task = made._state()["jobs"][key]["task"]
    made.terminate_job(ticket)
    assert key not in made._state()["jobs"] and made._state()["queue"] == []
    assert [result(made, *job) for job in busy] == [0, 1]
    time.sleep(1)
    assert f"[{task}] succeeded" not in log.read_text()


def test_a_full_queue_refuses_at_once_with_a_message(pool):
    made, jobs, _ = pool
    held = [submit(made, jobs, "nap", 3, n) for n in range(2)]
    until(lambda: all(running(made, key) for key, _ in held), 20)
    held += [submit(made, jobs, "nap", 3, n) for n in range(2, 4)]  # two running, two waiting
    key, ticket = submit(made, jobs, "nap", 0.1, "refused")
    assert result(made, key, ticket, timeout=1)["background_callback_error"]["msg"] == limit_message("busy")
    assert limit_message("busy").endswith(BUSY) and key not in made._state()["jobs"]
    assert [result(made, *job) for job in held] == [0, 1, 2, 3]


def test_a_job_over_the_memory_limit_ends_with_a_message_and_the_worker_lives_on(pool):
    made, jobs, _ = pool
    over = result(made, *submit(made, jobs, "greedy", 600))
    assert over["background_callback_error"]["msg"] == limit_message("memory", **_limits())
    assert result(made, *submit(made, jobs, "greedy", 50)) == pytest.approx(50 * 1024 * 1024 // 8)


def test_a_job_over_the_time_limit_ends_with_a_message_soft_or_hard(pool):
    made, jobs, _ = pool
    message = limit_message("time", **_limits())
    soft = submit(made, jobs, "nap", 30, "late")
    hard = submit(made, jobs, "stubborn", 30)  # ignores the soft limit: Celery ends its process
    assert result(made, *soft)["background_callback_error"]["msg"] == message
    assert result(made, *hard)["background_callback_error"]["msg"] == message
    assert result(made, *submit(made, jobs, "nap", 0.1, "alive")) == "alive"


def _limits() -> dict:
    return {"memory_mb": LIMITS["memory_mb"], "seconds": LIMITS["seconds"]}
