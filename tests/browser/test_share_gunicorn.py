"""The share link of an uploaded fabric, served by the container's command (gunicorn, 3 workers).

gunicorn refuses request lines over 4 KB; the share link carries the whole
scenario in its fragment, which browsers never send, so a link far longer
than that must still reopen the view in a fresh browser.
"""

from __future__ import annotations

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.by import By

from benchmarks.share_link import CASES, open_link
from tests.conftest import headless_chrome
from tests.gunicorn_server import gunicorn
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import from_spec

from .browser_helpers import badge_text


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with gunicorn(tmp_path_factory.mktemp("cache")) as (base, _):
        yield base


def rack_fabric():
    """A 3-level fat tree of 8-port switches whose hosts carry names of our own (rack3-node07, ...)."""
    topo = from_spec("fat-tree:radix=8,levels=3")
    for i, node in enumerate(topo.endpoints.tolist()):
        topo.rename(topo.names[node], f"rack{i // 8}-node{i % 8:02d}")
    return topo


def browser():
    return headless_chrome()


def test_the_share_link_of_an_uploaded_fabric_reopens_it_under_gunicorn(server, tmp_path):
    topo = rack_fabric()
    path = tmp_path / "racks.ibnd"
    path.write_text(topo_io.dumps(topo, "ibnetdiscover"))
    broken = topo_io.read(path).link_label(0)  # as the file names it: edge0.0[1]-rack0-node00[1]
    first, second = browser(), browser()
    try:
        first.get(server + "/topology")
        until(lambda: "20 switches" in badge_text(first), 30, msg="the default scenario never showed")
        first.find_element(By.CSS_SELECTOR, "#topo-upload input[type=file]").send_keys(str(path))
        until(
            lambda: "racks.ibnd" in badge_text(first) and "128 end nodes" in badge_text(first),
            30,
            msg=f"the upload never reached the badge: {badge_text(first)!r}",
        )
        box = first.find_element(By.ID, "topo-link-id")
        box.clear()
        box.send_keys(broken)
        first.find_element(By.ID, "topo-toggle-link").click()
        until(lambda: "1 broken" in badge_text(first), 30, msg="the break never reached the badge")
        first.find_element(By.LINK_TEXT, "Barrier").click()
        until(lambda: "/barrier#s=" in first.find_element(By.ID, "share-link").get_attribute("href"), 30)
        href = first.find_element(By.ID, "share-link").get_attribute("href")
        assert len(href) > 4096  # longer than gunicorn's request-line limit

        second.get(href)
        until(
            lambda: badge_text(second) == badge_text(first),
            30,
            msg=f"the shared link shows another scenario: {badge_text(second)!r} vs {badge_text(first)!r}",
        )
        assert "80 switches" in badge_text(second) and broken in badge_text(second) and "rack0-node00" in broken
        until(lambda: second.current_url.split("#")[0].endswith("/barrier"), 10)
        assert not [e for e in second.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        first.quit()
        second.quit()


def test_the_share_link_benchmark_times_the_first_view_and_frame_from_the_navigation(server):
    """``benchmarks/share_link.py`` on /trees: the page's own log of its state gives the first view, then the
    player's first frame; timed from the WebDriver command, the first view comes later (tests never assert
    times: only their order)."""
    view, frame, from_command = open_link(server, *CASES[1])
    assert 0 < view <= frame and from_command > view
