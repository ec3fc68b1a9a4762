"""The small layout pieces every page uses, so that pages look alike and say only what is theirs.

Forms (:func:`field`, :func:`number_input`, :func:`dropdown`), panels
(:func:`section`, :func:`panel`), text boxes (:func:`message_box` for
problems, :func:`status_box` for what a view did, :func:`info`), graphs with
the SVG export button (:func:`graph`, :func:`graph_config`) and downloads
(:func:`download_button`, :func:`png_download` for a cytoscape drawing).
Blank figures are a figure builder: :func:`vizcoll.ui.figures.common.blank_figure`.
"""

from __future__ import annotations

from dash import Dash, Input, Output, dcc, html

__all__ = ["field", "section", "panel", "graph_config", "graph", "message_box", "status_box", "info",
           "number_input", "dropdown", "download_button", "png_download", "job_bar"]


def field(label: str, component) -> html.Div:
    """A labelled control on one row."""
    return html.Div(className="row", children=[html.Label(label, className="label"), component])


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
    return {"toImageButtonOptions": {"format": "svg", "filename": filename}, "showSendToCloud": False,
            "showEditInChartStudio": False, "displaylogo": False, "showLink": False,
            "modeBarButtonsToRemove": ["sendDataToCloud", "sendChartToCloud", "editInChartStudio"]}


def graph(id: str, filename: str, **kwargs) -> dcc.Graph:  # noqa: A002
    """A ``dcc.Graph`` whose mode bar saves an SVG named ``filename``."""
    return dcc.Graph(id=id, config=graph_config(filename), **kwargs)


def message_box(id: str) -> html.Div:  # noqa: A002
    """Where a page says what went wrong with an input (red, read out by screen readers)."""
    return html.Div(id=id, className="message", role="alert")


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


def png_download(app: Dash, button: str, canvas: str, filename: str) -> None:
    """Wire ``button`` to save the cytoscape drawing ``canvas`` as ``filename``.png."""
    app.callback(Output(canvas, "generateImage"), Input(button, "n_clicks"), prevent_initial_call=True)(
        lambda _: {"type": "png", "action": "download", "filename": filename})


def job_bar(prefix: str) -> html.Div:
    """A background job's progress bar, its text and its Cancel button (see :func:`vizcoll.ui.jobs.background`);
    hidden (class ``job``) unless a job runs (class ``job running``)."""
    return html.Div(id=f"{prefix}-job", className="job", children=[
        html.Progress(id=f"{prefix}-progress", value="0", max="1"),
        html.Span(id=f"{prefix}-progress-text", className="job-text"),
        html.Button("Cancel", id=f"{prefix}-cancel", n_clicks=0, disabled=True, className="small")])
