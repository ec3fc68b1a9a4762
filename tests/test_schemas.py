"""The JSON schemas of the docs (``docs/reference/schemas/``, draft 2020-12) against what vizcoll writes and reads:
every shipped lesson, scenarios and timelines made by the code, and broken documents that both the schema and the
code refuse (so that the schemas say something). Small fabrics only: the whole file runs in a few seconds."""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from vizcoll import lessons
from vizcoll.errors import VizcollError
from vizcoll.lessons import Lesson, LessonStep
from vizcoll.multicast.mcfdbs import dump_mcfdbs
from vizcoll.multicast.routing import route
from vizcoll.reduction import ReductionRun
from vizcoll.reduction.task import simulate_task_reduction
from vizcoll.scenario import Scenario
from vizcoll.sim.broadcast import broadcast
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.io import read
from vizcoll.ui.store import DEFAULT_SCENARIO

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "reference" / "schemas"
NAMES = ("scenario", "timeline", "lesson")


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


# the schemas name each other by file name ("$ref": "scenario.schema.json"), as they lie side by side
REGISTRY = Registry().with_resources((_schema(n)["$id"], DRAFT202012.create_resource(_schema(n))) for n in NAMES)
VALIDATORS = {name: Draft202012Validator(_schema(name), registry=REGISTRY) for name in NAMES}


def errors(name: str, instance) -> list[str]:
    """What the schema ``name`` finds wrong with ``instance`` (nothing: it is valid)."""
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATORS[name].iter_errors(instance)]


def valid(name: str, instance) -> None:
    assert errors(name, instance) == []


@pytest.mark.parametrize("name", NAMES)
def test_each_schema_is_a_valid_draft_2020_12_schema_with_its_file_name_as_id(name):
    Draft202012Validator.check_schema(_schema(name))
    assert _schema(name)["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert _schema(name)["$id"] == f"{name}.schema.json"


# ---------------------------------------------------------------- scenarios
def edited_scenario() -> Scenario:
    """A scenario with every kind of edit, a break, communicators drawn by hand, page parameters and tables."""
    s = DEFAULT_SCENARIO
    for edit in (
        {"op": "add_node", "name": "probe", "kind": "endpoint"},
        {"op": "add_link", "a": "probe", "b": "edge0.0"},
        {"op": "add_node", "name": "spare"},
        {"op": "add_link", "a": "spare", "b": "core0", "pa": 1, "pb": None},
        {"op": "rename", "name": "spare", "new": "spare-switch"},
        {"op": "remove_link", "link": "edge1.0[3]-agg1.0[1]"},
        {"op": "remove_node", "name": "h15"},
    ):
        s = s.with_edit(edit)
    topo = s.fabric()
    s = s.toggled("edge2.0[3]-agg2.0[1]").with_member(topo, "probe", 0)
    s = s.with_params("trees", {"kind": "kary", "k": 4, "part": None, "speed": 1.5, "intact": False})
    routed = route(topo, [[topo.index("h0"), topo.index("probe")]], "minhop")
    return replace(s, mcast_tables=dump_mcfdbs(topo, routed))


def uploaded_scenario() -> Scenario:
    topo = read(ROOT / "tests" / "data" / "cluster" / "stanzas.txt")
    return Scenario.from_upload(topo, "stanzas.txt").with_params("topology", {"root": topo.names[-1]})


def test_the_default_scenario_the_app_opens_on_is_valid():
    valid("scenario", DEFAULT_SCENARIO.to_dict())
    assert DEFAULT_SCENARIO.to_dict()["broken"] == ["edge0.0[4]-agg0.1[1]"]


def test_a_scenario_with_edits_breaks_communicators_params_and_tables_is_valid():
    data = edited_scenario().to_dict()
    assert len(data["edits"]) == 7 and len(data["broken"]) == 2 and data["communicators"]["lists"]
    assert data["params"]["trees"]["k"] == 4 and "0xC001 :" in data["multicast_tables"]
    valid("scenario", data)


def test_an_uploaded_fabric_is_valid_whole_in_a_file_and_by_its_ref_in_the_store():
    scenario = uploaded_scenario()
    whole, thin = scenario.to_dict(), scenario.to_dict(thin=True)
    uploaded = whole["fabric"]["uploaded"]
    assert uploaded["schema"] == "vizcoll.topology/1" and "guid" in uploaded["nodes"] and uploaded["port_guids"]
    assert thin["fabric"]["uploaded"] is None and thin["fabric"]["ref"].startswith("sha256:")
    valid("scenario", whole)
    valid("scenario", thin)


@pytest.mark.parametrize("make", [lambda: DEFAULT_SCENARIO, edited_scenario, uploaded_scenario])
def test_a_scenario_read_back_from_its_file_is_the_same_and_valid(make):
    scenario = make()
    again = Scenario.loads(scenario.dumps())
    assert again.to_dict() == scenario.to_dict()
    valid("scenario", json.loads(again.dumps()))


def _broken_scenarios():
    base = DEFAULT_SCENARIO.to_dict()
    cases = {
        "a break that is not a string": lambda d: d.update(broken=[3]),
        "a break that names no link": lambda d: d.update(broken=["edge0.0-agg0.1"]),
        "no fabric": lambda d: d.pop("fabric"),
        "a fabric without spec or upload": lambda d: d.update(fabric={"spec": "", "uploaded": None, "name": ""}),
        "another schema": lambda d: d.update(schema="vizcoll.scenario/3"),
        "0 processes per node": lambda d: d["communicators"].update(ppn=0),
        "processes per node as text": lambda d: d["communicators"].update(ppn="4"),
        "communicators lists of numbers": lambda d: d["communicators"].update(lists=[[0, 1]]),
        "an edit of unknown op": lambda d: d.update(edits=[{"op": "explode", "name": "h0"}]),
        "an edit without its field": lambda d: d.update(edits=[{"op": "add_link", "a": "h0"}]),
        "a port 0": lambda d: d.update(edits=[{"op": "add_link", "a": "h0", "b": "edge0.0", "pa": 0}]),
        "a page parameter that is an object": lambda d: d["params"].update(trees={"k": {"value": 4}}),
        "65 parameters of one page": lambda d: d["params"].update(trees={f"p{i}": i for i in range(65)}),
        "empty multicast tables": lambda d: d.update(multicast_tables=" "),
    }
    for name, change in cases.items():
        data = copy.deepcopy(base)
        change(data)
        yield pytest.param(data, id=name)


@pytest.mark.parametrize("data", _broken_scenarios())
def test_a_broken_scenario_is_refused_by_the_schema_and_by_the_code(data):
    assert errors("scenario", data)
    with pytest.raises(VizcollError):
        Scenario.from_dict(data).topology()


# ---------------------------------------------------------------- timelines
@functools.cache
def timelines() -> dict[str, Timeline]:
    """Runs of the engine: a broadcast (events as columns) and a task-based reduction (events as objects)."""
    reduction, _ = simulate_task_reduction(ReductionRun(4, 1024, root=1, arrival=[0, 3, 1, 2], seed=0))
    return {"broadcast": broadcast(DEFAULT_SCENARIO.topology(), "h0"), "reduction": reduction}


def test_timelines_of_the_engine_are_valid_as_columns_and_as_events_and_read_back_the_same():
    made = {name: tl.to_dict() for name, tl in timelines().items()}
    assert "columns" in made["broadcast"] and "events" in made["reduction"]
    for data in made.values():
        valid("timeline", data)
        assert Timeline.from_dict(json.loads(json.dumps(data))).to_dict() == data
    valid("timeline", Timeline.from_dict(made["broadcast"]).to_dict(events=False))


def _broken_timelines():
    made = {name: tl.to_dict() for name, tl in timelines().items()}
    cases = {
        "an event without its kind": ("reduction", lambda d: d["events"][0].pop("kind")),
        "an event before time 0": ("reduction", lambda d: d["events"][0].update(t=-1)),
        "a state that is a boolean": ("reduction", lambda d: d["events"][0].update(state_changes={"w0": True})),
        "a node index below -1": ("reduction", lambda d: d["events"][0].update(src=-2)),
        "a legend that is not text": ("reduction", lambda d: d["legend"].update(ready=1)),
        "a time unit of 9 characters": ("reduction", lambda d: d.update(time_unit="fortnight")),
        "columns without their labels": ("broadcast", lambda d: d["columns"].pop("label")),
        "a column of texts for numbers": (
            "broadcast",
            lambda d: d["columns"].update(src=["h0"] * len(d["columns"]["t"])),
        ),
        "another schema": ("broadcast", lambda d: d.update(schema="vizcoll.timeline/2")),
    }
    for name, (which, change) in cases.items():
        data = copy.deepcopy(made[which])
        change(data)
        yield pytest.param(data, id=name)


@pytest.mark.parametrize("data", _broken_timelines())
def test_a_broken_timeline_is_refused_by_the_schema_and_by_the_code(data):
    assert errors("timeline", data)
    with pytest.raises(VizcollError):
        Timeline.from_dict(data)


# ---------------------------------------------------------------- lessons
@pytest.mark.parametrize("name", lessons.shipped())
def test_every_shipped_lesson_is_valid(name):
    text = resources.files(lessons).joinpath(f"{name}.json").read_text(encoding="utf-8")
    valid("lesson", json.loads(text))


def small_lesson() -> dict:
    step = LessonStep("/barrier", DEFAULT_SCENARIO, {"name": "barrier", "step": 3}, "# Look", "Say *this*.")
    return Lesson("A lesson", (step, replace(step, page="/erasure", player=None)), "Two views.").to_dict()


def test_a_lesson_made_by_the_code_is_valid_and_so_is_what_it_reads_back():
    data = small_lesson()
    valid("lesson", data)
    assert lessons.problems(data) == []
    valid("lesson", Lesson.from_dict(data).to_dict())


def _broken_lessons():
    cases = {
        "a step without its page": lambda d: d["steps"][0].pop("page"),
        "a step on an unknown page": lambda d: d["steps"][0].update(page="/lessons"),
        "a step with an unknown field": lambda d: d["steps"][0].update(narator="typo"),
        "a step without its scenario": lambda d: d["steps"][0].pop("scenario"),
        "a step whose scenario is broken": lambda d: d["steps"][0]["scenario"].update(broken=[1]),
        "a player of another page": lambda d: d["steps"][0].update(player={"name": "treft", "step": 3}),
        "a player on a page without one": lambda d: d["steps"][1].update(player={"name": "barrier", "step": 1}),
        "a player with step and moment": lambda d: d["steps"][0].update(
            player={"name": "barrier", "step": 1, "moment": 1}
        ),
        "a key moment 0": lambda d: d["steps"][0].update(player={"name": "barrier", "moment": 0}),
        "narration of 8,001 characters": lambda d: d["steps"][0].update(narration="x" * 8001),
        "notes that are not text": lambda d: d["steps"][0].update(notes=None),
        "a blank title": lambda d: d.update(title="  "),
        "no steps": lambda d: d.update(steps=[]),
    }
    for name, change in cases.items():
        data = small_lesson()
        change(data)
        yield pytest.param(data, id=name)


@pytest.mark.parametrize("data", _broken_lessons())
def test_a_broken_lesson_is_refused_by_the_schema_and_by_the_code(data):
    assert errors("lesson", data)
    assert lessons.problems(data)
