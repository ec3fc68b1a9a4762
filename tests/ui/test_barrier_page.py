"""The barrier page's callbacks, views and figure builders, called directly with scenario dicts (no browser)."""

from __future__ import annotations

import functools
import itertools
import json
import re
from dataclasses import replace

import pytest
from dash import no_update
from flask import Flask

from tests import table_text
from tests.callback_context import find_component, in_callback, registered
from tests.fabrics import HOSTS, ONE_SPINE, campus_cluster
from tests.probe import HOSTILE, is_refusal, no_progress, probe
from vizcoll.barrier.algorithms import ALGORITHMS, run_barriers
from vizcoll.barrier.network import break_links
from vizcoll.barrier.structures import numbering
from vizcoll.barrier.uq import uq_round
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.schedule import barrier, dumps, parse
from vizcoll.schedule.check import check
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import mesh
from vizcoll.ui import cache as cache_module
from vizcoll.ui.components.player import caption_at, on_canvas, pid, player_timeline
from vizcoll.ui.pages.barrier import _model as model
from vizcoll.ui.pages.barrier import _views as views
from vizcoll.ui.pages.barrier import page
from vizcoll.ui.pages.barrier._figures import (
    MESSAGE_COLOURS,
    fabric_stylesheet,
    grid_elements,
    grid_stylesheet,
    message_kind,
    sweep_figure,
    uq_text,
)
from vizcoll.ui.store import DEFAULT_SCENARIO, key_of, topology_of

CANVAS, USE_GRID, RANDOM, REPAIR = (
    f"{page.BAR_CANVAS}.tapEdge",
    f"{page.BAR_USE_GRID}.n_clicks",
    f"{page.BAR_RANDOM}.n_clicks",
    f"{page.BAR_REPAIR}.n_clicks",
)
DRAWN = f"{page.BAR_DRAWN}.data"
SIZE, NEIGHBORS, ALGO, BARRIERS = (
    f"{page.BAR_SIZE}.value",
    f"{page.BAR_NEIGHBORS}.value",
    f"{page.BAR_ALGO}.value",
    f"{page.BAR_BARRIERS}.value",
)
GRID = "mesh:4x4,neighbors=8,hosts=0"
LINK0 = "sw0-0[1]-sw0-1[2]"  # link 0 of the 4x4 grid: sw0-0 – sw0-1, the break the paper's DLCT steers around
FAT_BREAK = DEFAULT_SCENARIO.broken[0]  # edge0.0[4]-agg0.1[1]


def scenario(spec: str = GRID, broken=(), **params) -> Scenario:
    return Scenario(spec=spec, broken=list(broken), params={"barrier": params} if params else {})


@functools.cache
def callbacks() -> dict:
    """The page's callbacks by name (:func:`tests.callback_context.registered`)."""
    return registered(page)


def answer(name: str, prop_id: str | None = None, *progress, **inputs) -> dict:
    """The page's callback ``name`` as Dash calls it when ``prop_id`` changed (a background job: ``progress``, its
    ``set_progress``): its answer, every output by name."""
    return in_callback(callbacks()[name], prop_id, *progress, **inputs)


def data_of(s: Scenario | dict | None):
    return s.to_dict() if isinstance(s, Scenario) else s


def update(
    prop_id, current: Scenario | dict | None, tap=None, size="4x4", neighbors=8, drawn=None, clicks=0, **changes
):
    """The page's writing callback, as Dash calls it when ``prop_id`` changed: its answer (``scenario``: the store,
    ``message``). Break at random is a background job (:func:`break_at_random`) that draws the breaks (its answer
    when it refuses); ``update`` writes them."""
    values = model.DEFAULTS | changes
    data = data_of(current)
    if prop_id == RANDOM:
        breaks = answer(
            "break_at_random", prop_id, no_progress, clicks=1, rate=values["rate"], seed=values["seed"], scenario=data
        )
        if breaks["message"]:
            return breaks
        prop_id, drawn = DRAWN, breaks["drawn"]
    controls = {key: values[key] for key in page.PARAM_CONTROLS}
    inputs = {"tap_edge": tap, "use_grid": clicks, "repair": 0, "drawn": drawn, "size": size, "neighbors": neighbors}
    return answer("update", prop_id, **inputs, values=controls, scenario=data)


def refreshed(current: Scenario | dict, **now) -> dict:
    """The views' keys and the controls for the scenario (``now``: what the browser shows), by name."""
    return answer("refresh", None, scenario=data_of(current), **now)


def stored(written: dict) -> Scenario:
    """The scenario an answer of ``update`` writes into the store."""
    assert isinstance(written["scenario"], dict), written
    return Scenario.from_dict(written["scenario"])


def view(s: Scenario) -> tuple[dict, dict]:
    """(run plan, what the run view shows by name: timeline, elements, summary, flag, flag_class)."""
    key = refreshed(s)["plan"]
    return model.page_keys(s)[0], answer("run_job", None, no_progress, order=key, scenario=s.to_dict())


def edge_of(elements: list[dict], label: str) -> dict:
    return next(e for e in elements if e["data"].get("name") == label)


def broken_ids(s: Scenario) -> set[int]:
    topo = topology_of(s)
    return set(topo.link_id[topo.broken].tolist())


def hop_links(timeline: dict) -> set[int]:
    return {lid for e in player_timeline(timeline).events if e.kind == "send" for lid in e.path_links}


# ------------------------------------------------------------------ parameters: checked on the server
def test_defaults_are_plain_values_and_check_themselves():
    assert (
        model.read_params(model.DEFAULTS)
        == model.DEFAULTS
        == {
            "algo": "dlct",
            "judge": "model",
            "barriers": 3,
            "compute": 0.5,
            "rate": 0.1,
            "seed": 0,
            "comm": 0,
            "k": 1,
            "numbering": "s-curve",
            "sweep": "quick",
            "part": None,
            "compare": "",
        }
    )
    assert model.parse_size("3x5") == (3, 5) and model.parse_size("6") == (6, 6) and model.parse_size("4×4") == (4, 4)
    assert model.defaults_for(False)["algo"] == "tree" and model.defaults_for(True)["algo"] == "dlct"


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"algo": "nope"}, "unknown barrier algorithm"),
        ({"judge": "oracle"}, "unknown judge"),
        ({"barriers": 0}, "between 1 and 20, got 0"),
        ({"barriers": 1e9}, "barriers must be between 1 and 20, got 1000000000"),
        ({"compute": None}, "must be a number"),
        ({"compute": 61}, "at most 60"),
        ({"rate": 1.5}, "at most 1"),
        ({"seed": -1}, "seed must be between 0 and 2147483647"),
        ({"seed": 2**31}, "got 2147483648"),
        ({"k": "x"}, "K must be"),
        ({"numbering": "spiral"}, "unknown numbering"),
        ({"sweep": "huge"}, "unknown sweep"),
        ({"comm": 1.5}, "communicator must be an integer"),
    ],
)
def test_a_bad_control_value_gives_a_message_and_leaves_the_store(changes, words):
    with pytest.raises(VizcollError, match=re.escape(words)):
        model.read_params(model.DEFAULTS | changes)
    written = update(ALGO, scenario(), **changes)
    assert written["scenario"] is no_update and written["message"].startswith("⚠ ") and words in written["message"]


@pytest.mark.parametrize(
    "size, neighbors, words",
    [
        ("40x40", 8, "the page runs grids up to 16x16"),
        ("17x4", 8, "up to 16x16"),
        ("1x1", 8, "at least 2"),
        ("big", 8, "ROWSxCOLS"),
        ("4x4", 5, "neighbors must be 4 or 8"),
        ("4x4", "x", "neighbors must be an integer"),
    ],
)
def test_a_forged_grid_preset_gives_a_message(size, neighbors, words):
    for trigger in (USE_GRID, SIZE, NEIGHBORS):
        written = update(trigger, scenario(), size=size, neighbors=neighbors)
        message = written["message"]
        assert written["scenario"] is no_update and message.startswith("⚠ ") and words in message, (trigger, message)


def test_forged_stored_params_give_a_message_not_an_exception():
    forged = scenario(barriers=1e9, rows=40, neighbors=5, algo="dlct")
    plan, run = view(forged)
    assert plan == {"error": "⚠ barriers must be between 1 and 20, got 1000000000", "grid": True, "part": None}
    assert run["timeline"] is None and run["flag"] == plan["error"] and run["flag_class"] == "flag warn"
    assert run["summary"] == ""
    assert len([e for e in run["elements"] if "source" in e["data"]]) == 42  # the grid is still drawn (clickable)
    # the controls show the defaults instead; the other views go on
    text = str(page.body(forged))
    assert "value=3" in text and "value='4x4'" in text
    uq_key = refreshed(forged)["uq"]
    lct = answer("render_uq", key=uq_key)["lct"]
    assert lct.layout.title.text.replace("<br>", "") == "LCT: UQ = 1 − 7/26 = 73.1%"
    # a grid larger than the page runs (made on the Topology page), a type confusion, a broken store
    plan, run = view(scenario("mesh:40x40,neighbors=4,hosts=0"))
    assert run["flag"].startswith("⚠ the scenario's grid is 40x40: the page runs grids up to 16x16")
    assert view(scenario(algo=3))[1]["flag"].startswith("⚠ unknown barrier algorithm")
    written = update(ALGO, {"schema": "nope"})
    assert written["scenario"] is no_update and written["message"].startswith("⚠ The scenario could not be read")
    nope = {"schema": "nope"}
    run = answer("run_job", None, no_progress, order=refreshed(nope)["plan"], scenario=nope)
    assert run["flag"].startswith("⚠ The scenario could not be read") and run["timeline"] is None


# ------------------------------------------------------------------ a grid scenario: the paper's model on its fabric
def test_a_mesh_scenario_with_a_break_runs_dlct_around_it():
    s = scenario(broken=[LINK0])
    plan, run = view(s)
    timeline, elements, table, flag = run["timeline"], run["elements"], run["summary"], run["flag"]
    assert plan["grid"] and plan["processes"] is None and plan["algo"] == "dlct"
    assert broken_ids(s) == {0}
    _, figures = run_barriers(topology_of(s), "dlct", barriers=3, compute=0.5, seed=0, judge="model")
    assert figures["broken_links"] == 1 and figures["k"] == [[6], [0], [0]] and figures["adjustments"] == 1
    assert player_timeline(timeline).summary["k"] == [[6], [0], [0]]
    assert 0 not in hop_links(timeline)  # no message crosses the broken link
    assert table_text.is_table(table) and run["flag_class"] == "flag"
    assert flag.startswith("Barrier 1: root sw0-0 gathered a total path length of 27 (ideal 24) → round(6)")
    rows = dict(views.summary_rows(figures))
    assert rows["run time"] == f"{figures['time']:.4f} s" == "1.0760 s" and rows["processes"] == "16"
    assert rows["K per barrier"] == "6, 0, 0"
    # the drawing: the grid's links, each carrying its label; the broken one drawn broken
    assert sorted(e["data"]["link"] for e in elements if "source" in e["data"]) == list(range(42))
    assert edge_of(elements, LINK0)["classes"] == "broken" and edge_of(elements, LINK0)["data"]["link"] == 0
    # without the break: no harmful break, K = 0
    assert "No harmful break" in view(scenario())[1]["flag"]


def test_another_algorithm_on_the_grid_and_a_cut_off_processor():
    s = scenario("mesh:2x2,neighbors=4,hosts=0", broken=["sw0-0[1]-sw0-1[2]", "sw0-0[3]-sw1-0[4]"], algo="tree")
    _, run = view(s)
    assert run["flag"].startswith("⚠ The program cannot finish") and run["flag_class"] == "flag warn"
    assert "did not finish" in str(run["summary"])
    intact = scenario(algo="tree")
    figures = model.run_of(intact, model.run_plan(intact))["figures"]
    assert "K per barrier" not in dict(views.summary_rows(figures)) and views.judgement_text(figures) == ""


def test_clicking_a_link_toggles_its_break_in_the_shared_scenario():
    s = scenario(algo="ms")
    elements = view(s)[1]["elements"]
    tap = {"data": edge_of(elements, "sw1-1[5]-sw2-2[6]")["data"]}  # a diagonal link, clicked on the canvas
    written = update(CANVAS, s, tap=tap, algo="ms")
    after = stored(written)
    assert written["message"] == "" and after.broken == ["sw1-1[5]-sw2-2[6]"]
    assert after.params["barrier"]["algo"] == "ms"
    assert edge_of(view(after)[1]["elements"], "sw1-1[5]-sw2-2[6]")["classes"] == "broken diagonal"
    assert stored(update(CANVAS, after, tap=tap, algo="ms")).broken == []
    # a forged click: a message, the store stays
    for bad in (None, {"data": {}}, {"data": {"name": 3}}, {"data": {"name": "sw9-9[1]-sw0-0[1]"}}):
        written = update(CANVAS, s, tap=bad)
        assert written["scenario"] is no_update and written["message"].startswith("⚠ "), bad


def test_use_this_grid_replaces_the_scenario_and_keeps_the_page_settings():
    before = Scenario.from_dict(DEFAULT_SCENARIO.to_dict())
    written = update(USE_GRID, before, size="3x5", neighbors=4, algo="ms", barriers=2)
    after = stored(written)
    assert written["message"] == ""
    assert after.spec == "mesh:3x5,neighbors=4,hosts=0" and after.broken == [] and after.pattern == ""
    assert after.params["topology"] == before.params_for_new_fabric()["topology"]  # the other pages' settings stay
    assert after.params["barrier"]["algo"] == "ms" and after.params["barrier"]["barriers"] == 2
    assert model.scenario_is_grid(after) and model.grid_shape(after, topology_of(after)) == (3, 5, 4)
    # on a fabric that is not a grid, typing a size only says what the button does
    written = update(SIZE, before, size="6x6")
    assert written["scenario"] is no_update and written["message"].startswith("Press Use this grid")
    assert "6×6" in written["message"]
    # a size typed, then the button clicked: the box commits its value as it loses focus, in the same call as the
    # click, which is acted on (it was ignored: two inputs at once looked like the page appearing)
    written = update([SIZE, USE_GRID], before, size="6x6", clicks=1)
    assert written["message"] == "" and stored(written).spec == "mesh:6x6,neighbors=8,hosts=0"
    # the page appearing brings every control at once, the button unclicked: nothing is written
    everything = [SIZE, USE_GRID, CANVAS, *[f"{i}.value" for i in page.PARAM_CONTROLS.values()]]
    assert update(everything, before, size="6x6") == {"scenario": no_update, "message": no_update}


def test_resizing_a_grid_keeps_its_breaks_as_labels():
    corner = "sw3-2[1]-sw3-3[2]"
    s = scenario(broken=[LINK0, corner])
    bigger = stored(update(SIZE, s, size="6x6", neighbors=8))
    assert bigger.spec == "mesh:6x6,neighbors=8,hosts=0" and bigger.broken == [LINK0, corner]
    topo = topology_of(bigger)
    names = {
        tuple(sorted((topo.names[topo.link_a[r]], topo.names[topo.link_b[r]])))
        for r in range(topo.n_links)
        if topo.broken[r]
    }
    assert names == {("sw0-0", "sw0-1"), ("sw3-2", "sw3-3")}  # the same links, whatever their new ids
    smaller = stored(update(NEIGHBORS, bigger, size="3x3", neighbors=4))
    assert smaller.broken == [LINK0, corner] and smaller.missing_breaks(topology_of(smaller)) == [corner]
    assert broken_ids(smaller) == {topology_of(smaller).link_id[topology_of(smaller).find_link(LINK0)]}


def test_break_at_random_and_repair_all_write_the_scenario():
    s = scenario(broken=["sw1-1[1]-sw1-2[2]"])
    written = update(RANDOM, s, rate=0.2, seed=3)
    after = stored(written)
    grid = mesh((4, 4), neighbors=8, hosts=0)
    expected = [grid.link_label(grid.link_row(lid)) for lid in break_links(grid.copy(), 0.2, 3)]
    assert written["message"] == "" and after.broken == expected and len(expected) == round(0.2 * 42)
    assert after.params["barrier"]["rate"] == 0.2 and after.params["barrier"]["seed"] == 3
    flag = view(after)[1]["flag"]
    assert flag and "cannot finish" not in flag  # kept connected: the run finishes
    assert stored(update(REPAIR, after)).broken == []
    refused = update(RANDOM, s, rate=2)  # the job refuses: nothing drawn for update to write
    assert refused["drawn"] is no_update and "at most 1" in refused["message"]


def test_each_step_shows_ids_hops_and_the_adjustment():
    s = scenario(broken=[LINK0])
    plan, run = view(s)
    tl_dict, data = run["timeline"], s.to_dict()
    tl = player_timeline(tl_dict)
    sheet = page.render_step(0, tl_dict, plan, data)  # position 0: the initial state, S-curve IDs
    labels = {r["selector"]: r["style"]["label"] for r in sheet if "label" in r["style"] and r["selector"][1] == "n"}
    assert labels["#n0"] == "0" and labels["#n4"] == "7" and labels["#n15"] == "12"
    judged = next(s for s in range(tl.n_steps) if "round(6)" in tl.caption(s))
    assert "Root sw0-0 gathered a total path length of 27 (ideal 24)" in tl.caption(judged)
    sheet = page.render_step(judged + 1, tl_dict, plan, data)
    assert {"selector": "#n0", "style": {"label": "6"}} in sheet
    assert any(r["selector"] == "#n0" and r["style"].get("width") == 46 for r in sheet)
    release = next(s for s in range(judged, tl.n_steps) if any(e.path_links for e in tl.active_at(s)))
    lines = [
        r
        for r in page.render_step(release + 1, tl_dict, plan, data)
        if r["style"].get("line-color") == MESSAGE_COLOURS["release"]
    ]
    assert lines and any("arrow-shape" in key for key in lines[0]["style"])
    gather = next(s for s in range(tl.n_steps) if any(e.path_links for e in tl.active_at(s)))
    assert any(
        r["style"].get("line-color") == MESSAGE_COLOURS["gather"]
        for r in page.render_step(gather + 1, tl_dict, plan, data)
    )
    assert (
        message_kind("Release K=6 sw0-0 → sw2-0: …") == "release" and message_kind("Dissemination round 1") == "other"
    )
    assert page.render_step(3, None, plan, data) == page.render_step(0, None, {"error": "x", "grid": True}, data)


def test_grid_elements_place_processors_on_the_grid_and_carry_link_labels():
    topo = mesh((3, 3), neighbors=4, hosts=0)
    topo.set_broken(5)
    elements = grid_elements(topo)
    nodes = {e["data"]["id"]: e for e in elements if e.get("classes") == "proc"}
    assert len(nodes) == 9 and nodes["n5"]["position"] == {"x": 200.0, "y": 100.0}  # sw1-2: row 1, col 2
    assert nodes["n5"]["data"]["label"] == "sw1-2"
    edge = next(e for e in elements if e["data"].get("link") == 5)
    assert edge["data"]["id"] == f"l5-{topo.link_a[topo.link_row(5)]}-{topo.link_b[topo.link_row(5)]}"
    assert edge["classes"] == "broken" and edge["data"]["name"] == topo.link_label(topo.link_row(5))


# ------------------------------------------------------------------ any other fabric: end nodes over min-hop routes
def test_ms_on_a_fat_tree_runs_on_its_end_nodes_and_avoids_the_broken_link():
    s = Scenario.from_dict(DEFAULT_SCENARIO.to_dict() | {"params": {"barrier": {"algo": "ms", "comm": -1}}})
    topo = topology_of(s)
    plan, run = view(s)
    timeline, elements, table, flag = run["timeline"], run["elements"], run["summary"], run["flag"]
    assert not plan["grid"] and plan["processes"] == topo.endpoints.tolist() and len(plan["processes"]) == 16
    assert "every end node: 16 processes" in plan["note"]
    tl = player_timeline(timeline)
    assert {topo.names[u] for u in plan["processes"]} <= set(tl.entities)
    broken = broken_ids(s)
    assert len(broken) == 1 and hop_links(timeline) and not hop_links(timeline) & broken
    assert dict(views.summary_rows(model.run_of(s, plan)["figures"]))["processes"] == "16"
    assert "cannot finish" not in flag and table_text.is_table(table)
    # the drawing: the whole fabric, processes marked, the broken link drawn broken and clickable by its label
    assert sum("proc" in e.get("classes", "") for e in elements) == 16
    assert edge_of(elements, FAT_BREAK)["classes"] == "broken"
    written = update(CANVAS, s, tap={"data": edge_of(elements, FAT_BREAK)["data"]}, algo="ms", comm=-1)
    assert stored(written).broken == []
    # the hops are drawn on the fabric's links
    step = next(i for i in range(tl.n_steps) if any(e.path_links for e in tl.active_at(i)))
    sheet = page.render_step(step + 1, timeline, plan, s.to_dict())
    assert any(r["style"].get("line-color") == MESSAGE_COLOURS["gather"] for r in sheet)


def test_the_processes_are_the_chosen_communicators_end_nodes():
    s = Scenario.from_dict(DEFAULT_SCENARIO.to_dict() | {"params": {"barrier": {"algo": "dissemination", "comm": 1}}})
    topo = topology_of(s)
    plan = model.run_plan(s)
    assert plan["processes"] == s.communicators(topo).nodes(1).tolist()
    assert "communicator 1: 4 processes" in plan["note"]
    with pytest.raises(VizcollError, match="communicator 99 does not exist"):
        model.run_plan(s.with_params("barrier", {"comm": 99}))
    # comm 0 without communicators: every end node
    bare = Scenario(spec="fat-tree:radix=4,levels=3")
    assert model.run_plan(bare)["processes"] == topology_of(bare).endpoints.tolist()
    assert "(the scenario has no communicator)" in model.run_plan(bare)["note"]


def test_dlct_on_a_fat_tree_says_in_one_line_why_it_needs_a_grid():
    for algo in ("dlct", "dlct+ms", "dlct+tree"):
        s = Scenario.from_dict(DEFAULT_SCENARIO.to_dict() | {"params": {"barrier": {"algo": algo}}})
        plan, run = view(s)
        flag = run["flag"]
        assert plan["reason"] == flag and flag and "\n" not in flag and "grid" in flag and "⚠" not in flag
        assert run["timeline"] is None and run["summary"] == "" and run["flag_class"] == "flag"
        assert len(run["elements"]) == topology_of(s).n_nodes + topology_of(s).n_links  # the fabric is still drawn


def test_a_run_with_too_many_messages_is_not_offered_and_still_draws_the_fabric():
    wide = scenario("fat-tree:radix=48,levels=2", algo="dissemination", barriers=20)  # 1,152 end nodes
    plan, run = view(wide)
    assert plan["error"] == (
        "⚠ 20 barriers of Dissemination among 1,152 processes send 253,440 messages; the page plays runs of up to "
        "250,000 (choose fewer barriers, another algorithm or a communicator, or run python -m vizcoll barrier)"
    )
    assert run["flag"] == plan["error"] and run["flag_class"] == "flag warn"
    assert run["timeline"] is None and run["elements"]
    topo = topology_of(wide)
    offered = {o["value"]: o for o in model.algo_options(wide, topo)}
    assert offered["dissemination"]["disabled"] and offered["dissemination"]["label"].endswith("(too many messages)")
    assert not offered["tree"]["disabled"] and offered["dlct"]["label"] == "DLCT (needs a grid)"
    every = model.comm_options(wide, topo)[0]
    assert every["disabled"] and every["label"] == "every end node (1,152) (too many messages for Dissemination)"
    assert not model.comm_options(wide.with_params("barrier", {"algo": "tree"}), topo)[0]["disabled"]


def test_every_end_node_of_a_cluster_runs_with_every_algorithm_offered():
    s = campus()  # 1,356 HCAs: the page ran 256 processes at most
    topo = topology_of(s)
    s = s.with_params("barrier", {"comm": model.ALL_END_NODES, "algo": "dissemination"})
    assert not any(o["disabled"] for o in model.comm_options(s, topo))
    assert [o["value"] for o in model.algo_options(s, topo) if not o["disabled"]] == [
        "ms",
        "tree",
        "tournament",
        "dissemination",
        "dissemination+tree",
    ]
    plan = model.page_keys(s)[0]
    assert len(plan["processes"]) == 1356 and model.heavy_run(plan, topo)
    heard = []
    run = answer("run_job", None, heard.append, order=refreshed(s)["plan"], scenario=s.to_dict())
    assert heard[0] == (0, 200, "Running the barriers (1 of 2)") and heard[-1][2] == "Making the player (2 of 2)"
    handle = run["timeline"]
    assert handle["overview"]["steps"] == handle["steps"] and [k for _, k in handle["moments"]] == ["complete"] * 3
    assert "completed" not in run["flag"] and table_text.is_table(run["summary"])


@functools.cache
def campus() -> Scenario:
    """The 1,570-node cluster file (214 switches, 1,356 HCAs: above the canvas's 1,500 nodes) uploaded, with
    communicators of 16 processes (``hier:16``)."""
    return replace(
        Scenario.from_upload(topo_io.parse(campus_cluster(), "campus.ibnd"), "campus.ibnd"), pattern="hier:16"
    )


def test_above_1500_nodes_the_run_plays_on_the_overview():
    s = campus()
    data = s.to_dict()
    plan = refreshed(data)["plan"]
    run = model.page_keys(s)[0]
    assert run["part"] == "overview" and len(run["processes"]) == 16 and "plays on its overview" in run["note"]
    shown = answer("run_job", None, no_progress, order=plan, scenario=data)
    drawn = answer("render_drawing", plan=plan, scenario=data, drawn_now=None)  # drawn while the run's job computes
    assert shown["elements"] == [] and table_text.is_table(shown["summary"]) and "⚠" not in shown["flag"]
    assert drawn["canvas_style"] == views.HIDDEN and drawn["figure_style"] == views.FIGURE_STYLE
    assert "a bundle of links" in str(drawn["legend"])
    figure, handle = drawn["figure"], shown["timeline"]
    tl, frames = player_timeline(handle), handle["overview"]
    assert frames["steps"] == tl.n_steps == handle["steps"] and len(frames["bundles"]) == tl.n_steps + 1
    # every hop of every Gather and Release lights its bundle once: the run's hops, counted from its events
    hops = [e for e in tl.events if e.kind == "send"]
    assert all(len(e.path_links) == 1 for e in hops) and hops
    assert sum(map(sum, frames["messages"])) == len(hops) == model.run_of(s, run)["figures"]["hops"]
    lit = [p for p, bundles in enumerate(frames["bundles"]) if bundles]
    assert lit and all(0 <= b < frames["n_bundles"] for p in lit for b in frames["bundles"][p])
    # every process changing state lights its block in that step
    changed = sum(len([k for k in tl.changes_at(i) if k in tl.entities]) for i in range(tl.n_steps))
    assert sum(map(sum, frames["nodes"])) == changed > 0
    # the overview figure: the two layers the browser lights (one mark per bundle and per block), the processes'
    # blocks ringed
    layers = {t.meta: t for t in figure.data if str(t.meta).startswith("overview-")}
    assert list(layers) == ["overview-messages", "overview-nodes"]
    assert (
        len(layers["overview-messages"].x) == frames["n_bundles"]
        and len(layers["overview-nodes"].x) == frames["n_blocks"]
    )
    assert "ringed: the 2 holding the barrier's 16 processes" in figure.layout.title.text.replace("<br>", "")
    rings = [w for t in figure.data if t.meta is None and "blocks (" in str(t.name) for w in t.marker.line.width]
    assert sum(w == 3 for w in rings) == 2 and len(rings) == frames["n_blocks"]
    # the same drawing is not sent again; the browser draws an overview's steps
    again = answer("render_drawing", plan=plan, scenario=data, drawn_now=drawn["drawn"])
    assert again["figure"] is no_update and again["drawn"] == drawn["drawn"]
    assert answer("render_drawing", plan=plan, scenario=data, drawn_now="another")["figure"] is not no_update
    assert page.render_step(3, handle, plan, data) is no_update


def test_a_run_too_long_for_the_overviews_frames_plays_its_captions_only(monkeypatch):
    monkeypatch.setattr(views, "OVERVIEW_MAX_MARKS", 100)  # the campus run lights more marks than that
    s = campus()
    plan = refreshed(s)["plan"]
    run = answer("run_job", None, no_progress, order=plan, scenario=s.to_dict())
    handle = run["timeline"]
    assert handle["overview"] is None and player_timeline(handle).n_steps == handle["steps"] == 265
    assert run["flag"].startswith("The run lights the overview's marks more than 100 times in its 265 steps")
    assert run["flag_class"] == "flag"
    assert table_text.is_table(run["summary"]) and page.render_step(5, handle, plan, s.to_dict()) is no_update


def test_a_group_drawn_alone_plays_node_by_node():
    s = campus()
    written = update(f"{page.BAR_PART}.value", s, part="group:0", algo="tree")
    assert written["message"] == "" and stored(written).params["barrier"]["part"] == "group:0"
    s = stored(written)
    data = s.to_dict()
    plan = refreshed(data)["plan"]
    assert model.page_keys(s)[0]["part"] == "group:0"
    run = answer("run_job", None, no_progress, order=plan, scenario=data)
    handle, elements = run["timeline"], run["elements"]
    drawing = answer("render_drawing", plan=plan, scenario=data, drawn_now=None)
    assert drawing["figure"] is no_update and drawing["canvas_style"] == views.CANVAS_STYLE
    assert drawing["figure_style"] == views.HIDDEN and "⚠" not in run["flag"]
    drawn = handle["nodes"]
    topo = topology_of(s)
    names = {e["data"]["label"] for e in elements if "source" not in e["data"]}
    assert "overview" not in handle and names == {topo.names[u] for u in drawn} and len(drawn) == 18
    procs = {e["data"]["label"] for e in elements if "proc" in e.get("classes", "")}
    assert procs == {topo.names[u] for u in model.page_keys(s)[0]["processes"] if u in drawn} and len(procs) == 10
    # a step's rules name the drawing's own node ids (never the fabric's) and its hops by link id
    tl = player_timeline(handle)
    inside = {int(e["data"]["link"]) for e in elements if "source" in e["data"]}
    step = next(i for i in range(tl.n_steps) if any(lid in inside for e in tl.active_at(i) for lid in e.path_links))
    sheet = page.render_step(step + 1, handle, plan, data)
    shown = {"position": step + 1, "handle": handle}  # what the browser writes at the canvas's step
    assert on_canvas(page.render_step)(shown, plan, data) == sheet
    selectors = [sel.strip() for rule in sheet for sel in rule["selector"].split(",")]
    ids = {int(sel[2:]) for sel in selectors if sel.startswith("#n")}
    assert ids and max(ids) < len(drawn)
    assert any(r["style"].get("line-color") in MESSAGE_COLOURS.values() for r in sheet)
    # a forged list of drawn nodes: the rules skip what is no node
    assert isinstance(page.render_step(step + 1, handle | {"nodes": ["x", None, True, 10**12]}, plan, data), list)
    # the natural part is not stored; a group the fabric does not have gives a message
    assert stored(update(f"{page.BAR_PART}.value", s, part="overview")).params["barrier"]["part"] is None
    written = update(f"{page.BAR_PART}.value", s, part="group:9999")
    assert written["scenario"] is no_update and written["message"] == "⚠ the fabric has no group '9999'"
    assert update(f"{page.BAR_PART}.value", s, part="../etc")["message"].startswith("⚠ unknown part to draw")


def test_an_uploaded_fabric_shows_its_own_names():
    topo = topo_io.parse(ONE_SPINE, "handmade.net")
    s = Scenario.from_upload(topo, "handmade.net").with_params("barrier", {"algo": "tournament"})
    plan, run = view(s)
    timeline, elements = run["timeline"], run["elements"]
    labels = {e["data"]["label"] for e in elements if "source" not in e["data"]}
    assert set(HOSTS) <= labels and {"spine", "leafA"} <= labels
    assert {topo.names[u] for u in plan["processes"]} == set(HOSTS)
    tl = player_timeline(timeline)
    assert set(HOSTS) <= set(tl.entities) and any(h in tl.caption(i) for i in range(tl.n_steps) for h in HOSTS)


# ------------------------------------------------------------------ LCT vs BST, the sweep, the histogram
def test_uq_view_shows_the_papers_fig_3_numbers():
    key = refreshed(scenario())["uq"]
    assert key == {"rows": 4, "cols": 4, "neighbors": 8, "k": 1, "numbering": "s-curve", "grid": True}
    shown = answer("render_uq", key=key)
    lct_fig, bst_fig, info = shown["lct"], shown["bst"], shown["info"]
    assert uq_round("lct", numbering("s-curve", 4), 1) == {"intersection": 7, "union": 26, "uq": 1 - 7 / 26}
    assert lct_fig.layout.title.text.replace("<br>", "") == "LCT: UQ = 1 − 7/26 = 73.1%"
    assert bst_fig.layout.title.text.replace("<br>", "") == "BST: UQ = 1 − 18/22 = 2/11 = 18.2%"
    assert "The paper (Fig. 3): UQ(LCT) = 73.1%, UQ(BST) = 18.2%" in info
    names = [t.name for t in lct_fig.data]
    assert names[:3] == ["only before round(1) (9)", "new after round(1) (10)", "kept: A ∩ B (7)"]
    assert lct_fig.data[3].text[:4] == ("0→1", "1→2", "2→3", "3→4")
    assert uq_text(0, 0) == "0 (no links)"
    # the scenario's grid size, K and numbering from the page parameters
    info_of = lambda s: answer("render_uq", key=refreshed(s)["uq"])["info"]  # noqa: E731
    assert "3×5 grid, hilbert numbering, 4 neighbors, round(2)" in info_of(
        scenario("mesh:3x5,neighbors=4,hosts=0", k=2, numbering="hilbert")
    )
    assert "the paper's 4×4 here" in info_of(scenario("mesh:12x12"))
    assert "not a grid: the paper's 4×4 grid with 8 neighbors" in info_of(DEFAULT_SCENARIO)


def test_sweep_charts_have_one_line_per_algorithm():
    swept = answer(
        "compute_sweep", None, no_progress, key={"mode": model.QUICK_MODE, "neighbors": 8}, size=None, rate=None
    )
    assert [o["value"] for o in swept["size_options"]] == [4, 8, 12] and swept["size"] == 12
    assert [o["value"] for o in swept["rate_options"]] == [0.0, 0.2, 0.4] and swept["rate"] == 0.4
    key = swept["sweep"]
    assert "tree@intact" in swept["info"] and key == {"mode": model.QUICK_MODE, "neighbors": 8}  # the store: its key
    assert refreshed(scenario(sweep="full"))["sweep"] == {"mode": "full", "neighbors": 8}
    result = model.sweep_of(model.QUICK_MODE, 8)
    charts = answer("render_sweep", key=key, size=8, rate=0.4)
    by_rate, by_size, ranges = charts["vs_rate"], charts["vs_size"], charts["ranges"]
    assert (
        [t.name for t in by_rate.data]
        == result["columns"]
        == [*ALGORITHMS.names[:2], "tree@intact", *ALGORITHMS.names[2:]]
    )
    assert list(by_rate.data[0].x) == [0, 20, 40] and list(by_size.data[0].x) == [4, 8, 12]
    row = next(r for r in result["rows"] if r["size"] == 8 and r["rate"] == 0.4)
    assert by_size.data[-1].y[1] == row["sync_ms"]["dlct+tree"]
    assert "No sweep row" in sweep_figure(result, "rate", 16).layout.annotations[0].text
    assert [t.name for t in ranges.data[::2]] == ["tree@intact", "tree", "dlct+ms", "dlct+tree"]
    id2_line, id2_dots = ranges.data[-2:]
    times = [r["sync_ms"]["dlct+tree"] for r in result["rows"] if r["size"] == 8]
    assert list(id2_line.y[3:5]) == [min(times), max(times)] and sorted(id2_dots.y[3:6]) == sorted(times)
    assert list(ranges.layout.xaxis.ticktext) == ["4×4", "8×8", "12×12"]


def test_histogram_of_uq_differences():
    fig = page.render_histogram(refreshed(scenario())["uq"])
    assert fig.layout.title.text.replace("<br>", "") == (
        "UQ(LCT) − UQ(BST) over the 256 S-curve transformations of the 4×4 grid"
    )
    assert sum(fig.data[0].y) == 256
    names = [t.name for t in fig.data[1:]]
    assert names == ["mean difference +0.154", "LCT changes more links: 170", "BST changes more links: 70"]
    assert "paper: 0.5527" in fig.layout.xaxis.title.text
    key = {"rows": 3, "cols": 5, "neighbors": 4}
    assert model.histogram_side(key) == 4 and model.histogram_side(key | {"rows": 6, "cols": 6}) == 6


# ------------------------------------------------------------------ layout and the views' keys
def test_the_layout_shows_the_scenarios_parameters_and_grid():
    s = scenario("mesh:3x5,neighbors=4,hosts=0", algo="tree", k=2, numbering="hilbert", barriers=5)
    text = str(page.body(s))
    for needle in ("value='3x5'", "value=4", "value='tree'", "value='hilbert'", "value=2", "value=5"):
        assert needle in text, needle
    assert "Run" not in [getattr(c, "children", None) for c in page.body(s).children[0].children[0].children]
    # a fat tree: the grid preset shows the paper's 4x4 with 8 neighbors, the algorithm defaults to tree
    text = str(page.body(DEFAULT_SCENARIO))
    assert "value='4x4'" in text and "value=8" in text and "value='tree'" in text
    assert "communicator 7 (4 processes)" in text
    assert "barrier-page" in str(page.layout(shell_scenario=s.to_dict(), shell_hash=None))


def test_the_views_change_only_when_their_part_of_the_scenario_changes():
    s = scenario(broken=[LINK0])
    first = refreshed(s)
    assert first["part_options"] == page.GRID_PART and first["part"] == "whole"  # the grid is drawn whole
    assert first["part_disabled"] is True
    assert first["compare"] == [{"label": "nothing (one run)", "value": ""}, *first["algos"]]  # the same choices
    text = first["fabric"]
    assert "mesh:4x4,neighbors=8,hosts=0" in text and "1 broken link)" in text and first["comm_disabled"] is True
    # K changes the LCT/BST view only; a break changes the run only
    now = {"plan_now": first["plan"], "uq_now": first["uq"], "sweep_now": first["sweep"]}
    again = refreshed(s.with_params("barrier", {"k": 3}), **now)
    assert again["plan"] is no_update and again["uq"]["k"] == 3 and again["sweep"] is no_update
    again = refreshed(s.toggled(LINK0), **now)
    assert again["plan"] not in (no_update, first["plan"]) and again["uq"] is no_update and again["sweep"] is no_update
    fat = refreshed(DEFAULT_SCENARIO)
    assert fat["comm_disabled"] is False and fat["comm_options"][0]["value"] == model.ALL_END_NODES
    assert len(fat["comm_options"]) == 1 + 8
    # the same process choices are not sent again (new options would choose the process again, and write it)
    shown_now = {f"{name}_now": fat[name] for name in ("plan", "uq", "sweep", "part")}
    assert refreshed(DEFAULT_SCENARIO, **shown_now, options_now=fat["comm_options"])["comm_options"] is no_update
    for opened in (s.with_params("barrier", {"comm": 3}), DEFAULT_SCENARIO.with_params("barrier", {"comm": 5})):
        options = refreshed(opened)["comm_options"]  # so the page opens showing what shown_comm would choose
        assert find_component(page.body(opened), page.BAR_COMM).value == page.shown_comm(options, opened.to_dict())


# ------------------------------------------------------------------ Download GOAL
def goal_of(s: Scenario):
    """The GOAL export of the barrier page for ``s``: (the parsed file with the checker's problems, file name)."""
    goal = answer("export_goal", None, clicks=1, scenario=s.to_dict())
    download = goal["file"]
    assert goal["message"] == "" and download["filename"].endswith(".goal"), goal["message"]
    parsed = parse(download["content"])
    return parsed, parsed.problems + check(parsed.schedule, parsed.lines), download["filename"]


@pytest.mark.parametrize("algo", ["dlct", "dlct+tree", "dissemination", "tournament"])
def test_download_goal_on_a_grid_is_every_hop_of_one_barrier_of_the_run(algo):
    s = scenario(broken=[LINK0], algo=algo)
    parsed, problems, name = goal_of(s)
    assert problems == [] and name == f"vizcoll-barrier-{algo.replace('+', '-')}.goal"
    topo = topology_of(s)
    timeline, _ = run_barriers(topo, algo, barriers=1, compute=0.0)
    assert parsed.schedule.num_ranks == len(topo.switches) == 16  # the ranks are the grid's switches
    assert parsed.schedule.messages() == sum(e.kind == "send" for e in timeline.events)


def test_download_goal_off_the_grid_is_the_logical_pattern_and_refuses_dlct():
    s = DEFAULT_SCENARIO.with_params("barrier", {"algo": "dissemination", "comm": model.ALL_END_NODES})
    parsed, problems, name = goal_of(s)
    assert problems == [] and name == "vizcoll-barrier-dissemination.goal"
    assert parsed.schedule.ops == barrier("dissemination", 16).ops  # P = the barrier's 16 processes
    goal = lambda s: answer("export_goal", None, clicks=1, scenario=data_of(s))  # noqa: E731
    assert dumps(barrier("dissemination", 16)) in goal(s)["file"]["content"]
    refused = goal(DEFAULT_SCENARIO.with_params("barrier", {"algo": "dlct"}))
    assert refused["file"] is no_update and refused["message"].startswith("⚠ DLCT needs a grid of processors")
    forged = DEFAULT_SCENARIO.with_params("barrier", {"algo": "nope"})
    assert goal(forged)["message"].startswith("⚠ unknown barrier algorithm 'nope'")
    unread = goal({"schema": "nope"})
    assert unread["file"] is no_update and unread["message"].startswith("⚠ The scenario could not be read")


# ------------------------------------------------------------------ stores and values from the browser, background jobs
def never_raises(callback, *args) -> None:
    """A callback of one output (no message to give) with each argument in turn replaced by every hostile value,
    the others valid: it answers, it never raises."""
    for i in range(len(args)):
        for value in HOSTILE:
            in_callback(callback, None, *args[:i], value, *args[i + 1 :])


@pytest.fixture
def quick_sweep_once(monkeypatch):
    """The quick sweep computed once for the test (outside an app ``@cached`` computes on every call)."""
    monkeypatch.setattr(model, "sweep_of", functools.cache(model.sweep_of.uncached))


NOT_NONE = [value for value in HOSTILE if value is not None]  # None in the store: the default scenario
NOT_ZERO = [value for value in HOSTILE if value != 0]  # 0: a break rate the sweep offers


def accepted(written: dict, key: str, value) -> bool:
    """Whether ``update`` wrote the control's ``value`` as it is (a valid value of that control: K = -1, no work
    between barriers…), not read as something else."""
    kept = written["scenario"]["params"][model.PAGE].get(key) if isinstance(written["scenario"], dict) else None
    return kept == value and isinstance(kept, bool) == isinstance(value, bool)


@pytest.mark.parametrize("opened", ["default", "grid"])
def test_every_callback_checks_what_the_browser_sends(quick_sweep_once, opened):
    s, hostile = (DEFAULT_SCENARIO, HOSTILE) if opened == "default" else (scenario(broken=[LINK0]), NOT_NONE)
    data = s.to_dict()
    first = refreshed(data)
    plan, uq, sweep_key = first["plan"], first["uq"], first["sweep"]
    drawn = {"broken": list(s.broken), "click": 1}
    controls = {key: model.DEFAULTS[key] for key in page.PARAM_CONTROLS}
    changes = {"tap_edge": None, "use_grid": 0, "repair": 0, "drawn": drawn, "size": "4x4", "neighbors": 8}
    for prop_id in (ALGO, DRAWN):
        valid = changes | {"values": controls, "scenario": data}
        probe(callbacks()["update"], prop_id, valid, hostile=hostile)
        expected = in_callback(callbacks()["update"], prop_id, **valid)
        for key, value in itertools.product(controls, HOSTILE):  # each control's value hostile in turn
            written = in_callback(callbacks()["update"], prop_id, **valid | {"values": controls | {key: value}})
            assert is_refusal(written, expected) or accepted(written, key, value), (prop_id, key, value, written)
    # no breaks at all: a forged rate, seed or click count is refused or read as 0
    breaks = {"clicks": 0, "rate": 0, "seed": 0, "scenario": data}
    probe(callbacks()["break_at_random"], RANDOM, breaks, progress=True, hostile=hostile)
    now = dict.fromkeys(["plan_now", "uq_now", "sweep_now", "part_now", "options_now", "algos_now"])
    probe(callbacks()["refresh"], None, {"scenario": data} | now, hostile=hostile)  # a forged "now": sent again
    probe(callbacks()["render_drawing"], None, {"plan": plan, "scenario": data, "drawn_now": None}, hostile=hostile)
    probe(callbacks()["run_or_order"], None, {"plan": plan, "scenario": data}, hostile=hostile)  # a light run
    probe(callbacks()["run_job"], None, {"order": plan, "scenario": data}, progress=True, hostile=hostile)
    probe(callbacks()["render_uq"], None, {"key": uq}, hostile=hostile)
    swept = {"key": sweep_key, "size": None, "rate": None}
    probe(callbacks()["compute_sweep"], None, swept, progress=True, hostile=NOT_ZERO)
    probe(callbacks()["render_sweep"], None, {"key": sweep_key, "size": 8, "rate": 0.2}, hostile=NOT_ZERO)
    probe(callbacks()["export_goal"], None, {"clicks": 1, "scenario": data}, hostile=hostile)
    timeline = answer("run_job", None, no_progress, order=plan, scenario=data)["timeline"]
    never_raises(page.shown_comm, [{"label": "x", "value": -1}], data)
    never_raises(page.opening_order, plan, data, None)
    never_raises(page.render_step, 3, timeline, plan, data)
    never_raises(on_canvas(page.render_step), {"position": 3, "handle": timeline}, plan, data)
    never_raises(page.render_histogram, uq)


def test_a_heavy_runs_order_checks_what_the_browser_sends():
    heavy = {"plan": refreshed(HEAVY)["plan"], "scenario": HEAVY.to_dict(), "order_now": None}
    probe(callbacks()["run_or_order"], None, heavy, hostile=NOT_NONE)  # a forged order counts as none


def test_forged_stores_give_a_message_or_nothing():
    s = scenario(broken=[LINK0])
    data = s.to_dict()
    first = refreshed(data)
    plan, uq = first["plan"], first["uq"]
    # the run plan's key only triggers the run: a forged one runs the scenario's own plan
    assert len(plan) == 24 and plan == key_of(model.page_keys(s)[0])
    forged = model.page_keys(s)[0] | {"algo": "dissemination", "barriers": 20, "processes": list(range(10**4))}
    run = lambda plan: answer("run_job", None, no_progress, order=plan, scenario=data)  # noqa: E731
    assert str(run(forged)) == str(run(plan))
    assert run(True)["summary"] != ""
    # a forged timeline, plan or step: the plain drawing
    assert (
        page.render_step(
            2, {"schema": "vizcoll.timeline/1", "entities": {"a": {"node": "x"}}, "events": []}, plan, data
        )
        == grid_stylesheet()
    )
    assert page.render_step("abc", {"schema": "nope"}, plan, data) == grid_stylesheet()
    assert page.render_step(1, None, [1], data) == grid_stylesheet()  # the scenario's grid, whatever the key
    assert page.render_step(1, None, [1], DEFAULT_SCENARIO.to_dict()) == fabric_stylesheet()
    # forged view keys: nothing to update; a forged sweep key says why
    for key in (uq | {"k": "x"}, uq | {"numbering": ["s-curve"]}, uq | {"extra": 1}, {"rows": 4}, [uq], "uq"):
        assert model.read_uq_key(key) is None
        assert answer("render_uq", key=key) == dict.fromkeys(page.UQ, no_update)
        assert page.render_histogram(key) is no_update
    swept = answer("compute_sweep", None, no_progress, key={"mode": "huge", "neighbors": 8}, size=None, rate=None)
    assert swept == dict.fromkeys(page.SWEEP, no_update) | {"info": swept["info"]}
    assert swept["info"].startswith("⚠ unknown sweep 'huge'")
    swept = answer("compute_sweep", None, no_progress, key={"mode": "full", "neighbors": 5}, size=None, rate=None)
    assert swept["info"].startswith("⚠ neighbors must be 4 or 8")
    assert answer("render_sweep", key={"mode": "full"}, size=8, rate=0.2) == dict.fromkeys(page.SWEPT, no_update)
    assert page.shown_comm(True, data) is no_update
    for forged in ({"broken": ["no-such-link"]}, {"broken": [3]}, {"broken": "sw0-0"}, [LINK0], None):
        written = update(DRAWN, s, drawn=forged)
        assert written["scenario"] is no_update and written["message"].startswith("⚠"), forged
    assert page.shown_comm([3, None], DEFAULT_SCENARIO.to_dict()) is no_update  # options that are no choices


def test_the_views_read_only_a_sweep_a_job_computed():
    server = Flask(__name__)
    cache_module.cache.init_app(server, config={"CACHE_TYPE": "SimpleCache"})
    with server.app_context():
        assert model.swept(model.FULL_MODE, 4) is None  # never computed here: the view shows nothing
        charts = answer("render_sweep", key={"mode": model.FULL_MODE, "neighbors": 4}, size=8, rate=0.2)
        assert charts == dict.fromkeys(page.SWEPT, no_update)


def test_the_background_jobs_report_their_progress(quick_sweep_once):
    seen = []
    answer("compute_sweep", None, seen.append, key={"mode": model.QUICK_MODE, "neighbors": 8}, size=None, rate=None)
    cells = len(model.QUICK["sizes"]) * len(model.QUICK["rates"])
    assert seen[0] == (0, 1, "The quick sweep on 1 process…")  # outside a job: one process
    assert seen[1:] == [(i, cells, f"The quick sweep: {i} of {cells} grids run…") for i in range(1, cells + 1)]
    seen.clear()
    s = scenario()
    answer("run_job", None, seen.append, order=refreshed(s)["plan"], scenario=s.to_dict())
    assert seen == [(0, 200, "Running the barriers (1 of 2)"), (100, 200, "Making the player (2 of 2)")]
    seen.clear()
    breaks = answer("break_at_random", RANDOM, seen.append, clicks=1, rate=0.2, seed=3, scenario=s.to_dict())
    assert seen == [(0, 1, "Breaking 20% of the links at random…")] and breaks["message"] == ""
    assert len(breaks["drawn"]["broken"]) == round(0.2 * 42) and breaks["drawn"]["click"] == 1


def test_the_page_has_a_job_bar_for_each_background_job():
    layout = page.body(scenario())
    for prefix in (page.BAR_RUN_JOB, page.BAR_BREAKS_JOB, page.BAR_SWEEP_JOB):
        for part in ("job", "progress", "progress-text", "cancel"):
            assert find_component(layout, f"{prefix}-{part}") is not None, (prefix, part)


def test_a_light_run_answers_in_the_request_a_heavy_one_orders_the_job():
    light = Scenario(spec="fat-tree:radix=4,levels=3", pattern="hier:4")  # 16 processes x 3 barriers
    data = light.to_dict()
    plan = refreshed(data)["plan"]
    assert not model.heavy_run(model.view_keys(light)[0], topology_of(light))
    ran = answer("run_or_order", plan=plan, scenario=data, order_now=None)
    assert ran["timeline"]["steps"] > 0 and ran["order"] is no_update  # the player's handle at once, no job
    job = answer("run_job", None, no_progress, order=plan, scenario=data)
    assert str(ran) == str(job | {"order": no_update})
    assert answer("run_job", None, no_progress, order=None, scenario=data) == dict.fromkeys(page.RUN, no_update)

    data = HEAVY.to_dict()
    plan = refreshed(data)["plan"]
    assert model.heavy_run(model.view_keys(HEAVY)[0], topology_of(HEAVY))
    ordered = answer("run_or_order", plan=plan, scenario=data, order_now={"run": 4})
    assert ordered == dict.fromkeys(page.RUN, no_update) | {"order": {"run": 5}}  # a new run of the job
    assert answer("run_job", None, no_progress, order=ordered["order"], scenario=data)["timeline"]["steps"] > 0
    assert answer("run_or_order", plan=plan, scenario=data, order_now=None)["order"] == {"run": 1}
    light_plan = refreshed(light)["plan"]
    again = answer("run_or_order", plan=light_plan, scenario=light.to_dict(), order_now={"run": 5})
    assert again["order"] is None  # a light run again ends the job's order
    # as the page opens (nothing triggered it) the page shows a light run already: only a heavy one's order
    assert in_callback(page.opening_order, None, plan, data, None) == {"run": 1}
    assert in_callback(page.opening_order, None, light_plan, light.to_dict(), None) is no_update
    assert in_callback(page.opening_order, f"{page.BAR_PARAMS}.data", plan, data, None) is no_update  # run_or_order's


HEAVY = Scenario(spec="mesh:16x16,neighbors=8,hosts=0").with_params(model.PAGE, {"barriers": 2})  # 256 x 2: a job


def test_the_page_opens_with_its_drawing_and_a_light_run_drawn_as_its_callbacks_draw_them():
    s = Scenario.from_upload(topo_io.parse(campus_cluster(), "campus.net"), "campus.net")
    s = replace(s, pattern="hier:16")
    data = s.to_dict(thin=True)
    opened = page.body(s)
    first = refreshed(data)
    plan = first["plan"]
    stores = [find_component(opened, i).data for i in (page.BAR_PARAMS, page.BAR_UQ_KEY, page.BAR_SWEEP_KEY)]
    assert stores == [plan, first["uq"], first["sweep"]]
    drawn = answer("render_drawing", plan=plan, scenario=data, drawn_now=None)
    assert find_component(opened, page.BAR_OVERVIEW).figure == drawn["figure"]  # the overview
    timeline = find_component(opened, pid(page.BAR_PLAYER, "timeline")).data
    assert timeline == answer("run_or_order", plan=plan, scenario=data)["timeline"] and timeline["steps"] > 0
    assert getattr(find_component(opened, page.BAR_RUN_ORDER), "data", None) is None  # a light run: no job's order
    caption = find_component(opened, pid(page.BAR_PLAYER, "caption")).children  # the first frame, at once
    assert {"caption": caption, "position": find_component(opened, pid(page.BAR_PLAYER, "position")).children} == (
        caption_at(0, timeline)
    )
    # a heavy run: its job's order is left to opening_order, the player to the job
    heavy = page.body(HEAVY)
    assert getattr(find_component(heavy, page.BAR_RUN_ORDER), "data", None) is None
    assert getattr(find_component(heavy, pid(page.BAR_PLAYER, "timeline")), "data", None) is None
    from app import create_app

    dependencies = create_app().server.test_client().get("/_dash-dependencies").get_json()
    prevent = {  # each output the page's callbacks write: whether its callback waits for a change
        name.split("@")[0] + ("@" if "@" in name else ""): cb["prevent_initial_call"]
        for cb in dependencies
        for name in cb["output"].strip(".").split("...")
    }
    assert prevent[f"{page.BAR_PARAMS}.data"] is prevent[f"{page.BAR_OVERVIEW}.figure"] is True  # drawn
    assert prevent[f"{pid(page.BAR_PLAYER, 'timeline')}.data"] is True
    # what the page leaves to its callbacks as it opens: a heavy run's order, the LCT/BST view, the sweep's job
    assert not any(prevent[name] for name in (f"{page.BAR_RUN_ORDER}.data@", f"{page.BAR_SWEEP}.data"))
    assert prevent[f"{page.BAR_UQ_LCT}.figure"] is False


def test_a_grid_offers_its_switches_and_a_switch_only_fabric_no_end_node():
    grid = model.grid_scenario(DEFAULT_SCENARIO, 4, 4, 8)
    assert model.comm_options(grid, topology_of(grid)) == [
        {"label": "every switch of the grid (16 processors)", "value": model.ALL_END_NODES, "disabled": False}
    ]
    nodes = [{"name": name, "kind": "switch"} for name in "abc"]
    ring = json.dumps({"nodes": nodes, "links": [["a", "b"], ["b", "c"], ["c", "a"]]})
    zoo = Scenario.from_upload(topo_io.parse(ring, "ring.json"), "ring.json")
    assert model.comm_options(zoo, topology_of(zoo))[0]["label"] == "no end node: the fabric has only switches"
