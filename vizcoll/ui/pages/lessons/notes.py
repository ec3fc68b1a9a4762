"""``/lessons/notes?lesson=NAME``: the speaker notes of a lesson, in a second window the audience does not see.

The presenter (``/lessons/present``) opens it; it shows the notes of the presenter's current step (``#lesson-notes``)
and the next step's narration's first line, and follows the presenter through a ``BroadcastChannel``
(``assets/lesson.js``). The lesson is read as the presenter reads it.
"""

from __future__ import annotations

from dash import Dash, Input, Output, State, dcc, html

from vizcoll.lessons import Lesson
from vizcoll.ui.pages.lessons.present import lesson_page, opened
from vizcoll.ui.routing import register_page
from vizcoll.ui.shell import OWN_LESSONS

__all__ = ["layout", "register", "notes_view"]

QUERY, BODY, NOTES = "lesson-notes-query", "lesson-notes-body", "lesson-notes"


def layout(lesson=None, step=None, **kwargs) -> html.Div:
    """Dash's entry: the notes of the lesson the link names (drawn by :func:`draw`)."""
    return lesson_page((QUERY, BODY), "notes-page", lesson, step, kwargs.get("shell_hash"))


register_page(__name__, layout, path="/lessons/notes", name="Speaker notes", nav=False)


def notes_view(lesson: Lesson, key: str, index: int) -> list:
    """Every step's notes (the current one shown), with its page and what comes next."""
    n = len(lesson.steps)
    sections = []
    for k, step in enumerate(lesson.steps):
        following = lesson.steps[k + 1].narration.strip().split("\n", 1)[0].lstrip("# ") if k + 1 < n else "(the end)"
        sections.append(
            html.Section(
                className="lesson-notes-step",
                hidden=k != index,
                children=[
                    html.H2(f"Step {k + 1} of {n}: {step.page}"),
                    dcc.Markdown(step.notes or "*(no notes for this step)*", mathjax=True),
                    html.P(["Next: ", following[:200]], className="lesson-notes-next"),
                ],
            )
        )
    return [html.H1(f"Speaker notes: {lesson.title}"), html.Div(id=NOTES, **{"data-key": key}, children=sections)]


def draw(query, own):
    return opened(query, own, notes_view, "These notes cannot be opened")


def register(app: Dash) -> None:
    app.callback(Output(BODY, "children"), Input(QUERY, "data"), State(OWN_LESSONS, "data"))(draw)
