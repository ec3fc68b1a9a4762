"""``/lessons``: the lessons that ship with vizcoll and your own, each with a link to the presenter.

Your own lessons live in the browser's local storage (the shell's store ``lesson-own``): "Add this view to the
lesson" (on every page, in the scenario bar) appends the page's view, its scenario and its player's step to
"My lesson"; here you upload a lesson file, edit each step's narration and notes, reorder and delete steps,
download a lesson, share it as a link (``/lessons/present#l=...``) and delete it. Every store the browser sends
is checked as a lesson file is (:mod:`vizcoll.lessons`).
"""

from __future__ import annotations

from dash import ALL, Dash, Input, Output, State, ctx, dcc, html

from vizcoll.errors import VizcollError
from vizcoll.lessons import Lesson, load_shipped, read_json, shipped
from vizcoll.scenario import Scenario
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.kit import message_box, panel, section, titled
from vizcoll.ui.forms import decode_upload
from vizcoll.ui.limits import MAX_UPLOAD_BYTES
from vizcoll.ui.pages.lessons import ORDER
from vizcoll.ui.pages.lessons._model import (
    FRAGMENT_KEY,
    MAX_OWN,
    OWN,
    added_view,
    linked_player,
    own_lessons,
    stored,
)
from vizcoll.ui.routing import register_page
from vizcoll.ui.shell import ADD_REQUEST, ADD_VIEW, OWN_LESSONS
from vizcoll.ui.store import MESSAGE, SCENARIO
from vizcoll.words import plural

__all__ = ["layout", "register", "shipped_list", "own_list", "step_editor"]

SHIPPED, OWN_LIST, UPLOAD, LESSONS_MESSAGE = "lessons-shipped", "lessons-own", "lessons-upload", "lessons-message"
EDIT_CHOICE, EDITOR, SAVE, DOWNLOAD = "lessons-edit-choice", "lessons-editor", "lessons-save", "lessons-download"
DELETE, GET = "lessons-delete", "lessons-get"  # pattern-matching ids of an own lesson's buttons
NARRATION, NOTES, MOVE = "lessons-narration", "lessons-notes", "lessons-move"
# the view's address as the browser shows it (the players keep their step in it with replaceState, which the
# shell's dcc.Location does not see)
ADD_REQUEST_JS = """function (clicks) {
    return clicks ? {path: window.location.pathname, hash: window.location.hash, clicks: clicks}
                  : window.dash_clientside.no_update;
}"""


def layout(**kwargs) -> html.Div:
    """Dash's entry (query parameters are ignored)."""
    return html.Div(
        className="page lessons-page",
        children=[
            html.H1("Lessons"),
            html.P(
                "A lesson is a sequence of views of vizcoll, each with its narration and speaker notes. Present one "
                "at a projector: → and ← (or a clicker's Page Down / Page Up) step through it, key moment by key "
                "moment, and the view stays live (break a link, then go on)."
            ),
            panel(section("Shipped lessons", html.Div(id=SHIPPED, children=shipped_list()))),
            panel(
                section(
                    "Your lessons",
                    html.P(
                        "Kept in this browser. Add a view from any page with “Add this view to the lesson”, "
                        "or open a lesson file."
                    ),
                    dcc.Upload(
                        id=UPLOAD,
                        className="upload",
                        max_size=MAX_UPLOAD_BYTES,
                        children=html.Span("Open a lesson file…"),
                    ),
                    message_box(LESSONS_MESSAGE),
                    html.Div(id=OWN_LIST),
                    dcc.Download(id=DOWNLOAD),
                )
            ),
            panel(
                section(
                    "Edit one of your lessons",
                    titled(
                        dcc.Dropdown(id=EDIT_CHOICE, options=[], placeholder="choose a lesson", clearable=False),
                        "the lesson to edit",
                    ),
                    html.Div(id=EDITOR),
                    html.Button("Save the texts", id=SAVE, n_clicks=0),
                )
            ),
        ],
    )


register_page(__name__, layout, path="/lessons", name="Lessons", order=ORDER)


def _present(key: str) -> str:
    return f"/lessons/present?lesson={key}"


def shipped_list() -> html.Ul:
    """Every shipped lesson: its title (a link to the presenter), its steps and summary."""
    items = []
    for name in shipped():
        lesson = load_shipped(name)
        items.append(
            html.Li(
                [
                    dcc.Link(lesson.title, href=_present(name)),
                    f" ({plural(len(lesson.steps), 'step')}) ",
                    html.Span(lesson.summary, className="lesson-summary"),
                ]
            )
        )
    return html.Ul(items, className="lesson-list")


def own_list(own: dict[str, Lesson]) -> html.Div:
    """Your lessons, each with Present, its link, Download and Delete."""
    if not own:
        return html.P("None yet.", className="none")
    rows = []
    for name, lesson in own.items():
        rows.append(
            html.Li(
                [
                    dcc.Link(name, href=_present(OWN + name)),
                    f" ({plural(len(lesson.steps), 'step')}) ",
                    html.A("link to share", href=f"/lessons/present#{FRAGMENT_KEY}{lesson.to_fragment()}"),
                    html.Button("Download", id={"type": GET, "name": name}, n_clicks=0, className="small"),
                    html.Button("Delete", id={"type": DELETE, "name": name}, n_clicks=0, className="small"),
                ]
            )
        )
    return html.Ul(rows, className="lesson-list")


def step_editor(lesson: Lesson) -> list:
    """A box for each step's narration and notes, with buttons to move it up or down or delete it."""
    rows = []
    for k, step in enumerate(lesson.steps):
        player = step.player and ", player " + ", ".join(f"{key} {value}" for key, value in step.player.items())
        rows.append(
            html.Fieldset(
                className="lesson-edit-step",
                children=[
                    html.Legend(f"Step {k + 1}: {step.page} on {step.scenario.title}{player or ''}"),
                    html.Label(
                        ["Narration (Markdown)", dcc.Textarea(id={"type": NARRATION, "k": k}, value=step.narration)]
                    ),
                    html.Label(["Speaker notes", dcc.Textarea(id={"type": NOTES, "k": k}, value=step.notes)]),
                    html.Button("↑ up", id={"type": MOVE, "k": k, "to": k - 1}, n_clicks=0, className="small"),
                    html.Button("↓ down", id={"type": MOVE, "k": k, "to": k + 1}, n_clicks=0, className="small"),
                    html.Button("delete", id={"type": MOVE, "k": k, "to": -1}, n_clicks=0, className="small"),
                ],
            )
        )
    return rows


# ---------------------------------------------------------------- callbacks
LESSONS_OUT = Output(OWN_LESSONS, "data", allow_duplicate=True)
OWN_IN = State(OWN_LESSONS, "data")
LISTED = {"list": Output(OWN_LIST, "children"), "choices": Output(EDIT_CHOICE, "options")}
UPLOADED = {
    "lessons": LESSONS_OUT,
    "message": Output(LESSONS_MESSAGE, "children"),
    "upload": Output(UPLOAD, "contents"),
}
HANDED = {"lessons": LESSONS_OUT, "download": Output(DOWNLOAD, "data")}
HAND_FROM = {
    "deletes": Input({"type": DELETE, "name": ALL}, "n_clicks"),
    "gets": Input({"type": GET, "name": ALL}, "n_clicks"),
    "own": OWN_IN,
}
EDITED = {"lessons": LESSONS_OUT, "message": Output(LESSONS_MESSAGE, "children", allow_duplicate=True)}
EDIT_FROM = {
    "moves": Input({"type": MOVE, "k": ALL, "to": ALL}, "n_clicks"),
    "save": Input(SAVE, "n_clicks"),
    "narrations": State({"type": NARRATION, "k": ALL}, "value"),
    "notes": State({"type": NOTES, "k": ALL}, "value"),
    "choice": State(EDIT_CHOICE, "value"),
    "own": OWN_IN,
}
ADDED = {"lessons": LESSONS_OUT, "message": Output(MESSAGE, "children", allow_duplicate=True)}
ADD_FROM = {"request": Input(ADD_REQUEST, "data"), "scenario": State(SCENARIO, "data"), "own": OWN_IN}


def render(own) -> dict:
    """Your lessons' ``list`` and the editor's ``choices``."""
    lessons = own_lessons(own)
    return {"list": own_list(lessons), "choices": [{"label": name, "value": name} for name in lessons]}


def upload(contents, own) -> dict:
    """A lesson file opened: it joins your ``lessons`` under its title (numbered if the title is taken); the
    ``message`` says so or why not, and the ``upload`` box is emptied."""
    if contents is None:
        return {"upload": None}
    try:
        lesson = Lesson.from_dict(read_json(decode_upload(contents)))
    except VizcollError as exc:
        return {"message": f"⚠ The lesson file could not be opened: {exc}", "upload": None}
    lessons = own_lessons(own)
    if len(lessons) >= MAX_OWN:
        return {"message": f"⚠ This browser keeps at most {MAX_OWN} lessons: delete one first.", "upload": None}
    name, n = lesson.title[:60], 2
    while name in lessons:
        name, n = f"{lesson.title[:56]} ({n})", n + 1
    try:
        kept = stored({**lessons, name: lesson})
    except VizcollError as exc:
        return {"message": f"⚠ The lesson file could not be kept: {exc}", "upload": None}
    return {"lessons": kept, "message": f"Opened {name!r} ({len(lesson.steps)} steps).", "upload": None}


def delete_or_download(deletes, gets, own) -> dict:
    """A Delete (your ``lessons`` without it) or Download (its ``download``) button of one of your lessons."""
    pressed = ctx.triggered_id
    if not ctx.triggered or not ctx.triggered[0]["value"] or not isinstance(pressed, dict):
        return {}
    lessons = own_lessons(own)
    lesson = lessons.get(pressed.get("name"))
    if lesson is None:
        return {}
    if pressed["type"] == GET:
        return {"download": {"content": lesson.dumps(), "filename": "vizcoll-lesson.json"}}
    return {"lessons": stored({name: one for name, one in lessons.items() if name != pressed["name"]})}


def draw_editor(choice, own_data):
    lesson = own_lessons(own_data).get(choice)
    return step_editor(lesson) if lesson else html.P("Choose one of your lessons to edit it.", className="none")


def edit(moves, save, narrations, notes, choice, own) -> dict:
    """Move or delete a step (its buttons), or save every step's texts (Save): your ``lessons`` and a ``message``."""
    lessons = own_lessons(own)
    lesson = lessons.get(choice) if isinstance(choice, str) else None
    if lesson is None or not ctx.triggered or not ctx.triggered[0]["value"]:
        return {}
    data = lesson.to_dict()
    steps = data["steps"]
    pressed = ctx.triggered_id
    if isinstance(pressed, dict):
        k, to = pressed.get("k"), pressed.get("to")
        if not isinstance(k, int) or not 0 <= k < len(steps) or not isinstance(to, int):
            return {}
        step = steps.pop(k)
        if to >= 0:
            steps.insert(min(to, len(steps)), step)
        if not steps:
            left = stored({name: one for name, one in lessons.items() if name != choice})
            return {"lessons": left, "message": f"{choice!r} is empty: deleted."}
    else:
        if not all(isinstance(texts, list) and len(texts) == len(steps) for texts in (narrations, notes)):
            return {"message": "⚠ The lesson changed meanwhile: nothing was saved."}
        for step, narration, note in zip(steps, narrations, notes, strict=True):
            step["narration"], step["notes"] = narration or "", note or ""
    try:
        kept = stored({**lessons, choice: Lesson.from_dict(data)})
    except VizcollError as exc:
        return {"message": f"⚠ Not saved: {exc}"}
    return {"lessons": kept, "message": "Saved." if not isinstance(pressed, dict) else ""}


def add_view(request, scenario: Scenario, own) -> dict:
    """The shell's "Add this view to the lesson": the page, its ``scenario`` and its player's step join My lesson
    (your ``lessons``); the ``message`` says so or why not."""
    if not isinstance(request, dict):
        return {}
    pathname, hash_ = request.get("path"), request.get("hash")
    try:
        lessons, said = added_view(own, pathname, scenario, linked_player(pathname, hash_))
    except VizcollError as exc:
        return {"message": f"⚠ Not added: {exc}"}
    return {"lessons": lessons, "message": said}


def register(app: Dash) -> None:
    by_name(app, LISTED, {"own": Input(OWN_LESSONS, "data")})(render)
    upload_from = {"contents": Input(UPLOAD, "contents"), "own": OWN_IN}
    by_name(app, UPLOADED, upload_from, prevent_initial_call=True)(upload)
    by_name(app, HANDED, HAND_FROM, prevent_initial_call=True)(delete_or_download)
    app.callback(Output(EDITOR, "children"), Input(EDIT_CHOICE, "value"), Input(OWN_LESSONS, "data"))(draw_editor)
    by_name(app, EDITED, EDIT_FROM, prevent_initial_call=True)(edit)
    app.clientside_callback(ADD_REQUEST_JS, Output(ADD_REQUEST, "data"), Input(ADD_VIEW, "n_clicks"))
    by_name(app, ADDED, ADD_FROM, scenario="scenario", message="message", prevent_initial_call=True)(add_view)
