"""The barrier page: barrier messages on a grid with broken links, and DLCT adjusting its pattern (seed 002).

A ``rows x cols`` grid of processors (``mesh(..., hosts=0)``, 4 or 8
neighbours) runs the paper's test program (barriers with work between them)
with one barrier algorithm; clicking a link on the canvas breaks or repairs it
(or "Break at random" fills the broken-link list with a share of the links,
seeded, keeping the grid connected). The player replays the run hop by hop:
Gather and Release messages on their links, detours around broken links, the
root's judgement and the ``K`` it sends down, and every DLCT ID changing on its
node when the node applies ``round(K)``. The page animates grids up to
16 x 16 (the ``barrier`` command runs larger ones).

Below: LCT vs BST on the numbered grid (the Gather links before and after
``round(K)`` and their update quantity: the paper's Fig. 3), run time vs break
rate and vs size for every algorithm (a small cached sweep, or the full one),
and the UQ(LCT) − UQ(BST) histogram (Fig. 5).
"""

from __future__ import annotations

import math
from urllib.parse import parse_qsl, urlencode

import dash_cytoscape as cyto
import plotly.graph_objects as go
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.barrier.algorithms import ALGOS, JUDGES, LEGEND, run_barriers
from vizcoll.barrier.benchmark import RATES, SIZES, sweep
from vizcoll.barrier.network import break_links
from vizcoll.barrier.structures import NUMBERINGS, adjust, numbering, pattern_links
from vizcoll.barrier.uq import uq_difference_histogram, uq_round
from vizcoll.errors import VizcollError
from vizcoll.topology.generators import mesh
from vizcoll.topology.model import Topology
from vizcoll.ui import ids
from vizcoll.ui.cache import memo
from vizcoll.ui.calls import parse_broken
from vizcoll.ui.components.player import pid, player, register_player, timeline_at
from vizcoll.ui.figures.barrier import (
    ADJUST_COLOUR,
    MESSAGE_COLOURS,
    NODE,
    ROOT_COLOUR,
    STATE_COLOURS,
    grid_elements,
    grid_stylesheet,
    message_kind,
    numbering_figure,
    range_figure,
    step_stylesheet,
    sweep_figure,
    uq_histogram_figure,
    uq_text,
)
from vizcoll.ui.forms import number

__all__ = ["layout", "register", "DEFAULTS", "MAX_SIDE", "UQ_SIDE"]

# a 4x4 grid with 8 neighbours: the model that reproduces the paper's Fig. 3 (UQ 73.1% / 18.2% for round(1))
DEFAULTS = {"size": "4x4", "neighbors": "8", "broken": "", "rate": "0.1", "seed": "0", "algo": "dlct",
            "judge": "model", "barriers": "3", "compute": "0.5", "k": "1", "numbering": "s-curve"}
MAX_SIDE = 16  # the page animates grids up to 16 x 16
UQ_SIDE = 8  # the LCT vs BST view draws the page's grid up to 8 x 8 (else the paper's 4 x 4)
QUICK = {"sizes": [4, 8, 12], "rates": [0.0, 0.2, 0.4], "seeds": 1}
FULL = {"sizes": list(SIZES), "rates": list(RATES), "seeds": 1}
QUICK_MODE, FULL_MODE = "quick", "full"
ALGO_NAMES = {"ms": "MS (master–slave)", "tree": "Tree (minimum spanning tree)", "tournament": "Tournament",
              "dissemination": "Dissemination", "dissemination+tree": "Dissemination + Tree",
              "dlct": "DLCT", "dlct+ms": "DLCT + MS (ID1)", "dlct+tree": "DLCT + Tree (ID2)"}
GRAPH_CONFIG = {"toImageButtonOptions": {"format": "svg", "filename": "vizcoll-barrier"}}


# ---------------------------------------------------------------- parameters


def parse_size(text) -> tuple[int, int]:
    """``"4x4"``, ``"4"`` or ``"3x5"`` -> (rows, cols), each 1..MAX_SIDE and at least 2 processors."""
    parts = str(text or "").lower().replace("×", "x").split("x")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        raise VizcollError(f"grid size must be ROWSxCOLS like 4x4, got {text!r}") from None
    dims = dims * 2 if len(dims) == 1 else dims
    if len(dims) != 2 or min(dims) < 1 or dims[0] * dims[1] < 2:
        raise VizcollError(f"grid size must be ROWSxCOLS with at least 2 processors, got {text!r}")
    if max(dims) > MAX_SIDE:
        raise VizcollError(f"the page animates grids up to {MAX_SIDE}x{MAX_SIDE}; run larger ones with "
                           "python -m vizcoll barrier --size ...")
    return dims[0], dims[1]


def read_params(size, neighbors, broken, rate, seed, algo, judge, barriers, compute) -> dict:
    """Checked, canonical page parameters; raises VizcollError with a message for the page."""
    rows, cols = parse_size(size)
    if algo not in ALGOS:
        raise VizcollError(f"unknown barrier algorithm {algo!r}; choose one of {', '.join(ALGOS)}")
    if judge not in JUDGES:
        raise VizcollError(f"unknown judge {judge!r}; choose one of {', '.join(JUDGES)}")
    params = {"rows": rows, "cols": cols, "neighbors": number(neighbors, "neighbours", int),
              "broken": parse_broken(broken) if isinstance(broken, str) or broken is None else sorted(set(broken)),
              "rate": number(rate, "break rate", float, 0, 1), "seed": number(seed, "seed", int, 0),
              "algo": algo, "judge": judge, "barriers": number(barriers, "barriers", int, 1, 20),
              "compute": number(compute, "compute time", float, 0, 60)}
    if params["neighbors"] not in (4, 8):
        raise VizcollError(f"neighbours must be 4 or 8, got {params['neighbors']}")
    grid_of(params)  # checks the link ids
    return params


def grid_of(params: dict) -> Topology:
    """The page's grid (processors only) with its broken links."""
    topo = mesh((params["rows"], params["cols"]), neighbors=params["neighbors"], hosts=0)
    known = set(topo.link_id.tolist())
    for lid in params["broken"]:
        if lid not in known:
            raise VizcollError(f"link {lid} is not in the {params['rows']}x{params['cols']} grid with "
                               f"{params['neighbors']} neighbours (its links are 0–{topo.n_links - 1})")
        topo.set_broken(lid)
    return topo


def random_broken(params: dict) -> list[int]:
    """``rate`` of the grid's links broken at random (seeded), skipping breaks that would cut the grid."""
    topo = mesh((params["rows"], params["cols"]), neighbors=params["neighbors"], hosts=0)
    return sorted(break_links(topo, params["rate"], params["seed"], keep_connected=True))


def toggle(broken: list[int], link: int) -> list[int]:
    """The broken-link list with ``link`` broken if it was live, repaired if it was broken."""
    return sorted(set(broken) ^ {int(link)})


def share_query(params: dict, k=None, numbering_kind=None) -> str:
    """The URL query that reopens this view."""
    values = {"size": f"{params['rows']}x{params['cols']}", "neighbors": params["neighbors"],
              "broken": ",".join(map(str, params["broken"])), "rate": f"{params['rate']:g}", "seed": params["seed"],
              "algo": params["algo"], "judge": params["judge"], "barriers": params["barriers"],
              "compute": f"{params['compute']:g}"}
    if k is not None:
        values["k"] = k
    if numbering_kind:
        values["numbering"] = numbering_kind
    return urlencode(values)


# ---------------------------------------------------------------- engine calls (cached)
def _run(params: dict) -> dict:
    timeline, figures = run_barriers(grid_of(params), params["algo"], barriers=params["barriers"],
                                     compute=params["compute"], seed=params["seed"], judge=params["judge"])
    return {"timeline": timeline.to_dict(), "figures": figures}


def run_of(params: dict) -> dict:
    """The run's timeline (as a dict) and figures."""
    return memo(_run, params)


def _sweep(mode: str, neighbors: int) -> dict:
    spec = FULL if mode == FULL_MODE else QUICK
    return sweep(spec["sizes"], spec["rates"], ALGOS, spec["seeds"], neighbors)


def sweep_of(mode: str, neighbors: int) -> dict:
    return memo(_sweep, mode, neighbors)


def _uq(rows: int, cols: int, neighbors: int, k: int, numbering_kind: str) -> dict:
    ids_before = numbering(numbering_kind, rows, cols)
    ids_after = adjust(ids_before, k)
    out = {"before": ids_before.tolist(), "after": ids_after.tolist()}
    for structure in ("lct", "bst"):
        a = pattern_links(structure, ids_before, neighbors)
        b = pattern_links(structure, ids_after, neighbors)
        out[structure] = {"uq": uq_round(structure, ids_before, k, neighbors),
                          "before": sorted([list(map(list, x)) for x in a]),
                          "after": sorted([list(map(list, x)) for x in b])}
    return out


def uq_of(rows: int, cols: int, neighbors: int, k: int, numbering_kind: str) -> dict:
    """IDs before/after ``round(k)``, both structures' Gather link sets and ``uq_round``."""
    return memo(_uq, rows, cols, neighbors, k, numbering_kind)


def histogram_of(side: int, neighbors: int) -> dict:
    return memo(uq_difference_histogram, side, neighbors)


# ---------------------------------------------------------------- layout
def _field(label: str, component) -> html.Div:
    return html.Div(className="row", children=[html.Label(label, className="label"), component])


def _number_input(id_: str, value: str, default: str, **kw) -> dcc.Input:
    """A number box showing ``value`` (``default`` if ``value`` is not a finite number)."""
    for text in (value, default):
        try:
            parsed = float(text) if any(c in text.lower() for c in ".e") else int(text)
        except ValueError:
            continue
        if math.isfinite(parsed):
            return dcc.Input(id=id_, type="number", value=parsed, debounce=True, **kw)
    raise ValueError(default)


def layout(query: str = "") -> html.Div:
    """The page; a URL query (size, neighbors, broken, rate, seed, algo, judge, barriers, compute, k, numbering)
    pre-fills the controls."""
    values = DEFAULTS | {k: v for k, v in parse_qsl(query.lstrip("?")) if k in DEFAULTS}
    num = {key: _number_input(id_, values[key], DEFAULTS[key], **kw) for key, id_, kw in (
        ("rate", ids.BAR_RATE, {"min": 0, "max": 1, "step": 0.05}), ("seed", ids.BAR_SEED, {"min": 0}),
        ("barriers", ids.BAR_BARRIERS, {"min": 1, "max": 20}), ("compute", ids.BAR_COMPUTE, {"min": 0, "step": 0.1}),
        ("k", ids.BAR_K, {"style": {"width": 90, "flex": "none"}}))}
    pick = lambda key, allowed: values[key] if values[key] in allowed else DEFAULTS[key]  # noqa: E731
    sidebar = html.Div(className="sidebar", children=[
        html.Details(open=True, className="panel", children=[
            html.Summary("Grid"),
            _field("size (rows x cols)", dcc.Input(id=ids.BAR_SIZE, value=values["size"], debounce=True,
                                                   placeholder=f"4x4 (up to {MAX_SIDE}x{MAX_SIDE})")),
            _field("neighbours", dcc.RadioItems(id=ids.BAR_NEIGHBORS, options=[4, 8], inline=True,
                                                value=int(pick("neighbors", ("4", "8"))))),
            _field("broken links", dcc.Input(id=ids.BAR_BROKEN, value=values["broken"], debounce=True,
                                             placeholder="click links, or ids: 3, 17")),
            html.Div(className="row", children=[html.Label("break rate"), num["rate"], html.Label("seed"),
                                                num["seed"]]),
            html.Div(className="buttons", children=[
                html.Button("Break at random", id=ids.BAR_RANDOM, n_clicks=0),
                html.Button("Repair all", id=ids.BAR_REPAIR, n_clicks=0)]),
        ]),
        html.Details(open=True, className="panel", children=[
            html.Summary("Barrier"),
            _field("algorithm", dcc.Dropdown(id=ids.BAR_ALGO, clearable=False, className="grow",
                                             options=[{"label": ALGO_NAMES[a], "value": a} for a in ALGOS],
                                             value=pick("algo", ALGOS))),
            _field("DLCT judge", dcc.Dropdown(id=ids.BAR_JUDGE, options=list(JUDGES), clearable=False,
                                              className="grow", value=pick("judge", JUDGES))),
            _field("barriers", num["barriers"]),
            _field("work between (s)", num["compute"]),
        ]),
        html.Button("Run", id=ids.BAR_RUN, n_clicks=0),
        html.Div(id=ids.BAR_MESSAGE, className="message", role="alert"),
        html.P(className="info", children=(
            "Click a link on the grid to break it (red, dashed) and click again to repair it; the run starts at "
            "once. Break at random breaks that share of the links (seeded), never cutting the grid apart. "
            f"The page animates grids up to {MAX_SIDE}×{MAX_SIDE}. Messages go to the neighbour closest to their "
            "destination (the paper's rule); when that would loop they detour along a shortest live path.")),
        html.Div(className="buttons", children=[
            html.Button("Download PNG", id=ids.BAR_PNG, n_clicks=0),
            html.A("Link to this view", id=ids.BAR_SHARE, href="#")]),
    ])
    main = html.Div(className="main", children=[
        dcc.Store(id=ids.BAR_PARAMS),
        html.Div(className="panel player-panel", children=[
            html.H3("Gather and Release, hop by hop (the number on a node is its DLCT ID)"),
            cyto.Cytoscape(id=ids.BAR_CANVAS, elements=[], layout={"name": "preset", "fit": True, "padding": 20},
                           stylesheet=grid_stylesheet(), style={"width": "100%", "height": "520px"},
                           minZoom=0.1, maxZoom=4, boxSelectionEnabled=False, autoungrabify=True,
                           autounselectify=True),
            _legend(),
            player(ids.BAR_PLAYER),
            html.Div(id=ids.BAR_FLAG, className="flag", role="status"),
            html.Div(id=ids.BAR_SUMMARY, className="bar-summary"),
        ]),
        html.Div(className="panel", children=[
            html.H3("LCT vs BST: the Gather links before and after round(K) (the paper's Fig. 3)"),
            html.Div(className="row", children=[
                html.Label("K"), num["k"],
                html.Label("numbering", className="bar-gap"),
                dcc.Dropdown(id=ids.BAR_NUMBERING, options=list(NUMBERINGS), clearable=False,
                             value=pick("numbering", NUMBERINGS), style={"width": 160})]),
            html.Div(id=ids.BAR_UQ_INFO, className="info"),
        ]),
        html.Div(className="pair", children=[dcc.Graph(id=ids.BAR_UQ_LCT, config=GRAPH_CONFIG),
                                             dcc.Graph(id=ids.BAR_UQ_BST, config=GRAPH_CONFIG)]),
        html.Div(className="panel", children=[
            html.H3("Run time of every algorithm (the paper's Fig. 6 and 7)"),
            dcc.Store(id=ids.BAR_SWEEP),
            _field("sweep", dcc.RadioItems(id=ids.BAR_SWEEP_MODE, value=QUICK_MODE, options=[
                {"label": "quick: 4×4 to 12×12, 0/20/40% broken, 1 seed (a few seconds)", "value": QUICK_MODE},
                {"label": "full: 4–20 × 0–50% broken, 1 seed (about 25 s)", "value": FULL_MODE}])),
            html.Div(className="row", children=[
                html.Label("grid of the rate chart"),
                dcc.Dropdown(id=ids.BAR_SWEEP_SIZE, clearable=False, style={"width": 120}),
                html.Label("break rate of the size chart", className="bar-gap"),
                dcc.Dropdown(id=ids.BAR_SWEEP_RATE, clearable=False, style={"width": 120})]),
            html.Div(id=ids.BAR_SWEEP_INFO, className="info"),
        ]),
        dcc.Loading(type="dot", children=html.Div(className="pair", children=[
            dcc.Graph(id=ids.BAR_VS_RATE, config=GRAPH_CONFIG), dcc.Graph(id=ids.BAR_VS_SIZE, config=GRAPH_CONFIG)])),
        html.Div(className="pair", children=[dcc.Graph(id=ids.BAR_RANGES, config=GRAPH_CONFIG)]),
        html.Div(className="pair", children=[dcc.Graph(id=ids.BAR_HIST, config=GRAPH_CONFIG)]),
    ])
    return html.Div(className="page barrier-page", children=[html.Div(className="columns", children=[sidebar, main])])


def _legend() -> html.Div:
    rings = [("waiting", "waits for its Gathers"), ("gathered", "sent its Gather, waits for the Release"),
             ("released", "got the Release"), ("left", "left the last barrier"), ("stuck", "stuck")]
    return html.Div(id=ids.BAR_LEGEND, className="legend", children=[
        html.Span([html.Span(className="swatch legend-root", style={"background": NODE, "borderColor": NODE}),
                   "working between barriers (no ring)"], title=LEGEND["computing"]),
        *[html.Span([html.Span(className="swatch ring", style={"borderColor": STATE_COLOURS[s]}), label],
                    title=LEGEND[s]) for s, label in rings],
        html.Span([html.Span(className="swatch legend-root", style={"background": ROOT_COLOUR}), "root (ID 0)"]),
        html.Span([html.Span(className="swatch legend-root", style={"background": ADJUST_COLOUR,
                                                                    "borderColor": ADJUST_COLOUR}),
                   "applies round(K) now"]),
        html.Span([html.Span(className="swatch bar-line", style={"background": MESSAGE_COLOURS["gather"]}),
                   "Gather hop"]),
        html.Span([html.Span(className="swatch bar-line", style={"background": MESSAGE_COLOURS["release"]}),
                   "Release hop (carries K)"]),
        html.Span([html.Span(className="swatch legend-broken"), "broken link"])])


# ---------------------------------------------------------------- pure views
def _ms(seconds) -> str:
    return "—" if seconds is None else f"{seconds * 1000:,.1f} ms"


def summary_rows(figures: dict) -> list[tuple[str, str]]:
    """The run's figures as (what, value) rows."""
    done = figures["completed"]
    rows = [("run time", "did not finish" if not done else f"{figures['time']:.4f} s"),
            ("run time − work (synchronisation)", _ms(figures["sync_time"])),
            ("messages", f"{figures['messages']:,}"), ("hops", f"{figures['hops']:,}"),
            ("detours", f"{figures['detours']:,}"), ("dead ends", f"{figures['dead_ends']:,}"),
            ("most messages on one link", f"{figures['max_link_load']:,}"),
            ("early Gathers (queued)", f"{figures['early_gathers']:,}")]
    if "k" in figures:
        ks = ["/".join("—" if k is None else str(k) for k in per_block) for per_block in figures["k"]]
        rows += [("adjustments (round(K), K ≠ 0)", f"{figures['adjustments']:,}"),
                 ("K per barrier" + (f" (per block of {figures['blocks']})" if figures["blocks"] > 1 else ""),
                  ", ".join(ks))]
    return rows


def summary_table(figures: dict) -> html.Table:
    return html.Table(className="summary", children=[html.Tbody(
        [html.Tr([html.Td(what), html.Td(value)]) for what, value in summary_rows(figures)])])


def judgement_text(figures: dict, limit: int = 6) -> str:
    """What the DLCT roots decided, barrier by barrier; the failure if the program could not finish."""
    if figures["failure"]:
        return f"⚠ The program cannot finish: {figures['failure']}."
    judged = [j for j in figures.get("judged", []) if j["k"] or j["gathered"] > j["ideal"]]
    if "judged" not in figures:
        return ""
    if not judged:
        return ("No harmful break: every root gathered the ideal total path length, so K = 0 and the IDs stay. "
                "Click a link to break it.")
    lines = [f"Barrier {j['barrier'] + 1}" + (f", block {j['block']}" if figures["blocks"] > 1 else "")
             + f": root {j['root']} gathered a total path length of {j['gathered']} (ideal {j['ideal']:g}) → "
             + (f"round({j['k']}): every ID of the block shifts by {j['k']}." if j["k"] else
                "no shift does better, round(0).") for j in judged[:limit]]
    if len(judged) > limit:
        lines.append(f"… and {len(judged) - limit} more")
    return "\n".join(lines)


def uq_view(params: dict, k, numbering_kind: str) -> tuple[go.Figure, go.Figure, str]:
    """The two structures' Gather links before/after ``round(k)`` and their UQ; raises VizcollError on bad K."""
    k = number(k, "K", int)
    if numbering_kind not in NUMBERINGS:
        raise VizcollError(f"unknown numbering {numbering_kind!r}")
    rows, cols = params["rows"], params["cols"]
    if max(rows, cols) > UQ_SIDE:
        rows = cols = 4
    result = uq_of(rows, cols, params["neighbors"], k, numbering_kind)
    as_set = lambda links: {tuple(tuple(c) for c in x) for x in links}  # noqa: E731
    figs = [numbering_figure(name, result["before"], result["after"], as_set(result[s]["before"]),
                             as_set(result[s]["after"]), k) for s, name in (("lct", "LCT"), ("bst", "BST"))]
    lct, bst = result["lct"]["uq"], result["bst"]["uq"]
    info = (f"{rows}×{cols} grid, {numbering_kind} numbering, {params['neighbors']} neighbours, round({k}) "
            f"(every ID becomes (ID + {k}) mod {rows * cols}). A = the links the Gather messages cross before, "
            f"B = after; UQ = 1 − |A ∩ B| / |A ∪ B|. LCT: {uq_text(lct['intersection'], lct['union'])}; "
            f"BST: {uq_text(bst['intersection'], bst['union'])}. LCT's subtrees are contiguous ID ranges, so a "
            "shift moves its messages onto other links: that is what lets DLCT steer around a broken link.")
    if (rows, cols, params["neighbors"], k, numbering_kind) == (4, 4, 8, 1, "s-curve"):
        info += " The paper (Fig. 3): UQ(LCT) = 73.1%, UQ(BST) = 18.2%."
    if (rows, cols) != (params["rows"], params["cols"]):
        info += f" (The view draws grids up to {UQ_SIDE}×{UQ_SIDE}: the paper's 4×4 here.)"
    return figs[0], figs[1], info


def histogram_side(params: dict) -> int:
    """The square grid of the UQ histogram: the page's grid if square and at most UQ_SIDE, else 4."""
    return params["rows"] if params["rows"] == params["cols"] and 2 <= params["rows"] <= UQ_SIDE else 4


def sweep_choices(result: dict) -> tuple[list, list]:
    sizes = list(dict.fromkeys(r["size"] for r in result["rows"]))
    rates = list(dict.fromkeys(r["rate"] for r in result["rows"]))
    return ([{"label": f"{s}×{s}", "value": s} for s in sizes],
            [{"label": f"{r:.0%}", "value": r} for r in rates])


def sweep_info(result: dict) -> str:
    claims = result["claims"].get("dlct_over_tree", {})
    pairs = claims.get("dlct+tree/tree@intact", {})
    worst = [(cell, ratio) for cell, ratio in pairs.items() if ratio is not None and not cell.endswith("@0")]
    text = ("Each point: the mean of the runs (3 barriers, 0.5 s of work between them) on grids with that share "
            "of links broken at random, never cut apart. tree = the minimum spanning tree (links weighted by "
            "length) of the live grid (rebuilt after the breaks), tree@intact = the same tree built before they "
            "broke (a fixed pattern that detours).")
    if worst:
        text += (" Synchronisation time of DLCT + Tree (ID2) ÷ tree@intact with breaks (size@rate): "
                 f"{', '.join(f'{c}: {r:.2f}' for c, r in worst)} (below 1 = DLCT faster; the paper reports "
                 "DLCT 30–50% faster than Tree).")
    return text


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_player(app, ids.BAR_PLAYER)
    controls = [State(i, "value") for i in (ids.BAR_SIZE, ids.BAR_NEIGHBORS, ids.BAR_BROKEN, ids.BAR_RATE,
                                            ids.BAR_SEED, ids.BAR_ALGO, ids.BAR_JUDGE, ids.BAR_BARRIERS,
                                            ids.BAR_COMPUTE)]
    app.callback(
        Output(ids.BAR_PARAMS, "data"), Output(ids.BAR_MESSAGE, "children"), Output(ids.BAR_BROKEN, "value"),
        Input(ids.BAR_RUN, "n_clicks"), Input(ids.BAR_CANVAS, "tapEdge"), Input(ids.BAR_RANDOM, "n_clicks"),
        Input(ids.BAR_REPAIR, "n_clicks"), *controls,
    )(build)
    app.callback(
        Output(pid(ids.BAR_PLAYER, "timeline"), "data"), Output(ids.BAR_CANVAS, "elements"),
        Output(ids.BAR_SUMMARY, "children"), Output(ids.BAR_FLAG, "children"), Output(ids.BAR_FLAG, "className"),
        Input(ids.BAR_PARAMS, "data"),
    )(animate)
    app.callback(
        Output(ids.BAR_CANVAS, "stylesheet"),
        Input(pid(ids.BAR_PLAYER, "step"), "value"), Input(pid(ids.BAR_PLAYER, "timeline"), "data"),
        State(ids.BAR_PARAMS, "data"),
    )(render_step)
    app.callback(
        Output(ids.BAR_UQ_LCT, "figure"), Output(ids.BAR_UQ_BST, "figure"), Output(ids.BAR_UQ_INFO, "children"),
        Input(ids.BAR_PARAMS, "data"), Input(ids.BAR_K, "value"), Input(ids.BAR_NUMBERING, "value"),
    )(render_uq)
    app.callback(
        Output(ids.BAR_SHARE, "href"),
        Input(ids.BAR_PARAMS, "data"), Input(ids.BAR_K, "value"), Input(ids.BAR_NUMBERING, "value"),
    )(share)
    app.callback(
        Output(ids.BAR_SWEEP, "data"), Output(ids.BAR_SWEEP_SIZE, "options"), Output(ids.BAR_SWEEP_SIZE, "value"),
        Output(ids.BAR_SWEEP_RATE, "options"), Output(ids.BAR_SWEEP_RATE, "value"),
        Output(ids.BAR_SWEEP_INFO, "children"),
        Input(ids.BAR_PARAMS, "data"), Input(ids.BAR_SWEEP_MODE, "value"),
        State(ids.BAR_SWEEP_SIZE, "value"), State(ids.BAR_SWEEP_RATE, "value"), State(ids.BAR_SWEEP, "data"),
    )(compute_sweep)
    app.callback(
        Output(ids.BAR_VS_RATE, "figure"), Output(ids.BAR_VS_SIZE, "figure"), Output(ids.BAR_RANGES, "figure"),
        Input(ids.BAR_SWEEP, "data"), Input(ids.BAR_SWEEP_SIZE, "value"), Input(ids.BAR_SWEEP_RATE, "value"),
    )(render_sweep)
    app.callback(Output(ids.BAR_HIST, "figure"), Input(ids.BAR_PARAMS, "data"))(render_histogram)
    app.callback(
        Output(ids.BAR_CANVAS, "generateImage"), Input(ids.BAR_PNG, "n_clicks"), prevent_initial_call=True,
    )(lambda _: {"type": "png", "action": "download", "filename": "vizcoll-barrier"})


def build(_run, tap_edge, _random, _repair, size, neighbors, broken, rate, seed, algo, judge, barriers, compute):
    """Check the controls, apply a clicked link / random breaks / repair, run (cached) and store the parameters."""
    trigger = ctx.triggered_id
    try:
        if trigger == ids.BAR_CANVAS and tap_edge:
            broken = toggle(parse_broken(broken), int(tap_edge["data"]["link"]))
        elif trigger == ids.BAR_REPAIR:
            broken = []
        params = read_params(size, neighbors, "" if trigger == ids.BAR_RANDOM else broken, rate, seed, algo,
                             judge, barriers, compute)
        if trigger == ids.BAR_RANDOM:
            params["broken"] = random_broken(params)
        run_of(params)
    except VizcollError as exc:
        return no_update, f"⚠ {exc}", no_update
    return params, "", ", ".join(map(str, params["broken"]))


def animate(params):
    """The run's timeline for the player, the grid, the figures and the roots' judgements."""
    if not params:
        return (no_update,) * 5
    run = run_of(params)
    figures = run["figures"]
    flag = judgement_text(figures)
    return (run["timeline"], grid_elements(grid_of(params)), summary_table(figures), flag,
            "flag warn" if flag.startswith("⚠") else "flag")


def render_step(step, timeline, params):
    """Stylesheet for one player step: states, DLCT IDs, this step's hops (Gather / Release) and adjustments."""
    sheet = grid_stylesheet()
    if not timeline or not params:
        return sheet
    tl, step = timeline_at(timeline, step)
    topo = grid_of(params)
    source = {int(lid): int(a) for lid, a in zip(topo.link_id.tolist(), topo.link_a.tolist(), strict=True)}
    hops = [{"link": lid, "src": e.src, "source": source[lid], "kind": message_kind(e.label)}
            for e in (tl.active_at(step) if step >= 0 else []) for lid in e.path_links if lid in source]
    state, idents = {}, {}
    for key, value in tl.state_at(step).items():
        entity = tl.entities.get(key)
        if entity is None:
            continue
        (idents if entity.get("kind") == "id" else state)[int(entity["node"])] = value
    changed = tl.changes_at(step) if step >= 0 else {}
    adjusted = [int(tl.entities[key]["node"]) for key in changed if tl.entities.get(key, {}).get("kind") == "id"]
    roots = [u for u, ident in idents.items() if ident == 0]
    return sheet + step_stylesheet(state, idents, adjusted, hops, roots)


def render_uq(params, k, numbering_kind):
    if not params:
        return no_update, no_update, no_update
    try:
        return uq_view(params, k, numbering_kind)
    except VizcollError as exc:
        return no_update, no_update, f"⚠ {exc}"


def share(params, k, numbering_kind):
    if not params:
        return no_update
    return "/barrier?" + share_query(params, k, numbering_kind)


def compute_sweep(params, mode, size, rate, current=None):
    """The sweep (cached) for the page's neighbourhood; the chart choices keep their value when still offered.

    Nothing changes (the charts stay) unless the neighbourhood or the sweep mode did.
    """
    mode = mode or QUICK_MODE
    if not params or (current and current.get("mode") == mode
                      and current["params"]["neighbors"] == params["neighbors"]):
        return (no_update,) * 6
    result = sweep_of(mode, params["neighbors"]) | {"mode": mode}
    sizes, rates = sweep_choices(result)
    size = size if size in [o["value"] for o in sizes] else sizes[-1]["value"]
    rate = rate if rate in [o["value"] for o in rates] else rates[-1]["value"]
    return result, sizes, size, rates, rate, sweep_info(result)


def render_sweep(result, size, rate):
    if not result or size is None or rate is None:
        return no_update, no_update, no_update
    return sweep_figure(result, "rate", size), sweep_figure(result, "size", rate), range_figure(result)


def render_histogram(params):
    if not params:
        return no_update
    side = histogram_side(params)
    return uq_histogram_figure(histogram_of(side, params["neighbors"]), paper=(side, params["neighbors"]) == (4, 8))
