"""Shared test set-up: import path, a private cache directory, room in the job pool, headless Chromium options,
the browser marker."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BROWSER_DIR = Path(__file__).resolve().parent / "browser"
CHROMIUM = Path("/usr/bin/chromium")

# `from app import create_app` must work whatever directory pytest was started from
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# the app's filesystem cache (and the job pool's state beside it) must not be shared with a running server, an
# earlier session or another pytest-xdist worker (whose tests end every job of their pool): one per process,
# unless the environment names one
OWN_CACHE_DIR = None
if not os.environ.get("VIZCOLL_CACHE_DIR") or os.environ.get("VIZCOLL_TEST_CACHE_PID") not in (None, str(os.getpid())):
    OWN_CACHE_DIR = os.environ["VIZCOLL_CACHE_DIR"] = tempfile.mkdtemp(prefix="vizcoll-test-cache-")
    os.environ["VIZCOLL_TEST_CACHE_PID"] = str(os.getpid())

# one test's job goes on after its browser has closed (for up to two minutes: vizcoll.ui.pool.ABANDON_S), which
# must not make the next tests wait for a worker; tests/ui/test_job_pool.py checks the pool's bounds itself
os.environ.setdefault("VIZCOLL_JOB_WORKERS", "8")
# a job still running after 40 s writes its threads' stacks into the test's captured output (where a hung job waits)
os.environ.setdefault("VIZCOLL_JOB_STACKS_AFTER_S", "40")


def pytest_setup_options():
    """dash[testing] hook: the Chrome options of every ``dash_duo`` browser.

    We run as root on a machine whose only network is loopback: no sandbox, no
    GPU, no background traffic, a fixed window size so that screenshots match.
    """
    from selenium.webdriver.chrome.options import Options

    options = Options()
    for argument in (
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,1000",
    ):
        options.add_argument(argument)
    if CHROMIUM.exists():
        options.binary_location = str(CHROMIUM)
    return options


def headless_chrome():
    """A second, independent headless browser (a visitor who opens a shared link), console log kept."""
    from selenium import webdriver

    options = pytest_setup_options()
    options.add_argument("--headless=new")
    options.set_capability("goog:loggingPrefs", {"browser": "SEVERE"})
    return webdriver.Chrome(options=options)


def pytest_configure(config):
    # selenium 4.2 calls a urllib3 method deprecated in urllib3 2: hundreds of identical warnings per browser test
    config.addinivalue_line("filterwarnings", "ignore:HTTPResponse.getheader:DeprecationWarning:selenium")
    # dash_duo's wait_for_* ask every 0.5 s (WebDriverWait's default), dash.testing.wait.until every 0.1 s: some
    # 300 waits of the browser tests each gave away a quarter of a second on average
    from selenium.webdriver.support.wait import WebDriverWait

    WebDriverWait.__init__.__defaults__ = (0.1, None)
    scale_browser_waits(float(os.environ.get("VIZCOLL_TEST_WAIT_SCALE", "3")))


def scale_browser_waits(factor: float) -> None:
    """Give every wait of dash.testing (``until``, ``dash_duo.wait_for_*``) ``factor`` times its
    timeout. CI runs the browser tests three to a two-core machine, whose CPU they keep busy: a page then took up to
    four times as long as alone, and waits of 10 to 20 s missed answers that came (2026-12-07). A wait ends as soon
    as its condition holds, so a longer timeout costs nothing when the page is right; it only makes a wrong page fail
    later. Must run before the test modules import ``until``."""
    from dash.testing import browser, wait

    def scaled(function):
        def waiting(wait_cond, timeout, *args, **kwargs):
            return function(wait_cond, timeout * factor, *args, **kwargs)

        return waiting

    wait.until = browser.until = scaled(wait.until)
    wait_for = browser.Browser._wait_for

    def _wait_for(self, method, timeout, msg):
        return wait_for(self, method, (self._wait_timeout if timeout is None else timeout) * factor, msg)

    browser.Browser._wait_for = _wait_for


def pytest_unconfigure(config):
    if OWN_CACHE_DIR:
        shutil.rmtree(OWN_CACHE_DIR, ignore_errors=True)


def pytest_sessionfinish(session, exitstatus):
    """End the background-job processes a test left behind: a job forked while another thread of the test server
    held a lock can hang for ever (seen once: in diskcache's ``Cache.close``), and the interpreter would wait for
    it at exit (multiprocess joins its children), so the run would never end."""
    import multiprocess

    for child in multiprocess.active_children():
        child.kill()


HEAVY = {"test_barrier_overview.py", "test_large_fabric.py", "test_large_players.py", "test_rail_fabric.py"}
HEAVY |= {"test_trees_overview.py"}
"""Browser tests of paper-scale and million-NIC fabrics: CI runs them alone, after the others (two processes at
once on 2 cores made their waits for a step or a job miss, 2026-12-06)."""


def pytest_collection_modifyitems(config, items):
    """Everything under tests/browser needs a browser: mark it so that ``-m "not browser"`` skips it; the
    :data:`HEAVY` files are ``heavy`` too."""
    for item in items:
        if BROWSER_DIR in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.browser)
            if Path(item.path).name in HEAVY:
                item.add_marker(pytest.mark.heavy)
