"""GOAL schedules: LogGP timing against hand-computed cases, the GOAL writer/reader and the checker."""

from __future__ import annotations

import math

import pytest

from vizcoll.barrier.algorithms import logical_barriers
from vizcoll.errors import SpecError
from vizcoll.schedule import (
    LogGP,
    Schedule,
    barrier,
    dumps,
    parse,
    simulate,
    static_reduction,
    tree_collective,
)
from vizcoll.schedule.check import check
from vizcoll.schedule.recorded import hop_schedule
from vizcoll.trees.typeone import hier_knomial_tree, kary_tree, knomial_tree

SPEC = LogGP(L=1000, o=100, g=0, G=0, O=0)  # the worked example of the GOAL spec: L + 2o = 1200 per step


# ------------------------------------------------------------------ LogGP timing, by hand
@pytest.mark.parametrize("P", [2, 4, 8, 16, 32, 3, 5, 13, 31])
def test_dissemination_barrier_takes_ceil_log2_p_steps(P):
    assert simulate(barrier("dissemination", P), SPEC).makespan == math.ceil(math.log2(P)) * 1200


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6])
def test_binomial_broadcast_takes_n_steps(n):
    result = simulate(tree_collective(knomial_tree(2**n, 2), "bcast", 1), SPEC)
    assert result.makespan == n * 1200 and result.finish[0] == n * 100  # the root only sends


def test_kary_reduce_serialises_the_root_on_its_receive_gap():
    # three children send at 0; their messages reach the root at o + L = 1100. With g = 300 the root's NIC takes
    # the second message at 1400 and the third at 1700; each costs the CPU o = 100.
    tree = kary_tree(4, 3)
    assert simulate(tree_collective(tree, "reduce", 1), SPEC).finish == [1400, 100, 100, 100]
    assert simulate(tree_collective(tree, "reduce", 1), LogGP(L=1000, o=100, g=300, G=0, O=0)).finish[0] == 1800


def test_long_messages_cost_G_per_byte_at_both_ends():
    p = LogGP(L=1000, o=100, g=0, G=2, O=1, S=10**9)
    s = Schedule(2)
    s.send(0, 1, 1001)
    s.recv(1, 0, 1001)
    # sender CPU: o + 1000·O = 1100; arrival at o + L = 1100; receiver CPU: o + max(1000·O, 1000·G) = 2100
    assert simulate(s, p).finish == [1100, 1100 + 2100]


def eager_or_rendezvous(S: int, late: int = 0) -> list[int]:
    s = Schedule(2)
    sent = s.send(0, 1, 1)
    s.calc(0, 10, after=[sent])
    work = s.calc(1, late) if late else None
    s.recv(1, 0, 1, after=[work] if late else [])
    return simulate(s, LogGP(L=1000, o=100, g=0, G=0, O=0, S=S)).finish


def test_eager_sends_finish_locally_rendezvous_ones_when_matched():
    assert eager_or_rendezvous(S=1) == [110, 1200]  # eager: the calc starts once the CPU is free (o)
    assert eager_or_rendezvous(S=0) == [1110, 1200]  # rendezvous: only when the receiver matches it (1100)
    # the receiver is busy until 5000: the message waits, is handled (unexpected) at 5000, then matched
    assert eager_or_rendezvous(S=0, late=5000) == [5010, 5100]
    assert eager_or_rendezvous(S=1, late=5000) == [110, 5100]


def test_wildcards_match_and_leftovers_are_reported():
    s = Schedule(3)
    s.send(1, 0, 4, tag=7)
    s.send(2, 0, 4, tag=9)
    s.recv(0, -1, 4, tag=-1)
    result = simulate(s, SPEC)
    assert not result.complete and len(result.unexpected) == 1 and result.unexpected[0]["rank"] == 0


def test_zero_byte_messages_need_G_and_O_zero():
    s = Schedule(2)
    s.send(0, 1, 0)
    s.recv(1, 0, 0)
    assert simulate(s, SPEC).makespan == 1200
    with pytest.raises(SpecError, match="0-byte"):
        simulate(s, LogGP())


# ------------------------------------------------------------------ exports
@pytest.mark.parametrize("algo", logical_barriers())
@pytest.mark.parametrize("P", [1, 2, 5, 8, 13])
def test_every_barrier_export_is_clean_and_round_trips(algo, P):
    s = barrier(algo, P)
    parsed = parse(dumps(s, comment="test"))
    assert parsed.problems == [] and parsed.schedule.ops == s.ops and parsed.schedule.requires == s.requires
    assert check(s) == []
    result = simulate(s, LogGP())
    assert result.complete and result.makespan > 0 or P == 1


def test_barriers_synchronise_every_rank():
    """No rank may finish before every rank has entered: each rank's last op depends (transitively) on all."""
    for algo in logical_barriers():
        for P in (3, 8, 13):
            late = Schedule(P)
            base = barrier(algo, P)
            for rank in range(P):  # rank 2 enters 50,000 late: everyone must finish after it entered
                delay = late.calc(rank, 50_000 if rank == 2 else 1)
                offset = delay + 1
                for op in base.ops[rank]:
                    late.add(rank, op)
                for a, b in base.requires[rank]:
                    late.requires[rank].append((a + offset, b + offset))
                for i in range(len(base.ops[rank])):
                    if not any(a == i for a, _ in base.requires[rank]):
                        late.requires[rank].append((i + offset, delay))
            finish = simulate(late, SPEC).finish
            assert min(finish) > 50_000, (algo, P, finish)


@pytest.mark.parametrize("op", ["bcast", "reduce", "allreduce"])
def test_tree_collectives_are_clean(op):
    for tree in (kary_tree(10, 3), knomial_tree(64, 4), hier_knomial_tree([4, 4, 3, 5], 2)):
        s = tree_collective(tree, op, 8)
        assert check(s) == [] and simulate(s, LogGP()).complete
        assert s.messages() == (tree.size - 1) * (2 if op == "allreduce" else 1)


@pytest.mark.parametrize("algo", ["binomial", "mst", "rabenseifner"])
def test_static_reductions_are_clean_even_under_rendezvous(algo):
    for P in (2, 6, 16):
        s = static_reduction(algo, P, 4096)
        assert check(s) == []
        assert simulate(s, LogGP(S=0)).complete  # every message rendezvous: exchanges must not deadlock


def test_grid_barrier_hops_replay_completely():
    from vizcoll.barrier.algorithms import run_barriers
    from vizcoll.topology.generators import mesh

    grid = mesh((4, 4), 8, hosts=0)
    grid.set_broken(0)
    timeline, figures = run_barriers(grid, "dlct+tree", barriers=1, compute=0.0)
    s = hop_schedule(timeline, grid.switches.tolist())
    assert s.messages() == figures["hops"] and check(s) == []
    assert simulate(s, LogGP(S=0)).complete


# ------------------------------------------------------------------ reading and checking any GOAL file
def problems(text: str) -> list[str]:
    parsed = parse(text)
    found = [str(p) for p in parsed.problems]
    if parsed.schedule is not None and not parsed.errors:
        found += [str(p) for p in check(parsed.schedule, parsed.lines)]
    return found


@pytest.mark.parametrize(
    "text, words",
    [
        ("num_ranks 1\nrank 0 {\n l1: calc 5\n}\n", "line 3: warning: white space at the start"),
        ("num_ranks 1\nrank 0 {\nl1: calc 5 // five\n}\n", "line 3: error: a comment (//) after a statement"),
        ("num_ranks 2\nrank 1 {\n}\nrank 0 {\n}\n", "line 2: error: rank 1 comes where rank 0 should"),
        ("num_ranks 2\nrank 0 {\n}\n", "error: no block for rank 1"),
        ("num_ranks 1\nrank 0 {\nl1: calc 5\nl1 requires l2\n}\n", "line 4: error: the dependency names label l2"),
        ("num_ranks 1\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n", "line 4: warning: label l1 defined twice"),
        ("num_ranks 2\nrank 0 {\nl1: send 8 to 1\n}\nrank 1 {\n}\n", "needs the b suffix"),
        ("num_ranks 2\nrank 0 {\nl1: SEND 8b to 1\n}\nrank 1 {\n}\n", "lower case only"),
        ("num_ranks 2\nrank 0 {\nl1: send 8b to 5\n}\nrank 1 {\n}\n", "line 3: error: rank 0 sends to rank 5"),
        (
            "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 3\n}\nrank 1 {\nl1: recv 8b from 0 tag 4\n}\n",
            "sends a message nobody receives",
        ),
        (
            "num_ranks 1\nrank 0 {\nl1: calc 5\nl2: calc 6\nl1 requires l2\nl2 requires l1\n}\n",
            "a dependency cycle in rank 0: op 0 (line 3) → op 1 (line 4)",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: recv 8b from 1\n}\nrank 1 {\nl1: recv 8b from 0\nl2: send 8b to 0\n"
            "l2 requires l1\n}\n",
            "never run",
        ),
        ("num_ranks 1\nrank 0 {\nl1: calc 5 nic 1\n}\n", "calc takes the options cpu"),
        ("rank 0 {\n}\n", "no num_ranks line"),
    ],
)
def test_problems_are_found_with_their_line(text, words):
    assert any(words in p for p in problems(text)), problems(text)


def test_comments_and_options_are_read():
    text = (
        "// a comment\n/* a block\ncomment */\nnum_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 3 cpu 1 nic 1\n"
        "}\nrank 1 {\nl1: recv 8b from -1 tag -1\nl2: calc 70 cpu 0\nl2 irequires l1\n}\n"
    )
    parsed = parse(text)
    assert parsed.problems == []
    s = parsed.schedule
    assert (s.ops[0][0].cpu, s.ops[0][0].nic, s.ops[1][0].peer, s.ops[1][0].tag) == (1, 1, -1, -1)
    assert s.irequires[1] == [(1, 0)] and parsed.lines == [[6], [9, 10]]
