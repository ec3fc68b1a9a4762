"""A 36,000-node torus switches the page from cytoscape to a WebGL Plotly figure."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.by import By

from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import from_spec

from .browser_helpers import counts_line


def test_large_fabric_is_drawn_with_webgl(page):
    page.open("/topology")
    page.generate("torus:30x20x20,hosts=2")
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(12_000, 24_000, 60_000, 0, 8), timeout=40)
    assert page.duo.find_element("#topo-counts .count:nth-child(1)").text == "12,000 switches"
    assert page.duo.find_element("#topo-counts .count:nth-child(2)").text == "24,000 end nodes"

    large = page.duo.find_element("#topo-large")
    until(lambda: large.is_displayed(), 30, msg="the WebGL figure is not shown")
    page.duo.wait_for_element("#topo-large .gl-container canvas", timeout=30)
    page.duo.wait_for_contains_text("#topo-large .gtitle", "12,000 switches and 24,000 end nodes", timeout=30)
    legend = [t.text for t in page.driver.find_elements(By.CSS_SELECTOR, "#topo-large .legendtext")]
    assert "switches (12,000)" in legend and any(t.startswith("links (") for t in legend), legend
    assert not page.duo.find_element("#topo-canvas").is_displayed()
    assert page.cy("return cy.nodes().length;") == 0  # nothing is left on the hidden canvas
    page.duo.wait_for_contains_text("#topo-bcast-info", "36,000 nodes reached", timeout=30)
    page.driver.execute_script("document.getElementById('topo-counts').scrollIntoView({block: 'start'});")
    page.screenshot("topology-large.png")
    assert page.duo.get_logs() == []


def test_a_large_file_is_read_in_a_job_with_its_progress(page, tmp_path):
    path = tmp_path / "big.graphml"  # 3.1 MB of GraphML: read in a background job, the page says so meanwhile
    path.write_text(topo_io.dumps(from_spec("fat-tree:radix=24,levels=3"), "graphml"))
    page.open("/topology")
    page.upload("topo-upload", path)
    until(lambda: "running" in page.duo.find_element("#topo-upload-read-job").get_attribute("class"), 20,
          msg="the job bar never showed")
    page.duo.wait_for_contains_text("#topo-upload-read-progress-text", "Reading big.graphml (3.1 MB)", timeout=10)
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(720, 3456, 10368, 0, 24), timeout=60)
    page.duo.wait_for_contains_text("#scenario-badge", "big.graphml", timeout=10)
    until(lambda: page.duo.find_element("#topo-upload-read-job").get_attribute("class") == "job", 10)
    assert page.duo.get_logs() == []
