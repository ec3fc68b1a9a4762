"""Drilling into a rail fabric: a rail, one of its pods, one leaf with its NICs (vizcoll.topology.drill)."""

from __future__ import annotations

import numpy as np
import pytest

from vizcoll.topology import drill
from vizcoll.topology.generators import from_spec

SPEC = "rail-fat-tree:servers=512,rails=4,radix=16"  # 3-level rails: 8 pods of 8 leaves, 8 NICs each


@pytest.fixture(scope="module")
def topo():
    return from_spec(SPEC)


def _neighbours(topo, name: str) -> set[str]:
    """The names linked to ``name``, read link by link (an oracle independent of the masks under test)."""
    out = set()
    for a, b in zip(topo.link_a.tolist(), topo.link_b.tolist(), strict=True):
        if topo.names[a] == name:
            out.add(topo.names[b])
        elif topo.names[b] == name:
            out.add(topo.names[a])
    return out


def test_the_levels_of_a_rail_fabric_are_rail_pod_leaf(topo):
    assert drill.levels(topo) == [("group", "rail"), ("pod", "pod"), ("leaf", "leaf")]
    assert drill.levels(from_spec("rail-fat-tree:servers=16,rails=4,radix=8")) == [("group", "rail"), ("leaf", "leaf")]
    assert drill.levels(from_spec("fat-tree:radix=4,levels=3"))[1:] == []  # a fat tree: its pods alone


def test_a_leaf_holds_its_nics_and_the_spines_it_is_linked_to(topo):
    leaf = "rail2-leaf13"  # rail 2, pod 1 (leaves 8-15), leaf 13
    held = {topo.names[i] for i in np.flatnonzero(drill.members(topo, (2, 1, 13)))}
    nics = {n for n in _neighbours(topo, leaf) if "-nic" in n}
    spines = {n for n in _neighbours(topo, leaf) if "spine" in n}
    assert held == {leaf} | nics | spines
    assert len(nics) == 8 and all(n.endswith("-nic2") for n in nics) and len(spines) == 8


def test_a_pod_holds_its_leaves_spines_and_nics_and_the_cores_they_reach(topo):
    held = drill.members(topo, (0, 3))
    names = [topo.names[i] for i in np.flatnonzero(held)]
    assert sum("leaf" in n for n in names) == 8 and sum("spine" in n for n in names) == 8
    assert sum("-nic" in n for n in names) == 64 and all(not n.startswith("rail1") for n in names if "rail" in n)
    assert sum("core" in n for n in names) == 64  # each of the pod's 8 spines reaches 8 cores
    assert drill.children(topo, (0, 3)) == {lv: 9 for lv in range(24, 32)}  # its leaves, each with 8 NICs


def test_the_rails_and_pods_are_the_children_and_a_path_is_named(topo):
    assert drill.children(topo, ()) == {r: topo.n_nodes // 4 for r in range(4)} == {r: 704 for r in range(4)}
    assert list(drill.children(topo, (1,))) == list(range(8))
    assert drill.children(topo, (1, 2, 16)) == {}  # a leaf: nothing below
    assert drill.path_text(topo, (1, 2, 16)) == "rail 1, pod 2, leaf 16"
    with pytest.raises(ValueError, match="1 to 3 levels"):
        drill.members(topo, (1, 2, 16, 0))


def test_focus_cuts_the_whole_fabric_with_the_rest_in_one_block(topo):
    part = drill.focus(topo, (1,), "group:1/")
    assert len(part.of) == topo.n_nodes and part.names[-1] == "the rest of the fabric"
    assert int(part.count[-1]) == topo.n_nodes - int(drill.members(topo, (1,)).sum())
    assert sorted(set(part.group[:-1].tolist()) - {-1}) == list(range(8))  # rail 1's pods
    assert "level 3 switches" in part.names  # the rail's cores: no pod, one block
    assert part.path == "group:1/" and part.count.sum() == topo.n_nodes
    pods = part.group >= 0
    assert np.array_equal(part.x[pods], part.group[pods].astype(float))  # a column per pod, in order
    assert part.x[-1] > part.x[:-1].max() and part.level[-1] == part.level.max()  # the rest: right, on top
