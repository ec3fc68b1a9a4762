"""The barrier sweep in this process against a local Dask cluster of 1 and 2 workers (``--workers N``).

Run ``python benchmarks/sweeps.py [--workers 1,2] [--repeat 1] [sweep options, e.g. --sizes 4,8]``; without
sweep options it runs the paper's sizes (``barrier-sweep``'s defaults: 5 sizes x 6 rates x 3 seeds, 90 tasks).

Each run is ``python -m vizcoll barrier-sweep ...`` in a fresh process, timed from start to exit (the
local cluster's start included): first in-process, then with each ``--workers N``; each figure is the best
of ``--repeat`` runs. It prints one JSON row
per run (``seconds``, the speed-up over in-process and over one worker, whether the JSON is the in-process
one plus its ``"dask"`` key), then the load average before and after (the machine may be shared: a busy
core lowers the speed-up). The speed-up is bounded by the longest tasks (a 20 x 20 grid at 50 % broken
links, about 2.5 s) and by the cores: on 2 cores, 2 workers cannot run more than twice as fast as one.

``--markdown`` prints the rows on stderr as they come and the docs' table (docs/benchmarks.md) on stdout, with the
date, the commit and the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import stamp  # noqa: E402


def timed(argv: list[str], repeat: int) -> tuple[float, dict]:
    """Best wall seconds of ``repeat`` runs of ``python -m vizcoll barrier-sweep ARGV``, and its JSON."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "vizcoll", "barrier-sweep", *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        best = min(best, time.perf_counter() - start)
    return best, json.loads(proc.stdout)


def markdown(rows: list[dict], load: dict, repeat: int) -> str:
    """One row: the in-process time, each cluster's, the last cluster's speed-up over the first and over
    in-process, whether every run gave the in-process JSON, and the load average before and after; then the stamp."""
    local, clusters = rows[0], rows[1:]
    cells = [
        "one each" if repeat <= 1 else f"best of {repeat}",
        f"{local['seconds']:.1f} s",
        *(f"{r['seconds']:.1f} s" for r in clusters),
    ]
    heads = ["runs", "in-process", *(f"`{r['run']}`" for r in clusters)]
    if len(clusters) > 1:
        first, last = clusters[0], clusters[-1]
        heads += [f"{last['run'][10:]} workers ÷ {first['run'][10:]}", f"{last['run'][10:]} workers ÷ in-process"]
        cells += [f"{first['seconds'] / last['seconds']:.2f}×", f"{local['seconds'] / last['seconds']:.2f}×"]
    heads += ["the in-process JSON", "load average (1 min), before → after"]
    before, after = load["load_average_before"][0], load["load_average_after"][0]
    cells += ["yes" if all(r["same_json"] for r in clusters) else "**no**", f"{before:.2f} → {after:.2f}"]
    return stamp.table(heads, [cells], right=range(1, len(heads) - 2)) + "\n\n" + stamp.measured()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", default="1,2", help="the local clusters' sizes (default 1,2)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each, the best is kept (default 1)")
    ap.add_argument("--markdown", action="store_true", help="a Markdown table with the date, commit and machine")
    args, sweep = ap.parse_known_args(argv)
    out = sys.stderr if args.markdown else sys.stdout
    load = os.getloadavg()
    seconds, local = timed(sweep, args.repeat)
    rows = [{"run": "in-process", "seconds": round(seconds, 2)}]
    print(json.dumps(rows[0]), file=out, flush=True)
    one = None
    for n in (int(w) for w in args.workers.split(",")):
        took, result = timed([*sweep, "--workers", str(n)], args.repeat)
        dask = result.pop("dask")
        one = took if n == 1 else one
        rows.append(
            {
                "run": f"--workers {n}",
                "seconds": round(took, 2),
                "tasks": dask["tasks"],
                "speedup_over_in_process": round(seconds / took, 2),
                "speedup_over_1_worker": None if one is None else round(one / took, 2),
                "same_json": result == local,
            }
        )
        print(json.dumps(rows[-1]), file=out, flush=True)
    machine = {
        "load_average_before": [round(x, 2) for x in load],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(),
    }
    print(json.dumps(machine), file=out)
    if args.markdown:
        print(markdown(rows, machine, args.repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
