"""The container's command (gunicorn, 3 workers) serves the page, the health check and callbacks."""

import json
import socket
import subprocess
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks.dash_http import DashClient
from tests.gunicorn_server import get, gunicorn
from vizcoll.ui.pages.trees import _model as trees_model
from vizcoll.ui.pages.trees import page as trees_page
from vizcoll.ui.store import DEFAULT_SCENARIO


def post(url: str, payload: dict) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with gunicorn(tmp_path_factory.mktemp("cache")) as running:
        yield running


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
        "outputs": [
            {"id": "topo-player-timeline", "property": "data"},
            {"id": "topo-bcast-info", "property": "children"},
        ],
        "inputs": [
            {
                "id": "scenario",
                "property": "data",
                "value": DEFAULT_SCENARIO.with_breaks(["h0[1]-edge0.0[1]"])
                .with_params("topology", {"root": "h1"})
                .to_dict(),
            }
        ],
        "changedPropIds": ["scenario.data"],
        "state": [{"id": "topo-drawn", "property": "data", "value": None}],  # the page shows no scenario yet
    }
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: post(base + "/_dash-update-component", payload), range(18)))
    info = {a["response"]["topo-bcast-info"]["children"] for a in answers}
    assert info == {
        "From h1: 35 nodes reached in 6 hops with 34 messages; 1 unreachable: the broken links cut the network "
        "into 2 parts (1 node cut off)."
    }


def test_no_server_software_or_pid_shows_and_big_bodies_get_413(server):
    base, _ = server
    with urllib.request.urlopen(base + "/healthz", timeout=30) as response:
        assert response.headers["Server"] == "vizcoll" and json.loads(response.read()) == {"status": "ok"}
        assert response.headers["X-Frame-Options"] == "SAMEORIGIN"
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:  # 30 MB announced, not a byte sent
        sock.sendall(
            b"POST /_dash-update-component HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 31457280\r\n\r\n"
        )
        status = int(sock.recv(4096).split(b" ", 2)[1])
    assert status == 413


def test_a_huge_k_on_trees_gets_a_message_naming_the_limit(server):
    base, _ = server
    client = DashClient(base)
    dep = client.callback("trees-rebuild.data")  # the Build button's callback
    ids = [d["id"] for d in dep["inputs"] + dep["state"]]
    assert "trees-build" in ids and "trees-k" in ids  # the ids outside checks use
    values = {f"{trees_page.PARAM_CONTROLS[key]}.value": value for key, value in trees_model.DEFAULTS.items()}
    values |= {"trees-build.n_clicks": 1, "trees-k.value": 10**9, "scenario.data": DEFAULT_SCENARIO.to_dict()}
    answer = client.post(dep, values)
    message = answer["response"]["trees-message"]["children"]
    assert message.startswith("⚠ k (width / base)") and "1024" in message, message  # the limit, named
