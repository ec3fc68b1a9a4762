"""The one scenario, as a teacher uses it: upload a fabric, break a cable, walk through every page, share it."""

from __future__ import annotations

import re

from dash.testing.wait import until
from selenium.webdriver.common.by import By

from tests.conftest import headless_chrome
from tests.fabrics import HOSTS, TWO_SPINES

from .browser_helpers import badge_text

TYPED = "leafA[3]-spine1[1]"  # a cable named from either end
BROKEN = "spine1[1]-leafA[3]"  # as the file lists it (spine1's stanza comes first): how the badge names it
BADGE = ("4 switches", "4 end nodes", "8 links", "1 broken")


def wait_for_badge(driver, *parts: str, timeout: float = 20) -> None:
    until(
        lambda: all(p in badge_text(driver) for p in parts),
        timeout,
        msg=f"the badge never showed {parts}: {badge_text(driver)!r}",
    )


def main_text(driver) -> str:
    return driver.find_element(By.ID, "shell-page").text


def go_to(page, label: str) -> None:
    """Follow the navbar link ``label`` (a client-side navigation, as a user clicks it)."""
    page.driver.find_element(By.LINK_TEXT, label).click()


def test_upload_break_visit_every_page_reload_and_share(page, tmp_path):
    path = tmp_path / "handmade.net"
    path.write_text(TWO_SPINES)
    page.open("/topology")
    page.upload("topo-upload", path)
    wait_for_badge(page.driver, "handmade.net", "4 switches", "4 end nodes", "8 links", "0 broken")
    page.type_into("#topo-pattern", "grid2d:2x2")
    page.click("#topo-apply-comm")
    page.duo.wait_for_contains_text("#topo-comm-info", "4 communicators")
    page.type_into("#topo-link-id", TYPED)
    page.click("#topo-toggle-link")
    wait_for_badge(page.driver, *BADGE, BROKEN)
    badge = badge_text(page.driver)
    assert page.duo.get_logs() == []

    # every page looks at the same scenario, reached through the navbar
    go_to(page, "Trees")
    page.duo.wait_for_contains_text("#trees-compare", "ary", timeout=30)
    until(lambda: any(h in main_text(page.driver) for h in HOSTS), 30, msg="no host name on the trees page")
    assert "⚠" not in page.driver.find_element(By.ID, "trees-compare").text  # the trees avoid the broken cable
    assert badge_text(page.driver) == badge
    trees_table = page.driver.find_element(By.ID, "trees-compare").text

    go_to(page, "Multicast")
    until(lambda: any(h in main_text(page.driver) for h in HOSTS), 30, msg="no host name on the multicast page")
    page.duo.wait_for_contains_text("#mc-summary", "unroutable groups", timeout=30)
    assert "cannot be routed" not in page.driver.find_element(By.ID, "mc-status").text
    assert BROKEN not in page.driver.find_element(By.ID, "mc-worst").text  # no multicast tree uses the cable
    assert badge_text(page.driver) == badge

    go_to(page, "Barrier")
    page.canvas = "bar-canvas"
    until(lambda: page.cy("return !!cy && cy.nodes().length > 0;"), 30, msg="the barrier canvas is empty")
    labels = page.cy("return cy.nodes().map(n => n.data('label'));")
    assert set(HOSTS) <= set(labels)
    broken_edges = page.cy("return cy.edges('.broken').map(e => e.data('name'));")
    assert broken_edges == [BROKEN]
    page.duo.wait_for_contains_text("#bar-summary", "run time", timeout=30)
    assert "⚠" not in page.driver.find_element(By.ID, "bar-flag").text  # the barrier completes around the break
    assert badge_text(page.driver) == badge

    for label in ("Fault replays", "Erasure codes", "Topology"):
        go_to(page, label)
        wait_for_badge(page.driver, *BADGE)
        assert badge_text(page.driver) == badge
    assert page.duo.get_logs() == []

    # a reload keeps the scenario
    go_to(page, "Trees")
    page.duo.wait_for_contains_text("#trees-compare", "ary", timeout=30)
    page.driver.refresh()
    wait_for_badge(page.driver, *BADGE, BROKEN, "handmade.net")
    page.duo.wait_for_contains_text("#trees-compare", "ary", timeout=30)
    until(
        lambda: page.driver.find_element(By.ID, "trees-compare").text == trees_table,
        30,
        msg="the trees table changed after a reload",
    )

    # the share link, opened in a second browser, gives the same badge and the same table
    link = lambda: page.driver.find_element(By.ID, "share-link").get_attribute("href")  # noqa: E731
    # the share link: its own callback, not the table's (drawn "/" until it answers)
    until(lambda: re.match(r"http://[^/]+/trees#s=[A-Za-z0-9_-]+$", link()), 10, msg="the share link is not /trees's")
    href = link()
    other = headless_chrome()
    try:
        other.get(href)
        wait_for_badge(other, *BADGE, BROKEN, "handmade.net", timeout=30)
        until(
            lambda: other.find_element(By.ID, "trees-compare").text == trees_table,
            30,
            msg="the shared link shows another trees table",
        )
        assert badge_text(other) == badge_text(page.driver)
        assert not [e for e in other.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        other.quit()


def test_repairing_from_the_badge_changes_every_page(page):
    page.open("/topology")
    wait_for_badge(page.driver, "20 switches", "1 broken")
    go_to(page, "Multicast")
    page.duo.find_element("#scenario-badge button").click()
    wait_for_badge(page.driver, "0 broken", "no broken links")
    go_to(page, "Topology")
    page.duo.wait_for_contains_text("#topo-counts", "0 broken links")
    assert page.duo.get_logs() == []
