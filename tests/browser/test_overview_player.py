"""A large fabric's player: the broadcast plays on the overview (bundles and blocks light step by step, in the
browser), and on a group drawn alone, node by node."""

from __future__ import annotations

from dash.testing.wait import until

from .browser_helpers import counts_line, lit_count

LARGE = "torus:10x10x8,hosts=1"  # 1,600 nodes: drawn as its overview
COLOURS = "return cy.nodes().map(n => [n.style('background-color'), n.style('border-color')].join());"


def lit(page, meta: str) -> int:
    """How many marks of the overview's animation layer ``meta`` the current step lights (-1: no such layer)."""
    return lit_count(page, "topo-large", meta)


def test_the_broadcast_plays_on_a_large_fabrics_overview_and_on_a_group_alone(page):
    page.open("/topology")
    page.generate(LARGE)
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(800, 800, 3200, 0, 7), timeout=30)
    page.duo.wait_for_contains_text("#topo-bcast-info", "Played on the overview", timeout=30)
    until(lambda: lit(page, "overview-messages") == 0, 20, msg="the overview has no animation layer")
    page.click("#topo-player-forward")
    page.duo.wait_for_contains_text("#topo-player-position", "step 1 of", timeout=10)
    until(
        lambda: lit(page, "overview-messages") > 0 and lit(page, "overview-nodes") > 0,
        10,
        msg="the first step lights no bundle or block",
    )
    first = lit(page, "overview-messages")
    page.click("#topo-player-forward")
    until(lambda: lit(page, "overview-messages") != first, 10, msg="the next step lights the same bundles")
    caption = page.duo.find_element("#topo-player-caption").text
    assert caption and "Nothing to play" not in caption and "⚠" not in caption
    page.screenshot("overview-player.png")

    page.duo.select_dcc_dropdown("#topo-part", index=2)  # a group alone, node by node on the canvas
    until(lambda: page.cy("return cy.nodes().length;") > 0, 20, msg="the group is not drawn")
    until(
        lambda: "Played on the overview" not in page.duo.find_element("#topo-bcast-info").text,
        20,
        msg="the broadcast is not played on the group",
    )
    page.click("#topo-player-first")
    before = page.cy(COLOURS)
    page.click("#topo-player-last")
    until(
        lambda: sum(a != b for a, b in zip(before, page.cy(COLOURS), strict=True)) > len(before) // 2,
        10,
        msg="the group's nodes do not take the broadcast's states",
    )
    page.screenshot("overview-player-group.png")
    assert page.duo.get_logs() == []
