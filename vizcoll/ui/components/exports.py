"""The export controls of the pages: "Export animation" under a player, "Download figure pack" in a sidebar.

Both run as background jobs (:mod:`vizcoll.ui.jobs`: a progress bar frame by frame or figure by figure, a
Cancel button, the button disabled meanwhile) and end in a ``dcc.Download``; every option is checked on the
server (:func:`vizcoll.ui.export.animation.read_options`) and a problem becomes a "⚠ ..." message. What is
exported is computed from the scenario store (and the page's own stores passed as ``extra``), never from a
figure the browser sends.

Ids, for a player ``<p>`` (e.g. ``bar-player``): ``<p>-export`` (the details), ``<p>-export-format``,
``-first``, ``-last``, ``-fps``, ``-size``, ``-button``, ``-message``, ``-file`` and the job bar of prefix
``<p>-export`` (``<p>-export-job``, ``-progress``, ``-cancel``); for a figure pack ``<q>`` (e.g. ``bar-pack``):
``<q>-button``, ``<q>-message``, ``<q>-file`` and the job bar of prefix ``<q>``; its "Figures as text and data"
``<q>-text`` (:func:`figure_text`).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from dash import Dash, Input, Output, State, dcc, html

from vizcoll.errors import VizcollError
from vizcoll.ui import jobs
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.kit import field, info, job_bar, status_box
from vizcoll.ui.export.alt import describe
from vizcoll.ui.export.animation import FORMATS, SIZES, export_animation, read_options
from vizcoll.ui.export.animations import animation_of
from vizcoll.ui.export.catalog import pack_file, pack_of
from vizcoll.ui.limits import EXPORT_MAX_FPS, EXPORT_MIN_FPS
from vizcoll.ui.store import SCENARIO, checked
from vizcoll.words import plural

__all__ = [
    "animation_export",
    "register_animation_export",
    "figure_pack",
    "figure_text",
    "text_view",
    "register_figure_pack",
    "ExportRequest",
    "animation_job",
    "pack_job",
    "text_job",
]

POLL_MS = 500  # how often a page asks an export job for its progress


def _eid(prefix: str, part: str) -> str:
    return f"{prefix}-export-{part}"


def _pressed(clicks) -> bool:
    """Whether the button's ``n_clicks`` says it was pressed (a count of at least 1; anything else is no press)."""
    return isinstance(clicks, int) and not isinstance(clicks, bool) and clicks >= 1


def _flagged(answer: dict) -> dict:
    """A job's answer with its line's class (``flag``): a warning when the line says what went wrong."""
    return answer | {"flag": "flag warn" if str(answer["message"]).startswith("⚠") else "flag"}


def animation_export(prefix: str) -> html.Details:
    """The "Export animation" control of player ``prefix`` (folded until opened)."""
    return html.Details(
        id=f"{prefix}-export",
        className="export",
        children=[
            html.Summary("Export animation"),
            field(
                "format",
                dcc.Dropdown(
                    id=_eid(prefix, "format"),
                    clearable=False,
                    value="gif",
                    className="grow",
                    options=[{"label": text, "value": key} for key, (text, _, _) in FORMATS.items()],
                ),
            ),
            html.Div(
                className="row",
                children=[
                    html.Label("steps", className="label", htmlFor=_eid(prefix, "first")),
                    dcc.Input(id=_eid(prefix, "first"), type="number", min=0, value=0, placeholder="0"),
                    html.Label("to", htmlFor=_eid(prefix, "last")),
                    dcc.Input(id=_eid(prefix, "last"), type="number", min=0, placeholder="last"),
                ],
            ),
            field(
                "frames per second",
                dcc.Input(
                    id=_eid(prefix, "fps"), type="number", min=EXPORT_MIN_FPS, max=EXPORT_MAX_FPS, step="any", value=2
                ),
            ),
            field(
                "size (px)",
                dcc.Dropdown(
                    id=_eid(prefix, "size"), options=list(SIZES), value=SIZES[0], clearable=False, className="grow"
                ),
            ),
            html.Div(
                className="buttons", children=[html.Button("Export animation", id=_eid(prefix, "button"), n_clicks=0)]
            ),
            job_bar(f"{prefix}-export"),
            status_box(_eid(prefix, "message")),
            dcc.Download(id=_eid(prefix, "file")),
            info(
                "Rendered on the server from the same data as the player: step 0 is the initial state, frame k the "
                'player at step k, with its caption. Empty "to": the last step.'
            ),
        ],
    )


@dataclass(frozen=True)
class ExportRequest:
    """The values of an "Export animation" control as the browser sent them, unchecked.

    :func:`vizcoll.ui.export.animation.read_options` checks them.

    Parameters
    ----------
    fmt : object
        The format (``gif``, ``mp4``, ``frames``).
    first : object
        The first step (empty: 0).
    last : object
        The last step (empty: the last one).
    fps : object
        Frames per second.
    size : object
        The frame size, ``WIDTHxHEIGHT``.
    """

    fmt: object
    first: object
    last: object
    fps: object
    size: object


def animation_job(set_progress, page: str, player: str | None, request: ExportRequest, data, extra=None):
    """(A background job.) The animation of ``page``'s ``player`` for the scenario store ``data``, exported as
    ``request`` asks: the ``dcc.Download`` data (``file``) and a line saying what was made, or a "⚠" message
    (``message``)."""
    scenario, message = checked(data)
    if scenario is None:
        return {"message": message}
    try:
        animation = animation_of(page, scenario, player, extra)
        options = read_options(
            request.fmt, request.first, request.last, request.fps, request.size, animation.timeline.n_steps + 1
        )
        total = len(options.positions)
        set_progress((0, total, f"Rendering {plural(total, 'frame')}…"))
        out = export_animation(
            animation, options, lambda done, n: set_progress((done, n, f"{done:,} of {plural(n, 'frame')}"))
        )
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    return {
        "file": dcc.send_bytes(out["content"], out["filename"], type=out["mime"]),
        "message": f"{out['filename']}: {plural(out['frames'], 'frame')} (steps {options.first} to {options.last}), "
        f"{len(out['content']) / 1e6:.1f} MB.",
    }


def register_animation_export(
    app: Dash, prefix: str, page: str, player: str | None = None, extra: State | None = None
) -> None:
    """Wire the "Export animation" control of player ``prefix``, which shows ``page``'s ``player``; ``extra``:
    a page store the animation needs besides the scenario."""
    request = {name: State(_eid(prefix, part), "value") for name, part in _REQUEST.items()}
    inputs = {"clicks": Input(_eid(prefix, "button"), "n_clicks"), **request, "data": State(SCENARIO, "data")}

    def export(set_progress, clicks, data, extra=None, **values):
        if not _pressed(clicks):
            return {}
        return _flagged(animation_job(set_progress, page, player, ExportRequest(**values), data, extra))

    outputs = _job_outputs(_eid(prefix, "file"), _eid(prefix, "message"))
    background = jobs.background(f"{prefix}-export", (_eid(prefix, "button"),))
    by_name(
        app,
        outputs,
        inputs | ({"extra": extra} if extra else {}),
        prevent_initial_call=True,
        interval=POLL_MS,
        **background,
    )(export)


_REQUEST = {"fmt": "format", "first": "first", "last": "last", "fps": "fps", "size": "size"}
"""The fields of an :class:`ExportRequest`, by the control each is read from."""


def _job_outputs(file: str, message: str) -> dict[str, Output]:
    """A download job's outputs: the ``dcc.Download``'s data, its line and the line's class."""
    return {"file": Output(file, "data"), "message": Output(message, "children"), "flag": Output(message, "className")}


def figure_pack(prefix: str) -> html.Div:
    """The "Download figure pack" button of a page, its job bar, message and download; then "Figures as text and
    data" (:func:`figure_text`)."""
    return html.Div(
        className="figure-pack",
        children=[
            html.Div(
                className="buttons", children=[html.Button("Download figure pack", id=f"{prefix}-button", n_clicks=0)]
            ),
            job_bar(prefix),
            status_box(f"{prefix}-message"),
            dcc.Download(id=f"{prefix}-file"),
            info(
                "Every figure of this page as SVG and PDF (paper theme), the data behind them as CSV, the scenario "
                "and a README, in one ZIP."
            ),
            figure_text(f"{prefix}-text"),
        ],
    )


def figure_text(prefix: str) -> html.Details:
    """ "Figures as text and data" (ids ``<prefix>-button``, ``-store``, ``-out`` and the job bar ``<prefix>``):
    every figure of the page in a sentence and the data behind it as tables and CSV
    (:func:`vizcoll.ui.export.alt.describe`), for a screen reader or a reader who cannot see a drawing."""
    return html.Details(
        id=prefix,
        className="figure-text",
        children=[
            html.Summary("Figures as text and data"),
            info("Each figure of this page in a sentence, and the numbers behind it as tables (and CSV)."),
            html.Button("Describe the figures", id=f"{prefix}-button", n_clicks=0),
            job_bar(prefix),
            status_box(f"{prefix}-message"),
            dcc.Store(id=f"{prefix}-store"),
            html.Div(id=f"{prefix}-out", className="figure-text-out"),
        ],
    )


def text_view(described: dict | None) -> list:
    """The HTML of :func:`vizcoll.ui.export.alt.describe`'s answer: the figures' sentences, then each table (its
    summary; its first rows in a disclosure, with a CSV link when the page carries it)."""
    if not isinstance(described, dict):
        return []
    figures = html.Ul([html.Li([html.B(f["name"]), ": ", f["text"]]) for f in described["figures"]])
    tables = [_table_view(t) for t in described["tables"]]
    notes = [html.P(note) for note in described["notes"]]
    return [html.H4(f"{described['title']}: the figures"), figures, *notes, html.H4("The data"), *tables]


def _table_view(table: dict) -> html.Details:
    head = html.Tr([html.Th(c, scope="col") for c in table["columns"]])
    body = [html.Tr([html.Td(str(cell)) for cell in row]) for row in table["rows"]]
    shown = len(table["rows"])
    caption = f"{table['caption']} ({shown} of {table['total']:,} rows)" if shown < table["total"] else table["caption"]
    csv = (
        html.A(
            f"{table['name']}.csv",
            href="data:text/csv;charset=utf-8," + quote(table["csv"]),
            download=f"{table['name']}.csv",
        )
        if table["csv"] is not None
        else html.Span("its CSV: in the figure pack")
    )
    return html.Details(
        [
            html.Summary(f"{table['name']}: {table['summary']}"),
            html.Div(
                className="table-box", children=html.Table([html.Caption(caption), html.Thead(head), html.Tbody(body)])
            ),
            csv,
        ]
    )


def text_job(set_progress, page: str, data, extra=None):
    """(A background job.) :func:`vizcoll.ui.export.alt.describe` of ``page``'s figures for the scenario store
    ``data`` (``store``), and a line (``message``: a "⚠" message when it cannot be made)."""
    scenario, message = checked(data)
    if scenario is None:
        return {"message": message}
    set_progress((0, 1, "Computing the page's figures…"))
    try:
        pack = pack_of(
            page, scenario, extra, lambda done, total: set_progress((done, total, f"Computing: {done} of {total}"))
        )
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    return {"store": describe(pack), "message": ""}


def pack_job(set_progress, page: str, data, extra=None):
    """(A background job.) ``page``'s figure pack for the scenario store ``data``: the ``dcc.Download`` data and a
    line saying what was made, or a "⚠" message (``file``, ``message``)."""
    scenario, message = checked(data)
    if scenario is None:
        return {"message": message}
    set_progress((0, 1, "Computing the page's figures…"))
    try:
        out = pack_file(
            page,
            scenario,
            extra,
            lambda done, total: set_progress((done, total, f"Computing: {done} of {total}")),
            lambda done, total: set_progress((done, total, f"Drawing figure {done} of {total}")),
        )
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    return {
        "file": dcc.send_bytes(out["content"], out["filename"]),
        "message": f"{out['filename']}: {len(out['content']) / 1e3:,.0f} kB.",
    }


def register_figure_pack(app: Dash, prefix: str, page: str, extra: State | dict[str, State] | None = None) -> None:
    """Wire ``page``'s figure pack control ``prefix`` and its "Figures as text and data"; ``extra``: the page
    stores its figures need besides the scenario (one State, or several by name: the job gets a dict)."""
    extras = extra if isinstance(extra, dict) else ({"extra": extra} if extra is not None else {})

    def extra_of(values: dict):
        return values if isinstance(extra, dict) else values.get("extra")

    def download(set_progress, clicks, data, **values):
        return _flagged(pack_job(set_progress, page, data, extra_of(values))) if _pressed(clicks) else {}

    def described(set_progress, clicks, data, **values):
        return text_job(set_progress, page, data, extra_of(values)) if _pressed(clicks) else {}

    text = f"{prefix}-text"
    text_outputs = {"store": Output(f"{text}-store", "data"), "message": Output(f"{text}-message", "children")}
    for job, outputs, run in (
        (prefix, _job_outputs(f"{prefix}-file", f"{prefix}-message"), download),
        (text, text_outputs, described),
    ):
        inputs = {"clicks": Input(f"{job}-button", "n_clicks"), "data": State(SCENARIO, "data"), **extras}
        background = jobs.background(job, (f"{job}-button",))
        by_name(app, outputs, inputs, prevent_initial_call=True, interval=POLL_MS, **background)(run)
    app.callback(Output(f"{text}-out", "children"), Input(f"{text}-store", "data"))(text_view)
