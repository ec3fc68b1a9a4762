"""Undo and redo of the shared scenario (issue 47): the steps, the page parameters kept, the browser's history
checked on the server."""

from dash import no_update

from tests.callback_context import in_callback
from vizcoll.scenario import Scenario
from vizcoll.ui.components import history
from vizcoll.ui.store import DEFAULT_SCENARIO

BASE = DEFAULT_SCENARIO


def store(scenario: Scenario) -> dict:
    return scenario.to_dict(thin=True)


def test_undo_then_redo_a_break_keeps_the_page_parameters_of_now():
    broken = BASE.toggled("edge0.0[1]-h0[1]")
    now = Scenario(**{**broken.__dict__, "params": {**broken.params, "trees": {"k": 4}}})
    steps = {"now": store(now), "past": [store(BASE)], "future": []}
    restored, moved, new_fabric = history.stepped(steps, store(now), back=True)
    assert restored.broken == BASE.broken and restored.params["trees"] == {"k": 4} and not new_fabric
    assert moved["past"] == [] and moved["future"] == [store(now)] and moved["now"] == store(restored)
    again, forward, _ = history.stepped(moved, moved["now"], back=False)
    assert again.broken == now.broken and forward["future"] == [] and forward["past"] == [store(restored)]


def test_undoing_another_fabric_draws_the_page_again_and_nothing_to_undo_is_said():
    other = Scenario(spec="torus:4x4x4")
    steps = {"now": store(other), "past": [store(BASE)], "future": []}
    answer = in_callback(history.step, f"{history.UNDO}.n_clicks", 1, 0, steps, store(other), 3)
    assert answer[0] == store(BASE) and answer[3] == 4 and answer[4] is not no_update
    redone = in_callback(history.step, f"{history.REDO}.n_clicks", 1, 1, answer[1], answer[0], 4)
    assert redone[0] == store(other) and redone[3] == 5
    nothing = in_callback(history.step, f"{history.REDO}.n_clicks", 1, 2, redone[1], redone[0], 5)
    assert nothing[2] == "⚠ there is nothing to redo" and nothing[0] is no_update


def test_a_forged_history_changes_nothing():
    forged = {"now": {}, "past": [{"schema": "vizcoll.scenario/2", "fabric": {"spec": "mesh:0x0"}}], "future": []}
    for steps in (forged, "junk", {"past": 3}):
        answer = in_callback(history.step, f"{history.UNDO}.n_clicks", 1, 0, steps, store(BASE), 0)
        assert answer[0] is no_update and answer[2].startswith("⚠ ")
