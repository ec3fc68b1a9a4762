"""The multicast page's callbacks and views, called directly with scenario dicts (no browser)."""

from __future__ import annotations

import base64
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from dash import Dash, Input, State, dcc, no_update
from flask import Flask

from tests import table_text
from tests.callback_context import in_callback
from tests.fabrics import HOSTS, ONE_SPINE, campus_cluster
from tests.probe import no_progress, probe
from vizcoll.multicast.loads import worst_rows
from vizcoll.multicast.mcfdbs import dump_mcfdbs
from vizcoll.multicast.routing import ALGORITHMS
from vizcoll.scenario import MAX_TABLES_CHARS, Scenario
from vizcoll.topology import io as topo_io
from vizcoll.ui import cache as cache_module
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.player import player_timeline
from vizcoll.ui.figures.efi import BROKEN, link_value_figure
from vizcoll.ui.pages.multicast import _model as model
from vizcoll.ui.pages.multicast import page
from vizcoll.ui.pages.multicast._views import fabric_line
from vizcoll.ui.store import DEFAULT_SCENARIO, SCENARIO, topology_of

ALGO_A, ALGO_B, PART, GROUP = (
    f"{page.MC_ALGO_A}.value",
    f"{page.MC_ALGO_B}.value",
    f"{page.MC_PART}.value",
    f"{page.MC_GROUP}.value",
)
CLICK_A, CLICK_B, CLICK_DIFF = (
    f"{page.MC_FIG_A}.clickData",
    f"{page.MC_FIG_B}.clickData",
    f"{page.MC_FIG_DIFF}.clickData",
)
PRESET = f"{page.MC_USE_PRESET}.n_clicks"
TEACHING = "pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4"
LISTS = [["alpha", "beta"], ["gamma", "delta"], ["alpha", "gamma", "delta"]]
UPLINK_A = "spine[1]-leafA[3]"  # as the drawing names it


def uploaded(lists=LISTS) -> Scenario:
    s = Scenario.from_upload(topo_io.parse(ONE_SPINE, "handmade.net"), "handmade.net")
    return Scenario(**{**s.__dict__, "lists": lists})


def wired(function, outputs, inputs, **by):
    """``function`` registered as the page registers it (:func:`by_name`, on an app of its own): keyword inputs in,
    every output by name out."""
    return by_name(Dash(__name__), outputs, inputs, prevent_initial_call=True, **by)(function)


UPDATE = wired(page.update, page.WRITTEN, page.CHANGES)
LOAD = wired(page.load_tables, page.LOADED, page.UPLOADED)
CONTROLS = wired(page.controls, page.CONTROLS, page.STORE | page.SHOWING, scenario="scenario", message="fabric")
RENDER = wired(page.render, page.TOP, page.STORE, scenario="scenario", message="status")
RENDER_LOWER = wired(page.render_lower, page.LOWER, page.STORE | {"seen": Input(page.MC_LOWER_SEEN, "data")})
ORDERED = {"order": Input(page.MC_HEAVY, "data"), "scenario": State(SCENARIO, "data")}
COMPUTE_VIEWS = wired(page.compute_views, page.JOB_VIEWS, ORDERED, scenario="scenario", message="status")
COMPUTE_SECOND = wired(page.compute_second, page.B_VIEWS, ORDERED, scenario="scenario", message="status")


def update(
    prop_id: str | list | None,
    current,
    a="minhop-new",
    b="fulb",
    part=None,
    group=None,
    click=None,
    preset="pruned-fat-tree",
) -> dict:
    """The page's writing callback as Dash calls it when ``prop_id`` changed (a list: inputs that changed together):
    its store and message, by name."""
    data = current.to_dict() if isinstance(current, Scenario) else current
    clicks = {figure: click if f"{figure}.clickData" == prop_id else None for figure in page.FIGURES}
    values = {"a": a, "b": b, "part": part, "group": group}
    return in_callback(UPDATE, prop_id, values=values, clicks=clicks, use_preset=1, preset=preset, scenario=data)


def controls(s: Scenario | dict, a_now=None, b_now=None, part_now=None, group_now=None) -> dict:
    """The controls following the store ``s`` (as the browser sent it), by name."""
    data = s.to_dict() if isinstance(s, Scenario) else s
    return CONTROLS(scenario=data, a_now=a_now, b_now=b_now, part_now=part_now, group_now=group_now)


def stored(store) -> Scenario:
    assert isinstance(store, dict), store
    return Scenario.from_dict(store)


def view(s: Scenario) -> dict:
    """Every view of ``s`` by name (:data:`page.VIEWS` but the timeline), the worst links as one text."""
    views = page.views(s)
    worst = views["worst"]
    return views | {"worst": " ".join(str(w.children) for w in worst) if isinstance(worst, list) else worst}


def cells(table: dcc.Markdown | list) -> dict[str, list[str]]:
    table = table[0] if isinstance(table, list) else table  # with the tables: [table, the verdict]
    return {r[0]: r[1:] for r in table_text.rows(table)}


def hover_trace(fig):
    return next(t for t in fig.data if t.name == "links")


def click_on(label: str) -> dict:
    """Plotly's clickData for a click on the link's middle point."""
    return {"points": [{"curveNumber": 3, "pointNumber": 7, "x": 0.5, "y": 0.5, "customdata": label}]}


def teaching() -> Scenario:
    answer = update(PRESET, DEFAULT_SCENARIO)
    assert answer["message"] == ""
    return stored(answer["scenario"])


def tree_link_ids(s: Scenario, algo: str) -> set[int]:
    return {lid for t in model.routed(s, algo).trees if t is not None for lid in t.links.tolist()}


# ------------------------------------------------------------------ parameters
def test_defaults_are_plain_values_and_check_themselves():
    assert model.DEFAULTS == {"a": "minhop-new", "b": "fulb", "part": None, "group": None, "compare": ""}
    topo = topology_of(DEFAULT_SCENARIO)
    assert model.read_params(model.DEFAULTS, DEFAULT_SCENARIO, topo, 8) == model.DEFAULTS
    assert (
        model.read_params(model.DEFAULTS | {"part": "group:2", "group": 7}, DEFAULT_SCENARIO, topo, 8)["part"]
        == "group:2"
    )
    assert model.PAGE == "multicast" and set(model.PRESETS) == {
        "pruned-fat-tree",
        "dragonfly",
        "taihulight",
        "fat-tree-64",
        "rail-million",
    }
    assert all(p["a"] in ALGORITHMS and p["b"] in ALGORITHMS for p in model.PRESETS.values())


def test_the_page_uses_no_private_fabric_builder():
    source = Path(page.__file__).read_text()
    assert "parse_broken" not in source and "fabric(" not in source and "import fabric" not in source


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"a": "nope"}, "unknown algorithm A 'nope'"),
        ({"b": 3}, "unknown algorithm B '3'"),
        ({"b": None}, "unknown algorithm B"),
        ({"part": "group:99"}, "no group '99'"),
        ({"part": "group:-1"}, "no group"),
        ({"part": "everything"}, "unknown part 'everything'"),
        ({"part": ["whole"]}, "unknown part"),
        ({"group": 99}, "group 99 does not exist: the scenario has 8 (0–7)"),
        ({"group": -1}, "group -1 does not exist"),
        ({"group": "1"}, "must be a group number, got '1'"),
        ({"group": True}, "must be a group number"),
        ({"group": 1.5}, "must be a group number"),
    ],
)
def test_a_forged_control_value_gives_a_message_and_leaves_the_store(changes, words):
    for trigger in (ALGO_A, ALGO_B, PART, GROUP):
        answer = update(trigger, DEFAULT_SCENARIO, **changes)
        message = answer["message"]
        assert answer["scenario"] is no_update and message.startswith("⚠ ") and words in message, (trigger, message)


@pytest.mark.parametrize("trigger", [ALGO_B, GROUP, PRESET, CLICK_A, CLICK_DIFF])
def test_a_hostile_value_in_any_input_of_a_control_change_is_refused(trigger):
    """Each value a forged request could carry, in place of each input in turn: a ⚠ message or no change."""
    clicks = {
        figure: click_on("h0[1]-edge0.0[1]") if f"{figure}.clickData" == trigger else None for figure in page.FIGURES
    }
    values = {"a": "minhop-new", "b": "sssp", "part": None, "group": 2}
    data = DEFAULT_SCENARIO.to_dict()
    probe(
        UPDATE, trigger, {"values": values, "clicks": clicks, "use_preset": 1, "preset": "dragonfly", "scenario": data}
    )


@pytest.mark.parametrize(
    "trigger, kw, words",
    [
        (PRESET, {"preset": "my-fabric"}, "unknown preset 'my-fabric'"),
        (PRESET, {"preset": None}, "unknown preset"),
        (CLICK_A, {"click": click_on("nowhere[1]-nobody[2]")}, "the fabric has no link nowhere[1]-nobody[2]"),
        (CLICK_B, {"click": click_on("not a link")}, "a link is named like"),
        (CLICK_A, {"click": {"points": [{"customdata": 17}]}}, "malformed click on a link"),
        (CLICK_DIFF, {"click": {"points": [{"customdata": "x" * 5000}]}}, "malformed click on a link"),
        (CLICK_A, {"click": {"points": "all"}}, "malformed click"),
        (CLICK_A, {"click": "h0"}, "malformed click"),
    ],
)
def test_a_forged_preset_or_click_gives_a_message_and_leaves_the_store(trigger, kw, words):
    answer = update(trigger, DEFAULT_SCENARIO, **kw)
    message = answer["message"]
    assert answer["scenario"] is no_update and message.startswith("⚠ ") and words in message, message


def test_a_broken_store_gives_a_message_everywhere():
    broken = {"schema": "nope"}
    answer = update(ALGO_A, broken)
    assert answer["scenario"] is no_update and answer["message"].startswith("⚠ The scenario could not be read")
    top = RENDER(scenario=broken)
    assert top["status"].startswith("⚠ The scenario could not be read")
    assert all(top[name] is no_update for name in page.TOP if name != "status")
    fabric = controls(broken)
    assert fabric["fabric"].startswith("⚠ The scenario could not be read")
    assert all(fabric[name] is no_update for name in page.CONTROLS if name != "fabric")
    assert all(value is no_update for value in RENDER_LOWER(scenario=broken, seen=True).values())
    assert page.group_protocol(broken) is None
    # the page appearing (every input at once) with a store that cannot be read: no message under the controls
    assert all(value is no_update for value in update([ALGO_A, ALGO_B], broken).values())


def test_forged_stored_params_give_a_message_not_an_exception():
    forged = DEFAULT_SCENARIO.with_params("multicast", {"a": "evil", "b": "sssp", "part": "group:42", "group": 1e9})
    v = view(forged)
    assert v["status"].startswith("⚠ The page's stored settings: unknown algorithm A 'evil'")
    assert "no group '42'" in v["status"] and "must be a group number" in v["status"]
    assert cells(v["summary"])["groups"] == ["8", "8"]  # the defaults stand in: A minhop-new, B sssp
    assert v["heatmap_a"].layout.title.text.startswith("A: minhop-new")
    assert v["heatmap_b"].layout.title.text.startswith("B: sssp")
    text = str(page.body(forged))
    assert "value='minhop-new'" in text and "value='sssp'" in text
    assert page.group_protocol(forged.to_dict()) is None


def test_the_lower_pair_is_drawn_once_on_the_screen_and_the_top_views_with_the_page():
    data = DEFAULT_SCENARIO.to_dict()
    every = page.views(DEFAULT_SCENARIO)
    assert all(value is no_update for value in RENDER_LOWER(scenario=data, seen=False).values())  # not yet
    lower = RENDER_LOWER(scenario=data, seen=True)
    assert set(lower) == {"difference", "histogram"}
    assert all(lower[name].to_json() == every[name].to_json() for name in lower)
    top = RENDER(scenario=data)
    assert set(top) == set(page.TOP) and top["heatmap_a"].to_json() == every["heatmap_a"].to_json()
    assert str(top["worst"]) == str(every["worst"]) and top["status"] == every["status"]


def test_a_stale_group_is_dropped_quietly_and_bad_communicators_still_let_the_controls_work():
    stale = DEFAULT_SCENARIO.with_params("multicast", {"a": "fulb", "group": 8})  # 8 communicators: 0-7
    v = view(stale)
    assert v["status"] == "" and v["group_info"].startswith("Groups — 0: h0, h1, h2, h3")
    assert controls(stale, "fulb", "fulb", "whole", 8)["group"] is None
    bad = uploaded(lists=[["alpha", "zeta"]])
    answer = update(ALGO_A, bad, a="sssp")
    assert answer["message"] == "" and stored(answer["scenario"]).params["multicast"]["a"] == "sssp"
    assert update(GROUP, bad, group=0)["message"].startswith("⚠ group 0 does not exist: the scenario has none")


def test_a_control_change_is_remembered_and_every_control_drives_the_view():
    answer = update(ALGO_B, DEFAULT_SCENARIO, b="sssp")
    s = stored(answer["scenario"])
    assert answer["message"] == ""
    assert s.params["multicast"] == {"a": "minhop-new", "b": "sssp", "part": None, "group": None, "compare": ""}
    assert s.params["topology"] == DEFAULT_SCENARIO.params["topology"] and s.broken == DEFAULT_SCENARIO.broken
    v = view(s)
    assert table_text.head(v["summary"])[2] == "B: sssp"
    assert v["heatmap_b"].layout.title.text.startswith("B: sssp")
    # the natural part (the whole of a small fabric) is stored as None; a group of switches is stored as such
    assert update(PART, s, b="sssp", part="whole") == {"scenario": no_update, "message": ""}
    s2 = stored(update(PART, s, b="sssp", part="group:1")["scenario"])
    assert s2.params["multicast"]["part"] == "group:1"
    topo, key = topology_of(s2), topology_of(s2).attr("group")
    rows = np.flatnonzero((key[topo.link_a] == 1) | (key[topo.link_b] == 1))  # links with an end in the group
    assert len(hover_trace(view(s2)["heatmap_a"]).customdata) == len(rows) < topology_of(s2).n_links
    # nothing changed, or no user action (the page appearing): the store stays
    assert update(ALGO_B, s, b="sssp")["scenario"] is no_update
    assert update(None, DEFAULT_SCENARIO, b="sssp") == {"scenario": no_update, "message": no_update}


def test_the_controls_follow_the_store_without_echoing():
    s = DEFAULT_SCENARIO.with_params("multicast", {"a": "sssp", "b": "fulb", "part": None, "group": 2})
    shown = controls(s, "sssp", "fulb", "whole", 2)
    assert all(shown[name] is no_update for name in ("a", "b", "part", "group"))
    # without tables: A offers the algorithms only, nothing to forget
    assert [o["value"] for o in shown["a_options"]] == list(ALGORITHMS) and shown["no_forget"] is True
    assert shown["tables"] == "No tables loaded: the groups are the scenario's communicators."
    assert shown["fabric"].startswith(
        "The scenario's fabric: fat-tree:radix=4,levels=3 (20 switches, 16 end nodes, 48 links, "
        "1 broken). 8 communicators"
    )
    parts = shown["part_options"]
    assert [o["value"] for o in parts] == ["whole", "overview", "group:0", "group:1", "group:2", "group:3"]
    assert shown["group_options"][2] == {"label": "group 2: 4 members (h8, h9, h10, …)", "value": 2}
    # after a preset replaced the scenario, the controls take its values
    shown = controls(teaching(), "sssp", "fulb", "group:3", 2)
    assert (shown["a"], shown["b"], shown["part"], shown["group"]) == ("minhop-new", no_update, "whole", None)
    assert len(shown["group_options"]) == 24


def test_the_fabric_line_counts_one_switch_in_the_singular():
    s = Scenario(spec="mesh:1x1")  # one switch, one end node, one link
    assert fabric_line(s, topology_of(s), [[1]]) == (
        "The scenario's fabric: mesh:1x1 (1 switch, 1 end node, 1 link, "
        "0 broken). 1 communicator → one multicast group each."
    )
    legend = [t.name for t in link_value_figure(topology_of(s), np.zeros(1), "one link").data if t.name]
    assert "EFI 0 (1 link)" in legend


# ------------------------------------------------------------------ the preset replaces the shared scenario
def test_the_teaching_preset_replaces_the_scenario_and_reproduces_8_vs_3():
    s = teaching()
    assert (s.spec, s.pattern, s.ppn, s.broken, s.uploaded, s.edits) == (TEACHING, "grid2d:16x8", 2, [], None, [])
    assert s.params["multicast"] == model.DEFAULTS | {"a": "minhop-new", "b": "fulb"}
    assert s.params["topology"] == DEFAULT_SCENARIO.params_for_new_fabric()["topology"]  # the others kept
    v = view(s)
    table = cells(v["summary"])
    assert table["max EFI"] == ["8", "3"] and table["groups"] == ["24", "24"]
    assert table["unroutable groups"] == ["0", "0"]
    assert v["heatmap_a"].layout.title.text.replace("<br>", "") == "A: minhop-new (max EFI 8; colours 0–8 in A and B)"
    assert v["heatmap_b"].layout.title.text.replace("<br>", "") == "B: fulb (max EFI 3; colours 0–8 in A and B)"
    # one colour scale for A and B: B's EFI 3 is as pale as A's EFI 3 (it used to be B's darkest red)
    scales = [
        [(t.marker.cmin, t.marker.cmax) for t in v[k].data if t.marker and t.marker.showscale]
        for k in ("heatmap_a", "heatmap_b")
    ]
    assert scales == [[(0, 8)], [(0, 8)]]
    diff = [t.marker for t in v["difference"].data if t.marker and t.marker.showscale][0]
    assert diff.cmin == -diff.cmax and diff.cmax < 8  # the difference keeps its own scale, centred on 0
    assert v["difference"].layout.title.text.replace("<br>", "") == "Difference B − A (fulb − minhop-new)"
    assert v["status"] == "" and "Worst links under A (minhop-new): " in v["worst"]
    dragonfly = stored(update(PRESET, s, preset="dragonfly")["scenario"])
    assert dragonfly.spec == "dragonfly:a=4,p=2,h=2" and dragonfly.params["multicast"]["b"] == "fulb+global"
    assert cells(view(dragonfly)["summary"])["groups"] == ["18", "18"]


# ------------------------------------------------------------------ breaking a link from the drawing
def test_a_click_on_a_heatmap_link_breaks_it_in_the_store_and_a_second_click_repairs_it():
    s = teaching()
    v = view(s)
    hover = hover_trace(v["heatmap_a"])
    label = topology_of(s).link_label(int(worst_rows(model.routed(s, "minhop-new"), 1)[0]))
    texts = dict(zip(hover.customdata, hover.text, strict=True))
    assert "EFI 8" in texts[label] and "click: break this link" in texts[label]
    answer = update(CLICK_A, s, click=click_on(label))
    broken = stored(answer["scenario"])
    assert answer["message"] == "" and broken.broken == [label] and broken.params == s.params
    assert topology_of(broken).broken.sum() == 1
    # the broken link is drawn red and dashed with a legend entry, and says so when hovered
    fig = view(broken)["heatmap_a"]
    trace = next(t for t in fig.data if (t.name or "").startswith("broken link"))
    assert trace.name == "broken link (1)" and trace.line.dash == "dash" and trace.line.color == BROKEN
    texts = dict(zip(hover_trace(fig).customdata, hover_trace(fig).text, strict=True))
    assert "<b>broken</b>" in texts[label] and "click: repair this link" in texts[label]
    # the same click on B's heatmap (or the difference) repairs it
    for trigger in (CLICK_B, CLICK_DIFF):
        answer = update(trigger, broken, click=click_on(label))
        assert stored(answer["scenario"]).broken == [] and answer["message"] == ""


def test_routes_avoid_a_broken_link():
    s = teaching()
    topo = topology_of(s)
    worst = int(worst_rows(model.routed(s, "minhop-new"), 1)[0])
    link = int(topo.link_id[worst])
    assert link in tree_link_ids(s, "minhop-new")
    broken = stored(update(CLICK_A, s, click=click_on(topo.link_label(worst)))["scenario"])
    for algo in ALGORITHMS:
        result = model.routed(broken, algo)
        assert link not in tree_link_ids(broken, algo) and result.efi[worst] == 0 and not result.unroutable, algo
    assert cells(view(broken)["summary"])["unroutable groups"] == ["0", "0"]


def test_a_click_on_no_link_says_what_to_click():
    for click in ({"points": [{"x": 1, "y": 2, "text": "spine"}]}, {"points": [{"x": 0, "y": 1, "z": 3}]}):
        answer = update(CLICK_A, DEFAULT_SCENARIO, click=click)
        assert answer["scenario"] is no_update and answer["message"] == page.CLICK_A_LINK
        assert answer["message"].startswith("Click the middle of a link")


# ------------------------------------------------------------------ a fabric nobody here generated
def test_an_uploaded_fabric_shows_its_host_names_and_its_communicators():
    s = uploaded()
    line = controls(s)["fabric"]
    assert line.startswith(
        "The scenario's fabric: handmade.net (3 switches, 4 end nodes, 6 links, 0 broken). 3 communicators"
    )
    v = view(s)
    assert v["status"] == "" and cells(v["summary"])["groups"] == ["3", "3"]
    assert v["group_info"].startswith("Groups — 0: alpha, beta; 1: gamma, delta; 2: alpha, gamma, delta.")
    assert "spine[1]-leafA[3]" in v["worst"] or "spine[2]-leafB[3]" in v["worst"]
    # the names are written on the small fabric's drawing and in every hover text
    names = [n for t in v["heatmap_a"].data if t.name in ("switches", "end nodes") for n in t.text]
    written = [
        text for t in v["heatmap_a"].data if t.name == "names" for text in t.text
    ]  # each on a side free of links
    assert set(HOSTS) | {"spine", "leafA", "leafB"} == set(names) == set(written)
    assert any("alpha[1]" in text for text in hover_trace(v["heatmap_a"]).text)
    options = controls(s)["group_options"]
    assert options[2]["label"] == "group 2: 3 members (alpha, gamma, delta)"
    text = str(page.body(s))
    assert "handmade.net" in text and "alpha" in text
    # highlighting group 2: its tree on both heatmaps, its members and roots by name, its join/leave replay
    chosen = stored(update(GROUP, s, group=2)["scenario"])
    v = view(chosen)
    assert v["group_info"].startswith(
        "Group 2 (3 members: alpha, gamma, delta) — A minhop-new: root spine, height 2, 5 links"
    )
    assert any(t.name == "selected tree" for t in v["heatmap_a"].data) and any(
        t.name == "selected tree" for t in v["heatmap_b"].data
    )
    timeline = page.group_protocol(chosen.to_dict())
    assert timeline and page.render_protocol(0, timeline).data
    assert page.render_protocol(0, None).layout.annotations[0].text.startswith("Choose a group")


def test_groups_cut_off_by_a_break_are_reported_by_name():
    s = stored(update(CLICK_A, uploaded(), click=click_on(UPLINK_A))["scenario"])
    assert s.broken == [UPLINK_A]
    v = view(s)
    assert cells(v["summary"])["unroutable groups"] == ["1", "1"]
    assert v["status"] == (
        "⚠ 1 group cannot be routed: its members cannot all reach one switch over the live links "
        "— group 2 (alpha, gamma, delta). Why: the broken links cut its members apart: repair a link (badge above)."
    )
    assert view(stored(update(CLICK_B, s, click=click_on(UPLINK_A))["scenario"]))["status"] == ""


def test_a_scenario_without_communicators_routes_the_ipoib_broadcast_group_and_says_so():
    s = uploaded(lists=None)
    v = view(s)
    assert v["status"] == model.NO_COMMUNICATORS and "Topology page" in v["status"] and "IPoIB" in v["status"]
    # the fabric is drawn and one group of every end node routed (it drew nothing at all)
    assert cells(v["summary"])["groups"] == ["1", "1"]
    ends = topology_of(s).endpoints.tolist()
    assert model.groups_of(s) == [ends] and len(controls(s)["group_options"]) == 1
    assert v["heatmap_a"].data and not v["heatmap_a"].layout.annotations
    # communicators naming end nodes the fabric does not have: a message, not an exception
    bad = uploaded(lists=[["alpha", "zeta"]])
    assert view(bad)["status"].startswith("⚠ The scenario's communicators do not fit its fabric")
    assert "handmade.net" in str(page.body(bad))


def test_the_shell_draws_the_page_from_the_scenario():
    s = teaching().with_params("multicast", {"a": "sssp", "b": "fulb+global", "part": None, "group": 3})
    text = str(page.layout(shell_scenario=s.to_dict(), shell_hash=""))
    assert "value='sssp'" in text and "value='fulb+global'" in text and "value=3" in text
    assert TEACHING in text and "mc-use-preset" in text


# ------------------------------------------------------------------ the fabric's multicast tables (opensm.mcfdbs)
UPLOAD, FORGET = f"{page.MC_TABLES_UPLOAD}.contents", f"{page.MC_TABLES_FORGET}.n_clicks"
SMALL = "fat-tree:radix=4,levels=2"
# OpenSM's layout written by hand (as tests/engine/multicast/test_multicast_tables.py's HAND): h0 and h4 joined over
# spine1, h1 alone, spine0 itself a member of a third group
HAND = """
Switch 0x0002c90000000100
LID    : Out Port(s)
0xC001 : 0x001  0x004
0xC002 : 0x002

Switch 0x0002c90000000300
LID    : Out Port(s)
0xC001 : 0x001  0x004

Switch 0x0002c90000000500
LID    : Out Port(s)
0xC003 : 0x000

Switch 0x0002c90000000600
LID    : Out Port(s)
0xC001 : 0x001  0x003
"""


def data_url(content: str | bytes) -> str:
    """What dcc.Upload puts in ``contents``."""
    raw = content.encode() if isinstance(content, str) else content
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


def load(current, content, name="opensm.mcfdbs", trigger=UPLOAD):
    """The tables callback as Dash calls it: its store, message and the upload box's contents, by name."""
    data = current.to_dict() if isinstance(current, Scenario) else current
    contents = (
        data_url(content) if isinstance(content, str | bytes) and not str(content).startswith("data:") else content
    )
    return in_callback(LOAD, trigger, contents=contents, forget=1, filename=name, scenario=data)


def with_tables(s: Scenario, text: str) -> Scenario:
    answer = load(s, text)
    assert answer["message"] == "" and answer["contents"] is None, answer["message"]
    return stored(answer["scenario"])


def fulb_dump(s: Scenario) -> str:
    return dump_mcfdbs(topology_of(s), model.routed(s, "fulb"))


def test_tables_of_a_fulb_routing_give_the_same_efi_as_fulb_and_the_summary_says_so():
    s = DEFAULT_SCENARIO.with_params("multicast", {"a": "sssp", "b": "fulb", "group": 3})
    text = fulb_dump(s)
    loaded = with_tables(s, text)
    assert loaded.mcast_tables == text and loaded.pattern == s.pattern and loaded.broken == s.broken
    assert loaded.params["multicast"] == {"a": "tables", "b": "fulb", "group": None}  # A: the tables, at once
    v = view(loaded)
    table = cells(v["summary"])
    assert table_text.head(v["summary"][0]) == [
        "",
        "A: the fabric's tables",
        "B: fulb",
    ]
    assert table["max EFI"] == ["3", "3"] and table["groups"] == ["8", "8"] and table["routing time (s)"][0] == "—"
    assert table["mean EFI (used links)"][0] == table["mean EFI (used links)"][1]
    assert v["summary"][1].children == (
        "Same EFI on every link: B (fulb) puts exactly as many groups on each link as "
        "A (the fabric's tables), max EFI 3."
    )
    title = v["heatmap_a"].layout.title.text.replace("<br>", "")
    assert title == "A: the fabric's tables (max EFI 3; colours 0–3 in A and B)"
    assert v["difference"].layout.title.text.replace("<br>", "") == "Difference B − A (fulb − the fabric's tables)"
    assert np.array_equal(model.routed(loaded, "tables").efi, model.routed(loaded, "fulb").efi)
    assert v["status"] == "" and "Worst links under A (the fabric's tables): " in v["worst"]
    # the controls: A offers the tables first, the groups carry their MLIDs, the tables can be forgotten
    shown = controls(loaded, "sssp", "fulb")
    assert shown["a"] == "tables" and shown["group"] is no_update and shown["no_forget"] is False
    assert shown["a_options"][0] == {"label": "the fabric's tables (OpenSM)", "value": "tables"}
    group_2 = shown["group_options"][2]["label"]
    assert group_2 == "group 2 (MLID 0xC003): 4 members (h8, h9, h10, …)"  # in the fabric's order
    assert shown["tables"] == "Loaded: 8 groups (MLID 0xC001–0xC008), max EFI 3 on the fabric's tables."
    assert shown["fabric"].endswith(
        "8 multicast groups from the fabric's tables (the communicators are not used until the tables are forgotten)."
    )
    # a group highlighted: its tree on the tables' heatmap too, its replay under B
    chosen = stored(update(GROUP, loaded, a="tables", group=2)["scenario"])
    v = view(chosen)
    assert v["group_info"].startswith("Group 2 (4 members: h8, h9, h10, h11) — A the fabric's tables: centre ")
    assert any(t.name == "selected tree" for t in v["heatmap_a"].data) and page.group_protocol(chosen.to_dict())
    # the tables travel in the share link and in the scenario file
    assert Scenario.from_fragment(loaded.to_fragment()) == loaded and "mc-tables-upload" in str(page.body(loaded))
    assert "value='tables'" in str(page.layout(shell_scenario=loaded.to_dict(), shell_hash=""))


def test_loading_the_same_file_again_works_and_the_emptied_box_changes_nothing():
    text = fulb_dump(DEFAULT_SCENARIO)
    loaded = with_tables(DEFAULT_SCENARIO, text)
    again = load(loaded, text)
    assert stored(again["scenario"]) == loaded and again["message"] == "" and again["contents"] is None
    nothing = dict.fromkeys(page.LOADED, no_update)
    assert load(loaded, None) == nothing  # the box emptied by the callback itself
    assert load(loaded, text, name="x", trigger=None) == nothing  # the page appearing


def test_hand_written_tables_over_another_spine_use_other_links_than_fulb():
    s = with_tables(Scenario(spec=SMALL), HAND)
    topo = topology_of(s)
    tables, fulb = model.routed(s, "tables"), model.routed(s, "fulb")
    used = {topo.link_label(r) for r in np.flatnonzero(tables.efi).tolist()}
    assert used == {"h0[1]-leaf0[1]", "h1[1]-leaf0[2]", "h4[1]-leaf2[1]", "leaf0[4]-spine1[1]", "leaf2[4]-spine1[3]"}
    assert not np.array_equal(tables.efi, fulb.efi) and tables.efi.max() == fulb.efi.max() == 1
    v = view(s)
    assert cells(v["summary"])["groups"] == ["3", "3"] and v["status"] == ""
    assert v["summary"][1].children == (
        "B (fulb) loads 4 of the 7 links in use differently from A (the fabric's tables): max EFI 1 → 1 (the same), "
        "mean EFI 1 → 1. The difference B − A below shows where."
    )
    diff = {text.split("<br>")[0]: text for text in hover_trace(v["difference"]).text}
    assert any("EFI B − A -1" in t for t in diff.values()) and any("EFI B − A 1" in t for t in diff.values())
    assert controls(s)["group_options"][0]["label"] == "group 0 (MLID 0xC001): 2 members (h0, h4)"
    v = view(stored(update(GROUP, s, a="tables", group=0)["scenario"]))
    assert "A the fabric's tables: centre spine1, height 2, 4 links" in v["group_info"]
    # no communicators needed: the groups are the tables'; spine0 alone is a group of one switch
    assert model.groups_of(s)[2] == [topo.index("spine0")]


def test_the_tables_warnings_are_listed():
    one_sided = HAND.replace("0xC001 : 0x001  0x003", "0xC001 : 0x003")  # spine1 forgets leaf0
    v = view(with_tables(Scenario(spec=SMALL), one_sided))
    assert v["status"] == "⚠ The fabric's tables: MLID 0xC001: only one end of leaf0[4]-spine1[1] lists it"
    assert controls(with_tables(Scenario(spec=SMALL), one_sided))["tables"].endswith(
        "max EFI 1 on the fabric's tables; 1 warning under the summary."
    )
    # a link the scenario breaks: listed, and B routes around it
    broken = with_tables(Scenario(spec=SMALL, broken=["leaf0[4]-spine1[1]"]), HAND)
    status = view(broken)["status"]
    assert "the tables use 1 link the scenario breaks (leaf0[4]-spine1[1])" in status
    assert model.routed(broken, "fulb").efi[topology_of(broken).find_link("leaf0[4]-spine1[1]")] == 0


@pytest.mark.parametrize(
    "content, words",
    [
        (
            HAND.replace("0x0002c90000000600", "0x0002c90000000f00"),
            "⚠ opensm.mcfdbs was not loaded: mcfdbs: switch GUID 0x0002c90000000f00 of the dump is not in the fabric",
        ),
        (HAND.replace("0xC002 : 0x002", "0xC002 : 0x009"), "has no cable on port 9, which MLID 0xC002 lists"),
        (HAND.replace("0xC003 : 0x000", "rubbish"), "cannot read 'rubbish'"),
        ("# nothing but a comment\n", "the file lists no multicast group"),
        ("   \n", "the file is empty"),
        (b"\xff\xfe\x00binary", "the file is not text"),
        ("x" * (MAX_TABLES_CHARS + 1), f"the limit is {MAX_TABLES_CHARS:,} bytes (4 MB)"),
        ("data:,no base64 here", "not valid base64"),
        (17, "the upload is not a file"),
        (["a", "b"], "the upload is not a file"),
        ({"contents": 1}, "the upload is not a file"),
        ("data:text/plain;base64," + "x" * (12 << 20), "the file is larger than 8 MB"),  # past the box's own limit
    ],
)
def test_a_file_that_cannot_be_used_gives_a_message_and_leaves_the_store(content, words):
    answer = load(Scenario(spec=SMALL), content)
    message = answer["message"]
    assert answer["scenario"] is no_update and answer["contents"] is None, answer
    assert message.startswith("⚠ ") and words in message, message


def test_forget_goes_back_to_the_communicators():
    loaded = with_tables(DEFAULT_SCENARIO, minhop_dump())
    answer = load(loaded, None, trigger=FORGET)
    back = stored(answer["scenario"])
    assert answer["message"] == "" and answer["contents"] is no_update and back.mcast_tables is None
    assert back.params["multicast"]["a"] == "minhop-new" and back.params["multicast"]["group"] is None
    v = view(back)
    assert cells(v["summary"])["groups"] == ["8", "8"] and table_text.is_table(v["summary"])  # no verdict
    assert controls(back)["fabric"].endswith("8 communicators → one multicast group each.")
    assert controls(back)["a_options"][0]["value"] == ALGORITHMS[0]
    # nothing to forget, or a broken store: a message
    nothing = load(back, None, trigger=FORGET)
    assert nothing["scenario"] is no_update and nothing["message"] == "⚠ The tables: no multicast tables are loaded"
    assert load({"schema": "nope"}, None, trigger=FORGET)["message"].startswith("⚠ The scenario could not be read")


def minhop_dump() -> str:
    """Tables of MINIHOP-MC on the default scenario: other links than its A (minhop-new)."""
    return dump_mcfdbs(topology_of(DEFAULT_SCENARIO), model.routed(DEFAULT_SCENARIO, "minhop"))


def test_a_new_fabric_drops_the_tables_and_a_stale_tables_choice_is_quiet():
    from vizcoll.ui.pages.topology import page as topology_page

    loaded = with_tables(DEFAULT_SCENARIO, minhop_dump())
    for trigger, values in (
        (topology_page.TOPO_GENERATE, {"params": "fat-tree:radix=4,levels=2"}),
        (topology_page.TOPO_GENERATOR, {"generator": "torus"}),
        (topology_page.TOPO_UPLOAD, {"upload": data_url(ONE_SPINE), "upload_name": "x.net"}),
    ):
        new = topology_page.scenario_after(trigger, loaded, values)
        assert new.mcast_tables is None and new.params.get("multicast", {"a": "tables"})["a"] == "tables", trigger
        v = view(replace(new, pattern="grid2d:2x2") if new.uploaded is None else replace(new, lists=LISTS))
        assert not v["status"] and "A: minhop-new" in table_text.shown(v["summary"])  # the default, without a message
    # communicators and breaks changed on the fabric keep the tables
    assert loaded.toggled("h0[1]-edge0.0[1]").mcast_tables == loaded.mcast_tables


def test_tables_that_no_longer_fit_the_fabric_give_a_message_everywhere():
    loaded = with_tables(DEFAULT_SCENARIO, minhop_dump())
    gone = loaded.with_edit({"op": "remove_node", "name": "h0"})  # the tables list h0's port
    v = view(gone)
    assert v["status"].startswith("⚠ The fabric's multicast tables do not fit the scenario's fabric: mcfdbs: switch ")
    assert v["summary"] == "" and page.group_protocol(gone.to_dict()) is None
    assert controls(gone)["tables"].startswith("The loaded tables do not fit this fabric")
    assert update(ALGO_B, gone, a="tables", b="sssp")["message"] == ""  # the algorithms can still be chosen
    assert "mc-tables-upload" in str(page.body(gone))


@pytest.mark.parametrize("value", ["tables", "tables ", None, 5])
def test_a_forged_tables_choice_without_tables_is_refused(value):
    answer = update(ALGO_A, DEFAULT_SCENARIO, a=value)
    message = answer["message"]
    assert answer["scenario"] is no_update and message.startswith("⚠ unknown algorithm A")
    assert "tables" not in message.split("choose one of")[1]


@pytest.mark.parametrize("trigger", [UPLOAD, FORGET])
def test_a_hostile_value_in_any_input_of_the_tables_box_is_refused(trigger):
    """A forged upload, file name, click count or store, loading or forgetting: a ⚠ message or no change."""
    loaded = with_tables(DEFAULT_SCENARIO, fulb_dump(DEFAULT_SCENARIO))
    valid = {
        "contents": data_url(minhop_dump()),
        "forget": 1,
        "filename": "opensm.mcfdbs",
        "scenario": loaded.to_dict(),
    }
    probe(LOAD, trigger, valid)


# ---------------------------------------------------------------- large fabrics: a background job
@pytest.fixture
def large(monkeypatch):
    """Every fabric counts as large (the job's threshold at 10 nodes), inside an app whose cache starts empty."""
    monkeypatch.setattr(model, "JOB_NODES", 10)
    server = Flask(__name__)
    cache_module.cache.init_app(server, config={"CACHE_TYPE": "SimpleCache"})
    with server.app_context():
        yield


def test_a_large_fabric_waits_for_the_job_then_draws_in_the_request(large):
    data = DEFAULT_SCENARIO.to_dict()
    order = page.dispatch(data)
    assert order == {"run": 1} and page.dispatch(data, order) == {"run": 2}  # each order runs the job again
    waiting = RENDER(scenario=data)
    assert "in the background" in waiting["status"] and waiting["summary"] == "" and page.group_protocol(data) is None
    seen = []
    first = COMPUTE_VIEWS(seen.append, order=order, scenario=data)  # A routed, A's views, then B's job ordered
    assert seen[0] == (0, 200, "routing 8 groups by minhop-new (1 of 2)")  # with its progress
    assert seen[-1] == (100, 200, "drawing A's figure (2 of 2)") and first["order_b"] == {"run": 2}
    summary = summary_text(first["summary"])
    assert "A&#58; minhop&#45;new |\\n" in summary and "B&#58;" not in summary
    assert "by B (fulb) in the background" in first["status"] and first["timeline"] is None  # B's protocol follows
    top = model.routed(Scenario.from_dict(data), "minhop-new").summary()["max_efi"]
    assert first["heatmap_a"].layout.title.text.startswith(f"A: minhop-new (max EFI {top}; colours 0–{top})")
    assert all("follows" in first[name].layout.annotations[0].text for name in ("heatmap_b", "difference", "histogram"))
    assert page.dispatch(data, order) == {"run": 2}  # B still to route: a new scenario would run both again
    assert page.stop_second(order, first["order_b"]) is None and page.stop_second(order) is no_update
    seen = []
    views = COMPUTE_SECOND(seen.append, order=first["order_b"], scenario=data)
    assert seen[0] == (0, 200, "routing 8 groups by fulb (1 of 2)")
    assert seen[-1] == (100, 200, "drawing the figures (2 of 2)")
    assert all(views[name] is not no_update for name in page.VIEWS)  # every view, the protocol included
    # the routes are cached now: the views are drawn in the request, equal to the job's, and no job is ordered
    assert page.dispatch(data, order) is None and page.dispatch(data) is no_update
    drawn = RENDER(scenario=data)
    assert summary_text(drawn["summary"]) == summary_text(views["summary"]) and drawn["status"] == views["status"]
    assert page.group_protocol(data) == views["timeline"]


def test_a_job_for_a_changed_a_draws_every_view_when_b_is_routed_already(large):
    """Only A changed: its job routes A and draws every view at once (B's routes are cached), ordering no job."""
    data = DEFAULT_SCENARIO.to_dict()
    order = page.dispatch(data)
    COMPUTE_SECOND(no_progress, order=COMPUTE_VIEWS(no_progress, order=order, scenario=data)["order_b"], scenario=data)
    changed = DEFAULT_SCENARIO.with_params(model.PAGE, {**model.DEFAULTS, "a": "sssp"}).to_dict()
    order = page.dispatch(changed)
    views = COMPUTE_VIEWS(no_progress, order=order, scenario=changed)
    assert views["order_b"] is no_update and "A&#58; sssp | B&#58; fulb" in summary_text(views["summary"])
    assert page.dispatch(changed, order) is None and views["timeline"] == page.group_protocol(changed)


def test_a_forged_job_order_changes_nothing_and_a_forged_store_says_why(large):
    for job in (COMPUTE_VIEWS, COMPUTE_SECOND):
        for order in ("x", None, [1], 5):
            answer = job(no_progress, order=order, scenario=DEFAULT_SCENARIO.to_dict())
            assert all(value is no_update for value in answer.values()), (job.__name__, order)
        answer = job(no_progress, order={"run": 1}, scenario={"schema": "nope"})
        assert answer["status"].startswith("⚠ The scenario could not be read")
        assert all(answer[name] is no_update for name in answer if name != "status")


def test_cancel_says_the_groups_were_not_routed():
    answer = page.cancelled(clicks=1)
    assert set(answer) == set(page.CANCELLED) == {"status", *page.DRAWINGS}
    assert answer["status"].startswith("⚠ Cancelled")
    assert all(answer[name].layout.annotations[0].text == "Cancelled: not routed." for name in page.DRAWINGS)
    answer = page.cancelled_second(clicks=1)  # under B's job: A's views stay
    assert set(answer) == set(page.CANCELLED_B) == {"status", "heatmap_b", "difference", "histogram"}
    assert answer["status"].startswith("⚠ Cancelled: the groups were not routed by B")
    assert all(
        answer[name].layout.annotations[0].text == "Cancelled: not routed by B." for name in answer if name != "status"
    )


def summary_text(node) -> str:
    return str(node.to_plotly_json() if hasattr(node, "to_plotly_json") else node)


# ---------------------------------------------------------------- a fabric too large to draw node by node
def test_the_protocol_plays_on_a_cluster_file_above_the_drawing_limit_in_the_request_and_from_the_job(large):
    """A cluster's own file of 1,570 nodes (more than the 1,500 drawn node by node) with communicators of 16: the
    highlighted group's join/leave protocol plays (a handle with steps, each drawn as the process diagram), from
    the background job (every fabric counts as large here) and then in the request."""
    s = replace(Scenario.from_upload(topo_io.parse(campus_cluster(), "campus.txt"), "campus.txt"), pattern="hier:16")
    s = s.with_params(model.PAGE, {**model.DEFAULTS, "group": 3})
    topo, groups, p, _ = model.page_state(s)
    assert topo.n_nodes == 1570 > 1500 and p["group"] == 3 and len(groups[3]) == 16
    data = s.to_dict(thin=True)
    order = page.dispatch(data)
    assert order == {"run": 1} and page.group_protocol(data) is None  # routing first
    assert COMPUTE_VIEWS(no_progress, order=order, scenario=data)["timeline"] is None  # B's protocol follows
    handle = COMPUTE_SECOND(no_progress, order={"run": 2}, scenario=data)["timeline"]
    assert handle["steps"] > 2 * 16 and handle["moments"]  # a join and a leave per member, at least
    assert page.group_protocol(data) == handle  # the routes cached: the request gives the same handle
    tl = player_timeline(handle)
    root = model.routed(s, "fulb").trees[3].root
    assert f"→ SM ({topo.names[root]}): SubnAdmSet" in tl.caption(0)
    diagrams = [page.render_protocol(position, handle) for position in (0, handle["steps"] // 2, handle["steps"])]
    states = [{hover for trace in fig.data for hover in (trace.hovertext or ())} for fig in diagrams]
    assert {"group: Absent", "p0: idle"} <= states[0] and "p0: joined" in states[1]
    assert {"group: Deleted", "p15: left"} <= states[-1]
    names = {text for trace in diagrams[0].data for text in trace.text}  # named by their names; the legend: states
    assert {"group", "p0", "p15"} <= names and not any("idle" in name for name in names)
