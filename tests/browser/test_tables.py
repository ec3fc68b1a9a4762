"""vizcoll/ui/components/tables.py in the browser: every cell shows its text as it is (the Markdown it is written
in never shows), a chosen row is emphasised, a table without a head shows no empty header row."""

from __future__ import annotations

import string
from pathlib import Path

from dash import Dash, html

from tests.browser.conftest import free_port
from vizcoll.ui.components.tables import table

AWKWARD = [
    string.punctuation,  # every ASCII punctuation character, Markdown's and HTML's among them
    "a|b \\| c",
    "**not bold** _nor italic_ `nor code` ~~nor struck~~",
    "<b>not html</b> &amp; &lt; &#33; & done",
    "# not a heading",
    "1. not a list",
    "> not a quote",
    "[not a link](http://example.org) ![nor an image](x.png)",
    "sw-0.1 (leaf 3) – spine_2 → 53",
    "   spaces\tand\nnew lines   ",
    "",
]
ASSETS = Path(__file__).resolve().parents[2] / "vizcoll" / "ui" / "assets"
CELLS = """return [...document.querySelectorAll('#t tr')].map(tr => [...tr.querySelectorAll('th, td')].map(
    c => [c.textContent, c.querySelectorAll('*').length, getComputedStyle(c).backgroundColor]));"""
HIGHLIGHT = "rgb(255, 247, 214)"  # assets/style.css: a chosen row's cells
HEADLESS = """return [document.querySelectorAll('#bare tbody tr').length,
    [...document.querySelectorAll('#bare th')].map(th => th.offsetHeight)]"""


def test_every_cell_shows_its_text_as_it_is(dash_duo):
    app = Dash(__name__, assets_folder=str(ASSETS), assets_ignore=r".*\.js$")  # the app's stylesheet alone
    rows = [[f"row {i}", text] for i, text in enumerate(AWKWARD)]
    app.layout = html.Div([table(["what", "text | head (1.)"], rows, chosen=[1], id="t"), table(None, rows, id="bare")])
    dash_duo.start_server(app, port=free_port())
    dash_duo.wait_for_element("#t table", timeout=20)
    cells = dash_duo.driver.execute_script(CELLS)
    shown = [[text for text, _, _ in row] for row in cells]
    assert shown == [["what", "text | head (1.)"], *[[r[0], " ".join(r[1].split())] for r in rows]]
    inside = [[n for _, n, _ in row] for row in cells[1:]]
    assert inside[1] == [1, 1] and all(n == [0, 0] for i, n in enumerate(inside) if i != 1)  # <strong> alone
    highlighted = [i for i, row in enumerate(cells[1:]) if {colour for _, _, colour in row} == {HIGHLIGHT}]
    assert highlighted == [1]
    assert dash_duo.driver.execute_script(HEADLESS) == [len(rows), [0, 0]]
    assert dash_duo.get_logs() == []
