"""The multicast page on the shared scenario: both algorithms' EFI, every control driving the view, a link broken by
clicking it on a heatmap (the badge follows), the teaching preset replacing the scenario, and the fabric's multicast
tables (opensm.mcfdbs) loaded beside FULB-MC."""

from __future__ import annotations

import pytest
from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from vizcoll.multicast.mcfdbs import dump_mcfdbs
from vizcoll.multicast.routing import route_communicators
from vizcoll.scenario import Scenario
from vizcoll.ui.store import DEFAULT_SCENARIO

from .browser_helpers import full_page_screenshot

TEACHING = "pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4"


@pytest.fixture
def mc(page):
    page.driver.set_window_size(1400, 1000)
    return page


def summary_cell(page, row: str, column: int) -> str:
    """Text of one cell of the summary table, read in one script (the table re-renders under us)."""
    rows = page.driver.execute_script(
        "return [...document.querySelectorAll('#mc-summary tr')]"
        ".map(tr => [...tr.querySelectorAll('td, th')].map(td => td.textContent));"
    )
    return next((cells[column] for cells in rows if cells and cells[0] == row), "")


def trace_names(page, graph_id: str) -> list[str]:
    return page.driver.execute_script(
        f"const g = document.querySelector('#{graph_id} .js-plotly-plot');"
        "return g && g.data ? g.data.map(t => t.name || '') : [];"
    )


def badge(page) -> str:
    return page.duo.find_element("#scenario-badge").text


def wait_for_badge(page, *parts: str, timeout: float = 20) -> None:
    until(lambda: all(p in badge(page) for p in parts), timeout, msg=f"the badge never showed {parts}: {badge(page)!r}")


def choose(page, dropdown_id: str, text: str) -> None:
    """Open a dcc.Dropdown and click the option with this text (Dash 4 renders the menu in a popover)."""
    page.click(f"#{dropdown_id}")
    option = until(lambda: page.driver.find_elements(By.XPATH, f"//*[normalize-space(text())='{text}']"), 10)
    option[-1].click()


def shared(page) -> Scenario:
    """The scenario the shell's share link carries."""
    href = page.duo.find_element("#share-link").get_attribute("href")
    return Scenario.from_fragment(href.partition("#s=")[2])


def link_point(page, graph_id: str, label: str):
    """Viewport coordinates of the hover point in the middle of link ``label`` on a heatmap (None: not drawn)."""
    return page.driver.execute_script(
        """
        const g = document.querySelector('#' + arguments[0] + ' .js-plotly-plot');
        if (!g || !g._fullData || !g._fullLayout) return null;
        const t = g._fullData.find(t => t.name === 'links');  // decoded arrays (g.data holds base64 numpy)
        const i = t ? (t.customdata || []).indexOf(arguments[1]) : -1;
        if (i < 0) return null;
        g.scrollIntoView({block: 'center'});
        const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis, box = g.getBoundingClientRect();
        const p = [box.left + xa._offset + xa.l2p(t.x[i]), box.top + ya._offset + ya.l2p(t.y[i])];
        return p.every(Number.isFinite) ? p : null;""",
        graph_id,
        label,
    )


def click_link(page, graph_id: str, label: str) -> None:
    """A real mouse click on the middle of a link, where Plotly drew it."""
    point = until(lambda: link_point(page, graph_id, label), 20, msg=f"{label} is not drawn on #{graph_id}")
    ActionChains(page.driver).move_to_location(int(round(point[0])), int(round(point[1]))).click().perform()


def test_the_preset_a_changed_algorithm_and_a_link_broken_on_the_heatmap(mc):
    page = mc
    page.open("/multicast", counts=None)
    # the default scenario: the landing fat tree with its broken cable, its 4x4 grid of communicators
    wait_for_badge(page, "fat-tree:radix=4,levels=3", "1 broken")
    page.duo.wait_for_contains_text("#mc-summary", "A: minhop-new", timeout=30)
    until(lambda: summary_cell(page, "groups", 1) == "8", 20)
    page.duo.wait_for_contains_text("#mc-fabric", "fat-tree:radix=4,levels=3 (20 switches, 16 end nodes")
    until(lambda: "broken link (1)" in trace_names(page, "mc-fig-a"), 20)
    assert page.duo.get_logs() == []

    # the teaching preset replaces the shared scenario: the badge says so, MINIHOP-MC-new 8 vs FULB-MC 3
    page.click("#mc-use-preset")
    wait_for_badge(page, TEACHING, "36 switches", "64 end nodes", "192 links", "0 broken")
    until(lambda: summary_cell(page, "max EFI", 1) == "8" and summary_cell(page, "max EFI", 2) == "3", 30)
    assert summary_cell(page, "groups", 1) == "24"
    page.duo.wait_for_contains_text("#mc-fig-a", "A: minhop-new (max EFI 8;", timeout=20)
    page.duo.wait_for_contains_text("#mc-fig-b", "B: fulb (max EFI 3;")
    page.duo.wait_for_contains_text("#mc-worst", "Worst links under A (minhop-new): ")
    until(
        lambda: shared(page).spec == TEACHING and shared(page).pattern == "grid2d:16x8",
        10,
        msg="the share link does not carry the preset",
    )

    # changing algorithm B routes again at once: the summary, the figure and the share link follow
    choose(page, "mc-algo-b", "sssp")
    until(lambda: summary_cell(page, "", 2) == "B: sssp", 20)
    page.duo.wait_for_contains_text("#mc-fig-b", "B: sssp (max EFI", timeout=20)
    until(lambda: shared(page).params.get("multicast", {}).get("b") == "sssp", 10)
    choose(page, "mc-algo-b", "fulb")
    until(lambda: summary_cell(page, "max EFI", 2) == "3", 20)

    # a group highlighted: its tree on both heatmaps, its join/leave protocol on the player
    choose(page, "mc-group", "group 3: 4 members (h12, h13, h14, …)")
    page.duo.wait_for_contains_text(
        "#mc-group-info", "Group 3 (4 members: h12, h13, h14, h15) — A minhop-new: root", timeout=20
    )
    until(lambda: "selected tree" in trace_names(page, "mc-fig-a"), 20)
    page.duo.wait_for_contains_text("#mc-player-position", "step 0 of", timeout=20)

    # a click on the worst link of A's heatmap breaks it in the scenario: the badge, the drawing and the routes
    worst = page.duo.find_element("#mc-worst").text.split("Worst links under A (minhop-new): ")[1].split(" ")[0]
    click_link(page, "mc-fig-a", worst)
    wait_for_badge(page, "1 broken", worst)
    until(lambda: "broken link (1)" in trace_names(page, "mc-fig-a"), 20)
    until(lambda: worst not in page.duo.find_element("#mc-worst").text, 20, msg="the broken link still carries groups")
    assert summary_cell(page, "unroutable groups", 1) == "0"
    until(lambda: shared(page).broken == [worst], 10, msg="the share link does not carry the break")

    # and a click on it again (on B's heatmap, once B is drawn with the break) repairs it
    until(lambda: "broken link (1)" in trace_names(page, "mc-fig-b"), 20)
    click_link(page, "mc-fig-b", worst)
    wait_for_badge(page, "0 broken", "no broken links")
    until(lambda: summary_cell(page, "max EFI", 1) == "8", 20)
    # the page's picture last: the shot resizes the window, and the heatmaps redraw for a while after it (a click
    # computed meanwhile would miss its link)
    full_page_screenshot(page, "multicast.png")
    assert page.duo.get_logs() == []


def test_a_reload_keeps_the_page_settings_and_bad_communicators_give_a_message(mc):
    page = mc
    page.open("/multicast", counts=None)
    until(lambda: summary_cell(page, "groups", 1) == "8", 30)
    choose(page, "mc-algo-a", "sssp-new")
    until(lambda: summary_cell(page, "", 1) == "A: sssp-new", 20)
    # a reload opens the address bar's scenario: the share link's, which its own callbacks write
    until(lambda: shared(page).params.get("multicast", {}).get("a") == "sssp-new", 10, msg="no sssp-new in the link")
    href = page.duo.find_element("#share-link").get_attribute("href")
    until(lambda: page.driver.current_url == href, 10, msg="the address bar does not show the share link")
    page.driver.refresh()
    until(lambda: summary_cell(page, "", 1) == "A: sssp-new", 30)
    assert page.duo.find_element("#mc-algo-a").text.strip().startswith("sssp-new")
    # a share link whose communicators do not fit the fabric: a message on the page, no exception
    broken = Scenario(spec="fat-tree:radix=4,levels=2", lists=[["h0", "nobody"]])
    page.duo.wait_for_page(f"{page.base}/multicast#s={broken.to_fragment()}", timeout=20)
    page.driver.refresh()
    page.duo.wait_for_contains_text("#mc-status", "⚠ The scenario's communicators do not fit its fabric", timeout=30)
    assert page.duo.get_logs() == []


def rails_row(page, first: str) -> list[str]:
    """The cells of the rails panel's row that starts with ``first``, read in one script."""
    rows = page.driver.execute_script(
        "return [...document.querySelectorAll('#mc-rails tbody tr')]"
        ".map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent));"
    )
    return next((cells for cells in rows if cells and cells[0] == first), [])


def test_on_a_rail_fabric_the_rails_panel_counts_the_groups_spanning_rails(mc):
    page = mc
    rails = Scenario(spec="rail-fat-tree:servers=64,rails=8,radix=16", pattern="grid2d:32x16")  # 8 rails, unlinked
    page.open(f"/multicast#s={rails.to_fragment()}", counts=None)
    page.duo.wait_for_contains_text("#mc-rails", "Rail fabric: 8 rails, 64 servers, no link between rails", timeout=30)
    # 32 rows of 16 ranks, 16 columns of 32: [groups, spanning more than one rail, most rails a group spans]
    until(lambda: rails_row(page, "rail-aware")[2:] == ["48", "32", "8"], 20)  # the rows: two servers, 8 rails
    assert rails_row(page, "naive")[2:] == ["48", "16", "8"]  # the columns: every rail
    # the routes agree: without links between rails, the 32 groups spanning rails have no tree
    until(lambda: summary_cell(page, "unroutable groups", 1) == "32", 30)
    assert page.duo.get_logs() == []


def test_the_fabrics_multicast_tables_beside_fulb(mc, tmp_path):
    page = mc
    landing = DEFAULT_SCENARIO.topology()
    comms = DEFAULT_SCENARIO.communicators(landing)
    minhop, fulb = tmp_path / "minhop" / "opensm.mcfdbs", tmp_path / "fulb" / "opensm.mcfdbs"
    for path, algo in ((minhop, "minhop"), (fulb, "fulb")):
        path.parent.mkdir()
        path.write_text(dump_mcfdbs(landing, route_communicators(landing, comms, algo)))
    page.open("/multicast", counts=None)
    until(lambda: summary_cell(page, "groups", 1) == "8", 30)
    page.duo.wait_for_contains_text("#mc-tables-info", "No tables loaded")

    # MINIHOP-MC's tables: A becomes the fabric's tables, B (FULB-MC) routes the same groups on other links
    page.upload("mc-tables-upload", minhop)
    until(lambda: summary_cell(page, "", 1) == "A: the fabric's tables", 30)
    assert summary_cell(page, "", 2) == "B: fulb" and summary_cell(page, "groups", 1) == "8"
    page.duo.wait_for_contains_text("#mc-summary", "B (fulb) loads ", timeout=20)
    page.duo.wait_for_contains_text("#mc-tables-info", "Loaded: 8 groups (MLID 0xC001–0xC008)")
    page.duo.wait_for_contains_text("#mc-fig-a", "A: the fabric's tables (max EFI", timeout=20)
    page.duo.wait_for_contains_text("#mc-fabric", "8 multicast groups from the fabric's tables")
    assert page.duo.find_element("#mc-algo-a").text.strip().startswith("the fabric's tables (OpenSM)")
    until(lambda: shared(page).mcast_tables == minhop.read_text(), 10)
    choose(page, "mc-group", "group 2 (MLID 0xC003): 4 members (h8, h9, h10, …)")
    page.duo.wait_for_contains_text("#mc-group-info", "A the fabric's tables: centre ", timeout=20)
    full_page_screenshot(page, "multicast-tables.png")

    # FULB-MC's own tables: the same EFI on every link, and the summary says so
    page.upload("mc-tables-upload", fulb)
    page.duo.wait_for_contains_text("#mc-summary", "Same EFI on every link: B (fulb) puts exactly as many", timeout=30)
    # a file that does not fit the fabric: a message, the tables stay
    other = tmp_path / "other.mcfdbs"
    other.write_text(fulb.read_text().replace("Switch 0x0002c9", "Switch 0x0005c9", 1))
    page.upload("mc-tables-upload", other)
    page.duo.wait_for_contains_text(
        "#mc-tables-message", "⚠ other.mcfdbs was not loaded: mcfdbs: switch GUID", timeout=20
    )
    until(lambda: shared(page).mcast_tables == fulb.read_text(), 10, msg="the share link lost FULB-MC's tables")
    # forget them: back to the communicators; the same file loads again
    page.click("#mc-tables-forget")
    until(lambda: summary_cell(page, "", 1) == "A: minhop-new", 30)
    page.duo.wait_for_contains_text("#mc-tables-info", "No tables loaded")
    page.upload("mc-tables-upload", minhop)
    until(lambda: summary_cell(page, "", 1) == "A: the fabric's tables", 30)
    assert page.duo.get_logs() == []


# ------------------------------------------------------------------ a large fabric: the routes are a background job
# the 64-port fat tree (70,656 nodes) with 16,384 random groups of 4 (as many as InfiniBand has multicast LIDs)
# routed by SSSP-MC, then by SSSP-MC-new: the routes' job routes them by A, a few seconds on two cores (4.7 s in
# process in 2026-12; 5,120 groups of 12 took 2.1 s since SSSP-MC got cheaper per group, too fast to watch and cancel),
# with a progress bar and Cancel; B's job follows it (TaihuLight's 416 groups route in a fraction of a second)
LARGE = Scenario(
    spec="fat-tree:radix=64,levels=3",
    pattern="random:16384,size=4",
    params={"multicast": {"a": "sssp", "b": "sssp-new"}},
)


def job_running(page) -> bool:
    return "running" in (page.duo.find_element("#mc-routes-job").get_attribute("class") or "")


def test_a_large_fabric_is_routed_in_a_job_with_progress_and_cancel(fresh_page):
    page = fresh_page
    page.open(f"/multicast#s={LARGE.to_fragment()}", counts=None)
    until(lambda: job_running(page), 30, msg="the job bar never showed")
    page.duo.wait_for_contains_text("#mc-routes-progress-text", "routing ", timeout=30)  # 16,384 groups, by A
    page.duo.wait_for_contains_text("#mc-status", "in the background", timeout=30)  # another callback than the job
    page.screenshot("multicast-job-running.png")
    assert page.duo.find_element("#mc-use-preset").get_attribute("disabled") == "true"  # no second job meanwhile
    page.click("#mc-routes-cancel")
    until(lambda: not job_running(page), 10, msg="Cancel did not stop the job")
    page.duo.wait_for_contains_text("#mc-status", "⚠ Cancelled: the groups were not routed", timeout=10)
    assert page.duo.find_element("#mc-use-preset").get_attribute("disabled") is None

    choose(page, "mc-algo-a", "minhop-new")  # a control changed: the job runs again, to its end this time
    until(lambda: job_running(page), 20)
    until(lambda: summary_cell(page, "max EFI", 1) != "", 120, msg="the job's views never came")  # A's, first
    until(lambda: not job_running(page), 10)  # B's job follows under a bar of its own
    until(lambda: shared(page).params["multicast"].get("a") == "minhop-new", 10, msg="no minhop-new in the link")
    assert "Cancelled" not in page.duo.find_element("#mc-status").text
    assert page.duo.get_logs() == []
