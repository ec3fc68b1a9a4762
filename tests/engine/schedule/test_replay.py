"""A traced LogGP run as a timeline on a fabric: one send per message along its route, LogGP's times unchanged."""

from __future__ import annotations

from collections import Counter

import pytest

from vizcoll.errors import SpecError
from vizcoll.schedule import LogGP, Schedule, barrier, loggp_timeline, simulate, static_reduction
from vizcoll.schedule.replay import messages
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.generators import from_spec
from vizcoll.topology.hops import min_hops
from vizcoll.trees.metrics import Router

PARAMS = LogGP(L=1000, o=100, g=0, G=0, O=0)


@pytest.fixture(scope="module")
def fat_tree():
    topo = from_spec("fat-tree:radix=4,levels=3")  # 16 end nodes h0..h15
    return topo, min_hops(topo)


def run(schedule, topo, table, params=PARAMS, nodes=None):
    result = simulate(schedule, params, trace=True)
    nodes = nodes if nodes is not None else [topo.index(f"h{r}") for r in range(schedule.num_ranks)]
    return result, nodes, loggp_timeline(schedule, result, nodes, topo, table)


@pytest.mark.parametrize("P", [8, 13])
def test_a_dissemination_barrier_sends_one_event_per_message_along_its_route(fat_tree, P):
    topo, table = fat_tree
    schedule = barrier("dissemination", P)
    result, nodes, tl = run(schedule, topo, table)
    sends = [e for e in tl.events if e.kind == "send"]
    assert len(sends) == schedule.messages()
    traced = [e for e in result.trace if e["kind"] == "send"]
    # the same messages at the same times as the LogGP trace (each send at its start)
    assert Counter((e.t, e.src, e.dst) for e in sends) == Counter(
        (float(e["start"]), nodes[e["rank"]], nodes[e["peer"]]) for e in traced
    )
    router = Router(topo, table)
    for e in sends:
        assert e.path_links == [int(topo.link_id[row]) for row in router.route(e.src, e.dst)]
        assert e.path_links  # every rank has its own end node: every message crosses links
    # every message is handled at the receiver's trace time, and every rank finishes at its LogGP time
    delivered = Counter((e.t, e.dst) for e in tl.events if e.kind == "deliver")
    assert delivered == Counter((float(e["start"]), nodes[e["rank"]]) for e in result.trace if e["kind"] == "recv")
    finish = {int(tl.entities[key]["rank"]): e.t for e in tl.events if e.kind == "state" for key in e.state_changes}
    assert finish == {r: float(t) for r, t in enumerate(result.finish)}
    assert tl.final_state == {f"r{r}": "done" for r in range(P)}
    assert tl.summary["makespan"] == result.makespan == {8: 3, 13: 4}[P] * 1200
    assert tl.time_at(tl.n_steps - 1) == result.makespan
    assert Timeline.from_dict(tl.to_dict()).to_dict() == tl.to_dict()


def test_each_send_is_paired_with_its_handling_in_fifo_order():
    # rank 1 posts its receives late (after a long calc): the trace then also lists the late matches
    s = Schedule(2)
    first = s.send(0, 1, 1)
    s.send(0, 1, 1, after=[first])
    work = s.calc(1, 50_000)
    s.recv(1, 0, 1, after=[work])
    s.recv(1, 0, 1, after=[work])
    result = simulate(s, PARAMS, trace=True)
    pairs = [(m["sent"], m["handled"]) for m in messages(result, 2)]
    # each message is handled when it arrives (o + L after its send), not when the receive is posted;
    # the receiver's CPU is busy with the calc, so both wait until 50,000
    assert pairs == [(0, 50_000), (100, 50_100)]


def test_ranks_on_one_node_exchange_without_links_and_broken_routes_are_counted():
    topo = from_spec("fat-tree:radix=4,levels=2")
    table = min_hops(topo)
    s = static_reduction("binomial", 4, 64)
    h0, h1 = topo.index("h0"), topo.index("h1")
    result, nodes, tl = run(s, topo, table, nodes=[h0, h0, h1, h1])
    sends = [e for e in tl.events if e.kind == "send"]
    assert [e.path_links for e in sends if e.src == e.dst] == [[], []]
    assert all(e.path_links for e in sends if e.src != e.dst)
    assert "same node" in sends[0].label and tl.summary["unrouted"] == 0
    cut = topo.copy()
    cut.broken[[row for row in range(cut.n_links) if h1 in (cut.link_a[row], cut.link_b[row])]] = True
    _, _, broken = run(s, cut, min_hops(cut), nodes=[h0, h0, h1, h1])
    assert broken.summary["unrouted"] == 1
    assert any("no live route" in e.label for e in broken.events)


def test_a_busy_step_is_captioned_by_a_note_counting_its_events(fat_tree):
    topo, table = fat_tree
    _, _, tl = run(barrier("dissemination", 16), topo, table)
    assert tl.caption(0).startswith(
        "t = 0 ns: 16 messages leave (rank 0 → rank 1, rank 1 → rank 2, rank 2 → rank 3, …)"
    )
    assert tl.caption(1) == "t = 1,100 ns: 16 messages are handled"
    assert tl.caption(tl.n_steps - 1) == "t = 4,800 ns: 16 ranks finish"


def test_too_few_processes_or_no_trace_is_refused(fat_tree):
    topo, table = fat_tree
    s = barrier("dissemination", 4)
    with pytest.raises(SpecError, match="4 ranks but only 3 processes"):
        loggp_timeline(s, simulate(s, PARAMS, trace=True), [0, 1, 2], topo, table)
    with pytest.raises(SpecError, match="trace=True"):
        loggp_timeline(s, simulate(s, PARAMS), [0, 1, 2, 3], topo, table)
    with pytest.raises(SpecError, match="not in the topology"):
        loggp_timeline(s, simulate(s, PARAMS, trace=True), [0, 1, 2, 10**6], topo, table)
