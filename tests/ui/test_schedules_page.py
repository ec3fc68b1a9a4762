"""The schedules page's callbacks, called directly (no browser): open a GOAL file, its problems, timing and replay."""

from __future__ import annotations

import base64

import pytest
from dash import no_update
from flask import Flask

from tests import table_text
from tests.callback_context import find_component, in_callback
from vizcoll.errors import VizcollError
from vizcoll.scenario import WORLD, Scenario
from vizcoll.schedule import LogGP, barrier, dumps, parse, simulate, static_reduction
from vizcoll.schedule.replay import messages
from vizcoll.topology.hops import min_hops
from vizcoll.ui import cache as cache_module
from vizcoll.ui.components.player import player_timeline
from vizcoll.ui.models.parts import OVERVIEW, view_of
from vizcoll.ui.pages.schedules import _model as model
from vizcoll.ui.pages.schedules import page
from vizcoll.ui.pages.schedules._figures import HANDLING, HOST, SENDING
from vizcoll.ui.store import DEFAULT_SCENARIO, topology_of

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


KEYS = (
    "file",
    "problems",
    "timing",
    "figure",
    "timeline",
    "elements",
    "flag",
    "flag_class",
    "overview",
    "drawn",
    "overview_style",
    "canvas_style",
    "legend_style",
    "later",
)  # page.VIEWS, in order


def data_url(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


def upload(text: str | bytes, name: str = "b.goal", scenario: Scenario = DEFAULT_SCENARIO):
    """The load callback as Dash calls it after a file was chosen: (store, upload contents, message)."""
    return in_callback(page.load_goal, UPLOAD, data_url(text), 0, name, scenario.to_dict())


def analyse(store, scenario: Scenario = DEFAULT_SCENARIO) -> dict:
    return dict(zip(KEYS, page.analyse(store, scenario.to_dict()), strict=True))


def text_of(component) -> str:
    return repr(component)


def problem_rows(view) -> list[tuple[str, str, str]]:
    return [tuple(r) for r in table_text.rows(view.children[1])]


# ------------------------------------------------------------------ opening a file
def test_a_good_file_has_no_problem_and_its_timing_equals_simulate():
    store, contents, message = upload(GOOD)
    assert message == "" and contents is None  # the upload box is emptied: the same file can be opened again
    assert store == {"name": "b.goal", "text": GOOD}
    view = analyse(store)
    assert view["file"] == "b.goal: 16 ranks, 128 operations, 64 messages."
    assert "No problem" in text_of(view["problems"])
    expected = simulate(parse(GOOD).schedule, LogGP(**model.DEFAULTS))
    assert f"B(children='{expected.makespan:,}', id='sched-makespan')" in text_of(view["timing"])
    bars = view["figure"].data[0]
    assert list(bars.y) == expected.finish and list(bars.x) == list(range(16))
    assert bars.marker.color[expected.host] == HOST
    tl = player_timeline(view["timeline"])
    assert tl.summary["makespan"] == expected.makespan and tl.summary["messages"] == 64
    assert view["elements"] and view["flag_class"] == "flag"
    assert find_component(page.body(DEFAULT_SCENARIO), page.SCHED_CANVAS).style == page.CANVAS_STYLE


def test_the_timing_follows_the_pages_loggp_parameters():
    store, _, _ = upload(GOOD)
    params = {"L": 1000, "o": 100, "g": 0, "G": 0, "O": 0, "S": 65535}
    s = DEFAULT_SCENARIO.with_params("schedules", params)
    view = analyse(store, s)
    assert "4,800" in text_of(view["timing"])  # the spec's worked example: 4 rounds of L + 2o
    assert "L=1000, o=100, g=0, G=0, O=0, S=65535" in text_of(view["timing"])
    assert player_timeline(view["timeline"]).summary["makespan"] == 4800


def test_a_bad_file_lists_its_problems_with_their_lines_and_is_not_timed():
    store, _, message = upload(BAD, "bad.goal")
    assert message == ""
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
    view = analyse(upload(dumps(s))[0])
    assert "sends a message nobody receives (to 0, tag 99)" in table_text.shown(view["problems"])


def test_unusable_uploads_and_forged_stores_give_a_message():
    store, _, message = upload(b"\xff\xfe not text")
    assert store is no_update and message.startswith("⚠ the file is not UTF-8 text")
    store, _, message = upload("x" * (model.MAX_GOAL_BYTES + 1))
    assert store is no_update and "up to 2 MB" in message
    store, _, message = in_callback(page.load_goal, UPLOAD, "not a data url", 0, "x", None)
    assert store is no_update and message.startswith("⚠")
    for forged in ("/etc/passwd", {"text": 3}, {"name": "x"}, ["a"], {"text": "x" * (model.MAX_GOAL_BYTES + 1)}):
        view = analyse(forged)
        assert view["timeline"] is None and "⚠" in text_of(view["timing"]), forged
    view = analyse({"text": "num_ranks 1000000\n"})
    assert "the page reads schedules of up to 65,536 ranks" in table_text.shown(view["problems"])
    view = page.analyse({"name": "b.goal", "text": GOOD}, {"schema": "nope"})
    assert "The scenario could not be read" in text_of(view[2])


def test_the_example_is_a_dissemination_barrier_on_the_scenarios_processes():
    store, contents, message = in_callback(page.load_goal, EXAMPLE, None, 1, None, DEFAULT_SCENARIO.to_dict())
    assert message == "" and store["name"] == "example: dissemination barrier, 16 ranks"
    assert parse(store["text"]).schedule.ops == barrier("dissemination", 16).ops


# ------------------------------------------------------------------ parameters: checked on the server
def test_loggp_parameters_are_checked_and_written_to_the_scenario():
    values = dict(model.DEFAULTS, L=1000)
    store, message = in_callback(page.update, LATENCY, values, DEFAULT_SCENARIO.to_dict())
    assert message == "" and Scenario.from_dict(store).params["schedules"] == values
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
        store, message = in_callback(page.update, LATENCY, dict(values, L=bad), DEFAULT_SCENARIO.to_dict())
        assert store is no_update and message.startswith("⚠ L (latency)") and words in message, bad


def test_forged_stored_parameters_give_a_message_and_the_controls_show_the_defaults():
    forged = DEFAULT_SCENARIO.with_params("schedules", {"L": "lots", "o": -5})
    view = analyse({"name": "b.goal", "text": GOOD}, forged)
    assert view["timeline"] is None and "⚠ L (latency) must be an integer" in text_of(view["timing"])
    assert model.shown_params(forged) == model.DEFAULTS
    body = page.body(forged)
    assert find_component(body, "sched-latency").value == 2500 and find_component(body, "sched-overhead").value == 1500


# ------------------------------------------------------------------ the replay
def test_more_ranks_than_processes_shows_the_timing_without_the_drawing():
    store, _, _ = upload(dumps(barrier("dissemination", 20)))
    view = analyse(store)
    assert view["timeline"] is None
    assert view["flag"].startswith("⚠ The schedule has 20 ranks but the scenario has 16 processes")
    assert view["figure"].data and "Makespan" in text_of(view["timing"])


def test_a_large_fabric_plays_the_replay_on_its_overview_each_message_hop_counted_once():
    """Above 1,500 nodes the replay plays on the overview: the frames light, step by step, the bundles the messages
    cross; over the whole replay they count every hop of every message's min-hop route, computed here apart from
    the replay (the min-hop table between the nodes the scenario places the ranks on)."""
    big = Scenario(spec="fat-tree:radix=20,levels=3")
    topo = topology_of(big)
    assert topo.n_nodes > 1500
    text = dumps(static_reduction("binomial", 64, 8))
    store = upload(text)[0]
    view = analyse(store, big)
    assert view["timeline"] is None and view["flag"] == "Replaying it on the fabric's overview…"  # after the view:
    assert view["overview"] is no_update and view["overview_style"] == page.OVERVIEW_STYLE  # drawn with it
    later = page.replay_later(view["later"], store, big.to_dict())
    handle, view["flag"], view["flag_class"], view["overview"], view["drawn"] = later
    assert page.replay_later({"file": "another"}, store, big.to_dict()) == (no_update,) * 5  # a stale order
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
    again = page.analyse(upload(text)[0], big.to_dict(), view["drawn"])
    assert again[KEYS.index("overview")] is no_update and again[KEYS.index("drawn")] == view["drawn"]
    other = big.toggled(topo.link_label(0))
    moved = dict(zip(KEYS, page.analyse(upload(text)[0], other.to_dict(), view["drawn"]), strict=True))
    moved["overview"], moved["drawn"] = page.replay_later(moved["later"], store, other.to_dict(), view["drawn"])[3:]
    assert moved["drawn"] != view["drawn"] and moved["overview"].data


def test_a_small_fabric_is_drawn_node_by_node_and_sends_no_overview():
    view = analyse(upload(GOOD)[0])
    assert "overview" not in view["timeline"] and view["elements"]
    assert view["overview"] is no_update and view["drawn"] is None
    assert view["canvas_style"] == page.CANVAS_STYLE and view["overview_style"] == page.HIDDEN
    assert view["legend_style"] == {}
    assert find_component(page.body(DEFAULT_SCENARIO), page.SCHED_OVERVIEW).style == page.HIDDEN


def test_the_exports_still_refuse_a_large_fabric_node_by_node_and_the_page_caps_its_messages(monkeypatch):
    big = Scenario(spec="fat-tree:radix=20,levels=3")
    store = upload(GOOD)[0]
    with pytest.raises(VizcollError, match="drawn node by node on fabrics up to 1,500 nodes"):
        model.replay_of(big, store)
    assert player_timeline(model.replay_of(big, store, any_size=True)[1]).summary["messages"] == 64
    monkeypatch.setattr(model, "MAX_OVERVIEW_MESSAGES", 63)
    view = analyse(store, big)
    assert view["timeline"] is None and "drawn on the fabric's overview for up to 63" in view["flag"]


def test_a_step_draws_the_messages_leaving_on_their_routes_and_the_ranks_handling_them():
    view = analyse(upload(GOOD)[0])
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
    view = analyse(upload(dumps(barrier("dissemination", 4)))[0], s)
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
        waiting = page.analyse(goal, data)
        assert "in the background" in waiting[0] and waiting[4] is None
        seen = []
        views = page.compute_views(seen.append, order, goal, data)
        assert [text for *_, text in seen] == [
            "checking and timing 0.0 MB of GOAL (1 of 2)",
            "replaying it on the fabric (2 of 2)",
        ]
        assert "Makespan" in str(views[2]) and player_timeline(views[4]).n_steps > 0  # the player's handle
        assert page.dispatch(goal, data, order) is None  # analysed: drawn in the request, no job
        assert str(page.analyse(goal, data)) == str(views)
        assert page.compute_views(seen.append, "forged", goal, data) == (no_update,) * len(page.VIEWS)
    note, chart = page.cancelled(1)
    assert note.children.startswith("⚠ Cancelled") and chart.layout.annotations[0].text == "Cancelled: not timed."
