"""The trees page's callbacks, views and figure builders, called directly (no browser, no server)."""

from __future__ import annotations

import pytest
from dash import html, no_update

from tests.callback_context import in_callback
from vizcoll.comm import place
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.generators import from_spec
from vizcoll.trees.cost import CostParams
from vizcoll.trees.metrics import tree_metrics
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import hier_knomial_tree, hierarchy_from_topology, kary_tree, knomial_tree, zhao_tree
from vizcoll.ui import ids
from vizcoll.ui.figures.trees import aggregation_stylesheet, fk_figure, logical_tree_figure, tree_positions
from vizcoll.ui.pages import trees as page

BUILD, REBUILD = f"{ids.TREES_BUILD}.n_clicks", f"{ids.TREES_REBUILD}.n_clicks"
CONTROLS = ("spec", "nprocs", "ppn", "order", "kind", "k", "broken", "degree", "l", "delta", "theta", "beta",
            "gamma", "S", "eps")


def controls(**changes) -> list:
    """The control values the Build callback reads, defaults unless changed."""
    return [changes.get(key, page.DEFAULTS[key]) for key in CONTROLS]


def params(**changes) -> dict:
    return page.read_params(*controls(**changes))




def cells(table: html.Table) -> list[list[str]]:
    return [[str(td.children) for td in tr.children] for tr in table.children[1].children]


def row(table: html.Table, first: str) -> list[str]:
    return next(r for r in cells(table) if r[0] == first)


# ------------------------------------------------------------------ the comparison table
def test_comparison_agrees_with_tree_metrics():
    p = params()
    topo = from_spec(p["spec"])
    placement = place(topo, 16, 1)
    groups = hierarchy_from_topology(topo, placement)
    cost = CostParams(P=16, k=4)
    trees = {"kary": kary_tree(16, 4), "knomial": knomial_tree(16, 4), "zhao": zhao_tree(groups, 4),
             "hier-knomial": hier_knomial_tree(groups, 4)}
    rows = {r["kind"]: r for r in page.comparison_rows(p)}
    for kind, tree in trees.items():
        m = tree_metrics(tree, topo, placement, params=cost, k=4)
        for key in ("height", "radius", "max_link", "max_switch_link", "cross_group", "latency_us"):
            assert rows[kind][key] == m[key], (kind, key)
    assert rows["kary"]["max_link"] == {"link_id": 32, "ends": ["agg0.0", "core0"], "packets": 12}
    table = page.comparison_table(p)
    assert row(table, "4-ary") == ["4-ary", "2", "10", "12 (agg0.0–core0)", "12 (agg0.0–core0)", "14", "12",
                                   "2.880"]
    assert row(table, "hierarchical 4-nomial")[1:3] == ["3", "12"]
    assert [r[0] for r in cells(table)][-1] == "type II min-cost, degree ≤ 4 (5 switches)"
    assert [tr.className for tr in table.children[1].children][:2] == ["chosen", ""]


def test_build_callback_stores_checked_parameters_and_the_table():
    stored, message, table = in_callback(page.build, BUILD, 1, 0, *controls(kind="knomial", k=8), None)
    assert message == "" and stored["kind"] == "knomial" and stored["k"] == 8 and stored["rebuilt"] is False
    assert stored["cost"] == {"l": 0.28, "delta": 4, "theta": 0.01, "beta": 16000.0, "gamma": 3.75e-05, "S": 0}
    assert row(table, "8-nomial")[0] == "8-nomial"


@pytest.mark.parametrize("change, words", [
    ({"nprocs": 100}, ""),  # more processes than the 16 end nodes hold
    ({"k": 1}, "k must be at least 2"),
    ({"spec": "no-such-fabric"}, ""),
    ({"broken": "3, x"}, "broken links must be link ids"),
    ({"broken": "999"}, ""),
    ({"l": 0}, "l (μs per link) must be > 0"),
    ({"theta": 0}, "b = θ + S/β + S·γ must be > 0"),
    ({"nprocs": None}, "processes must be an integer"),
])
def test_bad_input_gives_a_message_and_keeps_the_last_view(change, words):
    stored, message, table = in_callback(page.build, BUILD, 1, 0, *controls(**change), params())
    assert stored is no_update and table is no_update
    assert message.startswith("⚠ ") and words in message and "Traceback" not in message


def test_layout_takes_the_url_query():
    layout = page.layout("?spec=sunway-supernode&nprocs=512&ppn=2&kind=hier-knomial&k=32&broken=3&eps=0.2")
    found = {}

    def walk(node):
        if getattr(node, "id", None) in (ids.TREES_SPEC, ids.TREES_NPROCS, ids.TREES_PPN, ids.TREES_KIND,
                                         ids.TREES_K, ids.TREES_BROKEN, ids.TREES_EPS, ids.TREES_L):
            found[node.id] = node.value
        for child in getattr(node, "children", None) or []:
            if not isinstance(child, str):
                walk(child)
        if hasattr(node, "children") and not isinstance(node.children, (list, str, type(None))):
            walk(node.children)

    walk(layout)
    assert found == {ids.TREES_SPEC: "sunway-supernode", ids.TREES_NPROCS: 512, ids.TREES_PPN: 2,
                     ids.TREES_KIND: "hier-knomial", ids.TREES_K: 32, ids.TREES_BROKEN: "3", ids.TREES_EPS: 0.2,
                     ids.TREES_L: 0.28}
    for bad in ("abc", "1e999", "nan"):  # an unusable number in the URL falls back to the default
        found.clear()
        walk(page.layout(f"?k={bad}"))
        assert found[ids.TREES_K] == 4


# ------------------------------------------------------------------ F(k) and Table 3
def test_fk_figure_marks_k_star_41_and_the_flat_interval_for_the_paper_example():
    fig = fk_figure(512, 1.12, 0.01, 0.1, k=32)
    star = next(t for t in fig.data if t.name.startswith("k* ="))
    assert star.name == "k* = 41 (F* = 2.570 μs)" and list(star.x) == [41]
    band = fig.data[0]
    assert band.name == "|F(k) − F*| ≤ ε = 0.1 μs: 24 ≤ k ≤ 69" and min(band.x) == 24 and max(band.x) == 69
    curve = next(t for t in fig.data if t.name.startswith("F(k)"))
    assert curve.x[0] == 2 and curve.x[-1] == 128
    assert any(t.name == "your k = 32 (F = 2.592 μs)" for t in fig.data)
    assert fig.layout.xaxis.title.text.startswith("tree width k") and "μs" in fig.layout.yaxis.title.text


def test_width_view_uses_the_cost_parameters():
    p = params(nprocs=512, ppn=2, spec="sunway-supernode", k=32)
    fig, table, info = page.render_width(p)
    assert any(t.name.startswith("k* = 41") for t in fig.data)
    assert "k* = 41" in info and "from 24 to 69" in info
    rows = cells(table)
    assert rows[0] == ["16", "[0, 2048]", "II", "16"]
    assert ["no type II available", "[0, 123]", "I", "32"] in rows
    slow = page.render_width(params(S=1024))[0]  # 1 KB packets: b = 0.11 μs, a narrower, smaller optimum
    assert next(t for t in slow.data if t.name.startswith("k* =")).x[0] < 41


# ------------------------------------------------------------------ the chosen tree
def test_logical_and_mapped_figures_of_the_chosen_tree():
    logical, mapped, info = page.render_type_one(params())
    assert logical.layout.title.text == "4-ary tree over 16 processes: height 2"
    assert "root: rank 0" in [t.name for t in logical.data]
    assert {t.name for t in logical.data} >= {"edge0.0 (2)", "edge3.1 (2)", "tree edge (child → parent)"}
    assert mapped.layout.title.text == "4-ary on the fabric: max 12 packets on one link"
    names = [t.name for t in mapped.data]
    assert "switch links with packets between groups" in names and "root: rank 0 on h0" in names
    assert "14 of the 15 tree edges join processes on different leaf switches, 12 of them different groups" in info
    assert page.GRAPH_CONFIG["toImageButtonOptions"]["format"] == "svg"


def test_big_trees_are_drawn_in_part():
    tree = kary_tree(600, 4)
    fig = logical_tree_figure(tree, ["all"] * 600, "a big tree")
    assert fig.layout.title.text == "a big tree — first 512 of 600 vertices drawn"
    pos = tree_positions(kary_tree(7, 2))
    assert pos[0] == (1.5, 0) and pos[3] == (0.0, 2) and pos[6] == (3.0, 2)


# ------------------------------------------------------------------ type II
def test_type_two_min_cost_uses_fewer_switches_than_the_physical_tree():
    p = params(spec="fat-tree:radix=4,levels=2", nprocs=4, degree=3)
    physical, cheap, info = page.render_type_two(p)
    assert physical.layout.title.text == "Physical tree T: 3 switches hold an entry, height 2"
    assert cheap.layout.title.text == "Min-cost tree A (degree ≤ 3): 2 switches hold an entry, height 2"
    assert "switch with an entry (2)" in [t.name for t in cheap.data]
    assert "needs 2 switches: 1 aggregation-tree entries saved" in info[1].children
    physical, cheap, _ = page.render_type_two(params())  # the default: 13 switches in T, 5 in A
    assert physical.layout.title.text.startswith("Physical tree T: 13 switches")
    assert cheap.layout.title.text.startswith("Min-cost tree A (degree ≤ 4): 5 switches")


def test_type_two_failure_is_reported():
    p = params(broken="1") | {"rebuilt": True}  # h1's only link is broken: no switch reaches every member
    _, _, info = page.render_type_two(p)
    assert "⚠ No type II tree: h1 has no live link to a switch" in info[1].children


# ------------------------------------------------------------------ the aggregation and broken links
def test_animation_of_both_trees_gives_the_correct_result():
    for which in (page.TYPE1, page.TYPE2):
        timeline, flag, css, button, elements, summary = page.animate(params(), which)
        assert flag == "" and css == "flag" and button == {"display": "none"}
        tl = Timeline.from_dict(timeline)
        assert tl.summary["result"] == tl.summary["expected"] == 120 and tl.summary["correct"]
        assert "Every vertex has the result 120" in tl.caption(tl.n_steps - 1)
        assert summary.startswith("Result 120 (sum of every process's rank), expected 120: correct ✓")
        assert len(elements) == 36 + 48


def test_player_stylesheet_shows_states_values_and_hops():
    p = params()
    timeline = page.animate(p, page.TYPE1)[0]
    sheet = page.render_step(5, timeline, p)  # position 5: every partial crosses agg0.0–core0
    assert {"selector": "#l32", "style": {"line-color": "#ff7f0e", "width": 5, "z-index": 10}} in sheet
    labels = {r["selector"]: r["style"]["label"] for r in sheet if "label" in r["style"] and r["selector"][1] == "n"}
    assert labels["#n35"] == "h15\n↑15" and labels["#n20"] == "h0\n0"  # h15 has sent its value, h0 waits
    end = page.render_step(10_000, timeline, p)
    labels = {r["selector"]: r["style"]["label"] for r in end if "label" in r["style"] and r["selector"][1] == "n"}
    assert labels["#n20"] == "h0\n✓120" and labels["#n21"] == "h1\n✓"
    rules = aggregation_stylesheet({4: "blocked"}, ["n"] * 5, None)
    assert {"selector": "#n4", "style": {"shape": "diamond", "background-color": "#d62728"}} in rules


def test_a_broken_link_on_the_tree_is_flagged_then_the_tree_rebuilt():
    built = params(broken="32")
    timeline, flag, css, button, _, summary = page.animate(built, page.TYPE1)
    assert timeline is None and button == {"display": "inline-block"} and css == "flag warn"
    assert flag.startswith("⚠ The 4-ary tree was mapped on the intact fabric: 12 of its edges route over broken "
                           "link 32 (rank 4 → rank 0 over link 32")
    assert summary == "Rebuild the tree to play the aggregation."
    assert row(page.comparison_table(built), "4-ary")[-1] == "⚠ 12 edge(s) cross them"
    assert "12 edges route over broken link 32" in page.render_type_one(built)[2]

    rebuilt, message, _ = in_callback(page.build, REBUILD, 1, 1, *controls(broken="32"), built)
    assert message == "" and rebuilt == built | {"rebuilt": True}
    timeline, flag, css, button, _, summary = page.animate(rebuilt, page.TYPE1)
    assert button == {"display": "none"} and css == "flag"
    assert flag == ("Rebuilt: the 4-ary tree keeps its shape and mapping; 12 of its edges now take other routes "
                    "over live links, avoiding link 32: every new route is as short as the old one. "
                    "Radius 10 → 10 links.")
    assert Timeline.from_dict(timeline).summary["correct"]
    assert 32 not in page.type_one(rebuilt, "kary")["metrics"]["link_packets"]

    flag, needs = page.flag_type_two(built)
    assert needs and "uses broken link(s) 32" in flag
    assert page.flag_type_two(rebuilt) == ("Rebuilt: the type II tree was built again on the live fabric, "
                                           "avoiding the broken links.", False)


def test_a_rebuild_reports_the_processes_cut_off():
    p = params(broken="5, 32") | {"rebuilt": True}  # link 5 is h5's only link
    timeline, flag, css, *_ = page.animate(p, page.TYPE1)
    assert css == "flag warn"
    assert flag.endswith("But 1 edge(s) have no live route at all (h5 has no live link left): rank 5 → rank 1. "
                         "Rank 5 is cut off: its value never reaches the root.")
    summary = Timeline.from_dict(timeline).summary
    assert summary["result"] is None and summary["broken_edges"][0]["from"] == "h5"
    assert row(page.comparison_table(p), "4-ary")[-1] == "✕ 1 edge(s) cut"


def test_tree_names():
    assert [page.tree_name(k, 4) for k in page.KINDS] == ["4-ary", "4-nomial", "Zhao 4-nomial",
                                                         "hierarchical 4-nomial"]
    assert Tree.from_dict(page.type_one(params(), "hier-knomial")["tree"]).size == 16
