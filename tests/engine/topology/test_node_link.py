"""Hand-written node-link JSON topologies (vizcoll.topology.formats.nodelink through io.parse)."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from vizcoll.errors import FileFormatError
from vizcoll.topology import io as topo_io
from vizcoll.topology.model import ENDPOINT, SWITCH

HANDMADE = {
    "nodes": [
        {"name": "spine", "kind": "switch"},
        {"name": "leaf", "kind": "switch", "ports": 36},
        "alpha",
        {"id": "beta", "kind": "hca"},
    ],
    "links": [
        {"a": "spine", "b": "leaf", "pa": 1, "pb": 36},
        ["leaf", "alpha"],
        {"source": "leaf", "target": "beta", "broken": True},
    ],
}


def test_a_hand_written_topology_is_read_with_its_names_ports_and_breaks():
    topo = topo_io.parse(json.dumps(HANDMADE, indent=2), "mine.json")
    assert topo.names == ["spine", "leaf", "alpha", "beta"]
    assert topo.kind.tolist() == [SWITCH, SWITCH, ENDPOINT, ENDPOINT]
    assert topo.nports.tolist() == [1, 36, 1, 1]
    assert [topo.link_label(r) for r in range(topo.n_links)] == [
        "spine[1]-leaf[36]",
        "leaf[1]-alpha[1]",
        "leaf[2]-beta[1]",
    ]
    assert topo.broken.tolist() == [False, False, True]


def test_kinds_default_by_degree_and_ports_skip_the_ones_given():
    topo = topo_io.parse(
        json.dumps({"nodes": ["s", "t", "h"], "links": [{"a": "s", "b": "t", "pa": 1}, ["s", "t"], ["s", "h"]]}),
        "x.json",
    )
    assert topo.kind.tolist() == [SWITCH, SWITCH, ENDPOINT]  # h has one link: an end node
    assert [topo.link_label(r) for r in range(3)] == ["s[1]-t[1]", "s[2]-t[2]", "s[3]-h[1]"]


def test_a_link_from_a_node_to_itself_is_a_loopback_cable_and_parallel_links_stay():
    topo = topo_io.parse(json.dumps({"nodes": ["s", "t"], "links": [["s", "s"], ["s", "t"], ["s", "t"]]}), "x.json")
    assert [topo.link_label(r) for r in range(3)] == ["s[1]-s[2]", "s[3]-t[1]", "s[4]-t[2]"]


def test_networkx_node_link_data_is_read():
    g = nx.Graph([("sw", "h0"), ("sw", "h1"), ("sw", "sw2"), ("sw2", "h2")])
    topo = topo_io.parse(json.dumps(nx.node_link_data(g, edges="links")), "nx.json")
    assert sorted(topo.names) == ["h0", "h1", "h2", "sw", "sw2"] and topo.n_links == 4
    assert {topo.names[i] for i in topo.endpoints.tolist()} == {"h0", "h1", "h2"}
    assert topo_io.parse(json.dumps(nx.node_link_data(g, edges="edges")), "nx.json").n_links == 4


@pytest.mark.parametrize(
    "data, words",
    [
        ({"nodes": [1.5]}, "node 0 must be a name"),
        ({"nodes": ["a", "a"]}, "node 1: the name 'a' is used twice"),
        ({"nodes": ["a"], "links": [["a", "b"]]}, "link 0: 'b' names no node ('b')"),
        ({"nodes": ["a", "b"], "links": [{"a": "a", "b": "a", "pa": 1, "pb": 1}]}, "link 0 joins port 1 to itself"),
        ({"nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "pa": -5}]}, "'pa' must be a whole number from 1"),
        (
            {"nodes": ["a", "b", "c"], "links": [{"a": "a", "b": "b", "pa": 1}, {"a": "a", "b": "c", "pa": 1}]},
            "port 1 of node 'a' is used by two links",
        ),
        ({"nodes": [{"name": "a", "kind": "router"}]}, "unknown kind 'router'"),
        ({"nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "broken": "yes"}]}, "'broken' must be true or false"),
        ({"nodes": "a,b"}, "node-link object"),
        ({"topology": 1}, "node-link object"),
        ([1, 2], "node-link object"),
    ],
)
def test_bad_hand_written_files_name_what_is_wrong(data, words):
    with pytest.raises(FileFormatError, match="x.json: .*" + words.replace("(", r"\(").replace(")", r"\)")):
        topo_io.parse(json.dumps(data), "x.json")


def test_the_lossless_export_still_round_trips():
    topo = topo_io.parse(json.dumps(HANDMADE), "mine.json")
    assert topo_io.parse(topo_io.dumps(topo, "json"), "again.json") == topo


GRAPHML = """<?xml version="1.0" encoding="utf-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key attr.name="label" attr.type="string" for="node" id="d0" />
  <key attr.name="type" attr.type="string" for="node" id="d1" />
  <graph edgedefault="undirected">
    <node id="0"><data key="d0">Paris</data></node>
    <node id="1"><data key="d0">Lyon</data></node>
    <node id="2"><data key="d0">Lyon</data></node>
    <node id="3"><data key="d0">node-a</data><data key="d1">Host</data></node>
    <edge source="0" target="1" />
    <edge source="0" target="1" />
    <edge source="1" target="2" />
    <edge source="2" target="3" />
    <edge source="0" target="0" />
  </graph>
</graphml>
"""


def test_anyones_graphml_is_read_in_file_order_with_labels_hosts_parallel_edges_and_loops():
    topo = topo_io.parse(GRAPHML, "zoo.graphml")
    assert topo.names == ["Paris", "Lyon (1)", "Lyon (2)", "node-a"]  # duplicate labels get their id
    assert topo.kind.tolist() == [SWITCH, SWITCH, SWITCH, ENDPOINT]  # switches unless marked as a host
    assert [topo.link_label(r) for r in range(topo.n_links)] == [
        "Paris[1]-Lyon (1)[1]",
        "Paris[2]-Lyon (1)[2]",
        "Lyon (1)[3]-Lyon (2)[1]",
        "Lyon (2)[2]-node-a[1]",
        "Paris[3]-Paris[4]",
    ]
    assert topo_io.parse(topo_io.dumps(topo, "graphml"), "again.graphml") == topo  # our own GraphML round-trips


def test_a_zoo_graph_with_an_isolated_node_and_an_empty_label_is_read():
    """21 of the Topology Zoo's 276 graphs have a node without edges; IntNetworkmap has a node with an empty label."""
    text = GRAPHML.replace(
        '<node id="3">',
        '<node id="9"><data key="d0"></data></node><node id="8"><data key="d0">Lonely</data></node><node id="3">',
    )
    topo = topo_io.parse(text, "zoo.graphml")
    assert topo.names[:5] == ["Paris", "Lyon (1)", "Lyon (2)", "9", "Lonely"]
    assert topo.nports.tolist()[3:5] == [1, 1] and topo.n_links == 5  # kept, one free port each
    assert topo.summary()["switches"] == 5


def networkx_directed_graphml() -> str:
    """What networkx writes for a DiGraph holding each cable both ways, the role in a ``typ`` attribute."""
    import networkx as nx

    g = nx.DiGraph()
    for name, role in (("spine", "switch"), ("leaf1", "switch"), ("leaf2", "switch"), ("h1", "host"), ("h2", "host")):
        g.add_node(name, typ=role)
    for a, b in (("spine", "leaf1"), ("spine", "leaf2"), ("leaf1", "h1"), ("leaf2", "h2")):
        g.add_edge(a, b)
        g.add_edge(b, a)
    return "\n".join(nx.generate_graphml(g))


def test_a_directed_graphml_with_each_cable_both_ways_has_one_link_per_cable():
    text = networkx_directed_graphml()
    assert 'edgedefault="directed"' in text and text.count("<edge ") == 8  # independent count: 4 cables, 8 edges
    topo = topo_io.parse(text, "digraph.graphml")
    assert topo.n_links == 4 and topo.names == ["spine", "leaf1", "leaf2", "h1", "h2"]
    assert topo.kind.tolist() == [SWITCH, SWITCH, SWITCH, ENDPOINT, ENDPOINT]  # typ = host / switch
    assert [topo.link_label(r) for r in range(4)] == [
        "spine[1]-leaf1[1]",
        "spine[2]-leaf2[1]",
        "leaf1[2]-h1[1]",
        "leaf2[2]-h2[1]",
    ]


def test_directed_edges_count_the_more_frequent_direction():
    edges = (
        '<edge source="a" target="b"/><edge source="a" target="b"/><edge source="b" target="a"/>'
        '<edge source="b" target="c"/><edge source="c" target="b" directed="false"/>'
    )
    text = (
        f'<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
        f'<node id="a"/><node id="b"/><node id="c"/>{edges}</graph></graphml>'
    )
    topo = topo_io.parse(text, "x.graphml")
    assert [topo.link_label(r) for r in range(topo.n_links)] == ["a[1]-b[1]", "a[2]-b[2]", "b[3]-c[1]", "c[2]-b[4]"]
