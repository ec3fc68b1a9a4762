"""Pure views of the barrier page: the run's figures as a table, what DLCT's roots decided, the LCT vs BST view,
the sweep's choices and sentence, the run's drawing and its player (:func:`run_view`: node by node on the canvas,
or on a large fabric's overview), the sweep's charts."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import plotly.graph_objects as go
from dash import dcc, html

from vizcoll.barrier.algorithms import ALGORITHMS, ANY_FABRIC_ALGORITHM, DEFAULT_ALGORITHM, LEGEND, Dissemination
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.lockstep import Lockstep, lockstep
from vizcoll.sim.overview import overview_frames
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.blocks import Blocks
from vizcoll.topology.model import Topology
from vizcoll.ui.cache import cached_figures
from vizcoll.ui.components.legend import Key, legend_spans
from vizcoll.ui.components.player import player_data, timeline_at
from vizcoll.ui.components.tables import table
from vizcoll.ui.figures.blocks import ACTIVE
from vizcoll.ui.figures.topology import fabric_drawing
from vizcoll.ui.models.parts import WHOLE, FabricView, drawn_view
from vizcoll.ui.pages.barrier import _figures as charts
from vizcoll.ui.pages.barrier import _model as model
from vizcoll.ui.pages.barrier._figures import (
    ADJUST_COLOUR,
    BROKEN,
    MESSAGE_COLOURS,
    NODE,
    ROOT_COLOUR,
    SPACING,
    STATE_COLOURS,
    fabric_elements,
    fabric_stylesheet,
    grid_elements,
    grid_stylesheet,
    message_kind,
    numbering_figure,
    overview_figure,
    step_stylesheet,
    uq_text,
)
from vizcoll.ui.pages.barrier._model import ANIMATION_LIMIT, MAX_SIDE, OVERVIEW_MAX_MARKS, UQ_SIDE, uq_of
from vizcoll.ui.store import topology_of

GROUP_SPACING = 0.55 * SPACING  # px between the nodes of a group's most crowded rows (a process is 30 px wide)
CANVAS_STYLE, FIGURE_STYLE, HIDDEN = (
    {"width": "100%", "height": "520px"},
    {"width": "100%", "height": "540px"},
    {"display": "none"},
)  # the run's canvas or its figure, shown or hidden

__all__ = [
    "CANVAS_LEGEND",
    "Compared",
    "compared_runs",
    "compared_algo",
    "compared_handles",
    "summary_rows",
    "summary_table",
    "judgement_text",
    "uq_view",
    "sweep_choices",
    "sweep_info",
    "drawing",
    "legend",
    "legend_items",
    "step_styles",
    "run_stylesheet",
    "uq_grid",
    "RunDrawing",
    "run_drawing",
    "run_view",
    "run_elements",
    "run_figure",
    "drawing_view",
    "uq_outputs",
    "sweep_view",
    "sweep_controls",
    "histogram_view",
]


def _ms(seconds) -> str:
    return "—" if seconds is None else f"{seconds * 1000:,.1f} ms"


def summary_rows(figures: dict) -> list[tuple[str, str]]:
    """The run's figures as (what, value) rows."""
    done = figures["completed"]
    rows = [
        ("processes", f"{figures['processors']:,}"),
        ("run time", "did not finish" if not done else f"{figures['time']:.4f} s"),
        ("run time − work (synchronisation)", _ms(figures["sync_time"])),
        ("messages", f"{figures['messages']:,}"),
        ("hops", f"{figures['hops']:,}"),
        ("detours", f"{figures['detours']:,}"),
        ("dead ends", f"{figures['dead_ends']:,}"),
        ("most messages on one link", f"{figures['max_link_load']:,}"),
        ("early Gathers (queued)", f"{figures['early_gathers']:,}"),
    ]
    if "k" in figures:
        ks = ["/".join("—" if k is None else str(k) for k in per_block) for per_block in figures["k"]]
        rows += [
            ("adjustments (round(K), K ≠ 0)", f"{figures['adjustments']:,}"),
            (
                "K per barrier" + (f" (per block of {figures['blocks']})" if figures["blocks"] > 1 else ""),
                ", ".join(ks),
            ),
        ]
    return rows


def summary_table(figures: dict) -> dcc.Markdown:
    return table(None, summary_rows(figures))


def judgement_text(figures: dict, limit: int = 6) -> str:
    """What the DLCT roots decided, barrier by barrier; the failure if the program could not finish."""
    if figures["failure"]:
        return f"⚠ The program cannot finish: {figures['failure']}."
    judged = [j for j in figures.get("judged", []) if j["k"] or j["gathered"] > j["ideal"]]
    if "judged" not in figures:
        return ""
    if not judged:
        return (
            "No harmful break: every root gathered the ideal total path length, so K = 0 and the IDs stay. "
            "Click a link to break it."
        )
    lines = [
        f"Barrier {j['barrier'] + 1}"
        + (f", block {j['block']}" if figures["blocks"] > 1 else "")
        + f": root {j['root']} gathered a total path length of {j['gathered']} (ideal {j['ideal']:g}) → "
        + (
            f"round({j['k']}): every ID of the block shifts by {j['k']}."
            if j["k"]
            else "no shift does better, round(0)."
        )
        for j in judged[:limit]
    ]
    if len(judged) > limit:
        lines.append(f"… and {len(judged) - limit} more")
    return "\n".join(lines)


def uq_grid(key: dict) -> tuple[int, int]:
    """The grid the LCT / BST view draws: the key's, or the paper's 4 x 4 when it is larger than
    :data:`UQ_SIDE` or has fewer than 2 processors."""
    rows, cols = key["rows"], key["cols"]
    return (4, 4) if max(rows, cols) > UQ_SIDE or rows * cols < 2 else (rows, cols)


def uq_view(key: dict) -> tuple[go.Figure, go.Figure, str]:
    """The two structures' Gather links before/after ``round(k)`` and their UQ on the key's grid (the paper's
    4 x 4 when it is larger than :data:`UQ_SIDE` or the scenario is not a grid)."""
    k, numbering_kind, neighbors = key["k"], key["numbering"], key["neighbors"]
    rows, cols = uq_grid(key)
    result = uq_of(rows, cols, neighbors, k, numbering_kind)
    figs = _numbering_figures(rows, cols, neighbors, k, numbering_kind)
    lct, bst = result["lct"]["uq"], result["bst"]["uq"]
    info = (
        f"{rows}×{cols} grid, {numbering_kind} numbering, {neighbors} neighbors, round({k}) "
        f"(every ID becomes (ID + {k}) mod {rows * cols}). A = the links the Gather messages cross before, "
        f"B = after; UQ = 1 − |A ∩ B| / |A ∪ B|. LCT: {uq_text(lct['intersection'], lct['union'])}; "
        f"BST: {uq_text(bst['intersection'], bst['union'])}. LCT's subtrees are contiguous ID ranges, so a "
        "shift moves its messages onto other links: that is what lets DLCT steer around a broken link."
    )
    if (rows, cols, neighbors, k, numbering_kind) == (4, 4, 8, 1, "s-curve"):
        info += " The paper (Fig. 3): UQ(LCT) = 73.1%, UQ(BST) = 18.2%."
    if not key.get("grid"):
        info += " (The scenario's fabric is not a grid: the paper's 4×4 grid with 8 neighbors.)"
    elif (rows, cols) != (key["rows"], key["cols"]):
        info += f" (The view draws grids up to {UQ_SIDE}×{UQ_SIDE}: the paper's 4×4 here.)"
    return figs[0], figs[1], info


@cached_figures
def _numbering_figures(rows: int, cols: int, neighbors: int, k: int, numbering_kind: str) -> tuple[go.Figure, ...]:
    """LCT's and BST's numbered grids with their Gather links before and after ``round(k)`` (cached: a warm
    answer reads them back instead of building them again)."""
    result = uq_of(rows, cols, neighbors, k, numbering_kind)
    as_set = lambda links: {tuple(tuple(c) for c in x) for x in links}  # noqa: E731
    return tuple(
        numbering_figure(
            name, result["before"], result["after"], as_set(result[s]["before"]), as_set(result[s]["after"]), k
        )
        for s, name in (("lct", "LCT"), ("bst", "BST"))
    )


def uq_outputs(key: dict | None) -> dict:
    """The LCT / BST view of a checked key (:func:`uq_view`) by name: the two figures (``lct``, ``bst``) and its
    line (``info``, which says why when it cannot be drawn); nothing without a key."""
    if key is None:
        return {}
    try:
        lct, bst, info = uq_view(key)
    except VizcollError as exc:
        return {"info": f"⚠ {exc}"}
    return {"lct": lct, "bst": bst, "info": info}


def sweep_choices(result: dict) -> tuple[list, list]:
    sizes = list(dict.fromkeys(r["size"] for r in result["rows"]))
    rates = list(dict.fromkeys(r["rate"] for r in result["rows"]))
    return ([{"label": f"{s}×{s}", "value": s} for s in sizes], [{"label": f"{r:.0%}", "value": r} for r in rates])


def sweep_info(result: dict) -> str:
    claims = result["claims"].get("dlct_over_tree", {})
    pairs = claims.get("dlct+tree/tree@intact", {})
    worst = [(cell, ratio) for cell, ratio in pairs.items() if ratio is not None and not cell.endswith("@0")]
    text = (
        "Each point: the mean of the runs (3 barriers, 0.5 s of work between them) on grids with that share "
        "of links broken at random, never cut apart. tree = the minimum spanning tree (links weighted by "
        "length) of the live grid (rebuilt after the breaks), tree@intact = the same tree built before they "
        "broke (a fixed pattern that detours)."
    )
    if worst:
        text += (
            " Synchronisation time of DLCT + Tree (ID2) ÷ tree@intact with breaks (size@rate): "
            f"{', '.join(f'{c}: {r:.2f}' for c, r in worst)} (below 1 = DLCT faster; the paper reports "
            "DLCT 30–50% faster than Tree)."
        )
    return text


def drawing(topo: Topology, plan: dict, pos=None) -> list[dict]:
    """The canvas: the grid's switches on a grid, the whole fabric elsewhere (none above the drawing limits)."""
    if plan.get("grid"):
        return grid_elements(topo) if len(topo.switches) <= MAX_SIDE * MAX_SIDE else []
    if topo.n_nodes > ANIMATION_LIMIT:
        return []
    return fabric_elements(topo, plan.get("processes") or [], pos)


def legend(legend_id: str) -> html.Div:
    """The run drawing's legend (:func:`legend_items` of the canvas)."""
    return html.Div(id=legend_id, className="legend", children=legend_items())


CANVAS_LEGEND = [
    Key("working between barriers (no ring)", "disc", NODE, LEGEND["computing"]),
    *(
        Key(label, "ring", STATE_COLOURS[state], LEGEND[state])
        for state, label in (
            ("waiting", "waits for its Gathers"),
            ("gathered", "sent its Gather, waits for the Release"),
            ("released", "got the Release"),
            ("left", "left the last barrier"),
            ("stuck", "stuck"),
        )
    ),
    Key("root (ID 0)", "disc", ROOT_COLOUR),
    Key("applies round(K) now", "disc", ADJUST_COLOUR),
    Key("Gather hop", "line", MESSAGE_COLOURS["gather"]),
    Key("Release hop (carries K)", "line", MESSAGE_COLOURS["release"]),
    Key("broken link", "dashed", BROKEN),
]


def legend_items(overview: bool = False) -> list:
    """What the run's drawing shows: on the canvas the rings of the processes' states, the root, the hops, a broken
    link; on a large fabric's overview the lit bundles and blocks."""
    if overview:
        lit = ACTIVE[-1][1]
        return [
            html.Span(
                [
                    html.Span("◆ ", style={"color": lit}),
                    "a bundle of links: the Gather and Release "
                    "messages crossing it in this step (larger and redder: more)",
                ]
            ),
            html.Span(
                [
                    html.Span("○ ", style={"color": lit, "fontWeight": "bold"}),
                    "a block: its processes changing state in this step",
                ]
            ),
            html.Span(
                [
                    html.Span(className="swatch ring", style={"borderColor": "#1f3a5f"}),
                    "ringed: a block holding processes of the barrier",
                ]
            ),
            html.Span([html.Span(className="swatch legend-broken"), "red ✕ bundle: a broken link in it"]),
        ]
    return legend_spans(CANVAS_LEGEND)


def _node_of(entity) -> int | None:
    """The node of a timeline entity (the timeline came back from the browser: a forged one gives None)."""
    node = entity.get("node") if isinstance(entity, dict) else None
    return node if isinstance(node, int) and not isinstance(node, bool) else None


def step_styles(topo: Topology, tl: Timeline, step: int, drawn: list | None = None) -> list[dict]:
    """The stylesheet rules of one player step: states, DLCT IDs, this step's hops and adjustments (entities
    or links the fabric does not have are skipped). ``drawn``: the fabric's node of each node of a drawing of a
    part (a group alone; from the browser: entries that are no node index are skipped), whose own ids the rules
    name; None: the drawing's ids are the fabric's."""
    at = (
        None
        if drawn is None
        else {n: i for i, n in enumerate(drawn[: topo.n_nodes]) if isinstance(n, int) and not isinstance(n, bool)}
    )
    place = (lambda node: node) if at is None else at.get  # noqa: E731
    source = dict(zip(topo.link_id.tolist(), topo.link_a.tolist(), strict=True))
    hops = [
        {"link": lid, "src": e.src, "source": source[lid], "kind": message_kind(e.label)}
        for e in (tl.active_at(step) if step >= 0 else [])
        for lid in e.path_links
        if lid in source
    ]
    state, idents = {}, {}
    for key, value in tl.state_at(step).items():
        entity = tl.entities.get(key)
        node = _node_of(entity)
        if node is not None and (node := place(node)) is not None:
            (idents if entity.get("kind") == "id" else state)[node] = value
    changed = tl.changes_at(step) if step >= 0 else {}
    adjusted = [
        node
        for key in changed
        if (entity := tl.entities.get(key)) is not None
        and isinstance(entity, dict)
        and entity.get("kind") == "id"
        and (node := _node_of(entity)) is not None
        and (node := place(node)) is not None
    ]
    roots = [u for u, ident in idents.items() if ident == 0]
    return step_stylesheet(state, idents, adjusted, hops, roots)


def run_stylesheet(grid: bool, topo: Topology | None = None, timeline: dict | None = None, position=0) -> list[dict]:
    """The drawing's stylesheet at player ``position`` of the run's ``timeline`` (a player's handle, or a timeline
    dict) on ``topo`` (the grid's or the fabric's base rules, then :func:`step_styles`, on the nodes the handle's
    ``nodes`` name when the drawing shows a group alone); the plain drawing without a timeline."""
    sheet = grid_stylesheet() if grid else fabric_stylesheet()
    if topo is None or not timeline:
        return sheet
    tl, step = timeline_at(timeline, position)
    drawn = timeline.get("nodes") if isinstance(timeline, dict) else None
    return sheet + step_styles(topo, tl, step, drawn if isinstance(drawn, list) else None)


# ---------------------------------------------------------------- the run's drawing and its player
@dataclass
class RunDrawing:
    """What the run panel draws: off a grid the fabric's ``view`` (:class:`~vizcoll.ui.models.parts.FabricView`:
    the whole fabric, its overview or a group alone; None on a grid); ``canvas``: drawn node by node on the canvas
    (the grid, a fabric or a group up to :data:`ANIMATION_LIMIT` nodes), else as a Plotly figure
    (:func:`run_figure`); ``key`` names the drawing (same key, same figure)."""

    view: FabricView | None
    canvas: bool
    key: str

    @property
    def overview(self) -> Blocks | None:
        """The blocks of a large fabric's overview (whose bundles and blocks the player lights), else None."""
        return None if self.view is None else self.view.overview


def run_drawing(scenario: Scenario, plan: dict) -> RunDrawing:
    """What the run's drawing shows: the grid, else the part of the fabric the page draws
    (``scenario.params["barrier"]["part"]``, :func:`~vizcoll.ui.models.parts.drawn_view`)."""
    processes = plan.get("processes") or []
    raw = json.dumps([model.digest(scenario), plan.get("grid"), plan.get("part"), processes]).encode()
    key = hashlib.sha256(raw).hexdigest()[:24]
    if plan.get("grid"):
        return RunDrawing(None, True, key)
    view = drawn_view(scenario, model.PAGE)
    return RunDrawing(view, view.overview is None and view.topo.n_nodes <= ANIMATION_LIMIT, key)


def run_elements(topo: Topology, plan: dict, drawn: RunDrawing) -> list[dict]:
    """The canvas's elements: the grid, the whole fabric or a group alone (the barrier's processes marked; a
    group's nodes keep the fabric's names, its links their ids); none when the drawing is a figure."""
    processes = plan.get("processes") or []
    view = drawn.view
    if view is None:
        return drawing(topo, plan)
    if not drawn.canvas:
        return []
    if view.part == WHOLE:
        return fabric_elements(topo, processes, view.pos)
    at = {int(n): i for i, n in enumerate(view.kept.tolist())}
    return fabric_elements(view.topo, [at[u] for u in processes if u in at], view.pos, crowded=GROUP_SPACING)


def run_figure(topo: Topology, plan: dict, drawn: RunDrawing) -> go.Figure | None:
    """The drawing as a Plotly figure: a large fabric's overview with the layers the player lights (the
    processes' blocks ringed, :func:`~vizcoll.ui.pages.barrier._figures.overview_figure`), or a group too large for the
    canvas (not animated); None on the canvas."""
    if drawn.canvas:
        return None
    if drawn.overview is not None:
        return overview_figure(topo, drawn.overview, plan.get("processes") or [])
    return fabric_drawing(drawn.view, topo)[1]


def drawing_view(scenario: Scenario, plan: dict, drawn_now=None) -> dict:
    """What the run panel shows of the run ``plan`` of the scenario, by name: the ``figure`` (left out when the
    canvas draws or the figure ``drawn_now`` names is the same), the ``canvas_style``, the ``figure_style``, the
    ``legend``'s items and the key of the drawing (``drawn``)."""
    drawn = run_drawing(scenario, plan)
    figure = None if drawn.canvas or drawn.key == drawn_now else run_figure(topology_of(scenario), plan, drawn)
    return ({} if figure is None else {"figure": figure}) | {
        "canvas_style": CANVAS_STYLE if drawn.canvas else HIDDEN,
        "figure_style": HIDDEN if drawn.canvas else FIGURE_STYLE,
        "legend": legend_items(overview=not drawn.canvas),
        "drawn": drawn.key,
    }


def run_view(scenario: Scenario, plan: dict) -> dict:
    """The run ``plan`` of the scenario, by name: the canvas's ``elements``, the player's handle (``timeline``), the
    run's ``summary`` table and the ``flag`` line. On the canvas the handle plays node by node (a group alone: its
    ``nodes``, the fabric's node of each drawn node); on a large fabric's overview it carries the run's
    :func:`~vizcoll.sim.overview.overview_frames`, which the browser lights step by step; without a run (an error,
    DLCT off a grid) no handle, the flag says why."""
    topo = topology_of(scenario)
    drawn = run_drawing(scenario, plan)
    elements = run_elements(topo, plan, drawn)
    if "error" in plan or plan["reason"]:
        return {"elements": elements, "timeline": None, "summary": "", "flag": plan.get("error") or plan["reason"]}
    try:
        run = model.run_of(scenario, plan)
    except VizcollError as exc:
        return {"elements": elements, "timeline": None, "summary": "", "flag": f"⚠ {exc}"}
    figures, timeline = run["figures"], run["timeline"]
    flag = judgement_text(figures)
    tl = Timeline.from_dict(timeline)
    frames = overview_frames(tl, topo, drawn.overview) if drawn.overview is not None else None
    if frames is not None and sum(map(len, frames["bundles"] + frames["blocks"])) > OVERVIEW_MAX_MARKS:
        handle = player_data(tl, overview=None)  # the captions play, nothing is lit
        flag = "\n".join(
            filter(
                None,
                [
                    f"The run lights the overview's marks more than {OVERVIEW_MAX_MARKS:,} times in its "
                    f"{tl.n_steps:,} steps, too many to send to the browser: its captions and key moments play "
                    "(choose fewer barriers or processes, or draw a group alone).",
                    flag,
                ],
            )
        )
    elif frames is not None:
        handle = player_data(tl, overview=frames)
    elif not drawn.canvas:
        handle = None
        flag = "\n".join(
            filter(
                None,
                [
                    f"{drawn.view.name} alone has more than {ANIMATION_LIMIT:,} nodes: the run "
                    "is computed but not animated there (choose the overview or a smaller part).",
                    flag,
                ],
            )
        )
    elif drawn.view is not None and drawn.view.part != WHOLE:
        handle = player_data(tl, nodes=drawn.view.kept.tolist())
    else:
        handle = player_data(tl)
    return {"elements": elements, "timeline": handle, "summary": summary_table(figures), "flag": flag}


@dataclass
class Compared:
    """The run and the run of the algorithm compared with it, side by side (:func:`compared_runs`): the
    side-by-side run, each run's timeline (a dict: with ``nodes`` on a group drawn alone), the canvas's elements,
    and whether the fabric is a grid."""

    lockstep: Lockstep
    timelines: list[dict]
    elements: list[dict]
    grid: bool


def compared_algo(scenario: Scenario) -> str:
    """The algorithm run side by side with the page's: the one chosen, else (an export asked for without a choice)
    Tree, or beside Tree the paper's DLCT on a grid and Dissemination elsewhere."""
    grid = model.scenario_is_grid(scenario)
    p = model.stored_params(scenario, grid)
    other = DEFAULT_ALGORITHM if grid else Dissemination.name
    return p["compare"] or (ANY_FABRIC_ALGORITHM if p["algo"] != ANY_FABRIC_ALGORITHM else other)


def compared_runs(scenario: Scenario, compare: str) -> Compared:
    """The scenario's run and the run of algorithm ``compare`` on the same scenario (same fabric, breaks,
    processes and program), on one time axis; VizcollError when either cannot run or the page draws the fabric as
    a figure (side by side is drawn node by node, on up to :data:`ANIMATION_LIMIT` nodes)."""
    grid = model.scenario_is_grid(scenario)
    params = model.stored_params(scenario, grid)
    other = scenario.with_params(model.PAGE, {**params, "algo": compare})
    plans = [model.page_keys(s)[0] for s in (scenario, other)]
    for plan in plans:
        if "error" in plan or plan["reason"]:
            raise VizcollError((plan.get("error") or plan["reason"]).removeprefix("⚠ "))
    drawn = run_drawing(scenario, plans[0])
    if not drawn.canvas:
        raise VizcollError(
            f"side by side draws the runs node by node, on up to {ANIMATION_LIMIT:,} nodes: choose a group under "
            '"draw" above'
        )
    timelines = [model.run_of(scenario, plan)["timeline"] for plan in plans]
    if drawn.view is not None and drawn.view.part != WHOLE:
        timelines = [{**t, "nodes": drawn.view.kept.tolist()} for t in timelines]
    names = tuple(ALGORITHMS.lookup(plan["algo"]).label.split(" (")[0] for plan in plans)
    ls = lockstep(*(Timeline.from_dict(t) for t in timelines), names)
    return Compared(ls, timelines, run_elements(topology_of(scenario), plans[0], drawn), plans[0]["grid"])


def compared_handles(found: Compared) -> list[dict]:
    """The players' handles of the two runs (the canvas of a group drawn alone names its nodes)."""
    return [
        player_data(Timeline.from_dict(t), **({"nodes": t["nodes"]} if "nodes" in t else {})) for t in found.timelines
    ]


# ---------------------------------------------------------------- the sweep's charts
def sweep_view(result: dict | None, size, rate) -> dict:
    """The two run-time charts (``vs_rate``, ``vs_size``) and the ``ranges`` of a sweep at the chosen grid ``size``
    and break ``rate``; nothing without a sweep or when the choices are not the sweep's."""
    if result is None:
        return {}
    sizes, rates = ([o["value"] for o in options] for options in sweep_choices(result))
    if size not in sizes or rate not in rates:
        return {}
    return {
        "vs_rate": charts.sweep_figure(result, "rate", size),
        "vs_size": charts.sweep_figure(result, "size", rate),
        "ranges": charts.range_figure(result),
    }


def sweep_controls(result: dict, size, rate) -> dict:
    """The chart choices of a sweep by name (the grid sizes ``size_options``, the chosen ``size``, the break rates
    ``rate_options``, the chosen ``rate``) and its sentence (``info``): a choice keeps its value when the sweep
    still offers it, else the largest."""
    sizes, rates = sweep_choices(result)
    size = size if size in [o["value"] for o in sizes] else sizes[-1]["value"]
    rate = rate if rate in [o["value"] for o in rates] else rates[-1]["value"]
    return {"size_options": sizes, "size": size, "rate_options": rates, "rate": rate, "info": sweep_info(result)}


def histogram_view(key: dict) -> go.Figure:
    """The UQ(LCT) − UQ(BST) histogram of the view's (checked) key: the scenario's square grid up to
    :data:`UQ_SIDE`, else the paper's 4 x 4 (Fig. 5)."""
    return _histogram_figure(model.histogram_side(key), key["neighbors"])


@cached_figures
def _histogram_figure(side: int, neighbors: int) -> go.Figure:
    """:func:`histogram_view`'s figure (cached, as :func:`_numbering_figures`)."""
    return charts.uq_histogram_figure(model.histogram_of(side, neighbors), paper=(side, neighbors) == (4, 8))
