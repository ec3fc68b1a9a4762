"""Twins (switches with the same neighbors) and the compact distance matrix read through them."""

import numpy as np
import pytest

from vizcoll.topology import from_spec, hops
from vizcoll.topology.blockdist import BlockDist
from vizcoll.topology.hops import _csr, _switch_distances, min_hops
from vizcoll.topology.twins import twin_classes, twin_search

SPECS = [
    "fat-tree:radix=8,levels=3",
    "fat-tree:radix=6,levels=2",
    "pruned-fat-tree",
    "dragonfly:a=4,p=2,h=2",
    "torus:3x4x2,hosts=1",
    "rail-fat-tree:servers=40,rails=3,radix=8,cross=1",
]


def _switch_graph(topo):
    pos = np.full(topo.n_nodes, -1)
    pos[topo.switches] = np.arange(len(topo.switches))
    live = topo.live & (pos[topo.link_a] >= 0) & (pos[topo.link_b] >= 0)
    return _csr(pos[topo.link_a[live]], pos[topo.link_b[live]], len(topo.switches))


@pytest.mark.parametrize("spec", SPECS)
def test_classes_are_exactly_the_nodes_with_equal_neighbors(spec):
    topo = from_spec(spec)
    topo.set_broken(int(topo.link_id[-1]))
    indptr, indices = _switch_graph(topo)
    cls, reps = twin_classes(indptr, indices)
    neighbors = [tuple(indices[indptr[i] : indptr[i + 1]]) for i in range(len(indptr) - 1)]
    for u in range(len(neighbors)):
        for v in range(len(neighbors)):
            assert (cls[u] == cls[v]) == (u == v or (neighbors[u] == neighbors[v] and len(neighbors[u]) > 0))
    assert (cls[reps] == np.arange(len(reps))).all()


@pytest.mark.parametrize("spec", SPECS)
def test_the_compact_matrix_equals_the_full_search(spec):
    topo = from_spec(spec)
    topo.set_broken(int(topo.link_id[-1]))
    indptr, indices = _switch_graph(topo)
    full = _switch_distances(indptr, indices, 1)
    small, cls = twin_search(indptr, indices, lambda p, i: _switch_distances(p, i, 1))
    dist = BlockDist(np.zeros(len(cls), dtype=np.int64), cls, [small], np.zeros(1, dtype=np.int64))
    assert np.array_equal(np.asarray(dist), full)
    rows = np.array([0, 3, len(cls) - 1])
    assert np.array_equal(dist[rows], full[rows]) and np.array_equal(dist[1], full[1])
    assert np.array_equal(dist[np.ix_(rows, rows[::-1])], full[np.ix_(rows, rows[::-1])])
    assert np.array_equal(dist[rows, rows[::-1]], full[rows, rows[::-1]]) and dist[2, 2] == 0
    assert dist.diameter() == int(np.where(full == 255, 0, full).max())


def test_a_large_fat_tree_table_is_one_block_over_classes(monkeypatch):
    topo = from_spec("fat-tree:radix=8,levels=3")  # 32 leaves, 32 spines, 16 cores
    dense = min_hops(topo).dist
    monkeypatch.setattr(hops, "_DENSE_CELLS", 0)  # as if it had more than 8,192 switches
    table = min_hops(topo)
    assert isinstance(table.dist, BlockDist) and len(table.dist.blocks[0]) == 8 + 32 + 4
    assert isinstance(dense, np.ndarray) and np.array_equal(np.asarray(table.dist), dense)
