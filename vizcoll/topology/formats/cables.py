"""Fabrics that a report lists port by port (the ibnetdiscover ports report, iblinkinfo): one builder for both.

A report names each port by its node (a GUID or a LID), port number and node description, and shows each cable
from one end or from both (a capture of part of a fabric shows some cables once). :class:`Report` collects the
nodes and the cables and builds the :class:`Topology`:

- a cable seen from both ends is one link; a port listed twice with two different peers (a capture taken while
  cables moved) keeps the first and says so in ``meta["warnings"]``, naming both lines;
- a report gives an end node's **port** GUIDs, not its node GUID. The ports of one HCA have GUIDs *node GUID +
  port number* (Mellanox ConnectX-3 and older, ibsim), so end-node ports with one description whose
  ``port GUID - port number`` agree are the ports of one node, whose GUID that difference is: a dual-port HCA
  is one end node, as ``ibnetdiscover``'s stanzas show it. Any other end node's GUID is its port's GUID;
- nodes are named by :func:`~vizcoll.topology.names.readable_names` (hosts, descriptions, GUID suffixes); their
  GUIDs (``topo.guid``, port GUIDs in ``topo.port_guids``) find them too;
- lines the reader does not know (progress messages, a tool's warnings) are skipped and counted in
  ``meta["warnings"]``, as :mod:`vizcoll.topology.formats.ibnet` does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field

import numpy as np

from vizcoll.errors import FileFormatError
from vizcoll.topology import model
from vizcoll.topology.formats.ibnet import MAX_PORTS, finished
from vizcoll.topology.model import ENDPOINT, KIND_NAMES, Topology
from vizcoll.topology.names import readable_names
from vizcoll.words import plural

__all__ = ["Report"]


@dataclass
class _Node:
    kind: int
    desc: str
    guid: int
    line: int
    nports: int = 1
    port_guids: dict[int, int] = field(default_factory=dict)


@dataclass
class Report:
    """Nodes and cables as a report lists them; :meth:`topology` builds the fabric."""

    filename: str
    nodes: list[_Node] = field(default_factory=list)
    keys: dict[Hashable, int] = field(default_factory=dict)
    peers: dict[tuple[int, int], tuple[int, int, int]] = field(default_factory=dict)
    cables: list[tuple[int, int, int, int]] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)

    def error(self, message: str, line: int | None) -> FileFormatError:
        return FileFormatError(message, line=line, source=self.filename)

    def number(self, digits: str, what: str, line: int, limit: int = MAX_PORTS) -> int:
        """A port number or LID of the report, at most ``limit``."""
        digits = digits.lstrip("0") or "0"
        if len(digits) > 9 or int(digits) > limit:
            raise self.error(f"{what} {digits} is above the limit of {limit:,}", line)
        return int(digits)

    def node(self, key: Hashable, kind: int, desc: str, guid: int, line: int) -> int:
        """The index of the node ``key`` names, added on its first sighting (a description seen later fills an
        empty one)."""
        u = self.keys.get(key)
        if u is None:
            if len(self.nodes) >= model.MAX_NODES:
                raise self.error(f"more than the limit of {model.MAX_NODES:,} nodes", line)
            u = self.keys[key] = len(self.nodes)
            self.nodes.append(_Node(kind, desc.strip(), guid, line))
        node = self.nodes[u]
        if node.kind != kind:
            raise self.error(
                f"{self.what(u)} is a {KIND_NAMES[kind]} here but a {KIND_NAMES[node.kind]} on line {node.line}", line
            )
        node.desc = node.desc or desc.strip()
        return u

    def what(self, u: int) -> str:
        node = self.nodes[u]
        return repr(node.desc) if node.desc else f"GUID 0x{node.guid:016x}"

    def port(self, u: int, port: int, guid: int | None = None) -> None:
        """Port ``port`` of node ``u`` exists (with its port GUID where the report gives it)."""
        node = self.nodes[u]
        node.nports = max(node.nports, port)
        if guid is not None:
            node.port_guids.setdefault(port, guid)

    def cable(self, u: int, pu: int, v: int, pv: int, line: int) -> None:
        """Port ``pu`` of ``u`` is cabled to port ``pv`` of ``v`` (as seen from ``u``'s end)."""
        if (u, pu) == (v, pv):
            raise self.error(f"port {pu} of {self.what(u)} is linked to itself", line)
        self.port(u, pu)
        self.port(v, pv)
        mine, theirs = self.peers.get((u, pu)), self.peers.get((v, pv))
        if mine is not None and mine[:2] == (v, pv):
            return  # the same cable seen from its other end
        clash = mine or theirs
        if clash is not None:
            self.conflicts.append(
                f"line {line} cables {self.what(u)}[{pu}] to {self.what(v)}[{pv}], but line "
                f"{clash[2]} gave one of these ports another peer: kept line {clash[2]}"
            )
            return
        self.peers[u, pu] = (v, pv, line)
        self.peers[v, pv] = (u, pu, line)
        self.cables.append((u, pu, v, pv))

    # ------------------------------------------------------------ building
    def topology(self, fmt: str, what: str) -> Topology:
        """The fabric (``meta["format"] = fmt``); ``what`` names the lines looked for when none was found."""
        if not self.nodes:
            skipped = f" (line {self.skipped[0][0]}, {self.skipped[0][1][:40]!r}, is not one)" if self.skipped else ""
            raise self.error(f"no {what} found{skipped}", None)
        nodes, into = self._merged()
        links = [(into[u], pu, into[v], pv) for u, pu, v, pv in self.cables]
        kinds = [n.kind for n in nodes]
        guids = [n.guid for n in nodes]
        descs = [n.desc for n in nodes]
        topo = Topology.from_arrays(
            readable_names(kinds, descs, guids),
            kinds,
            [n.nports for n in nodes],
            links,
            meta={"format": fmt},
            validate=False,
        )
        topo.guid = np.array(guids, dtype=np.uint64)
        topo.desc = descs
        topo.port_guids = {(u, p): g for u, n in enumerate(nodes) for p, g in n.port_guids.items()}
        more = f" and {len(self.conflicts) - 3} more" if len(self.conflicts) > 3 else ""
        notes = (
            [f"{plural(len(self.conflicts), 'port')} listed with two peers: {'; '.join(self.conflicts[:3])}{more}"]
            if self.conflicts
            else []
        )
        return finished(topo, self.skipped, notes, self.error)

    def _merged(self) -> tuple[list[_Node], list[int]]:
        """The nodes with the ports of one HCA joined (see the module docstring), and the new index of each node."""
        groups: dict[tuple[str, int], list[int]] = defaultdict(list)
        for u, node in enumerate(self.nodes):
            if node.kind == ENDPOINT and node.desc and len(node.port_guids) == 1:
                ((port, guid),) = node.port_guids.items()
                groups[node.desc, guid - port].append(u)
        joined = {}
        for (_, base), members in groups.items():
            ports = [next(iter(self.nodes[u].port_guids)) for u in members]
            if len(members) > 1 and len(set(ports)) == len(ports):
                joined.update({u: (members[0], base) for u in members})
        nodes, into = [], []
        for u, node in enumerate(self.nodes):
            first, base = joined.get(u, (u, None))
            if first == u:
                into.append(len(nodes))
                nodes.append(
                    _Node(
                        node.kind,
                        node.desc,
                        node.guid if base is None else base,
                        node.line,
                        node.nports,
                        dict(node.port_guids),
                    )
                )
            else:
                into.append(into[first])
                nodes[into[first]].nports = max(nodes[into[first]].nports, node.nports)
                nodes[into[first]].port_guids.update(node.port_guids)
        for node in nodes:
            bases = {g - p for p, g in node.port_guids.items()}
            if node.kind == ENDPOINT and len(node.port_guids) > 1 and len(bases) == 1:
                node.guid = bases.pop()
        return nodes, into
