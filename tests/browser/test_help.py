"""/help in a real browser (issue 47): it opens from the navbar without a console error, axe-core finds no WCAG 2.1
A or AA failure on it, its picture at 1280×720 is saved (artifacts/help.png), and an example link opens its page on
the example's scenario; the empty fabric's example shows the hint of an empty drawing, which goes once a fabric
is generated."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.by import By

from .axe import violations
from .browser_helpers import counts_line
from .readability import viewport

HINT = "#topo-canvas-hint"


def example_link(page, section: str, words: str):
    """The example link of the help's ``section`` whose text starts with ``words`` (waited for: the page may still
    be drawing)."""

    def found():
        links = page.driver.find_elements(By.CSS_SELECTOR, f"#{section} .help-links a")
        return next((link for link in links if link.text.startswith(words)), None)

    until(lambda: found() is not None, 20, msg=f"no example {words!r} in #{section}")
    return found()


def hint_shown(page) -> bool:
    return page.driver.execute_script(f"const h = document.querySelector('{HINT}'); return !!h && !h.hidden;")


def test_help_opens_from_the_navbar_reads_at_1280_by_720_and_opens_an_example(page):
    viewport(page.driver)
    page.open("/topology")
    page.driver.find_element(By.CSS_SELECTOR, ".navbar a.nav-link[href='/help']").click()
    page.duo.wait_for_contains_text("#help-barrier", "Use this grid", timeout=20)
    page.duo.wait_for_contains_text("#help-keys", "Page Down", timeout=10)
    assert page.duo.find_element("#help-files").text.count("\n") >= 6  # a title, a line, a format a line
    found = violations(page.driver)
    assert found == [], "\n".join(found)
    widths = page.driver.execute_script("const d = document.documentElement; return [d.scrollWidth, d.clientWidth];")
    assert widths[0] <= widths[1], f"/help is {widths[0]} px wide in a {widths[1]} px window"
    page.driver.execute_script("window.scrollTo(0, 0);")
    page.screenshot("help.png")
    assert page.duo.get_logs() == []

    example_link(page, "help-topology", "torus").click()  # torus:4x4x2,hosts=1, in this tab
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(32, 32, 112, 0, 7), timeout=30)
    until(lambda: page.driver.current_url.split("#")[0].endswith("/topology"), 10)
    page.duo.wait_for_contains_text("#scenario-badge", "torus:4x4x2,hosts=1", timeout=10)
    assert not hint_shown(page)
    assert page.duo.get_logs() == []


def test_an_empty_fabric_says_how_to_start_until_a_fabric_is_generated(page):
    page.open("/help", counts=None)
    example_link(page, "help-topology", "empty").click()
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(0, 0, 0, 0, 0), timeout=30)
    until(lambda: hint_shown(page), 10, msg="the empty fabric shows no hint")
    hint = page.duo.find_element(HINT)
    assert hint.text.startswith("Nothing to draw yet: generate a fabric (Generate)") and "Help" in hint.text
    canvas = page.duo.find_element("#topo-canvas").rect
    box = hint.find_element(By.CSS_SELECTOR, "p").rect
    assert canvas["y"] < box["y"] < canvas["y"] + canvas["height"] / 2  # over the canvas's top
    page.generate("torus:2x2x2,hosts=1")
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(8, 8, 20, 0, 7), timeout=30)
    until(lambda: not hint_shown(page), 10, msg="the hint stays over a drawn fabric")
    assert page.duo.get_logs() == []
