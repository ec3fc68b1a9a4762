"""The lessons' pages without a browser: which lesson a link means, the links of its steps, your own lessons'
store (checked and capped), the presenter and notes drawn for every shipped lesson."""

from __future__ import annotations

import base64
import importlib
import json

import dash
import pytest
from dash import html, no_update

from app import create_app
from tests.callback_context import Wiring, find_component, in_callback, with_props
from tests.fuzz_payload import layout_components
from tests.probe import HOSTILE, probe
from vizcoll.errors import VizcollError
from vizcoll.lessons import MAX_STEPS, Lesson, load_shipped, shipped
from vizcoll.scenario import Scenario
from vizcoll.ui.pages.lessons import _model as model
from vizcoll.ui.pages.lessons import notes, page, present
from vizcoll.ui.store import DEFAULT_SCENARIO, MESSAGE


@pytest.fixture(scope="module")
def components():
    create_app()  # the pages register with an app
    return layout_components()


def ids_of(node, found=None) -> set:
    found = set() if found is None else found
    if getattr(node, "id", None) is not None:
        found.add(json.dumps(node.id) if isinstance(node.id, dict) else node.id)
    children = getattr(node, "children", None)
    for child in children if isinstance(children, list | tuple) else [children]:
        if child is not None and not isinstance(child, str | int | float):
            ids_of(child, found)
    return found


def test_every_player_id_is_a_player_on_its_page(components):
    for (_path, _name), prefix in model.PLAYER_IDS.items():
        for part in ("next-key", "prev-key", "step", "caption"):
            assert f"{prefix}-{part}" in components, f"{prefix}-{part}"


def test_a_step_opens_as_its_pages_share_link_with_the_players_position():
    one = load_shipped("barriers")
    for step in one.steps:
        href = model.step_href(step)
        assert href.startswith(f"{step.page}#s=")
        assert Scenario.from_fragment(href.split("#s=", 1)[1].split("&", 1)[0]) == step.scenario
        if step.player:
            kind = "moment" if "moment" in step.player else "step"
            assert href.endswith(f"&{kind}={model.player_id(step)}:{step.player[kind]}")


def test_a_link_names_a_shipped_lesson_one_of_yours_or_carries_one():
    shipped_one = load_shipped(shipped()[0])
    assert model.resolve(shipped()[0], "", None) == (shipped_one, shipped()[0])
    own = {"Mine": shipped_one.to_dict()}
    assert model.resolve("own:Mine", None, own) == (shipped_one, "own:Mine")
    assert model.resolve(None, f"#l={shipped_one.to_fragment()}", None) == (shipped_one, "link")
    for name, hash_, data in [("../../etc/passwd", "", None), ("own:Other", "", own), (None, "#l=%%%", None)]:
        with pytest.raises(VizcollError):
            model.resolve(name, hash_, data)


def test_a_damaged_or_forged_store_keeps_only_valid_lessons():
    good = load_shipped(shipped()[0]).to_dict()
    forged = {**good, "steps": [{**good["steps"][0], "page": "/etc/passwd"}]}
    data = {"good": good, "forged": forged, "x" * 200: good, "odd": 7}
    assert list(model.own_lessons(data)) == ["good"]
    assert model.own_lessons("not a dict") == {} and model.own_lessons(None) == {}


def test_adding_a_view_appends_a_step_to_my_lesson_with_its_player():
    scenario = DEFAULT_SCENARIO.with_params("barrier", {"algo": "dlct"})
    player = model.linked_player("/barrier", "#s=abc&step=bar-player:12")
    assert player == {"name": "barrier", "step": 12}
    assert model.linked_player("/barrier", "#s=abc&step=bar-player:1e9") is None
    own, said = model.added_view(None, "/barrier", scenario, player)
    own, said = model.added_view(own, "/erasure", DEFAULT_SCENARIO, None)
    mine = Lesson.from_dict(own[model.MY_LESSON])
    assert said == "Added as step 2 of 'My lesson' (see Lessons)."
    assert [(s.page, s.player) for s in mine.steps] == [("/barrier", player), ("/erasure", None)]
    assert mine.steps[0].scenario == scenario
    with pytest.raises(VizcollError, match="a lesson shows the app's pages"):
        model.added_view(own, "/lessons", DEFAULT_SCENARIO, None)
    full = {model.MY_LESSON: {**own[model.MY_LESSON], "steps": own[model.MY_LESSON]["steps"][:1] * MAX_STEPS}}
    with pytest.raises(VizcollError, match=f"has {MAX_STEPS} steps"):
        model.added_view(full, "/erasure", DEFAULT_SCENARIO, None)


@pytest.mark.parametrize("name", shipped())
def test_the_presenter_and_the_notes_draw_every_shipped_lesson(components, name):
    one = load_shipped(name)
    drawn = html.Div(present.draw({"lesson": name, "step": "2"}, None))
    data = json.loads(getattr(find_component(drawn, present.DATA), "data-lesson"))
    assert data["index"] == 1 and len(data["hrefs"]) == len(one.steps) == len(data["players"])
    assert {present.STEP, present.NARRATION, present.VIEW, present.PREV, present.NEXT} <= ids_of(drawn)
    assert ids_of(html.Div(notes.draw({"lesson": name}, None))) >= {notes.NOTES}


@pytest.mark.parametrize("name", shipped())
def test_every_step_of_a_shipped_lesson_draws_its_page_on_its_scenario(components, name):
    """What the presenter's frame shows for each step (the browser walks two lessons, tests/browser/test_lessons.py):
    the step's page drawn on its scenario, its first views too (a failure there would put a ⚠ line in the shell)."""
    modules = {entry["path"]: entry["module"] for entry in dash.page_registry.values()}
    for number, step in enumerate(load_shipped(name).steps, 1):
        module = importlib.import_module(modules[step.page])
        drawn, props = with_props(module.body, step.scenario) if hasattr(module, "body") else (module.layout(), {})
        assert isinstance(drawn, html.Div) and ids_of(drawn), (name, number)
        assert MESSAGE not in props, (name, number, props.get(MESSAGE))


def test_a_link_to_no_lesson_says_so(components):
    drawn = present.draw({"lesson": "nothing"}, None)
    assert "⚠ This lesson cannot be opened: no lesson 'nothing'" in str(drawn.children)
    assert present.start_index("x", 5) == 0 and present.start_index("99", 5) == 4 and present.start_index(-3, 5) == 0


def test_the_lessons_page_edits_moves_and_deletes_steps(components):
    own, _ = model.added_view(None, "/barrier", DEFAULT_SCENARIO, None)
    own, _ = model.added_view(own, "/erasure", DEFAULT_SCENARIO, None)
    saved = _edit(page.SAVE, ["First.", "Second."], ["n1", "n2"], own)
    assert saved["message"] == "Saved."
    assert [s["narration"] for s in saved["lessons"][model.MY_LESSON]["steps"]] == ["First.", "Second."]
    moved = _edit({"type": page.MOVE, "k": 1, "to": 0}, [], [], saved["lessons"])
    assert [s["page"] for s in moved["lessons"][model.MY_LESSON]["steps"]] == ["/erasure", "/barrier"]
    assert moved["message"] == ""
    changed = _edit(page.SAVE, ["only one"], ["n"], own)
    assert set(changed) == {"message"} and changed["message"].startswith("⚠ The lesson changed meanwhile")
    emptied = _edit(
        {"type": page.MOVE, "k": 0, "to": -1},
        [],
        [],
        _edit({"type": page.MOVE, "k": 0, "to": -1}, [], [], own)["lessons"],
    )
    assert emptied == {"lessons": {}, "message": f"{model.MY_LESSON!r} is empty: deleted."}


def _edit(pressed, narrations, notes_, own) -> dict:
    prop = (json.dumps(pressed, separators=(",", ":")) if isinstance(pressed, dict) else pressed) + ".n_clicks"
    values = {"moves": [1], "save": 1, "narrations": narrations, "notes": notes_, "choice": model.MY_LESSON}
    return in_callback(page.edit, prop, **values, own=own, trigger_value=1)


def test_your_lessons_are_listed_and_a_lesson_file_joins_them(components):
    listed = page.render(None)
    assert listed["choices"] == [] and "None yet." in str(listed["list"])
    lesson = load_shipped(shipped()[0])
    contents = "data:application/json;base64," + base64.b64encode(lesson.dumps().encode()).decode()
    opened = page.upload(contents, None)
    assert opened["upload"] is None and opened["message"].startswith(f"Opened {lesson.title[:60]!r}")
    again = page.upload(contents, opened["lessons"])
    assert list(again["lessons"]) == [lesson.title[:60], f"{lesson.title[:56]} (2)"]  # a title taken: numbered
    assert page.render(again["lessons"])["choices"][1] == {
        "label": f"{lesson.title[:56]} (2)",
        "value": f"{lesson.title[:56]} (2)",
    }
    bad = page.upload("data:application/json;base64,e29vcHN9", None)
    assert set(bad) == {"message", "upload"} and bad["message"].startswith("⚠ The lesson file could not be opened")
    assert page.upload(None, None) == {"upload": None}


def test_a_lesson_is_downloaded_or_deleted_by_its_buttons(components):
    own, _ = model.added_view(None, "/barrier", DEFAULT_SCENARIO, None)
    button = lambda kind: json.dumps({"name": model.MY_LESSON, "type": kind}, separators=(",", ":")) + ".n_clicks"  # noqa: E731
    got = in_callback(page.delete_or_download, button(page.GET), deletes=[0], gets=[1], own=own, trigger_value=1)
    assert set(got) == {"download"} and Lesson.loads(got["download"]["content"]).title == model.MY_LESSON
    gone = in_callback(page.delete_or_download, button(page.DELETE), deletes=[1], gets=[0], own=own, trigger_value=1)
    assert gone == {"lessons": {}}
    drawn_anew = in_callback(
        page.delete_or_download, button(page.DELETE), deletes=[0], gets=[0], own=own, trigger_value=0
    )
    assert drawn_anew == {}


def test_adding_a_view_from_the_shell_says_what_it_added():
    request = {"path": "/barrier", "hash": "#s=abc&step=bar-player:12", "clicks": 1}
    added = page.add_view(request, DEFAULT_SCENARIO, None)
    assert added["message"] == "Added as step 1 of 'My lesson' (see Lessons)."
    assert Lesson.from_dict(added["lessons"][model.MY_LESSON]).steps[0].player == {"name": "barrier", "step": 12}
    refused = page.add_view({"path": "/lessons"}, DEFAULT_SCENARIO, None)
    assert set(refused) == {"message"} and refused["message"].startswith("⚠ Not added")
    assert page.add_view("forged", DEFAULT_SCENARIO, None) == {}


def test_what_the_browser_sends_the_lessons_page_is_checked():
    own, _ = model.added_view(None, "/barrier", DEFAULT_SCENARIO, None)
    saving = {"moves": [0, 0, 0], "save": 1, "narrations": ["a"], "notes": ["b"], "choice": model.MY_LESSON}
    probe(page.edit, f"{page.SAVE}.n_clicks", saving | {"own": own})
    button = json.dumps({"name": model.MY_LESSON, "type": page.GET}, separators=(",", ":")) + ".n_clicks"
    probe(page.delete_or_download, button, {"deletes": [0], "gets": [1], "own": own})
    contents = "data:application/json;base64," + base64.b64encode(load_shipped(shipped()[0]).dumps().encode()).decode()
    files = [value for value in HOSTILE if value is not None]  # None: the box emptied, which it answers
    probe(page.upload, "lessons-upload.contents", {"contents": contents, "own": None}, hostile=files)
    app = Wiring()
    page.register(app)
    request = {"path": "/barrier", "hash": "#s=x", "clicks": 1}
    valid = {"request": request, "scenario": DEFAULT_SCENARIO.to_dict(thin=True), "own": None}
    probe(app.named["add_view"][0], "lesson-add-request.data", valid)
    damaged = in_callback(app.named["add_view"][0], "lesson-add-request.data", **valid | {"scenario": {"spec": 5}})
    assert damaged["lessons"] is no_update and damaged["message"].startswith("⚠")
