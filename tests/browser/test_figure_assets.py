"""assets/figures.js and assets/lazy.js: the app's plotly.js (the partial bundle, vizcoll/ui/vendor.py) asked
for once as the page starts (regenerator-runtime in place of Dash's babel polyfill), a figure drawn once when it
shows (and again when its size really changes), views below the fold drawn once they come on the screen."""

from __future__ import annotations

from dash.testing.wait import until

from vizcoll.ui import vendor

# the logical tree's figure: its plotly_afterplot events counted from now on
COUNT_DRAWS = """
const gd = document.querySelector('#trees-logical .js-plotly-plot');
window.__draws = 0;
gd.on('plotly_afterplot', () => { window.__draws += 1; });
"""
SAME_SIZE = """
const gd = document.querySelector('#trees-logical .js-plotly-plot');
window.__draws = 0;
return Plotly.Plots.resize(gd).then(() => window.__draws);
"""
RUNTIME = """
const runtime = [...document.querySelectorAll('script[src]')].map(s => new URL(s.src).pathname)
    .filter(s => s.includes('polyfill') || s.includes('regenerator'));
return [runtime, typeof regeneratorRuntime, String.prototype.trim.toString().includes('[native code]')];
"""
# the figures Plotly drew twice because a margin was pushed out after the first draw (vizcoll/ui/figures/margins.py)
REDRAWN = """
return [...document.querySelectorAll('.js-plotly-plot')]
    .filter(gd => gd._fullLayout && '_redrawFromAutoMarginCount' in gd._fullLayout)
    .map(gd => gd.parentElement.id);
"""
NARROWER = """
const gd = document.querySelector('#trees-logical .js-plotly-plot');
gd.parentElement.style.flex = '0 0 320px';
return Plotly.Plots.resize(gd).then(() => [window.__draws, gd._fullLayout.width]);
"""


def test_plotly_loads_once_and_a_figure_is_not_drawn_again_at_the_same_size(page):
    page.open("/trees", counts=None)
    until(
        lambda: page.driver.execute_script(
            "const g = document.querySelector('#trees-logical .js-plotly-plot');"
            " return !!(g && g.data && g.data.length)"
        ),
        30,
    )
    scripts = page.driver.execute_script(
        "return [...document.querySelectorAll('script[src]')].map(s => s.src).filter(s => s.includes('plotly'));"
    )
    assert len(scripts) == 1 and scripts[0].endswith(f"/_vizcoll/plotly-{vendor.VERSION}.min.js")
    version, traces = page.driver.execute_script("return [Plotly.version, Object.keys(Plotly.PlotSchema.get().traces)]")
    assert version == vendor.VERSION and set(traces) >= vendor.TRACES
    assert ("scattergl" not in traces) == vendor.PLOTLY.path.is_file()  # the partial bundle when the app has it
    if vendor.REGENERATOR.path.is_file():  # regenerator-runtime instead of the babel polyfill: the browser's trim
        assert page.driver.execute_script(RUNTIME) == [[f"/_vizcoll/{vendor.REGENERATOR.name}"], "object", True]
    page.driver.execute_script(COUNT_DRAWS)
    quiet = []  # the page's first draws over: no draw for a second
    until(
        lambda: (
            quiet.append(page.driver.execute_script("return window.__draws"))
            or quiet[-6:-5] == quiet[-1:]
            and len(quiet) > 5
        ),
        30,
        poll=0.2,
    )
    assert page.driver.execute_script(REDRAWN) == []  # margins wide enough at once: each figure drawn once
    assert page.driver.execute_script(SAME_SIZE) == 0  # the same size: nothing redrawn
    draws, width = page.driver.execute_script(NARROWER)
    assert draws == 1 and width == 320  # a real change of size is drawn
    assert page.duo.get_logs() == []


def test_the_type_two_views_are_computed_once_they_come_on_the_screen(page):
    page.open("/trees", counts=None)
    page.duo.wait_for_contains_text("#trees-logical", "4-ary tree over 16 processes", timeout=30)
    page.duo.wait_for_contains_text("#trees-fk-info", "k", timeout=10)
    assert page.driver.execute_script("return window.scrollY") == 0
    assert page.duo.find_element("#trees-t2-info").text == ""  # asked for with the other views, it would be here
    page.driver.execute_script("document.getElementById('trees-t2-physical').scrollIntoView({block: 'center'});")
    page.duo.wait_for_contains_text("#trees-t2-info", "needs 5 switches", timeout=20)
    page.duo.wait_for_contains_text("#trees-t2-mincost", "Min-cost tree A", timeout=20)
    assert page.duo.get_logs() == []


PRELOAD = """
const holder = document.getElementById('shell-graph-preload');
if (!holder) return null;  // the shell not drawn yet
const box = holder.getBoundingClientRect();
return [holder.parentElement.hidden, box.width, box.height, Boolean(holder.querySelector('.main-svg')),
        holder.compareDocumentPosition(document.getElementById('shell-page')) & Node.DOCUMENT_POSITION_PRECEDING];
"""


def test_the_shell_loads_the_graph_code_before_a_page_with_a_hidden_empty_graph(page):
    page.open("/erasure", counts=None)
    until(lambda: (page.driver.execute_script(PRELOAD) or [0] * 5)[3], 30)
    hidden, width, height, drawn, after_the_page = page.driver.execute_script(PRELOAD)
    assert hidden and (width, height) == (0, 0) and drawn and after_the_page  # never seen, never before the page
    assert page.duo.get_logs() == []
