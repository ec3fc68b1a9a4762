"""The consistency checks of a :class:`~vizcoll.topology.model.Topology` (what :meth:`Topology.validate` runs),
and the node kinds and size limits they check. ``topo`` is a Topology (not imported: the model imports this).

Each check raises :class:`~vizcoll.errors.TopologyError` naming the first node, port or link that is wrong.
"""

from __future__ import annotations

import numpy as np

from vizcoll.arrays import unique
from vizcoll.errors import TopologyError

__all__ = ["ENDPOINT", "MAX_ENDPOINTS", "MAX_LINKS", "MAX_NODES", "SWITCH", "check_links", "check_nodes"]

SWITCH, ENDPOINT = 0, 1
"""The node kinds: a switch forwards packets, an end node (NIC, HCA, processor) never does."""
MAX_ENDPOINTS = 1 << 20
"""1,048,576 end nodes: an AI-scale fabric (``rail-fat-tree:servers=131072,rails=8,radix=128``, 131,072 servers of
8 GPUs, one NIC each) is the largest the engine builds (issue 28)."""
MAX_NODES = 1_250_000
"""Nodes of all kinds: 2**20 end nodes and their switches (that rail fabric has 65,536)."""
MAX_LINKS = 3_500_000
"""That rail fabric has 3,145,728 links (3,260,416 with ``cross=1``); built with its min-hop table it takes 814 MB
peak (:func:`vizcoll.topology.rails.rail_fat_tree`). The web app keeps lower caps of its own
(:mod:`vizcoll.ui.limits`)."""


def check_nodes(topo) -> None:
    """Sizes, unique non-empty names, kinds and port counts of the nodes, and the node attribute columns."""
    n = topo.n_nodes
    if n > MAX_NODES:
        raise TopologyError(f"{n} nodes is more than the limit of {MAX_NODES}")
    ends = int(np.count_nonzero(topo.kind == ENDPOINT))
    if ends > MAX_ENDPOINTS:
        raise TopologyError(f"{ends} end nodes is more than the limit of {MAX_ENDPOINTS} (2**20)")
    if not all(topo.names):
        raise TopologyError("a node has an empty name")
    if len(set(topo.names)) != n:  # a set, not the name index: a fabric pickled for the app's cache drops it
        seen: set[str] = set()
        dup = next(x for x in topo.names if x in seen or seen.add(x))
        raise TopologyError(f"node name {dup!r} is used twice")
    for col, name in ((topo.kind, "kind"), (topo.nports, "nports")):
        if len(col) != n:
            raise TopologyError(f"{name} has {len(col)} entries for {n} nodes")
    if np.any((topo.kind != SWITCH) & (topo.kind != ENDPOINT)):
        raise TopologyError("node kind must be switch or endpoint")
    if n and topo.nports.min() < 1:
        bad = int(np.argmin(topo.nports))
        raise TopologyError(f"node {topo.names[bad]!r} has {int(topo.nports[bad])} ports (at least 1)")
    for key, col in topo.node_attrs.items():
        if len(col) != n:
            raise TopologyError(f"node attribute {key!r} has {len(col)} entries for {n} nodes")


def check_links(topo) -> None:
    """Sizes and unique ids of the links, their ends and ports (each port used once), the link attribute columns."""
    n, m = topo.n_nodes, topo.n_links
    if m > MAX_LINKS:
        raise TopologyError(f"{m} links is more than the limit of {MAX_LINKS}")
    for col in (topo.link_pa, topo.link_b, topo.link_pb, topo.link_id, topo.broken):
        if len(col) != m:
            raise TopologyError("link columns have different lengths")
    if len(unique(topo.link_id)) != m:
        raise TopologyError("link ids are not unique")
    if m:
        _check_ends(topo, n)
    for key, col in topo.link_attrs.items():
        if len(col) != m:
            raise TopologyError(f"link attribute {key!r} has {len(col)} entries for {m} links")


def _check_ends(topo, n: int) -> None:
    ends = np.concatenate([topo.link_a, topo.link_b])
    if ends.min() < 0 or ends.max() >= n:
        raise TopologyError("a link refers to a node that does not exist")
    same_port = (topo.link_a == topo.link_b) & (topo.link_pa == topo.link_pb)
    if np.any(same_port):
        bad = int(np.flatnonzero(same_port)[0])
        name = topo.names[topo.link_a[bad]]
        raise TopologyError(f"link {int(topo.link_id[bad])} joins port {int(topo.link_pa[bad])} of {name!r} to itself")
    ports = np.concatenate([topo.link_pa, topo.link_pb])
    bad = (ports < 1) | (ports > topo.nports[ends])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        node = int(ends[i])
        raise TopologyError(f"port {int(ports[i])} of {topo.names[node]!r} is outside 1..{int(topo.nports[node])}")
    key = np.sort(ends.astype(np.int64) * (int(topo.nports.max()) + 1) + ports)
    twice = np.flatnonzero(key[1:] == key[:-1])
    if len(twice):
        node, port = divmod(int(key[twice[0]]), int(topo.nports.max()) + 1)
        raise TopologyError(f"port {port} of {topo.names[node]!r} is used by more than one link")
