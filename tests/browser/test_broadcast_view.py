"""Break a link with a real click on the canvas and watch the broadcast avoid it."""

from __future__ import annotations

from dash.testing.wait import until

from .browser_helpers import DEFAULT_COUNTS, counts_line

ORANGE = "rgb(255,127,14)"  # the links carrying the packet in the current step


def test_click_a_link_to_break_it_and_the_broadcast_avoids_it(page):
    page.open("/topology")
    assert DEFAULT_COUNTS.split("\n")[3] == "1 broken link"  # link 17 is broken in the default scenario
    page.duo.wait_for_text_to_equal(
        "#topo-bcast-info", "From h0: 36 nodes reached in 6 hops with 35 messages; 0 unreachable."
    )
    ends = "const e = cy.$('edge[link = 5]'); return e.source().data('label') + '-' + e.target().data('label');"
    assert page.cy(ends) == "h5-edge1.0"

    page.click_element("edge[link = 5]")  # h5's only link
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(20, 16, 48, 2, 4))
    until(lambda: page.cy("return cy.$('edge[link = 5]').hasClass('broken');"), 10, msg="link 5 is not drawn as broken")
    page.duo.wait_for_text_to_equal("#topo-link-id", "h5[1]-edge1.0[2]")  # the click also names the link
    page.duo.wait_for_text_to_equal(
        "#topo-bcast-info",
        "From h0: 35 nodes reached in 6 hops with 34 messages; 1 unreachable: the broken links cut the network into "
        "2 parts (1 node cut off).",
    )

    page.click("#topo-player-last")
    page.duo.wait_for_contains_text("#topo-player-caption", "1 node cannot be reached: links broken (h5)")
    page.duo.wait_for_contains_text("#topo-player-position", "step 7 of 7")
    n = page.cy("return cy.$('node[label = \"h5\"]').id();")
    until(
        lambda: page.cy(f"return cy.$('#{n}').style('shape');") == "diamond", 10, msg="h5 is not drawn as unreachable"
    )
    assert page.cy(f"return cy.$('#{n}').style('border-color');").replace(" ", "") == "rgb(214,39,40)"
    assert page.cy("return cy.nodes().filter(n => n.style('shape') === 'diamond').map(n => n.data('label'));") == ["h5"]

    # play from the end restarts at the start; mid-way the links of the current hop are orange
    page.click("#topo-player-play")
    page.duo.wait_for_text_to_equal("#topo-player-play", "❚❚ Pause")
    # one step every 800 ms: accept any middle step in case a poll misses "step 3" on a busy machine
    until(
        lambda: page.duo.find_element("#topo-player-position").text in {f"step {k} of 7" for k in range(3, 7)},
        15,
        msg="the animation did not reach step 3",
    )
    active = until(  # read as the player shows them: a step later the last step may have none
        lambda: [eid for eid, colour in page.edge_colours().items() if colour == ORANGE],
        5,
        msg="no link is highlighted during the animation",
    )
    assert not any(eid.startswith("l5-") for eid in active)
    page.driver.execute_script("document.getElementById('topo-counts').scrollIntoView({block: 'start'});")
    page.screenshot("player-mid-animation.png")  # the canvas and the player (with its caption) in one view
    page.duo.wait_for_contains_text("#topo-player-caption", "cannot be reached", timeout=15)  # it plays to the end
    page.duo.wait_for_text_to_equal("#topo-player-play", "▶ Play")
    # the last step moves no packet (its drawing comes after its caption)
    until(lambda: ORANGE not in page.edge_colours().values(), 10, msg="the last step still draws a packet")
    assert page.duo.get_logs() == []


# the server's caption callback never answered from now on (its requests counted)
BLOCK_CAPTIONS = """const fetch = window.fetch; window.__blocked = 0;
window.fetch = function (url, options) {
    if (options && typeof options.body === 'string' && options.body.includes('topo-player-caption.children')) {
        window.__blocked += 1;
        return new Promise(() => {});
    }
    return fetch.apply(this, arguments);
};"""


def test_a_new_timelines_first_caption_is_written_in_the_browser(page):
    """A handle carries its timeline's captions: a new timeline's caption and position show as it arrives, without
    the round trip of the server's caption callback (blocked here), which the page draws meanwhile."""
    page.open("/topology")
    page.duo.wait_for_text_to_equal("#topo-player-position", "step 0 of 7")
    page.click("#topo-player-last")
    page.duo.wait_for_text_to_equal("#topo-player-position", "step 7 of 7")
    assert "cannot be reached" not in page.duo.find_element("#topo-player-caption").text
    page.driver.execute_script(BLOCK_CAPTIONS)
    page.click_element("edge[link = 5]")  # h5's only link: a new broadcast, shown at the step the slider is on
    page.duo.wait_for_contains_text("#topo-player-caption", "1 node cannot be reached: links broken (h5)")
    assert page.duo.find_element("#topo-player-position").text == "step 7 of 7"
    until(  # the server was asked and never answered (asked once the handle is in: maybe after the caption)
        lambda: page.driver.execute_script("return window.__blocked") >= 1, 10, msg="the server was never asked"
    )
    assert page.duo.get_logs() == []
