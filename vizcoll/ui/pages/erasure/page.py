"""The erasure-code page: a stripe of n blocks (k of data) over N data centres, its repair groups and DC failures.

Inputs n, k, N, the code family (Reed–Solomon, Azure LRC, replication, the FMEL-style searched code), how
cross-DC traffic is counted (every remote block read, or one combined block per remote DC), the DC failures
the searched code must survive, its seed and an optional placement. The DCs are drawn as boxes with their
blocks (colour = data / parity kind); clicking a block shows its minimum-cross-DC repair group with arrows
(remote reads in red, counted), clicking a DC's square fails or restores that DC and the page says whether
the stripe survives and which lost blocks come back. Below: this code's numbers (whether its T̄ is the one
the paper's Table 2 gives and, if not, under which traffic model and placement the paper's holds; the FMEL
search's scheme and lower bound), every family at the same parameters with the paper's Table 2 values beside them,
and the generator matrix.

State lives in two stores: the checked parameters (``era-params``) and the view (``era-view``: the selected
block and the failed DCs). The model (parameters, cached engine calls) is :mod:`vizcoll.ui.pages.erasure._model`.

Two background jobs (:mod:`vizcoll.ui.jobs`; the measured times are in :mod:`vizcoll.ui.pages.erasure._model`):
building the code (``era-build``: up to minutes for the FMEL search at n = 32 on 16 DCs, its progress scheme
by scheme) and comparing every family (``era-compare``, family by family). Each shows a progress bar and a
Cancel button (the page keeps the last code); a control changed while a build runs replaces that build. The
views of the code read only what a build job made (:func:`vizcoll.ui.pages.erasure._model.built_code`), so a store
forged in the browser never starts a computation in a web worker.
"""

from __future__ import annotations

from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.erasure.codes import FAMILIES, MAX_BLOCKS, MAX_DCS
from vizcoll.erasure.metrics import TRAFFIC, Metrics, dc_failure
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui import jobs
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.exports import figure_pack, register_figure_pack
from vizcoll.ui.components.kit import field, graph, info, job_bar, message_box, panel, section, status_box
from vizcoll.ui.figures.common import blank_figure
from vizcoll.ui.pages.erasure import ORDER
from vizcoll.ui.pages.erasure._figures import (
    FAMILY_NAMES,
    failure_text,
    repair_text,
)
from vizcoll.ui.pages.erasure._model import (
    DEFAULTS,
    EMPTY_VIEW,
    PAGE,
    TRAFFIC_LABELS,
    build_code,
    built_code,
    compare_result,
    read_params,
    scenario_params,
    stored_view,
)
from vizcoll.ui.pages.erasure._views import (
    compare_table,
    compare_view,
    dcs_view,
    matrix_view,
    scheme_view,
    summary_view,
)
from vizcoll.ui.routing import page_scenario, register_page
from vizcoll.ui.store import SCENARIO, checked, key_of, page_params, remembered, store_output

__all__ = ["PAGE", "layout", "body", "register", "build", "update_view", "render_dcs", "render_code", "render_compare"]

# the page's components
ERA_N, ERA_K, ERA_DCS, ERA_CODE, ERA_TRAFFIC = "era-n", "era-k", "era-dcs", "era-code", "era-traffic"
ERA_D, ERA_SEED, ERA_PLACEMENT, ERA_MESSAGE = "era-d", "era-seed", "era-placement", "era-message"
PARAM_CONTROLS = {
    "n": ERA_N,
    "k": ERA_K,
    "dcs": ERA_DCS,
    "code": ERA_CODE,
    "traffic": ERA_TRAFFIC,
    "d": ERA_D,
    "seed": ERA_SEED,
    "placement": ERA_PLACEMENT,
}  # parameter -> its control
ERA_PARAMS, ERA_VIEW, ERA_DC_FIG, ERA_STATUS = "era-params", "era-view", "era-dc-fig", "era-status"
ERA_RESTORE, ERA_SUMMARY, ERA_MATRIX, ERA_SCHEME = "era-restore", "era-summary", "era-matrix", "era-scheme"
ERA_COMPARE, ERA_COMPARE_TABLE, ERA_PACK = "era-compare", "era-compare-table", "era-pack"
ERA_BUILD_JOB, ERA_COMPARE_JOB = "era-build", "era-compare"  # the background jobs (their job bars' prefixes)
POLL_MS = 400  # how often the page asks for a job's progress
NOT_BUILT = "⚠ This code has not been built here: change a control to build it."
SAVED_AS = "vizcoll-erasure"  # the file name of a figure saved from its mode bar


def layout(**kwargs) -> html.Div:
    """Dash's entry: the page for the link's or the store's scenario (query parameters are ignored)."""
    return body(page_scenario(kwargs))


register_page(__name__, layout, path="/erasure", name="Erasure codes", order=ORDER)


# ---------------------------------------------------------------- layout
def _int_or_default(values: dict, key: str):
    try:
        return int(values[key])
    except (TypeError, ValueError):
        return int(DEFAULTS[key]) if DEFAULTS[key] else None


def _number_box(id_: str, value, **kwargs) -> dcc.Input:
    return dcc.Input(id=id_, type="number", debounce=True, value=value, **kwargs)


def body(scenario: Scenario) -> html.Div:
    """The page with the scenario's erasure parameters (n, k, dcs, code, traffic, d, seed, placement)."""
    v = {key: str(val) if val is not None else "" for key, val in page_params(scenario, PAGE, DEFAULTS).items()}
    code = v["code"] if v["code"] in FAMILIES else DEFAULTS["code"]
    traffic = v["traffic"] if v["traffic"] in TRAFFIC else DEFAULTS["traffic"]
    sidebar = html.Div(
        className="sidebar",
        children=[
            section(
                "Stripe and code",
                field("n (coded blocks)", _number_box(ERA_N, _int_or_default(v, "n"))),
                field("k (data blocks)", _number_box(ERA_K, _int_or_default(v, "k"))),
                field("N (data centres)", _number_box(ERA_DCS, _int_or_default(v, "dcs"))),
                field(
                    "code",
                    dcc.Dropdown(
                        id=ERA_CODE,
                        clearable=False,
                        className="grow",
                        value=code,
                        options=[{"label": name, "value": key} for key, name in FAMILY_NAMES.items()],
                    ),
                ),
                html.Div(
                    className="row",
                    children=[
                        html.Label("count cross-DC traffic as", className="label"),
                        dcc.RadioItems(
                            id=ERA_TRAFFIC,
                            value=traffic,
                            options=[{"label": label, "value": key} for key, label in TRAFFIC_LABELS.items()],
                        ),
                    ],
                ),
                field(
                    "D (FMEL: DC failures)", _number_box(ERA_D, _int_or_default(v, "d"), placeholder="most possible")
                ),
                field("seed (FMEL)", _number_box(ERA_SEED, _int_or_default(v, "seed"))),
                field(
                    "placement",
                    dcc.Input(
                        id=ERA_PLACEMENT,
                        value=v["placement"],
                        debounce=True,
                        placeholder="DC per block, e.g. 0,0,0,1,1,1,2,2,2",
                    ),
                ),
                message_box(ERA_MESSAGE),
                info(
                    "A stripe of k data blocks is encoded into n blocks y = x·G over GF(2⁸) and spread over N data "
                    "centres. Rebuilding a lost block reads its repair group: blocks in its own DC are free, every "
                    "block read from another DC is cross-DC traffic — or, if each remote DC first combines its "
                    "blocks, one block per remote DC. The paper's T̄ = 0.67 for FMEL(9,5) holds only under that "
                    "second model, with 3 blocks in each of the 3 DCs; counting every remote block read, no linear "
                    "code goes below 7/9 ≈ 0.778 (4, 3, 2 blocks). The note under the code's numbers says which "
                    "one the page shows."
                ),
                info(
                    f"Limits: n ≤ {MAX_BLOCKS}, N ≤ {MAX_DCS} — the repair groups and fault tolerances are exact "
                    "enumerations, and the FMEL search tries schemes one by one."
                ),
            ),
            section("Export for papers", figure_pack(ERA_PACK)),
        ],
    )
    return html.Div(
        className="page erasure-page", children=[html.Div(className="columns", children=[sidebar, _main()])]
    )


def _main() -> html.Div:
    return html.Div(
        className="main",
        children=[
            dcc.Store(id=ERA_PARAMS),
            dcc.Store(id=ERA_VIEW, data=EMPTY_VIEW),
            job_bar(ERA_BUILD_JOB),
            panel(
                graph(ERA_DC_FIG, SAVED_AS, figure=blank_figure("Building the code…", height=260)),
                status_box(ERA_STATUS),
                html.Button("Restore every DC", id=ERA_RESTORE, n_clicks=0),
            ),
            html.Div(
                className="pair",
                children=[
                    html.Div(id=ERA_SUMMARY, className="table-box"),
                    html.Div(id=ERA_SCHEME, className="table-box"),
                ],
            ),
            panel(
                html.H3("Every code family at the same n, k, N (each on its default placement)"),
                job_bar(ERA_COMPARE_JOB),
                graph(ERA_COMPARE, SAVED_AS, figure=blank_figure("Comparing…", height=260)),
                html.Div(id=ERA_COMPARE_TABLE),
            ),
            panel(graph(ERA_MATRIX, SAVED_AS, figure=blank_figure("Generator matrix", height=260))),
        ],
    )


# ---------------------------------------------------------------- callbacks: what each writes and reads, by name
BUILT = {"key": Output(ERA_PARAMS, "data"), "message": Output(ERA_MESSAGE, "children"), "scenario": store_output()}
BUILD_INPUTS = {
    **{key: Input(i, "value") for key, i in PARAM_CONTROLS.items()},
    "scenario": State(SCENARIO, "data"),
}
DCS = {
    "figure": Output(ERA_DC_FIG, "figure"),
    "status": Output(ERA_STATUS, "children"),
    "flag": Output(ERA_STATUS, "className"),
}
DCS_INPUTS = {"key": Input(ERA_PARAMS, "data"), "view": Input(ERA_VIEW, "data"), "scenario": State(SCENARIO, "data")}
CODE = {
    "summary": Output(ERA_SUMMARY, "children"),
    "scheme": Output(ERA_SCHEME, "children"),
    "matrix": Output(ERA_MATRIX, "figure"),
}
COMPARED = {"figure": Output(ERA_COMPARE, "figure"), "table": Output(ERA_COMPARE_TABLE, "children")}
CODE_INPUTS = {"key": Input(ERA_PARAMS, "data"), "scenario": State(SCENARIO, "data")}  # the code's and comparison's


def register(app: Dash) -> None:
    register_figure_pack(app, ERA_PACK, PAGE)
    by_name(
        app,
        BUILT,
        BUILD_INPUTS,
        scenario="scenario",
        message="message",
        prevent_initial_call="initial_duplicate",
        interval=POLL_MS,
        **jobs.background(ERA_BUILD_JOB),
    )(build)
    app.callback(
        Output(ERA_VIEW, "data"),
        Input(ERA_DC_FIG, "clickData"),
        Input(ERA_RESTORE, "n_clicks"),
        Input(ERA_PARAMS, "data"),
        State(ERA_VIEW, "data"),
        State(SCENARIO, "data"),
    )(update_view)
    by_name(app, DCS, DCS_INPUTS)(render_dcs)
    by_name(app, CODE, CODE_INPUTS)(render_code)
    by_name(
        app, COMPARED, CODE_INPUTS, prevent_initial_call=True, interval=POLL_MS, **jobs.background(ERA_COMPARE_JOB)
    )(render_compare)


def build(set_progress, scenario: Scenario, **values) -> dict:
    """(A background job.) Check the controls (``values``: control key -> its value) and build the code (cached;
    the FMEL search reports its progress); a problem becomes a message, the last result stays.

    The controls' values become the scenario's erasure parameters (shared link, reload).
    """
    try:
        params = read_params(**values)
        set_progress((0, 1, f"Building the {FAMILY_NAMES[params['code']]} code…"))
        build_code(params, progress=lambda done, total: set_progress((done, total, _search_text(done, total))))
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    values = {
        "n": params["n"],
        "k": params["k"],
        "dcs": params["dcs"],
        "code": params["code"],
        "traffic": params["traffic"],
        "d": "" if params["d"] is None else params["d"],
        "seed": params["seed"],
        "placement": ",".join(map(str, params["placement"] or [])),
    }
    return {"key": key_of(params), "message": "", "scenario": remembered(scenario, PAGE, values)}


def _search_text(done: int, total: int) -> str:
    """What the FMEL search is doing (``progress(done, total)`` of :func:`vizcoll.erasure.fmel.fmel_search`)."""
    if done >= total:
        return "FMEL search: done"
    if done == total - 1:
        return "FMEL search: computing the exact metrics of the code found…"
    return f"FMEL search: {done} of at most {total - 1} schemes tried"


def _params(key, data) -> dict | None:
    """The page's checked parameters, read from the scenario store ``data`` on the server (``key``: the build's
    trigger, None before it answered; what the browser sends there is never read)."""
    scenario = checked(data)[0] if key is not None else None
    return None if scenario is None else scenario_params(scenario)


def update_view(click, _restore, key, view, data):
    """A click on a block selects it; on a DC's square fails or restores that DC; new parameters or the
    restore button clear the failures (and the selection, with new parameters). Nothing changes before the build
    answered or with a store that cannot be read."""
    params = _params(key, data)
    trigger = ctx.triggered_id
    if params is None:
        return no_update
    if trigger == ERA_PARAMS:
        return dict(EMPTY_VIEW)
    view = stored_view(view, params)
    if trigger == ERA_RESTORE:
        return view | {"failed": []}
    points = click.get("points") if isinstance(click, dict) else None
    data = points[0].get("customdata") if isinstance(points, list) and points and isinstance(points[0], dict) else None
    if not (isinstance(data, list) and len(data) == 2 and isinstance(data[1], int)):
        return no_update
    what, index = data
    if what == "block" and 0 <= index < params["n"]:
        return view | {"block": index}
    if what == "dc" and 0 <= index < params["dcs"]:
        return view | {"failed": sorted(set(view["failed"]) ^ {index})}
    return no_update  # (n/a: a click outside any block or DC square)


def render_dcs(key, view, scenario) -> dict:
    """The DC figure, and what the selection and the failed DCs mean; nothing changes before the build answered or
    with a store that cannot be read."""
    params = _params(key, scenario)
    if params is None:
        return {}
    result = built_code(params)
    if result is None:
        return {"figure": blank_figure("Not built yet.", height=260), "status": NOT_BUILT, "flag": "flag warn"}
    view = stored_view(view, params)
    block, failed = view["block"], view["failed"]
    failure = dc_failure(Metrics.from_dict(result).code, failed)
    lines = []
    if block is not None:
        lines.append(
            repair_text(result, block, params["traffic"])
            + (" (A repair group is for this block lost alone; with DCs down, see below.)" if failed else "")
        )
    if failed:
        lines.append(failure_text(failure))
    if not lines:
        lines.append("Click a block to see its repair group; click a DC's square (top left of its box) to fail it.")
    warn = bool(failed) and not failure["survives"]
    return {
        "figure": dcs_view(params, block, failed),
        "status": "\n".join(lines),
        "flag": "flag warn" if warn else "flag",
    }


def render_code(key, scenario) -> dict:
    """The code's numbers, its scheme and its generator matrix, once a build job made it."""
    params = _params(key, scenario)
    result = None if params is None else built_code(params)
    if result is None:
        return {}
    fixed = params["placement"] is not None
    return {
        "summary": summary_view(result, params["traffic"], fixed),
        "scheme": scheme_view(result),
        "matrix": matrix_view(params),
    }


def render_compare(set_progress, key, scenario) -> dict:
    """(A background job.) Every family at the page's n, k, N; the progress names the family being measured."""
    params = _params(key, scenario)
    if params is None:
        return {}
    families = list(FAMILY_NAMES)

    def progress(done: int, total: int) -> None:
        what = FAMILY_NAMES[families[done]] if done < len(families) else "FMEL at the other codes' D"
        set_progress((done, total, f"Comparing: {what} ({done + 1} of {total})…"))

    with jobs.parallel_tasks():
        out = compare_result(params, progress=progress)
    return {"figure": compare_view(params), "table": compare_table(out)}
