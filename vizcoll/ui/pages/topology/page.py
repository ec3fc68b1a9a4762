"""The topology page: generate, upload, draw and edit a fabric, define communicators, watch a broadcast.

Everything the user builds lives in the one shared
:class:`~vizcoll.scenario.Scenario` (the shell's store, read by every page);
callbacks turn inputs into scenario changes, rebuild the topology through the
cache and hand it to the pure figure builders. Clicking a link breaks it (and
clicking again repairs it); in communicator mode, clicking an end node puts it
into the communicator being edited (and clicking again takes it out). The
page's model (examples, link names, hand-drawn communicators, the broadcast)
is :mod:`vizcoll.ui.pages.topology._model`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import dash_cytoscape as cyto
from dash import Dash, Input, Output, State, ctx, dcc, html, no_update, set_props

from vizcoll import hostlists
from vizcoll.comm import file_lists, pattern_examples
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.topology import io as topo_io
from vizcoll.topology.analysis import ADDED_ROOT, analysis, join_roots
from vizcoll.topology.generators import parse_spec
from vizcoll.ui import jobs
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.canvashint import canvas_hint, register_canvas_hint
from vizcoll.ui.components.exports import animation_export, figure_pack, register_animation_export, register_figure_pack
from vizcoll.ui.components.kit import (
    download_button,
    dropdown,
    field,
    graph,
    image_download,
    job_bar,
    message_box,
    register_image_download,
    section,
    titled,
)
from vizcoll.ui.components.links import link_list, register_link_list
from vizcoll.ui.components.player import first_frame, on_canvas, pid, player, register_overview, register_player
from vizcoll.ui.figures.topology import (
    base_stylesheet,
    canvas_layout,
    fabric_drawing,
)
from vizcoll.ui.forms import decode_upload, file_name, number, text
from vizcoll.ui.limits import MAX_UPLOAD_BYTES
from vizcoll.ui.models.parts import drawn_view, part_options
from vizcoll.ui.pages.topology import ORDER
from vizcoll.ui.pages.topology._model import (
    NEW_COMM,
    PAGE,
    clicked_part,
    comm_edit_options,
    communicator_colours,
    example_of,
    example_specs,
    export_name,
    export_options,
    large_upload,
    link_label,
    root_of,
    source_digest,
    spec_help,
    upload_hint,
    with_part,
)
from vizcoll.ui.pages.topology._views import broadcast_player, broadcast_stylesheet, counts_text, legend_items
from vizcoll.ui.routing import filled, page_scenario, register_page
from vizcoll.ui.store import (
    SCENARIO,
    FabricPending,
    built_in_job,
    checked,
    key_of,
    page_params,
    scenario_fields,
    scenario_of,
    store_output,
    tapped_link,
    topology_of,
    user_action,
)

__all__ = [
    "PAGE",
    "layout",
    "body",
    "examples",
    "first_views",
    "register",
    "update_scenario",
    "read_large_upload",
    "large_upload",
]

# the page's components ("topo-upload", "topo-link-id" and "topo-toggle-link" are a stable interface of outside
# browser checks: keep them)
TOPO_MESSAGE, TOPO_GENERATOR, TOPO_PARAMS = "topo-message", "topo-generator", "topo-params"
TOPO_SPEC_HELP, TOPO_GENERATE, TOPO_UPLOAD = "topo-spec-help", "topo-generate", "topo-upload"
TOPO_CANVAS, TOPO_LARGE, TOPO_COUNTS, TOPO_LEGEND = "topo-canvas", "topo-large", "topo-counts", "topo-legend"
TOPO_NODE_A, TOPO_NODE_B, TOPO_NEW_NAME, TOPO_NEW_KIND = "topo-node-a", "topo-node-b", "topo-new-name", "topo-new-kind"
TOPO_ADD_NODE, TOPO_ADD_LINK, TOPO_REMOVE_NODE = "topo-add-node", "topo-add-link", "topo-remove-node"
TOPO_RENAME, TOPO_LINK_ID, TOPO_TOGGLE_LINK = "topo-rename", "topo-link-id", "topo-toggle-link"
TOPO_REMOVE_LINK, TOPO_PATTERN, TOPO_PPN = "topo-remove-link", "topo-pattern", "topo-ppn"
TOPO_APPLY_COMM, TOPO_COMM_UPLOAD, TOPO_COMM_INFO = "topo-apply-comm", "topo-comm-upload", "topo-comm-info"
TOPO_EXPORT_FORMAT, TOPO_EXPORT_TOPO, TOPO_DOWNLOAD = "topo-export-format", "topo-export-topo", "topo-download"
TOPO_PNG, TOPO_ROOT, TOPO_BCAST_INFO, TOPO_PLAYER = "topo-png", "topo-root", "topo-bcast-info", "topo-player"
TOPO_PACK = "topo-pack"
TOPO_HOVER, TOPO_PART, TOPO_DRAWN = "topo-hover", "topo-part", "topo-drawn"
TOPO_JOIN = "topo-join-roots"  # a tree file's top switches joined under one added switch
HIDDEN = {"display": "none"}
# what the pointer is on: the full name of a node (its caption may be shortened or left out), a link's label
HOVER_HINT = "Point at a node or a link for its full name."
HOVER_JS = f"""function (node, edge) {{
    const fired = (dash_clientside.callback_context.triggered[0] || {{}}).prop_id || "";
    const last = fired.endsWith("mouseoverEdgeData") ? edge : node;
    return last && last.label ? (last.hover || last.label) : "{HOVER_HINT}";
}}"""
NEW_FABRIC = (TOPO_GENERATE, TOPO_GENERATOR, TOPO_UPLOAD)  # the controls that bring another fabric
# how to start when the fabric has no node (vizcoll/ui/components/canvashint.py)
EMPTY_HINT = ("generate a fabric (", html.B("Generate"), "), load a file (", html.B("choose a topology file"), ")")
CLICK_MODE, COMM_EDIT = "topo-click-mode", "topo-comm-edit"
SELECT, COMMUNICATOR = "select", "communicator"  # what a click on a node does
TOPO_UPLOAD_JOB = "topo-upload-read"  # the job bar of a large file being read
_CHANGED = {
    "message": (TOPO_MESSAGE, "children"),
    "generator": (TOPO_GENERATOR, "value"),
    "root": (TOPO_ROOT, "value"),
    "comm_edit": (COMM_EDIT, "value"),
    "upload": (TOPO_UPLOAD, "contents"),
    "comm_upload": (TOPO_COMM_UPLOAD, "contents"),
}


def changed_outputs(duplicate: bool = False) -> dict[str, Output]:
    """What a change of the fabric writes (:func:`update_scenario`; ``duplicate``: the job of a large file, which
    writes them too)."""
    return {
        "scenario": store_output(),
        **{k: Output(i, p, allow_duplicate=duplicate) for k, (i, p) in _CHANGED.items()},
    }


RENDERED = {
    "elements": Output(TOPO_CANVAS, "elements"),
    "canvas_style": Output(TOPO_CANVAS, "style"),
    "overview": Output(TOPO_LARGE, "figure"),
    "overview_style": Output(TOPO_LARGE, "style"),
    "legend_style": Output(TOPO_LEGEND, "style"),
    "counts": Output(TOPO_COUNTS, "children"),
    "comm_info": Output(TOPO_COMM_INFO, "children"),
    "root_options": Output(TOPO_ROOT, "options"),
    "comm_edit_options": Output(COMM_EDIT, "options"),
    "spec": Output(TOPO_PARAMS, "value"),
    "pattern": Output(TOPO_PATTERN, "value"),
    "layout": Output(TOPO_CANVAS, "layout"),
    "part_options": Output(TOPO_PART, "options"),
    "part": Output(TOPO_PART, "value"),
    "drawn": Output(TOPO_DRAWN, "data"),
}
"""What :func:`render_scenario` draws, and the key of the scenario it drew."""
BROADCAST = {"timeline": Output(pid(TOPO_PLAYER, "timeline"), "data"), "info": Output(TOPO_BCAST_INFO, "children")}
SELECTION = {
    "a": Output(TOPO_NODE_A, "value"),
    "b": Output(TOPO_NODE_B, "value"),
    "link": Output(TOPO_LINK_ID, "value"),
}
JOIN = {"label": Output(TOPO_JOIN, "children"), "style": Output(TOPO_JOIN, "style")}
POLL_MS = 400  # how often the page asks a running job for its progress


def layout(**kwargs) -> html.Div:
    """Dash's entry: the page for the link's or the store's scenario (query parameters are ignored)."""
    return body(page_scenario(kwargs))


register_page(__name__, layout, path="/topology", name="Topology", order=ORDER)


# ---------------------------------------------------------------- layout
def body(scenario: Scenario, banner: bool = False) -> html.Div:
    """The page for ``scenario`` (the start page adds a banner explaining the default scenario)."""
    intro = (
        html.Div(
            className="banner",
            children=[
                html.H2("vizcoll — see collective communication on real interconnects"),
                html.P(
                    "This default scenario is a 3-level fat tree of 4-port switches with one broken link "
                    "(red, dashed), 16 processes split into a 4×4 grid of communicators (colours), and a "
                    "broadcast from h0 along shortest paths. Press ▶ Play, click a link to break or repair it, "
                    "or generate another fabric on the left. Every page (Trees, Multicast, Barrier…) looks at this "
                    "same scenario."
                ),
            ],
        )
        if banner
        else None
    )
    page = html.Div(
        className="page topology-page",
        children=[
            intro,
            dcc.Download(id=TOPO_DOWNLOAD),
            dcc.Store(id=TOPO_DRAWN),
            html.Div(className="columns", children=[_controls(scenario), _canvas(scenario)]),
            message_box(TOPO_MESSAGE),
        ],
    )
    return filled(page, first_views, scenario)


def examples() -> list[tuple[str, Scenario]]:
    """The example fabrics of the fabric menu: (its spec, the scenario it opens) each (the help page links them)."""
    return [(spec, Scenario(spec=spec)) for spec in example_specs().values()]


def first_views(scenario: Scenario) -> list[tuple[list[Output], object]]:
    """What the page's callbacks draw for ``scenario`` as it opens (:func:`~vizcoll.ui.routing.filled`): the
    fabric, the broadcast and the player's first frame. The router's answer then draws the fabric's overview as
    soon as plotly.js is up, not after a second round of callbacks: the 1,570-node cluster's share link on
    /topology, in a new Chromium, showed it sooner (from the navigation's start, medians of 10, alternated; issue 23;
    measured: docs/design.md)."""
    data = scenario.to_dict(thin=True)
    broadcast = compute_broadcast(data)
    return [(RENDERED, render_with_key(data)), (BROADCAST, broadcast), first_frame(TOPO_PLAYER, broadcast["timeline"])]


def _controls(scenario: Scenario) -> html.Div:
    return html.Div(
        className="sidebar",
        children=[
            _fabric_section(scenario),
            _edit_section(),
            link_list("topo"),
            _communicators_section(scenario),
            section(
                "Download",
                html.Div(
                    className="row",
                    children=[
                        titled(
                            dcc.Dropdown(
                                id=TOPO_EXPORT_FORMAT,
                                options=export_options(),
                                value=topo_io.DEFAULT,
                                clearable=False,
                                className="grow",
                            ),
                            "the file format of Export topology",
                        ),
                        download_button("Export topology", TOPO_EXPORT_TOPO),
                    ],
                ),
                image_download(TOPO_PNG),
                figure_pack(TOPO_PACK),
            ),
        ],
    )


def _upload(id_: str, what: str, hint: str, title: str | None = None) -> dcc.Upload:
    return dcc.Upload(
        id=id_,
        className="upload",
        max_size=MAX_UPLOAD_BYTES,
        children=html.Div(
            [
                "Drop or ",
                html.A(what),
                html.Br(),
                html.Small(f"{hint} (at most {MAX_UPLOAD_BYTES / 2**20:.0f} MB)", title=title),
            ]
        ),
    )


def _fabric_section(scenario: Scenario) -> html.Details:
    name = scenario.spec.partition(":")[0] if not scenario.ref else None
    return section(
        "Fabric",
        html.Label("generated fabric", id=f"{TOPO_GENERATOR}-label", className="visually-hidden"),
        titled(
            dcc.Dropdown(
                id=TOPO_GENERATOR,
                options=list(example_specs()),
                value=name,
                clearable=False,
                placeholder="a generator…",
            ),
            "an example fabric: choosing one draws it",
        ),
        dcc.Textarea(
            id=TOPO_PARAMS,
            value=scenario.spec,
            className="wide spec-box",
            rows=2,
            spellCheck=False,
            placeholder="spec, e.g. torus:4x4x2,hosts=1",
            title="the fabric's spec: Enter or Generate builds it",
        ),  # Enter presses Generate (assets/keys.js)
        html.Div(id=TOPO_SPEC_HELP, className="info", children=spec_help(name)),
        html.Button("Generate", id=TOPO_GENERATE, n_clicks=0),
        _upload(TOPO_UPLOAD, "choose a topology file", *upload_hint()),
        html.Button(id=TOPO_JOIN, n_clicks=0, className="small", style=HIDDEN),  # a tree file of several parts
        job_bar(TOPO_UPLOAD_JOB),
    )


def _edit_section() -> html.Details:
    return section(
        "Edit (click a link to break it)",
        dcc.RadioItems(
            id=CLICK_MODE,
            value=SELECT,
            options=[
                {"label": "a click on a node fills A/B", "value": SELECT},
                {"label": "a click on an end node adds/removes it in the communicator below", "value": COMMUNICATOR},
            ],
        ),
        html.Div(
            className="row",
            children=[
                titled(
                    dcc.Input(id=TOPO_NODE_A, placeholder="node A", debounce=False), "node A: a name, or click a node"
                ),
                titled(
                    dcc.Input(id=TOPO_NODE_B, placeholder="node B", debounce=False), "node B: the node A was before"
                ),
            ],
        ),
        html.Div(
            className="row",
            children=[
                titled(dcc.Input(id=TOPO_NEW_NAME, placeholder="new name"), "the name of a new node, or A's new name"),
                dcc.RadioItems(id=TOPO_NEW_KIND, options=["switch", "endpoint"], value="switch", inline=True),
            ],
        ),
        html.Div(
            className="buttons",
            children=[
                html.Button("Add node (new name)", id=TOPO_ADD_NODE, n_clicks=0),
                html.Button("Link A–B", id=TOPO_ADD_LINK, n_clicks=0),
                html.Button("Remove A", id=TOPO_REMOVE_NODE, n_clicks=0),
                html.Button("Rename A → new name", id=TOPO_RENAME, n_clicks=0),
            ],
        ),
        html.Div(
            className="row",
            children=[
                titled(dcc.Input(id=TOPO_LINK_ID, placeholder="link id or a[1]-b[2]"), "a link: click one, or type it"),
                html.Button("Break / repair", id=TOPO_TOGGLE_LINK, n_clicks=0),
                html.Button("Remove link", id=TOPO_REMOVE_LINK, n_clicks=0),
            ],
        ),
    )


def _communicators_section(scenario: Scenario) -> html.Details:
    return section(
        "Communicators",
        titled(
            dcc.Input(
                id=TOPO_PATTERN,
                value=scenario.pattern,
                className="wide",
                placeholder=pattern_examples(),
            ),
            "a pattern of communicators: Apply places them",
        ),
        html.Div(
            className="row",
            children=[
                html.Label("processes per node", htmlFor=TOPO_PPN),
                dcc.Input(id=TOPO_PPN, type="number", min=1, max=64, value=scenario.ppn),
            ],
        ),
        html.Button("Apply", id=TOPO_APPLY_COMM, n_clicks=0),
        html.Div(html.Label("drawn by hand (a click on an end node, in the mode above):", htmlFor=COMM_EDIT)),
        dcc.Dropdown(id=COMM_EDIT, value=NEW_COMM, clearable=False, className="wide"),
        _upload(
            TOPO_COMM_UPLOAD,
            "choose a communicators file",
            'JSON {"communicators": [["h0", "h1"], ...]} or an MPI hostfile / machinefile (node01 slots=4)',
        ),
        html.Div(id=TOPO_COMM_INFO, className="info"),
    )


def _canvas(scenario: Scenario) -> html.Div:
    return html.Div(
        className="main",
        children=[
            html.Div(id=TOPO_COUNTS, className="counts"),
            field("draw", dropdown(TOPO_PART, [], None)),
            canvas_hint(TOPO_CANVAS, *EMPTY_HINT),
            cyto.Cytoscape(
                id=TOPO_CANVAS,
                elements=[],
                layout=canvas_layout(""),
                autoRefreshLayout=False,
                stylesheet=base_stylesheet(),
                style={"width": "100%", "height": "560px"},
                minZoom=0.05,
                maxZoom=4,
                boxSelectionEnabled=False,
            ),
            html.Div(id=TOPO_HOVER, className="info hover-line"),
            graph(TOPO_LARGE, "vizcoll-topology", style={"display": "none"}),
            html.Div(id=TOPO_LEGEND, className="legend", children=legend_items()),
            html.Div(
                className="panel player-panel",
                children=[
                    html.H3("Broadcast along a shortest-path tree"),
                    html.Div(
                        className="row",
                        children=[
                            html.Label("root", id=f"{TOPO_ROOT}-label"),
                            dcc.Dropdown(
                                id=TOPO_ROOT,
                                value=page_params(scenario, PAGE, {"root": None})["root"],
                                clearable=False,
                                placeholder="a node…",
                                className="grow",
                            ),
                        ],
                    ),
                    html.Div(id=TOPO_BCAST_INFO, className="info"),
                    player(TOPO_PLAYER),
                    animation_export(TOPO_PLAYER),
                ],
            ),
        ],
    )


# ---------------------------------------------------------------- scenario changes (pure)
def scenario_after(trigger: str, scenario: Scenario, values: dict) -> Scenario:
    """The scenario after the control ``trigger`` was used; raises VizcollError with a user message.

    A new fabric (generate, example, upload) keeps the pages' parameters and drops
    the communicators, the breaks and the parameters that named something of the
    old fabric (:meth:`~vizcoll.scenario.Scenario.params_for_new_fabric`).
    """
    keep = {"params": scenario.params_for_new_fabric()}
    if trigger == TOPO_GENERATE:
        spec = text(values["params"])
        parse_spec(spec)
        new = Scenario(spec=spec, **keep)
        if not built_in_job(new):  # a large one: its size is checked, a background job builds it
            topology_of(new)  # parse_spec checks the syntax only; a spec that cannot build must not reach the store
        return new
    if trigger == TOPO_GENERATOR:
        examples = example_specs()
        if values["generator"] not in examples:
            raise VizcollError(f"unknown example {values['generator']!r}")
        return Scenario(spec=examples[values["generator"]], **keep)
    if trigger == TOPO_UPLOAD:
        name = file_name(values["upload_name"])
        return Scenario.from_upload(topo_io.parse(decode_upload(values["upload"]), name), name).with_params(
            PAGE, keep["params"].get(PAGE, {})
        )
    if trigger in (TOPO_APPLY_COMM, TOPO_COMM_UPLOAD):
        return _communicators_after(trigger, scenario, values)
    if trigger == TOPO_CANVAS and values.get("tap_node"):
        return scenario.with_member(topology_of(scenario), values["tap_node"]["data"]["label"], values["comm_edit"])
    if trigger == TOPO_CANVAS:
        return scenario.toggled(tapped_link(values["tap_edge"]))
    if trigger == TOPO_TOGGLE_LINK:
        return scenario.toggled(link_label(scenario, values["link_id"]))
    if trigger == TOPO_ROOT:
        return scenario.with_params(PAGE, {**scenario.params.get(PAGE, {}), "root": text(values["root"])})
    if trigger == TOPO_JOIN:
        for edit in join_roots(topology_of(scenario))[1]:
            scenario = scenario.with_edit(edit)
        return scenario
    if trigger in (TOPO_PART, TOPO_LARGE):
        return with_part(scenario, values["part"] if trigger == TOPO_PART else clicked_part(values["block"]))
    edit = _edit_for(trigger, scenario, values)
    return scenario.with_edit(edit) if edit else scenario


def _communicators_after(trigger: str, scenario: Scenario, values: dict) -> Scenario:
    """The scenario with the communicators of the pattern (Apply) or of a file, checked on its fabric."""
    if trigger == TOPO_APPLY_COMM:
        new = replace(
            scenario,
            pattern=text(values["pattern"]),
            lists=None,
            ppn=number(values["ppn"] or 1, "processes per node", int, 1, 1024),
        )
    else:
        lists = file_lists(
            topology_of(scenario),
            decode_upload(values["comm_upload"]),
            file_name(values["comm_upload_name"]),
            scenario.ppn,
        )
        new = replace(scenario, pattern="", lists=lists)
    new.communicators(topology_of(new))
    return new


def _edit_for(trigger: str, scenario: Scenario, values: dict) -> dict | None:
    """The edit a button asks for; a node typed by any of its names (host, description, GUID) is written as the
    fabric names it."""
    a, b, new = (text(values[k]) for k in ("a", "b", "new_name"))
    if trigger in (TOPO_REMOVE_NODE, TOPO_RENAME, TOPO_ADD_LINK):
        topo = topology_of(scenario)
        a = topo.names[topo.index(a)]
        b = topo.names[topo.index(b)] if trigger == TOPO_ADD_LINK else b
    if trigger == TOPO_REMOVE_LINK:
        return {"op": "remove_link", "link": link_label(scenario, values["link_id"])}
    return {
        TOPO_ADD_NODE: {"op": "add_node", "name": new, "kind": values["kind"]},
        TOPO_ADD_LINK: {"op": "add_link", "a": a, "b": b},
        TOPO_REMOVE_NODE: {"op": "remove_node", "name": a},
        TOPO_RENAME: {"op": "rename", "name": a, "new": new},
    }.get(trigger)


# ---------------------------------------------------------------- callbacks
def register(app: Dash) -> None:
    register_link_list(app, "topo")
    """Attach the page's callbacks to ``app``."""
    register_player(app, TOPO_PLAYER)
    register_overview(app, TOPO_PLAYER, TOPO_LARGE)
    register_animation_export(app, TOPO_PLAYER, PAGE)
    register_figure_pack(app, TOPO_PACK, PAGE)
    by_name(app, changed_outputs(), _scenario_inputs() | _scenario_states(), prevent_initial_call=True)(update_scenario)
    large = {
        "contents": Input(TOPO_UPLOAD, "contents"),
        "filename": State(TOPO_UPLOAD, "filename"),
        "comm_edit": State(COMM_EDIT, "value"),
        "scenario": State(SCENARIO, "data"),
    }
    background = jobs.background(TOPO_UPLOAD_JOB, (TOPO_GENERATE,))
    by_name(app, changed_outputs(duplicate=True), large, prevent_initial_call=True, interval=POLL_MS, **background)(
        read_large_upload
    )
    store = {"scenario": Input(SCENARIO, "data"), "drawn": State(TOPO_DRAWN, "data")}  # drawn as the page opens
    by_name(app, RENDERED, store, prevent_initial_call=True)(unless_shown(render_with_key))
    app.clientside_callback(
        HOVER_JS,
        Output(TOPO_HOVER, "children"),
        Input(TOPO_CANVAS, "mouseoverNodeData"),
        Input(TOPO_CANVAS, "mouseoverEdgeData"),
    )
    by_name(app, BROADCAST, store, prevent_initial_call=True)(unless_shown(compute_broadcast))
    app.callback(
        Output(TOPO_CANVAS, "stylesheet"),
        Input(pid(TOPO_PLAYER, "shown"), "data"),
    )(on_canvas(render_step))
    clicks = {
        "tap_node": Input(TOPO_CANVAS, "tapNode"),
        "tap_edge": Input(TOPO_CANVAS, "tapEdge"),
        "current_a": State(TOPO_NODE_A, "value"),
        "mode": State(CLICK_MODE, "value"),
    }
    by_name(app, SELECTION, clicks, prevent_initial_call=True)(fill_selection)
    app.callback(
        Output(TOPO_DOWNLOAD, "data"),
        Input(TOPO_EXPORT_TOPO, "n_clicks"),
        State(SCENARIO, "data"),
        State(TOPO_EXPORT_FORMAT, "value"),
        prevent_initial_call=True,
    )(export)
    app.callback(Output(TOPO_SPEC_HELP, "children"), Input(TOPO_GENERATOR, "value"))(spec_help)
    register_image_download(app, TOPO_PNG, TOPO_CANVAS, PAGE, "vizcoll-topology")
    register_canvas_hint(app, TOPO_CANVAS)
    by_name(app, JOIN, {"data": Input(SCENARIO, "data")})(join_offer)


def _scenario_inputs() -> dict:
    clicks = (
        ("add_node", TOPO_ADD_NODE),
        ("add_link", TOPO_ADD_LINK),
        ("remove_node", TOPO_REMOVE_NODE),
        ("rename", TOPO_RENAME),
        ("toggle", TOPO_TOGGLE_LINK),
        ("remove_link", TOPO_REMOVE_LINK),
    )
    return {
        "generate": Input(TOPO_GENERATE, "n_clicks"),
        "generator": Input(TOPO_GENERATOR, "value"),
        "upload": Input(TOPO_UPLOAD, "contents"),
        "apply": Input(TOPO_APPLY_COMM, "n_clicks"),
        "comm_upload": Input(TOPO_COMM_UPLOAD, "contents"),
        "tap_edge": Input(TOPO_CANVAS, "tapEdge"),
        "tap_node": Input(TOPO_CANVAS, "tapNode"),
        "root": Input(TOPO_ROOT, "value"),
        "part": Input(TOPO_PART, "value"),
        "block": Input(TOPO_LARGE, "clickData"),
        "join": Input(TOPO_JOIN, "n_clicks"),
        **{key: Input(id_, "n_clicks") for key, id_ in clicks},
    }


def _scenario_states() -> dict:
    return {
        "params": State(TOPO_PARAMS, "value"),
        "upload_name": State(TOPO_UPLOAD, "filename"),
        "comm_upload_name": State(TOPO_COMM_UPLOAD, "filename"),
        "a": State(TOPO_NODE_A, "value"),
        "b": State(TOPO_NODE_B, "value"),
        "new_name": State(TOPO_NEW_NAME, "value"),
        "kind": State(TOPO_NEW_KIND, "value"),
        "link_id": State(TOPO_LINK_ID, "value"),
        "pattern": State(TOPO_PATTERN, "value"),
        "ppn": State(TOPO_PPN, "value"),
        "mode": State(CLICK_MODE, "value"),
        "comm_edit": State(COMM_EDIT, "value"),
        "scenario": State(SCENARIO, "data"),
    }


def update_scenario(scenario, **values):
    """Apply the triggered control to the shared scenario; a bad input leaves it unchanged with a message.

    Also picks the root and the communicator being drawn for the new scenario,
    and empties the upload boxes so that the same file can be loaded again. A
    large file is read by :func:`read_large_upload` (a background job) instead.
    """
    trigger = ctx.triggered_id
    if not user_action():
        return {}
    if trigger in NEW_FABRIC:
        _forget_selection()
    if trigger == TOPO_UPLOAD and large_upload(values["upload"]):
        return {}
    if trigger == TOPO_CANVAS and values["mode"] != COMMUNICATOR:
        values["tap_node"] = None
    if trigger == TOPO_CANVAS and not (values.get("tap_node") or values.get("tap_edge")):
        return {}
    return _updated(trigger, scenario, values)


def read_large_upload(set_progress, contents, filename, comm_edit, scenario):
    """(A background job.) A file of more than :data:`._model.LARGE_UPLOAD_BYTES` read into the scenario,
    as :func:`update_scenario` reads a small one; the progress names the file while it is read."""
    if not large_upload(contents):
        return {}
    set_progress((0, 1, f"Reading {file_name(filename)[:80]} ({len(contents) * 3 / 4e6:.1f} MB)…"))
    return _updated(TOPO_UPLOAD, scenario, {"upload": contents, "upload_name": filename, "comm_edit": comm_edit})


def _updated(trigger, scenario, values: dict) -> dict:
    new = None
    try:
        old = (scenario_fields if trigger in NEW_FABRIC else scenario_of)(scenario)
        new = scenario_after(trigger, old, values)
        topo = topology_of(new)
    except FabricPending as exc:  # a large fabric generated: stored, and built by the shell's background job
        store = new.to_dict(thin=True) if new is not None else no_update
        return {"scenario": store, "message": f"⏳ {exc}", "generator": example_of(new), **_emptied(trigger)}
    except (VizcollError, KeyError, TypeError, AttributeError) as exc:
        message = str(exc) if isinstance(exc, VizcollError) else "the browser sent a malformed event"
        return {"message": f"⚠ {message}", **_emptied(trigger)}
    root = root_of(new, topo)
    if trigger != TOPO_ROOT and root:
        new = new.with_params(PAGE, {**new.params.get(PAGE, {}), "root": root})
    comm_edit = _edited_comm(old, new, values["comm_edit"])
    store = no_update if new == old else new.to_dict(thin=True)
    notes = analysis(topo)["warnings"] if trigger == TOPO_UPLOAD else None
    message = f"⚠ Read {new.name}: " + "; ".join(notes) + "." if notes else ""
    answer = {"scenario": store, "message": message, "generator": example_of(new), "root": root}
    return answer | {"comm_edit": comm_edit, **_emptied(trigger)}


def join_offer(data) -> dict:
    """The button joining a tree file's top switches under one added switch, shown only when it has several (hidden
    when the store cannot be read: the shell says why)."""
    scenario, _ = checked(data)
    roots = join_roots(topology_of(scenario))[0] if scenario is not None else []
    if not roots:
        return {"label": "", "style": HIDDEN}
    return {
        "label": f"Join {hostlists.collect(roots)} under one added switch ({ADDED_ROOT}, not in the file)",
        "style": {},
    }


def _forget_selection() -> None:
    """Another fabric: the hover line, the node A/B boxes and the link box name nothing of the last one."""
    set_props(TOPO_HOVER, {"children": HOVER_HINT})
    for box in (TOPO_NODE_A, TOPO_NODE_B, TOPO_LINK_ID):
        set_props(box, {"value": ""})


def _emptied(trigger) -> dict:
    """The upload box ``trigger`` came from, emptied (the same file can be loaded again); the other is left alone
    (emptying it would start the large-file job for nothing)."""
    return {name: None for name, box in (("upload", TOPO_UPLOAD), ("comm_upload", TOPO_COMM_UPLOAD)) if trigger == box}


def _edited_comm(old: Scenario, new: Scenario, current) -> int:
    """The communicator to keep drawing: the new one after a click started it, else the current one."""
    if new.lists is not None and (old.lists is None or len(new.lists) > len(old.lists)) and current == NEW_COMM:
        return len(new.lists) - 1
    return current if isinstance(current, int) else NEW_COMM


def render_scenario(scenario_dict):
    """Draw the part of the scenario's fabric the page shows: on the canvas (a small fabric, or one group of a
    large one), else as its overview of blocks (see :func:`~vizcoll.ui.figures.topology.fabric_drawing`). The
    canvas fits the drawing to its size when the fabric's source or the part changes, not after an edit, so an
    edit moves nothing."""
    scenario, message = checked(scenario_dict)
    if scenario is None:
        return {"comm_info": message}
    topo = topology_of(scenario)
    try:
        colours, comm_info = communicator_colours(scenario, topo)
        comm_options = comm_edit_options(scenario, topo)
    except VizcollError as exc:
        colours, comm_info, comm_options = {}, f"⚠ {exc}", [{"label": "a new communicator", "value": NEW_COMM}]
    view = drawn_view(scenario, PAGE)
    elements, figure = fabric_drawing(view, topo, colours)
    small = figure is None
    hidden, shown = {"display": "none"}, {"width": "100%", "height": "560px"}
    names = [topo.names[i] for i in (topo.endpoints if len(topo.endpoints) else topo.switches)[:500]]
    root = root_of(scenario, topo)
    options = names + ([root] if root and root not in names else [])
    drawing = {
        "elements": elements,
        "canvas_style": shown if small else hidden,
        "overview_style": hidden if small else shown,
        "legend_style": {} if small else hidden,
    }
    if not small:  # the overview's figure; the canvas's keeps its last
        drawing["overview"] = figure
    return drawing | {
        "counts": counts_text(topo),
        "comm_info": comm_info,
        "root_options": options,
        "comm_edit_options": comm_options,
        "spec": scenario.spec if not scenario.ref else "",
        "pattern": scenario.pattern,
        "layout": canvas_layout(f"{source_digest(scenario)}:{view.part}"),
        "part_options": part_options(scenario, topo, view.part),
        "part": view.part,
    }


def render_with_key(scenario_dict) -> dict:
    """:func:`render_scenario`, and the key of the scenario drawn (the :data:`RENDERED` outputs); None when it was
    not drawn (a fabric still being built, a store that cannot be read): the next answer for it draws it."""
    rendered = render_scenario(scenario_dict)
    return rendered | {"drawn": key_of(scenario_dict) if "elements" in rendered else None}


def unless_shown(render: Callable) -> Callable:
    """``render(scenario_dict)`` as a callback of the scenario store and the key of the scenario the page shows
    (``topo-drawn``): nothing changes for that scenario (a new tab's store set to the scenario the router's
    answer drew the page for, :func:`first_views`)."""

    def callback(scenario, drawn=None):
        return {} if key_of(scenario) == drawn else render(scenario)

    return callback


def compute_broadcast(scenario_dict):
    """The broadcast from the scenario's root, on what the page draws (:func:`broadcast_player`)."""
    scenario, message = checked(scenario_dict)
    if scenario is None:
        return {"timeline": None, "info": message}
    timeline, info = broadcast_player(scenario)
    return {"timeline": timeline, "info": info}


def render_step(step, timeline):
    """Stylesheet for one player step: node states, the links and receivers of this hop (the overview's steps are
    drawn in the browser)."""
    return no_update if isinstance(timeline, dict) and "overview" in timeline else broadcast_stylesheet(timeline, step)


def fill_selection(tap_node, tap_edge, current_a, mode):
    """A clicked node becomes A (the previous A moves to B); a clicked link fills the link id."""
    if ctx.triggered and "tapEdge" in ctx.triggered[0]["prop_id"]:
        try:
            return {"link": tapped_link(tap_edge)}
        except VizcollError:
            return {}
    node = tap_node.get("data") if isinstance(tap_node, dict) else None
    label = node.get("label") if isinstance(node, dict) else None
    if mode == COMMUNICATOR or not isinstance(label, str):
        return {}
    return {"a": label, "b": current_a} if isinstance(current_a, str) and current_a else {"a": label}


def export(_clicks, scenario_dict, fmt):
    """Download the topology in the chosen file format (broken links cannot be written in the text formats)."""
    scenario, _ = checked(scenario_dict)
    name = export_name(fmt)
    if scenario is None or name is None:
        return no_update
    return {"content": topo_io.dumps(topology_of(scenario), fmt), "filename": name}
