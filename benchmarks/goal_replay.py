"""How long ``python -m vizcoll goal show`` takes on a paper-scale GOAL schedule, end to end.

Run ``python benchmarks/goal_replay.py [--procs 4096] [--size 1048576] [--repeat 5] [--against DIR]
[--markdown]``.

The script writes the schedule itself into a temporary directory (``goal reduce --algo rabenseifner``: on 4,096
ranks a 6.7 MB file of 106,494 operations and 192,510 dependencies), then times ``goal show FILE`` (read, check,
simulate, print) in a fresh process ``--repeat`` times and keeps the best: ``wall_s`` (the process from start to
exit) and ``cpu_s`` (its user + system time, steadier on a shared machine). ``--against DIR`` times the checkout
in DIR too (e.g. a worktree of an older commit), the runs of both interleaved, and adds ``speedup`` (its best
over ours). It prints one JSON document; ``--markdown`` prints a Markdown table instead, with the date, the
commit and the machine on a line under it.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import stamp  # noqa: E402


def vizcoll(tree: Path, *args: str) -> str:
    """The standard output of ``python -m vizcoll ARGS`` run in the checkout ``tree``."""
    return subprocess.run(
        [sys.executable, "-m", "vizcoll", *args], cwd=tree, check=True, capture_output=True, text=True
    ).stdout


def timed(tree: Path, path: Path) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds, printed JSON) of one ``goal show`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = vizcoll(tree, "goal", "show", str(path))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(out)


def measure(procs: int, size: int, repeat: int, against: Path | None) -> dict:
    trees = {"this": ROOT} | ({"against": against} if against else {})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rabenseifner.goal"
        made = json.loads(
            vizcoll(
                ROOT,
                "goal",
                "reduce",
                "--algo",
                "rabenseifner",
                "--procs",
                str(procs),
                "--size",
                str(size),
                "-o",
                str(path),
            )
        )
        best = {name: [float("inf"), float("inf")] for name in trees}
        shown = {}
        for _ in range(max(1, repeat)):
            for name, tree in trees.items():
                wall, cpu, shown[name] = timed(tree, path)
                best[name] = [min(best[name][0], wall), min(best[name][1], cpu)]
        out = {
            "case": f"goal show: Rabenseifner reduction of {size:,} bytes on {procs:,} ranks",
            "file_mb": round(path.stat().st_size / 1e6, 2),
            "operations": made["operations"],
            "makespan": shown["this"]["makespan"],
            "host": shown["this"]["host"],
            "repeat": repeat,
            "wall_s": round(best["this"][0], 3),
            "cpu_s": round(best["this"][1], 3),
        }
    if against:
        same = shown["against"] == shown["this"]
        out |= {
            "against": str(against),
            "against_wall_s": round(best["against"][0], 3),
            "against_cpu_s": round(best["against"][1], 3),
            "speedup": {
                "wall": round(best["against"][0] / best["this"][0], 2),
                "cpu": round(best["against"][1] / best["this"][1], 2),
            },
            "same_output": same,
        }
    return out


def markdown(result: dict) -> str:
    rows = [("this checkout", result["wall_s"], result["cpu_s"])]
    if "against" in result:
        rows.append((f"`{result['against']}`", result["against_wall_s"], result["against_cpu_s"]))
    lines = [
        f"{result['case']} ({result['file_mb']} MB, {result['operations']:,} operations), best of {result['repeat']}:",
        "",
        "| checkout | wall s | CPU s |",
        "| --- | ---: | ---: |",
        *(f"| {name} | {wall:.2f} | {cpu:.2f} |" for name, wall, cpu in rows),
        "",
        stamp.measured(),
    ]
    if "speedup" in result:
        speedup = result["speedup"]
        line = f"Speed-up: {speedup['wall']}x wall, {speedup['cpu']}x CPU; same output: {result['same_output']}."
        lines.insert(-1, line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--procs", type=int, default=4096, help="ranks (default 4096)")
    parser.add_argument("--size", type=int, default=1048576, help="bytes reduced (default 1048576)")
    parser.add_argument("--repeat", type=int, default=5, help="runs, the best kept (default 5)")
    parser.add_argument("--against", type=Path, help="another checkout to time the same way, interleaved")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table instead of JSON")
    args = parser.parse_args(argv)
    result = measure(args.procs, args.size, args.repeat, args.against)
    print(markdown(result) if args.markdown else json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
