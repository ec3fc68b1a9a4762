"""What rails change: cross-rail tree edges and groups, checked by brute force on the network graph (networkx)."""

import json

import networkx as nx
import numpy as np
import pytest

from vizcoll.cli import main
from vizcoll.comm import parse_pattern, place
from vizcoll.comm.rails import PLACEMENTS, cross_rail_edges, cross_rail_groups, group_rails, has_rails, rail_placements
from vizcoll.errors import SpecError
from vizcoll.topology import from_spec
from vizcoll.trees import kinds
from vizcoll.trees.groups import hierarchy_from_topology
from vizcoll.trees.rails import tree_rails
from vizcoll.trees.typeone import vertex_ranks

SPEC = "rail-fat-tree:servers=16,rails=4,radix=8"  # 2 levels per rail, 64 NICs, rails not linked


def _components(topo) -> dict[int, int]:
    """Connected component of every node: without cross links, one per rail."""
    g = nx.Graph()
    g.add_edges_from(zip(topo.link_a.tolist(), topo.link_b.tolist(), strict=True))
    return {node: i for i, part in enumerate(nx.connected_components(g)) for node in part}


@pytest.mark.parametrize("kind", ["knomial", "kary", "hier-knomial"])
@pytest.mark.parametrize("name", sorted(PLACEMENTS))
def test_cross_rail_tree_edges_by_brute_force(kind, name):
    topo = from_spec(SPEC)
    part = _components(topo)
    assert len(set(part.values())) == 4
    placement = place(topo, order=PLACEMENTS[name])
    builder = kinds.get(kind)
    tree = builder.build(64, 4, hierarchy_from_topology(topo, placement) if builder.hierarchical else None)
    ranks = np.asarray(vertex_ranks(tree))
    parent = np.asarray(tree.parent)
    child = np.flatnonzero(parent >= 0)
    got = cross_rail_edges(topo, placement, ranks[child], ranks[parent[child]])
    pairs = [(int(placement.node[ranks[c]]), int(placement.node[ranks[parent[c]]])) for c in child]
    server = lambda node: topo.names[node].split("-")[0]  # noqa: E731
    cross = [(a, b) for a, b in pairs if part[a] != part[b]]
    within = [(a, b) for a, b in cross if server(a) == server(b)]
    assert got == {
        "edges": 63,
        "cross_rail": len(cross),
        "within_server": len(within),
        "between_servers": len(cross) - len(within),
    }


def test_the_two_placements_differ_on_a_knomial_tree():
    topo = from_spec(SPEC)
    tree = kinds.get("knomial").build(64, 4, None)
    ranks, parent = np.asarray(vertex_ranks(tree)), np.asarray(tree.parent)
    child = np.flatnonzero(parent >= 0)
    aware = cross_rail_edges(topo, place(topo), ranks[child], ranks[parent[child]])
    naive = cross_rail_edges(topo, place(topo, order="rail-major"), ranks[child], ranks[parent[child]])
    assert aware["cross_rail"] == 48 and naive["cross_rail"] == 3  # 4-nomial: 3 of every 4 edges join ranks i, i+j


@pytest.mark.parametrize("pattern", ["grid2d:8x8", "random:10,size=5", "hier:4"])
@pytest.mark.parametrize("order", sorted(PLACEMENTS.values()))
def test_cross_rail_groups_by_brute_force(pattern, order):
    topo = from_spec(SPEC)
    part = _components(topo)
    comms = parse_pattern(pattern, topo, order=order)
    spans = [len({part[int(n)] for n in comms.nodes(i)}) for i in range(len(comms))]
    assert cross_rail_groups(topo, comms) == {
        "groups": len(comms),
        "cross_rail": sum(s > 1 for s in spans),
        "max_rails": max(spans),
    }


def test_has_rails():
    assert has_rails(from_spec(SPEC)) and not has_rails(from_spec("fat-tree:radix=4,levels=3"))
    assert not has_rails(from_spec("rail-fat-tree:servers=4,rails=1,radix=8"))


def _json(capsys, *argv) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr()[0])


def test_the_cli_reports_rails(capsys):
    out = _json(capsys, "tree", "--kind", "knomial", "--k", "4", "--topology", SPEC, "--nprocs", "64")
    rails = out["rails"]
    assert (rails["rails"], rails["servers"], rails["cross_links"]) == (4, 16, 0)
    assert rails["placements"]["rail-aware"]["cross_rail"] == 48 and rails["placements"]["naive"]["cross_rail"] == 3
    out = _json(capsys, "mcast", SPEC, "--pattern", "grid2d:8x8")
    assert out["rails"]["placements"]["rail-aware"] == {
        "order": "linear",
        "groups": 16,
        "cross_rail": 8,
        "max_rails": 4,
    }
    assert "rails" not in _json(
        capsys, "tree", "--kind", "knomial", "--k", "4", "--topology", "fat-tree:radix=4,levels=3", "--nprocs", "16"
    )


def test_cross_links_are_counted(capsys):
    out = _json(capsys, "mcast", "rail-fat-tree:servers=16,rails=4,radix=8,cross=1", "--pattern", "grid2d:8x8")
    assert out["rails"]["cross_links"] == 4 * 6 and out["unroutable"] == 0


def _nic(topo, node: int) -> tuple[str, str]:
    """(server, rail) of a NIC read from its name, ``s3-nic1``: independent of the node attributes."""
    server, nic = topo.names[node].split("-")
    return server, nic.removeprefix("nic")


@pytest.mark.parametrize("kind", ["kary", "knomial", "zhao", "hier-knomial"])
@pytest.mark.parametrize(
    "spec,nprocs,ppn", [(SPEC, 64, 1), (SPEC, 40, 2), ("rail-fat-tree:servers=8,rails=8,radix=8", 64, 1)]
)
def test_tree_rails_counts_every_edge(kind, spec, nprocs, ppn):
    topo = from_spec(spec)
    placements = rail_placements(topo, nprocs, ppn)
    out = tree_rails(topo, kind, 3, placements)
    assert set(out["placements"]) == {"rail-aware", "naive"}
    for name, placement in placements.items():
        builder = kinds.get(kind)
        tree = builder.build(nprocs, 3, hierarchy_from_topology(topo, placement) if builder.hierarchical else None)
        ranks = vertex_ranks(tree)
        within = between = 0
        for v, p in enumerate(tree.parent):  # a plain loop over the tree's edges
            if p < 0:
                continue
            (sa, ra), (sb, rb) = _nic(topo, placement.node[ranks[v]]), _nic(topo, placement.node[ranks[p]])
            within += ra != rb and sa == sb
            between += ra != rb and sa != sb
        assert out["placements"][name] == {
            "order": PLACEMENTS[name],
            "edges": nprocs - 1,
            "cross_rail": within + between,
            "within_server": within,
            "between_servers": between,
        }


@pytest.mark.parametrize("pattern", ["grid2d:8x8", "grid3d:4x4x4", "hier:8"])
def test_group_rails_counts_every_group(pattern):
    topo = from_spec(SPEC)
    out = group_rails(topo, pattern)
    assert (out["rails"], out["servers"], out["cross_links"]) == (4, 16, 0)
    for name, order in PLACEMENTS.items():
        comms = parse_pattern(pattern, topo, order=order)
        spans = [len({_nic(topo, n)[1] for n in comms.nodes(i).tolist()}) for i in range(len(comms))]
        assert out["placements"][name] == {
            "order": order,
            "groups": len(spans),
            "cross_rail": sum(s > 1 for s in spans),
            "max_rails": max(spans),
        }


def test_rail_placements_of_a_pattern_and_of_one_communicator():
    topo = from_spec(SPEC)
    world = rail_placements(topo, pattern="grid2d:8x8", ppn=1)
    assert world["rail-aware"].node.tolist() == place(topo).node.tolist()  # 64 ranks on the 64 NICs in order
    assert world["naive"].node.tolist() == place(topo, order="rail-major").node.tolist()
    row = rail_placements(topo, pattern="grid2d:8x8", comm=2)
    assert [topo.names[n] for n in row["rail-aware"].node] == [f"s{s:02}-nic{r}" for s in (4, 5) for r in range(4)]
    assert {_nic(topo, n)[1] for n in row["naive"].node} == {"1"}  # ranks 16-23: rail 1 (16 NICs a rail)
    assert {p.order for p in row.values()} == {"linear", "rail-major"}
    with pytest.raises(SpecError):
        rail_placements(topo, 65)
