"""Links and nodes by name (vizcoll.ui.components.links): the tables a keyboard breaks and repairs links from."""

from __future__ import annotations

from tests.callback_context import in_callback
from tests.probe import probe
from vizcoll.scenario import Scenario
from vizcoll.ui.components import kit, links

GRID = Scenario(spec="fat-tree:radix=4,levels=3")
TOGGLE = "bar-link"


def rows(table) -> list[list]:
    body = table.children[2]
    return [[cell.children for cell in row.children] for row in body.children]


def test_the_table_names_each_link_its_state_and_a_button_that_says_what_it_does():
    table, nodes = links.listed("edge0.0 agg", GRID.toggled("edge0.0[4]-agg0.1[1]").to_dict(thin=True), TOGGLE)
    shown = rows(table)
    assert [r[0] for r in shown] == ["edge0.0[3]-agg0.0[1]", "edge0.0[4]-agg0.1[1]"]
    assert [r[1] for r in shown] == ["intact", "broken"]
    buttons = [r[2] for r in shown]
    assert [b.children for b in buttons] == ["Break", "Repair"]
    assert buttons[1].id == {"type": TOGGLE, "link": "edge0.0[4]-agg0.1[1]"}
    assert getattr(buttons[1], "aria-label") == "Repair edge0.0[4]-agg0.1[1]"
    assert table.children[0].children == "2 links"
    assert "No node is named like 'edge0.0 agg'" in nodes.children  # no node's name holds both words
    _, nodes = links.listed("edge0", GRID.toggled("edge0.0[4]-agg0.1[1]").to_dict(thin=True), TOGGLE)
    assert rows(nodes) == [["edge0.0", "switch", 4, 1], ["edge0.1", "switch", 4, 0]]


def test_the_table_shows_a_page_of_links_and_says_how_many_more_there_are():
    table, nodes = links.listed(None, GRID.to_dict(thin=True), TOGGLE)
    assert len(rows(table)) == links.SHOWN and len(rows(nodes)) == links.NODES
    assert table.children[0].children == f"{links.SHOWN} of 48 links: type a name to find others"
    assert nodes.children[0].children == f"{links.NODES} of 36 nodes"
    assert "No link has an end named like 'zz'" in links.listed("zz", GRID.to_dict(thin=True), TOGGLE)[0].children
    assert links.listed("h0", {"spec": 5}, TOGGLE)[0].children.startswith("⚠")  # a store the browser made up


def toggle(prop: str, clicks: int, data) -> dict:
    return in_callback(links.toggled, prop, clicks=[clicks], scenario=data, trigger_value=clicks)


def test_a_rows_button_breaks_its_link_and_again_repairs_it():
    prop = '{"link":"edge0.0[3]-agg0.0[1]","type":"bar-link"}.n_clicks'
    answer = toggle(prop, 1, GRID.to_dict(thin=True))
    assert Scenario.from_dict(answer["store"]).broken == ["edge0.0[3]-agg0.0[1]"] and answer["message"] == ""
    answer = toggle(prop, 2, answer["store"])
    assert Scenario.from_dict(answer["store"]).broken == []
    # a button drawn anew (no press) and a link the fabric does not have change nothing
    assert toggle(prop, 0, GRID.to_dict(thin=True)) == {}
    missing = '{"link":"x[1]-y[1]","type":"bar-link"}.n_clicks'
    answer = toggle(missing, 1, GRID.to_dict(thin=True))
    assert set(answer) == {"message"} and answer["message"].startswith("⚠") and "x[1]-y[1]" in answer["message"]
    assert toggle(prop, 1, {"spec": 5})["message"].startswith("⚠")  # a store the browser made up


def test_a_fields_label_names_its_control():
    row = kit.field("break rate", kit.number_input("bar-rate", 0.1))
    label = row.children[0]
    assert (label.htmlFor, label.id) == ("bar-rate", "bar-rate-label")  # assets/a11y.js: aria-labelledby
    assert not hasattr(kit.field("k", "plain text").children[0], "id")


def test_a_forged_press_says_why_or_changes_nothing():
    prop = '{"link":"edge0.0[3]-agg0.0[1]","type":"bar-link"}.n_clicks'
    probe(links.toggled, prop, {"clicks": [1], "scenario": GRID.to_dict(thin=True)})
