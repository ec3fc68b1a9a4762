"""The app shell: navigation bar, URL routing to the pages, and the health endpoint."""

from __future__ import annotations

from dash import Dash, Input, Output, dcc, html

from vizcoll.ui import ids
from vizcoll.ui.pages import barrier, erasure, faults, multicast, topology, trees

__all__ = ["NAV", "shell_layout", "render_page", "register"]

NAV = [("/topology", "Topology"), ("/trees", "Trees"), ("/multicast", "Multicast"), ("/barrier", "Barrier"),
       ("/faults", "Fault replays"), ("/erasure", "Erasure codes")]


def shell_layout() -> html.Div:
    return html.Div(className="shell", children=[
        dcc.Location(id=ids.URL, refresh=False),
        html.Nav(className="navbar", children=[
            dcc.Link("vizcoll", href="/", className="brand"),
            *[dcc.Link(label, href=path, className="nav-link") for path, label in NAV],
        ]),
        html.Main(id=ids.PAGE),
    ])


def render_page(pathname: str | None, search: str | None):
    """The layout of the page at ``pathname`` (the landing page shows the default scenario)."""
    path = (pathname or "/").rstrip("/") or "/"
    if path == "/":
        return topology.layout(search or "", banner=True)
    if path == "/topology":
        return topology.layout(search or "")
    if path == "/multicast":
        return multicast.layout(search or "")
    if path == "/trees":
        return trees.layout(search or "")
    if path == "/barrier":
        return barrier.layout(search or "")
    if path == "/faults":
        return faults.layout(search or "")
    if path == "/erasure":
        return erasure.layout(search or "")
    return html.Div(className="page", children=[html.H2("Page not found"),
                                                html.P(["No page at ", html.Code(path), ". ",
                                                        dcc.Link("Go to the start page", href="/")])])


def register(app: Dash) -> None:
    app.callback(Output(ids.PAGE, "children"), Input(ids.URL, "pathname"), Input(ids.URL, "search"))(render_page)
    topology.register(app)
    multicast.register(app)
    trees.register(app)
    barrier.register(app)
    faults.register(app)
    erasure.register(app)
