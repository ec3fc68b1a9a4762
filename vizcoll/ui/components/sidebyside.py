"""Two runs of one scenario side by side, one player driving both (issue 45: a lecturer compares DLCT with a tree
barrier on the same broken links, two tree kinds, or multicast algorithms A and B routing group by group).

``side_by_side(prefix, heading, choice, sheet)`` lays out a panel: the page's ``choice`` (what to compare with,
e.g. ``bar-compare-algo``), a background job's bar (``<prefix>-run``), the two drawings (``<prefix>-a`` and
``<prefix>-b``: cytoscape canvases, or Plotly figures when ``sheet`` is None; each with its title and its own
caption), the line saying where the runs part (``<prefix>-parting``), one player (``prefix``) and its "Export
animation" (both drawings in one frame: GIF, MP4 or PNG frames). :func:`comparison_order` orders the page's
comparison job as the choice or the page's plan change; the job writes :func:`result_outputs` with
:func:`shown`.

The player plays the two runs on one time axis (:func:`vizcoll.sim.lockstep.lockstep`): its handle
(:func:`lockstep_handle`) is the side-by-side timeline's, with each run's own handle (``"runs"``) and own position
at every step (``"positions"``). :func:`register_side_by_side` draws a step: the page's ``sheet_at(run handle,
position, *states)`` for each drawing, and each run's caption. The handle comes back from the browser: a forged
one draws the plain sheets (the positions are clamped, a run's timeline is read only by its ref).
"""

from __future__ import annotations

from collections.abc import Callable

import dash_cytoscape as cyto
import plotly.graph_objects as go
from dash import Dash, Input, Output, State, ctx, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.sim.lockstep import Lockstep
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.exports import animation_export, register_animation_export
from vizcoll.ui.components.kit import field, graph, job_bar, status_box
from vizcoll.ui.components.player import pid, player, player_captions, player_data, register_player, timeline_step
from vizcoll.ui.forms import whole_or

__all__ = [
    "SIDES",
    "side_by_side",
    "comparison_order",
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


def side_by_side(prefix: str, heading: str, choice, sheet: list[dict] | None) -> html.Div:
    """The panel of player ``prefix``: ``choice`` (the dropdown of what to compare with), the job bar, the two
    drawings (cytoscape canvases styled by ``sheet`` until a run plays; ``sheet`` None: Plotly figures), the
    parting line, the player and its export."""
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


def _side(prefix: str, side: str, sheet: list[dict] | None) -> html.Div:
    drawing = graph(f"{prefix}-{side}", f"vizcoll-{prefix}-{side}") if sheet is None else _canvas(prefix, side, sheet)
    return html.Div(
        className="side",
        children=[
            html.H4(id=f"{prefix}-{side}-title"),
            drawing,
            html.Div(id=f"{prefix}-{side}-caption", className="player-caption side-caption"),
        ],
    )


def _canvas(prefix: str, side: str, sheet: list[dict]) -> cyto.Cytoscape:
    return cyto.Cytoscape(
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
    )


def result_outputs(prefix: str, canvas: bool = True) -> dict[str, Output]:
    """What a page's comparison callback writes (:func:`shown`), by name: the player's ``handle``, the two canvases'
    ``elements_a`` and ``elements_b`` (not for figures), the drawings' ``title_a`` and ``title_b``, the ``sides``'
    style, the ``parting`` line and the ``message``."""
    elements = {f"elements_{side}": Output(f"{prefix}-{side}", "elements") for side in SIDES} if canvas else {}
    return {
        "handle": Output(pid(prefix, "timeline"), "data"),
        **elements,
        **{f"title_{side}": Output(f"{prefix}-{side}-title", "children") for side in SIDES},
        "sides": Output(f"{prefix}-sides", "style"),
        "parting": Output(f"{prefix}-parting", "children"),
        "message": Output(f"{prefix}-message", "children"),
    }


def shown(ls: Lockstep | None, runs: list[dict] | None = None, elements=None, message: str = "", canvas=True) -> dict:
    """The answer to :func:`result_outputs`: the side-by-side run ``ls`` of the runs whose handles are ``runs``
    drawn on the canvases' ``elements`` (one list per side), or nothing but ``message`` (``ls`` None)."""
    drawn = [[], []] if ls is None else elements
    names = ("", "") if ls is None else ls.names
    answer = {
        "handle": None if ls is None else lockstep_handle(ls, runs),
        **({f"elements_{side}": sheet for side, sheet in zip(SIDES, drawn, strict=True)} if canvas else {}),
        **{f"title_{side}": name for side, name in zip(SIDES, names, strict=True)},
        "sides": HIDDEN if ls is None else {},
        "parting": "" if ls is None else f"Where they part: {ls.parting['text']}" if ls.parting else NEVER,
    }
    return answer | {"message": message}


def comparison_order(choice: str) -> Callable:
    """The callback ``(compare, plan) -> order`` of a page's comparison job: an order as the choice ``compare`` (the
    value of component ``choice``) or the plan's key ``plan`` change (both from the browser, cut short: the job
    checks the choice, the key only makes a new plan a new order); None as the choice is cleared, and nothing
    otherwise without a choice (no job)."""

    def order(compare, plan):
        if not compare:
            return None if ctx.triggered_id == choice else no_update
        if not (isinstance(compare, str) and isinstance(plan, str)):
            return None
        return {"compare": compare[:40], "plan": plan[:100]}

    return order


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
    """Wire player ``prefix``: its controls, a step's two drawings (``sheet_at(run handle, position, *states)``, a
    stylesheet or a figure; ``plain()`` without a run) and captions, and the export of ``page``'s player
    ``export``."""
    prop = "figure" if isinstance(plain(), dict | go.Figure) else "stylesheet"
    register_player(app, prefix)
    register_animation_export(app, prefix, page, export)

    extra = {f"state_{i}": state for i, state in enumerate(states)}

    def step(position, handle, **values):
        answer = {}
        for index, side in enumerate(SIDES):
            found = run_at(handle, index, position)
            try:
                if found is None:
                    raise VizcollError("nothing to play")
                run, own = found
                all_captions = player_captions(run)
                answer[f"caption_{side}"] = all_captions[timeline_step(own, len(all_captions) - 1) + 1]
                answer[f"sheet_{side}"] = sheet_at(run, own, *(values[name] for name in extra))
            except VizcollError:
                answer |= {f"sheet_{side}": plain(), f"caption_{side}": ""}
        return answer

    outputs = {
        **{f"sheet_{side}": Output(f"{prefix}-{side}", prop) for side in SIDES},
        **{f"caption_{side}": Output(f"{prefix}-{side}-caption", "children") for side in SIDES},
    }
    inputs = {"position": Input(pid(prefix, "step"), "value"), "handle": State(pid(prefix, "timeline"), "data")}
    by_name(app, outputs, inputs | extra)(step)
