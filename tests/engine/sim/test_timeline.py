"""The Timeline format: steps, state replay, captions, serialisation, validation."""

import json
import random

import pytest

from vizcoll.errors import VizcollError
from vizcoll.sim.events import EventColumns
from vizcoll.sim.timeline import SCHEMA, Event, Timeline, sort_events


def random_timeline(seed: int, n_events: int = 400, n_entities: int = 12) -> Timeline:
    rng = random.Random(seed)
    keys = [f"e{i}" for i in range(n_entities)]
    events, t = [], 0.0
    for i in range(n_events):
        if rng.random() < 0.4:
            t += rng.choice([0.5, 1.0, 2.25])
        changes = {rng.choice(keys): rng.choice(["a", "b", 3, 4.5]) for _ in range(rng.randint(0, 3))}
        events.append(
            Event(
                t,
                rng.choice(["send", "arrive", "state", "note"]),
                rng.randint(-1, 9),
                rng.randint(-1, 9),
                [rng.randint(0, 50)] if rng.random() < 0.7 else [],
                f"event {i}",
                changes,
            )
        )
    return Timeline(
        title="random",
        intro="before anything",
        initial_state=dict.fromkeys(keys, "init"),
        events=events,
        entities={k: {"node": i} for i, k in enumerate(keys)},
        legend={"a": "state a", "3": "three"},
        summary={"messages": n_events, "time": t},
    )


def naive_state(tl: Timeline, step: int) -> dict:
    """Full replay from the initial state, by time, without any index."""
    times = sorted({e.t for e in tl.events})
    state = dict(tl.initial_state)
    for e in tl.events:
        if step >= 0 and e.t <= times[step]:
            state.update(e.state_changes)
    return state


def small() -> Timeline:
    return Timeline(
        title="small",
        initial_state={"a": "idle", "b": "idle"},
        events=[
            Event(0.0, "send", 0, 1, [7], "a sends to b", {"a": "busy"}),
            Event(0.0, "send", 0, 2, [8], "a sends to c"),
            Event(1.5, "arrive", 0, 1, [7], "b gets it", {"b": "got", "a": "idle"}),
            Event(3.0, "note", label="all done", state_changes={"b": 2}),
            Event(3.0, "state", label="hidden by the note", state_changes={"b": 3}),
        ],
    )


def test_round_trip_through_json_is_exact():
    for seed in range(3):
        tl = random_timeline(seed)
        data = json.loads(json.dumps(tl.to_dict()))
        assert data["schema"] == SCHEMA
        back = Timeline.from_dict(data)
        assert back == tl
        assert back.to_dict() == tl.to_dict()
        assert [back.state_at(k) for k in range(-1, back.n_steps)] == [tl.state_at(k) for k in range(-1, tl.n_steps)]


def test_event_round_trip_and_normalisation():
    import numpy as np

    e = Event(np.int64(2), "send", np.int32(1), 2, np.array([4, 5]), "x", {"n": np.int64(3)})
    assert e.t == 2.0 and isinstance(e.t, float)
    assert e.path_links == [4, 5] and type(e.path_links[0]) is int
    assert type(e.state_changes["n"]) is int
    assert Event.from_dict(json.loads(json.dumps(e.to_dict()))) == e


def test_steps_group_events_sharing_a_time():
    tl = small()
    assert tl.n_steps == 3
    assert [len(s) for s in tl.steps] == [2, 1, 2]
    assert [tl.time_at(k) for k in range(-1, 3)] == [0.0, 0.0, 1.5, 3.0]
    assert [e.label for e in tl.active_at(0)] == ["a sends to b", "a sends to c"]
    assert tl.active_at(-1) == []
    assert tl.changes_at(2) == {"b": 3}
    with pytest.raises(IndexError):
        tl.state_at(3)
    with pytest.raises(IndexError):
        tl.active_at(-2)


def test_state_at_small():
    tl = small()
    assert tl.state_at(-1) == {"a": "idle", "b": "idle"}
    assert tl.state_at(0) == {"a": "busy", "b": "idle"}
    assert tl.state_at(1) == {"a": "idle", "b": "got"}
    assert tl.state_at(2) == {"a": "idle", "b": 3}  # later event of a step wins
    assert tl.final_state == tl.state_at(2)
    tl.state_at(0)["a"] = "tampered"  # a fresh dict every time
    assert tl.state_at(0)["a"] == "busy"


@pytest.mark.parametrize("snapshot_every", [1, 7, 50, 4096])
def test_state_at_equals_full_replay_in_any_order(snapshot_every):
    tl = random_timeline(11, n_events=600)
    tl.SNAPSHOT_CHANGES = snapshot_every
    rng = random.Random(5)
    ks = [rng.randint(-1, tl.n_steps - 1) for _ in range(60)] + [tl.n_steps - 1, -1, 0]
    for k in ks:
        assert tl.state_at(k) == naive_state(tl, k), k
    # stepping back gives the same as a fresh timeline would
    tl.state_at(min(9, tl.n_steps - 1))
    fresh = random_timeline(11, n_events=600)
    assert tl.state_at(5) == fresh.state_at(5)


def test_state_at_is_fast_for_many_events():
    import time

    tl = random_timeline(3, n_events=100_000, n_entities=2000)
    start = time.perf_counter()
    for k in range(0, tl.n_steps, max(1, tl.n_steps // 50)):
        tl.state_at(k)
    assert time.perf_counter() - start < 2.0
    assert tl.state_at(tl.n_steps // 2) == naive_state(tl, tl.n_steps // 2)


def test_captions():
    tl = small()
    assert tl.caption(-1) == "small"
    assert tl.caption(0) == "a sends to b; a sends to c"
    assert tl.caption(1) == "b gets it"
    assert tl.caption(2) == "all done"  # a note is the caption of its step
    assert tl.caption(0, limit=1) == "a sends to b; … and 1 more"
    assert Timeline(intro="hello").caption(-1) == "hello"
    assert Timeline(events=[Event(1, "state"), Event(1, "state")]).caption(0) == "2 events"


def test_a_time_unit_puts_the_clock_first_in_every_caption_and_round_trips():
    tl = Timeline(
        events=[Event(1200, "send", label="a sends"), Event(2500.25, "state"), Event(2500.25, "state")],
        intro="start",
        time_unit="ns",
    )
    assert [tl.caption(k) for k in (-1, 0, 1)] == ["start", "t = 1,200 ns: a sends", "t = 2,500.25 ns: 2 events"]
    assert Timeline.from_dict(json.loads(json.dumps(tl.to_dict()))) == tl
    assert small().caption(0) == "a sends to b; a sends to c"  # no unit: no clock
    with pytest.raises(VizcollError, match="'time_unit' must be a unit of at most 8 characters"):
        Timeline.from_dict(tl.to_dict() | {"time_unit": "x" * 9})


def test_sort_events_is_stable():
    events = [Event(2, "a", label="x"), Event(1, "b"), Event(2, "c", label="y"), Event(0, "d")]
    assert [e.kind for e in sort_events(events)] == ["d", "b", "a", "c"]


def test_unordered_events_are_refused():
    with pytest.raises(VizcollError, match="not in time order: event 1 at t=1 comes after t=2"):
        Timeline(events=[Event(2, "a"), Event(1, "b")])
    with pytest.raises(VizcollError, match="finite"):
        Timeline(events=[Event(float("nan"), "a")])


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(schema="other"), "not a vizcoll timeline"),
        (lambda d: d.pop("schema"), "not a vizcoll timeline"),
        (lambda d: d.update(events={}), "'events' must be a list"),
        (lambda d: d.update(initial_state=[]), "'initial_state' must be a dict"),
        (lambda d: d["initial_state"].update(a=None), "initial state of 'a'"),
        (lambda d: d["legend"].update(x=1), "legend entry 'x'"),
        (lambda d: d["events"][1].pop("t"), "event 1: missing field 't'"),
        (lambda d: d["events"][1].update(t="soon"), "event 1: 't' must be a finite number"),
        (lambda d: d["events"][1].update(t=-1), "event 1: 't' must be a finite number >= 0"),
        (lambda d: d["events"][0].update(kind=""), "event 0: 'kind'"),
        (lambda d: d["events"][0].update(src=-5), "event 0: 'src'"),
        (lambda d: d["events"][0].update(path_links=[1, "x"]), "event 0: 'path_links'"),
        (lambda d: d["events"][0].update(label=3), "event 0: 'label'"),
        (lambda d: d["events"][0].update(state_changes={"a": [1]}), "event 0: state of 'a'"),
        (lambda d: d["events"][0].update(t=10.0), "not in time order: event 1"),
        (lambda d: d["events"].__setitem__(0, "x"), "event 0: an event must be an object"),
    ],
)
def test_bad_data_gives_clear_errors(mutate, message):
    data = json.loads(json.dumps(small().to_dict()))
    mutate(data)
    with pytest.raises(VizcollError, match=message.replace("(", r"\(")):
        Timeline.from_dict(data)


def test_not_a_dict():
    with pytest.raises(VizcollError, match="schema"):
        Timeline.from_dict([1, 2])


# ------------------------------------------------------------------ events as columns
def as_columns(tl: Timeline) -> Timeline:
    """The same timeline with its events held as columns."""
    fields = {k: v for k, v in tl.to_dict(events=False).items() if k != "schema"}
    return Timeline(**fields, events=EventColumns.of(tl.events))


@pytest.mark.parametrize("seed", range(4))
def test_columns_read_as_the_same_events_steps_state_and_captions(seed):
    tl = random_timeline(seed)
    cols = as_columns(tl)
    assert isinstance(cols.events, EventColumns) and cols.events == tl.events and cols == tl
    assert cols.n_steps == tl.n_steps and cols.key_moments() == tl.key_moments()
    for step in range(-1, tl.n_steps):
        assert cols.active_at(step) == tl.active_at(step) and cols.changes_at(step) == tl.changes_at(step)
        assert cols.state_at(step) == tl.state_at(step) and cols.caption(step) == tl.caption(step)
    assert cols.time_at(tl.n_steps - 1) == tl.time_at(tl.n_steps - 1)


def test_columns_round_trip_through_json_and_digest_as_their_events():
    tl = random_timeline(9)
    cols = as_columns(tl)
    data = json.loads(json.dumps(cols.to_dict()))
    assert "columns" in data and "events" not in data
    back = Timeline.from_dict(data)
    assert isinstance(back.events, EventColumns) and back == tl and back.to_dict() == cols.to_dict()
    assert cols.digest() == tl.digest() == back.digest() and cols.digest().startswith("sha256:")
    relabelled = as_columns(tl)
    relabelled.events.label[3] += "!"
    assert relabelled.digest() != tl.digest()


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c.update(t=c["t"][:-1]), "column 'kind' must be a list of"),
        (lambda c: c["t"].__setitem__(0, -1.0), "column 't' must hold finite numbers >= 0"),
        (lambda c: c["t"].__setitem__(0, "soon"), "column 't' must be a list of numbers"),
        (lambda c: c["kind"].__setitem__(0, 99), "column 'kind' holds a number outside"),
        (lambda c: c["src"].__setitem__(0, -5), "column 'src' holds a number outside -1"),
        (lambda c: c["dst"].__setitem__(0, 1.5), "column 'dst' must be a list of"),
        (lambda c: c["link_start"].__setitem__(-1, 10**6), "column 'links' must be a list of 1,000,000"),
        (lambda c: c["link_start"].__setitem__(1, 10**6), "column 'link_start' must start at 0 and never decrease"),
        (lambda c: c["change_start"].__setitem__(0, 1), "column 'change_start' must start at 0"),
        (lambda c: c["label"].__setitem__(0, 3), "column 'label' must hold strings"),
        (lambda c: c["change_value"].__setitem__(0, [1]), "column 'change_value' must hold"),
        (lambda c: c.update(kinds=["", "x"]), "column 'kinds' must hold non-empty strings"),
        (lambda c: c.update(links=None), "column 'links' must be a list of"),
    ],
)
def test_forged_columns_are_refused_with_the_column_named(mutate, message):
    data = as_columns(random_timeline(2)).to_dict()
    mutate(data["columns"])
    with pytest.raises(VizcollError, match=message):
        Timeline.from_dict(data)
