"""Multicast forwarding tables from multicast trees, and OpenSM's ``opensm.mcfdbs`` dump.

OpenSM programs, for every switch of a group's spanning tree, the ports on
which a packet of the group's MLID leaves: every tree port of the switch
(towards the parent and towards each child), plus port 0 when the switch is
itself a member. Group ``g`` gets MLID ``0xC001 + g`` here.

The text layout follows ``dump_mcast_routes()`` in OpenSM's ``osm_dump.c``
(3.3.x), the function that writes ``opensm.mcfdbs``: switches in GUID order
(OpenSM walks its GUID-keyed switch table), each as a blank line,
``Switch 0x<guid as 16 lower-case hex digits>``, the line ``LID    : Out Port(s)``,
then one line per MLID in ascending order, ``0xC001 :`` followed by
`` 0x001 `` for each port in ascending order (three upper-case hex digits and
a space before and after each port, as OpenSM prints them). Switches without
entries are left out, as OpenSM does.

References: [OPENSM] (``osm_dump.c``; keys: ``docs/papers.md``).

>>> from vizcoll.topology.generators import from_spec
>>> from vizcoll.multicast.routing import route
>>> topo = from_spec("fat-tree:radix=4,levels=2")
>>> result = route(topo, [[topo.index("h0"), topo.index("h1")]], "minhop")
>>> dump_mcfdbs(topo, result).splitlines()
['', 'Switch 0x0002c90000000100', 'LID    : Out Port(s)', '0xC001 : 0x001  0x002 ']
"""

from __future__ import annotations

import re

import numpy as np

from vizcoll.errors import FileFormatError, VizcollError
from vizcoll.multicast.routing import MulticastResult
from vizcoll.topology.io import _export_guids
from vizcoll.topology.model import SWITCH, Topology

__all__ = ["MLID_BASE", "MLID_MAX", "mlid", "node_guids", "forwarding_tables", "dump_mcfdbs", "parse_mcfdbs"]

MLID_BASE = 0xC001
"""MLID of group 0."""
MLID_MAX = 0xFFFE
"""Largest multicast LID (0xFFFF is the permissive LID)."""

_SWITCH_LINE = re.compile(r"Switch 0x([0-9a-fA-F]{16})")
_MLID_LINE = re.compile(r"0x([0-9A-Fa-f]{4})\s*:((?:\s+0x[0-9A-Fa-f]{1,4})*)\s*")


def mlid(group: int) -> int:
    """MLID of group ``group`` (``0xC001 + group``); raises when it is beyond 0xFFFE."""
    value = MLID_BASE + int(group)
    if not MLID_BASE <= value <= MLID_MAX:
        raise VizcollError(f"group {group} has no multicast LID: at most {MLID_MAX - MLID_BASE + 1} groups fit")
    return value


def node_guids(topo: Topology) -> list[int]:
    """Every node's GUID as the dump names it: the topology's, or the one the ibnetdiscover writer invents."""
    return _export_guids(topo, "mcfdbs")


def _rows_of_ids(topo: Topology, ids: np.ndarray) -> np.ndarray:
    order = np.argsort(topo.link_id)
    at = np.searchsorted(topo.link_id[order], ids)
    if np.any(at >= len(order)) or np.any(topo.link_id[order][np.minimum(at, len(order) - 1)] != ids):
        raise VizcollError("a multicast tree uses a link the topology does not have")
    return order[at]


def _port_at(topo: Topology, node: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Port number of each link row at its end ``node``."""
    return np.where(topo.link_a[rows] == node, topo.link_pa[rows], topo.link_pb[rows]).astype(np.int64)


def forwarding_tables(topo: Topology, result: MulticastResult) -> dict[int, dict[int, list[int]]]:
    """The multicast forwarding tables OpenSM would program for the trees of ``result``.

    The ports of a switch for a group are its tree ports (to the parent and to
    every child) and port 0 if the switch is a member. Group ``g`` has MLID ``0xC001 + g``.

    Parameters
    ----------
    topo : Topology
        The fabric the result was routed on.
    result : MulticastResult
        The routing.

    Returns
    -------
    dict
        ``{switch node: {MLID: ascending out ports}}`` for every switch in some group's tree.

    Raises
    ------
    VizcollError
        When a group has no MLID (beyond 0xFFFE) or a tree uses a link the topology does not have.

    References
    ----------
    [OPENSM] OpenSM, the InfiniBand subnet manager (https://github.com/linux-rdma/opensm,
    ``doc/current-routing.txt``; software, no DOI). The multicast forwarding tables it programs.

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> from vizcoll.multicast.routing import route
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> result = route(topo, [[topo.index("h0"), topo.index("h2")]], "minhop")
    >>> {topo.names[sw]: ports for sw, ports in forwarding_tables(topo, result).items()}
    {'leaf0': {49153: [1, 3]}, 'leaf1': {49153: [1, 3]}, 'spine0': {49153: [1, 2]}}
    """
    tables: dict[int, dict[int, set[int]]] = {}
    for tree in result.trees:
        if tree is None:
            continue
        group_lid = mlid(tree.group)
        child = tree.parent >= 0
        rows = _rows_of_ids(topo, tree.parent_link[child])
        ends = [(tree.nodes[child], rows), (tree.parent[child], rows)]
        pairs = [(node, _port_at(topo, node, r)) for node, r in ends]
        members = tree.members[topo.kind[tree.members] == SWITCH]
        pairs.append((members, np.zeros(len(members), dtype=np.int64)))
        if len(tree.nodes) == 1:
            pairs.append((tree.nodes, np.zeros(1, dtype=np.int64)))
        for nodes, ports in pairs:
            for node, port in zip(nodes.tolist(), ports.tolist(), strict=True):
                if topo.kind[node] == SWITCH:
                    tables.setdefault(node, {}).setdefault(group_lid, set()).add(port)
    return {sw: {lid: sorted(ports) for lid, ports in sorted(by_lid.items())} for sw, by_lid in sorted(tables.items())}


def dump_mcfdbs(topo: Topology, result: MulticastResult) -> str:
    """The forwarding tables in OpenSM's ``opensm.mcfdbs`` layout (see the module docstring).

    The layout is ``dump_mcast_routes()``'s in OpenSM's ``osm_dump.c``: switches in GUID order, each as a blank
    line, ``Switch 0x<guid>``, ``LID    : Out Port(s)`` and one line per MLID. GUIDs are the topology's; a node
    without one gets the same invented GUID the ibnetdiscover/ibsim writers of :mod:`vizcoll.topology.io` give it.

    Parameters
    ----------
    topo : Topology
        The fabric the result was routed on.
    result : MulticastResult
        The routing.

    Returns
    -------
    str
        The dump's text (:func:`parse_mcfdbs` reads it back).

    Raises
    ------
    VizcollError
        As :func:`forwarding_tables`.

    References
    ----------
    [OPENSM] OpenSM, the InfiniBand subnet manager (https://github.com/linux-rdma/opensm,
    ``doc/current-routing.txt``; software, no DOI). ``dump_mcast_routes()`` in ``osm_dump.c`` (3.3.x).

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> from vizcoll.multicast.routing import route
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> result = route(topo, [[topo.index("h0"), topo.index("h1")]], "minhop")
    >>> dump_mcfdbs(topo, result).splitlines()
    ['', 'Switch 0x0002c90000000100', 'LID    : Out Port(s)', '0xC001 : 0x001  0x002 ']
    """
    guids = node_guids(topo)
    out = []
    tables = forwarding_tables(topo, result)
    for switch in sorted(tables, key=lambda sw: guids[sw]):
        out.append(f"\nSwitch 0x{guids[switch]:016x}\nLID    : Out Port(s)\n")
        for group_lid, ports in tables[switch].items():
            out.append(f"0x{group_lid:04X} :" + "".join(f" 0x{port:03X} " for port in ports) + "\n")
    return "".join(out)


def parse_mcfdbs(text: str) -> dict[int, dict[int, list[int]]]:
    """Read an ``opensm.mcfdbs`` dump back: ``{switch GUID: {MLID: ports}}``.

    Blank lines, ``#`` comments and the blanks around ports are not significant (OpenSM prints one blank
    before and after each port; a file whose trailing blanks were stripped reads the same).

    Parameters
    ----------
    text : str
        The dump's text.

    Returns
    -------
    dict
        ``{switch GUID: {MLID: ports}}``, in the dump's order.

    Raises
    ------
    FileFormatError
        Naming the first line it does not understand.

    Examples
    --------
    >>> tables = parse_mcfdbs("Switch 0x0002c90000000100\\nLID    : Out Port(s)\\n0xC001 : 0x001  0x002\\n")
    >>> {hex(guid): {hex(lid): ports for lid, ports in by_lid.items()} for guid, by_lid in tables.items()}
    {'0x2c90000000100': {'0xc001': [1, 2]}}
    """
    tables: dict[int, dict[int, list[int]]] = {}
    current: dict[int, list[int]] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("LID    : Out Port(s)") or line.lstrip().startswith("#"):
            continue
        switch = _SWITCH_LINE.fullmatch(line.strip())
        entry = _MLID_LINE.fullmatch(line)
        if switch:
            current = tables.setdefault(int(switch.group(1), 16), {})
        elif entry and current is not None:
            current[int(entry.group(1), 16)] = [int(p, 16) for p in entry.group(2).split()]
        else:
            raise FileFormatError(f"cannot read {line[:60]!r}", line=number, source="mcfdbs")
    return tables
