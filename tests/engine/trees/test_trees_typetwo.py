"""Type II trees: Algorithm 5, root choice, physical trees, entry accounting and the ``type2`` command."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vizcoll.cli import main
from vizcoll.comm import parse_pattern
from vizcoll.topology import Topology, from_spec
from vizcoll.topology.hops import min_hops
from vizcoll.trees.aggregation import unicast_path
from vizcoll.trees.entries import entry_experiment
from vizcoll.trees.tree import Tree
from vizcoll.trees.typetwo import Occupancy, TypeTwoPlanner, build_minimum_type_II_tree, tree_cost, type_two_tree

SMALL_PRUNED = "pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=2,paths=2"


# ---------------------------------------------------------------- helpers
def ancestors(tree: Tree, v: int) -> set[int]:
    out = set()
    while tree.parent[v] >= 0:
        v = tree.parent[v]
        out.add(v)
    return out


def brute_min_cost(tree: Tree, bound: list[int]) -> int:
    """Fewest switches of any tree derived from ``tree`` (definition 10), by trying every switch subset.

    For a kept set, a kept switch adopts as many unplaced vertices from below
    as its bound allows (greedy is optimal: any ancestor could adopt them);
    the set works when exactly one vertex (the root of A) is left unplaced.
    """
    switches = [v for v in range(tree.size) if tree.children[v]]
    order = [0]
    for v in order:
        order.extend(tree.children[v])
    best = len(switches)
    for mask in range(1 << len(switches)):
        kept = {s for i, s in enumerate(switches) if mask >> i & 1}
        if len(kept) >= best:
            continue
        loose, ok = {}, True
        for v in reversed(order):
            if not tree.children[v]:
                loose[v] = 1
                continue
            below = sum(loose[c] for c in tree.children[v])
            if v in kept:
                take = min(bound[v], below)
                ok = ok and take > 0
                below += 1 - take
            loose[v] = below
        if ok and loose[0] == 1:
            best = len(kept)
    return best


def check_derived(t: Tree, a: Tree, origin: list[int], bound: list[int]) -> None:
    """``a`` is a tree derived from ``t`` (definition 10) that respects ``bound``."""
    a.validate()
    nics = {v for v in range(t.size) if not t.children[v]}
    assert sorted(origin) == sorted(set(origin))
    assert nics <= set(origin)  # M ⊆ NA ⊆ NT
    for x in range(1, a.size):  # a parent in A is an ancestor in T
        assert origin[a.parent[x]] in ancestors(t, origin[x])
    for x in range(a.size):
        assert len(a.children[x]) <= max(bound[origin[x]], len(t.children[origin[x]]))
        assert (not a.children[x]) == (origin[x] in nics)  # leaves of A are exactly the NICs
    assert tree_cost(a) <= tree_cost(t)


@st.composite
def physical_trees(draw, max_switches: int = 7, branching: bool = False):
    """A random physical tree (switch 0 is the root, NICs are the leaves) and per-vertex bounds >= children.

    ``branching``: every switch has at least two children (no single-child switches).
    """
    n_sw = draw(st.integers(1, max_switches))
    parents = [draw(st.integers(0, i - 1)) for i in range(1, n_sw)]
    children: list[list[int]] = [[] for _ in range(n_sw)]
    for i, p in enumerate(parents, start=1):
        children[p].append(i)
    for s in range(n_sw):
        least = max(0, 2 - len(children[s])) if branching else (0 if children[s] else 1)
        for _ in range(draw(st.integers(least, 4))):
            children[s].append(len(children))
            children.append([])
    tree = Tree.from_children(children)
    bound = [len(kids) + draw(st.integers(0, 4)) for kids in children]
    return tree, bound


def fig11_tree() -> Tree:
    """Physical tree like the paper's Fig. 11: 13 switches (root, 3 middle, 9 leaf switches), 16 processes."""
    nics = [2, 2, 2, 2, 2, 2, 2, 1, 1]  # per leaf switch
    children = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]] + [[] for _ in range(9)]
    for leaf, count in zip(range(4, 13), nics, strict=True):
        for _ in range(count):
            children[leaf].append(len(children))
            children.append([])
    return Tree.from_children(children)


def fig11_topology() -> Topology:
    """The Fig. 11 physical tree as a fabric: r, m0..m2, s0..s8 and hosts h0..h15."""
    names = ["r", "m0", "m1", "m2"] + [f"s{i}" for i in range(9)] + [f"h{i}" for i in range(16)]
    kind = [0] * 13 + [1] * 16
    links, port = [], [0] * 29
    tree = fig11_tree()
    for v, kids in enumerate(tree.children):
        for c in kids:
            port[v] += 1
            port[c] += 1
            links.append((v, port[v], c, port[c]))
    return Topology.from_arrays(names, kind, [8] * 13 + [1] * 16, links)


# ---------------------------------------------------------------- Algorithm 5
@settings(max_examples=300, deadline=None)
@given(physical_trees())
def test_algorithm5_gives_a_valid_derived_tree(case):
    t, bound = case
    a, origin = build_minimum_type_II_tree(t, bound)
    check_derived(t, a, origin, bound)
    assert tree_cost(a) >= brute_min_cost(t, bound)


@settings(max_examples=100, deadline=None)
@given(physical_trees(max_switches=30), st.integers(2, 12))
def test_algorithm5_with_one_bound_for_every_switch(case, degree):
    t, _ = case
    a, origin = build_minimum_type_II_tree(t, degree)
    check_derived(t, a, origin, [degree] * t.size)


@settings(max_examples=300, deadline=None)
@given(physical_trees(branching=True), st.integers(0, 3))
def test_algorithm5_is_minimal_with_one_bound_and_branching_switches(case, extra):
    t, _ = case
    degree = max(len(kids) for kids in t.children) + extra
    a, origin = build_minimum_type_II_tree(t, degree)
    check_derived(t, a, origin, [degree] * t.size)
    assert tree_cost(a) == brute_min_cost(t, [degree] * t.size)


@pytest.mark.parametrize(
    ("children", "bound", "alg5", "best"),
    [
        # step 3 drops the single-child root although its bound of 4 could adopt two more vertices
        ([[1], [2, 5, 6, 7], [3, 4, 8, 9], [10, 11], [12, 13]] + [[]] * 9, 4, 4, 3),
        # per-switch bounds: the smallest leaf switch is not always the one to empty first
        (
            [[1, 2, 3, 6], [4, 7], [8, 9, 10, 11], [12, 13, 14], [5, 15, 16, 17], [18, 19]] + [[]] * 14,
            [6, 2, 7, 6, 4, 5] + [0] * 14,
            5,
            4,
        ),
    ],
)
def test_algorithm5_as_printed_is_not_always_minimal(children, bound, alg5, best):
    """Found by the brute force above; the paper's optimality claim needs one bound and no single-child switch."""
    t = Tree.from_children(children)
    bounds = [bound] * t.size if isinstance(bound, int) else bound
    a, origin = build_minimum_type_II_tree(t, bound)
    check_derived(t, a, origin, bounds)
    assert tree_cost(a) == alg5 and brute_min_cost(t, bounds) == best


def test_fig11_sixteen_processes_thirteen_switches_bound_five_gives_four_switches():
    t = fig11_tree()
    assert tree_cost(t) == 13 and sum(1 for k in t.children if not k) == 16
    a, origin = build_minimum_type_II_tree(t, 5)
    check_derived(t, a, origin, [5] * t.size)
    assert tree_cost(a) == 4 == brute_min_cost(t, [5] * t.size)
    # 16 leaves under switches of at most 5 children need at least 4 switches: 16 + s - 1 <= 5 s
    assert origin[0] == 0 and sorted(origin[x] for x in range(a.size) if a.children[x]) == [0, 1, 2, 3]


def test_fig11_on_a_fabric_root_choice_and_cost():
    topo = fig11_topology()
    members = [topo.index(f"h{i}") for i in range(16)]
    result = type_two_tree(topo, members, degree=5)
    assert result.ok and topo.names[result.root] == "r" and result.candidates == 1
    assert result.physical_cost == 13 and result.cost == 4
    assert sorted(topo.names[s] for s in result.tree_switches) == ["m0", "m1", "m2", "r"]
    assert sorted(result.tree.label[x] for x in range(result.tree.size) if not result.tree.children[x]) == sorted(
        f"h{i}: rank {i}" for i in range(16)
    )


def test_single_child_switches_collapse_and_one_nic_needs_no_switch():
    t = Tree.from_children([[1], [2], [3, 4], [], []])  # r - s - leaf(2 NICs)
    a, origin = build_minimum_type_II_tree(t, 2)
    assert origin == [2, 3, 4] and tree_cost(a) == 1
    a, origin = build_minimum_type_II_tree(Tree.from_children([[1], []]), 4)
    assert a.size == 1 and origin == [1] and tree_cost(a) == 0


def test_bounds_below_the_physical_child_count_are_raised():
    t = Tree.from_children([[1, 2, 3], [], [], []])
    a, _ = build_minimum_type_II_tree(t, 1)
    assert a.children == [[1, 2, 3], [], [], []]


# ---------------------------------------------------------------- physical tree and root choice
def test_physical_tree_follows_the_lowest_min_hop_ports():
    topo = from_spec("fat-tree:radix=4,levels=3")
    table = min_hops(topo)
    members = [topo.index(h) for h in ("h0", "h1", "h5", "h9", "h14")]
    result = type_two_tree(topo, members, table=table)
    t = result.physical
    assert result.ok and topo.kind[result.root] == 0
    ecc = table.eccentricity_to(members)
    assert ecc[table.sw_pos[result.root]] == ecc.min()
    leaves = sorted(t.node[v] for v in range(t.size) if not t.children[v])
    assert leaves == sorted(members)
    for v in range(1, t.size):
        path = unicast_path(table, t.node[v], t.node[t.parent[v]])
        assert len(path) == 1  # T is a subtree of the fabric
        if t.children[v]:  # a switch forwards through min_ports(switch, root)[0]
            nxt = path[0][0]
            port = table.min_ports(t.node[v], result.root)[0]
            view = table.port_view
            span = view.of(t.node[v])
            assert view.peer[span][view.port[span] == port][0] == nxt
    # every NIC's path in T is a shortest path to the root
    depth = t.depth()
    hops = table.hops(members, result.root)
    assert {t.node[v]: int(depth[v]) for v in range(t.size) if not t.children[v]} == dict(
        zip(members, hops.tolist(), strict=True)
    )
    assert len(result.links) == t.size - 1


def test_several_processes_on_one_nic_share_a_vertex():
    topo = from_spec("fat-tree:radix=4,levels=2")
    comms = parse_pattern("grid2d:2x8", topo, ppn=2)  # rows of 8 processes on 4 NICs
    result = type_two_tree(topo, comms.nodes(0), ranks=comms[0])
    assert result.ok
    leaves = [v for v in range(result.tree.size) if not result.tree.children[v]]
    assert len(leaves) == 4
    assert sorted(r for rs in result.vertex_ranks() for r in rs) == sorted(comms[0].tolist())
    assert all(len(result.ranks[result.tree.node[v]]) == 2 for v in leaves)
    assert result.tree.label[leaves[0]].count("ranks") == 1


def test_root_choice_orders_by_free_entries_and_skips_a_full_switch():
    topo = from_spec("fat-tree:radix=4,levels=2")
    members = [topo.index("h0"), topo.index("h2")]
    free = np.full(topo.n_nodes, 16)
    free[topo.index("spine0")] = 0
    result = type_two_tree(topo, members, occupancy=Occupancy(free))
    assert result.ok and topo.names[result.root] == "spine1" and result.candidates == 2


def test_root_choice_tries_the_next_candidate_when_a_tree_switch_is_full():
    topo = from_spec("fat-tree:radix=4,levels=3")  # agg p.0 reaches core0/core1, agg p.1 core2/core3
    members = [topo.index("h0"), topo.index("h4")]  # two pods
    free = np.full(topo.n_nodes, 16)
    free[topo.index("agg0.0")] = 0
    result = type_two_tree(topo, members, occupancy=Occupancy(free), method="physical")
    assert result.ok and topo.names[result.root] == "core2" and result.tried == 3 and result.candidates == 4
    assert topo.index("agg0.0") not in result.physical_switches.tolist()


def test_mincost_needs_entries_only_in_its_own_switches():
    topo = from_spec("fat-tree:radix=4,levels=2")
    members = [topo.index(f"h{i}") for i in range(4)]
    free = np.full(topo.n_nodes, 1)
    free[topo.index("leaf0")] = 0  # leaf0 is in every physical tree, but not in the min-cost tree
    cheap = type_two_tree(topo, members, degree=4, occupancy=Occupancy(free))
    assert cheap.ok and cheap.cost == 1 and topo.names[int(cheap.entry_switches[0])] == "spine0"
    phys = type_two_tree(topo, members, degree=4, occupancy=Occupancy(free), method="physical")
    assert not phys.ok and phys.tried == 2 and "free aggregation-tree entry" in phys.reason
    assert phys.tree is None and phys.to_dict()["ok"] is False


def test_broken_links_are_avoided():
    topo = from_spec("fat-tree:radix=4,levels=2")
    (link,) = topo.links_between("leaf0", "spine0")
    topo.set_broken(link)
    members = [topo.index("h0"), topo.index("h2")]
    result = type_two_tree(topo, members)
    assert result.ok and topo.names[result.root] == "spine1"
    assert link not in result.links


def test_an_unreachable_member_is_reported_not_raised():
    topo = from_spec("fat-tree:radix=4,levels=2")
    (link,) = topo.links_between("h3", "leaf1")
    topo.set_broken(link)
    result = type_two_tree(topo, [topo.index("h0"), topo.index("h3")])
    assert not result.ok and "h3" in result.reason and result.root == -1
    (link,) = topo.links_between("leaf0", "spine0")
    topo.set_broken(link)
    (link,) = topo.links_between("leaf0", "spine1")
    topo.set_broken(link)
    result = type_two_tree(topo, [topo.index("h0"), topo.index("h2")])
    assert not result.ok and "cannot reach each other" in result.reason


def test_empty_communicator_and_bad_method():
    topo = from_spec("fat-tree:radix=4,levels=2")
    assert not type_two_tree(topo, []).ok
    with pytest.raises(ValueError):
        type_two_tree(topo, [8], method="nope")


# ---------------------------------------------------------------- entries
def test_entries_mincost_uses_fewer_and_fails_no_more_often():
    topo = from_spec(SMALL_PRUNED)
    comms = parse_pattern("grid2d:8x8", topo)
    planner = TypeTwoPlanner(topo)
    out = entry_experiment(topo, comms, entries=16, degree=8, planner=planner)
    phys, cheap = out["physical"], out["mincost"]
    assert phys["communicators"] == cheap["communicators"] == 16
    assert cheap["entries_used"] < phys["entries_used"]
    assert cheap["failed"] <= phys["failed"]
    assert out["reduction"] == pytest.approx(1 - cheap["entries_used"] / phys["entries_used"])
    assert cheap["entries_per_switch"]["max"] <= 16 and phys["entries_per_switch"]["max"] <= 16
    assert phys["routed"] + phys["failed"] == 16


def test_entries_tiny_limit_physical_fails_where_mincost_succeeds():
    topo = from_spec(SMALL_PRUNED)
    comms = parse_pattern("grid2d:8x8", topo)
    out = entry_experiment(topo, comms, entries=1, degree=8)
    assert out["physical"]["failed"] > 0 and out["physical"]["failure_rate"] > out["mincost"]["failure_rate"]
    assert out["physical"]["entries_per_switch"]["max"] <= 1 and out["mincost"]["entries_per_switch"]["max"] <= 1
    unlimited = entry_experiment(topo, comms, entries=None, degree=8)
    assert unlimited["physical"]["failed"] == unlimited["mincost"]["failed"] == 0
    assert unlimited["physical"]["entries_used"] >= out["physical"]["entries_used"]


def test_entries_accept_plain_node_lists():
    topo = from_spec("fat-tree:radix=4,levels=2")
    groups = [[topo.index("h0"), topo.index("h1")], [topo.index("h0"), topo.index("h7")]]
    out = entry_experiment(topo, groups, entries=16, degree=None)
    assert out["physical"]["entries_used"] == 1 + 3 and out["mincost"]["entries_used"] == 1 + 1


# ---------------------------------------------------------------- command line
def test_type2_command(capsys):
    status = main(["type2", SMALL_PRUNED, "--pattern", "grid2d:8x8", "--entries", "1", "--degree", "8"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert set(out) >= {"physical", "mincost", "reduction"}
    assert out["physical"]["failure_rate"] > out["mincost"]["failure_rate"]
    assert out["entries"] == 1 and out["degree"] == 8 and out["pattern"] == "grid2d:8x8"


def test_type2_command_rejects_bad_options(capsys):
    assert main(["type2", SMALL_PRUNED, "--pattern", "grid2d:8x8", "--entries", "-3"]) == 2
    assert "entries" in capsys.readouterr().err


def test_the_type_two_search_reports_its_progress_over_the_candidate_roots():
    topo = from_spec(SMALL_PRUNED)
    members = [topo.index(h) for h in ("h0", "h5", "h17", "h40")]
    seen = []
    result = type_two_tree(topo, members, degree=4, progress=lambda done, total: seen.append((done, total)))
    assert result.to_dict() == type_two_tree(topo, members, degree=4).to_dict()
    assert seen[0] == (0, result.candidates) and seen[-1] == (result.candidates, result.candidates)
    free = np.zeros(topo.n_nodes, dtype=int)  # no switch has a free entry: every root is tried, then the end
    seen.clear()
    failed = type_two_tree(
        topo, members, occupancy=Occupancy(free), progress=lambda done, total: seen.append((done, total))
    )
    assert not failed.ok and [d for d, _ in seen] == list(range(failed.candidates + 1))
