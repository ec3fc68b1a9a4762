"""``python -m vizcoll erasure`` and ``erasure-compare``."""

from __future__ import annotations

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
    return status, (json.loads(out) if out else None), err


def test_erasure_prints_every_metric(capsys):
    status, out, err = run(capsys, "erasure", "--code", "rs", "--n", "9", "--k", "5", "--dcs", "3")
    assert status == 0 and err == ""
    for key in (
        "code",
        "n",
        "k",
        "dcs",
        "placement",
        "generator",
        "repair_groups",
        "cross_dc_traffic",
        "mean_traffic",
        "dc_failures_survived",
        "block_failures_tolerated",
        "overhead",
        "repair_time_ms_per_mb",
        "mean_traffic_aggregated",
        "repair_groups_aggregated",
    ):
        assert key in out, key
    assert out["placement"] == [0, 0, 0, 1, 1, 1, 2, 2, 2] and len(out["generator"]) == 5
    assert out["mean_traffic"] == 3.0 and out["dc_failures_survived"] == 1 and out["overhead"] == 1.8
    assert out["repair_groups"][0] == {
        "block": 0,
        "dc": 0,
        "group": [1, 2, 3, 4, 5],
        "remote": [3, 4, 5],
        "local": [1, 2],
        "cross_dc": 3,
        "reads": 5,
        "exact": True,
    }


def test_erasure_fmel_and_a_user_placement(capsys):
    status, out, _ = run(
        capsys, "erasure", "--code", "fmel", "--n", "9", "--k", "5", "--dcs", "3", "--traffic", "aggregated"
    )
    assert status == 0 and out["mean_traffic_aggregated"] == pytest.approx(0.666667)
    assert out["search"]["meets_lower_bound"] is True and out["search"]["D"] == 1
    assert out["search"]["scheme"]["description"][0] == "DC 0: 3 blocks, local group (rebuilt inside the DC)"
    status, out, _ = run(
        capsys, "erasure", "--code", "lrc", "--n", "9", "--k", "5", "--dcs", "3", "--placement", "0,1,2,0,1,2,0,1,2"
    )
    assert status == 0 and out["placement"] == [0, 1, 2, 0, 1, 2, 0, 1, 2]
    status, out, _ = run(
        capsys, "erasure", "--code", "lrc", "--n", "10", "--k", "6", "--dcs", "3", "--local-groups", "2"
    )
    assert status == 0 and out["params"]["local_groups"] == 2


def test_erasure_compare(capsys):
    status, out, _ = run(capsys, "erasure-compare", "--n", "9", "--k", "5", "--dcs", "3")
    assert status == 0
    assert set(out["codes"]) == {"rs", "lrc", "replication", "fmel"}
    assert out["reductions_pct"]["rs"]["blocks"] == pytest.approx(74.1)
    assert out["paper"]["table2"][0]["label"] == "FMEL (n=9, k=5)"


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--code", "rs", "--n", "4", "--k", "5", "--dcs", "3"], "k = 5 data blocks cannot exceed n = 4"),
        (["--code", "rs", "--n", "400", "--k", "5", "--dcs", "3"], "above the limit of 32"),
        (["--code", "rs", "--n", "9", "--k", "5", "--dcs", "0"], "must be at least 1"),
        (["--code", "replication", "--n", "9", "--k", "5", "--dcs", "3"], "multiple of k"),
        (["--code", "fmel", "--n", "9", "--k", "5", "--dcs", "3", "--d", "2"], "can survive 2 DC failures"),
        (["--code", "rs", "--n", "9", "--k", "5", "--dcs", "3", "--placement", "0,1"], "lists 2 DC numbers"),
        (["--code", "rs", "--n", "9", "--k", "5", "--dcs", "3", "--local-groups", "2"], "--code lrc only"),
        (["--code", "rs", "--n", "9", "--k", "5", "--dcs", "3", "--budget", "0"], "--budget must be at least 1"),
    ],
)
def test_bad_input_is_one_error_line(capsys, argv, words):
    status, out, err = run(capsys, "erasure", *argv)
    assert status == 2 and out is None
    assert err.startswith("vizcoll: error: ") and words in err and err.count("\n") == 1


def test_erasure_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "vizcoll", "erasure", "--code", "fmel", "--n", "6", "--k", "2", "--dcs", "3"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["mean_traffic"] == 1.0 and out["dc_failures_survived"] == 2 and out["overhead"] == 3.0
    bad = subprocess.run(
        [sys.executable, "-m", "vizcoll", "erasure-compare", "--n", "3", "--k", "9", "--dcs", "3"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
