"""A drawing's "Download PNG" / "Download SVG" at every size (kit.image_download): the canvas's own image while it
draws the fabric, a render on the server (a background job) while the page shows the overview instead; never an
empty file, and a failure says why."""

from __future__ import annotations

import base64

import pytest
from dash import no_update

from tests.callback_context import find_component, in_callback
from tests.probe import probe
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui import vendor
from vizcoll.ui.components import kit
from vizcoll.ui.pages.barrier import page as barrier
from vizcoll.ui.pages.topology import page as topology
from vizcoll.ui.store import DEFAULT_SCENARIO

SMALL = DEFAULT_SCENARIO.to_dict()  # 36 nodes: drawn on the canvas
LARGE = Scenario(spec="torus:10x10x8,hosts=1").to_dict()  # 1,600 nodes: the overview
PAGES = [(topology, "topo", "topology"), (barrier, "bar", "barrier")]


class Progress:
    def __init__(self):
        self.calls = []

    def __call__(self, value):
        self.calls.append(value)


class Wiring:
    """Stands for the app: keeps the functions ``register_image_download`` wires, with what they are wired to."""

    def __init__(self):
        self.callbacks = []
        self.clientside = []

    def clientside_callback(self, function: str, *dependencies, **options):
        self.clientside.append((function, dependencies, options))

    def callback(self, output, inputs, **options):
        def keep(fn):
            self.callbacks.append((fn, output | inputs, options))
            return fn

        return keep


def wired(page: str = "topology"):
    app = Wiring()
    kit.register_image_download(app, "topo-png", "topo-canvas", page, "vizcoll-topology")
    (ask, ask_deps, _), (make, make_deps, make_options) = app.callbacks
    return ask, make, ask_deps, make_deps, make_options


def press(ask, button: str, clicks: tuple[int, int], data, order):
    png_clicks, svg_clicks = clicks
    kw = {"png_clicks": png_clicks, "svg_clicks": svg_clicks, "scenario": data, "order": order}
    return in_callback(ask, f"{button}.n_clicks" if button else None, trigger_value=1, **kw)


def job(order: dict, data=LARGE, page: str = "topology", progress=None):
    return kit.image_job(progress or Progress(), order, data, page, f"vizcoll-{page}")


def content(download: dict) -> bytes:
    assert download["base64"] is True
    return base64.b64decode(download["content"])


@pytest.mark.parametrize(("module", "prefix", "page"), PAGES)
def test_the_page_shows_png_and_svg_buttons_with_a_job_bar(module, prefix, page):
    layout = module.body(DEFAULT_SCENARIO)
    assert find_component(layout, f"{prefix}-png").children == "Download PNG"  # the id outside checks use
    assert find_component(layout, f"{prefix}-svg").children == "Download SVG"
    for part in ("job", "progress", "progress-text", "cancel", "message", "order", "file"):
        assert find_component(layout, f"{prefix}-image-{part}") is not None, part


def test_both_pages_are_wired_and_the_svg_export_is_served():
    from app import create_app

    app = create_app()
    callbacks = app.callback_map
    for prefix, canvas in (("topo", "topo-canvas"), ("bar", "bar-canvas")):
        assert any(key.startswith(f"..{canvas}.generateImage...{prefix}-image-order.data") for key in callbacks)
        render = [key for key in callbacks if f"{prefix}-image-file.data" in key]
        assert len(render) == 1 and callbacks[render[0]].get("background"), prefix
    # cytoscape.js's SVG export: the cytoscape-svg extension on its own, else dash-cytoscape's extra bundle with it
    page = app.server.test_client().get("/topology").get_data(as_text=True)
    assert f'<script src="/_vizcoll/{vendor.CYTOSCAPE_SVG.name}">' in page or "/dash_cytoscape_extra." in page


def test_the_buttons_disable_and_the_job_bar_shows_while_the_render_runs():
    _, _, ask_deps, make_deps, options = wired()
    assert (str(ask_deps["image"]), str(ask_deps["order"])) == ("topo-canvas.generateImage", "topo-image-order.data")
    assert str(make_deps["file"]) == "topo-image-file.data" and str(make_deps["order"]) == "topo-image-order.data"
    assert str(ask_deps["format"]) == "topo-image-message.data-format"
    running = {str(output): (on, off) for output, on, off in options["running"]}
    assert running["topo-png.disabled"] == (True, False) and running["topo-svg.disabled"] == (True, False)
    assert running["topo-image-job.className"] == ("job running", "job")
    assert [str(o) for o in options["progress"]] == [
        "topo-image-progress.value",
        "topo-image-progress.max",
        "topo-image-progress-text.children",
    ]


@pytest.mark.parametrize(("button", "fmt"), [("topo-png", "png"), ("topo-svg", "svg")])
def test_a_small_fabric_is_saved_by_the_canvas_itself(button, fmt):
    ask, *_ = wired()
    clicks = (1, 0) if fmt == "png" else (0, 1)
    answer = press(ask, button, clicks, SMALL, None)
    # assets/drawing.js adds the title and the legend; an SVG is taken from the canvas there, after a tiny PNG
    options = {"bg": "#ffffff", "scale": 2 if fmt == "png" else 0.1}
    assert answer["image"] == {"type": "png", "action": "store", "filename": "vizcoll-topology", "options": options}
    assert answer["order"] is no_update
    assert (answer["message"], answer["style"], answer["format"]) == ("", "flag", fmt)  # format: for drawing.js


def test_a_large_fabric_orders_a_render_on_the_server():
    ask, *_ = wired()
    answer = press(ask, "topo-svg", (0, 1), LARGE, None)
    assert answer["image"] is no_update and answer["order"] == {"run": 1, "format": "svg"} and answer["message"] == ""
    answer = press(ask, "topo-png", (1, 1), LARGE, answer["order"])
    assert answer["order"] == {"run": 2, "format": "png"}  # a new order each press: the job runs again
    nothing = press(ask, None, (0, 0), LARGE, None)
    assert set(nothing) == set(kit.image_outputs("topo-png", "topo-canvas"))  # every output named, none changed
    assert all(value is no_update for value in nothing.values())  # no press, nothing
    answer = kit.image_request("png", LARGE, None, "barrier", "vizcoll-barrier")
    assert "image" not in answer and answer["order"]["format"] == "png"  # the barrier page's canvas is empty too


@pytest.mark.parametrize("page", ["topology", "barrier"])
def test_the_render_job_sends_a_png_of_the_overview(page):
    progress = Progress()
    answer = job({"run": 1, "format": "png"}, page=page, progress=progress)
    download, line, style = answer["file"], answer["message"], answer["style"]
    png = content(download)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) >= 20_000
    assert download["filename"] == f"vizcoll-{page}.png" and download["type"] == "image/png"
    assert line.startswith(f"vizcoll-{page}.png: the fabric's overview (1,600 nodes), rendered on the server")
    assert style == "flag"
    assert [text for _, _, text in progress.calls] == [
        "Drawing the figure…",
        "Rendering the PNG on the server (a few seconds)…",
    ]


def test_the_render_job_sends_an_svg_of_taihulight():
    answer = job({"run": 1, "format": "svg"}, Scenario(spec="pruned-fat-tree:preset=taihulight").to_dict())
    download, line = answer["file"], answer["message"]
    svg = content(download)
    assert svg.startswith(b"<svg") and svg.rstrip().endswith(b"</svg>") and len(svg) >= 20_000
    assert download["filename"] == "vizcoll-topology.svg" and download["type"] == "image/svg+xml"
    assert "(46,144 nodes)" in line


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (RuntimeError("the browser closed\nTraceback (most recent call last): ..."), "the browser closed"),
        (TimeoutError(), "it took longer than 120 s"),
        (
            VizcollError("no browser to render figures with (set BROWSER_PATH): not found"),
            "no browser to render figures with (set BROWSER_PATH): not found",
        ),
        (ValueError(), "ValueError"),
    ],
)
def test_a_failed_render_says_why_and_sends_nothing(monkeypatch, error, said):
    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(kit, "render", fail)
    answer = job({"run": 1, "format": "png"})
    assert "file" not in answer and answer["style"] == "flag warn"
    line = answer["message"]
    assert line == f"⚠ the PNG could not be rendered on the server: {said}"
    assert "Traceback" not in line and "\n" not in line


def test_an_empty_render_is_never_sent(monkeypatch):
    monkeypatch.setattr(kit, "render", lambda *args, **kwargs: b"")
    answer = job({"run": 1, "format": "svg"})
    assert "file" not in answer and answer["style"] == "flag warn"
    assert answer["message"].startswith("⚠ the renderer gave an empty SVG: nothing was sent")


def test_the_job_and_the_request_read_the_browser_as_untrusted():
    forged = {"schema": "vizcoll.scenario/2", "fabric": {"spec": "/etc/passwd"}}
    malformed = "⚠ the browser sent a malformed image request: press the button again"
    for order in (None, {"format": "pdf"}, {"format": ["png"]}, "png"):
        assert job(order) == {"message": malformed, "style": "flag warn"}
    answer = job({"run": 1, "format": "png"}, forged)
    assert "file" not in answer and answer["message"].startswith("⚠ The scenario could not be read")
    answer = kit.image_request("png", forged, None, "topology", "vizcoll-topology")
    assert set(answer) == {"message", "style"} and answer["message"].startswith("⚠ The scenario could not be read")
    assert kit.image_request("gif", SMALL, None, "topology", "x")["message"] == "⚠ unknown image format 'gif'"
    answer = job({"run": 1, "format": "png"}, SMALL)  # the fabric became small meanwhile
    assert answer == {
        "message": "⚠ the fabric is drawn on the canvas now: press the button again",
        "style": "flag warn",
    }


def test_the_ids_follow_the_png_button():
    assert kit.image_ids("bar-png") == {
        "png": "bar-png",
        "svg": "bar-svg",
        "job": "bar-image",
        "message": "bar-image-message",
        "order": "bar-image-order",
        "file": "bar-image-file",
    }
    row = kit.image_download("bar-png", "more").children[0]
    assert [getattr(c, "id", c) for c in row.children] == ["bar-png", "bar-svg", "more"]


def test_a_canvas_png_or_svg_goes_to_the_browser_which_adds_the_title_and_the_legend():
    app = Wiring()
    kit.register_image_download(app, "topo-png", "topo-canvas", "topology", "vizcoll-topology")
    [(function, dependencies, _)] = app.clientside
    assert 'vizcollSaveDrawing("topo-canvas", data, "vizcoll-topology", format)' in function  # assets/drawing.js
    assert [str(d) for d in dependencies] == [
        "topo-image-message.title",
        "topo-canvas.imageData",
        "topo-image-message.data-format",
    ]


def test_a_forged_press_says_why_or_changes_nothing():
    ask, *_ = wired()
    valid = {"png_clicks": 1, "svg_clicks": 0, "scenario": SMALL, "order": None}
    probe(ask, "topo-png.n_clicks", valid)
