"""The schedules page's callbacks, called directly (no browser): open a GOAL file, its problems, timing and replay."""

from __future__ import annotations

import base64
import inspect

import pytest
from dash import Dash, no_update
from flask import Flask

from tests import table_text
from tests.callback_context import find_component, in_callback
from tests.probe import HOSTILE, no_progress, probe
from vizcoll.errors import VizcollError
from vizcoll.scenario import WORLD, Scenario
from vizcoll.schedule import LogGP, barrier, dumps, parse, simulate, static_reduction
from vizcoll.schedule.replay import messages
from vizcoll.topology.hops import min_hops
from vizcoll.ui import cache as cache_module
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.player import player_timeline
from vizcoll.ui.models.parts import OVERVIEW, view_of
from vizcoll.ui.pages.schedules import _model as model
from vizcoll.ui.pages.schedules import page
from vizcoll.ui.pages.schedules._figures import HANDLING, HOST, SENDING
from vizcoll.ui.store import DEFAULT_SCENARIO, topology_of
from vizcoll.uploads import content_ref

UPLOAD, EXAMPLE, LATENCY = f"{page.SCHED_UPLOAD}.contents", f"{page.SCHED_EXAMPLE}.n_clicks", "sched-latency.value"
GOOD = dumps(barrier("dissemination", 16), comment="written by a test")
BAD = """num_ranks 3
rank 0 {
l0: send 8b to 1 tag 0 // a comment after an operation
 l1: send 8b to 5 tag 0
l2 requires l9
}
rank 2 {
l0: recv 8b from 0 tag 0
}
"""


def named(function, outputs, inputs, progress: bool = False):
    """``function`` as the page registers it (:func:`by_name`: keyword inputs in, every output by name out), after
    checking that it takes each of ``inputs`` by its name (and Dash's ``set_progress`` first, for a ``progress``
    job)."""
    first = (no_progress,) if progress else ()
    inspect.signature(function).bind(*first, **dict.fromkeys(inputs))
    return by_name(Dash(__name__), outputs, inputs, prevent_initial_call=True)(function)


LOAD = named(page.load_goal, page.LOADED, page.LOADING)
UPDATE = named(page.update, page.PARAMS, page.PARAM_INPUTS)
ANALYSE = named(page.analyse, page.VIEWS, page.VIEW_INPUTS)
COMPUTE = named(page.compute_views, page.JOB_VIEWS, page.JOB_INPUTS, progress=True)
LATER = named(page.replay_later, page.LATER_VIEWS, page.LATER_INPUTS)
CANCEL = named(page.cancelled, page.CANCELLED, page.CANCELLING)


def data_url(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


def upload(text: str | bytes, name: str = "b.goal", scenario: Scenario = DEFAULT_SCENARIO) -> dict:
    """The load callback as Dash calls it after a file was chosen: the page's store of the file ("goal"), the
    upload box ("upload") and the message."""
    return in_callback(LOAD, UPLOAD, contents=data_url(text), example=0, filename=name, scenario=scenario.to_dict())


def analyse(store, scenario: Scenario = DEFAULT_SCENARIO, drawn=None) -> dict:
    return ANALYSE(goal=store, scenario=scenario.to_dict(), drawn=drawn)


def text_of(component) -> str:
    return repr(component)


def problem_rows(view) -> list[tuple[str, str, str]]:
    return [tuple(r) for r in table_text.rows(view.children[1])]


# ------------------------------------------------------------------ opening a file
def test_a_good_file_has_no_problem_and_its_timing_equals_simulate():
    loaded = upload(GOOD)
    assert loaded["message"] == "" and loaded["upload"] is None  # emptied: the same file can be opened again
    store = loaded["goal"]
    assert store == {"name": "b.goal", "text": GOOD}
    view = analyse(store)
    assert view["file"] == "b.goal: 16 ranks, 128 operations, 64 messages."
    assert "No problem" in text_of(view["problems"])
    expected = simulate(parse(GOOD).schedule, LogGP(**model.DEFAULTS))
    assert f"B(children='{expected.makespan:,}', id='sched-makespan')" in text_of(view["timing"])
    bars = view["chart"].data[0]
    assert list(bars.y) == expected.finish and list(bars.x) == list(range(16))
    assert bars.marker.color[expected.host] == HOST
    tl = player_timeline(view["timeline"])
    assert tl.summary["makespan"] == expected.makespan and tl.summary["messages"] == 64
    assert view["elements"] and view["flag_class"] == "flag"
    assert find_component(page.body(DEFAULT_SCENARIO), page.SCHED_CANVAS).style == page.CANVAS_STYLE


def test_the_timing_follows_the_pages_loggp_parameters():
    store = upload(GOOD)["goal"]
    params = {"L": 1000, "o": 100, "g": 0, "G": 0, "O": 0, "S": 65535}
    s = DEFAULT_SCENARIO.with_params("schedules", params)
    view = analyse(store, s)
    assert "4,800" in text_of(view["timing"])  # the spec's worked example: 4 rounds of L + 2o
    assert "L=1000, o=100, g=0, G=0, O=0, S=65535" in text_of(view["timing"])
    assert player_timeline(view["timeline"]).summary["makespan"] == 4800


def test_a_bad_file_lists_its_problems_with_their_lines_and_is_not_timed():
    loaded = upload(BAD, "bad.goal")
    assert loaded["message"] == ""
    store = loaded["goal"]
    view = analyse(store)
    rows = problem_rows(view["problems"])
    lines = {line for line, _, _ in rows}
    assert {"3", "4", "5", "7", "—"} <= lines
    by_line = {line: text for line, _, text in rows}
    assert "a comment (//) after a statement" in by_line["3"]
    assert "white space at the start of the line" in by_line["4"]
    assert "which is not defined on an earlier line" in by_line["5"]
    assert "rank 2 comes where rank 1 should" in by_line["7"]
    assert view["timeline"] is None and view["elements"]  # the fabric stays drawn, without a replay
    assert "errors" in text_of(view["timing"])
    # an error only the checker finds (a send nobody receives, a deadlock) is listed too
    s = static_reduction("binomial", 4, 8)
    s.send(3, 0, 8, tag=99)
    view = analyse(upload(dumps(s))["goal"])
    assert "sends a message nobody receives (to 0, tag 99)" in table_text.shown(view["problems"])


def test_unusable_uploads_and_forged_stores_give_a_message():
    loaded = upload(b"\xff\xfe not text")
    assert loaded["goal"] is no_update and loaded["message"].startswith("⚠ the file is not UTF-8 text")
    assert loaded["upload"] is None  # emptied: the same file can be chosen again once mended
    loaded = upload("x" * (model.MAX_GOAL_BYTES + 1))
    assert loaded["goal"] is no_update and "up to 2 MB" in loaded["message"]
    loaded = in_callback(LOAD, UPLOAD, contents="not a data url", example=0, filename="x", scenario=None)
    assert loaded["goal"] is no_update and loaded["message"].startswith("⚠")
    for forged in ("/etc/passwd", {"text": 3}, {"name": "x"}, ["a"], {"text": "x" * (model.MAX_GOAL_BYTES + 1)}):
        view = analyse(forged)
        assert view["timeline"] is None and "⚠" in text_of(view["timing"]), forged
    view = analyse({"text": "num_ranks 1000000\n"})
    assert "the page reads schedules of up to 65,536 ranks" in table_text.shown(view["problems"])
    view = ANALYSE(goal={"name": "b.goal", "text": GOOD}, scenario={"schema": "nope"}, drawn=None)
    assert "The scenario could not be read" in text_of(view["timing"]) and view["timeline"] is None
    assert view["elements"] == [] and view["overview"] is no_update  # no fabric to draw


def test_the_example_is_a_dissemination_barrier_on_the_scenarios_processes():
    loaded = in_callback(LOAD, EXAMPLE, contents=None, example=1, filename=None, scenario=DEFAULT_SCENARIO.to_dict())
    store = loaded["goal"]
    assert loaded["message"] == "" and store["name"] == "example: dissemination barrier, 16 ranks"
    assert parse(store["text"]).schedule.ops == barrier("dissemination", 16).ops
    assert loaded["upload"] is no_update
    refused = in_callback(LOAD, EXAMPLE, contents=None, example=1, filename=None, scenario={"schema": "nope"})
    assert refused["goal"] is no_update and refused["message"].startswith("⚠ The scenario could not be read")


# ------------------------------------------------------------------ parameters: checked on the server
def test_loggp_parameters_are_checked_and_written_to_the_scenario():
    values = dict(model.DEFAULTS, L=1000)
    written = in_callback(UPDATE, LATENCY, values=values, scenario=DEFAULT_SCENARIO.to_dict())
    store = written["scenario"]
    assert written["message"] == "" and Scenario.from_dict(store).params["schedules"] == values
    assert Scenario.from_dict(store).params["topology"] == DEFAULT_SCENARIO.params["topology"]
    hostile = (
        (-1, "between 0 and 1000000000"),
        (10**12, "between 0 and"),
        ("abc", "must be an integer"),
        (None, "enter a whole"),
        (1.5, "must be an integer"),
        (True, "enter a whole"),
        ([1], "must be an integer"),
    )
    for bad, words in hostile:
        written = in_callback(UPDATE, LATENCY, values=dict(values, L=bad), scenario=DEFAULT_SCENARIO.to_dict())
        message = written["message"]
        assert written["scenario"] is no_update and message.startswith("⚠ L (latency)") and words in message, bad
    # the page appearing (every control at once) writes nothing
    appeared = in_callback(UPDATE, [LATENCY, "sched-gap.value"], values=values, scenario=DEFAULT_SCENARIO.to_dict())
    assert all(value is no_update for value in appeared.values())


def test_forged_stored_parameters_give_a_message_and_the_controls_show_the_defaults():
    forged = DEFAULT_SCENARIO.with_params("schedules", {"L": "lots", "o": -5})
    view = analyse({"name": "b.goal", "text": GOOD}, forged)
    assert view["timeline"] is None and "⚠ L (latency) must be an integer" in text_of(view["timing"])
    assert model.shown_params(forged) == model.DEFAULTS
    body = page.body(forged)
    assert find_component(body, "sched-latency").value == 2500 and find_component(body, "sched-overhead").value == 1500


# ------------------------------------------------------------------ the replay
def test_more_ranks_than_processes_shows_the_timing_without_the_drawing():
    view = analyse(upload(dumps(barrier("dissemination", 20)))["goal"])
    assert view["timeline"] is None
    assert view["flag"].startswith("⚠ The schedule has 20 ranks but the scenario has 16 processes")
    assert view["chart"].data and "Makespan" in text_of(view["timing"])


def test_a_large_fabric_plays_the_replay_on_its_overview_each_message_hop_counted_once():
    """Above 1,500 nodes the replay plays on the overview: the frames light, step by step, the bundles the messages
    cross; over the whole replay they count every hop of every message's min-hop route, computed here apart from
    the replay (the min-hop table between the nodes the scenario places the ranks on)."""
    big = Scenario(spec="fat-tree:radix=20,levels=3")
    topo = topology_of(big)
    assert topo.n_nodes > 1500
    text = dumps(static_reduction("binomial", 64, 8))
    store = upload(text)["goal"]
    view = analyse(store, big)
    assert view["timeline"] is None and view["flag"] == "Replaying it on the fabric's overview…"  # after the view:
    assert view["overview"] is no_update and view["overview_style"] == page.OVERVIEW_STYLE  # drawn with it
    later = LATER(order=view["later"], goal=store, scenario=big.to_dict(), drawn=None)
    assert set(later) == {"timeline", "flag", "flag_class", "overview", "drawn"}
    view |= later
    handle = view["timeline"]
    stale = LATER(order={"file": "another"}, goal=store, scenario=big.to_dict(), drawn=None)
    assert all(value is no_update for value in stale.values())  # a stale order changes nothing
    frames = handle["overview"]
    tl = player_timeline(handle)
    assert frames["steps"] == tl.n_steps == handle["steps"] and len(frames["messages"]) == tl.n_steps + 1
    nodes = big.placement(topo, WORLD).node[:64]
    sent = [
        (m["src"], m["dst"]) for m in messages(simulate(parse(text).schedule, LogGP(**model.DEFAULTS), trace=True), 64)
    ]
    hops = min_hops(topo).hops(nodes[[a for a, _ in sent]], nodes[[b for _, b in sent]])
    assert len(sent) == 63 and hops.min() >= 2 and sum(map(sum, frames["messages"])) == int(hops.sum())
    assert frames["n_blocks"] == len(view_of(big, OVERVIEW).overview) and any(frames["blocks"][1:])
    # the overview figure has the two layers the browser lights, the canvas and its legend are hidden
    layers = {trace.meta for trace in view["overview"].data}
    assert {"overview-messages", "overview-nodes"} <= layers
    assert view["elements"] == [] and view["overview_style"] == page.OVERVIEW_STYLE
    assert view["canvas_style"] == view["legend_style"] == page.HIDDEN
    assert "plays on the fabric's overview" in view["flag"] and view["flag_class"] == "flag"
    assert page.render_step(3, handle, big.to_dict()) is no_update  # the browser draws the overview's steps
    body = page.body(big)
    assert find_component(body, page.SCHED_CANVAS).style == page.HIDDEN
    assert find_component(body, page.SCHED_OVERVIEW).style == page.OVERVIEW_STYLE
    assert "Makespan" in text_of(view["timing"])
    # the overview is sent again only when the browser shows another fabric
    again = analyse(store, big, view["drawn"])
    assert again["overview"] is no_update and again["drawn"] == view["drawn"]
    again = LATER(order=view["later"], goal=store, scenario=big.to_dict(), drawn=view["drawn"])
    assert again["overview"] is no_update and again["drawn"] == view["drawn"] and again["timeline"] == handle
    other = big.toggled(topo.link_label(0))
    moved = analyse(store, other, view["drawn"])
    assert moved["overview"] is no_update and moved["drawn"] is no_update  # both come with the replay
    moved = LATER(order=moved["later"], goal=store, scenario=other.to_dict(), drawn=view["drawn"])
    assert moved["drawn"] != view["drawn"] and moved["overview"].data


def test_a_small_fabric_is_drawn_node_by_node_and_sends_no_overview():
    view = analyse(upload(GOOD)["goal"])
    assert "overview" not in view["timeline"] and view["elements"]
    assert view["overview"] is no_update and view["drawn"] is None
    assert view["canvas_style"] == page.CANVAS_STYLE and view["overview_style"] == page.HIDDEN
    assert view["legend_style"] == {}
    assert find_component(page.body(DEFAULT_SCENARIO), page.SCHED_OVERVIEW).style == page.HIDDEN


def test_the_exports_still_refuse_a_large_fabric_node_by_node_and_the_page_caps_its_messages(monkeypatch):
    big = Scenario(spec="fat-tree:radix=20,levels=3")
    store = upload(GOOD)["goal"]
    with pytest.raises(VizcollError, match="drawn node by node on fabrics up to 1,500 nodes"):
        model.replay_of(big, store)
    assert player_timeline(model.replay_of(big, store, any_size=True)[1]).summary["messages"] == 64
    monkeypatch.setattr(model, "MAX_OVERVIEW_MESSAGES", 63)
    view = analyse(store, big)
    assert view["timeline"] is None and "drawn on the fabric's overview for up to 63" in view["flag"]


def test_a_step_draws_the_messages_leaving_on_their_routes_and_the_ranks_handling_them():
    view = analyse(upload(GOOD)["goal"])
    tl = player_timeline(view["timeline"])
    sheet = page.render_step(1, view["timeline"], DEFAULT_SCENARIO.to_dict())  # step 0: 16 messages leave
    links = {lid for e in tl.active_at(0) for lid in e.path_links}
    orange = next(rule for rule in sheet if rule["style"].get("line-color") == SENDING)
    assert set(orange["selector"].split(", ")) == {f"edge[link = {lid}]" for lid in links}
    labels = {
        rule["selector"]: rule["style"]["label"]
        for rule in sheet
        if "label" in rule["style"] and rule["selector"].startswith("#n")
    }
    topo = topology_of(DEFAULT_SCENARIO)
    assert labels[f"#n{topo.index('h3')}"] == "r3"
    sheet = page.render_step(2, view["timeline"], DEFAULT_SCENARIO.to_dict())  # step 1: they are handled
    purple = next(rule for rule in sheet if rule["style"].get("border-color") == HANDLING)
    assert len(purple["selector"].split(", ")) == 16
    assert all(rule["style"].get("line-color") != SENDING for rule in sheet)
    for forged in ({"schema": "x"}, {"schema": "vizcoll.timeline/1", "entities": {"r0": {"node": "a"}}}, 5):
        assert page.render_step(1, forged, DEFAULT_SCENARIO.to_dict()) == page.base_stylesheet()
    assert page.render_step({"a": 1}, view["timeline"], DEFAULT_SCENARIO.to_dict()) == page.base_stylesheet()


@pytest.mark.parametrize("ppn", [2])
def test_ranks_sharing_a_node_are_named_together(ppn):
    s = Scenario(spec="fat-tree:radix=4,levels=2", ppn=ppn)
    view = analyse(upload(dumps(barrier("dissemination", 4)))["goal"], s)
    sheet = page.render_step(0, view["timeline"], s.to_dict())
    labels = [rule["style"]["label"] for rule in sheet if "label" in rule["style"] and rule["selector"] != "node"]
    assert labels == ["r0, r1", "r2, r3"]


# ---------------------------------------------------------------- large files: a background job
def test_a_large_file_waits_for_the_job_then_draws_in_the_request(monkeypatch):
    monkeypatch.setattr(model, "JOB_BYTES", 100)  # every file counts as large
    server = Flask(__name__)
    cache_module.cache.init_app(server, config={"CACHE_TYPE": "SimpleCache"})
    data = DEFAULT_SCENARIO.to_dict()
    goal = model.example_goal(DEFAULT_SCENARIO)
    with server.app_context():
        order = page.dispatch(goal, data)
        assert order == {"run": 1} and page.dispatch(goal, data, order) == {"run": 2}
        waiting = ANALYSE(goal=goal, scenario=data, drawn=None)
        assert "in the background" in waiting["file"] and waiting["timeline"] is None
        seen = []
        views = COMPUTE(seen.append, job=order, goal=goal, scenario=data, drawn=None)
        assert [text for *_, text in seen] == [
            "checking and timing 0.0 MB of GOAL (1 of 2)",
            "replaying it on the fabric (2 of 2)",
        ]
        assert "Makespan" in str(views["timing"]) and player_timeline(views["timeline"]).n_steps > 0
        assert page.dispatch(goal, data, order) is None  # analysed: drawn in the request, no job
        assert str(ANALYSE(goal=goal, scenario=data, drawn=None)) == str(views)
        forged = COMPUTE(seen.append, job="forged", goal=goal, scenario=data, drawn=None)
        assert all(value is no_update for value in forged.values())
    cancelled = CANCEL(clicks=1)
    note, chart = cancelled["problems"], cancelled["chart"]
    assert set(cancelled) == {"problems", "chart"} and note.children.startswith("⚠ Cancelled")
    assert chart.layout.annotations[0].text == "Cancelled: not timed."


# ---------------------------------------------------------------- forged requests
def test_every_callback_refuses_what_a_forged_request_sends():
    """Each input of each callback replaced by every hostile value: a ⚠ message or no change, never an exception."""
    data, store = DEFAULT_SCENARIO.to_dict(), {"name": "b.goal", "text": GOOD}
    load = {"contents": data_url(GOOD), "example": 0, "scenario": data}

    def load_goal(**inputs):  # the file's name is any text (a name that is not: "upload"), not probed
        return LOAD(filename="b.goal", **inputs)

    probe(load_goal, UPLOAD, load)
    probe(load_goal, EXAMPLE, load | {"contents": None, "example": 1})
    for name in (None, 5, ["x"], {"a": 1}, "x" * 5000):
        named = in_callback(LOAD, UPLOAD, filename=name, **load)["goal"]
        assert named["text"] == GOOD and named["name"] in ("upload", "x" * 200), name
    probe(UPDATE, LATENCY, {"values": dict(model.DEFAULTS, L=1000), "scenario": data})

    def analyse_file(scenario, drawn):  # the opened file's views; its store apart (None is no file yet: a view)
        return ANALYSE(goal=store, scenario=scenario, drawn=drawn)

    def analyse_goal(goal):
        return ANALYSE(goal=goal, scenario=data, drawn=None)

    probe(analyse_file, "scenario.data", {"scenario": data, "drawn": None})

    probe(analyse_goal, f"{page.SCHED_GOAL}.data", {"goal": store}, hostile=[v for v in HOSTILE if v is not None])
    source = content_ref(model.replay_key(DEFAULT_SCENARIO))
    order = {"file": content_ref(GOOD), "params": model.DEFAULTS, "source": source}
    assert LATER(order=order, goal=store, scenario=data, drawn=None)["timeline"]  # the order is valid
    probe(LATER, f"{page.SCHED_LATER}.data", {"order": order, "goal": store, "scenario": data, "drawn": None})
    job = {"job": {"run": 1}, "goal": store, "scenario": data, "drawn": None}
    probe(COMPUTE, f"{page.SCHED_HEAVY}.data", job, progress=True)
