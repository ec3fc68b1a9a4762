"""ibnetdiscover output and ibsim net files: one tolerant reader, two writers.

The text ``ibnetdiscover`` prints and the ibsim net file share a grammar (as
ibsim's ``sim_net.c`` reads it); one reader handles both. Stanzas keep the
file's order; ``switchguid=``/``caguid=``/``rtguid=`` give the node GUID of
the next stanza of that kind (a node without one gets GUID 0, where ibsim
would count on from its own base), ``switchguid=0x..(guid)`` (the port GUID
with or without ``0x``) the switch port-0 GUID, ``(guid)`` after a CA port
number that port's GUID, and ``# "text"`` after the stanza line the node
description. A node is named by :func:`~vizcoll.topology.names.readable_names`:
the quoted id where it is the file's own name (ibsim's ``"Switch1"``), the
host or description where it is ibnetdiscover's GUID-derived ``"H-…"``/``"S-…"``
(which, like the GUID, still finds the node). A port line without
``[peer port]`` means peer port 1 (as in ibsim); comments and ibsim options
(``w=``, ``s=``) after the peer are ignored. Every link must be listed by both
ends, consistently. Router (``Rt``) nodes forward packets between subnets and
are read as switches (``meta["warnings"]`` names them); ibsim port aliases
(``@``) and ``include``/``do``/``module`` lines are refused with a clear error.

As the real tools do, a line the reader does not know (a stray error message
that ibnetdiscover printed into the file, say) is skipped: the topology's
``meta["warnings"]`` counts and quotes them. A **loopback** cable (two ports of
one switch cabled together, ``[1] "s"[2]`` and ``[2] "s"[1]``) is kept as a
link whose two ends are the same node: it is drawn and listed, and no route
uses it (it leads nowhere); ``meta["warnings"]`` names them.

The writers drop what the text cannot express (see :mod:`vizcoll.topology.io`);
a node without a GUID gets ``GUID_BASE + 256 * (index + 1)``; a node whose
name the format cannot hold (ibsim: ``#``, ``@`` or a quote; ibnetdiscover: a
quote) is written under its GUID-derived id, with its name as the description
where it has none.

>>> topo = read('Switch 8 "s"\\n[1] "h"[1]\\n\\nHca 1 "h"\\n[1] "s"[1]\\n', "tiny.net", "ibsim")
>>> topo.names, topo.n_links
(['s', 'h'], 1)
>>> print(write(topo, "ibsim"))  # doctest: +NORMALIZE_WHITESPACE
# ibsim net file: written by vizcoll
# 2 nodes, 1 link (broken links are written as present)
<BLANKLINE>
switchguid=0x0002c90000000100
Switch 8 "s"
[1] "h"[1]
<BLANKLINE>
caguid=0x0002c90000000200
Hca 1 "h"
[1] "s"[1]
<BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from vizcoll.errors import FileFormatError, TopologyError
from vizcoll.topology import model
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology
from vizcoll.topology.names import guid_id, readable_names
from vizcoll.words import plural

__all__ = ["GUID_BASE", "MAX_PORTS", "read", "write"]

MAX_PORTS = 65_535
GUID_BASE = 0x0002C90000000000

_HEADER = re.compile(r'(Switch|Hca|Ca|Rt)\s+([0-9]+)\s+"([^"]*)"\s*(.*)')
_KEYWORD = re.compile(r"(Switch|Hca|Ca|Rt)\b")
_ASSIGN = re.compile(r"([A-Za-z_]\w*)\s*=\s*(.*)")
_GUID_VALUE = re.compile(r"(0x[0-9a-fA-F]+|[0-9]+)(?:\((?:0[xX])?([0-9a-fA-F]+)\))?\s*(?:#.*)?")
_PORT = re.compile(
    r"""
    \[(?P<port>[0-9]+)\](?:\[ext\ [0-9]+\])?    # local port, optional external port number
    (?:\((?P<guid>[0-9a-fA-F]+)\))?\s*          # CA port GUID (ibnetdiscover)
    "(?P<peer>[^"]*)"                           # peer node id
    (?:\[(?P<peer_port>[0-9]+)\])?(?:\[ext\ [0-9]+\])?  # peer port (ibsim: 1 when left out)
    \s*(?:\((?P<peer_guid>[0-9a-fA-F]+)\))?     # peer CA port GUID (ibnetdiscover)
    \s*(?P<rest>.*)""",
    re.X,
)
_SMA = re.compile(r"(?:(?:enhanced|base)\s+port\s+\d+\s*)?(?:lid\s+\d+\s*)?(?:lmc\s+\d+\s*)?")
_IGNORED = ("Chassis ", "Non-Chassis Nodes", "Hostname:")  # ibnetdiscover -g grouping lines
_GUID_KEYS = {"switchguid": SWITCH, "caguid": ENDPOINT, "hcaguids": ENDPOINT, "rtguid": SWITCH}
_KINDS = {"Switch": SWITCH, "Hca": ENDPOINT, "Ca": ENDPOINT, "Rt": SWITCH}


# ====================================================================== reading
def read(text: str, filename: str, fmt: str) -> Topology:
    """The topology of ibnetdiscover / ibsim text; ``fmt`` is recorded in ``meta["format"]``."""
    reader = _NetReader(filename)
    for number, line in enumerate(text.split("\n"), 1):
        reader.feed(number, line)
    return _topology(reader, fmt)


@dataclass
class _Stanza:
    name: str
    kind: int
    nports: int
    line: int
    guid: int | None = None
    desc: str | None = None


@dataclass
class _NetReader:
    """Line-by-line reader of ibnetdiscover / ibsim text: nodes, port entries and GUIDs as the file gives them.

    :func:`_links` then checks that both ends list every link and :func:`_topology` builds the fabric.
    """

    filename: str
    nodes: list[_Stanza] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    entries: dict[tuple[int, int], tuple[str, int, int]] = field(default_factory=dict)
    port_guids: dict[tuple[int, int], int] = field(default_factory=dict)
    pending: dict[int, tuple[int, int | None]] = field(default_factory=dict)
    guid_owner: dict[int, str] = field(default_factory=dict)
    current: int | None = None
    skipped: list[tuple[int, str]] = field(default_factory=list)
    routers: list[str] = field(default_factory=list)

    # ------------------------------------------------------------ values
    def error(self, message: str, line: int | None) -> FileFormatError:
        return FileFormatError(message, line=line, source=self.filename)

    def number(self, digits: str, what: str, line: int, limit: int) -> int:
        digits = digits.lstrip("0") or "0"
        if len(digits) > 9 or int(digits) > limit:
            raise self.error(f"{what} {digits} is above the limit of {limit:,}", line)
        return int(digits)

    def guid(self, text: str, line: int, base: int = 16) -> int:
        """A GUID: hex (``0x`` prefix optional) or, with ``base=10`` and no prefix, decimal."""
        if text[:2] in ("0x", "0X"):
            text, base = text[2:], 16
        value = int(text, base) if len(text) <= 20 else 1 << 64
        if value >= 1 << 64:
            raise self.error(f"GUID {text[:24]} does not fit in 64 bits", line)
        return value

    # ------------------------------------------------------------ lines
    def feed(self, line: int, text: str) -> None:
        """Read one line of the file (numbered from 1)."""
        text = text.strip()
        if text.startswith("#"):
            return
        if text.startswith("["):
            self.port_line(line, text)
            return
        self.current = None
        if not text or text.startswith(_IGNORED):
            return
        if text.startswith("@"):
            raise self.error("ibsim port aliases ('@') are not supported", line)
        if text.split()[0] in ("include", "do", "module"):
            raise self.error(f"ibsim {text.split()[0]!r} lines are not supported", line)
        if _KEYWORD.match(text):
            self.header(line, text)
        elif match := _ASSIGN.fullmatch(text):
            self.assignment(line, match.group(1), match.group(2))
        else:
            self.skipped.append((line, text))  # as ibsim does: a line it does not know is passed over

    def assignment(self, line: int, key: str, value: str) -> None:
        """``key=value``: a GUID for the next stanza of its kind; other keys are skipped."""
        if key == "module":
            raise self.error("ibsim 'module' prefixes are not supported", line)
        kind = _GUID_KEYS.get(key)
        if kind is None:
            return  # vendid, devid, sysimgguid, width, speed, ...: nothing vizcoll keeps
        match = _GUID_VALUE.fullmatch(value)
        if not match:
            raise self.error(f"bad GUID {value[:40]!r} in {key}", line)
        port0 = self.guid(match.group(2), line) if match.group(2) else None
        self.pending[kind] = (self.guid(match.group(1), line, base=10), port0)

    def header(self, line: int, text: str) -> None:
        """``Switch 36 "name" # "description"``: a new stanza, which the port lines below fill."""
        match = _HEADER.fullmatch(text)
        if not match:
            raise self.error(f'malformed node line {text[:40]!r} (expected e.g. Switch 36 "name")', line)
        keyword, digits, name, rest = match.groups()
        if keyword == "Rt":
            self.routers.append(name)
        nports = self.number(digits, "port count", line, MAX_PORTS)
        self.check_node(line, name, nports)
        node = _Stanza(name, _KINDS[keyword], nports, line, desc=self.description(line, rest))
        self.index[name] = self.current = len(self.nodes)
        self.nodes.append(node)
        self.take_guid(node, line)

    def check_node(self, line: int, name: str, nports: int) -> None:
        if nports < 1:
            raise self.error(f"node {name!r} has no ports", line)
        if not name:
            raise self.error("empty node name", line)
        if name in self.index:
            raise self.error(f"duplicate node name {name!r} (first on line {self.nodes[self.index[name]].line})", line)
        if len(self.nodes) >= model.MAX_NODES:
            raise self.error(f"more than the limit of {model.MAX_NODES:,} nodes", line)

    def take_guid(self, node: _Stanza, line: int) -> None:
        """Give the new (current) node the GUID a ``switchguid=``/``caguid=`` line left for its kind."""
        if node.kind not in self.pending:
            return
        node.guid, port0 = self.pending.pop(node.kind)
        if node.guid and node.guid in self.guid_owner:
            raise self.error(
                f"duplicate GUID 0x{node.guid:016x}: {node.name!r} and {self.guid_owner[node.guid]!r}", line
            )
        self.guid_owner[node.guid] = node.name
        if port0 is not None and node.kind == SWITCH:
            self.port_guids[self.current, 0] = port0

    def description(self, line: int, rest: str) -> str | None:
        """The node description of ``# "text"`` (or ibnetdiscover's unquoted form) after the node name."""
        if not rest or _SMA.fullmatch(rest):
            return None
        if not rest.startswith("#"):
            raise self.error(f"unexpected text {rest[:40]!r} after the node name", line)
        text = rest[1:].lstrip()
        if text.startswith('"'):
            end = text.find('"', 1)
            return text[1:] if end < 0 else text[1:end]
        cuts = [text.find(m) for m in (" enhanced port ", " base port ", " lid ", " lmc ")]
        return text[: min([c for c in cuts if c >= 0], default=len(text))]

    def port_line(self, line: int, text: str) -> None:
        """``[port](guid) "peer"[peer port]``: one end of a link of the current stanza."""
        match = self.port_match(line, text)
        port = self.number(match["port"], "port", line, MAX_PORTS)
        self.check_port(line, port)
        peer_port = self.number(match["peer_port"], "port", line, MAX_PORTS) if match["peer_port"] else 1
        self.entries[self.current, port] = (match["peer"], peer_port, line)
        if match["guid"]:
            self.port_guids[self.current, port] = self.guid(match["guid"], line)

    def port_match(self, line: int, text: str) -> re.Match:
        if self.current is None:
            raise self.error("port line outside a Switch/Ca/Hca stanza", line)
        match = _PORT.fullmatch(text)
        if not match:
            raise self.error(f'malformed port line {text[:40]!r} (expected e.g. [1] "peer"[2])', line)
        rest = match["rest"]
        if rest and not rest.startswith("#") and not re.match(r"[A-Za-z]\w*=", rest):
            raise self.error(f"unexpected text {rest[:40]!r} after the peer", line)
        return match

    def check_port(self, line: int, port: int) -> None:
        node = self.nodes[self.current]
        if not 1 <= port <= node.nports:
            raise self.error(f"port {port} of {node.name!r} is outside 1..{node.nports}", line)
        if (self.current, port) in self.entries:
            first = self.entries[self.current, port][2]
            raise self.error(f"port {port} of {node.name!r} is used twice (first on line {first})", line)


def _links(reader: _NetReader) -> list[tuple[int, int, int, int]]:
    """Both-sides-checked links in file order."""
    links, done = [], set()
    for (u, p), (peer, pp, line) in reader.entries.items():
        v = _link_peer(reader, u, p, peer, pp, line)
        if (u, p) not in done:
            links.append((u, p, v, pp))
            done.update({(u, p), (v, pp)})
    return links


def _link_peer(reader: _NetReader, u: int, p: int, peer: str, pp: int, line: int) -> int:
    """The node index of ``peer``, once it is known to list port ``pp`` back to ``u``'s port ``p``."""
    name = reader.nodes[u].name
    v = reader.index.get(peer)
    if v is None:
        raise reader.error(f"dangling peer {peer!r}: no stanza has that name (truncated file?)", line)
    if v == u and pp == p:
        raise reader.error(f"port {p} of {name!r} is linked to itself", line)
    if not 1 <= pp <= reader.nodes[v].nports:
        raise reader.error(f"peer port {pp} of {peer!r} is outside 1..{reader.nodes[v].nports}", line)
    back = reader.entries.get((v, pp))
    if back is None:
        raise reader.error(
            f"{name!r}[{p}] links to {peer!r}[{pp}], but {peer!r} does not list that "
            "port (missing line; truncated file?)",
            line,
        )
    if back[:2] != (name, p):
        raise reader.error(
            f"the two sides disagree: {name!r}[{p}] links to {peer!r}[{pp}], but line {back[2]} "
            f"links {peer!r}[{pp}] to {back[0]!r}[{back[1]}]",
            line,
        )
    return v


def _topology(reader: _NetReader, fmt: str) -> Topology:
    """The fabric of everything the reader collected, validated."""
    nodes = reader.nodes
    if not nodes:
        skipped = (
            f" (line {reader.skipped[0][0]}, {reader.skipped[0][1][:40]!r}, is no node line)" if reader.skipped else ""
        )
        raise reader.error(f"no Switch, Ca or Hca node found{skipped}", None)
    kinds = [n.kind for n in nodes]
    guids = [n.guid or 0 for n in nodes]
    descs = [n.desc or "" for n in nodes]
    names = readable_names(kinds, descs, guids, [n.name for n in nodes])
    topo = Topology.from_arrays(
        names, kinds, [n.nports for n in nodes], _links(reader), meta={"format": fmt}, validate=False
    )
    if any(n.guid is not None for n in nodes):
        topo.guid = np.array(guids, dtype=np.uint64)
    if any(n.desc is not None for n in nodes):
        topo.desc = descs
    topo.port_guids = dict(reader.port_guids)
    notes = (
        [
            f"{plural(len(reader.routers), 'router')} read as switches: {', '.join(reader.routers[:5])}"
            + (" ..." if len(reader.routers) > 5 else "")
        ]
        if reader.routers
        else []
    )
    return finished(topo, reader.skipped, notes, reader.error)


def finished(
    topo: Topology,
    skipped: list[tuple[int, str]],
    notes: list[str],
    error: Callable[[str, int | None], FileFormatError],
) -> Topology:
    """``topo`` validated (a problem raised as ``error(message, None)``), with ``meta["warnings"]`` saying what
    the reader passed over (lines it does not know), ``notes``, and what it kept although it is odd (loopback
    cables)."""
    out = []
    if skipped:
        first = ", ".join(f"line {n}: {text[:50]!r}" for n, text in skipped[:3])
        more = f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
        out.append(f"skipped {plural(len(skipped), 'line')} it does not know ({first}{more})")
    out += notes
    loops = np.flatnonzero(topo.link_a == topo.link_b).tolist()
    if loops:
        named = ", ".join(topo.link_label(r) for r in loops[:5]) + (" ..." if len(loops) > 5 else "")
        out.append(
            f"{plural(len(loops), 'loopback cable')} between two ports of one switch kept (no route uses them): {named}"
        )
    if out:
        topo.meta["warnings"] = out
    try:
        topo.validate()
    except TopologyError as exc:
        raise error(str(exc), None) from None
    return topo


# ====================================================================== writing
def export_guids(topo: Topology, fmt: str) -> list[int]:
    """The node GUIDs the writers use: the topology's own, or an invented one where it has none (0)."""
    given = [0] * topo.n_nodes if topo.guid is None else topo.guid.tolist()
    guids = [g or GUID_BASE + 256 * (i + 1) for i, g in enumerate(given)]
    if len(set(guids)) != len(guids):
        raise FileFormatError("two nodes would have the same GUID", source=f"{fmt} export")
    return guids


def _ids_and_descs(topo: Topology, fmt: str, guids: list[int]) -> tuple[list[str], list[str] | None]:
    """The quoted id of every node (its name, or its GUID-derived id where the format cannot hold the name) and
    the descriptions to write (the name where a node written under its GUID has none)."""
    bad_name = set('"\n\r#@' if fmt == "ibsim" else '"\n\r')
    ids = [
        name if not bad_name & set(name) else guid_id(int(topo.kind[u]), guids[u]) for u, name in enumerate(topo.names)
    ]
    descs = None if topo.desc is None else list(topo.desc)
    for u, name in enumerate(topo.names):
        if ids[u] != name and not (descs and descs[u]):
            descs = descs or [""] * topo.n_nodes
            descs[u] = name
    for desc in descs or ():
        if set('"\n\r') & set(desc):
            raise FileFormatError(
                f"{desc!r} cannot be written: it holds a quote or a line break", source=f"{fmt} export"
            )
    return ids, descs


def write(topo: Topology, fmt: str) -> str:
    """The text of ``topo`` as ``fmt`` (``"ibnetdiscover"`` or ``"ibsim"``)."""
    guids = export_guids(topo, fmt)
    ids, descs = _ids_and_descs(topo, fmt, guids)
    view = topo.ports(include_broken=True)
    title = "Topology file" if fmt == "ibnetdiscover" else "ibsim net file"
    generator = " ".join(str(topo.meta.get("generator", "")).split())
    out = [
        f"# {title}: written by vizcoll" + (f" from {generator}" if generator else ""),
        f"# {plural(topo.n_nodes, 'node')}, {plural(topo.n_links, 'link')} (broken links are written as present)",
        "",
    ]
    for u in range(topo.n_nodes):
        out += _stanza(topo, u, guids, ids, descs, fmt)
        for k in range(view.indptr[u], view.indptr[u + 1]):
            ends = (u, int(view.port[k]), int(view.peer[k]), int(view.peer_port[k]))
            out.append(_port_line(topo, ends, guids, ids, descs, fmt))
        out.append("")
    return "\n".join(out)


def _stanza(topo: Topology, u: int, guids: list[int], ids: list[str], descs: list[str] | None, fmt: str) -> list[str]:
    """The GUID lines and the node line of node ``u``."""
    switch, guid, name = topo.kind[u] == SWITCH, guids[u], ids[u]
    nports = max(1, int(topo.nports[u]))
    desc = f'\t\t# "{descs[u]}"' if descs is not None else ""
    if fmt == "ibsim":
        keyword = "Switch" if switch else "Hca"
        return [f"{'switch' if switch else 'ca'}guid=0x{guid:016x}", f'{keyword}\t{nports} "{name}"{desc}']
    lines = ["vendid=0x0", "devid=0x0", f"sysimgguid=0x{guid:x}"]
    if not switch:
        return lines + [f"caguid=0x{guid:x}", f'Ca\t{nports} "{name}"{desc}']
    sma = " enhanced port 0 lid 0 lmc 0" if desc else ""
    port0 = topo.port_guids.get((u, 0), guid)
    return lines + [f"switchguid=0x{guid:x}({port0:x})", f'Switch\t{nports} "{name}"{desc}{sma}']


def _port_guid(topo: Topology, u: int, port: int, guids: list[int]) -> int:
    return topo.port_guids.get((u, port), guids[u] + port)


def _port_line(
    topo: Topology, ends: tuple[int, int, int, int], guids: list[int], ids: list[str], descs: list[str] | None, fmt: str
) -> str:
    """``[port] "peer"[peer_port]``, with ibnetdiscover's GUIDs and comment in that format."""
    u, port, v, peer_port = ends
    peer = f'"{ids[v]}"[{peer_port}]'
    if fmt == "ibsim":
        return f"[{port}]\t{peer}"
    peer_desc = descs[v] if descs is not None else ""
    if topo.kind[v] != SWITCH:
        peer += f"({_port_guid(topo, v, peer_port, guids):x}) "
    if topo.kind[u] == SWITCH:
        return f'[{port}]\t{peer}\t\t# "{peer_desc}" lid 0 4xQDR'
    return f'[{port}]({_port_guid(topo, u, port, guids):x}) \t{peer}\t\t# lid 0 lmc 0 "{peer_desc}" lid 0 4xQDR'
