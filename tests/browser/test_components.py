"""Components in tiny apps, the dash-bootstrap-components way (issue 49): each test serves only the component it
drives (:func:`tiny_app`: on the default scenario unless given one), and finds it by its ids; the app opens in the
session's browser on a clean tab (:func:`tiny`), the export controls' in a browser of its own (:func:`served`).

- The export controls: a player's "Export animation" and a page's "Download figure pack" run as background jobs and
  land in the download folder. Every page's wiring of them is checked without a browser
  (tests/ui/test_export_controls.py), every pack's and every player's content too (tests/ui/test_export_packs.py,
  tests/ui/test_export_animation.py); the whole app keeps two pages' (tests/browser/test_exports.py).
- A drawing's image (kit.image_download): the canvas's PNG and SVG saved by the browser with the heading above
  them, and a view too large for the canvas rendered on the server in a job. The whole app keeps /topology's own
  buttons (tests/browser/test_exports.py).
- An idle canvas (``assets/canvas.js``): its drawing loop rests, and a change wakes it.
- The player (vizcoll/ui/components/player.py, ``assets/player.js``): its transitions as the browser runs them,
  and a player holding a real timeline's handle, as a page fills its store, jumping between its key moments and
  answering the keyboard. The whole app keeps what only a page shows: the step in the share link
  (tests/browser/test_player_rules.py), a new run keeping the step (tests/browser/test_key_moments.py), the
  player lighting a page's overview or drawing (tests/browser/test_overview_player.py and the pages' tests).
- The overview of a large fabric (``assets/overview.js``): a player whose handle carries the overview's frames lights
  its blocks and bundles step by step. The whole app keeps /topology choosing the overview for a fabric of 1,600
  nodes and its player driving it (tests/browser/test_overview_player.py).
- The tables (vizcoll/ui/components/tables.py): every cell shows its text as it is.
"""

from __future__ import annotations

import itertools
import string
import zipfile
from io import BytesIO

import dash_cytoscape as cyto
import pytest
from dash import Dash, dcc, html
from dash.testing.application_runners import ThreadedRunner
from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from vizcoll.scenario import Scenario
from vizcoll.treft import simulate_treft
from vizcoll.ui import jobs, vendor
from vizcoll.ui.app import ASSETS
from vizcoll.ui.cache import init_cache
from vizcoll.ui.components.exports import animation_export, figure_pack, register_animation_export, register_figure_pack
from vizcoll.ui.components.kit import field, graph, image_download, register_image_download
from vizcoll.ui.components.player import (
    BUTTONS,
    KEY_PAUSE_MS,
    SPEEDS,
    pid,
    player,
    player_data,
    register_overview,
    register_player,
)
from vizcoll.ui.components.tables import table
from vizcoll.ui.figures.topology import base_stylesheet, cytoscape_elements, fabric_drawing
from vizcoll.ui.models.parts import drawn_view
from vizcoll.ui.pages.topology._views import broadcast_player
from vizcoll.ui.store import DEFAULT_SCENARIO, SCENARIO, topology_of

from .browser_helpers import TopologyPage, canvas_nodes, lit_count, text
from .conftest import WINDOW, free_port
from .test_exports import download_to, downloaded, export_animation, press
from .test_faults import scroll_to, step_of


def tiny_app(*children, scenario: Scenario = DEFAULT_SCENARIO) -> Dash:
    """An app of ``children`` and the shared scenario store (holding ``scenario``), with the app's assets, cache
    and job pool: what a component needs of the app, nothing else."""
    app = Dash(
        __name__,
        assets_folder=str(ASSETS),
        suppress_callback_exceptions=True,
        background_callback_manager=jobs.manager(),
    )
    app.layout = html.Div([dcc.Store(id=SCENARIO, data=scenario.to_dict(thin=True)), *children])
    init_cache(app.server)
    vendor.register(app)  # the app's browser scripts: cytoscape-svg, the plotly.js bundle
    return app


def served(dash_duo, app: Dash, downloads) -> TopologyPage:
    """``app`` served and opened in ``dash_duo``'s browser, which saves downloads to ``downloads``."""
    dash_duo.start_server(app, port=free_port())
    dash_duo.driver.set_window_size(*WINDOW)
    dash_duo.driver.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
    )
    return TopologyPage(dash_duo)


@pytest.fixture
def tiny(duo):
    """``tiny(app)``: ``app`` served and opened in the session's browser on a clean tab (no Chromium of its own
    to start and quit: that took some 2.7 s of a test), its page returned; the server stopped after the test."""
    runners = []

    def serve(app: Dash) -> TopologyPage:
        runner = ThreadedRunner()
        runners.append(runner)
        runner.start(app, port=free_port())
        page = TopologyPage(duo)
        page.base = runner.url
        duo.wait_for_page(runner.url, timeout=20)
        return page

    yield serve
    for runner in runners:
        runner.stop()


def holding(app: Dash, prefix: str, handle: dict) -> None:
    """Player ``prefix`` of ``app``'s layout wired, its timeline store holding ``handle`` (:func:`player_data`), as
    a page's callback fills it."""
    store = next(c for c in app.layout._traverse() if getattr(c, "id", None) == pid(prefix, "timeline"))
    store.data = handle
    register_player(app, prefix)


# ---------------------------------------------------------------- the export controls
def test_the_export_controls_download_an_animation_and_a_figure_pack(dash_duo, tmp_path):
    app = tiny_app(animation_export("topo-player"), figure_pack("topo-pack"))
    register_animation_export(app, "topo-player", "topology")
    register_figure_pack(app, "topo-pack", "topology")
    page = served(dash_duo, app, tmp_path)
    export_animation(page, tmp_path, "topo-player")  # its first two steps, read back: 2 frames of 1280x720
    press(page, "#topo-pack-button")
    archive = zipfile.ZipFile(BytesIO(downloaded(tmp_path, "vizcoll-topology-figures.zip", timeout=240)))
    assert {"README.txt", "scenario.json"} <= set(archive.namelist())
    assert any(name.endswith(".svg") for name in archive.namelist())
    page.duo.wait_for_contains_text("#topo-pack-message", "vizcoll-topology-figures.zip: ", timeout=20)
    assert "flag warn" not in page.duo.find_element("#topo-pack-message").get_attribute("class")
    assert page.duo.get_logs() == []


# ---------------------------------------------------------------- a drawing's image (kit.image_download)
def image_app(scenario: Scenario) -> Dash:
    """The default fabric drawn on a canvas under a heading, with its "Download PNG" and "Download SVG" for
    /topology's view of ``scenario`` (the store's): the canvas's own image while it draws the view, else the view's
    figure rendered on the server."""
    topo = topology_of(DEFAULT_SCENARIO)
    canvas = cyto.Cytoscape(
        id="tiny-canvas",
        elements=cytoscape_elements(topo),
        layout={"name": "preset"},
        stylesheet=base_stylesheet(),
        style={"width": "800px", "height": "400px"},
    )
    app = tiny_app(html.Div([html.H3("A fat tree"), canvas, image_download("tiny-png")]), scenario=scenario)
    register_image_download(app, "tiny-png", "tiny-canvas", "topology", "vizcoll-tiny")
    return app


def test_a_drawing_on_the_canvas_is_saved_by_the_browser_with_its_title(tiny, tmp_path):
    page = tiny(image_app(DEFAULT_SCENARIO))
    folder = download_to(page, tmp_path / "canvas")
    until(lambda: canvas_nodes(page, "tiny-canvas") > 0, 20, msg="the canvas never drew")
    press(page, "#tiny-png")
    assert downloaded(folder, "vizcoll-tiny.png")[:8] == b"\x89PNG\r\n\x1a\n"
    press(page, "#tiny-svg")
    svg = downloaded(folder, "vizcoll-tiny.svg")
    assert svg.startswith(b"<svg") and b"A fat tree" in svg  # the heading above the drawing
    assert page.duo.find_element("#tiny-image-message").text == ""  # nothing to say: no job, no warning
    assert page.duo.get_logs() == []


# assets/canvas.js's hold on cytoscape's drawing loop: (loops waiting for their next frame, awake)
IDLE = "const idle = window.vizcollIdleCanvas; return [idle.parked.length, idle.awakeUntil > performance.now()];"


def test_an_idle_canvas_lets_the_browser_rest_and_a_change_wakes_it(tiny):
    """A second after its last redraw, a canvas's drawing loop waits for a frame five times a second, not every
    frame; a change to draw (a node's colour) gives it its frame at once, and it is drawn."""
    page = tiny(image_app(DEFAULT_SCENARIO))
    page.canvas = "tiny-canvas"
    until(lambda: canvas_nodes(page, "tiny-canvas") > 0, 20, msg="the canvas never drew")
    until(lambda: page.driver.execute_script(IDLE) == [1, False], 20, msg="the canvas's loop never rested")
    assert page.cy("cy.nodes()[0].style('background-color', 'red');" + IDLE) == [0, True]
    until(lambda: page.cy("return !cy.renderer().requestedFrame;"), 10, msg="the change was never drawn")
    assert page.duo.get_logs() == []


def test_a_view_too_large_for_the_canvas_is_rendered_on_the_server_in_a_job(tiny, tmp_path):
    page = tiny(image_app(Scenario(spec="torus:10x10x8,hosts=1")))  # 1,600 nodes: /topology shows its overview
    for fmt, magic in (("png", b"\x89PNG\r\n\x1a\n"), ("svg", b"<svg")):
        folder = download_to(page, tmp_path / fmt)
        press(page, f"#tiny-{fmt}")
        until(
            lambda f=fmt: text(page, "#tiny-image-message").startswith(f"vizcoll-tiny.{f}: the fabric's overview"),
            120,
            msg=f"{fmt}: {text(page, '#tiny-image-message')!r}",
        )
        data = downloaded(folder, f"vizcoll-tiny.{fmt}")
        assert data.startswith(magic) and len(data) >= (20_000 if fmt == "png" else 5_000)
    assert "(1,600 nodes), rendered on the server" in text(page, "#tiny-image-message")
    assert not page.duo.find_element("#tiny-image-job").is_displayed()  # the job bar is gone when it is done
    assert page.duo.get_logs() == []


# ---------------------------------------------------------------- the player's transitions (assets/player.js)
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


def test_every_transition_follows_the_rules(tiny):
    page = tiny(tiny_app())  # the app's assets: assets/player.js
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


def test_the_control_callback_checks_what_it_is_given(tiny):
    page = tiny(tiny_app())  # the app's assets: assets/player.js
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


# ---------------------------------------------------------------- a player's key moments and keys
TREFT, OTHER = "ft-treft-player", "topo-player"


def key(page, pressed: str) -> None:
    """A key pressed on the page (not in a text box)."""
    ActionChains(page.driver).send_keys(pressed).perform()


def test_the_treft_replay_jumps_to_the_fault_its_vote_and_its_detection(tiny):
    """The /faults page's TREFT replay in a player below another one (the default scenario's broadcast), as the
    page has the reduction's above it: the keyboard drives the player used last, not the first on screen."""
    app = tiny_app(
        field("seed", dcc.Input(id="seed", type="number", min=0, value=0, debounce=True)),
        html.Div(player(OTHER), className="player-panel"),
        html.Div(player(TREFT), className="player-panel"),
    )
    timeline, _ = simulate_treft("HC.A", "treft", inject=(1, "K4", "u4"))  # the /faults page's default replay
    holding(app, OTHER, broadcast_player(DEFAULT_SCENARIO)[0])
    holding(app, TREFT, player_data(timeline))
    page = tiny(app)
    page.duo.wait_for_contains_text(f"#{TREFT}-position", "step 0 of 306", timeout=30)
    page.duo.wait_for_contains_text(f"#{OTHER}-position", "step 0 of ", timeout=10)
    page.duo.wait_for_contains_text(f"#{TREFT}-moments-legend", "⚡ fault injected, ✓ vote, ⚠ fault detected")
    expected = [m["step"] + 1 for m in timeline.key_moments()]  # the engine's key moments, as slider positions
    assert len(expected) == 5
    marks = page.driver.find_elements("css selector", f"#{TREFT}-step .dash-slider-mark")
    assert [m.text for m in marks] == ["⚡", "✓", "✓", "⚠", "⚠"]

    scroll_to(page, f"#{TREFT}-next-key")
    page.click(f"#{TREFT}-next-key")
    until(lambda: step_of(page, TREFT) == expected[0], 10)
    page.duo.wait_for_contains_text(f"#{TREFT}-caption", "⚡ soft error: a transient fault on r1's device node")
    key(page, Keys.PAGE_DOWN)  # the keyboard drives the player used last
    until(lambda: step_of(page, TREFT) == expected[1], 10)
    page.duo.wait_for_contains_text(f"#{TREFT}-caption", "compares them (hashes, 2-of-3 vote)")
    key(page, Keys.PAGE_DOWN)
    until(lambda: step_of(page, TREFT) == expected[2], 10)
    key(page, Keys.PAGE_DOWN)
    until(lambda: step_of(page, TREFT) == expected[3], 10)
    page.duo.wait_for_contains_text(f"#{TREFT}-caption", "differs from the two others")
    page.click(f"#{TREFT}-prev-key")
    until(lambda: step_of(page, TREFT) == expected[2], 10)
    key(page, Keys.ARROW_RIGHT)
    until(lambda: step_of(page, TREFT) == expected[2] + 1, 10)
    key(page, Keys.ARROW_LEFT)
    until(lambda: step_of(page, TREFT) == expected[2], 10)
    key(page, Keys.SPACE)  # space on the player's own (focused) button plays, not that button
    page.duo.wait_for_text_to_equal(f"#{TREFT}-play", "❚❚ Pause", timeout=10)
    key(page, Keys.SPACE)
    page.duo.wait_for_text_to_equal(f"#{TREFT}-play", "▶ Play", timeout=10)
    key(page, Keys.END)
    until(lambda: step_of(page, TREFT) == 306, 10)
    key(page, Keys.HOME)
    until(lambda: step_of(page, TREFT) == 0, 10)

    page.duo.find_element("#seed").send_keys("7")  # typing in a box moves no player
    assert step_of(page, TREFT) == 0
    assert step_of(page, OTHER) == 0  # nor did any key move the player on screen first
    assert page.duo.get_logs() == []


# ---------------------------------------------------------------- the overview of a large fabric
def test_a_player_lights_a_large_fabrics_overview_step_by_step(tiny):
    """The overview's blocks and bundles lit in the browser (``assets/overview.js``) at each step of a broadcast whose
    handle carries the overview's frames, as /topology draws a fabric of 1,600 nodes."""
    scenario = Scenario(spec="torus:10x10x8,hosts=1")
    figure = fabric_drawing(drawn_view(scenario, "topology"), topology_of(scenario))[1]
    app = tiny_app(graph("tiny-large", "vizcoll-tiny", figure=figure), player("tiny-player"), scenario=scenario)
    holding(app, "tiny-player", broadcast_player(scenario)[0])
    register_overview(app, "tiny-player", "tiny-large")
    page = tiny(app)
    lit = lambda layer: lit_count(page, "tiny-large", layer)  # noqa: E731
    until(lambda: lit("overview-messages") == 0, 20, msg="the overview has no animation layer")
    press(page, "#tiny-player-forward")
    page.duo.wait_for_contains_text("#tiny-player-position", "step 1 of", timeout=10)
    until(lambda: lit("overview-messages") > 0 and lit("overview-nodes") > 0, 10, msg="step 1 lights nothing")
    first = lit("overview-messages")
    press(page, "#tiny-player-forward")
    until(lambda: lit("overview-messages") != first, 10, msg="the next step lights the same bundles")
    press(page, "#tiny-player-first")
    until(lambda: lit("overview-messages") == 0, 10, msg="step 0 still lights bundles")
    assert page.duo.get_logs() == []


# ---------------------------------------------------------------- the tables
AWKWARD = [
    string.punctuation,  # every ASCII punctuation character, Markdown's and HTML's among them
    "a|b \\| c",
    "**not bold** _nor italic_ `nor code` ~~nor struck~~",
    "<b>not html</b> &amp; &lt; &#33; & done",
    "# not a heading",
    "1. not a list",
    "> not a quote",
    "[not a link](http://example.org) ![nor an image](x.png)",
    "sw-0.1 (leaf 3) – spine_2 → 53",
    "   spaces\tand\nnew lines   ",
    "",
]
CELLS = """return [...document.querySelectorAll('#t tr')].map(tr => [...tr.querySelectorAll('th, td')].map(
    c => [c.textContent, c.querySelectorAll('*').length, getComputedStyle(c).backgroundColor]));"""
HIGHLIGHT = "rgb(255, 247, 214)"  # assets/style.css: a chosen row's cells
HEADLESS = """return [document.querySelectorAll('#bare tbody tr').length,
    [...document.querySelectorAll('#bare th')].map(th => th.offsetHeight)]"""


def test_every_cell_shows_its_text_as_it_is(tiny):
    """Every cell shows its text as it is (the Markdown it is written in never shows), a chosen row is emphasised,
    a table without a head shows no empty header row."""
    app = Dash(__name__, assets_folder=str(ASSETS), assets_ignore=r".*\.js$")  # the app's stylesheet alone
    rows = [[f"row {i}", text] for i, text in enumerate(AWKWARD)]
    app.layout = html.Div([table(["what", "text | head (1.)"], rows, chosen=[1], id="t"), table(None, rows, id="bare")])
    page = tiny(app)
    page.duo.wait_for_element("#t table", timeout=20)
    cells = page.driver.execute_script(CELLS)
    shown = [[text for text, _, _ in row] for row in cells]
    assert shown == [["what", "text | head (1.)"], *[[r[0], " ".join(r[1].split())] for r in rows]]
    inside = [[n for _, n, _ in row] for row in cells[1:]]
    assert inside[1] == [1, 1] and all(n == [0, 0] for i, n in enumerate(inside) if i != 1)  # <strong> alone
    highlighted = [i for i, row in enumerate(cells[1:]) if {colour for _, _, colour in row} == {HIGHLIGHT}]
    assert highlighted == [1]
    assert page.driver.execute_script(HEADLESS) == [len(rows), [0, 0]]
    assert page.duo.get_logs() == []
