"""The page of an address that names no page: Dash shows the page of a module called ``not_found_404``."""

from __future__ import annotations

from dash import dcc, html

from vizcoll.ui.routing import page_path, page_scenario, register_page

__all__ = ["layout", "body"]


def layout(**kwargs) -> html.Div:
    """Dash's entry: "Page not found" with the address asked for (a link's scenario still goes to the store, for
    the badge and the next page: :func:`~vizcoll.ui.routing.page_scenario`)."""
    page_scenario(kwargs)
    return body(page_path(kwargs))


def body(path: str) -> html.Div:
    return html.Div(
        className="page",
        children=[
            html.H2("Page not found"),
            html.P(["No page at ", html.Code(path), ". ", dcc.Link("Go to the start page", href="/")]),
        ],
    )


register_page(__name__, layout, name="Page not found", nav=False)
