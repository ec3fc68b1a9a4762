"""An empty drawing says how to start (issue 47): the hint over the canvas shows exactly while the scenario's fabric
has no node (no browser; tests/browser/test_help.py sees it on /topology)."""

from __future__ import annotations

from dash import dcc, html

from tests.callback_context import find_component
from vizcoll.scenario import Scenario
from vizcoll.ui.components.canvashint import ELSEWHERE, canvas_hint, hint_id, shows_hint
from vizcoll.ui.pages.topology._model import example_specs
from vizcoll.ui.store import DEFAULT_SCENARIO

EMPTY = Scenario(spec=example_specs()["empty"])


def test_the_hint_shows_while_the_fabric_has_no_node():
    assert shows_hint(EMPTY.to_dict(thin=True))
    assert not shows_hint(DEFAULT_SCENARIO.to_dict(thin=True))
    one = EMPTY.with_edit({"op": "add_node", "name": "s0", "kind": "switch"})  # drawn from nothing: one switch
    assert not shows_hint(one.to_dict(thin=True))
    gone = one.with_edit({"op": "remove_node", "name": "s0"})  # every node removed again
    assert shows_hint(gone.to_dict(thin=True))


def test_no_hint_for_a_store_that_cannot_be_read_nor_before_the_store_is_filled():
    assert not shows_hint({"spec": 5}) and not shows_hint({"spec": "no-such-generator:1"})
    assert not shows_hint(None)  # a new tab: the default scenario


def test_the_hint_names_the_ways_to_start_and_links_to_help():
    hint = canvas_hint("topo-canvas", "generate a fabric (", html.B("Generate"), ")")
    assert hint.id == hint_id("topo-canvas") == "topo-canvas-hint" and hint.hidden  # until its callback runs
    words = hint.children.children
    assert words[0] == "Nothing to draw yet: " and words[2].children == "Generate"
    assert [c.href for c in words if isinstance(c, dcc.Link)] == ["/help"]
    elsewhere = canvas_hint("trees-canvas", *ELSEWHERE).children.children
    assert [c.href for c in elsewhere if isinstance(c, dcc.Link)] == ["/topology", "/help"]


def test_the_pages_that_draw_the_fabric_put_the_hint_just_before_their_canvas():
    from app import create_app
    from vizcoll.ui.pages.barrier import page as barrier
    from vizcoll.ui.pages.topology import page as topology
    from vizcoll.ui.pages.trees import page as trees

    app = create_app()
    for module, canvas in ((topology, "topo-canvas"), (trees, "trees-canvas"), (barrier, "bar-canvas")):
        layout = module.body(EMPTY)
        hint = find_component(layout, hint_id(canvas))
        siblings = next(
            c.children
            for c in layout._traverse()
            if isinstance(getattr(c, "children", None), list) and hint in c.children
        )
        assert getattr(siblings[siblings.index(hint) + 1], "id", None) == canvas
        assert f"{hint_id(canvas)}.hidden" in app.callback_map
