"""Load on the hosted demo: light users alone, then beside users running the heaviest jobs, and a worker killed.

Run ``python benchmarks/load.py [--light 20] [--heavy 3] [--seconds 60] [--no-kill]``. It starts the
container's command (gunicorn with the Dockerfile's settings: 3 workers) on a loopback port with a fresh
cache, and stops everything by itself; nothing leaves the machine.

- **light users** (``--light``) each repeat, as fast as answers come, what a visitor clicking around asks:
  the scenario badge, the share link and the topology drawing of the default scenario (three callbacks of
  Dash's HTTP protocol, as the browser posts them);
- **phase 1**: the light users alone for ``--seconds``;
- **phase 2**: the light users again, while ``--heavy`` users each start the heaviest jobs the pages offer
  (the barrier's full sweep, the erasure search at n = 32, the erasure family comparison, in turn) as
  background jobs and poll them to the end; half-way through, one gunicorn worker is killed with
  ``kill -9`` (``--no-kill`` to skip): gunicorn starts another, a light request caught in the dead worker
  counts as an error, and a job either finishes (its process is not the worker's) or reports that it ended
  without a result and can be started again.

Printed as JSON: per phase the light requests' count, p50 / p95 / max latency (s) and errors; the heavy
jobs' durations, whether each showed progress, and how each ended.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.dash_http import DashClient  # noqa: E402
from tests.gunicorn_server import gunicorn  # noqa: E402
from vizcoll.ui.calls import DEFAULT_SCENARIO  # noqa: E402

SCENARIO = DEFAULT_SCENARIO.to_dict()
LIGHT = [  # (output of the callback, its input values)
    ("scenario-badge.children", {"scenario.data": SCENARIO}),
    ("share-link.href", {"scenario.data": SCENARIO, "shell-url.pathname": "/topology",
                         "shell-url.href": "http://127.0.0.1/topology"}),
    ("topo-canvas.elements", {"scenario.data": SCENARIO}),
]
HEAVY = [  # (output of the background callback, its input values): the heaviest jobs the pages offer
    ("bar-sweep.data", {"bar-sweep-key.data": {"mode": "full", "neighbors": 8}}),
    ("era-params.data", {"era-n.value": 32, "era-k.value": 16, "era-dcs.value": 8, "era-code.value": "fmel",
                         "era-traffic.value": "blocks", "era-d.value": None, "era-seed.value": 0,
                         "era-placement.value": "", "scenario.data": SCENARIO}),
    ("era-compare.figure", {"era-params.data": {"n": 24, "k": 16, "dcs": 4, "code": "fmel", "traffic": "blocks",
                                                "d": None, "seed": 0, "placement": None}}),
]


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 4)


def light_user(base: str, stop: threading.Event, times: list[float], errors: list[str]) -> None:
    client = DashClient(base, timeout=30)
    calls = [(client.callback(output), values) for output, values in LIGHT]
    i = 0
    while not stop.is_set():
        dep, values = calls[i % len(calls)]
        started = time.monotonic()
        try:
            client.post(dep, values)
            times.append(time.monotonic() - started)
        except Exception as exc:  # noqa: BLE001 - every failure is a counted error
            errors.append(type(exc).__name__)
        i += 1


def heavy_user(base: str, stop: threading.Event, offset: int, jobs: list[dict]) -> None:
    client = DashClient(base, timeout=60)
    i = offset
    while not stop.is_set():
        output, values = HEAVY[i % len(HEAVY)]
        started = time.monotonic()
        try:
            run = client.run_job(client.callback(output), values, limit=300)
            jobs.append({"job": output, "seconds": round(run["seconds"], 2), "progress_seen": bool(run["progress"]),
                         "ended": "result" if run["response"] else "no result (interrupted: start it again)"})
        except Exception as exc:  # noqa: BLE001 - a job lost with a killed worker is reported, not fatal
            jobs.append({"job": output, "seconds": round(time.monotonic() - started, 2), "ended": repr(exc)[:80]})
        i += 1


def phase(base: str, light: int, heavy: int, seconds: float, kill_pid: int | None) -> dict:
    stop = threading.Event()
    times: list[float] = []
    errors: list[str] = []
    jobs: list[dict] = []
    threads = [threading.Thread(target=light_user, args=(base, stop, times, errors)) for _ in range(light)]
    threads += [threading.Thread(target=heavy_user, args=(base, stop, i, jobs)) for i in range(heavy)]
    for thread in threads:
        thread.start()
    killed = None
    if kill_pid is not None:
        time.sleep(seconds / 2)
        os.kill(kill_pid, signal.SIGKILL)
        killed = kill_pid
        time.sleep(seconds / 2)
    else:
        time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=330)
    out = {"light_requests": len(times), "p50_s": percentile(times, 0.5), "p95_s": percentile(times, 0.95),
           "max_s": percentile(times, 1.0), "errors": len(errors)}
    if heavy:
        out["heavy_jobs"] = jobs
    if killed:
        out["killed_worker"] = killed
    return out


def workers(proc: subprocess.Popen) -> list[int]:
    listing = subprocess.run(["ps", "--ppid", str(proc.pid), "-o", "pid="], capture_output=True, text=True).stdout
    return [int(pid) for pid in listing.split()]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--light", type=int, default=20)
    parser.add_argument("--heavy", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--no-kill", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="vizcoll-load-") as folder, gunicorn(Path(folder)) as (base, proc):
        DashClient(base)  # warm up: every worker imports the app
        result = {"light_alone": phase(base, args.light, 0, args.seconds, None)}
        kill = None if args.no_kill else workers(proc)[0]
        result["with_heavy_jobs"] = phase(base, args.light, args.heavy, args.seconds, kill)
        result["settings"] = {"light_users": args.light, "heavy_users": args.heavy, "seconds": args.seconds,
                              "gunicorn_workers": 3, "cores": os.cpu_count()}
    return result


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
