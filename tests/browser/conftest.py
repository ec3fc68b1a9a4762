"""The ``page`` fixture: the vizcoll app in headless Chromium, with the helpers of browser_helpers.

One app server and one browser serve every test of the session: starting a Chromium and building and serving an
app took 1.8 s of each test (some 4 min of the suite). Each test starts from a clean tab (:func:`clean_tab`):
no other window, no storage, cookies or emulation left, its own download folder, no earlier console message. A
test that needs an app of its own (an empty engine cache) asks for ``fresh_page``.
"""

from __future__ import annotations

import socket

import pytest
from dash.testing.application_runners import ThreadedRunner
from dash.testing.composite import DashComposite
from selenium.common.exceptions import WebDriverException

from app import create_app
from vizcoll.ui import jobs

from .browser_helpers import TopologyPage

WINDOW = (1400, 1000)  # as tests/conftest.py's --window-size


@pytest.fixture(autouse=True)
def job_dispatcher():
    """The job pool's dispatcher thread, started before the test's own server if it has one (dash_duo stops a
    server by raising SystemExit in every thread started after it, which would end the dispatcher wherever it is);
    the test's jobs ended after it."""
    pool = start_dispatcher()
    yield
    if hasattr(pool, "end_all"):  # the test's jobs end with it: none holds a worker the next test needs
        pool.end_all()


@pytest.fixture(scope="session")
def shared_server():
    """The app every ``page`` test talks to, served for the whole session (the job pool's dispatcher started
    first: the server's end stops every thread started after it)."""
    start_dispatcher()
    runner = ThreadedRunner()
    runner.start(create_app(), port=free_port())
    yield runner
    runner.stop()


def start_dispatcher():
    """The job pool, its dispatcher thread running in this process (Celery's pool has none)."""
    pool = jobs.manager()
    if hasattr(pool, "watch"):
        pool.watch()
    return pool


class SessionBrowser:
    """The session's browser (a dash_duo bound to the shared server), started again if it stopped answering."""

    def __init__(self, request, server, folder) -> None:
        self.request, self.server, self.folder = request, server, folder
        self.duo: DashComposite | None = None

    def get(self) -> DashComposite:
        if self.duo is not None:
            try:
                self.duo.driver.current_url  # noqa: B018  (a round trip: is the browser still there?)
                return self.duo
            except WebDriverException:
                self.close()
        config = self.request.config
        self.duo = DashComposite(
            server=self.server,
            browser="chrome",
            headless=config.getoption("headless"),
            options=config.hook.pytest_setup_options(),
            download_path=str(self.folder),
        )
        return self.duo

    def close(self) -> None:
        if self.duo is not None:
            self.duo.__exit__(None, None, None)
            self.duo = None


@pytest.fixture(scope="session")
def session_browser(request, shared_server, tmp_path_factory):
    browser = SessionBrowser(request, shared_server, tmp_path_factory.mktemp("download"))
    yield browser
    browser.close()


@pytest.fixture
def duo(session_browser, tmp_path):
    """The session's browser on a clean tab, downloading into this test's own folder."""
    return clean_tab(session_browser.get(), tmp_path / "download")


def clean_tab(duo: DashComposite, downloads) -> DashComposite:
    """Leave one blank tab with no storage, cookies, emulation or console message of an earlier test."""
    driver = duo.driver
    first, *others = driver.window_handles
    for handle in others:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(first)
    driver.get("about:blank")
    origin = duo.server.url
    driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})
    driver.set_window_size(*WINDOW)
    downloads.mkdir(parents=True, exist_ok=True)
    duo._download_path = str(downloads)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.get_log("browser")  # the console's messages so far: read, so get_logs() sees this test's alone
    duo._last_ts = 0
    return duo


@pytest.fixture
def page(duo):
    """The shared app in the session's browser, not yet navigated anywhere."""
    return TopologyPage(duo)


@pytest.fixture
def fresh_page(dash_duo, tmp_path, monkeypatch):
    """An app of the test's own, with an empty engine cache (so that a job really runs), in a browser of its own."""
    monkeypatch.setenv("VIZCOLL_CACHE_DIR", str(tmp_path / "cache"))
    dash_duo.start_server(create_app(), navigate=False, port=free_port())
    dash_duo.driver.set_window_size(*WINDOW)
    return TopologyPage(dash_duo)


def free_port() -> int:
    """A loopback port nobody listens on, so that several test runs can share the machine."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
