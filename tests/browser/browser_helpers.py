"""Helpers for the browser tests: read the counts bar, talk to cytoscape, click on the canvas, save screenshots."""

from __future__ import annotations

import time
from pathlib import Path

from dash.testing.errors import TestingTimeoutError
from dash.testing.wait import until
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.action_chains import ActionChains

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"

# the cytoscape instance: dash-cytoscape keeps the cytoscape.js registry on the element carrying the id
CY = """
const holder = document.getElementById('topo-canvas');
const reg = holder && (holder._cyreg || [...holder.querySelectorAll('*')].map(e => e._cyreg).find(Boolean));
const cy = reg && reg.cy;
"""


def counts_line(switches, endpoints, links, broken, max_ports) -> str:
    """The text of the counts bar (#topo-counts), one count a line as the browser renders the flex items."""
    parts = [
        (switches, "switch", "switches"),
        (endpoints, "end node", "end nodes"),
        (links, "link", "links"),
        (broken, "broken link", "broken links"),
        (max_ports, "max ports", "max ports"),
    ]
    return "\n".join(f"{value:,} {one if value == 1 else many}" for value, one, many in parts)


DEFAULT_COUNTS = counts_line(20, 16, 48, 1, 4)  # the default scenario: fat-tree:radix=4,levels=3, link 17 broken


PAGE_STATE = """
const texts = [...document.querySelectorAll('.job-text, .flag, .message')].map(e => e.id + ': ' + e.textContent.trim());
const running = [...document.querySelectorAll('.job.running')].map(e => e.id);
return {jobs: running, texts: texts.filter(t => !t.endsWith(': '))};
"""


def page_report(driver) -> str:
    """What the page shows (its running jobs, their progress texts, its messages) and the job pool's state."""
    from vizcoll.ui import jobs

    pool = jobs.manager()
    state = pool._state() if hasattr(pool, "_state") else {}
    now = time.time()
    entries = [
        f"{e['state']} pid {e['pid']} for {now - (e['started'] or now):.0f} s" for e in state.get("jobs", {}).values()
    ]
    thread = getattr(pool, "_thread", None)
    return (
        f"page: {driver.execute_script(PAGE_STATE)}; pool: {entries or 'no job'}, {len(state.get('tickets', {}))} "
        f"tickets, dispatcher {'alive' if thread is not None and thread.is_alive() else 'not running'}"
    )


class TopologyPage:
    """The vizcoll app in a dash_duo browser, with the few gestures the tests need."""

    def __init__(self, dash_duo):
        self.duo = dash_duo
        self.driver = dash_duo.driver
        self.base = dash_duo.server.url.rstrip("/")
        self.canvas = "topo-canvas"  # the id of the cytoscape canvas the helpers talk to

    # -------------------------------------------------------------- navigation
    def open(self, path: str = "/topology", counts: str | None = DEFAULT_COUNTS, timeout: float = 20) -> None:
        """Load ``path`` and, for topology views, wait until the counts bar says ``counts``."""
        self.duo.wait_for_page(self.base + path, timeout=timeout)
        if counts is not None:
            self.duo.wait_for_text_to_equal("#topo-counts", counts, timeout=timeout)
            self.wait_for_cy()

    def wait_for_text(self, selector: str, text: str, timeout: float) -> None:
        """Wait until ``selector`` contains ``text``; on a timeout, say what the page and the job pool were doing
        (a job that never ended, a message the page showed instead), which a CI log otherwise does not tell."""
        try:
            self.duo.wait_for_contains_text(selector, text, timeout=timeout)
        except TimeoutException as exc:
            raise AssertionError(f"{selector} never said {text!r} in {timeout} s; {page_report(self.driver)}") from exc

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / name
        time.sleep(0.3)  # let cytoscape / plotly finish their last frame
        assert self.driver.save_screenshot(str(path)), f"could not save {path}"
        return path

    # -------------------------------------------------------------- controls
    def type_into(self, selector: str, text: str) -> None:
        """Replace the text of an input with ``text`` (checked: on a busy machine a clear can come too late)."""
        element = self.duo.find_element(selector)
        for _ in range(3):
            self.duo.clear_input(selector)
            if element.get_attribute("value") != "":
                continue
            element.send_keys(text)
            if element.get_attribute("value") == text.rstrip("\n"):  # a final newline submits, it is not kept
                return
        raise AssertionError(f"could not type {text!r} into {selector}: it holds {element.get_attribute('value')!r}")

    def click(self, selector: str) -> None:
        self.duo.find_element(selector).click()

    def generate(self, spec: str) -> None:
        self.type_into("#topo-params", spec)
        self.click("#topo-generate")

    def upload(self, upload_id: str, path: Path) -> None:
        """Choose ``path`` in the hidden file input of the dcc.Upload ``upload_id``."""
        self.duo.find_element(f"#{upload_id} input[type=file]").send_keys(str(Path(path).resolve()))

    def value(self, selector: str) -> str:
        return self.duo.find_element(selector).get_attribute("value")

    # -------------------------------------------------------------- cytoscape
    def cy(self, body: str):
        """Run ``body`` (JavaScript using ``cy``) in the page and return its result."""
        return self.driver.execute_script(CY.replace("topo-canvas", self.canvas) + body)

    def wait_for_cy(self, timeout: float = 20) -> None:
        until(
            lambda: self.cy("return !!cy && cy.nodes().length > 0;"), timeout, msg="the cytoscape canvas has no nodes"
        )

    def elements(self) -> list:
        """Every element on the canvas as (id, sorted classes, rounded position of nodes), sorted."""
        rows = self.cy("""return cy.elements().map(e => [e.id(), e.classes().slice().sort().join(' '),
                          e.isNode() ? [Math.round(e.position('x')), Math.round(e.position('y'))] : null]);""")
        return sorted(rows)

    def click_element(self, selector: str) -> None:
        """A real mouse click on a node's centre or an edge's midpoint, where cytoscape drew it.

        The point is computed from cytoscape's rendered coordinates plus the
        bounding box of the canvas layer, in viewport coordinates, so the click
        does not depend on how a Selenium version interprets element offsets.
        """
        x, y = self._point(selector)
        ActionChains(self.driver).move_to_location(x, y).click().perform()

    def hover_element(self, selector: str) -> None:
        """The mouse moved onto a node or an edge, as :meth:`click_element` finds it (cytoscape's mouseover)."""
        x, y = self._point(selector)
        ActionChains(self.driver).move_to_location(x, y).perform()

    def _point(self, selector: str) -> tuple[int, int]:
        point = self.cy(f"""
            const ele = cy.$({selector!r});
            if (ele.length !== 1) return null;
            holder.scrollIntoView({{block: 'center'}});
            const p = ele.isEdge() ? ele.renderedMidpoint() : ele.renderedPosition();
            const box = cy.container().getBoundingClientRect();
            return [box.left + p.x, box.top + p.y, window.innerWidth, window.innerHeight];""")
        assert point is not None, f"no single cytoscape element {selector}"
        x, y, width, height = point
        assert 0 <= x < width and 0 <= y < height, f"{selector} is drawn outside the viewport at {x}, {y}"
        return int(round(x)), int(round(y))

    def edge_colours(self) -> dict:
        """Edge id -> its computed line colour (``rgb(r,g,b)`` without spaces)."""
        pairs = self.cy("return cy.edges().map(e => [e.id(), e.style('line-color')]);")
        return {eid: colour.replace(" ", "") for eid, colour in pairs}


def full_page_screenshot(page, name: str) -> None:
    """The whole page in one picture: the window grows to the page's height for the shot."""
    page.driver.execute_script("window.scrollTo(0, 0);")
    height = page.driver.execute_script("return document.documentElement.scrollHeight;")
    page.driver.set_window_size(1400, height + 150)
    try:
        page.screenshot(name)
    finally:
        page.driver.set_window_size(1400, 1000)
        time.sleep(1.5)  # the figures redraw at the window's size (a click computed meanwhile misses its target)


def badge_text(driver) -> str:
    """The scenario badge's text ("" while Dash has not drawn the shell yet)."""
    return driver.execute_script("const b = document.getElementById('scenario-badge'); return b ? b.innerText : '';")


def press_from_start(page, prefix: str, button: str, tries: int = 3) -> None:
    """Press player ``prefix``'s ``button`` (one that moves it forward) until the player has left step 0. A new
    timeline takes its player back to step 0 in the callback that its steps trigger, which can run after the legend
    or caption a test waited for and undo a press made in between (seen under load on /trees, 2026-12-07); a press
    that moved the player is not repeated."""
    position = f"#{prefix}-position"
    for _ in range(tries):
        page.click(f"#{prefix}-{button}")
        try:
            until(lambda: not page.duo.find_element(position).text.startswith("step 0 "), 5)
            return
        except TestingTimeoutError:
            continue
    raise AssertionError(f"{prefix}'s {button} never moved it from {page.duo.find_element(position).text!r}")


def text(page, selector: str) -> str:
    """The text of the element ``selector`` (waits dash_duo's implicit 2 s for it)."""
    return page.duo.find_element(selector).text


LIT = """const graph = document.querySelector('#' + arguments[0] + ' .js-plotly-plot');
const lit = graph && graph.__vizcollLit && graph.__vizcollLit[arguments[1]];
return lit ? lit.length : -1;"""
CANVAS_NODES = "const c = document.getElementById(arguments[0]); return c && c._cyreg ? c._cyreg.cy.nodes().length : 0;"


def lit_count(page, graph: str, layer: str) -> int:
    """How many marks of the overview ``graph``'s animation layer ``layer`` the current step lights (-1: no such
    layer drawn yet; ``assets/overview.js``)."""
    return page.driver.execute_script(LIT, graph, layer)


def canvas_nodes(page, canvas: str) -> int:
    """The nodes on the cytoscape canvas ``canvas`` (0 before it is drawn)."""
    return page.driver.execute_script(CANVAS_NODES, canvas)
