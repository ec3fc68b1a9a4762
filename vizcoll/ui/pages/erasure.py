"""The erasure-code page: a stripe of n blocks (k of data) over N data centres, its repair groups and DC failures.

Inputs n, k, N, the code family (Reed–Solomon, Azure LRC, replication, the FMEL-style searched code), how
cross-DC traffic is counted (every remote block read, or one combined block per remote DC), the DC failures
the searched code must survive, its seed and an optional placement. The DCs are drawn as boxes with their
blocks (colour = data / parity kind); clicking a block shows its minimum-cross-DC repair group with arrows
(remote reads in red, counted), clicking a DC's square fails or restores that DC and the page says whether
the stripe survives and which lost blocks come back. Below: this code's numbers (and the FMEL search's
scheme and lower bound), every family at the same parameters with the paper's Table 2 values beside them,
and the generator matrix.

State lives in two stores: the checked parameters (``era-params``) and the view (``era-view``: the selected
block and the failed DCs). Engine calls go through :func:`vizcoll.ui.cache.memo`.
"""

from __future__ import annotations

from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.erasure.codes import FAMILIES, MAX_BLOCKS, MAX_DCS, check_parameters, parse_placement
from vizcoll.erasure.compare import PAPER_REDUCTION, compare, measure, paper_rows
from vizcoll.erasure.metrics import TRAFFIC, Metrics, check_traffic, dc_failure
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui import ids
from vizcoll.ui.cache import memo
from vizcoll.ui.calls import SCENARIO, page_params, remembered, store_output
from vizcoll.ui.components.kit import field
from vizcoll.ui.figures.erasure import (
    FAMILY_NAMES,
    compare_figure,
    dc_figure,
    empty_figure,
    failure_text,
    matrix_figure,
    repair_text,
)
from vizcoll.ui.forms import number

__all__ = ["layout", "register", "DEFAULTS", "read_params", "code_result", "compare_result", "build",
           "update_view", "render_dcs", "render_code", "render_compare"]

PAGE = "erasure"
DEFAULTS = {"n": "9", "k": "5", "dcs": "3", "code": "fmel", "traffic": "blocks", "d": "", "seed": "0",
            "placement": ""}
TRAFFIC_LABELS = {"blocks": "every remote block read", "aggregated": "one combined block per remote DC"}
PAGE_BUDGET = 400_000  # subset checks of the exact repair groups per code (the CLI allows more)
PAGE_TOLERANCE_BUDGET = 100_000  # subset checks of the block failures tolerated (beyond: a lower bound)
PAGE_SCHEMES = 150  # schemes the FMEL search may construct for the page
GRAPH_CONFIG = {"toImageButtonOptions": {"format": "svg", "filename": "vizcoll-erasure"}}
EMPTY_VIEW = {"block": None, "failed": []}


# ---------------------------------------------------------------- parameters and engine calls
def read_params(n, k, dcs, code, traffic, d, seed, placement) -> dict:
    """Checked, canonical page parameters; raises VizcollError with a message for the page."""
    sizes = []
    for value, name in ((n, "n (coded blocks)"), (k, "k (data blocks)"), (dcs, "N (data centres)")):
        if value in (None, ""):
            raise VizcollError(f"{name}: enter a whole number")
        sizes.append(number(value, name, int))
    n, k, dcs = check_parameters(*sizes)
    if code not in FAMILIES:
        raise VizcollError(f"unknown code family {code!r}; choose one of {', '.join(FAMILIES)}")
    check_traffic(traffic)
    d = None if d in (None, "") else number(d, "D (DC failures to survive)", int, 0, dcs - 1)
    seed = 0 if seed in (None, "") else number(seed, "seed", int, 0, 2**31 - 1)
    text = (placement or "").strip()
    parsed = parse_placement(text, n, dcs) if text else None
    return {"n": n, "k": k, "dcs": dcs, "code": code, "traffic": traffic, "d": d, "seed": seed,
            "placement": parsed}


def _code_result(params: dict) -> dict:
    return measure(params["code"], params["n"], params["k"], params["dcs"], placement=params["placement"],
                   seed=params["seed"], traffic=params["traffic"], d=params["d"], budget=PAGE_BUDGET,
                   tolerance_budget=PAGE_TOLERANCE_BUDGET,
                   **({"max_schemes": PAGE_SCHEMES} if params["code"] == "fmel" else {}))


def code_result(params: dict) -> dict:
    """The chosen code and all its metrics (``measure``), cached."""
    return memo(_code_result, params)


def _compare_result(n: int, k: int, dcs: int, seed: int, traffic: str, d: int | None) -> dict:
    return compare(n, k, dcs, seed=seed, traffic=traffic, d=d, budget=PAGE_BUDGET,
                   tolerance_budget=PAGE_TOLERANCE_BUDGET, max_schemes=PAGE_SCHEMES)


def compare_result(params: dict) -> dict:
    """Every family at the page's (n, k, N) (default placements), cached."""
    return memo(_compare_result, params["n"], params["k"], params["dcs"], params["seed"], params["traffic"],
                params["d"])


# ---------------------------------------------------------------- layout
def _int_or_default(values: dict, key: str):
    try:
        return int(values[key])
    except (TypeError, ValueError):
        return int(DEFAULTS[key]) if DEFAULTS[key] else None


def layout(scenario: Scenario) -> html.Div:
    """The page with the scenario's erasure parameters (n, k, dcs, code, traffic, d, seed, placement)."""
    v = {key: str(val) if val is not None else "" for key, val in page_params(scenario, PAGE, DEFAULTS).items()}
    code = v["code"] if v["code"] in FAMILIES else DEFAULTS["code"]
    traffic = v["traffic"] if v["traffic"] in TRAFFIC else DEFAULTS["traffic"]
    sidebar = html.Div(className="sidebar", children=[html.Details(open=True, className="panel", children=[
        html.Summary("Stripe and code"),
        field("n (coded blocks)", dcc.Input(id=ids.ERA_N, type="number", debounce=True,
                                             value=_int_or_default(v, "n"))),
        field("k (data blocks)", dcc.Input(id=ids.ERA_K, type="number", debounce=True,
                                            value=_int_or_default(v, "k"))),
        field("N (data centres)", dcc.Input(id=ids.ERA_DCS, type="number", debounce=True,
                                             value=_int_or_default(v, "dcs"))),
        field("code", dcc.Dropdown(id=ids.ERA_CODE, clearable=False, className="grow", value=code,
                                    options=[{"label": name, "value": key} for key, name in FAMILY_NAMES.items()])),
        html.Div(className="row", children=[html.Label("count cross-DC traffic as", className="label"),
                                            dcc.RadioItems(id=ids.ERA_TRAFFIC, value=traffic, options=[
                                                {"label": label, "value": key}
                                                for key, label in TRAFFIC_LABELS.items()])]),
        field("D (FMEL: DC failures)", dcc.Input(id=ids.ERA_D, type="number", debounce=True,
                                                  value=_int_or_default(v, "d"), placeholder="most possible")),
        field("seed (FMEL)", dcc.Input(id=ids.ERA_SEED, type="number", debounce=True,
                                        value=_int_or_default(v, "seed"))),
        field("placement", dcc.Input(id=ids.ERA_PLACEMENT, value=v["placement"], debounce=True,
                                      placeholder="DC per block, e.g. 0,0,0,1,1,1,2,2,2")),
        html.Div(id=ids.ERA_MESSAGE, className="message", role="alert"),
        html.P(className="info", children=(
            "A stripe of k data blocks is encoded into n blocks y = x·G over GF(2⁸) and spread over N data "
            "centres. Rebuilding a lost block reads its repair group: blocks in its own DC are free, every block "
            "read from another DC is cross-DC traffic — or, if each remote DC first combines its blocks, one "
            "block per remote DC (the model under which the paper's T̄ = 0.67 for FMEL(9,5) holds).")),
        html.P(className="info", children=(
            f"Limits: n ≤ {MAX_BLOCKS}, N ≤ {MAX_DCS} — the repair groups and fault tolerances are exact "
            "enumerations, and the FMEL search tries schemes one by one.")),
    ])])
    main = html.Div(className="main", children=[
        dcc.Store(id=ids.ERA_PARAMS), dcc.Store(id=ids.ERA_VIEW, data=EMPTY_VIEW),
        html.Div(className="panel", children=[
            dcc.Graph(id=ids.ERA_DC_FIG, config=GRAPH_CONFIG, figure=empty_figure("Building the code…")),
            html.Div(id=ids.ERA_STATUS, className="flag", role="status"),
            html.Button("Restore every DC", id=ids.ERA_RESTORE, n_clicks=0),
        ]),
        html.Div(className="pair", children=[
            html.Div(id=ids.ERA_SUMMARY, className="table-box"),
            html.Div(id=ids.ERA_SCHEME, className="table-box"),
        ]),
        html.Div(className="panel", children=[
            html.H3("Every code family at the same n, k, N (each on its default placement)"),
            dcc.Graph(id=ids.ERA_COMPARE, config=GRAPH_CONFIG, figure=empty_figure("Comparing…")),
            html.Div(id=ids.ERA_COMPARE_TABLE),
        ]),
        html.Div(className="panel", children=dcc.Graph(id=ids.ERA_MATRIX, config=GRAPH_CONFIG,
                                                       figure=empty_figure("Generator matrix"))),
    ])
    return html.Div(className="page erasure-page", children=[html.Div(className="columns", children=[sidebar, main])])


# ---------------------------------------------------------------- pure views
def _num(value, digits: int = 2) -> str:
    if value is None:
        return "—"
    return f"{value:.{digits}f}" if isinstance(value, float) and value != int(value) else f"{value:g}"


def _tolerance(row: dict) -> str:
    if row.get("block_tolerance_exact", True):
        return str(row["block_failures_tolerated"])
    return f"≥ {row['block_failures_tolerated']} (≤ {row.get('block_tolerance_upper', '?')})"


def summary_view(result: dict, traffic: str) -> html.Div:
    """This code's headline numbers."""
    time_key = "repair_time_ms_per_mb" if traffic == "blocks" else "repair_time_ms_per_mb_aggregated"
    rows = [("T̄, every remote block read", _num(result["mean_traffic"], 3)),
            ("T̄, one block per remote DC", _num(result["mean_traffic_aggregated"], 3)),
            (f"repair time t̄ (ms/MB, {TRAFFIC_LABELS[traffic]})", _num(result[time_key], 1)),
            ("DC failures survived (D)", str(result["dc_failures_survived"])),
            ("block failures tolerated", _tolerance(result)),
            ("storage overhead n/k", _num(result["overhead"], 3)),
            ("data blocks (systematic)", ", ".join(f"y{i}" for i in result["data_blocks"]) or "—")]
    note = "" if result["exact"] else "Some searches ran out of budget: their numbers are bounds (see ≥)."
    return html.Div([html.H3(f"{result['name']}: n = {result['n']}, k = {result['k']}, N = {result['dcs']}"),
                     html.Table(className="summary", children=html.Tbody(
                         [html.Tr([html.Td(a), html.Td(b)]) for a, b in rows])),
                     html.P(note, className="info")])


def scheme_view(result: dict) -> html.Div:
    """The FMEL search's scheme, lower bound and counts (or what the family is)."""
    search = result.get("search")
    if not search:
        what = {"rs": "Systematic Reed–Solomon from a Cauchy matrix: MDS, any k blocks rebuild the stripe.",
                "lrc": "Azure-style LRC: each local group (its data and an XOR parity) kept in one DC, global "
                       "parities where there is room.",
                "replication": "Every data block stored n/k times, copy c of the stripe in DC c mod N."}
        return html.Div([html.H3("The code"), html.P(what.get(result["code"], ""), className="info")])
    bound = search["lower_bound"]
    stats = search["stats"]
    met = "meets it ✓" if search["meets_lower_bound"] else "does not reach it"
    return html.Div([
        html.H3(f"FMEL search: scheme found (D = {search['D']}, counting {TRAFFIC_LABELS[search['traffic']]})"),
        html.Ul([html.Li(line) for line in search["scheme"]["description"]]),
        html.P(f"Lower bound on T̄: {_num(bound['mean'], 3)} (placement {', '.join(map(str, bound['sizes']))}); "
               f"the code {met}." if bound else "No lower bound.", className="info"),
        html.P(f"{stats['schemes']} schemes tried, {stats['pattern_rejected']} rejected by the rank pattern filter, "
               f"{stats['trials']} random trials, {stats['constructed']} codes built, {stats['seconds']:.2f} s.",
               className="info")])


def compare_table(out: dict) -> html.Div:
    """Every family's numbers, FMEL's reduction over each, and the paper's claim beside."""
    traffic = out["traffic"]
    head = ["code", "T̄ per block", "T̄ per DC", "t̄ (ms/MB)", "D", "block failures", "n/k",
            "FMEL's T̄ reduction", "at the same D"]
    time_key = "repair_time_ms_per_mb" if traffic == "blocks" else "repair_time_ms_per_mb_aggregated"
    body = []
    for family, row in out["codes"].items():
        if "error" in row:
            body.append(html.Tr([html.Td(FAMILY_NAMES[family]), html.Td(row["error"], colSpan=len(head) - 1)]))
            continue
        red = out["reductions_pct"].get(family, {}).get(traffic)
        same = out["reductions_at_same_D_pct"].get(family, {})
        body.append(html.Tr([
            html.Td(row["name"]), html.Td(_num(row["mean_traffic"], 3)),
            html.Td(_num(row["mean_traffic_aggregated"], 3)),
            html.Td(_num(row[time_key], 1)), html.Td(str(row["dc_failures_survived"])), html.Td(_tolerance(row)),
            html.Td(_num(row["overhead"], 2)), html.Td("—" if family == "fmel" else _pct(red)),
            html.Td("—" if family == "fmel" else f"{_pct(same.get('reduction'))} (D = {same.get('D')})")]))
    for row in out["paper"]["table2"]:
        body.append(html.Tr(className="chosen", children=[
            html.Td(f"paper: {row['label']}"), html.Td(_num(row["mean_traffic"], 2)), html.Td(""),
            html.Td(_num(row["repair_time_ms_per_mb"], 1)), html.Td(str(row["D"])), html.Td(f"d = {row['d']}"),
            html.Td(_num(row["overhead"], 2)), html.Td(""), html.Td("")]))
    low, high = PAPER_REDUCTION
    reds = [f"{FAMILY_NAMES[f]} {_pct(r.get(traffic))}" for f, r in out["reductions_pct"].items()]
    sentence = (f"Paper: FMEL's codes have {low}–{high} % less cross-DC repair traffic than several common codes. "
                f"Here ({TRAFFIC_LABELS[traffic]}), FMEL's T̄ is lower than: {', '.join(reds) or 'nothing to compare'}"
                ". A negative value means FMEL's T̄ is higher — usually because FMEL is asked to survive more DC "
                "failures than that code; the last column asks FMEL for the same D.")
    return html.Div([html.Table(className="summary compare", children=[
        html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(body)]), html.P(sentence, className="info")])


def _pct(value) -> str:
    return "—" if value is None else f"{'−' if value < 0 else ''}{abs(value):.1f} %"


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    app.callback(
        Output(ids.ERA_PARAMS, "data"), Output(ids.ERA_MESSAGE, "children"), store_output(),
        Input(ids.ERA_N, "value"), Input(ids.ERA_K, "value"), Input(ids.ERA_DCS, "value"),
        Input(ids.ERA_CODE, "value"), Input(ids.ERA_TRAFFIC, "value"), Input(ids.ERA_D, "value"),
        Input(ids.ERA_SEED, "value"), Input(ids.ERA_PLACEMENT, "value"), State(SCENARIO, "data"),
        prevent_initial_call="initial_duplicate",
    )(build)
    app.callback(
        Output(ids.ERA_VIEW, "data"),
        Input(ids.ERA_DC_FIG, "clickData"), Input(ids.ERA_RESTORE, "n_clicks"), Input(ids.ERA_PARAMS, "data"),
        State(ids.ERA_VIEW, "data"),
    )(update_view)
    app.callback(
        Output(ids.ERA_DC_FIG, "figure"), Output(ids.ERA_STATUS, "children"), Output(ids.ERA_STATUS, "className"),
        Input(ids.ERA_PARAMS, "data"), Input(ids.ERA_VIEW, "data"),
    )(render_dcs)
    app.callback(
        Output(ids.ERA_SUMMARY, "children"), Output(ids.ERA_SCHEME, "children"), Output(ids.ERA_MATRIX, "figure"),
        Input(ids.ERA_PARAMS, "data"),
    )(render_code)
    app.callback(
        Output(ids.ERA_COMPARE, "figure"), Output(ids.ERA_COMPARE_TABLE, "children"), Input(ids.ERA_PARAMS, "data"),
    )(render_compare)


def build(n, k, dcs, code, traffic, d, seed, placement, scenario=None):
    """Check the controls and build the code (cached); a problem becomes a message, the last result stays.

    The controls' values become the scenario's erasure parameters (shared link, reload).
    """
    try:
        params = read_params(n, k, dcs, code, traffic, d, seed, placement)
        code_result(params)
    except VizcollError as exc:
        return no_update, f"⚠ {exc}", no_update
    values = {"n": n, "k": k, "dcs": dcs, "code": code, "traffic": traffic, "d": d, "seed": seed,
              "placement": (placement or "").strip()}
    return params, "", remembered(scenario, PAGE, values)


def update_view(click, _restore, params, view):
    """A click on a block selects it; on a DC's square fails or restores that DC; new parameters or the
    restore button clear the failures (and the selection, with new parameters)."""
    view = dict(view or EMPTY_VIEW)
    trigger = ctx.triggered_id
    if trigger == ids.ERA_PARAMS:
        return dict(EMPTY_VIEW)
    if trigger == ids.ERA_RESTORE:
        return view | {"failed": []}
    points = (click or {}).get("points") or []
    data = points[0].get("customdata") if points else None
    if not params or not isinstance(data, list) or len(data) != 2:
        return no_update
    what, index = data[0], int(data[1])
    if what == "block" and 0 <= index < params["n"]:
        return view | {"block": index}
    if what == "dc" and 0 <= index < params["dcs"]:
        failed = set(view.get("failed", []))
        failed ^= {index}
        return view | {"failed": sorted(failed)}
    return no_update  # (n/a: a click outside any block or DC square)


def render_dcs(params, view):
    """The DC figure, and what the selection and the failed DCs mean."""
    if not params:
        return empty_figure("Choose n, k and N."), "", "flag"
    result = code_result(params)
    view = view or EMPTY_VIEW
    block = view.get("block")
    block = block if block is not None and 0 <= block < params["n"] else None
    failed = [z for z in view.get("failed", []) if 0 <= z < params["dcs"]]
    failure = dc_failure(Metrics.from_dict(result).code, failed)
    lines = []
    if block is not None:
        lines.append(repair_text(result, block, params["traffic"])
                     + (" (A repair group is for this block lost alone; with DCs down, see below.)" if failed else ""))
    if failed:
        lines.append(failure_text(failure))
    if not lines:
        lines.append("Click a block to see its repair group; click a DC's square (top left of its box) to fail it.")
    warn = bool(failed) and not failure["survives"]
    figure = dc_figure(result, params["traffic"], block, failed, failure)
    return figure, "\n".join(lines), "flag warn" if warn else "flag"


def render_code(params):
    if not params:
        return no_update, no_update, no_update
    result = code_result(params)
    return summary_view(result, params["traffic"]), scheme_view(result), matrix_figure(result)


def render_compare(params):
    if not params:
        return no_update, no_update
    out = compare_result(params)
    paper = paper_rows(params["n"], params["k"], params["dcs"])
    return compare_figure(out["codes"], paper, params["code"], params["traffic"]), compare_table(out)
