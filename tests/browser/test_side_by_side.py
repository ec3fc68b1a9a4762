"""Side by side in a real browser (issue 45): on /barrier and /trees a second run of the same scenario plays under one
player, both drawings in lockstep on one clock, each with its own caption, the line saying where they part; class
speed (16×, pause at key moments); the export draws both in each frame."""

from __future__ import annotations

import time

import imageio.v3 as iio
from dash.testing import errors
from dash.testing.wait import until

from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.ui.components.player import player_captions
from vizcoll.ui.pages.barrier._views import compared_runs
from vizcoll.ui.pages.trees._model import tree_plan
from vizcoll.ui.pages.trees._views import compared_trees
from vizcoll.ui.store import DEFAULT_SCENARIO

from .browser_helpers import canvas_nodes
from .readability import viewport
from .test_exports import downloaded, press

GRID = Scenario(spec="mesh:8x8,neighbors=8,hosts=0", broken=["sw3-2[5]-sw4-3[6]", "sw0-4[3]-sw1-4[4]"])
POSITION = "const s = document.getElementById(arguments[0] + '-position'); return s ? s.textContent : '';"


def text(page, selector: str) -> str:
    return page.driver.execute_script(f"const e = document.querySelector({selector!r}); return e ? e.textContent : '';")


def at(page, prefix: str, position: int, n: int) -> None:
    line = f"#{prefix}-position"
    try:
        until(lambda: text(page, line) == f"step {position} of {n}", 20)
    except errors.TestingTimeoutError as exc:
        raise AssertionError(f"never at step {position} of {n}: {line} says {text(page, line)!r}") from exc


def sides_show(page, prefix: str, captions, positions, p: int) -> None:
    """Both sides show their own run at the player's position ``p``: each its own caption."""
    for side, own, run in zip("ab", positions, captions, strict=True):
        expected = run[own[p]]
        until(
            lambda s=side, e=expected: text(page, f"#{prefix}-{s}-caption") == e,
            20,
            msg=f"side {side} at {p}: {text(page, f'#{prefix}-{side}-caption')!r}, not {expected!r}",
        )


def export_two_frames(page, downloads, prefix: str) -> None:
    press(page, f"#{prefix}-export summary")
    page.type_into(f"#{prefix}-export-last", "1")
    page.duo.select_dcc_dropdown(f"#{prefix}-export-size", value="640x360")
    press(page, f"#{prefix}-export-button")
    until(lambda: text(page, f"#{prefix}-export-message").startswith("vizcoll-"), 120, msg="no export")
    name = text(page, f"#{prefix}-export-message").split(":")[0]
    assert name.endswith("-side-by-side.gif")
    frames = iio.imread(downloaded(downloads, name), index=None, extension=".gif")
    assert frames.shape[:3] == (2, 360, 640)


def test_dlct_and_tree_play_in_lockstep_on_the_barrier_page(page, tmp_path):
    page.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    viewport(page.driver)
    page.open(f"/barrier#s={GRID.to_fragment()}", counts=None)
    until(lambda: " of " in text(page, "#bar-player-position"), 30, msg="DLCT's own run never played")
    assert text(page, "#bar-cmp-parting") == ""  # nothing compared yet: no job, no drawings
    page.duo.select_dcc_dropdown("#bar-compare-algo", value="Tree (minimum spanning tree)")
    until(lambda: text(page, "#bar-cmp-parting").startswith("Where they part: step "), 60, msg="no parting line")
    found = compared_runs(GRID.with_params("barrier", {"compare": "tree"}), "tree")
    ls, n = found.lockstep, found.lockstep.timeline.n_steps
    captions = [Timeline.from_dict(t).captions() for t in found.timelines]
    assert (text(page, "#bar-cmp-a-title"), text(page, "#bar-cmp-b-title")) == ("DLCT", "Tree")
    assert text(page, "#bar-cmp-parting") == f"Where they part: {ls.parting['text']}"
    until(lambda: canvas_nodes(page, "bar-cmp-a") == canvas_nodes(page, "bar-cmp-b") > 64, 20)
    at(page, "bar-cmp", 0, n)
    # step by step, then key moment to key moment: each side shows its own run at the same time
    for _ in range(3):
        press(page, "#bar-cmp-forward")
    at(page, "bar-cmp", 3, n)
    sides_show(page, "bar-cmp", captions, ls.positions, 3)
    moments = [m["step"] + 1 for m in ls.timeline.key_moments()]
    for k in range(2):
        press(page, "#bar-cmp-next-key")
        at(page, "bar-cmp", moments[k], n)
        sides_show(page, "bar-cmp", captions, ls.positions, moments[k])
    assert moments[0] == ls.parting["position"]
    # class speed: 16× with a pause at each key moment plays on and holds at the next key moment
    page.duo.select_dcc_dropdown("#bar-cmp-speed", value="16×")
    press(page, "#bar-cmp-pause input")
    started, begin = time.monotonic(), moments[1]
    press(page, "#bar-cmp-play")
    until(lambda: int(text(page, "#bar-cmp-position").split()[1]) >= moments[2], 30, msg="16× never got there")
    press(page, "#bar-cmp-play")  # pause
    print(f"\n16× with pauses: {moments[2] - begin} steps in {time.monotonic() - started:.1f} s")
    page.screenshot("side-by-side-barrier.png")
    export_two_frames(page, tmp_path, "bar-cmp")
    assert page.duo.get_logs() == []


def test_two_tree_kinds_aggregate_in_lockstep_on_the_trees_page(page, tmp_path):
    page.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    viewport(page.driver)
    scenario = DEFAULT_SCENARIO.with_params("trees", {"compare": "knomial"})
    page.open(f"/trees#s={scenario.to_fragment()}", counts=None)  # a lesson's or a shared link's choice
    until(lambda: text(page, "#trees-cmp-parting").startswith("The two runs never part"), 60, msg="no parting line")
    ls, handles, _ = compared_trees(tree_plan(scenario), scenario, "knomial")
    captions = [player_captions(h) for h in handles]
    assert (text(page, "#trees-cmp-a-title"), text(page, "#trees-cmp-b-title")) == ("4-ary", "4-nomial")
    n = ls.timeline.n_steps
    for p in (1, 2):
        press(page, "#trees-cmp-forward")
        at(page, "trees-cmp", p, n)
        sides_show(page, "trees-cmp", captions, ls.positions, p)
    press(page, "#trees-cmp-last")
    at(page, "trees-cmp", n, n)
    sides_show(page, "trees-cmp", captions, ls.positions, n)
    page.screenshot("side-by-side-trees.png")
    export_two_frames(page, tmp_path, "trees-cmp")
    assert page.duo.get_logs() == []


def test_multicast_a_and_b_build_up_in_lockstep_and_part_where_minhop_peaks(page, tmp_path):
    from vizcoll.ui.pages.multicast._model import preset_scenario
    from vizcoll.ui.pages.multicast._sides import compared_routings

    page.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    viewport(page.driver)
    preset = preset_scenario("pruned-fat-tree", DEFAULT_SCENARIO)  # the FULB-MC paper's teaching example
    scenario = preset.with_params("multicast", {**preset.params["multicast"], "compare": "groups"})
    page.open(f"/multicast#s={scenario.to_fragment()}", counts=None)
    until(lambda: text(page, "#mc-cmp-parting").startswith("Where they part: step 20 "), 90, msg="no parting line")
    ls, timelines, _ = compared_routings(scenario)
    captions = [tl.captions() for tl in timelines]
    n = ls.timeline.n_steps
    moments = [m["step"] + 1 for m in ls.timeline.key_moments()]
    for moment in moments[:4]:  # the largest EFI rising, group after group: the 4th is where they part
        press(page, "#mc-cmp-next-key")
        at(page, "mc-cmp", moment, n)
        sides_show(page, "mc-cmp", captions, ls.positions, moment)
    assert moments[3] == ls.parting["position"] == 20
    until(
        lambda: (
            page.driver.execute_script("return document.querySelectorAll('#mc-cmp-b .scatterlayer .trace').length") > 3
        ),
        20,
        msg="B's drawing never came",
    )
    page.screenshot("side-by-side-multicast.png")
    export_two_frames(page, tmp_path, "mc-cmp")
    assert page.duo.get_logs() == []
