"""The barrier at any size: the same runs as before it scaled, the structures of its definitions, its plan.

:class:`~vizcoll.barrier.fabric.FabricNetwork` computes the master, the spanning trees, the groups and the routes
over classes of twins and from the min-hop table, never from a process x process matrix; here they are checked
against those definitions written out on the matrix, and whole runs against what the engine gave before
(``tests/data/barrier/golden-runs.json``, see :mod:`tests.engine.barrier.golden`).
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests.engine.barrier import golden
from tests.fabrics import REAL_FABRICS
from vizcoll.barrier.algorithms import ALGORITHMS, planned_messages, run_barriers
from vizcoll.barrier.fabric import FabricNetwork, communicator_processes
from vizcoll.barrier.grid import mst_tree
from vizcoll.barrier.network import break_links
from vizcoll.comm import parse_pattern
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import from_spec
from vizcoll.topology.hops import UNREACHABLE
from vizcoll.topology.model import SWITCH

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "data" / "barrier" / "golden-runs.json").read_text())
ANYWHERE = [name for name, cls in ALGORITHMS.items() if not cls.grid_only]


def _needs(spec: str) -> None:
    if spec.startswith("file:") and not Path(spec[5:]).exists():
        pytest.skip(f"{spec[5:]} is not here (VIZCOLL_REAL_FABRICS)")


@pytest.mark.parametrize(("key", "spec", "rate", "algo", "tree_on"), golden.fabric_cases(), ids=lambda v: str(v))
def test_runs_on_fabrics_are_those_of_the_engine_before_it_scaled(key, spec, rate, algo, tree_on):
    _needs(spec)
    assert golden.fabric_run(spec, rate, algo, tree_on) == GOLDEN[key]


@pytest.mark.parametrize(("key", "side", "neighbors", "rate", "algo"), golden.grid_cases(), ids=lambda v: str(v))
def test_runs_on_grids_are_those_of_the_engine_before_it_scaled(key, side, neighbors, rate, algo):
    assert golden.grid_run(side, neighbors, rate, algo) == GOLDEN[key]


# ---------------------------------------------------------------- the definitions, on the process x process matrix
def _dense(net: FabricNetwork) -> np.ndarray:
    arr = np.asarray(net.nodes)
    return net.table.hops(arr[:, None], arr[None, :])


def _centre(net: FabricNetwork, dist: np.ndarray) -> int:
    d = dist.astype(np.int64)
    d[d == UNREACHABLE] = net.topo.n_nodes
    total = d.sum(axis=1)
    return min(net.nodes, key=lambda u: (int(total[net.rank[u]]), u))


def _tree(net: FabricNetwork, dist: np.ndarray, root: int, members=None) -> dict[int, int]:
    order = [u for u in net.nodes if members is None or u in members]
    rank = net.rank
    nbrs = {u: [v for v in order if v != u and dist[rank[u], rank[v]] != UNREACHABLE] for u in order}
    return mst_tree(nbrs, root, lambda u, v: int(dist[rank[u], rank[v]]))


def _route(net: FabricNetwork, src: int, dst: int) -> tuple:
    """Lowest port whose peer is one hop closer, switches forwarding (the rule of the module docstring)."""
    dist = net.table.hops_from(dst)
    if dist[src] == UNREACHABLE:
        return (src,), ()
    path, links, cur = [src], [], src
    while cur != dst:
        at = net.ports.of(cur)
        peers = net.ports.peer[at]
        ok = (dist[peers] == dist[cur] - 1) & ((net.table.kind[peers] == SWITCH) | (peers == dst))
        i = int(np.flatnonzero(ok)[0])
        cur = int(peers[i])
        path.append(cur)
        links.append(int(net.topo.link_id[net.ports.link[at][i]]))
    return tuple(path), tuple(links)


SAMPLES = [  # fabric, break rate, how many processes (0: every end node), with switches among them
    ("fat-tree:radix=8,levels=3", 0.2, 0, False),
    ("fat-tree:radix=8,levels=3", 0.45, 60, True),
    ("dragonfly:a=4,p=2,h=2", 0.3, 0, False),
    ("torus:4x3x2,hosts=3", 0.25, 50, True),
    (f"file:{golden.CLUSTER}", 0.3, 0, False),
    (f"file:{REAL_FABRICS}/loginoff-topo.ibnd", 0.2, 0, False),
]


@pytest.mark.parametrize(("spec", "rate", "count", "switches"), SAMPLES)
def test_structures_are_those_of_their_definitions(spec, rate, count, switches):
    _needs(spec)
    topo = topo_io.read(spec[5:]) if spec.startswith("file:") else from_spec(spec)
    break_links(topo, rate, seed=7, keep_connected=False)
    rng = np.random.default_rng(1)
    pool = np.r_[topo.endpoints, topo.switches[:8]] if switches else topo.endpoints
    nodes = rng.permutation(pool)[: count or len(pool)].tolist()
    net = FabricNetwork(topo, nodes)
    dist = _dense(net)
    for u in nodes[:10]:
        for v in nodes[-10:]:
            d = int(dist[net.rank[u], net.rank[v]])
            assert net.distance(u, v) == (math.inf if d == UNREACHABLE else d)
    centre = _centre(net, dist)
    assert net.centre() == centre
    assert net.spanning_tree(centre) == _tree(net, dist, centre)
    members = set(nodes[::3]) | {nodes[0]}
    assert net.spanning_tree(nodes[0], members) == _tree(net, dist, nodes[0], members)
    reach = [sorted(net.nodes[j] for j in np.flatnonzero(dist[i] != UNREACHABLE)) for i in range(len(nodes))]
    assert all(comp in reach for comp in net.components())
    assert sorted(u for comp in net.components() for u in comp) == sorted(nodes)
    for u, v in zip(nodes, nodes[7:] + nodes[:7], strict=True):
        route = net.route(u, v)
        assert (route.nodes, route.links) == _route(net, u, v), (topo.names[u], topo.names[v])


def test_one_class_of_twins_per_leaf_and_no_process_by_process_matrix():
    topo = from_spec("pruned-fat-tree:preset=bluelight")
    net = FabricNetwork(topo, topo.endpoints)
    leaves = {int(topo.link_b[topo.link_a == u][0]) if (topo.link_a == u).any() else -1 for u in topo.endpoints[:50]}
    assert len(net.reps) < len(topo.endpoints) / 8 and len(leaves) <= len(set(net.cls[:50].tolist()))
    assert not any(isinstance(v, np.ndarray) and v.size >= len(topo.endpoints) ** 2 for v in vars(net).values())


# ---------------------------------------------------------------- the plan, the progress, the limit
@pytest.mark.parametrize("spec", ["fat-tree:radix=8,levels=3", "dragonfly:a=4,p=2,h=2", "torus:3x3x2,hosts=2"])
def test_planned_messages_are_the_messages_a_run_sends(spec):
    topo = from_spec(spec)
    for algo in ANYWHERE:
        figures = run_barriers(topo, algo, barriers=2, participants=topo.endpoints, record=False)[1]
        assert figures["completed"] and figures["messages"] == planned_messages(topo, algo, 2, topo.endpoints)


def test_progress_is_heard_up_to_the_end():
    topo = from_spec("fat-tree:radix=8,levels=3")
    heard: list[float] = []
    run_barriers(topo, "tree", participants=topo.endpoints, record=False, progress=heard.append)
    assert heard == sorted(heard) and heard[-1] == 1.0 and 0 < heard[0] < 1 / 3 and len(heard) >= 3 * 50


def test_a_communicators_processes_are_its_end_nodes_once_each():
    topo = from_spec("fat-tree:radix=4,levels=3")
    comms = parse_pattern("hier:4", topo, ppn=2)
    assert communicator_processes(comms, 0) == topo.endpoints[:2].tolist()
    with pytest.raises(Exception, match="communicator 99 does not exist"):
        communicator_processes(comms, 99)
