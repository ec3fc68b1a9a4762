"""The step of a player travels in the app's share link: a link with ``&step=<player>:<n>`` opens the player on
that step, and each step moves the link (and the address) along (``assets/player.js`` with the shell's share
link). The player's transitions themselves are tested in a tiny app (tests/browser/test_components.py)."""

from __future__ import annotations

from dash.testing.wait import until

from vizcoll.ui.store import DEFAULT_SCENARIO


def test_the_step_travels_in_the_share_link(page):
    page.open(f"/topology#s={DEFAULT_SCENARIO.to_fragment()}&step=topo-player:3", counts=None)
    page.duo.wait_for_contains_text("#topo-player-position", "step 3 of", timeout=20)  # opened on the link's step
    page.click("#topo-player-forward")
    page.duo.wait_for_contains_text("#topo-player-position", "step 4 of")
    until(lambda: page.driver.current_url.endswith("&step=topo-player:4"), 10, msg="the address keeps the step")
    link = page.duo.find_element("#share-link").get_attribute("href")
    assert link.endswith("&step=topo-player:4") and "#s=" in link
    page.click("#topo-player-first")  # step 0: the link is the scenario's alone
    until(lambda: "&step=" not in page.driver.current_url, 10)
    assert page.duo.get_logs() == []
