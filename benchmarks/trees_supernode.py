"""Type I trees on one Sunway supernode (paper section 6.1, Fig. 16 and Table 4).

Run ``python benchmarks/trees_supernode.py``; it prints one JSON document.

Set-up: ``sunway-supernode`` (256 nodes x 2 ports, 32 leaves + 16 spines),
2 processes per node, each on its own network port, ``k = 32``: the 32-ary
tree, the 32-nomial tree (Algorithm 1) and the hierarchical 32-nomial tree
(Algorithms 2–4 over :func:`hierarchy_from_topology`: node → leaf → all).

**Processes on ports.** :class:`Placement` maps ranks to nodes only; the
port each process uses is computed here (and by
:func:`vizcoll.trees.metrics.process_ports`). Two layouts:

- ``by-node`` (the main one): rank ``2i`` runs on node ``i``'s port 1
  (leaf ``i // 16``), rank ``2i + 1`` on its port 2 (leaf ``16 + i // 16``),
  as the generator wires the ports. The two processes of a node talk without
  any link (the paper: "这2个端口间的通信不需要经过网络链路");
- ``by-leaf``: 16 consecutive ranks per leaf (rank ``r`` on leaf ``r // 16``:
  ranks ``32m .. 32m+15`` on port 1 of nodes ``16m .. 16m+15``, ranks
  ``32m+16 .. 32m+31`` on their port 2), the layout the paper's Fig. 16 and
  its "16 processes per switch" groups imply.

**Links.** Routes are min-hop with the lowest-numbered port at each switch
(:mod:`vizcoll.trees.metrics`), so all traffic between two leaves crosses
``spine0``: like the single uplink per leaf of the pruned fat tree (Fig. 14)
the paper measured. Per tree the output gives the busiest inter-switch link,
the packets on ``leaf0–spine0`` (the uplink of the root's leaf), the most
packets between one pair of leaves and eq. 2's latency (``k = 32``, Bcast:
``b = θ = 0.01`` μs, ``l = 0.28`` μs).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vizcoll.comm import Placement, place  # noqa: E402
from vizcoll.topology.generators import sunway_supernode  # noqa: E402
from vizcoll.topology.hops import min_hops  # noqa: E402
from vizcoll.trees.cost import CostParams  # noqa: E402
from vizcoll.trees.groups import hierarchy_from_topology  # noqa: E402
from vizcoll.trees.metrics import LatencyModel, PortChoice, process_ports, tree_metrics  # noqa: E402
from vizcoll.trees.typeone import hier_knomial_tree, kary_tree, knomial_tree  # noqa: E402

K = 32
PARAMS = CostParams()  # Bcast: S = 0, a = 1.12, b = 0.01


def by_leaf(topo, nprocs: int) -> tuple[Placement, np.ndarray]:
    """Rank ``r`` on leaf ``r // 16``: node ``(r // 32)·16 + r % 16``, port ``1 + (r // 16) % 2``."""
    view = topo.ports()
    first = int(topo.endpoints[0])
    r = np.arange(nprocs)
    nodes = first + (r // 32) * 16 + r % 16
    ports = np.array([view.link[view.of(int(n))][int(p)] for n, p in zip(nodes, (r // 16) % 2, strict=True)])
    return Placement(nodes.astype(np.int64), 2, "lists"), ports


def _link(topo, a: str, b: str) -> int:
    ia, ib = topo.index(a), topo.index(b)
    rows = np.flatnonzero(((topo.link_a == ia) & (topo.link_b == ib)) | ((topo.link_a == ib) & (topo.link_b == ia)))
    return int(topo.link_id[rows[0]])


def measure(topo, table, placement: Placement, ports: np.ndarray) -> dict:
    """The three trees' metrics for one placement."""
    P = placement.nprocs
    uplink = _link(topo, "leaf0", "spine0")
    trees = {
        "32-ary": kary_tree(P, K),
        "32-nomial": knomial_tree(P, K),
        "hierarchical 32-nomial": hier_knomial_tree(hierarchy_from_topology(topo, placement), K),
    }
    out = {}
    for name, tree in trees.items():
        m = tree_metrics(tree, topo, placement, table=table, ports=PortChoice(ports), latency=LatencyModel(PARAMS, K))
        busiest = m["max_switch_link"] or {"ends": None, "packets": 0}
        out[name] = {
            "height": m["height"],
            "radius": m["radius"],
            "max_switch_link_packets": busiest["packets"],
            "max_switch_link": busiest["ends"],
            "leaf0_spine0_packets": m["link_packets"].get(uplink, 0),
            "max_leaf_pair_packets": m["leaf_pairs_max"],
            "cross_leaf_packets": m["cross_group"]["switch"],
            "latency_us": round(m["latency_us"], 4),
        }
    return out


NOTE = (
    "Fig. 16's 496 packets on 'the link between switch 0 and switch 1' (32-ary tree, 512 processes): the fat tree "
    "has no leaf-leaf link, so we read it as the uplink of the leaf switch holding ranks 0-15 towards the top of "
    "the pruned fat tree (Fig. 14). Every packet sent to ranks 0-15 from another leaf crosses it: the root's 17 "
    "children outside its leaf plus the 479 children of ranks 1-15, i.e. 496 = 511 tree edges - the 15 inside "
    "the root's leaf. The model gives exactly 496 as cross_leaf_packets (tree edges between different leaf "
    "switches) in both layouts. On physical links (lowest-port min-hop routing sends all inter-leaf traffic "
    "through spine0, like the pruned tree's single uplink): by-leaf, leaf0-spine0 carries 495, not 496, because "
    "rank 16 runs on port 2 of node 0, the root's own NIC, and needs no link (the generator wires a node's two "
    "ports to leaves g and 16+g, so no layout puts whole nodes 16 ranks to a leaf); by-node, ranks 0-31 are "
    "split over leaf0 (even) and leaf16 (odd), so leaf0-spine0 carries 240 and leaf16-spine0 270 (255 down to "
    "the odd ranks 1-15 + 15 up to the root). Table 4 ('max packets per link': 32-nomial stays 16, hierarchical "
    "grows 1 -> 31): max_leaf_pair_packets of the 32-nomial tree stays 15 (rank 32j's 16 children on the other "
    "leaf, one of them on its own NIC); the hierarchical tree's busiest link, the root leaf's uplink, grows "
    "1 -> 15 (P/32 - 1 leaf-group leaders: a leaf group is 16 nodes = 32 processes here; the paper's "
    "16-process switch groups give P/16 - 1, 3 -> 31). The 32-nomial's busiest link grows 16 -> 30 because the "
    "root leaf's uplink also carries the leaders 32j. Latency (eq. 2, k = 32, Bcast b = 0.01 us, l = 0.28 us): "
    "the hierarchical tree is 0.24 us faster at 512 processes (paper: about 0.6 us measured): 2 links less "
    "radius (0.56 us) against one level more (k*b = 0.32 us); with 64 processes it is slower than the 32-ary "
    "tree (taller), as the paper observes."
)


def main() -> dict:
    topo = sunway_supernode()
    table = min_hops(topo)
    result: dict = {"topology": "sunway-supernode", "k": K, "processes_per_node": 2, "note": NOTE}
    for layout in ("by-node", "by-leaf"):
        rows = {}
        for P in range(64, 513, 64):
            if layout == "by-node":
                placement = place(topo, P, ppn=2)
                ports = process_ports(topo, placement)
            else:
                placement, ports = by_leaf(topo, P)
            rows[P] = measure(topo, table, placement, ports)
        result[layout] = {
            "P=512": rows[512],
            "table4_max_switch_link_packets": {
                name: [rows[P][name]["max_switch_link_packets"] for P in rows] for name in rows[512]
            },
            "table4_max_leaf_pair_packets": {
                name: [rows[P][name]["max_leaf_pair_packets"] for P in rows] for name in rows[512]
            },
            "table4_latency_us": {name: [rows[P][name]["latency_us"] for P in rows] for name in rows[512]},
            "processes": list(rows),
        }
    return result


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
