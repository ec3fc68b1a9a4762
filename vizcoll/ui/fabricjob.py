"""The background job that builds a large generated fabric before any page draws it.

A generated fabric of more than :data:`~vizcoll.ui.limits.BUILT_IN_JOB_NODES` nodes (the 1,048,576-NIC rail fabric
with its positions and blocks: seconds and 802 MB at the peak, docs/design.md) is not built in a request: there
:func:`~vizcoll.ui.store.fabric_of` raises :class:`~vizcoll.ui.store.FabricPending`, and every page says that the
fabric is being built. The shell orders this job when its store names such a fabric not built yet
(:func:`order_build`); the job builds it into the shared cache with what every drawing of it needs (its positions
and its overview's blocks), with a progress bar and Cancel under the scenario bar. Then the browser writes the
store again, unchanged (:data:`REFRESH_JS`), so that every page draws the fabric from the cache, and a page that
could not be laid out without it (``page-pending``, :func:`vizcoll.ui.routing.register_page`) is drawn again by
the router (``shell-version`` bumped).
"""

from __future__ import annotations

from dash import Dash, Input, Output, State, dcc, html

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui import jobs
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.kit import job_bar
from vizcoll.ui.models.parts import fabric_groups
from vizcoll.ui.routing import PENDING, VERSION
from vizcoll.ui.store import SCENARIO, built_in_job, fabric_of, is_built, positions_of, scenario_fields

__all__ = ["FABRIC_JOB", "FABRIC_ORDER", "FABRIC_BUILT", "layout", "order_build", "build_job", "register"]

FABRIC_JOB, FABRIC_ORDER, FABRIC_BUILT = "fabric-build", "fabric-build-order", "fabric-built"
REFRESH_JS = """function(built, data, version) {
    const skip = window.dash_clientside.no_update, waiting = !!document.getElementById('PENDING');
    return built && data ? [Object.assign({}, data), waiting ? (version || 0) + 1 : skip] : [skip, skip];
}""".replace("PENDING", PENDING)


def layout() -> html.Div:
    """The job's order and result stores and its progress bar."""
    return html.Div([dcc.Store(id=FABRIC_ORDER), dcc.Store(id=FABRIC_BUILT), job_bar(FABRIC_JOB)])


def _unbuilt(data) -> Scenario | None:
    """The store's scenario, its fields checked but its fabric not built; None when it is unreadable."""
    try:
        return scenario_fields(data) if data is not None else None
    except VizcollError:
        return None


def order_build(data, order_now):
    """The job's order when the store names a large generated fabric not built yet (``{"run", "scenario"}``)."""
    scenario = _unbuilt(data)
    needed = scenario is not None and built_in_job(scenario) and not is_built(scenario)
    return jobs.order(needed, order_now, scenario=scenario.to_dict(thin=True) if needed else None)


def build_job(set_progress, order) -> dict:
    """(A background job.) The ordered fabric built into the shared cache, with its positions and blocks: the
    order's run as ``built`` when done (the browser then writes the store again), or a ``message`` saying why it
    failed."""
    scenario = _unbuilt(order.get("scenario")) if isinstance(order, dict) else None
    if scenario is None or not built_in_job(scenario):  # the order comes from the browser: checked again
        return {}
    set_progress((0, 1, f"Building {scenario.spec[:80]}…"))
    try:
        fabric_of(scenario)
        positions_of(scenario)
        fabric_groups(scenario)
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    return {"built": order["run"], "message": ""}


def register(app: Dash, message: str) -> None:
    """The job's callbacks; ``message`` is the shell's message line."""
    app.callback(
        Output(FABRIC_ORDER, "data"), Input(SCENARIO, "data"), State(FABRIC_ORDER, "data"), prevent_initial_call=True
    )(order_build)
    built = {"built": Output(FABRIC_BUILT, "data"), "message": Output(message, "children", allow_duplicate=True)}
    by_name(
        app,
        built,
        {"order": Input(FABRIC_ORDER, "data")},
        prevent_initial_call=True,
        interval=200,
        **jobs.background(FABRIC_JOB),
    )(build_job)
    app.clientside_callback(
        REFRESH_JS,
        Output(SCENARIO, "data", allow_duplicate=True),
        Output(VERSION, "data", allow_duplicate=True),
        Input(FABRIC_BUILT, "data"),
        State(SCENARIO, "data"),
        State(VERSION, "data"),
        prevent_initial_call=True,
    )
