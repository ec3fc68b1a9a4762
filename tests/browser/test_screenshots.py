"""Full-page pictures of the start page and the trees page, for a person to look at (artifacts/)."""

from __future__ import annotations

from .browser_helpers import full_page_screenshot


def test_start_page_and_trees_page_pictures(page):
    page.open("/")
    page.duo.wait_for_contains_text("#topo-bcast-info", "36 nodes reached")
    page.duo.wait_for_contains_text("#topo-player-caption", "h0 broadcasts a packet")
    full_page_screenshot(page, "start-full.png")
    page.open("/trees", counts=None)
    page.duo.wait_for_contains_text("#trees-player-position", "step 0 of", timeout=30)
    page.duo.wait_for_contains_text("#trees-compare", "4-ary", timeout=30)
    full_page_screenshot(page, "trees-page-full.png")
    assert page.duo.get_logs() == []
