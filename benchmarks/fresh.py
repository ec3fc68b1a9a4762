"""Measurements in fresh interpreters: a benchmark runs itself again as ``SCRIPT --child NAME ...`` for each
measurement, so that no import, cache or memory of an earlier one counts, and reads the JSON it prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_child(script: str, *args: str, env: dict | None = None) -> dict:
    """The JSON on the last line that ``python SCRIPT --child ARGS...`` prints, run from the repository root."""
    out = subprocess.run(
        [sys.executable, script, "--child", *args], check=True, capture_output=True, text=True, cwd=ROOT, env=env
    )
    return json.loads(out.stdout.strip().splitlines()[-1])
