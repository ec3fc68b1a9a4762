"""Barriers among the end nodes of any fabric over min-hop routes that avoid broken links (FabricNetwork)."""

import math

import networkx as nx
import numpy as np
import pytest

from vizcoll.barrier import is_grid
from vizcoll.barrier.algorithms import (
    ALGORITHMS,
    DisseminationTree,
    MasterSlave,
    SimParams,
    TreeBarrier,
    grid_only_reason,
    run_barriers,
)
from vizcoll.barrier.fabric import FabricNetwork
from vizcoll.barrier.network import Message, Network, Recorder
from vizcoll.errors import SpecError, VizcollError
from vizcoll.sim.engine import Engine
from vizcoll.sim.timeline import Timeline
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import from_spec, mesh, torus
from vizcoll.topology.hops import min_hops
from vizcoll.topology.model import SWITCH

ANYWHERE = tuple(name for name, cls in ALGORITHMS.items() if not cls.grid_only)
GRID_ONLY = tuple(name for name, cls in ALGORITHMS.items() if cls.grid_only)
FAT_BREAK = "edge0.0[4]-agg0.1[1]"
# a hand-written fabric (ibnetdiscover): a chain of three leaves, a spine above the outer two, hosts nobody generated
HANDMADE = """Switch 4 "left"
[1] "ann"[1]
[2] "bob"[1]
[3] "mid"[1]
[4] "top"[1]

Switch 4 "mid"
[1] "left"[3]
[2] "cid"[1]
[3] "right"[1]

Switch 4 "right"
[1] "mid"[3]
[2] "dan"[1]
[3] "eve"[1]
[4] "top"[2]

Switch 2 "top"
[1] "left"[4]
[2] "right"[4]
""" + "".join(
    f'\nHca 1 "{h}"\n[1] "{leaf}"[{port}]\n'
    for h, leaf, port in (
        ("ann", "left", 1),
        ("bob", "left", 2),
        ("cid", "mid", 2),
        ("dan", "right", 2),
        ("eve", "right", 3),
    )
)


def fat_tree(broken=(FAT_BREAK,)):
    topo = from_spec("fat-tree:radix=4,levels=3")
    for label in broken:
        topo.set_broken(int(topo.link_id[topo.find_link(label)]))
    return topo


def handmade():
    return topo_io.parse(HANDMADE, "handmade.net")


def fabrics():
    """(name, topology with one break that keeps its end nodes connected)."""
    tor = torus((3, 3, 2), hosts=1)
    tor.set_broken(int(tor.link_id[tor.find_link("sw0-0-0[1]-sw1-0-0[2]")]))
    hand = handmade()
    hand.set_broken(int(hand.link_id[hand.find_link("left[3]-mid[1]")]))
    return [("fat tree", fat_tree()), ("3-D torus", tor), ("handmade", hand)]


def ends(topo):
    return topo.endpoints.tolist()


def per_barrier(algo, n, leaders=0):
    """The messages one barrier of ``algo`` sends among ``n`` processes (``leaders`` leaf groups)."""
    if algo == "dissemination":
        return n * math.ceil(math.log2(n))
    if algo == "dissemination+tree":
        return 2 * (n - leaders) + leaders * math.ceil(math.log2(leaders))
    return 2 * (n - 1)


def send_events(timeline):
    return [e for e in timeline.events if e.kind == "send"]


# ------------------------------------------------------------------ every algorithm on every fabric
@pytest.mark.parametrize("name, topo", fabrics(), ids=[f[0] for f in fabrics()])
@pytest.mark.parametrize("algo", ANYWHERE)
def test_every_non_grid_algorithm_completes_and_avoids_the_break(name, topo, algo):
    """No process leaves before all entered (BarrierViolation inside), the right message count, no hop on the
    broken link, every hop over a link joining its two ends."""
    broken = set(topo.link_id[topo.broken].tolist())
    assert len(broken) == 1
    ends_of = {int(lid): {int(a), int(b)} for lid, a, b in zip(topo.link_id, topo.link_a, topo.link_b, strict=True)}
    for compute, jitter in ((0.5, 0.0), (0.0, 0.0), (0.002, 0.5)):
        timeline, fig = run_barriers(topo, algo, compute=compute, seed=3, jitter=jitter, participants=ends(topo))
        assert fig["completed"] and fig["failure"] is None and fig["dead_ends"] == 0, fig["failure"]
        assert fig["processors"] == len(ends(topo)) and fig["broken_links"] == 1
        assert fig["time"] > 2 * compute * (1 - jitter)
        assert fig["barrier_done"] == sorted(fig["barrier_done"]) and fig["barrier_done"][-1] == fig["time"]
        hops = send_events(timeline)
        assert len(hops) == fig["hops"] > 0
        assert all(len(e.path_links) == 1 and ends_of[e.path_links[0]] == {e.src, e.dst} for e in hops)
        assert not {lid for e in hops for lid in e.path_links} & broken
    leaders = len(FabricNetwork(topo, ends(topo)).groups())
    assert fig["messages"] == 3 * per_barrier(algo, len(ends(topo)), leaders)


def test_message_counts_on_the_fat_tree():
    """ms, tree and tournament 2(N-1) per barrier, dissemination N ceil(log2 N), dissemination+tree by leaf."""
    topo = fat_tree()
    n = 16
    expected = {
        "ms": 2 * (n - 1),
        "tree": 2 * (n - 1),
        "tournament": 2 * (n - 1),
        "dissemination": n * 4,
        "dissemination+tree": 2 * (n - 8) + 8 * 3,
    }  # 8 leaves of 2 hosts
    for algo, count in expected.items():
        assert run_barriers(topo, algo, participants=ends(topo), record=False)[1]["messages"] == 3 * count, algo


def test_a_communicator_of_the_fat_tree():
    """A few end nodes only: the others never appear in the timeline, the switches only forward."""
    topo = fat_tree()
    members = [topo.index(h) for h in ("h5", "h0", "h9", "h14")]
    timeline, fig = run_barriers(topo, "dissemination", participants=members)
    assert fig["completed"] and fig["processors"] == 4 and fig["messages"] == 3 * 4 * 2
    assert {k for k in timeline.entities} == {"h5", "h0", "h9", "h14"}
    on_route = {u for e in send_events(timeline) for u in (e.src, e.dst)}
    assert on_route - set(members) <= set(topo.switches.tolist())  # nothing is forwarded by another end node
    # rank order = participant order: round 1 of h5 goes to h0, the next in the list
    first = next(e for e in send_events(timeline) if e.src == members[0])
    assert "h5 → h0" in first.label


# ------------------------------------------------------------------ routes
@pytest.mark.parametrize("name, topo", fabrics(), ids=[f[0] for f in fabrics()])
def test_routes_are_live_min_hop_routes_through_switches_lowest_port_first(name, topo):
    net = FabricNetwork(topo, ends(topo))
    table = min_hops(topo)
    port_of = {}
    for row in range(topo.n_links):
        a, b = int(topo.link_a[row]), int(topo.link_b[row])
        port_of[(a, int(topo.link_id[row]))] = int(topo.link_pa[row])
        port_of[(b, int(topo.link_id[row]))] = int(topo.link_pb[row])
    for u in net.nodes:
        for v in net.nodes:
            r = net.route(u, v)
            assert r.reached and r.nodes[0] == u and r.nodes[-1] == v
            assert r.hops == table.hops([u], [v])[0] == net.distance(u, v)
            assert all(topo.kind[w] == SWITCH for w in r.nodes[1:-1])
            assert not set(r.links) & set(topo.link_id[topo.broken].tolist())
            for w, lid in zip(r.nodes[1:-1], r.links[1:], strict=True):  # a switch leaves by OpenSM's min-hop port
                assert port_of[(w, lid)] == table.min_ports(w, v)[0]


def test_a_single_message_takes_hops_plus_one_handlings():
    """The one timing model: (h + 1) * proc + h * hop_latency without contention, switches handle it too."""
    topo = fat_tree(broken=())
    net = FabricNetwork(topo, ends(topo))
    q, got = Engine(), []
    transport = Network(net, q, lambda t, m: got.append((t, m)), lambda t, m: None, Recorder(), 0.25, 1.0)
    h0, h15 = topo.index("h0"), topo.index("h15")
    transport.send(0.0, Message("gather", h0, h15, 0))
    q.run()
    ((t, msg),) = got
    assert msg.hops == 6 and t == 7 * 1.0 + 6 * 0.25 and msg.content == 6
    assert [topo.names[u] for u in msg.route.nodes] == ["h0", "edge0.0", "agg0.0", "core0", "agg3.0", "edge3.1", "h15"]


def test_a_broken_link_on_a_route_is_routed_around():
    """h0 -> h2 leaves edge0.0 by its lowest port (to agg0.0); break that link: the other aggregation switch."""
    used = "edge0.0[3]-agg0.0[1]"
    intact, broken = fat_tree(broken=()), fat_tree(broken=(used,))
    lid = int(broken.link_id[broken.find_link(used)])
    h0, h2 = broken.index("h0"), broken.index("h2")
    before, after = FabricNetwork(intact, ends(intact)), FabricNetwork(broken, ends(broken))
    assert [intact.names[u] for u in before.route(h0, h2).nodes] == ["h0", "edge0.0", "agg0.0", "edge0.1", "h2"]
    assert lid in before.route(h0, h2).links
    assert [broken.names[u] for u in after.route(h0, h2).nodes] == ["h0", "edge0.0", "agg0.1", "edge0.1", "h2"]
    assert all(lid not in after.route(u, v).links for u in after.nodes for v in after.nodes)
    assert sum(lid in before.route(u, v).links for u in before.nodes for v in before.nodes) > 10
    timeline, fig = run_barriers(broken, "ms", participants=ends(broken))
    assert fig["completed"] and lid not in {x for e in send_events(timeline) for x in e.path_links}


# ------------------------------------------------------------------ failures
@pytest.mark.parametrize("algo", ANYWHERE)
def test_a_cut_off_participant_is_a_dead_end_not_a_loop(algo):
    topo = fat_tree()
    h3 = topo.index("h3")
    for lid in topo.link_id[(topo.link_a == h3) | (topo.link_b == h3)].tolist():
        topo.set_broken(lid)
    timeline, fig = run_barriers(topo, algo, participants=ends(topo))
    assert fig["time"] is None and not fig["completed"] and fig["dead_ends"] > 0
    assert fig["failure"].startswith("barrier 1 never completed")
    assert "hit dead ends" in fig["failure"] and "cut the network into 2 parts (1 processor cut off)" in fig["failure"]
    drops = [e for e in timeline.events if e.kind == "drop"]
    assert drops and all("unreachable" in e.label and e.path_links == [] for e in drops)
    assert "h3" in {topo.names[e.src] for e in drops} | {topo.names[e.dst] for e in drops}
    assert timeline.state_at(timeline.n_steps - 1)["h3"] == "stuck"


def test_a_participant_without_any_link():
    topo = handmade()
    eve = topo.index("eve")
    topo.set_broken(int(topo.link_id[topo.find_link("right[3]-eve[1]")]))
    net = FabricNetwork(topo, ends(topo))
    assert net.components() == [sorted(u for u in ends(topo) if u != eve), [eve]]
    route = net.route(topo.index("ann"), eve)
    assert not route.reached and route.nodes == (topo.index("ann"),) and route.reason == "unreachable"
    assert net.hops(topo.index("ann"), eve) == math.inf
    assert net.centre() != eve  # the master lies in the largest group


# ------------------------------------------------------------------ structures the algorithms use
def test_master_is_the_process_with_the_smallest_total_distance():
    topo = handmade()  # ann, bob on left; cid on mid; dan, eve on right; left - mid - right and left - top - right
    net = FabricNetwork(topo, ends(topo))
    names = topo.names
    totals = {names[u]: sum(net.distance(u, v) for v in net.nodes) for u in net.nodes}
    assert totals == {"ann": 2 + 3 + 4 + 4, "bob": 2 + 3 + 4 + 4, "cid": 3 * 4, "dan": 13, "eve": 13}
    assert names[net.centre()] == "cid"
    assert names[MasterSlave(topo, SimParams(record=False), ends(topo)).master] == "cid"
    # ties: the lowest node index
    fat = fat_tree(broken=())
    assert FabricNetwork(fat, ends(fat)).centre() == fat.index("h0")
    assert FabricNetwork(fat, [fat.index("h9"), fat.index("h4")]).centre() == fat.index("h4")


@pytest.mark.parametrize("name, topo", fabrics(), ids=[f[0] for f in fabrics()])
def test_tree_is_a_minimum_spanning_tree_of_the_processes_by_hop_distance(name, topo):
    tree = TreeBarrier(topo, SimParams(record=False), ends(topo))
    net = tree.grid
    assert sorted(tree.par) == sorted(net.nodes) and [u for u, p in tree.par.items() if p < 0] == [net.centre()]
    ref = nx.Graph()
    ref.add_weighted_edges_from((u, v, net.distance(u, v)) for u in net.nodes for v in net.nodes if u < v)
    total = sum(net.distance(u, p) for u, p in tree.par.items() if p >= 0)
    assert total == nx.minimum_spanning_tree(ref).size(weight="weight")


def test_tree_on_the_fat_tree_gathers_by_leaf_then_pod():
    topo = fat_tree(broken=())
    tree = TreeBarrier(topo, SimParams(record=False), ends(topo))
    par = {topo.names[u]: topo.names[p] for u, p in tree.par.items() if p >= 0}
    assert par["h1"] == "h0" and par["h3"] == "h2" and par["h2"] == "h0"  # leaf, then pod
    assert {par[h] for h in ("h4", "h8", "h12")} == {"h0"}  # one per pod across the top
    assert max(tree.grid.distance(topo.index(u), topo.index(p)) for u, p in par.items()) == 6


def test_tree_on_intact_is_built_before_the_breaks():
    live = TreeBarrier(fat_tree(), SimParams(record=False), ends(fat_tree()))
    intact = TreeBarrier(fat_tree(), SimParams(record=False, tree_on="intact"), ends(fat_tree()))
    assert intact.par == TreeBarrier(fat_tree(broken=()), SimParams(record=False), ends(fat_tree())).par
    assert live.par == intact.par  # the break costs no hops on a fat tree: the same tree, routed around it
    _, fig = run_barriers(fat_tree(), "tree", tree_on="intact", participants=ends(fat_tree()))
    assert fig["completed"]


def test_dissemination_tree_blocks_are_the_leaf_switches():
    topo = handmade()
    runner = DisseminationTree(topo, SimParams(record=False), ends(topo))
    groups = [(topo.names[leader], [topo.names[u] for u in members]) for leader, members in runner.grid.groups()]
    assert groups == [("ann", ["ann", "bob"]), ("cid", ["cid"]), ("dan", ["dan", "eve"])]
    assert [topo.names[u] for u in runner.members] == ["ann", "cid", "dan"]  # the leaders disseminate
    assert topo.names[runner.par[topo.index("bob")]] == "ann" and runner.par[topo.index("ann")] == -1
    # the leader is the member closest to the master (ties: lowest index), not the first one
    fat = fat_tree(broken=())
    order = [fat.index(h) for h in ("h3", "h2", "h1", "h0")]
    net = FabricNetwork(fat, order)
    assert fat.names[net.centre()] == "h0"
    assert [(fat.names[a], [fat.names[u] for u in m]) for a, m in net.groups()] == [
        ("h2", ["h3", "h2"]),
        ("h0", ["h1", "h0"]),
    ]


# ------------------------------------------------------------------ DLCT, grids and bad input
@pytest.mark.parametrize("algo", GRID_ONLY)
def test_dlct_with_participants_raises_one_line_saying_why(algo):
    topo = fat_tree()
    with pytest.raises(VizcollError) as err:
        run_barriers(topo, algo, participants=ends(topo))
    text = str(err.value)
    assert "\n" not in text and "grid" in text and "numbering" in text and "squares of the grid" in text
    assert "not a 2-D grid" in text and text == grid_only_reason(topo, algo)
    with pytest.raises(VizcollError, match="on this grid it runs on the switches"):
        run_barriers(mesh((4, 4), 8, hosts=1), algo, participants=[16, 17])


def test_is_grid():
    assert is_grid(mesh((4, 4), 8, hosts=0)) and is_grid(mesh((3, 5), 4, hosts=1)) and is_grid(from_spec("mesh:1x2"))
    assert is_grid(torus((4, 4), hosts=1))  # a 2-D torus has x / y and no z
    assert not is_grid(torus((4, 4, 4), hosts=1)) and not is_grid(torus((4, 4, 1), hosts=0))
    assert not is_grid(fat_tree()) and not is_grid(handmade()) and not is_grid(from_spec("dragonfly:a=2,p=1,h=1"))
    lost = mesh((3, 3), 4, hosts=0)
    lost.node_attrs["x"] = lost.node_attrs["x"].copy()
    lost.node_attrs["x"][4] = -1  # one switch without a position
    assert not is_grid(lost)
    same = mesh((3, 3), 4, hosts=0)
    same.node_attrs["y"] = np.zeros(same.n_nodes, dtype=np.int32)  # every switch of a column at one position
    assert not is_grid(same)


def test_a_grid_without_participants_still_needs_positions():
    with pytest.raises(VizcollError, match="needs a grid"):
        run_barriers(fat_tree(), "ms")


@pytest.mark.parametrize(
    "participants, words",
    [
        ([], "at least one participant"),
        ([20, 20], "h0 is listed twice"),
        ([20, 99], "participant 99 is not a node"),
        ([20, 1.5], "node indices"),
        ("h0", "list of node indices"),
        (5, "list of node indices"),
        ([20, True], "node indices"),
    ],
)
def test_bad_participants(participants, words):
    with pytest.raises(SpecError, match=words):
        run_barriers(fat_tree(), "ms", participants=participants)


def test_numpy_participants_and_a_switch_process_and_determinism():
    topo = fat_tree()
    members = np.array([topo.index("h0"), topo.index("core1"), topo.index("h7")])
    a = run_barriers(topo, "tree", participants=members)
    b = run_barriers(topo, "tree", participants=members.tolist())
    assert a[1] == b[1] and a[0].to_dict() == b[0].to_dict() and a[1]["completed"]
    assert Timeline.from_dict(a[0].to_dict()).to_dict() == a[0].to_dict()
    assert {"h0", "core1", "h7"} == set(a[0].entities)
