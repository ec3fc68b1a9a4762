"""A share link opened in a new browser: time to the page's first view and to its player's first frame.

Run ``python benchmarks/share_link.py`` (options: ``--only /trees``, ``--runs N``). It serves the app with the
Dockerfile's command (gunicorn, a fresh cache directory) and opens the 1,570-node cluster's share link (issue 23;
:func:`benchmarks.players.campus`) on each page: once to fill the server's cache, then ``--runs`` times, each in
a new headless Chromium (nothing cached, nothing compiled: a visitor's first visit). It prints one JSON list, one
entry per page: ``{"page", "case", "first_view_s": [median, max], "first_frame_s": [median, max],
"from_command_s": [median, max], "runs"}``.

- ``first_view_s``: from the start of the navigation (the moment a visitor opens the link: the page's
  ``performance.timeOrigin``) to the page's main figure drawn (the fabric's overview; on /multicast algorithm
  A's EFI heatmap);
- ``first_frame_s``: to the player ready on its first frame, as in :mod:`benchmarks.players`;
- ``from_command_s``: the first view from the WebDriver command that opens the link, as this script measured
  until 2026-11-28 (the driver takes about 0.2 s before the browser starts to navigate).

The times are taken in the page: a script the browser runs before the page's own reads the page's state every
5 ms and logs each change with ``performance.now()``. Polling over WebDriver instead added the round trips'
delay (a poll waits for the page's main thread to be free) and their load on the machine's two cores.

The browser and the server share the machine, as on a laptop running the app for a class. ``--markdown`` prints
the docs' table (docs/benchmarks.md) instead, with the date, the commit and the machine.
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

from benchmarks import stamp  # noqa: E402
from benchmarks.players import STATE, browser, campus, ready_at  # noqa: E402
from tests.gunicorn_server import gunicorn  # noqa: E402

CASES = [  # page, player, the overview the player lights (None: its canvas), the page's main figure
    ("/topology", "topo-player", "topo-large", "topo-large"),
    ("/trees", "trees-player", "trees-mapped", "trees-mapped"),
    ("/barrier", "bar-player", "bar-overview", "bar-overview"),
    ("/multicast", "mc-player", None, "mc-fig-a"),
]
DRAWN = """const plot = document.querySelector('#' + arguments[0] + ' .js-plotly-plot');
return Boolean(plot && plot._fullData && plot._fullData.length && plot.querySelector('.main-svg')
               && plot.getBoundingClientRect().height > 0);"""  # drawn, with data, on the screen
LOG = """(function () {
    const [drawn, state, figure, prefix, graph] = %s;
    const isDrawn = new Function(drawn), read = new Function(state);
    const log = window.__vizcollLog = [];
    let last = '';
    (function tick() {
        const entry = [isDrawn(figure), read(prefix, graph)], key = JSON.stringify(entry);
        if (key !== last) {
            log.push([performance.now() / 1000, ...entry]);
            last = key;
        }
        setTimeout(tick, 5);
    })();
})();"""  # each change of (figure drawn, the player's state) with its time since the navigation started


def scenario_of(page: str):
    """The cluster with communicators of 16 processes (on /multicast its group 3 chosen)."""
    return campus().with_params("multicast", {"group": 3}) if page == "/multicast" else campus()


def open_link(base: str, page: str, prefix: str, graph: str | None, figure: str) -> tuple[float, float, float]:
    """(first view, first frame, first view from the WebDriver command) in seconds, in a new browser."""
    driver = browser()
    try:
        driver.get("about:blank")
        source = LOG % json.dumps([DRAWN, STATE, figure, prefix, graph])
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})
        ready, end = ready_at(0, graph), time.perf_counter() + 120
        command = time.time()
        driver.get(f"{base}{page}#s={scenario_of(page).to_fragment()}")
        while time.perf_counter() < end:
            log = driver.execute_script("return window.__vizcollLog")
            views = [at for at, drawn, _ in log if drawn]
            frames = [at for at, _, state in log if ready(state)]
            if views and frames:
                origin = driver.execute_script("return performance.timeOrigin") / 1000
                return views[0], frames[0], origin - command + views[0]
            time.sleep(0.1)
        raise TimeoutError(f"{page}: #{figure} and the player's first frame not ready within 120 s")
    finally:
        driver.quit()


KEYS = ("first_view_s", "first_frame_s", "from_command_s")


def spread(times) -> list[float]:
    """[median, max] in seconds, to the hundredth."""
    return [round(statistics.median(times), 2), round(max(times), 2)]


def markdown(rows: list[dict]) -> str:
    """Per page the median and the worst of each time, then the stamp."""
    cells = [[r["page"], *(f"{r[key][0]:.2f} s, worst {r[key][1]:.2f} s" for key in KEYS)] for r in rows]
    runs = rows[0]["runs"] if rows else 0
    heads = ["page", f"first view (median of {runs})", "first frame", "first view from the WebDriver command"]
    return stamp.table(heads, cells, right=[1, 2, 3]) + "\n\n" + stamp.measured()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one page, e.g. /trees")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--markdown", action="store_true", help="a Markdown table with the date, commit and machine")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="vizcoll-share-") as folder, gunicorn(Path(folder)) as (base, _):
        for page, prefix, graph, figure in CASES:
            if args.only and page != args.only:
                continue
            open_link(base, page, prefix, graph, figure)  # the server's cache filled, as for a link shared in class
            runs = [open_link(base, page, prefix, graph, figure) for _ in range(args.runs)]
            row = {
                "page": page,
                "case": "the 1,570-node cluster's share link, a new browser",
                **{key: spread(times) for key, times in zip(KEYS, zip(*runs, strict=True), strict=True)},
                "runs": args.runs,
            }
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
