"""Broadcast along a shortest-path tree over live links, as a Timeline."""

import json
import time

import networkx as nx
import numpy as np
import pytest

from vizcoll.errors import VizcollError
from vizcoll.sim import Timeline, broadcast, broadcast_tree
from vizcoll.sim.events import EventColumns
from vizcoll.topology import ENDPOINT, SWITCH, from_spec


def fat_tree():
    return from_spec("fat-tree:radix=4,levels=3")


def forwarding_graph(topo, root: int) -> nx.DiGraph:
    """Live links as arcs; arcs out of end nodes other than the root removed."""
    g = nx.DiGraph()
    g.add_nodes_from(range(topo.n_nodes))
    for a, b, broken in zip(topo.link_a.tolist(), topo.link_b.tolist(), topo.broken.tolist(), strict=True):
        if broken:
            continue
        for u, v in ((a, b), (b, a)):
            if topo.kind[u] == SWITCH or u == root:
                g.add_edge(u, v)
    return g


def sends(tl: Timeline):
    return [e for e in tl.events if e.kind == "send"]


def check_consistent(topo, tl: Timeline, root: int):
    """Every send uses one live link joining src and dst; each node receives at most once, from a forwarder."""
    live_ids = set(topo.link_id[topo.live].tolist())
    received = [e.dst for e in sends(tl)]
    assert len(received) == len(set(received))
    assert root not in received
    for e in sends(tl):
        assert len(e.path_links) == 1 and e.path_links[0] in live_ids
        row = topo.link_row(e.path_links[0])
        assert {int(topo.link_a[row]), int(topo.link_b[row])} == {e.src, e.dst}
        assert topo.kind[e.src] == SWITCH or e.src == root
        assert e.state_changes[topo.names[e.dst]] == "received"
    # a node sends only after it has received
    got = {root: 0.0}
    for e in sends(tl):
        assert got[e.src] < e.t
        got[e.dst] = e.t
    assert not any(link in set(topo.link_id[topo.broken].tolist()) for e in tl.events for link in e.path_links)


def test_fat_tree_reaches_everyone_at_shortest_depth():
    topo = fat_tree()
    root = topo.index("h0")
    tl = broadcast(topo, "h0")
    check_consistent(topo, tl, root)
    parent, link, depth = broadcast_tree(topo, "h0")
    expected = nx.single_source_shortest_path_length(forwarding_graph(topo, root), root)
    assert {i: int(d) for i, d in enumerate(depth)} == expected
    assert (depth >= 0).all()
    s = tl.summary
    assert s == {
        "root": "h0",
        "nodes": 36,
        "reached": 36,
        "unreachable": 0,
        "hops": 6,
        "messages": 35,
        "completion_time": 6.0,
    }
    assert len(sends(tl)) == s["reached"] - 1
    # each non-root node receives exactly once, at time = its depth
    arrive = {e.dst: e.t for e in sends(tl)}
    assert sorted(arrive) == [i for i in range(topo.n_nodes) if i != root]
    assert all(arrive[v] == depth[v] for v in arrive)
    # the tree arrays agree with the timeline
    for e in sends(tl):
        assert parent[e.dst] == e.src and link[e.dst] == e.path_links[0]
    assert parent[root] == -1 and link[root] == -1 and depth[root] == 0
    final = tl.final_state
    assert final["h0"] == "root"
    assert set(final.values()) <= {"root", "received", "done"}
    assert all(final[topo.names[v]] == "received" for v in topo.endpoints if v != root)
    assert "unreachable" not in tl.caption(tl.n_steps - 1)


def test_parent_is_lowest_node_then_lowest_port():
    for spec, root in [
        ("fat-tree:radix=4,levels=3", "h5"),
        ("torus:3x4,hosts=2", "sw1-2"),
        ("dragonfly:a=3,p=2,h=1", "h0.1.1"),
    ]:
        topo = from_spec(spec)
        parent, link, depth = broadcast_tree(topo, root)
        r = topo.index(root)
        view = topo.ports()
        for v in range(topo.n_nodes):
            if v == r:
                continue
            # candidates: (parent index, parent's port, link id) over live arcs into v
            cands = sorted(
                (int(u), int(view.port[i]), int(topo.link_id[view.link[i]]))
                for u in range(topo.n_nodes)
                for i in range(view.indptr[u], view.indptr[u + 1])
                if view.peer[i] == v and depth[u] == depth[v] - 1 and (topo.kind[u] == SWITCH or u == r)
            )
            assert (int(parent[v]), int(link[v])) == (cands[0][0], cands[0][2])


def test_switch_root_and_index_root():
    topo = fat_tree()
    tl = broadcast(topo, topo.index("core1"), hop_latency=0.5)
    check_consistent(topo, tl, topo.index("core1"))
    assert tl.summary["root"] == "core1"
    assert tl.summary["hops"] == 4  # core -> agg -> edge -> agg of another group -> its cores
    assert tl.summary["completion_time"] == 2.0
    assert tl.time_at(0) == 0.5
    assert tl.initial_state["core1"] == "root"
    assert sum(v == "waiting" for v in tl.initial_state.values()) == topo.n_nodes - 1


def test_broken_host_link_makes_host_unreachable():
    topo = fat_tree()
    h5 = topo.index("h5")
    (row,) = np.flatnonzero((topo.link_a == h5) | (topo.link_b == h5))
    lid = int(topo.link_id[row])
    topo.set_broken(lid)
    tl = broadcast(topo, "h0")
    check_consistent(topo, tl, topo.index("h0"))
    assert tl.summary["unreachable"] == 1 and tl.summary["reached"] == 35
    assert tl.summary["messages"] == 34
    assert tl.final_state["h5"] == "unreachable"
    assert tl.caption(tl.n_steps - 1) == "1 node cannot be reached: links broken (h5)"
    assert tl.active_at(tl.n_steps - 1)[0].kind == "note"


def test_broken_uplinks_cut_off_an_edge_switch_and_its_hosts():
    topo = fat_tree()
    edge = topo.index("edge2.0")
    for row in range(topo.n_links):
        a, b = int(topo.link_a[row]), int(topo.link_b[row])
        if edge in (a, b) and topo.kind[a] == SWITCH and topo.kind[b] == SWITCH:
            topo.set_broken(int(topo.link_id[row]))
    assert topo.broken.sum() == 2
    tl = broadcast(topo, "h0")
    check_consistent(topo, tl, topo.index("h0"))
    hosts = sorted(
        int(topo.link_a[r] if topo.link_b[r] == edge else topo.link_b[r])
        for r in range(topo.n_links)
        if edge in (topo.link_a[r], topo.link_b[r])
        and ENDPOINT in (topo.kind[topo.link_a[r]], topo.kind[topo.link_b[r]])
    )
    lost = {name for name, state in tl.final_state.items() if state == "unreachable"}
    assert lost == {"edge2.0"} | {topo.names[h] for h in hosts}
    assert tl.summary["unreachable"] == 3
    assert tl.caption(tl.n_steps - 1).startswith("3 nodes cannot be reached: links broken")
    _, _, depth = broadcast_tree(topo, "h0")
    assert (depth[[edge, *hosts]] == -1).all()
    # unreachable only appears in the final step
    assert all("unreachable" not in e.state_changes.values() for e in tl.events[:-1])


def test_endpoints_do_not_forward():
    # two hosts joined directly to each other and one to a switch: the far host is unreachable
    topo = from_spec("mesh:1x2,hosts=1")
    topo.add_node("extra", "endpoint", 1)
    topo.add_link("h0-0", "extra")
    tl = broadcast(topo, "sw0-1")
    assert tl.final_state["extra"] == "unreachable"
    assert "no path from sw0-1" in tl.caption(tl.n_steps - 1)
    tl = broadcast(topo, "extra")  # the root itself may send into its neighbor
    assert tl.final_state["h0-0"] == "received"
    assert tl.summary["unreachable"] == 3  # h0-0 does not forward


def test_deterministic_and_serialisable():
    topo = fat_tree()
    topo.set_broken(3)
    a, b = broadcast(topo, "h9"), broadcast(topo, "h9")
    assert a == b
    assert a.to_dict() == b.to_dict()
    assert Timeline.from_dict(json.loads(json.dumps(a.to_dict()))) == a
    assert a.entities["h9"] == {"node": topo.index("h9")}
    assert set(a.legend) >= set(a.final_state.values()) | set(a.initial_state.values())


def test_mesh_depth_is_manhattan_distance_plus_host_hops():
    topo = from_spec("mesh:4x4")
    tl = broadcast(topo, "h0-0")
    check_consistent(topo, tl, topo.index("h0-0"))
    arrive = {topo.names[e.dst]: e.t for e in sends(tl)}
    for i in range(4):
        for j in range(4):
            assert arrive[f"sw{i}-{j}"] == 1 + i + j
            if (i, j) != (0, 0):
                assert arrive[f"h{i}-{j}"] == 2 + i + j
    assert tl.summary["hops"] == 8 and tl.summary["reached"] == 32


def test_captions_read_well():
    tl = broadcast(fat_tree(), "h0")
    assert tl.caption(0) == "Hop 1: h0 sends the packet to edge0.0 over port 1 (2 of 36 nodes have it)"
    assert tl.caption(1) == "Hop 2: 1 node sends the packet over 3 links (5 of 36 nodes have it)"
    labels = [e.label for e in tl.active_at(1) if e.kind == "send"]
    assert labels == ["edge0.0 → agg0.0 (port 3)", "edge0.0 → agg0.1 (port 4)", "edge0.0 → h1 (port 2)"]
    assert tl.caption(tl.n_steps - 1) == "Broadcast complete: all 36 nodes have the packet after 6 hops"
    # senders are "forwarding" during their hop and "done" afterwards
    assert tl.state_at(1)["edge0.0"] == "forwarding"
    assert tl.state_at(2)["edge0.0"] == "done"


def test_bad_arguments():
    topo = fat_tree()
    with pytest.raises(VizcollError, match="no node named"):
        broadcast(topo, "nope")
    with pytest.raises(VizcollError, match="not a node index"):
        broadcast(topo, 99)
    with pytest.raises(VizcollError, match="hop_latency"):
        broadcast(topo, "h0", hop_latency=0)


def test_isolated_root():
    topo = fat_tree()
    topo.add_node("lonely", "switch", 4)
    tl = broadcast(topo, "lonely")
    assert tl.n_steps == 1 and tl.summary["hops"] == 0 and tl.summary["unreachable"] == 36
    assert tl.summary["messages"] == 0


def test_big_torus_tree_is_fast():
    topo = from_spec("torus:30x20x20,hosts=2")
    start = time.perf_counter()
    parent, link, depth = broadcast_tree(topo, 0)
    assert time.perf_counter() - start < 0.5
    assert (depth >= 0).all()
    assert depth.max() == 15 + 10 + 10 + 1  # farthest switch, then its host


def test_a_paper_scale_broadcast_is_held_and_serialised_as_columns():
    """TaihuLight's 46,149 events are never an object each: the timeline's dict has ``columns``, which read back
    as the same events (the page's handle took 2.1 s to make from a list of events, 0.7 s from columns)."""
    topo = from_spec("pruned-fat-tree:preset=taihulight")
    timeline = broadcast(topo, 0)
    assert isinstance(timeline.events, EventColumns) and len(timeline.events) == 46_149
    data = timeline.to_dict()
    assert "columns" in data and "events" not in data
    back = Timeline.from_dict(data)
    assert back.digest() == timeline.digest() and back.events[-1] == timeline.events[-1]
    assert (timeline.events[1].kind, timeline.events[1].label) == ("send", "leaf0.0 → spine0.0 (port 17)")
