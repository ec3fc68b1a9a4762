"""Fault tolerance of the task-based reduction: detection, replicas, the three fault locations, recovery
steps 1–5, unrecoverable failures, and the reliability experiment."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vizcoll.reduction import C1, FAULT_LOCATIONS, LOCATION_ALIASES, ReductionRun, simulate_task_reduction
from vizcoll.reduction.reliability import PAPER_RELIABILITY, PAPER_UNRECOVERABLE, reliability_experiment

MB = 1 << 20


@pytest.mark.parametrize("location", FAULT_LOCATIONS)
def test_each_fault_location_is_recovered(location):
    tl, fig = simulate_task_reduction(ReductionRun(8, MB, root=1, kill=location))
    fault = fig["fault"]
    assert fault["location"] == fault["requested"] == location
    assert fault["time"] >= fault["remote_replica_at"]
    assert fig["completed"] and fig["result_ok"] and fig["recovered"] and not fig["unrecoverable"]
    labels = [e.label for e in tl.events]
    for step in ("recovery step 1", "recovery step 2", "recovery step 3"):
        assert any(step in lab for lab in labels)
    kinds = [e.kind for e in tl.events]
    assert kinds.index("fault") < kinds.index("detect") < kinds.index("recover")
    assert [m["kinds"][0] for m in tl.key_moments()][:2] == ["fault", "detect"]  # the player's first landmarks
    assert "ping" in kinds
    detect = next(e for e in tl.events if e.kind == "detect")
    assert detect.t == pytest.approx(fault["detected_at"])
    assert fault["detected_at"] - fault["time"] <= C1.ping_period + C1.ping_timeout
    assert tl.final_state[f"w{fault['rank']}"] == "failed"


@pytest.mark.parametrize(("alias", "location"), sorted(LOCATION_ALIASES.items()))
def test_issue_names_are_aliases(alias, location):
    _, fig = simulate_task_reduction(ReductionRun(6, MB, kill=alias))
    assert fig["fault"]["location"] == location and fig["result_ok"]


def test_recovery_steps_follow_the_spec_for_location_3():
    tl, fig = simulate_task_reduction(ReductionRun(8, MB, root=1, kill="fetching-data"))
    dead = fig["fault"]["rank"]
    step1 = next(e.label for e in tl.events if "recovery step 1" in e.label)
    assert "M = Mi, P = Pj" in step1 and f"P = {{{dead}}}" in step1
    step3 = next(e for e in tl.events if "recovery step 3" in e.label)
    assert f"w{dead}{{{dead}}}!" in step3.state_changes["Q"]  # flagged single-process message
    # step 4: the failed process's task goes to the other; step 5: its original data comes from the replica
    task = next(e.label for e in tl.events if e.kind == "task" and f"w{dead} has failed" in e.label)
    assert f"({dead}," in task or f",{dead})" in task
    holder = (dead + 1) % 8
    assert any(f"w{dead}'s original data from" in e.label for e in tl.events if e.kind == "fetch")
    assert any(f"w{holder}'s disk" in e.label or "its own disk" in e.label for e in tl.events if e.kind == "fetch")


def test_location_1_and_2_requeue_the_partner():
    for location, text in (("sending-task", "fault location 1"), ("executing-task", "fault location 2")):
        tl, _ = simulate_task_reduction(ReductionRun(8, MB, root=1, kill=location))
        step1 = next(e.label for e in tl.events if "recovery step 1" in e.label)
        assert text in step1 and "M = Mj, P = Pi" in step1


def test_flagged_live_processes_read_their_own_disk():
    # kill an assignee that already holds several processes' data: the others must be re-read from disk
    _, base = simulate_task_reduction(ReductionRun(16, MB, root=0), record=False)
    big = [t for t in base["tasks"] if t["to"] != 0][-1]["to"]
    tl, fig = simulate_task_reduction(ReductionRun(16, MB, root=0, kill=(big, base["time"] * 0.7)))
    assert fig["result_ok"]
    if fig["recovered"]:
        assert any(
            "its own original data from its local disk" in e.label or "original data from" in e.label
            for e in tl.events
            if e.kind == "fetch"
        )


def test_unrecoverable_before_the_remote_replica_exists():
    tl, fig = simulate_task_reduction(ReductionRun(8, 64 * MB, root=0, kill=(3, 0.001)))
    assert fig["unrecoverable"] and not fig["completed"] and not fig["result_ok"] and not fig["recovered"]
    assert fig["fault"]["time"] < fig["fault"]["remote_replica_at"]
    reason = (
        "w3 died at 1.00 ms, before the copy of its original data reached w4 (due at 82.63 ms); its other copy, "
        "on w3's own disk, died with it: no live worker holds w3's data"
    )
    assert fig["fault"]["reason"] == reason + "." and fig["fault"]["replica_holder"] == 4
    last = [e for e in tl.events if e.kind == "unrecoverable"]
    assert last and last[0].label == reason + ", so this reduction cannot be recovered"
    step = tl.event_steps()[tl.events.index(last[0])]
    assert reason in tl.caption(int(step))  # the step's caption tells why, next to the detection


def test_the_default_pages_sending_task_kill_is_lost_before_its_copy_arrives():
    """The /faults page's first fault location on its defaults: every location-(1) window closes before its
    worker's copy arrives, so the placed kill cannot be recovered, and the reason says so."""
    _, fig = simulate_task_reduction(
        ReductionRun(8, 8 * MB, slow=[(2, 4.0), (5, 4.0)], kill="sending-task"), record=False
    )
    fault = fig["fault"]
    assert fig["unrecoverable"] and fault["rank"] == 7 and fault["time"] < fault["remote_replica_at"]
    assert fault["reason"] == (
        "w7 died at 2.15 ms, before the copy of its original data reached w0 (due at 10.38 ms); its other copy, "
        "on w7's own disk, died with it: no live worker holds w7's data. The app places a sending-task kill "
        "after its victim's copy has arrived when it can; in this run every sending-task window closes before "
        "its worker's copy arrives."
    )


def test_a_recovered_or_harmless_fault_has_no_reason():
    for kill in ("executing-task", "fetching-data", (1, 0.03)):  # recovered, recovered, hits nothing
        _, fig = simulate_task_reduction(ReductionRun(8, 8 * MB, slow=[(2, 4.0), (5, 4.0)], kill=kill), record=False)
        assert fig["completed"] and fig["fault"]["reason"] is None


def test_failure_after_the_data_was_used_needs_no_recovery():
    _, base = simulate_task_reduction(ReductionRun(8, 64 * MB, root=0), record=False)
    assert base["tasks"][0] == {"pair": [0, 1], "to": 0}  # w1's data is read by w0 in the first round
    tl, fig = simulate_task_reduction(ReductionRun(8, 64 * MB, root=0, kill=(1, base["time"] * 0.6)))
    assert fig["result_ok"] and not fig["recovered"] and fig["fault"]["location"] is None
    assert any("already been reduced" in e.label for e in tl.events)


def test_killed_root_result_ends_on_a_live_worker():
    _, fig = simulate_task_reduction(ReductionRun(8, MB, root=2, kill="executing-task"))
    _, base = simulate_task_reduction(ReductionRun(8, MB, root=2), record=False)
    rank = next(t["to"] for t in base["tasks"] if t["to"] == 2)
    _, fig = simulate_task_reduction(ReductionRun(8, MB, root=2, kill=(rank, base["time"] * 0.5)))
    assert fig["result_ok"] and fig["result_at"] != [2]


def test_death_before_calling_reduce_is_unrecoverable():
    params = C1.with_(arrival_gap=0.01)
    _, fig = simulate_task_reduction(ReductionRun(4, 1024, arrival=[0, 1, 2, 3], kill=(3, 0.005), params=params))
    assert fig["unrecoverable"] and fig["fault"]["location"] == "before-call"
    assert fig["fault"]["reason"] == (
        "w3 died at 5.00 ms, before it called reduce (due at 30.00 ms): its data was never copied, so no live "
        "worker holds it."
    )


def test_kill_after_the_end_changes_nothing():
    _, base = simulate_task_reduction(ReductionRun(6, MB))
    tl, fig = simulate_task_reduction(ReductionRun(6, MB, kill=(2, 10.0)))
    assert fig["time"] == base["time"] and fig["result_ok"] and not fig["recovered"]
    assert not any(e.kind in ("fault", "detect") for e in tl.events)


@settings(max_examples=60, deadline=None)
@given(
    procs=st.integers(2, 14),
    size=st.sampled_from([8, 4096, MB, 16 * MB]),
    root_seed=st.integers(0, 1000),
    victim_seed=st.integers(0, 1000),
    fraction=st.floats(0, 1.2),
    concurrent=st.integers(1, 2),
    slow=st.booleans(),
    seed=st.integers(0, 5),
)
def test_any_fault_is_recovered_or_reported_only_in_the_window(
    procs, size, root_seed, victim_seed, fraction, concurrent, slow, seed
):
    root, victim = root_seed % procs, victim_seed % procs
    slowed = [((victim + 1) % procs, 3.0)] if slow else []
    _, base = simulate_task_reduction(ReductionRun(procs, size, root=root, slow=slowed, seed=seed), record=False)
    when = fraction * base["time"]
    _, fig = simulate_task_reduction(
        ReductionRun(procs, size, root=root, slow=slowed, seed=seed, kill=(victim, when), concurrent=concurrent),
        record=False,
    )
    fault = fig["fault"]
    if fig["unrecoverable"]:
        assert not fig["result_ok"]
        assert fault["location"] == "before-call" or when < fault["remote_replica_at"]
        assert fault["reason"].startswith(f"w{victim} died at ")
        assert ("before it called reduce" in fault["reason"]) == (fault["location"] == "before-call")
    else:
        assert fault["reason"] is None
        assert fig["completed"] and fig["result_ok"]
        assert fig["recovered"] == (fault["location"] in FAULT_LOCATIONS)
    if fault["remote_replica_at"] is not None and when >= fault["remote_replica_at"]:
        assert fig["result_ok"]  # once the remote copy exists, every failure is recovered


def test_reliability_experiment_small():
    out = reliability_experiment(ReductionRun(32, 8 * MB, seed=5), runs=60, per_day=30, warmup=3)
    assert out["runs"] == 60 and len(out["per_day"]) == 2
    assert 0 <= out["unrecoverable"] <= 60 and out["reliability"] == pytest.approx(1 - out["unrecoverable"] / 60)
    assert 0.6 < out["reliability"] <= 1 and out["mean_time"] > out["replica_time"] > 0
    assert (
        out["reliability"]
        == reliability_experiment(ReductionRun(32, 8 * MB, seed=5), runs=60, per_day=30, warmup=3)["reliability"]
    )


def test_the_experiment_in_tasks_keeps_the_figures_of_its_single_random_stream():
    """Pinned before the runs became tasks (one stream drew every seed and kill time, in this order)."""
    out = reliability_experiment(ReductionRun(32, 8 * MB, seed=5), runs=60, per_day=30, warmup=3)
    assert out["unrecoverable"] == 4
    assert out["per_day"] == [
        {"day": 1, "mean_time": pytest.approx(0.19441199363844608, rel=1e-12), "runs": 30, "unrecoverable": 3},
        {"day": 2, "mean_time": pytest.approx(0.16962138975669447, rel=1e-12), "runs": 30, "unrecoverable": 1},
    ]
    assert out["replica_time"] == pytest.approx(0.0308305228240779, rel=1e-12)


def test_paper_reliability_figure():
    assert 1 - sum(PAPER_UNRECOVERABLE) / 700 == pytest.approx(PAPER_RELIABILITY, abs=5e-5)
