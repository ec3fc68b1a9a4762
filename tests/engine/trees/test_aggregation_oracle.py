"""The vectorised aggregation against the edge-by-edge simulation it replaced (``aggregation_reference``): the
same timeline, event for event, on type I and type II trees, broken links, every operation, ties (θ = 0)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.trees import aggregation_reference as reference
from vizcoll.topology import from_spec
from vizcoll.trees.aggregation import Timing, simulate_aggregation
from vizcoll.trees.routing import Routing
from vizcoll.trees.tree import Tree
from vizcoll.trees.typetwo import type_two_tree


def random_tree(rng, nodes: list[int], width: int) -> Tree:
    """A random tree over ``nodes`` (vertex v on nodes[v]; several vertices may share a node)."""
    children = [[] for _ in nodes]
    for v in range(1, len(nodes)):
        children[int(rng.integers(max(0, v - width), v))].append(v)
    return Tree.from_children(children, kind="random", node=nodes)


def ours(topo, tree, ranks=None, *, latency: float = 1.0, theta: float = 0.1, routes_on=None, **rest):
    """:func:`simulate_aggregation` called with the reference's keyword arguments."""
    return simulate_aggregation(topo, tree, ranks, timing=Timing(latency, theta), routing=Routing(routes_on), **rest)


def same(a, b) -> None:
    assert (a.title, a.intro, a.initial_state, a.entities, a.legend) == (
        b.title,
        b.intro,
        b.initial_state,
        b.entities,
        b.legend,
    )
    assert a.summary == b.summary
    assert len(a.events) == len(b.events)
    for i, (x, y) in enumerate(zip(a.events, b.events, strict=True)):
        assert x == y, i
    assert a.to_dict()["title"] == b.to_dict()["title"] and a.key_moments() == b.key_moments()
    assert [a.caption(k) for k in range(-1, a.n_steps)] == [b.caption(k) for k in range(-1, b.n_steps)]


@pytest.mark.parametrize("seed", range(12))
def test_random_trees_on_a_fat_tree_with_breaks_give_the_reference_timeline(seed):
    rng = np.random.default_rng(seed)
    topo = from_spec("fat-tree:radix=4,levels=3")
    if seed % 3:
        for row in rng.choice(topo.n_links, size=int(rng.integers(1, 6)), replace=False):
            topo.set_broken(int(topo.link_id[row]))
    hosts = topo.endpoints.tolist()
    nodes = [int(rng.choice(hosts)) for _ in range(int(rng.integers(2, 40)))]
    tree = random_tree(rng, nodes, int(rng.integers(1, 6)))
    op = ("sum", "prod", "max", "min")[seed % 4]
    kwargs = dict(op=op, seed=None if seed % 2 else seed, latency=[1.0, 0.3][seed % 2], theta=[0.1, 0.0, 0.5][seed % 3])
    same(ours(topo, tree, **kwargs), reference.simulate_aggregation(topo, tree, **kwargs))


@pytest.mark.parametrize("seed", range(8))
def test_routes_as_built_on_the_intact_fabric_stop_at_the_breaks_as_in_the_reference(seed):
    rng = np.random.default_rng(seed)
    intact, topo = from_spec("fat-tree:radix=4,levels=3"), from_spec("fat-tree:radix=4,levels=3")
    for row in rng.choice(topo.n_links, size=int(rng.integers(1, 6)), replace=False):
        topo.set_broken(int(topo.link_id[row]))
    nodes = [int(rng.choice(topo.endpoints)) for _ in range(int(rng.integers(2, 40)))]
    tree = random_tree(rng, nodes, int(rng.integers(1, 6)))
    kwargs = dict(seed=seed, latency=[1.0, 0.3][seed % 2], theta=[0.1, 0.0, 0.5][seed % 3], routes_on=intact)
    intact_routes = ours(topo, tree, **kwargs)
    same(intact_routes, reference.simulate_aggregation(topo, tree, **kwargs))
    live = ours(topo, tree, seed=seed, latency=kwargs["latency"], theta=kwargs["theta"])
    if intact_routes.summary["broken_edges"] != live.summary["broken_edges"]:  # an intact route crossed a break
        assert intact_routes.summary["result"] is None and any(
            m["kinds"] == ["drop"] for m in intact_routes.key_moments()
        )


@pytest.mark.parametrize("degree", [2, 3, 8])
def test_type_two_trees_through_switches_give_the_reference_timeline(degree):
    topo = from_spec("fat-tree:radix=4,levels=3")
    result = type_two_tree(topo, [topo.index(f"h{i}") for i in (0, 1, 2, 5, 9, 14, 15)], degree=degree)
    for tree, ranks in ((result.tree, result.vertex_ranks()), (result.physical, result.vertex_ranks("physical"))):
        same(ours(topo, tree, ranks, seed=3), reference.simulate_aggregation(topo, tree, ranks, seed=3))


def test_a_large_tree_on_a_torus_gives_the_reference_timeline():
    topo = from_spec("torus:4x4x4")
    rng = np.random.default_rng(5)
    nodes = [int(x) for x in rng.choice(topo.endpoints, 300)]
    tree = random_tree(rng, nodes, 7)
    same(ours(topo, tree, theta=0.25), reference.simulate_aggregation(topo, tree, theta=0.25))
