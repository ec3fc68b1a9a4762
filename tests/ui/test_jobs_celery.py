"""Background jobs on Celery + Redis, with real servers: Debian's ``redis-server``, the documented worker command
(``celery -A app:celery_app worker --loglevel=INFO``) and the container's gunicorn command, all pointed at one
Redis by ``VIZCOLL_REDIS_URL``. A job started through Dash's HTTP protocol runs on the worker (not in gunicorn),
reports its progress, returns its result, and can be cancelled; the engine cache lives on the same Redis."""

from __future__ import annotations

import http.cookiejar
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
from dash.testing.wait import until

from benchmarks.dash_http import DashClient
from tests.gunicorn_server import celery_worker, gunicorn, redis_server
from vizcoll.scenario import Scenario

pytestmark = pytest.mark.skipif(
    shutil.which("redis-server") is None, reason="needs Debian's redis-server (scripts/test.sh installs it)"
)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(Dash client, Redis URL) of gunicorn and a Celery worker sharing one Redis."""
    folder = tmp_path_factory.mktemp("celery")
    with (
        redis_server(folder) as url,
        celery_worker(folder, url),
        gunicorn(folder / "web", VIZCOLL_REDIS_URL=url) as (base, _),
    ):
        yield DashClient(base, timeout=60), url, folder


def test_a_job_runs_on_the_worker_with_its_progress_and_result(served):
    client, url, folder = served
    dep = client.callback("era-params.data")
    values = {
        "era-n.value": 12,
        "era-k.value": 6,
        "era-dcs.value": 4,
        "era-code.value": "fmel",
        "era-traffic.value": "blocks",
        "era-d.value": None,
        "era-seed.value": 0,
        "era-placement.value": "",
        "scenario.data": Scenario().to_dict(),
    }
    run = client.run_job(dep, values, limit=120)
    assert not run["cancelled"]
    built = Scenario.from_dict(run["response"]["scenario"]["data"]).params["erasure"]
    assert len(run["response"]["era-params"]["data"]) == 24 and run["response"]["era-message"]["children"] == ""
    assert built["n"] == 12 and built["k"] == 6  # the checked controls, written to the scenario
    texts = [p["era-build-progress-text.children"] for p in run["progress"]]
    assert any(t.startswith("FMEL search: ") for t in texts), texts  # the search reported from the worker
    assert "Task" in (folder / "celery.log").read_text() and "succeeded" in (folder / "celery.log").read_text()
    keys = redis.Redis.from_url(url).keys("*")
    assert any(b"code_result" in key for key in keys)  # the engine cache is on the same Redis


def test_a_job_on_the_worker_can_be_cancelled(served):
    client, _, folder = served
    dep = client.callback("bar-sweep.data")  # the full sweep: tens of seconds of work
    run = client.run_job(dep, {"bar-sweep-key.data": {"mode": "full", "neighbors": 8}}, cancel_after=3, limit=120)
    assert run["cancelled"] and run["response"] is None
    log = folder / "celery.log"
    until(lambda: "Terminating " in log.read_text(), 20, msg="the worker did not terminate the task")  # revoked


def test_visitors_pressing_the_same_button_share_one_task_on_the_worker(served):
    client, _, folder = served
    log = folder / "celery.log"
    before = log.read_text().count("received")
    visitors = [DashClient(client.base, timeout=60, cookies=http.cookiejar.CookieJar()) for _ in range(4)]
    dep = client.callback("bar-sweep.data")
    values = {"bar-sweep-key.data": {"mode": "quick", "neighbors": 4}}
    with ThreadPoolExecutor(len(visitors)) as threads:
        runs = list(threads.map(lambda visitor: visitor.run_job(dep, values, limit=120), visitors))
    answers = [run["response"]["bar-sweep"]["data"] for run in runs]
    assert answers == [{"mode": "quick", "neighbors": 4}] * 4
    assert log.read_text().count("received") == before + 1  # one computation for the four
