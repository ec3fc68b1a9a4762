"""The barrier page on the shared scenario: a grid preset, links broken by clicking them (the badge follows), DLCT
steering around a break step by step, and barriers on a fat tree's end nodes."""

from __future__ import annotations

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from vizcoll.scenario import Scenario

from .browser_helpers import full_page_screenshot, text

GATHER, RELEASE = "rgb(255,127,14)", "rgb(23,190,207)"
LINK0 = "sw0-0[1]-sw0-1[2]"


@pytest.fixture
def bar(page):
    """The ``page`` fixture whose cytoscape helpers (click_element, edge_colours, ...) talk to #bar-canvas."""
    page.canvas = "bar-canvas"
    page.driver.set_window_size(1400, 1000)
    return page


def badge(page) -> str:
    return text(page, "#scenario-badge")


def wait_for_badge(page, *parts: str, timeout: float = 20) -> None:
    until(lambda: all(p in badge(page) for p in parts), timeout, msg=f"the badge never showed {parts}: {badge(page)!r}")


def summary(page) -> dict[str, str]:
    rows = page.driver.execute_script(
        "return [...document.querySelectorAll('#bar-summary tr')]"
        ".map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent));"
    )
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


def choose(page, dropdown_id: str, option: str) -> None:
    """Open a dcc.Dropdown and click the option with this text (Dash 4 renders the menu in a popover)."""
    page.click(f"#{dropdown_id}")
    found = until(lambda: page.driver.find_elements(By.XPATH, f"//*[normalize-space(text())='{option}']"), 10)
    found[-1].click()


def click_edge(page, edge_id: str, at: float = 0.3) -> None:
    """A real click on an edge ``at`` of the way from its source: not at its midpoint, where on a fat tree's
    drawing two crossing links meet (edge0.0 – agg0.1 and edge0.1 – agg0.0 share it; the click would be a toss-up)."""
    x, y = page.cy(f"""
        const e = cy.$('#{edge_id}');
        holder.scrollIntoView({{block: 'center'}});
        const a = e.renderedSourceEndpoint(), b = e.renderedTargetEndpoint();
        const box = cy.container().getBoundingClientRect();
        return [box.left + a.x + {at} * (b.x - a.x), box.top + a.y + {at} * (b.y - a.y)];""")
    ActionChains(page.driver).move_to_location(int(round(x)), int(round(y))).click().perform()


def scroll_to(page, selector: str) -> None:
    page.driver.execute_script(f"document.querySelector({selector!r}).scrollIntoView({{block: 'start'}});")


def shared(page) -> Scenario:
    """The scenario the shell's share link carries."""
    href = page.duo.find_element("#share-link").get_attribute("href")
    return Scenario.from_fragment(href.partition("#s=")[2])


def test_a_grid_preset_a_clicked_break_and_dlct_steering_around_it(bar):
    page = bar
    page.open("/barrier", counts=None)
    wait_for_badge(page, "fat-tree:radix=4,levels=3", "1 broken")
    # the grid preset replaces the shared scenario (the badge says so); the page's algorithm becomes DLCT
    page.click("#bar-use-grid")
    wait_for_badge(page, "mesh:4x4,neighbors=8,hosts=0", "16 switches", "0 end nodes", "42 links", "0 broken")
    choose(page, "bar-algo", "DLCT")
    page.duo.wait_for_contains_text("#bar-flag", "No harmful break", timeout=30)
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of", timeout=20)
    page.wait_for_cy()
    assert summary(page)["K per barrier"] == "0, 0, 0" and summary(page)["processes"] == "16"
    until(lambda: label(page, "n0") == "0" and label(page, "n4") == "7", 10)  # S-curve: row 1 runs right to left
    page.duo.wait_for_contains_text("#bar-uq-lct", "LCT: UQ = 1 − 7/26 = 73.1%", timeout=20)
    page.duo.wait_for_contains_text("#bar-uq-bst", "BST: UQ = 1 − 18/22 = 2/11 = 18.2%")
    page.duo.wait_for_contains_text("#bar-hist", "256 S-curve transformations", timeout=20)
    page.duo.wait_for_contains_text("#bar-vs-rate", "Run time vs broken links", timeout=30)
    page.duo.wait_for_contains_text("#bar-ranges", "the paper's Fig. 7")
    until(lambda: shared(page).params.get("barrier", {}).get("algo") == "dlct", 10, msg="the share link has no DLCT")
    assert page.duo.get_logs() == []

    # a real click on link 0 (sw0-0 – sw0-1) breaks it in the shared scenario: the badge reports it, DLCT adjusts
    page.click_element("edge[link = 0]")
    wait_for_badge(page, "1 broken", LINK0)
    until(lambda: page.cy("return cy.$('edge[link = 0]').hasClass('broken');"), 10)
    page.duo.wait_for_contains_text(
        "#bar-flag", "root sw0-0 gathered a total path length of 27 (ideal 24) → round(6)", timeout=20
    )
    until(lambda: summary(page).get("K per barrier") == "6, 0, 0", 10)
    assert summary(page)["adjustments (round(K), K ≠ 0)"] == "1"
    until(lambda: shared(page).broken == [LINK0], 10, msg="the share link does not carry the break")
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of")

    # step through: the first Gather hops are drawn orange
    scroll_to(page, ".player-panel")
    for _ in range(3):
        forward(page)
    for _ in range(40):
        if GATHER in page.edge_colours().values():  # seen: the drawing may still be the step before's
            break
        forward(page)
    else:
        until(lambda: GATHER in page.edge_colours().values(), 10, msg="no Gather hop is drawn orange")
    # the harmful break's detection is a key moment: ⇥ jumps to it
    before = position(page)
    page.click("#bar-player-next-key")
    until(lambda: position(page) > before, 10)
    assert "Root sw0-0 gathered a total path length of 27 (ideal 24): a harmful break → round(6)" in text(
        page, "#bar-player-caption"
    )
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

    # K is a page parameter: it reaches the share link
    page.type_into("#bar-k", "2\n")  # a debounced input: Enter submits it
    page.duo.wait_for_contains_text("#bar-uq-info", "round(2)", timeout=20)
    until(lambda: shared(page).params["barrier"]["k"] == 2, 10)

    # a size larger than the page runs: a message, the scenario stays; a resize keeps the break on its link
    page.type_into("#bar-size", "40x40\n")
    page.duo.wait_for_contains_text("#bar-message", "⚠ the page runs grids up to 16x16", timeout=20)
    assert "mesh:4x4" in badge(page) and summary(page)["K per barrier"] == "6, 0, 0"
    page.type_into("#bar-size", "6x6\n")
    wait_for_badge(page, "mesh:6x6,neighbors=8,hosts=0", "36 switches", "1 broken", LINK0)
    until(lambda: summary(page).get("processes") == "36", 20)
    assert page.cy("return cy.edges('.broken').map(e => e.data('name'));") == [LINK0]
    # Repair all writes the scenario too
    page.click("#bar-repair")
    wait_for_badge(page, "0 broken", "no broken links")
    assert page.duo.get_logs() == []


def test_barriers_on_a_fat_trees_end_nodes(bar):
    page = bar
    page.open("/barrier", counts=None)
    wait_for_badge(page, "fat-tree:radix=4,levels=3", "1 broken")
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of", timeout=30)
    page.wait_for_cy()
    page.duo.wait_for_contains_text("#bar-fabric", "not a grid")
    page.duo.wait_for_contains_text("#bar-fabric", "communicator 0: 4 processes")
    labels = page.cy("return cy.nodes().map(n => n.data('label'));")
    assert {"h0", "core0", "edge0.0"} <= set(labels)
    assert page.cy("return cy.edges('.broken').map(e => e.data('name'));") == ["edge0.0[4]-agg0.1[1]"]
    # every end node takes part; MS runs
    choose(page, "bar-comm", "every end node (16)")
    choose(page, "bar-algo", "MS (master–slave)")
    until(lambda: summary(page).get("processes") == "16", 30)
    assert page.cy("return cy.nodes('.proc').length;") == 16
    # play a step: a hop is drawn
    scroll_to(page, ".player-panel")
    for _ in range(30):
        if GATHER in page.edge_colours().values():  # seen: the drawing may still be the step before's
            break
        forward(page)
    else:
        until(lambda: GATHER in page.edge_colours().values(), 10, msg="no Gather hop is drawn orange")
    page.screenshot("barrier-fat-tree.png")
    # DLCT needs a grid: its choice says so, and choosing it changes nothing
    choose(page, "bar-algo", "DLCT (needs a grid)")
    page.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    assert "MS (master–slave)" in text(page, "#bar-algo") and summary(page).get("processes") == "16"
    # clicking the broken link repairs it in the shared scenario
    click_edge(page, page.cy("return cy.edges('.broken')[0].id();"))
    wait_for_badge(page, "0 broken", "no broken links")
    assert page.duo.get_logs() == []


def job_class(page, prefix: str) -> str:
    return page.duo.find_element(f"#{prefix}-job").get_attribute("class")


def test_the_full_sweep_shows_its_progress_and_cancel_keeps_the_quick_one(fresh_page):
    page = fresh_page
    page.canvas = "bar-canvas"
    page.open("/barrier", counts=None)
    page.duo.wait_for_contains_text("#bar-vs-rate", "Run time vs broken links: 12×12 grid", timeout=60)
    until(lambda: job_class(page, "bar-sweep") == "job", 20)  # the quick sweep's job is over: its bar is hidden
    scroll_to(page, "#bar-sweep-mode")
    page.driver.find_element(By.XPATH, "//label[contains(., 'full: 4–20')]").click()
    # the full sweep runs as a background job: its bar shows the grids run so far, the sweep choice is locked
    until(lambda: job_class(page, "bar-sweep") == "job running", 20, msg="the full sweep's job bar never showed")
    page.duo.wait_for_contains_text("#bar-sweep-progress-text", "The full sweep: ", timeout=30)
    assert "of 30 grids run" in text(page, "#bar-sweep-progress-text")
    until(lambda: int(page.duo.find_element("#bar-sweep-progress").get_attribute("value")) >= 1, 20)
    assert page.duo.find_element("#bar-sweep-progress").get_attribute("max") == "30"
    assert all(not e.is_enabled() for e in page.driver.find_elements(By.CSS_SELECTOR, "#bar-sweep-mode input"))
    page.driver.execute_script("document.querySelector('#bar-sweep-mode').closest('.panel').scrollIntoView();")
    page.screenshot("barrier-sweep-job.png")
    # Cancel stops it: the bar goes, the quick sweep's charts stay, the sweep choice is free again
    page.click("#bar-sweep-cancel")
    until(lambda: job_class(page, "bar-sweep") == "job", 10, msg="Cancel did not stop the full sweep")
    until(lambda: all(e.is_enabled() for e in page.driver.find_elements(By.CSS_SELECTOR, "#bar-sweep-mode input")), 10)
    assert "Run time vs broken links: 12×12 grid" in text(page, "#bar-vs-rate")
    assert "4×4" in text(page, "#bar-ranges") and "20×20" not in text(page, "#bar-ranges")
    until(lambda: shared(page).params["barrier"].get("sweep") == "full", 10, msg="the share link has no full sweep")
    assert page.duo.get_logs() == []
