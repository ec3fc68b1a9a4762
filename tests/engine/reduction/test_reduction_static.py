"""Static reductions (binomial, MST, Rabenseifner): schedules, α-β-γ costs, timed runs with real data."""

import doctest
import math

import numpy as np
import pytest

from vizcoll.errors import SpecError
from vizcoll.reduction import (
    C1,
    ReductionParams,
    ReductionRun,
    binomial_cost,
    binomial_schedule,
    mst_schedule,
    rabenseifner_cost,
    rabenseifner_schedule,
    simulate_binomial,
    simulate_mst,
    simulate_rabenseifner,
    task_cost,
)
from vizcoll.reduction import data as data_mod
from vizcoll.reduction import env as env_mod
from vizcoll.reduction import static as static_mod
from vizcoll.reduction.data import ReductionData
from vizcoll.reduction.env import Environment, parse_interference, parse_slow
from vizcoll.reduction.static_sim import _apply_data
from vizcoll.sim.timeline import Timeline

EXACT = ReductionParams(arrival_gap=0.0)


@pytest.mark.parametrize("module", [static_mod, data_mod, env_mod])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


@pytest.mark.parametrize("make", [binomial_schedule, mst_schedule, rabenseifner_schedule])
@pytest.mark.parametrize("procs", [1, 2, 3, 5, 6, 7, 8, 12, 13, 16, 31, 200])
def test_schedules_reduce_everything_to_the_root(make, procs):
    for root in {0, procs // 2, procs - 1}:
        sched = make(procs, root)
        data = ReductionData(procs, 37, "sum", seed=procs)
        setup = type("S", (), {"data": [data], "procs": procs})()
        assert np.array_equal(_apply_data(sched, setup, 0), data.expected)
        rounds = len(sched.rounds)
        if make is rabenseifner_schedule:
            p2 = 1 << (procs.bit_length() - 1)
            assert rounds == 2 * int(math.log2(p2)) + (p2 != procs)
        else:
            assert rounds == (procs - 1).bit_length()
            assert sched.messages == procs - 1


def test_binomial_and_mst_shapes():
    assert [[(t.src, t.dst) for t in r] for r in binomial_schedule(8).rounds] == [
        [(1, 0), (3, 2), (5, 4), (7, 6)],
        [(2, 0), (6, 4)],
        [(4, 0)],
    ]
    mst = mst_schedule(8)
    assert [(t.src, t.dst) for t in mst.rounds[-1]] == [(7, 0)]  # the far end of the other half joins last
    assert sorted(t.dst for r in mst.rounds for t in r).count(0) == 3


def test_rabenseifner_non_power_of_two_keeps_the_root():
    sched = rabenseifner_schedule(6, root=4)
    first = sched.rounds[0]
    assert all(t.hi - t.lo == sched.blocks for t in first)  # whole vectors in the extra step
    assert 4 not in {t.src for t in first}
    gathered = {t.dst for t in sched.rounds[-1]}
    assert gathered == {4}


def test_costs_match_the_formulas():
    n, p = 1 << 20, 16
    a, b, g = C1.alpha, C1.beta, C1.gamma
    assert binomial_cost(p, n) == pytest.approx(4 * (a + n * b + n * g))
    assert rabenseifner_cost(p, n) == pytest.approx(2 * 4 * a + 2 * 15 / 16 * n * b + 15 / 16 * n * g)
    assert rabenseifner_cost(12, n) == pytest.approx(rabenseifner_cost(8, n) + a + n * (b + g))
    assert task_cost(p, n) > binomial_cost(p, n)


@pytest.mark.parametrize(
    ("sim", "procs"),
    [
        (simulate_binomial, 16),
        (simulate_mst, 16),
        (simulate_rabenseifner, 16),
        (simulate_binomial, 13),
        (simulate_rabenseifner, 13),
    ],
)
def test_uniform_run_takes_the_model_time(sim, procs):
    _, fig = sim(ReductionRun(procs, 1 << 20, params=EXACT))
    assert fig["result_ok"] and fig["completed"]
    assert fig["time"] == pytest.approx(fig["model_time"], rel=1e-9)


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", lambda a, b: a ^ b])
def test_real_results_for_every_operation(op):
    for sim in (simulate_binomial, simulate_rabenseifner, simulate_mst):
        _, fig = sim(ReductionRun(11, 4096, root=3, op=op, seed=5))
        assert fig["result_ok"]


def test_a_slow_process_stalls_its_ancestors():
    _, fast = simulate_binomial(ReductionRun(16, 8 << 20))
    _, leaf = simulate_binomial(ReductionRun(16, 8 << 20, slow=[(15, 4.0)]))
    _, root = simulate_binomial(ReductionRun(16, 8 << 20, slow=[(0, 4.0)]))
    assert fast["time"] < leaf["time"] < root["time"]
    assert root["time"] == pytest.approx(4 * fast["time"], rel=0.01)


def test_late_caller_delays_the_binomial_tree():
    _, early = simulate_binomial(ReductionRun(8, 1 << 20))
    _, late = simulate_binomial(
        ReductionRun(8, 1 << 20, arrival=[0, 1, 2, 3, 5, 6, 7, 4], params=C1.with_(arrival_gap=0.01))
    )
    assert late["time"] > early["time"] + 0.05


def test_killed_process_stops_a_static_reduction():
    _, fig = simulate_binomial(ReductionRun(8, 1 << 20, kill=(4, 0.0)))
    assert not fig["completed"] and not fig["result_ok"] and fig["unrecoverable"] and not fig["recovered"]
    _, after = simulate_binomial(ReductionRun(8, 1 << 20, kill=(7, 1.0)))  # a leaf that has already sent its data
    assert after["completed"] and after["result_ok"]
    with pytest.raises(SpecError):
        simulate_binomial(ReductionRun(8, 1024, kill="fetching-data"))


def test_concurrent_static_reductions_share_the_links():
    _, one = simulate_binomial(ReductionRun(16, 4 << 20))
    _, four = simulate_binomial(ReductionRun(16, 4 << 20, concurrent=4))
    assert four["result_ok"] and four["reductions"] == 4 and len(four["times"]) == 4
    assert one["time"] < four["time"] < 4 * one["time"]


def test_static_timeline_replays():
    tl, fig = simulate_binomial(ReductionRun(8, 1024, root=2))
    assert isinstance(tl, Timeline) and tl.n_steps > 0
    assert set(tl.entities) == {f"w{i}" for i in range(8)}
    assert tl.final_state["w2"] == "result"
    assert Timeline.from_dict(tl.to_dict()).to_dict() == tl.to_dict()
    assert fig["tasks"] == [] and fig["messages"] == 7


def test_environment_work_and_checks():
    env = Environment.build(3, speeds=[1, 0.5, 1], interference=[(2, 0.0, 1.0, 10.0)])
    assert env.finish((1,), 0.0, 1.0) == pytest.approx(2.0)
    assert env.finish((2,), 0.0, 0.2) == pytest.approx(1.1)  # 0.1 of work in the slow second, then 0.1
    assert env.factor(2, 0.5) == 10.0 and env.factor(2, 1.5) == 1.0
    for bad in ([(5, 2.0)], [(0, 0.5)]):
        with pytest.raises(SpecError):
            Environment.build(3, slow=bad)
    assert parse_slow("2:4,5") == [(2, 4.0), (5, 4.0)]
    assert parse_interference("3@0.1-0.5x4") == [(3, 0.1, 0.5, 4.0)]
    with pytest.raises(SpecError):
        parse_slow("x:y")


@pytest.mark.parametrize(
    "bad", [dict(procs=1), dict(root=9), dict(size=0), dict(arrival=[0, 0]), dict(concurrent=0), dict(op="median")]
)
def test_bad_arguments(bad):
    args = dict(procs=8, size=1024) | bad
    with pytest.raises(SpecError):
        simulate_binomial(ReductionRun(**args))
