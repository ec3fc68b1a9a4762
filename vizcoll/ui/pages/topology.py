"""The topology page: generate, upload, draw and edit a fabric, define communicators, watch a broadcast.

Everything the user builds lives in the one shared
:class:`~vizcoll.scenario.Scenario` (the shell's store, read by every page);
callbacks turn inputs into scenario changes, rebuild the topology through the
cache and hand it to the pure figure builders. Clicking a link breaks it (and
clicking again repairs it); in communicator mode, clicking an end node puts it
into the communicator being edited (and clicking again takes it out).
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
from vizcoll.scenario import Scenario
from vizcoll.sim.broadcast import broadcast
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import GENERATORS, parse_spec
from vizcoll.topology.model import Topology
from vizcoll.ui import ids
from vizcoll.ui.cache import memo
from vizcoll.ui.calls import (
    SCENARIO,
    checked,
    fabric_of,
    page_params,
    scenario_of,
    store_output,
    tapped_link,
    topology_of,
    user_action,
)
from vizcoll.ui.components.player import pid, player, register_player, timeline_at
from vizcoll.ui.figures.topology import (
    PALETTE,
    SMALL_LIMIT,
    base_stylesheet,
    cytoscape_elements,
    large_figure,
    state_stylesheet,
)
from vizcoll.ui.forms import number

__all__ = ["PAGE", "layout", "register"]

PAGE = "topology"
CLICK_MODE, COMM_EDIT = "topo-click-mode", "topo-comm-edit"
SELECT, COMMUNICATOR = "select", "communicator"
NEW_COMM = -1
EXAMPLE_SPECS = {
    "fat-tree": "fat-tree:radix=4,levels=3",
    "pruned-fat-tree": "pruned-fat-tree:pods=2,leaves=2,hosts=4,spines=2,up=2,paths=1",
    "sunway-supernode": "sunway-supernode",
    "torus": "torus:4x4x2,hosts=1",
    "dragonfly": "dragonfly:a=4,p=2,h=2",
    "mesh": "mesh:4x4,neighbors=8",
}
ANIMATION_LIMIT = SMALL_LIMIT


# ---------------------------------------------------------------- layout
def _section(title: str, *children) -> html.Details:
    return html.Details(open=True, className="panel", children=[html.Summary(title), *children])


def layout(scenario: Scenario, banner: bool = False) -> html.Div:
    """The page for ``scenario`` (the landing page adds a banner explaining the default scenario)."""
    intro = html.Div(className="banner", children=[
        html.H2("vizcoll — see collective communication on real interconnects"),
        html.P("This default scenario is a 3-level fat tree of 4-port switches with one broken link "
               "(red, dashed), 16 processes split into a 4×4 grid of communicators (colours), and a "
               "broadcast from h0 along shortest paths. Press ▶ Play, click a link to break or repair it, "
               "or generate another fabric on the left. Every page (Trees, Multicast, Barrier…) looks at this "
               "same scenario."),
    ]) if banner else None
    return html.Div(className="page topology-page", children=[
        intro,
        dcc.Download(id=ids.TOPO_DOWNLOAD),
        html.Div(className="columns", children=[_controls(scenario), _canvas(scenario)]),
        html.Div(id=ids.TOPO_MESSAGE, className="message", role="alert"),
    ])


def _controls(scenario: Scenario) -> html.Div:
    name = scenario.spec.partition(":")[0] if scenario.uploaded is None else None
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
        _section("Edit (click a link to break it)",
                 dcc.RadioItems(id=CLICK_MODE, value=SELECT, options=[
                     {"label": "a click on a node fills A/B", "value": SELECT},
                     {"label": "a click on an end node adds/removes it in the communicator below",
                      "value": COMMUNICATOR}]),
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
                     dcc.Input(id=ids.TOPO_LINK_ID, placeholder="link id or a[1]-b[2]"),
                     html.Button("Break / repair", id=ids.TOPO_TOGGLE_LINK, n_clicks=0),
                     html.Button("Remove link", id=ids.TOPO_REMOVE_LINK, n_clicks=0)])),
        _section("Communicators",
                 dcc.Input(id=ids.TOPO_PATTERN, value=scenario.pattern, className="wide",
                           placeholder="grid2d:4x4, grid3d:2x2x4, random:4,size=4,seed=1, hier:4"),
                 html.Div(className="row", children=[
                     html.Label("processes per node"),
                     dcc.Input(id=ids.TOPO_PPN, type="number", min=1, max=64, value=scenario.ppn)]),
                 html.Button("Apply", id=ids.TOPO_APPLY_COMM, n_clicks=0),
                 html.Div(className="row", children=[
                     html.Label("drawn by hand:"),
                     dcc.Dropdown(id=COMM_EDIT, value=NEW_COMM, clearable=False, className="grow")]),
                 dcc.Upload(id=ids.TOPO_COMM_UPLOAD, className="upload", max_size=topo_io.MAX_FILE_BYTES,
                            children=html.Div(["Drop or ", html.A("choose a communicators file"), html.Br(),
                                               html.Small('{"communicators": [["h0", "h1"], ...]}')])),
                 html.Div(id=ids.TOPO_COMM_INFO, className="info")),
        _section("Download",
                 html.Div(className="row", children=[
                     dcc.Dropdown(id=ids.TOPO_EXPORT_FORMAT, options=list(topo_io.FORMATS), value="json",
                                  clearable=False, className="grow"),
                     html.Button("Export topology", id=ids.TOPO_EXPORT_TOPO, n_clicks=0)]),
                 html.Button("Download PNG", id=ids.TOPO_PNG, n_clicks=0)),
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
                dcc.Dropdown(id=ids.TOPO_ROOT, value=page_params(scenario, PAGE, {"root": None})["root"],
                             clearable=False,
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
def _decode_upload(contents) -> bytes:
    """The bytes of a ``dcc.Upload`` data URL (checked: it comes from the browser)."""
    if not isinstance(contents, str) or "," not in contents:
        raise VizcollError("the upload is not a file")
    try:
        return base64.b64decode(contents.partition(",")[2], validate=True)
    except ValueError:
        raise VizcollError("the upload is not valid base64 data (the browser sent a damaged file)") from None


def _file_name(name) -> str:
    return name if isinstance(name, str) and name.strip() else "upload"


def _text(value) -> str:
    return value.strip() if isinstance(value, str) else ""


def scenario_after(trigger: str, scenario: Scenario, values: dict) -> Scenario:
    """The scenario after the control ``trigger`` was used; raises VizcollError with a user message.

    A new fabric (generate, example, upload) keeps the pages' parameters and drops
    the communicators and breaks, which named nodes of the old fabric.
    """
    keep = {"params": scenario.params}
    if trigger in (ids.TOPO_GENERATE, ids.TOPO_PARAMS):
        spec = _text(values["params"])
        parse_spec(spec)
        new = Scenario(spec=spec, **keep)
        topology_of(new)  # parse_spec checks the syntax only; a spec that cannot build must not reach the store
        return new
    if trigger == ids.TOPO_GENERATOR:
        if values["generator"] not in EXAMPLE_SPECS:
            raise VizcollError(f"unknown example {values['generator']!r}")
        return Scenario(spec=EXAMPLE_SPECS[values["generator"]], **keep)
    if trigger == ids.TOPO_UPLOAD:
        name = _file_name(values["upload_name"])
        return Scenario.from_upload(topo_io.parse(_decode_upload(values["upload"]), name), name).with_params(
            PAGE, scenario.params.get(PAGE, {}))
    if trigger == ids.TOPO_APPLY_COMM:
        new = replace(scenario, pattern=_text(values["pattern"]), lists=None,
                      ppn=number(values["ppn"] or 1, "processes per node", int, 1, 1024))
        new.communicators(topology_of(new))
        return new
    if trigger == ids.TOPO_COMM_UPLOAD:
        lists = parse_lists(_decode_upload(values["comm_upload"]), _file_name(values["comm_upload_name"]))
        new = replace(scenario, pattern="", lists=lists)
        new.communicators(topology_of(new))
        return new
    if trigger == ids.TOPO_CANVAS and values.get("tap_node"):
        return toggle_member(scenario, values["tap_node"]["data"]["label"], values["comm_edit"])
    if trigger == ids.TOPO_CANVAS:
        return scenario.toggled(tapped_link(values["tap_edge"]))
    if trigger == ids.TOPO_TOGGLE_LINK:
        return scenario.toggled(link_label(scenario, values["link_id"]))
    if trigger == ids.TOPO_ROOT:
        return scenario.with_params(PAGE, {"root": _text(values["root"])})
    edit = _edit_for(trigger, scenario, values)
    return scenario.with_edit(edit) if edit else scenario


def link_label(scenario: Scenario, ref) -> str:
    """The ``a[pa]-b[pb]`` label of a link typed as its id (``17``) or as its label."""
    text = str(ref if ref is not None else "").strip()
    if not text:
        raise VizcollError("type a link id or a[1]-b[2] first (click a link to see both)")
    if not text.isdigit():
        return text
    fabric = fabric_of(scenario)
    return fabric.link_label(fabric.link_row(int(text)))


def toggle_member(scenario: Scenario, name: str, index) -> Scenario:
    """End node ``name`` put into communicator ``index`` (or taken out); -1 starts a new communicator.

    A pattern is first written out as explicit lists, so drawing by hand
    continues from what the user sees; a communicator left empty is dropped.
    """
    topo = topology_of(scenario)
    if name not in topo or topo.kind[topo.index(name)] != 1:
        raise VizcollError(f"{name!r} is not an end node: only end nodes run processes")
    lists = [list(c) for c in (scenario.lists if scenario.lists is not None else scenario.name_lists(topo))]
    index = index if isinstance(index, int) and 0 <= index < len(lists) else NEW_COMM
    if index == NEW_COMM:
        lists.append([name])
    elif name in lists[index]:
        lists[index] = [n for n in lists[index] if n != name]
    else:
        lists[index].append(name)
    return replace(scenario, pattern="", lists=[c for c in lists if c])


def _edit_for(trigger: str, scenario: Scenario, values: dict) -> dict | None:
    a, b, new = (_text(values[k]) for k in ("a", "b", "new_name"))
    if trigger == ids.TOPO_REMOVE_LINK:
        return {"op": "remove_link", "link": link_label(scenario, values["link_id"])}
    return {
        ids.TOPO_ADD_NODE: {"op": "add_node", "name": new, "kind": values["kind"]},
        ids.TOPO_ADD_LINK: {"op": "add_link", "a": a, "b": b},
        ids.TOPO_REMOVE_NODE: {"op": "remove_node", "name": a},
        ids.TOPO_RENAME: {"op": "rename", "name": a, "new": new},
    }.get(trigger)


def root_of(scenario: Scenario, topo: Topology) -> str | None:
    """The broadcast root: the stored one when the fabric has it, else the first end node (or switch)."""
    wanted = scenario.params.get(PAGE, {}).get("root")
    if isinstance(wanted, str) and wanted in topo:
        return wanted
    names = topo.endpoints if len(topo.endpoints) else topo.switches
    return topo.names[names[0]] if len(names) else None


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
        "apply": Input(ids.TOPO_APPLY_COMM, "n_clicks"), "comm_upload": Input(ids.TOPO_COMM_UPLOAD, "contents"),
        "tap_edge": Input(ids.TOPO_CANVAS, "tapEdge"), "tap_node": Input(ids.TOPO_CANVAS, "tapNode"),
        "root": Input(ids.TOPO_ROOT, "value"),
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
        "ppn": State(ids.TOPO_PPN, "value"), "mode": State(CLICK_MODE, "value"), "comm_edit": State(COMM_EDIT, "value"),
        "scenario": State(SCENARIO, "data"),
    }
    app.callback(
        store_output(), Output(ids.TOPO_MESSAGE, "children"), Output(ids.TOPO_GENERATOR, "value"),
        Output(ids.TOPO_ROOT, "value"), Output(COMM_EDIT, "value"), Output(ids.TOPO_UPLOAD, "contents"),
        Output(ids.TOPO_COMM_UPLOAD, "contents"),
        inputs=inputs, state=states, prevent_initial_call=True,
    )(update_scenario)
    app.callback(
        Output(ids.TOPO_CANVAS, "elements"), Output(ids.TOPO_CANVAS, "style"), Output(ids.TOPO_LARGE, "figure"),
        Output(ids.TOPO_LARGE, "style"), Output(ids.TOPO_LEGEND, "style"), Output(ids.TOPO_COUNTS, "children"),
        Output(ids.TOPO_COMM_INFO, "children"), Output(ids.TOPO_ROOT, "options"), Output(COMM_EDIT, "options"),
        Output(ids.TOPO_PARAMS, "value"), Output(ids.TOPO_PATTERN, "value"),
        Input(SCENARIO, "data"),
    )(render_scenario)
    app.callback(
        Output(pid(ids.TOPO_PLAYER, "timeline"), "data"), Output(ids.TOPO_BCAST_INFO, "children"),
        Input(SCENARIO, "data"),
    )(compute_broadcast)
    app.callback(
        Output(ids.TOPO_CANVAS, "stylesheet"),
        Input(pid(ids.TOPO_PLAYER, "step"), "value"), Input(pid(ids.TOPO_PLAYER, "timeline"), "data"),
    )(render_step)
    app.callback(
        Output(ids.TOPO_NODE_A, "value"), Output(ids.TOPO_NODE_B, "value"), Output(ids.TOPO_LINK_ID, "value"),
        Input(ids.TOPO_CANVAS, "tapNode"), Input(ids.TOPO_CANVAS, "tapEdge"), State(ids.TOPO_NODE_A, "value"),
        State(CLICK_MODE, "value"), prevent_initial_call=True,
    )(fill_selection)
    app.callback(
        Output(ids.TOPO_DOWNLOAD, "data"), Input(ids.TOPO_EXPORT_TOPO, "n_clicks"),
        State(SCENARIO, "data"), State(ids.TOPO_EXPORT_FORMAT, "value"), prevent_initial_call=True,
    )(export)
    app.callback(Output(ids.TOPO_SPEC_HELP, "children"), Input(ids.TOPO_GENERATOR, "value"))(spec_help)
    app.callback(
        Output(ids.TOPO_CANVAS, "generateImage"), Input(ids.TOPO_PNG, "n_clicks"), prevent_initial_call=True,
    )(lambda _: {"type": "png", "action": "download", "filename": "vizcoll-topology"})


def update_scenario(scenario, **values):
    """Apply the triggered control to the shared scenario; a bad input leaves it unchanged with a message.

    Also picks the root and the communicator being drawn for the new scenario,
    and empties the upload boxes so that the same file can be loaded again.
    """
    trigger = ctx.triggered_id
    unchanged = (no_update,) * 7
    if not user_action():
        return unchanged
    if trigger == ids.TOPO_CANVAS and values["mode"] != COMMUNICATOR:
        values["tap_node"] = None
    if trigger == ids.TOPO_CANVAS and not (values.get("tap_node") or values.get("tap_edge")):
        return unchanged
    try:
        old = scenario_of(scenario)
        new = scenario_after(trigger, old, values)
        topo = topology_of(new)
    except (VizcollError, KeyError, TypeError, AttributeError) as exc:
        text = str(exc) if isinstance(exc, VizcollError) else "the browser sent a malformed event"
        return no_update, f"⚠ {text}", no_update, no_update, no_update, None, None
    root = root_of(new, topo)
    if trigger != ids.TOPO_ROOT and root:
        new = new.with_params(PAGE, {"root": root})
    generator = new.spec.partition(":")[0] if new.uploaded is None else None
    comm_edit = _edited_comm(old, new, values["comm_edit"])
    store = no_update if new == old else new.to_dict()
    return (store, "", generator if generator in EXAMPLE_SPECS else None, root, comm_edit, None, None)


def _edited_comm(old: Scenario, new: Scenario, current) -> int:
    """The communicator to keep drawing: the new one after a click started it, else the current one."""
    if new.lists is not None and (old.lists is None or len(new.lists) > len(old.lists)) and current == NEW_COMM:
        return len(new.lists) - 1
    return current if isinstance(current, int) else NEW_COMM


def render_scenario(scenario_dict):
    """Draw the scenario: cytoscape for small fabrics, a WebGL figure for large ones."""
    scenario, message = checked(scenario_dict)
    if scenario is None:
        return (no_update,) * 6 + (message,) + (no_update,) * 4
    topo = topology_of(scenario)
    try:
        colours, comm_info = communicator_colours(scenario, topo)
        comm_options = comm_edit_options(scenario, topo)
    except VizcollError as exc:
        colours, comm_info, comm_options = {}, f"⚠ {exc}", [{"label": "a new communicator", "value": NEW_COMM}]
    small = topo.n_nodes <= SMALL_LIMIT
    hidden, shown = {"display": "none"}, {"width": "100%", "height": "560px"}
    elements = cytoscape_elements(topo, colours) if small else []
    figure = no_update if small else large_figure(topo)
    names = [topo.names[i] for i in (topo.endpoints if len(topo.endpoints) else topo.switches)]
    root = root_of(scenario, topo)
    options = names[:500] + ([root] if root and root not in names[:500] else [])
    spec = scenario.spec if scenario.uploaded is None else ""
    return (elements, shown if small else hidden, figure, hidden if small else shown, {} if small else hidden,
            counts_text(topo), comm_info, options, comm_options, spec, scenario.pattern)


def comm_edit_options(scenario: Scenario, topo: Topology) -> list[dict]:
    """The communicators a click can edit (first 200), plus a new one."""
    comms = scenario.communicators(topo)
    options = [{"label": f"communicator {i} ({len(comms[i])} processes)", "value": i}
               for i in range(min(len(comms), 200))] if comms is not None else []
    return options + [{"label": "a new communicator", "value": NEW_COMM}]


def compute_broadcast(scenario_dict):
    """The broadcast timeline from the scenario's root (animated up to ANIMATION_LIMIT nodes; figures at any size)."""
    scenario, message = checked(scenario_dict)
    if scenario is None:
        return None, message
    topo = topology_of(scenario)
    root = root_of(scenario, topo)
    if root is None:
        return None, "The fabric has no node to start a broadcast from."
    timeline = memo(broadcast_of_source, scenario.source_key(), root)
    s = timeline["summary"]
    info = f"From {root}: {s['reached']:,} nodes reached in {s['hops']} hops with {s['messages']:,} messages; " \
           f"{s['unreachable']:,} unreachable."
    if topo.n_nodes > ANIMATION_LIMIT:
        return None, info + f" (the animation is drawn for fabrics up to {ANIMATION_LIMIT:,} nodes)"
    return timeline, info


def broadcast_of_source(source: dict, root: str) -> dict:
    return broadcast(Scenario(**source).topology(), root).to_dict()


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


def fill_selection(tap_node, tap_edge, current_a, mode):
    """A clicked node becomes A (the previous A moves to B); a clicked link fills the link id."""
    if ctx.triggered and "tapEdge" in ctx.triggered[0]["prop_id"]:
        return no_update, no_update, (tap_edge or {}).get("data", {}).get("name", no_update)
    if mode == COMMUNICATOR or not tap_node:
        return no_update, no_update, no_update
    return tap_node["data"]["label"], current_a or no_update, no_update


def export(_clicks, scenario_dict, fmt):
    """Download the topology in the chosen file format (broken links cannot be written in the text formats)."""
    scenario, _ = checked(scenario_dict)
    if scenario is None or fmt not in topo_io.FORMATS:
        return no_update
    ext = {"json": "json", "graphml": "graphml", "ibsim": "net", "ibnetdiscover": "ibnd"}[fmt]
    return {"content": topo_io.dumps(topology_of(scenario), fmt), "filename": f"topology.{ext}"}
