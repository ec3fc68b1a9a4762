"""The topology page's callbacks and pure helpers, called directly (no browser, no server)."""

from __future__ import annotations

import base64
import json

import plotly.graph_objects as go
import pytest
from dash import no_update

from tests.callback_context import in_callback
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import from_spec
from vizcoll.topology.model import ENDPOINT, SWITCH
from vizcoll.ui import ids
from vizcoll.ui.figures.topology import PALETTE, SMALL_LIMIT, base_stylesheet, cytoscape_elements, large_figure
from vizcoll.ui.pages import topology as page

DEFAULT = page.DEFAULT_SCENARIO
ORANGE = "#ff7f0e"
LARGE_SPEC = "torus:10x10x8,hosts=1"  # 1,600 nodes: just over SMALL_LIMIT


def values(**given) -> dict:
    """The ``values`` dict update_scenario passes on: every input and state, None unless given."""
    keys = ("generate", "params_submit", "generator", "upload", "import", "apply", "comm_upload", "tap_edge",
            "add_node", "add_link", "remove_node", "rename", "toggle", "remove_link", "params", "upload_name",
            "comm_upload_name", "a", "b", "new_name", "kind", "link_id", "pattern", "ppn")
    return dict.fromkeys(keys) | given


def data_url(content: str | bytes, mime: str = "application/octet-stream") -> str:
    """What dcc.Upload puts in ``contents``."""
    raw = content.encode() if isinstance(content, str) else content
    return f"data:{mime};base64,{base64.b64encode(raw).decode()}"




def names_and_kinds(scenario: Scenario) -> dict[str, int]:
    topo = scenario.build()
    return {name: int(topo.kind[i]) for i, name in enumerate(topo.names)}


# ------------------------------------------------------------------ scenario_after, one trigger at a time
def test_generate_and_submit_replace_the_scenario():
    for trigger in (ids.TOPO_GENERATE, ids.TOPO_PARAMS):
        new = page.scenario_after(trigger, DEFAULT, values(params="  torus:3x3x2,hosts=1 "))
        assert new.spec == "torus:3x3x2,hosts=1" and new.edits == [] and new.pattern == "" and new.topology is None
        assert new.build().summary()["switches"] == 18
    with pytest.raises(VizcollError, match="dimension 1"):  # well-formed, but the fabric cannot be built
        page.scenario_after(ids.TOPO_GENERATE, DEFAULT, values(params="torus:0x3"))
    with pytest.raises(VizcollError):
        page.scenario_after(ids.TOPO_GENERATE, DEFAULT, values(params="no-such-fabric"))


def test_generator_dropdown_loads_its_example():
    for name, spec in page.EXAMPLE_SPECS.items():
        assert page.scenario_after(ids.TOPO_GENERATOR, DEFAULT, values(generator=name)).spec == spec


def test_add_node_then_link():
    one = page.scenario_after(ids.TOPO_ADD_NODE, DEFAULT, values(new_name=" extra ", kind="endpoint"))
    assert one.edits == [*DEFAULT.edits, {"op": "add_node", "name": "extra", "kind": "endpoint"}]
    assert names_and_kinds(one)["extra"] == ENDPOINT
    two = page.scenario_after(ids.TOPO_ADD_LINK, one, values(a="extra", b="edge0.0"))
    before, after = one.build(), two.build()
    assert after.n_links == before.n_links + 1
    assert {after.names[int(after.link_a[-1])], after.names[int(after.link_b[-1])]} == {"extra", "edge0.0"}
    with pytest.raises(VizcollError):  # a name that is taken
        page.scenario_after(ids.TOPO_ADD_NODE, one, values(new_name="extra", kind="switch"))
    with pytest.raises(VizcollError):  # an unknown end
        page.scenario_after(ids.TOPO_ADD_LINK, one, values(a="extra", b="nobody"))


def test_remove_and_rename_node():
    removed = page.scenario_after(ids.TOPO_REMOVE_NODE, DEFAULT, values(a="h3"))
    topo = removed.build()
    assert "h3" not in topo and topo.n_nodes == 35 and topo.n_links == 47
    renamed = page.scenario_after(ids.TOPO_RENAME, DEFAULT, values(a="h0", new_name="boss"))
    assert "boss" in renamed.build() and "h0" not in renamed.build()
    assert names_and_kinds(renamed)["boss"] == ENDPOINT
    with pytest.raises(VizcollError):
        page.scenario_after(ids.TOPO_REMOVE_NODE, DEFAULT, values(a="nobody"))


def test_tap_on_a_link_breaks_it_and_a_second_tap_repairs_it():
    tap = {"data": {"link": 3, "id": "l3"}}
    broken = page.scenario_after(ids.TOPO_CANVAS, DEFAULT, values(tap_edge=tap))
    assert broken.edits[-1] == {"op": "toggle_broken", "id": 3}
    assert broken.broken_ids() == [3, 17]
    repaired = page.scenario_after(ids.TOPO_CANVAS, broken, values(tap_edge=tap))
    assert repaired.broken_ids() == [17]


def test_link_id_buttons():
    toggled = page.scenario_after(ids.TOPO_TOGGLE_LINK, DEFAULT, values(link_id=17))
    assert toggled.broken_ids() == []  # the default's broken link repaired
    gone = page.scenario_after(ids.TOPO_REMOVE_LINK, DEFAULT, values(link_id=5))
    assert gone.build().n_links == 47 and 5 not in gone.build().link_id.tolist()
    for trigger in (ids.TOPO_TOGGLE_LINK, ids.TOPO_REMOVE_LINK):
        with pytest.raises(VizcollError, match="type a link id first"):
            page.scenario_after(trigger, DEFAULT, values(link_id=None))
    with pytest.raises(VizcollError):
        page.scenario_after(ids.TOPO_TOGGLE_LINK, DEFAULT, values(link_id=999))


def test_upload_a_valid_and_a_malformed_file():
    fabric = from_spec("fat-tree:radix=4,levels=2")
    text = topo_io.dumps(fabric, "ibsim")
    new = page.scenario_after(ids.TOPO_UPLOAD, DEFAULT, values(upload=data_url(text), upload_name="small.net"))
    assert new.spec == "file:small.net" and new.topology is not None and new.edits == []
    assert new.build().names == fabric.names and new.build().n_links == fabric.n_links

    for bad, fragment in ((text[: len(text) // 2], "dangling peer"), (text.replace("[1]", "[99]", 1), "port 99")):
        with pytest.raises(VizcollError, match=fragment) as info:
            page.scenario_after(ids.TOPO_UPLOAD, DEFAULT, values(upload=data_url(bad), upload_name="bad.net"))
        assert str(info.value).startswith("bad.net, line")


def test_import_a_scenario_file():
    edited = DEFAULT.with_edit({"op": "add_node", "name": "x", "kind": "switch"})
    back = page.scenario_after(ids.TOPO_IMPORT, DEFAULT, values() | {"import": data_url(edited.dumps())})
    assert back == edited
    with pytest.raises(VizcollError, match="not valid JSON"):
        page.scenario_after(ids.TOPO_IMPORT, DEFAULT, values() | {"import": data_url("{oops")})
    with pytest.raises(VizcollError, match="schema"):
        page.scenario_after(ids.TOPO_IMPORT, DEFAULT, values() | {"import": data_url('{"spec": "torus:2x2"}')})


def test_communicators_by_pattern_and_by_file():
    applied = page.scenario_after(ids.TOPO_APPLY_COMM, DEFAULT, values(pattern=" grid2d:2x8 ", ppn=1))
    assert applied.pattern == "grid2d:2x8" and applied.edits == DEFAULT.edits
    with pytest.raises(VizcollError):
        page.scenario_after(ids.TOPO_APPLY_COMM, DEFAULT, values(pattern="grid2d:5x5", ppn=1))  # 25 > 16 ranks
    lists = json.dumps({"communicators": [["h0", "h1"], ["h2", "h3", "h4"]]})
    uploaded = page.scenario_after(ids.TOPO_COMM_UPLOAD, DEFAULT,
                                   values(comm_upload=data_url(lists), comm_upload_name="c.json"))
    assert uploaded.lists == [["h0", "h1"], ["h2", "h3", "h4"]] and uploaded.pattern == ""
    with pytest.raises(VizcollError):
        page.scenario_after(ids.TOPO_COMM_UPLOAD, DEFAULT,
                            values(comm_upload=data_url('{"communicators": [["nobody"]]}'), comm_upload_name="c.json"))


def test_unknown_trigger_changes_nothing():
    assert page.scenario_after("something-else", DEFAULT, values()) == DEFAULT


# ------------------------------------------------------------------ update_scenario (the callback)
def test_update_scenario_success_and_error_paths():
    ok = in_callback(page.update_scenario, "topo-generate.n_clicks", DEFAULT.to_dict(),
                     **values(generate=1, params="mesh:3x3"))
    assert ok == (Scenario(spec="mesh:3x3").to_dict(), "", "mesh")

    for spec in ("torus:0x3", "no-such-fabric:1", ""):
        data, message, _ = in_callback(page.update_scenario, "topo-generate.n_clicks", DEFAULT.to_dict(),
                                    **values(generate=1, params=spec))
        assert data is no_update, spec  # the store keeps the last good scenario
        assert message.startswith("⚠ ") and "Traceback" not in message, message

    data, message, _ = in_callback(page.update_scenario, "topo-upload.contents", DEFAULT.to_dict(),
                                **values(upload=data_url('Switch 4 "s"\n[9] "h"[1]\n'), upload_name="x.net"))
    assert data is no_update and message.startswith("⚠ x.net")


# ------------------------------------------------------------------ views
def test_render_scenario_small_uses_cytoscape():
    (elements, canvas_style, figure, large_style, legend_style, counts, comm_info, href, options, root, spec,
     pattern) = page.render_scenario(DEFAULT.to_dict(), None)
    assert len([e for e in elements if "source" not in e["data"]]) == 36
    assert len([e for e in elements if "source" in e["data"]]) == 48
    assert canvas_style.get("display") != "none" and large_style == {"display": "none"}
    assert figure is no_update and legend_style == {}
    assert [span.children[0].children + span.children[1] for span in counts] == \
        ["20 switches", "16 end nodes", "48 links", "1 broken link", "4 max ports"]
    assert comm_info.startswith("8 communicators")
    assert href.startswith("/topology?") and "spec=fat-tree" in href and "broken=17" in href and "root=h0" in href
    assert root == "h0" and options[0] == "h0" and len(options) == 16
    assert spec == DEFAULT.spec and pattern == "grid2d:4x4"


def test_render_scenario_large_uses_a_webgl_figure():
    assert from_spec(LARGE_SPEC).n_nodes > SMALL_LIMIT
    out = page.render_scenario(Scenario(spec=LARGE_SPEC).to_dict(), None)
    elements, canvas_style, figure, large_style, legend_style = out[:5]
    assert elements == [] and canvas_style == {"display": "none"} and large_style.get("display") != "none"
    assert legend_style == {"display": "none"}  # the node legend belongs to the cytoscape drawing
    assert isinstance(figure, go.Figure) and figure.data
    assert all(isinstance(trace, go.Scattergl) for trace in figure.data)
    assert "800 switches" in figure.layout.title.text


def test_render_scenario_keeps_a_valid_root_and_replaces_an_unknown_one():
    assert page.render_scenario(DEFAULT.to_dict(), "h7")[9] == "h7"
    assert page.render_scenario(DEFAULT.to_dict(), "gone")[9] == "h0"
    uploaded = page.scenario_after(ids.TOPO_UPLOAD, DEFAULT, values(
        upload=data_url(topo_io.dumps(from_spec("mesh:2x2"), "json")), upload_name="m.json"))
    out = page.render_scenario(uploaded.to_dict(), None)
    assert out[7] == "#" and out[10] == ""  # uploaded fabrics have no shareable URL and no spec


def test_compute_broadcast_info():
    timeline, info = page.compute_broadcast(DEFAULT.to_dict(), "h0")
    assert info == "36 nodes reached in 6 hops with 35 messages; 0 unreachable."
    assert Timeline.from_dict(timeline).n_steps == 7
    cut = DEFAULT.with_edit({"op": "toggle_broken", "id": 5})  # h5's only link
    timeline, info = page.compute_broadcast(cut.to_dict(), "h0")
    assert info.endswith("1 unreachable.") and info.startswith("35 nodes reached")
    assert "cannot be reached" in Timeline.from_dict(timeline).caption(Timeline.from_dict(timeline).n_steps - 1)
    assert page.compute_broadcast(DEFAULT.to_dict(), None) == (None, "Choose a root.")
    assert page.compute_broadcast(DEFAULT.to_dict(), "nobody") == (None, "Choose a root.")


def test_compute_broadcast_large_gives_figures_but_no_animation():
    timeline, info = page.compute_broadcast(Scenario(spec=LARGE_SPEC).to_dict(), "h0-0-0")
    assert timeline is None and info.startswith("1,600 nodes reached")


def test_render_step_highlights_the_links_of_the_current_hop():
    timeline, _ = page.compute_broadcast(DEFAULT.to_dict(), "h0")
    tl = Timeline.from_dict(timeline)
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
    assert len(orange) == 1 and set(orange[0]["selector"].split(", ")) == {f"#l{lid}" for lid in active}
    receivers = {f"#n{e.dst}" for e in tl.active_at(position - 1) if e.dst >= 0}
    assert any(set(r["selector"].split(", ")) == receivers and r["style"]["border-color"] == ORANGE for r in mid)


def test_fill_selection_from_clicks():
    node = {"data": {"id": "n21", "label": "h1"}}
    edge = {"data": {"id": "l4", "link": 4}}
    assert in_callback(page.fill_selection, "topo-canvas.tapNode", node, None, "h0") == ("h1", "h0", no_update)
    assert in_callback(page.fill_selection, "topo-canvas.tapNode", node, None, None) == ("h1", no_update, no_update)
    assert in_callback(page.fill_selection, "topo-canvas.tapEdge", node, edge, "h0") == (no_update, no_update, 4)


def test_export_scenario_and_topology():
    scenario = DEFAULT.with_edit({"op": "toggle_broken", "id": 5})
    out = in_callback(page.export, "topo-export.n_clicks", 1, 0, scenario.to_dict(), "json")
    assert out["filename"] == "vizcoll-scenario.json" and Scenario.loads(out["content"]) == scenario
    out = in_callback(page.export, "topo-export-topo.n_clicks", 0, 1, scenario.to_dict(), "ibsim")
    assert out["filename"] == "topology.net"
    assert topo_io.parse(out["content"], "t.net").names == scenario.build().names


# ------------------------------------------------------------------ figure builders
def test_cytoscape_elements_classes():
    topo = DEFAULT.build()
    elements = cytoscape_elements(topo)
    by_id = {e["data"]["id"]: e for e in elements}
    assert by_id["l17"]["classes"] == "broken" and by_id["l5"]["classes"] == ""
    assert by_id["n0"]["classes"] == "switch" and by_id["n20"]["classes"] == "endpoint"
    assert by_id["l5"]["data"]["source"] == "n25" and by_id["l5"]["data"]["link"] == 5
    assert all("x" in by_id[f"n{i}"]["position"] for i in range(topo.n_nodes))

    coloured = {e["data"]["id"]: e["classes"] for e in cytoscape_elements(topo, {20: 0, 21: 17})}
    assert coloured["n20"] == "endpoint comm0" and coloured["n21"] == f"endpoint comm{17 % len(PALETTE)}"


def test_dragonfly_global_links_have_their_class():
    topo = from_spec("dragonfly:a=4,p=2,h=2")
    edges = [e for e in cytoscape_elements(topo) if "source" in e["data"]]
    assert sum(e["classes"] == "global" for e in edges) == int(topo.link_attrs["global"].sum()) > 0
    topo.broken[-1] = True  # a broken global link is drawn as broken
    assert [e for e in cytoscape_elements(topo) if "source" in e["data"]][-1]["classes"] == "broken"


def test_communicator_colours():
    topo = DEFAULT.build()
    colour, info = page.communicator_colours(DEFAULT, topo)
    assert set(colour) == {topo.index(f"h{i}") for i in range(16)}
    assert set(colour.values()) <= set(range(8)) and info.startswith("8 communicators (8 of size 4)")
    assert all(topo.kind[node] == ENDPOINT for node in colour)
    none, info = page.communicator_colours(Scenario(spec=DEFAULT.spec), topo)
    assert none == {} and info.startswith("No communicators")


def test_large_figure_traces():
    topo = from_spec(LARGE_SPEC)
    topo.broken[-1] = True
    figure = large_figure(topo)
    names = [trace.name for trace in figure.data]
    assert any(n.startswith("broken links (") for n in names) and "switches (800)" in names
    markers = [t for t in figure.data if t.mode == "markers"][0]
    assert len(markers.x) == int((topo.kind == SWITCH).sum())
