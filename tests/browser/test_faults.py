"""The fault replays page: the reduction and TREFT replays play, step back and forth and accept injected faults."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.by import By

from .browser_helpers import full_page_screenshot


def choose(page, dropdown_id: str, text: str) -> None:
    """Open a dcc.Dropdown and click the option with this text (Dash 4 renders the menu in a popover)."""
    page.click(f"#{dropdown_id}")
    option = until(lambda: page.driver.find_elements(By.XPATH, f"//*[normalize-space(text())='{text}']"), 10)
    option[-1].click()


def position(page, prefix: str) -> str:
    return page.duo.find_element(f"#{prefix}-position").text


def step_of(page, prefix: str) -> int:
    text = position(page, prefix)  # "step 3 of 59"
    return int(text.split()[1]) if text.startswith("step") else -99


def scroll_to(page, selector: str) -> None:
    page.driver.execute_script(f"document.querySelector('{selector}').scrollIntoView({{block: 'center'}});")


def play_and_step(page, prefix: str) -> None:
    """▶ Play, pause, then next › / ‹ back change the position label."""
    page.duo.wait_for_contains_text(f"#{prefix}-position", "step 0 of", timeout=30)
    scroll_to(page, f"#{prefix}-play")
    page.click(f"#{prefix}-play")
    until(lambda: step_of(page, prefix) >= 2, 20)
    page.click(f"#{prefix}-play")  # pause
    page.duo.wait_for_contains_text(f"#{prefix}-play", "▶ Play", timeout=10)
    paused = page.driver.execute_script(f"return window.vizcollPlayers[{prefix!r}].position;")  # the slider's step
    for _ in range(3):
        page.click(f"#{prefix}-forward")
    before = paused + 3  # where the presses took it (5 or more): its label, an answer a press, is waited for
    until(lambda: step_of(page, prefix) == before, 10)
    page.click(f"#{prefix}-back")
    until(lambda: step_of(page, prefix) == before - 1, 10)
    page.click(f"#{prefix}-forward")
    until(lambda: step_of(page, prefix) == before, 10)


def test_reduction_replay_plays_steps_and_recovers_from_a_fault(page):
    page.open("/faults", counts=None)
    page.duo.wait_for_contains_text("#ft-red-summary", "task-based", timeout=30)
    page.duo.wait_for_contains_text("#ft-red-player-caption", "master", timeout=20)
    play_and_step(page, "ft-red-player")
    page.duo.wait_for_contains_text("#ft-red-tasks", "Tasks formed so far", timeout=10)

    choose(page, "ft-red-fault", "(2) worker fails while executing its task")
    page.duo.wait_for_contains_text("#ft-red-summary", "recovered", timeout=30)
    page.duo.wait_for_contains_text("#ft-red-summary", "executing-task", timeout=10)
    page.click("#ft-red-player-last")
    page.duo.wait_for_contains_text("#ft-red-player-caption", "reduce() returns true", timeout=20)
    # back to the step where the failure is detected (a key moment, as the recovery's steps after it are): its
    # caption explains the recovery
    until(lambda: _back_until(page, "ft-red-player", "did not answer the master's ping", "prev-key"), 40, poll=0.5)
    page.duo.wait_for_contains_text("#ft-red-player-caption", "recovery step 1", timeout=5)
    assert "⚠" not in page.duo.find_element("#ft-red-message").text
    # forward to the recovery's read of the dead worker's original data from its neighbor's disk
    until(lambda: _forward_until(page, "ft-red-player", "original data from"), 40, poll=0.5)
    scroll_to(page, "#ft-red-diagram")
    page.screenshot("faults-reduction.png")
    full_page_screenshot(page, "faults-page.png")
    assert page.duo.get_logs() == []


def _back_until(page, prefix: str, text: str, button: str = "back") -> bool:
    if text in page.duo.find_element(f"#{prefix}-caption").text:
        return True
    _press(page, prefix, button)
    return False


def _press(page, prefix: str, button: str) -> None:
    """Press the player's ``button`` and wait until its position moves: the next look at its caption (drawn in the
    same answer) reads the step pressed to, never the one before (a second press would step past it)."""
    before = step_of(page, prefix)
    page.click(f"#{prefix}-{button}")
    until(lambda: step_of(page, prefix) != before, 10, msg=f"{prefix}-{button} did not move the player")


def test_treft_replay_plays_steps_and_corrects_an_injected_error(page):
    page.open("/faults", counts=None)
    page.duo.wait_for_contains_text("#ft-treft-summary", "corrected", timeout=30)
    page.duo.wait_for_contains_text("#ft-treft-overhead", "TREFT-E2", timeout=30)
    play_and_step(page, "ft-treft-player")

    choose(page, "ft-treft-replica", "replica r2")
    choose(page, "ft-treft-workflow", "VP (Visualization Pipe)")
    page.duo.wait_for_contains_text("#ft-treft-summary", "VP.A", timeout=30)
    page.duo.wait_for_contains_text("#ft-treft-summary", "r2: bit", timeout=30)
    page.duo.wait_for_contains_text("#ft-treft-summary", "corrected", timeout=10)
    # jump to the injection (a key moment): the lanes show the ERROR cell; then step to the vote's correction
    scroll_to(page, "#ft-treft-player-next-key")
    until(lambda: _forward_until(page, "ft-treft-player", "flips bit", "next-key"), 30, poll=0.4)
    until(lambda: any(t.startswith("ERROR in") for t in cell_texts(page)), 10)
    until(lambda: _forward_until(page, "ft-treft-player", "2-of-3 vote", "next-key"), 30, poll=0.4)  # the vote
    # its verdict on r2's copy is a key moment too (a detection): the key moments of the votes lead to it
    until(lambda: _forward_until(page, "ft-treft-player", "2-of-3 vote overwrites", "next-key"), 60, poll=0.4)
    # at the run's end r2's data cell (not only the legend) says corrected: every live variable has been voted on
    page.click("#ft-treft-player-last")
    until(lambda: "corrected" in cell_texts(page), 30, msg=f"r2's data is not corrected at the end: {cell_texts(page)}")
    scroll_to(page, "#ft-treft-lanes")
    page.screenshot("faults-treft.png")
    assert page.duo.get_logs() == []


def cell_texts(page) -> list[str]:
    """Texts of the annotations of the lanes figure (the cells' short states and the operation number)."""
    return page.driver.execute_script(
        "const g = document.querySelector('#ft-treft-lanes .js-plotly-plot');"
        "return g && g.layout ? (g.layout.annotations || []).map(a => a.text || '') : [];"
    )


def _forward_until(page, prefix: str, text: str, button: str = "forward") -> bool:
    if text in page.duo.find_element(f"#{prefix}-caption").text:
        return True
    _press(page, prefix, button)
    return False


def test_bad_input_shows_a_warning_and_keeps_the_last_result(page):
    page.open("/faults?procs=6", counts=None)
    page.duo.wait_for_contains_text("#ft-red-summary", "task-based", timeout=30)
    page.type_into("#ft-red-slow", "2:x\n")
    page.duo.wait_for_contains_text("#ft-red-message", "⚠", timeout=20)
    assert "Traceback" not in page.duo.find_element("#ft-red-message").text
    page.duo.wait_for_contains_text("#ft-red-summary", "task-based", timeout=5)
