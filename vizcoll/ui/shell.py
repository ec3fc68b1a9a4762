"""The app shell: navigation, the one shared scenario, its badge, the share link, scenario files; Dash pages.

**The scenario.** It lives in one ``dcc.Store`` (id ``scenario``, session
storage, so a reload keeps it) that every page reads and writes. The shell
shows it in the badge (``scenario-badge``: the fabric's name, ``N switches``,
``N end nodes``, ``N links``, ``N broken``, and every break with a one-click
repair) and keeps the share link (``share-link``) pointing at the exact
view: the page's path plus ``#s=`` and the scenario compressed
(:meth:`Scenario.to_fragment`). The fragment is never sent in a request line
(so gunicorn's 4 KB limit does not apply); the shell reads it from
``dcc.Location.hash``, which reaches the server in a callback's POST body.
The address bar is kept equal to the share link, so a reload or a bookmark
reopens the same view.

**Pages** are Dash pages (``use_pages=True``, ``pages_folder`` =
``vizcoll/ui/pages``): every module there calls
:func:`vizcoll.ui.routing.register_page` with its path, name and order, the
navbar is built from ``dash.page_registry`` (pages registered with
``nav=False`` stay out of it) and ``dash.page_container`` sits in
``<main id="shell-page">``. Adding a page is one new module. How the known
pitfalls are met:

- *A page's layout needs the scenario*, which only the browser knows (session
  storage) or the share link's fragment carries. Dash's router passes the
  app's ``routing_callback_inputs`` (:data:`vizcoll.ui.routing.ROUTING_INPUTS`:
  the store as a State, the router's ``hash`` and the ``shell-version``
  store as Inputs, its ``href`` as a State) to every page's ``layout(**kwargs)``,
  which calls the page's ``body(scenario)`` with
  :func:`~vizcoll.ui.routing.page_scenario`: the link's scenario on the first
  load of a link (which the same answer puts into the store), else the
  store's. One server round trip draws a page, as before; "Open scenario…"
  empties the page and bumps ``shell-version``, an input of the router, so
  the page is drawn again from the new scenario (:func:`open_file` says why
  it empties it first).
- *Query parameters* arrive as keyword arguments too; the routing values are
  passed after them (a query cannot forge them) and every page ignores the
  rest (``**kwargs``).
- ``/`` is the page module ``home`` (the topology page's body with its
  banner, the topology page's callbacks); an unknown path gets Dash's 404
  page, which is the module ``not_found_404`` ("Page not found" and the path,
  from the router's ``href``).
- *Callbacks are registered per app*: ``dash.callback`` fills a
  process-global map that the first app to serve a request takes, and the
  tests make a fresh app per test (:mod:`vizcoll.ui.app` makes one at import). So each
  page module keeps ``register(app)`` and :func:`register` calls it for every
  module of ``dash.page_registry`` (the module objects Dash imported from the
  pages folder when it made the app).
- ``dash.register_page`` refuses to run before an app exists, and unit tests
  import page modules without one:
  :func:`~vizcoll.ui.routing.register_page` registers only when an app
  exists (Dash imports the pages folder again whenever it makes an app, so
  every app finds every page).
"""

from __future__ import annotations

import logging
import sys
from urllib.parse import urlsplit

import dash
from dash import ALL, Dash, Input, Output, State, ctx, dcc, html, set_props

from vizcoll.errors import VizcollError
from vizcoll.scenario import MAX_FRAGMENT_CHARS, Scenario
from vizcoll.topology.model import Topology
from vizcoll.ui import fabricjob
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components import history
from vizcoll.ui.components.kit import download_button, graph_preload, message_box
from vizcoll.ui.fairqueue import LIMIT_MARK
from vizcoll.ui.forms import decode_upload
from vizcoll.ui.limits import MAX_UPLOAD_BYTES
from vizcoll.ui.routing import FRAGMENT_KEY, VERSION, fragment_of, next_version
from vizcoll.ui.store import (
    MESSAGE,
    SCENARIO,
    checked,
    fabric_checked,
    fabric_of,
    scenario_of,
    store_output,
    topology_of,
)
from vizcoll.words import plural

__all__ = [
    "shell_layout",
    "nav_entries",
    "register",
    "badge",
    "share_href",
    "fragment_of",
    "FRAGMENT_KEY",
    "report_error",
]

URL, PAGE, GRAPH_PRELOAD = "shell-url", "shell-page", "shell-graph-preload"
CONTENT = "_pages_content"  # the Div of dash.page_container that Dash's router fills with the page
BADGE, SHARE = "scenario-badge", "share-link"
DOWNLOAD, DOWNLOAD_BUTTON, OPEN = "scenario-download", "scenario-download-button", "scenario-open"
REPAIR = "scenario-repair"
# your lessons (local storage) and "Add this view to the lesson": the lessons page's callbacks use them
OWN_LESSONS, ADD_VIEW, ADD_REQUEST = "lesson-own", "lesson-add-view", "lesson-add-request"
MAX_LISTED_BREAKS = 12
# the address bar always shows the share link: a reload or a bookmark reopens the exact view
REPLACE_URL_JS = """function (href) {
    if (window.location.pathname.startsWith('/lessons')) {
        return;  // a lesson's address names the lesson and its step (assets/lesson.js), not the scenario
    }
    if (href && href.indexOf('#s=') >= 0 && href !== window.location.href) {
        window.history.replaceState(window.history.state, '', href);
    }
}"""


def shell_layout() -> html.Div:
    return html.Div(
        className="shell",
        children=[
            dcc.Location(id=URL, refresh=False),
            # data=None, not unset: an empty tab's store then stays quiet as it starts (dcc.Store sets a missing
            # data to None, which fires what waits for the store before the link is read)
            dcc.Store(id=SCENARIO, storage_type="session", data=None),
            dcc.Store(id=VERSION, data=0),
            dcc.Store(id=OWN_LESSONS, storage_type="local"),  # your lessons (vizcoll/ui/pages/lessons)
            dcc.Store(id=ADD_REQUEST),
            dcc.Download(id=DOWNLOAD),
            html.A("Skip to the figure", href="#shell-page", className="skip-link"),  # assets/a11y.js
            html.Nav(
                className="navbar",
                children=[
                    dcc.Link("vizcoll", href="/", className="brand"),
                    *[
                        dcc.Link(page["name"], href=page["relative_path"], className="nav-link")
                        for page in _nav_pages()
                    ],
                ],
            ),
            html.Div(
                className="scenario-bar",
                children=[
                    html.Div(id=BADGE, className="scenario-badge"),
                    html.Div(
                        className="scenario-actions",
                        children=[
                            html.A("Link to this view", id=SHARE, href="/", className="share-link"),
                            download_button("Download scenario", DOWNLOAD_BUTTON),
                            html.Button("Add this view to the lesson", id=ADD_VIEW, n_clicks=0),
                            *history.history_controls(),
                            dcc.Upload(
                                id=OPEN,
                                className="upload inline",
                                max_size=MAX_UPLOAD_BYTES,
                                children=html.Span(["Open scenario…"]),
                            ),
                        ],
                    ),
                    message_box(MESSAGE),
                    fabricjob.layout(),
                ],
            ),
            html.Main(id=PAGE, children=dash.page_container),
            graph_preload(GRAPH_PRELOAD),
        ],
    )


def _nav_pages() -> list[dict]:
    """The registered pages of the navbar, in their order."""
    return [page for page in dash.page_registry.values() if page.get("nav", True)]


def nav_entries() -> list[tuple[str, str]]:
    """(path, name) of every navbar entry, in order (Topology, Trees, Multicast, Barrier, ...)."""
    return [(page["path"], page["name"]) for page in _nav_pages()]


# ---------------------------------------------------------------- pure helpers
def share_href(scenario: Scenario, href: str | None, pathname: str | None) -> tuple[str, str]:
    """(the full URL reopening this view, a tooltip); a scenario too large for a URL gets the page's URL."""
    parts = urlsplit(href if isinstance(href, str) and href else "http://localhost/")
    path = pathname if isinstance(pathname, str) and pathname.startswith("/") else "/"
    page = f"{parts.scheme}://{parts.netloc}{path}"
    fragment = scenario.to_fragment()
    if len(fragment) > MAX_FRAGMENT_CHARS:
        return page, "This scenario is too large for a link: use Download scenario to share it as a file."
    return f"{page}#{FRAGMENT_KEY}{fragment}", "Copy this link: it reopens this exact view in any browser."


def _count(value: int, word: str) -> html.Span:
    return html.Span(plural(value, word), className="count")


def badge(scenario: Scenario, topo: Topology, fabric: Topology) -> list:
    """The badge: fabric name, counts, and every break with a repair button (missing links said so)."""
    s = topo.summary()
    breaks = []
    for label in scenario.broken[:MAX_LISTED_BREAKS]:
        row = fabric.find_link(label)
        text = f"{label} (link {int(fabric.link_id[row])})" if row is not None else f"⚠ {label}: no such link"
        breaks.append(
            html.Span(
                className="break",
                children=[
                    text,
                    html.Button(
                        "repair" if row is not None else "forget",
                        id={"type": REPAIR, "link": label},
                        n_clicks=0,
                        className="small",
                    ),
                ],
            )
        )
    more = len(scenario.broken) - MAX_LISTED_BREAKS
    if more > 0:
        breaks.append(html.Span(f"and {more} more", className="break"))
    return [
        html.B(scenario.title, className="fabric-name"),
        _count(s["switches"], "switch"),
        _count(s["endpoints"], "end node"),
        _count(s["links"], "link"),
        html.Span(f"{s['broken_links']:,} broken", className="count"),
        html.Span(className="breaks", children=breaks or [html.Span("no broken links", className="none")]),
    ]


def report_error(exc: Exception) -> None:
    """The app's ``on_error``: a callback that fails on what the browser sent changes nothing, says so in the
    shell's message line, and logs it (never an HTTP 500, never a traceback in the page); a job over a limit or
    refused by a full queue says which."""
    logging.getLogger("vizcoll.ui").warning("callback %s failed: %r", _trigger_of(), exc)
    set_props(MESSAGE, {"children": f"⚠ {error_text(exc)}"})


def error_text(exc: Exception) -> str:
    """What the page says of a failed callback: a :class:`VizcollError`'s message, a job pool's message (a job
    over a limit, a full queue: :mod:`vizcoll.ui.pool`), else that the page could not use what was sent."""
    if LIMIT_MARK in str(exc):
        return str(exc).split(LIMIT_MARK, 1)[1].split("\n", 1)[0]
    return str(exc) if isinstance(exc, VizcollError) else "the page could not use what the browser sent"


def _trigger_of() -> str:
    try:
        return str(ctx.triggered_id)
    except Exception:  # noqa: BLE001 - only for the log line
        return "?"


# ---------------------------------------------------------------- callbacks
def render_badge(data):
    scenario, message = checked(data)
    if scenario is None:
        return [html.Span(message)]
    return badge(scenario, topology_of(scenario), fabric_of(scenario))


def render_share(scenario, pathname, href) -> dict:
    """The share link's ``href`` and ``title`` for the scenario store; nothing while it cannot be read."""
    read, _ = checked(scenario)
    if read is None:
        return {}
    link, title = share_href(read, href, pathname)
    return {"href": link, "title": title}


def repair(clicks, scenario) -> dict:
    """A badge button: repair the break (or forget a break whose link is gone): the ``store`` and a ``message``."""
    if not ctx.triggered or not ctx.triggered[0]["value"]:
        return {}
    read, message = checked(scenario)
    if read is None:
        return {"message": message}
    return {"store": read.toggled(ctx.triggered_id["link"]).to_dict(thin=True), "message": ""}


def download(_clicks, data):
    scenario, _ = checked(data)
    return {"content": (scenario or scenario_of(None)).dumps(), "filename": "vizcoll-scenario.json"}


def open_file(contents, version, scenario) -> dict:
    """Open a scenario file: it replaces the shared scenario (``store``) and the page is drawn again from it.

    The page is emptied (``content``) in the same update as the store, so that no callback
    of the old page draws the new scenario into components about to be
    replaced (a cytoscape drawing updated while it is being removed throws in
    the browser); bumping ``shell-version`` (``version``) makes Dash's router draw the page
    again, and its callbacks draw it as on a first load. The ``upload`` box is emptied (the same file can be opened
    again: ``assets/uploads.js``); a file that cannot be opened leaves the page as it is and the ``message`` says why.
    """
    if contents is None:
        return {}
    try:
        opened = Scenario.loads(decode_upload(contents), fabric_checked)
    except VizcollError as exc:
        return {"message": f"⚠ The scenario file could not be opened: {exc}", "upload": None}
    opening = html.Div("Opening the scenario…", className="page info")
    return {
        "store": opened.to_dict(thin=True),
        "version": next_version(version),
        "message": "",
        "content": opening,
        "upload": None,
    }


SHARED = {"href": Output(SHARE, "href"), "title": Output(SHARE, "title")}
SHARED_FROM = {"scenario": Input(SCENARIO, "data"), "pathname": Input(URL, "pathname"), "href": State(URL, "href")}
REPAIRED = {"store": store_output(), "message": Output(MESSAGE, "children", allow_duplicate=True)}
REPAIR_FROM = {"clicks": Input({"type": REPAIR, "link": ALL}, "n_clicks"), "scenario": State(SCENARIO, "data")}
OPENED = {
    "store": store_output(),
    "version": Output(VERSION, "data"),
    "message": Output(MESSAGE, "children", allow_duplicate=True),
    "content": Output(CONTENT, "children", allow_duplicate=True),
    "upload": Output(OPEN, "contents"),
}
OPEN_FROM = {
    "contents": Input(OPEN, "contents"),
    "version": State(VERSION, "data"),
    "scenario": State(SCENARIO, "data"),
}


def register(app: Dash) -> None:
    """The shell's callbacks, then every registered page's (``register(app)`` of its module)."""
    app.callback(Output(BADGE, "children"), Input(SCENARIO, "data"), prevent_initial_call=True)(render_badge)
    by_name(app, SHARED, SHARED_FROM, prevent_initial_call=True)(render_share)
    app.clientside_callback(REPLACE_URL_JS, Input(SHARE, "href"))
    by_name(app, REPAIRED, REPAIR_FROM, prevent_initial_call=True)(repair)
    app.callback(
        Output(DOWNLOAD, "data"), Input(DOWNLOAD_BUTTON, "n_clicks"), State(SCENARIO, "data"), prevent_initial_call=True
    )(download)
    by_name(app, OPENED, OPEN_FROM, prevent_initial_call=True)(open_file)
    fabricjob.register(app, MESSAGE)
    history.register(app, VERSION, CONTENT)
    for page in dash.page_registry.values():
        module = sys.modules.get(page["module"])
        if module is not None and hasattr(module, "register"):
            module.register(app)
