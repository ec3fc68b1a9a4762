"""The erasure-code page: click a block for its repair group, click a DC to fail it, switch the code family."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from vizcoll.erasure.compare import measure
from vizcoll.scenario import Scenario
from vizcoll.ui.store import DEFAULT_SCENARIO

from .browser_helpers import full_page_screenshot, text

# the screen position of a point of the DC figure: block i (``["block", i]``) or the square of DC z
POINT = """
const gd = document.querySelector('#era-dc-fig .js-plotly-plot');
if (!gd || !gd._fullLayout || !gd.data) return null;
let at = null;
for (const trace of gd.data) {
  (trace.customdata || []).forEach((c, j) => {
    if (c && c[0] === arguments[0] && c[1] === arguments[1]) at = [trace.x[j], trace.y[j]];
  });
}
if (!at) return null;
gd.scrollIntoView({block: 'center'});
const fl = gd._fullLayout, box = gd.getBoundingClientRect();
return [box.left + fl._size.l + fl.xaxis.d2p(at[0]), box.top + fl._size.t + fl.yaxis.d2p(at[1])];
"""


def click_point(page, kind: str, index: int) -> None:
    point = until(lambda: page.driver.execute_script(POINT, kind, index), 20, msg=f"no {kind} {index} drawn")
    ActionChains(page.driver).move_to_location(int(round(point[0])), int(round(point[1]))).click().perform()


def choose(page, dropdown_id: str, label: str) -> None:
    """Open a dcc.Dropdown and click its option ``label`` (not a chart's tick label with the same text)."""
    page.click(f"#{dropdown_id}")
    xpath = f"//*[not(ancestor-or-self::*[local-name()='svg']) and normalize-space(text())='{label}']"
    option = until(lambda: [e for e in page.driver.find_elements(By.XPATH, xpath) if e.is_displayed()], 10)
    option[-1].click()


def bar_names(page) -> list[str]:
    return (
        page.driver.execute_script(
            "const g = document.querySelector('#era-compare .js-plotly-plot');"
            "return g && g.data && g.data[0] ? g.data[0].x : [];"
        )
        or []
    )


def test_erasure_page_repair_groups_dc_failures_and_families(page):
    page.open("/erasure", counts=None)
    page.wait_for_text("#era-summary", "FMEL(9,5)", timeout=90)
    until(lambda: "FMEL ◀" in bar_names(page), 30)
    page.duo.wait_for_contains_text("#era-compare-table", "42.9–56.0 %", timeout=20)

    # a block's repair group, with the cross-DC count the engine computes
    expected = measure("fmel", 9, 5, 3)["repair_groups"]
    for block in (4, 8):
        click_point(page, "block", block)
        r = expected[block]
        page.duo.wait_for_contains_text("#era-status", f"Rebuilding y{block} ", timeout=20)
        assert f"cross-DC traffic {r['cross_dc']} block{'s' * (r['cross_dc'] != 1)} (per remote block read)" in text(
            page, "#era-status"
        )
    until(
        lambda: (
            page.driver.execute_script(  # one arrowhead per block read
                "const g = document.querySelector('#era-dc-fig .js-plotly-plot');"
                "return g.data.map(t => Array.isArray(t.marker.symbol)"
                " ? t.marker.symbol.filter(s => s === 'arrow').length : 0).reduce((a, b) => a + b, 0);"
            )
            == len(expected[8]["group"])
        ),
        10,
    )
    ActionChains(page.driver).move_to_element(page.duo.find_element(".navbar .brand")).perform()  # no tooltip
    full_page_screenshot(page, "erasure.png")

    # fail a DC, then a second one
    click_point(page, "dc", 0)
    page.duo.wait_for_contains_text("#era-status", "The stripe survives the loss of DC 0", timeout=20)
    click_point(page, "dc", 1)
    page.duo.wait_for_contains_text("#era-status", "Data lost: with DC 0, 1 down", timeout=20)
    page.click("#era-restore")
    until(lambda: "Data lost" not in text(page, "#era-status"), 10)

    # another family: the chart marks it, the summary follows
    choose(page, "era-code", "Reed–Solomon")
    page.duo.wait_for_contains_text("#era-summary", "RS(9,5)", timeout=60)
    until(lambda: "RS ◀" in bar_names(page), 20)
    click_point(page, "block", 0)
    page.duo.wait_for_contains_text("#era-status", "cross-DC traffic 3 blocks (per remote block read)", timeout=20)
    until(lambda: shared_params(page).get("code") == "rs", 10, msg="the share link does not carry the code")
    assert page.duo.get_logs() == []


def shared_params(page) -> dict:
    """The erasure parameters the shell's share link carries."""
    href = page.duo.find_element("#share-link").get_attribute("href")
    return Scenario.from_fragment(href.partition("#s=")[2]).params.get("erasure", {})


def test_absurd_parameters_give_a_message_not_a_trace(page):
    page.open("/erasure#s=" + DEFAULT_SCENARIO.with_params("erasure", {"code": "rs"}).to_fragment(), counts=None)
    page.duo.wait_for_contains_text("#era-summary", "RS(9,5)", timeout=60)
    page.type_into("#era-n", "400\n")
    page.duo.wait_for_contains_text("#era-message", "above the limit of 32", timeout=20)
    page.type_into("#era-n", "4\n")
    page.duo.wait_for_contains_text("#era-message", "k = 5 data blocks cannot exceed n = 4", timeout=20)
    page.type_into("#era-n", "9\n")
    page.duo.wait_for_text_to_equal("#era-message", "", timeout=20)  # n = 9 built before the next field is typed
    page.type_into("#era-dcs", "0\n")
    page.duo.wait_for_contains_text("#era-message", "must be at least 1", timeout=20)
    assert "Traceback" not in text(page, "#era-message")
    page.duo.wait_for_contains_text("#era-summary", "RS(9,5)", timeout=5)  # the last good result stays
    assert page.duo.get_logs() == []


def job_class(page, prefix: str) -> str:
    return page.duo.find_element(f"#{prefix}-job").get_attribute("class")


def test_the_n_32_search_runs_as_a_job_with_its_progress(fresh_page):
    page = fresh_page
    wide = {"n": 32, "k": 16, "dcs": 8, "code": "fmel"}
    page.open("/erasure#s=" + DEFAULT_SCENARIO.with_params("erasure", wide).to_fragment(), counts=None)
    # the search (about 5 s on two cores) runs in a background job: the bar says how far it is
    until(lambda: job_class(page, "era-build") == "job running", 20, msg="the build's job bar never showed")
    page.duo.wait_for_contains_text("#era-build-progress-text", "FMEL search: ", timeout=60)
    assert page.duo.find_element("#era-build-progress").get_attribute("max") == "151"  # 150 schemes + the metrics
    page.duo.wait_for_contains_text("#era-summary", "FMEL(32,16): n = 32, k = 16, N = 8", timeout=120)
    until(lambda: job_class(page, "era-build") == "job", 10)
    # then the comparison of every family, family by family
    page.duo.wait_for_contains_text("#era-compare-progress-text", "Comparing: ", timeout=60)
    until(lambda: "FMEL ◀" in bar_names(page), 180)
    until(lambda: job_class(page, "era-compare") == "job", 10)
    click_point(page, "block", 31)
    page.duo.wait_for_contains_text("#era-status", "Rebuilding y31 ", timeout=20)
    assert page.duo.get_logs() == []
