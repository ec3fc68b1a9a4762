"""The app's heavy sweeps on the job pool with 1 and with 2 workers: how much a sweep gains from idle workers.

Run ``python benchmarks/web_sweeps.py [--workers 1,2] [--sweep full]``. For each pool size it starts the
container's command (gunicorn with the Dockerfile's settings) with ``VIZCOLL_JOB_WORKERS=N`` and a fresh cache,
presses the /barrier sweep button through Dash's HTTP protocol (:class:`benchmarks.dash_http.DashClient`) and
times the job from the request to its answer. With two workers and nothing else running, the sweep's job borrows
the idle one (:func:`vizcoll.ui.jobs.parallel_tasks`). It prints one JSON row per pool size (``seconds``, the
speed-up over one worker, whether the answer is the one-worker answer) and the load average before and after.
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", default="1,2", help="the pool sizes (default 1,2)")
    ap.add_argument("--sweep", default="full", choices=("quick", "full"), help="the sweep (default full)")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()[0]
    first = None
    for workers in [int(w) for w in args.workers.split(",")]:
        seconds, answer = timed_sweep(workers, args.sweep)
        first = first or (seconds, answer)
        print(
            json.dumps(
                {
                    "job_workers": workers,
                    "sweep": args.sweep,
                    "seconds": round(seconds, 1),
                    "speedup_over_first": round(first[0] / seconds, 2),
                    "same_answer": answer == first[1],
                }
            )
        )
    print(
        json.dumps(
            {"load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)], "cores": os.cpu_count()}
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
