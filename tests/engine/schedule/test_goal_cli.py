"""``python -m vizcoll goal ...``: exports, timing, check and show, run in-process."""

from __future__ import annotations

import json

from vizcoll.cli import main
from vizcoll.schedule import parse
from vizcoll.schedule.check import check

SPEC = "L=1000,o=100,g=0,G=0,O=0"


def run(capsys, *argv):
    status = main(["goal", *argv])
    out, err = capsys.readouterr()
    try:
        return status, json.loads(out), err
    except json.JSONDecodeError:
        return status, out, err


def test_the_issue_commands_write_clean_files(capsys, tmp_path):
    for argv in (
        ["barrier", "--algo", "dissemination", "--procs", "13"],
        ["tree", "--kind", "knomial", "--k", "4", "--nprocs", "64", "--op", "reduce"],
        ["reduce", "--algo", "rabenseifner", "--procs", "16", "--size", "4096"],
        ["barrier", "--algo", "dlct", "--size", "6", "--break-rate", "0.2", "--seed", "1"],
        ["tree", "--kind", "hier-knomial", "--k", "2", "--nprocs", "12", "--groups", "4,4,4"],
    ):
        path = tmp_path / "x.goal"
        status, out, err = run(capsys, *argv, "-o", str(path))
        assert status == 0 and err == "" and out["written"] == str(path), argv
        parsed = parse(path.read_text())
        assert parsed.problems == [] and check(parsed.schedule, parsed.lines) == []
        assert parsed.schedule.num_ranks == out["ranks"] and parsed.schedule.messages() == out["messages"]
        status, verdict, _ = run(capsys, "check", str(path))
        assert status == 0 and verdict["ok"] and verdict["problems"] == []


def test_loggp_timing_is_printed(capsys, tmp_path):
    status, out, _ = run(capsys, "barrier", "--algo", "dissemination", "--procs", "13", "--loggp", SPEC)
    assert status == 0 and out["makespan"] == 4800 and len(out["finish"]) == 13 and out["complete"]
    assert out["loggp"] == {"L": 1000, "o": 100, "g": 0, "G": 0, "O": 0, "S": 65535}
    path = tmp_path / "t.goal"
    run(
        capsys,
        "tree",
        "--kind",
        "knomial",
        "--k",
        "2",
        "--nprocs",
        "16",
        "--op",
        "bcast",
        "--bytes",
        "1",
        "-o",
        str(path),
    )
    status, shown, _ = run(capsys, "show", str(path), "--loggp", SPEC)
    assert status == 0 and shown["makespan"] == 4 * 1200


def test_without_output_the_goal_text_is_printed(capsys):
    status, text, _ = run(capsys, "barrier", "--algo", "ms", "--procs", "3")
    assert status == 0 and text.startswith("// written by vizcoll") and "num_ranks 3\nrank 0 {\n" in text


def test_bad_files_and_arguments_get_clear_messages(capsys, tmp_path):
    bad = tmp_path / "bad.goal"
    bad.write_text("num_ranks 2\nrank 0 {\n l1: send 8b to 3\n}\n")
    status, verdict, _ = run(capsys, "check", str(bad))
    assert status == 1 and not verdict["ok"]  # a script can test it
    lines = {(p["line"], p["severity"]) for p in verdict["problems"]}
    assert (3, "warning") in lines and (0, "error") in lines  # leading white space; no block for rank 1
    status, _, err = run(capsys, "barrier", "--algo", "dlct", "--procs", "8")
    assert status == 2 and "needs a grid" in err
    status, _, err = run(capsys, "barrier", "--algo", "tree", "--procs", "0")
    assert status == 2 and "from 1 to" in err
    status, _, err = run(capsys, "show", str(bad))
    assert status == 2 and "no block for rank 1" in err


def test_check_exits_1_on_receives_never_matched_and_says_so_in_help(capsys, tmp_path):
    """A Schedgen-style trace whose receive no send matches: ``"ok": false`` and exit status 1."""
    path = tmp_path / "unmatched.goal"
    path.write_text("num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 0\n}\nrank 1 {\nl1: calc 10\n}\n")
    status, verdict, _ = run(capsys, "check", str(path))
    assert status == 1 and verdict["ok"] is False
    assert any(p["severity"] == "error" and "never sent" in p["message"] for p in verdict["problems"])
    try:
        main(["goal", "check", "--help"])
    except SystemExit as done:
        assert done.code == 0
    assert "exits 1 when the file is not ok" in " ".join(capsys.readouterr().out.split())
