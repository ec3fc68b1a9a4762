"""Real servers for tests: the container's command (the Dockerfile's CMD, ``vizcoll serve``: gunicorn), Redis, a Celery
worker."""

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
def gunicorn(cache_dir: Path, **extra_env: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """(base URL, process) of the Dockerfile's command serving the app; stopped on exit."""
    port = free_port()
    env = dict(os.environ, HOST="127.0.0.1", PORT=str(port), VIZCOLL_CACHE_DIR=str(cache_dir), **extra_env)
    command = dockerfile_command()
    assert command[:2] == ["vizcoll", "serve"]
    proc = subprocess.Popen(
        [sys.executable, "-m", *command], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
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


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A throw-away ``redis-server`` on a free loopback port (Debian's package); its URL."""
    port = free_port()
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("redis-server did not answer PING within 10 s")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@contextmanager
def celery_worker(
    cache_dir: Path, redis_url: str, app: str = "app:celery_app", *options: str, **extra_env: str
) -> Iterator[subprocess.Popen]:
    """The documented worker command, ``celery -A app:celery_app worker``, on ``redis_url`` (another ``app`` and
    more ``options`` for a test's own jobs)."""
    env = dict(os.environ, VIZCOLL_REDIS_URL=redis_url, VIZCOLL_CACHE_DIR=str(cache_dir), **extra_env)
    log = cache_dir / "celery.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", app, "worker", "--loglevel=INFO", *options],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        for _ in range(240):
            if "ready." in log.read_text():
                break
            if proc.poll() is not None:
                raise RuntimeError(f"the Celery worker stopped: {log.read_text()[-2000:]}")
            time.sleep(0.25)
        else:
            raise RuntimeError(f"the Celery worker was not ready within 60 s: {log.read_text()[-2000:]}")
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)
