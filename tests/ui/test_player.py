"""The timeline player: positions and steps, its caption callback called directly, and the handle that keeps the
timeline on the server (its transitions run in the browser: tests/browser/test_components.py)."""

from __future__ import annotations

import pytest
from dash import Dash, no_update

from tests.callback_context import in_callback
from vizcoll.sim.timeline import KEY_MOMENTS, Event, Timeline
from vizcoll.ui.components.player import BUTTONS, MARKS, first_frame, register_player, timeline_step


def test_timeline_step_maps_positions_to_steps():
    assert timeline_step(0, 5) == -1  # position 0 is the initial state
    assert timeline_step(None, 5) == -1
    assert [timeline_step(p, 5) for p in range(1, 6)] == [0, 1, 2, 3, 4]
    assert timeline_step(9, 5) == 4  # clamped to the last step
    assert timeline_step(-3, 5) == -1
    assert timeline_step(3, 0) == -1


# ------------------------------------------------------------------ the callbacks, called as dash would


@pytest.fixture
def callbacks():
    app = Dash(__name__)
    register_player(app, "p")
    server = [spec["callback"].__wrapped__ for spec in app.callback_map.values() if "callback" in spec]
    assert len(server) == 1  # the caption; the controls and the key moments run in the browser
    return {"caption": server[0]}


def three_step_timeline() -> dict:
    events = [
        Event(1, "send", 0, 1, [0], "a → b"),
        Event(2, "send", 1, 2, [1], "b → c"),
        Event(3, "note", label="done"),
    ]
    return Timeline(title="t", intro="a sends", initial_state={"a": "root"}, events=events).to_dict()


def captioned(callbacks, position, timeline) -> tuple[str, str]:
    """The caption callback as Dash calls it: (the caption, the position line)."""
    answer = in_callback(callbacks["caption"], "p-step.value", position=position, timeline=timeline)
    return answer["caption"], answer["position"]


def test_caption_callback(callbacks):
    tl = three_step_timeline()
    assert captioned(callbacks, 0, None) == ("Nothing to play.", "")
    assert captioned(callbacks, 0, tl) == ("a sends", "step 0 of 3")
    assert captioned(callbacks, 2, tl) == ("b → c", "step 2 of 3")
    assert captioned(callbacks, 3, tl) == ("done", "step 3 of 3")
    assert captioned(callbacks, 99, tl) == ("done", "step 3 of 3")
    outputs, shown = first_frame("p", tl)  # a page drawn with its timeline shows the same before the callback runs
    assert {name: str(o) for name, o in outputs.items()} == {
        "caption": "p-caption.children",
        "position": "p-position.children",
    }
    assert shown == callbacks["caption"](position=0, timeline=tl)
    assert first_frame("p", no_update)[1] == {}  # a timeline the page does not draw yet: nothing changes


def test_every_key_moment_kind_has_its_sign_on_the_slider():
    assert set(MARKS) == set(KEY_MOMENTS) and len(set(MARKS.values())) == len(MARKS)
    names = {name for name, _, _ in BUTTONS}
    assert {"prev-key", "next-key", "play", "first", "last"} <= names
    assert all("(" in title for _, _, title in BUTTONS)  # each button's tooltip names its key


# ------------------------------------------------------------------ the timeline stays on the server
def test_a_player_holds_a_handle_and_the_server_the_timeline(callbacks, monkeypatch):
    import json

    from vizcoll import uploads
    from vizcoll.sim.broadcast import broadcast
    from vizcoll.topology.generators import from_spec
    from vizcoll.ui.components import player

    timeline = broadcast(from_spec("fat-tree:radix=16,levels=3"), "h0").to_dict()  # 1,344 nodes
    handle = player.player_data(timeline)
    assert set(handle) == {"ref", "steps", "moments", "captions"}
    assert handle["steps"] == Timeline.from_dict(timeline).n_steps
    assert handle["captions"] == player.player_captions(handle)  # the first caption needs no round trip
    ref = {"ref": handle["ref"], "steps": handle["steps"]}  # what a step of the slider posts (KEY_MOMENTS_JS)
    assert len(json.dumps(ref)) < 300 < 100_000 < len(json.dumps(timeline))
    assert player.player_timeline(handle).to_dict() == timeline
    assert captioned(callbacks, 2, handle) == (Timeline.from_dict(timeline).caption(1), f"step 2 of {handle['steps']}")
    with monkeypatch.context() as patch:  # another web worker: a step reads the captions, never the timeline
        patch.setattr(player, "_parsed", {})
        patch.setattr(player.Timeline, "from_dict", None)
        assert captioned(callbacks, 3, handle)[1] == f"step 3 of {handle['steps']}"
    key = player.player_data(three_step_timeline())
    assert key["moments"] == [] and player.player_data(None) is None
    monkeypatch.setattr(player, "_parsed", {})
    monkeypatch.setattr(player, "timelines", uploads.MemoryStore())  # the server lost it
    assert captioned(callbacks, 1, handle)[0].startswith("⚠ this animation is no longer")
    for forged in ({"ref": "sha256:zz"}, {"ref": 5}, [1]):
        assert captioned(callbacks, 1, forged) == ("⚠ the browser sent a malformed animation", "")


def test_a_long_timelines_handle_leaves_its_captions_on_the_server():
    from vizcoll.ui.components import player

    steps = player.HANDLE_CAPTIONS + 1
    events = [Event(t, "send", t, t + 1, [t], f"{t} → {t + 1}") for t in range(steps)]
    handle = player.player_data(Timeline(title="t", intro="0 starts", initial_state={}, events=events))
    assert handle["steps"] == steps and "captions" not in handle
    assert len(player.player_captions(handle)) == steps + 1


def test_a_canvas_step_takes_the_shown_store_and_anything_else_as_no_step():
    from vizcoll.ui.components.player import SHOWN_JS, on_canvas

    render = on_canvas(lambda position, handle, *states: (position, handle, states))
    assert render({"position": 3, "handle": {"ref": "r"}}, "plan") == (3, {"ref": "r"}, ("plan",))
    for junk in (None, "x", [1], {"step": 3}):
        assert render(junk, "plan") == (None, None, ("plan",))
    assert '"overview" in h' in SHOWN_JS  # an overview's steps are drawn in the browser: nothing is posted


def test_a_process_keeps_at_most_so_many_parsed_events(monkeypatch):
    """Paper-scale timelines (hundreds of thousands of events each) do not pile up in a web worker's memory."""
    from vizcoll.ui.components import player

    monkeypatch.setattr(player, "_parsed", {})
    monkeypatch.setattr(player, "PARSED_EVENTS", 7)
    small = Timeline.from_dict(three_step_timeline())
    refs = [player.player_data(Timeline(title=str(i), events=small.events))["ref"] for i in range(4)]
    assert list(player._parsed) == refs[-2:]  # 3 events each: two fit in 7
    assert sum(len(t.events) for t in player._parsed.values()) <= 7


def test_class_speed_plays_the_papers_8x8_dlct_run_in_under_two_minutes():
    """Issue 45: an 8×8 DLCT run of three barriers (the DLCT paper's program, 40 % of the links broken, as in the
    barriers lesson) is presentable in under 2 minutes at the fastest speed, and with a hold on each key moment."""
    from vizcoll.barrier.algorithms import run_barriers
    from vizcoll.barrier.network import break_links
    from vizcoll.topology.generators import mesh
    from vizcoll.ui.components.player import KEY_PAUSE_MS, SPEEDS, player

    topo = mesh((8, 8), neighbors=8, hosts=0)
    break_links(topo, 0.4, 0)
    tl, _ = run_barriers(topo, "dlct", barriers=3, record=True)
    fastest = min(SPEEDS.values())
    assert SPEEDS["16×"] == fastest == SPEEDS["1×"] / 16
    assert tl.n_steps > 600 and tl.n_steps * fastest < 120_000
    assert tl.n_steps * fastest + len(tl.key_moments()) * KEY_PAUSE_MS < 120_000
    controls = {getattr(c, "id", None): c for c in player("p")._traverse()}
    assert [o["value"] for o in controls["p-speed"].options] == list(SPEEDS.values())  # every speed offered
    assert controls["p-pause"].value == []  # the hold is the lecturer's choice
