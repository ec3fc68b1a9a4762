"""Players mark the key moments of a replay, jump between them, answer the keyboard and keep their step when a
fault injected at that step changes the run."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from vizcoll.treft import simulate_treft

from .test_faults import scroll_to, step_of

TREFT = "ft-treft-player"
REDUCTION = "ft-red-player"


def press(page, key: str) -> None:
    """A key pressed on the page (not in a text box)."""
    ActionChains(page.driver).send_keys(key).perform()


def test_the_treft_replay_jumps_to_the_fault_its_vote_and_its_detection(page):
    page.open("/faults", counts=None)
    page.duo.wait_for_contains_text(f"#{TREFT}-position", "step 0 of 306", timeout=30)
    page.duo.wait_for_contains_text(f"#{TREFT}-moments-legend", "⚡ fault injected, ✓ vote, ⚠ fault detected")
    timeline, _ = simulate_treft("HC.A", "treft", inject=(1, "K4", "u4"))  # the page's default replay
    expected = [m["step"] + 1 for m in timeline.key_moments()]  # the engine's key moments, as slider positions
    assert len(expected) == 5
    marks = page.driver.find_elements("css selector", f"#{TREFT}-step .dash-slider-mark")
    assert [m.text for m in marks] == ["⚡", "✓", "✓", "⚠", "⚠"]

    scroll_to(page, f"#{TREFT}-next-key")
    page.click(f"#{TREFT}-next-key")
    until(lambda: step_of(page, TREFT) == expected[0], 10)
    page.duo.wait_for_contains_text(f"#{TREFT}-caption", "⚡ soft error: a transient fault on r1's device node")
    press(page, Keys.PAGE_DOWN)  # the keyboard drives the player used last
    until(lambda: step_of(page, TREFT) == expected[1], 10)
    page.duo.wait_for_contains_text(f"#{TREFT}-caption", "compares them (hashes, 2-of-3 vote)")
    press(page, Keys.PAGE_DOWN)
    until(lambda: step_of(page, TREFT) == expected[2], 10)
    press(page, Keys.PAGE_DOWN)
    until(lambda: step_of(page, TREFT) == expected[3], 10)
    page.duo.wait_for_contains_text(f"#{TREFT}-caption", "differs from the two others")
    page.click(f"#{TREFT}-prev-key")
    until(lambda: step_of(page, TREFT) == expected[2], 10)
    press(page, Keys.ARROW_RIGHT)
    until(lambda: step_of(page, TREFT) == expected[2] + 1, 10)
    press(page, Keys.ARROW_LEFT)
    until(lambda: step_of(page, TREFT) == expected[2], 10)
    press(page, Keys.SPACE)  # space on the player's own (focused) button plays, not that button
    page.duo.wait_for_text_to_equal(f"#{TREFT}-play", "❚❚ Pause", timeout=10)
    press(page, Keys.SPACE)
    page.duo.wait_for_text_to_equal(f"#{TREFT}-play", "▶ Play", timeout=10)
    press(page, Keys.END)
    until(lambda: step_of(page, TREFT) == 306, 10)
    press(page, Keys.HOME)
    until(lambda: step_of(page, TREFT) == 0, 10)

    page.duo.find_element("#ft-red-seed").send_keys("7")  # typing in a box moves no player
    assert step_of(page, TREFT) == 0
    assert page.duo.get_logs() == []


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
