"""Undo and redo in the browser (issue 47): a link broken on the canvas, undone by Ctrl+Z and redone by
Ctrl+Shift+Z, then by the buttons; the buttons are off when there is nothing to undo or redo."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from .browser_helpers import DEFAULT_COUNTS, counts_line

BROKEN_TWO = counts_line(20, 16, 48, 2, 4)


def press(page, *keys) -> None:
    """Press ``keys`` together with nothing focused (not in a text box; a click could hit the canvas)."""
    page.driver.execute_script("document.activeElement && document.activeElement.blur();")
    chain = ActionChains(page.driver)
    for k in keys[:-1]:
        chain.key_down(k)
    chain.send_keys(keys[-1])
    for k in reversed(keys[:-1]):
        chain.key_up(k)
    chain.perform()


def disabled(page, button: str):
    """The ``disabled`` attribute of the ``undo`` or ``redo`` button (found afresh: never a stale element)."""
    return page.duo.find_element(f"#topo-{button}").get_attribute("disabled")


def test_a_break_is_undone_and_redone_by_keys_and_buttons(page):
    page.open("/topology")
    until(lambda: disabled(page, "undo") and disabled(page, "redo"), 10)
    page.click_element("edge[link = 5]")
    page.duo.wait_for_text_to_equal("#topo-counts", BROKEN_TWO)
    until(lambda: not disabled(page, "undo"), 10, msg="nothing to undo after a break")

    press(page, Keys.CONTROL, "z")
    page.duo.wait_for_text_to_equal("#topo-counts", DEFAULT_COUNTS, timeout=20)
    until(lambda: not disabled(page, "redo") and disabled(page, "undo"), 10)
    press(page, Keys.CONTROL, Keys.SHIFT, "z")
    page.duo.wait_for_text_to_equal("#topo-counts", BROKEN_TWO, timeout=20)
    until(lambda: "2 broken" in page.duo.find_element("#scenario-badge").text, 10)

    page.click("#topo-undo")
    page.duo.wait_for_text_to_equal("#topo-counts", DEFAULT_COUNTS, timeout=20)
    page.click("#topo-redo")
    page.duo.wait_for_text_to_equal("#topo-counts", BROKEN_TWO, timeout=20)
    assert not [e for e in page.duo.get_logs() or [] if e["level"] == "SEVERE"]


def test_another_fabric_forgets_the_selection_and_undo_brings_the_last_fabric_back(page):
    page.open("/topology")
    page.click_element("node[label = 'h3']")  # a node clicked fills node A, a link clicked breaks it and names it
    page.click_element("edge[link = 5]")
    until(lambda: page.value("#topo-node-a") == "h3" and page.value("#topo-link-id"), 10)
    page.generate("fat-tree:radix=4,levels=2")
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(6, 8, 16, 0, 4), timeout=20)
    assert page.value("#topo-node-a") == page.value("#topo-node-b") == page.value("#topo-link-id") == ""
    assert page.duo.find_element("#topo-hover").text == "Point at a node or a link for its full name."
    press(page, Keys.CONTROL, "z")  # the fabric before, with its break
    page.duo.wait_for_text_to_equal("#topo-counts", BROKEN_TWO, timeout=30)
