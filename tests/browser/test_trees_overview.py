"""The trees page's aggregation player on fabrics above the canvas's 1,500 nodes: it plays on the overview of the
animated tree (its bundles and blocks lit step by step in the browser) and on a group drawn alone, node by node."""

from __future__ import annotations

from dash.testing.wait import until

from tests.fabrics import campus_cluster
from vizcoll.scenario import Scenario
from vizcoll.topology import io as topo_io

from .browser_helpers import full_page_screenshot

LIT = """const graph = document.querySelector('#GRAPH .js-plotly-plot');
const lit = graph && graph.__vizcollLit && graph.__vizcollLit[META];
return lit ? [...lit].sort((a, b) => a - b) : -1;"""
COLOURS = "return cy.nodes().map(n => [n.style('border-color'), n.style('label')].join());"
# the 1,570-node cluster of issue 23 (three switch tiers, parallel cables), every one of its 1,356 processes
CAMPUS = Scenario.from_upload(topo_io.parse(campus_cluster(), "campus.net"), "campus.net").with_params(
    "trees", {"k": 4}
)
# TaihuLight's 46,144-node fabric, a communicator of 1,024 processes spread over it (the preset's 40,960 play
# too, after the background job: tests/browser/test_trees.py)
TAIHULIGHT = Scenario(spec="pruned-fat-tree:preset=taihulight", pattern="random:1,size=1024").with_params(
    "trees", {"comm": 0, "kind": "hier-knomial", "k": 32, "degree": 16}
)


def lit(page, meta: str, graph: str = "trees-mapped") -> list[int] | int:
    """The marks of the overview's animation layer ``meta`` the current step lights (-1: no such layer)."""
    return page.driver.execute_script(LIT.replace("GRAPH", graph).replace("META", repr(meta)))


def text(page, selector: str) -> str:
    return page.duo.find_element(selector).text


def open_scenario(page, scenario: Scenario) -> None:
    page.open(f"/trees#s={scenario.to_fragment()}", counts=None, timeout=60)


def forward_lights_the_overview(page, graph: str = "trees-mapped") -> None:
    """The player's forward button lights the overview ``graph``: the blocks of the leaves sending their values
    (step 1), then the bundles their packets cross, hop after hop (steps 2 and 3: other bundles)."""
    until(lambda: lit(page, "overview-messages", graph) == [], 60, msg="the overview has no animation layer")
    page.click("#trees-player-forward")
    page.duo.wait_for_contains_text("#trees-player-position", "step 1 of", timeout=10)
    until(lambda: len(lit(page, "overview-nodes", graph)) > 0, 10, msg="the first step lights no block")
    page.click("#trees-player-forward")
    page.duo.wait_for_contains_text("#trees-player-position", "step 2 of", timeout=10)
    until(lambda: len(lit(page, "overview-messages", graph)) > 0, 10, msg="the second step lights no bundle")
    first = lit(page, "overview-messages", graph)
    page.click("#trees-player-forward")
    page.duo.wait_for_contains_text("#trees-player-position", "step 3 of", timeout=10)
    until(
        lambda: lit(page, "overview-messages", graph) not in (first, []), 10, msg="the next hop lights the same bundles"
    )
    caption = text(page, "#trees-player-caption")
    assert caption and "Nothing to play" not in caption and "⚠" not in caption
    assert not page.duo.find_element("#trees-canvas").is_displayed()  # no empty canvas under the player


def test_the_aggregation_plays_on_a_real_clusters_overview_and_on_a_group_alone(page):
    open_scenario(page, CAMPUS)
    page.duo.wait_for_contains_text("#trees-anim-summary", "Played on the fabric's overview", timeout=90)
    assert "Result 918,690" in text(page, "#trees-anim-summary")  # the sum of the ranks 0..1,355: correct
    forward_lights_the_overview(page)
    page.driver.execute_script("document.querySelector('#trees-mapped').scrollIntoView({block: 'start'});")
    page.screenshot("trees-overview-player.png")
    full_page_screenshot(page, "trees-overview-player-page.png")

    page.duo.select_dcc_dropdown("#trees-part", index=2)  # the first edge switch and its hosts, node by node
    page.canvas = "trees-canvas"
    until(lambda: page.duo.find_element("#trees-canvas").is_displayed(), 90, msg="the canvas does not come back")
    until(lambda: page.cy("return cy ? cy.nodes().length : 0;") > 0, 90, msg="the group is not drawn")
    until(lambda: "overview" not in text(page, "#trees-anim-summary"), 90, msg="the group does not play")
    page.click("#trees-player-first")
    until(lambda: text(page, "#trees-player-position").startswith("step 0"), 10)
    # the step's drawing (the canvas's stylesheet) is another callback than its position: every callback answered
    until(lambda: not page.duo.redux_state_is_loading, 10, msg="the first step is never drawn")
    before = page.cy(COLOURS)
    page.click("#trees-player-last")
    until(
        lambda: sum(a != b for a, b in zip(before, page.cy(COLOURS), strict=True)) >= 9,
        10,
        msg="the group's hosts do not take the aggregation's states",
    )
    page.driver.execute_script("document.querySelector('#trees-canvas').scrollIntoView({block: 'start'});")
    page.screenshot("trees-group-player.png")
    assert page.duo.get_logs() == []


def test_the_aggregation_plays_on_taihulights_overview(page):
    open_scenario(page, TAIHULIGHT)
    page.duo.wait_for_contains_text("#trees-anim-summary", "Played on the fabric's overview", timeout=120)
    assert "correct ✓" in text(page, "#trees-anim-summary")
    forward_lights_the_overview(page)
    page.driver.execute_script("document.querySelector('#trees-mapped').scrollIntoView({block: 'start'});")
    page.screenshot("trees-taihulight-player.png")
    assert page.duo.get_logs() == []
