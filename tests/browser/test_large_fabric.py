"""Paper-scale fabrics in the browser: an overview of blocks and bundles of links, and one pod drawn alone, on
/topology, /multicast and /trees (TaihuLight's 46,144 nodes), every figure readable."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains

from vizcoll.scenario import Scenario
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import from_spec

from .browser_helpers import counts_line
from .readability import figure_problems
from .test_readability import settled
from .test_trees import choose, job_running, trace_names

TAIHULIGHT = "pruned-fat-tree:preset=taihulight"
COUNTS = counts_line(5_184, 40_960, 102_400, 0, 320)


def title_of(page, graph_id: str) -> str:
    """A figure's title as read (its wrapped lines joined, one space between words)."""
    return page.driver.execute_script(f"""
        const t = document.querySelector('#{graph_id} .gtitle');
        if (!t) return '';
        const lines = [...t.querySelectorAll('tspan.line')];
        return (lines.length ? lines.map(l => l.textContent).join(' ') : t.textContent).replace(/\\s+/g, ' ');""")


def test_taihulight_opens_on_its_blocks_and_a_click_draws_one_pod_on_the_canvas(page):
    page.open("/topology")
    page.generate(TAIHULIGHT)
    page.duo.wait_for_text_to_equal("#topo-counts", COUNTS, timeout=60)
    until(lambda: "grouped" in title_of(page, "topo-large"), 90, msg="the overview is not drawn")
    assert not page.duo.find_element("#topo-canvas").is_displayed()
    assert "switch blocks (321)" in trace_names(page, "topo-large")
    assert figure_problems(page.driver) == []
    page.driver.execute_script("document.getElementById('topo-counts').scrollIntoView({block: 'start'});")
    page.screenshot("taihulight-overview.png")
    block = page.driver.execute_script("""
        const g = document.getElementById('topo-large');
        const points = [...g.querySelectorAll('.scatterlayer .trace .points path')];
        const p = points[Math.floor(points.length * 0.6)].getBoundingClientRect();
        return [p.left + p.width / 2, p.top + p.height / 2];""")
    ActionChains(page.driver).move_to_location(int(block[0]), int(block[1])).click().perform()
    until(lambda: page.duo.find_element("#topo-canvas").is_displayed(), 90, msg="no pod was drawn alone")
    page.wait_for_cy()
    assert page.cy("return cy.nodes().length;") == 256 + 32 + 64  # the pod, and the top switches it reaches
    assert "alone" in page.duo.find_element("#topo-part").text
    page.screenshot("taihulight-pod.png")
    assert page.duo.get_logs() == []


def test_multicast_at_taihulight_scale_drills_into_one_pod(page):
    scenario = Scenario(
        spec=TAIHULIGHT,
        pattern="random:64,size=64,seed=1",
        params={"multicast": {"a": "minhop-new", "b": "fulb", "part": None, "group": 3}},
    )
    page.open(f"/multicast#s={scenario.to_fragment()}", counts=None)
    until(lambda: "per bundle of links" in title_of(page, "mc-fig-a"), 120, msg="the overview is not drawn")
    assert figure_problems(page.driver) == []
    settled(page)  # B's routes job of the whole fabric has ended: the pod's jobs do not queue behind it
    choose(page, "mc-part", "pod 5 (288 nodes) alone")  # a long list: the first pods are in view
    until(lambda: "pod 5 alone" in title_of(page, "mc-fig-a"), 90, msg=lambda: title_of(page, "mc-fig-a"))
    # B is drawn by its own job, after A's views
    until(lambda: "pod 5 alone" in title_of(page, "mc-fig-b"), 90, msg=lambda: title_of(page, "mc-fig-b"))
    page.driver.execute_script("document.getElementById('mc-fig-diff').scrollIntoView({block: 'center'});")
    until(lambda: "pod 5 alone" in title_of(page, "mc-fig-diff"), 30)  # drawn once on the screen
    hovers = page.driver.execute_script(
        "return document.querySelector('#mc-fig-a .js-plotly-plot')._fullData"
        ".filter(t => t.name === 'switches').flatMap(t => Array.from(t.text || []));"
    )
    # the pod's 16 spines are named in their hover texts: too crowded to be written beside them off the links
    assert {f"spine5.{i}" for i in range(16)} <= {text.split("<br>")[0] for text in hovers}
    assert figure_problems(page.driver) == []
    page.driver.execute_script("document.getElementById('mc-fig-a').scrollIntoView({block: 'start'});")
    page.screenshot("taihulight-multicast-pod.png")
    assert page.duo.get_logs() == []


def test_trees_of_4096_processes_on_taihulight_are_drawn_per_bundle_then_per_pod(page):
    scenario = Scenario(
        spec=TAIHULIGHT,
        pattern="random:1,size=4096",
        params={"trees": {"comm": 0, "kind": "hier-knomial", "k": 32, "degree": 16}},
    )
    page.open(f"/trees#s={scenario.to_fragment()}", counts=None)
    until(
        lambda: "per bundle of links" in title_of(page, "trees-mapped"),
        400,  # a cold job: 5 trees
        msg=lambda: title_of(page, "trees-mapped"),
    )
    until(lambda: "per bundle of links" in title_of(page, "trees-t2-mincost"), 60)
    until(lambda: not job_running(page), 30)
    assert figure_problems(page.driver) == []
    choose(page, "trees-part", "pod 3 (288 nodes) alone")
    until(lambda: "(pod 3 alone)" in title_of(page, "trees-mapped"), 90, msg=lambda: title_of(page, "trees-mapped"))
    until(lambda: "(pod 3 alone)" in title_of(page, "trees-t2-physical"), 30)
    assert not job_running(page)  # drawn again from the computed trees, no job
    assert figure_problems(page.driver) == []
    page.driver.execute_script("document.getElementById('trees-mapped').scrollIntoView({block: 'start'});")
    page.screenshot("taihulight-trees-pod.png")
    assert page.duo.get_logs() == []


def test_a_large_file_is_read_in_a_job_with_its_progress(page, tmp_path):
    path = tmp_path / "big.graphml"  # 3.1 MB of GraphML: read in a background job, the page says so meanwhile
    path.write_text(topo_io.dumps(from_spec("fat-tree:radix=24,levels=3"), "graphml"))
    page.open("/topology")
    page.upload("topo-upload", path)
    until(
        lambda: "running" in page.duo.find_element("#topo-upload-read-job").get_attribute("class"),
        20,
        msg="the job bar never showed",
    )
    page.duo.wait_for_contains_text("#topo-upload-read-progress-text", "Reading big.graphml (3.1 MB)", timeout=10)
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(720, 3456, 10368, 0, 24), timeout=60)
    page.duo.wait_for_contains_text("#scenario-badge", "big.graphml", timeout=10)
    until(lambda: page.duo.find_element("#topo-upload-read-job").get_attribute("class") == "job", 10)
    assert page.duo.get_logs() == []
