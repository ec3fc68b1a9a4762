"""Scenarios: exact export/import round trip and compact URLs."""

import pytest

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario


def edited():
    s = Scenario(spec="mesh:3x3", pattern="grid2d:3x3")
    for edit in ({"op": "add_node", "name": "probe", "kind": "endpoint"},
                 {"op": "add_link", "a": "probe", "b": "sw0-0"},
                 {"op": "toggle_broken", "id": 2},
                 {"op": "rename", "name": "sw2-2", "new": "corner"},
                 {"op": "remove_link", "id": 0}):
        s = s.with_edit(edit)
    return s


def test_export_import_is_exact():
    s = edited()
    back = Scenario.loads(s.dumps())
    assert back == s
    assert back.build() == s.build()
    assert back.build().names[-1] == "probe" and "corner" in back.build().names


def test_toggle_twice_repairs():
    s = Scenario(spec="mesh:3x3").with_edit({"op": "toggle_broken", "id": 4})
    assert s.broken_ids() == [4]
    assert s.with_edit({"op": "toggle_broken", "id": 4}).broken_ids() == []


def test_url_roundtrip_keeps_spec_broken_links_pattern_and_root():
    s = Scenario(spec="torus:3x3x2,hosts=1", pattern="grid2d:3x6", params={"root": "h1-1-0"})
    s = s.with_edit({"op": "toggle_broken", "id": 5}).with_edit({"op": "toggle_broken", "id": 9})
    back = Scenario.from_query(s.to_query())
    assert back.spec == s.spec and back.pattern == s.pattern and back.params == {"root": "h1-1-0"}
    assert back.build() == s.build()


@pytest.mark.parametrize("text, message", [
    ("not json", "not valid JSON"),
    ('{"schema": "other"}', "not a vizcoll scenario"),
    ('{"schema": "vizcoll.scenario/1", "spec": "fat-tree:radix=3"}', "even"),
    ('{"schema": "vizcoll.scenario/1", "edits": [{"op": "explode"}]}', "unknown edit"),
    ('{"schema": "vizcoll.scenario/1", "edits": [{"op": "toggle_broken"}]}', "missing the field 'id'"),
    ('{"schema": "vizcoll.scenario/1", "edits": 5}', "must be a list"),
])
def test_bad_scenarios_give_clear_errors(text, message):
    with pytest.raises(VizcollError, match=message):
        Scenario.loads(text)


def test_bad_edit_is_rejected_and_scenario_unchanged():
    s = Scenario(spec="mesh:2x2")
    with pytest.raises(VizcollError, match="no node named"):
        s.with_edit({"op": "remove_node", "name": "ghost"})
    assert s.edits == []


def test_communicators_from_pattern_lists_and_refused_paths():
    topo = Scenario(spec="mesh:3x3").build()
    grid = Scenario(spec="mesh:3x3", pattern="grid2d:3x3").communicators(topo)
    assert grid.sizes() == {3: 6}
    lists = Scenario(spec="mesh:3x3", lists=[["h0-0", "h0-0", "h1-1"], ["h2-2"]])
    back = Scenario.loads(lists.dumps())
    assert back.lists == lists.lists and back.communicators(topo).sizes() == {3: 1, 1: 1}
    assert Scenario(spec="mesh:3x3").communicators(topo) is None
    with pytest.raises(VizcollError, match="upload a communicators file"):
        Scenario(spec="mesh:3x3", pattern="/etc/passwd.json").communicators(topo)
