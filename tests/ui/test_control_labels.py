"""Every control says what it is (issue 47): on every page, in the shell and in what callbacks draw, a button, a link,
a box, a menu, a slider, a list of choices or an upload box shows a label or has a tooltip (``title``, on itself
or on the wrapper of a control that takes none: ``kit.titled``). A visible label is its own words (a button's, an
upload box's, a link's, its options'), a shown ``<label>`` for it (``htmlFor`` or the ``X-label`` id that
``kit.field`` gives) or a ``<label>`` around it; words of symbols only ("⇤", "▶", "×") are no label. A control drawn
hidden is left out: a callback shows it, with its words (no browser)."""

from __future__ import annotations

import re

import pytest
from dash import dcc, html

from app import create_app
from tests.ui.layouts import option_labels, page_layouts, text, walk

CONTROLS = (
    html.Button,
    html.A,
    dcc.Link,
    dcc.Input,
    dcc.Textarea,
    dcc.Dropdown,
    dcc.Slider,
    dcc.RangeSlider,
    dcc.RadioItems,
    dcc.Checklist,
    dcc.Upload,
)
WORDED = (html.Button, html.A, dcc.Link, dcc.Upload)  # controls whose own words label them
WORD = re.compile(r"\w", re.UNICODE)


def worded(words: str) -> bool:
    """Whether a text says something in words (not symbols alone: "⇤", "▶", "×", "‹ ›")."""
    return bool(WORD.search(words))


def labelled_ids(layout) -> set:
    """The ids a shown ``<label>`` of the layout names (its ``htmlFor``, or its id ``X-label`` for ``X``)."""
    found = set()
    for component, _ in walk(layout):
        if isinstance(component, html.Label) and worded(text(component, shown_only=True)):
            found |= {getattr(component, "htmlFor", None), str(getattr(component, "id", "")).removesuffix("-label")}
    return found


def unlabelled(layout) -> list[str]:
    """Every control of ``layout`` without a visible label or a tooltip, as "Type id (its words)"."""
    named = labelled_ids(layout)
    found = []
    for control, parents in walk(layout):
        if not isinstance(control, CONTROLS) or _hidden(control, parents) or _says_what(control, parents, named):
            continue
        found.append(f"{type(control).__name__} {getattr(control, 'id', None)!r} ({text(control).strip()[:30]!r})")
    return found


def _hidden(control, parents: tuple) -> bool:
    """Whether a control is drawn hidden (shown by a callback, which gives it its words then: nothing to read now)."""
    return any(
        getattr(c, "hidden", False) or (getattr(c, "style", None) or {}).get("display") == "none"
        for c in (*parents, control)
    )


def _says_what(control, parents: tuple, named: set) -> bool:
    if getattr(control, "title", None) or (parents and getattr(parents[-1], "title", None)):
        return True
    if isinstance(control, WORDED):
        return worded(text(control, shown_only=True)) or bool(getattr(control, "aria-label", None))
    if isinstance(control, dcc.RadioItems | dcc.Checklist) and option_labels(control):
        return all(worded(label) for label in option_labels(control))
    ident = getattr(control, "id", None)
    return (isinstance(ident, str) and ident in named) or any(isinstance(p, html.Label) for p in parents)


@pytest.fixture(scope="module")
def layouts():
    create_app()
    return page_layouts()


def test_symbols_are_no_label():
    assert not worded("⇤") and not worded("▶ ") and not worded("×") and worded("▶ Play") and worded("k")
    bare = html.Div([html.Button("⇥", id="b"), dcc.Dropdown(id="d"), dcc.Input(id="i"), html.A("↗", href="/")])
    assert [line.split(" ")[1] for line in unlabelled(bare)] == ["'b'", "'d'", "'i'", "None"]
    told = html.Div(
        [
            html.Button("⇥", id="b", title="next key moment"),
            html.Label("speed", htmlFor="d"),
            dcc.Dropdown(id="d"),
            html.Div(dcc.Input(id="i"), title="a name"),
            html.Label("hidden", htmlFor="j", className="visually-hidden"),
            dcc.Input(id="j"),
        ]
    )
    assert unlabelled(told) == ["Input 'j' ('')"]  # a label kept for screen readers shows nothing


def test_every_control_of_every_page_says_what_it_is(layouts):
    found = {name: unlabelled(layout) for name, layout in layouts.items()}
    assert {name: lines for name, lines in found.items() if lines} == {}
