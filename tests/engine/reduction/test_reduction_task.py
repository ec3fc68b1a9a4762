"""The task-based Master/Worker reduction: the paper's example, real results, timelines, the performance claims."""

import subprocess
import sys

import numpy as np
import pytest

from vizcoll.errors import SpecError
from vizcoll.reduction import (
    C1,
    ReductionRun,
    interference,
    simulate_binomial,
    simulate_task_reduction,
)
from vizcoll.sim.timeline import Timeline

PAPER_TASKS = [{"pair": [0, 3], "to": 3}, {"pair": [1, 2], "to": 1}, {"pair": [1, 3], "to": 1}]
MB = 1 << 20


def test_paper_fig4_task_decomposition():
    tl, fig = simulate_task_reduction(ReductionRun(4, 1024, root=1, arrival=[0, 3, 1, 2]))
    assert fig["tasks"] == PAPER_TASKS
    assert fig["result_ok"] and fig["completed"] and fig["result_at"] == [1]
    assert tl.final_state["w1"] == "result"
    # tasks 1 and 2 run in parallel: both are sent before either finishes
    labels = [e.label for e in tl.events if e.kind in ("task", "reduce")]
    assert [lab.split(" ")[0] for lab in labels[:3]] == ["S", "S", "w3"]


def test_paper_example_also_with_warm_counters_and_other_sizes():
    for size in (8, 1 << 20):
        for counters in (None, "warm"):
            _, fig = simulate_task_reduction(ReductionRun(4, size, root=1, arrival=[0, 3, 1, 2]), counters=counters)
            assert fig["tasks"] == PAPER_TASKS


def test_master_counts_match_table1_ratio():
    _, fig = simulate_task_reduction(ReductionRun(200, 1 << 17), record=False)
    assert fig["master_received"] == 399 and fig["master_sent"] == 199  # 200 + 199 in, 199 tasks out
    assert fig["master_sent"] / fig["master_received"] == pytest.approx(2604 / 5220, abs=0.002)
    assert len(fig["tasks"]) == 199 and fig["data_messages"] == 199


@pytest.mark.parametrize(("exp", "paper"), [(17, 5220), (22, 3302), (27, 250)])
def test_table1_message_rate_reproduced(exp, paper):
    _, fig = simulate_task_reduction(ReductionRun(200, 1 << exp), record=False)
    assert fig["master_received"] / fig["time"] == pytest.approx(paper, rel=0.08)


def test_root_rule_and_performance_counters():
    _, fig = simulate_task_reduction(ReductionRun(8, 1 << 20, root=5, slow=[(3, 8.0)]), counters="warm")
    for task in fig["tasks"]:
        if 5 in task["pair"]:
            assert task["to"] == 5
        elif 3 in task["pair"]:
            assert task["to"] != 3  # the slow process only supplies data


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", lambda a, b: np.add(a, b).astype(float)])
def test_user_defined_operation_gives_the_real_result(op):
    _, fig = simulate_task_reduction(ReductionRun(9, 4096, root=2, op=op, seed=3))
    assert fig["result_ok"]


def test_result_is_checked_not_assumed():
    def bad(a, b):  # not associative with the inputs' order: the check must notice
        return a - b

    _, fig = simulate_task_reduction(ReductionRun(6, 4096, op=bad))
    assert fig["completed"] and not fig["result_ok"]


def test_ideal_cluster_task_based_loses_and_gap_shrinks():
    ratios = []
    for size in (128 << 10, 4 * MB, 32 * MB, 128 * MB):
        _, task = simulate_task_reduction(ReductionRun(64, size), record=False)
        _, binomial = simulate_binomial(ReductionRun(64, size), record=False)
        assert task["time"] > binomial["time"]
        ratios.append(binomial["time"] / task["time"])
    assert ratios == sorted(ratios)


def test_slow_root_task_based_wins():
    slow = [(0, 4.0)]
    _, task = simulate_task_reduction(ReductionRun(64, 32 * MB, slow=slow), record=False)
    _, binomial = simulate_binomial(ReductionRun(64, 32 * MB, slow=slow), record=False)
    assert binomial["time"] > 1.5 * task["time"]


@pytest.mark.parametrize("count", [1, 4])
def test_random_slow_nodes_task_based_wins_on_average(count):
    rng = np.random.default_rng(count)
    ratios = []
    for _ in range(6):
        slow = [(int(r), 4.0) for r in rng.choice(64, count, replace=False)]
        _, task = simulate_task_reduction(ReductionRun(64, 32 * MB, slow=slow), record=False)
        _, binomial = simulate_binomial(ReductionRun(64, 32 * MB, slow=slow), record=False)
        ratios.append(binomial["time"] / task["time"])
    assert np.mean(ratios) > 1.2


def test_interference_episodes_task_based_wins_from_4mb_loses_below():
    eps = interference(64, 20.0, seed=3, nodes=32, load=0.5, factors=(2, 8), mean_length=0.2)
    out = {}
    for size in (256 << 10, 32 * MB):
        _, task = simulate_task_reduction(ReductionRun(64, size, interference=eps), record=False, counters="warm")
        _, binomial = simulate_binomial(ReductionRun(64, size, interference=eps), record=False)
        out[size] = binomial["time"] / task["time"]
    assert out[256 << 10] < 1 < out[32 * MB]


def test_changing_speed_is_felt_only_while_it_lasts():
    _, base = simulate_task_reduction(ReductionRun(8, 8 * MB), record=False)
    _, early = simulate_task_reduction(ReductionRun(8, 8 * MB, interference=[(3, 0.0, 0.01, 6.0)]), record=False)
    _, late = simulate_task_reduction(ReductionRun(8, 8 * MB, interference=[(3, 10.0, 11.0, 6.0)]), record=False)
    assert late["time"] == base["time"] and early["time"] >= base["time"]


def test_concurrent_reductions_share_nodes_and_stay_correct():
    _, one = simulate_task_reduction(ReductionRun(16, 4 * MB), record=False)
    _, three = simulate_task_reduction(ReductionRun(16, 4 * MB, concurrent=3), record=False)
    assert three["result_ok"] and three["result_at"] == [0, 1, 2]
    assert {t["reduction"] for t in three["tasks"]} == {0, 1, 2}
    assert len(three["tasks"]) == 3 * 15 and three["time"] > one["time"]


def test_timeline_entities_events_and_replay():
    tl, fig = simulate_task_reduction(ReductionRun(4, 1024, root=1, arrival=[0, 3, 1, 2], nodes=[10, 11, 12, 13]))
    assert set(tl.entities) == {"master", "w0", "w1", "w2", "w3", "Q"}
    assert tl.entities["w2"]["node"] == 12 and tl.entities["master"]["node"] == 10
    assert tl.initial_state["Q"] == "(empty)"
    kinds = {e.kind for e in tl.events}
    assert {"send", "arrive", "task", "fetch", "reduce", "replica"} <= kinds
    assert any("(0,3) → 3" in e.label for e in tl.events if e.kind == "task")
    fetch = next(e for e in tl.events if e.kind == "fetch")
    assert (fetch.src, fetch.dst) == (10, 13)  # w3 reads w0's data, worker to worker
    queues = [tl.state_at(k)["Q"] for k in range(tl.n_steps)]
    assert "w0{0}" in queues
    assert tl.summary == fig and Timeline.from_dict(tl.to_dict()).to_dict() == tl.to_dict()
    assert tl.time_at(tl.n_steps - 1) == pytest.approx(fig["time"])


def test_unplaced_timeline_uses_node_minus_one_and_is_deterministic():
    a = simulate_task_reduction(ReductionRun(12, 1 << 20, slow=[(2, 3.0)], seed=4))
    b = simulate_task_reduction(ReductionRun(12, 1 << 20, slow=[(2, 3.0)], seed=4))
    assert a[0].to_dict() == b[0].to_dict() and a[1] == b[1]
    assert all(v["node"] == -1 for v in a[0].entities.values())


def test_concurrent_timeline_has_one_queue_per_reduction():
    tl, _ = simulate_task_reduction(ReductionRun(6, 1024, concurrent=2))
    assert {"Q0", "Q1"} <= set(tl.entities) and "Q" not in tl.entities


def test_bad_task_arguments():
    with pytest.raises(SpecError):
        simulate_task_reduction(ReductionRun(4, 1024), counters="hot")
    with pytest.raises(SpecError):
        simulate_task_reduction(ReductionRun(4, 1024, kill="nowhere"))
    with pytest.raises(SpecError):
        simulate_task_reduction(ReductionRun(4, 1024, params={"theta": -1.0}))
    _, fig = simulate_task_reduction(ReductionRun(4, 1024, params={"theta": 1e-3}))
    assert fig["time"] < simulate_task_reduction(ReductionRun(4, 1024))[1]["time"]
    assert C1.to_dict()["theta"] == pytest.approx(4.2e-3)


def test_engine_does_not_import_dash():
    code = (
        "import sys, vizcoll.reduction, vizcoll.reduction.reliability, vizcoll.commands.reduce\n"
        "print(','.join(m for m in sys.modules if m.split('.')[0] in ('dash', 'plotly')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


# ---------------------------------------------------------------- the shared event core
#: the paper's Fig. 4 run, event by event: (time in ms, kind); the master queues a message and pairs it at the
#: same time, in that order (the engine runs events at equal times FIFO)
FIG4_EVENTS = [
    (0.0, "send"),
    (0.001, "send"),
    (0.002, "send"),
    (0.003, "send"),
    (0.051, "replica"),
    (0.052, "replica"),
    (0.053, "replica"),
    (0.054, "replica"),
    (4.213, "arrive"),
    (4.225, "arrive"),
    (4.225, "task"),
    (4.238, "arrive"),
    (4.25, "arrive"),
    (4.25, "task"),
    (8.425, "fetch"),
    (8.45, "fetch"),
    (8.526, "state"),
    (8.527, "reduce"),
    (8.527, "send"),
    (8.552, "state"),
    (8.552, "reduce"),
    (8.552, "send"),
    (12.739, "arrive"),
    (12.764, "arrive"),
    (12.764, "task"),
    (16.964, "fetch"),
    (17.066, "state"),
    (17.066, "reduce"),
    (17.066, "send"),
    (21.279, "note"),
    (21.379, "note"),
]


def test_fig4_timeline_golden():
    tl, fig = simulate_task_reduction(ReductionRun(4, 1024, root=1, arrival=[0, 3, 1, 2]))
    assert [(round(e.t * 1e3, 3), e.kind) for e in tl.events] == FIG4_EVENTS
    assert fig["time"] == pytest.approx(0.02137853943880891, rel=1e-12)


def test_task_run_is_driven_by_the_shared_engine():
    from vizcoll.reduction.task import TaskRun, task_figures, task_run
    from vizcoll.sim.engine import Engine

    run = task_run(ReductionRun(8, MB, root=2, kill="fetching-data"), record=False)
    assert isinstance(run, TaskRun) and isinstance(run.engine, Engine)
    assert run.engine.pending == 0 and run.engine.processed > 0 and run.now == run.engine.now
    assert task_figures(run)["recovered"] is True


def test_public_names_stay_importable_from_the_task_module():
    from vizcoll.reduction import task, task_sim, task_state

    for name in task.__all__:
        assert hasattr(task, name)
    assert task.TaskRun is task_sim.TaskRun
    assert task.FAULT_LOCATIONS is task_state.FAULT_LOCATIONS and task.TASK_LEGEND is task_state.TASK_LEGEND
