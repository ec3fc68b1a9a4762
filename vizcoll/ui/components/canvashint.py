"""The hint over an empty drawing: how to start (generate a fabric, load a file, or open an example from Help).

A page puts :func:`canvas_hint` just before its cytoscape canvas (the hint lies over the canvas's top:
``assets/style.css``) and wires it with :func:`register_canvas_hint`. The hint shows while the scenario's fabric
has no node (:func:`shows_hint`): the Topology example "empty", or every node removed with the Edit panel. A
scenario may have such a fabric, so the hint follows the scenario, not a first load: it is drawn hidden and its
callback (run as the page opens, then at each change of the scenario) shows it. A fabric still being built, or a
store that cannot be read, shows no hint (the page says why elsewhere).
"""

from __future__ import annotations

from dash import Dash, Input, Output, dcc, html

from vizcoll.errors import VizcollError
from vizcoll.ui.store import SCENARIO, checked, fabric_of

__all__ = ["canvas_hint", "register_canvas_hint", "shows_hint", "hint_id", "ELSEWHERE", "HELP"]

HELP = "/help"
ELSEWHERE = ("generate a fabric or load a file on ", dcc.Link("Topology", href="/topology"))
"""How to start on a page that draws the scenario's fabric but makes none itself."""


def hint_id(canvas: str) -> str:
    """The id of the hint over the canvas ``canvas``."""
    return f"{canvas}-hint"


def canvas_hint(canvas: str, *ways) -> html.Div:
    """The hint over ``canvas`` (hidden until its callback runs): "Nothing to draw yet: ``ways``, or open an example
    from Help" (``ways``: text and links, e.g. :data:`ELSEWHERE`)."""
    return html.Div(
        id=hint_id(canvas),
        className="canvas-hint",
        hidden=True,
        children=html.P(
            ["Nothing to draw yet: ", *ways, ", or open an example from ", dcc.Link("Help", href=HELP), "."],
            role="status",
        ),
    )


def shows_hint(data) -> bool:
    """Whether the scenario store ``data`` has a fabric with no node to draw (a fabric being built or a store that
    cannot be read: no hint)."""
    scenario, _ = checked(data)
    try:
        return scenario is not None and fabric_of(scenario).n_nodes == 0
    except VizcollError:
        return False


def register_canvas_hint(app: Dash, canvas: str) -> None:
    """Show the hint over ``canvas`` exactly while the scenario's fabric has no node."""
    app.callback(Output(hint_id(canvas), "hidden"), Input(SCENARIO, "data"))(lambda data: not shows_hint(data))
