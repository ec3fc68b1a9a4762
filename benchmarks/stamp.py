"""What a benchmark's ``--markdown`` prints: its tables in Markdown, then one line saying when, at which commit, on
which machine and by which command they were measured, so that a table in the docs never outlives its code
(``benchmarks/tables.py`` writes such output into the docs' marked regions)."""

from __future__ import annotations

import datetime
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def machine() -> str:
    """The CPU model (``/proc/cpuinfo``), the cores and the RAM: ``"AMD EPYC, 2 cores, 23.5 GB RAM"``."""
    model = platform.processor() or platform.machine()
    ram = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = f", {int(line.split()[1]) / 2**20:.1f} GB RAM"
                break
    except OSError:
        pass
    return f"{model or 'an unknown CPU'}, {os.cpu_count()} cores{ram}"


def commit(root: Path = ROOT, rev: str = "HEAD") -> str:
    """The short hash of ``rev`` in the repository at ``root``; for the working tree's HEAD, followed by "+" when
    its code (anything but Markdown) differs from the commit. "unknown" outside a git repository."""
    try:
        short = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", rev], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    if rev == "HEAD":
        clean = subprocess.run(["git", "-C", str(root), "diff", "--quiet", "HEAD", "--", ".", ":!*.md"]).returncode
        short += "+" if clean else ""
    return short


def command(argv: Sequence[str] | None = None, script: str | None = None) -> str:
    """The command that ran this benchmark, as one would type it from the repository's folder."""
    script = script or sys.argv[0]
    path = Path(script).resolve()
    shown = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else script
    return shlex.join(["python", shown, *(sys.argv[1:] if argv is None else argv)])


def measured(argv: Sequence[str] | None = None, script: str | None = None, at: str | None = None) -> str:
    """``Measured on YYYY-MM-DD at commit abc1234 on <machine> by `python benchmarks/X.py ARGS`.``"""
    day = datetime.date.today().isoformat()
    return f"Measured on {day} at commit {at or commit()} on {machine()} by `{command(argv, script)}`."


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[int] = ()) -> str:
    """A Markdown table; the columns numbered in ``right`` are right-aligned, None is shown as "–".

    >>> print(table(["a", "b"], [["x", 1.5], ["y", None]], right=[1]))
    | a | b |
    | --- | ---: |
    | x | 1.5 |
    | y | – |
    """
    rule = ["---:" if i in right else "---" for i in range(len(headers))]
    lines = [headers, rule] + [["–" if cell is None else str(cell) for cell in row] for row in rows]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def seconds(value: float | None) -> str | None:
    """A time as the tables show it: ``0.742 s``, ``58 ms`` under 0.1 s, None kept.

    >>> seconds(1.23456), seconds(0.0581), seconds(None)
    ('1.23 s', '58 ms', None)
    """
    if value is None:
        return None
    return f"{value * 1000:.0f} ms" if value < 0.1 else f"{value:.2f} s"
