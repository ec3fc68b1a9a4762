"""iblinkinfo output: the default form (a header per node, a line per port) and ``iblinkinfo -l`` (a line per port).

``iblinkinfo`` (infiniband-diags, ``man iblinkinfo``) "reports link info for each port in an IB fabric, node by
node"; the default form::

    Switch: 0x0008f10500203a64 MF0;sw-2:
               34    1[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>     398    1[  ] "node238 mlx4_0" ( )
               34   20[  ] ==(                Down/ Polling)==>             [  ] "" ( )
    CA: node238 mlx4_0:
          0x0002c903000ee6b1    398    1[  ] ==( 4X 10.0 Gbps Active/  LinkUp)==>      34    1[  ] "MF0;sw-2" ( )

(local LID, local port, ``==( width speed state/ physical state )==>``, peer LID, peer port and description; a CA's
lines start with the port's GUID). ``-l`` puts the node's GUID and description before each line and the peer's
GUID after the arrow. What vizcoll reads:

- a header is a node; a header's description may hold ``:``, ``;``, ``#`` or ``/`` (the last ``:`` ends it);
  ``(FDR10)`` inside the link part and ``( Could be … )`` after it are passed over; a Down port (no peer) counts
  as a port of its node;
- in the default form a peer is found by its LID (each switch has one, each CA port its own); on a fabric whose
  LIDs are all 0 (no subnet manager has run) by its description, which must then name one node. Two CAs may
  share a description: they stay two nodes. In ``-l`` every node is keyed by its GUID (a CA's ports by their
  port GUIDs, joined into one HCA as :mod:`vizcoll.topology.formats.cables` says);
- a node the output shows only as a peer (``--switches-only``, ``--cas-only``, a partial scan): a switch when a CA
  is cabled to it or when it shows two or more ports, else an end node (so a dual-port HCA seen only as a
  peer is two end nodes, one per LID). In ``-l``, where no line says what a node is, a node showing two or more
  ports is a switch, any other an end node;
- cables seen from both ends are one link; parallel cables between two switches stay apart (keyed by port);
  LIDs, widths, speeds and states are not kept.

>>> topo = read('''Switch: 0x0000000000000100 leaf-1:
...            1    1[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>       2    1[  ] "node01 HCA-1" ( )
...            1    2[  ] ==(                Down/ Polling)==>             [  ] "" ( )
... ''', "iblinkinfo.out")
>>> topo.names, topo.kind.tolist(), topo.nports.tolist()
(['leaf-1', 'node01'], [0, 1], [2, 1])
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from vizcoll.topology.formats.cables import Report
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

__all__ = ["read", "rules_out"]

_HEADER = re.compile(r"(Switch|CA|Router):?\s+(?:0x([0-9a-fA-F]{1,16})\b\s*)?(.*?)\s*:")
_PORT = re.compile(
    r"""
    (?:0x(?P<guid>[0-9a-fA-F]{1,16})\s+(?:"(?P<desc>[^"]*)"\s+)?)?   # a CA's port GUID; -l: and the description
    (?P<lid>\d+)\s+(?P<port>\d+)\[[^\]]*\]\s*==\(.*?\)==>\s*
    (?:0x(?P<peer_guid>[0-9a-fA-F]{1,16})\s+)?(?:(?P<peer_lid>\d+)\s+(?P<peer_port>\d+))?\s*\[[^\]]*\]\s*
    "(?P<peer_desc>.*)"(?:\s.*)?""",
    re.X,
)  # then ( ), ( Could be … ), or more a newer version prints
_KINDS = {"Switch": SWITCH, "CA": ENDPOINT, "Router": SWITCH}
WHAT = "node header or port line of iblinkinfo (Switch: 0x… desc: / CA: desc: / … ==( 4X … )==> …)"


def rules_out(lines: list[str]) -> tuple[int, str] | None:
    """None when some line is an iblinkinfo port line; else the first line that is neither a header nor one."""
    if any(_PORT.fullmatch(line.strip()) for line in lines):
        return None
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if text and not text.startswith("#") and not _HEADER.fullmatch(text):
            return number, f"{text[:40]!r} is no iblinkinfo line"
    return 0, "no port line (… ==( 4X … )==> …)"


@dataclass
class _Line:
    number: int
    node: int  # index of its header (-1 in -l)
    port: int
    lid: int
    guid: int | None
    desc: str
    peer: tuple[int, int, int | None, str] | None  # (peer LID, peer port, peer GUID, peer description)


@dataclass
class _Output:
    headers: list[tuple[int, int, str, int]] = field(default_factory=list)  # kind, GUID (0: none), desc, line
    lines: list[_Line] = field(default_factory=list)


def read(text: str, filename: str) -> Topology:
    """The fabric of iblinkinfo output (see the module docstring)."""
    report = Report(filename)
    output = _parse(report, text)
    if any(line.node < 0 for line in output.lines):
        _build_line_mode(report, output)
    else:
        _build_default(report, output)
    return report.topology("iblinkinfo", WHAT)


def _parse(report: Report, text: str) -> _Output:
    output = _Output()
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = _HEADER.fullmatch(line)
        if header:
            kind, guid, desc = header.groups()
            output.headers.append((_KINDS[kind], int(guid or "0", 16), desc, number))
        elif match := _PORT.fullmatch(line):
            output.lines.append(_port_line(report, number, match, len(output.headers) - 1))
        else:
            report.skipped.append((number, line))
    return output


def _port_line(report: Report, number: int, match: re.Match, header: int) -> _Line:
    line_mode = match["desc"] is not None
    if not line_mode and header < 0:
        raise report.error(
            "port line before any Switch:/CA: header (and without the -l form's GUID and description)", number
        )
    peer = None
    if match["peer_port"]:
        peer = (
            report.number(match["peer_lid"], "LID", number, 0xFFFF),
            report.number(match["peer_port"], "port", number),
            int(match["peer_guid"], 16) if match["peer_guid"] else None,
            match["peer_desc"],
        )
    return _Line(
        number,
        -1 if line_mode else header,
        report.number(match["port"], "port", number),
        report.number(match["lid"], "LID", number, 0xFFFF),
        int(match["guid"], 16) if match["guid"] else None,
        (match["desc"] or "").strip(),
        peer,
    )


# ---------------------------------------------------------------- the default form
def _build_default(report: Report, output: _Output) -> None:
    """Header nodes, their ports, then each cable with its peer found by LID (or description)."""
    lids = any(line.lid for line in output.lines)
    found: dict[tuple, set[int]] = defaultdict(set)
    port_guid: dict[int, int] = {}
    for line in output.lines:
        if line.guid:
            port_guid.setdefault(line.node, line.guid)
    header_node = []
    for h, (kind, guid, desc, number) in enumerate(output.headers):  # keyed by GUID: a node printed twice is one
        guid = guid or port_guid.get(h, 0)
        header_node.append(report.node(("guid", guid) if guid else ("header", number), kind, desc, guid, number))
        found["desc", desc.strip()].add(header_node[-1])
    for line in output.lines:
        u = header_node[line.node]
        report.port(u, line.port, line.guid)
        if line.lid:
            found["lid", line.lid].add(u)
    implied = _implied_kinds(output, found, lids)
    for line in output.lines:
        if line.peer is not None:
            v = _peer_node(report, line, found, implied, lids)
            report.cable(header_node[line.node], line.port, v, line.peer[1], line.number)


def _peer_key(peer: tuple, lids: bool) -> tuple:
    return ("lid", peer[0]) if lids else ("desc", peer[3].strip())


def _implied_kinds(output: _Output, found: dict, lids: bool) -> dict[tuple, int]:
    """The kind of every peer no header shows (see the module docstring)."""
    ports, from_ca = defaultdict(set), set()
    for line in output.lines:
        if line.peer is not None and not found.get(_peer_key(line.peer, lids)):
            key = _peer_key(line.peer, lids)
            ports[key].add(line.peer[1])
            if output.headers[line.node][0] == ENDPOINT:
                from_ca.add(key)
    return {key: SWITCH if key in from_ca or len(seen) > 1 else ENDPOINT for key, seen in ports.items()}


def _peer_node(report: Report, line: _Line, found: dict, implied: dict, lids: bool) -> int:
    key = _peer_key(line.peer, lids)
    nodes = found.get(key)
    if nodes and len(nodes) > 1 and lids:
        raise report.error(
            f"LID {line.peer[0]} of the peer {line.peer[3]!r} belongs to {len(nodes)} nodes", line.number
        )
    if nodes and len(nodes) > 1:
        raise report.error(
            f"cannot tell which node the peer {line.peer[3]!r} is: every LID is 0 (no subnet manager "
            f"has run) and {len(nodes)} nodes have that description",
            line.number,
        )
    if nodes:
        return next(iter(nodes))
    return report.node(("peer", *key), implied[key], line.peer[3], 0, line.number)


# ---------------------------------------------------------------- -l
def _build_line_mode(report: Report, output: _Output) -> None:
    """Every node keyed by its GUID, a switch when it shows two or more ports."""
    ports: dict[int, set[int]] = defaultdict(set)
    for line in output.lines:
        if line.guid is None:
            raise report.error("an iblinkinfo -l line starts with the node's GUID", line.number)
        ports[line.guid].add(line.port)
        if line.peer is not None and line.peer[2] is not None:
            ports[line.peer[2]].add(line.peer[1])

    for line in output.lines:
        u = _guid_node(report, ports, line.guid, line.desc, line.port, line.number)
        if line.peer is not None:
            if line.peer[2] is None:
                raise report.error("an iblinkinfo -l line names the peer by its GUID after the arrow", line.number)
            v = _guid_node(report, ports, line.peer[2], line.peer[3], line.peer[1], line.number)
            report.cable(u, line.port, v, line.peer[1], line.number)


def _guid_node(report: Report, ports: dict[int, set[int]], guid: int, desc: str, port: int, number: int) -> int:
    """The node of ``guid`` in -l output (a switch when it shows two or more ports), with ``port`` noted."""
    kind = SWITCH if len(ports[guid]) > 1 else ENDPOINT
    u = report.node(guid, kind, desc, guid, number)
    report.port(u, port, guid if kind == ENDPOINT else None)
    return u
