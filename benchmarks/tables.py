"""Every timing table of the README and docs/ is written by the benchmark that measured it: this script reruns them.

A generated region of ``README.md`` or ``docs/**/*.md`` sits between two markers that name its command::

    <!-- benchmark: python benchmarks/build_fabrics.py --markdown -->
    | fabric | ... |
    Measured on 2026-12-06 at commit abc1234 on AMD EPYC, 2 cores, 23.5 GB RAM by `python benchmarks/...`.
    <!-- /benchmark -->

``python benchmarks/tables.py`` runs the command of every region from the repository's folder and writes what it
prints to stdout in place of the region's text (stderr shows the benchmark's progress); ``--only SUBSTRING``
(repeatable) reruns only the regions whose command contains it; ``--check`` only lists the regions and their
commands, and exits 1 when a timing table stands outside a region or a region's command is not a benchmark that
accepts ``--markdown`` (what ``tests/test_benchmark_tables.py`` checks). A command that fails leaves its region as
it was (exit status 1). Every benchmark's ``--markdown`` ends its output with the line
:func:`benchmarks.stamp.measured` writes: the date, the commit, the machine and the command.
"""

from __future__ import annotations

import argparse
import ast
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START = re.compile(r"^<!-- benchmark: (?P<command>.+?) -->$")
END = "<!-- /benchmark -->"
TABLE_RULE = re.compile(r"^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$")
TIME_HEADER = re.compile(r"s\)|_s\b| ms\b| μs\b|\bseconds?\b|\btimes?\b|\bcold\b|\bwarm\b|\bp50\b|\bp95\b", re.I)
TIME_CELL = re.compile(r"\d\s?(?:s|ms|μs|min)\b")


@dataclass(frozen=True)
class Region:
    """Lines ``start`` (its opening marker) to ``end`` (its closing marker) of ``path``, 0-based."""

    path: Path
    start: int
    end: int
    command: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.start + 1}: {self.command}"


def documents(root: Path = ROOT) -> list[Path]:
    """The Markdown files whose tables are generated: README.md and every docs/**/*.md (sorted)."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def regions(path: Path, lines: list[str] | None = None) -> list[Region]:
    """The marked regions of a file, in order; a marker without its pair is an error."""
    lines = path.read_text().splitlines() if lines is None else lines
    found, start = [], None
    for i, line in enumerate(lines):
        opened = START.match(line.strip())
        if opened and start is None:
            start = (i, opened["command"])
        elif opened or (line.strip() == END and start is None):
            raise ValueError(f"{path}:{i + 1}: a benchmark marker inside a region or a closing one without its start")
        elif line.strip() == END:
            found.append(Region(path, start[0], i, start[1]))
            start = None
    if start is not None:
        raise ValueError(f"{path}:{start[0] + 1}: the region of {start[1]!r} is never closed ({END})")
    return found


def timing_tables(lines: list[str]) -> list[tuple[int, str]]:
    """The Markdown tables outside marked regions that hold times: (1-based line of the header, the header). A table
    holds times when its header names a time unit or a time column (``s)``, ``_s``, `` ms``, ``seconds``, ``time``,
    ``cold``, ``p95``, ...) or a cell is a duration (``0.42 s``, ``130 ms``)."""
    found, inside, i = [], False, 0
    while i < len(lines):
        line = lines[i].strip()
        if START.match(line):
            inside = True
        elif line == END:
            inside = False
        elif line.startswith("|") and i + 1 < len(lines) and TABLE_RULE.match(lines[i + 1]):
            j = i + 2
            while j < len(lines) and lines[j].strip().startswith("|"):
                j += 1
            body = "\n".join(lines[i + 2 : j])
            if not inside and (TIME_HEADER.search(line) or TIME_CELL.search(body)):
                found.append((i + 1, line))
            i = j
            continue
        i += 1
    return found


def script_of(command: str) -> Path | None:
    """The benchmark a region's command runs (``python benchmarks/NAME.py ...``), None for anything else."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if len(argv) < 2 or argv[0] not in ("python", "python3") or not re.fullmatch(r"benchmarks/\w+\.py", argv[1]):
        return None
    return ROOT / argv[1]


def accepts_markdown(script: Path) -> bool:
    """Whether the script's argument parser has a ``--markdown`` option."""
    if not script.is_file():
        return False
    return any(
        isinstance(node, ast.Call)
        and getattr(node.func, "attr", "") == "add_argument"
        and any(isinstance(a, ast.Constant) and a.value == "--markdown" for a in node.args)
        for node in ast.walk(ast.parse(script.read_text()))
    )


def problems(command: str) -> list[str]:
    """What is wrong with a region's command (nothing for ``python benchmarks/X.py ... --markdown``)."""
    script = script_of(command)
    if script is None:
        return [f"{command!r} is not `python benchmarks/NAME.py ...`"]
    out = [] if script.is_file() else [f"{script.relative_to(ROOT)} does not exist"]
    if script.is_file() and not accepts_markdown(script):
        out.append(f"{script.relative_to(ROOT)} has no --markdown option")
    if "--markdown" not in shlex.split(command):
        out.append(f"{command!r} does not ask for --markdown")
    return out


def replaced(lines: list[str], region: Region, output: str) -> list[str]:
    """``lines`` with the text between the region's markers replaced by ``output``, indented as its opening marker
    (a region inside a list item stays in it)."""
    indent = lines[region.start][: len(lines[region.start]) - len(lines[region.start].lstrip())]
    new = [(indent + line).rstrip() for line in output.strip("\n").splitlines()]
    return lines[: region.start + 1] + new + lines[region.end :]


def regenerate(region: Region) -> str | None:
    """Run the region's command (``python`` being this interpreter) and return what it printed; None on failure."""
    argv = shlex.split(region.command)
    print(f"running {region}", file=sys.stderr, flush=True)
    out = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if out.returncode or "Measured on " not in out.stdout:
        print(f"FAILED ({out.returncode}): {region}; its region is left as it was", file=sys.stderr)
        return None
    return out.stdout


def check(paths: list[Path]) -> list[str]:
    """Every timing table outside a region and every region command that is not a --markdown benchmark."""
    found = []
    for path in paths:
        lines = path.read_text().splitlines()
        for line, header in timing_tables(lines):
            found.append(f"{path.relative_to(ROOT)}:{line}: a timing table outside a benchmark region: {header}")
        for region in regions(path, lines):
            found += [f"{region}: {problem}" for problem in problems(region.command)]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="only regions whose command contains this")
    parser.add_argument("--check", action="store_true", help="list the regions and their commands; run nothing")
    args = parser.parse_args(argv)
    paths = documents()
    chosen = [r for path in paths for r in regions(path) if not args.only or any(o in r.command for o in args.only)]
    if args.check:
        print("\n".join(map(str, chosen)))
        problems_found = check(paths)
        print("\n".join(problems_found), file=sys.stderr)
        return int(bool(problems_found))
    status = 0
    for region in reversed(chosen):  # from the end of each file: a rewritten region moves no region before it
        output = regenerate(region)
        if output is None:
            status = 1
            continue
        lines = region.path.read_text().splitlines()
        region.path.write_text("\n".join(replaced(lines, region, output)) + "\n")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
