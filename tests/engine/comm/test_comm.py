"""Placement of ranks and communicator splits (vizcoll.comm)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from vizcoll.comm import (
    Communicators,
    Placement,
    compute_nodes,
    from_lists,
    grid2d,
    grid3d,
    hierarchical,
    hierarchical_by_topology,
    parse_pattern,
    place,
    random_groups,
)
from vizcoll.errors import SpecError
from vizcoll.topology import from_spec


@pytest.fixture(scope="module")
def small():
    """2-level fat tree: 4 leaves, 2 spines, 8 end nodes h0..h7 (node indices 6..13)."""
    return from_spec("fat-tree:radix=4,levels=2")


@pytest.fixture(scope="module")
def pods():
    """3-level fat tree: 4 pods of 4 end nodes (group = pod)."""
    return from_spec("fat-tree:radix=4,levels=3")


def _line_dims(comms, dims):
    """For each communicator, the one grid dimension along which its members vary."""
    out = []
    for members in comms:
        coords = np.stack(np.unravel_index(members, dims), axis=1)
        varying = [d for d in range(len(dims)) if len(set(coords[:, d].tolist())) > 1]
        assert len(varying) == 1
        assert sorted(coords[:, varying[0]].tolist()) == list(range(dims[varying[0]]))
        out.append(varying[0])
    return out


# ---------------------------------------------------------------- placement
def test_linear_placement_fills_nodes_in_order(small):
    placement = place(small, nprocs=7, ppn=3)
    ends = small.endpoints
    assert placement.node.tolist() == [ends[0]] * 3 + [ends[1]] * 3 + [ends[2]]
    assert placement.nprocs == 7 and placement.ppn == 3
    assert placement.ranks_on(int(ends[1])).tolist() == [3, 4, 5]


def test_default_nprocs_is_every_slot(small):
    assert place(small, ppn=2).nprocs == 16


def test_random_placement_is_a_seeded_permutation(small):
    a, b = place(small, order="random", seed=5), place(small, order="random", seed=5)
    assert sorted(a.node.tolist()) == small.endpoints.tolist()
    assert a == b
    others = [place(small, order="random", seed=s).node.tolist() for s in range(6, 10)]
    assert any(o != a.node.tolist() for o in others)
    assert a.node.tolist() != small.endpoints.tolist()


def test_random_placement_keeps_processes_of_a_node_together(small):
    node = place(small, ppn=2, order="random", seed=1).node
    assert np.all(node[0::2] == node[1::2])
    assert sorted(node[0::2].tolist()) == small.endpoints.tolist()


def test_too_many_processes(small):
    with pytest.raises(SpecError, match=r"needs 17 processes but fat-tree:radix=4,levels=2 has 8 end nodes x ppn 2"):
        place(small, nprocs=17, ppn=2)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ppn": 0}, "ppn"),
        ({"order": "zigzag"}, "unknown placement order 'zigzag'"),
        ({"nprocs": 0}, "positive"),
        ({"order": "random", "seed": -1}, "seed"),
    ],
)
def test_bad_placement_arguments(small, kwargs, match):
    with pytest.raises(SpecError, match=match):
        place(small, **kwargs)


def test_switches_compute_when_there_are_no_end_nodes():
    topo = from_spec("mesh:3x3,hosts=0")
    assert compute_nodes(topo).tolist() == list(range(9))
    assert place(topo, ppn=2).nprocs == 18
    with pytest.raises(SpecError, match="has 9 switches x ppn 1"):
        place(topo, nprocs=10)


def test_placement_round_trip(small):
    placement = place(small, nprocs=5, ppn=2, order="random", seed=3)
    data = json.loads(json.dumps(placement.to_dict()))
    assert Placement.from_dict(data) == placement
    with pytest.raises(SpecError, match="schema"):
        Placement.from_dict({"node": [1]})


# ---------------------------------------------------------------- grid splits
def test_grid2d_rows_then_columns():
    comms = grid2d(12, 4, 3)
    assert len(comms) == 7
    assert comms.lists()[:4] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    assert comms.lists()[4:] == [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11]]
    assert comms.sizes() == {3: 4, 4: 3}
    assert comms.communicators == comms.lists() and comms[5].tolist() == [1, 4, 7, 10]
    assert comms.membership()[4] == [1, 5]
    assert all(len(m) == 2 for m in comms.membership())


def test_grid3d_lines_along_every_dimension():
    a, b, c = 4, 3, 2
    comms = grid3d(a * b * c, a, b, c)
    assert len(comms) == a * b + a * c + b * c
    assert comms.sizes() == {c: a * b, b: a * c, a: b * c}
    assert _line_dims(comms, (a, b, c)) == [2] * (a * b) + [1] * (a * c) + [0] * (b * c)
    assert all(len(m) == 3 for m in comms.membership())
    assert [3, 9, 15, 21] in comms.lists()


def test_grid_size_must_match_processes():
    with pytest.raises(SpecError, match="4x3 grid holds 12 processes, but there are 10"):
        grid2d(10, 4, 3)
    with pytest.raises(SpecError, match="positive"):
        grid3d(0, 0, 1, 1)


def test_grid_keeps_the_placement(small):
    comms = grid2d(place(small, ppn=2), 4, 4)
    ends = small.endpoints
    assert comms.nodes(0).tolist() == [ends[0], ends[0], ends[1], ends[1]]
    assert comms.nodes(4).tolist() == [ends[0], ends[2], ends[4], ends[6]]
    assert comms.node_array()[:4].tolist() == comms.nodes(0).tolist()
    with pytest.raises(SpecError, match="no placement"):
        grid2d(16, 4, 4).nodes(0)


# ---------------------------------------------------------------- hierarchical
def test_hierarchical_groups_then_leaders():
    comms = hierarchical(10, 4)
    assert comms.lists() == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9], [0, 4, 8]]
    assert comms.membership()[4] == [1, 3] and comms.membership()[5] == [1]


def test_hierarchical_by_pod(pods):
    placement = place(pods, ppn=2)
    comms = hierarchical_by_topology(pods, placement)
    assert comms.sizes() == {4: 1, 8: 4}
    assert comms.lists()[0] == list(range(8))
    assert comms[-1].tolist() == [0, 8, 16, 24]


def test_hierarchical_by_pod_with_random_placement(pods):
    placement = place(pods, order="random", seed=4)
    comms = hierarchical_by_topology(pods, placement, "group")
    pod = pods.attr("group")
    for i in range(len(comms) - 1):
        assert len(set(pod[comms.nodes(i)].tolist())) == 1
    leaders = comms[-1]
    assert leaders.tolist() == [int(comms[i][0]) for i in range(len(comms) - 1)]
    assert len(set(pod[placement.node[leaders]].tolist())) == 4
    assert sorted(np.concatenate(list(comms)[:-1]).tolist()) == list(range(16))


def test_hierarchical_by_node_and_switch(small):
    placement = place(small, ppn=2)
    assert hierarchical_by_topology(small, placement, "node").sizes() == {2: 8, 8: 1}
    by_switch = hierarchical_by_topology(small, placement, "switch")
    assert by_switch.lists()[:4] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]


def test_hierarchical_by_unknown_attribute():
    torus = from_spec("torus:2x2,hosts=1")
    with pytest.raises(SpecError, match="no node attribute 'group'; choose one of node, switch, level, x, y"):
        hierarchical_by_topology(torus, place(torus))


# ---------------------------------------------------------------- random groups
def test_random_groups_partition_the_processes():
    comms = random_groups(100, 7, seed=1)
    assert len(comms) == 7
    assert sorted(comms.ranks.tolist()) == list(range(100))
    assert all(len(m) == 1 for m in comms.membership())
    assert set(comms.sizes()) == {14, 15}
    assert all(np.all(np.diff(c) > 0) for c in comms)
    assert comms.lists() != [list(range(i * 100 // 7, (i + 1) * 100 // 7)) for i in range(7)]


def test_random_groups_are_seeded():
    assert random_groups(50, 5, seed=3) == random_groups(50, 5, seed=3)
    assert random_groups(50, 5, seed=3).lists() != random_groups(50, 5, seed=4).lists()


def test_random_groups_of_a_given_size():
    comms = random_groups(100, 5, size=10, seed=2)
    assert comms.sizes() == {10: 5}
    assert len(set(comms.ranks.tolist())) == 50
    with pytest.raises(SpecError, match="5 random groups of 30 need 150 processes, but there are 100"):
        random_groups(100, 5, size=30)
    with pytest.raises(SpecError, match="at least 11 processes"):
        random_groups(10, 11)


# ---------------------------------------------------------------- user lists
def test_from_lists_repeated_names(small):
    comms = from_lists(small, [["h3", "h1", "h3"], ["h1", "h7"], ["h3"]])
    # nodes by first appearance: h3 (2 processes), h1 (1), h7 (1)
    assert comms.lists() == [[0, 2, 1], [2, 3], [0]]
    assert comms.nprocs == 4
    idx = small.index
    assert comms.placement.node.tolist() == [idx("h3"), idx("h3"), idx("h1"), idx("h7")]
    assert comms.nodes(0).tolist() == [idx("h3"), idx("h1"), idx("h3")]
    assert comms.placement.ppn == 2 and comms.placement.order == "lists"


@pytest.mark.parametrize(
    ("lists", "match"),
    [
        ([["h0", "nope"]], "communicator 0: no node named 'nope'"),
        ([["h0", "h00"]], "communicator 0: no node named 'h00'; close names: h0"),
        ([["h0"], ["leaf0"]], "communicator 1: 'leaf0' is not the name of an end node"),
        ([["h0"], []], "communicator 1 must be a non-empty list"),
        ([], "no communicators"),
    ],
)
def test_from_lists_errors(small, lists, match):
    with pytest.raises(SpecError, match=match):
        from_lists(small, lists)


# ---------------------------------------------------------------- Communicators object
def test_communicators_round_trip(small):
    comms = parse_pattern("random:3,seed=9", small, ppn=2, order="random", seed=1)
    data = json.loads(json.dumps(comms.to_dict()))
    back = Communicators.from_dict(data)
    assert back == comms and back.lists() == comms.lists() and back.placement == comms.placement
    assert back.label == "random:3,seed=9"


@pytest.mark.parametrize(
    ("groups", "nprocs", "match"),
    [([[0, 1, 0]], 2, "communicator 0 lists rank 0 twice"), ([[0, 5]], 3, "rank 5 is outside 0..2")],
)
def test_communicators_are_validated(groups, nprocs, match):
    with pytest.raises(SpecError, match=match):
        Communicators.from_groups(groups, nprocs)


def test_from_dict_names_the_bad_field():
    with pytest.raises(SpecError, match="missing field 'nprocs'"):
        Communicators.from_dict({"schema": "vizcoll.communicators/1", "communicators": [[0]]})


# ---------------------------------------------------------------- patterns
def test_grid_patterns(small):
    comms = parse_pattern("grid2d:4x4", small, ppn=2)
    assert comms.lists() == grid2d(16, 4, 4).lists() and comms.label == "grid2d:4x4"
    assert parse_pattern("grid3d:2x2x2", small).sizes() == {2: 12}


def test_random_and_hier_patterns(small):
    expected = _relabel(random_groups(place(small, ppn=2), 4, seed=3), "random:4,seed=3")
    assert parse_pattern("random:4,seed=3", small, ppn=2) == expected
    assert parse_pattern("random:2,size=3,procs=10", small, ppn=2).sizes() == {3: 2}
    assert parse_pattern("random:2,size=3,procs=10", small, ppn=2).nprocs == 10
    assert parse_pattern("hier:3", small).lists() == hierarchical(8, 3).lists()
    assert parse_pattern("hier:attr=switch", small).sizes() == {2: 4, 4: 1}


def _relabel(comms, label):
    comms.label = label
    return comms


def test_json_file_pattern(small, tmp_path):
    path = tmp_path / "comms.json"
    path.write_text(json.dumps({"communicators": [["h0", "h2"], ["h2", "h2"]]}))
    comms = parse_pattern(str(path), small)
    assert comms.lists() == [[0, 1], [1, 2]] and comms.label == "comms.json"
    bad = tmp_path / "bad.json"
    bad.write_text('{"communicators": [["h0",\n ]]}')
    with pytest.raises(SpecError, match=r"bad.json: line 2"):
        parse_pattern(str(bad), small)
    bad.write_text('{"communicators": [["h0", 3]]}')
    with pytest.raises(SpecError, match=r"'communicators\[0\]\[1\]' must be a node name"):
        parse_pattern(str(bad), small)


@pytest.mark.parametrize(
    ("pattern", "match"),
    [
        ("grid2d:4x", r"a grid dimension in 'grid2d:4x' must be an integer >= 1, got ''"),
        ("grid2d:4x2x1", r"'grid2d:4x2x1' needs 2 dimensions like 4x4"),
        ("grid3d:2x2", r"needs 3 dimensions"),
        ("grid2d:4x2,seed=3", r"unknown parameter 'seed'"),
        ("random:", r"needs the number of groups"),
        ("random:two", r"the number of groups in 'random:two' must be an integer"),
        ("random:2,sz=3", r"unknown parameter 'sz' in 'random:2,sz=3'; it takes size, seed, procs"),
        ("hier:", r"needs a group size"),
        ("hier:2,attr=group", r"needs a group size"),
        ("hier:attr=colour", r"no node attribute 'colour'"),
        ("ring:4", r"unknown communication pattern 'ring:4'"),
        ("missing.json", r"cannot read missing.json"),
        ("grid2d:4x4", r"grid2d:4x4 needs 16 processes but fat-tree:radix=4,levels=2 has 8 end nodes x ppn 1"),
        ("random:2,procs=9", r"random:2,procs=9 needs 9 processes"),
    ],
)
def test_bad_patterns(small, pattern, match):
    with pytest.raises(SpecError, match=match):
        parse_pattern(pattern, small)


def test_paper_scale_grid_on_taihulight():
    topo = from_spec("pruned-fat-tree:preset=taihulight")
    comms = parse_pattern("grid2d:256x160", topo)
    assert len(comms) == 416
    assert comms.sizes() == {160: 256, 256: 160}
    with pytest.raises(SpecError, match="grid2d:256x160 needs 40960 processes"):
        parse_pattern("grid2d:256x160", from_spec("fat-tree:radix=4,levels=2"))
    # 160x256 lays each 256-process line on one pod of 256 end nodes (the topology-aware layout)
    aware = parse_pattern("grid2d:160x256", topo)
    pod = topo.attr("group")
    assert all(len(set(pod[aware.nodes(i)].tolist())) == 1 for i in range(160))


def test_grid3d_over_40000_processes():
    topo = from_spec("torus:30x20x20,hosts=2")
    comms = parse_pattern("grid3d:40x40x25", topo, ppn=2, order="random", seed=7)
    assert comms.nprocs == 40_000
    assert comms.sizes() == {25: 1600, 40: 2000}
    assert np.array_equal(np.bincount(comms.ranks), np.full(40_000, 3))


def test_engine_does_not_import_dash_or_plotly():
    code = "import sys, vizcoll.comm; sys.exit(any(m.split('.')[0] in ('dash', 'plotly') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
