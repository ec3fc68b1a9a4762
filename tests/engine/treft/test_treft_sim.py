"""TREFT runtime simulation: soft errors, 2-of-3 voting, operations ① to ⑩, the Timeline, overheads."""

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vizcoll.errors import SpecError
from vizcoll.sim.engine import Engine, Queue
from vizcoll.sim.timeline import Timeline
from vizcoll.treft import CIRCLED, CostModel, KernelCall, Program, Serial, Write, parse_fault, simulate_treft
from vizcoll.treft.npb import solver

ROLES = ("executor", "worker", "subworker", "monitor", "device", "wq", "cq", "fq", "data")


def small_program(pragmas=None, eager_cross=True):
    """x0 -> K1 -> K2 -> Write(y1); K3 reads u1 and u2 after the Write -> two sections (rule 1)."""
    statements = (
        Serial("S0", (), ("x0",), lambda: np.linspace(-1, 1, 5 * 4**3).reshape(5, 4, 4, 4), time=0.5),
        KernelCall("K1", ("x0",), ("u1",), solver("BT"), time=5.0, subtasks=2, solver="BT"),
        KernelCall("K2", ("u1",), ("u2",), solver("LU"), time=4.0, subtasks=2, solver="LU"),
        Write("u2", "y1"),
        KernelCall("K3", ("u1", "u2"), ("u3",), solver("FT"), time=3.0, subtasks=2, solver="FT"),
        Write("u3", "y2"),
    )
    sizes = {"x0": 4_000_000, "u1": 4_000_000, "u2": 1_000_000, "u3": 2_000_000}
    return Program("small", statements, sizes, ("y1", "y2"), pragmas=pragmas)


# ---------------------------------------------------------------- fault-free runs and overheads
def test_fault_free_run():
    tl, fig = simulate_treft("HC.A")
    assert fig["outcome"] == "no error" and fig["final_output_ok"]
    assert not fig["detected"] and not fig["corrected"]
    assert fig["time"] > fig["baseline_time"] > 0
    assert fig["overhead_pct"] == pytest.approx(100 * (fig["time"] - fig["baseline_time"]) / fig["baseline_time"])
    assert all(tl.final_state[f"r{r}.data"] == "ok" for r in range(3))
    assert all(tl.final_state[f"r{r}.executor"] == "done" for r in range(3))


@pytest.mark.parametrize("name", ["HC.A", "HC.B", "VP.A", "VP.B", "MB.A", "MB.B"])
def test_overhead_order_treft_e1_e2(name):
    treft, e1, e2 = (simulate_treft(name, v)[1]["overhead_pct"] for v in ("treft", "e1", "e2"))
    assert 0 < treft < e1 < e2


def test_overheads_follow_the_paper():
    """Averages over the six workflows (paper: 10.77 %, 13.05 %, 52.77 %) and the TREFT trend VP > MB > HC."""
    over = {
        (w, c, v): simulate_treft(f"{w}.{c}", v)[1]["overhead_pct"]
        for w in ("HC", "VP", "MB")
        for c in ("A", "B")
        for v in ("treft", "e1", "e2")
    }
    mean = {v: np.mean([x for (_, _, vv), x in over.items() if vv == v]) for v in ("treft", "e1", "e2")}
    assert mean["treft"] == pytest.approx(10.77, abs=0.5)  # the calibrated figure
    assert 10.77 < mean["e1"] < 20 and 40 < mean["e2"] < 60  # predicted by the model
    assert mean["e2"] > 4 * mean["treft"]  # paper: about 5x
    for c in ("A", "B"):
        assert over[("VP", c, "treft")] > over[("MB", c, "treft")] > over[("HC", c, "treft")]
        assert over[("HC", c, "e1")] - over[("HC", c, "treft")] < 0.1  # HC barely changes with eager transfer


def test_network_parameters_drive_the_overhead():
    slow = simulate_treft("VP.A", cost=CostModel(latency=0.1, bandwidth_mbps=13.98))[1]["overhead_pct"]
    fast = simulate_treft("VP.A", cost=CostModel(latency=0.1, bandwidth_mbps=100.0))[1]["overhead_pct"]
    far = simulate_treft("VP.A", cost=CostModel(latency=1.0, bandwidth_mbps=100.0))[1]["overhead_pct"]
    assert fast < slow and far > fast


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cost": {"latency": 0}}, "latency"),
        ({"cost": {"bandwidth_mbps": -1}}, "bandwidth"),
        ({"seed": -1}, "seed"),
        ({"inject": (3, "K1", "u1")}, "replica"),
        ({"inject": (0, "K99", "u1")}, "no kernel"),
        ({"inject": (0, "K1", "u2")}, "does not define"),
        ({"inject": "0:K1"}, "REPLICA:KERNEL:VAR"),
    ],
)
def test_bad_parameters(kwargs, message):
    with pytest.raises(SpecError, match=message):
        if "cost" in kwargs:  # the timing model checks its own fields
            kwargs = kwargs | {"cost": CostModel(**kwargs["cost"])}
        simulate_treft("HC.A", **kwargs)


def test_parse_fault():
    assert parse_fault("r1:K3:u3") == (1, "K3", "u3") == parse_fault("1:K3:u3")
    with pytest.raises(SpecError):
        parse_fault("x:K3:u3")


# ---------------------------------------------------------------- single errors are always corrected
@settings(max_examples=24, deadline=None)
@given(
    name=st.sampled_from(["HC.A", "VP.A", "MB.A", "HC.B"]),
    variant=st.sampled_from(["treft", "e1", "e2"]),
    kernel=st.integers(1, 18),
    replica=st.integers(0, 2),
    seed=st.integers(0, 2**16),
)
def test_a_single_soft_error_is_detected_and_corrected(name, variant, kernel, replica, seed):
    clean = simulate_treft(name, variant)[1]
    tl, fig = simulate_treft(name, variant, inject=(replica, f"K{kernel}", f"u{kernel}"), seed=seed)
    (hit,) = fig["injected"]
    assert hit["before"] != hit["after"]  # a real bit flip in real data
    assert fig["outcome"] == "corrected" and fig["detected"] and fig["corrected"]
    assert fig["final_output_ok"]  # every replica's output equals the fault-free run
    assert fig["overhead_pct"] == pytest.approx(clean["overhead_pct"])
    repaired = {v["replica"] for v in fig["votes"] if v["outcome"] == "corrected"}
    assert repaired == {replica}
    assert tl.final_state[f"r{replica}.data"] == "corrected"


def test_error_spreads_until_the_compare_sync_point():
    tl, fig = simulate_treft("HC.A", "treft", inject=(2, "K3", "u3"))
    notes = [e.label for e in tl.events if e.kind == "note"]
    faults = [e.label for e in tl.events if e.kind == "fault"]  # the injection is a key moment of the replay
    assert len(faults) == 1 and faults[0].startswith("⚡ soft error") and "u3" in faults[0]
    moments = tl.key_moments()
    kinds = [m["kinds"] for m in moments]
    assert kinds[0] == ["fault"] and ["detect"] in kinds and ["vote"] in kinds
    assert kinds.index(["fault"]) < kinds.index(["vote"]) < kinds.index(["detect"])
    spread = [n for n in notes if n.startswith("the error spreads on r2")]
    assert len(spread) == 15  # K4 .. K18 all read a wrong value
    states = [tl.state_at(k)["r2.data"] for k in range(tl.n_steps)]
    assert "ERROR in u3" in states and "ERROR in u18" in states and states[-1] == "corrected"
    assert any("overwrites it" in e.label and "u18" in e.label for e in tl.events if e.kind == "detect")
    # one section per kernel stops the error at once
    tl, _ = simulate_treft("HC.A", "e2", inject=(2, "K3", "u3"))
    assert not any(e.label.startswith("the error spreads") for e in tl.events)


# ---------------------------------------------------------------- double faults
def test_identical_double_fault_is_undetected():
    tl, fig = simulate_treft("VP.A", inject=(0, "K5", "u5"), double_fault=(2, "K5", "u5"))
    assert fig["outcome"] == "undetected" and not fig["detected"] and not fig["corrected"]
    assert not fig["final_output_ok"]
    fooled = [v for v in fig["votes"] if v["outcome"] == "corrected"]
    assert {v["replica"] for v in fooled} == {1} and not any(v["truth"] for v in fooled)
    assert any("outvoted by two identical wrong copies" in e.label for e in tl.events)
    assert fig["reason"] == (
        "two replicas were hit by the same soft error (r0's u5 after K5, r2's u5 after K5): at the vote ending "
        "section 1 their two equal wrong copies of u6 outvote r1's correct one"
    )


def test_different_double_fault_is_unrecoverable():
    tl, fig = simulate_treft("HC.A", inject=(0, "K3", "u3"), double_fault=(1, "K5", "u5"))
    assert fig["outcome"] == "unrecoverable" and fig["detected"] and not fig["corrected"]
    assert not fig["final_output_ok"]
    assert all(tl.final_state[f"r{r}.data"].startswith("NO MAJORITY") for r in range(3))
    assert fig["reason"] == (
        "two replicas were hit by different soft errors (r0's u3 after K3, r1's u5 after K5), so the three copies "
        "of u18 all differ at the vote ending section 1: there is no 2-of-3 majority to restore it"
    )


def test_double_fault_in_separate_sections_is_two_single_faults():
    _, fig = simulate_treft("HC.A", "e2", inject=(0, "K3", "u3"), double_fault=(1, "K5", "u5"))
    assert fig["outcome"] == "corrected" and fig["final_output_ok"] and fig["reason"] is None


# ---------------------------------------------------------------- rules at run time
def test_rule_4_repaired_early_data_is_sent_again():
    tl, fig = simulate_treft(small_program(), "e1", inject=(1, "K1", "u1"))
    assert len(fig["sections"]) == 2
    assert fig["outcome"] == "corrected" and fig["final_output_ok"]
    resent = [e for e in tl.events if e.label.startswith("rule 4: r1 re-sends")]
    assert resent and all("K3's node" in e.label for e in resent)
    # K3 (section 2) computed with repaired inputs: nothing to repair in section 2
    assert all(v["section"] == 1 for v in fig["votes"])


def test_without_a_section_the_error_escapes():
    program = small_program(pragmas=[(4, 4)])  # K1 and K2 outside every section
    tl, fig = simulate_treft(program, inject=(0, "K2", "u2"))
    assert {v["rule"] for v in fig["violations"]} >= {1, 2}
    assert fig["outcome"] == "escaped" and not fig["final_output_ok"]
    assert any("escaped into the output y1" in e.label for e in tl.events)


def test_parallel_pattern_runs_its_kernels_together():
    statements = (
        Serial("S0", (), ("x0",), lambda: np.ones((4, 4, 4)), time=0.1),
        KernelCall("K1", ("x0",), ("u1",), solver("MG"), time=2.0, subtasks=1, pattern="P1"),
        KernelCall("K2", ("x0",), ("u2",), solver("LU"), time=3.0, subtasks=1, pattern="P1"),
        KernelCall("K3", ("u1", "u2"), ("u3",), solver("FT"), time=1.0, subtasks=1),
        Write("u3", "y"),
    )
    program = Program("par", statements, {"x0": 1000, "u1": 1000, "u2": 1000, "u3": 1000}, ("y",))
    tl, fig = simulate_treft(program, "e2", inject=(2, "K2", "u2"))
    assert [s["kernels"] for s in fig["sections"]] == [["K1", "K2"], ["K3"]]
    assert any(e.label == "r0's executor launches K1 and K2" for e in tl.events)
    assert fig["outcome"] == "corrected"


# ---------------------------------------------------------------- the timeline
@pytest.fixture(scope="module")
def replay():
    return simulate_treft("MB.A", "treft", inject=(1, "K4", "u4"))


def test_timeline_entities_and_states(replay):
    tl, _ = replay
    keys = {f"r{r}.{role}" for r in range(3) for role in ROLES}
    assert set(tl.entities) == keys == set(tl.initial_state)
    assert tl.entities["r2.monitor"]["replica"] == 2 and tl.entities["r0.wq"]["kind"] == "queue"
    seen = {}
    for k in range(tl.n_steps):
        for key, value in tl.changes_at(k).items():
            seen.setdefault(key.split(".")[1], set()).add(value)
    assert any(v.startswith("running K4 (MG)") for v in seen["device"])
    assert "3 kernels done, blocked until OPET" in {p for v in seen["device"] for p in v.split("; ")}
    assert any(v.startswith("queue: 3 items") for v in seen["cq"])
    assert any(v.startswith("voting on") for v in seen["subworker"])
    assert {"ERROR in u4", "corrected"} <= seen["data"]
    assert any(v.startswith("OPRS") for v in seen["monitor"])


def test_every_numbered_operation_has_labelled_events(replay):
    tl, fig = replay
    for symbol in CIRCLED:
        assert any(e.label.startswith(symbol) for e in tl.events), symbol
    assert any(e.label.startswith("④ OPRS: r1's monitor tells r0 and r2") for e in tl.events)
    sends = [e for e in tl.events if e.kind == "send"]
    assert sends and all(0 <= e.src <= 2 and 0 <= e.dst <= 2 for e in sends)
    assert all(tl.caption(k) and not tl.caption(k).endswith("events") for k in range(tl.n_steps))


def test_ops_are_numbered_and_in_order(replay):
    _, fig = replay
    ops = fig["ops"]
    assert [o["t"] for o in ops] == sorted(o["t"] for o in ops)
    assert {o["step"] for o in ops} == set(range(1, 11))
    for r in range(3):
        mine = [o for o in ops if o["replica"] == r]
        assert [o["step"] for o in mine if o["step"] in (1, 4, 8, 10)] == [1, 4, 8, 10]
        assert sum(o["step"] == 2 for o in mine) == 18
    assert all(o["label"].startswith(o["symbol"]) for o in ops)


def test_timeline_round_trips_and_is_deterministic(replay):
    tl, fig = replay
    data = json.loads(json.dumps(tl.to_dict()))
    assert Timeline.from_dict(data).to_dict() == tl.to_dict()
    again, fig2 = simulate_treft("MB.A", "treft", inject=(1, "K4", "u4"))
    assert again.to_dict() == tl.to_dict() and fig2 == fig
    assert tl.summary["outcome"] == "corrected" and tl.summary["n_ops"] == len(fig["ops"])
    assert "r1's u4" in tl.intro


# the captions that make a replica's variable wrong, and the one that repairs it
SOFT_ERROR = re.compile(r"⚡ soft error: .* on r(\d)'s device node flips bit \d+ of (\w+)\[")
SPREAD = re.compile(r"the error spreads on r(\d): .*, so (\w+) is wrong too$")
OVERWRITTEN = re.compile(
    r"r(\d)'s copy of (\w+) differs from the two others, which agree: the 2-of-3 vote "
    r"overwrites it"
)


def wrong_live_values(timeline, live):
    """Per step, the (replica, variable) pairs of live variables that the events so far have made wrong and
    no vote has overwritten yet (from the captions, not from the data cells)."""
    wrong = set()
    for step in range(timeline.n_steps):
        for event in timeline.active_at(step):
            if hit := SOFT_ERROR.match(event.label) or SPREAD.match(event.label):
                wrong.add((int(hit[1]), hit[2]))
            elif hit := OVERWRITTEN.match(event.label):
                wrong.discard((int(hit[1]), hit[2]))
        yield {(r, var) for r, var in wrong if var in live}


@pytest.mark.parametrize("variant", ["treft", "e1", "e2"])
@pytest.mark.parametrize("name", ["VP.A", "VP.B", "MB.A", "MB.B"])
def test_data_cell_says_corrected_only_once_every_wrong_live_value_is_overwritten(name, variant):
    for kernel, replica, seed in ((1, 0, 0), (4, 1, 1), (9, 2, 2), (14, 1, 3)):
        tl, fig = simulate_treft(name, variant, inject=(replica, f"K{kernel}", f"u{kernel}"), seed=seed)
        live = {var for sec in fig["sections"] for var in sec["live"]}
        per_step = list(wrong_live_values(tl, live))
        assert any(per_step) and not per_step[-1]  # the captions show the error and its repair
        for step, wrong in enumerate(per_step):
            state = tl.state_at(step)  # recomputed from the event list, as the player does
            for r in range(3):
                still_wrong = sorted(var for q, var in wrong if q == r)
                assert state[f"r{r}.data"] != "corrected" or not still_wrong, (
                    f"K{kernel} on r{replica}, seed {seed}, step {step}: r{r}.data says corrected while "
                    f"{still_wrong} have not been overwritten by the vote yet"
                )


# ---------------------------------------------------------------- the event engine
def test_queue_is_fifo_and_keeps_items_visible():
    eng = Engine()
    seen, sizes = [], []
    q = Queue(eng, dispatch_delay=1.0, on_change=lambda queue: sizes.append(len(queue.pending)))

    def consumer():
        for _ in range(3):
            item = yield q.get()
            seen.append((eng.now, item))

    eng.start(consumer())
    for item in "abc":
        q.put(item)
    eng.run()
    assert seen == [(1.0, "a"), (2.0, "b"), (3.0, "c")]
    assert sizes == [1, 2, 3, 2, 1, 0]


def test_all_of_waits_for_every_signal():
    eng = Engine()
    done = eng.all_of([eng.timeout(2.0, "x"), eng.timeout(1.0, "y")])
    eng.run()
    assert done.fired and done.value == ["x", "y"] and eng.now == 2.0


# ---------------------------------------------------------------- the runtime's modules and a golden run
#: every numbered operation of the small program with a soft error on r1's u2, in the order the engine runs them
SMALL_OPS = "①①①②③②③②③②③②③②③④④④⑤⑤⑤⑤⑤⑤⑥⑥⑥⑥⑥⑥⑦⑦⑦⑦⑦⑦⑧⑧⑧⑨⑨⑨⑩⑩⑩①①①②③②③②③④④④⑤⑤⑤⑥⑥⑥⑦⑦⑧⑧⑦⑧⑨⑨⑨⑩⑩⑩"


def test_small_program_golden_run():
    tl, fig = simulate_treft(small_program(), inject=(1, "K2", "u2"))
    assert "".join(op["symbol"] for op in fig["ops"]) == SMALL_OPS
    assert fig["time"] == pytest.approx(36.15110443490704, rel=1e-12)
    assert fig["baseline_time"] == pytest.approx(22.676937052932768, rel=1e-12)
    assert fig["outcome"] == "corrected" and len(tl.events) == 875


def test_runtime_parts_stay_importable_from_the_runtime_module():
    from vizcoll.treft import checks, records, replica, runtime, threads

    for name in runtime.__all__:
        assert hasattr(runtime, name)
    assert runtime.Fault is records.Fault and runtime.Recorder is records.Recorder
    assert issubclass(runtime.Run, threads.Threads) and issubclass(threads.Threads, checks.Checks)
    assert issubclass(checks.Checks, replica.RunState)
