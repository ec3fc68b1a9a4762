"""The simulated grid network of the DLCT experiment: greedy routing, dead ends, FIFO nodes, broken links."""

import numpy as np
import pytest

from vizcoll.barrier.network import GridNetwork, Message, Network, Recorder, break_links
from vizcoll.barrier.structures import greedy_route
from vizcoll.errors import SpecError, TopologyError
from vizcoll.sim.engine import Engine
from vizcoll.topology.generators import fat_tree, mesh


def node(topo, r, c):
    return topo.index(f"sw{r}-{c}")


def cells(grid, route):
    return tuple((int(grid.y[u]), int(grid.x[u])) for u in route.nodes)


def broken_cells(topo):
    y, x = topo.attr("y"), topo.attr("x")
    rows = np.flatnonzero(topo.broken)
    ends = zip(topo.link_a[rows], topo.link_b[rows], strict=True)
    return [((int(y[a]), int(x[a])), (int(y[b]), int(x[b]))) for a, b in ends]


@pytest.mark.parametrize(("neighbors", "metric"), [(4, "manhattan"), (8, "chebyshev")])
def test_intact_grid_routes_are_shortest(neighbors, metric):
    topo = mesh((5, 6), neighbors=neighbors, hosts=0)
    grid = GridNetwork(topo)
    for s in grid.nodes:
        for d in grid.nodes:
            r = grid.route(s, d)
            dy, dx = abs(int(grid.y[s] - grid.y[d])), abs(int(grid.x[s] - grid.x[d]))
            assert r.reached and not r.detour
            assert r.hops == (dx + dy if metric == "manhattan" else max(dx, dy))
            assert len(r.links) == len(r.nodes) - 1
    if neighbors == 8:
        assert cells(grid, grid.route(node(topo, 0, 0), node(topo, 2, 3))) == ((0, 0), (1, 1), (2, 2), (2, 3))


@pytest.mark.parametrize("neighbors", [4, 8])
@pytest.mark.parametrize("seed", range(3))
def test_greedy_matches_structures_routing(neighbors, seed):
    """Same rule as structures.greedy_route: closest neighbor, ties (row, col), stop on a revisit."""
    topo = mesh((5, 5), neighbors=neighbors, hosts=0)
    break_links(topo, 0.3, seed)
    grid = GridNetwork(topo, routing="greedy")
    broken = broken_cells(topo)
    for s in grid.nodes:
        for d in grid.nodes:
            mine = grid.route(s, d)
            ref = greedy_route(
                (int(grid.y[s]), int(grid.x[s])), (int(grid.y[d]), int(grid.x[d])), (5, 5), neighbors, broken
            )
            assert mine.reached == ref.reached
            assert cells(grid, mine) == (ref.path if ref.reached else ref.path[: len(mine.nodes)])


def test_dead_end_detected_then_recovered():
    topo = mesh((4, 4), neighbors=4, hosts=0)
    (lid,) = topo.links_between("sw0-0", "sw0-1")
    topo.set_broken(lid)
    a, b = node(topo, 0, 1), node(topo, 0, 0)
    greedy = GridNetwork(topo, routing="greedy").route(a, b)
    assert not greedy.reached and greedy.reason == "loop"  # (0,1) -> (1,1) -> back to (0,1)
    assert cells(GridNetwork(topo, routing="greedy"), greedy) == ((0, 1), (1, 1))
    rec = GridNetwork(topo).route(a, b)
    assert rec.reached and rec.detour and rec.hops == 3 and lid not in rec.links


def test_unreachable_destination_is_a_dead_end_not_a_loop():
    topo = mesh((3, 3), neighbors=8, hosts=0)
    corner = node(topo, 2, 2)
    for row in np.flatnonzero((topo.link_a == corner) | (topo.link_b == corner)):
        topo.set_broken(int(topo.link_id[row]))
    grid = GridNetwork(topo)
    r = grid.route(node(topo, 0, 0), corner)
    assert not r.reached and r.reason == "unreachable" and r.hops <= 8
    assert grid.hops(node(topo, 0, 0), corner) == float("inf")
    assert [len(c) for c in grid.components()] == [8, 1]


def test_the_event_core_breaks_ties_in_scheduling_order():
    q, seen = Engine(), []
    for tag in "abc":
        q.at(1.0, seen.append, tag)
    q.at(0.5, seen.append, "first")
    q.run()
    assert seen == ["first", "a", "b", "c"]
    with pytest.raises(ValueError):
        q.at(0.1, seen.append, "too late")


def _line_network(proc=1.0, lat=0.5):
    topo = mesh((1, 3), neighbors=4, hosts=0)
    grid = GridNetwork(topo)
    q, got = Engine(), []
    net = Network(grid, q, lambda t, m: got.append((t, m)), lambda t, m: None, Recorder(), lat, proc)
    return topo, net, q, got


def test_fifo_processing_and_latency():
    topo, net, q, got = _line_network()
    left, mid, right = (node(topo, 0, c) for c in range(3))
    net.send(0.0, Message("gather", left, mid, 0))
    net.send(0.0, Message("gather", right, mid, 0))
    q.run()
    # each: proc at the source (1), link (0.5), then mid handles them one at a time, in arrival order
    assert [(t, m.src) for t, m in got] == [(2.5, left), (3.5, right)]
    assert all(m.hops == 1 and m.content == 1 for _, m in got)  # Gather content = path length travelled


def test_forwarding_waits_behind_a_busy_node():
    topo, net, q, got = _line_network()
    left, mid, right = (node(topo, 0, c) for c in range(3))
    net.send(0.0, Message("x", mid, left, 0))
    net.send(0.0, Message("x", mid, left, 0))  # mid is busy until t=2
    net.send(0.0, Message("gather", left, right, 0))  # left busy at t=0..1; reaches mid at 1.5, waits until 2
    q.run()
    through = next(m for t, m in got if m.dst == right)
    assert through.hops == 2 and through.content == 2 and len(through.path) == 2
    assert next(t for t, m in got if m.dst == right) == pytest.approx(2 + 1 + 0.5 + 1)
    assert net.messages == 3 and net.hops == 4 and net.max_link_load == 3


def test_network_parameters_checked():
    topo = mesh((2, 2), hosts=0)
    grid = GridNetwork(topo)
    with pytest.raises(SpecError):
        Network(grid, Engine(), print, print, Recorder(), hop_latency=0)
    with pytest.raises(SpecError):
        GridNetwork(topo, routing="teleport")
    with pytest.raises(TopologyError):
        GridNetwork(fat_tree(4, 2))  # no x / y positions


@pytest.mark.parametrize("neighbors", [4, 8])
def test_break_links_keeps_the_grid_connected(neighbors):
    topo = mesh((8, 8), neighbors=neighbors, hosts=0)
    ids = break_links(topo, 0.5, seed=3)
    assert len(ids) == int(topo.broken.sum()) <= round(0.5 * topo.n_links)
    assert len(GridNetwork(topo).components()) == 1
    again = mesh((8, 8), neighbors=neighbors, hosts=0)
    assert break_links(again, 0.5, seed=3) == ids  # seeded
    cut = mesh((8, 8), neighbors=neighbors, hosts=0)
    assert len(break_links(cut, 0.5, seed=3, keep_connected=False)) == round(0.5 * cut.n_links)
    if neighbors == 4:  # 112 links, a spanning tree needs 63: at most 49 can break
        assert len(ids) == 49
    with pytest.raises(SpecError):
        break_links(topo, 1.5)
