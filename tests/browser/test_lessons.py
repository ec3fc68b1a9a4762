"""Lessons in a real browser: two shipped lessons walked in the presenter by keyboard alone, from the step the
address opens (→ goes from key moment to key moment within a step with a player, then to the next step), the caption
and the step of each looked at, no console error; a view added from a page, presented; the presenter's picture at
1280×720."""

from __future__ import annotations

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from vizcoll.lessons import load_shipped
from vizcoll.ui.pages.lessons._model import player_id

from .readability import viewport

# the frame's window; none while it still shows the document of the step left (window.__leftView, set by walk_step:
# "step k of n" is said at once, the frame's next document loads after it)
FRAME = """const frame = document.getElementById('lesson-view');
const w = frame && frame.contentWindow && frame.contentWindow.document !== window.__leftView && frame.contentWindow;"""
PLAYER = (
    FRAME
    + """const s = w && w.vizcollPlayers && w.vizcollPlayers[arguments[0]];
const d = w && w.document, caption = d && d.getElementById(arguments[0] + '-caption'),
      shown = d && d.getElementById(arguments[0] + '-position');
return s ? [s.position, s.n, s.moments, caption ? caption.textContent : '', shown ? shown.textContent : ''] : null;"""
)
# a step without a player: its page is drawn in the frame (its jobs may still run: the view stays live)
DRAWN = (
    FRAME
    + """const d = w && w.document, main = d && d.getElementById('shell-page');
return !!main && d.readyState === 'complete' && main.textContent.length > 200;"""
)
SHOWN_NARRATION = "return [...document.querySelectorAll('.lesson-narration-step')].findIndex(s => !s.hidden);"


def lesson_step(page) -> str:
    return page.duo.find_element("#lesson-step").text


def press(page, key) -> None:
    ActionChains(page.driver).send_keys(key).perform()


def player_shown(page, prefix: str):
    """(position, steps, key moments, caption) of the frame's player once its caption says its position."""
    found = {}

    def ready():
        state = page.driver.execute_script(PLAYER, prefix)
        if state and state[1] > 0 and state[3].strip() and state[4] == f"step {state[0]} of {state[1]}":
            found["state"] = state
            return True
        return False

    until(ready, 60, msg=f"the frame's {prefix} never showed its caption")
    return found["state"][:4]


def walk_step(page, step, k: int, n: int) -> bool:
    """Look at step ``k``: its narration, its view or its player's caption on the step's position; → goes to the
    player's next key moment (when there is one) within the step; N goes on to the next step. Whether → went to a
    key moment."""
    until(lambda: lesson_step(page) == f"step {k + 1} of {n}", 20)
    assert page.driver.execute_script(SHOWN_NARRATION) == k
    # the narration is a dcc.Markdown, drawn once its component bundle has loaded
    until(lambda: page.duo.find_element("#lesson-narration").text.strip(), 20, msg=f"step {k + 1} shows no narration")
    prefix, jumped = player_id(step), False
    if prefix is None:
        until(lambda: page.driver.execute_script(DRAWN), 90, msg=f"step {k + 1}: {step.page} never drew")
    else:
        position, steps, moments, _ = player_shown(page, prefix)
        if "moment" in step.player:
            assert position == moments[min(step.player["moment"], len(moments)) - 1], (k, position, moments)
        else:
            assert position == min(step.player["step"], steps)
        later = [m for m in moments if m > position]
        if later:
            press(page, Keys.ARROW_RIGHT)
            until(lambda: player_shown(page, prefix)[0] == later[0], 10, msg=f"step {k + 1}: → missed a key moment")
            assert lesson_step(page) == f"step {k + 1} of {n}"  # still this step: its next key moment first
            jumped = True
    page.driver.execute_script(FRAME + "window.__leftView = w && w.document;")
    press(page, "n")
    return jumped


WALKED = {"barriers": 6, "erasure-repair": 1}
"""The lessons walked here, each from the step its address opens (``?step=K``) to its end: the barriers lesson's
steps 6 to 12 play players from key moment to key moment (a step's position, key moments 1 to 3, the side-by-side
player; its steps 1 to 5 open on key moment 1, as steps 9, 11 and 12 do), the erasure lesson's steps are drawn pages.
Every step of every shipped lesson is checked without a browser: its page drawn on its scenario
(tests/ui/test_lessons_page.py), its player's position against the page's timeline (``vizcoll lesson check``,
tests/engine/test_lessons.py)."""


@pytest.mark.parametrize("name", WALKED)
def test_a_lesson_walks_by_keyboard_in_the_presenter(page, name):
    lesson, first = load_shipped(name), WALKED[name]
    n = len(lesson.steps)
    viewport(page.driver)
    page.open(f"/lessons/present?lesson={name}&step={first}", counts=None)
    page.duo.wait_for_text_to_equal("#lesson-step", f"step {first} of {n}", timeout=20)
    assert page.duo.find_element(".presenter-title").text == lesson.title
    if name == "barriers":
        page.screenshot("lesson-presenter.png")
    steps = list(enumerate(lesson.steps))[first - 1 :]
    jumps = sum(walk_step(page, step, k, n) for k, step in steps)
    assert lesson_step(page) == f"step {n} of {n}"  # past the end: still the last step
    press(page, Keys.PAGE_UP)  # a clicker's back: the last step's previous key moment, else the step before
    press(page, Keys.HOME)
    until(lambda: lesson_step(page) == f"step 1 of {n}", 10)
    print(f"\n{name}: steps {first} to {n}, → went to the next key moment in {jumps} of them")
    assert page.duo.get_logs() == []


def test_a_view_added_from_a_page_is_presented_with_its_player(page):
    page.open("/barrier", counts=None)
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of", timeout=60)
    page.click("#bar-player-forward")
    page.duo.wait_for_contains_text("#bar-player-position", "step 1 of", timeout=10)
    page.click("#lesson-add-view")
    page.duo.wait_for_contains_text("#scenario-message", "Added as step 1 of 'My lesson'", timeout=10)
    page.open("/lessons", counts=None)
    page.duo.wait_for_contains_text("#lessons-own", "My lesson (1 step)", timeout=10)
    page.duo.find_element("#lessons-own a").click()
    page.duo.wait_for_text_to_equal("#lesson-step", "step 1 of 1", timeout=20)
    assert player_shown(page, "bar-player")[0] == 1  # the step it was added on
    assert page.duo.get_logs() == []


def test_the_speaker_notes_follow_the_presenter_in_a_second_window(page):
    lesson = load_shipped("treft")
    page.open("/lessons/present?lesson=treft&step=2", counts=None)
    page.duo.wait_for_text_to_equal("#lesson-step", f"step 2 of {len(lesson.steps)}", timeout=20)
    presenter = page.driver.current_window_handle
    page.click("#lesson-notes-open")
    until(lambda: len(page.driver.window_handles) == 2, 10, msg="no notes window opened")
    notes = next(handle for handle in page.driver.window_handles if handle != presenter)
    page.driver.switch_to.window(notes)
    page.duo.wait_for_contains_text("#lesson-notes", "Step 2 of 9: /faults", timeout=20)
    assert "Speaker notes: " + lesson.title in page.driver.find_element("css selector", "h1").text
    page.driver.switch_to.window(presenter)
    press(page, "n")
    page.duo.wait_for_text_to_equal("#lesson-step", "step 3 of 9", timeout=10)
    page.driver.switch_to.window(notes)
    page.duo.wait_for_contains_text("#lesson-notes", "Step 3 of 9: /faults", timeout=10)
    word = next(w for w in lesson.steps[2].notes.split() if w.isalpha() and len(w) > 3)  # a word of its notes
    page.duo.wait_for_contains_text("#lesson-notes", word, timeout=10)  # a dcc.Markdown: drawn once its bundle is in
    page.driver.switch_to.window(presenter)
    assert page.duo.get_logs() == []
