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

``--classroom`` runs a lecture instead (:func:`classroom`): ``--students`` visitors (30) press the same /trees
preset (TaihuLight, 40,960 processes) within ``--spread`` seconds, ``--fresh`` of them (5) with a width k of
their own; one visitor opens 12 tabs of the 64-port fat tree preset, each with another k; another visitor starts
a 16,000-process tree; light users click meanwhile. Printed: the server's peak memory (every process of
gunicorn's tree) and peak number of job processes, the job processes started, each group's waits (submit to
answer, p50 / p95 / max) and how their requests ended, and the light users' latencies. ``--celery`` runs the
jobs on a Celery worker (the documented command, its default concurrency: the CPU count) and a throw-away
``redis-server`` instead, and also prints the tasks the worker received.

``--markdown`` prints the docs' tables (docs/benchmarks.md) instead of the JSON, with the date, the commit and the
machine.
"""

from __future__ import annotations

import argparse
import contextlib
import http.cookiejar
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import stamp  # noqa: E402
from benchmarks.dash_http import DashClient  # noqa: E402
from tests.gunicorn_server import celery_worker, gunicorn, redis_server  # noqa: E402
from vizcoll.scenario import Scenario  # noqa: E402
from vizcoll.ui.pages.trees._model import preset_scenario  # noqa: E402
from vizcoll.ui.store import DEFAULT_SCENARIO  # noqa: E402

SCENARIO = DEFAULT_SCENARIO.to_dict()
LIGHT = [  # (output of the callback, its input values)
    ("scenario-badge.children", {"scenario.data": SCENARIO}),
    (
        "share-link.href",
        {"scenario.data": SCENARIO, "shell-url.pathname": "/topology", "shell-url.href": "http://127.0.0.1/topology"},
    ),
    ("topo-canvas.elements", {"scenario.data": SCENARIO}),
]
HEAVY = [  # (output of the background callback, its input values): the heaviest jobs the pages offer
    ("bar-sweep.data", {"bar-sweep-key.data": {"mode": "full", "neighbors": 8}}),
    (
        "era-params.data",
        {
            "era-n.value": 32,
            "era-k.value": 16,
            "era-dcs.value": 8,
            "era-code.value": "fmel",
            "era-traffic.value": "blocks",
            "era-d.value": None,
            "era-seed.value": 0,
            "era-placement.value": "",
            "scenario.data": SCENARIO,
        },
    ),
    (
        "era-compare.figure",
        {
            "era-params.data": {
                "n": 24,
                "k": 16,
                "dcs": 4,
                "code": "fmel",
                "traffic": "blocks",
                "d": None,
                "seed": 0,
                "placement": None,
            }
        },
    ),
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
            jobs.append(
                {
                    "job": output,
                    "seconds": round(run["seconds"], 2),
                    "progress_seen": bool(run["progress"]),
                    "ended": "result" if run["response"] else "no result (interrupted: start it again)",
                }
            )
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
    out = {
        "light_requests": len(times),
        "p50_s": percentile(times, 0.5),
        "p95_s": percentile(times, 0.95),
        "max_s": percentile(times, 1.0),
        "errors": len(errors),
    }
    if heavy:
        out["heavy_jobs"] = jobs
    if killed:
        out["killed_worker"] = killed
    return out


def tree_job(scenario: Scenario) -> dict:
    """The values of /trees' background callback for ``scenario`` (the job's order and the scenario)."""
    return {"trees-heavy.data": {"run": 1}, "scenario.data": scenario.to_dict()}


def visitor(base: str, jobs: list[tuple[str, dict]], delay: float, waits: list[dict]) -> None:
    """One browser: after ``delay`` s, one tab a job (every tab opened at once), each run to its end."""
    time.sleep(delay)
    cookies = http.cookiejar.CookieJar()
    DashClient(base, cookies=cookies)  # the first visit sets the visitor cookie
    threads = [threading.Thread(target=tab, args=(base, cookies, group, values, waits)) for group, values in jobs]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join()


def tab(base: str, cookies, group: str, values: dict, waits: list[dict]) -> None:
    client = DashClient(base, timeout=60, cookies=cookies)
    started = time.monotonic()
    try:
        ended = _ending(
            client.run_job(client.callback("trees-compare.children@"), values, poll=0.5, limit=600)["response"]
        )
    except Exception as exc:  # noqa: BLE001 - reported
        ended = repr(exc)[:80]
    waits.append({"group": group, "seconds": time.monotonic() - started, "ended": ended})


def _ending(response) -> str:
    """How a tab's job ended, from the answer of its last poll (None: no update)."""
    text = str(response)
    if "server is busy" in text:
        return "busy"
    if "job may" in text:
        return "over a limit"
    return "answer" if response else "given way to a newer request"


def sample(procs: list[subprocess.Popen], stop: threading.Event, seen: dict) -> None:
    """Peak memory of the server (every process of gunicorn's tree and of the Celery worker's, if any) and peak
    and distinct job processes (a gunicorn worker's children; the Celery worker's pool processes)."""
    import psutil

    roots = [psutil.Process(proc.pid) for proc in procs]
    gunicorn_pid = procs[0].pid
    while not stop.wait(0.2):
        with contextlib.suppress(psutil.Error):
            tree = [p for root in roots for p in (root, *root.children(recursive=True))]
            rss = sum(p.memory_info().rss for p in tree if p.is_running())
            jobs = {
                p.pid
                for p in tree
                if p.ppid() != gunicorn_pid
                and p not in roots
                and p.status() != psutil.STATUS_ZOMBIE
                and "chrom" not in p.name()
            }
            seen["peak_gb"] = max(seen.get("peak_gb", 0), round(rss / 2**30, 2))
            seen["peak_jobs"] = max(seen.get("peak_jobs", 0), len(jobs))
            seen.setdefault("pids", set()).update(jobs)


def classroom(base: str, procs: list[subprocess.Popen], args) -> dict:
    preset = preset_scenario(DEFAULT_SCENARIO, "taihulight")
    big = preset_scenario(DEFAULT_SCENARIO, "fat-tree-64")
    rng = random.Random(0)
    plans = [[("same preset", tree_job(preset))] for _ in range(args.students - args.fresh)]
    plans += [[("fresh parameters", tree_job(preset.with_params("trees", {"k": 3 + i})))] for i in range(args.fresh)]
    waits: list[dict] = []
    people = [threading.Thread(target=visitor, args=(base, jobs, rng.uniform(0, args.spread), waits)) for jobs in plans]
    tabs = [("12 tabs, one visitor", tree_job(big.with_params("trees", {"k": 2 + i}))) for i in range(12)]
    other = [("another visitor, 16,000 processes", tree_job(Scenario(spec="fat-tree:radix=40,levels=3")))]
    people += [
        threading.Thread(target=visitor, args=(base, tabs, 1.0, waits)),
        threading.Thread(target=visitor, args=(base, other, 2.0, waits)),
    ]
    stop, seen, times, errors = threading.Event(), {}, [], []
    threads = [threading.Thread(target=sample, args=(procs, stop, seen))]
    threads += [threading.Thread(target=light_user, args=(base, stop, times, errors)) for _ in range(args.light)]
    for thread in threads + people:
        thread.start()
    for person in people:
        person.join()
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    groups = {}
    for wait in waits:
        group = groups.setdefault(wait["group"], {"seconds": [], "ended": {}})
        group["seconds"].append(wait["seconds"])
        group["ended"][wait["ended"]] = group["ended"].get(wait["ended"], 0) + 1
    return {
        "peak_server_gb": seen.get("peak_gb"),
        "peak_job_processes": seen.get("peak_jobs"),
        "job_processes_started": len(seen.get("pids", ())),
        "groups": {
            name: {
                "requests": len(g["seconds"]),
                "wait_p50_s": percentile(g["seconds"], 0.5),
                "wait_p95_s": percentile(g["seconds"], 0.95),
                "wait_max_s": percentile(g["seconds"], 1),
                "ended": g["ended"],
            }
            for name, g in groups.items()
        },
        "light": {
            "requests": len(times),
            "p95_s": percentile(times, 0.95),
            "max_s": percentile(times, 1.0),
            "errors": len(errors),
        },
        "settings": {
            "students": args.students,
            "fresh": args.fresh,
            "spread_s": args.spread,
            "light_users": args.light,
            "gunicorn_workers": 3,
            "cores": os.cpu_count(),
        },
    }


def workers(proc: subprocess.Popen) -> list[int]:
    listing = subprocess.run(["ps", "--ppid", str(proc.pid), "-o", "pid="], capture_output=True, text=True).stdout
    return [int(pid) for pid in listing.split()]


def _s(value) -> str:
    return "–" if value is None else f"{value:.3f} s" if value < 0.1 else f"{value:.2f} s"


def markdown_phases(result: dict) -> str:
    """The two phases (light requests: count, p50 / p95 / max, errors) and the heavy jobs of the second."""
    names = {"light_alone": "light users alone", "with_heavy_jobs": "with heavy jobs and a worker killed"}
    if result["with_heavy_jobs"].get("killed_worker") is None:
        names["with_heavy_jobs"] = "with heavy jobs"
    cells = [
        [names[key], f"{p['light_requests']:,}", _s(p["p50_s"]), _s(p["p95_s"]), _s(p["max_s"]), str(p["errors"])]
        for key, p in result.items()
        if key in names
    ]
    phases = stamp.table(["phase", "light requests", "p50", "p95", "max", "errors"], cells, right=range(1, 6))
    jobs = [
        [j["job"].split(".")[0], f"{j['seconds']:.1f} s", "yes" if j.get("progress_seen") else "no", j["ended"]]
        for j in result["with_heavy_jobs"].get("heavy_jobs", [])
    ]
    heavy = stamp.table(["heavy job (its output)", "seconds", "progress shown", "ended"], jobs, right=[1])
    return f"{phases}\n\n{heavy}"


def markdown_classroom(result: dict) -> str:
    """The lecture: the server's peak memory and jobs, each group's waits and endings, the light users."""
    started = result.get("celery_tasks_started")
    rows = [
        ["server peak memory (every process of the server)", f"{result['peak_server_gb']:.2f} GB"],
        ["job processes at once, at most", str(result["peak_job_processes"])],
        ["job processes started", str(result["job_processes_started"])],
    ]
    if started is not None:
        rows.append(["tasks the Celery worker received", str(started)])
    for name, g in result["groups"].items():
        ended = ", ".join(f"{n} {how}" for how, n in sorted(g["ended"].items(), key=lambda e: -e[1]))
        waits = " / ".join(_s(g[f"wait_{q}_s"]) for q in ("p50", "p95", "max"))
        rows.append([f"{name} ({g['requests']}): wait p50 / p95 / max; how they ended", f"{waits}; {ended}"])
    light = result["light"]
    rows.append(
        [
            f"light users: {light['requests']:,} requests, p95 / max, errors",
            f"{_s(light['p95_s'])} / {_s(light['max_s'])}, {light['errors']}",
        ]
    )
    return stamp.table(["what", "figure"], rows)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--light", type=int, default=20)
    parser.add_argument("--heavy", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--no-kill", action="store_true")
    parser.add_argument("--classroom", action="store_true", help="a lecture hall instead (see above)")
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--fresh", type=int, default=5)
    parser.add_argument("--spread", type=float, default=20)
    parser.add_argument(
        "--celery",
        action="store_true",
        help="jobs on a Celery worker (the documented command) and a throw-away redis-server",
    )
    parser.add_argument("--markdown", action="store_true", help="Markdown tables with the date, commit and machine")
    args = parser.parse_args(argv)
    result = run(args)
    if args.markdown:
        tables = markdown_classroom(result) if args.classroom else markdown_phases(result)
        print(f"{tables}\n\n{stamp.measured()}")
    else:
        print(json.dumps(result, indent=1))
    return result


def run(args: argparse.Namespace) -> dict:
    """The load test or the lecture the options ask for, on a server of its own; what it measured."""
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="vizcoll-load-")))
        celery, env = [], {}
        if args.celery:
            env["VIZCOLL_REDIS_URL"] = stack.enter_context(redis_server(folder))
            celery.append(stack.enter_context(celery_worker(folder, env["VIZCOLL_REDIS_URL"])))
        base, proc = stack.enter_context(gunicorn(folder / "web", **env))
        DashClient(base)  # warm up: every worker imports the app
        if args.classroom:
            lecture = argparse.Namespace(**{**vars(args), "light": min(args.light, 10)})
            result = classroom(base, [proc, *celery], lecture)
            if args.celery:
                result["celery_tasks_started"] = (folder / "celery.log").read_text().count("] received")
            return result
        result = {"light_alone": phase(base, args.light, 0, args.seconds, None)}
        kill = None if args.no_kill else workers(proc)[0]
        result["with_heavy_jobs"] = phase(base, args.light, args.heavy, args.seconds, kill)
        result["settings"] = {
            "light_users": args.light,
            "heavy_users": args.heavy,
            "seconds": args.seconds,
            "gunicorn_workers": 3,
            "cores": os.cpu_count(),
        }
    return result


if __name__ == "__main__":
    main()
