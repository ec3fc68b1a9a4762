"""The 1,048,576-NIC rail-optimized fabric in the browser: built by a background job, drawn as its 8 rails, and
drilled into one rail, one of its pods, one leaf and one server's 8 NICs (issue 28)."""

from __future__ import annotations

import pytest
from dash.testing.wait import until

from .browser_helpers import counts_line
from .readability import figure_problems
from .test_large_fabric import title_of
from .test_trees import choose, trace_names

MILLION = "rail-fat-tree:servers=131072,rails=8,radix=128"

pytestmark = pytest.mark.browser


def text_of(page, element_id: str) -> str:
    """The element's text, "" while the page (waiting for its fabric) has no such element."""
    return page.driver.execute_script(f"const e = document.getElementById('{element_id}'); return e ? e.innerText : ''")


def test_the_million_nic_fabric_is_built_in_a_job_then_drilled_into_a_rail_a_pod_a_leaf_and_a_server(page):
    page.open("/topology")
    page.generate(MILLION)
    page.duo.wait_for_contains_text("#topo-message", "1,114,112 nodes) is being built in the background", timeout=20)
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(65_536, 1_048_576, 3_145_728, 0, 128), timeout=120)
    until(lambda: "grouped" in title_of(page, "topo-large"), 60, msg="the overview is not drawn")
    assert "switch blocks (24)" in trace_names(page, "topo-large")  # 8 rails of 3 levels
    page.duo.wait_for_contains_text(  # the broadcast's own callback, not the drawing's
        "#topo-bcast-info", "broadcast is played on fabrics of up to 200,000 nodes", timeout=30
    )
    assert figure_problems(page.driver) == []
    page.screenshot("rail-million-overview.png")

    choose(page, "topo-part", "rail 3 (139,264 nodes) alone")
    until(
        lambda: title_of(page, "topo-large").startswith("rail 3 alone, grouped"),
        60,
        msg=lambda: title_of(page, "topo-large"),
    )
    assert "end node blocks (33)" in trace_names(page, "topo-large")  # 32 pods, and the rest of the fabric
    choose(page, "topo-part", "rail 3, pod 5 (4,224 nodes) alone")
    until(lambda: title_of(page, "topo-large").startswith("rail 3, pod 5 alone"), 60)
    assert figure_problems(page.driver) == []
    page.screenshot("rail-million-pod.png")

    choose(page, "topo-part", "rail 3, pod 5, leaf 330 (65 nodes) alone")
    until(lambda: page.duo.find_element("#topo-canvas").is_displayed(), 30, msg="the leaf is not drawn")
    page.wait_for_cy()
    until(lambda: page.cy("return cy.nodes().length;") == 1 + 64 + 64, 10)  # the leaf, its NICs, its spines
    choose(page, "topo-part", "server 21120: its NICs on every rail")
    until(lambda: page.cy("return cy.nodes().length;") == 16, 20)  # 8 NICs and their 8 leaves
    names = page.cy("return cy.nodes().map(n => n.data('label'));")
    assert {f"s021120-nic{r}" for r in range(8)} <= set(names)
    page.screenshot("rail-million-server.png")
    assert page.duo.get_logs() == []


def test_the_trees_preset_of_the_million_nic_fabric_says_what_rails_change_and_draws_one_rail(page):
    from vizcoll.ui.pages.trees import _model as trees_model
    from vizcoll.ui.store import DEFAULT_SCENARIO

    scenario = trees_model.preset_scenario(DEFAULT_SCENARIO, "rail-million")
    page.open(f"/trees#s={scenario.to_fragment()}", counts=None)
    until(
        lambda: "hierarchical 8-nomial" in text_of(page, "trees-compare"),
        240,
        msg=lambda: text_of(page, "trees-compare"),
    )  # the page waits for the fabric's job, then its own
    until(  # the rails panel: its own callback, not the comparison's
        lambda: "8 rails, 131,072 servers" in text_of(page, "trees-rails") and "65,535" in text_of(page, "trees-rails"),
        60,
        msg="the rails panel never said what rails change",
    )  # the tree's edges, under each placement
    until(
        lambda: "per bundle of links" in title_of(page, "trees-mapped"), 120, msg=lambda: title_of(page, "trees-mapped")
    )
    choose(page, "trees-part", "rail 3 (139,264 nodes) alone")
    until(
        lambda: "(rail 3 alone), per bundle" in title_of(page, "trees-mapped"),
        60,
        msg=lambda: title_of(page, "trees-mapped"),
    )
    assert figure_problems(page.driver) == []
    page.driver.execute_script("document.getElementById('trees-rails').scrollIntoView({block: 'start'});")
    page.screenshot("rail-million-trees.png")
    assert page.duo.get_logs() == []


def test_the_multicast_preset_of_the_million_nic_fabric_routes_its_groups_and_counts_those_spanning_rails(page):
    from vizcoll.ui.pages.multicast import _model as multicast_model
    from vizcoll.ui.store import DEFAULT_SCENARIO

    scenario = multicast_model.preset_scenario("rail-million", DEFAULT_SCENARIO)
    page.open(f"/multicast#s={scenario.to_fragment()}", counts=None)
    until(lambda: "unroutable groups" in text_of(page, "mc-summary"), 240, msg=lambda: text_of(page, "mc-summary"))
    summary = text_of(page, "mc-summary")
    assert "1,088" in summary and "1,024" in summary  # 1,088 groups; the 1,024 rows span rails: no tree joins them
    until(  # the rails panel: its own callback, not the summary's
        lambda: "8 rails, 131,072 servers" in text_of(page, "mc-rails") and "1,024" in text_of(page, "mc-rails"),
        60,
        msg="the rails panel never counted the groups spanning rails",
    )
    assert figure_problems(page.driver) == []
    assert page.duo.get_logs() == []
