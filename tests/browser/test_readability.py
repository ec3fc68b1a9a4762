"""Every page readable on a 1280×720 projector, in its default state, with every preset and example and at its largest:
no sideways scroll (of the page or of a panel), no two figure texts overlap, no mode bar covers one, no figure's
edge cuts one, no text box or dropdown cuts its value, no two captions of a drawing overlap
(:mod:`tests.browser.readability`), and axe-core finds no WCAG 2.1 A or AA failure (:mod:`tests.browser.axe`). A
picture of every state is saved (artifacts/, and docs/screenshots/ with ``VIZCOLL_DOCS_SCREENSHOTS=1``, small PNGs
shown in the README)."""

from __future__ import annotations

import base64
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest
from dash.testing.wait import until

from tests.fabrics import campus_cluster
from vizcoll.scenario import Scenario
from vizcoll.topology.generators import from_spec, spec_size
from vizcoll.topology.io import parse, read
from vizcoll.topology.rails import RAIL_MILLION
from vizcoll.ui.pages.barrier import _model as barrier_model
from vizcoll.ui.pages.multicast import _model as multicast_model
from vizcoll.ui.pages.topology._model import example_specs
from vizcoll.ui.pages.trees import _model as trees_model
from vizcoll.ui.store import DEFAULT_SCENARIO

from .axe import violations
from .browser_helpers import ARTIFACTS, ROOT
from .readability import filled, hovers_outside, page_problems, viewport

DOCS = ROOT / "docs" / "screenshots"
CLUSTER = Scenario.from_upload(parse(campus_cluster(), "campus.txt"), "campus.txt")  # 1,570 nodes, a cluster's shape
TOOL_OUTPUT = Scenario.from_upload(read(ROOT / "tests" / "data" / "cluster" / "stanzas.txt"), "stanzas.txt")
LARGEST_EXAMPLE = max(example_specs().values(), key=lambda spec: from_spec(spec).n_nodes)
PAPER_TREES = [key for key, (_, source, _) in trees_model.PRESETS.items() if source["spec"] != RAIL_MILLION]
PAPER_MULTICAST = [key for key, preset in multicast_model.PRESETS.items() if preset["spec"] != RAIL_MILLION]
# the 1M-endpoint rail presets are opened by test_rail_fabric.py; here the paper's largest fabrics
LARGEST_TREES = max(PAPER_TREES, key=lambda k: spec_size(trees_model.PRESETS[k][1]["spec"])[0])
LARGEST_MULTICAST = max(PAPER_MULTICAST, key=lambda k: spec_size(multicast_model.PRESETS[k]["spec"])[0])
# (name, path, scenario, (selector, text) the page shows once its views are drawn)
STATES = [
    ("home", "/", DEFAULT_SCENARIO, ("#topo-bcast-info", "nodes reached")),
    ("topology", "/topology", DEFAULT_SCENARIO, ("#topo-bcast-info", "nodes reached")),
    (
        "topology-largest",
        "/topology",
        Scenario(spec=LARGEST_EXAMPLE, pattern="hier:4"),
        ("#topo-bcast-info", "nodes reached"),
    ),
    *(
        (
            f"topology-{key}",
            "/topology",
            Scenario(spec=spec),
            ("#topo-bcast-info", "no node" if key == "empty" else "nodes reached"),
        )
        for key, spec in example_specs().items()
        if spec not in (DEFAULT_SCENARIO.spec, LARGEST_EXAMPLE)
    ),
    ("trees", "/trees", DEFAULT_SCENARIO, ("#trees-player-position", "step 0 of")),
    *(
        (f"trees-{key}", "/trees", trees_model.preset_scenario(DEFAULT_SCENARIO, key), ("#trees-compare", "ary"))
        for key in PAPER_TREES
        if key != LARGEST_TREES
    ),
    (
        "trees-largest",
        "/trees",
        trees_model.preset_scenario(DEFAULT_SCENARIO, LARGEST_TREES),
        ("#trees-compare", "2-ary"),
    ),
    ("multicast", "/multicast", DEFAULT_SCENARIO, ("#mc-summary", "minhop-new")),
    *(
        (
            f"multicast-{key}",
            "/multicast",
            multicast_model.preset_scenario(key, DEFAULT_SCENARIO),
            ("#mc-summary", multicast_model.PRESETS[key]["b"]),
        )
        for key in PAPER_MULTICAST
        if key != LARGEST_MULTICAST
    ),
    (
        "multicast-largest",
        "/multicast",
        multicast_model.preset_scenario(LARGEST_MULTICAST, DEFAULT_SCENARIO),
        ("#mc-summary", "fulb"),
    ),
    ("barrier", "/barrier", DEFAULT_SCENARIO, ("#bar-ranges", "Fig. 7")),
    (
        "barrier-largest",
        "/barrier",
        barrier_model.grid_scenario(DEFAULT_SCENARIO, barrier_model.MAX_SIDE, barrier_model.MAX_SIDE, 8),
        ("#bar-player-position", "step 0 of"),
    ),
    ("faults", "/faults", DEFAULT_SCENARIO, ("#ft-treft-player-position", "step 0 of")),
    (
        "faults-largest",
        "/faults",
        DEFAULT_SCENARIO.with_params("faults", {"procs": "32", "workflow": "MB", "cls": "B"}),
        ("#ft-treft-player-position", "step 0 of"),
    ),
    ("erasure", "/erasure", DEFAULT_SCENARIO, ("#era-summary", "FMEL(9,5)")),
    (
        "erasure-largest",
        "/erasure",
        DEFAULT_SCENARIO.with_params("erasure", {"n": "20", "k": "12", "dcs": "5"}),
        ("#era-summary", "FMEL(20,12)"),
    ),
    ("schedules", "/schedules", DEFAULT_SCENARIO, ("#sched-file", "No file yet")),
    ("schedules-example", "/schedules", DEFAULT_SCENARIO, ("#sched-player-position", "step 0 of")),
    ("topology-real-file", "/topology", TOOL_OUTPUT, ("#topo-bcast-info", "nodes reached")),  # ibnetdiscover's
    ("topology-cluster-file", "/topology", replace(CLUSTER, pattern="hier:16"), ("#topo-bcast-info", "nodes reached")),
    ("trees-cluster-file", "/trees", CLUSTER, ("#trees-compare", "hierarchical")),
    ("multicast-cluster-file", "/multicast", replace(CLUSTER, pattern="hier:16"), ("#mc-summary", "minhop-new")),
    ("help", "/help", DEFAULT_SCENARIO, ("#help-keys", "Page Down")),
]
CLICKS = {"schedules-example": "#sched-example"}  # states a button opens: its selector
# each page's first visit: its bare address, as a newcomer opens it (no share link), with the rest of what it shows
# once its callbacks ran (every page loads without a console error: tests/browser/test_pages.py has the rest)
FIRST_VISITS = {
    "home": [],
    "topology": [],
    "trees": [],
    "multicast": [],
    "barrier": [("#bar-player-position", "step 0 of")],
    "faults": [("#ft-red-player-position", "step 0 of")],
    "erasure": [("#era-compare-table", "paper")],
    "schedules": [("#sched-flag", "Open a GOAL file")],
    "help": [("#help-barrier", "Use this grid")],
}
NAV_LINKS = "return document.querySelectorAll('.navbar a.nav-link').length;"
# the drawings of a real cluster: each fills at least 70 % of its figure's width, and its hover boxes stay inside
DRAWINGS = {
    "trees": ["trees-mapped"],
    "multicast": ["mc-fig-a"],
    "trees-cluster-file": ["trees-mapped"],
    "multicast-cluster-file": ["mc-fig-a", "mc-fig-b"],
}
FILLED = 0.7
WIDE = (
    "return [...document.querySelectorAll('.panel, .table-box')].filter(p => p.scrollWidth > p.clientWidth + 1)"
    ".map(p => (p.id || p.className) + ': ' + p.scrollWidth + ' px in ' + p.clientWidth);"
)
BUSY = "return !!document.querySelector('[data-dash-is-loading=\"true\"], .job.running');"


def settled(page, quiet: float = 1.5, timeout: float = 240) -> None:
    """Wait until no callback and no background job has run for ``quiet`` seconds."""
    end, calm = time.time() + timeout, None
    while time.time() < end:
        if page.driver.execute_script(BUSY):
            calm = None
        elif calm is None:
            calm = time.time()
        elif time.time() - calm >= quiet:
            return
        time.sleep(0.2)
    jobs = page.driver.execute_script(
        "return [...document.querySelectorAll('.job.running')].map(j => j.id + ': ' + j.textContent);"
    )
    raise AssertionError(f"the page never settled; jobs still running: {jobs}")


def save(page, name: str) -> Path:
    """The page's top as a 1280×720 projector shows it, at half size (artifacts/; docs/screenshots/ when asked)."""
    page.driver.execute_script("window.scrollTo(0, 0);")
    time.sleep(0.3)  # the last frame of the drawings
    shot = page.driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {"format": "png", "clip": {"x": 0, "y": 0, "width": 1280, "height": 720, "scale": 0.5}},
    )
    targets = [ARTIFACTS / f"readable-{name}.png"]
    if os.environ.get("VIZCOLL_DOCS_SCREENSHOTS"):
        targets.append(DOCS / f"{name}.png")
    for target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(shot["data"]))
    return targets[0]


@pytest.mark.parametrize("name, path, scenario, ready", STATES, ids=[s[0] for s in STATES])
def test_every_text_of_the_page_is_readable_at_1280_by_720(page, name, path, scenario, ready):
    viewport(page.driver)
    assert name not in FIRST_VISITS or scenario == DEFAULT_SCENARIO
    page.open(path if name in FIRST_VISITS else f"{path}#s={scenario.to_fragment()}", counts=None)
    if name in CLICKS:
        page.duo.wait_for_element(CLICKS[name]).click()
    for selector, text in [ready, *FIRST_VISITS.get(name, [])]:
        page.wait_for_text(selector, text, timeout=120)
    assert page.driver.execute_script(NAV_LINKS) == 9
    settled(page)
    assert page.driver.execute_script("return [window.innerWidth, window.innerHeight];") == [1280, 720]
    until(
        lambda: (
            page.driver.execute_script("return document.querySelectorAll('#shell-page .js-plotly-plot').length;") > 0
            or path in ("/", "/topology", "/schedules", "/help")
        ),
        30,
    )
    widths = page.driver.execute_script("const d = document.documentElement; return [d.scrollWidth, d.clientWidth];")
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide in a {widths[1]} px window: it scrolls sideways"
    assert page.driver.execute_script(WIDE) == [], "a panel scrolls sideways"
    problems = page_problems(page.driver)
    save(page, name)
    assert problems == [], "\n".join(problems)
    for figure in DRAWINGS.get(name, []):  # issue 46: projector-ready on a real cluster
        if name.endswith("cluster-file"):
            assert filled(page.driver, figure) >= FILLED, f"{figure} spans {filled(page.driver, figure):.0%}"
        assert hovers_outside(page.driver, figure) == []
    found = violations(page.driver)  # WCAG 2.1 A and AA (issue 46)
    assert found == [], "\n".join(found)
    assert page.duo.get_logs() == []
