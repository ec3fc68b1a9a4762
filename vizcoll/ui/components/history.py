"""Undo and redo of the shared scenario: edits, breaks, communicators, and the fabric itself.

The shell shows ``topo-undo`` and ``topo-redo`` (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y: ``assets/keys.js``, except in a
text box, which keeps its own undo) on every page, since a link can be broken on any of them. The history lives in
the browser (``scenario-history``, session storage: ``{"now", "past", "future"}`` of scenario stores): a clientside
callback records every change of the scenario store (:data:`RECORD_JS`). A change of page parameters only
(``params``: a page's k, its chosen algorithm) is no step of its own, as in an editor whose settings are not its
text; undone, a step keeps the page parameters of now when the fabric stays the same.

What you chose where the issue is silent: the last :data:`MAX_STEPS` steps are kept; loading another fabric is a step
too (undo brings the last fabric back, drawn again from scratch, as "Open scenario…" does), and a new step clears the
steps undone. The browser is untrusted: the scenario a step restores is read and checked on the server
(:func:`~vizcoll.ui.store.checked`) before it replaces anything, and a history that is not one is ignored.
"""

from __future__ import annotations

from dash import Dash, Input, Output, State, ctx, dcc, html

from vizcoll.scenario import Scenario
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.routing import next_version
from vizcoll.ui.store import MESSAGE, SCENARIO, checked, store_output

__all__ = ["HISTORY", "MAX_STEPS", "REDO", "UNDO", "history_controls", "register", "stepped"]

UNDO, REDO, HISTORY = "topo-undo", "topo-redo", "scenario-history"
MAX_STEPS = 30

RECORD_JS = f"""function (data, history) {{
    const bare = d => JSON.stringify(Object.assign({{}}, d, {{params: null}}));
    if (!data) {{ return window.dash_clientside.no_update; }}
    let h = history && history.now ? history : {{now: data, past: [], future: []}};
    if (bare(data) === bare(h.now)) {{
        h = Object.assign({{}}, h, {{now: data}});  // the same step (page parameters only, or an undo's own answer)
    }} else {{
        h = {{now: data, past: h.past.concat([h.now]).slice(-{MAX_STEPS}), future: []}};
    }}
    return [h, h.past.length === 0, h.future.length === 0];
}}"""


def history_controls() -> list:
    """The store and the two buttons (disabled while there is nothing to undo or redo)."""
    return [
        dcc.Store(id=HISTORY, storage_type="session"),
        html.Button(
            "↶ Undo", id=UNDO, n_clicks=0, disabled=True, title="Undo the last edit, break or communicator (Ctrl+Z)"
        ),
        html.Button("↷ Redo", id=REDO, n_clicks=0, disabled=True, title="Redo what was undone (Ctrl+Shift+Z)"),
    ]


def _steps(history) -> tuple[list, dict, list] | None:
    """(past, now, future) of a history sent by the browser, or None when it is not one."""
    if not isinstance(history, dict):
        return None
    past, now, future = history.get("past"), history.get("now"), history.get("future")
    if not (isinstance(past, list) and isinstance(future, list) and isinstance(now, dict)):
        return None
    return past[-MAX_STEPS:], now, future[-MAX_STEPS:]


def stepped(history, data, back: bool) -> tuple[Scenario, dict, bool] | str:
    """One step back (``back``) or forward: (the scenario it restores, the history after it, whether the fabric
    changes), or why not (a message)."""
    steps = _steps(history)
    if steps is None:
        return "there is no step to undo or redo"
    past, now, future = steps
    source, target = (past, future) if back else (future, past)
    if not source:
        return f"there is nothing to {'undo' if back else 'redo'}"
    restored, why = checked(source[-1])
    current, _ = checked(data)
    if restored is None:
        return why
    same_fabric = current is not None and (current.spec, current.ref) == (restored.spec, restored.ref)
    if same_fabric:  # the page parameters of now stay (an edit undone, not a setting)
        restored = Scenario(**{**restored.__dict__, "params": current.params})
    store = restored.to_dict(thin=True)
    moved = {"now": store, "past": source[:-1], "future": [*target, now][-MAX_STEPS:]}
    if not back:
        moved["past"], moved["future"] = moved["future"], moved["past"]
    return restored, moved, not same_fabric


def step(undo, redo, history, scenario, version) -> dict:
    """Undo or redo a step: the scenario store, the history, and, when the fabric changes, the page drawn again
    from scratch (as "Open scenario…" does: ``shell-version`` bumped, the page emptied first)."""
    if not ctx.triggered or not (undo or redo):
        return {}
    found = stepped(history, scenario, back=ctx.triggered_id == UNDO)
    if isinstance(found, str):
        return {"message": f"⚠ {found}"}
    _, moved, new_fabric = found
    restored = {"store": moved["now"], "history": moved, "message": ""}
    if not new_fabric:
        return restored
    opening = html.Div("Opening the scenario…", className="page info")
    return restored | {"version": next_version(version), "content": opening}


def outputs(version: str, content: str) -> dict[str, Output]:
    """What :func:`step` writes; ``version`` and ``content``: the shell's router version store and page content."""
    return {
        "store": store_output(),
        "history": Output(HISTORY, "data", allow_duplicate=True),
        "message": Output(MESSAGE, "children", allow_duplicate=True),
        "version": Output(version, "data", allow_duplicate=True),
        "content": Output(content, "children", allow_duplicate=True),
    }


INPUTS = {
    "undo": Input(UNDO, "n_clicks"),
    "redo": Input(REDO, "n_clicks"),
    "history": State(HISTORY, "data"),
    "scenario": State(SCENARIO, "data"),
}


def register(app: Dash, version: str, content: str) -> None:
    """The history's callbacks; ``version`` and ``content``: the shell's router version store and page content."""
    app.clientside_callback(
        RECORD_JS,
        Output(HISTORY, "data"),
        Output(UNDO, "disabled"),
        Output(REDO, "disabled"),
        Input(SCENARIO, "data"),
        State(HISTORY, "data"),
    )
    inputs = INPUTS | {"version": State(version, "data")}
    by_name(app, outputs(version, content), inputs, prevent_initial_call=True)(step)
