"""Drawing positions: one layout per kind of fabric, and edits that move no node they did not add."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from vizcoll.scenario import Scenario
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import from_spec
from vizcoll.topology.layout import edited_positions, positions, unit
from vizcoll.topology.model import ENDPOINT, Topology

FAT_TREE = "fat-tree:radix=4,levels=3"


def test_a_fat_tree_is_drawn_in_rows_by_level_with_each_pod_together():
    topo = from_spec(FAT_TREE)
    pos = positions(topo)
    level = topo.node_attrs["level"]
    for lv in np.unique(level):
        assert len(np.unique(pos[level == lv, 1])) == 1  # one row per level
    assert (
        pos[topo.index("core0"), 1]
        > pos[topo.index("agg0.0"), 1]
        > pos[topo.index("edge0.0"), 1]
        > pos[topo.index("h0"), 1]
    )
    edges = [topo.index(f"edge{p}.{i}") for p in range(4) for i in range(2)]
    assert np.all(np.diff(pos[edges, 0]) > 0)  # pod 0's switches left of pod 1's ...


def test_a_torus_is_a_grid_and_a_dragonfly_a_circle_of_groups():
    torus = from_spec("torus:4x4,hosts=1")
    pos = positions(torus)
    sw = torus.switches
    assert len(np.unique(pos[sw, 0])) == 4 and len(np.unique(pos[sw, 1])) == 4
    fly = from_spec("dragonfly:a=4,p=2,h=2")
    pos = positions(fly)
    group = fly.node_attrs["group"]
    centres = np.array([pos[group == g].mean(axis=0) for g in np.unique(group)])
    radius = np.hypot(*(centres - centres.mean(axis=0)).T)
    assert np.allclose(radius, radius[0], rtol=0.05)  # the groups on one circle


def fabric(nodes: dict[str, str], links: list[tuple[str, str]]) -> Topology:
    """A hand-written node-link file, read as an upload is."""
    text = json.dumps({"nodes": [{"name": n, "kind": k} for n, k in nodes.items()], "links": links})
    return topo_io.parse(text.encode(), "drawn.json")


def test_a_file_with_end_nodes_is_drawn_by_height_and_a_graph_of_switches_by_forces():
    topo = fabric(
        {"s0": "switch", "s1": "switch", "top": "switch", "a": "endpoint", "b": "endpoint", "c": "endpoint"},
        [("s0", "a"), ("s0", "b"), ("s1", "c"), ("top", "s0"), ("top", "s1")],
    )
    pos = positions(topo)
    assert pos[2, 1] > pos[0, 1] == pos[1, 1] > pos[3, 1] == pos[4, 1] == pos[5, 1]
    assert pos[3, 0] < pos[5, 0] and pos[4, 0] < pos[5, 0]  # end nodes under their switch: s0's left of s1's
    ring = fabric({f"r{i}": "switch" for i in range(6)}, [(f"r{i}", f"r{(i + 1) % 6}") for i in range(6)])
    assert np.array_equal(positions(ring), positions(ring))  # a force layout, the same every time
    assert len(np.unique(np.round(positions(ring), 6), axis=0)) == 6


EDITS = [
    {"op": "add_node", "name": "probe", "kind": "endpoint"},
    {"op": "add_node", "name": "extra", "kind": "switch"},
    {"op": "add_link", "a": "probe", "b": "edge0.0"},
    {"op": "add_link", "a": "core0", "b": "agg3.1"},
    {"op": "rename", "name": "h7", "new": "seven"},
    {"op": "remove_node", "name": "h15"},
]


@pytest.mark.parametrize("upto", range(1, len(EDITS) + 1))
def test_an_edit_moves_no_node_of_the_fabric(upto):
    base = Scenario(spec=FAT_TREE)
    scenario = replace(base, edits=EDITS[:upto])
    before = dict(zip(base.fabric().names, map(tuple, base.positions()), strict=True))
    after = dict(zip(scenario.fabric().names, map(tuple, scenario.positions()), strict=True))
    before["seven"] = before["h7"]
    assert all(after[name] == before[name] for name in after if name in before)


def test_a_new_node_waits_inside_the_drawing_then_goes_next_to_what_it_is_linked_to():
    base = Scenario(spec=FAT_TREE)
    pos0 = base.positions()
    box = pos0.min(axis=0), pos0.max(axis=0)
    parked = replace(base, edits=EDITS[:2])
    topo, pos = parked.fabric(), parked.positions()
    for name in ("probe", "extra"):
        p = pos[topo.index(name)]
        assert np.all(p >= box[0]) and np.all(p <= box[1])  # on screen, not beyond the fitted view
    assert len(np.unique(np.round(pos, 6), axis=0)) == topo.n_nodes  # on a free spot
    linked = replace(base, edits=EDITS[:3])
    topo, pos = linked.fabric(), linked.positions()
    probe, edge = pos[topo.index("probe")], pos[topo.index("edge0.0")]
    step = unit(pos0)
    assert probe[1] < edge[1] and abs(probe[0] - edge[0]) <= step and np.hypot(*(probe - edge)) <= 2 * step
    assert topo.kind[topo.index("probe")] == ENDPOINT


def test_edited_positions_follow_the_edited_fabrics_node_order():
    base = from_spec(FAT_TREE)
    scenario = replace(Scenario(spec=FAT_TREE), edits=EDITS)
    topo = scenario.fabric()
    pos = edited_positions(base, EDITS, topo)
    assert pos.shape == (topo.n_nodes, 2) and np.isfinite(pos).all()
    assert np.array_equal(pos, scenario.positions())


def test_the_first_end_node_of_a_fabric_of_switches_goes_below_them_and_under_its_switch_once_linked():
    switches = Scenario(spec="mesh:2x2,neighbors=4,hosts=0")
    added = switches.with_edit({"op": "add_node", "name": "e1", "kind": "endpoint"})
    lowest = switches.positions()[:, 1].min()
    assert added.positions()[-1, 1] < lowest  # it sat on the switches' lowest row (issue 24)
    linked = added.with_edit({"op": "add_link", "a": "e1", "b": "sw1-0"}).positions()
    below = linked[switches.fabric().names.index("sw1-0")]
    assert linked[-1, 0] == below[0] and linked[-1, 1] < below[1]  # right under its switch
