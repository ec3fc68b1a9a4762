"""The player's transitions as the browser runs them (``assets/player.js``): every button, the clock, a new
timeline and the key moments, for every position of short timelines; the control callback's checks of what it is
given (forged key moments, an unknown speed)."""

from __future__ import annotations

import itertools

from vizcoll.ui.components.player import BUTTONS, KEY_PAUSE_MS, SPEEDS

TRIGGERS = [name for name, _, _ in BUTTONS] + ["tick", "timeline", None, "speed"]
NEXT = "return arguments[0].map(c => window.dash_clientside.vizcoll.nextStep(...c));"
# the control callback with the callback context Dash would give it (the trigger's id, the player's outputs)
CONTROL = """const [trigger, args] = arguments, c = window.dash_clientside;
c.callback_context = {triggered_id: trigger, outputs_list: [{id: 'p-step', property: 'value'}]};
return c.vizcoll.control(...args);"""


def expected(trigger, position, n, playing, moments):
    p = min(max(int(position or 0), 0), n)
    return {
        "first": (0, False),
        "back": (max(p - 1, 0), False),
        "forward": (min(p + 1, n), False),
        "last": (n, False),
        "prev-key": (max([m for m in moments if m < p], default=p), False),
        "next-key": (min([m for m in moments if m > p], default=p), False),
        "timeline": (p, False),  # a new timeline keeps the step (clamped to its length), paused
        "tick": (p + 1, True) if p < n else (n, False),
        "play": (p, False) if playing else ((0 if p >= n else p), n > 0),
    }.get(trigger, (p, playing))  # anything else (None, the speed) changes nothing


def test_every_transition_follows_the_rules(page):
    page.open("/", counts=None)
    cases = [
        (trigger, position, n, playing, [m for m in (1, 3) if m <= n])
        for n, playing, trigger in itertools.product(range(5), (False, True), TRIGGERS)
        for position in [None, -1, *range(0, n + 2)]
    ]
    got = page.driver.execute_script(NEXT, [list(c) for c in cases])
    for case, (position, playing) in zip(cases, got, strict=True):
        assert (position, playing) == expected(*case), case
    # playing from the end visits every position once, then stops
    for n in range(5):
        position, playing = page.driver.execute_script(NEXT, [["play", n, n, False, []]])[0]
        seen = [position]
        while playing:
            position, playing = page.driver.execute_script(NEXT, [["tick", position, n, True, []]])[0]
            seen.append(position)
        assert seen == list(range(n + 1)) + ([n] if n else [])
    assert page.duo.get_logs() == []


def test_the_control_callback_checks_what_it_is_given(page):
    page.open("/", counts=None)
    clicks = [0] * len(BUTTONS)

    def press(trigger, step, paused, steps=3, speed=SPEEDS["1×"], moments=(2,), pause=()):
        args = [*clicks, 0, steps, speed, step, paused, list(moments), list(pause)]
        return tuple(page.driver.execute_script(CONTROL, trigger, args))

    assert press("p-steps", 2, False) == (2, 3, True, "▶ Play", SPEEDS["1×"])  # new timeline: same step, paused
    assert press("p-next-key", 0, True) == (2, 3, True, "▶ Play", SPEEDS["1×"])  # the key moment
    assert press("p-prev-key", 3, False) == (2, 3, True, "▶ Play", SPEEDS["1×"])
    assert press("p-next-key", 0, True, moments=[True, "7", -1, 99, 2.5]) == (0, 3, True, "▶ Play", SPEEDS["1×"])
    assert press("p-play", 3, True) == (0, 3, False, "❚❚ Pause", SPEEDS["1×"])  # play at the end restarts
    assert press("p-tick", 1, False) == (2, 3, False, "❚❚ Pause", SPEEDS["1×"])
    assert press("p-tick", 3, False) == (3, 3, True, "▶ Play", SPEEDS["1×"])  # stops at the end
    assert press("p-speed", 1, False, speed=SPEEDS["4×"]) == (1, 3, False, "❚❚ Pause", SPEEDS["4×"])  # plays on
    assert press("p-speed", 1, False, speed="9×") == (1, 3, False, "❚❚ Pause", SPEEDS["1×"])  # forged speed
    assert press("p-speed", 1, False, speed=SPEEDS["16×"]) == (1, 3, False, "❚❚ Pause", 50)  # class speed
    # pause at key moments: a tick reaching one holds it, the next goes on at the speed
    assert press("p-tick", 1, False, pause=["pause"]) == (2, 3, False, "❚❚ Pause", KEY_PAUSE_MS)
    assert press("p-tick", 2, False, pause=["pause"]) == (3, 3, False, "❚❚ Pause", SPEEDS["1×"])
    assert press("p-tick", 0, False, pause=["pause"]) == (1, 3, False, "❚❚ Pause", SPEEDS["1×"])
    assert press("p-tick", 1, False, pause="pause") == (2, 3, False, "❚❚ Pause", SPEEDS["1×"])  # forged: off
    assert press("p-back", 0, True) == (0, 3, True, "▶ Play", SPEEDS["1×"])
    assert press("p-last", 0, True, steps=None) == (0, 0, True, "▶ Play", SPEEDS["1×"])  # no timeline
    assert press("p-forward", "x", True, steps=1e12) == (1, 10**7, True, "▶ Play", SPEEDS["1×"])  # forged: clamped


def test_the_step_travels_in_the_share_link(page):
    from dash.testing.wait import until

    from vizcoll.ui.store import DEFAULT_SCENARIO

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
