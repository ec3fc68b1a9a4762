"""Per-link views of a multicast result (vizcoll.multicast.loads): groups per link, tree rows, switch groups."""

from __future__ import annotations

import numpy as np
import pytest

from vizcoll.comm import parse_pattern
from vizcoll.errors import VizcollError
from vizcoll.multicast import ALGORITHMS, route, route_communicators
from vizcoll.multicast.loads import groups_on_links, tree_rows, worst_rows
from vizcoll.topology.generators import from_spec
from vizcoll.topology.hops import min_hops

TEACHING = "pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4"


@pytest.fixture(scope="module")
def teaching():
    topo = from_spec(TEACHING)
    comms = parse_pattern("grid2d:16x8", topo, ppn=2)
    table = min_hops(topo)
    return topo, {algo: route_communicators(topo, comms, algo, table) for algo in ("minhop-new", "fulb")}


@pytest.mark.parametrize("algo", ["minhop-new", "fulb"])
def test_groups_on_links_count_the_efi_and_name_each_tree(teaching, algo):
    topo, results = teaching
    result = results[algo]
    crossing = groups_on_links(result, topo.n_links)
    assert [len(g) for g in crossing] == result.efi.tolist()
    for tree in result.trees:
        rows = tree_rows(result, tree.group)
        assert sorted(topo.link_id[rows].tolist()) == sorted(tree.links.tolist())
        assert all(tree.group in crossing[r] for r in rows.tolist())
    assert all(g == sorted(g) for g in crossing)
    some = [7, 0, 191, 7]  # only some rows (a pod drawn alone), in any order
    assert groups_on_links(result, topo.n_links, some) == [crossing[r] for r in some]
    with pytest.raises(VizcollError, match="routed on 192 links, not 5"):
        groups_on_links(result, 5)


def test_the_teaching_example_worst_links(teaching):
    topo, results = teaching
    assert [int(results["minhop-new"].efi[r]) for r in worst_rows(results["minhop-new"], 3)] == [8, 8, 8]
    assert int(results["fulb"].efi[worst_rows(results["fulb"], 1)[0]]) == 3
    efi = results["fulb"].efi
    rows = worst_rows(results["fulb"], 10_000)
    assert len(rows) == int((efi > 0).sum()) and list(efi[rows]) == sorted(efi[efi > 0], reverse=True)


def test_tree_rows_of_no_group_or_an_unroutable_one_are_empty():
    topo = from_spec("fat-tree:radix=4,levels=2")
    h = [topo.index(f"h{i}") for i in range(4)]
    edge = np.flatnonzero((topo.link_a == h[3]) | (topo.link_b == h[3]))
    topo.broken[edge] = True  # h3 is cut off
    result = route(topo, [[h[0], h[1]], [h[0], h[3]]], "fulb")
    assert result.unroutable == [1]
    for group in (None, 1, 2, -1):
        assert tree_rows(result, group).tolist() == []
    assert len(tree_rows(result, 0)) == 2 and groups_on_links(result, topo.n_links)[int(edge[0])] == []


def test_routing_is_unchanged_by_the_helpers(teaching):
    """The helpers only read results: routing the teaching example still gives 8 vs 3 (the paper's point)."""
    topo, results = teaching
    assert {a: r.summary()["max_efi"] for a, r in results.items()} == {"minhop-new": 8, "fulb": 3}
    assert set(results) <= set(ALGORITHMS)
