"""The app's heavy sweeps on the job pool with 1 and with 2 workers: how much a sweep gains from idle workers.

Run ``python benchmarks/web_sweeps.py [--workers 1,2] [--sweep full]``. For each pool size it starts the
container's command (gunicorn with the Dockerfile's settings) with ``VIZCOLL_JOB_WORKERS=N`` and a fresh cache,
presses the /barrier sweep button through Dash's HTTP protocol (:class:`benchmarks.dash_http.DashClient`) and
times the job from the request to its answer. With two workers and nothing else running, the sweep's job borrows
the idle one (:func:`vizcoll.ui.jobs.parallel_tasks`). It prints one JSON row per pool size (``seconds``, the
speed-up over one worker, whether the answer is the one-worker answer) and the load average before and after;
``--markdown`` prints them as the docs' table (docs/benchmarks.md) instead, with the date, the commit and the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import stamp  # noqa: E402
from benchmarks.dash_http import DashClient  # noqa: E402
from tests.gunicorn_server import gunicorn  # noqa: E402


def timed_sweep(workers: int, mode: str) -> tuple[float, dict]:
    """Seconds of the /barrier sweep job on a pool of ``workers``, and its answer."""
    with (
        tempfile.TemporaryDirectory(prefix="vizcoll-sweeps-") as folder,
        gunicorn(Path(folder), VIZCOLL_JOB_WORKERS=str(workers)) as (base, _),
    ):
        client = DashClient(base, timeout=60)
        dep = client.callback("bar-sweep.data")
        start = time.perf_counter()
        run = client.run_job(dep, {"bar-sweep-key.data": {"mode": mode, "neighbors": 8}}, limit=600)
        return time.perf_counter() - start, run["response"]


def markdown(rows: list[dict], load: list[float]) -> str:
    """One row per pool size, then the load average and the stamp."""
    cells = [
        [
            str(r["job_workers"]),
            f"{r['seconds']:.1f} s",
            f"{r['speedup_over_first']:.2f}×",
            "yes" if r["same_answer"] else "**no**",
        ]
        for r in rows
    ]
    heads = ["`VIZCOLL_JOB_WORKERS`", f"the {rows[0]['sweep']} sweep", "speed-up over the first", "the same answer"]
    table = stamp.table(heads, cells, right=[0, 1, 2])
    return f"{table}\n\nLoad average (1 min) {load[0]:.2f} before, {load[1]:.2f} after.\n{stamp.measured()}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", default="1,2", help="the pool sizes (default 1,2)")
    ap.add_argument("--sweep", default="full", choices=("quick", "full"), help="the sweep (default full)")
    ap.add_argument("--markdown", action="store_true", help="a Markdown table with the date, commit and machine")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()[0]
    first, rows = None, []
    for workers in [int(w) for w in args.workers.split(",")]:
        seconds, answer = timed_sweep(workers, args.sweep)
        first = first or (seconds, answer)
        rows.append(
            {
                "job_workers": workers,
                "sweep": args.sweep,
                "seconds": round(seconds, 1),
                "speedup_over_first": round(first[0] / seconds, 2),
                "same_answer": answer == first[1],
            }
        )
        print(json.dumps(rows[-1]), file=sys.stderr if args.markdown else sys.stdout)
    load = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    if args.markdown:
        print(markdown(rows, load))
    else:
        print(json.dumps({"load_average_1min": load, "cores": os.cpu_count()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
