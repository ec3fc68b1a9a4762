"""The trees page's callbacks, views and figure builders, called directly with scenario dicts (no browser)."""

from __future__ import annotations

import base64
import functools
import json
import re
import time
from dataclasses import replace

import numpy as np
import pytest
from dash import dcc, html, no_update
from flask import Flask

from tests import table_text
from tests.callback_context import find_component, in_callback, registered
from tests.fabrics import HOSTS, TWO_SPINES, campus_cluster
from vizcoll.scenario import WORLD, Scenario
from vizcoll.schedule import parse, tree_collective
from vizcoll.schedule.check import check
from vizcoll.sim.timeline import Timeline
from vizcoll.topology import io as topo_io
from vizcoll.topology.blocks import bundles
from vizcoll.trees.cost import CostParams
from vizcoll.trees.groups import hierarchy_from_topology
from vizcoll.trees.metrics import LatencyModel, mapped_type_one, tree_metrics, vertex_switches
from vizcoll.trees.routing import Routing
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import hier_knomial_tree, kary_tree, knomial_tree, zhao_tree
from vizcoll.ui import cache as cache_mod
from vizcoll.ui import jobs
from vizcoll.ui.components.player import caption_at, pid, player_timeline
from vizcoll.ui.figures.topology import SMALL_LIMIT
from vizcoll.ui.models.parts import drawn_view, view_of
from vizcoll.ui.pages.trees import _model as model
from vizcoll.ui.pages.trees import _views as views
from vizcoll.ui.pages.trees import page
from vizcoll.ui.pages.trees._figures import aggregation_stylesheet, fk_figure, logical_tree_figure, tree_positions
from vizcoll.ui.store import DEFAULT_SCENARIO, fabric_of, topology_of
from vizcoll.ui.store import key_of as plan_key

KIND, K, USE_PRESET, CANVAS = (
    f"{page.TREES_KIND}.value",
    f"{page.TREES_K}.value",
    f"{page.TREES_USE_PRESET}.n_clicks",
    f"{page.TREES_CANVAS}.tapEdge",
)
ROUTES = f"{page.TREES_ROUTES}.value"
FAT = "fat-tree:radix=4,levels=3"
BUSIEST = 32  # link agg0.0–core0: the 4-ary tree's bottleneck on the paper's Fig. 7 fat tree (12 packets)


def scenario(spec: str = FAT, broken=(), **params) -> Scenario:
    """A scenario on ``spec`` (every end node one process), its breaks and trees parameters."""
    return Scenario(spec=spec, broken=list(broken), params={"trees": params} if params else {})


def label_of(s: Scenario, link_id: int) -> str:
    fabric = fabric_of(s)
    return fabric.link_label(fabric.link_row(link_id))


def with_breaks(s: Scenario, *link_ids: int) -> Scenario:
    return s.with_breaks([label_of(s, lid) for lid in link_ids])


def plan_of(s: Scenario) -> dict:
    return model.page_plan(s)


def key_of(s: Scenario) -> tuple[dict, dict]:
    plan = plan_of(s)
    assert "error" not in plan, plan
    return model.engine_key(s, plan), plan


@functools.cache
def callbacks() -> dict:
    """The page's callbacks registered with :func:`~vizcoll.ui.callbacks.by_name` as Dash calls them (keyword inputs
    in, every output by name out; the scenario store read and checked), by the name of the page's function."""
    return registered(page)


def data_of(current: Scenario | dict | None):
    return current.to_dict() if isinstance(current, Scenario) else current


def update(prop_id: str, current: Scenario | dict | None, tap=None, preset="sunway", **changes) -> dict:
    """The page's writing callback, as Dash calls it when ``prop_id`` changed: its ``store`` and ``message``."""
    values = model.DEFAULTS | changes
    controls = {key: values[key] for key in page.PARAM_CONTROLS}
    return in_callback(
        callbacks()["update"],
        prop_id,
        values=controls,
        use_preset=0,
        tap_edge=tap,
        preset=preset,
        scenario=data_of(current),
    )


def stored(store) -> Scenario:
    assert isinstance(store, dict), store
    return Scenario.from_dict(store)


def cells(table: dcc.Markdown) -> list[list[str]]:
    return table_text.rows(table)


def row(table: dcc.Markdown, first: str) -> list[str]:
    return next(r for r in cells(table) if r[0] == first)


def compare(s: Scenario) -> dcc.Markdown:
    return page.render_compare(plan_of(s), s.to_dict())


def texts(fig) -> list[str]:
    """Every text a figure writes on the drawing (trace texts and names, annotations)."""
    out = [a.text for a in fig.layout.annotations]
    for trace in fig.data:
        many = isinstance(trace.text, (list, tuple, np.ndarray))  # long texts travel as arrays
        out += [str(t) for t in (trace.text if many else [trace.text or ""])]
        out.append(trace.name or "")
    return out


def walk(node, found: dict) -> dict:
    if getattr(node, "id", None) in page.PARAM_CONTROLS.values():
        found[node.id] = node.value
    children = getattr(node, "children", None)
    for child in children if isinstance(children, list) else [children]:
        if child is not None and not isinstance(child, (str, int, float)):
            walk(child, found)
    return found


# ------------------------------------------------------------------ parameters: checked on the server
def test_defaults_are_plain_values_and_check_themselves():
    assert model.read_params(model.DEFAULTS) == model.DEFAULTS
    assert json.loads(json.dumps(model.DEFAULTS)) == model.DEFAULTS
    assert model.DEFAULTS["comm"] == WORLD and model.DEFAULTS["routes"] == model.LIVE
    assert model.MAX_K == model.MAX_DEGREE == 1024 and model.MAX_PROCESSES == 65_536  # the paper fabrics' largest


def test_a_control_change_is_checked_and_written_to_the_scenario():
    answer = update(KIND, DEFAULT_SCENARIO, kind="knomial", k=8)
    store, s = answer["store"], stored(answer["store"])
    assert answer["message"] == "" and s.params["trees"] == model.DEFAULTS | {"kind": "knomial", "k": 8}
    assert s.params["topology"] == DEFAULT_SCENARIO.params["topology"]  # the other pages' parameters stay
    assert s.broken == DEFAULT_SCENARIO.broken
    plan = plan_of(s)
    assert plan["kind"] == "knomial" and plan["k"] == 8 and plan["nprocs"] == 16
    table = page.render_compare(plan, store)
    assert row(table, "8-nomial")[1] == "2"
    assert table_text.chosen(table)[:1] == [1]
    # every control drives the view: the plan (the views' input) changes with each of them
    for key, value in (("degree", 3), ("routes", model.INTACT), ("eps", 0.2), ("S", 64), ("anim", model.TYPE2)):
        changed = plan_of(stored(update(KIND, DEFAULT_SCENARIO, **{key: value})["store"]))
        assert changed[key] == value and changed != plan_of(DEFAULT_SCENARIO), key
    same = DEFAULT_SCENARIO.with_params("trees", model.DEFAULTS)
    assert update(KIND, same) == {"store": no_update, "message": ""}  # nothing changed: nothing written


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"k": 0}, "k (width / base) must be at least 2, got 0"),
        ({"k": 10**9}, "k (width / base) must be at most 1024, got 1e+09"),
        ({"k": None}, "k (width / base): enter a whole number from 2 to 1024"),
        ({"eps": ""}, "ε (μs): enter a number from 0 to 1e+06"),
        ({"k": True}, "k (width / base) must be a number, got True"),
        ({"k": 2.5}, "must be an integer"),
        ({"k": "4; drop"}, "must be an integer"),
        ({"degree": 1}, "degree bound must be at least 2"),
        ({"degree": 10**6}, "at most 1024"),
        ({"kind": "evil"}, "unknown tree kind 'evil'"),
        ({"kind": ["kary"]}, "unknown tree kind"),
        ({"routes": "teleport"}, "unknown routes choice"),
        ({"anim": "type3"}, "unknown animated tree"),
        ({"comm": 99}, "communicator 99 does not exist: the scenario has 8"),
        ({"comm": -5}, "communicator must be at least -1"),
        ({"comm": 1.5}, "communicator must be an integer"),
        ({"l": 0}, "l (μs per link) must be > 0"),
        ({"l": float("nan")}, "l (μs per link) must be a number"),
        ({"beta": 0}, "β (bytes per μs) must be > 0"),
        ({"theta": 0}, "b = θ + S/β + S·γ must be > 0"),
        ({"S": -1}, "S (message bytes) must be at least 0"),
        ({"S": 2**40}, "S (message bytes) must be at most"),
        ({"delta": 10**5}, "δ (hops of a route) must be at most 1000"),
    ],
)
def test_a_forged_control_value_gives_a_message_and_leaves_the_store(changes, words):
    answer = update(K, DEFAULT_SCENARIO, **changes)
    message = answer["message"]
    assert answer["store"] is no_update and message.startswith("⚠ ") and words in message, message
    assert "Traceback" not in message


def test_forged_stored_params_give_a_message_not_an_exception():
    forged = scenario(k=0, kind="evil", eps=-1)
    plan = plan_of(forged)
    assert plan == {"error": "⚠ unknown tree kind 'evil'; choose one of kary, knomial, zhao, hier-knomial"}
    table = page.render_compare(plan, forged.to_dict())
    assert table.children == plan["error"] and table.className == "message"
    one = page.render_type_one(plan, forged.to_dict())
    assert one["logical"].layout.annotations[0].text == "No tree: see the message on the left."
    animation = page.animate(plan, forged.to_dict())
    assert animation["timeline"] is None and animation["flag"] == plan["error"]
    assert animation["flag_class"] == "flag warn"
    # the controls show the defaults in place of the bad values; the next change replaces them in the store
    assert model.shown_params(forged) == model.DEFAULTS
    found = walk(page.body(forged), {})
    assert found[page.TREES_K] == 4 and found[page.TREES_KIND] == "kary"
    answer = update(K, forged, k=8)
    assert answer["message"] == "" and stored(answer["store"]).params["trees"] == model.DEFAULTS | {"k": 8}
    # a stored communicator that does not exist, and a store that is no scenario
    assert plan_of(scenario(comm=12))["error"] == "⚠ communicator 12 does not exist: the scenario has 0"
    nope = {"schema": "nope"}
    assert page.render_compare(page.refresh(nope)["key"], nope).children.startswith("⚠ The scenario could not be read")
    refused = update(K, {"schema": "nope"})
    assert refused["store"] is no_update and refused["message"].startswith("⚠ The scenario could not be read")


def test_layout_shows_the_scenarios_parameters_and_the_shell_renders_it():
    s = scenario(kind="hier-knomial", k=32, eps=0.2, routes=model.INTACT)
    found = walk(page.body(s), {})
    assert found == {
        page.TREES_COMM: WORLD,
        page.TREES_KIND: "hier-knomial",
        page.TREES_K: 32,
        page.TREES_DEGREE: 4,
        page.TREES_ROUTES: "intact",
        page.TREES_L: 0.28,
        page.TREES_DELTA: 4,
        page.TREES_THETA: 0.01,
        page.TREES_BETA: 16000.0,
        page.TREES_GAMMA: 3.75e-05,
        page.TREES_S: 0,
        page.TREES_EPS: 0.2,
        page.TREES_ANIM_TREE: "type1",
        page.TREES_GOAL_OP: "reduce",
        page.TREES_GOAL_BYTES: 8,
        page.TREES_COMPARE_KIND: "",
    }
    shell = page.layout(shell_scenario=DEFAULT_SCENARIO.to_dict(), shell_hash="")
    assert walk(shell, {})[page.TREES_K] == 4
    options = model.comm_options(DEFAULT_SCENARIO)
    assert options[0] == {"label": "every process (16)", "value": WORLD}
    assert options[1] == {"label": "communicator 0 (4 processes)", "value": 0} and len(options) == 9


def test_refresh_says_which_processes_and_redraws_the_controls_only_when_the_scenario_differs():
    first = page.refresh(DEFAULT_SCENARIO.to_dict())
    plan = first["key"]
    assert first["fabric"] == (
        "Fabric: fat-tree:radix=4,levels=3 (20 switches, 16 end nodes, 1 broken link). Processes: every "
        "process of the scenario: 16 processes on 16 nodes (h0, h1, h2, h3, h4, h5 … and 10 more)."
    )
    shown = {key: model.DEFAULTS[key] for key in (*model.CONTROL_KEYS, *model.COST_KEYS)}
    options = model.comm_options(DEFAULT_SCENARIO)
    same = page.refresh(DEFAULT_SCENARIO.to_dict(), plan, options, shown)
    assert same["key"] is no_update and same["controls"] is no_update and same["costs"] is no_update
    comm1 = DEFAULT_SCENARIO.with_params("trees", {"comm": 1})
    one = page.refresh(comm1.to_dict(), plan, options, shown)
    key1, text1, controls1 = one["key"], one["fabric"], one["controls"]
    plan1 = model.page_plan(comm1)
    assert (
        key1 == plan_key(plan1) != plan
        and plan1["comm"] == 1
        and plan1["nprocs"] == 4
        and "communicator 1: 4 processes on 4 nodes (h4, h5, h6, h7)" in text1
    )
    assert walk(html.Div(controls1), {})[page.TREES_COMM] == 1


# ------------------------------------------------------------------ the comparison table
def test_comparison_agrees_with_tree_metrics_on_the_default_scenario():
    s = DEFAULT_SCENARIO  # the 16-process fat tree of the paper's Fig. 7, one cable broken that no tree needs
    key, plan = key_of(s)
    topo, fabric = topology_of(s), fabric_of(s)
    placement = s.placement(fabric, WORLD)
    groups = hierarchy_from_topology(fabric, placement)
    cost = CostParams(P=16, k=4)
    trees = {
        "kary": kary_tree(16, 4),
        "knomial": knomial_tree(16, 4),
        "zhao": zhao_tree(groups, 4),
        "hier-knomial": hier_knomial_tree(groups, 4),
    }
    rows = {r["kind"]: r for r in views.comparison_rows(key, plan)}
    for kind, tree in trees.items():
        m = tree_metrics(tree, topo, placement, latency=LatencyModel(cost, 4))
        for name in ("height", "radius", "max_link", "max_switch_link", "cross_group", "latency_us"):
            assert rows[kind][name] == m[name], (kind, name)
    assert rows["kary"]["max_link"] == {"link_id": BUSIEST, "ends": ["agg0.0", "core0"], "packets": 12}
    table = views.comparison_table(key, plan)
    assert row(table, "4-ary") == [
        "4-ary",
        "2",
        "10",
        "12 (agg0.0–core0)",
        "12 (agg0.0–core0)",
        "14",
        "12",
        "2.880",
        "avoided",
    ]
    assert row(table, "hierarchical 4-nomial")[1:3] == ["3", "12"]
    assert [r[0] for r in cells(table)][-1] == "type II min-cost, degree ≤ 4 (5 switches)"
    assert table_text.chosen(table)[:1] == [0]
    assert "⚠" not in json.dumps(table.to_plotly_json(), default=str)
    intact = views.comparison_table(model.engine_key(DEFAULT_SCENARIO.with_breaks([]), plan), plan | {"broken": 0})
    assert [c[:8] for c in cells(intact)] == [c[:8] for c in cells(table)]  # the break changes no number
    assert len(cells(intact)[0]) == 8  # no "broken links" column without breaks


def test_engine_helpers_give_the_pages_tree_facts():
    s = DEFAULT_SCENARIO
    fabric = fabric_of(s)
    placement = s.placement(fabric)
    built = mapped_type_one(
        kary_tree(16, 4), fabric, placement, Routing(topology_of(s)), latency=LatencyModel(CostParams(P=16, k=4), 4)
    )
    assert built["ranks"] == list(range(16)) and built["routes"][0] == []
    assert [fabric.names[n] for n in built["switch"][:4]] == ["edge0.0", "edge0.0", "edge0.1", "edge0.1"]
    assert built["crossing"] == [] and built["cross_links"][BUSIEST] == 12
    assert vertex_switches(fabric, placement, [0, 2]).tolist() == built["switch"][:3:2]


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


def test_the_sunway_preset_replaces_the_scenario_and_gives_the_papers_width_view():
    answer = update(USE_PRESET, DEFAULT_SCENARIO, preset="sunway")
    store, s = answer["store"], stored(answer["store"])
    assert answer["message"] == "" and (s.spec, s.ppn, s.broken, s.pattern) == ("sunway-supernode", 2, [], "")
    assert s.params["trees"] == model.DEFAULTS | {"k": 32, "degree": 16}
    assert s.params["topology"] == DEFAULT_SCENARIO.params_for_new_fabric()["topology"]
    plan = plan_of(s)
    assert plan["nprocs"] == 512
    width = page.render_width(plan, s.to_dict())
    assert any(t.name.startswith("k* = 41") for t in width["fk"].data)
    assert "k* = 41" in width["fk_info"] and "from 24 to 69" in width["fk_info"]
    rows = table_text.rows(width["selection"])
    assert rows[0] == ["16", "[0, 2048]", "II", "16"]
    assert ["no type II available", "[0, 123]", "I", "32"] in rows
    slow_packets = s.with_params("trees", s.params["trees"] | {"S": 1024})
    slow = page.render_width(True, slow_packets.to_dict())["fk"]  # 1 KB packets: b = 0.11 μs, a narrower optimum
    assert next(t for t in slow.data if t.name.startswith("k* =")).x[0] < 41
    # the controls follow the new scenario (the shell's store changed under the page)
    shown = {key: model.DEFAULTS[key] for key in (*model.CONTROL_KEYS, *model.COST_KEYS)}
    refreshed = page.refresh(store, plan_of(DEFAULT_SCENARIO), model.comm_options(DEFAULT_SCENARIO), shown)
    assert walk(html.Div(refreshed["controls"]), {})[page.TREES_K] == 32 and refreshed["costs"] is no_update
    assert refreshed["fabric"].startswith(
        "Fabric: sunway-supernode (48 switches, 256 end nodes, 0 broken links). Processes: "
        "every process of the scenario: 512 processes on 256 nodes"
    )
    back = stored(update(USE_PRESET, s, preset="fig7")["store"])
    assert (back.spec, back.pattern, back.ppn) == (FAT, "grid2d:4x4", 1) and back.params["trees"]["k"] == 4
    assert update(USE_PRESET, s, preset="../etc")["message"] == (
        "⚠ unknown preset '../etc'; choose one of fig7, sunway, taihulight, fat-tree-64, rail-million"
    )


def test_a_communicator_above_the_cap_gets_a_message():
    s = Scenario(spec="torus:4x4x5,hosts=1", ppn=820)  # 80 nodes x 820 = 65,600 processes
    plan = plan_of(s)
    assert plan["error"].startswith(
        "⚠ every process of the scenario is 65,600 processes: the page builds trees of up to 65,536"
    )
    assert "python -m vizcoll tree" in plan["error"]
    assert page.render_compare(plan, s.to_dict()).children == plan["error"]
    many = Scenario(spec="sunway-supernode", ppn=32)  # 8,192 processes on 304 nodes: every view, the player too
    plan = plan_of(many)
    assert plan["nprocs"] == 8192 > model.JOB_PROCESSES and model.heavy(plan)  # computed as a background job
    assert "in the background" in page.render_compare(plan, many.to_dict()).children
    views = page.compute_views(lambda _: None, page.dispatch(plan, None, None, many.to_dict()), many.to_dict())
    assert row(views["compared"], "4-ary")[1] == "7"  # 1 + 4 + ... + 4**6 = 5,461 < 8,192 vertices: height 7
    assert views["flag"] == page.SIMULATING and views["order"] == {"run": 2}  # the aggregation: a job of its own
    seen = []
    animation = page.compute_animation(seen.append, views["order"], many.to_dict())
    assert [text for _, _, text in seen] == ["simulating the aggregation (1 of 1)"]
    handle, played = animation["timeline"], player_timeline(animation["timeline"])
    assert animation["elements"] and handle["steps"] == played.n_steps > 0
    assert "animated for up to" not in animation["flag"]
    assert played.summary["correct"] and played.summary["result"] == sum(range(8192))
    assert played.final_state == dict.fromkeys(played.initial_state, f"result={sum(range(8192))}")


# ------------------------------------------------------------------ the chosen tree
def test_logical_and_mapped_figures_of_the_chosen_tree():
    s = DEFAULT_SCENARIO
    one = page.render_type_one(plan_of(s), s.to_dict())
    logical, mapped, info = one["logical"], one["mapped"], one["mapped_info"]
    assert logical.layout.title.text.replace("<br>", "") == "4-ary tree over 16 processes: height 2"
    assert "root: rank 0" in [t.name for t in logical.data]
    assert {t.name for t in logical.data} >= {"edge0.0 (2)", "edge3.1 (2)", "tree edge (child → parent)"}
    assert {f"h{i}" for i in range(16)} <= set(texts(logical))  # the host of every vertex
    assert mapped.layout.title.text.replace("<br>", "") == "4-ary on the fabric: max 12 packets on one link"
    names = [t.name for t in mapped.data]
    assert "switch links with packets between groups" in names and "root: rank 0 on h0" in names
    broken = [t for t in mapped.data if (t.name or "").startswith("broken")]  # the scenario's broken cable, dashed
    assert len(broken) == 1 and broken[0].name.endswith("(1)") and broken[0].line.dash == "dash"
    assert {"h0", "edge0.0", "core3"} <= set(texts(mapped))
    assert "14 of the 15 tree edges join processes on different leaf switches, 12 of them different groups" in info
    assert find_component(page.body(s), page.TREES_MAPPED).config["toImageButtonOptions"]["format"] == "svg"


def test_big_trees_are_drawn_in_part():
    tree = kary_tree(600, 4)
    fig = logical_tree_figure(tree, ["all"] * 600, "a big tree", names=[f"n{i}" for i in range(600)])
    assert fig.layout.title.text.replace("<br>", "") == "a big tree — first 512 of 600 vertices drawn"
    assert "host names" not in [t.name for t in fig.data]  # names only under small trees
    pos = tree_positions(kary_tree(7, 2))
    assert pos[0] == (1.5, 0) and pos[3] == (0.0, 2) and pos[6] == (3.0, 2)


def test_the_tree_edges_are_counted_with_thousands_separators_and_in_the_singular_for_one():
    """The issue saw "1354 of the 1355 tree edges" next to "1,356 processes"."""
    many = views.type_one_info({"metrics": {"cross_group": {"switch": 1354}}, "crossing": []}, {"nprocs": 1356}, None)
    assert "1,354 of the 1,355 tree edges join processes on different leaf switches" in many
    one = views.type_one_info({"metrics": {"cross_group": {"switch": 1}}, "crossing": []}, {"nprocs": 2}, None)
    assert "1 of the 1 tree edge joins processes on different leaf switches" in one


# ------------------------------------------------------------------ type II
def test_type_two_min_cost_uses_fewer_switches_than_the_physical_tree():
    small = Scenario(spec="fat-tree:radix=4,levels=2")
    hosts = [fabric_of(small).names[n] for n in fabric_of(small).endpoints[:4].tolist()]
    s = Scenario(spec=small.spec, lists=[hosts], params={"trees": {"comm": 0, "degree": 3}})
    assert page.render_type_two(plan_of(s), None, s.to_dict()) == {}  # not on the screen yet: no change
    two = page.render_type_two(plan_of(s), True, s.to_dict())
    physical, cheap, info = two["physical"], two["mincost"], two["type_two_info"]
    assert physical.layout.title.text.replace("<br>", "") == (
        "Physical tree T: 3 switches hold an entry, height 2 (colours 0–2 packets in both)"
    )
    assert cheap.layout.title.text.replace("<br>", "") == (
        "Min-cost tree A (degree ≤ 3): 2 switches hold an entry, height 2 (colours 0–2 packets in both)"
    )
    # one colour scale for both (the larger maximum): the same colour is the same number of packets
    assert [[t.marker.cmax for t in f.data if t.marker and t.marker.showscale] for f in (physical, cheap)] == [[2], [2]]
    assert "switch with an entry (2)" in [t.name for t in cheap.data]
    assert "needs 2 switches: 1 aggregation-tree entry saved" in info[1].children
    d = DEFAULT_SCENARIO
    two = page.render_type_two(plan_of(d), True, d.to_dict())  # the default: 13 switches in T, 5 in A
    physical, cheap = two["physical"], two["mincost"]
    assert physical.layout.title.text.startswith("Physical tree T: 13 switches")
    assert cheap.layout.title.text.startswith("Min-cost tree A (degree ≤ 4): 5 switches")


def test_type_two_failure_is_reported():
    s = with_breaks(scenario(), 1)  # h1's only link is broken: no switch reaches every member
    info = page.render_type_two(plan_of(s), True, s.to_dict())["type_two_info"]
    assert "⚠ No type II tree: h1 has no live link to a switch" in info[1].children


# ------------------------------------------------------------------ the aggregation and broken links
def test_animation_of_both_trees_gives_the_correct_result():
    flags = {
        model.TYPE1: "The 4-ary tree's routes avoid the broken link edge0.0[4]-agg0.1[1]: none of them needed it.",
        model.TYPE2: "The type II tree is built on the live fabric: it avoids the broken links.",
    }
    for which, expected in flags.items():
        s = DEFAULT_SCENARIO.with_params("trees", {"anim": which})
        animation = page.animate(plan_of(s), s.to_dict())
        assert animation["flag_class"] == "flag" and animation["flag"] == expected
        tl, summary, elements = player_timeline(animation["timeline"]), animation["summary"], animation["elements"]
        assert tl.summary["result"] == tl.summary["expected"] == 120 and tl.summary["correct"]
        assert "Every vertex has the result 120" in tl.caption(tl.n_steps - 1)
        assert summary.startswith("Result 120 (sum of every process's rank), expected 120: correct ✓")
        assert len(elements) == 36 + 48
        assert [e["classes"] for e in elements if e["data"].get("name") == "edge0.0[4]-agg0.1[1]"] == ["broken"]


def test_player_stylesheet_shows_states_values_and_hops():
    s = scenario()
    plan, data = plan_of(s), s.to_dict()
    timeline = page.animate(plan, data)["timeline"]
    sheet = page.render_step(5, timeline, data)  # position 5: every partial crosses agg0.0–core0
    hop = {"selector": f"edge[link = {BUSIEST}]", "style": {"line-color": "#ff7f0e", "width": 5, "z-index": 10}}
    assert hop in sheet
    labels = {r["selector"]: r["style"]["label"] for r in sheet if "label" in r["style"] and r["selector"][1] == "n"}
    assert labels["#n35"] == "h15\n↑15" and labels["#n20"] == "h0\n0"  # h15 has sent its value, h0 waits
    end = page.render_step(10_000, timeline, data)
    labels = {r["selector"]: r["style"]["label"] for r in end if "label" in r["style"] and r["selector"][1] == "n"}
    assert labels["#n20"] == "h0\n✓120" and labels["#n21"] == "h1\n✓"
    rules = aggregation_stylesheet({4: "blocked"}, ["n"] * 5, None)
    assert {"selector": "#n4", "style": {"shape": "diamond", "background-color": "#d62728"}} in rules


# ------------------------------------------------------------------ the aggregation on a large fabric
def campus(**params) -> Scenario:
    """The 1,570-node cluster of issue 23 (three switch tiers, parallel cables), uploaded; ``params`` of the page."""
    s = _campus()
    return s.with_params("trees", params) if params else s


@functools.cache
def _campus() -> Scenario:
    return Scenario.from_upload(topo_io.parse(campus_cluster(), "campus.net"), "campus.net")


def hops_per_bundle(tl, topo, part) -> list[dict[int, int]]:
    """Per player position, the messages crossing each bundle of the overview ``part``, counted from the timeline's
    events: one per link of an event's path, the bundle found by the blocks of the link's two ends."""
    bundle = bundles(topo, part)
    index = {(int(a), int(b)): i for i, (a, b) in enumerate(zip(bundle["a"], bundle["b"], strict=True))}
    counts = [{}]
    for step in tl.steps:
        seen: dict[int, int] = {}
        for event in step:
            for lid in event.path_links:
                row = topo.link_row(lid)
                ends = sorted((int(part.of[topo.link_a[row]]), int(part.of[topo.link_b[row]])))
                seen[index[tuple(ends)]] = seen.get(index[tuple(ends)], 0) + 1
        counts.append(seen)
    return counts


@pytest.mark.parametrize("which", [model.TYPE1, model.TYPE2])
def test_above_1500_nodes_the_aggregation_plays_on_the_overview_of_the_animated_tree(which):
    s = replace(campus(anim=which), lists=[[campus_host(i) for i in range(0, 1356, 17)]]).with_params(
        "trees", {"comm": 0, "anim": which}
    )
    plan, data = plan_of(s), s.to_dict()
    topo = topology_of(s)
    assert topo.n_nodes == 1570 > SMALL_LIMIT and plan["nprocs"] == 80 and not model.heavy(plan)
    animation = page.animate(plan, data)
    handle, elements, summary = animation["timeline"], animation["elements"], animation["summary"]
    assert elements == [] and animation["flag_class"] == "flag"  # no canvas: the page draws the fabric's overview
    assert summary.startswith("Result 3,160 (sum of every process's rank), expected 3,160: correct ✓")
    assert "Played on the fabric's overview" in summary
    frames, tl = handle["overview"], player_timeline(handle)
    part = drawn_view(s, model.PAGE).overview
    assert frames["steps"] == handle["steps"] == tl.n_steps and frames["n_blocks"] == len(part)
    expected = hops_per_bundle(tl, topo, part)
    got = [dict(zip(b, m, strict=True)) for b, m in zip(frames["bundles"], frames["messages"], strict=True)]
    assert got == expected
    hops = sum(len(e.path_links) for e in tl.events)
    assert sum(map(sum, frames["messages"])) == hops > 2 * (plan["nprocs"] - 1)  # up and down, several links each
    assert page.render_step(3, handle, data) is no_update  # the browser lights the overview's steps
    exported = views.animation_view(plan, s)  # exports play it on the same overview
    assert Timeline.from_dict(exported["timeline"]).n_steps == tl.n_steps and exported["elements"] == []
    # the animated tree's overview carries the two layers the player lights (and only that one)
    mapped = page.render_type_one(plan, data)["mapped"]
    mincost = page.render_type_two(plan, True, data)["mincost"]
    lit, other = (mapped, mincost) if which == model.TYPE1 else (mincost, mapped)
    layers = {t.meta: len(values(t.x)) for t in lit.data if t.meta in ("overview-messages", "overview-nodes")}
    assert layers == {"overview-messages": frames["n_bundles"], "overview-nodes": frames["n_blocks"]}
    assert not [t for t in other.data if t.meta in ("overview-messages", "overview-nodes")]


def values(array) -> np.ndarray:
    """A figure's array, as plotly sends it (a typed array: base64 bytes and their dtype) or as a list."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array)


def campus_host(i: int) -> str:
    """The name of the campus cluster's ``i``-th host."""
    topo = fabric_of(campus())
    return topo.names[topo.endpoints[i]]


def test_a_group_drawn_alone_plays_the_aggregation_node_by_node_on_its_own_nodes():
    s = campus()
    group = view_of(s, "group:3")
    topo = topology_of(s)
    inside = [topo.names[n] for n in group.kept.tolist() if n in set(topo.endpoints.tolist())]
    s = replace(s, lists=[inside + [campus_host(i) for i in range(100, 300, 25)]]).with_params(
        "trees", {"comm": 0, "part": "group:3"}
    )
    plan, data = plan_of(s), s.to_dict()
    animation = page.animate(plan, data)
    handle, elements, summary = animation["timeline"], animation["elements"], animation["summary"]
    assert handle["nodes"] == group.kept.tolist() and "overview" not in handle
    ids = {e["data"]["id"] for e in elements if "source" not in e["data"]}
    assert ids == {f"n{i}" for i in range(group.topo.n_nodes)} and len(group.kept) < 30
    assert summary.startswith("Result ") and "correct ✓" in summary and "overview" not in summary
    end = page.render_step(10_000, handle, data)
    labels = {r["selector"]: r["style"]["label"] for r in end if "label" in r["style"] and r["selector"] != "node"}
    assert {f"#{i}" for i in labels} and set(labels) <= {f"#{i}" for i in ids}  # every rule on a drawn node
    drawn = {name: f"#n{i}" for i, name in enumerate(group.topo.names)}
    assert len(inside) == 9 and all(labels[drawn[name]].startswith(f"{name}\n✓") for name in inside)
    assert labels[drawn[inside[0]]] == f"{inside[0]}\n✓{sum(range(plan['nprocs']))}"  # the root: rank 0
    # a step in the middle: the hops inside the group in orange, on the group's own edges
    sheets = [page.render_step(k, handle, data) for k in range(1, handle["steps"] + 1)]
    hot = [r for sheet in sheets for r in sheet if r["style"].get("line-color") == "#ff7f0e"]
    assert hot and all(r["selector"].startswith("edge[link = ") for r in hot)
    exported = views.animation_view(plan, s)["timeline"]  # what an export draws: the same nodes of the group
    assert exported["nodes"] == group.kept.tolist() and len(player_timeline(exported).events) == sum(
        map(len, player_timeline(handle).steps)
    )
    # choosing the overview again plays it there, at once
    out = play_part("overview", data)
    assert stored(out["store"]).params["trees"]["part"] is None and "overview" in out["timeline"]
    assert out["elements"] == [] and "per bundle of links" in out["mapped"].layout.title.text.replace("<br>", "")
    out = play_part("group:3", out["store"])
    assert out["timeline"]["nodes"] == group.kept.tolist() and len(out["elements"]) == len(elements)
    assert out["summary"].startswith("Result ") and out["order"] is no_update  # no job ordered: played at once
    out = play_part("group:3", data)  # the part drawn already (the menu drawn again): nothing changes
    assert {name for name, value in out.items() if value is not no_update} == {"message"} and out["message"] == ""


def play_part(value, data) -> dict:
    """Another part of the fabric chosen in the menu, as Dash calls the page's callback."""
    return in_callback(callbacks()["play_part"], f"{page.TREES_PART}.value", value=value, scenario=data)


def test_a_broken_link_on_a_trees_route_is_avoided_and_the_page_says_so():
    s = with_breaks(scenario(), BUSIEST)
    busiest = label_of(s, BUSIEST)
    assert busiest == "agg0.0[3]-core0[1]"
    key, plan = key_of(s)
    animation = page.animate(plan, s.to_dict())
    timeline, flag, summary = animation["timeline"], animation["flag"], animation["summary"]
    assert animation["flag_class"] == "flag"
    assert flag == (
        f"The 4-ary tree's routes avoid the broken link {busiest}: 12 of its edges take another route "
        "than on the intact fabric, every one as short as before. Radius 10 → 10 links."
    )
    assert player_timeline(timeline).summary["correct"] and summary.startswith("Result 120")
    assert BUSIEST not in model.type_one(key, "kary")["metrics"]["link_packets"]
    table = page.render_compare(plan, s.to_dict())
    assert [r[-1] for r in cells(table)] == ["avoided"] * 5
    assert "⚠" not in json.dumps(table.to_plotly_json(), default=str)
    assert row(table, "4-ary")[3] == "12 (agg0.0–core1)"  # the same load, on the next spine
    assert views.flag_type_two(key, plan, topology_of(s)) == (
        "The type II tree is built on the live fabric: it avoids the broken links."
    )


def test_routes_as_built_on_the_intact_fabric_flag_the_break_and_play_up_to_it():
    s = with_breaks(scenario(routes="intact"), BUSIEST)
    key, plan = key_of(s)
    animation = page.animate(plan, s.to_dict())
    handle, flag = animation["timeline"], animation["flag"]
    assert animation["flag_class"] == "flag warn" and animation["elements"]
    assert flag.startswith(
        "⚠ As built on the intact fabric, 12 edges of the 4-ary tree route over the broken "
        "link agg0.0[3]-core0[1] (rank 4 → rank 0 over link agg0.0[3]-core0[1]"
    )
    assert "play the aggregation to see where they stop" in flag
    played = player_timeline(handle)  # the packets go up to the break and are lost there: the key moments
    lost = [m for m in played.key_moments() if m["kinds"] == ["drop"]]
    assert lost and lost[0]["label"].startswith("core0 → agg0.0: partial 15 from rank 15 to rank 3 lost: link ")
    assert "lost: link agg0.0[3]-core0[1] is broken (hop 4 of 6" in lost[0]["label"]
    assert played.summary["result"] is None and len(played.summary["broken_edges"]) == 12
    assert played.caption(played.n_steps - 1).startswith("The aggregation cannot complete: 12 tree edges cross")
    assert "the values of 12 processes below them never reach the root" in played.caption(played.n_steps - 1)
    table = page.render_compare(plan, s.to_dict())
    assert row(table, "4-ary")[-1] == "⚠ 12 edges cross"
    assert row(table, "4-ary")[3] == "12 (agg0.0–core0)"
    one = page.render_type_one(plan, s.to_dict())
    mapped = one["mapped"]
    assert "12 edges route over the broken link agg0.0[3]-core0[1]" in one["mapped_info"]
    assert mapped.layout.title.text.replace("<br>", "") == "4-ary as built (intact fabric): max 12 packets on one link"
    assert "⚠ broken, yet on a route (1)" in [t.name for t in mapped.data]
    flag = views.flag_type_two(key, plan, topology_of(s))
    assert "uses the broken link agg0.0[3]-core0[1]: its packets are lost there" in flag
    # back to live routes: the user's choice is written to the scenario, the break is avoided
    live = stored(update(ROUTES, s, routes="live")["store"])
    assert live.params["trees"]["routes"] == "live" and live.broken == s.broken
    assert page.animate(plan_of(live), live.to_dict())["flag_class"] == "flag"


def test_an_isolating_break_names_the_ranks_cut_off():
    s = with_breaks(scenario(), 5, BUSIEST)  # link 5 is h5's only link
    plan = plan_of(s)
    animation = page.animate(plan, s.to_dict())
    timeline, flag = animation["timeline"], animation["flag"]
    assert animation["flag_class"] == "flag warn"
    assert flag.startswith("⚠ The 4-ary tree's routes avoid the broken links ")
    assert flag.endswith(
        "But 1 edge has no live route at all (h5 has no live link left): rank 5 → rank 1. "
        "Rank 5 is cut off: its value never reaches the root."
    )
    summary = player_timeline(timeline).summary
    assert summary["result"] is None and summary["broken_edges"][0]["from"] == "h5"
    assert row(page.render_compare(plan, s.to_dict()), "4-ary")[-1] == "⚠ 1 edge cut off"


def test_clicking_a_link_of_the_drawing_breaks_or_repairs_it_in_the_scenario():
    label = DEFAULT_SCENARIO.broken[0]
    answer = update(CANVAS, DEFAULT_SCENARIO, tap={"data": {"name": label}})
    assert answer["message"] == "" and stored(answer["store"]).broken == []
    answer = update(CANVAS, stored(answer["store"]), tap={"data": {"name": "h0[1]-edge0.0[1]"}})
    assert stored(answer["store"]).broken == ["h0[1]-edge0.0[1]"]
    for tap, words in (
        ({"data": {"name": 3}}, "malformed click"),
        ("x", "malformed click"),
        ({"data": {"name": "nope[1]-h0[9]"}}, "the fabric has no link nope[1]-h0[9]"),
    ):
        answer = update(CANVAS, DEFAULT_SCENARIO, tap=tap)
        message = answer["message"]
        assert answer["store"] is no_update and message.startswith("⚠ ") and words in message, message


def test_an_uploaded_fabric_shows_its_host_names_and_avoids_its_break():
    s = Scenario.from_upload(topo_io.parse(TWO_SPINES, "x.net"), "x.net").with_breaks(["leafA[3]-spine1[1]"])
    key, plan = key_of(s)
    assert plan["nprocs"] == 4 and plan["broken"] == 1
    table = page.render_compare(plan, s.to_dict())
    assert "⚠" not in json.dumps(table.to_plotly_json(), default=str)
    one = page.render_type_one(plan, s.to_dict())
    logical, mapped = one["logical"], one["mapped"]
    assert set(HOSTS) <= set(texts(logical)) and set(HOSTS) <= set(texts(mapped))
    assert any(h in t for t in logical.data[1].hovertext for h in HOSTS)
    assert "leafA[3]-spine1[1]" not in json.dumps(model.type_one(key, "kary")["routes"].lists())
    physical = page.render_type_two(plan, True, s.to_dict())["physical"]
    assert any(h in name for name in texts(physical) for h in ("leafA", "leafB", "spine1", "spine2"))
    text = page.refresh(s.to_dict())["fabric"]
    assert text == (
        "Fabric: x.net (4 switches, 4 end nodes, 1 broken link). Processes: every process of the "
        "scenario: 4 processes on 4 nodes (alpha, beta, gamma, delta)."
    )
    animation = page.animate(plan, s.to_dict())
    flag, elements = animation["flag"], animation["elements"]
    assert animation["flag_class"] == "flag"
    assert animation["summary"].startswith("Result 6 (sum of every process's rank), expected 6: correct ✓")
    assert flag == (
        f"The 4-ary tree's routes avoid the broken link {s.broken[0]}: 2 of its edges take another "
        "route than on the intact fabric, every one as short as before. Radius 4 → 4 links."
    )
    assert set(HOSTS) <= {e["data"].get("label") for e in elements}


def test_tree_names():
    assert [model.tree_name(k, 4) for k in model.KINDS] == [
        "4-ary",
        "4-nomial",
        "Zhao 4-nomial",
        "hierarchical 4-nomial",
    ]
    key, _ = key_of(DEFAULT_SCENARIO)
    assert Tree.from_dict(model.type_one(key, "hier-knomial")["tree"]).size == 16
    assert re.fullmatch(r"[0-9a-f]{32}", model.digest(DEFAULT_SCENARIO))


# ------------------------------------------------------------------ Download GOAL
@pytest.mark.parametrize(
    "kind, op", [("kary", "reduce"), ("knomial", "bcast"), ("hier-knomial", "allreduce"), ("zhao", "reduce")]
)
def test_download_goal_is_the_chosen_type_one_tree_collective(kind, op):
    answer = update(page.TREES_GOAL_OP + ".value", DEFAULT_SCENARIO, kind=kind, goal_op=op, goal_bytes=64)
    assert answer["message"] == ""
    s = stored(answer["store"])
    assert s.params["trees"]["goal_op"] == op and s.params["trees"]["goal_bytes"] == 64
    assert "goal_op" not in plan_of(s)  # the export's controls do not change the views
    answer = export_goal(s.to_dict())
    download, slug = answer["file"], model.tree_name(kind, 4).lower().replace(" ", "-")
    assert answer["message"] == "" and download["filename"] == f"vizcoll-trees-{op}-{slug}.goal"
    parsed = parse(download["content"])
    assert parsed.problems == [] and check(parsed.schedule, parsed.lines) == []
    placement = model.placement_of(s, WORLD)
    tree = model.BUILDERS[kind](16, 4, hierarchy_from_topology(topology_of(s), placement))
    assert parsed.schedule.ops == tree_collective(tree, op, 64).ops


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"goal_op": "scatter"}, "unknown GOAL collective 'scatter'"),
        ({"goal_bytes": 0}, "GOAL message bytes must be at least 1, got 0"),
        ({"goal_bytes": 2**40}, "GOAL message bytes must be at most"),
        ({"goal_bytes": None}, "GOAL message bytes: enter a whole number from 1 to"),
    ],
)
def test_bad_goal_controls_are_refused_with_a_message(changes, words):
    answer = update(page.TREES_GOAL_BYTES + ".value", DEFAULT_SCENARIO, **changes)
    assert answer["store"] is no_update and answer["message"].startswith("⚠") and words in answer["message"]
    forged = export_goal(DEFAULT_SCENARIO.with_params("trees", changes).to_dict())
    assert forged["file"] is no_update and words in forged["message"]
    unread = export_goal({"schema": "nope"})
    assert unread["file"] is no_update and unread["message"].startswith("⚠ The scenario could not be read")


def export_goal(data) -> dict:
    """Download GOAL pressed, as Dash calls the page's callback: the ``file`` and the ``message``."""
    return in_callback(callbacks()["export_goal"], f"{page.TREES_GOAL}.n_clicks", clicks=1, scenario=data)


# ------------------------------------------------------------------ stores from the browser, Build, background jobs
BUILD = f"{page.TREES_BUILD}.n_clicks"


def build(current: Scenario | dict | None, clicks: int = 1, **changes) -> dict:
    """The Build button, as Dash calls it: the ``store``, the ``message`` and ``rebuild``."""
    values = model.DEFAULTS | changes
    controls = {key: values[key] for key in page.PARAM_CONTROLS}
    return in_callback(callbacks()["build"], BUILD, clicks=clicks, values=controls, scenario=data_of(current))


def forged_plans(plan: dict) -> list:
    return [
        None,
        True,
        7,
        "plan",
        [],
        {},
        [plan],
        {"error": 5},
        {"error": "⚠" * 5000},
        {"error": "x", "k": 4},
        {**plan, "k": 10**9},
        {**plan, "k": True},
        {**plan, "kind": "evil"},
        {**plan, "nprocs": 10**9},
        {**plan, "nprocs": "16"},
        {**plan, "digest": "../../etc"},
        {**plan, "extra": 1},
        {key: value for key, value in plan.items() if key != "routes"},
        {**plan, "l": -1},
        {**plan, "l": "nan"},
    ]


def test_the_views_come_from_the_servers_plan_whatever_the_browser_sends_back():
    """The page's store holds only the key of the plan (the views' trigger): a forged value there draws the
    scenario's own views, and no plan from the browser reaches the engine."""
    data = DEFAULT_SCENARIO.to_dict()
    key = page.refresh(data)["key"]
    assert key == plan_key(plan_of(DEFAULT_SCENARIO)) and len(key) == 24
    expected = (
        repr(page.render_compare(key, data)),
        page.render_width(key, data)["fk_info"],
        page.render_type_one(key, data)["mapped_info"],
    )
    for forged in forged_plans(plan_of(DEFAULT_SCENARIO))[1:]:
        views = (
            repr(page.render_compare(forged, data)),
            page.render_width(forged, data)["fk_info"],
            page.render_type_one(forged, data)["mapped_info"],
        )
        assert views == expected, forged
        assert (
            page.dispatch(forged, None, None, data) is no_update
            and page.dispatch(forged, None, {"run": 1}, data) is None
        )
    # before the page's first answer there is nothing to draw
    assert page.render_compare(None, data).children == "…" and page.render_width(None, data) == {}  # no change
    assert page.render_type_one(None, data) == {} and page.animate(None, data) == {}
    assert page.render_step(3, None, data) == page.base_stylesheet()
    for job in (None, 3, "x", []):
        assert page.compute_views(lambda _: None, job, data) == {}
        assert page.compute_animation(lambda _: None, job, data) == {}
    for job in (None, 3, "x", [], {"run": 1}, {"plan": "forged"}):
        assert page.compute_views(lambda _: None, job, {"schema": "forged"}) == {}
        assert page.compute_animation(lambda _: None, job, {"schema": "forged"}) == {}


def test_the_plan_is_computed_once_per_scenario_and_parameters(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "_server", cache_mod._server)  # restored after the test
    cache_mod.init_cache(Flask("plans"), {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": str(tmp_path)})
    computed, tree_plan = [], model.tree_plan
    monkeypatch.setattr(model, "tree_plan", lambda s: computed.append(s) or tree_plan(s))
    s = scenario(k=8)
    first = plan_of(s)
    for _ in range(3):  # each callback of a request asks: one computation
        assert plan_of(Scenario.from_dict(s.to_dict())) == first and first["k"] == 8
    assert plan_of(s.with_params("trees", {**s.params["trees"], "goal_op": "allreduce"})) == first  # not a view's
    assert len(computed) == 1
    assert plan_of(scenario(k=4))["k"] == 4 and len(computed) == 2


def test_a_large_plans_part_plays_its_aggregation_once_simulated_by_its_job(tmp_path, monkeypatch):
    """A part chosen once a large plan's trees are drawn: its drawings at once; its aggregation by the aggregation's
    job, ordered for that part, while the job has not simulated it; afterwards at once (the timeline read back)."""
    monkeypatch.setattr(cache_mod, "_server", cache_mod._server)  # restored after the test
    cache_mod.init_cache(Flask("parts"), {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": str(tmp_path)})
    many = Scenario(spec="sunway-supernode", ppn=16, params={"trees": {"k": 8}})
    plan, data = plan_of(many), many.to_dict()
    with cache_mod._server.app_context():
        assert model.heavy(plan) and page.compute_views(lambda _: None, {"run": 1}, data)["order"] == {"run": 2}
        out = play_part("group:3", data)
        assert "(group 3 alone)" in out["mapped"].layout.title.text.replace("<br>", "")
        assert {name: out[name] for name in (*page.ANIMATION, "order")} == {
            "timeline": None,
            "flag": page.SIMULATING,
            "flag_class": "flag",
            "elements": [],
            "summary": "",
            "order": {"run": 1, "part": "group:3"},
        }
        animation = page.compute_animation(lambda _: None, out["order"], out["store"])
        handle = animation["timeline"]
        assert handle["nodes"] and animation["elements"] and animation["summary"].startswith("Result ")
        again = play_part("group:5", out["store"])
        assert again["timeline"]["ref"] == handle["ref"] and again["timeline"]["nodes"] != handle["nodes"]
        assert again["order"] is no_update


def test_a_forged_timeline_gives_the_plain_stylesheet():
    data, plan = DEFAULT_SCENARIO.to_dict(), plan_of(DEFAULT_SCENARIO)
    timeline = page.animate(plan, data)["timeline"]
    good = page.render_step(3, timeline, data)
    assert len(good) > len(page.base_stylesheet())
    broken = player_timeline(timeline).to_dict()
    broken["entities"] = {name: {"vertex": 0} for name in broken["entities"]}  # no node
    for forged in (broken, {"schema": "vizcoll.timeline/1"}, [1, 2], "x"):
        assert page.render_step(3, forged, data) == page.base_stylesheet()


def test_build_checks_every_control_and_names_the_limit_at_once():
    started = time.monotonic()
    refused = build(DEFAULT_SCENARIO, k=10**9)
    assert time.monotonic() - started < 1
    assert refused == {
        "store": no_update,
        "message": "⚠ k (width / base) must be at most 1024, got 1e+09",
        "rebuild": no_update,
    }
    assert build(DEFAULT_SCENARIO, k=None)["message"] == "⚠ k (width / base): enter a whole number from 2 to 1024"
    assert build(DEFAULT_SCENARIO, degree="many")["message"].startswith("⚠ the type II degree bound must be an")
    assert build(DEFAULT_SCENARIO, comm=9)["message"] == "⚠ communicator 9 does not exist: the scenario has 8"
    assert build({"schema": "nope"})["message"].startswith("⚠ The scenario could not be read")
    # a good value is written to the scenario (the views follow it) ...
    built = build(DEFAULT_SCENARIO, k=8)
    assert stored(built["store"]).params["trees"]["k"] == 8 and built["message"] == "" and built["rebuild"] == 1
    # ... and the scenario's own values compute the views again (e.g. after a cancelled job)
    same = stored(built["store"])
    assert build(same, clicks=3, k=8) == {"store": no_update, "message": "", "rebuild": 3}
    assert build(same, clicks="x", k=8) == {"store": no_update, "message": "", "rebuild": 0}
    assert set(build(same, clicks=None, k=9).values()) == {no_update}  # the button drawn: no click


def test_a_large_plan_is_left_to_one_background_job_and_the_request_answers_at_once():
    small, default = plan_of(DEFAULT_SCENARIO), DEFAULT_SCENARIO.to_dict()
    assert not model.heavy(small) and page.dispatch(small, None, None, default) is no_update
    assert page.dispatch(small, None, {"run": 4}, default) is None  # stops a job that is still running
    many = Scenario(spec="sunway-supernode", ppn=16)  # 4,096 processes: more than JOB_PROCESSES
    plan = plan_of(many)
    assert model.heavy(plan) and plan["nprocs"] > model.JOB_PROCESSES
    assert page.dispatch(plan, None, None, many.to_dict()) == {"run": 1}
    assert page.dispatch(plan, 2, {"run": 1}, many.to_dict()) == {"run": 2}  # Build: a new run
    assert page.dispatch(plan, None, {"run": "x"}, many.to_dict()) == {"run": 1}
    assert page.dispatch(None, None, None, many.to_dict()) is no_update  # before the page's first answer
    big_fabric = Scenario(spec="fat-tree:radix=64,levels=3", pattern="grid2d:4x4")  # 16 processes
    assert model.heavy(plan_of(big_fabric)) and plan_of(big_fabric)["nodes"] > model.JOB_NODES
    started = time.monotonic()
    data = many.to_dict()
    assert "in the background" in page.render_compare(plan, data).children
    one = page.render_type_one(plan, data)
    assert one["mapped_info"] == "" and all(
        one[name].layout.annotations[0].text.startswith("Computed in the background") for name in ("logical", "mapped")
    )
    assert page.animate(plan, data)["timeline"] is None
    assert in_callback(page.render_type_two, f"{page.TREES_PARAMS}.data", plan, True, data)["type_two_info"] == ""
    # scrolled to after the job drew them: the job's views stay (not "computed in the background" again)
    assert in_callback(page.render_type_two, f"{page.TREES_T2_SEEN}.data", plan, True, data) == {}
    assert time.monotonic() - started < 0.5
    cancelled = page.cancelled(1)
    assert set(cancelled) == set(page.CANCELLED)
    assert cancelled["compared"].children.startswith("⚠ Cancelled") and cancelled["flag"].startswith("Cancelled")
    figures = [cancelled[name] for name in ("logical", "mapped", "physical", "mincost")]
    assert all(f.layout.annotations[0].text.startswith("Cancelled: not computed") for f in figures)  # not "computed in
    # the background", as they said while the job ran


def test_the_background_job_reports_its_progress_stage_by_stage():
    many = Scenario(spec="sunway-supernode", ppn=16, params={"trees": {"k": 8}})
    plan, data = plan_of(many), many.to_dict()
    seen = []
    views = page.compute_views(seen.append, page.dispatch(plan, None, None, data), data)
    assert set(views) == set(page.JOB_VIEWS)
    texts_seen = list(dict.fromkeys(text for _, _, text in seen))
    assert texts_seen == [
        f"{what} ({i} of 6)"
        for i, what in enumerate(
            [
                "building the 8-ary tree",
                "building the 8-nomial tree",
                "building the Zhao 8-nomial tree",
                "building the hierarchical 8-nomial tree",
                "building the type II trees",
                "drawing the figures",
            ],
            start=1,
        )
    ]
    assert all(total == 600 and 0 <= done <= total for done, total, _ in seen)
    assert [done for done, _, _ in seen] == sorted(done for done, _, _ in seen)
    # the job's views are the request's views of the same plan
    assert cells(views["compared"]) == cells(views_module_compare(plan, many))
    assert views["logical"].layout.title.text.startswith("8-ary tree over 4,096 processes: height 4")
    assert views["type_two_info"][0].children.startswith("Type II trees")
    # then the aggregation's job, which the views' job orders as it ends (and a new order of the views stops)
    assert (views["flag"], views["flag_class"], views["order"]) == (page.SIMULATING, "flag", {"run": 2})
    animation = page.compute_animation(lambda _: None, views["order"], data)
    assert player_timeline(animation["timeline"]).summary["correct"] and animation["summary"].startswith("Result ")
    assert page.stop_animation({"run": 3}, views["order"]) is None and page.stop_animation(None, None) is no_update
    assert page.animation_cancelled(1) == {
        "flag": "⚠ Cancelled: the aggregation was not simulated. Press Build to simulate it.",
        "flag_class": "flag warn",
    }


def views_module_compare(plan, scenario):
    return views.compare_view(plan, scenario)


def test_job_progress_writes_at_most_every_so_often():
    written = []
    job = jobs.JobProgress(written.append, ["a", "b"], every=3600)
    report = job.stage(0)
    for done in range(1000):
        report(done, 1000)
    job.stage(1)(5, 10)
    assert written == [(0, 200, "a (1 of 2)"), (100, 200, "b (2 of 2)")]  # stage starts only: too soon for more
    quick = jobs.JobProgress(written.append, ["a"], every=0)
    quick.stage(0)(1, 4)
    quick.stage(0)(9, 0)  # a total of 0 (nothing to do) is no division by zero
    assert written[-3:] == [(25, 100, "a (1 of 1)"), (0, 100, "a (1 of 1)"), (0, 100, "a (1 of 1)")]


def test_an_empty_fabric_says_to_add_nodes():
    plan = plan_of(Scenario(spec="empty"))
    assert plan == {"error": "⚠ the fabric has no node to run processes on: add nodes to it first"}


def test_the_page_opens_with_its_first_views_drawn_as_its_callbacks_draw_them():
    """The router's answer is the whole first view (routing.filled): the views' callbacks give the same, and are
    not called again as the page opens."""
    s = scenario(kind="knomial", k=4)
    data = s.to_dict(thin=True)
    opened = page.body(s)
    key = find_component(opened, page.TREES_PARAMS).data
    assert key == page.refresh(data)["key"] == plan_key(page.page_plan(s))
    one = page.render_type_one(key, data)
    assert find_component(opened, page.TREES_LOGICAL).figure == one["logical"]
    assert find_component(opened, page.TREES_MAPPED).figure == one["mapped"]
    assert find_component(opened, page.TREES_FK).figure == page.render_width(key, data)["fk"]
    timeline = find_component(opened, pid(page.TREES_PLAYER, "timeline")).data
    assert timeline == page.animate(key, data)["timeline"] and timeline is not None
    caption = find_component(opened, pid(page.TREES_PLAYER, "caption")).children  # the first frame, at once
    assert {"caption": caption, "position": find_component(opened, pid(page.TREES_PLAYER, "position")).children} == (
        caption_at(0, timeline)
    )
    assert caption and not caption.startswith("⚠")
    assert find_component(opened, page.TREES_PART).options == page.part_choices(data)["options"]
    assert getattr(find_component(opened, page.TREES_T2_PHYSICAL), "figure", None) is None  # drawn once seen
    from app import create_app

    dependencies = create_app().server.test_client().get("/_dash-dependencies").get_json()  # what the browser runs
    for output in (page.TREES_COMPARE, page.TREES_FK, page.TREES_PART, page.TREES_PARAMS):
        found = [cb for cb in dependencies if f"{output}." in cb["output"] and "@" not in cb["output"]]
        assert found and all(cb["prevent_initial_call"] for cb in found), output
