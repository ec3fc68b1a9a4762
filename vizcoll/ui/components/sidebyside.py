"""Two runs of one scenario side by side, one player driving both (issue 45: a lecturer compares DLCT with a tree
barrier on the same broken links, or two tree kinds).

``side_by_side(prefix, choice)`` lays out a panel: the page's ``choice`` (what to compare with, e.g.
``bar-compare-algo``), a background job's bar, the two drawings (``<prefix>-a`` and ``<prefix>-b``, each with
its title and its own caption), the line saying where the runs part (``<prefix>-parting``), one player
(``prefix``) and its "Export animation" (both drawings in one frame: GIF, MP4 or PNG frames).

The player plays the two runs on one time axis (:func:`vizcoll.sim.lockstep.lockstep`): its handle
(:func:`lockstep_handle`) is the side-by-side timeline's, with each run's own handle (``"runs"``) and own position
at every step (``"positions"``). :func:`register_side_by_side` draws a step: the page's ``sheet_at(run handle,
position, *states)`` for each drawing, and each run's caption. The handle comes back from the browser: a forged
one draws the plain sheets (the positions are clamped, a run's timeline is read only by its ref).
"""

from __future__ import annotations

from collections.abc import Callable

import dash_cytoscape as cyto
from dash import Dash, Input, Output, State, ctx, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.sim.lockstep import Lockstep
from vizcoll.ui.components.exports import animation_export, register_animation_export
from vizcoll.ui.components.kit import field, job_bar, status_box
from vizcoll.ui.components.player import pid, player, player_captions, player_data, register_player, timeline_step
from vizcoll.ui.forms import whole_or

__all__ = [
    "SIDES",
    "side_by_side",
    "order_comparison",
    "lockstep_handle",
    "register_side_by_side",
    "run_at",
    "result_outputs",
    "shown",
]

SIDES = ("a", "b")
CANVAS_STYLE = {"width": "100%", "height": "420px"}
HIDDEN = {"display": "none"}
NEVER = "The two runs never part: the same key moments at the same times, and they end together."


def side_by_side(prefix: str, heading: str, choice, sheet: list[dict]) -> html.Div:
    """The panel of player ``prefix``: ``choice`` (the dropdown of what to compare with), the job bar, the two
    drawings (styled by ``sheet`` until a run plays), the parting line, the player and its export."""
    return html.Div(
        className="panel player-panel side-by-side",
        children=[
            html.H3(heading),
            field("compare with", choice),
            job_bar(f"{prefix}-run"),
            status_box(f"{prefix}-message"),
            html.Div(
                id=f"{prefix}-sides",
                className="sides",
                style=HIDDEN,
                children=[_side(prefix, side, sheet) for side in SIDES],
            ),
            html.P(id=f"{prefix}-parting", className="parting", **{"aria-live": "polite"}),
            player(prefix),
            animation_export(prefix),
        ],
    )


def _side(prefix: str, side: str, sheet: list[dict]) -> html.Div:
    return html.Div(
        className="side",
        children=[
            html.H4(id=f"{prefix}-{side}-title"),
            cyto.Cytoscape(
                id=f"{prefix}-{side}",
                elements=[],
                layout={"name": "preset", "fit": True, "padding": 10},
                stylesheet=sheet,
                style=CANVAS_STYLE,
                minZoom=0.05,
                maxZoom=4,
                boxSelectionEnabled=False,
                autoungrabify=True,
                autounselectify=True,
            ),
            html.Div(id=f"{prefix}-{side}-caption", className="player-caption side-caption"),
        ],
    )


def result_outputs(prefix: str) -> list[Output]:
    """What a page's comparison callback writes (:func:`shown`): the player's handle, the two drawings' elements
    and titles, the sides' style, the parting line and the message."""
    return [
        Output(pid(prefix, "timeline"), "data"),
        *[Output(f"{prefix}-{side}", "elements") for side in SIDES],
        *[Output(f"{prefix}-{side}-title", "children") for side in SIDES],
        Output(f"{prefix}-sides", "style"),
        Output(f"{prefix}-parting", "children"),
        Output(f"{prefix}-message", "children"),
    ]


def shown(ls: Lockstep | None, runs: list[dict] | None = None, elements=None, message: str = "") -> tuple:
    """The values of :func:`result_outputs`: the side-by-side run ``ls`` of the runs whose handles are ``runs``
    drawn on ``elements`` (one list per side), or nothing but ``message`` (``ls`` None)."""
    if ls is None:
        return None, [], [], "", "", HIDDEN, "", message
    parting = f"Where they part: {ls.parting['text']}" if ls.parting else NEVER
    return lockstep_handle(ls, runs), *elements, *ls.names, {}, parting, message


def order_comparison(compare, plan) -> dict | None:
    """A page's comparison job's order as its choice ``compare`` or its plan's key ``plan`` change (both from the
    browser, cut short: the job checks the choice, the key only makes a new plan a new order); None without a
    choice, and nothing as the page opens without one (no job)."""
    if not compare and ctx.triggered_id is None:
        return no_update
    if not (isinstance(compare, str) and compare and isinstance(plan, str)):
        return None
    return {"compare": compare[:40], "plan": plan[:100]}


def lockstep_handle(ls: Lockstep, runs: list[dict]) -> dict:
    """The player's handle of the side-by-side run ``ls``: its timeline's (:func:`player_data`), with each run's
    handle (``runs``, without their captions) and position at every step."""
    kept = [{k: v for k, v in run.items() if k != "captions"} for run in runs]
    return player_data(ls.timeline, runs=kept, positions=[list(p) for p in ls.positions], names=list(ls.names))


def run_at(handle, side: int, position) -> tuple[dict, int] | None:
    """(run ``side``'s handle, its own position) at the player's ``position``; None for a handle without runs."""
    try:
        run, steps = handle["runs"][side], handle["positions"][side]
        p = min(whole_or(position, 0, 0, 10**9), len(steps) - 1)  # past the end: the last step
        return (run, whole_or(steps[p], 0, 0, 10**7)) if isinstance(run, dict) and p >= 0 else None
    except (KeyError, IndexError, TypeError):
        return None


def register_side_by_side(
    app: Dash, prefix: str, page: str, export: str, sheet_at: Callable, states: list[State], plain: Callable
) -> None:
    """Wire player ``prefix``: its controls, a step's two stylesheets (``sheet_at(run handle, position, *states)``,
    ``plain()`` without a run) and captions, and the export of ``page``'s player ``export``."""
    register_player(app, prefix)
    register_animation_export(app, prefix, page, export)

    def step(position, handle, *values):
        sheets, captions = [], []
        for side in range(len(SIDES)):
            found = run_at(handle, side, position)
            try:
                if found is None:
                    raise VizcollError("nothing to play")
                run, own = found
                all_captions = player_captions(run)
                captions.append(all_captions[timeline_step(own, len(all_captions) - 1) + 1])
                sheets.append(sheet_at(run, own, *values))
            except VizcollError:
                sheets.append(plain())
                captions.append("")
        return *sheets, *captions

    app.callback(
        *[Output(f"{prefix}-{side}", "stylesheet") for side in SIDES],
        *[Output(f"{prefix}-{side}-caption", "children") for side in SIDES],
        Input(pid(prefix, "step"), "value"),
        State(pid(prefix, "timeline"), "data"),
        *states,
    )(step)
