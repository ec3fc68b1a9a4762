"""Topologies given as a list of nodes and a list of links: hand-written JSON, networkx's node-link data, and
(through :mod:`vizcoll.topology.formats.graphml`) any GraphML file that is not vizcoll's own.

The lossless ``vizcoll.topology/1`` form (:meth:`Topology.to_dict`) is
column-wise and carries link ids; nobody writes it by hand. This reader takes
the node-link shape instead::

    {"nodes": [{"name": "spine", "kind": "switch"},
               {"name": "leaf", "kind": "switch", "ports": 36},
               "alpha", "beta"],
     "links": [{"a": "spine", "b": "leaf", "pa": 1, "pb": 36},
               ["leaf", "alpha"],
               {"a": "leaf", "b": "beta", "broken": true}]}

- a node is a name, or an object with ``name`` (or ``id``, as networkx's
  ``node_link_data`` writes it), optional ``kind`` (``switch``, or
  ``endpoint`` / ``hca`` / ``host`` for an end node) and optional ``ports``;
- a node without ``kind`` is an end node when it has exactly one link, a
  switch otherwise (our choice for JSON: hosts hang off one cable, switches
  have many); GraphML files make it a switch (``default_kind="switch"``:
  Internet Topology Zoo and yEd graphs are routers);
- a link is ``[a, b]`` or an object with ``a`` / ``b`` (or ``source`` /
  ``target``), optional ports ``pa`` / ``pb`` and ``broken``; ``edges`` is
  accepted for ``links``;
- a link without ports gets the lowest ports still free on each end, in the
  file's order; a node's port count is its ``ports`` or its highest port used
  (one for a node without links);
  parallel links are kept, and a link from a node to itself is a loopback
  cable between two of its ports.

Errors name the node or link (by position) that is wrong.
"""

from __future__ import annotations

import numpy as np

from vizcoll.errors import TopologyError
from vizcoll.topology.model import ENDPOINT, MAX_LINKS, MAX_NODES, SWITCH, Topology

__all__ = ["from_node_link", "is_node_link"]

KINDS = {
    "switch": SWITCH,
    "endpoint": ENDPOINT,
    "end node": ENDPOINT,
    "hca": ENDPOINT,
    "ca": ENDPOINT,
    "host": ENDPOINT,
}
MAX_PORT = 65_535


def is_node_link(data: object) -> bool:
    """True for a dict shaped like a hand-written topology (a ``nodes`` list)."""
    return isinstance(data, dict) and isinstance(data.get("nodes"), list)


def from_node_link(data: dict, default_kind: str = "degree", source: str = "node-link JSON") -> Topology:
    """The topology a node-link dict describes (see the module docstring).

    ``default_kind``: the kind of a node that gives none, ``"degree"`` (one link: an end node) or ``"switch"``.

    Examples
    --------
    >>> topo = from_node_link({"nodes": ["s", "h1", "h2"], "links": [["s", "h1"], ["s", "h2"]]})
    >>> topo.names, topo.kind.tolist(), topo.link_label(1)
    (['s', 'h1', 'h2'], [0, 1, 1], 's[2]-h2[1]')
    """
    nodes = [_node(i, entry) for i, entry in enumerate(_list(data, "nodes", MAX_NODES))]
    index = {}
    for i, (name, _, _) in enumerate(nodes):
        if name in index:
            raise TopologyError(f"node {i}: the name {name!r} is used twice")
        index[name] = i
    links_key = "links" if "links" in data else "edges"
    links = [_link(i, entry, index) for i, entry in enumerate(_list(data, links_key, MAX_LINKS))]
    ends = _assign_ports(links, [name for name, _, _ in nodes])
    degree = np.bincount(np.r_[ends[:, 0], ends[:, 2]].astype(np.int64), minlength=len(nodes))
    by_degree = default_kind == "degree"
    kind = [
        k if k is not None else (ENDPOINT if by_degree and degree[i] == 1 else SWITCH)
        for i, (_, k, _) in enumerate(nodes)
    ]
    highest = np.zeros(len(nodes), dtype=np.int64)
    np.maximum.at(highest, ends[:, 0], ends[:, 1])
    np.maximum.at(highest, ends[:, 2], ends[:, 3])
    nports = [max(ports or 0, int(top), 1) for (_, _, ports), top in zip(nodes, highest.tolist(), strict=True)]
    topo = Topology.from_arrays([n for n, _, _ in nodes], kind, nports, ends, meta={"source": source})
    topo.broken[:] = [broken for *_, broken in links]
    return topo


def _list(data: dict, key: str, limit: int) -> list:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise TopologyError(f"the field {key!r} must be a list")
    if len(value) > limit:
        raise TopologyError(f"{len(value):,} {key} is more than the limit of {limit:,}")
    return value


def _node(i: int, entry) -> tuple[str, int | None, int | None]:
    """(name, kind or None, ports or None) of node entry ``i``."""
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict):
        raise TopologyError(f"node {i} must be a name or an object with a 'name'")
    name = entry.get("name", entry.get("id"))
    if not isinstance(name, str | int) or isinstance(name, bool) or not str(name).strip():
        raise TopologyError(f"node {i} needs a non-empty 'name'")
    kind = entry.get("kind")
    if kind is not None and (not isinstance(kind, str) or kind.lower() not in KINDS):
        raise TopologyError(f"node {name!r}: unknown kind {kind!r}; use switch or endpoint")
    ports = entry.get("ports")
    if ports is not None:
        ports = _port(ports, f"node {name!r}: 'ports'")
    return str(name).strip(), None if kind is None else KINDS[kind.lower()], ports


def _link(i: int, entry, index: dict[str, int]) -> tuple[int, int | None, int, int | None, bool]:
    """(a, pa, b, pb, broken) of link entry ``i`` (node indices; ports None when not given)."""
    if isinstance(entry, list) and len(entry) == 2:
        entry = {"a": entry[0], "b": entry[1]}
    if not isinstance(entry, dict):
        raise TopologyError(f"link {i} must be [a, b] or an object with 'a' and 'b'")
    ends = []
    for key, alias in (("a", "source"), ("b", "target")):
        name = entry.get(key, entry.get(alias))
        if not isinstance(name, str | int) or isinstance(name, bool) or str(name).strip() not in index:
            raise TopologyError(f"link {i}: {key!r} names no node ({name!r})")
        ends.append(index[str(name).strip()])
    pa, pb = (None if entry.get(k) is None else _port(entry[k], f"link {i}: {k!r}") for k in ("pa", "pb"))
    if ends[0] == ends[1] and pa is not None and pa == pb:
        raise TopologyError(f"link {i} joins port {pa} to itself")
    broken = entry.get("broken", False)
    if not isinstance(broken, bool):
        raise TopologyError(f"link {i}: 'broken' must be true or false")
    return ends[0], pa, ends[1], pb, broken


def _port(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PORT:
        raise TopologyError(f"{where} must be a whole number from 1 to {MAX_PORT}, got {value!r}")
    return value


def _assign_ports(links: list[tuple], names: list[str]) -> np.ndarray:
    """The ``(m, 4)`` rows ``a, pa, b, pb``: given ports kept, missing ones the lowest free, in file order."""
    n_nodes = len(names)
    used: list[set[int]] = [set() for _ in range(n_nodes)]
    for a, pa, b, pb, _ in links:
        for node, port in ((a, pa), (b, pb)):
            if port is not None:
                if port in used[node]:
                    raise TopologyError(f"port {port} of node {names[node]!r} is used by two links")
                used[node].add(port)
    nxt = [1] * n_nodes
    rows = []
    for a, pa, b, pb, _ in links:
        row = []
        for node, port in ((a, pa), (b, pb)):
            if port is None:
                while nxt[node] in used[node]:
                    nxt[node] += 1
                port = nxt[node]
                used[node].add(port)
            row += [node, port]
        rows.append(row)
    return np.asarray(rows, dtype=np.int64).reshape(-1, 4)
