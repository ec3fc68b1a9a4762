"""The schedules page: a GOAL file written by the CLI opens, is timed and replays on the scenario's fabric."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dash.testing.wait import until

from vizcoll.schedule import LogGP, barrier, parse, simulate
from vizcoll.schedule.check import check

from .browser_helpers import ROOT, full_page_screenshot
from .test_faults import scroll_to, step_of


def test_a_goal_file_from_the_cli_is_timed_and_replayed(page, tmp_path):
    goal = tmp_path / "b.goal"
    text = subprocess.run(
        [sys.executable, "-m", "vizcoll", "goal", "barrier", "--algo", "dissemination", "--procs", "16"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    goal.write_text(text)
    makespan = simulate(barrier("dissemination", 16), LogGP()).makespan  # LogGOPSim's defaults

    page.open("/schedules", counts=None)
    page.duo.wait_for_contains_text("#sched-file", "No file yet", timeout=30)
    page.upload("sched-upload", goal)
    page.duo.wait_for_text_to_equal("#sched-file", "b.goal: 16 ranks, 128 operations, 64 messages.", timeout=30)
    page.duo.wait_for_text_to_equal("#sched-makespan", f"{makespan:,}", timeout=30)
    page.duo.wait_for_contains_text("#sched-problems", "No problem", timeout=10)
    page.duo.wait_for_contains_text("#sched-flag", "16 ranks on the scenario's fabric", timeout=30)
    page.canvas = "sched-canvas"
    page.wait_for_cy()

    prefix = "sched-player"
    page.duo.wait_for_contains_text(f"#{prefix}-position", "step 0 of 9", timeout=20)
    full_page_screenshot(page, "schedules.png")
    scroll_to(page, f"#{prefix}-forward")
    page.click(f"#{prefix}-forward")
    page.duo.wait_for_contains_text(f"#{prefix}-caption", "t = 0 ns: 16 messages leave (rank 0 → rank 1", timeout=10)
    until(lambda: len(orange_edges(page)) > 0, 10, msg="the first messages' routes are not drawn")
    for _ in range(4):
        page.click(f"#{prefix}-forward")
    until(lambda: step_of(page, prefix) == 5, 10)
    page.duo.wait_for_contains_text(f"#{prefix}-caption", "t = 11,000 ns: 16 messages leave", timeout=10)
    labels = page.cy("return cy.nodes().map(n => n.style('label'));")
    assert "r3" in labels
    scroll_to(page, "#sched-canvas")
    page.screenshot("schedules-mid-animation.png")
    page.click(f"#{prefix}-back")
    until(lambda: step_of(page, prefix) == 4, 10)
    page.click(f"#{prefix}-last")
    page.duo.wait_for_contains_text(f"#{prefix}-caption", f"t = {makespan:,} ns: 16 ranks finish", timeout=10)
    assert page.duo.get_logs() == []


def test_a_bad_upload_lists_problems_by_line(page, tmp_path):
    bad = tmp_path / "bad.goal"
    bad.write_text("num_ranks 2\nrank 0 {\n l0: send 8b to 1 tag 0\n}\nrank 1 {\nl0: recv 8b from 0 tag 3\n}\n")
    page.open("/schedules", counts=None)
    page.upload("sched-upload", bad)
    page.duo.wait_for_contains_text("#sched-problems", "white space at the start of the line", timeout=30)
    page.duo.wait_for_contains_text("#sched-problems", "never sent", timeout=10)
    page.duo.wait_for_contains_text("#sched-timing", "The file has errors", timeout=10)
    assert page.duo.get_logs() == []


def orange_edges(page) -> list[str]:
    return [eid for eid, colour in page.edge_colours().items() if colour == "rgb(255,127,14)"]


def test_a_barrier_downloaded_from_the_barrier_page_opens_here(page):
    """Round trip: Download GOAL on /barrier (the default scenario: a logical barrier on 4 processes), then the
    file opens on /schedules with no problem."""
    page.open("/barrier", counts=None)
    page.duo.wait_for_contains_text("#bar-player-position", "step 0 of", timeout=30)
    scroll_to(page, "#bar-goal")
    page.click("#bar-goal")
    saved = Path(page.duo.download_path) / "vizcoll-barrier-tree.goal"
    until(saved.exists, 20, msg="no GOAL file was downloaded")
    until(lambda: saved.stat().st_size > 0 and saved.read_text().endswith("}\n"), 10)
    parsed = parse(saved.read_text())
    assert parsed.problems == [] and check(parsed.schedule, parsed.lines) == []
    assert page.duo.find_element("#bar-goal-message").text == ""
    page.open("/schedules", counts=None)
    page.upload("sched-upload", saved)
    page.duo.wait_for_text_to_equal(
        "#sched-file", "vizcoll-barrier-tree.goal: 4 ranks, 12 operations, 6 messages.", timeout=30
    )
    page.duo.wait_for_contains_text("#sched-problems", "No problem", timeout=10)
    assert page.duo.get_logs() == []


def test_a_large_file_is_timed_in_a_job_with_its_progress(page, tmp_path):
    goal = tmp_path / "big.goal"  # a dissemination barrier of 1,300 ranks: 1.96 MB, about 2 s of checks and timing
    subprocess.run(
        [
            sys.executable,
            "-m",
            "vizcoll",
            "goal",
            "barrier",
            "--algo",
            "dissemination",
            "--procs",
            "1300",
            "-o",
            str(goal),
        ],
        capture_output=True,
        check=True,
        cwd=ROOT,
    )
    makespan = simulate(barrier("dissemination", 1300), LogGP()).makespan

    page.open("/schedules", counts=None)
    page.duo.wait_for_contains_text("#sched-file", "No file yet", timeout=30)
    page.upload("sched-upload", goal)
    page.duo.wait_for_contains_text("#sched-file", "checked and timed in the background", timeout=30)
    until(
        lambda: "running" in page.duo.find_element("#sched-analysis-job").get_attribute("class"),
        20,
        msg="the job bar never showed",
    )
    page.duo.wait_for_contains_text("#sched-analysis-progress-text", "checking and timing 2.0 MB of GOAL", timeout=20)
    assert page.duo.find_element("#sched-example").get_attribute("disabled") == "true"
    page.duo.wait_for_text_to_equal("#sched-makespan", f"{makespan:,}", timeout=120)
    page.duo.wait_for_contains_text("#sched-file", "big.goal: 1,300 ranks", timeout=10)
    until(lambda: page.duo.find_element("#sched-analysis-job").get_attribute("class") == "job", 10)
    assert page.duo.get_logs() == []
