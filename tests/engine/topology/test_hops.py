"""Min-hop tables against networkx breadth-first search and brute force."""

from __future__ import annotations

import doctest

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph

from vizcoll.errors import TopologyError
from vizcoll.topology import hops as hops_module
from vizcoll.topology.generators import from_spec
from vizcoll.topology.hops import UNREACHABLE, min_hops
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

SMALL_SPECS = [
    "fat-tree:radix=4,levels=2",
    "fat-tree:radix=4,levels=3",
    "pruned-fat-tree",
    "sunway-supernode",
    "torus:3x4x2,hosts=2",
    "dragonfly:a=4,p=2,h=2",
    "mesh:4x4,neighbors=8",
    "mesh:4x4,neighbors=4",
]


# ---------------------------------------------------------------- references
def reference_hops(topo: Topology) -> np.ndarray:
    """All-pairs fewest hops by networkx BFS where end nodes never forward (-1 = no path)."""
    n = topo.n_nodes
    live = ~topo.broken
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    own_edges: dict[int, list[tuple[int, int]]] = {x: [] for x in range(n)}
    for a, b in zip(topo.link_a[live].tolist(), topo.link_b[live].tolist(), strict=True):
        for u, v in ((a, b), (b, a)):
            if topo.kind[u] == SWITCH:
                graph.add_edge(u, v)
            else:
                own_edges[u].append((u, v))
    out = np.full((n, n), -1, dtype=np.int64)
    for src in range(n):
        graph.add_edges_from(own_edges[src])  # only the source end node may send
        for dst, length in nx.single_source_shortest_path_length(graph, src).items():
            out[src, dst] = length
        graph.remove_edges_from(own_edges[src])
    return out


def live_ports(topo: Topology) -> dict[int, tuple[list[int], list[int]]]:
    """node -> (ports ascending, peers) over live links, straight from the link columns."""
    pairs: dict[int, list[tuple[int, int]]] = {x: [] for x in range(topo.n_nodes)}
    for a, pa, b, pb, broken in zip(
        topo.link_a.tolist(),
        topo.link_pa.tolist(),
        topo.link_b.tolist(),
        topo.link_pb.tolist(),
        topo.broken.tolist(),
        strict=True,
    ):
        if not broken:
            pairs[a].append((pa, b))
            pairs[b].append((pb, a))
    return {x: ([p for p, _ in sorted(v)], [q for _, q in sorted(v)]) for x, v in pairs.items()}


def brute_port_hops(topo: Topology, ref: np.ndarray, peers: list[int]) -> np.ndarray:
    """hops[j, dst] through the port whose peer is ``peers[j]``: 1 + the peer's distance."""
    expected = np.full((len(peers), topo.n_nodes), -1, dtype=np.int64)
    for j, peer in enumerate(peers):
        if topo.kind[peer] == ENDPOINT:
            expected[j, peer] = 1  # an end node peer leads only to itself
        else:
            expected[j] = np.where(ref[peer] >= 0, ref[peer] + 1, -1)
    return expected


def check_against_reference(topo: Topology, members_list=()) -> None:
    """Every query of the table equals networkx BFS / brute force."""
    table = min_hops(topo)
    ref = reference_hops(topo)
    n = topo.n_nodes
    sw = np.flatnonzero(topo.kind == SWITCH)
    src, dst = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    got = table.hops(src, dst)
    assert got.dtype == np.int32 and got.shape == (n, n)
    np.testing.assert_array_equal(got, ref)
    for x in range(n):
        np.testing.assert_array_equal(table.hops_from(x), ref[x])
    compact = table.dist.astype(np.int64)
    compact[table.dist == table.unreachable] = -1
    np.testing.assert_array_equal(compact, ref[np.ix_(sw, sw)])
    np.testing.assert_array_equal(table.switches, sw)
    ports_of = live_ports(topo)
    sample = np.random.default_rng(n).permutation(n)[:40]  # min_ports checked on up to 40 destinations
    for s in sw:
        np.testing.assert_array_equal(table.switch_to_all(s), ref[s])
        ports, peers = ports_of[s]
        expected = brute_port_hops(topo, ref, peers)
        got_ports, got_hops = table.port_hops(s, np.arange(n))
        assert got_ports.tolist() == ports
        np.testing.assert_array_equal(got_hops, expected)
        for d in sample:
            col = expected[:, d]
            ok = (col >= 0) & (d != s)
            best = [p for p, h in zip(ports, col, strict=True) if ok.any() and h == col[ok].min()]
            assert table.min_ports(s, d) == best
    for e in np.flatnonzero(topo.kind == ENDPOINT):
        assert table.attached(e).tolist() == sorted({p for p in ports_of[e][1] if topo.kind[p] == SWITCH})
    for members in (*members_list, np.arange(n)):
        members = np.asarray(members, dtype=np.int64)
        cols = ref[np.ix_(sw, members)]
        expected = np.where((cols < 0).any(axis=1), -1, cols.max(axis=1, initial=0))
        np.testing.assert_array_equal(table.eccentricity_to(members), expected)


# ---------------------------------------------------------------- random graphs
@st.composite
def random_topologies(draw):
    kinds = draw(st.lists(st.sampled_from([SWITCH, ENDPOINT]), min_size=1, max_size=12))
    n = len(kinds)
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=20)) if n > 1 else []
    pairs = [(a, b) for a, b in pairs if a != b]
    degree = np.zeros(n, dtype=int)
    for a, b in pairs:
        degree[a] += 1
        degree[b] += 1
    # each node's ports: a random permutation of 1..degree, so port order != link order
    free = [list(draw(st.permutations(range(1, d + 1)))) for d in degree]
    links = [(a, free[a].pop(), b, free[b].pop()) for a, b in pairs]
    topo = Topology.from_arrays(
        [f"n{i}" for i in range(n)], kinds, np.maximum(degree, 1), np.array(links, dtype=np.int64).reshape(-1, 4)
    )
    topo.broken[:] = draw(st.lists(st.booleans(), min_size=len(links), max_size=len(links)))
    members = draw(st.lists(st.integers(0, n - 1), max_size=5))
    return topo, members


@settings(max_examples=150, deadline=None)
@given(random_topologies())
def test_random_graphs_match_networkx(case):
    topo, members = case
    check_against_reference(topo, [members, []])


# ---------------------------------------------------------------- generators
def break_links(topo: Topology, fraction: float, seed: int) -> Topology:
    topo = topo.copy()
    rng = np.random.default_rng(seed)
    for link_id in rng.choice(topo.link_id, size=int(fraction * topo.n_links), replace=False):
        topo.set_broken(int(link_id))
    return topo


def isolate(topo: Topology, name: str) -> Topology:
    """Break every link of a node (a switch loses its hosts too; an end node is cut off)."""
    topo = topo.copy()
    node = topo.index(name)
    for link_id in topo.link_id[(topo.link_a == node) | (topo.link_b == node)]:
        topo.set_broken(int(link_id))
    return topo


@pytest.mark.parametrize("spec", SMALL_SPECS)
def test_generators_match_networkx(spec):
    topo = from_spec(spec)
    last = topo.endpoints[-3:]
    check_against_reference(topo, [topo.endpoints[:4], np.r_[topo.switches[:2], last]])


@pytest.mark.parametrize("spec", SMALL_SPECS)
def test_generators_with_broken_links_match_networkx(spec):
    topo = break_links(from_spec(spec), 0.15, seed=len(spec))
    assert topo.broken.any()
    check_against_reference(topo, [topo.endpoints[:6]])


@pytest.mark.parametrize(
    ("spec", "cut"),
    [
        ("fat-tree:radix=4,levels=2", "leaf0"),
        ("torus:3x4x2,hosts=2", "sw0-0-0"),
        ("sunway-supernode", "node3"),
        ("dragonfly:a=4,p=2,h=2", "h0.0.0"),
        ("mesh:4x4,neighbors=4", "sw0-1"),
    ],
)
def test_disconnected_parts_report_unreachable(spec, cut):
    topo = isolate(from_spec(spec), cut)
    table = min_hops(topo)
    node = topo.index(cut)
    others = np.delete(np.arange(topo.n_nodes), node)
    np.testing.assert_array_equal(table.hops_from(node)[others], UNREACHABLE)
    np.testing.assert_array_equal(table.hops(others, node), UNREACHABLE)
    assert table.hops_from(node)[node] == 0
    ecc = table.eccentricity_to([node, int(others[-1])])
    assert (ecc == UNREACHABLE).all()  # no switch reaches both the cut-off node and another one
    check_against_reference(topo)


def test_fat_tree_leaf_cut_off_from_spines():
    topo = from_spec("fat-tree:radix=4,levels=2")  # leaf0 holds h0, h1 on ports 1, 2; spines on 3, 4
    for link_id in topo.link_id[(topo.link_a == topo.index("leaf0")) & (topo.link_b >= topo.index("spine0"))]:
        topo.set_broken(int(link_id))
    table = min_hops(topo)
    h0, h1, h2 = (topo.index(x) for x in ("h0", "h1", "h2"))
    assert table.hops([h0, h0, h2], [h1, h2, h0]).tolist() == [2, UNREACHABLE, UNREACHABLE]
    ports, hops = table.port_hops(topo.index("leaf0"), [h1, h2])
    assert ports.tolist() == [1, 2] and hops.tolist() == [[-1, -1], [1, -1]]
    assert table.min_ports(topo.index("leaf0"), h2) == []
    assert table.dist[table.sw_pos[topo.index("leaf0")], table.sw_pos[topo.index("spine0")]] == 255


# ---------------------------------------------------------------- hand-made cases
def test_end_nodes_linked_directly_do_not_forward():
    # s0 -- e2 -- e1 and s0 -- e3: e1 reaches only e2 (1 hop); e2 is not a way to s0 for e1
    topo = Topology.from_arrays(
        ["s0", "e1", "e2", "e3"],
        [SWITCH, ENDPOINT, ENDPOINT, ENDPOINT],
        [4, 1, 2, 1],
        [[1, 1, 2, 1], [2, 2, 0, 3], [3, 1, 0, 1]],
    )
    table = min_hops(topo)
    assert table.hops_from(1).tolist() == [-1, 0, 1, -1]
    assert table.hops_from(2).tolist() == [1, 1, 0, 2]
    assert table.hops_from(0).tolist() == [0, -1, 1, 1]
    ports, hops = table.port_hops(0, [2, 3, 1, 0])
    assert ports.tolist() == [1, 3] and hops.tolist() == [[-1, 1, -1, -1], [1, -1, -1, -1]]
    assert table.min_ports(0, 3) == [1] and table.min_ports(0, 0) == []
    assert table.eccentricity_to([2, 3]).tolist() == [1] and table.eccentricity_to([1]).tolist() == [-1]
    assert table.attached(2).tolist() == [0] and table.attached(1).tolist() == []


def test_end_node_on_two_leaves_uses_the_nearer():
    topo = from_spec("sunway-supernode")  # node i: port 1 on leaf i//16, port 2 on leaf 16 + i//16
    table = min_hops(topo)
    node0, leaf0, leaf16 = topo.index("node0"), topo.index("leaf0"), topo.index("leaf16")
    assert table.attached(node0).tolist() == [leaf0, leaf16]
    assert table.hops([node0, node0, node0], [topo.index("node1"), topo.index("node255"), leaf16]).tolist() == [2, 4, 1]
    topo.set_broken(int(topo.links_between("node0", "leaf0")[0]))
    table = min_hops(topo)
    assert table.attached(node0).tolist() == [leaf16]
    assert table.hops(node0, [topo.index("node1"), leaf0]).tolist() == [2, 3]
    assert table.eccentricity_to([node0])[[table.sw_pos[leaf0], table.sw_pos[leaf16]]].tolist() == [3, 1]


def test_minihop_root_criterion_counts_end_nodes_one_more_hop():
    topo = from_spec("fat-tree:radix=4,levels=2")
    table = min_hops(topo)
    ecc = table.eccentricity_to([topo.index("h0"), topo.index("h1")])
    row = {name: ecc[table.sw_pos[topo.index(name)]] for name in ("leaf0", "leaf1", "spine0")}
    assert row == {"leaf0": 1, "leaf1": 3, "spine0": 2}
    assert table.eccentricity_to([topo.index("h0"), topo.index("leaf1")])[table.sw_pos[topo.index("leaf0")]] == 2
    assert table.eccentricity_to([]).tolist() == [0] * 6


def test_long_chain_widens_the_compact_dtype(monkeypatch):
    n = 300  # a chain of 300 switches is 299 hops long: no longer fits uint8
    links = [[i, 2, i + 1, 1] for i in range(n - 1)]
    topo = Topology.from_arrays([f"s{i}" for i in range(n + 1)], [SWITCH] * (n + 1), [2] * (n + 1), links)
    monkeypatch.setattr(hops_module, "_CHUNK_WORDS", 1)  # 64 sources per pass: shallow and deep passes mix
    table = min_hops(topo, workers=2)
    assert table.dist.dtype == np.uint16 and table.unreachable == 65535 and table.diameter == n - 1
    idx = np.arange(n)
    np.testing.assert_array_equal(table.dist[:n, :n], np.abs(idx[:, None] - idx[None, :]))
    assert (table.dist[n, :n] == 65535).all() and (table.dist[:n, n] == 65535).all() and table.dist[n, n] == 0
    assert table.hops(0, [n - 1, n]).tolist() == [n - 1, UNREACHABLE]


@pytest.mark.parametrize("workers", [1, 2])
def test_many_passes_match_csgraph(monkeypatch, workers):
    topo = break_links(from_spec("torus:12x10x7,hosts=0"), 0.2, seed=7)  # 840 switches, 13 passes of 64
    monkeypatch.setattr(hops_module, "_CHUNK_WORDS", 1)
    table = min_hops(topo, workers=workers)
    expected = csgraph.shortest_path(topo.adjacency(), unweighted=True, directed=False)
    expected[np.isinf(expected)] = table.unreachable
    assert table.dist.dtype == np.uint8
    np.testing.assert_array_equal(table.dist, expected.astype(np.uint8))


def test_bad_arguments():
    topo = from_spec("fat-tree:radix=4,levels=2")
    table = min_hops(topo)
    with pytest.raises(TopologyError, match="not a switch"):
        table.switch_to_all(topo.index("h0"))
    with pytest.raises(TopologyError, match="not a switch"):
        table.port_hops(topo.index("h0"), [0])
    with pytest.raises(TopologyError, match="outside"):
        table.hops_from(topo.n_nodes)
    with pytest.raises(TopologyError, match="must lie"):
        table.hops([0], [-1])


def test_empty_and_switchless_topologies():
    table = min_hops(Topology.from_arrays(["a", "b"], [ENDPOINT, ENDPOINT], [1, 1], [[0, 1, 1, 1]]))
    assert table.dist.shape == (0, 0) and table.diameter == 0
    assert table.hops([0, 0], [0, 1]).tolist() == [0, 1]
    assert table.eccentricity_to([0]).shape == (0,)


def test_docstring_example():
    assert doctest.testmod(hops_module).failed == 0
