"""The barrier on a cluster above the canvas's 1,500 nodes: the run plays on the fabric's overview (the bundles its
Gather and Release messages cross and the blocks of the processes changing state light up, step by step, in the
browser), and on a group drawn alone (a click on a block), node by node."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains

from tests.fabrics import campus_cluster

LIT = """const graph = document.querySelector('#bar-overview .js-plotly-plot');
const lit = graph && graph.__vizcollLit && graph.__vizcollLit[META];
return lit ? [...lit].sort((a, b) => a - b) : null;"""
# where a ringed block (one holding processes of the barrier) is drawn, in the viewport, and its group
RINGED_BLOCK = """const graph = document.querySelector('#bar-overview .js-plotly-plot');
graph.scrollIntoView({block: 'center'});
const full = graph._fullLayout, box = graph.getBoundingClientRect();
for (const trace of graph._fullData) {
    const widths = trace.marker && trace.marker.line && trace.marker.line.width;
    if (trace.meta || !Array.isArray(widths)) continue;
    const i = widths.findIndex((w, k) => w === 3 && String(trace.customdata[k]).startsWith('group:'));
    if (i < 0) continue;
    return [box.left + full._size.l + full.xaxis.l2p(trace.x[i]), box.top + full._size.t + full.yaxis.l2p(trace.y[i]),
            trace.customdata[i]];
}
return null;"""
GATHER, RELEASE = "rgb(255,127,14)", "rgb(23,190,207)"


def lit_marks(page, meta: str) -> list | None:
    """The marks of the overview's animation layer ``meta`` the current step lights, as the browser drew them
    (None: nothing drawn on the overview yet)."""
    return page.driver.execute_script(LIT.replace("META", repr(meta)))


def lit(page, meta: str) -> int:
    """How many marks of the overview's animation layer ``meta`` the current step lights (-1: none drawn yet)."""
    found = lit_marks(page, meta)
    return -1 if found is None else len(found)


def position(page) -> int:
    words = page.duo.find_element("#bar-player-position").text.split()
    return int(words[1]) if len(words) > 1 else -1


def forward(page) -> None:
    before = position(page)
    page.click("#bar-player-forward")
    until(lambda: position(page) == before + 1, 10, msg="the player did not step forward")


def open_cluster(page, tmp_path) -> None:
    """The 1,570-node cluster uploaded on /topology with communicators of 16 processes, then /barrier."""
    page.driver.set_window_size(1400, 1000)
    cluster = tmp_path / "campus.ibnd"
    cluster.write_text(campus_cluster())
    page.open("/topology")
    page.upload("topo-upload", cluster)
    page.duo.wait_for_contains_text("#topo-counts", "1,356 end nodes", timeout=90)
    page.type_into("#topo-pattern", "hier:16")
    page.click("#topo-apply-comm")
    page.duo.wait_for_contains_text("#topo-comm-info", "communicators", timeout=20)
    page.click("a[href='/barrier']")


def test_the_barrier_plays_on_a_large_clusters_overview_and_on_a_group_alone(page, tmp_path):
    open_cluster(page, tmp_path)

    # 1,570 nodes: the run plays on the overview, whose two animation layers wait unlit at step 0
    page.duo.wait_for_contains_text("#bar-fabric", "the run plays on its overview", timeout=90)
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of", timeout=90)
    until(
        lambda: lit(page, "overview-messages") == 0 and lit(page, "overview-nodes") == 0,
        20,
        msg="the overview has no animation layers",
    )
    assert not page.duo.find_element("#bar-canvas").is_displayed()
    assert "a bundle of links" in page.duo.find_element("#bar-legend").text
    # forward: the processes entering the barrier light their blocks, then the Gathers light the bundles they cross
    page.driver.execute_script("document.querySelector('.player-panel').scrollIntoView({block: 'start'});")
    forward(page)
    until(lambda: lit(page, "overview-nodes") > 0, 10, msg="the first step lights no block")
    seen = {}
    for _ in range(30):
        seen[position(page)] = lit_marks(page, "overview-messages")
        if lit(page, "overview-messages") > 0:
            break
        forward(page)
    assert lit(page, "overview-messages") > 0, "no step lights a bundle"
    caption = page.duo.find_element("#bar-player-caption").text
    assert "Gather" in caption and "⚠" not in caption, caption
    # stepping back and forward shows the same state at the same step
    here = position(page)
    page.click("#bar-player-back")
    until(
        lambda: position(page) == here - 1 and lit_marks(page, "overview-messages") == seen[here - 1],
        10,
        msg="stepping back does not show the step before",
    )
    forward(page)
    until(lambda: lit_marks(page, "overview-messages") == seen[here], 10, msg="the step is not drawn the same again")
    page.screenshot("barrier-overview.png")

    # a click on a ringed block (one holding processes) draws its group alone: the player plays it node by node
    x, y, group = page.driver.execute_script(RINGED_BLOCK)
    ActionChains(page.driver).move_to_location(int(round(x)), int(round(y))).click().perform()
    page.canvas = "bar-canvas"
    until(lambda: page.duo.find_element("#bar-canvas").is_displayed(), 20, msg=f"a click on {group} drew nothing")
    page.wait_for_cy()
    assert page.cy("return cy.nodes('.proc').length;") > 0
    assert not page.duo.find_element("#bar-overview").is_displayed()
    assert page.duo.find_element("#bar-part").text.endswith("alone")  # the shared choice "draw" follows the click
    page.duo.wait_for_contains_text("#bar-player-position", "step ", timeout=20)
    hops = lambda: {GATHER, RELEASE} & set(page.edge_colours().values())  # noqa: E731
    page.click("#bar-player-first")
    until(lambda: position(page) == 0 and not hops(), 10, msg="the first step draws hops")
    for _ in range(60):
        forward(page)
        if hops():  # seen: the drawing may still be the step before's
            break
    else:
        until(hops, 10, msg="no step draws a Gather or Release hop on the group")
    page.screenshot("barrier-overview-group.png")
    assert page.duo.get_logs() == []


# every text an element shows, kept in window.progressShown (its first argument: the element's id)
WATCH_PROGRESS = """
const element = document.getElementById(arguments[0]), bar = document.getElementById(arguments[1]);
window.progressShown = [element.textContent];
window.barClasses = [bar.className];
new MutationObserver(() => window.progressShown.push(element.textContent))
    .observe(element, {childList: true, characterData: true, subtree: true});
new MutationObserver(() => window.barClasses.push(bar.className)).observe(bar, {attributes: true});
"""


def test_every_end_node_of_a_large_cluster_runs_as_a_job_and_plays_its_key_moments(page, tmp_path):
    """The 1,356 end nodes of the 1,570-node cluster (the page ran 256 processes at most): a background job with its
    progress, then the tree barrier plays on the overview, key moment by key moment (each release, each barrier
    complete)."""
    from tests.browser.test_barrier import choose

    open_cluster(page, tmp_path)
    page.duo.wait_for_contains_text("#bar-fabric", "communicator 0: 16 processes", timeout=90)
    page.driver.execute_script(WATCH_PROGRESS, "bar-run-progress-text", "bar-run-job")
    choose(page, "bar-comm", "every end node (1,356)")
    page.duo.wait_for_contains_text("#bar-fabric", "every end node: 1,356 processes", timeout=90)
    options = page.driver.execute_script(
        "return [...document.querySelectorAll('#bar-algo')].map(e => e.textContent).join(' ');"
    )
    assert "Tree" in options
    # the run: a background job, its bar shown while it runs and saying what it does (every class and text they
    # had kept since the choice: a quick job may end before a poll shows a stage), then the player with its key
    # moments
    page.duo.wait_for_contains_text("#bar-summary", "processes 1,356", timeout=120)
    shown, classes = page.driver.execute_script("return [window.progressShown, window.barClasses];")
    assert "job running" in classes and classes[-1] == "job", classes
    stages = ("Running the barriers", "Making the player")
    assert all(not text or any(stage in text for stage in stages) for text in shown), shown
    page.duo.wait_for_contains_text("#bar-player-moments-legend", "barrier release", timeout=10)
    page.driver.execute_script("document.querySelector('.player-panel').scrollIntoView({block: 'start'});")
    page.click("#bar-player-next-key")
    until(lambda: "releases" in page.duo.find_element("#bar-player-caption").text, 10, msg="no release to jump to")
    until(lambda: lit(page, "overview-nodes") > 0, 10, msg="the release lights no block")
    page.click("#bar-player-next-key")
    until(lambda: "complete" in page.duo.find_element("#bar-player-caption").text, 10, msg="no barrier complete")
    page.screenshot("barrier-every-end-node.png")
    assert page.duo.get_logs() == []
