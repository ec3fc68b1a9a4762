"""``/lessons/present?lesson=NAME``: a lesson in presenter mode.

The step's page is live in a frame (``#lesson-view``: break a link mid-lesson, then go on), drawn at 1280 px wide
and scaled to its box; the narration (``#lesson-narration``, Markdown with formulas) beside it, and ``#lesson-step``
saying "step k of n". → / ← and Page Down / Page Up (what a clicker sends) step through the lesson; within a step
whose player stands on a key moment they go to the next (previous) key moment first; N / P go to the next
(previous) step at once, Home / End to the first / last (``assets/lesson.js``, which also forwards those keys from
inside the frame). "Speaker notes" opens ``/lessons/notes`` in a second window, which
follows the presenter. The lesson is read on the server (:func:`~vizcoll.ui.pages.lessons._model.resolve`: a
shipped lesson, one of yours from the browser's store, or a lesson link ``#l=...``); every step is drawn into the
page at once, and stepping happens in the browser. ``?step=K`` (from 1) opens step K; the address keeps the
current step.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from dash import Dash, Input, Output, State, dcc, html

from vizcoll.errors import VizcollError
from vizcoll.lessons import Lesson
from vizcoll.ui.pages.lessons._model import FRAGMENT_KEY, player_id, resolve, step_href
from vizcoll.ui.routing import register_page
from vizcoll.ui.shell import OWN_LESSONS

__all__ = ["layout", "register", "presenter"]

QUERY, BODY = "lesson-query", "lesson-body"
STEP, NARRATION, VIEW, DATA = "lesson-step", "lesson-narration", "lesson-view", "lesson-data"
PREV, NEXT, NOTES, FULL = "lesson-prev", "lesson-next", "lesson-notes-open", "lesson-fullscreen"


def lesson_page(ids: tuple[str, str], class_name: str, lesson, step, hash_) -> html.Div:
    """A page drawn for the lesson its link names: the link's parts in the store ``ids[0]``, the page's body drawn
    into ``ids[1]`` by a callback (your own lessons live in the browser's store, which a layout cannot read)."""
    query = {"lesson": lesson, "step": step, "hash": hash_}
    return html.Div(
        className=f"page {class_name}",
        children=[dcc.Store(id=ids[0], data=query), html.Div(id=ids[1], children=html.P("Opening the lesson…"))],
    )


def opened(query, own, view: Callable[[Lesson, str, int], list], refusal: str):
    """``view(lesson, key, index)`` of the lesson the link's ``query`` names, or ``refusal`` and why not."""
    query = query if isinstance(query, dict) else {}
    try:
        lesson, key = resolve(query.get("lesson"), query.get("hash"), own)
    except VizcollError as exc:
        return html.P([f"⚠ {refusal}: {exc}. ", dcc.Link("See the lessons", href="/lessons")], className="message")
    return view(lesson, key, start_index(query.get("step"), len(lesson.steps)))


def layout(lesson=None, step=None, **kwargs) -> html.Div:
    """Dash's entry: the presenter for the lesson the link names (drawn by :func:`draw`)."""
    return lesson_page((QUERY, BODY), "presenter-page", lesson, step, kwargs.get("shell_hash"))


register_page(__name__, layout, path="/lessons/present", name="Presenter", nav=False)


def start_index(step, n: int) -> int:
    """The 0-based step a ``?step=K`` (from 1) opens, clamped to the lesson."""
    try:
        return min(max(int(step) - 1, 0), n - 1)
    except (TypeError, ValueError):
        return 0


def framed_href(step, k: int) -> str:
    """The step's link as the frame opens it: ``?view=K`` (which the page ignores) makes two steps on one page two
    documents, so that the page loads afresh and its player opens on the step's position (a link differing only
    after ``#`` would stay in the same document)."""
    page, _, fragment = step_href(step).partition("#")
    return f"{page}?view={k + 1}#{fragment}"


def notes_href(lesson: Lesson, key: str) -> str:
    """The link of the lesson's speaker notes (``/lessons/notes``)."""
    return f"/lessons/notes#{FRAGMENT_KEY}{lesson.to_fragment()}" if key == "link" else f"/lessons/notes?lesson={key}"


def presenter(lesson: Lesson, key: str, index: int) -> list:
    """The presenter for ``lesson`` (named ``key``), on its step ``index``."""
    n = len(lesson.steps)
    narrations = [
        html.Section(
            className="lesson-narration-step",
            hidden=k != index,
            children=[dcc.Markdown(step.narration or "*(no narration)*", mathjax=True)],
        )
        for k, step in enumerate(lesson.steps)
    ]
    data = {
        "key": key,
        "index": index,
        "hrefs": [framed_href(step, k) for k, step in enumerate(lesson.steps)],
        "players": [player_id(step) for step in lesson.steps],
        "notes": notes_href(lesson, key),
    }
    return [
        html.Div(
            className="presenter-bar",
            children=[
                html.H1(lesson.title, className="presenter-title"),
                html.Button("‹ back", id=PREV, title="previous key moment or step (← or Page Up)"),
                html.Span(f"step {index + 1} of {n}", id=STEP, className="lesson-step", **{"aria-live": "polite"}),
                html.Button("next ›", id=NEXT, title="next key moment or step (→ or Page Down)"),
                html.Button("Speaker notes", id=NOTES, title="open the speaker notes in a second window"),
                html.Button("Full screen", id=FULL),
                dcc.Link("All lessons", href="/lessons", className="presenter-exit"),
            ],
        ),
        html.Div(
            className="presenter-main",
            children=[
                html.Div(
                    className="presenter-view",
                    children=html.Iframe(id=VIEW, src=data["hrefs"][index], title="the lesson's live view"),
                ),
                html.Div(id=NARRATION, className="presenter-narration", tabIndex=0, children=narrations),
            ],
        ),
        html.Div(id=DATA, hidden=True, **{"data-lesson": json.dumps(data)}),
    ]


def draw(query, own):
    """The presenter for the lesson the link names (a message when it names none)."""
    return opened(query, own, presenter, "This lesson cannot be opened")


def register(app: Dash) -> None:
    app.callback(Output(BODY, "children"), Input(QUERY, "data"), State(OWN_LESSONS, "data"))(draw)
