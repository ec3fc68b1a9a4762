"""Aggregation up and broadcast down any tree mapped on a topology, as a Timeline."""

import json
from functools import reduce

import numpy as np
import pytest

from vizcoll.comm import parse_pattern
from vizcoll.errors import SpecError
from vizcoll.sim.timeline import Timeline
from vizcoll.topology import from_spec
from vizcoll.topology.hops import min_hops
from vizcoll.trees.aggregation import OPS, Timing, simulate_aggregation, unicast_path
from vizcoll.trees.routing import Routing
from vizcoll.trees.tree import Tree
from vizcoll.trees.typetwo import type_two_tree


def fat3():
    return from_spec("fat-tree:radix=4,levels=3")


def binomial(nodes: list[int]) -> Tree:
    """Binomial tree over len(nodes) processes (a power of two), vertex i on nodes[i]."""
    p = len(nodes)
    children = [[] for _ in range(p)]
    for r in range(1, p):
        children[r & (r - 1)].append(r)  # parent: clear the lowest set bit
    return Tree.from_children(children, kind="type I (binomial)", node=nodes, label=[f"rank {r}" for r in range(p)])


def sends(tl: Timeline):
    return [e for e in tl.events if e.kind == "send"]


def check_links(topo, tl: Timeline):
    """Every hop uses one live link that joins its two ends."""
    for e in sends(tl):
        (link,) = e.path_links
        row = topo.link_row(link)
        assert not topo.broken[row]
        assert {int(topo.link_a[row]), int(topo.link_b[row])} == {e.src, e.dst}


def type_two(topo, names, degree=None):
    members = [topo.index(n) for n in names]
    result = type_two_tree(topo, members, degree=degree)
    assert result.ok
    return result


# ---------------------------------------------------------------- correctness
@pytest.mark.parametrize("seed", [None, 0, 7])
@pytest.mark.parametrize("which", ["tree", "physical"])
def test_type_two_result_equals_the_direct_sum(seed, which):
    topo = fat3()
    result = type_two(topo, ["h0", "h1", "h2", "h5", "h9", "h14", "h15"], degree=3)
    tree = result.tree if which == "tree" else result.physical
    tl = simulate_aggregation(topo, tree, result.vertex_ranks(which), seed=seed)
    values = list(range(7)) if seed is None else np.random.default_rng(seed).integers(0, 100, 7).tolist()
    s = tl.summary
    assert s["expected"] == sum(values) and s["result"] == s["expected"] and s["correct"] is True
    assert s["broken_edges"] == [] and s["packets"] == s["bcast_packets"] == tree.size - 1
    assert set(tl.final_state.values()) == {f"result={sum(values)}"}
    check_links(topo, tl)


def test_min_cost_tree_processes_fewer_packets_than_the_physical_tree():
    topo = fat3()
    result = type_two(topo, [f"h{i}" for i in range(0, 16, 3)], degree=8)
    cheap = simulate_aggregation(topo, result.tree, result.vertex_ranks()).summary
    full = simulate_aggregation(topo, result.physical, result.vertex_ranks("physical")).summary
    assert cheap["result"] == full["result"] == sum(range(6))
    assert cheap["packets"] < full["packets"]
    assert cheap["radius"] == full["radius"] == full["height"]  # T is a subtree of the fabric: 1 link per edge
    assert cheap["height"] < full["height"]


@pytest.mark.parametrize("op", sorted(OPS))
def test_type_one_tree_with_two_processes_per_node(op):
    topo = fat3()
    comms = parse_pattern("grid2d:2x8", topo, ppn=2)
    nodes = comms.nodes(0).tolist()  # 8 processes on 4 nodes: some edges stay inside a node
    tree = binomial(nodes)
    tl = simulate_aggregation(topo, tree, op=op, seed=3)
    values = np.random.default_rng(3).integers(0, 100, 8).tolist()
    assert tl.summary["result"] == reduce(OPS[op], values) == tl.summary["expected"]
    (moment,) = tl.key_moments()  # the player's landmark: the root has the result and sends it down
    assert moment["kinds"] == ["result"] and f"has the result {tl.summary['result']}" in moment["label"]
    same_node = [e for e in tl.events if e.kind == "arrive"]
    assert same_node and all(not e.path_links for e in same_node)
    assert len(tl.entities) == 8 and {m["node"] for m in tl.entities.values()} == set(nodes)
    check_links(topo, tl)


def test_default_ranks_make_switch_vertices_pure_aggregation_points():
    topo = from_spec("fat-tree:radix=4,levels=2")
    idx = topo.index
    tree = Tree.from_children(
        [[1, 2], [3, 4], [], [], []], node=[idx("spine0"), idx("leaf0"), idx("h2"), idx("h0"), idx("h1")]
    )
    tl = simulate_aggregation(topo, tree)
    assert tl.summary["expected"] == 0 + 1 + 2  # three processes, ranks 0, 1, 2 in vertex order
    assert tl.summary["correct"]
    initial = tl.state_at(-1)
    assert initial["spine0"] == "waiting" and initial["h0"] == "value=1"


# ---------------------------------------------------------------- timing and events
def test_star_timing_follows_latency_and_theta():
    topo = from_spec("fat-tree:radix=4,levels=2")  # h0,h1 on leaf0; h2,h3 on leaf1
    idx = topo.index
    tree = Tree.from_children([[1, 2, 3], [], [], []], node=[idx("h0"), idx("h1"), idx("h2"), idx("h3")])
    lat, theta = 0.5, 0.25
    tl = simulate_aggregation(topo, tree, timing=Timing(lat, theta))
    # arrivals at h0: h1 after 2 hops, h2 and h3 after 4; the root processes them one after another
    first = 2 * lat + theta
    second = max(first, 4 * lat) + theta
    root_ready = max(second, 4 * lat) + theta
    done = root_ready + 4 * lat + theta
    assert tl.summary["time"] == pytest.approx(done)
    assert tl.summary["radius"] == 4 and tl.summary["height"] == 1
    assert tl.summary["max_link_packets"] == 3  # all three packets end on the link leaf0 -> h0
    assert len(sends(tl)) == 2 * (2 + 4 + 4)
    assert [e.t for e in tl.events] == sorted(e.t for e in tl.events)


def test_paths_are_the_unicast_min_hop_paths():
    topo = fat3()
    table = min_hops(topo)
    result = type_two(topo, ["h0", "h7", "h8", "h15"], degree=2)
    tree = result.tree
    tl = simulate_aggregation(topo, tree, result.vertex_ranks(), routing=Routing(table=table))
    up = [e for e in sends(tl) if "partial" in e.label]
    for v in range(1, tree.size):
        path = unicast_path(table, tree.node[v], tree.node[tree.parent[v]])
        assert len(path) == table.hops(tree.node[v], tree.node[tree.parent[v]])
        assert all(n == path[-1][0] or topo.kind[n] == 0 for n, _ in path)
    assert len(up) == sum(
        len(unicast_path(table, tree.node[v], tree.node[tree.parent[v]])) for v in range(1, tree.size)
    )


def test_stepping_back_recomputes_the_state_and_the_timeline_round_trips():
    topo = fat3()
    result = type_two(topo, ["h0", "h3", "h6", "h12"])
    tl = simulate_aggregation(topo, result.tree, result.vertex_ranks(), seed=1)
    mid = tl.n_steps // 2
    assert tl.state_at(mid) == tl.state_at(mid)
    assert tl.state_at(-1) == tl.initial_state
    assert any(str(v).startswith("partial=") for k in range(tl.n_steps) for v in tl.changes_at(k).values())
    again = Timeline.from_dict(json.loads(json.dumps(tl.to_dict())))
    assert again.to_dict() == tl.to_dict()
    assert simulate_aggregation(topo, result.tree, result.vertex_ranks(), seed=1).to_dict() == tl.to_dict()
    assert all(tl.caption(k) for k in range(-1, tl.n_steps))


# ---------------------------------------------------------------- broken links
def test_broken_link_with_a_detour_is_avoided():
    topo = from_spec("fat-tree:radix=4,levels=2")
    idx = topo.index
    (link,) = topo.links_between("leaf0", "spine0")
    topo.set_broken(link)
    tree = Tree.from_children([[1], []], node=[idx("h2"), idx("h0")])
    tl = simulate_aggregation(topo, tree)
    assert tl.summary["correct"] and tl.summary["radius"] == 4
    assert all(link not in e.path_links for e in tl.events)
    check_links(topo, tl)


def test_edge_across_broken_links_is_flagged_not_looped():
    topo = fat3()
    result = type_two(topo, ["h0", "h1", "h4", "h8"])
    (link,) = topo.links_between("h4", "edge1.0")
    topo.set_broken(link)
    tl = simulate_aggregation(topo, result.tree, result.vertex_ranks())
    s = tl.summary
    assert s["result"] is None and s["correct"] is False and s["time"] is None and s["radius"] is None
    assert [b["from"] for b in s["broken_edges"]] == ["h4"]
    assert any(e.kind == "drop" for e in tl.events)
    assert "cannot complete" in tl.caption(tl.n_steps - 1)
    root_key = next(k for k, meta in tl.entities.items() if meta["vertex"] == 0)
    assert tl.final_state[root_key] == "blocked"


# ---------------------------------------------------------------- input checks
@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"timing": Timing(latency=0)}, "latency"),
        ({"timing": Timing(theta=-1)}, "theta"),
        ({"op": "xor"}, "operation"),
        ({"ranks": [[0]]}, "ranks"),
    ],
)
def test_bad_parameters(kwargs, text):
    topo = from_spec("fat-tree:radix=4,levels=2")
    tree = Tree.from_children([[1], []], node=[8, 9])
    with pytest.raises(SpecError, match=text):
        simulate_aggregation(topo, tree, **kwargs)


def test_unmapped_tree_is_refused():
    topo = from_spec("fat-tree:radix=4,levels=2")
    with pytest.raises(SpecError, match="not mapped"):
        simulate_aggregation(topo, Tree.from_children([[1], []]))


def test_the_captions_count_in_words_and_give_times_in_microseconds():
    """The cost model's unit (μs) on the last caption (a GIF's last frame said "t=9.5"); counted words agree."""
    topo = from_spec("fat-tree:radix=4,levels=2")
    tree = Tree.from_children([[1, 2, 3], [], [], []], node=[topo.index(h) for h in ("h0", "h1", "h2", "h3")])
    tl = simulate_aggregation(topo, tree, timing=Timing(latency=1.0, theta=0.5))
    assert tl.caption(tl.n_steps - 1) == "Every vertex has the result 6 at t = 9.5 μs"
    assert tl.intro.startswith("Each of the 4 processes contributes a value; the 3 tree edges carry partial results")
    assert "(latency l = 1 μs per link, θ = 0.5 μs per packet)" in tl.intro
    pair = simulate_aggregation(topo, Tree.from_children([[1], []], node=[topo.index("h0"), topo.index("h1")]))
    assert "the 1 tree edge carries" in pair.intro and pair.caption(0) == "The 1 leaf sends its value up"
