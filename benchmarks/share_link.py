"""A share link opened in a new browser: time to the page's first view and to its player's first frame.

Run ``python benchmarks/share_link.py`` (options: ``--only /trees``, ``--runs N``). It serves the app with the
Dockerfile's command (gunicorn, a fresh cache directory) and opens the 1,570-node cluster's share link (issue 23;
:func:`benchmarks.players.campus`) on each page: once to fill the server's cache, then ``--runs`` times, each in
a new headless Chromium (nothing cached, nothing compiled: a visitor's first visit). It prints one JSON list, one
entry per page: ``{"page", "case", "first_view_s": [median, max], "first_frame_s": [median, max], "runs"}``.

- ``first_view_s``: from the navigation to the page's main figure drawn (the fabric's overview; on /multicast
  algorithm A's EFI heatmap);
- ``first_frame_s``: to the player ready on its first frame, as in :mod:`benchmarks.players`.

The browser and the server share the machine, as on a laptop running the app for a class.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.players import browser, campus, ready_at, wait  # noqa: E402
from tests.gunicorn_server import gunicorn  # noqa: E402

CASES = [  # page, player, the overview the player lights (None: its canvas), the page's main figure
    ("/topology", "topo-player", "topo-large", "topo-large"),
    ("/trees", "trees-player", "trees-mapped", "trees-mapped"),
    ("/barrier", "bar-player", "bar-overview", "bar-overview"),
    ("/multicast", "mc-player", None, "mc-fig-a"),
]
DRAWN = """const plot = document.querySelector('#' + arguments[0] + ' .js-plotly-plot');
return Boolean(plot && plot._fullData && plot._fullData.length && plot.querySelector('.main-svg'));"""


def scenario_of(page: str):
    """The cluster with communicators of 16 processes (on /multicast its group 3 chosen)."""
    return campus().with_params("multicast", {"group": 3}) if page == "/multicast" else campus()


def open_link(base: str, page: str, prefix: str, graph: str | None, figure: str) -> tuple[float, float]:
    """(first view, first frame) in seconds, in a new browser."""
    driver = browser()
    try:
        driver.get("about:blank")
        start = time.perf_counter()
        driver.get(f"{base}{page}#s={scenario_of(page).to_fragment()}")
        while not driver.execute_script(DRAWN, figure):
            if time.perf_counter() - start > 120:
                raise TimeoutError(f"{page}: #{figure} was not drawn within 120 s")
            time.sleep(0.005)
        view = time.perf_counter() - start
        wait(driver, prefix, graph, ready_at(0, graph))
        return view, time.perf_counter() - start
    finally:
        driver.quit()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one page, e.g. /trees")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="vizcoll-share-") as folder, gunicorn(Path(folder)) as (base, _):
        for page, prefix, graph, figure in CASES:
            if args.only and page != args.only:
                continue
            open_link(base, page, prefix, graph, figure)  # the server's cache filled, as for a link shared in class
            views, frames = zip(*(open_link(base, page, prefix, graph, figure) for _ in range(args.runs)), strict=True)
            row = {
                "page": page,
                "case": "the 1,570-node cluster's share link, a new browser",
                "first_view_s": [round(statistics.median(views), 2), round(max(views), 2)],
                "first_frame_s": [round(statistics.median(frames), 2), round(max(frames), 2)],
                "runs": args.runs,
            }
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
