"""``/help``: a section for each page of the navbar (what it shows, its paper, its main controls, links that open
its examples and lessons), the files vizcoll reads and the keys it answers. The content is
:mod:`vizcoll.ui.pages.help._model`; this module lays it out."""

from __future__ import annotations

import importlib

import dash
from dash import dcc, html

from vizcoll.ui.pages.help import ORDER
from vizcoll.ui.pages.help._model import (
    EVERY_PAGE,
    GUIDES,
    PAPERS,
    PRESENTER_KEYS,
    UPLOAD_LIMIT,
    Guide,
    example_links,
    file_formats,
    lesson_links,
    player_keys,
    scenario_keys,
)
from vizcoll.ui.routing import page_scenario, register_page

__all__ = ["layout", "guide_section", "section_id", "PATH"]

PATH = "/help"


def layout(**kwargs) -> html.Div:
    """Dash's entry: the help (query parameters are ignored; a link's scenario still goes to the store, for the
    badge and the next page: :func:`~vizcoll.ui.routing.page_scenario`)."""
    page_scenario(kwargs)
    return html.Div(
        className="page help-page",
        children=[
            html.H1("Help"),
            html.P(
                "vizcoll shows collective communication on HPC fabrics, each page after a paper. An example link "
                "below replaces the scenario every page shares, as a preset does: press Download scenario first "
                "to keep yours.",
                className="help-intro",
            ),
            html.Ul([html.Li(sentence(text)) for text in EVERY_PAGE], className="help-every"),
            html.Div(
                className="help-pages",
                children=[guide_section(page) for page in dash.page_registry.values() if _guided(page)],
            ),
            html.Div(className="help-pages", children=[files_section(), keys_section()]),
        ],
    )


register_page(__name__, layout, path=PATH, name="Help", order=ORDER)


def section_id(path: str) -> str:
    """The id of the section of the page at ``path``: ``help-trees`` for ``/trees``."""
    return "help-" + path.strip("/").replace("/", "-")


def sentence(text: str) -> list:
    """A guide's sentence with its control names (between backquotes) in bold."""
    return [html.B(part) if k % 2 else part for k, part in enumerate(text.split("`")) if part]


def _guided(page: dict) -> bool:
    """Whether a registered page has a section: a page of the navbar with a guide."""
    return page.get("nav", True) and page["path"] in GUIDES


def guide_section(page: dict) -> html.Section:
    """The section of a registered page: its name (a link to it), what it shows, its paper, its controls, and its
    examples (its module's ``examples()``, when it has one) and lessons."""
    path, name, guide = page["path"], page["name"], GUIDES[page["path"]]
    module = importlib.import_module(page["module"])
    return html.Section(
        id=section_id(path),
        className="panel help-section",
        children=[
            html.H2(dcc.Link(name, href=path)),
            html.P(guide.shows),
            _papers(guide),
            html.Ul([html.Li(sentence(text)) for text in guide.does]),
            _links("Examples", example_links(path, module.examples() if hasattr(module, "examples") else [])),
            _links("Lessons" if path == "/lessons" else "In the lessons", lesson_links(path)),
        ],
    )


def _papers(guide: Guide) -> html.P:
    if not guide.papers:
        return html.P([html.Span("Paper: ", className="help-label"), guide.no_paper])
    cited = [html.Span(f"[{key}] {PAPERS[key][0]}, {PAPERS[key][1]}", className="help-paper") for key in guide.papers]
    label = "Papers: " if len(cited) > 1 else "Paper: "
    return html.P([html.Span(label, className="help-label"), *_joined(cited, "; ")])


def _links(label: str, links: list[tuple[str, str]]) -> html.Div | None:
    if not links:
        return None
    return html.Div(
        className="help-links",
        children=[
            html.Span(f"{label}: ", className="help-label"),
            html.Ul([html.Li(dcc.Link(text, href=href)) for text, href in links]),
        ],
    )


def _joined(parts: list, between: str) -> list:
    return [piece for k, part in enumerate(parts) for piece in ((between, part) if k else (part,))]


def files_section() -> html.Section:
    """The fabric formats vizcoll reads (from their registry) and the other files the pages open."""
    return html.Section(
        id="help-files",
        className="panel help-section",
        children=[
            html.H2("Files you can load"),
            html.P(
                f"Fabrics, on Topology (choose a topology file, up to {UPLOAD_LIMIT}); vizcoll recognises the "
                "format by its content, in this order:"
            ),
            html.Ul([html.Li([html.B(name), f": {what}"]) for name, what in file_formats()]),
            html.P(
                "Also: communicators (JSON or an MPI hostfile, on Topology), a scenario (Open scenario…, in the bar "
                "above), OpenSM's multicast tables (on Multicast), a GOAL schedule (on Schedules) and a lesson (on "
                "Lessons)."
            ),
        ],
    )


def keys_section() -> html.Section:
    """The players' keys (from their buttons), the presenter's and the spec box's."""
    player = [*player_keys(), ("Shift + ← / →", "previous / next key moment too")]
    presenter = [(" / ".join(keys), what) for keys, what in PRESENTER_KEYS]
    return html.Section(
        id="help-keys",
        className="panel help-section",
        children=[
            html.H2("Keyboard"),
            html.P("A player (the one last used, else the first on screen), unless you are typing in a box:"),
            _key_list(player),
            html.P("The lesson presenter:"),
            _key_list(presenter),
            html.P("Every page, unless you are typing in a box:"),
            _key_list([*scenario_keys(), ("Ctrl+Y", "redo too")]),
            html.P(["On Topology, ", html.Kbd("Enter"), " in the spec box presses Generate."]),
        ],
    )


def _key_list(rows: list[tuple[str, str]]) -> html.Ul:
    return html.Ul([html.Li([html.Kbd(key), f" {what}"]) for key, what in rows], className="help-keys")
