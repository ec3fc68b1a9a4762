"""Every page loads cleanly; a shared URL reopens its view."""

from __future__ import annotations

from urllib.parse import urlsplit

from dash.testing.wait import until
from selenium.webdriver.common.by import By

from vizcoll.scenario import Scenario
from vizcoll.ui.shell import nav_entries as registered_nav

from .browser_helpers import counts_line


def nav_entries(page) -> list[tuple[str, str]]:
    links = page.driver.find_elements(By.CSS_SELECTOR, ".navbar a.nav-link")
    return [(urlsplit(a.get_attribute("href")).path, a.text) for a in links]


def shared(page) -> Scenario:
    """The scenario the shell's share link carries."""
    href = page.duo.find_element("#share-link").get_attribute("href")
    return Scenario.from_fragment(href.partition("#s=")[2])


def test_every_page_loads_without_console_errors(page):
    """/ and /topology draw the default scenario, /lessons loads (every other page's first visit is in
    tests/browser/test_readability.py), an unknown path is a 404."""
    page.open("/")
    page.duo.wait_for_contains_text(".banner h2", "vizcoll")
    page.duo.wait_for_contains_text("#topo-bcast-info", "36 nodes reached")
    page.duo.wait_for_contains_text("#topo-player-caption", "h0 broadcasts a packet")
    assert nav_entries(page) == [
        ("/topology", "Topology"),
        ("/trees", "Trees"),
        ("/multicast", "Multicast"),
        ("/barrier", "Barrier"),
        ("/faults", "Fault replays"),
        ("/erasure", "Erasure codes"),
        ("/schedules", "Schedules"),
        ("/lessons", "Lessons"),
        ("/help", "Help"),
    ]
    assert registered_nav() == nav_entries(page)  # the navbar is dash.page_registry's
    page.screenshot("landing.png")
    assert page.duo.get_logs() == []

    page.open("/topology")
    page.duo.wait_for_contains_text("#topo-bcast-info", "36 nodes reached")
    assert page.driver.find_elements(By.CSS_SELECTOR, ".banner") == []  # the banner is only on the start page
    page.screenshot("topology-small.png")
    assert page.duo.get_logs() == []

    # every other page's first visit, with what it shows once its callbacks ran: tests/browser/test_readability.py
    page.open("/lessons", counts=None)
    page.duo.wait_for_contains_text("#lessons-shipped", "Barriers with broken links", timeout=60)
    page.duo.wait_for_contains_text("#lessons-own", "None yet")
    assert len(nav_entries(page)) == 9
    assert page.duo.get_logs() == []

    page.open("/no/such/page", counts=None)
    page.duo.wait_for_text_to_equal("#shell-page h2", "Page not found")
    page.duo.wait_for_contains_text("#shell-page", "/no/such/page")
    assert len(nav_entries(page)) == 9
    assert page.duo.get_logs() == []

    page.open("/topology?k=7&shell_scenario=forged&a-b=1")  # query parameters are ignored, safely
    page.duo.wait_for_contains_text("#topo-bcast-info", "36 nodes reached")
    page.driver.find_element(By.CSS_SELECTOR, ".navbar a.nav-link[href='/trees']").click()  # the navbar keeps it
    page.duo.wait_for_contains_text("#trees-player-position", "step 0 of", timeout=60)
    assert page.duo.get_logs() == []


def test_share_link_reopens_the_exact_topology_view(page):
    """A generated fabric with breaks, communicators and a root: the share link reopens it in a fresh session."""
    expected = counts_line(18, 18, 63, 2, 7)
    page.open("/topology")
    page.generate("torus:3x3x2,hosts=1")
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(18, 18, 63, 0, 7))
    # each edit waited for in the page: the next one is made on the scenario the browser holds (not one without it)
    for broken, link in enumerate(("4", "7"), start=1):
        page.type_into("#topo-link-id", link)
        page.click("#topo-toggle-link")
        page.duo.wait_for_text_to_equal("#topo-counts", counts_line(18, 18, 63, broken, 7))
    page.type_into("#topo-pattern", "grid2d:3x6")
    page.click("#topo-apply-comm")
    page.duo.wait_for_contains_text("#topo-comm-info", "9 communicators (6 of size 3, 3 of size 6)")
    page.duo.select_dcc_dropdown("#topo-root", value="h1-1-0")
    page.duo.wait_for_contains_text("#topo-player-caption", "h1-1-0 broadcasts")
    page.wait_for_cy()
    view = page.elements()
    assert {eid.split("-")[0] for eid, classes, _ in view if "broken" in classes.split()} == {"l4", "l7"}
    assert any("comm" in classes for _, classes, _ in view)  # the communicators colour the end nodes

    until(
        lambda: shared(page).params.get("topology", {}).get("root") == "h1-1-0",
        10,
        msg="the share link does not carry the root",
    )  # its own callback: after the broadcast's, or before
    href = page.duo.find_element("#share-link").get_attribute("href")
    assert urlsplit(href).path == "/topology" and urlsplit(href).fragment.startswith("s=")
    until(lambda: page.driver.current_url == href, 10, msg="the address bar does not show the share link")
    page.driver.execute_script("window.sessionStorage.clear();")
    page.driver.get("about:blank")
    page.duo.wait_for_page(href)
    page.duo.wait_for_text_to_equal("#topo-counts", expected, timeout=20)
    page.wait_for_cy()
    page.duo.wait_for_contains_text("#topo-root", "h1-1-0")
    assert page.value("#topo-pattern") == "grid2d:3x6"
    until(lambda: page.elements() == view, 10, msg="the shared view differs")
    assert page.duo.get_logs() == []
