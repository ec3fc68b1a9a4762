"""Run the container's command (gunicorn with the Dockerfile's CMD) on a free loopback port, for tests."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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


@contextmanager
def gunicorn(cache_dir: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """(base URL, process) of the Dockerfile's command serving the app; stopped on exit."""
    port = free_port()
    env = dict(os.environ, HOST="127.0.0.1", PORT=str(port), VIZCOLL_CACHE_DIR=str(cache_dir))
    command = dockerfile_command()
    assert command[0] == "gunicorn"
    proc = subprocess.Popen([sys.executable, "-m", *command], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                get(base + "/healthz")
                break
            except OSError:
                time.sleep(0.25)
        else:
            raise RuntimeError("gunicorn did not answer /healthz within 30 s")
        yield base, proc
    finally:
        proc.terminate()
        proc.wait(timeout=20)
