"""Links found by their ends' names (vizcoll.topology.listing), counted against the fabric's own link list."""

from __future__ import annotations

import pytest

from tests.fabrics import REAL_FABRICS
from vizcoll.commands import load_topology
from vizcoll.topology import from_spec
from vizcoll.topology.listing import MAX_QUERY, find_links, find_nodes


def test_every_word_must_name_an_end_and_the_order_is_the_fabrics():
    topo = from_spec("fat-tree:radix=4,levels=3")
    found = find_links(topo, "edge0.0 agg")
    assert [link["label"] for link in found["links"]] == ["edge0.0[3]-agg0.0[1]", "edge0.0[4]-agg0.1[1]"]
    assert found["total"] == 2 and found["query"] == "edge0.0 agg"
    assert find_links(topo, "EDGE0.0-AGG0.1")["total"] == 1  # case ignored, a dash separates words
    assert find_links(topo, "edge0.0[4]")["links"][0]["label"] == "edge0.0[4]-agg0.1[1]"  # a port narrows it
    assert find_links(topo, "nobody")["links"] == []


def test_an_empty_query_lists_the_first_links_and_the_total_counts_them_all():
    topo = from_spec("fat-tree:radix=4,levels=3")
    found = find_links(topo, "", limit=5)
    assert found["total"] == topo.n_links == 48
    assert [link["label"] for link in found["links"]] == [topo.link_label(r) for r in range(5)]


def test_a_broken_link_says_so_and_absurd_queries_are_cut():
    topo = from_spec("torus:3x3x3")
    topo.broken[4] = True
    found = find_links(topo, topo.names[topo.link_a[4]], limit=100)
    assert [link["broken"] for link in found["links"] if link["label"] == topo.link_label(4)] == [True]
    assert len(find_links(topo, "x" * 10_000)["query"]) == MAX_QUERY
    assert find_links(topo, "a " * 1000, limit=0)["links"] == []


@pytest.mark.skipif(not REAL_FABRICS.is_dir(), reason="the real fabric files are not here")
def test_a_real_cluster_counted_from_its_file():
    """loginoff-topo.ibnd (ibnetdiscover): the cables between two switches, counted on the file's own lines."""
    path = REAL_FABRICS / "loginoff-topo.ibnd"
    cables, switch = 0, ""
    for line in path.read_text().splitlines():
        if line.startswith("Switch"):
            switch = line
        elif line.startswith("[") and "ib5:SX6036" in switch and "ib8:SX6036" in line:
            cables += 1
    found = find_links(load_topology(str(path)), "ib5 ib8")
    assert found["total"] == cables == 4


def test_nodes_are_found_by_every_word_of_their_name_with_their_links_counted():
    topo = from_spec("fat-tree:radix=4,levels=3")
    topo.broken[topo.find_link("edge0.0[4]-agg0.1[1]")] = True
    found = find_nodes(topo, "EDGE0")
    assert found["nodes"] == [
        {"name": "edge0.0", "kind": "switch", "links": 4, "broken": 1},
        {"name": "edge0.1", "kind": "switch", "links": 4, "broken": 0},
    ]
    assert find_nodes(topo, "h1")["nodes"][0] == {"name": "h1", "kind": "end node", "links": 1, "broken": 0}
    assert find_nodes(topo, "", limit=3)["total"] == topo.n_nodes == 36
    assert find_nodes(topo, "edge agg")["nodes"] == []
