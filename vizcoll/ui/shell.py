"""The app shell: navigation, the one shared scenario, its badge, the share link, scenario files, routing.

The scenario lives in one ``dcc.Store`` (id ``scenario``, session storage, so
a reload keeps it) that every page reads and writes. The shell shows it in the
badge (``scenario-badge``: the fabric's name, ``N switches``, ``N end nodes``,
``N links``, ``N broken``, and every break with a one-click repair) and
keeps the share link (``share-link``) pointing at the exact view: the page's
path plus ``#s=`` and the scenario compressed (:meth:`Scenario.to_fragment`).
The fragment is never sent in a request line (so gunicorn's 4 KB limit does
not apply); the shell reads it from ``dcc.Location.hash``, which reaches the
server in a callback's POST body. The address bar is kept equal to the share
link, so a reload or a bookmark reopens the same view.
"""

from __future__ import annotations

import base64
from contextlib import suppress
from urllib.parse import urlsplit

from dash import ALL, Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.scenario import MAX_FRAGMENT_CHARS, Scenario
from vizcoll.topology.model import Topology
from vizcoll.ui.calls import SCENARIO, checked, fabric_of, scenario_of, store_output, topology_of
from vizcoll.ui.pages import barrier, erasure, faults, multicast, topology, trees

__all__ = ["NAV", "shell_layout", "render_page", "register", "badge", "share_href", "FRAGMENT_KEY"]

URL, PAGE, VERSION = "shell-url", "shell-page", "shell-version"
BADGE, SHARE, MESSAGE = "scenario-badge", "share-link", "scenario-message"
DOWNLOAD, DOWNLOAD_BUTTON, OPEN = "scenario-download", "scenario-download-button", "scenario-open"
REPAIR = "scenario-repair"
FRAGMENT_KEY = "s="
PAGES = {"/topology": topology, "/trees": trees, "/multicast": multicast, "/barrier": barrier, "/faults": faults,
         "/erasure": erasure}
NAV = [("/topology", "Topology"), ("/trees", "Trees"), ("/multicast", "Multicast"), ("/barrier", "Barrier"),
       ("/faults", "Fault replays"), ("/erasure", "Erasure codes")]
MAX_LISTED_BREAKS = 12
# the address bar always shows the share link: a reload or a bookmark reopens the exact view
REPLACE_URL_JS = """function (href) {
    if (href && href.indexOf('#s=') >= 0 && href !== window.location.href) {
        window.history.replaceState(window.history.state, '', href);
    }
}"""


def shell_layout() -> html.Div:
    return html.Div(className="shell", children=[
        dcc.Location(id=URL, refresh=False),
        dcc.Store(id=SCENARIO, storage_type="session"),
        dcc.Store(id=VERSION, data=0),
        dcc.Download(id=DOWNLOAD),
        html.Nav(className="navbar", children=[
            dcc.Link("vizcoll", href="/", className="brand"),
            *[dcc.Link(label, href=path, className="nav-link") for path, label in NAV],
        ]),
        html.Div(className="scenario-bar", children=[
            html.Div(id=BADGE, className="scenario-badge"),
            html.Div(className="scenario-actions", children=[
                html.A("Link to this view", id=SHARE, href="/", className="share-link"),
                html.Button("Download scenario", id=DOWNLOAD_BUTTON, n_clicks=0),
                dcc.Upload(id=OPEN, className="upload inline", max_size=20 * 1024 * 1024,
                           children=html.Span(["Open scenario…"])),
            ]),
            html.Div(id=MESSAGE, className="message", role="alert"),
        ]),
        html.Main(id=PAGE),
    ])


# ---------------------------------------------------------------- pure helpers
def fragment_of(hash_: str | None) -> str | None:
    """The scenario text of a URL fragment ``#s=...`` (None when the fragment carries none)."""
    text = (hash_ or "").lstrip("#")
    return text[len(FRAGMENT_KEY):] if text.startswith(FRAGMENT_KEY) else None


def share_href(scenario: Scenario, href: str | None, pathname: str | None) -> tuple[str, str]:
    """(the full URL reopening this view, a tooltip); a scenario too large for a URL gets the page's URL."""
    parts = urlsplit(href or "http://localhost/")
    page = f"{parts.scheme}://{parts.netloc}{pathname or '/'}"
    fragment = scenario.to_fragment()
    if len(fragment) > MAX_FRAGMENT_CHARS:
        return page, "This scenario is too large for a link: use Download scenario to share it as a file."
    return f"{page}#{FRAGMENT_KEY}{fragment}", "Copy this link: it reopens this exact view in any browser."


def _count(value: int, words: str) -> html.Span:
    return html.Span(f"{value} {words}", className="count")


def badge(scenario: Scenario, topo: Topology, fabric: Topology) -> list:
    """The badge: fabric name, counts, and every break with a repair button (missing links said so)."""
    s = topo.summary()
    breaks = []
    for label in scenario.broken[:MAX_LISTED_BREAKS]:
        row = fabric.find_link(label)
        text = f"{label} (link {int(fabric.link_id[row])})" if row is not None else f"⚠ {label}: no such link"
        breaks.append(html.Span(className="break", children=[
            text, html.Button("repair" if row is not None else "forget", id={"type": REPAIR, "link": label},
                              n_clicks=0, className="small")]))
    more = len(scenario.broken) - MAX_LISTED_BREAKS
    if more > 0:
        breaks.append(html.Span(f"and {more} more", className="break"))
    return [html.B(scenario.title, className="fabric-name"),
            _count(s["switches"], "switches"), _count(s["endpoints"], "end nodes"), _count(s["links"], "links"),
            _count(s["broken_links"], "broken"),
            html.Span(className="breaks", children=breaks or [html.Span("no broken links", className="none")])]


# ---------------------------------------------------------------- callbacks
def render_page(pathname: str | None, hash_: str | None, _version, data):
    """The layout of the page at ``pathname`` for the scenario of the link (first load) or of the store."""
    path = (pathname or "/").rstrip("/") or "/"
    scenario, _ = checked(data)
    fragment = fragment_of(hash_)
    if fragment and ctx.triggered_id != VERSION:
        with suppress(VizcollError):  # load_link says why
            scenario = Scenario.from_fragment(fragment)
    scenario = scenario or scenario_of(None)
    if path == "/":
        return topology.layout(scenario, banner=True)
    if path in PAGES:
        return PAGES[path].layout(scenario)
    return html.Div(className="page", children=[html.H2("Page not found"),
                                                html.P(["No page at ", html.Code(path), ". ",
                                                        dcc.Link("Go to the start page", href="/")])])


def load_link(hash_: str | None, data):
    """Put the link's scenario into the store (first load); an empty store gets the default scenario."""
    fragment = fragment_of(hash_)
    if fragment:
        try:
            return Scenario.from_fragment(fragment).to_dict(), ""
        except VizcollError as exc:
            return no_update, f"⚠ The link's scenario could not be opened: {exc}"
    if data is None:
        return scenario_of(None).to_dict(), ""
    return no_update, ""


def render_badge(data):
    scenario, message = checked(data)
    if scenario is None:
        return [html.Span(message)]
    return badge(scenario, topology_of(scenario), fabric_of(scenario))


def render_share(data, pathname, href):
    scenario, _ = checked(data)
    if scenario is None:
        return no_update, no_update
    return share_href(scenario, href, pathname)


def repair(_clicks, data):
    """A badge button: repair the break (or forget a break whose link is gone)."""
    if not ctx.triggered or not ctx.triggered[0]["value"]:
        return no_update, no_update
    scenario, message = checked(data)
    if scenario is None:
        return no_update, message
    return scenario.toggled(ctx.triggered_id["link"]).to_dict(), ""


def download(_clicks, data):
    scenario, _ = checked(data)
    return {"content": (scenario or scenario_of(None)).dumps(), "filename": "vizcoll-scenario.json"}


def open_file(contents, version, data):
    """Open a scenario file: it replaces the shared scenario and the page is drawn again from it."""
    try:
        if not isinstance(contents, str) or "," not in contents:
            raise VizcollError("the upload is not a file")
        scenario = Scenario.loads(base64.b64decode(contents.partition(",")[2], validate=True))
    except (VizcollError, ValueError) as exc:
        return no_update, no_update, f"⚠ The scenario file could not be opened: {exc}"
    return scenario.to_dict(), (version or 0) + 1, ""


def register(app: Dash) -> None:
    app.callback(Output(PAGE, "children"), Input(URL, "pathname"), Input(URL, "hash"), Input(VERSION, "data"),
                 State(SCENARIO, "data"))(render_page)
    app.callback(store_output(), Output(MESSAGE, "children", allow_duplicate=True), Input(URL, "hash"),
                 State(SCENARIO, "data"), prevent_initial_call="initial_duplicate")(load_link)
    app.callback(Output(BADGE, "children"), Input(SCENARIO, "data"))(render_badge)
    app.callback(Output(SHARE, "href"), Output(SHARE, "title"), Input(SCENARIO, "data"), Input(URL, "pathname"),
                 State(URL, "href"))(render_share)
    app.clientside_callback(REPLACE_URL_JS, Input(SHARE, "href"))
    app.callback(store_output(), Output(MESSAGE, "children", allow_duplicate=True),
                 Input({"type": REPAIR, "link": ALL}, "n_clicks"), State(SCENARIO, "data"),
                 prevent_initial_call=True)(repair)
    app.callback(Output(DOWNLOAD, "data"), Input(DOWNLOAD_BUTTON, "n_clicks"), State(SCENARIO, "data"),
                 prevent_initial_call=True)(download)
    app.callback(store_output(), Output(VERSION, "data"), Output(MESSAGE, "children", allow_duplicate=True),
                 Input(OPEN, "contents"), State(VERSION, "data"), State(SCENARIO, "data"),
                 prevent_initial_call=True)(open_file)
    for module in PAGES.values():
        module.register(app)
