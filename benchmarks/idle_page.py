"""A page left open: the CPU that headless Chromium spends on a page that shows a drawing and does nothing.

Run ``python benchmarks/idle_page.py`` (options: ``--only /trees``, ``--runs N``, ``--seconds S``). It serves the
app with the Dockerfile's command (gunicorn, a fresh cache directory) and opens each page with a cytoscape canvas
on the default scenario in one headless Chromium. Once the page has drawn, it waits until nothing has changed for
a while, then measures the CPU time of Chromium's processes over ``--seconds`` of wall time.

Each run measures two cases, one after the other on the same page:

- **resting**: as the app ships. ``assets/canvas.js`` gives an idle canvas's drawing loop five frames a second.
- **every frame**: cytoscape's own loop, as before that change. The script sets the hold's ``awakeUntil`` to
  infinity, so the loop is given every frame.

It prints one JSON list with one entry per page, the median over the runs:
``{"page", "resting_cpu_s", "every_frame_cpu_s", "seconds", "runs"}``. ``--markdown`` prints the docs' table
(docs/design.md) instead, with the date, the commit and the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import stamp  # noqa: E402
from benchmarks.players import browser  # noqa: E402
from tests.gunicorn_server import gunicorn  # noqa: E402

PAGES = ("/topology", "/trees", "/barrier")
DRAWN = "return document.querySelectorAll('canvas[data-id=\"layer0-selectbox\"]').length > 0;"
BUSY = "return !!document.querySelector('[data-dash-is-loading=\"true\"], .job.running');"
SETTLE_S = 5  # quiet seconds before a measurement: the page's callbacks and the loop's waking second are over
AWAKE = "window.vizcollIdleCanvas.awakeUntil = Infinity;"


def chromium_cpu(driver) -> float:
    """CPU seconds (user and system) of every process under the driver's chromedriver."""
    total = 0.0
    for process in psutil.Process(driver.service.process.pid).children(recursive=True):
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def settle(driver, timeout: float = 120) -> None:
    """Wait until the page has drawn its canvas and no callback nor job has run for :data:`SETTLE_S` seconds."""
    end, calm = time.perf_counter() + timeout, None
    while time.perf_counter() < end:
        if not driver.execute_script(DRAWN) or driver.execute_script(BUSY):
            calm = None
        elif calm is None:
            calm = time.perf_counter()
        elif time.perf_counter() - calm >= SETTLE_S:
            return
        time.sleep(0.2)
    raise TimeoutError("the page never settled")


def idle_cpu(driver, seconds: float) -> float:
    before = chromium_cpu(driver)
    time.sleep(seconds)
    return chromium_cpu(driver) - before


def measure(base: str, page: str, seconds: float) -> tuple[float, float]:
    """(resting, every frame): Chromium's CPU seconds over ``seconds`` of the settled page, in a new browser."""
    driver = browser()
    try:
        driver.get(base + page)
        settle(driver)
        resting = idle_cpu(driver, seconds)
        driver.execute_script(AWAKE)
        return resting, idle_cpu(driver, seconds)
    finally:
        driver.quit()


def markdown(rows: list[dict]) -> str:
    """Per page the median CPU time of both cases, then the stamp."""
    seconds, runs = (rows[0]["seconds"], rows[0]["runs"]) if rows else (0, 0)
    heads = ["page", f"CPU s in {seconds:g} s idle, resting (median of {runs})", "every frame", "ratio"]
    cells = [[r["page"], f"{r['resting_cpu_s']:.2f}", f"{r['every_frame_cpu_s']:.2f}", ratio(r)] for r in rows]
    return stamp.table(heads, cells, right=[1, 2, 3]) + "\n\n" + stamp.measured()


def ratio(row: dict) -> str:
    return f"{row['resting_cpu_s'] / row['every_frame_cpu_s']:.2f}" if row["every_frame_cpu_s"] else "-"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one page, e.g. /trees")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--markdown", action="store_true", help="a Markdown table with the date, commit and machine")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="vizcoll-idle-") as folder, gunicorn(Path(folder)) as (base, _):
        for page in PAGES:
            if args.only and page != args.only:
                continue
            runs = [measure(base, page, args.seconds) for _ in range(args.runs)]
            resting, every = (round(statistics.median(times), 2) for times in zip(*runs, strict=True))
            row = {"page": page, "resting_cpu_s": resting, "every_frame_cpu_s": every}
            row.update(seconds=args.seconds, runs=args.runs)
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
