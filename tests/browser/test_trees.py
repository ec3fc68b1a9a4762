"""The trees page on the shared scenario: trees compared, the F(k) curve, type II trees, the aggregation player, every
control driving the view, broken links avoided (or flagged as built), a link broken on the drawing, a preset."""

from __future__ import annotations

import importlib
import time

from dash.testing.wait import until
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from vizcoll.scenario import Scenario
from vizcoll.ui.store import DEFAULT_SCENARIO

from .browser_helpers import full_page_screenshot, press_from_start, text

BUSIEST = "agg0.0[3]-core0[1]"  # link 32: the 4-ary tree's bottleneck on the paper's Fig. 7 fat tree
ISOLATING = "h5[1]-edge1.0[2]"  # link 5: h5's only cable


def table_rows(page, table_id: str) -> list[list[str]]:
    """The body cells of a table, read in one script (the table re-renders under us); none while the page is too
    busy drawing to run a script (large figures arriving on a loaded machine)."""
    try:
        return page.driver.execute_script(
            f"return [...document.querySelectorAll('#{table_id} tbody tr')]"
            ".map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent));"
        )
    except TimeoutException:
        return []


def row_of(page, table_id: str, first: str) -> list[str]:
    return next((cells for cells in table_rows(page, table_id) if cells and cells[0] == first), [])


def trace_names(page, graph_id: str) -> list[str]:
    return page.driver.execute_script(
        f"const g = document.querySelector('#{graph_id} .js-plotly-plot');"
        "return g && g.data ? g.data.map(t => t.name || '') : [];"
    )


def badge(page) -> str:
    return text(page, "#scenario-badge")


def shared(page) -> Scenario:
    """The scenario the shell's share link carries."""
    href = page.duo.find_element("#share-link").get_attribute("href")
    return Scenario.from_fragment(href.partition("#s=")[2])


def scroll_to(page, selector: str) -> None:
    page.driver.execute_script(f"document.querySelector({selector!r}).scrollIntoView({{block: 'start'}});")


def choose(page, dropdown_id: str, option: str) -> None:
    """Open a dcc.Dropdown and click the option with this text."""
    page.click(f"#{dropdown_id}")
    found = until(lambda: page.driver.find_elements(By.XPATH, f"//*[normalize-space(text())='{option}']"), 10)
    found[-1].click()


def open_scenario(page, scenario: Scenario) -> None:
    """Open /trees on ``scenario`` through a share link."""
    page.open(f"/trees#s={scenario.to_fragment()}", counts=None)


def test_trees_page_compares_trees_and_plays_the_aggregation(page):
    page.open("/trees", counts=None)
    # the default scenario: fat-tree:radix=4,levels=3, its 16 processes (every one), 4-ary trees; one cable is
    # broken, and no tree needs it
    until(lambda: row_of(page, "trees-compare", "4-ary")[:3] == ["4-ary", "2", "10"], 30)
    assert row_of(page, "trees-compare", "4-ary")[3] == "12 (agg0.0–core0)"  # the paper's Fig. 7 bottleneck
    assert row_of(page, "trees-compare", "4-ary")[-1] == "avoided"
    assert row_of(page, "trees-compare", "4-nomial")[3] == "6 (h0–edge0.0)"
    hier = row_of(page, "trees-compare", "hierarchical 4-nomial")
    assert hier[1:3] == ["3", "12"] and hier[-2] == "3.480"
    assert any(cells[0].startswith("type II min-cost") for cells in table_rows(page, "trees-compare"))
    assert "⚠" not in text(page, "#trees-compare")
    page.duo.wait_for_contains_text("#trees-fabric", "every process of the scenario: 16 processes on 16 nodes (h0, h1")

    page.duo.wait_for_contains_text("#trees-logical", "4-ary tree over 16 processes: height 2", timeout=20)
    page.duo.wait_for_contains_text("#trees-logical", "h15")  # the host names under the vertices
    page.duo.wait_for_contains_text("#trees-mapped", "max 12 packets on one")
    until(lambda: "root: rank 0" in trace_names(page, "trees-logical"), 10)
    until(lambda: "k* = 41 (F* = 1.142 μs)" in trace_names(page, "trees-fk"), 20)
    assert any(name.startswith("|F(k) − F*| ≤ ε = 0.1 μs") for name in trace_names(page, "trees-fk"))
    assert row_of(page, "trees-selection", "no type II available")
    assert text(page, "#trees-t2-info") == ""  # below the fold: drawn once on the screen (assets/lazy.js)
    scroll_to(page, "#trees-t2-info")
    page.duo.wait_for_contains_text("#trees-t2-info", "needs 5 switches")
    page.duo.wait_for_contains_text("#trees-t2-physical", "Physical tree T: 13 switches hold an entry")
    page.duo.wait_for_contains_text("#trees-t2-mincost", "Min-cost tree A (degree ≤ 4): 5 switches")

    # the aggregation: play a few steps, then jump to the end
    page.duo.wait_for_contains_text("#trees-player-position", "step 0 of", timeout=20)
    page.duo.wait_for_contains_text("#trees-anim-summary", "Result 120")
    page.duo.wait_for_contains_text("#trees-flag", "avoid the broken link edge0.0[4]-agg0.1[1]: none of them needed it")
    scroll_to(page, ".player-panel")
    page.click("#trees-player-play")
    until(lambda: int(text(page, "#trees-player-position").split()[1]) >= 3, 20)
    page.click("#trees-player-play")  # pause mid-way: the packets on the move are drawn
    page.screenshot("trees-animation.png")
    page.click("#trees-player-last")
    page.duo.wait_for_contains_text("#trees-player-caption", "Every vertex has the result 120", timeout=20)
    assert "correct ✓" in text(page, "#trees-anim-summary")
    full_page_screenshot(page, "trees-full.png")
    page.driver.execute_script("window.scrollTo(0, 0);")
    page.screenshot("trees.png")
    assert page.duo.get_logs() == []


def test_every_control_drives_the_view_and_the_share_link(page):
    page.open("/trees", counts=None)
    until(lambda: row_of(page, "trees-compare", "4-ary")[:3] == ["4-ary", "2", "10"], 30)
    choose(page, "trees-kind", "k-nomial")
    page.duo.wait_for_contains_text("#trees-logical", "4-nomial tree over 16 processes", timeout=20)
    until(lambda: page.driver.find_element(By.CSS_SELECTOR, "#trees-compare tr:has(strong) td").text == "4-nomial", 20)
    until(lambda: shared(page).params.get("trees", {}).get("kind") == "knomial", 20)

    page.type_into("#trees-k", "8")
    page.duo.find_element("#trees-k").send_keys(Keys.ENTER)
    until(lambda: row_of(page, "trees-compare", "8-ary")[:3] == ["8-ary", "2", "8"], 30)
    page.duo.wait_for_contains_text("#trees-logical", "8-nomial tree over 16 processes", timeout=20)
    until(lambda: any(name.startswith("your k = 8 ") for name in trace_names(page, "trees-fk")), 20)
    until(lambda: shared(page).params["trees"]["k"] == 8, 20)

    # an absurd k is refused with a message; the view keeps the last good tree and the store is unchanged
    page.type_into("#trees-k", "1000000000")
    page.duo.find_element("#trees-k").send_keys(Keys.ENTER)
    page.duo.wait_for_contains_text(
        "#trees-message", "⚠ k (width / base): enter a whole number from 2 to 1024", timeout=20
    )
    assert row_of(page, "trees-compare", "8-ary")[:3] == ["8-ary", "2", "8"]
    assert shared(page).params["trees"]["k"] == 8

    # while a box holds a bad value, other changes say so too (the view never disagrees with the controls)
    page.click("#trees-anim-tree input[value='type2']")
    page.duo.wait_for_contains_text("#trees-message", "⚠ k (width / base)", timeout=20)
    assert shared(page).params["trees"]["anim"] == "type1"
    page.type_into("#trees-k", "8")
    page.duo.find_element("#trees-k").send_keys(Keys.ENTER)
    until(lambda: text(page, "#trees-message") == "", 20)

    # the animated tree is a parameter too; a reload keeps every setting
    page.click("#trees-anim-tree input[value='type1']")
    until(lambda: shared(page).params["trees"]["anim"] == "type1", 20)
    page.click("#trees-anim-tree input[value='type2']")
    page.duo.wait_for_contains_text("#trees-anim-summary", "20 packets up", timeout=20)  # the type II tree's edges
    until(lambda: shared(page).params["trees"]["anim"] == "type2", 20)
    href = page.duo.find_element("#share-link").get_attribute("href")  # a reload opens the address bar's scenario
    until(lambda: page.driver.current_url == href, 10, msg="the address bar does not show the share link")
    page.driver.refresh()
    page.duo.wait_for_contains_text("#trees-logical", "8-nomial tree over 16 processes", timeout=30)
    assert page.value("#trees-k") == "8"
    assert page.duo.find_element("#trees-anim-tree input[value='type2']").is_selected()
    assert page.duo.get_logs() == []


def test_broken_links_are_avoided_or_flagged_and_breaking_one_on_the_drawing_changes_the_scenario(page):
    open_scenario(page, DEFAULT_SCENARIO.with_breaks([BUSIEST]))
    until(lambda: all(p in badge(page) for p in ("1 broken", BUSIEST)), 30, msg=badge(page))
    # live routes (the default): every tree avoids the cut spine link, and the page says so
    page.duo.wait_for_contains_text(
        "#trees-flag", f"avoid the broken link {BUSIEST}: 12 of its edges take another route", timeout=30
    )
    until(lambda: row_of(page, "trees-compare", "4-ary")[3] == "12 (agg0.0–core1)", 20)
    assert "⚠" not in text(page, "#trees-compare")
    page.duo.wait_for_contains_text("#trees-anim-summary", "correct ✓", timeout=20)
    until(lambda: any(n.startswith("broken link") for n in trace_names(page, "trees-mapped")), 20)

    # as built on the intact fabric: the edges crossing the break are flagged, and the aggregation plays up to the
    # break, where the packets are lost (the next key moment), and ends saying what was lost
    page.click("#trees-routes input[value='intact']")
    page.duo.wait_for_contains_text(
        "#trees-flag",
        f"⚠ As built on the intact fabric, 12 edges of the 4-ary tree route over the broken link {BUSIEST}",
        timeout=30,
    )
    until(lambda: row_of(page, "trees-compare", "4-ary")[-1] == "⚠ 12 edges cross", 20)
    page.duo.wait_for_contains_text("#trees-player-moments-legend", "message lost", timeout=30)
    press_from_start(page, "trees-player", "next-key")
    page.duo.wait_for_contains_text("#trees-player-caption", f"lost: link {BUSIEST} is broken", timeout=10)
    page.screenshot("trees-broken.png")
    page.click("#trees-player-last")
    page.duo.wait_for_contains_text("#trees-player-caption", "never reach the root", timeout=10)

    # a click on the broken link of the drawing repairs it for every page; one on h5's cable breaks that
    scroll_to(page, "#trees-t2-info")  # the type II views, drawn once on the screen, move the canvas below them
    until(lambda: text(page, "#trees-t2-info") != "", 20)
    page.canvas = "trees-canvas"
    page.wait_for_cy()
    page.click_element("edge[link = 32]")
    until(lambda: "0 broken" in badge(page), 20, msg=badge(page))
    until(lambda: text(page, "#trees-flag") == "", 20)
    until(lambda: "broken links" not in text(page, "#trees-compare"), 20)  # the table follows the flag
    page.click_element("edge[link = 5]")
    until(lambda: all(p in badge(page) for p in ("1 broken", ISOLATING)), 20, msg=badge(page))
    page.click("#trees-routes input[value='live']")
    page.duo.wait_for_contains_text("#trees-flag", "h5 has no live link left", timeout=30)
    page.duo.wait_for_contains_text("#trees-flag", "Rank 5 is cut off: its value never reaches the root.")
    until(lambda: row_of(page, "trees-compare", "4-ary")[-1] == "⚠ 1 edge cut off", 20)
    until(
        lambda: shared(page).broken == [ISOLATING] and shared(page).params["trees"].get("routes") == "live",
        10,
        msg="the share link does not carry the break and the live routes",
    )
    assert page.duo.get_logs() == []


def test_a_preset_replaces_the_shared_scenario(page):
    page.open("/trees", counts=None)
    until(lambda: row_of(page, "trees-compare", "4-ary")[:3] == ["4-ary", "2", "10"], 30)
    page.click("#trees-presets summary")
    page.click("#trees-use-preset")  # the Sunway supernode: 512 processes, 32-ary
    until(
        lambda: all(p in badge(page) for p in ("sunway-supernode", "48 switches", "256 end nodes", "0 broken")),
        30,
        msg=badge(page),
    )
    until(lambda: row_of(page, "trees-compare", "32-ary")[:2] == ["32-ary", "2"], 40)
    page.duo.wait_for_contains_text("#trees-fabric", "512 processes on 256 nodes", timeout=20)
    assert page.value("#trees-k") == "32"
    until(lambda: "k* = 41 (F* = 2.570 μs)" in trace_names(page, "trees-fk"), 20)
    page.duo.wait_for_contains_text("#trees-anim-summary", "Result 130,816", timeout=40)
    assert page.duo.get_logs() == []


def test_on_a_rail_fabric_the_rails_panel_compares_the_two_placements(page):
    rails = Scenario(spec="rail-fat-tree:servers=64,rails=8,radix=16")  # 512 NICs, 8 rails, no link between them
    open_scenario(page, rails)
    page.duo.wait_for_contains_text(
        "#trees-rails", "Rail fabric: 8 rails, 64 servers, no link between rails", timeout=30
    )
    # the 4-ary tree of the 512 processes: [tree edges, crossing rails, within a server, between servers]
    until(lambda: row_of(page, "trees-rails", "rail-aware")[2:] == ["511", "447", "7", "440"], 20)
    assert row_of(page, "trees-rails", "naive")[2:] == ["511", "448", "8", "440"]
    choose(page, "trees-kind", "k-nomial")
    # a 4-nomial tree: rail-aware, 416 of its 448 edges crossing rails go over NVLink; naive, 7 cross
    until(lambda: row_of(page, "trees-rails", "rail-aware")[2:] == ["511", "448", "416", "32"], 20)
    assert row_of(page, "trees-rails", "naive")[2:] == ["511", "7", "7", "0"]
    until(lambda: shared(page).params.get("trees", {}).get("kind") == "knomial", 10, msg="no k-nomial in the link")
    page.click("#trees-presets summary")
    page.click("#trees-use-preset")  # the Sunway supernode: no rails, no panel
    until(lambda: row_of(page, "trees-compare", "32-ary")[:2] == ["32-ary", "2"], 40)
    until(lambda: text(page, "#trees-rails") == "", 10)
    assert page.duo.get_logs() == []


# ------------------------------------------------------------------ Build, and large communicators as background jobs
# every process of TaihuLight (40,960 on its 46,144-node fabric), binary trees: a few seconds of trees on this machine,
# so the page computes them as a background job with a progress bar and Cancel (4,096 processes take a fraction of a
# second since a tree's edges are routed together: too fast to watch and cancel)
HEAVY = Scenario(spec="pruned-fat-tree:preset=taihulight", params={"trees": {"k": 2, "degree": 2}})
HELD_S = 6  # the first stage of HEAVY's job is held so long (the whole job takes 2-5 s: it could end before Cancel)


def job_running(page) -> bool:
    return "running" in (page.duo.find_element("#trees-views-job").get_attribute("class") or "")


def test_build_applies_the_controls_and_refuses_a_huge_k_at_once(page):
    page.open("/trees", counts=None)
    until(lambda: row_of(page, "trees-compare", "4-ary")[:3] == ["4-ary", "2", "10"], 30)
    page.type_into("#trees-k", "1000000000")
    started = time.monotonic()
    page.click("#trees-build")
    page.duo.wait_for_contains_text(
        "#trees-message", "⚠ k (width / base): enter a whole number from 2 to 1024", timeout=5
    )
    assert time.monotonic() - started < 2  # one quick request (the limit: 1 s on the server, plus the browser)
    assert shared(page).params.get("trees", {}).get("k", 4) == 4
    page.type_into("#trees-k", "8")
    page.click("#trees-build")
    until(lambda: row_of(page, "trees-compare", "8-ary")[:3] == ["8-ary", "2", "8"], 30)
    until(lambda: text(page, "#trees-message") == "", 10)
    until(lambda: shared(page).params.get("trees", {}).get("k") == 8, 10, msg="the share link does not carry k = 8")
    assert not job_running(page)  # 16 processes: computed in the request, no job
    assert page.duo.get_logs() == []


def test_a_large_communicator_is_a_background_job_with_progress_and_cancel(fresh_page, monkeypatch):
    page = fresh_page
    trees_page = importlib.import_module("vizcoll.ui.pages.trees.page")  # the app's: Dash imports its pages afresh
    prepare = trees_page.prepare

    def held(key, plan, progress):  # the job, forked from this process, holds its first stage: Cancel comes first
        progress.stage(0)
        time.sleep(HELD_S)
        prepare(key, plan, progress)

    monkeypatch.setattr(trees_page, "prepare", held)
    open_scenario(page, HEAVY)
    until(lambda: job_running(page), 30, msg="the job bar never showed")
    until(lambda: text(page, "#trees-views-progress-text").startswith(("building the ", "drawing the ")), 30)
    assert page.duo.find_element("#trees-build").get_attribute("disabled") == "true"  # no second run meanwhile
    assert "in the background" in text(page, "#trees-compare")
    page.screenshot("trees-job-running.png")
    page.click("#trees-views-cancel")
    until(lambda: not job_running(page), 10, msg="Cancel did not stop the job")
    page.duo.wait_for_contains_text("#trees-compare", "⚠ Cancelled: the trees were not computed", timeout=10)
    time.sleep(HELD_S + 2)  # past the hold: nothing comes back from the cancelled job
    assert "Cancelled" in text(page, "#trees-compare") and not job_running(page)
    assert page.duo.find_element("#trees-build").get_attribute("disabled") is None

    monkeypatch.setattr(trees_page, "prepare", prepare)
    page.click("#trees-build")  # the same settings again: the views are computed this time
    until(lambda: job_running(page), 20)
    until(lambda: row_of(page, "trees-compare", "2-ary")[:2] == ["2-ary", "15"], 90)
    until(lambda: not job_running(page), 10)
    page.duo.wait_for_contains_text("#trees-logical", "2-ary tree over 40,960 processes", timeout=60)
    page.duo.wait_for_contains_text("#trees-t2-info", "Type II trees")
    # the job's last stage: the aggregation of every process of TaihuLight plays on the overview
    page.duo.wait_for_contains_text("#trees-player-position", "step 0 of", timeout=60)
    for _ in range(12):
        page.click("#trees-player-forward")
    page.duo.wait_for_contains_text("#trees-player-position", "step 12 of", timeout=20)
    page.driver.execute_script("document.getElementById('trees-mapped').scrollIntoView({block: 'start'});")
    page.screenshot("trees-taihulight-aggregation.png")
    page.click("#trees-player-last")
    page.duo.wait_for_contains_text("#trees-player-caption", "Every vertex has the result 838840320", timeout=20)
    scroll = "document.getElementById('trees-t2-mincost').scrollIntoView({block: 'center'});"
    page.driver.execute_script(scroll)  # the type II views come on the screen after the job drew them: they stay
    time.sleep(2)
    assert "Computed in the background" not in text(page, "#trees-t2-mincost")
    assert page.duo.get_logs() == []
