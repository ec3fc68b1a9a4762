"""The ``page`` fixture: a fresh vizcoll app served by dash_duo, with the helpers of browser_helpers."""

from __future__ import annotations

import socket

import pytest

from app import create_app
from vizcoll.ui import jobs

from .browser_helpers import TopologyPage


@pytest.fixture(autouse=True)
def job_dispatcher():
    """The job pool's dispatcher thread, started before the test's server (dash_duo stops a server by raising
    SystemExit in every thread started after it, which would end the dispatcher wherever it is); the test's jobs
    ended after it."""
    pool = jobs.manager()
    if hasattr(pool, "watch"):
        pool.watch()
    yield
    if hasattr(pool, "end_all"):  # the test's jobs end with its app: none holds a worker the next test needs
        pool.end_all()


@pytest.fixture
def page(dash_duo):
    """The app served by dash_duo (a fresh app per test), not yet navigated anywhere."""
    dash_duo.start_server(create_app(), navigate=False, port=free_port())
    return TopologyPage(dash_duo)


def free_port() -> int:
    """A loopback port nobody listens on, so that several test runs can share the machine."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
