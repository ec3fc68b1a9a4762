"""Router.routes (all edges at once, hop by hop) gives exactly the routes of Router.route (one edge at a time)."""

from __future__ import annotations

import numpy as np
import pytest

from vizcoll.comm import place
from vizcoll.topology.generators import from_spec
from vizcoll.topology.hops import min_hops
from vizcoll.trees.metrics import process_ports
from vizcoll.trees.routing import Router

FABRICS = [
    "fat-tree:radix=8,levels=3",
    "pruned-fat-tree:pods=4,leaves=4,hosts=8,spines=4,up=2,paths=2",
    "torus:4x4x3,hosts=2",
    "dragonfly:a=4,p=2,h=2",
    "sunway-supernode",
    "mesh:6x6",
    "mesh:5x5,hosts=0",
]


@pytest.mark.parametrize("spec", FABRICS)
@pytest.mark.parametrize("rate", [0.0, 0.1, 0.3])
def test_batched_routes_equal_one_by_one(spec, rate):
    rng = np.random.default_rng(7)
    topo = from_spec(spec)
    topo.broken[rng.choice(topo.n_links, size=int(rate * topo.n_links), replace=False)] = True
    placement = place(topo, None, 2 if spec == "sunway-supernode" else 1)  # two ports per node on the supernode
    ports = process_ports(topo, placement)
    ranks = rng.integers(0, placement.nprocs, (2, 800))
    through_ports = rng.random(800) < 0.7  # some edges leave and enter by their processes' ports, others not
    src = np.r_[placement.node[ranks[0]], rng.choice(topo.switches, 100)]
    dst = np.r_[placement.node[ranks[1]], rng.choice(np.r_[topo.switches, placement.node], 100)]
    out = np.r_[np.where(through_ports, ports[ranks[0]], -1), np.full(100, -1)]
    into = np.r_[np.where(through_ports, ports[ranks[1]], -1), np.full(100, -1)]
    table = min_hops(topo)
    seen = []
    batched = Router(topo, table).routes(src, dst, out, into, progress=lambda done, total: seen.append(done))
    one_by_one = Router(topo, table)
    assert batched == [one_by_one.route(*map(int, edge)) for edge in zip(src, dst, out, into, strict=True)]
    assert seen == sorted(seen)
    if rate and "hosts=0" not in spec:
        assert any(r is None for r in batched)  # breaks leave some edges without a route (a lost end node's)
    assert any(r and len(r) >= 3 for r in batched)
