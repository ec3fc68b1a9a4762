"""The container's command (gunicorn, 3 workers) serves the page, the health check and callbacks."""

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def dockerfile_command() -> list[str]:
    match = re.search(r"^CMD (\[.*\])$", (ROOT / "Dockerfile").read_text(), re.MULTILINE)
    return json.loads(match.group(1))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def post(url: str, payload: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    env = dict(os.environ, HOST="127.0.0.1", PORT=str(port),
               VIZCOLL_CACHE_DIR=str(tmp_path_factory.mktemp("cache")))
    command = dockerfile_command()
    assert command[0] == "gunicorn"
    proc = subprocess.Popen([sys.executable, "-m", *command], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            get(base + "/healthz")
            break
        except OSError:
            time.sleep(0.25)
    else:
        proc.kill()
        pytest.fail("gunicorn did not answer /healthz within 30 s")
    yield base, proc
    proc.terminate()
    proc.wait(timeout=20)


def test_three_workers_and_health(server):
    base, proc = server
    assert json.loads(get(base + "/healthz"))["status"] == "ok"
    workers = subprocess.run(["ps", "--ppid", str(proc.pid), "-o", "pid="], capture_output=True, text=True).stdout
    assert len(workers.split()) == 3


def test_page_and_layout(server):
    base, _ = server
    assert b"<title>vizcoll</title>" in get(base + "/")
    assert b"shell-page" in get(base + "/_dash-layout")


def test_callbacks_answer_identically_on_every_worker(server):
    base, _ = server
    payload = {
        "output": "..topo-player-timeline.data...topo-bcast-info.children..",
        "outputs": [{"id": "topo-player-timeline", "property": "data"},
                    {"id": "topo-bcast-info", "property": "children"}],
        "inputs": [{"id": "topo-scenario", "property": "data",
                    "value": {"schema": "vizcoll.scenario/1", "spec": "fat-tree:radix=4,levels=3",
                              "edits": [{"op": "toggle_broken", "id": 0}]}},
                   {"id": "topo-root", "property": "value", "value": "h1"}],
        "changedPropIds": ["topo-root.value"], "state": [],
    }
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: post(base + "/_dash-update-component", payload), range(18)))
    info = {a["response"]["topo-bcast-info"]["children"] for a in answers}
    assert info == {"35 nodes reached in 6 hops with 34 messages; 1 unreachable."}
