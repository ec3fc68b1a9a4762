"""Generators: exact paper sizes, connectivity, degrees and port numbering."""

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components

from vizcoll.errors import SpecError
from vizcoll.topology import ENDPOINT, SWITCH, from_spec, parse_spec

PAPER_SIZES = [
    ("fat-tree:radix=40,levels=3", 2000, 16000),
    ("torus:30x20x20,hosts=2", 12000, 24000),
    ("dragonfly:a=18,p=9,h=9", 2934, 26406),
    ("sunway-supernode", 48, 256),
    ("pruned-fat-tree:preset=bluelight", None, 8704),
    ("pruned-fat-tree:preset=taihulight", None, 40960),
]

SMALL = [
    "fat-tree:radix=4,levels=2",
    "fat-tree:radix=6,levels=3",
    "pruned-fat-tree",
    "pruned-fat-tree:pods=3,leaves=2,hosts=3,spines=4,up=3,paths=4",
    "sunway-supernode",
    "torus:3x4x5,hosts=2",
    "torus:2x3,hosts=1",
    "dragonfly:a=4,p=2,h=2",
    "dragonfly:a=3,p=1,h=2,g=5",
    "mesh:4x5,neighbors=4",
    "mesh:4x4,neighbors=8,hosts=2",
]


@pytest.mark.parametrize("spec, switches, endpoints", PAPER_SIZES)
def test_paper_sizes(spec, switches, endpoints):
    s = from_spec(spec).summary()
    assert s["endpoints"] == endpoints
    if switches is not None:
        assert s["switches"] == switches


def test_dragonfly_has_163_groups_and_marked_global_links():
    t = from_spec("dragonfly:a=18,p=9,h=9")
    assert t.attr("group").max() + 1 == 163
    glob = t.link_attrs["global"] == 1
    assert glob.sum() == 163 * 162 // 2
    ga, gb = t.attr("group")[t.link_a[glob]], t.attr("group")[t.link_b[glob]]
    assert np.all(ga != gb)
    pairs = {tuple(sorted(p)) for p in zip(ga.tolist(), gb.tolist(), strict=True)}
    assert len(pairs) == glob.sum()  # exactly one global link between every pair of groups


@pytest.mark.parametrize("spec", SMALL + [p[0] for p in PAPER_SIZES[:3]])
def test_connected_and_ports_unique(spec):
    t = from_spec(spec)
    assert connected_components(t.adjacency())[0] == 1
    ends = np.concatenate([t.link_a, t.link_b])
    ports = np.concatenate([t.link_pa, t.link_pb])
    assert len(set(zip(ends.tolist(), ports.tolist(), strict=True))) == len(ends)
    assert ports.min() >= 1 and np.all(ports <= t.nports[ends])


def degrees(t):
    return np.bincount(np.concatenate([t.link_a, t.link_b]), minlength=t.n_nodes)


@pytest.mark.parametrize("radix", [4, 8, 40])
def test_fat_tree_every_switch_uses_all_ports(radix):
    t = from_spec(f"fat-tree:radix={radix},levels=3")
    assert np.all(degrees(t)[t.kind == SWITCH] == radix)
    assert np.all(degrees(t)[t.kind == ENDPOINT] == 1)


def test_torus_and_mesh_degrees():
    t = from_spec("torus:30x20x20,hosts=2")
    assert np.all(degrees(t)[t.switches] == 6 + 2)
    m = from_spec("mesh:4x4,neighbors=8,hosts=1")
    deg = degrees(m)[m.switches] - 1
    assert sorted(set(deg.tolist())) == [3, 5, 8]  # corners, edges, interior
    assert (deg == 8).sum() == 4


def test_dragonfly_degree():
    t = from_spec("dragonfly:a=18,p=9,h=9")
    assert np.all(degrees(t)[t.switches] == 9 + 17 + 9)


@pytest.mark.parametrize("preset, paths", [("bluelight", 8), ("taihulight", 2)])
def test_pruned_fat_tree_paths_leaf_to_top(preset, paths):
    t = from_spec(f"pruned-fat-tree:preset={preset}")
    level = t.attr("level")
    adj = t.adjacency().tocsr()
    leaf = int(np.flatnonzero(level == 1)[0])
    spines = adj[leaf].indices[level[adj[leaf].indices] == 2]
    path_count = np.asarray(adj[spines][:, level == 3].sum(axis=0)).ravel()
    assert set(path_count.tolist()) == {paths}


def test_sunway_supernode_structure():
    t = from_spec("sunway-supernode")
    deg = degrees(t)
    level = t.attr("level")
    assert (level == 1).sum() == 32 and (level == 2).sum() == 16
    assert np.all(deg[level == 1] == 32) and np.all(deg[level == 2] == 32)
    assert np.all(deg[t.kind == ENDPOINT] == 2) and np.all(t.nports[t.kind == SWITCH] == 40)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("fat-tree:radix=0", "positive"),
        ("fat-tree:radix=5", "even"),
        ("fat-tree:radix=200,levels=3", "limit"),
        ("torus:1000x1000x1000", "limit"),
        ("dragonfly:a=18,p=9,h=9,g=500", "between"),
        ("mesh:4x4,neighbors=6", "4 or 8"),
        ("hypercube:4", "unknown topology"),
        ("torus:4xfour", "dimensions"),
        ("fat-tree:radix=abc", "integer"),
        ("fat-tree:size=4", "does not take size"),
        ("pruned-fat-tree:spines=3,paths=2", "divide"),
    ],
)
def test_bad_specs_raise_clear_errors(spec, message):
    with pytest.raises(SpecError, match=message):
        from_spec(spec)


def test_parse_spec():
    assert parse_spec("mesh:4x4,neighbors=8") == ("mesh", {"dims": (4, 4), "neighbors": 8})
