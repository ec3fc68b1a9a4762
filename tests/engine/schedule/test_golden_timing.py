"""The LogGP timing pinned: makespans, finish times and traces computed by the code before it was made faster.

Every value here was computed at 7ba3e06 (per-operation objects, one heap of events), whose timing matches
LogGOPSim's; a change that alters any finish time, the order of the events or the JSON that ``goal show``
prints fails here. Digests are the first 16 hex digits of the SHA-256 of the JSON (``sort_keys``).
"""

from __future__ import annotations

import hashlib
import json
import random
import re

import pytest

from vizcoll.cli import main
from vizcoll.schedule import LogGP, dumps, goal_columns, parse, simulate, static_reduction, tree_collective
from vizcoll.schedule.goal import _Reader
from vizcoll.trees.typeone import knomial_tree


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


@pytest.mark.parametrize(
    ("algo", "procs", "size", "spec", "makespan", "first", "finish"),
    [
        ("rabenseifner", 256, 1048576, "", 12621664, [12621664, 6312332, 6342402], "b3b773fbd24fe3fd"),
        ("rabenseifner", 256, 1048576, "S=0,G=0,O=0", 88000, [88000, 48000, 53500], "39c1201c85d25b0d"),
        ("binomial", 1000, 65536, "", 3983100, [3983100, 4000, 402710], "34909c04881b9810"),
        ("binomial", 1000, 8, "L=1000,o=100,g=0,G=0,O=0", 10900, [10900, 100, 1300], "a8c95a90990034d0"),
    ],
)
def test_static_reductions_keep_their_finish_times(algo, procs, size, spec, makespan, first, finish):
    schedule = static_reduction(algo, procs, size)
    for timed in (schedule, parse(dumps(schedule)).schedule):  # built in memory, and read back from GOAL text
        result = simulate(timed, LogGP.parse(spec))
        assert (result.makespan, result.host, result.complete) == (makespan, 0, True)
        assert result.finish[:3] == first and digest(result.finish) == finish


def test_the_trace_keeps_its_events_in_order():
    result = simulate(static_reduction("binomial", 64, 100000), LogGP(), trace=True)
    assert len(result.trace) == 126 and digest(result.trace) == "72fd938dc7cb109c"


def show(capsys, tmp_path, schedule, *argv) -> str:
    path = tmp_path / "s.goal"
    path.write_text(dumps(schedule, comment="pinned"))
    assert main(["goal", "show", str(path), *argv]) == 0
    return hashlib.sha256(capsys.readouterr().out.encode()).hexdigest()[:16]


def test_goal_show_prints_the_same_bytes(capsys, tmp_path):
    rabenseifner = static_reduction("rabenseifner", 256, 1048576)
    assert show(capsys, tmp_path, rabenseifner) == "98990aeb705ae3c0"
    assert show(capsys, tmp_path, rabenseifner, "--trace", "--loggp", "S=100000") == "016ba893fa5644c7"
    allreduce = tree_collective(knomial_tree(300, 4), "allreduce", 70000)  # rendezvous: 70,000 > S
    assert show(capsys, tmp_path, allreduce, "--trace") == "a3c749d86ad40b64"


def read_line_by_line(text: str):
    reader = _Reader()
    for number, line in enumerate(text.splitlines(), start=1):
        reader.line(number, line)
    return reader.finish()


def test_the_plain_reader_reads_what_the_line_by_line_reader_reads():
    """Plain files (read all at once) and files changed a little (most then read line by line): the same
    problems, lines and schedule either way."""
    rnd = random.Random(7)
    text = dumps(tree_collective(knomial_tree(40, 3), "allreduce", 9))
    base = re.sub(r"from (\d+) tag 0", "from -1 tag -1", text, count=3)
    assert goal_columns.read(base) is not None  # plain, wildcards and all
    words = ["l0", "l01", "l9", "send", "calc", "-1", "7", "8b", "  ", "\t", "}", "rank", "requires", "//", "/*", "x"]
    plain = 0
    for _ in range(300):
        lines = base.split("\n")
        for _ in range(rnd.randint(0, 2)):
            i = rnd.randrange(len(lines))
            tokens = lines[i].split(" ")
            tokens[rnd.randrange(len(tokens))] = rnd.choice(words)
            lines[rnd.choice([i, rnd.randrange(len(lines))])] = " ".join(tokens)
        text = "\n".join(lines)
        plain += goal_columns.read(text) is not None
        fast, slow = parse(text), read_line_by_line(text)
        assert [str(p) for p in fast.problems] == [str(p) for p in slow.problems] and fast.lines == slow.lines
        if slow.schedule is not None:
            assert (fast.schedule.ops, fast.schedule.requires, fast.schedule.irequires) == (
                slow.schedule.ops,
                slow.schedule.requires,
                slow.schedule.irequires,
            )
    assert 50 < plain < 250  # both readers were compared
