"""The topology page: generate, upload, draw and edit a fabric, define communicators, watch a broadcast.

Everything the user builds lives in one :class:`~vizcoll.scenario.Scenario`
kept in the browser (``dcc.Store``); callbacks turn inputs into scenario
edits, rebuild the topology through the cache and hand it to the pure figure
builders. Clicking a link breaks it (and clicking again repairs it).
"""

from __future__ import annotations

import base64
import inspect
from dataclasses import replace

import dash_cytoscape as cyto
import numpy as np
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from vizcoll.comm import parse_lists
from vizcoll.errors import VizcollError
from vizcoll.scenario import DEFAULT_SPEC, Scenario
from vizcoll.sim.broadcast import broadcast
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import GENERATORS, parse_spec
from vizcoll.topology.model import Topology
from vizcoll.ui import ids
from vizcoll.ui.cache import memo
from vizcoll.ui.calls import topology_of
from vizcoll.ui.components.player import pid, player, register_player, timeline_at
from vizcoll.ui.figures.topology import (
    PALETTE,
    SMALL_LIMIT,
    base_stylesheet,
    cytoscape_elements,
    large_figure,
    state_stylesheet,
)

__all__ = ["layout", "register", "DEFAULT_SCENARIO"]

DEFAULT_SCENARIO = Scenario(spec=DEFAULT_SPEC, edits=[{"op": "toggle_broken", "id": 17}], pattern="grid2d:4x4",
                            params={"root": "h0"})
EXAMPLE_SPECS = {
    "fat-tree": "fat-tree:radix=4,levels=3",
    "pruned-fat-tree": "pruned-fat-tree:pods=2,leaves=2,hosts=4,spines=2,up=2,paths=1",
    "sunway-supernode": "sunway-supernode",
    "torus": "torus:4x4x2,hosts=1",
    "dragonfly": "dragonfly:a=4,p=2,h=2",
    "mesh": "mesh:4x4,neighbors=8",
}
ANIMATION_LIMIT = SMALL_LIMIT


# ---------------------------------------------------------------- engine calls (cached)
def broadcast_of(scenario: Scenario, root: str) -> dict:
    topo = topology_of(scenario)
    return broadcast(topo, root).to_dict()


# ---------------------------------------------------------------- layout
def _section(title: str, *children) -> html.Details:
    return html.Details(open=True, className="panel", children=[html.Summary(title), *children])


def layout(query: str = "", banner: bool = False) -> html.Div:
    """The page; ``query`` (a URL query string) reopens a shared view."""
    message = ""
    try:
        scenario = Scenario.from_query(query) if "spec=" in query else DEFAULT_SCENARIO
    except VizcollError as exc:
        scenario, message = DEFAULT_SCENARIO, f"The link's parameters were not usable: {exc}"
    intro = html.Div(className="banner", children=[
        html.H2("vizcoll — see collective communication on real interconnects"),
        html.P("This default scenario is a 3-level fat tree of 4-port switches with one broken link "
               "(red, dashed), 16 processes split into a 4×4 grid of communicators (colours), and a "
               "broadcast from h0 along shortest paths. Press ▶ Play, click a link to break or repair it, "
               "or generate another fabric on the left."),
    ]) if banner else None
    return html.Div(className="page topology-page", children=[
        intro,
        dcc.Store(id=ids.TOPO_SCENARIO, data=scenario.to_dict()),
        dcc.Download(id=ids.TOPO_DOWNLOAD),
        html.Div(className="columns", children=[_controls(scenario), _canvas(scenario)]),
        html.Div(id=ids.TOPO_MESSAGE, className="message", role="alert", children=message),
    ])


def _controls(scenario: Scenario) -> html.Div:
    name = scenario.spec.partition(":")[0]
    return html.Div(className="sidebar", children=[
        _section("Fabric",
                 dcc.Dropdown(id=ids.TOPO_GENERATOR, options=list(EXAMPLE_SPECS), value=name, clearable=False),
                 dcc.Input(id=ids.TOPO_PARAMS, value=scenario.spec, debounce=True, className="wide",
                           placeholder="spec, e.g. torus:4x4x2,hosts=1"),
                 html.Div(id=ids.TOPO_SPEC_HELP, className="info", children=spec_help(name)),
                 html.Button("Generate", id=ids.TOPO_GENERATE, n_clicks=0),
                 dcc.Upload(id=ids.TOPO_UPLOAD, className="upload", max_size=topo_io.MAX_FILE_BYTES,
                            children=html.Div(["Drop or ", html.A("choose a topology file"),
                                               html.Br(), html.Small("JSON, GraphML, ibnetdiscover, ibsim net")]))),
        _section("Edit (click nodes to fill A/B, click a link to break it)",
                 html.Div(className="row", children=[
                     dcc.Input(id=ids.TOPO_NODE_A, placeholder="node A", debounce=False),
                     dcc.Input(id=ids.TOPO_NODE_B, placeholder="node B", debounce=False)]),
                 html.Div(className="row", children=[
                     dcc.Input(id=ids.TOPO_NEW_NAME, placeholder="new name"),
                     dcc.RadioItems(id=ids.TOPO_NEW_KIND, options=["switch", "endpoint"], value="switch",
                                    inline=True)]),
                 html.Div(className="buttons", children=[
                     html.Button("Add node (new name)", id=ids.TOPO_ADD_NODE, n_clicks=0),
                     html.Button("Link A–B", id=ids.TOPO_ADD_LINK, n_clicks=0),
                     html.Button("Remove A", id=ids.TOPO_REMOVE_NODE, n_clicks=0),
                     html.Button("Rename A → new name", id=ids.TOPO_RENAME, n_clicks=0)]),
                 html.Div(className="row", children=[
                     dcc.Input(id=ids.TOPO_LINK_ID, type="number", placeholder="link id", min=0),
                     html.Button("Break / repair", id=ids.TOPO_TOGGLE_LINK, n_clicks=0),
                     html.Button("Remove link", id=ids.TOPO_REMOVE_LINK, n_clicks=0)])),
        _section("Communicators",
                 dcc.Input(id=ids.TOPO_PATTERN, value=scenario.pattern, className="wide",
                           placeholder="grid2d:4x4, grid3d:2x2x4, random:4,size=4,seed=1, hier:4"),
                 html.Div(className="row", children=[
                     html.Label("processes per node"),
                     dcc.Input(id=ids.TOPO_PPN, type="number", min=1, max=64, value=scenario.ppn)]),
                 html.Button("Apply", id=ids.TOPO_APPLY_COMM, n_clicks=0),
                 dcc.Upload(id=ids.TOPO_COMM_UPLOAD, className="upload", max_size=topo_io.MAX_FILE_BYTES,
                            children=html.Div(["Drop or ", html.A("choose a communicators file"), html.Br(),
                                               html.Small('{"communicators": [["h0", "h1"], ...]}')])),
                 html.Div(id=ids.TOPO_COMM_INFO, className="info")),
        _section("Scenario",
                 html.Div(className="buttons", children=[
                     html.Button("Export scenario", id=ids.TOPO_EXPORT, n_clicks=0),
                     html.Button("Download PNG", id=ids.TOPO_PNG, n_clicks=0)]),
                 html.Div(className="row", children=[
                     dcc.Dropdown(id=ids.TOPO_EXPORT_FORMAT, options=list(topo_io.FORMATS), value="json",
                                  clearable=False, className="grow"),
                     html.Button("Export topology", id=ids.TOPO_EXPORT_TOPO, n_clicks=0)]),
                 dcc.Upload(id=ids.TOPO_IMPORT, className="upload", max_size=topo_io.MAX_FILE_BYTES,
                            children=html.Div(["Drop or ", html.A("choose a scenario file")])),
                 html.A("Link to this view", id=ids.TOPO_SHARE, href="#")),
    ])


def _canvas(scenario: Scenario) -> html.Div:
    return html.Div(className="main", children=[
        html.Div(id=ids.TOPO_COUNTS, className="counts"),
        cyto.Cytoscape(id=ids.TOPO_CANVAS, elements=[], layout={"name": "preset", "fit": True},
                       stylesheet=base_stylesheet(), style={"width": "100%", "height": "560px"},
                       minZoom=0.05, maxZoom=4, boxSelectionEnabled=False),
        dcc.Graph(id=ids.TOPO_LARGE, style={"display": "none"},
                  config={"toImageButtonOptions": {"format": "svg", "filename": "vizcoll-topology"}}),
        _legend(),
        html.Div(className="panel player-panel", children=[
            html.H3("Broadcast along a shortest-path tree"),
            html.Div(className="row", children=[
                html.Label("root"),
                dcc.Dropdown(id=ids.TOPO_ROOT, value=scenario.params.get("root"), clearable=False,
                             className="grow")]),
            html.Div(id=ids.TOPO_BCAST_INFO, className="info"),
            player(ids.TOPO_PLAYER),
        ]),
    ])


def _legend() -> html.Div:
    items = [("switch", "legend-switch"), ("end node", "legend-endpoint"), ("broken link", "legend-broken"),
             ("root", "legend-root"), ("packet on the move", "legend-active"), ("has the packet", "legend-received"),
             ("unreachable", "legend-unreachable")]
    return html.Div(id=ids.TOPO_LEGEND, className="legend", children=[
        html.Span([html.Span(className=f"swatch {cls}"), label]) for label, cls in items])


# ---------------------------------------------------------------- scenario changes (pure)
def _decode_upload(contents: str) -> bytes:
    _, _, payload = contents.partition(",")
    return base64.b64decode(payload)


def scenario_after(trigger: str, scenario: Scenario, values: dict) -> Scenario:
    """The scenario after the control ``trigger`` was used; raises VizcollError with a user message."""
    if trigger == ids.TOPO_GENERATE or trigger == ids.TOPO_PARAMS:
        spec = (values["params"] or "").strip()
        parse_spec(spec)
        new = Scenario(spec=spec, pattern="", ppn=1)
        topology_of(new)  # parse_spec checks the syntax only; a spec that cannot build must not reach the store
        return new
    if trigger == ids.TOPO_GENERATOR:
        return Scenario(spec=EXAMPLE_SPECS[values["generator"]])
    if trigger == ids.TOPO_UPLOAD:
        topo = topo_io.parse(_decode_upload(values["upload"]), values["upload_name"] or "upload")
        return Scenario(spec=f"file:{values['upload_name']}", topology=topo.to_dict())
    if trigger == ids.TOPO_IMPORT:
        return Scenario.loads(_decode_upload(values["import"]))
    if trigger == ids.TOPO_APPLY_COMM:
        new = replace(scenario, pattern=(values["pattern"] or "").strip(), ppn=int(values["ppn"] or 1), lists=None)
        new.communicators(topology_of(new))
        return new
    if trigger == ids.TOPO_COMM_UPLOAD:
        lists = parse_lists(_decode_upload(values["comm_upload"]), values["comm_upload_name"] or "upload")
        new = replace(scenario, pattern="", lists=lists)
        new.communicators(topology_of(new))
        return new
    edit = _edit_for(trigger, values)
    return scenario.with_edit(edit) if edit else scenario


def _edit_for(trigger: str, values: dict) -> dict | None:
    a, b, new = ((values[k] or "").strip() for k in ("a", "b", "new_name"))
    link = values["link_id"]
    if trigger == ids.TOPO_CANVAS:
        return {"op": "toggle_broken", "id": int(values["tap_edge"]["data"]["link"])}
    if trigger in (ids.TOPO_TOGGLE_LINK, ids.TOPO_REMOVE_LINK) and link is None:
        raise VizcollError("type a link id first (click a link to see its id)")
    return {
        ids.TOPO_ADD_NODE: {"op": "add_node", "name": new, "kind": values["kind"]},
        ids.TOPO_ADD_LINK: {"op": "add_link", "a": a, "b": b},
        ids.TOPO_REMOVE_NODE: {"op": "remove_node", "name": a},
        ids.TOPO_RENAME: {"op": "rename", "name": a, "new": new},
        ids.TOPO_TOGGLE_LINK: {"op": "toggle_broken", "id": link},
        ids.TOPO_REMOVE_LINK: {"op": "remove_link", "id": link},
    }.get(trigger)


# ---------------------------------------------------------------- views (pure)
def spec_help(generator: str) -> str:
    """The generator's spec with every parameter at its default, as an example to edit."""
    if generator not in GENERATORS:
        return "A topology read from a file."
    parts = []
    for p in inspect.signature(GENERATORS[generator]).parameters.values():
        if p.name == "dims":
            parts.insert(0, "x".join(map(str, p.default)))
        elif p.default != "":
            parts.append(f"{p.name}={p.default}")
    example = generator + (":" + ",".join(parts) if parts else "")
    return f"Defaults: {example}"


def communicator_colours(scenario: Scenario, topo: Topology) -> tuple[dict[int, int], str]:
    """Node -> index of the first communicator it hosts, and a one-line description."""
    comms = scenario.communicators(topo)
    if comms is None:
        return {}, "No communicators: type a pattern and press Apply, or upload a file."
    nodes, first = np.unique(comms.node_array(), return_index=True)  # entries are in communicator order
    colour = dict(zip(nodes.tolist(), comms.comm_of_entry()[first].tolist(), strict=True))
    sizes = ", ".join(f"{count} of size {size}" for size, count in sorted(comms.sizes().items()))
    return colour, f"{len(comms)} communicators ({sizes}); end nodes take the colour " \
                   f"of their first communicator ({len(PALETTE)} colours repeat)."


def counts_text(topo: Topology) -> list:
    s = topo.summary()
    parts = [("switch", "switches", s["switches"]), ("end node", "end nodes", s["endpoints"]),
             ("link", "links", s["links"]), ("broken link", "broken links", s["broken_links"]),
             ("max ports", "max ports", s["max_ports"])]
    return [html.Span([html.B(f"{value:,}"), f" {one if value == 1 else many}"], className="count")
            for one, many, value in parts]


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    """Attach the page's callbacks to ``app``."""
    register_player(app, ids.TOPO_PLAYER)
    inputs = {
        "generate": Input(ids.TOPO_GENERATE, "n_clicks"), "params_submit": Input(ids.TOPO_PARAMS, "n_submit"),
        "generator": Input(ids.TOPO_GENERATOR, "value"), "upload": Input(ids.TOPO_UPLOAD, "contents"),
        "import": Input(ids.TOPO_IMPORT, "contents"), "apply": Input(ids.TOPO_APPLY_COMM, "n_clicks"),
        "comm_upload": Input(ids.TOPO_COMM_UPLOAD, "contents"),
        "tap_edge": Input(ids.TOPO_CANVAS, "tapEdge"),
        **{k: Input(i, "n_clicks") for k, i in (
            ("add_node", ids.TOPO_ADD_NODE), ("add_link", ids.TOPO_ADD_LINK), ("remove_node", ids.TOPO_REMOVE_NODE),
            ("rename", ids.TOPO_RENAME), ("toggle", ids.TOPO_TOGGLE_LINK), ("remove_link", ids.TOPO_REMOVE_LINK))},
    }
    states = {
        "params": State(ids.TOPO_PARAMS, "value"), "upload_name": State(ids.TOPO_UPLOAD, "filename"),
        "comm_upload_name": State(ids.TOPO_COMM_UPLOAD, "filename"),
        "a": State(ids.TOPO_NODE_A, "value"), "b": State(ids.TOPO_NODE_B, "value"),
        "new_name": State(ids.TOPO_NEW_NAME, "value"), "kind": State(ids.TOPO_NEW_KIND, "value"),
        "link_id": State(ids.TOPO_LINK_ID, "value"), "pattern": State(ids.TOPO_PATTERN, "value"),
        "ppn": State(ids.TOPO_PPN, "value"), "scenario": State(ids.TOPO_SCENARIO, "data"),
    }
    app.callback(
        Output(ids.TOPO_SCENARIO, "data"), Output(ids.TOPO_MESSAGE, "children"), Output(ids.TOPO_GENERATOR, "value"),
        inputs=inputs, state=states, prevent_initial_call=True,
    )(update_scenario)
    app.callback(
        Output(ids.TOPO_CANVAS, "elements"), Output(ids.TOPO_CANVAS, "style"), Output(ids.TOPO_LARGE, "figure"),
        Output(ids.TOPO_LARGE, "style"), Output(ids.TOPO_LEGEND, "style"), Output(ids.TOPO_COUNTS, "children"),
        Output(ids.TOPO_COMM_INFO, "children"),
        Output(ids.TOPO_SHARE, "href"), Output(ids.TOPO_ROOT, "options"), Output(ids.TOPO_ROOT, "value"),
        Output(ids.TOPO_PARAMS, "value"), Output(ids.TOPO_PATTERN, "value"),
        Input(ids.TOPO_SCENARIO, "data"), State(ids.TOPO_ROOT, "value"),
    )(render_scenario)
    app.callback(
        Output(pid(ids.TOPO_PLAYER, "timeline"), "data"), Output(ids.TOPO_BCAST_INFO, "children"),
        Input(ids.TOPO_SCENARIO, "data"), Input(ids.TOPO_ROOT, "value"),
    )(compute_broadcast)
    app.callback(
        Output(ids.TOPO_CANVAS, "stylesheet"),
        Input(pid(ids.TOPO_PLAYER, "step"), "value"), Input(pid(ids.TOPO_PLAYER, "timeline"), "data"),
    )(render_step)
    app.callback(
        Output(ids.TOPO_NODE_A, "value"), Output(ids.TOPO_NODE_B, "value"), Output(ids.TOPO_LINK_ID, "value"),
        Input(ids.TOPO_CANVAS, "tapNode"), Input(ids.TOPO_CANVAS, "tapEdge"), State(ids.TOPO_NODE_A, "value"),
        prevent_initial_call=True,
    )(fill_selection)
    app.callback(
        Output(ids.TOPO_DOWNLOAD, "data"),
        Input(ids.TOPO_EXPORT, "n_clicks"), Input(ids.TOPO_EXPORT_TOPO, "n_clicks"),
        State(ids.TOPO_SCENARIO, "data"), State(ids.TOPO_EXPORT_FORMAT, "value"), prevent_initial_call=True,
    )(export)
    app.callback(Output(ids.TOPO_SPEC_HELP, "children"), Input(ids.TOPO_GENERATOR, "value"))(spec_help)
    app.callback(
        Output(ids.TOPO_CANVAS, "generateImage"), Input(ids.TOPO_PNG, "n_clicks"), prevent_initial_call=True,
    )(lambda _: {"type": "png", "action": "download", "filename": "vizcoll-topology"})


def update_scenario(scenario, **values):
    """Apply the triggered control to the scenario; a bad input leaves it unchanged with a message."""
    trigger = ctx.triggered_id
    try:
        new = scenario_after(trigger, Scenario.from_dict(scenario), values)
    except VizcollError as exc:
        return no_update, f"⚠ {exc}", no_update
    generator = new.spec.partition(":")[0]
    return new.to_dict(), "", generator if generator in EXAMPLE_SPECS else None


def render_scenario(scenario_dict, root):
    """Draw the scenario: cytoscape for small fabrics, a WebGL figure for large ones."""
    scenario = Scenario.from_dict(scenario_dict)
    topo = topology_of(scenario)
    try:
        colours, comm_info = communicator_colours(scenario, topo)
    except VizcollError as exc:
        colours, comm_info = {}, f"⚠ {exc}"
    small = topo.n_nodes <= SMALL_LIMIT
    hidden, shown = {"display": "none"}, {"width": "100%", "height": "560px"}
    elements = cytoscape_elements(topo, colours) if small else []
    figure = no_update if small else large_figure(topo)
    names = [topo.names[i] for i in (topo.endpoints if len(topo.endpoints) else topo.switches)]
    wanted = root or scenario.params.get("root")
    root = wanted if wanted in topo else (names[0] if names else None)
    options = names[:500] + ([root] if root and root not in names[:500] else [])
    query = replace(scenario, params={"root": root}).to_query() if scenario.topology is None else ""
    spec = scenario.spec if scenario.topology is None else ""
    return (elements, shown if small else hidden, figure, hidden if small else shown, {} if small else hidden,
            counts_text(topo), comm_info,
            f"/topology?{query}" if query else "#", options, root, spec, scenario.pattern)


def compute_broadcast(scenario_dict, root):
    """The broadcast timeline from ``root`` (animated up to ANIMATION_LIMIT nodes; figures at any size)."""
    scenario = Scenario.from_dict(scenario_dict)
    topo = topology_of(scenario)
    if not root or root not in topo:
        return None, "Choose a root."
    timeline = memo(broadcast_of_dict, scenario_dict | {"params": {}}, root)
    s = timeline["summary"]
    info = f"{s['reached']:,} nodes reached in {s['hops']} hops with {s['messages']:,} messages; " \
           f"{s['unreachable']:,} unreachable."
    if topo.n_nodes > ANIMATION_LIMIT:
        return None, info + f" (the animation is drawn for fabrics up to {ANIMATION_LIMIT:,} nodes)"
    return timeline, info


def broadcast_of_dict(scenario_dict: dict, root: str) -> dict:
    return broadcast_of(Scenario.from_dict(scenario_dict), root)


def render_step(step, timeline):
    """Stylesheet for one player step: node states, the links and receivers of this hop."""
    sheet = base_stylesheet()
    if not timeline:
        return sheet
    tl, step = timeline_at(timeline, step)
    events = tl.active_at(step) if step >= 0 else []
    links = [lid for e in events for lid in e.path_links]
    receivers = [e.dst for e in events if e.dst >= 0]
    state = {f"n{tl.entities[key]['node']}": value for key, value in tl.state_at(step).items()
             if key in tl.entities}
    return sheet + state_stylesheet(state, links, receivers)


def fill_selection(tap_node, tap_edge, current_a):
    """A clicked node becomes A (the previous A moves to B); a clicked link fills the link id."""
    if ctx.triggered_id == ids.TOPO_CANVAS and ctx.triggered and "tapEdge" in ctx.triggered[0]["prop_id"]:
        return no_update, no_update, tap_edge["data"]["link"]
    return tap_node["data"]["label"], current_a or no_update, no_update


def export(_scenario_clicks, _topo_clicks, scenario_dict, fmt):
    """Download the scenario (JSON) or the topology in the chosen file format."""
    scenario = Scenario.from_dict(scenario_dict)
    if ctx.triggered_id == ids.TOPO_EXPORT:
        return {"content": scenario.dumps(), "filename": "vizcoll-scenario.json"}
    ext = {"json": "json", "graphml": "graphml", "ibsim": "net", "ibnetdiscover": "ibnd"}[fmt]
    return {"content": topo_io.dumps(topology_of(scenario), fmt), "filename": f"topology.{ext}"}

