"""Every page's layout as the tests walk it: the Dash component trees of the registered pages (drawn for the default
scenario), the shell, and what callbacks draw into them (the presenter, a lesson's editor, a table of links)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import dash
from dash import dcc, html
from dash.development.base_component import Component

from vizcoll.lessons import load_shipped, shipped
from vizcoll.ui import shell
from vizcoll.ui.components import links
from vizcoll.ui.pages.lessons import page as lessons
from vizcoll.ui.pages.lessons import present
from vizcoll.ui.store import DEFAULT_SCENARIO

__all__ = ["page_layouts", "walk", "text", "option_labels"]


def page_layouts() -> dict[str, Component]:
    """Path (or a name for what is not a page) -> layout, of every registered page and the shell (an app must
    exist: pages register with it)."""
    found = {"shell": shell.shell_layout()}
    for page in dash.page_registry.values():
        module = importlib.import_module(page["module"])
        drawn = module.body(DEFAULT_SCENARIO) if hasattr(module, "body") and page["path"] != "/" else None
        found[page["path"]] = drawn if drawn is not None else page["layout"]()
    lesson = load_shipped(shipped()[0])
    found["presenter"] = html.Div(present.presenter(lesson, shipped()[0], 0))
    found["own lessons"] = html.Div([lessons.own_list({"mine": lesson}), *lessons.step_editor(lesson)])
    found["links table"] = html.Div(list(links.listed("edge0", DEFAULT_SCENARIO.to_dict(thin=True), "bar-link")))
    return found


def walk(component, parents: tuple = ()) -> Iterator[tuple[Component, tuple]]:
    """Every component of a tree with its ancestors (nearest last)."""
    if not isinstance(component, Component):
        return
    yield component, parents
    children = getattr(component, "children", None)
    for child in children if isinstance(children, list | tuple) else [children]:
        yield from walk(child, (*parents, component))


def option_labels(component) -> list[str]:
    """The labels of a dropdown's, a radio list's or a checklist's options."""
    options = getattr(component, "options", None) or []
    pairs = options.items() if isinstance(options, dict) else options
    return [str(o.get("label", "")) if isinstance(o, dict) else str(o) for o in pairs]


def text(component, shown_only: bool = False) -> str:
    """Every string of a tree, joined by spaces (options' labels too); ``shown_only``: none of what is hidden or
    kept for screen readers only."""
    if isinstance(component, str | int | float):
        return str(component)
    if isinstance(component, list | tuple):
        return " ".join(text(c, shown_only) for c in component)
    if not isinstance(component, Component):
        return ""
    if shown_only and (getattr(component, "hidden", False) or "visually-hidden" in _classes(component)):
        return ""
    own = (
        " ".join(option_labels(component))
        if isinstance(component, dcc.Dropdown | dcc.RadioItems | dcc.Checklist)
        else ""
    )
    return f"{own} {text(getattr(component, 'children', None), shown_only)}"


def _classes(component) -> str:
    return getattr(component, "className", None) or ""
