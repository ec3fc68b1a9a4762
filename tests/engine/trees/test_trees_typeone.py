"""Type I trees (k-ary, Algorithm 1, Zhao, Algorithms 2–4), their metrics on a topology and ``vizcoll tree``."""

import json
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vizcoll.cli import main
from vizcoll.comm import Placement, place
from vizcoll.errors import SpecError
from vizcoll.topology import Topology, from_spec
from vizcoll.topology.generators import sunway_supernode
from vizcoll.topology.hops import min_hops
from vizcoll.trees.groups import hierarchy_from_topology, hierarchy_levels, normalize_groups
from vizcoll.trees.metrics import LatencyModel, Router, edge_routes, map_tree, process_ports, tree_metrics
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import (
    build_hierarchical_tree,
    build_k_nomial_tree,
    build_rank_mapping,
    hier_knomial_tree,
    kary_tree,
    knomial_tree,
    make_group,
    vertex_ranks,
    zhao_tree,
)

SMALL = [(P, k) for P in range(1, 65) for k in range(2, 9)]


def _subtree(tree: Tree, v: int) -> list[int]:
    out = [v]
    for u in out:
        out.extend(tree.children[u])
    return out


def _digits(x: int, k: int) -> int:
    """Nonzero base-k digits of x: the depth of node x in a k-nomial tree."""
    n = 0
    while x:
        n, x = n + (x % k != 0), x // k
    return n


def _ceil_log(P: int, k: int) -> int:
    n = 0
    while k**n < P:
        n += 1
    return n


# ---------------------------------------------------------------- k-ary
@pytest.mark.parametrize(("P", "k"), SMALL)
def test_kary_structure(P, k):
    tree = kary_tree(P, k)
    tree.validate()
    assert tree.parent == [-1] + [(r - 1) // k for r in range(1, P)]
    for r in range(P):
        assert tree.children[r] == [r * k + i for i in range(1, k + 1) if r * k + i < P]
    inner = [r for r in range(P) if tree.children[r]]
    assert all(len(tree.children[r]) == k for r in inner[:-1])  # all full but the last inner node
    depth = tree.depth()
    assert list(depth) == sorted(depth)  # BFS numbering
    assert tree.height == (0 if P == 1 else int(depth[P - 1]))


# ---------------------------------------------------------------- Algorithm 1
@pytest.mark.parametrize(("P", "k"), SMALL)
def test_knomial_is_a_k_nomial_tree(P, k):
    tree = knomial_tree(P, k)
    tree.validate()
    assert vertex_ranks(tree) == list(range(P))
    depth = tree.depth()
    for r in range(P):
        assert depth[r] == _digits(r, k)
        assert sorted(_subtree(tree, r)) == list(range(r, r + len(_subtree(tree, r))))  # DFS-contiguous
    n = _ceil_log(P, k)
    root_children = sum(min(k - 1, math.ceil(P / k**j) - 1) for j in range(n))
    assert len(tree.children[0]) == root_children <= (k - 1) * n
    if k**n == P:  # a complete k-nomial tree T_n
        assert len(tree.children[0]) == (k - 1) * n
        assert tree.height == n
        assert Counter(depth.tolist()) == {i: (k - 1) ** i * math.comb(n, i) for i in range(n + 1)}


def test_knomial_children_in_algorithm_1_order():
    assert knomial_tree(16, 2).children[0] == [8, 4, 2, 1]
    assert knomial_tree(9, 3).children[0] == [3, 6, 1, 2]
    assert knomial_tree(10, 3).children[0] == [9, 3, 6, 1, 2]
    assert build_k_nomial_tree(5, 2, 8) == (4, [])
    assert build_k_nomial_tree(0, 4, 1) == (-1, [])


def test_bad_arguments():
    for call in (
        lambda: kary_tree(0, 2),
        lambda: knomial_tree(4, 1),
        lambda: zhao_tree([], 2),
        lambda: hier_knomial_tree([[0, 1], [1, 2]], 2),
        lambda: hier_knomial_tree([[0], [2]], 2),
        lambda: normalize_groups([3, 0]),
    ):
        with pytest.raises(SpecError):
            call()


# ---------------------------------------------------------------- Fig. 9 and Algorithms 2-4
@pytest.mark.parametrize("sizes", [[3, 3, 3, 5], [4, 4, 2, 4], [2, 4, 3, 5]])
def test_fig9_heights(sizes):
    """14 processes in 4 groups, k = 2: the leaders (Zhao) tree is 4 high, merge_groups' 3.

    The seed text does not give the figure's group sizes; these orders reproduce both heights (so do the
    other orderings of 19 size multisets, e.g. 5,4,3,2 as 4,2,3,5 or 2,4,3,5).
    """
    assert sum(sizes) == 14
    assert zhao_tree(sizes, 2).height == 4
    assert hier_knomial_tree(sizes, 2).height == 3


def test_fig9_mapping():
    top = make_group([3, 3, 3, 5], 2)
    build_rank_mapping(top, 2)
    # the group of 5 (cnt 8) at 0..4; the groups of 3 (cnt 4) need aligned blocks: 8, 12, then 16 (cnt 32)
    assert top.cnt == 32
    assert top.slots == {0: 9, 1: 10, 2: 11, 3: 12, 4: 13, 8: 0, 9: 1, 10: 2, 12: 3, 13: 4, 14: 5, 16: 6, 17: 7, 18: 8}
    assert top.ranks[:9] == [9, 10, 11, 12, 13, -1, -1, -1, 0] and len(top.ranks) == 32
    assert top.nodes_id[0] == 8


def test_merge_groups_is_not_always_lower_than_zhao():
    """Algorithm 2 minimises cnt (the paper's height log_k cnt), not the deepest occupied node."""
    assert (hier_knomial_tree([4, 2, 2], 2).height, zhao_tree([4, 2, 2], 2).height) == (3, 2)
    assert (hier_knomial_tree([5, 1], 4).height, zhao_tree([5, 1], 4).height) == (2, 1)
    top = make_group([5, 1], 4)
    build_rank_mapping(top, 4)
    assert (top.cnt, top.nodes_id[5]) == (16, 5)  # first free slot 5 (depth 2), not 8 (depth 1)


def test_root_swap_when_rank_0_is_not_first():
    tree = hier_knomial_tree([[0, 1], [2, 3, 4]], 2)
    assert vertex_ranks(tree) == [2, 1, 0, 3, 4]
    assert tree.label[0] == "rank 2"
    assert tree.parent == [-1, 2, 0, 0, 0]


@st.composite
def hierarchies(draw, max_depth=3):
    """Nested groups (sizes 1..9, up to 4 sub-groups, up to 3 levels) over a shuffled rank order."""
    shape = draw(st.recursive(st.integers(1, 9), lambda inner: st.lists(inner, min_size=1, max_size=4), max_leaves=10))
    shape = shape if isinstance(shape, list) else [shape]
    total = _count(shape)
    ranks = iter(draw(st.permutations(range(total))))
    return [_fill(s, ranks) for s in shape]


def _count(shape) -> int:
    return shape if isinstance(shape, int) else sum(_count(s) for s in shape)


def _fill(shape, ranks):
    return [next(ranks) for _ in range(shape)] if isinstance(shape, int) else [_fill(s, ranks) for s in shape]


def _groups(groups):
    """Every group of the hierarchy (each level, each nesting), as rank lists."""
    out = []
    for g in groups:
        flat = _flat(g)
        out.append(flat)
        if not all(isinstance(x, int) for x in g):
            out.extend(_groups(g))
    return out


def _flat(g):
    return [g] if isinstance(g, int) else [r for x in g for r in _flat(x)]


def _zhao_cnt(group, k: int) -> int:
    """Slots of Zhao's tree seen as a k-nomial mapping: the largest block times k^⌈log_k m⌉."""
    width = len(group) if all(isinstance(x, int) for x in group) else None
    inner = 1 if width is not None else max(_zhao_cnt(x if isinstance(x, list) else [x], k) for x in group)
    return k ** _ceil_log(width if width is not None else len(group), k) * inner


@settings(max_examples=150, deadline=None)
@given(groups=hierarchies(), k=st.integers(2, 5))
def test_hierarchical_tree_properties(groups, k):
    P = len(_flat(groups))
    hier, zhao = hier_knomial_tree(groups, k), zhao_tree(groups, k)
    for tree in (hier, zhao):
        tree.validate()
        ranks = vertex_ranks(tree)
        assert sorted(ranks) == list(range(P))  # every process exactly once
        parent = {ranks[v]: (ranks[p] if p >= 0 else -1) for v, p in enumerate(tree.parent)}
        for members in _groups(groups):  # condition (2): only the group's first process leaves it
            inside = set(members)
            assert sum(parent[r] not in inside for r in members) == 1, members
    top = make_group(groups, k)
    build_rank_mapping(top, k)
    assert sorted(top.slots.values()) == list(range(P))
    # Algorithm 2's optimum is the size of the k-nomial tree (the paper's height log_k cnt): never above
    # Zhao's. The deepest occupied node can be deeper than Zhao's (see the test above).
    assert top.cnt <= _zhao_cnt(normalize_groups(groups), k)
    assert hier.height <= round(math.log(top.cnt, k))


def test_hierarchy_levels():
    levels = hierarchy_levels([[[0, 3], [1]], [2, 4]])
    assert [x.tolist() for x in levels] == [[0, 0, 1, 0, 1], [0, 1, 2, 0, 2]]
    assert [x.tolist() for x in hierarchy_levels([2, 1])] == [[0, 0, 1]]


# ---------------------------------------------------------------- groups from a topology
def test_hierarchy_from_the_supernode():
    topo = sunway_supernode()
    placement = place(topo, 512, ppn=2)
    groups = hierarchy_from_topology(topo, placement)
    assert len(groups) == 16 and all(len(g) == 16 for g in groups)  # 16 leaf groups of 16 nodes
    assert groups[1][2] == [36, 37]
    tree = hier_knomial_tree(groups, 32)
    assert tree.height == 3 and tree.parent[37] == 36 and tree.parent[36] == 32 and tree.parent[32] == 0
    assert sorted(tree.children[0])[:3] == [1, 2, 4]


def test_hierarchy_from_a_fat_tree_one_process_per_node():
    topo = from_spec("fat-tree:radix=4,levels=2")
    assert hierarchy_from_topology(topo, place(topo, 5)) == [[0, 1], [2, 3], [4]]
    assert hierarchy_from_topology(topo, place(topo, 2)) == [[0, 1]]  # one group: not the group sizes [0, 1]


def test_processes_nothing_splits_are_one_group_and_the_hierarchical_tree_builds():
    """On switches alone (a real WAN graph has no end nodes: each process sits on its own switch) or on one leaf,
    the hierarchy is one group; read as sizes, its rank 0 was a group of size 0 (found on zoo-Cogentco.graphml)."""
    on_switches = from_spec("mesh:3x3,neighbors=4,hosts=0")
    placement = place(on_switches, 9)
    groups = hierarchy_from_topology(on_switches, placement)
    assert groups == [list(range(9))] and normalize_groups(groups) == groups
    tree = hier_knomial_tree(groups, 4)
    assert sorted(tree.parent) == sorted(knomial_tree(9, 4).parent)  # one group: the k-nomial tree's shape


# ---------------------------------------------------------------- metrics
def _fig7_topology() -> Topology:
    """Fig. 7(a) as far as the text tells: 16 processes, 8 per leaf switch, one top switch."""
    names = ["top", "leaf0", "leaf1"] + [f"h{i}" for i in range(16)]
    links = [(0, 1, 1, 9), (0, 2, 2, 9)] + [(3 + i, 1, 1 + i // 8, 1 + i % 8) for i in range(16)]
    return Topology.from_arrays(names, [0, 0, 0] + [1] * 16, [2, 9, 9] + [1] * 16, links)


def test_fig7_eight_packets_cross_the_top_switch():
    topo = _fig7_topology()
    m = tree_metrics(kary_tree(16, 4), topo, place(topo, 16))
    assert m["cross_group"]["switch"] == 8
    assert m["link_packets"][0] == m["link_packets"][1] == 8  # leaf0-top and leaf1-top
    assert m["max_switch_link"]["packets"] == 8
    assert (m["height"], m["radius"]) == (2, 6)  # 13 -> 3 across the top (4 links), 3 -> 0 (2 links)
    assert m["edge_links"] == sum(m["link_packets"].values())
    aware = tree_metrics(hier_knomial_tree([list(range(8)), list(range(8, 16))], 4), topo, place(topo, 16))
    assert aware["cross_group"]["switch"] == 1


def test_routes_are_min_hop_and_lowest_port():
    topo = from_spec("fat-tree:radix=4,levels=2")
    table = min_hops(topo)
    tree = map_tree(knomial_tree(8, 2), place(topo, 8))
    routes = edge_routes(tree, topo, Router(topo, table))
    child = np.arange(1, 8)
    hops = table.hops(np.asarray(tree.node)[child], np.asarray(tree.node)[np.asarray(tree.parent)[child]])
    assert [len(routes[v]) for v in child] == hops.tolist()
    spines = {topo.index("spine0"), topo.index("spine1")}
    used = {int(x) for r in routes for row in r for x in (topo.link_a[row], topo.link_b[row])} & spines
    assert used == {topo.index("spine0")}  # the lowest-numbered up port everywhere


def test_process_ports_on_the_supernode():
    topo = sunway_supernode()
    placement = place(topo, 64, ppn=2)
    ports = process_ports(topo, placement)
    leaf = lambda row: topo.names[int(topo.link_b[row])]
    assert [leaf(ports[r]) for r in (0, 1, 32, 33)] == ["leaf0", "leaf16", "leaf1", "leaf17"]
    m = tree_metrics(kary_tree(64, 32), topo, placement, latency=LatencyModel(k=32))
    assert m["radius"] == 4  # rank 33 (leaf17) -> rank 1 (leaf16): 4 links; rank 1 -> rank 0: same NIC
    assert m["latency_us"] == pytest.approx(4 * 0.28 + 2 * 32 * 0.01)
    assert m["switch_entries"] == 0 and m["flags"] == []


def test_broken_link_is_flagged():
    topo = from_spec("fat-tree:radix=4,levels=2")
    h2 = topo.index("h2")
    topo.broken[np.flatnonzero((topo.link_a == h2) | (topo.link_b == h2))] = True
    m = tree_metrics(knomial_tree(4, 2), topo, place(topo, 4))
    assert m["flags"] == [
        {"child": 2, "parent": 0, "reason": "unreachable over live links"},
        {"child": 3, "parent": 2, "reason": "unreachable over live links"},
    ]
    assert m["radius"] is None and m["latency_us"] is None


def test_switch_entries_of_a_tree_with_switches():
    topo = from_spec("fat-tree:radix=4,levels=2")
    idx = topo.index
    nodes = [idx(x) for x in ("spine0", "leaf0", "leaf1", "h0", "h1", "h2")]
    tree = Tree.from_children([[1, 2], [3, 4], [5], [], [], []], node=nodes)
    m = tree_metrics(tree, topo)
    assert m["switch_entries"] == 3 and (m["height"], m["radius"]) == (2, 2)
    assert tree_metrics(tree, levels={"half": [0, 0, 1, 0, 0, 1]})["cross_group"] == {"half": 1}


def test_unmapped_tree_is_rejected():
    with pytest.raises(SpecError):
        tree_metrics(knomial_tree(4, 2), from_spec("fat-tree:radix=4,levels=2"))
    with pytest.raises(SpecError):
        map_tree(knomial_tree(4, 2), Placement(np.array([6, 7])))


# ---------------------------------------------------------------- the command
def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out else None), err


@pytest.mark.parametrize(("kind", "height"), [("kary", 3), ("knomial", 3), ("zhao", 4), ("hier-knomial", 3)])
def test_tree_command_groups(capsys, kind, height):
    status, out, _ = _run(capsys, "tree", "--kind", kind, "--k", "2", "--groups", "3,3,3,5")
    assert status == 0 and out["height"] == height and out["nprocs"] == 14
    assert out["parent"][0] == -1 and len(out["children"]) == 14
    assert "radius" not in out


def test_tree_command_knomial(capsys):
    status, out, _ = _run(capsys, "tree", "--kind", "knomial", "--k", "2", "--nprocs", "8")
    assert status == 0
    assert out["parent"] == [-1, 0, 0, 2, 0, 4, 4, 6]
    assert out["children"][0] == [4, 2, 1] and out["height"] == 3 and "ranks" not in out


def test_tree_command_topology(capsys):
    status, out, _ = _run(
        capsys,
        "tree",
        "--kind",
        "hier-knomial",
        "--k",
        "32",
        "--nprocs",
        "512",
        "--topology",
        "sunway-supernode",
        "--ppn",
        "2",
    )
    assert status == 0
    assert (out["height"], out["radius"]) == (3, 6)
    assert out["max_switch_link"]["packets"] == 15 and out["flags"] == []
    assert out["latency_us"] == pytest.approx(6 * 0.28 + 3 * 32 * 0.01)


def test_tree_command_errors(capsys):
    status, _, err = _run(capsys, "tree", "--kind", "zhao", "--k", "2", "--nprocs", "6")
    assert status == 2 and "needs --groups or --topology" in err
    status, _, err = _run(capsys, "tree", "--kind", "kary", "--k", "2", "--nprocs", "6", "--groups", "2,2")
    assert status == 2 and "hold 4" in err
    status, _, err = _run(capsys, "tree", "--kind", "kary", "--k", "2", "--groups", "2,x")
    assert status == 2 and "--groups" in err


# ---------------------------------------------------------------- progress (the web page's background jobs)
def test_routing_a_trees_edges_reports_its_progress_and_changes_nothing():
    from vizcoll.trees.metrics import mapped_type_one

    topo = from_spec("fat-tree:radix=4,levels=3")
    placement = place(topo, 16)
    tree = kary_tree(16, 4)
    seen = []
    with_progress = tree_metrics(tree, topo, placement, progress=lambda done, total: seen.append((done, total)))
    assert with_progress == tree_metrics(tree, topo, placement)
    assert seen[0] == (0, 16) and seen[-1] == (16, 16) and len(seen) >= 4  # the start, every hop of all edges, the end
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)

    seen.clear()
    built = mapped_type_one(tree, topo, placement, progress=lambda done, total: seen.append((done, total)))
    assert built == mapped_type_one(tree, topo, placement) and seen[-1] == (16, 16)

    big = kary_tree(1000, 8)
    many = from_spec("fat-tree:radix=16,levels=3")
    seen.clear()
    edge_routes(map_tree(big, place(many, 1000)), many, progress=lambda done, total: seen.append((done, total)))
    assert len(seen) <= 12 and seen[0] == (0, 1000) and seen[-1] == (1000, 1000)  # per hop of all edges: few calls
    assert [done for done, _ in seen] == sorted(done for done, _ in seen) and len({done for done, _ in seen}) >= 3


# ---------------------------------------------------------------- Algorithm 1 for all ranks at once
@pytest.mark.parametrize("P, k", [(1, 2), (2, 2), (9, 3), (100, 2), (1000, 32), (4097, 4)])
def test_the_knomial_tree_of_all_ranks_at_once_is_algorithm_1_rank_by_rank(P, k):
    tree = knomial_tree(P, k)
    for rank in range(P):
        parent, children = build_k_nomial_tree(rank, k, P)
        assert tree.parent[rank] == parent and tree.children[rank] == children


@pytest.mark.parametrize(
    "groups, k",
    [
        ([[0, 1], [2, 3, 4]], 2),
        ([5, 4, 3, 2], 2),
        ([[[0, 1], [2]], [3]], 3),
        ([7, 1, 9, 16, 3], 4),
        ([[list(range(i * 8, i * 8 + 8)) for i in range(4)], list(range(32, 45))], 32),
    ],
)
def test_algorithm_4_for_all_ranks_at_once_is_algorithm_4_rank_by_rank(groups, k):
    tree = hier_knomial_tree(groups, k)
    top = make_group(groups, k)
    build_rank_mapping(top, k)
    ranks = vertex_ranks(tree)
    vertex = {r: v for v, r in enumerate(ranks)}
    for rank in ranks:
        parent, children = build_hierarchical_tree(rank, k, top)
        assert (ranks[tree.parent[vertex[rank]]] if parent >= 0 else -1) == parent
        assert [ranks[c] for c in tree.children[vertex[rank]]] == children
