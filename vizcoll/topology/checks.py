"""The consistency checks of a :class:`~vizcoll.topology.model.Topology` (what :meth:`Topology.validate` runs),
and the node kinds and size limits they check. ``topo`` is a Topology (not imported: the model imports this).

Each check raises :class:`~vizcoll.errors.TopologyError` naming the first node, port or link that is wrong.
"""

from __future__ import annotations

import numpy as np

from vizcoll.arrays import unique
from vizcoll.errors import TopologyError

__all__ = ["ENDPOINT", "MAX_LINKS", "MAX_NODES", "SWITCH", "check_links", "check_nodes"]

SWITCH, ENDPOINT = 0, 1
"""The node kinds: a switch forwards packets, an end node (NIC, HCA, processor) never does."""
MAX_NODES = 200_000
MAX_LINKS = 1_000_000


def check_nodes(topo) -> None:
    """Sizes, unique non-empty names, kinds and port counts of the nodes, and the node attribute columns."""
    n = topo.n_nodes
    if n > MAX_NODES:
        raise TopologyError(f"{n} nodes is more than the limit of {MAX_NODES}")
    if not all(topo.names):
        raise TopologyError("a node has an empty name")
    if len(topo._index) != n:
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
