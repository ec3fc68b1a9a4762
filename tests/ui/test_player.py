"""The timeline player: pure position/play transitions, and its two callbacks called directly."""

from __future__ import annotations

import itertools

import pytest
from dash import Dash

from tests.callback_context import in_callback
from vizcoll.sim.timeline import KEY_MOMENTS, Event, Timeline
from vizcoll.ui.components.player import BUTTONS, MARKS, SPEEDS, next_step, register_player, timeline_step

TRIGGERS = [name for name, _, _ in BUTTONS] + ["tick", "timeline", None, "speed"]
SIZES = range(0, 5)


def cases():
    for n, playing, trigger in itertools.product(SIZES, (False, True), TRIGGERS):
        for position in [None, -1, *range(0, n + 2)]:
            yield trigger, position, n, playing


def clamp(position, n):
    return min(max(int(position or 0), 0), n)


@pytest.mark.parametrize("n", SIZES)
def test_every_transition_stays_in_range_and_follows_the_rules(n):
    for trigger, position, size, playing in cases():
        if size != n:
            continue
        moments = [m for m in (1, 3) if m <= n]
        new, now_playing = next_step(trigger, position, n, playing, moments)
        where = (trigger, position, n, playing)
        assert 0 <= new <= n, where
        p = clamp(position, n)
        expected = {
            "first": (0, False),
            "back": (max(p - 1, 0), False),
            "forward": (min(p + 1, n), False),
            "last": (n, False),
            "prev-key": (max([m for m in moments if m < p], default=p), False),
            "next-key": (min([m for m in moments if m > p], default=p), False),
            "timeline": (p, False),  # a new timeline keeps the step (clamped to its length), paused
            "tick": (p + 1, True) if p < n else (n, False),
            "play": (p, False) if playing else ((0 if p >= n else p), n > 0),
        }.get(trigger, (p, playing))  # anything else (None, the speed) changes nothing
        assert (new, now_playing) == expected, where


def test_named_transitions():
    assert next_step("back", 0, 5, False) == (0, False)  # back at 0 stays at 0
    assert next_step("back", 0, 5, True) == (0, False)
    assert next_step("first", 3, 5, True) == (0, False)  # any button pauses
    assert next_step("forward", 5, 5, False) == (5, False)  # forward at the end stays there
    assert next_step("play", 5, 5, False) == (0, True)  # play at the end restarts from 0
    assert next_step("play", 2, 5, False) == (2, True)  # play mid-way resumes
    assert next_step("play", 2, 5, True) == (2, False)  # play while playing pauses
    assert next_step("play", 0, 0, False) == (0, False)  # nothing to play
    assert next_step("tick", 4, 5, True) == (5, True)
    assert next_step("tick", 5, 5, True) == (5, False)  # the tick stops at the end
    assert next_step("timeline", 4, 5, True) == (4, False)  # a new timeline (a fault injected here) keeps the step
    assert next_step("timeline", 9, 3, False) == (3, False)  # ... or its last one
    assert next_step("next-key", 0, 9, True, [2, 6]) == (2, False)  # key moments: jump, and pause
    assert next_step("next-key", 6, 9, False, [2, 6]) == (6, False)  # none later: stay
    assert next_step("prev-key", 6, 9, False, [2, 6]) == (2, False)
    assert next_step("prev-key", 1, 9, False, [2, 6]) == (1, False)
    assert next_step("next-key", 3, 9, False) == (3, False)  # a timeline without key moments
    assert next_step(None, 7, 5, True) == (5, True)  # an out-of-range position is clamped


@pytest.mark.parametrize("n", SIZES)
def test_playing_from_the_end_visits_every_position_once_then_stops(n):
    position, playing = next_step("play", n, n, False)
    seen = [position]
    for _ in range(n + 3):  # more ticks than needed: the extra ones must change nothing
        if not playing:
            break
        position, playing = next_step("tick", position, n, playing)
        seen.append(position)
    assert seen == list(range(n + 1)) + ([n] if n else [])
    assert not playing


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
    found = {}
    for key, spec in app.callback_map.items():
        if "callback" not in spec:  # the clientside step counter
            continue
        fn = spec["callback"].__wrapped__
        found["caption" if "caption" in key else "control"] = fn
    return found


def three_step_timeline() -> dict:
    events = [Event(1, "send", 0, 1, [0], "a → b"), Event(2, "send", 1, 2, [1], "b → c"),
              Event(3, "note", label="done")]
    return Timeline(title="t", intro="a sends", initial_state={"a": "root"}, events=events).to_dict()


def test_control_callback(callbacks):
    control = callbacks["control"]
    tl = three_step_timeline()
    clicks = [0] * len(BUTTONS)

    def press(prop_id, step, paused, timeline=tl, speed="1×", moments=(2,)):
        steps = Timeline.from_dict(timeline).n_steps if timeline else 0
        return in_callback(control, prop_id, *clicks, 0, steps, speed, step, paused, list(moments))

    assert press("p-steps.data", 2, False) == (2, 3, True, "▶ Play", SPEEDS["1×"])  # new timeline: same step, paused
    assert press("p-next-key.n_clicks", 0, True) == (2, 3, True, "▶ Play", SPEEDS["1×"])  # the key moment
    assert press("p-prev-key.n_clicks", 3, False) == (2, 3, True, "▶ Play", SPEEDS["1×"])
    assert press("p-next-key.n_clicks", 0, True, moments=[True, "7", -1, 99]) == (0, 3, True, "▶ Play",
                                                                                 SPEEDS["1×"])  # forged: ignored
    assert press("p-play.n_clicks", 3, True) == (0, 3, False, "❚❚ Pause", SPEEDS["1×"])  # play at the end restarts
    assert press("p-tick.n_intervals", 1, False) == (2, 3, False, "❚❚ Pause", SPEEDS["1×"])
    assert press("p-tick.n_intervals", 3, False) == (3, 3, True, "▶ Play", SPEEDS["1×"])  # stops at the end
    assert press("p-speed.value", 1, False, speed="4×") == (1, 3, False, "❚❚ Pause", SPEEDS["4×"])  # keeps playing
    assert press("p-back.n_clicks", 0, True) == (0, 3, True, "▶ Play", SPEEDS["1×"])
    assert press("p-last.n_clicks", 0, True, timeline=None) == (0, 0, True, "▶ Play", SPEEDS["1×"])  # no timeline


def test_caption_callback(callbacks):
    caption = callbacks["caption"]
    tl = three_step_timeline()
    assert in_callback(caption, None, 0, None) == ("Nothing to play.", "")
    assert in_callback(caption, None, 0, tl) == ("a sends", "step 0 of 3")
    assert in_callback(caption, None, 2, tl) == ("b → c", "step 2 of 3")
    assert in_callback(caption, None, 3, tl) == ("done", "step 3 of 3")
    assert in_callback(caption, None, 99, tl) == ("done", "step 3 of 3")


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
    assert set(handle) == {"ref", "steps", "moments"} and handle["steps"] == Timeline.from_dict(timeline).n_steps
    assert len(json.dumps(handle)) < 300 < 100_000 < len(json.dumps(timeline))  # what a step of the slider posts
    assert player.player_timeline(handle).to_dict() == timeline
    assert in_callback(callbacks["caption"], None, 2, handle) == (Timeline.from_dict(timeline).caption(1),
                                                                   f"step 2 of {handle['steps']}")
    key = player.player_data(three_step_timeline())
    assert key["moments"] == [] and player.player_data(None) is None
    monkeypatch.setattr(player, "_parsed", {})
    monkeypatch.setattr(player, "timelines", uploads.MemoryStore())  # the server lost it
    assert in_callback(callbacks["caption"], None, 1, handle)[0].startswith("⚠ this animation is no longer")
    for forged in ({"ref": "sha256:zz"}, {"ref": 5}, [1]):
        assert in_callback(callbacks["caption"], None, 1, forged)[0] == "⚠ the browser sent a malformed animation"
