"""A large fabric at a glance: blocks of nodes, bundles of links between them, one part cut out alone."""

from __future__ import annotations

import numpy as np
import pytest

from vizcoll.topology.blocks import blocks, bundles, subfabric
from vizcoll.topology.generators import from_spec


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
            & (np.maximum(part.of[topo.link_a], part.of[topo.link_b]) == bundle["b"][i]))
        assert len(rows) == bundle["links"][i]
        assert bundle["max"][i] == values[rows].max() and bundle["mean"][i] == pytest.approx(values[rows].mean())
    assert np.all(bundle["a"] <= bundle["b"])


@pytest.mark.parametrize("spec, word", [("dragonfly:a=4,p=2,h=2", "group"), ("torus:4x4x3,hosts=1", "plane"),
                                        ("mesh:40x40", "band")])
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
