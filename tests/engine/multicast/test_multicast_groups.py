"""The HPC multicast join/leave protocol (paper section 3.2) as a seeded Timeline."""

import json
import subprocess
import sys
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vizcoll.errors import SpecError, VizcollError
from vizcoll.multicast import groups
from vizcoll.multicast.groups import (
    GROUP_EVENTS,
    GROUP_STATES,
    TRANSITIONS,
    GroupRun,
    next_state,
    simulate_group,
)
from vizcoll.sim.timeline import Timeline

PAPER_STATES = ["ReceivingJoinReq", "ComputingRoutes", "Ready", "ReceivingLeaveReq", "Destroying"]
MEMBERS = [10, 11, 12, 13, 14, 15, 16, 17]


def group_path(tl: Timeline) -> list[str]:
    """The successive distinct values of the group state, event by event."""
    path = [tl.initial_state["group"]]
    for e in tl.events:
        value = e.state_changes.get("group")
        if value is not None and value != path[-1]:
            path.append(value)
    return path


def kind_labels(tl: Timeline, kind: str, text: str) -> list:
    return [e for e in tl.events if e.kind == kind and text in e.label]


def check_transitions(tl: Timeline) -> None:
    """Every change of the group state is an edge of the transition table."""
    edges = {(s, t) for (s, _), t in TRANSITIONS.items()}
    path = group_path(tl)
    for a, b in zip(path, path[1:], strict=False):
        assert (a, b) in edges, (a, b)


def first_time(tl: Timeline, key: str, value: str) -> float:
    return next(e.t for e in tl.events if e.state_changes.get(key) == value)


# ---------------------------------------------------------------- normal lifecycle
def test_normal_lifecycle_follows_the_paper():
    tl = simulate_group(GroupRun(MEMBERS, sm_node=0, seed=3))
    n = len(MEMBERS)
    assert group_path(tl) == ["Absent", *PAPER_STATES, "Deleted"]
    s = tl.summary
    assert s["final_state"] == "Deleted" and not s["timed_out"] and s["timeout"] is None
    assert s["joins_received"] == s["leaves_received"] == s["member_count"] == n
    assert s["route_computations"] == 1
    assert s["ready_at"] < s["all_ready_at"] < s["destroying_at"] < s["destroyed_at"]
    # every request carries MemberCount
    joins = kind_labels(tl, "join", "SubnAdmSet(MCMemberRecord)")
    assert len(joins) == n and all(f"MemberCount={n}" in e.label for e in joins)
    assert {e.src for e in joins} == set(MEMBERS) and {e.dst for e in joins} == {0}
    # routes start exactly when the last join request is counted, not before
    counted = [i for i, e in enumerate(tl.events) if e.dst == 0 and "joined" in e.state_changes.values()]
    start = next(i for i, e in enumerate(tl.events) if e.state_changes.get("group") == "ComputingRoutes")
    assert len(counted) == n and start > max(counted)
    assert tl.events[start].t == tl.events[max(counted)].t
    assert s["ready_at"] == pytest.approx(tl.events[start].t + 1.0)  # route_time
    # process 0 polls MCGStateRecord, sees Ready, multicasts "ready" to everyone else
    polls = kind_labels(tl, "send", "SubnAdmGet(MCGStateRecord)")
    replies = kind_labels(tl, "send", "SubnAdmGetResp(MCGStateRecord)")
    assert len(polls) == len(replies) == s["polls"] >= 1
    assert all(e.src == MEMBERS[0] for e in polls) and "state=Ready" in replies[-1].label
    assert all("state=Ready" not in e.label for e in replies[:-1])
    ready = kind_labels(tl, "send", "multicast 'ready'")
    assert sorted(e.dst for e in ready) == MEMBERS[1:] and {e.src for e in ready} == {MEMBERS[0]}
    assert min(e.t for e in ready) >= s["ready_at"]
    for i in range(n):
        assert first_time(tl, f"p{i}", "joined") < first_time(tl, f"p{i}", "ready") < first_time(tl, f"p{i}", "left")
    # leaving: no route recomputation, then Destroying once all have left, then Deleted
    leaves = kind_labels(tl, "leave", "SubnAdmDelete(MCMemberRecord)")
    assert len(leaves) == n
    assert s["destroying_at"] == pytest.approx(max(e.t for e in leaves) + 0.1)
    final = tl.final_state
    assert final["group"] == "Deleted" and all(final[f"p{i}"] == "left" for i in range(n))
    assert s["messages"] == sum(e.kind in ("send", "join", "leave") for e in tl.events) == 3 * n - 1 + 2 * s["polls"]
    assert [m["kinds"] for m in tl.key_moments()][0] == ["join"] and ["leave"] in [m["kinds"] for m in tl.key_moments()]


def test_routes_are_computed_exactly_once_and_never_on_leave():
    for seed in range(5):
        tl = simulate_group(GroupRun(MEMBERS, seed=seed))
        assert [e.state_changes["group"] for e in tl.events if "group" in e.state_changes].count("ComputingRoutes") == 1
        assert tl.summary["route_computations"] == 1
        notes = [e.label for e in tl.events if e.kind == "note"]
        assert any("routes are not recomputed" in x for x in notes)


def test_member_count_respected_no_routes_after_member_count_minus_one_joins():
    tl = simulate_group(GroupRun(MEMBERS, seed=1, lost_joins=[5]))
    assert tl.summary["joins_received"] == len(MEMBERS) - 1
    assert "ComputingRoutes" not in group_path(tl)
    assert tl.summary["route_computations"] == 0 and tl.summary["ready_at"] is None
    with pytest.raises(VizcollError, match="MemberCount=8"):
        next_state("ReceivingJoinReq", "joins_complete", {"member_count": 8, "joins": 7})


# ---------------------------------------------------------------- timeouts
def test_lost_join_times_out_to_destroying():
    join = [0.0, 0.1, 0.2, 0.3]
    tl = simulate_group(GroupRun([1, 2, 3, 4], sm_node=0, join_times=join, lost_joins=[2], join_timeout=5.0, seed=0))
    assert group_path(tl) == ["Absent", "ReceivingJoinReq", "Destroying", "Deleted"]
    s = tl.summary
    assert s["timed_out"] and s["timeout"] == "join" and s["final_state"] == "Deleted"
    created = first_time(tl, "group", "ReceivingJoinReq")
    assert s["destroying_at"] == pytest.approx(created + 5.0)
    assert s["destroyed_at"] == pytest.approx(created + 5.1)
    drops = [e for e in tl.events if e.kind == "drop"]
    assert len(drops) == 1 and drops[0].src == 3 and "lost" in drops[0].label
    final = tl.final_state
    assert final["p2"] == "lost" and final["p0"] == "failed"  # process 0 saw the group being destroyed
    assert final["p1"] == final["p3"] == "joined"  # nobody ever told them "ready"
    assert not kind_labels(tl, "send", "multicast 'ready'")
    assert any("join_timeout=5 ms" in e.label for e in tl.events if e.kind == "note")
    assert tl.caption(0).startswith(f"t = {tl.time_at(0):g} ms: ")  # times are milliseconds, said on every step


def test_process_crashed_from_the_start_never_joins():
    tl = simulate_group(GroupRun(MEMBERS, seed=2, crashed=[3], join_timeout=4.0))
    assert tl.summary["timeout"] == "join" and tl.summary["joins_received"] == len(MEMBERS) - 1
    assert not any(e.src == MEMBERS[3] for e in tl.events if e.kind in ("send", "join", "leave"))
    assert tl.final_state["p3"] == "crashed" and tl.summary["crashed"] == [3]


def test_crash_in_the_leave_phase_times_out_to_destroying():
    base = dict(sm_node=0, join_times=[0.0] * 8, leave_times=[1.0] * 8, leave_timeout=3.0, seed=0)
    ok = simulate_group(GroupRun(MEMBERS, **base))
    t_crash = ok.summary["all_ready_at"] + 0.5
    tl = simulate_group(GroupRun(MEMBERS, crashed={3: t_crash}, **base))
    assert group_path(tl) == ["Absent", *PAPER_STATES, "Deleted"]
    s = tl.summary
    assert s["timed_out"] and s["timeout"] == "leave"
    assert s["leaves_received"] == len(MEMBERS) - 1 and s["route_computations"] == 1
    first_leave = first_time(tl, "group", "ReceivingLeaveReq")
    assert s["destroying_at"] == pytest.approx(first_leave + 3.0)
    assert tl.final_state["p3"] == "crashed" and tl.state_at(tl.n_steps - 1)["group"] == "Deleted"
    # p3 joined and got "ready" before crashing, but never sent a leave request
    assert first_time(tl, "p3", "ready") < t_crash
    assert not any(e.src == MEMBERS[3] for e in kind_labels(tl, "leave", "SubnAdmDelete"))


def test_process_zero_crashing_after_joining_leaves_the_group_ready():
    tl = simulate_group(GroupRun([1, 2, 3], crashed={0: 0.2}, join_times=[0.0, 0.0, 0.0], seed=0))
    assert tl.summary["final_state"] == "Ready" and not tl.summary["timed_out"]
    assert not kind_labels(tl, "send", "multicast 'ready'")


def test_late_requests_after_a_timeout_are_ignored():
    tl = simulate_group(GroupRun([1, 2], join_times=[0.0, 9.0], join_timeout=2.0, seed=0))
    assert tl.summary["timeout"] == "join" and tl.summary["joins_received"] == 1
    assert any("ignores p1's late join request" in e.label for e in tl.events)
    check_transitions(tl)


def test_single_member_group():
    tl = simulate_group(GroupRun([7], sm_node=2, seed=4))
    assert group_path(tl) == ["Absent", *PAPER_STATES, "Deleted"]
    assert tl.summary["messages"] == 2 + 2 * tl.summary["polls"]


# ---------------------------------------------------------------- determinism, serialisation, replay
def test_same_seed_same_timeline_and_other_seed_other_arrival_order():
    a = simulate_group(GroupRun(MEMBERS, sm_node=0, seed=11))
    b = simulate_group(GroupRun(MEMBERS, sm_node=0, seed=11))
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())

    def order(tl):
        return [e.src for e in kind_labels(tl, "join", "SubnAdmSet")]

    assert order(a) != order(simulate_group(GroupRun(MEMBERS, sm_node=0, seed=12)))


def test_round_trip_and_state_at_consistent_with_transition_table():
    tl = simulate_group(GroupRun(MEMBERS, sm_node=0, seed=5, crashed={6: 3.0}))
    again = Timeline.from_dict(json.loads(json.dumps(tl.to_dict())))
    assert again.to_dict() == tl.to_dict()
    edges = {(s, t) for (s, _), t in TRANSITIONS.items()}
    state = dict(tl.initial_state)
    assert again.state_at(-1) == state
    for k in range(tl.n_steps):
        before = state["group"]
        for e in tl.active_at(k):
            if "group" in e.state_changes:
                assert e.kind == "state"
                new = e.state_changes["group"]
                assert new == state["group"] or (state["group"], new) in edges
            else:
                assert e.kind != "state"
            state.update(e.state_changes)
        assert again.state_at(k) == state == tl.state_at(k)
        assert (
            before == state["group"]
            or (before, state["group"]) in edges
            or any((before, m) in edges and (m, state["group"]) in edges for m in GROUP_STATES)
        )
    check_transitions(tl)


def test_entities_legend_and_labels():
    names = [f"h{i}" for i in range(20)]
    tl = simulate_group(GroupRun(MEMBERS, sm_node=0, seed=0, names=names))
    assert tl.entities["group"] == {"node": 0}
    assert all(tl.entities[f"p{i}"] == {"node": v} for i, v in enumerate(MEMBERS))
    values = {str(v) for k in range(-1, tl.n_steps) for v in tl.state_at(k).values()}
    assert values <= set(tl.legend) and set(GROUP_STATES) <= set(tl.legend)
    assert any(e.label == "p3 (h13) → SM (h0): SubnAdmSet(MCMemberRecord), MemberCount=8" for e in tl.events)
    assert all(tl.caption(k) for k in range(tl.n_steps))
    assert "managed by the subnet manager (SM) on h0." in tl.intro and "SM on SM" not in tl.intro
    assert simulate_group(GroupRun([3, 3, 4])).entities["group"] == {"node": -1}  # processes may share a node


# ---------------------------------------------------------------- the transition table
def expected(state: str, event: str, mc: int, joins: int, leaves: int):
    """The paper's rules, written independently of the module."""
    table = {
        ("Absent", "join"): ("ReceivingJoinReq", joins == 1),
        ("ReceivingJoinReq", "join"): ("ReceivingJoinReq", 2 <= joins <= mc),
        ("ReceivingJoinReq", "joins_complete"): ("ComputingRoutes", joins == mc),
        ("ReceivingJoinReq", "join_timeout"): ("Destroying", joins < mc),
        ("ComputingRoutes", "routes_done"): ("Ready", True),
        ("Ready", "leave"): ("ReceivingLeaveReq", leaves == 1),
        ("ReceivingLeaveReq", "leave"): ("ReceivingLeaveReq", 2 <= leaves <= mc),
        ("ReceivingLeaveReq", "leaves_complete"): ("Destroying", leaves == mc),
        ("ReceivingLeaveReq", "leave_timeout"): ("Destroying", leaves < mc),
        ("Destroying", "destroyed"): ("Deleted", True),
    }
    target, ok = table.get((state, event), (None, False))
    return target if ok else None


def test_next_state_exhaustive():
    assert len(GROUP_STATES) == 7 and len(GROUP_EVENTS) == 8
    for state, event, mc, joins, leaves in product(GROUP_STATES, GROUP_EVENTS, range(1, 5), range(6), range(6)):
        want = expected(state, event, mc, joins, leaves)
        counts = {"member_count": mc, "joins": joins, "leaves": leaves}
        if want is None:
            with pytest.raises(VizcollError, match="invalid transition"):
                next_state(state, event, counts)
        else:
            assert next_state(state, event, counts) == want


@pytest.mark.parametrize(
    ("state", "event", "counts", "message"),
    [
        ("Ready", "join", {"member_count": 2, "joins": 2}, "'join' cannot happen in group state 'Ready'"),
        ("Deleted", "leave", {"member_count": 2}, "Deleted is final"),
        ("ComputingRoutes", "leave", {"member_count": 2, "leaves": 1}, "allowed in ComputingRoutes: routes_done"),
        ("Ready", "leave", {"member_count": 2, "leaves": 2}, "first leave"),
        ("Bogus", "join", {"member_count": 2}, "unknown group state 'Bogus'"),
        ("Ready", "explode", {"member_count": 2}, "unknown group event 'explode'"),
        ("Ready", "leave", {"leaves": 1}, "'member_count'"),
        ("Ready", "leave", {"member_count": 0, "leaves": 1}, "at least 1"),
        ("Ready", "leave", {"member_count": 2, "leaves": -1}, "integer >= 0"),
        ("Ready", "leave", [2, 1], "mapping"),
    ],
)
def test_invalid_transitions_raise_clear_errors(state, event, counts, message):
    with pytest.raises(VizcollError, match=message.replace("(", r"\(")):
        next_state(state, event, counts)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"members": []}, "1.."),
        ({"members": [1, -2]}, "member node"),
        ({"members": "abc"}, "members"),
        ({"members": [1, 2], "sm_node": -5}, "sm_node"),
        ({"members": [1, 2], "join_times": [0.0]}, "one time per member"),
        ({"members": [1, 2], "leave_times": [0.0, float("nan")]}, r"leave_times\[1\]"),
        ({"members": [1, 2], "lost_joins": [2]}, "lost_joins"),
        ({"members": [1, 2], "crashed": {0: -1.0}}, "crash time"),
        ({"members": [1, 2], "poll_interval": 0}, "poll_interval"),
        ({"members": [1, 2], "poll_interval": 1e-6}, "too small"),
        ({"members": [1, 2], "latency": -0.1}, "latency"),
        ({"members": [1, 2], "seed": 1.5}, "seed"),
        ({"members": [1, 5], "names": ["a", "b"]}, "no name"),
    ],
)
def test_bad_input_raises_spec_error(kwargs, message):
    with pytest.raises(SpecError, match=message):
        simulate_group(GroupRun(**kwargs))


# ---------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 9),
    seed=st.integers(0, 10_000),
    lost=st.sets(st.integers(0, 8), max_size=2),
    crashes=st.dictionaries(st.integers(0, 8), st.floats(0.0, 8.0), max_size=2),
)
def test_any_run_is_a_valid_walk_of_the_state_machine(n, seed, lost, crashes):
    lost = {i for i in lost if i < n}
    crashes = {i: t for i, t in crashes.items() if i < n}
    tl = simulate_group(
        GroupRun(
            list(range(n)), sm_node=n, seed=seed, lost_joins=lost, crashed=crashes, join_timeout=4.0, leave_timeout=4.0
        )
    )
    check_transitions(tl)
    path = group_path(tl)
    s = tl.summary
    assert path.count("ComputingRoutes") == s["route_computations"] <= 1
    if "ComputingRoutes" in path:
        assert s["joins_received"] == n and not lost
    if lost:
        assert s["route_computations"] == 0
    assert s["final_state"] == path[-1] in ("Absent", "Ready", "Deleted")
    assert s["timed_out"] == (s["timeout"] is not None)
    if s["final_state"] == "Deleted" and not s["timed_out"]:
        assert s["leaves_received"] == n


def test_engine_does_not_import_dash_or_plotly():
    code = (
        "import sys, vizcoll.multicast.groups as g; g.simulate_group(g.GroupRun([1, 2, 3])); "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('dash', 'plotly')]; assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[3])


def test_every_action_has_one_small_handler_on_the_event_core():
    """simulate_group runs on vizcoll.sim.engine: one handler per action, simultaneous actions by priority."""
    assert len(groups._HANDLERS) == 14 and set(groups._PRIORITY) <= set(groups._HANDLERS)
    assert all(callable(h) and h.__name__ == f"_{a}" for a, h in groups._HANDLERS.items())
    # a crash at the very time of a join goes first (priority 0), so the crashed process never sends
    tl = simulate_group(GroupRun([1, 2], join_times=[0.5, 0.5], crashed={1: 0.5}))
    assert [e.label for e in tl.events[:2]] == [
        "p1 crashes: it will send and receive nothing any more",
        "p0 → SM: SubnAdmSet(MCMemberRecord), MemberCount=2",
    ]
