"""The barrier page: break a link by clicking it, run DLCT, step through the Gather / Release / Adjust animation."""

from __future__ import annotations

import pytest
from dash.testing.wait import until

from .browser_helpers import full_page_screenshot

GATHER, RELEASE = "rgb(255,127,14)", "rgb(23,190,207)"


@pytest.fixture
def bar(page):
    """The ``page`` fixture whose cytoscape helpers (click_element, edge_colours, ...) talk to #bar-canvas."""
    page.canvas = "bar-canvas"
    return page


def text(page, selector: str) -> str:
    return page.duo.find_element(selector).text


def summary(page) -> dict[str, str]:
    rows = page.driver.execute_script(
        "return [...document.querySelectorAll('#bar-summary tr')]"
        ".map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent));")
    return {cells[0]: cells[1] for cells in rows if len(cells) == 2}


def label(page, node: str) -> str:
    return page.cy(f"return cy.$('#{node}').style('label');")


def position(page) -> int:
    words = text(page, "#bar-player-position").split()
    return int(words[1]) if len(words) > 1 else -1


def forward(page) -> None:
    """One step forward with the player's next › button; waits until the step is shown."""
    before = position(page)
    page.click("#bar-player-forward")
    until(lambda: position(page) == before + 1, 10)


def scroll_to(page, selector: str) -> None:
    page.driver.execute_script(f"document.querySelector({selector!r}).scrollIntoView({{block: 'start'}});")




def test_break_a_link_by_clicking_run_dlct_and_watch_the_adjustment(bar):
    page = bar
    page.driver.set_window_size(1400, 1000)
    page.open("/barrier", counts=None)
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of", timeout=30)
    page.wait_for_cy()
    page.duo.wait_for_contains_text("#bar-flag", "No harmful break", timeout=20)
    assert summary(page)["K per barrier"] == "0, 0, 0"
    until(lambda: label(page, "n0") == "0" and label(page, "n4") == "7", 10)  # S-curve: row 1 runs right to left
    # the LCT vs BST view on the default grid: the paper's Fig. 3
    page.duo.wait_for_contains_text("#bar-uq-lct", "LCT: UQ = 1 − 7/26 = 73.1%", timeout=20)
    page.duo.wait_for_contains_text("#bar-uq-bst", "BST: UQ = 1 − 18/22 = 2/11 = 18.2%")
    page.duo.wait_for_contains_text("#bar-hist", "256 S-curve transformations", timeout=20)
    page.duo.wait_for_contains_text("#bar-vs-rate", "Run time vs broken links", timeout=30)
    page.duo.wait_for_contains_text("#bar-vs-size", "Run time vs size")
    page.duo.wait_for_contains_text("#bar-ranges", "the paper's Fig. 7")
    assert page.duo.get_logs() == []

    # a real click on link 0 (sw0-0 – sw0-1) breaks it; then run DLCT
    page.click_element("#l0")
    until(lambda: page.value("#bar-broken") == "0", 10)
    until(lambda: page.cy("return cy.$('#l0').hasClass('broken');"), 10)
    page.click("#bar-run")
    page.duo.wait_for_contains_text("#bar-flag", "root sw0-0 gathered a total path length of 27 (ideal 24) → "
                                                 "round(6)", timeout=20)
    until(lambda: summary(page).get("K per barrier") == "6, 0, 0", 10)
    assert summary(page)["adjustments (round(K), K ≠ 0)"] == "1"
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of")

    # step through: the first Gather hops are drawn orange
    scroll_to(page, ".player-panel")
    for _ in range(3):
        forward(page)
    for _ in range(40):
        if GATHER in page.edge_colours().values():
            break
        forward(page)
    assert GATHER in page.edge_colours().values()
    # on to the root's judgement, then the Release with K = 6 and the first nodes applying round(6)
    for _ in range(200):
        if "round(6)" in text(page, "#bar-player-caption"):
            break
        forward(page)
    assert "Root sw0-0 gathered a total path length of 27 (ideal 24): a harmful break → round(6)" in \
        text(page, "#bar-player-caption")
    for _ in range(40):
        if "applies round(6)" in text(page, "#bar-player-caption") and RELEASE in page.edge_colours().values():
            break
        forward(page)
    assert "applies round(6): ID" in text(page, "#bar-player-caption")
    until(lambda: label(page, "n0") == "6", 10)  # the old root sw0-0 applied round(6) first: ID 0 → 6
    page.screenshot("barrier-animation.png")

    page.click("#bar-player-last")
    page.duo.wait_for_contains_text("#bar-player-caption", "Barrier 3 is complete", timeout=20)
    until(lambda: label(page, "n0") == "6" and label(page, "n10") == "0", 10)  # sw2-2 (ID 10) is the new root
    full_page_screenshot(page, "barrier.png")
    assert page.duo.get_logs() == []

    # a grid larger than the page animates: a message, the last run stays
    page.type_into("#bar-size", "40x40")
    page.click("#bar-run")
    page.duo.wait_for_contains_text("#bar-message", "⚠ the page animates grids up to 16x16", timeout=20)
    assert summary(page)["K per barrier"] == "6, 0, 0"
    assert page.duo.get_logs() == []


def test_a_shared_url_opens_that_view(page):
    page.open("/barrier?size=3x5&neighbors=4&broken=2,7&algo=tree&k=2", counts=None)
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of", timeout=30)
    assert page.value("#bar-size") == "3x5" and page.value("#bar-broken") == "2, 7"
    until(lambda: summary(page).get("messages") is not None, 10)
    assert "K per barrier" not in summary(page)  # not a DLCT run
    page.duo.wait_for_contains_text("#bar-uq-info", "3×5 grid, s-curve numbering, 4 neighbours, round(2)")
    href = page.duo.find_element("#bar-share").get_attribute("href")
    assert "size=3x5" in href and "neighbors=4" in href and "broken=2%2C7" in href and "algo=tree" in href
    page.duo.wait_for_contains_text("#bar-ranges", "the paper's Fig. 7", timeout=30)  # let the sweep finish
    assert page.duo.get_logs() == []
