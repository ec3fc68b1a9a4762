"""The speed guard's pure parts (``benchmarks/guard.py``): pairing, ratio and verdict on made-up timings, and its
base commit. No wall-clock time is measured or asserted here."""

from __future__ import annotations

import doctest
import subprocess
from pathlib import Path

import pytest

from benchmarks import guard, pages, stamp

ROOT = Path(__file__).resolve().parents[1]
CASES = guard.cases(Path("fabric.topo"), Path("reduce.goal"))


def test_a_row_pairs_the_best_time_of_each_tree_and_their_ratio():
    rows = guard.pair({"a": [2.0, 1.0], "b": [0.5]}, {"a": [1.6, 1.5], "b": [0.4, 0.45]}, ["a", "b"])
    assert rows == [
        {"case": "a", "base_s": 1.0, "head_s": 1.5, "ratio": 1.5},
        {"case": "b", "base_s": 0.5, "head_s": 0.4, "ratio": 0.8},
    ]


def test_a_case_missing_or_failing_on_a_tree_has_no_time_there_and_no_ratio():
    rows = guard.pair({"a": [None], "c": [1.0, None]}, {"a": [1.0], "b": [2.0], "c": [1.0]}, ["a", "b", "c"])
    assert [(r["base_s"], r["head_s"], r["ratio"]) for r in rows] == [(None, 1.0, None), (None, 2.0, None)] + [
        (None, 1.0, None)  # a failed run of three: the case is broken there
    ]
    assert guard.pair({"a": [1.0]}, {"a": [1.0, None]}, ["a"])[0]["head_s"] is None


def test_ratio_rounds_and_never_divides_by_zero():
    assert guard.ratio(2.0, 3.0) == 1.5 and guard.ratio(3.0, 1.0) == 0.33
    assert guard.ratio(0.0, 0.002) == 2.0
    assert guard.ratio(None, 1.0) is None and guard.ratio(1.0, None) is None


@pytest.mark.parametrize(
    ("base_s", "head_s", "why"),
    [
        (1.0, 1.25, None),  # at the threshold: passes
        (1.0, 1.3, "slower"),  # over it, and 0.3 s slower
        (0.02, 0.06, None),  # three times slower, but by 40 ms: under the floor
        (0.1, 0.2, "slower"),  # twice as slow, by 100 ms
        (None, 5.0, None),  # not on the base: never fails
        (1.0, None, "head failed"),
        (None, None, "head failed"),
        (2.0, 1.0, None),  # faster
    ],
)
def test_a_row_fails_when_slower_beyond_the_threshold_and_the_floor_or_when_the_head_failed(base_s, head_s, why):
    row = {"case": "x", "base_s": base_s, "head_s": head_s, "ratio": guard.ratio(base_s, head_s)}
    assert guard.verdict(row, threshold=1.25, floor=0.05) == why
    assert guard.exit_status([row], 1.25, 0.05) == (why is not None)


def test_the_exit_status_is_1_when_any_row_fails():
    ok = {"case": "a", "base_s": 1.0, "head_s": 1.0, "ratio": 1.0}
    slow = {"case": "b", "base_s": 1.0, "head_s": 2.0, "ratio": 2.0}
    assert guard.exit_status([ok, ok], 1.25, 0.05) == 0
    assert guard.exit_status([ok, slow], 1.25, 0.05) == 1
    assert guard.exit_status([ok, slow], 2.5, 0.05) == 0  # a looser threshold
    assert guard.exit_status([ok, slow], 1.25, 1.5) == 0  # a larger floor


def test_runs_alternate_base_and_head_and_a_failing_tree_is_not_asked_again():
    calls = []

    def measure(case, tree):
        calls.append((case.name, tree))
        if case.name == "new" and tree == "base":
            return None, "no such command"
        if case.name == "broken" and tree == "head":
            return None, "Traceback ...\nValueError: boom"
        return {row: 1.0 + len(calls) / 10 for row in case.rows()}, ""

    chosen = [guard.Case("page", (), page=True), guard.Case("new", ()), guard.Case("broken", ())]
    base, head, errors = guard.interleaved(chosen, measure, repeat=2, log=lambda _text: None)
    assert calls == [
        ("page", "base"),
        ("page", "head"),
        ("page", "base"),
        ("page", "head"),
        ("new", "base"),
        ("new", "head"),
        ("new", "head"),
        ("broken", "base"),
        ("broken", "head"),
        ("broken", "base"),
    ]
    assert base["page (cold)"] == base["page (warm)"] == [1.1, 1.3] and head["page (cold)"] == [1.2, 1.4]
    assert base["new"] == [None] and head["broken"] == [None]
    assert errors == {"broken": "Traceback ...\nValueError: boom"}
    rows = guard.pair(base, head, [r for c in chosen for r in c.rows()])
    assert [guard.verdict(r, 1.25, 0.05) for r in rows] == [None, None, None, "head failed"]


def test_a_case_found_slower_is_timed_again_and_judged_on_all_its_runs():
    calls = []
    head_times = {"noisy": [2.0, 2.0, 1.0, 2.0, 2.0], "slow": [3.0, 3.0, 3.0, 3.0, 3.0]}

    def measure(case, tree):
        calls.append((case.name, tree))
        value = 1.0 if tree == "base" else head_times[case.name].pop(0) if case.name in head_times else 1.0
        return {case.name: value}, ""

    chosen = [guard.Case("noisy", ()), guard.Case("same", ()), guard.Case("slow", ())]
    base, head, _ = guard.timed(chosen, measure, (2, 3), (1.25, 0.05), log=lambda _text: None)
    assert [c for c in calls if c[0] == "same"] == [("same", "base"), ("same", "head")] * 2  # not timed again
    assert len(head["noisy"]) == len(head["slow"]) == 5 and len(base["noisy"]) == 5
    rows = guard.pair(base, head, ["noisy", "same", "slow"])
    assert [guard.verdict(r, 1.25, 0.05) for r in rows] == [None, None, "slower"]
    _, head, _ = guard.timed([guard.Case("x", ())], lambda c, t: ({"x": 1.0 + (t == "head")}, ""), (1, 0), (1.25, 0))
    assert head["x"] == [2.0]  # --confirm 0: no second look


def test_cases_are_chosen_by_substring_and_the_quick_set():
    quick = guard.select(CASES, quick=True)
    assert quick and all(c.quick for c in quick) and len(quick) < len(CASES)
    assert [c.name for c in guard.select(CASES, ["/trees"])] == [c.name for c in CASES if "/trees" in c.name]
    assert guard.select(CASES, ["no such case"]) == []
    names = [c.name for c in CASES]
    assert len(set(names)) == len(names)


def test_every_page_case_is_a_case_of_pages_py_and_of_the_base_unless_newer():
    base_pages = subprocess.run(
        ["git", "show", f"{guard.read_base()}:benchmarks/pages.py"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    for case in CASES:
        if case.page:
            name = case.argv[-1]
            assert name in pages.CASES or name in pages.FABRIC_CASES, case.name
            assert "--fabric" in case.argv or f'"{name}"' in base_pages, case.name


def test_the_markdown_table_says_which_rows_fail_then_where_it_was_measured():
    rows = [
        {"case": "a", "base_s": 1.0, "head_s": 2.0, "ratio": 2.0},
        {"case": "b", "base_s": None, "head_s": 0.5, "ratio": None},
    ]
    text = guard.markdown(rows, 1.25, 0.05, "Measured on ...")
    assert text.splitlines()[:4] == [
        "| case | base_s | head_s | ratio |  |",
        "| --- | ---: | ---: | ---: | --- |",
        "| a | 1.000 | 2.000 | 2.00 | slower |",
        "| b | – | 0.500 | – | not on the base |",
    ]
    assert text.endswith("\n\nMeasured on ...")


def test_benchmarks_base_holds_a_full_hash_of_a_commit_that_exists(tmp_path):
    base = guard.read_base()
    assert subprocess.run(["git", "cat-file", "-e", f"{base}^{{commit}}"], cwd=ROOT).returncode == 0
    (tmp_path / "BASE").write_text("eeed0cd\n")
    with pytest.raises(ValueError, match="40 hex"):
        guard.read_base(tmp_path / "BASE")


def test_the_stamp_helpers():
    assert doctest.testmod(stamp).failed == 0
    line = stamp.measured(["--markdown"], str(ROOT / "benchmarks" / "guard.py"), at="abc1234")
    assert line.startswith("Measured on 20") and " at commit abc1234 on " in line
    assert line.endswith(" by `python benchmarks/guard.py --markdown`.") and " cores" in line
