"""A large fabric at a glance: blocks of nodes, bundles of links between them, one part cut out alone."""

from __future__ import annotations

import numpy as np
import pytest

from tests.fabrics import ONE_SPINE, campus_cluster
from vizcoll.arrays import unique
from vizcoll.topology.blocks import CHUNKS, LISTED, blocks, bundles, chassis, subfabric, tiers
from vizcoll.topology.generators import from_spec
from vizcoll.topology.io import parse
from vizcoll.topology.model import ENDPOINT


@pytest.fixture(scope="module")
def taihulight():
    return from_spec("pruned-fat-tree:preset=taihulight")


def test_taihulight_is_160_pods_of_three_levels_under_one_block_of_top_switches(taihulight):
    part = blocks(taihulight)
    assert len(part) == 160 * 3 + 1 and part.count.sum() == taihulight.n_nodes
    assert part.names[0] == "pod 0, end nodes" and part.names[-1] == "top switches"
    assert sorted(set(part.count.tolist())) == [16, 64, 256]  # 16 leaves or spines, 256 end nodes, 64 tops
    assert part.switches.sum() == 160 * 2 + 1
    pod7 = np.flatnonzero(part.group == 7)
    assert [part.names[b] for b in pod7] == ["pod 7, end nodes", "pod 7, leaf switches", "pod 7, spine switches"]
    assert np.all(part.of[np.flatnonzero(taihulight.attr("group") == 7)] >= 0)


def test_bundles_count_every_link_once_with_the_max_and_mean_of_their_values():
    topo = from_spec("fat-tree:radix=4,levels=3")
    part = blocks(topo)
    values = np.arange(topo.n_links, dtype=float)
    topo.broken[[0, 1]] = True
    bundle = bundles(topo, part, values)
    assert bundle["links"].sum() == topo.n_links and bundle["broken"].sum() == 2
    for i in range(len(bundle["a"])):
        rows = np.flatnonzero(
            (np.minimum(part.of[topo.link_a], part.of[topo.link_b]) == bundle["a"][i])
            & (np.maximum(part.of[topo.link_a], part.of[topo.link_b]) == bundle["b"][i])
        )
        assert len(rows) == bundle["links"][i]
        assert bundle["max"][i] == values[rows].max() and bundle["mean"][i] == pytest.approx(values[rows].mean())
    assert np.all(bundle["a"] <= bundle["b"])


@pytest.mark.parametrize(
    "spec, word", [("dragonfly:a=4,p=2,h=2", "group"), ("torus:4x4x3,hosts=1", "plane"), ("mesh:40x40", "band")]
)
def test_other_fabrics_are_grouped_by_what_their_generator_knows(spec, word):
    topo = from_spec(spec)
    part = blocks(topo)
    assert part.count.sum() == topo.n_nodes and 2 <= len(part) < topo.n_nodes
    assert all(name.startswith(f"{word} ") for name in part.names)


def test_a_pod_cut_out_keeps_the_fabrics_names_ports_link_ids_and_breaks(taihulight):
    topo = taihulight.copy()
    pod = np.flatnonzero(topo.attr("group") == 7)
    topo.broken[topo.link_row(int(topo.link_id[np.flatnonzero(np.isin(topo.link_a, pod))[0]]))] = True
    sub, kept, rows = subfabric(topo, pod)
    sub.validate()
    assert sub.n_nodes == len(pod) == 288 and sub.summary()["switches"] == 32
    assert [sub.names[i] for i in range(sub.n_nodes)] == [topo.names[k] for k in kept]
    assert [sub.link_label(r) for r in range(sub.n_links)] == [topo.link_label(r) for r in rows]
    assert np.array_equal(sub.link_id, topo.link_id[rows]) and sub.broken.sum() == 1
    assert np.all(np.isin(topo.link_a[rows], pod) & np.isin(topo.link_b[rows], pod))


# ---------------------------------------------------------------- a cluster's file: rows and blocks from its graph
FAT_TREE_WORDS = ("leaf", "spine", "top", "pod", "core switch", "fat")


@pytest.fixture(scope="module")
def campus():
    return parse(campus_cluster(), "campus.txt")


def _neighbors(topo, nodes: set[int]) -> set[int]:
    return {int(b) for a, b in zip(topo.link_a, topo.link_b, strict=True) for a, b in ((a, b), (b, a)) if a in nodes}


def test_a_cluster_file_is_drawn_in_tiers_counted_from_its_graph_with_no_fat_tree_word(campus):
    is_end = campus.kind == ENDPOINT
    ends = set(np.flatnonzero(is_end).tolist())
    switches = set(np.flatnonzero(~is_end).tolist())
    edge = _neighbors(campus, ends) & switches  # switches with a host neighbor
    tier2 = (_neighbors(campus, edge) & switches) - edge
    tier3 = switches - edge - tier2
    assert (len(ends), len(edge), len(tier2), len(tier3)) == (1356, 150, 48, 16)
    part = blocks(campus)
    assert part.rows == {0: "end nodes", 1: "edge switches (tier 1)", 2: "tier 2", 3: "tier 3"}
    row = part.level[part.of]
    for r, expected in enumerate((ends, edge, tier2, tier3)):
        assert set(np.flatnonzero(row == r).tolist()) == expected, part.rows[r]
    assert np.array_equal(tiers(campus), row)
    words = [*part.rows.values(), *part.names]
    assert not [w for w in words if any(bad in w.lower() for bad in FAT_TREE_WORDS)]
    assert part.count.sum() == campus.n_nodes and len(part) <= 400  # 150 groups of 2 blocks, 32 runs, 2 chassis


def test_the_core_asics_of_each_chassis_form_one_block(campus):
    part = blocks(campus)
    chassis_blocks = [b for b, name in enumerate(part.names) if "chassis" in name]
    assert [part.names[b] for b in sorted(chassis_blocks, key=lambda b: part.names[b])] == [
        "tier 3, chassis ib-core-1",
        "tier 3, chassis ib-core-2",
    ]
    for b in chassis_blocks:
        members = part.members(b)
        prefix = part.names[b].rsplit(" ", 1)[1] + "/U"
        assert len(members) == 8 and all(campus.desc[m].startswith(prefix) for m in members.tolist())
        assert part.level[b] == 3 and part.group[b] == -1 and part.switches[b]
    assert len(unique(part.of[np.flatnonzero(tiers(campus) == 2)])) == CHUNKS  # 48 one-ASIC switches: 32 runs


def test_an_edge_switch_and_its_hosts_form_one_group(campus):
    part = blocks(campus)
    node_group = part.group[part.of]
    edges = np.flatnonzero(tiers(campus) == 1)
    assert sorted(node_group[edges].tolist()) == list(range(150))  # one group per edge switch
    assert np.all(node_group[tiers(campus) >= 2] == -1)
    leaf = campus.index("MF0;ib-l1-000:MQM8700/U1")
    group = np.flatnonzero(node_group == node_group[leaf])
    hosts = sorted(_neighbors(campus, {leaf}) & set(np.flatnonzero(campus.kind == ENDPOINT).tolist()))
    assert sorted(group.tolist()) == sorted([leaf, *hosts]) and len(hosts) == 10
    assert [campus.names[h] for h in hosts] == [f"cn{i:04d}" for i in range(10)]
    assert sorted(part.names[b] for b in unique(part.of[group])) == [
        "edge 0: ib-l1-000, edge switch",
        "edge 0: ib-l1-000, end nodes",
    ]


@pytest.mark.parametrize(
    "description, expected",
    [
        ("MF0;core-1:MCS8500/L05/U1", "core-1"),
        ("MF0;core-1:MCS8500/S01/U1", "core-1"),
        ("MF0;ib-l1-000:MQM8700/U1", "ib-l1-000"),
        ("ib-core-2/U8", "ib-core-2"),
        ("ys75ib1/L05/U1", "ys75ib1"),
        ("ys46ib1:SX60XX/U1", "ys46ib1"),
        ("Quantum Mellanox Technologies", None),
        ("spine1", None),
    ],
)
def test_a_chassis_is_the_system_a_switch_description_names(description, expected):
    assert chassis(description) == expected


def test_switches_no_path_joins_to_an_end_node_get_a_plain_row_of_their_own():
    text = ONE_SPINE + '\nSwitch 2 "lost1"\n[1] "lost2"[1]\n\nSwitch 2 "lost2"\n[1] "lost1"[1]\n'
    topo = parse(text, "f.txt")
    part = blocks(topo)
    assert part.rows == {
        0: "end nodes",
        1: "edge switches (tier 1)",
        2: "tier 2",
        3: "switches with no path to an end node",
    }
    lost = [topo.index("lost1"), topo.index("lost2")]
    assert part.level[part.of[lost]].tolist() == [3, 3] and part.level[part.of[topo.index("spine")]] == 2
    switches_only = parse('Switch 2 "a"\n[1] "b"[1]\n\nSwitch 2 "b"\n[1] "a"[1]\n', "g.txt")
    assert blocks(switches_only).rows == {1: "switches"}


@pytest.mark.parametrize(
    "spec, rows",
    [
        ("fat-tree:radix=8,levels=3", {0: "end nodes", 1: "leaf switches", 2: "spine switches", 3: "top switches"}),
        ("fat-tree:radix=4,levels=2", {0: "end nodes", 1: "leaf switches", 2: "spine switches"}),
        (
            "pruned-fat-tree:pods=2,leaves=2,hosts=2,spines=2,up=2,paths=2",
            {0: "end nodes", 1: "leaf switches", 2: "spine switches", 3: "top switches"},
        ),
        ("torus:4x4x3,hosts=1", {0: "end nodes", 1: "switches"}),
        ("dragonfly:a=4,p=2,h=2", {0: "end nodes", 1: "switches"}),
        ("sunway-supernode", {0: "end nodes", 1: "level 1 switches", 2: "level 2 switches"}),
    ],
)
def test_only_generated_fat_trees_keep_fat_tree_row_names(spec, rows):
    part = blocks(from_spec(spec))
    assert part.rows == rows
    if spec.startswith("fat-tree:radix=8"):
        assert "pod 0, leaf switches" in part.names and "top switches" in part.names


def test_a_bundle_lists_its_parallel_cables_each_with_its_own_value_hottest_first(campus):
    part = blocks(campus)
    leaf, up = campus.index("MF0;ib-l1-000:MQM8700/U1"), campus.index("MF0;ib-l2-00:MQM8700/U1")
    parallel = np.flatnonzero(
        ((campus.link_a == leaf) & (campus.link_b == up)) | ((campus.link_a == up) & (campus.link_b == leaf))
    )
    assert len(parallel) == 2  # two cables between the same two switches
    values = np.zeros(campus.n_links)
    values[parallel[1]] = 7  # the second cable is hot, the first carries nothing
    bundle = bundles(campus, part, values, listed=1)
    i = int(np.flatnonzero((bundle["a"] == min(part.of[[leaf, up]])) & (bundle["b"] == max(part.of[[leaf, up]])))[0])
    assert bundle["max"][i] == 7 and bundle["links"][i] >= 2
    assert bundle["cables"][i] == [[campus.link_label(int(parallel[1])), 7.0, False]]  # only one listed: the hot one
    full = bundles(campus, part, values)
    assert [c[0] for c in full["cables"][i]][:2] == [campus.link_label(int(r)) for r in parallel[::-1]]
    assert all(len(c) == min(n, LISTED) for c, n in zip(full["cables"], full["links"].tolist(), strict=True))
