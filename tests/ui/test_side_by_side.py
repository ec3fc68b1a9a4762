"""Side by side (issue 45): /barrier's and /trees' second run on the same scenario, one player on one clock; their
callbacks called directly (no browser), the export of both drawings in one frame, the CLI's ``--compare``."""

from __future__ import annotations

import json

import pytest
from dash import State

from tests.callback_context import Wiring, find_component, in_callback
from vizcoll.__main__ import main
from vizcoll.scenario import Scenario
from vizcoll.ui.components.player import player_captions, player_timeline
from vizcoll.ui.components.sidebyside import HIDDEN, register_side_by_side, result_outputs, run_at, shown
from vizcoll.ui.export.animation import frame_figure
from vizcoll.ui.export.animations import animation_of
from vizcoll.ui.pages.barrier import page as barrier
from vizcoll.ui.pages.trees import page as trees
from vizcoll.ui.store import DEFAULT_SCENARIO

GRID = Scenario(spec="mesh:8x8,neighbors=8,hosts=0", broken=["sw3-2[5]-sw4-3[6]", "sw0-4[3]-sw1-4[4]"])


def no_progress(_value) -> None:
    """The ``set_progress`` of a background callback called directly."""


def compared(module, order, scenario: Scenario) -> dict:
    """The page's comparison job (its store as the browser sends it), by name (:func:`result_outputs`)."""
    runner = barrier.compare_runs if module is barrier else trees.compare_trees
    return in_callback(runner, "order.data", no_progress, order, scenario.to_dict())


def test_the_barrier_runs_dlct_and_tree_on_the_same_broken_grid_on_one_clock():
    answer = compared(barrier, {"compare": "tree", "plan": "key"}, GRID)
    handle, elements_a, elements_b, parting = (answer[k] for k in ("handle", "elements_a", "elements_b", "parting"))
    assert (answer["title_a"], answer["title_b"], answer["sides"], answer["message"]) == ("DLCT", "Tree", {}, "")
    assert elements_a == elements_b and sum(e.get("classes") == "proc" for e in elements_a) == 64
    assert parting.startswith("Where they part: step ") and "first: barrier release" in parting
    runs = [player_timeline(run) for run in handle["runs"]]
    assert [p[-1] for p in handle["positions"]] == [tl.n_steps for tl in runs]
    assert handle["steps"] == len(handle["positions"][0]) - 1
    # a step: each side shows its own step at that time, with its own caption
    middle = handle["steps"] // 2
    for side, tl in enumerate(runs):
        run, own = run_at(handle, side, middle)
        assert own == handle["positions"][side][middle]
        assert player_captions(run)[own] == tl.captions()[own]
        first_hops = barrier.side_sheet(run, 1, GRID.to_dict())  # the first Gather messages
        assert first_hops != barrier.side_sheet(run, 0, GRID.to_dict())


@pytest.mark.parametrize(
    ("order", "scenario", "words"),
    [
        ({"compare": "dlct", "plan": "k"}, DEFAULT_SCENARIO, "needs"),  # DLCT off a grid
        ({"compare": "../../etc/passwd", "plan": "k"}, GRID, "unknown algorithm to compare with"),
        ({"compare": "dlct", "plan": "k"}, GRID, "choose another run to compare with DLCT"),
    ],
)
def test_a_comparison_that_cannot_run_says_why_and_hides_the_sides(order, scenario, words):
    answer = compared(barrier, order, scenario)
    assert answer["handle"] is None and answer["sides"] == HIDDEN and answer["parting"] == ""
    assert answer["elements_a"] == answer["elements_b"] == []
    assert answer["message"].startswith("⚠") and words in answer["message"]


def test_no_order_shows_nothing_and_a_forged_handle_draws_nothing():
    assert compared(barrier, None, GRID)["handle"] is None
    for forged in (None, {}, {"runs": "x"}, {"runs": [1, 2], "positions": [[0], [0]]}, {"runs": [{}], "positions": []}):
        assert run_at(forged, 0, 3) is None or run_at(forged, 0, 3)[0] == {}
    handle = compared(barrier, {"compare": "tree", "plan": "k"}, GRID)["handle"]
    assert run_at(handle, 1, 10**9)[1] == handle["positions"][1][-1]  # clamped to the last step
    assert run_at(handle, 0, "x")[1] == 0


def trees_compared(order) -> dict:
    """/trees' side-by-side job on the default scenario, as Dash calls it: every output by name."""
    data = DEFAULT_SCENARIO.to_dict()
    return in_callback(trees.compare_trees, "order.data", no_progress, order=order, data=data)


def test_the_trees_run_two_tree_kinds_on_the_default_fabric():
    shown = trees_compared({"compare": "knomial", "plan": "k"})
    assert (shown["title_a"], shown["title_b"], shown["sides"], shown["message"]) == ("4-ary", "4-nomial", {}, "")
    # 4-ary and 4-nomial end together here
    assert shown["parting"].startswith("The two runs never part") and shown["elements_a"]
    handle, runs = shown["handle"], [player_timeline(run) for run in shown["handle"]["runs"]]
    assert runs[0].title != runs[1].title and [p[-1] for p in handle["positions"]] == [t.n_steps for t in runs]
    same = trees_compared({"compare": "kary", "plan": "k"})
    assert "choose another run" in same["message"] and same["handle"] is None and same["sides"] == HIDDEN


def test_the_compare_choices_are_in_the_layouts_and_the_scenario():
    for module, control, value in ((barrier, "bar-compare-algo", "tree"), (trees, "trees-compare-kind", "zhao")):
        scenario = GRID if module is barrier else DEFAULT_SCENARIO
        key = "barrier" if module is barrier else "trees"
        layout = module.body(scenario.with_params(key, {"compare": value}))
        assert find_component(layout, control).value == value
        for part in ("a", "b", "parting", "sides"):
            assert find_component(layout, f"{control.split('-')[0]}-cmp-{part}") is not None


def test_the_side_by_side_export_draws_both_runs_in_each_frame():
    animation = animation_of("barrier", GRID.with_params("barrier", {"compare": "tree"}), "side-by-side")
    assert animation.timeline.title == "DLCT and Tree, side by side"
    fig = frame_figure(animation, animation.timeline.n_steps // 2, 1280, 720)
    assert {trace.xaxis or "x" for trace in fig.data} == {"x", "x2"}
    assert {"<b>DLCT</b>", "<b>Tree</b>"} <= {a.text for a in fig.layout.annotations}


def test_the_cli_prints_where_two_barriers_part(capsys):
    assert main(["barrier", "--size", "8", "--algo", "dlct", "--compare", "tree", "--break-rate", "0.1"]) == 0
    out = json.loads(capsys.readouterr().out)["side_by_side"]
    assert out["names"] == ["dlct", "tree"] and out["steps"] >= max(out["run_steps"])
    assert out["parting"]["text"].startswith(f"step {out['parting']['position']} ")
    assert sum(1 for m in out["moments"] if m[2].startswith("dlct:")) == 6  # 3 releases, 3 completions


def test_multicast_a_and_b_route_the_teaching_presets_groups_one_by_one():
    """The FULB-MC paper's teaching example: MINIHOP-MC-new reaches a largest EFI of 8, FULB-MC 3; side by side
    they part at the first group that raises MINIHOP-MC-new's largest EFI above FULB-MC's."""
    from vizcoll.multicast.buildup import efi_at
    from vizcoll.ui.pages.multicast import page as multicast
    from vizcoll.ui.pages.multicast._model import preset_scenario, routed
    from vizcoll.ui.store import topology_of

    scenario = preset_scenario("pruned-fat-tree", DEFAULT_SCENARIO)
    order = {"compare": "groups", "plan": "k"}
    shown = in_callback(multicast.compare_routings, "order.data", no_progress, order=order, scenario=scenario.to_dict())
    assert set(shown) == set(multicast.SIDES_SHOWN)  # figures: no canvas elements
    assert (shown["title_a"], shown["title_b"], shown["sides"], shown["message"]) == (
        "A: minhop-new",
        "B: fulb",
        {},
        "",
    )
    assert shown["parting"].startswith("Where they part: step 20 (t = 20): A: minhop-new first: largest EFI rises;")
    topo = topology_of(scenario)
    for run, algo, top in zip(shown["handle"]["runs"], ("minhop-new", "fulb"), (8, 3), strict=True):
        tl = player_timeline(run)
        assert (efi_at(topo, tl, tl.n_steps - 1) == routed(scenario, algo).efi).all()  # the routing's own EFI
        assert tl.summary["max_efi"] == top and run["top"] == 8  # one colour scale for both
        figure = multicast.side_figure(run, 20, scenario.to_dict())
        assert figure.layout.title.text in ("", None) and len(figure.data) > 3
    off = in_callback(
        multicast.compare_routings, "order.data", no_progress, order={"compare": "x"}, scenario=scenario.to_dict()
    )
    assert off["handle"] is None and off["sides"] == HIDDEN
    broken = in_callback(multicast.compare_routings, "order.data", no_progress, order=order, scenario={"schema": 1})
    assert broken["handle"] is None and broken["message"].startswith("⚠ The scenario could not be read")


def test_the_result_outputs_are_named_and_shown_answers_every_one():
    outputs = result_outputs("bar-cmp")
    assert str(outputs["elements_b"]) == "bar-cmp-b.elements" and str(outputs["handle"]) == "bar-cmp-timeline.data"
    assert str(outputs["title_a"]) == "bar-cmp-a-title.children" and str(outputs["sides"]) == "bar-cmp-sides.style"
    assert shown(None, message="⚠ x") == {
        "handle": None,
        "elements_a": [],
        "elements_b": [],
        "title_a": "",
        "title_b": "",
        "sides": HIDDEN,
        "parting": "",
        "message": "⚠ x",
    }
    figures = result_outputs("mc-cmp", canvas=False)
    assert "elements_a" not in figures and set(shown(None, canvas=False)) == set(figures)


def test_a_step_draws_each_side_at_its_own_position_with_its_caption():
    app = Wiring()
    sheet_at = lambda run, position, data: [{"position": position, "data": data}]  # noqa: E731
    states = [State("scenario", "data")]
    register_side_by_side(app, "bar-cmp", "barrier", "side-by-side", sheet_at, states, lambda: [])
    step, outputs, inputs = app.named["step"]
    assert (
        str(outputs["sheet_b"]) == "bar-cmp-b.stylesheet" and str(outputs["caption_a"]) == "bar-cmp-a-caption.children"
    )
    assert str(inputs["position"]) == "bar-cmp-step.value" and inputs["state_0"] is states[0]
    handle = in_callback(barrier.compare_runs, "order.data", no_progress, {"compare": "tree"}, GRID.to_dict())["handle"]
    middle = handle["steps"] // 2
    answer = in_callback(step, "bar-cmp-step.value", position=middle, handle=handle, state_0="s")
    for index, side in enumerate(("a", "b")):
        run, own = run_at(handle, index, middle)
        assert answer[f"sheet_{side}"] == [{"position": own, "data": "s"}]
        assert answer[f"caption_{side}"] == player_captions(run)[own]
    forged = in_callback(step, "bar-cmp-step.value", position=middle, handle={"runs": "x"}, state_0="s")
    assert forged == {"sheet_a": [], "sheet_b": [], "caption_a": "", "caption_b": ""}  # the plain sheets
