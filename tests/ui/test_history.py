"""Undo and redo of the shared scenario (issue 47): the steps, the page parameters kept, the browser's history
checked on the server."""

from tests.callback_context import in_callback
from tests.probe import probe
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


def undo_or_redo(button: str, clicks: tuple[int, int], steps, data, version) -> dict:
    undo, redo = clicks
    kw = {"undo": undo, "redo": redo, "history": steps, "scenario": data, "version": version}
    return in_callback(history.step, f"{button}.n_clicks", **kw)


def test_undoing_another_fabric_draws_the_page_again_and_nothing_to_undo_is_said():
    other = Scenario(spec="torus:4x4x4")
    steps = {"now": store(other), "past": [store(BASE)], "future": []}
    answer = undo_or_redo(history.UNDO, (1, 0), steps, store(other), 3)
    assert answer["store"] == store(BASE) and answer["version"] == 4 and answer["content"] is not None
    redone = undo_or_redo(history.REDO, (1, 1), answer["history"], answer["store"], 4)
    assert redone["store"] == store(other) and redone["version"] == 5
    nothing = undo_or_redo(history.REDO, (1, 2), redone["history"], redone["store"], 5)
    assert nothing == {"message": "⚠ there is nothing to redo"}


def test_undoing_an_edit_on_the_same_fabric_keeps_the_page():
    broken = BASE.toggled("edge0.0[1]-h0[1]")
    steps = {"now": store(broken), "past": [store(BASE)], "future": []}
    answer = undo_or_redo(history.UNDO, (1, 0), steps, store(broken), 3)
    assert answer == {"store": store(BASE), "history": answer["history"], "message": ""}
    assert undo_or_redo(history.UNDO, (0, 0), steps, store(broken), 3) == {}  # no click: nothing changes


def test_a_forged_history_changes_nothing():
    forged = {"now": {}, "past": [{"schema": "vizcoll.scenario/2", "fabric": {"spec": "mesh:0x0"}}], "future": []}
    for steps in (forged, "junk", {"past": 3}):
        answer = undo_or_redo(history.UNDO, (1, 0), steps, store(BASE), 0)
        assert set(answer) == {"message"} and answer["message"].startswith("⚠ ")


def test_the_step_callback_names_every_output_it_answers():
    named = history.outputs("shell-version", "_pages_content")
    assert {"store", "history", "message", "version", "content"} == set(named)
    assert named["version"].component_id == "shell-version" and named["content"].component_id == "_pages_content"


def test_forged_clicks_histories_and_versions_say_why_or_change_nothing():
    """(The scenario store is not probed: a step restores the history's scenario even when the store is damaged.)"""
    broken = store(BASE.toggled("edge0.0[1]-h0[1]"))
    steps = {"now": broken, "past": [store(BASE)], "future": []}

    def undo(undo, redo, history, version):
        return history_step(undo=undo, redo=redo, history=history, scenario=broken, version=version)

    history_step = history.step
    probe(undo, f"{history.UNDO}.n_clicks", {"undo": 1, "redo": 0, "history": steps, "version": None})
    other = {"now": store(Scenario(spec="torus:4x4x4")), "past": [store(BASE)], "future": []}
    assert undo_or_redo(history.UNDO, (1, 0), other, other["now"], "x")["version"] == 1  # counted from 0
