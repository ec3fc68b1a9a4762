"""Lesson files (vizcoll.lesson/1): every problem named, capped like scenario files, shipped lessons all valid,
``vizcoll lesson check`` refusing a forged lesson with exit 1."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from vizcoll.commands.lesson import check, timeline_of
from vizcoll.errors import VizcollError
from vizcoll.lessons import MAX_STEPS, MAX_TEXT_CHARS, PAGES, SCHEMA, Lesson, load_shipped, problems, shipped
from vizcoll.scenario import Scenario
from vizcoll.ui.export.names import player_pages, players

GRID = {"schema": "vizcoll.scenario/2", "fabric": {"spec": "mesh:4x4,neighbors=8,hosts=0"}}
TOPIC_NAMES = {"aggregation-trees", "multicast-efi", "barriers", "task-reduction", "treft", "erasure-repair"}


def lesson(*steps, title="A lesson") -> dict:
    return {"schema": SCHEMA, "title": title, "steps": list(steps)}


def step(page="/barrier", scenario=GRID, player=None, narration="Look.", notes="") -> dict:
    return {"page": page, "scenario": scenario, "player": player, "narration": narration, "notes": notes}


def test_a_valid_lesson_has_no_problem_and_comes_back_identical_from_a_file_and_a_link():
    data = lesson(step(player={"name": "barrier", "moment": 1}), step(page="/erasure", notes="Ask why."))
    assert problems(data) == []
    one = Lesson.from_dict(data)
    assert Lesson.loads(one.dumps()) == one
    assert Lesson.from_fragment(one.to_fragment()) == one
    assert [s.page for s in one.steps] == ["/barrier", "/erasure"] and one.steps[1].notes == "Ask why."


@pytest.mark.parametrize(
    "bad, said",
    [
        (step(page="/etc/passwd"), "step 1: unknown page '/etc/passwd'"),
        (step(page="../../etc/passwd"), "unknown page '../../etc/passwd'"),
        (step(narration="x" * (MAX_TEXT_CHARS + 1)), f"'narration' must be a text of at most {MAX_TEXT_CHARS:,}"),
        (step(notes=7), "'notes' must be a text"),
        (step(scenario={"schema": "vizcoll.scenario/2"}), "step 1: invalid scenario: a scenario needs"),
        (step(scenario={**GRID, "fabric": {"spec": "mesh:0x0"}}), "step 1: invalid scenario"),
        (step(player={"name": "treft", "step": 1}), "page /barrier has no player 'treft': its players are barrier"),
        (step(page="/erasure", player={"name": "x", "step": 1}), "page /erasure has no player 'x': it has no player"),
        (step(player={"name": "barrier", "step": -1}), "the player's step must be a whole number of at least 0"),
        (step(player={"name": "barrier", "moment": 0}), "the player's moment must be a whole number of at least 1"),
        (step(player={"name": "barrier"}), "'player' must be null"),
        ({**step(), "script": "alert(1)"}, "unknown field 'script'"),
    ],
)
def test_each_problem_is_named_with_its_step(bad, said):
    found = problems(lesson(bad))
    assert any(said in problem for problem in found), found
    with pytest.raises(VizcollError, match="not a valid lesson"):
        Lesson.from_dict(lesson(bad))


def test_the_lesson_itself_is_checked():
    assert problems([]) == ["a lesson is a JSON object"]
    assert problems({"schema": "vizcoll.scenario/2"}) == [f"the field 'schema' must be {SCHEMA!r}"]
    assert problems(lesson()) == [f"'steps' must be a list of 1 to {MAX_STEPS} steps"]
    assert problems(lesson(*[step()] * (MAX_STEPS + 1)))[-1] == f"'steps' must be a list of 1 to {MAX_STEPS} steps"
    assert problems(lesson(step(), title=" ")) == ["'title' must be a text of 1 to 200 characters"]
    with pytest.raises(VizcollError, match="not JSON"):
        Lesson.loads("{")
    with pytest.raises(VizcollError, match="does not decode"):
        Lesson.from_fragment("!!!")


def test_a_player_position_past_its_timeline_is_a_problem():
    steps, moments = timeline_of("/barrier", Lesson.from_dict(lesson(step())).steps[0].scenario, "barrier")
    assert steps > 0 and moments > 0
    fine = lesson(step(player={"name": "barrier", "step": steps}), step(player={"name": "barrier", "moment": moments}))
    assert problems(fine, timeline_of) == []
    past = lesson(step(player={"name": "barrier", "step": steps + 1}), step(player={"name": "barrier", "moment": 99}))
    assert problems(past, timeline_of) == [
        f"step 1: step {steps + 1} is past the barrier player's end (its last step is {steps})",
        f"step 2: key moment 99 is past the barrier player's {moments} key moments",
    ]


def test_a_step_s_player_is_one_the_page_declares():
    assert {f"/{page}" for page in player_pages()} <= set(PAGES)
    step = {
        "page": "/faults",
        "scenario": Scenario(spec="fat-tree:radix=4,levels=2").to_dict(),
        "narration": "",
        "notes": "",
    }
    for name in players("faults"):
        assert problems({"schema": SCHEMA, "title": "t", "steps": [step | {"player": {"name": name, "step": 0}}]}) == []
    found = problems({"schema": SCHEMA, "title": "t", "steps": [step | {"player": {"name": "spin", "step": 0}}]})
    assert found == ["step 1: page /faults has no player 'spin': its players are reduction, treft"]


def test_six_lessons_ship_named_by_topic_and_each_passes_the_check():
    assert set(shipped()) == TOPIC_NAMES
    for name in shipped():
        one = load_shipped(name)
        assert 6 <= len(one.steps) <= 12, name
        assert all(s.narration.strip() and s.notes.strip() for s in one.steps), name
        assert all(not s.scenario.uploaded_fabric() for s in one.steps), f"{name}: lessons run on generated fabrics"
        result = check(one.dumps())
        assert result == {"ok": True, "steps": len(one.steps), "problems": []}, (name, result)
    with pytest.raises(VizcollError, match="no shipped lesson"):
        load_shipped("../README")


def test_the_cli_refuses_a_forged_lesson_with_exit_1(tmp_path):
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(lesson(step(page="/etc/passwd", narration="x" * (MAX_TEXT_CHARS + 1)))))
    run = subprocess.run(
        [sys.executable, "-m", "vizcoll", "lesson", "check", str(forged)], capture_output=True, text=True
    )
    result = json.loads(run.stdout)
    assert run.returncode == 1 and result["ok"] is False and result["steps"] == 1
    assert any("unknown page '/etc/passwd'" in p for p in result["problems"])
    assert any("'narration' must be a text of at most" in p for p in result["problems"])
    good = tmp_path / "good.json"
    good.write_text(json.dumps(lesson(step())))
    run = subprocess.run(
        [sys.executable, "-m", "vizcoll", "lesson", "check", str(good)], capture_output=True, text=True
    )
    assert run.returncode == 0 and json.loads(run.stdout) == {"ok": True, "steps": 1, "problems": []}
