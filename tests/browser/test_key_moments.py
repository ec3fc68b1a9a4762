"""A player keeps its step when a fault injected at that step changes the run, and the fault's detection is its
next key moment (the /faults page's reduction: a click on its diagram kills a worker). A player marking the key
moments of a replay, jumping between them and answering the keyboard is tested in a tiny app
(tests/browser/test_components.py)."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains

from .test_faults import scroll_to, step_of

REDUCTION = "ft-red-player"


def test_killing_a_worker_keeps_the_step_and_its_detection_is_the_next_key_moment(page):
    page.open("/faults", counts=None)
    page.duo.wait_for_contains_text(f"#{REDUCTION}-position", "step 0 of", timeout=30)
    assert page.duo.find_element(f"#{REDUCTION}-next-key").get_attribute("disabled") == "true"  # no fault yet
    scroll_to(page, f"#{REDUCTION}-forward")
    for step in range(1, 13):  # one step at a time (a press reads the step the page shows)
        page.click(f"#{REDUCTION}-forward")
        until(lambda step=step: step_of(page, REDUCTION) == step, 10)
    scroll_to(page, "#ft-red-diagram")
    worker = page.driver.execute_script("""
        const p = document.querySelectorAll('#ft-red-diagram .scatterlayer .trace .points path')[3]
            .getBoundingClientRect();
        return [p.left + p.width / 2, p.top + p.height / 2];""")
    ActionChains(page.driver).move_to_location(int(worker[0]), int(worker[1])).click().perform()
    page.duo.wait_for_contains_text(
        f"#{REDUCTION}-caption", "dies (the master will notice at the next ping)", timeout=20
    )
    assert step_of(page, REDUCTION) == 12  # the new run is shown from the same step, not from step 0
    dead = """return document.querySelector('#ft-red-diagram .js-plotly-plot').data
        .flatMap(t => [].concat((t.marker || {}).symbol || []))"""
    until(lambda: "x" in page.driver.execute_script(dead), 10)  # the diagram draws the killed run too
    page.duo.wait_for_contains_text(f"#{REDUCTION}-moments-legend", "⚡ fault injected, ⚠ fault detected")
    scroll_to(page, f"#{REDUCTION}-next-key")
    page.click(f"#{REDUCTION}-next-key")
    page.duo.wait_for_contains_text(f"#{REDUCTION}-caption", "did not answer the master's ping", timeout=10)
    assert step_of(page, REDUCTION) > 12 and page.duo.get_logs() == []
