"""The players in a real browser on large fabrics: time to the first frame and time per step.

Run ``python benchmarks/players.py`` (``--only /trees``, ``--steps N``). It serves the app with the Dockerfile's
command (gunicorn, a fresh cache directory), opens each case's share link in headless Chromium and prints one
JSON list, one entry per case: ``{"page", "case", "first_frame_s", "step_s": [p50, max], "steps"}``.

- ``first_frame_s``: from the share link's navigation to the player ready on its first frame (the position
  says "step 0 of N", and on an overview its two animation layers are drawn), cold (nothing cached);
- ``step_s``: one press of the player's "next" button until the browser shows the new step everywhere: the
  position, the caption and, on an overview, the lit layers (median and worst of ``--steps`` presses), once the
  page scrolled to the player has settled (what it draws as it comes on the screen, e.g. the type II views).

The cases are the 1,570-node cluster of issue 23 (``tests.fabrics.campus_cluster``: three switch tiers,
parallel cables) with communicators of 16 processes, and TaihuLight's 46,144-node fabric (on /trees also every
process of it, as its preset: the trees and the aggregation are a background job, its time included).
``--markdown`` prints the docs' table (docs/benchmarks.md) instead, with the date, the commit and the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from selenium import webdriver  # noqa: E402

from benchmarks import stamp  # noqa: E402
from tests.fabrics import campus_cluster  # noqa: E402
from tests.gunicorn_server import gunicorn  # noqa: E402
from vizcoll.scenario import Scenario  # noqa: E402
from vizcoll.topology import io as topo_io  # noqa: E402
from vizcoll.ui.store import DEFAULT_SCENARIO  # noqa: E402

TAIHULIGHT = "pruned-fat-tree:preset=taihulight"
# the state of a player as the browser shows it: its position text, its caption, the position its overview shows
# lit (-1: none) and how many animation layers it lit
STATE = """const [prefix, graph] = arguments;
const text = id => { const e = document.getElementById(prefix + '-' + id); return e ? e.textContent : ''; };
const plot = graph && document.querySelector('#' + graph + ' .js-plotly-plot');
const shown = plot && plot.__vizcollStep ? plot.__vizcollStep.position : -1;
const layers = plot && plot.__vizcollLit ? Object.keys(plot.__vizcollLit).length : 0;
return [text('position'), text('caption'), shown, layers];"""


def campus() -> Scenario:
    """The 1,570-node cluster with communicators of 16 processes."""
    return replace(Scenario.from_upload(topo_io.parse(campus_cluster(), "campus.net"), "campus.net"), pattern="hier:16")


def cases() -> list[tuple[str, str, Scenario, str, str | None]]:
    """(page, case, scenario, player prefix, overview graph id or None)."""
    taihulight = Scenario(spec=TAIHULIGHT, pattern="hier:16")
    preset = Scenario(spec=TAIHULIGHT).with_params("trees", {"kind": "hier-knomial", "k": 32, "degree": 16})
    spread = Scenario(spec=TAIHULIGHT, pattern="random:1,size=1024").with_params(
        "trees", {"comm": 0, "kind": "hier-knomial", "k": 32, "degree": 16}
    )
    return [
        ("/topology", "the default scenario (36 nodes), for comparison", DEFAULT_SCENARIO, "topo-player", None),
        ("/topology", "campus cluster, broadcast", campus(), "topo-player", "topo-large"),
        ("/topology", "TaihuLight, broadcast", taihulight, "topo-player", "topo-large"),
        ("/trees", "campus cluster, every process (1,356)", campus(), "trees-player", "trees-mapped"),
        ("/trees", "TaihuLight, 1,024 procs spread", spread, "trees-player", "trees-mapped"),
        ("/trees", "TaihuLight, every process (the preset, a background job)", preset, "trees-player", "trees-mapped"),
        ("/barrier", "campus cluster, hier:16", campus(), "bar-player", "bar-overview"),
        ("/barrier", "TaihuLight, hier:16", taihulight, "bar-player", "bar-overview"),
        (
            "/multicast",
            "campus cluster, protocol of group 3",
            campus().with_params("multicast", {"group": 3}),
            "mc-player",
            None,
        ),
    ]


def browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,1000",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(options=options)


def wait(driver, prefix: str, graph: str | None, ready, timeout: float = 180) -> list:
    """Poll the player's state until ``ready(state)``; the state."""
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        state = driver.execute_script(STATE, prefix, graph)
        if ready(state):
            return state
        time.sleep(0.005)
    raise TimeoutError(f"{prefix}: not ready within {timeout} s (last state {state[:1]})")


def ready_at(position: int, graph: str | None):
    def ready(state) -> bool:
        text, caption, shown, layers = state
        words = text.split()
        return (
            len(words) >= 4
            and words[1] == str(position)
            and int(words[3].replace(",", "")) >= max(position, 1)
            and bool(caption)
            and (graph is None or (shown == position and layers == 2))
        )

    return ready


SETTLED = """return [performance.getEntriesByType('resource').length,
                document.querySelectorAll('.dash-graph--pending').length];"""


def settle(driver, quiet: float = 0.5, timeout: float = 30) -> None:
    """Wait until the page asks the server nothing new for ``quiet`` seconds and no figure is being drawn (e.g.
    the views below the fold, drawn once the page scrolls to them)."""
    end, last, since = time.perf_counter() + timeout, None, time.perf_counter()
    while time.perf_counter() < end:
        state = driver.execute_script(SETTLED)
        if state != last or state[1]:
            last, since = state, time.perf_counter()
        elif time.perf_counter() - since >= quiet:
            return
        time.sleep(0.02)


def run_case(driver, base: str, scenario: Scenario, prefix: str, graph: str | None, page: str, steps: int) -> dict:
    driver.get("about:blank")
    start = time.perf_counter()
    driver.get(f"{base}{page}#s={scenario.to_fragment()}")
    text = wait(driver, prefix, graph, ready_at(0, graph))[0]
    first = time.perf_counter() - start
    steps = min(steps, int(text.split()[3].replace(",", "")))
    driver.execute_script(f"document.getElementById('{prefix}-forward').scrollIntoView({{block: 'center'}});")
    settle(driver)
    times = []
    for position in range(1, steps + 1):
        start = time.perf_counter()
        driver.execute_script(f"document.getElementById('{prefix}-forward').click();")
        wait(driver, prefix, graph, ready_at(position, graph), timeout=30)
        times.append(time.perf_counter() - start)
    return {
        "first_frame_s": round(first, 2),
        "step_s": [round(statistics.median(times), 3), round(max(times), 3)],
        "steps": steps,
    }


def markdown(rows: list[dict]) -> str:
    """The docs' table (docs/benchmarks.md; the first case is the only one a new browser opens), then the stamp."""
    cells = [
        [r["page"], r["case"], f"{r['first_frame_s']:.2f} s", *(f"{s * 1000:.0f} ms" for s in r["step_s"])]
        for r in rows
    ]
    heads = ["page", "case", "first frame (cold)", f"step: median of {rows[0]['steps']}" if rows else "step: median"]
    return stamp.table([*heads, "step: worst"], cells, right=[2, 3, 4]) + "\n\n" + stamp.measured()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one page, e.g. /trees")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--markdown", action="store_true", help="a Markdown table with the date, commit and machine")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="vizcoll-players-") as folder, gunicorn(Path(folder)) as (base, _):
        driver = browser()
        try:
            for page, case, scenario, prefix, graph in cases():
                if args.only and page != args.only:
                    continue
                row = {"page": page, "case": case, **run_case(driver, base, scenario, prefix, graph, page, args.steps)}
                print(json.dumps(row), file=sys.stderr)
                rows.append(row)
        finally:
            driver.quit()
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
