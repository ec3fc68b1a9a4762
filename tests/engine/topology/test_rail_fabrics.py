"""Rail-optimized fabrics: sizes from the formula, rank order, the rails' min-hop tables, ``cross=1``, the limits."""

import networkx as nx
import numpy as np
import pytest

from vizcoll.comm import place
from vizcoll.errors import SpecError, TopologyError
from vizcoll.topology import ENDPOINT, checks, from_spec
from vizcoll.topology.blockdist import BlockDist
from vizcoll.topology.hops import UNREACHABLE, min_hops
from vizcoll.topology.model import MAX_ENDPOINTS, Topology
from vizcoll.topology.rails import rail_size

CASES = [(6, 2, 4, 0), (40, 3, 8, 0), (40, 3, 8, 1), (3, 4, 8, 1), (10, 2, 8, 0), (33, 2, 8, 1)]


def expected(servers: int, rails: int, radix: int, cross: int) -> tuple[int, int, int]:
    """Switches, links and levels of a rail fabric, counted independently of the generator."""
    h = radix // 2
    if servers <= radix:
        per_rail, inner, top = 1, 0, 1
    elif servers <= radix * h:
        leaves = -(-servers // h)
        per_rail, inner, top = leaves + h, leaves * h, h
    else:
        leaves = -(-servers // h)
        pods = -(-leaves // h)
        per_rail, inner, top = leaves + pods * h + h * h, leaves * h + pods * h * h, h * h
    links = rails * (servers + inner) + cross * top * rails * (rails - 1) // 2
    return rails * per_rail, links, 1 if servers <= radix else 2 if servers <= radix * h else 3


def spec(servers, rails, radix, cross):
    return f"rail-fat-tree:servers={servers},rails={rails},radix={radix}" + (",cross=1" if cross else "")


@pytest.mark.parametrize("case", CASES)
def test_sizes_match_the_formula(case):
    topo = from_spec(spec(*case))
    switches, links, levels = expected(*case)
    servers, rails, radix, _ = case
    assert (len(topo.switches), len(topo.endpoints), topo.n_links) == (switches, servers * rails, links)
    assert topo.meta["rail_levels"] == levels == int(topo.attr("level").max())
    used = np.bincount(np.r_[topo.link_a, topo.link_b], minlength=topo.n_nodes)
    assert used.max() <= radix and (topo.nports[topo.switches] == radix).all()
    size = rail_size(*case)
    assert (size["switches"], size["links"], size["endpoints"]) == (switches, links, servers * rails)


def test_the_million_endpoint_fabric_by_the_formula():
    size = rail_size(131072, 8, 128)
    assert size == {"levels": 3, "switches": 65536, "endpoints": 1 << 20, "nodes": 1114112, "links": 3145728}
    assert expected(131072, 8, 128, 0)[:2] == (65536, 3145728)


@pytest.mark.parametrize("case", CASES)
def test_nic_r_of_every_server_is_on_rail_r_and_a_servers_gpus_are_consecutive(case):
    servers, rails, _, _ = case
    topo = from_spec(spec(*case))
    node = place(topo).node
    assert len(node) == servers * rails
    rank = np.arange(len(node))
    assert (topo.attr("server")[node] == rank // rails).all() and (topo.attr("rail")[node] == rank % rails).all()
    assert topo.names[node[rails + 1]].endswith("-nic1") and topo.names[node[rails + 1]].startswith("s")
    rail, kind = topo.attr("rail"), topo.kind
    leaf = np.where(kind[topo.link_a] == ENDPOINT, topo.link_b, topo.link_a)[kind[topo.link_a] + kind[topo.link_b] == 1]
    nic = np.where(kind[topo.link_a] == ENDPOINT, topo.link_a, topo.link_b)[kind[topo.link_a] + kind[topo.link_b] == 1]
    assert (rail[leaf] == rail[nic]).all() and all(topo.names[x].startswith(f"rail{rail[x]}-leaf") for x in leaf)
    naive = place(topo, order="rail-major").node
    assert (topo.attr("rail")[naive] == rank // servers).all()


def _networkx_hops(topo: Topology) -> np.ndarray:
    g = nx.Graph()
    g.add_nodes_from(range(topo.n_nodes))
    g.add_edges_from(zip(topo.link_a[topo.live].tolist(), topo.link_b[topo.live].tolist(), strict=True))
    lengths = dict(nx.all_pairs_shortest_path_length(g))
    return np.array([[lengths[u].get(v, UNREACHABLE) for v in range(topo.n_nodes)] for u in range(topo.n_nodes)])


@pytest.mark.parametrize("case", [(40, 3, 8, 0), (40, 3, 8, 1), (6, 2, 4, 0)])
def test_min_hops_per_rail_equal_networkx(case):
    topo = from_spec(spec(*case))
    topo.set_broken(int(topo.link_id[-1]))  # one rail differs from the others now
    table = min_hops(topo)
    if case[3]:  # one network: a dense matrix (small fabric)
        assert isinstance(table.dist, np.ndarray)
    else:  # one block per rail
        assert len(np.unique(table.dist.part)) == case[1]
    ref = _networkx_hops(topo)
    assert np.array_equal(np.array([table.hops_from(u) for u in range(topo.n_nodes)]), ref)
    u, v = np.random.default_rng(1).integers(0, topo.n_nodes, (2, 2000))
    assert np.array_equal(table.hops(u, v), ref[u, v])
    assert table.diameter == int(ref[np.ix_(topo.switches, topo.switches)].max())


def test_rails_wired_alike_share_one_block():
    table = min_hops(from_spec("rail-fat-tree:servers=40,rails=4,radix=8"))
    assert isinstance(table.dist, BlockDist) and len(table.dist.blocks) == 1
    assert table.dist.nbytes < (table.dist.shape[0] // 4) ** 2  # smaller still: one row per class of twins


def test_cross_links_join_top_switch_t_of_every_rail():
    topo = from_spec("rail-fat-tree:servers=40,rails=3,radix=8,cross=1")
    cross = topo.link_attrs["cross"] == 1
    rail, level = topo.attr("rail"), topo.attr("level")
    a, b = topo.link_a[cross], topo.link_b[cross]
    assert cross.sum() == 16 * 3 and (level[a] == 3).all() and (level[b] == 3).all() and (rail[a] != rail[b]).all()
    name = lambda x: topo.names[x].split("-", 1)[1]  # noqa: E731
    assert all(name(x) == name(y) for x, y in zip(a.tolist(), b.tolist(), strict=True))
    pods = 3  # 40 servers, 4 per leaf, 4 leaves per pod: the cores use ports 1..3, the cross links 4 and 5
    assert sorted(set(topo.link_pa[cross].tolist()) | set(topo.link_pb[cross].tolist())) == [pods + 1, pods + 2]
    table = min_hops(topo)
    nic = lambda s, r: topo.index(f"s{s:02d}-nic{r}")  # noqa: E731
    assert int(table.hops(nic(0, 0), nic(39, 2))) == 7  # leaf, spine, core, core of rail 2, spine, leaf


def test_rails_are_separate_without_cross():
    topo = from_spec("rail-fat-tree:servers=40,rails=3,radix=8")
    table = min_hops(topo)
    s0, s1 = topo.index("s00-nic0"), topo.index("s01-nic1")
    assert int(table.hops(s0, s1)) == UNREACHABLE and int(table.hops(s0, topo.index("s39-nic0"))) == 6


def test_limits_accept_a_million_endpoints_and_refuse_more():
    assert MAX_ENDPOINTS == 1_048_576
    with pytest.raises(SpecError, match=r"1,048,584 end nodes; the limit is 1,048,576"):
        from_spec("rail-fat-tree:servers=131073,rails=8,radix=128")
    with pytest.raises(SpecError, match="more than 3 levels"):
        from_spec("rail-fat-tree:servers=131072,rails=8,radix=64")
    with pytest.raises(SpecError, match="free ports"):
        from_spec("rail-fat-tree:servers=128,rails=2,radix=16,cross=1")  # 16 leaves: the spines' ports are all used
    with pytest.raises(TopologyError, match="1048577 end nodes is more than the limit of 1048576"):
        checks.check_nodes(_Sized(MAX_ENDPOINTS + 1))


class _Sized:
    """A stand-in with ``n`` end nodes for the node count check (no million names needed)."""

    def __init__(self, n):
        self.n_nodes, self.kind = n, np.ones(n, dtype=np.int8)


@pytest.mark.parametrize(
    "bad", ["servers=0,rails=2,radix=8", "servers=4,rails=2,radix=7", "servers=4,rails=2,radix=8,cross=2"]
)
def test_bad_parameters_are_refused(bad):
    with pytest.raises(SpecError):
        from_spec(f"rail-fat-tree:{bad}")
