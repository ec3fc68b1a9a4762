"""The multicast page: one multicast group per communicator of the shared scenario, routed by two algorithms.

The page looks at the one shared :class:`~vizcoll.scenario.Scenario` (the
shell's store) and nothing else:

- the fabric is the scenario's, with its breaks (:func:`topology_of`, the
  min-hop tables of :func:`hops_of` avoid the broken links);
- the groups are the scenario's communicators, one multicast group per
  communicator (its distinct end nodes). A scenario without communicators
  gets a message saying to define them on the Topology page (the page does
  not invent groups); groups whose members cannot all reach one switch over
  the live links are routed by nobody and listed by name.

Both algorithms (A and B, any of :data:`~vizcoll.multicast.routing.ALGORITHMS`)
route every group; the page shows their EFI (edge forwarding index: groups per
link) side by side on the fabric, their difference, a histogram and the worst
links, highlights one group's tree and replays its join/leave protocol (paper
section 3.2). Small fabrics are drawn link by link; large ones start from a
group-by-group overview and the user drills into one group of switches.

**A click on a link** of a drawing breaks it *in the scenario*
(``scenario.toggled(label)``, the link named ``a[pa]-b[pb]``); a click on a
broken (dashed, black) link repairs it. The badge and every page follow, and
the routes are computed again around the break.

The page's parameters live in ``scenario.params["multicast"]``
(:data:`DEFAULTS`: algorithm ``a`` and ``b``, the ``part`` shown — None for
the whole fabric when small, else the overview — and the highlighted
``group``). Every control change is checked on the server and written to the
store, so the view, the share link and a reload follow it. The quick presets
(:data:`PRESETS`, e.g. the paper's teaching example where MINIHOP-MC-new
reaches max EFI 8 and FULB-MC 3) *replace* the shared scenario.
"""

from __future__ import annotations

import plotly.graph_objects as go
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.errors import VizcollError
from vizcoll.multicast.groups import simulate_group
from vizcoll.multicast.loads import groups_on_links, switch_group_rows, switch_groups, tree_rows, worst_rows
from vizcoll.multicast.routing import ALGORITHMS, MulticastResult, communicator_groups, route
from vizcoll.scenario import Scenario
from vizcoll.topology.model import Topology
from vizcoll.ui import ids
from vizcoll.ui.cache import memo
from vizcoll.ui.calls import SCENARIO, changed, checked, hops_of, remembered, store_output, topology_of, user_action
from vizcoll.ui.components.kit import field
from vizcoll.ui.components.player import pid, player, register_player, timeline_at
from vizcoll.ui.figures.efi import efi_histogram, empty_figure, group_summary, groups_hover, link_value_figure
from vizcoll.ui.figures.timeline import process_diagram
from vizcoll.ui.figures.topology import SMALL_LIMIT

__all__ = ["PAGE", "layout", "register", "DEFAULTS", "PRESETS", "read_params", "update", "controls", "render",
           "group_protocol", "render_protocol"]

PAGE = "multicast"
# the page's own components (the others are in vizcoll.ui.ids)
MC_PRESET = "mc-preset"
MC_USE_PRESET = "mc-use-preset"
MC_FABRIC = "mc-fabric"
MC_STATUS = "mc-status"

DEFAULTS = {"a": "minhop-new", "b": "fulb", "part": None, "group": None}
OVERVIEW, WHOLE = "overview", "whole"
MAX_GROUP_OPTIONS = 2000
MAX_PROTOCOL_MEMBERS = 32
NO_COMMUNICATORS = ("No communicators: define them on the Topology page (a pattern such as grid2d:4x4, a file, "
                    "or end nodes clicked on the drawing); each communicator becomes one multicast group.")
PRESETS = {
    "pruned-fat-tree": {
        "label": "Pruned fat tree (teaching example)",
        "about": "a pruned fat tree with 4 shortest paths from each leaf to the top, "
                 "a 16×8 grid of communicators with 2 processes per node; MINIHOP-MC-new reaches max EFI 8 where "
                 "FULB-MC's link rotation keeps it at 3.",
        "spec": "pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4", "pattern": "grid2d:16x8",
        "ppn": 2, "a": "minhop-new", "b": "fulb"},
    "dragonfly": {
        "label": "Dragonfly (fulb vs fulb+global)",
        "about": "a dragonfly (a=4, p=2, h=2: 9 groups of 4 switches) with a 12×6 grid of communicators; "
                 "fulb+global prefers routes over fewer global links.",
        "spec": "dragonfly:a=4,p=2,h=2", "pattern": "grid2d:12x6", "ppn": 1, "a": "fulb", "b": "fulb+global"},
}
"""The page's quick presets; choosing one replaces the shared scenario (fabric, communicators, no breaks)."""
GRAPH_CONFIG = {"toImageButtonOptions": {"format": "svg", "filename": "vizcoll-multicast"}}


# ---------------------------------------------------------------- parameters (the browser is untrusted)
def _algo(value, which: str) -> str:
    if not isinstance(value, str) or value not in ALGORITHMS:
        raise VizcollError(f"unknown algorithm {which} {str(value)[:40]!r}; choose one of {', '.join(ALGORITHMS)}")
    return value


def read_part(value, topo: Topology) -> str | None:
    """The part of the fabric to draw: None (the natural one), ``whole``, ``overview`` or ``group:N``."""
    if value is None:
        return None
    if value == WHOLE:
        if topo.n_nodes > SMALL_LIMIT:
            raise VizcollError(f"the whole fabric is drawn up to {SMALL_LIMIT:,} nodes (this one has "
                               f"{topo.n_nodes:,}): choose the overview or one group of switches")
        return WHOLE
    if value == OVERVIEW:
        return OVERVIEW
    if isinstance(value, str) and value.startswith("group:") and len(value) < 20:
        number = value[6:]
        if number.isdigit() and int(number) in switch_groups(topo):
            return f"group:{int(number)}"
        raise VizcollError(f"the fabric has no switch group {number[:12]!r}")
    raise VizcollError(f"unknown part {str(value)[:40]!r}; choose the whole fabric, the overview or a group")


def read_group(value, n_groups: int) -> int | None:
    """The highlighted group: None, or a group number of the scenario."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise VizcollError(f"the highlighted group must be a group number, got {str(value)[:40]!r}")
    if not 0 <= value < n_groups:
        have = f"{n_groups} (0–{n_groups - 1})" if n_groups else "none"
        raise VizcollError(f"group {value} does not exist: the scenario has {have}")
    return value


def read_params(values: dict, topo: Topology, n_groups: int) -> dict:
    """The page's parameters checked and canonical (plain JSON values); VizcollError names the first bad one."""
    return {"a": _algo(values.get("a"), "A"), "b": _algo(values.get("b"), "B"),
            "part": read_part(values.get("part"), topo), "group": read_group(values.get("group"), n_groups)}


def stored_params(scenario: Scenario, topo: Topology, n_groups: int) -> tuple[dict, str]:
    """The scenario's page parameters, each bad one replaced by its default, and a message naming them.

    A highlighted group that no longer exists (the communicators changed on the Topology page) is dropped
    without a message.
    """
    stored = dict(scenario.params.get(PAGE, {}))
    group = stored.get("group")
    if isinstance(group, int) and not isinstance(group, bool) and not 0 <= group < n_groups:
        stored["group"] = None
    out, bad = {}, []
    for key, default in DEFAULTS.items():
        try:
            out[key] = read_params(DEFAULTS | {key: stored.get(key, default)}, topo, n_groups)[key]
        except VizcollError as exc:
            out[key], bad = default, [*bad, str(exc)]
    return out, ("⚠ The page's stored settings: " + "; ".join(bad) + " — shown with the defaults.") if bad else ""


def natural_part(topo: Topology) -> str:
    return WHOLE if topo.n_nodes <= SMALL_LIMIT else OVERVIEW


def preset_scenario(name, scenario: Scenario) -> Scenario:
    """The scenario replaced by preset ``name`` (the other pages' settings kept)."""
    if not isinstance(name, str) or name not in PRESETS:
        raise VizcollError(f"unknown preset {str(name)[:40]!r}; choose one of {', '.join(PRESETS)}")
    p = PRESETS[name]
    return Scenario(spec=p["spec"], pattern=p["pattern"], ppn=p["ppn"],
                    params={**scenario.params, PAGE: DEFAULTS | {"a": p["a"], "b": p["b"]}})


def clicked_label(click) -> str | None:
    """The ``a[pa]-b[pb]`` label of the clicked link; None for a click on no link (a node, the overview)."""
    points = click.get("points") if isinstance(click, dict) else None
    if not isinstance(points, list) or not points or not isinstance(points[0], dict):
        raise VizcollError("the browser sent a malformed click")
    label = points[0].get("customdata")
    if label is None:
        return None
    if not isinstance(label, str) or not label or len(label) > 1000:
        raise VizcollError("the browser sent a malformed click on a link")
    return label


# ---------------------------------------------------------------- engine calls (cached)
def _comm_key(scenario: Scenario) -> dict:
    return {"pattern": scenario.pattern, "ppn": scenario.ppn, "lists": scenario.lists}


def _groups(source: dict, comm: dict) -> list[list[int]] | None:
    scenario = Scenario(**source, **comm)
    comms = scenario.communicators(topology_of(scenario))
    return None if comms is None else [g.tolist() for g in communicator_groups(comms)]


def groups_of(scenario: Scenario) -> list[list[int]] | None:
    """Member nodes of each multicast group (one per communicator); None when the scenario has none."""
    return memo(_groups, scenario.source_key(), _comm_key(scenario))


def _route(source: dict, comm: dict, algo: str) -> MulticastResult:
    scenario = Scenario(**source, **comm)
    return route(topology_of(scenario), _groups(source, comm) or [], algo, hops_of(scenario))


def routed(scenario: Scenario, algo: str) -> MulticastResult:
    """Every group of the scenario routed by ``algo`` on its fabric (breaks avoided), cached."""
    return memo(_route, scenario.source_key(), _comm_key(scenario), algo)


def page_state(scenario: Scenario) -> tuple[Topology, list[list[int]] | None, dict, list[str]]:
    """(topology, groups or None, checked parameters, messages about the scenario) for the views."""
    topo = topology_of(scenario)
    notes = []
    try:
        groups = groups_of(scenario)
    except VizcollError as exc:
        groups = None
        notes.append(f"⚠ The scenario's communicators do not fit its fabric: {exc}")
    else:
        if groups is None:
            notes.append(NO_COMMUNICATORS)
    params, bad = stored_params(scenario, topo, len(groups or []))
    return topo, groups, params, [*notes, bad] if bad else notes


# ---------------------------------------------------------------- pure views
def _names(topo: Topology, nodes, limit: int = 6) -> str:
    nodes = list(nodes)
    return ", ".join(topo.names[n] for n in nodes[:limit]) + (", …" if len(nodes) > limit else "")


def fabric_line(scenario: Scenario, topo: Topology, groups) -> str:
    s = topo.summary()
    text = (f"The scenario's fabric: {scenario.title} ({s['switches']:,} switches, {s['endpoints']:,} end nodes, "
            f"{s['links']:,} links, {s['broken_links']:,} broken).")
    if groups is not None:
        text += f" {len(groups):,} communicator{'s' * (len(groups) != 1)} → one multicast group each."
    return text


def group_options(topo: Topology, groups) -> list[dict]:
    return [{"label": f"group {i}: {len(g)} member{'s' * (len(g) != 1)} ({_names(topo, g, 3)})", "value": i}
            for i, g in enumerate((groups or [])[:MAX_GROUP_OPTIONS])]


def part_options(topo: Topology) -> list[dict]:
    options = [{"label": "overview by group", "value": OVERVIEW}]
    if topo.n_nodes <= SMALL_LIMIT:
        options.insert(0, {"label": "whole fabric", "value": WHOLE})
    return options + [{"label": f"group {g}", "value": f"group:{g}"} for g in switch_groups(topo)]


def summary_table(params: dict, results: dict[str, MulticastResult]) -> html.Table:
    rows = [("max EFI", "max_efi"), ("mean EFI (used links)", "mean_efi"), ("max tree height", "max_height"),
            ("groups", "groups"), ("unroutable groups", "unroutable"), ("routing time (s)", "runtime_s")]
    summaries = {name: r.summary() for name, r in results.items()}
    head = html.Tr([html.Th("")] + [html.Th(f"{name.upper()}: {params[name]}") for name in results])
    body = [html.Tr([html.Td(label)] + [html.Td(f"{summaries[n][key]:,}") for n in results]) for label, key in rows]
    return html.Table(className="summary", children=[html.Thead(head), html.Tbody(body)])


def unroutable_line(topo: Topology, groups, results: dict[str, MulticastResult], limit: int = 6) -> str:
    """The groups no algorithm could route (members cut apart by the broken links), by name."""
    lost = sorted({g for r in results.values() for g in r.unroutable})
    if not lost:
        return ""
    named = "; ".join(f"group {g} ({_names(topo, groups[g], 4) or 'no members'})" for g in lost[:limit])
    more = f"; and {len(lost) - limit} more" if len(lost) > limit else ""
    one = len(lost) == 1
    return (f"⚠ {len(lost)} group{'' if one else 's'} cannot be routed: {'its' if one else 'their'} members cannot "
            f"all reach one switch over the live links — {named}{more}. Repair a link (badge above) to route "
            f"{'it' if one else 'them'}.")


def worst_links(topo: Topology, result: MulticastResult, name: str, count: int = 5) -> str:
    parts = [f"{topo.link_label(r)} (link {int(topo.link_id[r])}): EFI {int(result.efi[r])}"
             for r in worst_rows(result, count).tolist()]
    return f"Worst links under {name} ({result.algo}): " + "; ".join(parts) if parts else ""


def group_info(topo: Topology, groups, params: dict, results: dict[str, MulticastResult]) -> str:
    """The highlighted group's members and trees; without one, the first groups by name."""
    group = params["group"]
    if group is None:
        shown = "; ".join(f"{i}: {_names(topo, g, 4)}" for i, g in enumerate(groups[:6]))
        more = f"; … ({len(groups):,} groups)" if len(groups) > 6 else ""
        return f"Groups — {shown}{more}. Choose one above to highlight its tree and replay its join/leave."
    described = []
    for name, result in results.items():
        tree = result.trees[group]
        described.append(f"{name.upper()} {result.algo}: unroutable" if tree is None else
                         f"{name.upper()} {result.algo}: root {topo.names[tree.root]}, height {tree.height}, "
                         f"{len(tree.links)} links")
    members = groups[group]
    return (f"Group {group} ({len(members)} member{'s' * (len(members) != 1)}: {_names(topo, members, 8)}) — "
            + "; ".join(described))


def figures(topo: Topology, params: dict, a: MulticastResult, b: MulticastResult
            ) -> tuple[go.Figure, go.Figure, go.Figure, go.Figure]:
    """Heatmaps of A and B, their difference and the EFI histogram for the chosen part and group."""
    hist = efi_histogram({f"A: {a.algo}": a.efi, f"B: {b.algo}": b.efi})
    part = params["part"] or natural_part(topo)
    if part == OVERVIEW:
        return (group_summary(topo, a.efi).update_layout(title_text=f"A: {a.algo} — max EFI between groups"),
                group_summary(topo, b.efi).update_layout(title_text=f"B: {b.algo} — max EFI between groups"),
                group_summary(topo, b.efi - a.efi, label="EFI B − A")
                .update_traces(colorscale="RdBu_r", zmid=0).update_layout(title_text="B − A, max per group pair"),
                hist)
    rows = None if part == WHOLE else switch_group_rows(topo, int(part.split(":")[1]))
    heat = [link_value_figure(topo, r.efi, f"{name}: {r.algo} (max EFI {int(r.efi.max(initial=0))})",
                              hover=groups_hover(groups_on_links(r, topo.n_links)), rows=rows,
                              highlight=tree_rows(r, params["group"]), clickable=True)
            for name, r in (("A", a), ("B", b))]
    diff = link_value_figure(topo, b.efi - a.efi, f"Difference B − A ({b.algo} − {a.algo})", rows=rows,
                             diverging=True, label="EFI B − A", clickable=True)
    return heat[0], heat[1], diff, hist


# ---------------------------------------------------------------- layout
def layout(scenario: Scenario) -> html.Div:
    """The page on ``scenario``: the controls show its page parameters (bad stored values: the defaults)."""
    topo, groups, p, _ = page_state(scenario)
    algos = [{"label": a, "value": a} for a in ALGORITHMS]
    sidebar = html.Div(className="sidebar", children=[
        html.Details(open=True, className="panel", children=[
            html.Summary("Multicast routing"),
            html.P(fabric_line(scenario, topo, groups), id=MC_FABRIC, className="info"),
            field("algorithm A", dcc.Dropdown(id=ids.MC_ALGO_A, options=algos, value=p["a"], clearable=False,
                                               className="grow", style={"minWidth": 180})),
            field("algorithm B", dcc.Dropdown(id=ids.MC_ALGO_B, options=algos, value=p["b"], clearable=False,
                                               className="grow", style={"minWidth": 180})),
            html.Div(id=ids.MC_MESSAGE, className="message", role="alert"),
            html.P(className="info", children=(
                "One multicast group per communicator of the scenario (define them on the Topology page). EFI "
                "(edge forwarding index) of a link = number of groups whose tree uses it; lower is better. -new = "
                "with FULB's root rotation; fulb+global prefers fewer dragonfly global links. Every change "
                "routes again.")),
        ]),
        html.Details(open=True, className="panel", children=[
            html.Summary("Quick preset"),
            dcc.Dropdown(id=MC_PRESET, clearable=False, value=next(iter(PRESETS)), optionHeight=60,
                         options=[{"label": v["label"], "value": k} for k, v in PRESETS.items()]),
            html.Div(className="buttons", children=[html.Button("Use this preset", id=MC_USE_PRESET, n_clicks=0)]),
            html.Ul(className="info", children=[html.Li([html.B(p["label"]), ": ", p["about"]])
                                                 for p in PRESETS.values()]),
            html.P(className="info", children=(
                "A preset replaces the shared scenario — fabric, communicators, no broken links — for every page "
                "(the badge above shows it); Download scenario first to keep the current one.")),
        ]),
    ])
    main = html.Div(className="main", children=[
        html.Div(id=ids.MC_SUMMARY, className="panel"),
        html.Div(id=MC_STATUS, className="flag", role="status"),
        html.Div(className="row", children=[
            field("show", dcc.Dropdown(id=ids.MC_PART, clearable=False, className="grow", style={"width": 260},
                                        options=part_options(topo), value=p["part"] or natural_part(topo))),
            field("highlight group", dcc.Dropdown(id=ids.MC_GROUP, className="grow", style={"width": 360},
                                                   options=group_options(topo, groups), value=p["group"],
                                                   placeholder="choose a group")),
        ]),
        html.Div(id=ids.MC_GROUP_INFO, className="info"),
        html.P(className="info", children=(
            "Click a link on a drawing to break it in the scenario (every page follows and the groups are routed "
            "around it); click a broken link (dashed, black) to repair it.")),
        html.Div(className="pair", children=[dcc.Graph(id=ids.MC_FIG_A, config=GRAPH_CONFIG),
                                             dcc.Graph(id=ids.MC_FIG_B, config=GRAPH_CONFIG)]),
        html.Div(className="pair", children=[dcc.Graph(id=ids.MC_FIG_DIFF, config=GRAPH_CONFIG),
                                             dcc.Graph(id=ids.MC_HIST, config=GRAPH_CONFIG)]),
        html.Div(id=ids.MC_WORST, className="info"),
        html.Div(className="panel player-panel", children=[
            html.H3("Join / leave protocol of the highlighted group under B (paper section 3.2)"),
            dcc.Graph(id=ids.MC_STATE_FIG, config=GRAPH_CONFIG),
            player(ids.MC_PLAYER),
        ]),
    ])
    return html.Div(className="page multicast-page", children=[html.Div(className="columns",
                                                                       children=[sidebar, main])])


# ---------------------------------------------------------------- callbacks
FIGURES = (ids.MC_FIG_A, ids.MC_FIG_B, ids.MC_FIG_DIFF)


def register(app: Dash) -> None:
    register_player(app, ids.MC_PLAYER)
    app.callback(
        store_output(), Output(ids.MC_MESSAGE, "children"),
        Input(ids.MC_ALGO_A, "value"), Input(ids.MC_ALGO_B, "value"), Input(ids.MC_PART, "value"),
        Input(ids.MC_GROUP, "value"), *[Input(f, "clickData") for f in FIGURES], Input(MC_USE_PRESET, "n_clicks"),
        State(MC_PRESET, "value"), State(SCENARIO, "data"), prevent_initial_call=True,
    )(update)
    app.callback(
        Output(MC_FABRIC, "children"), Output(ids.MC_ALGO_A, "value"), Output(ids.MC_ALGO_B, "value"),
        Output(ids.MC_PART, "options"), Output(ids.MC_PART, "value"), Output(ids.MC_GROUP, "options"),
        Output(ids.MC_GROUP, "value"),
        Input(SCENARIO, "data"),
        State(ids.MC_ALGO_A, "value"), State(ids.MC_ALGO_B, "value"), State(ids.MC_PART, "value"),
        State(ids.MC_GROUP, "value"),
    )(controls)
    app.callback(
        Output(ids.MC_SUMMARY, "children"), Output(MC_STATUS, "children"), Output(ids.MC_FIG_A, "figure"),
        Output(ids.MC_FIG_B, "figure"), Output(ids.MC_FIG_DIFF, "figure"), Output(ids.MC_HIST, "figure"),
        Output(ids.MC_GROUP_INFO, "children"), Output(ids.MC_WORST, "children"),
        Input(SCENARIO, "data"),
    )(render)
    app.callback(Output(pid(ids.MC_PLAYER, "timeline"), "data"), Input(SCENARIO, "data"))(group_protocol)
    app.callback(
        Output(ids.MC_STATE_FIG, "figure"),
        Input(pid(ids.MC_PLAYER, "step"), "value"), Input(pid(ids.MC_PLAYER, "timeline"), "data"),
    )(render_protocol)


def update(algo_a, algo_b, part, group, click_a, click_b, click_diff, _use_preset, preset, data):
    """A control changed: the shared scenario with the page's checked parameters, a link broken or repaired
    (a click on a drawing), or a preset; a bad value leaves the store as it is, with a message."""
    if not user_action():  # the page appearing, or the controls following the store
        return no_update, no_update
    scenario, message = checked(data)
    if scenario is None:
        return no_update, message
    trigger = ctx.triggered_id
    clicks = dict(zip(FIGURES, (click_a, click_b, click_diff), strict=True))
    try:
        if trigger == MC_USE_PRESET:
            return preset_scenario(preset, scenario).to_dict(), ""
        if trigger in clicks:
            label = clicked_label(clicks[trigger])
            if label is None:
                return no_update, ("Click the middle of a link (its hover names it) to break or repair it; the "
                                   "overview has no links to click: choose a part above.")
            return scenario.toggled(label).to_dict(), ""
        topo = topology_of(scenario)
        try:
            groups = groups_of(scenario)
        except VizcollError:  # the view says why; the algorithms can still be chosen
            groups = None
        params = read_params({"a": algo_a, "b": algo_b, "part": part, "group": group}, topo, len(groups or []))
    except VizcollError as exc:
        return no_update, f"⚠ {exc}"
    if params["part"] == natural_part(topo):
        params["part"] = None  # the natural part follows the fabric (whole when small, else the overview)
    return remembered(data, PAGE, params), ""


def controls(data, a_now=None, b_now=None, part_now=None, group_now=None):
    """The fabric's line and the controls following the store (each written only when it changed)."""
    scenario, message = checked(data)
    if scenario is None:
        return (message,) + (no_update,) * 6
    topo, groups, p, _ = page_state(scenario)
    return (fabric_line(scenario, topo, groups), changed(p["a"], a_now), changed(p["b"], b_now),
            part_options(topo), changed(p["part"] or natural_part(topo), part_now), group_options(topo, groups),
            changed(p["group"], group_now))


def render(data):
    """Summary, status, the four figures, the group's line and the worst links of the scenario's routes."""
    scenario, message = checked(data)
    if scenario is None:
        return (no_update, message) + (no_update,) * 6
    topo, groups, p, notes = page_state(scenario)
    if not groups:
        blank = empty_figure("No multicast group to route: see the message above.")
        return "", "\n".join(notes) or "The scenario's communicators are empty.", blank, blank, blank, blank, "", ""
    results = {"a": routed(scenario, p["a"]), "b": routed(scenario, p["b"])}
    status = "\n".join(filter(None, [*notes, unroutable_line(topo, groups, results)]))
    fig_a, fig_b, diff, hist = figures(topo, p, results["a"], results["b"])
    worst = [html.Div(worst_links(topo, results[name], name.upper())) for name in ("a", "b")]
    return (summary_table(p, results), status, fig_a, fig_b, diff, hist, group_info(topo, groups, p, results),
            worst)


def group_protocol(data):
    """The join/leave timeline of the highlighted group under B (the subnet manager sits on its tree's root)."""
    scenario, _ = checked(data)
    if scenario is None:
        return None
    topo, groups, p, _ = page_state(scenario)
    if not groups or p["group"] is None:
        return None
    tree = routed(scenario, p["b"]).trees[p["group"]]
    if tree is None:
        return None
    members = tree.members[:MAX_PROTOCOL_MEMBERS]
    return simulate_group(members.tolist(), sm_node=tree.root, names=topo.names, seed=0).to_dict()


def render_protocol(position, timeline):
    if not timeline:
        return empty_figure("Choose a group to replay its join/leave protocol.", height=200)
    return process_diagram(*timeline_at(timeline, position))

