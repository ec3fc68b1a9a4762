"""Players on fabrics too large to draw node by node (issue 23.1): a cluster's own file (1,570 nodes, the shape of a
real one) and TaihuLight. The schedules replay plays on the fabric's overview (its bundles of links light with the
messages crossing them, in the browser); the multicast join/leave protocol plays on its process diagram."""

from __future__ import annotations

import time

from dash.testing.wait import until

from tests.fabrics import campus_cluster
from vizcoll.schedule import dumps, tree_collective
from vizcoll.trees.typeone import knomial_tree
from vizcoll.ui.pages.multicast._model import preset_scenario
from vizcoll.ui.store import DEFAULT_SCENARIO

from .browser_helpers import counts_line, full_page_screenshot, lit_count
from .test_faults import scroll_to, step_of
from .test_multicast import choose

CAMPUS_COUNTS = counts_line(214, 1356, 4168, 0, 59)
TAIHULIGHT = "pruned-fat-tree:preset=taihulight"


def lit(page, meta: str) -> int:
    """How many marks of the overview's animation layer ``meta`` the current step lights (-1: none drawn yet)."""
    return lit_count(page, "sched-overview", meta)


def open_campus(page, tmp_path) -> None:
    """The cluster's ibnetdiscover file uploaded on /topology, with communicators of 16 processes (hier:16)."""
    fabric = tmp_path / "campus.txt"
    fabric.write_text(campus_cluster())
    page.open("/topology")
    page.upload("topo-upload", fabric)
    page.duo.wait_for_text_to_equal("#topo-counts", CAMPUS_COUNTS, timeout=60)
    page.type_into("#topo-pattern", "hier:16")
    page.click("#topo-apply-comm")
    page.duo.wait_for_contains_text("#topo-comm-info", "communicators", timeout=90)


def play_forward(page) -> None:
    """Step the schedules player forward: its first step lights bundles and blocks, the next other bundles."""
    prefix = "sched-player"
    until(lambda: lit(page, "overview-messages") == 0, 90, msg="the overview has no animation layer")
    scroll_to(page, f"#{prefix}-forward")
    page.click(f"#{prefix}-forward")
    until(lambda: step_of(page, prefix) == 1, 10)
    until(
        lambda: lit(page, "overview-messages") > 0 and lit(page, "overview-nodes") > 0,
        10,
        msg="the first step lights no bundle or block",
    )
    first = lit(page, "overview-messages")
    caption = page.duo.find_element(f"#{prefix}-caption").text
    assert caption.startswith("t = 0 ns: ") and "messages leave" in caption, caption
    page.click(f"#{prefix}-forward")
    until(lambda: step_of(page, prefix) == 2, 10)
    until(lambda: lit(page, "overview-messages") != first, 10, msg="the second step lights the same bundles")
    page.click(f"#{prefix}-first")
    until(lambda: lit(page, "overview-messages") == 0, 10, msg="back at the start, bundles stay lit")


def test_a_schedule_replays_on_a_cluster_files_overview(page, tmp_path):
    open_campus(page, tmp_path)
    page.open("/schedules", counts=None)
    page.duo.wait_for_contains_text("#sched-file", "No file yet", timeout=90)
    page.click("#sched-example")
    page.duo.wait_for_contains_text("#sched-flag", "16 ranks on the scenario's fabric (campus.txt)", timeout=90)
    page.duo.wait_for_contains_text("#sched-flag", "plays on the fabric's overview", timeout=5)
    page.duo.wait_for_contains_text("#sched-player-position", "step 0 of 9", timeout=20)
    assert not page.duo.find_element("#sched-canvas").is_displayed()
    assert not page.duo.find_element("#sched-legend").is_displayed()
    play_forward(page)
    page.click("#sched-player-forward")
    until(lambda: lit(page, "overview-messages") > 0, 10)
    scroll_to(page, "#sched-overview")
    page.screenshot("schedules-campus-overview.png")
    full_page_screenshot(page, "schedules-campus.png")
    assert page.duo.get_logs() == []


def test_a_binomial_reduce_of_16384_ranks_replays_on_taihulights_overview(page, tmp_path):
    """A 1.4 MB file: checked, timed and replayed in the background job, then played on the overview. The time from
    the upload to the player's first frame is printed (tests assert no wall-clock time)."""
    goal = tmp_path / "reduce-16384.goal"
    goal.write_text(dumps(tree_collective(knomial_tree(16384, 2), "reduce", 8)))
    page.open("/topology")
    page.generate(TAIHULIGHT)
    page.duo.wait_for_contains_text("#topo-counts", "40,960 end nodes", timeout=60)
    page.open("/schedules", counts=None)
    page.duo.wait_for_contains_text("#sched-file", "No file yet", timeout=90)
    start = time.perf_counter()
    page.upload("sched-upload", goal)
    page.duo.wait_for_contains_text("#sched-flag", "16,384 ranks on the scenario's fabric", timeout=120)
    until(lambda: lit(page, "overview-messages") == 0, 90, msg="the overview has no animation layer")
    page.duo.wait_for_contains_text("#sched-player-position", "step 0 of 43", timeout=20)
    print(
        f"\nTaihuLight, binomial reduce of 16,384 ranks: first frame {time.perf_counter() - start:.1f} s after the "
        "upload (the job: check, LogGP timing and replay)"
    )
    page.duo.wait_for_text_to_equal(
        "#sched-file", "reduce-16384.goal: 16,384 ranks, 32,766 operations, 16,383 messages.", timeout=10
    )
    play_forward(page)
    page.click("#sched-player-forward")  # t = 0 ns: 8,192 messages leave, one per pair of ranks
    until(lambda: lit(page, "overview-messages") > 0, 10)
    scroll_to(page, "#sched-overview")
    page.screenshot("schedules-taihulight-overview.png")
    page.click("#sched-player-last")
    until(lambda: step_of(page, "sched-player") == 43, 10)
    page.duo.wait_for_contains_text("#sched-player-caption", "rank 0 finishes", timeout=10)
    assert page.duo.get_logs() == []


def test_the_multicast_protocol_steps_on_a_cluster_file(page, tmp_path):
    open_campus(page, tmp_path)
    page.driver.set_window_size(1400, 1000)
    page.open("/multicast", counts=None)
    page.duo.wait_for_contains_text("#mc-summary", "A: minhop-new", timeout=60)
    choose(page, "mc-group", "group 3: 16 members (cn0048, cn0049, cn0050, …)")
    page.duo.wait_for_contains_text("#mc-group-info", "Group 3 (16 members: cn0048", timeout=90)
    prefix = "mc-player"
    page.duo.wait_for_contains_text(f"#{prefix}-position", "step 0 of 68", timeout=20)
    scroll_to(page, f"#{prefix}-forward")
    page.click(f"#{prefix}-forward")
    until(lambda: step_of(page, prefix) == 1, 10)
    page.duo.wait_for_contains_text(f"#{prefix}-caption", "→ SM (MF0;ib-l1-012:MQM8700/U1): SubnAdmSet", timeout=10)
    page.click(f"#{prefix}-last")
    until(lambda: step_of(page, prefix) == 68, 10)
    caption = page.duo.find_element(f"#{prefix}-caption").text
    assert caption and "⚠" not in caption and "Nothing to play" not in caption
    scroll_to(page, "#mc-state-fig")
    page.screenshot("multicast-campus-protocol.png")
    full_page_screenshot(page, "multicast-campus.png")
    assert page.duo.get_logs() == []


def test_the_multicast_protocol_steps_on_taihulight_after_the_routing_job(page):
    """TaihuLight's preset (3,584 groups) with group 5 highlighted, from a share link: the groups are routed in the
    background job, whose views bring the protocol's player."""
    chosen = preset_scenario("taihulight", DEFAULT_SCENARIO)
    chosen = chosen.with_params("multicast", {**chosen.params["multicast"], "group": 5})
    page.driver.set_window_size(1400, 1000)
    page.open(f"/multicast#s={chosen.to_fragment()}", counts=None)
    page.duo.wait_for_contains_text("#mc-group-info", "Group 5 (", timeout=180)
    prefix = "mc-player"
    page.duo.wait_for_contains_text(f"#{prefix}-position", "step 0 of", timeout=90)
    scroll_to(page, f"#{prefix}-next-key")
    page.click(f"#{prefix}-next-key")  # the first join
    until(lambda: step_of(page, prefix) > 0, 10)
    page.duo.wait_for_contains_text(f"#{prefix}-caption", "→ SM (", timeout=10)
    page.click(f"#{prefix}-last")
    page.duo.wait_for_contains_text(f"#{prefix}-caption", "has torn the group down", timeout=10)
    scroll_to(page, "#mc-state-fig")
    page.screenshot("multicast-taihulight-protocol.png")
    assert page.duo.get_logs() == []
