"""The barrier page: barrier messages on the shared scenario's fabric, and DLCT adjusting its pattern (seed 002).

The page looks at the one shared :class:`~vizcoll.scenario.Scenario` (the
shell's store):

- **on a grid** (a 2-D mesh scenario, :func:`~vizcoll.barrier.is_grid`) the
  paper's grid model runs on the scenario's fabric with its broken links: the
  processors are the grid's switches, messages go to the neighbour closest to
  their destination, and every algorithm (DLCT included) can run. The page's
  grid presets (size up to 16 x 16, 4 or 8 neighbours) *replace* the
  scenario's fabric ("Use this grid", or changing the size of a grid);
- **on any other fabric** (fat tree, uploaded file...) the barrier's
  processes are the end nodes of the scenario's communicator ``comm`` (every
  end node when it has none), at most :data:`MAX_PROCESSES`; the algorithms
  that do not need a grid run over min-hop routes avoiding the broken links
  and are animated hop by hop on the fabric's drawing (fabrics up to
  :data:`ANIMATION_LIMIT` nodes; larger ones run without the animation). DLCT
  needs the grid's numbering: the page says so in one line.

Clicking a link on the drawing breaks or repairs it *in the scenario*
(``scenario.toggled(label)``), so the badge and every page follow; "Break at
random" and "Repair all" write the scenario's breaks too. The page's
parameters live in ``scenario.params["barrier"]`` (:data:`DEFAULTS`): every
control change is checked on the server and written there, which updates the
view and the shell's share link.

Below: LCT vs BST on the numbered grid (the Gather links before and after
``round(K)`` and their update quantity: the paper's Fig. 3; the scenario's
grid, or the paper's 4 x 4 when the fabric is not a grid), run time vs break
rate and vs size for every algorithm (a small cached sweep, or the full one),
and the UQ(LCT) − UQ(BST) histogram (Fig. 5).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import dash_cytoscape as cyto
import numpy as np
import plotly.graph_objects as go
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.barrier import GRID_ONLY, is_grid
from vizcoll.barrier.algorithms import ALGOS, JUDGES, LEGEND, grid_only_reason, run_barriers
from vizcoll.barrier.benchmark import RATES, SIZES, sweep
from vizcoll.barrier.network import break_links
from vizcoll.barrier.structures import NUMBERINGS, adjust, numbering, pattern_links
from vizcoll.barrier.uq import uq_difference_histogram, uq_round
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.topology.generators import parse_spec
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.ui import calls, ids
from vizcoll.ui.cache import memo
from vizcoll.ui.calls import (
    SCENARIO,
    changed,
    checked,
    fabric_of,
    page_params,
    store_output,
    tapped_link,
    topology_of,
    user_action,
)
from vizcoll.ui.components.kit import field
from vizcoll.ui.components.player import pid, player, register_player, timeline_at
from vizcoll.ui.figures.barrier import (
    ADJUST_COLOUR,
    MESSAGE_COLOURS,
    NODE,
    ROOT_COLOUR,
    STATE_COLOURS,
    fabric_elements,
    fabric_stylesheet,
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

__all__ = ["PAGE", "layout", "register", "DEFAULTS", "MAX_SIDE", "UQ_SIDE", "MAX_PROCESSES", "ANIMATION_LIMIT"]

PAGE = "barrier"
# the page's own components (the others are in vizcoll.ui.ids)
BAR_USE_GRID = "bar-use-grid"
BAR_COMM = "bar-comm"
BAR_FABRIC = "bar-fabric"
BAR_UQ_KEY = "bar-uq-key"
BAR_SWEEP_KEY = "bar-sweep-key"

QUICK_MODE, FULL_MODE = "quick", "full"
ALL_END_NODES = -1
# the page's parameters (scenario.params["barrier"]); on a fabric that is not a grid the algorithm defaults to tree
DEFAULTS = {"algo": "dlct", "judge": "model", "barriers": 3, "compute": 0.5, "rate": 0.1, "seed": 0, "comm": 0,
            "k": 1, "numbering": "s-curve", "sweep": QUICK_MODE}
NOT_GRID_ALGO = "tree"
# the grid preset shown when the scenario is not a grid: the model that reproduces the paper's Fig. 3
# (a 4x4 grid with 8 neighbours: UQ 73.1% / 18.2% for round(1))
PRESET = (4, 4, 8)
MAX_SIDE = 16  # the page runs and animates grids up to 16 x 16
MAX_PROCESSES = 256  # processes of a barrier on a fabric that is not a grid (16 x 16 too)
ANIMATION_LIMIT = 1500  # fabrics with more nodes run without the animation
MAX_SEED = 2**31 - 1
MAX_K = 1_000_000
MAX_COMM_OPTIONS = 200
MAX_RANDOM_LINKS = 20_000  # "Break at random" on fabrics up to this many links
UQ_SIDE = 8  # the LCT vs BST view draws the scenario's grid up to 8 x 8 (else the paper's 4 x 4)
QUICK = {"sizes": [4, 8, 12], "rates": [0.0, 0.2, 0.4], "seeds": 1}
FULL = {"sizes": list(SIZES), "rates": list(RATES), "seeds": 1}
ALGO_NAMES = {"ms": "MS (master–slave)", "tree": "Tree (minimum spanning tree)", "tournament": "Tournament",
              "dissemination": "Dissemination", "dissemination+tree": "Dissemination + Tree",
              "dlct": "DLCT", "dlct+ms": "DLCT + MS (ID1)", "dlct+tree": "DLCT + Tree (ID2)"}
GRAPH_CONFIG = {"toImageButtonOptions": {"format": "svg", "filename": "vizcoll-barrier"}}


# ---------------------------------------------------------------- parameters (the browser is untrusted)
def parse_size(text) -> tuple[int, int]:
    """``"4x4"``, ``"4"`` or ``"3x5"`` -> (rows, cols), each 1..MAX_SIDE and at least 2 processors."""
    parts = str(text if text is not None else "").lower().replace("×", "x").split("x")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        raise VizcollError(f"grid size must be ROWSxCOLS like 4x4, got {text!r}") from None
    dims = dims * 2 if len(dims) == 1 else dims
    if len(dims) != 2 or min(dims) < 1 or dims[0] * dims[1] < 2:
        raise VizcollError(f"grid size must be ROWSxCOLS with at least 2 processors, got {text!r}")
    if max(dims) > MAX_SIDE:
        raise VizcollError(f"the page runs grids up to {MAX_SIDE}x{MAX_SIDE}; run larger ones with "
                           "python -m vizcoll barrier --size ...")
    return dims[0], dims[1]


def read_neighbors(value) -> int:
    neighbors = number(value, "neighbours", int)
    if neighbors not in (4, 8):
        raise VizcollError(f"neighbours must be 4 or 8, got {neighbors}")
    return neighbors


def _whole(value, what: str, low: int, high: int) -> int:
    result = number(value, what, int)
    if not low <= result <= high:
        raise VizcollError(f"{what} must be between {low} and {high}, got {result}")
    return result


def _choice(value, allowed, what: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise VizcollError(f"unknown {what} {value!r}; choose one of {', '.join(allowed)}")
    return value


def read_params(values: dict) -> dict:
    """The page's parameters checked and canonical (plain JSON values); VizcollError names the first bad one."""
    return {"algo": _choice(values.get("algo"), ALGOS, "barrier algorithm"),
            "judge": _choice(values.get("judge"), JUDGES, "judge"),
            "barriers": _whole(values.get("barriers"), "barriers", 1, 20),
            "compute": number(values.get("compute"), "work between barriers (s)", float, 0, 60),
            "rate": number(values.get("rate"), "break rate", float, 0, 1),
            "seed": _whole(values.get("seed"), "seed", 0, MAX_SEED),
            "comm": _whole(values.get("comm"), "communicator", ALL_END_NODES, 10**7),
            "k": _whole(values.get("k"), "K", -MAX_K, MAX_K),
            "numbering": _choice(values.get("numbering"), NUMBERINGS, "numbering"),
            "sweep": _choice(values.get("sweep"), (QUICK_MODE, FULL_MODE), "sweep")}


def defaults_for(grid: bool) -> dict:
    """:data:`DEFAULTS`, with Tree as the algorithm on a fabric that is not a grid (DLCT needs one)."""
    return DEFAULTS if grid else DEFAULTS | {"algo": NOT_GRID_ALGO}


def stored_params(scenario: Scenario, grid: bool) -> dict:
    """The scenario's page parameters checked (raises VizcollError on a forged value)."""
    return read_params(page_params(scenario, PAGE, defaults_for(grid)))


def shown_params(scenario: Scenario, grid: bool) -> dict:
    """The parameters for the controls: each bad stored value replaced by its default (never raises)."""
    return calls.shown_params(scenario, PAGE, defaults_for(grid), read_params)


# ---------------------------------------------------------------- the scenario's fabric
def scenario_is_grid(scenario: Scenario) -> bool:
    return is_grid(topology_of(scenario))


def grid_shape(scenario: Scenario, topo: Topology) -> tuple[int, int, int]:
    """(rows, cols, neighbours) of a grid scenario: its spec's, else read off the switches' x / y."""
    if scenario.uploaded is None and scenario.spec.partition(":")[0] in ("mesh", "grid"):
        try:
            _, spec = parse_spec(scenario.spec)
            rows, cols = spec.get("dims", (4, 4))
            return int(rows), int(cols), int(spec.get("neighbors", 4))
        except (VizcollError, ValueError):
            pass
    sw = topo.switches
    x, y = topo.attr("x")[sw], topo.attr("y")[sw]
    rows, cols = (int(y.max()) + 1, int(x.max()) + 1) if len(sw) else (0, 0)
    s = topo.kind == SWITCH
    between = s[topo.link_a] & s[topo.link_b]
    xa, xb = topo.attr("x")[topo.link_a[between]], topo.attr("x")[topo.link_b[between]]
    ya, yb = topo.attr("y")[topo.link_a[between]], topo.attr("y")[topo.link_b[between]]
    return rows, cols, 8 if bool(np.any((xa != xb) & (ya != yb))) else 4


def grid_spec(rows: int, cols: int, neighbors: int) -> str:
    return f"mesh:{rows}x{cols},neighbors={neighbors},hosts=0"


def grid_scenario(scenario: Scenario, rows: int, cols: int, neighbors: int) -> Scenario:
    """The shared scenario replaced by the page's grid preset (its page parameters kept).

    Resizing a grid keeps its breaks: they name links by their ends and ports,
    so a break stays on its link, or is listed as missing when the link is
    gone. A fabric that was not a grid is replaced without its breaks.
    """
    fresh = Scenario(spec=grid_spec(rows, cols, neighbors), params=scenario.params)
    if scenario_is_grid(scenario):
        fresh = replace(fresh, broken=list(scenario.broken))
    return fresh


def random_breaks(scenario: Scenario, rate: float, seed: int) -> Scenario:
    """The scenario with ``rate`` of its switch-to-switch links broken at random (seeded), never cutting the
    switches apart; the other breaks are repaired."""
    fabric = fabric_of(scenario)
    if fabric.n_links > MAX_RANDOM_LINKS:
        raise VizcollError(f"Break at random works on fabrics up to {MAX_RANDOM_LINKS:,} links "
                           f"(this one has {fabric.n_links:,}); break links on the Topology page")
    topo = fabric.copy()
    labels = [topo.link_label(topo.link_row(lid)) for lid in break_links(topo, rate, seed, keep_connected=True)]
    return scenario.with_breaks(labels)


def processes_of(scenario: Scenario, topo: Topology, comm: int) -> tuple[list[int], str]:
    """The barrier's processes on a fabric that is not a grid: the end nodes of communicator ``comm`` (every end
    node when ``comm`` is :data:`ALL_END_NODES` or the scenario has none), and a sentence saying so."""
    comms = scenario.communicators(topo)
    if comms is None or len(comms) == 0 or comm == ALL_END_NODES:
        nodes = topo.endpoints.tolist()
        why = "" if comm == ALL_END_NODES else " (the scenario has no communicator)"
        text = f"every end node{why}: {len(nodes):,} processes"
    else:
        if not 0 <= comm < len(comms):
            raise VizcollError(f"communicator {comm} does not exist: the scenario has {len(comms)} "
                               f"(0–{len(comms) - 1})")
        members = comms.nodes(comm).tolist()
        nodes = list(dict.fromkeys(members))
        text = f"the end nodes of communicator {comm}: {len(nodes):,} processes"
        if len(nodes) < len(members):
            text += f" (its {len(members):,} ranks share them: one barrier process per end node)"
    if len(nodes) < 2:
        raise VizcollError(f"a barrier needs at least 2 processes; {text.split(':')[0]} gives {len(nodes)}")
    if len(nodes) > MAX_PROCESSES:
        raise VizcollError(f"the page runs barriers of up to {MAX_PROCESSES} processes; {text} — choose a smaller "
                           "communicator (Topology page) or run python -m vizcoll barrier")
    return nodes, text


def digest(scenario: Scenario) -> str:
    """A short key of everything that determines the scenario's topology."""
    raw = json.dumps(scenario.source_key(), sort_keys=True, separators=(",", ":"), default=str).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def run_plan(scenario: Scenario) -> dict:
    """What the run view shows for this scenario (plain values, the key of the run); VizcollError when the
    scenario or the parameters cannot run.

    ``reason`` (DLCT on a fabric that is not a grid) is said in one line
    instead of a run.
    """
    topo = topology_of(scenario)
    grid = is_grid(topo)
    p = stored_params(scenario, grid)
    plan = {"digest": digest(scenario), "grid": grid, "algo": p["algo"], "judge": p["judge"],
            "barriers": p["barriers"], "compute": p["compute"], "seed": p["seed"], "processes": None,
            "animate": True, "reason": "", "note": ""}
    if grid:
        rows, cols, neighbors = grid_shape(scenario, topo)
        if max(rows, cols) > MAX_SIDE:
            raise VizcollError(f"the scenario's grid is {rows}x{cols}: the page runs grids up to "
                               f"{MAX_SIDE}x{MAX_SIDE} (choose a size and press Use this grid, or run python -m "
                               "vizcoll barrier --size ...)")
        plan["note"] = (f"The paper's grid model on the scenario's {rows}×{cols} grid ({neighbors} neighbours): "
                        f"{len(topo.switches)} processors, the grid's switches.")
        return plan
    if p["algo"] in GRID_ONLY:
        plan["reason"] = grid_only_reason(topo, p["algo"])
    nodes, text = processes_of(scenario, topo, p["comm"])
    plan["processes"] = nodes
    plan["note"] = f"The barrier runs on {text}, over min-hop routes that avoid the broken links."
    if topo.n_nodes > ANIMATION_LIMIT:
        plan["animate"] = False
        plan["note"] += (f" The fabric has {topo.n_nodes:,} nodes: the run is computed but not animated "
                         f"(the page draws fabrics up to {ANIMATION_LIMIT:,} nodes).")
    return plan


# ---------------------------------------------------------------- engine calls (cached)
def _run(source: dict, plan: dict) -> dict:
    topo = topology_of(Scenario(**source))
    extra = {} if plan["processes"] is None else {"participants": plan["processes"]}
    timeline, figures = run_barriers(topo, plan["algo"], barriers=plan["barriers"], compute=plan["compute"],
                                     seed=plan["seed"], judge=plan["judge"], record=plan["animate"], **extra)
    return {"timeline": timeline.to_dict() if plan["animate"] else None, "figures": figures}


def run_of(scenario: Scenario, plan: dict) -> dict:
    """The run's timeline (as a dict; None when not animated) and figures."""
    return memo(_run, scenario.source_key(), {k: v for k, v in plan.items() if k != "note"})


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


def view_keys(scenario: Scenario) -> tuple[dict, dict, dict]:
    """(run plan, LCT/BST view key, sweep key) of the scenario; the run plan is ``{"error": message}`` when it
    cannot run (the other two then use the page's defaults)."""
    topo = topology_of(scenario)
    grid = is_grid(topo)
    try:
        plan = run_plan(scenario)
    except VizcollError as exc:
        plan = {"error": f"⚠ {exc}", "grid": grid}
    p = shown_params(scenario, grid)
    rows, cols, neighbors = grid_shape(scenario, topo) if grid else PRESET
    uq = {"rows": rows, "cols": cols, "neighbors": neighbors, "k": p["k"], "numbering": p["numbering"],
          "grid": grid}
    return plan, uq, {"mode": p["sweep"], "neighbors": neighbors}


# ---------------------------------------------------------------- layout
def _number_input(id_: str, value, **kw) -> dcc.Input:
    return dcc.Input(id=id_, type="number", value=value, debounce=True, **kw)


def comm_options(scenario: Scenario, topo: Topology) -> list[dict]:
    """The processes a barrier on a fabric that is not a grid can run on: every end node, or a communicator."""
    try:
        comms = scenario.communicators(topo)
    except VizcollError:
        comms = None
    options = [{"label": f"every end node ({len(topo.endpoints):,})", "value": ALL_END_NODES}]
    if comms is not None:
        options += [{"label": f"communicator {i} ({len(comms[i]):,} processes)", "value": i}
                    for i in range(min(len(comms), MAX_COMM_OPTIONS))]
    return options


def layout(scenario: Scenario) -> html.Div:
    """The page on ``scenario``: the controls show its page parameters (bad stored values: the defaults)."""
    try:
        topo = topology_of(scenario)
        grid = is_grid(topo)
    except VizcollError:
        topo, grid = None, False
    v = shown_params(scenario, grid)
    rows, cols, neighbors = grid_shape(scenario, topo) if grid else PRESET
    options = comm_options(scenario, topo) if topo is not None else []
    if topo is not None and options[1:] == [] and v["comm"] == 0:
        v["comm"] = ALL_END_NODES
    sidebar = html.Div(className="sidebar", children=[
        html.Details(open=True, className="panel", children=[
            html.Summary("Fabric"),
            html.P(id=BAR_FABRIC, className="info"),
            field("size (rows x cols)", dcc.Input(id=ids.BAR_SIZE, value=f"{rows}x{cols}", debounce=True,
                                                   placeholder=f"4x4 (up to {MAX_SIDE}x{MAX_SIDE})")),
            field("neighbours", dcc.RadioItems(id=ids.BAR_NEIGHBORS, options=[4, 8], inline=True,
                                                value=neighbors if neighbors in (4, 8) else 8)),
            html.Div(className="buttons", children=[html.Button("Use this grid", id=BAR_USE_GRID, n_clicks=0)]),
            html.P(className="info", children=(
                "Use this grid replaces the scenario's fabric with this grid (every page follows; its page "
                "settings stay). On a grid, changing the size or the neighbours resizes it at once and keeps "
                "its broken links.")),
        ]),
        html.Details(open=True, className="panel", children=[
            html.Summary("Broken links"),
            html.P("Click a link on the drawing to break it (red, dashed) and click again to repair it.",
                   className="info"),
            html.Div(className="row", children=[
                html.Label("break rate"), _number_input(ids.BAR_RATE, v["rate"], min=0, max=1, step=0.05),
                html.Label("seed"), _number_input(ids.BAR_SEED, v["seed"], min=0, max=MAX_SEED)]),
            html.Div(className="buttons", children=[
                html.Button("Break at random", id=ids.BAR_RANDOM, n_clicks=0),
                html.Button("Repair all", id=ids.BAR_REPAIR, n_clicks=0)]),
        ]),
        html.Details(open=True, className="panel", children=[
            html.Summary("Barrier"),
            field("algorithm", dcc.Dropdown(id=ids.BAR_ALGO, clearable=False, className="grow",
                                             options=[{"label": ALGO_NAMES[a], "value": a} for a in ALGOS],
                                             value=v["algo"])),
            field("DLCT judge", dcc.Dropdown(id=ids.BAR_JUDGE, options=list(JUDGES), clearable=False,
                                              className="grow", value=v["judge"])),
            field("barriers", _number_input(ids.BAR_BARRIERS, v["barriers"], min=1, max=20)),
            field("work between (s)", _number_input(ids.BAR_COMPUTE, v["compute"], min=0, max=60, step=0.1)),
            field("processes", dcc.Dropdown(id=BAR_COMM, clearable=False, className="grow", options=options,
                                             value=v["comm"], disabled=grid)),
        ]),
        html.Div(id=ids.BAR_MESSAGE, className="message", role="alert"),
        html.P(className="info", children=(
            "Every change runs at once. Break at random breaks that share of the links (seeded), never cutting "
            f"the switches apart. On a grid (up to {MAX_SIDE}×{MAX_SIDE}) messages go to the neighbour closest to "
            "their destination (the paper's rule) and detour along a shortest live path when that would loop; on "
            f"any other fabric the processes (up to {MAX_PROCESSES}) are end nodes and messages follow min-hop "
            "routes around the broken links.")),
        html.Div(className="buttons", children=[html.Button("Download PNG", id=ids.BAR_PNG, n_clicks=0)]),
    ])
    main = html.Div(className="main", children=[
        dcc.Store(id=ids.BAR_PARAMS), dcc.Store(id=BAR_UQ_KEY), dcc.Store(id=BAR_SWEEP_KEY),
        html.Div(className="panel player-panel", children=[
            html.H3("Gather and Release, hop by hop (on a grid, the number on a node is its DLCT ID)"),
            cyto.Cytoscape(id=ids.BAR_CANVAS, elements=[], layout={"name": "preset", "fit": True, "padding": 20},
                           stylesheet=grid_stylesheet(), style={"width": "100%", "height": "520px"},
                           minZoom=0.05, maxZoom=4, boxSelectionEnabled=False, autoungrabify=True,
                           autounselectify=True),
            _legend(),
            player(ids.BAR_PLAYER),
            html.Div(id=ids.BAR_FLAG, className="flag", role="status"),
            html.Div(id=ids.BAR_SUMMARY, className="bar-summary"),
        ]),
        html.Div(className="panel", children=[
            html.H3("LCT vs BST: the Gather links before and after round(K) (the paper's Fig. 3)"),
            html.Div(className="row", children=[
                html.Label("K"), _number_input(ids.BAR_K, v["k"], style={"width": 90, "flex": "none"}),
                html.Label("numbering", className="bar-gap"),
                dcc.Dropdown(id=ids.BAR_NUMBERING, options=list(NUMBERINGS), clearable=False,
                             value=v["numbering"], style={"width": 160})]),
            html.Div(id=ids.BAR_UQ_INFO, className="info"),
        ]),
        html.Div(className="pair", children=[dcc.Graph(id=ids.BAR_UQ_LCT, config=GRAPH_CONFIG),
                                             dcc.Graph(id=ids.BAR_UQ_BST, config=GRAPH_CONFIG)]),
        html.Div(className="panel", children=[
            html.H3("Run time of every algorithm (the paper's Fig. 6 and 7)"),
            dcc.Store(id=ids.BAR_SWEEP),
            field("sweep", dcc.RadioItems(id=ids.BAR_SWEEP_MODE, value=v["sweep"], options=[
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
    rows = [("processes", f"{figures['processors']:,}"),
            ("run time", "did not finish" if not done else f"{figures['time']:.4f} s"),
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


def uq_view(key: dict) -> tuple[go.Figure, go.Figure, str]:
    """The two structures' Gather links before/after ``round(k)`` and their UQ on the key's grid (the paper's
    4 x 4 when it is larger than :data:`UQ_SIDE` or the scenario is not a grid)."""
    k, numbering_kind, neighbors = key["k"], key["numbering"], key["neighbors"]
    rows, cols = key["rows"], key["cols"]
    if max(rows, cols) > UQ_SIDE or rows * cols < 2:
        rows = cols = 4
    result = uq_of(rows, cols, neighbors, k, numbering_kind)
    as_set = lambda links: {tuple(tuple(c) for c in x) for x in links}  # noqa: E731
    figs = [numbering_figure(name, result["before"], result["after"], as_set(result[s]["before"]),
                             as_set(result[s]["after"]), k) for s, name in (("lct", "LCT"), ("bst", "BST"))]
    lct, bst = result["lct"]["uq"], result["bst"]["uq"]
    info = (f"{rows}×{cols} grid, {numbering_kind} numbering, {neighbors} neighbours, round({k}) "
            f"(every ID becomes (ID + {k}) mod {rows * cols}). A = the links the Gather messages cross before, "
            f"B = after; UQ = 1 − |A ∩ B| / |A ∪ B|. LCT: {uq_text(lct['intersection'], lct['union'])}; "
            f"BST: {uq_text(bst['intersection'], bst['union'])}. LCT's subtrees are contiguous ID ranges, so a "
            "shift moves its messages onto other links: that is what lets DLCT steer around a broken link.")
    if (rows, cols, neighbors, k, numbering_kind) == (4, 4, 8, 1, "s-curve"):
        info += " The paper (Fig. 3): UQ(LCT) = 73.1%, UQ(BST) = 18.2%."
    if not key.get("grid"):
        info += " (The scenario's fabric is not a grid: the paper's 4×4 grid with 8 neighbours.)"
    elif (rows, cols) != (key["rows"], key["cols"]):
        info += f" (The view draws grids up to {UQ_SIDE}×{UQ_SIDE}: the paper's 4×4 here.)"
    return figs[0], figs[1], info


def histogram_side(key: dict) -> int:
    """The square grid of the UQ histogram: the scenario's grid if square and at most UQ_SIDE, else 4."""
    return key["rows"] if key["rows"] == key["cols"] and 2 <= key["rows"] <= UQ_SIDE else 4


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



def drawing(topo: Topology, plan: dict) -> list[dict]:
    """The canvas: the grid's switches on a grid, the whole fabric elsewhere (none above the drawing limits)."""
    if plan.get("grid"):
        return grid_elements(topo) if len(topo.switches) <= MAX_SIDE * MAX_SIDE else []
    if topo.n_nodes > ANIMATION_LIMIT:
        return []
    return fabric_elements(topo, plan.get("processes") or [])


# ---------------------------------------------------------------- callbacks
PARAM_CONTROLS = {"algo": ids.BAR_ALGO, "judge": ids.BAR_JUDGE, "barriers": ids.BAR_BARRIERS,
                  "compute": ids.BAR_COMPUTE, "rate": ids.BAR_RATE, "seed": ids.BAR_SEED, "comm": BAR_COMM,
                  "k": ids.BAR_K, "numbering": ids.BAR_NUMBERING, "sweep": ids.BAR_SWEEP_MODE}


def register(app: Dash) -> None:
    register_player(app, ids.BAR_PLAYER)
    app.callback(
        store_output(), Output(ids.BAR_MESSAGE, "children"),
        Input(ids.BAR_CANVAS, "tapEdge"), Input(BAR_USE_GRID, "n_clicks"), Input(ids.BAR_RANDOM, "n_clicks"),
        Input(ids.BAR_REPAIR, "n_clicks"), Input(ids.BAR_SIZE, "value"), Input(ids.BAR_NEIGHBORS, "value"),
        *[Input(i, "value") for i in PARAM_CONTROLS.values()],
        State(SCENARIO, "data"), prevent_initial_call=True,
    )(update)
    app.callback(
        Output(ids.BAR_PARAMS, "data"), Output(BAR_UQ_KEY, "data"), Output(BAR_SWEEP_KEY, "data"),
        Output(BAR_FABRIC, "children"), Output(BAR_COMM, "options"), Output(BAR_COMM, "disabled"),
        Input(SCENARIO, "data"),
        State(ids.BAR_PARAMS, "data"), State(BAR_UQ_KEY, "data"), State(BAR_SWEEP_KEY, "data"),
    )(refresh)
    app.callback(Output(BAR_COMM, "value"), Input(BAR_COMM, "options"), State(SCENARIO, "data"),
                 prevent_initial_call=True)(shown_comm)
    app.callback(
        Output(pid(ids.BAR_PLAYER, "timeline"), "data"), Output(ids.BAR_CANVAS, "elements"),
        Output(ids.BAR_SUMMARY, "children"), Output(ids.BAR_FLAG, "children"), Output(ids.BAR_FLAG, "className"),
        Input(ids.BAR_PARAMS, "data"), State(SCENARIO, "data"),
    )(animate)
    app.callback(
        Output(ids.BAR_CANVAS, "stylesheet"),
        Input(pid(ids.BAR_PLAYER, "step"), "value"), Input(pid(ids.BAR_PLAYER, "timeline"), "data"),
        State(ids.BAR_PARAMS, "data"), State(SCENARIO, "data"),
    )(render_step)
    app.callback(
        Output(ids.BAR_UQ_LCT, "figure"), Output(ids.BAR_UQ_BST, "figure"), Output(ids.BAR_UQ_INFO, "children"),
        Input(BAR_UQ_KEY, "data"),
    )(render_uq)
    app.callback(Output(ids.BAR_HIST, "figure"), Input(BAR_UQ_KEY, "data"))(render_histogram)
    app.callback(
        Output(ids.BAR_SWEEP, "data"), Output(ids.BAR_SWEEP_SIZE, "options"), Output(ids.BAR_SWEEP_SIZE, "value"),
        Output(ids.BAR_SWEEP_RATE, "options"), Output(ids.BAR_SWEEP_RATE, "value"),
        Output(ids.BAR_SWEEP_INFO, "children"),
        Input(BAR_SWEEP_KEY, "data"), State(ids.BAR_SWEEP_SIZE, "value"), State(ids.BAR_SWEEP_RATE, "value"),
    )(compute_sweep)
    app.callback(
        Output(ids.BAR_VS_RATE, "figure"), Output(ids.BAR_VS_SIZE, "figure"), Output(ids.BAR_RANGES, "figure"),
        Input(ids.BAR_SWEEP, "data"), Input(ids.BAR_SWEEP_SIZE, "value"), Input(ids.BAR_SWEEP_RATE, "value"),
    )(render_sweep)
    app.callback(
        Output(ids.BAR_CANVAS, "generateImage"), Input(ids.BAR_PNG, "n_clicks"), prevent_initial_call=True,
    )(lambda _: {"type": "png", "action": "download", "filename": "vizcoll-barrier"})


def scenario_after(trigger, scenario: Scenario, tap_edge, size, neighbors, values: dict) -> tuple[Scenario, str]:
    """The scenario after a fabric control (a clicked link, a grid preset, random breaks, repair) and a note."""
    if trigger == ids.BAR_CANVAS:
        return scenario.toggled(tapped_link(tap_edge)), ""
    if trigger in (BAR_USE_GRID, ids.BAR_SIZE, ids.BAR_NEIGHBORS):
        rows, cols = parse_size(size)
        n = read_neighbors(neighbors)
        if trigger != BAR_USE_GRID and not scenario_is_grid(scenario):
            return scenario, (f"Press Use this grid to replace the scenario's fabric ({scenario.title}) with a "
                              f"{rows}×{cols} grid with {n} neighbours.")
        return grid_scenario(scenario, rows, cols, n), ""
    if trigger == ids.BAR_RANDOM:
        rate = number(values["rate"], "break rate", float, 0, 1)
        return random_breaks(scenario, rate, _whole(values["seed"], "seed", 0, MAX_SEED)), ""
    if trigger == ids.BAR_REPAIR:
        return scenario.with_breaks([]), ""
    return scenario, ""


def update(tap_edge, _use_grid, _random, _repair, size, neighbors, algo, judge, barriers, compute, rate, seed, comm,
           k, numbering_kind, sweep_mode, data):
    """A control changed: the shared scenario with the page's checked parameters, or with the fabric change
    (clicked link, grid preset, random breaks, repair); a bad value leaves the store as it is, with a message."""
    if not user_action():  # the page appearing (every control at once): nothing to write
        return no_update, no_update
    trigger = ctx.triggered_id
    scenario, message = checked(data)
    if scenario is None:
        return no_update, message
    values = {"algo": algo, "judge": judge, "barriers": barriers, "compute": compute, "rate": rate, "seed": seed,
              "comm": comm, "k": k, "numbering": numbering_kind, "sweep": sweep_mode}
    try:
        params, bad = read_params(values | {"comm": chosen_comm(scenario, comm, checked_first=True)}), ""
        params["comm"] = chosen_comm(scenario, params["comm"])
    except VizcollError as exc:
        params, bad = None, f"⚠ {exc}"
    if params is None and trigger in PARAM_CONTROLS.values():
        return no_update, bad
    try:
        new, note = scenario_after(trigger, scenario, tap_edge, size, neighbors, values)
        if note:
            return no_update, note
        if params is not None:
            new = new.with_params(PAGE, params)
    except VizcollError as exc:
        return no_update, f"⚠ {exc}"
    return (no_update if new == scenario else new.to_dict()), bad


def chosen_comm(scenario: Scenario, comm, checked_first: bool = False):
    """The processes control's value when it is a choice, else the stored one.

    It is no choice when it is None (the dropdown drops its value when its
    options change, e.g. on a grid, which has no communicators) or when the
    scenario is a grid (the control is disabled there: the processes are the
    grid's switches). With ``checked_first`` only None is replaced, so that a
    forged value is still checked (and reported) by :func:`read_params`.
    """
    try:
        grid = scenario_is_grid(scenario)
    except VizcollError:
        grid = False
    if comm is None or (grid and not checked_first):
        return page_params(scenario, PAGE, defaults_for(grid))["comm"]
    return comm


def shown_comm(options, data):
    """The processes control after its options changed: the stored choice when offered, on a grid (disabled)
    "every end node", else left as it is."""
    scenario, _ = checked(data)
    if scenario is None or not options:
        return no_update
    try:
        grid = scenario_is_grid(scenario)
        stored = page_params(scenario, PAGE, defaults_for(grid))["comm"]
    except VizcollError:
        return no_update
    offered = [o.get("value") for o in options if isinstance(o, dict)]
    if stored in offered:
        return stored
    return ALL_END_NODES if grid else no_update


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "es" if word.endswith("ch") else "s")


def refresh(data, plan_now=None, uq_now=None, sweep_now=None):
    """The keys of the three views (each written only when it changed), the fabric's line, the process choice."""
    scenario, message = checked(data)
    if scenario is None:
        return changed({"error": message}, plan_now), no_update, no_update, message, no_update, no_update
    plan, uq, sweep_key = view_keys(scenario)
    topo = topology_of(scenario)
    s = topo.summary()
    grid = is_grid(topo)
    counts = ", ".join(_plural(s[key], word) for key, word in (("switches", "switch"), ("endpoints", "end node"),
                                                                 ("broken_links", "broken link")))
    text = (f"The scenario's fabric: {scenario.title} ({counts}), {'a grid' if grid else 'not a grid'}. "
            + (plan.get("note") or ""))
    return (changed(plan, plan_now), changed(uq, uq_now), changed(sweep_key, sweep_now), text,
            comm_options(scenario, topo), grid)


def animate(plan, data):
    """The run of the plan: the timeline for the player, the drawing, the figures and a line about the run."""
    if not plan:
        return (no_update,) * 5
    scenario, message = checked(data)
    if scenario is None:
        return None, [], "", message, "flag warn"
    topo = topology_of(scenario)
    elements = drawing(topo, plan)
    if "error" in plan:
        return None, elements, "", plan["error"], "flag warn"
    if plan["reason"]:
        return None, elements, "", plan["reason"], "flag"
    try:
        run = run_of(scenario, plan)
    except VizcollError as exc:
        return None, elements, "", f"⚠ {exc}", "flag warn"
    figures = run["figures"]
    flag = judgement_text(figures)
    if not plan["animate"]:
        flag = "\n".join(filter(None, [f"The fabric has {topo.n_nodes:,} nodes: the run is computed but not "
                                       f"animated (the page draws fabrics up to {ANIMATION_LIMIT:,} nodes).",
                                       flag]))
    return run["timeline"], elements, summary_table(figures), flag, "flag warn" if "⚠" in flag else "flag"


def render_step(step, timeline, plan, data):
    """Stylesheet for one player step: states, DLCT IDs, this step's hops (Gather / Release) and adjustments."""
    sheet = grid_stylesheet() if plan and plan.get("grid") else fabric_stylesheet()
    scenario = checked(data)[0] if timeline and plan and "error" not in plan else None
    if scenario is None:
        return sheet
    topo = topology_of(scenario)
    tl, step = timeline_at(timeline, step)
    source = dict(zip(topo.link_id.tolist(), topo.link_a.tolist(), strict=True))
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


def render_uq(key):
    if not key:
        return no_update, no_update, no_update
    try:
        return uq_view(key)
    except VizcollError as exc:
        return no_update, no_update, f"⚠ {exc}"


def compute_sweep(key, size, rate):
    """The sweep (cached) for the grid's neighbourhood; the chart choices keep their value when still offered."""
    if not key:
        return (no_update,) * 6
    result = sweep_of(key["mode"], key["neighbors"]) | {"mode": key["mode"]}
    sizes, rates = sweep_choices(result)
    size = size if size in [o["value"] for o in sizes] else sizes[-1]["value"]
    rate = rate if rate in [o["value"] for o in rates] else rates[-1]["value"]
    return result, sizes, size, rates, rate, sweep_info(result)


def render_sweep(result, size, rate):
    if not result or size is None or rate is None:
        return no_update, no_update, no_update
    return sweep_figure(result, "rate", size), sweep_figure(result, "size", rate), range_figure(result)


def render_histogram(key):
    if not key:
        return no_update
    side = histogram_side(key)
    return uq_histogram_figure(histogram_of(side, key["neighbors"]),
                               paper=(side, key["neighbors"]) == (4, 8))
