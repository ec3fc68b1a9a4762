"""Parallel cables (two cables between the same two switches, on other ports) drawn apart and honest: on the
topology canvas and on an EFI heatmap each cable has its own curve, the hover names the cable under the pointer
with its own value, and a click breaks exactly that cable (its label in the badge)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains

from vizcoll.scenario import Scenario
from vizcoll.topology import io as topo_io

from .browser_helpers import counts_line, full_page_screenshot

CLUSTER = Path(__file__).resolve().parents[1] / "data" / "cluster" / "stanzas.txt"
COUNTS = counts_line(5, 9, 22, 0, 36)  # 5 switches, 9 HCAs, 22 cables: two between each leaf and each spine
TOPO = topo_io.parse(CLUSTER.read_text(), CLUSTER.name)
HOT, COLD = TOPO.link_label(0), TOPO.link_label(1)  # spine-2 to rack-1 (8c10): ports 1-33 and 3-34
# three hosts per leaf, a 3 x 3 grid: MINIHOP-MC-new routes two groups over link 0 and none over link 1
SCENARIO = dataclasses.replace(Scenario.from_upload(TOPO, CLUSTER.name), pattern="grid2d:3x3")


def wait(condition, describe, timeout: float = 20) -> None:
    """Wait until ``condition()`` holds; the failure says what ``describe()`` saw."""
    try:
        until(condition, timeout)
    except Exception as exc:
        raise AssertionError(f"never true; last seen: {describe()!r}") from exc


def badge(page) -> str:
    return page.duo.find_element("#scenario-badge").text


def shared(page) -> Scenario:
    href = page.duo.find_element("#share-link").get_attribute("href")
    return Scenario.from_fragment(href.partition("#s=")[2])


def test_the_canvas_draws_parallel_cables_apart_and_a_click_breaks_the_cable_clicked(page):
    page.driver.set_window_size(1400, 1000)
    page.open(f"/topology#s={SCENARIO.to_fragment()}", counts=COUNTS)
    hot, cold = "edge[link = 0]", "edge[link = 1]"
    styles = page.cy(f"return [cy.$({hot!r}).style('curve-style'), cy.$({cold!r}).style('curve-style')];")
    assert styles == ["unbundled-bezier", "unbundled-bezier"]
    middles = page.cy(f"return [cy.$({hot!r}).renderedMidpoint(), cy.$({cold!r}).renderedMidpoint()];")
    apart = math.dist(*([m["x"], m["y"]] for m in middles))
    assert apart >= 8, f"the two parallel cables are drawn {apart:.1f} px apart"

    page.hover_element(cold)  # the hover names the cable under the pointer
    page.duo.wait_for_contains_text(
        "#topo-hover",
        "link 1: MF0;spine-2:MQM8700/U1[3] – Voltaire 4036 # rack-1 (8c10)[34] · cable 2 of 2 between these two",
    )
    page.hover_element(hot)
    page.duo.wait_for_contains_text(
        "#topo-hover", "link 0: MF0;spine-2:MQM8700/U1[1] – Voltaire 4036 # rack-1 (8c10)[33] · cable 1 of 2"
    )
    page.click_element(cold)  # a click breaks exactly the cable clicked, and names it in the link field
    wait(lambda: "1 broken" in badge(page) and COLD in badge(page), lambda: badge(page))
    wait(lambda: page.value("#topo-link-id") == COLD, lambda: page.value("#topo-link-id"))
    until(
        lambda: (
            page.cy(f"return [cy.$({hot!r}).hasClass('broken'), cy.$({cold!r}).hasClass('broken')];") == [False, True]
        ),
        10,
        msg="the broken class is not on the clicked cable alone",
    )
    wait(lambda: shared(page).broken == [COLD], lambda: shared(page).broken, 10)  # the share link: its own callback
    page.screenshot("parallel-cables-canvas.png")
    assert page.duo.get_logs() == []


def hover_points(page, graph_id: str) -> dict:
    """Link label -> viewport coordinates of its hover point on a heatmap (empty while it is not drawn)."""
    return page.driver.execute_script(
        """
        const g = document.querySelector('#' + arguments[0] + ' .js-plotly-plot');
        if (!g || !g._fullData || !g._fullLayout) return {};
        const t = g._fullData.find(t => t.name === 'links');
        if (!t || !t.customdata) return {};
        g.scrollIntoView({block: 'center'});
        const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis, box = g.getBoundingClientRect();
        return Object.fromEntries(Array.from(t.customdata, (label, i) =>
            [label, [box.left + xa._offset + xa.l2p(t.x[i]), box.top + ya._offset + ya.l2p(t.y[i])]]));""",
        graph_id,
    )


def hover_text(page, graph_id: str) -> str:
    return page.driver.execute_script(
        "const h = document.querySelector('#' + arguments[0] + ' .hoverlayer .hovertext');"
        "return h ? h.textContent : '';",
        graph_id,
    )


def move_to(page, point) -> None:
    ActionChains(page.driver).move_to_location(int(round(point[0])), int(round(point[1]))).perform()


def test_the_heatmap_hovers_each_parallel_cable_with_its_own_efi_and_a_click_breaks_it(page):
    page.driver.set_window_size(1400, 1000)
    page.open(f"/multicast#s={SCENARIO.to_fragment()}", counts=None)
    page.duo.wait_for_contains_text("#mc-fig-a", "max EFI", timeout=30)
    points = until(
        lambda: (p := hover_points(page, "mc-fig-a")) and HOT in p and COLD in p and p,
        20,
        msg="the heatmap has no hover points for the two parallel cables",
    )
    assert math.dist(points[HOT], points[COLD]) >= 8, (points[HOT], points[COLD])

    move_to(page, points[HOT])  # over the loaded cable: its own label and its own EFI
    wait(lambda: "link 0:" in hover_text(page, "mc-fig-a"), lambda: hover_text(page, "mc-fig-a"), 10)
    assert "EFI 2" in hover_text(page, "mc-fig-a") and "cable 1 of 2" in hover_text(page, "mc-fig-a")
    move_to(page, points[COLD])  # a few pixels aside, over its idle twin
    wait(lambda: "link 1:" in hover_text(page, "mc-fig-a"), lambda: hover_text(page, "mc-fig-a"), 10)
    assert "EFI 0" in hover_text(page, "mc-fig-a") and "cable 2 of 2" in hover_text(page, "mc-fig-a")
    full_page_screenshot(page, "parallel-cables-heatmap.png")

    points = hover_points(page, "mc-fig-a")  # the screenshot resized the window: the figure moved
    move_to(page, points[HOT])  # a click on the loaded cable breaks that one, not its twin
    wait(lambda: "link 0:" in hover_text(page, "mc-fig-a"), lambda: hover_text(page, "mc-fig-a"), 10)
    ActionChains(page.driver).click().perform()
    wait(lambda: "1 broken" in badge(page) and HOT in badge(page), lambda: badge(page))
    wait(lambda: shared(page).broken == [HOT], lambda: shared(page).broken, 10)
    assert page.duo.get_logs() == []
