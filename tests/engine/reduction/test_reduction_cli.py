"""The ``reduce`` and ``reduce-reliability`` commands."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vizcoll.cli import main

ROOT = Path(__file__).resolve().parents[3]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out.strip() else None), err


def test_reduce_paper_example_subprocess():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "vizcoll",
            "reduce",
            "--procs",
            "4",
            "--size",
            "1024",
            "--algo",
            "task",
            "--root",
            "1",
            "--arrival",
            "0,3,1,2",
            "--seed",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {"time", "messages", "result_ok", "recovered", "tasks"} <= set(out)
    assert out["tasks"] == [{"pair": [0, 3], "to": 3}, {"pair": [1, 2], "to": 1}, {"pair": [1, 3], "to": 1}]
    assert out["result_ok"] is True and out["recovered"] is False and out["time"] > 0


@pytest.mark.parametrize("algo", ["binomial", "mst", "rabenseifner"])
def test_reduce_static(capsys, algo):
    status, out, err = run(
        capsys, "reduce", "--procs", "13", "--size", "4096", "--algo", algo, "--root", "5", "--slow", "2:4"
    )
    assert status == 0 and err == ""
    assert out["result_ok"] and out["tasks"] == [] and out["messages"] >= 12


def test_reduce_kill_rank_at_time_and_location(capsys):
    status, out, _ = run(capsys, "reduce", "--procs", "16", "--size", "1048576", "--kill", "3@0.012")
    assert status == 0 and out["fault"]["rank"] == 3 and out["result_ok"] and out["recovered"]
    status, out, _ = run(
        capsys,
        "reduce",
        "--procs",
        "8",
        "--size",
        "1048576",
        "--kill",
        "during-fetch",
        "--concurrent",
        "2",
        "--op",
        "max",
        "--warm",
    )
    assert status == 0 and out["fault"]["location"] == "fetching-data" and out["result_ok"]


def test_reduce_unrecoverable(capsys):
    status, out, _ = run(capsys, "reduce", "--procs", "8", "--size", str(64 << 20), "--kill", "3@0.001")
    assert status == 0 and out["unrecoverable"] and not out["result_ok"] and not out["recovered"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--kill", "nowhere"],
        ["--arrival", "0,x"],
        ["--slow", "a:b"],
        ["--algo", "binomial", "--kill", "fetching-data"],
        ["--root", "9"],
    ],
)
def test_reduce_user_errors(capsys, argv):
    status, out, err = run(capsys, "reduce", "--procs", "4", "--size", "64", *argv)
    assert status == 2 and out is None and err.startswith("vizcoll: error:")


def test_reduce_reliability(capsys):
    status, out, err = run(
        capsys, "reduce-reliability", "--procs", "24", "--runs", "30", "--seed", "2", "--size", str(4 << 20)
    )
    assert status == 0 and err == ""
    assert out["runs"] == 30 and 0 <= out["unrecoverable"] <= 30
    assert out["reliability"] == pytest.approx(1 - out["unrecoverable"] / 30)
