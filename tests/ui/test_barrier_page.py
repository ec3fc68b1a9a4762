"""The barrier page's callbacks, views and figure builders, called directly (no browser, no server)."""

from __future__ import annotations

import pytest
from dash import html, no_update

from tests.callback_context import in_callback
from vizcoll.barrier.algorithms import ALGOS, run_barriers
from vizcoll.barrier.network import break_links
from vizcoll.barrier.structures import numbering
from vizcoll.barrier.uq import uq_round
from vizcoll.errors import VizcollError
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.generators import mesh
from vizcoll.ui import ids
from vizcoll.ui.figures.barrier import MESSAGE_COLOURS, grid_elements, message_kind, sweep_figure, uq_text
from vizcoll.ui.pages import barrier as page
from vizcoll.ui.shell import render_page

RUN, RANDOM, REPAIR = (f"{i}.n_clicks" for i in (ids.BAR_RUN, ids.BAR_RANDOM, ids.BAR_REPAIR))
CANVAS = f"{ids.BAR_CANVAS}.tapEdge"
CONTROLS = ("size", "neighbors", "broken", "rate", "seed", "algo", "judge", "barriers", "compute")


def controls(**changes) -> list:
    """The control values the build callback reads, defaults unless changed."""
    return [changes.get(key, page.DEFAULTS[key]) for key in CONTROLS]


def params(**changes) -> dict:
    return page.read_params(*controls(**changes))




def build(prop_id: str, tap_edge=None, **changes):
    return in_callback(page.build, prop_id, 1, tap_edge, 0, 0, *controls(**changes))


def tap(link: int) -> dict:
    return {"data": {"id": f"l{link}", "link": link}}


def grid(broken=(), size=4, neighbors=8):
    topo = mesh((size, size), neighbors=neighbors, hosts=0)
    for lid in broken:
        topo.set_broken(lid)
    return topo


# ------------------------------------------------------------------ parameters and the build callback
def test_defaults_are_the_papers_4x4_grid_with_8_neighbours():
    p = params()
    assert p == {"rows": 4, "cols": 4, "neighbors": 8, "broken": [], "rate": 0.1, "seed": 0, "algo": "dlct",
                 "judge": "model", "barriers": 3, "compute": 0.5}
    assert page.parse_size("3x5") == (3, 5) and page.parse_size("6") == (6, 6) and page.parse_size("4×4") == (4, 4)


@pytest.mark.parametrize("changes, words", [
    ({"size": "17x4"}, "up to 16x16"), ({"size": "1x1"}, "at least 2 processors"), ({"size": "big"}, "ROWSxCOLS"),
    ({"neighbors": 6}, "4 or 8"), ({"broken": "3, x"}, "link ids"), ({"broken": "42"}, "link 42 is not in the 4x4"),
    ({"rate": 1.5}, "at most 1"), ({"algo": "nope"}, "unknown barrier algorithm"), ({"barriers": 0}, "at least 1"),
    ({"compute": None}, "compute time must be a number"), ({"judge": "oracle"}, "unknown judge")])
def test_bad_input_gives_a_message_and_keeps_the_last_result(changes, words):
    with pytest.raises(VizcollError, match=words):
        params(**changes)
    stored, message, broken = build(RUN, **changes)
    assert stored is no_update and broken is no_update
    assert message.startswith("⚠ ") and words in message


def test_a_clicked_link_is_toggled_and_reaches_the_engine():
    stored, message, broken = build(CANVAS, tap(0))
    assert message == "" and stored["broken"] == [0] and broken == "0"
    run = page.run_of(stored)
    _, figures = run_barriers(grid([0]), "dlct")
    assert run["figures"] == figures
    assert figures["broken_links"] == 1 and figures["k"] == [[6], [0], [0]] and figures["adjustments"] == 1
    # a second link joins the list, clicking a broken link again repairs it
    stored, _, broken = build(CANVAS, tap(17), broken="0")
    assert stored["broken"] == [0, 17] and broken == "0, 17"
    stored, _, broken = build(CANVAS, tap(0), broken="0, 17")
    assert stored["broken"] == [17] and broken == "17"
    assert page.run_of(stored)["figures"]["broken_links"] == 1


def test_break_at_random_and_repair_all():
    stored, message, broken = build(RANDOM, broken="5", rate=0.2, seed=3)
    expected = sorted(break_links(grid(), 0.2, 3))
    assert message == "" and stored["broken"] == expected and broken == ", ".join(map(str, expected))
    assert len(expected) == round(0.2 * 42)
    stored, _, broken = build(REPAIR, broken="1, 2")
    assert stored["broken"] == [] and broken == ""


def test_the_run_summary_shows_run_barriers_figures():
    p = params(broken="0", algo="dlct")
    _, figures = run_barriers(grid([0]), "dlct", barriers=3, compute=0.5, seed=0, judge="model")
    rows = dict(page.summary_rows(page.run_of(p)["figures"]))
    assert rows["run time"] == f"{figures['time']:.4f} s" == "1.0760 s"
    assert rows["run time − work (synchronisation)"] == f"{figures['sync_time'] * 1000:.1f} ms"
    for label, key in (("messages", "messages"), ("hops", "hops"), ("detours", "detours"),
                       ("dead ends", "dead_ends"), ("most messages on one link", "max_link_load"),
                       ("adjustments (round(K), K ≠ 0)", "adjustments")):
        assert rows[label] == str(figures[key]), label
    assert rows["K per barrier"] == "6, 0, 0"
    timeline, elements, table, flag, flag_class = page.animate(p)
    assert isinstance(table, html.Table) and flag_class == "flag"
    assert flag.startswith("Barrier 1: root sw0-0 gathered a total path length of 27 (ideal 24) → round(6)")
    assert Timeline.from_dict(timeline).summary["k"] == [[6], [0], [0]]
    assert {e["data"]["id"] for e in elements if "source" in e["data"]} == {f"l{i}" for i in range(42)}
    assert [e["classes"] for e in elements if e["data"]["id"] == "l0"] == ["broken"]
    # another algorithm: no K, no judgement
    tree = page.run_of(params(algo="tree"))["figures"]
    assert "K per barrier" not in dict(page.summary_rows(tree)) and page.judgement_text(tree) == ""


def test_a_cut_off_processor_is_reported():
    p = params(size="2x2", neighbors=4, broken="0, 2")  # sw0-0 loses both its links
    flag, flag_class = page.animate(p)[3:]
    assert flag.startswith("⚠ The program cannot finish") and flag_class == "flag warn"
    assert dict(page.summary_rows(page.run_of(p)["figures"]))["run time"] == "did not finish"


# ------------------------------------------------------------------ the animation
def test_each_step_shows_ids_hops_and_the_adjustment():
    p = params(broken="0")
    tl_dict = page.run_of(p)["timeline"]
    tl = Timeline.from_dict(tl_dict)
    sheet = page.render_step(0, tl_dict, p)  # position 0: the initial state, S-curve IDs
    labels = {r["selector"]: r["style"]["label"] for r in sheet if "label" in r["style"] and r["selector"][1] == "n"}
    assert labels["#n0"] == "0" and labels["#n4"] == "7" and labels["#n15"] == "12"
    # the step where the root judges and applies round(6) first: its ID 0 becomes 6, drawn as adjusted
    judged = next(s for s in range(tl.n_steps) if "round(6)" in tl.caption(s))
    assert "Root sw0-0 gathered a total path length of 27 (ideal 24)" in tl.caption(judged)
    sheet = page.render_step(judged + 1, tl_dict, p)
    assert {"selector": "#n0", "style": {"label": "6"}} in sheet
    assert any(r["selector"] == "#n0" and r["style"].get("width") == 46 for r in sheet)
    # the next hop is a Release, drawn in the Release colour with an arrow
    release = next(s for s in range(judged, tl.n_steps) if any(e.path_links for e in tl.active_at(s)))
    sheet = page.render_step(release + 1, tl_dict, p)
    lines = [r for r in sheet if r["style"].get("line-color") == MESSAGE_COLOURS["release"]]
    assert lines and any("arrow-shape" in key for key in lines[0]["style"])
    # a Gather hop of the first step with messages
    gather = next(s for s in range(tl.n_steps) if any(e.path_links for e in tl.active_at(s)))
    assert any(r["style"].get("line-color") == MESSAGE_COLOURS["gather"]
               for r in page.render_step(gather + 1, tl_dict, p))
    assert message_kind("Release K=6 sw0-0 → sw2-0: …") == "release" and message_kind("Dissemination round 1") \
        == "other"


def test_grid_elements_place_processors_on_the_grid():
    elements = grid_elements(grid([5], size=3, neighbors=4))
    nodes = {e["data"]["id"]: e["position"] for e in elements if e.get("classes") == "proc"}
    assert len(nodes) == 9 and nodes["n5"] == {"x": 200.0, "y": 100.0}  # sw1-2: row 1, col 2
    assert [e["classes"] for e in elements if e["data"]["id"] == "l5"] == ["broken"]


# ------------------------------------------------------------------ LCT vs BST, the sweep, the histogram
def test_uq_view_shows_the_papers_fig_3_numbers():
    lct_fig, bst_fig, info = page.render_uq(params(), 1, "s-curve")
    ids_ = numbering("s-curve", 4)
    assert uq_round("lct", ids_, 1) == {"intersection": 7, "union": 26, "uq": 1 - 7 / 26}
    assert lct_fig.layout.title.text == "LCT: UQ = 1 − 7/26 = 73.1%"
    assert bst_fig.layout.title.text == "BST: UQ = 1 − 18/22 = 2/11 = 18.2%"
    assert "The paper (Fig. 3): UQ(LCT) = 73.1%, UQ(BST) = 18.2%" in info
    names = [t.name for t in lct_fig.data]
    assert names[:3] == ["only before round(1) (9)", "new after round(1) (10)", "kept: A ∩ B (7)"]
    assert lct_fig.data[3].text[:4] == ("0→1", "1→2", "2→3", "3→4")
    assert uq_text(0, 0) == "0 (no links)"
    # a larger grid than the view draws: the paper's 4x4; a bad K: a message
    assert "the paper's 4×4 here" in page.render_uq(params(size="12x12"), 1, "s-curve")[2]
    assert page.render_uq(params(), "x", "s-curve")[2].startswith("⚠ K must be an integer")


def test_sweep_charts_have_one_line_per_algorithm():
    result, sizes, size, rates, rate, info = page.compute_sweep(params(), page.QUICK_MODE, None, None)
    assert [o["value"] for o in sizes] == [4, 8, 12] and size == 12
    assert [o["value"] for o in rates] == [0.0, 0.2, 0.4] and rate == 0.4
    assert "tree@intact" in info and result["mode"] == page.QUICK_MODE
    assert page.compute_sweep(params(broken="3"), page.QUICK_MODE, 8, 0.4, result) == (no_update,) * 6
    by_rate, by_size, ranges = page.render_sweep(result, 8, 0.4)
    assert [t.name for t in by_rate.data] == result["columns"] == [*ALGOS[:2], "tree@intact", *ALGOS[2:]]
    assert list(by_rate.data[0].x) == [0, 20, 40] and list(by_size.data[0].x) == [4, 8, 12]
    row = next(r for r in result["rows"] if r["size"] == 8 and r["rate"] == 0.4)
    assert by_size.data[-1].y[1] == row["sync_ms"]["dlct+tree"]
    assert "No sweep row" in sweep_figure(result, "rate", 16).layout.annotations[0].text
    # Fig. 7: per size, a line from the fastest to the slowest rate and a dot per rate, for Tree, ID1, ID2
    assert [t.name for t in ranges.data[::2]] == ["tree@intact", "tree", "dlct+ms", "dlct+tree"]
    id2_line, id2_dots = ranges.data[-2:]
    times = [r["sync_ms"]["dlct+tree"] for r in result["rows"] if r["size"] == 8]
    assert list(id2_line.y[3:5]) == [min(times), max(times)] and sorted(id2_dots.y[3:6]) == sorted(times)
    assert list(ranges.layout.xaxis.ticktext) == ["4×4", "8×8", "12×12"]


def test_histogram_of_uq_differences():
    fig = page.render_histogram(params())
    assert fig.layout.title.text == "UQ(LCT) − UQ(BST) over the 256 S-curve transformations of the 4×4 grid"
    assert sum(fig.data[0].y) == 256
    names = [t.name for t in fig.data[1:]]
    assert names == ["mean difference +0.154", "LCT changes more links: 170", "BST changes more links: 70"]
    assert "paper: 0.5527" in fig.layout.xaxis.title.text
    assert page.histogram_side(params(size="3x5")) == 4 and page.histogram_side(params(size="6")) == 6


# ------------------------------------------------------------------ layout and URL
def test_the_url_prefills_the_controls_and_the_share_link_reopens_them():
    p = params(size="3x5", neighbors=4, broken="2,7", algo="tree")
    query = page.share_query(p, 2, "hilbert")
    assert query == ("size=3x5&neighbors=4&broken=2%2C7&rate=0.1&seed=0&algo=tree&judge=model&barriers=3"
                     "&compute=0.5&k=2&numbering=hilbert")
    text = str(page.layout("?" + query))
    for needle in ("'3x5'", "value=4", "'2,7'", "'tree'", "'hilbert'", "value=2"):
        assert needle in text, needle
    # unusable values fall back to the defaults
    text = str(page.layout("?k=zz&seed=-&algo=nope&neighbors=5"))
    assert "value=1" in text and "'dlct'" in text and "value=8" in text
    assert "barrier-page" in str(render_page("/barrier", "?size=4x4"))
