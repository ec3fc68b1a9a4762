"""Multicast routing (seed 003): tree validity, EFIs, the paper's findings, broken links, mcfdbs and the CLI."""

from __future__ import annotations

import json
import pickle
from collections import Counter

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vizcoll.cli import main
from vizcoll.comm import parse_pattern
from vizcoll.errors import SpecError
from vizcoll.multicast import (
    ALGORITHMS,
    MulticastResult,
    communicator_groups,
    dump_mcfdbs,
    forwarding_tables,
    mlid,
    parse_mcfdbs,
    route,
    route_communicators,
)
from vizcoll.topology.generators import from_spec
from vizcoll.topology.hops import min_hops
from vizcoll.topology.io import GUID_BASE
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

FAT_TREE = "fat-tree:radix=8,levels=3"  # 128 end nodes, 80 switches
PRUNED_8 = "pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=8,up=4,paths=8"  # 8 leaf -> top paths
PRUNED_2 = "pruned-fat-tree:pods=4,leaves=4,hosts=8,spines=4,up=2,paths=2"  # 2 leaf -> top paths
TORUS = "torus:4x4x4,hosts=2"
DRAGONFLY = "dragonfly:a=4,p=2,h=2"


# ---------------------------------------------------------------- independent checks
def switch_distances(topo: Topology) -> dict[int, dict[int, int]]:
    """Hops between switches over live switch-to-switch links (networkx, not the min-hop table)."""
    graph = nx.Graph()
    graph.add_nodes_from(topo.switches.tolist())
    for row in np.flatnonzero(topo.live):
        a, b = int(topo.link_a[row]), int(topo.link_b[row])
        if topo.kind[a] == SWITCH and topo.kind[b] == SWITCH:
            graph.add_edge(a, b)
    return dict(nx.all_pairs_shortest_path_length(graph))


def anchors(topo: Topology, node: int) -> list[int]:
    """Switches a node enters the fabric through (itself for a switch)."""
    if topo.kind[node] == SWITCH:
        return [node]
    rows = np.flatnonzero(topo.live & ((topo.link_a == node) | (topo.link_b == node)))
    peers = np.where(topo.link_a[rows] == node, topo.link_b[rows], topo.link_a[rows])
    return [int(p) for p in peers if topo.kind[p] == SWITCH]


def hops(dist, topo: Topology, switch: int, node: int) -> float:
    extra = 0 if topo.kind[node] == SWITCH else 1
    return min((dist[switch].get(a, np.inf) + extra for a in anchors(topo, node)), default=np.inf)


def eccentricities(dist, topo: Topology, members) -> dict[int, float]:
    return {int(s): max(hops(dist, topo, int(s), int(m)) for m in members) for s in topo.switches}


def check_result(topo: Topology, groups, result: MulticastResult) -> None:
    """Every tree spans its group, is a tree on live links, has minimum height; EFIs and tables agree."""
    dist = switch_distances(topo)
    row_of = {int(i): r for r, i in enumerate(topo.link_id.tolist())}
    assert len(result.trees) == len(groups)
    for g, group in enumerate(groups):
        members = list(dict.fromkeys(int(m) for m in group))
        ecc = eccentricities(dist, topo, members) if members else {}
        best = min(ecc.values(), default=np.inf)
        tree = result.trees[g]
        if best == np.inf:
            assert tree is None and g in result.unroutable
            continue
        assert tree is not None and g not in result.unroutable
        nodes = tree.nodes.tolist()
        assert nodes[0] == tree.root and topo.kind[tree.root] == SWITCH
        assert len(set(nodes)) == len(nodes)
        assert set(members) <= set(nodes) and tree.members.tolist() == members
        assert ecc[tree.root] == best == tree.height  # minimum height
        graph = nx.Graph()
        graph.add_nodes_from(nodes)
        for node, parent, link in zip(nodes[1:], tree.parent[1:].tolist(), tree.parent_link[1:].tolist(), strict=True):
            row = row_of[link]
            assert not topo.broken[row]
            assert {int(topo.link_a[row]), int(topo.link_b[row])} == {node, parent}
            graph.add_edge(node, parent)
        assert nx.is_tree(graph)
        depth = dict(zip(nodes, tree.depths().tolist(), strict=True))
        assert depth == nx.single_source_shortest_path_length(graph, tree.root)
        for m in members:
            assert depth[m] == hops(dist, topo, tree.root, m)  # every member at its min-hop distance
        leaves = [v for v in nodes if graph.degree(v) <= 1 and v != tree.root]
        assert set(leaves) <= set(members)  # no useless branch
        assert all(topo.kind[v] == SWITCH or v in members for v in nodes)  # end nodes never forward
    recount = Counter(int(x) for t in result.trees if t is not None for x in t.links.tolist())
    assert result.efi_by_link_id() == {int(i): recount.get(int(i), 0) for i in topo.link_id}
    check_tables(topo, result)


def check_tables(topo: Topology, result: MulticastResult) -> None:
    expected: dict[int, dict[int, list[int]]] = {}
    for tree in result.trees:
        if tree is None:
            continue
        ports: dict[int, set[int]] = {}
        for node, parent, link in zip(
            tree.nodes[1:].tolist(), tree.parent[1:].tolist(), tree.parent_link[1:].tolist(), strict=True
        ):
            row = topo.link_row(link)
            for end, port in (
                (int(topo.link_a[row]), int(topo.link_pa[row])),
                (int(topo.link_b[row]), int(topo.link_pb[row])),
            ):
                assert end in (node, parent)
                if topo.kind[end] == SWITCH:
                    ports.setdefault(end, set()).add(port)
        for m in tree.members.tolist():
            if topo.kind[m] == SWITCH:
                ports.setdefault(m, set()).add(0)
        for sw, p in ports.items():
            expected.setdefault(sw, {})[mlid(tree.group)] = sorted(p)
    assert forwarding_tables(topo, result) == expected


# ---------------------------------------------------------------- every algorithm builds valid trees
CASES = [
    (FAT_TREE, "grid3d:8x4x4", 1),
    (PRUNED_8, "grid2d:16x16", 4),
    (TORUS, "random:12", 1),
    (DRAGONFLY, "grid2d:12x6", 1),
]


@pytest.mark.parametrize(("spec", "pattern", "ppn"), CASES)
def test_trees_are_valid(spec, pattern, ppn):
    topo = from_spec(spec)
    table = min_hops(topo)
    comms = parse_pattern(pattern, topo, ppn=ppn)
    groups = communicator_groups(comms)
    for algo in ALGORITHMS:
        result = route_communicators(topo, comms, algo, table)
        assert result.algo == algo and not result.unroutable
        check_result(topo, groups, result)


def test_groups_are_distinct_nodes_in_rank_order():
    topo = from_spec(FAT_TREE)
    comms = parse_pattern("grid2d:8x32", topo, ppn=2)
    groups = communicator_groups(comms)
    assert len(groups) == len(comms)
    for i, members in enumerate(groups):
        assert members.tolist() == list(dict.fromkeys(comms.nodes(i).tolist()))


def test_result_round_trip_and_summary():
    topo = from_spec(FAT_TREE)
    result = route_communicators(topo, parse_pattern("grid2d:16x8", topo), "fulb")
    data = json.loads(json.dumps(result.to_dict()))
    again = MulticastResult.from_dict(data)
    assert again.to_dict() == result.to_dict()
    summary = result.summary()
    assert set(summary) == {
        "algo",
        "groups",
        "unroutable",
        "max_efi",
        "mean_efi",
        "mean_efi_all",
        "max_height",
        "runtime_s",
        "efi_histogram",
    }
    used = result.efi[result.efi > 0]
    assert summary["max_efi"] == used.max() and summary["mean_efi"] == pytest.approx(used.mean(), abs=1e-4)
    assert sum(summary["efi_histogram"].values()) == topo.n_links
    assert summary["groups"] == 24 and summary["unroutable"] == 0


@pytest.mark.parametrize("trees", ["all", "some", "none", "no groups"])
def test_result_pickles_as_flat_arrays(trees):
    """The engine cache pickles every routing: flat arrays, not one object per tree, and the same result back."""
    topo = from_spec(FAT_TREE)
    result = route_communicators(topo, parse_pattern("grid2d:16x8", topo), "sssp")
    if trees == "some":
        result.trees[0] = result.trees[5] = None
    elif trees != "all":
        result.trees = [None, None] if trees == "none" else []
    again = pickle.loads(pickle.dumps(result))
    assert json.dumps(again.to_dict()) == json.dumps(result.to_dict())
    kept = [t for t in again.trees if t is not None]
    assert all(t.nodes.base is kept[0].nodes.base for t in kept)  # views of one array


def test_bad_input():
    topo = from_spec("fat-tree:radix=4,levels=2")
    with pytest.raises(SpecError, match="unknown multicast algorithm"):
        route(topo, [[8, 9]], "dijkstra")
    with pytest.raises(SpecError, match="outside"):
        route(topo, [[8, 99]], "fulb")
    result = route(topo, [[], [8, 8, 9]], "fulb")
    assert result.unroutable == [0] and result.trees[1].members.tolist() == [8, 9]


# ---------------------------------------------------------------- a hand-made fabric with ties
def diamond() -> Topology:
    """R(0) is the only centre of {x, y}: x hangs R-Q-P-x, y hangs R-{M1|M2}-L-y.

    R reaches y through M2 on port 2 and M1 on port 4; L reaches R through M1 on
    port 1 and M2 on port 2. So top-down (MINIHOP) takes M2, bottom-up (FULB) M1 first.
    """
    names = ["R", "M1", "M2", "L", "Q", "P", "x", "y"]
    links = [
        (0, 1, 4, 1),
        (0, 2, 2, 1),
        (0, 4, 1, 1),
        (1, 2, 3, 1),
        (2, 2, 3, 2),
        (4, 2, 5, 1),
        (5, 2, 6, 1),
        (3, 3, 7, 1),
    ]
    return Topology.from_arrays(names, [0, 0, 0, 0, 0, 0, 1, 1], [4, 2, 2, 3, 2, 2, 1, 1], links)


def via(topo: Topology, tree) -> str:
    return topo.names[tree.parent_of(topo.index("L"))[0]]


def test_minhop_takes_the_lowest_numbered_min_hop_port():
    topo = diamond()
    table = min_hops(topo)
    x, y, r = topo.index("x"), topo.index("y"), topo.index("R")
    assert table.min_ports(r, y) == [2, 4]
    for algo in ("minhop", "minhop-new"):
        result = route(topo, [[x, y]] * 3, algo, table)
        check_result(topo, [[x, y]] * 3, result)
        assert [topo.names[t.root] for t in result.trees] == ["R"] * 3
        assert [via(topo, t) for t in result.trees] == ["M2"] * 3  # port 2 of R, every time
        assert result.summary()["max_efi"] == 3


def test_fulb_and_sssp_rotate_links():
    topo = diamond()
    x, y = topo.index("x"), topo.index("y")
    fulb = route(topo, [[x, y]] * 3, "fulb")
    assert [via(topo, t) for t in fulb.trees] == ["M1", "M2", "M1"]  # lowest port of L, then least EFI
    sssp = route(topo, [[y, x]] * 2, "sssp")
    assert {via(topo, t) for t in sssp.trees} == {"M1", "M2"}
    for result, members in ((fulb, [x, y]), (sssp, [y, x])):
        assert result.summary()["max_efi"] == len(result.trees)  # the members' own links
        check_result(topo, [members] * len(result.trees), result)


def test_broken_links_are_avoided_and_cut_groups_reported():
    topo = diamond()
    x, y = topo.index("x"), topo.index("y")
    topo.set_broken(topo.links_between("R", "M2")[0])
    for algo in ALGORITHMS:
        result = route(topo, [[x, y]], algo)
        assert via(topo, result.trees[0]) == "M1"
        check_result(topo, [[x, y]], result)
    topo.set_broken(topo.links_between("R", "M1")[0])  # y's side is cut off from x's
    groups = [[x, y], [x], [y], [topo.index("M1"), y]]
    for algo in ALGORITHMS:
        result = route(topo, groups, algo)
        assert result.unroutable == [0] and result.trees[0] is None
        check_result(topo, groups, result)


def test_fat_tree_with_broken_links():
    topo = from_spec(FAT_TREE)
    rng = np.random.default_rng(3)
    switch_links = np.flatnonzero((topo.kind[topo.link_a] == SWITCH) & (topo.kind[topo.link_b] == SWITCH))
    for link in rng.choice(switch_links, 20, replace=False):
        topo.set_broken(int(topo.link_id[link]))
    topo.set_broken(topo.links_between("h5", "edge0.1")[0])  # h5 is isolated
    comms = parse_pattern("grid2d:16x8", topo)
    groups = communicator_groups(comms)
    cut = {g for g, members in enumerate(groups) if topo.index("h5") in members.tolist()}
    for algo in ALGORITHMS:
        result = route_communicators(topo, comms, algo)
        assert set(result.unroutable) == cut and len(cut) == 2
        check_result(topo, groups, result)


# ---------------------------------------------------------------- random fabrics
@st.composite
def fabrics(draw):
    n_sw = draw(st.integers(1, 7))
    edges = draw(st.lists(st.tuples(st.integers(0, n_sw - 1), st.integers(0, n_sw - 1)), max_size=14))
    hosts = draw(st.lists(st.lists(st.integers(0, n_sw - 1), min_size=1, max_size=2), min_size=1, max_size=8))
    links = [(a, b) for a, b in edges if a != b] + [(n_sw + h, s) for h, sws in enumerate(hosts) for s in sws]
    ports = [0] * (n_sw + len(hosts))
    rows = []
    order = draw(st.permutations(range(len(links))))
    for k in order:  # ports numbered in a random order: ties break differently
        a, b = links[k]
        ports[a] += 1
        ports[b] += 1
        rows.append((a, ports[a], b, ports[b]))
    names = [f"s{i}" for i in range(n_sw)] + [f"h{i}" for i in range(len(hosts))]
    topo = Topology.from_arrays(names, [SWITCH] * n_sw + [ENDPOINT] * len(hosts), [max(p, 1) for p in ports], rows)
    for row in draw(st.sets(st.integers(0, max(len(rows) - 1, 0)), max_size=3)):
        if rows:
            topo.broken[row] = True
    nodes = st.integers(0, topo.n_nodes - 1)
    groups = draw(st.lists(st.lists(nodes, min_size=1, max_size=5), min_size=1, max_size=6))
    return topo, groups


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics())
def test_random_fabrics(case):
    topo, groups = case
    table = min_hops(topo)
    for algo in ALGORITHMS:
        check_result(topo, groups, route(topo, groups, algo, table))


# ---------------------------------------------------------------- the paper's findings
def max_efis(spec: str, pattern: str, ppn: int = 1) -> dict[str, int]:
    topo = from_spec(spec)
    table = min_hops(topo)
    comms = parse_pattern(pattern, topo, ppn=ppn)
    return {a: route_communicators(topo, comms, a, table).summary()["max_efi"] for a in ALGORITHMS}


@pytest.mark.parametrize("pattern", ["grid3d:8x4x4", "grid2d:16x8", "grid2d:8x16", "random:16"])
def test_standard_fat_tree(pattern):
    """One shortest path leaf -> top: the root decides the tree (section 4.1.1)."""
    efi = max_efis(FAT_TREE, pattern)
    assert efi["minhop"] == efi["sssp"]
    assert efi["minhop-new"] == efi["sssp-new"] == efi["fulb"]
    assert efi["minhop"] >= 1.6 * efi["fulb"]  # the original algorithms always take the first root


def test_fat_tree_trees_identical_with_the_same_root_rule():
    topo = from_spec(FAT_TREE)
    comms = parse_pattern("grid3d:8x4x4", topo)
    results = {a: route_communicators(topo, comms, a) for a in ALGORITHMS}
    for first, others in ((("minhop"), ("sssp",)), ("minhop-new", ("sssp-new", "fulb", "fulb+global"))):
        for other in others:
            assert np.array_equal(results[first].efi, results[other].efi)


@pytest.mark.parametrize(
    ("spec", "pattern", "ppn"),
    [(PRUNED_8, "grid2d:16x16", 4), (PRUNED_8, "grid3d:8x4x8", 4), (PRUNED_2, "grid2d:16x8", 1)],
)
def test_pruned_fat_tree_link_rotation(spec, pattern, ppn):
    """Several leaf -> top paths: FULB-MC well below MINIHOP-MC-new, close to SSSP-MC-new (section 4.2)."""
    efi = max_efis(spec, pattern, ppn)
    assert efi["fulb"] <= 0.6 * efi["minhop-new"]
    assert efi["fulb"] <= 1.25 * efi["sssp-new"]
    assert efi["minhop"] >= 2 * efi["fulb"]


def global_links_to_root(topo: Topology, dist, tree) -> dict[int, int]:
    """Fewest global links over all shortest paths from each switch of the tree to its root (brute force)."""
    glob = topo.link_attrs["global"]
    best = {tree.root: 0}
    for sw in sorted((int(s) for s in topo.switches), key=lambda s: dist[s].get(tree.root, np.inf)):
        d = dist[sw].get(tree.root)
        if d is None or d == 0:
            continue
        options = []
        for row in np.flatnonzero(topo.live & ((topo.link_a == sw) | (topo.link_b == sw))):
            peer = int(topo.link_b[row] if topo.link_a[row] == sw else topo.link_a[row])
            if topo.kind[peer] == SWITCH and dist[peer].get(tree.root) == d - 1:
                options.append(best[peer] + int(glob[row] > 0))
        best[sw] = min(options)
    return best


def test_fulb_global_prefers_paths_with_fewer_global_links():
    topo = from_spec(DRAGONFLY)
    dist = switch_distances(topo)
    comms = parse_pattern("grid2d:12x6", topo)
    result = route_communicators(topo, comms, "fulb+global")
    glob = topo.link_attrs["global"]
    for tree in result.trees:
        best = global_links_to_root(topo, dist, tree)
        parent = dict(
            zip(tree.nodes.tolist(), zip(tree.parent.tolist(), tree.parent_link.tolist(), strict=True), strict=True)
        )
        for node in tree.nodes.tolist():
            if topo.kind[node] != SWITCH:
                continue
            count, at = 0, node
            while at != tree.root:
                at, link = parent[at]
                count += int(glob[topo.link_row(link)] > 0)
            assert count == best[node]


# ---------------------------------------------------------------- mcfdbs and the CLI
def test_mcfdbs_dump_parses_back():
    topo = from_spec(FAT_TREE)
    result = route_communicators(topo, parse_pattern("grid3d:8x4x4", topo), "fulb")
    text = dump_mcfdbs(topo, result)
    lines = text.splitlines()
    assert lines[0] == "" and lines[1].startswith("Switch 0x") and lines[2] == "LID    : Out Port(s)"
    assert lines[3].startswith("0xC001 : 0x") and lines[3].endswith(" ")
    tables = forwarding_tables(topo, result)
    guid = {sw: GUID_BASE + 256 * (sw + 1) for sw in tables}  # the invented GUIDs of vizcoll.topology.io
    assert parse_mcfdbs(text) == {guid[sw]: by_lid for sw, by_lid in tables.items()}
    switches = [int(line.split()[1], 16) for line in lines if line.startswith("Switch")]
    assert switches == sorted(switches) and len(switches) == len(tables)


def test_mcfdbs_switch_member_gets_port_zero():
    topo = diamond()
    result = route(topo, [[topo.index("R"), topo.index("y")], [topo.index("M1")]], "minhop")
    tables = forwarding_tables(topo, result)
    assert [topo.names[t.root] for t in result.trees] == ["M1", "M1"]  # 1 hop to R, 2 to y
    assert tables[topo.index("R")] == {0xC001: [0, 4]}
    assert tables[topo.index("M1")] == {0xC001: [1, 2], 0xC002: [0]}
    assert tables[topo.index("L")] == {0xC001: [1, 3]}


def test_cli_mcast(capsys, tmp_path):
    dump = tmp_path / "opensm.mcfdbs"
    status = main(["mcast", FAT_TREE, "--pattern", "grid2d:16x8", "--algo", "sssp-new", "--dump-mcfdbs", str(dump)])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    summary = json.loads(out)
    assert {"algo", "groups", "unroutable", "max_efi", "mean_efi", "max_height", "runtime_s", "efi_histogram"} <= set(
        summary
    )
    assert summary["algo"] == "sssp-new" and summary["groups"] == 24 and summary["unroutable"] == 0
    assert summary["max_height"] == 3 and summary["pattern"] == "grid2d:16x8"  # core to end node
    tables = parse_mcfdbs(dump.read_text())
    assert {lid for by_lid in tables.values() for lid in by_lid} == {0xC001 + g for g in range(24)}
    assert main(["mcast", FAT_TREE, "--pattern", "grid2d:999x999"]) == 2
    assert "vizcoll: error:" in capsys.readouterr().err


def test_routing_reports_its_progress():
    from vizcoll.multicast.routing import route
    from vizcoll.topology.generators import from_spec

    topo = from_spec("fat-tree:radix=4,levels=3")
    seen = []
    route(topo, [[20, 21], [22, 23, 24], [25, 30]], "fulb", progress=lambda done, total: seen.append((done, total)))
    assert seen == [(0, 3), (1, 3), (2, 3)]
