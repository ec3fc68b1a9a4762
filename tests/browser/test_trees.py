"""The trees page: build and compare trees, the F(k) curve, type II trees, the aggregation player, broken links."""

from __future__ import annotations

from dash.testing.wait import until

from .browser_helpers import full_page_screenshot


def table_rows(page, table_id: str) -> list[list[str]]:
    """The body cells of a table, read in one script (the table re-renders under us)."""
    return page.driver.execute_script(
        f"return [...document.querySelectorAll('#{table_id} tbody tr')]"
        ".map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent));")


def row_of(page, table_id: str, first: str) -> list[str]:
    return next((cells for cells in table_rows(page, table_id) if cells and cells[0] == first), [])


def trace_names(page, graph_id: str) -> list[str]:
    return page.driver.execute_script(
        f"const g = document.querySelector('#{graph_id} .js-plotly-plot');"
        "return g && g.data ? g.data.map(t => t.name || '') : [];")


def text(page, selector: str) -> str:
    return page.duo.find_element(selector).text


def scroll_to(page, selector: str) -> None:
    page.driver.execute_script(f"document.querySelector({selector!r}).scrollIntoView({{block: 'start'}});")




def test_trees_page_compares_trees_and_plays_the_aggregation(page):
    page.open("/trees", counts=None)
    # the comparison table: the default fabric is fat-tree:radix=4,levels=3 with 16 processes and k = 4
    until(lambda: row_of(page, "trees-compare", "4-ary")[:3] == ["4-ary", "2", "10"], 30)
    assert row_of(page, "trees-compare", "4-ary")[3] == "12 (agg0.0–core0)"  # the paper's Fig. 7 bottleneck
    assert row_of(page, "trees-compare", "4-nomial")[3] == "6 (h0–edge0.0)"
    hier = row_of(page, "trees-compare", "hierarchical 4-nomial")
    assert hier[1:3] == ["3", "12"] and hier[-1] == "3.480"
    assert any(cells[0].startswith("type II min-cost") for cells in table_rows(page, "trees-compare"))

    page.duo.wait_for_contains_text("#trees-logical", "4-ary tree over 16 processes: height 2", timeout=20)
    page.duo.wait_for_contains_text("#trees-mapped", "max 12 packets on one link")
    until(lambda: "root: rank 0" in trace_names(page, "trees-logical"), 10)
    until(lambda: "k* = 41 (F* = 1.142 μs)" in trace_names(page, "trees-fk"), 20)
    assert any(name.startswith("|F(k) − F*| ≤ ε = 0.1 μs") for name in trace_names(page, "trees-fk"))
    assert row_of(page, "trees-selection", "no type II available")
    page.duo.wait_for_contains_text("#trees-t2-info", "needs 5 switches")
    page.duo.wait_for_contains_text("#trees-t2-physical", "Physical tree T: 13 switches hold an entry")
    page.duo.wait_for_contains_text("#trees-t2-mincost", "Min-cost tree A (degree ≤ 4): 5 switches")

    # the aggregation: play a few steps, then jump to the end
    page.duo.wait_for_contains_text("#trees-player-position", "step 0 of", timeout=20)
    page.duo.wait_for_contains_text("#trees-anim-summary", "Result 120")
    scroll_to(page, ".player-panel")
    page.click("#trees-player-play")
    until(lambda: int(text(page, "#trees-player-position").split()[1]) >= 3, 20)
    page.click("#trees-player-play")  # pause mid-way: the packets on the move are drawn
    page.screenshot("trees-animation.png")
    page.click("#trees-player-last")
    page.duo.wait_for_contains_text("#trees-player-caption", "Every vertex has the result 120", timeout=20)
    assert "correct ✓" in text(page, "#trees-anim-summary")
    full_page_screenshot(page, "trees.png")
    assert page.duo.get_logs() == []


def test_a_broken_link_on_the_tree_is_flagged_and_the_tree_rebuilt(page):
    page.open("/trees?kind=kary&broken=32", counts=None)
    page.duo.wait_for_contains_text("#trees-flag", "route over broken link 32", timeout=30)
    assert "Nothing to play" in text(page, "#trees-player-caption")
    rebuild = page.duo.find_element("#trees-rebuild")
    assert rebuild.is_displayed()
    scroll_to(page, ".player-panel")
    rebuild.click()
    page.duo.wait_for_contains_text("#trees-flag", "Rebuilt: the 4-ary tree keeps its shape", timeout=20)
    until(lambda: not page.duo.find_element("#trees-rebuild").is_displayed(), 10)
    page.duo.wait_for_contains_text("#trees-player-position", "step 0 of", timeout=20)
    page.click("#trees-player-last")
    page.duo.wait_for_contains_text("#trees-player-caption", "Every vertex has the result 120", timeout=20)

    page.type_into("#trees-nprocs", "100")  # more processes than the fabric holds: a message, the last view stays
    page.click("#trees-build")
    page.duo.wait_for_contains_text("#trees-message", "⚠", timeout=20)
    assert row_of(page, "trees-compare", "4-ary")[1] == "2"
    assert page.duo.get_logs() == []
