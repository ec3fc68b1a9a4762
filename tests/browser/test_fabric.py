"""Build the fabric in the browser: generate from a spec, upload files, add nodes and links."""

from __future__ import annotations

import time

from dash.testing.wait import until

from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import from_spec

from .browser_helpers import DEFAULT_COUNTS, counts_line

FAT_TREE_6 = counts_line(45, 54, 162, 0, 6)  # fat-tree:radix=6,levels=3


def test_generate_a_fat_tree_shows_its_counts(page):
    page.open("/topology")
    page.generate("torus:0x3")  # well-formed but impossible: a message, and the view stays
    page.duo.wait_for_contains_text("#topo-message", "⚠")
    assert "dimension 1 must be a positive integer" in page.duo.find_element("#topo-message").text
    assert page.duo.find_element("#topo-counts").text == DEFAULT_COUNTS

    page.generate("fat-tree:radix=6,levels=3")
    page.duo.wait_for_text_to_equal("#topo-counts", FAT_TREE_6)
    page.duo.wait_for_text_to_equal("#topo-counts .count:nth-child(1)", "45 switches")
    page.duo.wait_for_text_to_equal("#topo-counts .count:nth-child(2)", "54 end nodes")
    until(lambda: page.cy("return cy.nodes().length;") == 99, 10, msg="the canvas does not show 99 nodes")
    assert page.cy("return cy.edges().length;") == 162
    page.duo.wait_for_text_to_equal("#topo-message", "")
    assert page.duo.get_logs() == []


def test_a_long_spec_is_shown_whole_and_enter_generates_it(page):
    """The spec box wraps a long spec instead of cutting it, and Enter generates (no new line is typed)."""
    spec = "pruned-fat-tree:pods=2,leaves=2,hosts=4,spines=2,up=2,paths=1"
    page.open("/topology")
    page.type_into("#topo-params", spec + "\n")
    page.duo.wait_for_text_to_equal("#topo-counts .count:nth-child(2)", "16 end nodes")
    box = page.duo.find_element("#topo-params")
    assert box.get_attribute("value") == spec
    assert page.driver.execute_script(
        "const b = arguments[0]; return b.scrollHeight <= b.clientHeight + 1 && b.scrollWidth <= b.clientWidth + 1;",
        box,
    )
    assert page.duo.get_logs() == []


def test_upload_a_valid_and_a_malformed_file(page, tmp_path):
    """A valid ibsim net file replaces the fabric; a broken one is refused with a message, the app goes on."""
    fabric = from_spec("fat-tree:radix=4,levels=2")
    valid = tmp_path / "two-level.net"
    topo_io.write(fabric, valid)
    text = valid.read_text()
    truncated = tmp_path / "truncated.net"
    truncated.write_text(text[: len(text) // 2])  # cut in the middle: peers named later never appear
    s = fabric.summary()
    valid_counts = counts_line(s["switches"], s["endpoints"], s["links"], 0, s["max_ports"])

    page.open("/topology")
    page.upload("topo-upload", valid)
    page.duo.wait_for_text_to_equal("#topo-counts", valid_counts)
    until(lambda: page.cy("return cy.nodes().length;") == fabric.n_nodes, 10, msg="the uploaded fabric is not drawn")
    assert page.duo.find_element("#topo-message").text == ""

    page.upload("topo-upload", truncated)
    page.duo.wait_for_contains_text("#topo-message", "truncated.net, line")
    message = page.duo.find_element("#topo-message").text
    assert message.startswith("⚠") and "dangling peer" in message and "truncated file?" in message, message
    assert "Traceback" not in message
    assert page.duo.find_element("#topo-counts").text == valid_counts  # the previous fabric stays

    page.generate("fat-tree:radix=6,levels=3")  # and the app keeps working
    page.duo.wait_for_text_to_equal("#topo-counts", FAT_TREE_6)
    page.duo.wait_for_text_to_equal("#topo-message", "")
    page.upload("topo-upload", truncated)  # the same file chosen again is read again (it used to do nothing)
    page.duo.wait_for_contains_text("#topo-message", "truncated.net, line")
    page.upload("topo-upload", valid)
    page.duo.wait_for_text_to_equal("#topo-counts", valid_counts)
    page.generate("fat-tree:radix=6,levels=3")
    page.duo.wait_for_text_to_equal("#topo-counts", FAT_TREE_6)
    page.upload("topo-upload", valid)
    page.duo.wait_for_text_to_equal("#topo-counts", valid_counts)
    assert page.duo.get_logs() == []


def test_add_a_node_and_a_link_then_pick_a_node_on_the_canvas(page):
    page.open("/topology")
    page.type_into("#topo-new-name", "extra0")
    page.click("#topo-add-node")  # a switch (the default kind)
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(21, 16, 48, 1, 4))
    until(lambda: page.cy("return cy.$('node[label = \"extra0\"]').length;") == 1, 10, msg="the new node is not drawn")

    page.type_into("#topo-node-a", "extra0")
    page.type_into("#topo-node-b", "core0")
    page.click("#topo-add-link")
    # core0 had all 4 ports in use: the new link gives it a fifth
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(21, 16, 49, 1, 5))
    until(
        lambda: (
            page.cy("""return cy.edges().filter(e => [e.source().data('label'), e.target().data('label')]
                                 .sort().join() === 'core0,extra0').length;""")
            == 1
        ),
        10,
        msg="the new link is not drawn",
    )
    assert page.duo.find_element("#topo-message").text == ""

    # clicking a node fills node A; the previous A moves to B
    page.cy("cy.$(\"node[label = 'h3']\").emit('tap'); return 1;")
    page.duo.wait_for_text_to_equal("#topo-node-a", "h3")
    page.duo.wait_for_text_to_equal("#topo-node-b", "extra0")
    assert page.duo.find_element("#topo-counts").text == counts_line(21, 16, 49, 1, 5)  # a node click edits nothing
    assert page.duo.get_logs() == []


def test_default_counts_constant_matches_the_engine():
    """DEFAULT_COUNTS (used by every browser test) is the default scenario's summary (no browser needed)."""
    from vizcoll.ui.store import DEFAULT_SCENARIO

    s = DEFAULT_SCENARIO.topology().summary()
    assert counts_line(s["switches"], s["endpoints"], s["links"], s["broken_links"], s["max_ports"]) == DEFAULT_COUNTS


def test_a_message_appears_next_to_the_control_that_caused_it(page):
    page.open("/topology")
    page.duo.driver.set_window_size(1280, 720)
    button = page.duo.find_element("#topo-toggle-link")
    page.duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    page.type_into("#topo-link-id", "99999")
    page.click("#topo-toggle-link")
    page.duo.wait_for_contains_text("#topo-message", "⚠")
    box = page.duo.find_element("#topo-message")
    assert box.get_attribute("role") == "status"  # announced by screen readers
    time.sleep(0.5)  # the layout settles (the message follows its control)
    where = page.duo.driver.execute_script(
        "const b = arguments[0].getBoundingClientRect(), m = arguments[1].getBoundingClientRect();"
        "return [m.top - b.bottom, m.bottom <= window.innerHeight, m.top >= 0];",
        button,
        box,
    )
    assert 0 <= where[0] <= 40 and where[1] and where[2], where  # just under the button, on the screen
    page.click("#topo-link-id")  # touching anything else puts it back in its place, its text kept
    until(lambda: "floating" not in page.duo.find_element("#topo-message").get_attribute("class"), 5)
    assert page.duo.find_element("#topo-message").text.startswith("⚠")
    assert page.duo.get_logs() == []


def test_nodes_added_to_a_one_node_fabric_stay_in_view(page):
    from vizcoll.scenario import Scenario

    page.open(f"/topology#s={Scenario(spec='mesh:1x1,hosts=0').to_fragment()}", counts=None)
    until(lambda: page.cy("return !!cy && cy.nodes().length === 1;"), 20)  # cytoscape drawn (not yet: null)
    for name in ("leaf0", "leaf1", "leaf2"):  # the canvas was fitted on one node, at its largest zoom
        page.type_into("#topo-new-name", name)
        page.click("#topo-add-node")
        until(lambda name=name: page.cy(f"return !!cy && cy.$('node[label = \"{name}\"]').length;") == 1, 10)
    inside = (
        "const v = cy.extent(); return cy.nodes().length === 4 && cy.nodes().every(n => { "
        "const p = n.position(); return p.x >= v.x1 && p.x <= v.x2 && p.y >= v.y1 && p.y <= v.y2; });"
    )
    until(lambda: page.cy(inside), 5, msg="a new node is drawn outside the canvas")
    assert page.duo.get_logs() == []


def test_a_fabric_drawn_from_nothing(page):
    from vizcoll.scenario import Scenario

    page.open(f"/topology#s={Scenario(spec='empty').to_fragment()}", counts=None)  # the "empty" example
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(0, 0, 0, 0, 0))
    page.type_into("#topo-new-name", "leaf0")
    page.click("#topo-add-node")  # a switch (the default kind)
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(1, 0, 0, 0, 1))
    page.type_into("#topo-new-name", "h0")
    page.click("#topo-new-kind input[value=endpoint]")
    page.click("#topo-add-node")
    page.duo.wait_for_contains_text("#topo-counts", "1 end node")  # in the scenario before the link names it
    page.type_into("#topo-node-a", "h0")
    page.type_into("#topo-node-b", "leaf0")
    page.click("#topo-add-link")
    page.duo.wait_for_contains_text("#topo-counts", "1 switch\n1 end node\n1 link\n")
    below = (
        'const p = n => cy.$(`node[label = "${n}"]`); '
        "return !!cy && p('h0').length && p('leaf0').length && p('h0').position().y > p('leaf0').position().y;"
    )
    until(lambda: page.cy(below), 10, msg="the end node is not drawn under its switch")
    assert page.duo.find_element("#topo-message").text == "" and page.duo.get_logs() == []
