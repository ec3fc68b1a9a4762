"""The small layout pieces every page uses, so that pages look alike and say only what is theirs.

Forms (:func:`field`, :func:`number_input`, :func:`dropdown`), panels
(:func:`section`, :func:`panel`), text boxes (:func:`message_box` for
problems, :func:`status_box` for what a view did, :func:`info`), graphs with
the SVG export button (:func:`graph`, :func:`graph_config`) and downloads
(:func:`download_button`; :func:`image_download` and :func:`register_image_download` for a drawing's PNG and
SVG at every size). Blank figures are a figure builder: :func:`vizcoll.ui.figures.common.blank_figure`.

A drawing's image: while the cytoscape canvas draws the fabric node by node, the browser saves the canvas's own
PNG or SVG at once (cytoscape.js's ``generateImage``; the SVG is cytoscape-svg's, :mod:`vizcoll.ui.vendor`);
while the page shows a Plotly figure instead (a fabric of more than :data:`~vizcoll.ui.limits.DRAWN_NODES` nodes:
its overview, or a large group alone), the canvas is empty and the figure is rendered on the server (kaleido,
:func:`vizcoll.ui.export.render.render`) in a background job with a progress text and a Cancel button, then sent
with a ``dcc.Download``. Nothing is ever sent empty: a failure is a "⚠" line saying why.
"""

from __future__ import annotations

import json

import plotly.graph_objects as go
from dash import Dash, Input, Output, State, ctx, dcc, html

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui import jobs
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.export.render import RENDER_TIMEOUT_S, render
from vizcoll.ui.figures.topology import SMALL_LIMIT, fabric_drawing
from vizcoll.ui.models.parts import FabricView, drawn_view
from vizcoll.ui.store import SCENARIO, checked, topology_of
from vizcoll.words import plural

__all__ = [
    "field",
    "titled",
    "section",
    "panel",
    "graph_config",
    "graph",
    "message_box",
    "status_box",
    "info",
    "number_input",
    "dropdown",
    "download_button",
    "job_bar",
    "image_download",
    "register_image_download",
    "image_ids",
    "image_request",
    "image_job",
    "image_outputs",
    "job_outputs",
    "drawn_figure",
    "IMAGE_FORMATS",
]

IMAGE_FORMATS = {"png": "image/png", "svg": "image/svg+xml"}  # a drawing's image formats and their MIME types
IMAGE_WIDTH, IMAGE_HEIGHT = 1280, 720  # px of a figure rendered on the server (its own height when it has one)
PNG_SCALE = 2  # a rendered PNG has twice the pixels (sharp when printed or zoomed)
IMAGE_POLL_MS = 400  # how often a page asks the render job for its progress


def field(label: str, component) -> html.Div:
    """A labelled control on one row. The label of a control with an id ``X`` is ``X-label``, for ``X``: it names
    a number box as a ``<label for>`` does, and a radio list, a checklist, a dropdown or a slider through
    ``aria-labelledby`` (``assets/a11y.js``: Dash's components take no aria attributes)."""
    cid = getattr(component, "id", None)
    named = {"htmlFor": cid, "id": f"{cid}-label"} if isinstance(cid, str) else {}
    return html.Div(className="row", children=[html.Label(label, className="label", **named), component])


def titled(control, title: str) -> html.Div:
    """``control`` with a tooltip: Dash's own controls (dropdown, text box, slider) take no ``title``, so a wrapper
    that draws no box of its own (class ``titled``: ``display: contents``) carries it for them."""
    return html.Div(control, title=title, className="titled")


def section(title: str, *children, open: bool = True, id: str | None = None) -> html.Details:  # noqa: A002
    """A panel of the sidebar with a title that folds it (open unless ``open=False``)."""
    extra = {} if id is None else {"id": id}
    return html.Details(open=open, className="panel", children=[html.Summary(title), *children], **extra)


def panel(*children, className: str = "") -> html.Div:  # noqa: N803 (Dash's spelling)
    """A white box of the main column."""
    return html.Div(className=" ".join(filter(None, ["panel", className])), children=list(children))


def graph_config(filename: str) -> dict:
    """The one config of every Plotly graph: the camera button of the mode bar saves an SVG named ``filename``;
    nothing in a figure links out of the app (no "Share chart…" button sending the data to Plotly's cloud, no
    Plotly logo linking to plotly.com): the app's own share link is the way to share a view."""
    return {
        "toImageButtonOptions": {"format": "svg", "filename": filename},
        "showSendToCloud": False,
        "showEditInChartStudio": False,
        "displaylogo": False,
        "showLink": False,
        "modeBarButtonsToRemove": ["sendDataToCloud", "sendChartToCloud", "editInChartStudio"],
    }


def graph(id: str, filename: str, later: bool = False, **kwargs) -> dcc.Graph:  # noqa: A002
    """A ``dcc.Graph`` whose mode bar saves an SVG named ``filename``; ``later``: a view the page's first view does
    not need (below the fold, or beside the figure the player lights), drawn once the browser is idle, after the
    page's first views (``assets/figures.js``)."""
    return dcc.Graph(id=id, config=graph_config(filename), **({"className": "later"} if later else {}), **kwargs)


def graph_preload(id: str) -> html.Div:  # noqa: A002
    """A hidden, empty ``dcc.Graph`` for the shell, so that dcc's graph code is in before a page's first figure.

    ``dcc.Graph`` is a React.lazy component. The first page to draw one suspended its figures while that code
    loaded, and React 18 shows again a part it suspended no sooner than 500 ms after it hid it (react-dom's
    ``FALLBACK_THROTTLE_MS``): a share link's first figure waited for that timer, the main thread idle (issue 23).
    The shell's graph loads the code while the router computes the page, and a page's figures are drawn as it
    mounts. Its own drawing is one empty static plot."""
    empty = {
        "data": [],
        "layout": {"width": 40, "height": 40, "xaxis": {"visible": False}, "yaxis": {"visible": False}},
    }
    return html.Div(hidden=True, children=dcc.Graph(id=id, figure=empty, config={"staticPlot": True}))


def message_box(id: str) -> html.Div:  # noqa: A002
    """Where a page says what went wrong with an input (red, announced by screen readers: ``role=status``); in the
    browser it floats under the control that caused it (``assets/messages.js``)."""
    return html.Div(id=id, className="message", role="status")


def status_box(id: str) -> html.Div:  # noqa: A002
    """A line saying what a view did or why it waits (hidden while empty)."""
    return html.Div(id=id, className="flag", role="status")


def info(*children, id: str | None = None) -> html.P:  # noqa: A002
    """A paragraph of explanation."""
    extra = {} if id is None else {"id": id}
    return html.P(className="info", children=list(children) if len(children) != 1 else children[0], **extra)


def number_input(id: str, value, **kwargs) -> dcc.Input:  # noqa: A002
    """A number box that reports its value when the user is done typing."""
    return dcc.Input(id=id, type="number", value=value, debounce=True, **kwargs)


def dropdown(id: str, options, value, **kwargs) -> dcc.Dropdown:  # noqa: A002
    """A dropdown that always has a value, as wide as its row allows."""
    return dcc.Dropdown(id=id, options=options, value=value, clearable=False, className="grow", **kwargs)


def download_button(label: str, id: str) -> html.Button:  # noqa: A002
    """A button that starts a download (its callback fills a ``dcc.Download`` or a drawing's image)."""
    return html.Button(label, id=id, n_clicks=0)


def job_bar(prefix: str) -> html.Div:
    """A background job's progress bar, its text and its Cancel button (see :func:`vizcoll.ui.jobs.background`);
    hidden (class ``job``) unless a job runs (class ``job running``)."""
    return html.Div(
        id=f"{prefix}-job",
        className="job",
        children=[
            html.Progress(id=f"{prefix}-progress", value="0", max="1"),
            html.Span(id=f"{prefix}-progress-text", className="job-text"),
            html.Button("Cancel", id=f"{prefix}-cancel", n_clicks=0, disabled=True, className="small"),
        ],
    )


# ---------------------------------------------------------------- a drawing's image (PNG or SVG)
def image_ids(png: str) -> dict[str, str]:
    """The ids of the image controls of the PNG button ``png`` (``<b>-png``, e.g. ``topo-png``): the SVG button
    ``<b>-svg``, the job bar of prefix ``<b>-image`` (``<b>-image-job``, ``-progress``, ``-cancel``), the line
    ``<b>-image-message``, the job's order ``<b>-image-order`` and the download ``<b>-image-file``."""
    base = png.removesuffix("-png")
    return {
        "png": png,
        "svg": f"{base}-svg",
        "job": f"{base}-image",
        "message": f"{base}-image-message",
        "order": f"{base}-image-order",
        "file": f"{base}-image-file",
    }


def image_download(png: str, *others) -> html.Div:
    """The "Download PNG" (id ``png``) and "Download SVG" buttons of a drawing, then ``others`` in the same row,
    the job bar of a render on the server, the line saying what was made or why not (see :func:`image_ids`)."""
    ids = image_ids(png)
    return html.Div(
        className="image-download",
        children=[
            html.Div(
                className="buttons",
                children=[download_button("Download PNG", png), download_button("Download SVG", ids["svg"]), *others],
            ),
            job_bar(ids["job"]),
            status_box(ids["message"]),
            dcc.Store(id=ids["order"]),
            dcc.Download(id=ids["file"]),
        ],
    )


def _pressed(clicks) -> bool:
    return isinstance(clicks, int) and not isinstance(clicks, bool) and clicks >= 1


def _on_canvas(view: FabricView) -> bool:
    """Whether the page draws ``view`` node by node on its cytoscape canvas (else as a Plotly figure)."""
    return view.overview is None and view.topo.n_nodes <= SMALL_LIMIT


def drawn_figure(page: str, scenario: Scenario) -> tuple[go.Figure | None, str]:
    """(The Plotly figure ``page`` shows instead of its canvas, what it shows): the overview of a fabric of more
    than :data:`~vizcoll.ui.figures.topology.SMALL_LIMIT` nodes or a large group alone; (None, "") while the
    canvas draws the fabric."""
    view = drawn_view(scenario, page)
    if _on_canvas(view):
        return None, ""
    topo = topology_of(scenario)
    what = "the fabric's overview" if view.part == "overview" else f"{view.name} alone"
    return fabric_drawing(view, topo)[1], f"{what} ({plural(topo.n_nodes, 'node')})"


def image_request(fmt: str, data, order_now, page: str, filename: str) -> dict:
    """What "Download PNG" / "Download SVG" (``fmt``) does on ``page`` for the scenario store ``data``, by name (see
    :func:`image_outputs`): the canvas's ``image`` request, the render job's ``order``, the ``message`` line and its
    ``style``. While the canvas draws the fabric, the browser saves its drawing at once; else the job renders the
    page's figure on the server (see :func:`image_job`)."""
    if not isinstance(fmt, str) or fmt not in IMAGE_FORMATS:
        return _warn(f"⚠ unknown image format {str(fmt)[:20]!r}")
    scenario, message = checked(data)
    if scenario is None:
        return _warn(message)
    try:
        canvas = _on_canvas(drawn_view(scenario, page))
    except VizcollError as exc:
        return _warn(f"⚠ {exc}")
    if canvas:  # assets/drawing.js adds the drawing's title and legend to its PNG or SVG, and saves it
        # an SVG is asked for as a tiny PNG: dash-cytoscape cannot store an SVG (it reads the SVG text as a Blob),
        # drawing.js then takes the SVG from the canvas itself
        scale = 2 if fmt == "png" else 0.1
        image = {"type": "png", "action": "store", "filename": filename, "options": {"bg": "#ffffff", "scale": scale}}
        return {"image": image, "message": "", "style": "flag"}
    return {"order": jobs.order(True, order_now, format=fmt), "message": "", "style": "flag"}


def _warn(message: str) -> dict:
    """The image line saying why nothing is made (red)."""
    return {"message": message, "style": "flag warn"}


def image_job(set_progress, order, data, page: str, filename: str) -> dict:
    """(A background job.) The figure ``page`` shows instead of its canvas (:func:`drawn_figure`) rendered on the
    server in the ``order``'s format, by name: the ``dcc.Download`` ``file``, the ``message`` line saying what was
    made and its ``style``. Nothing is sent when anything fails: the line says why ("⚠ ...")."""
    fmt = order.get("format") if isinstance(order, dict) else None
    if not isinstance(fmt, str) or fmt not in IMAGE_FORMATS:
        return _warn("⚠ the browser sent a malformed image request: press the button again")
    scenario, message = checked(data)
    if scenario is None:
        return _warn(message)
    set_progress((0, 2, "Drawing the figure…"))
    try:
        figure, what = drawn_figure(page, scenario)
    except VizcollError as exc:
        return _warn(f"⚠ {exc}")
    if figure is None:
        return _warn("⚠ the fabric is drawn on the canvas now: press the button again")
    set_progress((1, 2, f"Rendering the {fmt.upper()} on the server (a few seconds)…"))
    height = int(figure.layout.height or IMAGE_HEIGHT)
    try:
        content = render(figure, fmt, IMAGE_WIDTH, height, PNG_SCALE if fmt == "png" else 1)
    except Exception as exc:  # noqa: BLE001 (kaleido, the browser or a timeout: the page says why, nothing is sent)
        return _warn(f"⚠ the {fmt.upper()} could not be rendered on the server: {_reason(exc)}")
    if not content:
        return _warn(f"⚠ the renderer gave an empty {fmt.upper()}: nothing was sent (press the button again)")
    name = f"{filename}.{fmt}"
    size = f"{IMAGE_WIDTH * PNG_SCALE:,}×{height * PNG_SCALE:,} px, " if fmt == "png" else ""
    return {
        "file": dcc.send_bytes(content, name, type=IMAGE_FORMATS[fmt]),
        "message": f"{name}: {what}, rendered on the server, {size}{len(content) / 1e3:,.0f} kB.",
        "style": "flag",
    }


def _reason(exc: Exception) -> str:
    """One line saying why a render failed (no traceback)."""
    if isinstance(exc, TimeoutError):
        return f"it took longer than {RENDER_TIMEOUT_S} s"
    text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
    return text or type(exc).__name__


def image_outputs(png: str, canvas: str) -> dict[str, Output]:
    """What "Download PNG" / "Download SVG" (``png``: the PNG button's id) writes (:func:`image_request`): the
    cytoscape ``canvas``'s ``image`` request, the job's ``order``, the line's ``message``, ``style`` and ``format``
    (for ``assets/drawing.js``: dash-cytoscape empties ``generateImage`` once it has read it)."""
    ids = image_ids(png)
    return {
        "image": Output(canvas, "generateImage"),
        "order": Output(ids["order"], "data"),
        "message": Output(ids["message"], "children"),
        "style": Output(ids["message"], "className"),
        "format": Output(ids["message"], "data-format"),
    }


def job_outputs(png: str) -> dict[str, Output]:
    """What the render job of :func:`register_image_download` writes (:func:`image_job`): the download's ``file``,
    the line's ``message`` and ``style``."""
    ids = image_ids(png)
    return {
        "file": Output(ids["file"], "data"),
        "message": Output(ids["message"], "children", allow_duplicate=True),
        "style": Output(ids["message"], "className", allow_duplicate=True),
    }


def register_image_download(app: Dash, png: str, canvas: str, page: str, filename: str) -> None:
    """Wire the buttons of :func:`image_download` (``png``: the PNG button's id) to save ``page``'s drawing as
    ``filename``.png or .svg: the cytoscape ``canvas``'s own image (a PNG under the drawing's title and above its
    legend, ``assets/drawing.js``), or its figure rendered on the server by a background job (progress, Cancel; both
    buttons disabled meanwhile)."""
    ids = image_ids(png)

    def ask(png_clicks, svg_clicks, scenario, order):
        if not (_pressed(png_clicks) or _pressed(svg_clicks)):
            return {}
        fmt = "svg" if ctx.triggered_id == ids["svg"] else "png"
        return image_request(fmt, scenario, order, page, filename) | {"format": fmt}  # the format: for drawing.js

    def make(set_progress, order, scenario):
        return image_job(set_progress, order, scenario, page, filename)

    asked = {
        "png_clicks": Input(png, "n_clicks"),
        "svg_clicks": Input(ids["svg"], "n_clicks"),
        "scenario": State(SCENARIO, "data"),
        "order": State(ids["order"], "data"),
    }
    by_name(app, image_outputs(png, canvas), asked, prevent_initial_call=True)(ask)
    app.clientside_callback(  # the canvas's PNG with its title and legend (assets/drawing.js)
        f"function (data, format) {{ return window.vizcollSaveDrawing({json.dumps(canvas)}, data, "
        f"{json.dumps(filename)}, format); }}",
        Output(ids["message"], "title"),
        Input(canvas, "imageData"),
        State(ids["message"], "data-format"),
        prevent_initial_call=True,
    )
    ordered = {"order": Input(ids["order"], "data"), "scenario": State(SCENARIO, "data")}
    by_name(
        app,
        job_outputs(png),
        ordered,
        prevent_initial_call=True,
        interval=IMAGE_POLL_MS,
        **jobs.background(ids["job"], (png, ids["svg"])),
    )(make)
