"""The topology page's callbacks and pure helpers, called directly (no browser, no server)."""

from __future__ import annotations

import base64
import json
from operator import itemgetter

import plotly.graph_objects as go
import pytest
from dash import no_update

from tests.callback_context import in_callback
from tests.fabrics import CIRCE, ONE_SPINE
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.topology import io as topo_io
from vizcoll.topology.analysis import analysis
from vizcoll.topology.generators import from_spec
from vizcoll.topology.model import ENDPOINT
from vizcoll.ui.components.player import OVERVIEW_STEP_JS, player_timeline
from vizcoll.ui.figures.topology import PALETTE, SMALL_LIMIT, base_stylesheet, cytoscape_elements
from vizcoll.ui.models.parts import WHOLE
from vizcoll.ui.pages.topology import _model as model
from vizcoll.ui.pages.topology import _views, page
from vizcoll.ui.store import DEFAULT_SCENARIO, key_of, topology_of

DEFAULT = DEFAULT_SCENARIO
DEFAULT_BREAK = "edge0.0[4]-agg0.1[1]"  # link 17
H5_LINK = "h5[1]-edge1.0[2]"  # link 5, h5's only link
ORANGE = "#ff7f0e"
LARGE_SPEC = "torus:10x10x8,hosts=1"  # 1,600 nodes: just over SMALL_LIMIT


def values(**given) -> dict:
    """The ``values`` dict update_scenario passes on: every input and state, None unless given."""
    keys = (
        "generate",
        "generator",
        "upload",
        "apply",
        "comm_upload",
        "tap_edge",
        "tap_node",
        "root",
        "add_node",
        "add_link",
        "remove_node",
        "rename",
        "toggle",
        "remove_link",
        "params",
        "upload_name",
        "comm_upload_name",
        "a",
        "b",
        "new_name",
        "kind",
        "link_id",
        "pattern",
        "ppn",
        "mode",
        "comm_edit",
        "part",
        "block",
        "join",
    )
    return dict.fromkeys(keys) | {"mode": page.SELECT, "comm_edit": model.NEW_COMM} | given


def data_url(content: str | bytes, mime: str = "application/octet-stream") -> str:
    """What dcc.Upload puts in ``contents``."""
    raw = content.encode() if isinstance(content, str) else content
    return f"data:{mime};base64,{base64.b64encode(raw).decode()}"


def names_and_kinds(scenario: Scenario) -> dict[str, int]:
    topo = scenario.topology()
    return {name: int(topo.kind[i]) for i, name in enumerate(topo.names)}


def update(prop_id: str, scenario: Scenario = DEFAULT, **given):
    """The page's writing callback as Dash calls it when ``prop_id`` changed."""
    return in_callback(page.update_scenario, prop_id, scenario.to_dict(), **values(**given))


def uploaded(text: str = ONE_SPINE, name: str = "handmade.net") -> Scenario:
    return page.scenario_after(page.TOPO_UPLOAD, DEFAULT, values(upload=data_url(text), upload_name=name))


# ------------------------------------------------------------------ scenario_after, one trigger at a time
def test_generate_replaces_the_fabric_and_keeps_the_page_settings():
    new = page.scenario_after(page.TOPO_GENERATE, DEFAULT, values(params="  torus:3x3x2,hosts=1 "))
    assert new.spec == "torus:3x3x2,hosts=1" and new.edits == [] and new.pattern == "" and new.broken == []
    assert new.params == DEFAULT.params_for_new_fabric() and new.uploaded is None
    assert new.topology().summary()["switches"] == 18
    # a pod drawn alone, a broadcast root, a highlighted group and a communicator named the old fabric's: gone
    bound = (
        DEFAULT.with_params("topology", {"root": "h3", "part": "group:1", "speed": 2})
        .with_params("multicast", {"group": 5, "part": "group:0", "a": "fulb"})
        .with_params("trees", {"comm": 2, "k": 8})
    )
    for trigger, given in (
        (page.TOPO_GENERATE, {"params": "torus:3x3x2,hosts=1"}),
        (page.TOPO_GENERATOR, {"generator": next(iter(model.example_specs()))}),
        (page.TOPO_UPLOAD, {"upload": data_url(ONE_SPINE), "upload_name": "x.net"}),
    ):
        params = page.scenario_after(trigger, bound, values(**given)).params
        assert params["topology"] == {"speed": 2}, trigger
        if trigger != page.TOPO_UPLOAD:  # an uploaded fabric keeps the Topology page's settings only
            assert params["multicast"] == {"a": "fulb"} and params["trees"] == {"k": 8}
    with pytest.raises(VizcollError, match="dimension 1"):  # well-formed, but the fabric cannot be built
        page.scenario_after(page.TOPO_GENERATE, DEFAULT, values(params="torus:0x3"))
    with pytest.raises(VizcollError):
        page.scenario_after(page.TOPO_GENERATE, DEFAULT, values(params="no-such-fabric"))


def test_generator_dropdown_loads_its_example():
    for name, spec in model.example_specs().items():
        assert page.scenario_after(page.TOPO_GENERATOR, DEFAULT, values(generator=name)).spec == spec
    with pytest.raises(VizcollError, match="unknown example"):
        page.scenario_after(page.TOPO_GENERATOR, DEFAULT, values(generator="../../etc/passwd"))


def test_add_node_then_link():
    one = page.scenario_after(page.TOPO_ADD_NODE, DEFAULT, values(new_name=" extra ", kind="endpoint"))
    assert one.edits == [{"op": "add_node", "name": "extra", "kind": "endpoint"}]
    assert names_and_kinds(one)["extra"] == ENDPOINT
    two = page.scenario_after(page.TOPO_ADD_LINK, one, values(a="extra", b="edge0.0"))
    before, after = one.topology(), two.topology()
    assert after.n_links == before.n_links + 1
    assert {after.names[int(after.link_a[-1])], after.names[int(after.link_b[-1])]} == {"extra", "edge0.0"}
    with pytest.raises(VizcollError):  # a name that is taken
        page.scenario_after(page.TOPO_ADD_NODE, one, values(new_name="extra", kind="switch"))
    with pytest.raises(VizcollError):  # an unknown end
        page.scenario_after(page.TOPO_ADD_LINK, one, values(a="extra", b="nobody"))


def test_a_link_added_then_broken_survives_a_round_trip():
    added = DEFAULT.with_edit({"op": "add_node", "name": "probe", "kind": "endpoint"}).with_edit(
        {"op": "add_link", "a": "probe", "b": "edge0.0"}
    )
    label = added.topology().link_label(added.topology().n_links - 1)
    broken = page.scenario_after(page.TOPO_TOGGLE_LINK, added, values(link_id=label))
    assert label in broken.broken
    back = Scenario.from_fragment(broken.to_fragment())
    assert back == broken and back.topology().summary()["broken_links"] == 2


def test_remove_and_rename_node():
    removed = page.scenario_after(page.TOPO_REMOVE_NODE, DEFAULT, values(a="h3"))
    topo = removed.topology()
    assert "h3" not in topo and topo.n_nodes == 35 and topo.n_links == 47
    renamed = page.scenario_after(page.TOPO_RENAME, DEFAULT, values(a="edge0.0", new_name="boss"))
    assert "boss" in renamed.topology() and "edge0.0" not in renamed.topology()
    assert renamed.broken == ["boss[4]-agg0.1[1]"]  # the break follows its cable
    assert renamed.topology().summary()["broken_links"] == 1
    with pytest.raises(VizcollError):
        page.scenario_after(page.TOPO_REMOVE_NODE, DEFAULT, values(a="nobody"))


def test_tap_on_a_link_breaks_it_and_a_second_tap_repairs_it():
    tap = {"data": {"link": 5, "id": "l5", "name": H5_LINK}}
    broken = page.scenario_after(page.TOPO_CANVAS, DEFAULT, values(tap_edge=tap))
    assert broken.broken == [DEFAULT_BREAK, H5_LINK]
    assert page.scenario_after(page.TOPO_CANVAS, broken, values(tap_edge=tap)).broken == [DEFAULT_BREAK]


def test_link_buttons_take_an_id_or_a_label():
    assert page.scenario_after(page.TOPO_TOGGLE_LINK, DEFAULT, values(link_id=17)).broken == []
    assert page.scenario_after(page.TOPO_TOGGLE_LINK, DEFAULT, values(link_id=DEFAULT_BREAK)).broken == []
    assert page.scenario_after(page.TOPO_TOGGLE_LINK, DEFAULT, values(link_id=" 5 ")).broken == [DEFAULT_BREAK, H5_LINK]
    gone = page.scenario_after(page.TOPO_REMOVE_LINK, DEFAULT, values(link_id=5))
    assert gone.edits == [{"op": "remove_link", "link": H5_LINK}] and gone.topology().n_links == 47
    for trigger in (page.TOPO_TOGGLE_LINK, page.TOPO_REMOVE_LINK):
        with pytest.raises(VizcollError, match="type a link id"):
            page.scenario_after(trigger, DEFAULT, values(link_id=None))
    with pytest.raises(VizcollError):
        page.scenario_after(page.TOPO_TOGGLE_LINK, DEFAULT, values(link_id=999))
    with pytest.raises(VizcollError, match="no link"):
        page.scenario_after(page.TOPO_TOGGLE_LINK, DEFAULT, values(link_id="h0[1]-h1[1]"))


def test_upload_a_valid_and_a_malformed_file():
    fabric = from_spec("fat-tree:radix=4,levels=2")
    text = topo_io.dumps(fabric, "ibsim")
    new = uploaded(text, "small.net")
    assert new.spec == "" and new.name == "small.net" and new.uploaded is not None and new.edits == []
    assert new.topology().names == fabric.names and new.topology().n_links == fabric.n_links
    assert new.params == DEFAULT.params_for_new_fabric() and new.broken == [] and new.pattern == ""

    for bad, fragment in ((text[: len(text) // 2], "dangling peer"), (text.replace("[1]", "[99]", 1), "port 99")):
        with pytest.raises(VizcollError, match=fragment) as info:
            uploaded(bad, "bad.net")
        assert str(info.value).startswith("bad.net, line")


def test_an_uploaded_fabric_keeps_its_own_names():
    topo = uploaded().topology()
    assert {"alpha", "beta", "gamma", "delta", "spine", "leafA", "leafB"} == set(topo.names)
    assert uploaded().title == "handmade.net"


def test_communicators_by_pattern_by_file_and_by_hand():
    applied = page.scenario_after(page.TOPO_APPLY_COMM, DEFAULT, values(pattern=" grid2d:2x8 ", ppn=1))
    assert applied.pattern == "grid2d:2x8" and applied.broken == DEFAULT.broken
    with pytest.raises(VizcollError):
        page.scenario_after(page.TOPO_APPLY_COMM, DEFAULT, values(pattern="grid2d:5x5", ppn=1))  # 25 > 16 ranks
    with pytest.raises(VizcollError, match="unknown pattern"):  # never a path on the server
        page.scenario_after(page.TOPO_APPLY_COMM, DEFAULT, values(pattern="/etc/passwd", ppn=1))
    with pytest.raises(VizcollError, match="processes per node"):
        page.scenario_after(page.TOPO_APPLY_COMM, DEFAULT, values(pattern="grid2d:2x2", ppn="abc"))
    lists = json.dumps({"communicators": [["h0", "h1"], ["h2", "h3", "h4"]]})
    from_file = page.scenario_after(
        page.TOPO_COMM_UPLOAD, DEFAULT, values(comm_upload=data_url(lists), comm_upload_name="c.json")
    )
    assert from_file.lists == [["h0", "h1"], ["h2", "h3", "h4"]] and from_file.pattern == ""
    with pytest.raises(VizcollError):
        page.scenario_after(
            page.TOPO_COMM_UPLOAD,
            DEFAULT,
            values(comm_upload=data_url('{"communicators": [["nobody"]]}'), comm_upload_name="c.json"),
        )

    def tap(scenario, name, comm):
        node = {"data": {"label": name}}
        return page.scenario_after(
            page.TOPO_CANVAS, scenario, values(tap_node=node, mode=page.COMMUNICATOR, comm_edit=comm)
        )

    started = tap(from_file, "h7", model.NEW_COMM)
    assert started.lists == [["h0", "h1"], ["h2", "h3", "h4"], ["h7"]]
    grown = tap(started, "h8", 2)
    assert grown.lists[2] == ["h7", "h8"]
    assert tap(grown, "h0", 0).lists[0] == ["h1"]  # a second click takes a node out
    assert tap(tap(grown, "h0", 0), "h1", 0).lists == [["h2", "h3", "h4"], ["h7", "h8"]]  # empty: dropped
    drawn_on_pattern = tap(DEFAULT, "h0", 0)  # a pattern is written out first, then edited
    assert drawn_on_pattern.pattern == "" and drawn_on_pattern.lists[0] == ["h1", "h2", "h3"]
    with pytest.raises(VizcollError, match="not an end node"):
        tap(DEFAULT, "edge0.0", 0)


def test_unknown_trigger_changes_nothing():
    assert page.scenario_after("something-else", DEFAULT, values()) == DEFAULT


def test_the_root_is_a_page_parameter():
    assert page.scenario_after(page.TOPO_ROOT, DEFAULT, values(root="h7")).params["topology"] == {"root": "h7"}
    assert model.root_of(DEFAULT.with_params("topology", {"root": "gone"}), topology_of(DEFAULT)) == "h0"


# ------------------------------------------------------------------ update_scenario (the callback)
def test_update_scenario_success_and_error_paths():
    out = update("topo-generate.n_clicks", generate=1, params="mesh:3x3")
    store = out["scenario"]
    assert Scenario.from_dict(store).spec == "mesh:3x3" and out["message"] == "" and out["generator"] == "mesh"
    assert out["root"] == Scenario.from_dict(store).params["topology"]["root"]

    for spec in ("torus:0x3", "no-such-fabric:1", ""):
        out = update("topo-generate.n_clicks", generate=1, params=spec)
        assert "scenario" not in out, spec  # the store keeps the last good scenario
        assert out["message"].startswith("⚠ ") and "Traceback" not in out["message"], out

    out = update("topo-upload.contents", upload=data_url('Switch 4 "s"\n[9] "h"[1]\n'), upload_name="x.net")
    assert "scenario" not in out and out["message"].startswith("⚠ x.net")
    for contents in (12, "no-comma", "data:x;base64,@@@"):
        out = update("topo-upload.contents", upload=contents, upload_name=None)
        assert "scenario" not in out and out["message"].startswith("⚠ ") and "empty" not in out["message"]


def test_the_upload_box_used_is_emptied_so_the_same_file_can_be_loaded_again():
    out = update("topo-upload.contents", upload=data_url(ONE_SPINE), upload_name="h.net")
    assert out["upload"] is None and "comm_upload" not in out  # the other left alone: emptying it starts the job
    out = update("topo-generate.n_clicks", generate=1, params="fat-tree:radix=4,levels=2")
    assert "upload" not in out and "comm_upload" not in out


def test_a_large_file_is_left_to_the_job_which_reads_it_as_the_request_would(monkeypatch):
    url = data_url(ONE_SPINE)
    small = update("topo-upload.contents", upload=url, upload_name="h.net")
    assert large_read(print, url) == {}  # the request's
    monkeypatch.setattr(model, "LARGE_UPLOAD_BYTES", 10)
    assert update("topo-upload.contents", upload=url, upload_name="h.net") == {}  # the job's now
    seen = []
    assert large_read(seen.append, url) == small
    assert seen == [(0, 1, f"Reading h.net ({len(url) * 3 / 4e6:.1f} MB)…")]
    out = large_read(seen.append, data_url("junk " * 10), "j.net")
    assert "scenario" not in out and out["message"].startswith("⚠ j.net")
    for forged in (None, 12, ["x"]):
        assert large_read(seen.append, forged) == {}


def large_read(progress, contents, filename: str = "h.net") -> dict:
    """The large-file job as Dash calls it, on the default scenario."""
    return page.read_large_upload(
        progress, contents=contents, filename=filename, comm_edit=None, scenario=DEFAULT.to_dict()
    )


def test_a_page_load_writes_nothing():
    assert in_callback(page.update_scenario, None, DEFAULT.to_dict(), **values()) == {}


# ------------------------------------------------------------------ views
def test_render_scenario_small_uses_cytoscape():
    out = page.render_scenario(DEFAULT.to_dict())
    elements = out["elements"]
    assert len([e for e in elements if "source" not in e["data"]]) == 36
    assert len([e for e in elements if "source" in e["data"]]) == 48
    assert out["canvas_style"].get("display") != "none" and out["overview_style"] == {"display": "none"}
    assert "overview" not in out and out["legend_style"] == {}
    assert [span.children[0].children + span.children[1] for span in out["counts"]] == [
        "20 switches",
        "16 end nodes",
        "48 links",
        "1 broken link",
        "4 max ports",
    ]
    assert out["comm_info"].startswith("8 communicators")
    assert out["root_options"][0] == "h0" and len(out["root_options"]) == 16
    comm_options = out["comm_edit_options"]
    assert comm_options[-1] == {"label": "a new communicator", "value": model.NEW_COMM} and len(comm_options) == 9
    assert out["spec"] == DEFAULT.spec and out["pattern"] == "grid2d:4x4"
    layout = out["layout"]
    assert layout["name"] == "preset" and layout["fit"] is True  # nodes where the server put them, fitted
    assert out["part"] == "whole" and [o["value"] for o in out["part_options"]] == [
        "whole",
        "overview",
        "group:0",
        "group:1",
        "group:2",
        "group:3",
    ]
    edited = page.render_scenario(
        DEFAULT.with_edit({"op": "add_node", "name": "probe", "kind": "switch"}).toggled(H5_LINK).to_dict()
    )
    assert edited["layout"] == layout  # an edit or a break keeps the view: the canvas fits again for a new fabric only
    assert page.render_scenario(Scenario(spec="torus:2x2,hosts=1").to_dict())["layout"] != layout


def test_render_scenario_of_an_upload_shows_no_spec():
    out = page.render_scenario(uploaded().to_dict())
    assert out["spec"] == "" and set(out["root_options"]) == {"alpha", "beta", "gamma", "delta"}


def test_a_large_fabric_opens_on_its_blocks_and_a_plane_is_drawn_alone_on_the_canvas():
    assert from_spec(LARGE_SPEC).n_nodes > SMALL_LIMIT
    large = Scenario(spec=LARGE_SPEC)
    out = page.render_scenario(large.to_dict())
    figure = out["overview"]
    assert out["elements"] == [] and out["canvas_style"] == {"display": "none"}
    assert out["overview_style"].get("display") != "none"
    assert out["legend_style"] == {"display": "none"}  # the node legend belongs to the cytoscape drawing
    assert isinstance(figure, go.Figure) and "800 switches" in figure.layout.title.text.replace("<br>", "")
    blocks = [t for t in figure.data if (t.name or "").startswith("switch blocks")]
    assert blocks and len(blocks[0].x) == 8 and blocks[0].customdata[3] == "group:3"  # one per z-plane
    assert out["part"] == "overview" and [o["value"] for o in out["part_options"]][:2] == ["overview", "group:0"]
    # a click on a block draws its plane alone on the canvas, and a reload keeps it
    click = {"points": [{"customdata": "group:3"}]}
    store = update("topo-large.clickData", large, block=click)["scenario"]
    drilled = page.render_scenario(store)
    assert Scenario.from_dict(store).params["topology"]["part"] == "group:3" and drilled["part"] == "group:3"
    nodes = [e for e in drilled["elements"] if "source" not in e["data"]]
    assert len(nodes) == 200 and drilled["canvas_style"].get("display") != "none" and "overview" not in drilled
    plane = {n for n in from_spec(LARGE_SPEC).names if n.endswith("-3")}  # sw<x>-<y>-3 and h<x>-<y>-3
    assert {e["data"]["label"] for e in nodes} == plane
    forged = update("topo-part.value", large, part="group:99")
    assert "scenario" not in forged and "no group '99'" in forged["message"]
    assert drilled["layout"] != out["layout"]  # another part: the canvas fits again


def test_a_forged_store_gives_a_message():
    out = page.render_scenario({"schema": "vizcoll.scenario/2", "communicators": [1, 2]})
    assert out == {"comm_info": out["comm_info"]} and out["comm_info"].startswith("⚠ The scenario could not be read")


def test_compute_broadcast_info():
    timeline, info = itemgetter("timeline", "info")(page.compute_broadcast(DEFAULT.to_dict()))
    assert info == "From h0: 36 nodes reached in 6 hops with 35 messages; 0 unreachable."
    assert player_timeline(timeline).n_steps == 7
    cut = DEFAULT.toggled(H5_LINK)
    timeline, info = itemgetter("timeline", "info")(page.compute_broadcast(cut.to_dict()))
    assert info.endswith("1 unreachable: the broken links cut the network into 2 parts (1 node cut off).")
    assert "35 nodes reached" in info
    assert "cannot be reached" in player_timeline(timeline).caption(player_timeline(timeline).n_steps - 1)
    _, info = itemgetter("timeline", "info")(
        page.compute_broadcast(DEFAULT.with_params("topology", {"root": "h9"}).to_dict())
    )
    assert info.startswith("From h9:")


def test_a_large_fabric_plays_the_broadcast_on_its_overview():
    data = Scenario(spec=LARGE_SPEC).to_dict()
    handle, info = itemgetter("timeline", "info")(page.compute_broadcast(data))
    assert "1,600 nodes reached" in info and "Played on the overview" in info
    frames, tl = handle["overview"], player_timeline(handle)
    assert frames["steps"] == tl.n_steps == handle["steps"] and len(frames["bundles"]) == tl.n_steps + 1
    crossed = sum(len(e.path_links) for e in tl.events)
    assert sum(map(sum, frames["messages"])) == crossed  # every hop of every message lights its bundle
    assert sum(map(sum, frames["nodes"])) == sum(len(tl.changes_at(k)) for k in range(tl.n_steps))
    figure = page.render_scenario(data)["overview"]  # the overview carries the two layers the browser lights
    layers = [t for t in figure["data"] if str(t["meta"]).startswith("overview-")]
    assert [t["meta"] for t in layers] == ["overview-messages", "overview-nodes"]
    assert page.render_step(3, handle) is no_update  # the browser draws an overview's steps
    assert "handle.overview" in OVERVIEW_STEP_JS


def test_a_group_drawn_alone_plays_the_broadcast_node_by_node():
    data = Scenario(spec=LARGE_SPEC, params={"topology": {"part": "group:3"}}).to_dict()
    handle, info = itemgetter("timeline", "info")(page.compute_broadcast(data))
    tl, drawn = player_timeline(handle), handle["nodes"]
    assert "overview" not in handle and len(drawn) < 1600 and tl.entities  # the part's nodes, by fabric index
    last = tl.n_steps
    sheet = page.render_step(last, handle)
    selectors = [sel.strip() for rule in sheet for sel in rule["selector"].split(",")]
    ids = {int(sel[2:]) for sel in selectors if sel.startswith("#n")}
    assert ids and max(ids) < len(drawn)  # the drawing's own node ids, never the fabric's


def test_render_step_highlights_the_links_of_the_current_hop():
    timeline, _ = itemgetter("timeline", "info")(page.compute_broadcast(DEFAULT.to_dict()))
    tl = player_timeline(timeline)
    assert page.render_step(0, None) == base_stylesheet()

    start = page.render_step(0, timeline)
    assert start[: len(base_stylesheet())] == base_stylesheet()
    assert not any(rule["style"].get("line-color") == ORANGE for rule in start)
    root_rule = [r for r in start if r["selector"] == "#n20"]  # h0 is node 20
    assert root_rule and root_rule[0]["style"]["border-color"] == "#f5b800"

    position = 3
    mid = page.render_step(position, timeline)
    active = {link for e in tl.active_at(position - 1) for link in e.path_links}
    orange = [r for r in mid if r["style"].get("line-color") == ORANGE]
    assert len(orange) == 1 and set(orange[0]["selector"].split(", ")) == {f"edge[link = {lid}]" for lid in active}
    receivers = {f"#n{e.dst}" for e in tl.active_at(position - 1) if e.dst >= 0}
    assert any(set(r["selector"].split(", ")) == receivers and r["style"]["border-color"] == ORANGE for r in mid)


def test_fill_selection_from_clicks():
    node = {"data": {"id": "n21", "label": "h1"}}
    edge = {"data": {"id": "l5-25-2", "link": 5, "name": H5_LINK}}
    select, draw = page.SELECT, page.COMMUNICATOR
    assert in_callback(page.fill_selection, "topo-canvas.tapNode", node, None, "h0", select) == {"a": "h1", "b": "h0"}
    assert in_callback(page.fill_selection, "topo-canvas.tapNode", node, None, None, select) == {"a": "h1"}
    assert in_callback(page.fill_selection, "topo-canvas.tapNode", node, None, "h0", draw) == {}
    assert in_callback(page.fill_selection, "topo-canvas.tapEdge", node, edge, "h0", select) == {"link": H5_LINK}


def test_export_topology():
    scenario = DEFAULT.toggled(H5_LINK)
    out = in_callback(page.export, "topo-export-topo.n_clicks", 1, scenario.to_dict(), "ibsim")
    assert out["filename"] == "topology.net"
    assert topo_io.parse(out["content"], "t.net").names == scenario.topology().names
    out = in_callback(page.export, "topo-export-topo.n_clicks", 1, scenario.to_dict(), "json")
    back = topo_io.parse(out["content"], "t.json")
    assert back.names == scenario.topology().names and back.summary()["broken_links"] == 2
    assert in_callback(page.export, "topo-export-topo.n_clicks", 1, scenario.to_dict(), "/etc/passwd") is no_update


# ------------------------------------------------------------------ figure builders
def test_cytoscape_elements_classes():
    topo = DEFAULT.topology()
    elements = cytoscape_elements(topo)
    by_id = {e["data"]["id"]: e for e in elements}
    by_link = {e["data"]["link"]: e for e in elements if "link" in e["data"]}
    assert by_link[17]["classes"] == "broken" and by_link[5]["classes"] == ""
    assert by_link[17]["data"]["name"] == DEFAULT_BREAK
    assert by_id["n0"]["classes"].split()[0] == "switch" and by_id["n20"]["classes"].split()[0] == "endpoint"
    assert by_link[5]["data"]["source"] == "n25" and by_link[5]["data"]["id"] == "l5-25-2"
    assert all("x" in by_id[f"n{i}"]["position"] for i in range(topo.n_nodes))

    coloured = {e["data"]["id"]: e["classes"] for e in cytoscape_elements(topo, {20: 0, 21: 17})}
    assert coloured["n20"].split()[:2] == ["endpoint", "comm0"]
    assert coloured["n21"].split()[:2] == ["endpoint", f"comm{17 % len(PALETTE)}"]


def test_dragonfly_global_links_have_their_class():
    topo = from_spec("dragonfly:a=4,p=2,h=2")
    edges = [e for e in cytoscape_elements(topo) if "source" in e["data"]]
    assert sum(e["classes"] == "global" for e in edges) == int(topo.link_attrs["global"].sum()) > 0
    topo.broken[-1] = True  # a broken global link is drawn as broken
    assert [e for e in cytoscape_elements(topo) if "source" in e["data"]][-1]["classes"] == "broken"


def test_communicator_colours():
    topo = DEFAULT.topology()
    colour, info = model.communicator_colours(DEFAULT, topo)
    assert set(colour) == {topo.index(f"h{i}") for i in range(16)}
    assert set(colour.values()) <= set(range(8)) and info.startswith("8 communicators (8 of size 4)")
    assert all(topo.kind[node] == ENDPOINT for node in colour)
    none, info = model.communicator_colours(Scenario(spec=DEFAULT.spec), topo)
    assert none == {} and info.startswith("No communicators")


REAL_STYLE = (
    'switchguid=0x10\nSwitch 2 "S-0000000000000010" # "core switch one"\n[1] "H-0000000000000020"[1]\n'
    '[2] "H-0000000000000030"[1]\n\ncaguid=0x20\nCa 1 "H-0000000000000020" # "stage114 mlx4_0"\n'
    '[1] "S-0000000000000010"[1]\n\ncaguid=0x30\nCa 1 "H-0000000000000030" # "stage115 mlx4_0"\n'
    '[1] "S-0000000000000010"[2]\n'
)


def test_drawings_name_nodes_by_their_hosts_and_hovers_add_description_and_guid():
    topo = uploaded(REAL_STYLE, "real.ibnd").topology()
    nodes = [e["data"] for e in cytoscape_elements(topo) if "source" not in e["data"]]
    assert [n["label"] for n in nodes] == ["core switch one", "stage114", "stage115"]
    assert all(n["caption"].rstrip("…") == n["label"][: len(n["caption"].rstrip("…"))] for n in nodes)
    assert nodes[1]["caption"].startswith("stage")  # the host, not H-0000000000000020
    assert nodes[1]["hover"] == "stage114 · stage114 mlx4_0 · GUID 0x0000000000000020"
    assert "last.hover" in page.HOVER_JS
    node = base_stylesheet()[0]
    assert node["selector"] == "node" and node["style"]["label"] == "data(caption)"


def test_names_typed_by_host_description_or_guid_are_written_as_the_fabric_names_them():
    fabric = uploaded(REAL_STYLE, "real.ibnd")
    removed = page.scenario_after(page.TOPO_REMOVE_NODE, fabric, values(a="H-0000000000000030"))
    assert removed.edits[-1] == {"op": "remove_node", "name": "stage115"}
    linked = page.scenario_after(page.TOPO_ADD_LINK, fabric, values(a="stage114 MLX4_0", b="0x0000000000000030"))
    assert linked.edits[-1] == {"op": "add_link", "a": "stage114", "b": "stage115"}
    with pytest.raises(VizcollError, match="no node named 'stage116'; close names: stage115, stage114"):
        page.scenario_after(page.TOPO_REMOVE_NODE, fabric, values(a="stage116"))
    broken = page.scenario_after(
        page.TOPO_TOGGLE_LINK, fabric, values(link_id="H-0000000000000020[1]-S-0000000000000010[1]")
    )
    assert broken.broken == ["core switch one[1]-stage114[1]"]


def test_a_hostfile_or_name_lists_naming_hosts_are_the_communicators():
    fabric = uploaded(REAL_STYLE, "real.ibnd")
    for content, name in (
        ("stage114 slots=2\nstage115\n", "hostfile"),
        ("stage[114-115]:2\n", "machinefile"),
        (json.dumps([["stage114 mlx4_0", "STAGE115"]]), "c.json"),
    ):
        new = page.scenario_after(
            page.TOPO_COMM_UPLOAD, fabric, values(comm_upload=data_url(content), comm_upload_name=name)
        )
        assert (
            new.lists[0][:2] == ["stage114", "stage114"]
            if name != "c.json"
            else new.lists == [["stage114", "stage115"]]
        )
    with pytest.raises(VizcollError, match=r"^hostfile, line 2: the fabric has no end node 'stage116'; close names"):
        page.scenario_after(
            page.TOPO_COMM_UPLOAD,
            fabric,
            values(comm_upload=data_url("stage114\nstage116\n"), comm_upload_name="hostfile"),
        )


def test_an_upload_says_what_was_skipped_or_kept():
    text = (
        'src/query_smp.c:195; umad (DR path slid 0) bad status 110\nSwitch 4 "s"\n[1] "s"[2]\n[2] "s"[1]\n'
        '[3] "h"[1]\n\nHca 1 "h"\n[1] "s"[3]\n'
    )
    store, message = itemgetter("scenario", "message")(
        update("topo-upload.contents", upload=data_url(text), upload_name="odd.topo")
    )
    assert Scenario.from_dict(store).topology().n_links == 2
    assert message.startswith("⚠ Read odd.topo: skipped 1 line it does not know (line 1:")
    assert "1 loopback cable between two ports of one switch kept (no route uses them): s[1]-s[2]" in message


def test_an_upload_of_a_tree_without_a_top_switch_says_its_parts_and_a_broadcast_blames_the_file():
    store, message = itemgetter("scenario", "message")(
        update("topo-upload.contents", upload=data_url(CIRCE), upload_name="topology.conf")
    )
    assert message.startswith("⚠ Read topology.conf: line 5: Nodes= lists circe-n051 more than once")
    assert "; 5 parts: the file has no switch above s[0-5];" in message
    scenario = Scenario.from_dict(store)
    info = _views.broadcast_handle(scenario.source_key(), "s0", WHOLE)[1]
    assert info.startswith("From s0: 17 nodes reached in 1 hop with 16 messages; 69 unreachable: ")
    assert info.endswith(
        "the fabric as loaded is in 5 parts (52 nodes cut off): the file cuts them apart, not a break."
    )


def test_a_tree_of_several_parts_is_joined_under_one_added_switch_as_the_scenario_s_own_edits():
    split = uploaded(CIRCE, "topology.conf")
    offer = in_callback(page.join_offer, "scenario.data", split.to_dict(thin=True))
    assert offer == {"label": "Join s[0-5] under one added switch (vizcoll-added-root, not in the file)", "style": {}}
    out = update("topo-join-roots.n_clicks", split, join=1)
    joined = Scenario.from_dict(out["scenario"])
    assert [e["op"] for e in joined.edits] == ["add_node"] + ["add_link"] * 6
    assert analysis(joined.topology())["parts"] == 1 and out["message"] == ""
    assert in_callback(page.join_offer, "scenario.data", out["scenario"])["style"] == page.HIDDEN
    assert in_callback(page.join_offer, "scenario.data", DEFAULT.to_dict(thin=True))["style"] == page.HIDDEN


def test_the_router_answer_draws_the_fabric_and_a_new_tab_store_changes_nothing():
    large = Scenario(spec=LARGE_SPEC)
    body = page.body(large)
    found = {c.id: c for c in body._traverse() if isinstance(getattr(c, "id", None), str)}
    data = large.to_dict(thin=True)
    assert found[page.TOPO_DRAWN].data == key_of(data)
    assert (
        isinstance(found[page.TOPO_LARGE].figure, go.Figure) and found[page.TOPO_LARGE].style.get("display") != "none"
    )
    assert found["topo-player-timeline"].data["steps"] > 0 and found["topo-player-position"].children.startswith(
        "step 0"
    )
    render = page.unless_shown(page.render_with_key)
    broadcast = page.unless_shown(page.compute_broadcast)
    stored = json.loads(json.dumps(data))  # the scenario as the browser's store sends it back
    assert render(stored, found[page.TOPO_DRAWN].data) == {}
    assert broadcast(stored, found[page.TOPO_DRAWN].data) == {}
    other = DEFAULT.to_dict(thin=True)  # another scenario: drawn, with its key
    drawn = render(other, found[page.TOPO_DRAWN].data)
    assert drawn["elements"] and drawn["drawn"] == key_of(other) and broadcast(other, key_of(data))["timeline"]


def test_a_scenario_not_drawn_keeps_no_key_so_the_next_answer_draws_it():
    forged = {"schema": "vizcoll.scenario/2", "communicators": [1, 2]}
    assert page.render_with_key(forged)["drawn"] is None  # a message only: nothing drawn
    render = page.unless_shown(page.render_with_key)
    assert render(DEFAULT.to_dict(thin=True), None)["elements"]  # the store's scenario, once readable, is drawn
