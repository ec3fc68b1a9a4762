"""The multicast page: heatmaps of two algorithms, their comparison, a highlighted tree, the join/leave replay."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.by import By


def summary_cell(page, row: str, column: int) -> str:
    """Text of one cell of the summary table, read in one script (the table re-renders under us)."""
    rows = page.driver.execute_script(
        "return [...document.querySelectorAll('#mc-summary tbody tr')]"
        ".map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent));")
    return next((cells[column] for cells in rows if cells and cells[0] == row), "")


def trace_names(page, graph_id: str) -> list[str]:
    return page.driver.execute_script(
        f"const g = document.querySelector('#{graph_id} .js-plotly-plot');"
        "return g && g.data ? g.data.map(t => t.name || '') : [];")


def choose(page, dropdown_id: str, text: str) -> None:
    """Open a dcc.Dropdown and click the option with this text (Dash 4 renders the menu in a popover)."""
    page.click(f"#{dropdown_id}")
    option = until(lambda: page.driver.find_elements(By.XPATH, f"//*[normalize-space(text())='{text}']"), 10)
    option[-1].click()


def test_multicast_page_compares_algorithms_and_highlights_a_tree(page):
    page.open("/multicast", counts=None)
    page.duo.wait_for_contains_text("#mc-summary", "a: minhop-new", timeout=30)
    until(lambda: summary_cell(page, "max EFI", 1) == "8" and summary_cell(page, "max EFI", 2) == "3", 20)
    page.duo.wait_for_contains_text("#mc-fig-a", "A: minhop-new (max EFI 8)")
    page.duo.wait_for_contains_text("#mc-fig-b", "B: fulb (max EFI 3)")
    page.duo.wait_for_contains_text("#mc-fig-diff", "Difference B − A")
    page.duo.wait_for_contains_text("#mc-worst", "Worst links under A")
    assert "selected tree" not in trace_names(page, "mc-fig-a")

    choose(page, "mc-group", "group 3: 4 members")
    page.duo.wait_for_contains_text("#mc-group-info", "Group 3 — minhop-new: root", timeout=20)
    until(lambda: "selected tree" in trace_names(page, "mc-fig-a"), 20)
    page.duo.wait_for_contains_text("#mc-player-position", "step 0 of", timeout=20)
    page.click("#mc-player-last")
    page.duo.wait_for_contains_text("#mc-player-caption", "torn the group down", timeout=20)
    page.screenshot("multicast.png")

    page.type_into("#mc-pattern", "grid2d:4x4")
    page.click("#mc-route")
    until(lambda: summary_cell(page, "groups", 1) == "8", 20)
    assert page.duo.get_logs() == []


def test_multicast_page_reports_bad_input_and_keeps_working(page):
    page.open("/multicast?spec=torus:3x3x2,hosts=1&pattern=grid2d:3x6&a=minhop&b=sssp-new", counts=None)
    until(lambda: summary_cell(page, "groups", 1) == "9", 30)
    page.type_into("#mc-pattern", "grid2d:100x100")
    page.click("#mc-route")
    page.duo.wait_for_contains_text("#mc-message", "⚠", timeout=20)
    assert "Traceback" not in page.duo.find_element("#mc-message").text
    assert summary_cell(page, "groups", 1) == "9"  # the last good result stays
    assert page.duo.get_logs() == []
