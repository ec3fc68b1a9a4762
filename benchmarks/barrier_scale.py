"""The barrier at cluster scale: the command line's runs end to end, and the page's background job.

Run ``python benchmarks/barrier_scale.py [--fabric FILE] [--repeat N] [--only SUBSTRING] [--markdown]``.

Each case runs in a fresh process (best of ``--repeat``, default 1):

- ``vizcoll barrier ...`` as a user types it, timed as the whole process (the interpreter's start, the imports and
  reading the fabric included), its wall time and its CPU time (user + system); its processes and messages are
  read from the JSON it prints:
  - every end node of a 1,570-node cluster (214 switches, 1,356 HCAs: ``tests/fabrics.py``'s ``campus_cluster``,
    written to a temporary file), each algorithm that runs off a grid;
  - with ``--fabric FILE``, the same on a real cluster's file (its name in the case);
  - the tree barrier on every one of TaihuLight's 40,960 processes;
  - the DLCT variants on a 37 x 37 grid (1,369 processors, 10% of its links broken): DLCT needs a grid, and that
    is the grid of the cluster's size;
- ``/barrier`` on the cluster and on TaihuLight: the page's background job (the run recorded, its player made with
  the overview's frames, :func:`vizcoll.ui.pages.barrier.page.animate`) on a fresh cache, in-process.

Prints one JSON list of rows ``{"case", "processes", "messages", "wall_s", "cpu_s"}``; ``--markdown`` a table
instead, with the date, the commit and the machine. A full run takes about three minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import stamp  # noqa: E402

TAIHULIGHT = "pruned-fat-tree:preset=taihulight"
ANYWHERE = ("tree", "dissemination", "ms", "tournament", "dissemination+tree")
GRID = ("--size", "37", "--break-rate", "0.1")


def cli_cases(cluster: str, fabric: str | None) -> dict[str, list[str]]:
    """Case name -> the ``vizcoll barrier`` arguments."""
    cases = {
        f"CLI {a}, the 1,570-node cluster's 1,356 end nodes": ["--topology", cluster, "--algo", a] for a in ANYWHERE
    }
    if fabric:
        name = Path(fabric).name
        cases |= {f"CLI {a}, every end node of {name}": ["--topology", fabric, "--algo", a] for a in ANYWHERE}
    cases["CLI tree, TaihuLight's 40,960 processes"] = ["--topology", TAIHULIGHT, "--algo", "tree"]
    for a in ("dlct", "dlct+ms", "dlct+tree"):
        cases[f"CLI {a}, 37 x 37 grid, 10% broken"] = [*GRID, "--algo", a]
    return cases


PAGE_CASES = {
    "/barrier job: dissemination, the cluster's 1,356 end nodes": ("cluster", "dissemination"),
    "/barrier job: tree, TaihuLight's 40,960 processes": (TAIHULIGHT, "tree"),
}


def run_cli(args: list[str]) -> dict:
    """One ``python -m vizcoll barrier ARGS`` process: its wall and CPU time, processes and messages."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "vizcoll", "barrier", *args], capture_output=True, text=True, cwd=ROOT, check=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures = json.loads(out.stdout)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"processes": figures["processors"], "messages": figures["messages"], "wall_s": wall, "cpu_s": cpu}


def page_job(spec: str, algo: str) -> dict:
    """(In a fresh process.) The page's background job for every end node of ``spec`` with ``algo``."""
    import app  # noqa: F401  (the app and its cache on the fresh VIZCOLL_CACHE_DIR)
    from tests.callback_context import in_callback  # noqa: F401  (what the page tests call callbacks with)
    from vizcoll.scenario import Scenario
    from vizcoll.topology import io as topo_io
    from vizcoll.ui.pages.barrier import _model as model
    from vizcoll.ui.pages.barrier import page

    if os.path.exists(spec):
        scenario = Scenario.from_upload(topo_io.read(spec), Path(spec).name)
    else:
        scenario = Scenario(spec=spec)
    data = scenario.with_params(model.PAGE, {"algo": algo, "comm": model.ALL_END_NODES}).to_dict()
    start, cpu = time.perf_counter(), time.process_time()
    plan = page.refresh(data)[0]
    handle, *_ = page.animate(lambda _: None, plan, data)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    run = model.page_keys(Scenario.from_dict(data))[0]
    return {"processes": len(run["processes"]), "steps": handle["steps"], "wall_s": wall, "cpu_s": cpu}


def run_page(spec: str, algo: str) -> dict:
    """:func:`page_job` in a fresh interpreter with a fresh cache directory."""
    with tempfile.TemporaryDirectory(prefix="vizcoll-bench-") as cache:
        env = os.environ | {"VIZCOLL_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, __file__, "--child", spec, algo], capture_output=True, text=True, cwd=ROOT, env=env
        )
        if out.returncode:
            raise RuntimeError(out.stderr[-2000:])
        return json.loads(out.stdout.strip().splitlines()[-1])


def best(runs: list[dict]) -> dict:
    """The run of the least wall time."""
    return min(runs, key=lambda r: r["wall_s"])


def markdown(rows: list[dict]) -> str:
    headers = ["case", "processes", "messages / steps", "wall", "CPU"]
    cells = [
        [r["case"], f"{r['processes']:,}", f"{r.get('messages', r.get('steps')):,}"]
        + [stamp.seconds(r["wall_s"]), stamp.seconds(r["cpu_s"])]
        for r in rows
    ]
    return stamp.table(headers, cells, right=[1, 2, 3, 4])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fabric", help="also every end node of this real cluster's file")
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per case; the best is kept")
    parser.add_argument("--only", help="just the cases whose name holds this")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table with the date, commit and machine")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(page_job(*args.child)))
        return
    from tests.fabrics import campus_cluster

    rows = []
    with tempfile.TemporaryDirectory(prefix="vizcoll-bench-") as tmp:
        cluster = Path(tmp) / "campus.ibnd"
        cluster.write_text(campus_cluster())
        fabric = str(Path(args.fabric).resolve()) if args.fabric else None
        todo = {name: (run_cli, (case,)) for name, case in cli_cases(str(cluster), fabric).items()}
        todo |= {
            name: (run_page, (str(cluster) if spec == "cluster" else spec, algo))
            for name, (spec, algo) in PAGE_CASES.items()
        }
        for name, (fn, case) in todo.items():
            if args.only and args.only not in name:
                continue
            row = {"case": name} | best([fn(*case) for _ in range(max(1, args.repeat))])
            print(json.dumps(row), file=sys.stderr, flush=True)
            rows.append({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})
    if args.markdown:
        print(markdown(rows) + "\n\n" + stamp.measured())
    else:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
