"""Accessibility in a real browser (issue 46): axe-core's WCAG 2.1 A and AA rules find nothing in the states the
readability test does not reach (a player playing, a background job running, the side-by-side panel, a dropdown
open, the lessons and the presenter), and a lecturer's path works by keyboard alone: skip to the figure, break a link
by its name, play the barrier to its release, export the drawing. (Every page's default and real-cluster states are
checked by :mod:`tests.browser.test_readability`.) Every figure of a page is told as text, its data as tables
and CSV."""

from __future__ import annotations

import io
import time
from dataclasses import replace
from xml.etree import ElementTree

import numpy as np
from dash.testing.wait import until
from PIL import Image
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.fabrics import campus_cluster
from vizcoll.scenario import Scenario
from vizcoll.topology.generators import from_spec
from vizcoll.topology.io import parse
from vizcoll.topology.listing import find_links
from vizcoll.ui.components.links import SHOWN
from vizcoll.ui.store import DEFAULT_SCENARIO

from .axe import violations
from .test_exports import downloaded, downloads  # noqa: F401 (a fixture)
from .test_readability import settled

GRID = Scenario(spec="mesh:4x4,neighbors=8,hosts=0")
CLUSTER = Scenario.from_upload(parse(campus_cluster(), "campus.txt"), "campus.txt")  # 1,570 nodes


def no_violation(page) -> None:
    found = violations(page.driver)
    assert found == [], "\n".join(found)


def key(page, element, *keys) -> None:
    """``keys`` typed with the focus on ``element`` (moved there as Tab would, no click), a text one character at
    a time as a person types: dcc.Input (Dash 4.4) puts the caret back where it was one render ago, which under a
    loaded CI machine moved a character of a text sent all at once."""
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus();", element)
    for k in keys:
        if len(k) > 1:  # a text, not one key
            for char in k:
                ActionChains(page.driver).send_keys(char).pause(0.05).perform()
            until(lambda k=k: element.get_attribute("value") == k, 10)
        else:
            ActionChains(page.driver).send_keys(k).perform()


def key_first(page, selector: str, *keys) -> None:
    """``keys`` on the first element ``selector`` finds, once it is there; found again if the page drew it anew
    before the focus reached it (a table re-rendered under a loaded machine: no key was sent yet)."""

    def pressed() -> bool:
        found = page.driver.find_elements(By.CSS_SELECTOR, selector)
        try:
            return bool(found) and key(page, found[0], *keys) is None
        except StaleElementReferenceException:
            return False

    until(pressed, 20, msg=f"nothing to press at {selector}")


def break_found_link(page, prefix: str, query: str, topo) -> str:
    """Find links by ``query`` in page ``prefix``'s "Links and nodes by name" panel on the fabric ``topo``, wait for
    the table to list exactly the links the engine finds (it lists every link before the search's answer comes),
    press the first row's Break by keyboard and return that link's name."""
    expected = [link["label"] for link in find_links(topo, query, SHOWN)["links"]]
    key(page, page.duo.find_element(f"#{prefix}-links-find"), query, Keys.ENTER)

    rows = f"#{prefix}-links-table > table:first-of-type tbody th"  # the links' table, not the nodes' below it
    listed = f"return [...document.querySelectorAll('{rows}')].map(th => th.textContent);"
    until(
        lambda: page.driver.execute_script(listed) == expected, 20, msg=f"the table never listed what {query!r} finds"
    )
    key_first(page, f"#{prefix}-links-table tbody tr button", Keys.ENTER)
    return expected[0]


def test_no_violation_while_a_player_plays_and_with_the_side_by_side_panel_and_a_dropdown_open(page):
    page.open(f"/barrier#s={GRID.to_fragment()}", counts=None)
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of", timeout=30)
    settled(page)
    key(page, page.duo.find_element("#bar-player-play"), Keys.ENTER)
    page.duo.wait_for_text_to_equal("#bar-player-play", "❚❚ Pause", timeout=10)
    no_violation(page)
    assert page.duo.find_element("#bar-player-play").text == "❚❚ Pause"  # still playing: axe saw it mid-animation
    key(page, page.duo.find_element("#bar-player-play"), Keys.ENTER)
    key(page, page.duo.find_element("#bar-compare-algo"), Keys.ENTER)  # a dropdown opened by keyboard
    until(lambda: page.duo.find_element("#bar-compare-algo").get_attribute("aria-expanded") == "true", 10)
    no_violation(page)
    for press in (Keys.ARROW_DOWN, Keys.ARROW_DOWN, Keys.ENTER):  # the option after "nothing (one run)"
        ActionChains(page.driver).send_keys(press).perform()
        time.sleep(0.3)  # the list moves its focus in the next frame
    until(lambda: page.duo.find_element("#bar-compare-algo").text != "nothing (one run)", 10)
    page.duo.wait_for_contains_text("#bar-cmp-position", "step 0 of", timeout=60)
    settled(page)
    no_violation(page)
    assert page.duo.get_logs() == []


def test_no_violation_while_a_background_job_runs(fresh_page):
    """The barrier of every end node of a 1,570-node cluster: a background job with its bar and Cancel button."""
    page = fresh_page
    scenario = CLUSTER.with_params("barrier", {"comm": "every end node"})
    page.open(f"/barrier#s={scenario.to_fragment()}", counts=None)
    until(lambda: page.driver.execute_script("return !!document.querySelector('.job.running');"), 60)
    no_violation(page)


def test_no_violation_on_the_lessons_page_and_in_the_presenter(page):
    page.open("/lessons", counts=None)
    page.duo.wait_for_contains_text("#shell-page", "Barriers", timeout=20)
    no_violation(page)
    page.open("/lessons/present?lesson=barriers", counts=None)
    page.duo.wait_for_contains_text("#lesson-step", "step 1 of", timeout=20)
    until(lambda: page.duo.find_element("#lesson-narration").text.strip(), 20)
    until(
        lambda: page.driver.execute_script(
            "return document.querySelector('iframe').contentDocument.readyState === 'complete';"
        ),
        30,
    )
    settled(page)
    no_violation(page)  # the presenter and the live page in its frame


def test_a_lecturer_breaks_a_link_by_name_plays_the_barrier_to_its_release_and_exports_by_keyboard(page, downloads):  # noqa: F811
    page.canvas = "bar-canvas"  # the cytoscape helpers talk to the barrier's drawing
    page.open(f"/barrier#s={replace(DEFAULT_SCENARIO, broken=[]).to_fragment()}", counts=None)
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of", timeout=30)
    # the first Tab reaches the skip link, shown once focused; Enter moves the focus to the drawing
    page.driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0);")
    ActionChains(page.driver).send_keys(Keys.TAB).perform()
    skip = page.driver.switch_to.active_element
    assert skip.get_attribute("class") == "skip-link" and skip.is_displayed()
    assert skip.value_of_css_property("outline-style") != "none"  # a visible focus ring
    ActionChains(page.driver).send_keys(Keys.ENTER).perform()
    until(lambda: page.driver.execute_script("return document.activeElement.id;") == "bar-canvas", 10)

    # open "Links by name", find a link by its ends' names, break it with its row's button
    key(page, page.duo.find_element("#bar-links summary"), Keys.ENTER)
    link = break_found_link(page, "bar", "edge0.0 agg", DEFAULT_SCENARIO.topology())  # the first row's
    until(lambda: link in page.cy("return cy.edges('.broken').map(e => e.data('name'));"), 20)
    labels = "return [...document.querySelectorAll('#bar-links-table button')].map(b => b.getAttribute('aria-label'));"
    # the table is drawn by its own callback, after the drawing's (its nodes' table says "broken" all along)
    until(lambda: f"Repair {link}" in page.driver.execute_script(labels), 10, msg=f"{link} is never offered to repair")
    no_violation(page)  # the open panel with its tables

    # the player, by its buttons: to the last step, where the barrier has released everyone
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of", timeout=30)
    key(page, page.duo.find_element("#bar-player-last"), Keys.ENTER)
    page.duo.wait_for_contains_text("#bar-player-caption", "is complete", timeout=20)
    position = page.duo.find_element("#bar-player-position").text.split()
    assert position[1] == position[3]  # "step n of n"
    assert page.duo.find_element("#bar-player-caption").get_attribute("aria-live") == "polite"

    # export the drawing: the PNG carries the drawing's title above it and its legend below it (assets/drawing.js)
    key(page, page.duo.find_element("#bar-png"), Keys.ENTER)
    png = downloaded(downloads, "vizcoll-barrier.png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    picture = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    drawing = page.driver.execute_script("return document.getElementById('bar-canvas').offsetHeight;")
    assert picture.shape[0] > 2 * drawing + 100  # scale 2, with a title and a legend
    title, legend = picture[: picture.shape[0] // 12], picture[-picture.shape[0] // 8 :]
    assert (title.sum(axis=2) < 150).sum() > 500  # dark text of the title
    red = (abs(legend[..., 0] - 214) < 30) & (legend[..., 1] < 80) & (legend[..., 2] < 80)
    assert red.sum() > 20  # the legend's broken link: red and dashed, as on the page
    # and the SVG: the canvas's own drawing (cytoscape-svg) under the same title, above the same legend
    key(page, page.duo.find_element("#bar-svg"), Keys.ENTER)
    svg = ElementTree.fromstring(downloaded(downloads, "vizcoll-barrier.svg"))
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    heading = page.duo.find_element("#bar-canvas").find_element(By.XPATH, "ancestor::*[.//h2 or .//h3][1]")
    assert texts[0] == heading.find_element(By.CSS_SELECTOR, "h2, h3").text.split("\n")[0][: len(texts[0])]
    assert "broken link" in texts and "Gather hop" in texts  # the page's legend
    assert any(line.get("stroke-dasharray") for line in svg.iter("{http://www.w3.org/2000/svg}line"))
    assert len(list(svg.iter("{http://www.w3.org/2000/svg}svg"))) == 2  # the drawing nested in the sheet
    assert page.duo.get_logs() == []


def test_every_figure_of_a_page_as_text_and_data_by_keyboard(page):
    page.open("/multicast", counts=None)
    page.duo.wait_for_contains_text("#mc-summary", "minhop-new", timeout=30)
    key(page, page.duo.find_element("#mc-pack-text summary"), Keys.ENTER)
    key(page, page.duo.find_element("#mc-pack-text-button"), Keys.ENTER)
    page.duo.wait_for_contains_text("#mc-pack-text-out", "efi-a: EFI per link under A (minhop-new)", timeout=60)
    assert "efi-per-link: 48 rows: 1 broken; max efi_a 3 on" in page.duo.find_element("#mc-pack-text-out").text
    links = page.driver.find_elements("css selector", "#mc-pack-text-out a[download]")
    assert [a.get_attribute("download") for a in links][0] == "efi-per-link.csv"
    no_violation(page)
    assert page.duo.get_logs() == []


def test_a_fabric_is_chosen_and_generated_by_keyboard_on_the_topology_page(page):
    """Issue 46, keyboard only: open the generator with Enter, pick the torus with the arrow keys, press Generate
    with Enter; type a communicator pattern and apply it; then break a link by its name, as on /barrier."""
    page.open("/topology", counts=None)
    page.duo.wait_for_contains_text("#topo-counts", "switches", timeout=30)
    dropdown = page.duo.find_element("#topo-generator")
    key(page, dropdown, Keys.ENTER)  # opens it, the focus on the option chosen now
    chosen = lambda: page.driver.switch_to.active_element.get_attribute("value")  # noqa: E731
    until(lambda: chosen() == "fat-tree", 10, msg="the dropdown never opened on its option")
    for _ in range(10):  # the arrow keys walk the options; Enter takes the one lit
        if chosen() == "torus":
            break
        ActionChains(page.driver).send_keys(Keys.ARROW_DOWN).pause(0.1).perform()
    ActionChains(page.driver).send_keys(Keys.ENTER).perform()
    until(lambda: page.duo.find_element("#topo-params").get_attribute("value").startswith("torus:"), 10)
    key(page, page.duo.find_element("#topo-generate"), Keys.ENTER)
    page.duo.wait_for_contains_text("#topo-counts", "32 end nodes", timeout=30)  # torus:4x4x2,hosts=1
    box = page.duo.find_element("#topo-pattern")  # communicators: a pattern in place of the one there, Apply
    key(page, box, Keys.END, *[Keys.BACKSPACE] * len(box.get_attribute("value")), "hier:4")
    key(page, page.duo.find_element("#topo-apply-comm"), Keys.ENTER)
    page.duo.wait_for_contains_text("#topo-comm-info", "9 communicators", timeout=20)  # 8 groups of 4, 1 of leaders
    key(page, page.duo.find_element("#topo-links summary"), Keys.ENTER)
    break_found_link(page, "topo", "sw0-0-0", from_spec("torus:4x4x2,hosts=1"))
    page.duo.wait_for_contains_text("#topo-counts", "1 broken", timeout=20)
    assert page.duo.get_logs() == []
