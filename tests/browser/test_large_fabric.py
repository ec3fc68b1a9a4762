"""A 36,000-node torus switches the page from cytoscape to a WebGL Plotly figure."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.by import By

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
