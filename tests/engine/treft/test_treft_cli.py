"""``python -m vizcoll treft``: the TREFT command line."""

import json
import subprocess
import sys
from pathlib import Path

from vizcoll.cli import main

ROOT = Path(__file__).resolve().parents[3]


def run(capsys, *argv):
    status = main(["treft", *argv])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out else None), err


def test_treft_with_an_injected_error(capsys):
    status, out, err = run(capsys, "--workflow", "VP", "--class", "B", "--variant", "e1", "--inject", "1:K4:u4")
    assert status == 0 and err == ""
    assert {"overhead_pct", "detected", "corrected", "ops"} <= set(out)
    assert out["detected"] is True and out["corrected"] is True and out["final_output_ok"] is True
    assert out["outcome"] == "corrected" and out["variant"] == "e1" and out["class"] == "B"
    assert out["overhead_pct"] > 0 and out["time"] > out["baseline_time"]
    assert {op["symbol"] for op in out["ops"]} == set("①②③④⑤⑥⑦⑧⑨⑩")
    assert out["injected"][0]["var"] == "u4"


def test_treft_variants_and_double_fault(capsys):
    overheads = {}
    for variant in ("treft", "e1", "e2"):
        status, out, _ = run(capsys, "--workflow", "mb", "--variant", variant)
        assert status == 0 and out["detected"] is False
        overheads[variant] = out["overhead_pct"]
    assert overheads["treft"] < overheads["e1"] < overheads["e2"]
    status, out, _ = run(capsys, "--workflow", "HC", "--inject", "r0:K2:u2", "--double", "r1:K2:u2")
    assert status == 0 and out["outcome"] == "undetected" and out["detected"] is False
    assert out["reason"].startswith("two replicas were hit by the same soft error (r0's u2 after K2, r1's u2 after K2)")


def test_treft_user_errors(capsys):
    status, out, err = run(capsys, "--workflow", "HC", "--inject", "1:K30:u30")
    assert status == 2 and out is None and "no kernel 'K30'" in err and err.startswith("vizcoll: error:")
    status, _, err = run(capsys, "--workflow", "HC", "--inject", "7:K3:u3")
    assert status == 2 and "replica must be 0, 1 or 2" in err


def test_treft_subprocess():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "vizcoll",
            "treft",
            "--workflow",
            "VP",
            "--class",
            "B",
            "--variant",
            "treft",
            "--inject",
            "2:K9:u9",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["corrected"] is True and out["sections"][0]["live"] == ["u3", "u6", "u9", "u12", "u15", "u18"]
