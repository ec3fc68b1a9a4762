"""The topology canvas draws every link the server sends, whatever it drew before; an edit moves no node; no two
captions overlap."""

from __future__ import annotations

import pytest
from dash.testing.wait import until

from tests.fabrics import REAL_FABRICS

from .browser_helpers import DEFAULT_COUNTS, counts_line

# links whose two ends are on the canvas, and the links the counts bar says the fabric has
DRAWN = "return cy.edges().filter(e => e.source().length === 1 && e.target().length === 1 && e.visible()).length;"
POSITIONS = "return Object.fromEntries(cy.nodes().map(n => [n.data('label'), [n.position('x'), n.position('y')]]));"
RENDERED = """return Object.fromEntries(cy.nodes().map(n => [n.data('label'),
              [Math.round(n.renderedPosition('x')), Math.round(n.renderedPosition('y'))]]));"""
# the caption boxes (model coordinates) of the nodes that have one, and how many pairs of them overlap
OVERLAPS = """
const boxes = cy.nodes().filter(n => n.data('caption')).map(
    n => n.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true}));
let pairs = 0;
for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1) > 0.5 && Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1) > 0.5) pairs++;
}
return [boxes.length, pairs];"""


def links_drawn(page, links: int) -> None:
    """Wait until the canvas draws exactly ``links`` edges, each between two nodes it shows."""
    until(
        lambda: page.cy(DRAWN) == links == page.cy("return cy.edges().length;"),
        15,
        msg=lambda: f"{page.cy(DRAWN)} of {links} links drawn",
    )


def captions_apart(page) -> None:
    captioned, overlapping = page.cy(OVERLAPS)
    assert captioned > 0 and overlapping == 0, f"{overlapping} pairs of {captioned} captions overlap"


@pytest.mark.skipif(not (REAL_FABRICS / "SOURCES.txt").exists(), reason=f"no real fabric files at {REAL_FABRICS}")
def test_every_link_is_drawn_after_each_change_of_fabric(page):
    page.open("/topology")
    links_drawn(page, 48)
    captions_apart(page)
    page.upload("topo-upload", REAL_FABRICS / "ibsim-net.1")  # 3 nodes: drawn over the default's n0..n2
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(1, 2, 2, 0, 8))
    links_drawn(page, 2)
    page.generate("torus:2x2,hosts=1")
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(4, 4, 8, 0, 5))
    links_drawn(page, 8)
    captions_apart(page)
    for name, counts, links in (
        ("loginoff-topo.ibnd", counts_line(8, 144, 192, 0, 36), 192),  # 152 nodes
        ("psmn-X5.topofile", counts_line(11, 89, 159, 0, 36), 159),
    ):  # then 100
        page.upload("topo-upload", REAL_FABRICS / name)
        page.duo.wait_for_text_to_equal("#topo-counts", counts, timeout=20)
        links_drawn(page, links)
        captions_apart(page)
        box = page.cy(
            "const b = cy.elements().renderedBoundingBox(); return [b.x1, b.y1, b.x2, b.y2, cy.width(), cy.height()];"
        )
        assert box[0] >= -1 and box[1] >= -1 and box[2] <= box[4] + 1 and box[3] <= box[5] + 1  # fitted
    page.screenshot("topology-real-fabric.png")
    assert page.duo.get_logs() == []


def test_adding_a_node_or_a_link_moves_no_node(page):
    page.open("/topology")
    before, shown = page.cy(POSITIONS), page.cy(RENDERED)
    page.type_into("#topo-new-name", "probe")
    page.click("#topo-new-kind input[value=endpoint]")
    page.click("#topo-add-node")
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(20, 17, 48, 1, 4))
    until(lambda: "probe" in page.cy(POSITIONS), 10, msg="the new node is not drawn")
    after = page.cy(POSITIONS)
    assert {name: after[name] for name in before} == before and page.cy(RENDERED) | {"probe": 0} == shown | {
        "probe": 0
    }  # not one node moved, on the canvas nor on the screen
    x, y = page.cy(RENDERED)["probe"]
    assert 0 <= x <= page.cy("return cy.width();") and 0 <= y <= page.cy("return cy.height();")  # in view

    page.type_into("#topo-node-a", "probe")
    page.type_into("#topo-node-b", "edge0.0")
    page.click("#topo-add-link")
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(20, 17, 49, 1, 5))  # edge0.0 gets a 5th port
    links_drawn(page, 49)
    linked = page.cy(POSITIONS)
    assert {name: linked[name] for name in before} == before
    probe, edge = linked["probe"], linked["edge0.0"]
    assert probe[1] > edge[1] and abs(probe[0] - edge[0]) < 50  # just below the switch it is linked to
    captions_apart(page)
    # the core switches stay apart: a click on core0 selects core0
    page.click_element("node[label = 'core0']")
    page.duo.wait_for_text_to_equal("#topo-node-a", "core0")
    assert page.duo.find_element("#topo-counts").text != DEFAULT_COUNTS and page.duo.get_logs() == []
