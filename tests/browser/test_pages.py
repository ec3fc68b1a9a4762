"""Every page loads cleanly; a shared URL reopens its view."""

from __future__ import annotations

from urllib.parse import urlsplit

from selenium.webdriver.common.by import By

from vizcoll.ui.shell import NAV

from .browser_helpers import counts_line


def nav_entries(page) -> list[tuple[str, str]]:
    links = page.driver.find_elements(By.CSS_SELECTOR, ".navbar a.nav-link")
    return [(urlsplit(a.get_attribute("href")).path, a.text) for a in links]


def test_every_page_loads_without_console_errors(page):
    """/ and /topology draw the default scenario, every other page loads, an unknown path is a 404."""
    page.open("/")
    page.duo.wait_for_contains_text(".banner h2", "vizcoll")
    page.duo.wait_for_contains_text("#topo-bcast-info", "36 nodes reached")
    page.duo.wait_for_contains_text("#topo-player-caption", "h0 broadcasts a packet")
    assert nav_entries(page) == [("/topology", "Topology"), ("/trees", "Trees"), ("/multicast", "Multicast"),
                                 ("/barrier", "Barrier"), ("/faults", "Fault replays"),
                                 ("/erasure", "Erasure codes")]
    assert len(NAV) == 6
    page.screenshot("landing.png")
    assert page.duo.get_logs() == []

    page.open("/topology")
    page.duo.wait_for_contains_text("#topo-bcast-info", "36 nodes reached")
    assert page.driver.find_elements(By.CSS_SELECTOR, ".banner") == []  # the banner is only on the start page
    page.screenshot("topology-small.png")
    assert page.duo.get_logs() == []

    ready = {"/trees": [("#trees-player-position", "step 0 of")],  # what each page shows once its callbacks ran
             "/multicast": [("#mc-summary", "minhop-new")],
             "/barrier": [("#bar-player-position", "step 0 of"), ("#bar-ranges", "Fig. 7")],
             "/faults": [("#ft-red-player-position", "step 0 of"), ("#ft-treft-player-position", "step 0 of")],
             "/erasure": [("#era-summary", "FMEL(9,5)"), ("#era-compare-table", "paper")]}
    for path, checks in ready.items():
        page.open(path, counts=None)
        for selector, text in checks:
            page.duo.wait_for_contains_text(selector, text, timeout=30)
        assert len(nav_entries(page)) == 6
        assert page.duo.get_logs() == [], path

    page.open("/no/such/page", counts=None)
    page.duo.wait_for_text_to_equal("#shell-page h2", "Page not found")
    page.duo.wait_for_contains_text("#shell-page", "/no/such/page")
    assert len(nav_entries(page)) == 6
    assert page.duo.get_logs() == []


def test_url_parameters_open_that_view(page):
    """spec, broken links, pattern and root in the query give that view; "Link to this view" reopens it."""
    expected = counts_line(18, 18, 63, 2, 7)
    page.open("/topology?spec=torus%3A3x3x2%2Chosts%3D1&broken=4.7&pattern=grid2d%3A3x6&root=h1-1-0",
              counts=expected)
    page.duo.wait_for_contains_text("#topo-root", "h1-1-0")
    assert page.value("#topo-params") == "torus:3x3x2,hosts=1"
    assert page.value("#topo-pattern") == "grid2d:3x6"
    page.duo.wait_for_contains_text("#topo-player-caption", "h1-1-0 broadcasts")
    view = page.elements()
    assert {eid for eid, classes, _ in view if "broken" in classes.split()} == {"l4", "l7"}
    assert any("comm" in classes for _, classes, _ in view)  # the communicators colour the end nodes

    href = page.duo.find_element("#topo-share").get_attribute("href")
    assert urlsplit(href).path == "/topology" and "spec=" in href
    page.driver.get("about:blank")
    page.duo.wait_for_page(href)
    page.duo.wait_for_text_to_equal("#topo-counts", expected, timeout=20)
    page.wait_for_cy()
    page.duo.wait_for_contains_text("#topo-root", "h1-1-0")
    assert page.value("#topo-pattern") == "grid2d:3x6"
    assert page.elements() == view
    assert page.duo.get_logs() == []

