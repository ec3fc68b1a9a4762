"""Reading and writing topology files: JSON, GraphML, ibnetdiscover and ibsim net text.

Formats (:data:`FORMATS`):

``json``
    :meth:`Topology.to_dict` as JSON (schema ``vizcoll.topology/1``): lossless.
    A hand-written node-link JSON (a ``nodes`` list and a ``links`` list, see
    :mod:`vizcoll.topology.node_link`) is read too.
``graphml``
    Written and parsed with networkx, lossless too: nodes carry ``kind``,
    ``nports``, ``guid``, ``desc`` and ``attr.<name>`` data; edges (GraphML
    edge id = stable link id) carry ``a`` (the name of the link's first end),
    ``pa``, ``pb``, ``broken``, ``row`` (the link's position) and
    ``attr.<name>``; the graph carries ``schema``, and ``meta``,
    ``port_guids``, ``node_attrs`` and ``link_attrs`` as JSON strings plus the
    booleans ``has_guid`` and ``has_desc``. Untrusted XML is checked with
    defusedxml first: a DTD (and so any entity trick) is refused.
``ibnetdiscover`` and ``ibsim``
    The text ``ibnetdiscover`` prints and the ibsim net file (the same
    grammar, as ibsim's ``sim_net.c`` reads it); one tolerant reader handles
    both. Stanzas keep the file's order; the quoted id is the node name;
    ``switchguid=``/``caguid=`` give the node GUID of the next stanza of that
    kind (a node without one gets GUID 0, where ibsim would count on from its
    own base), ``switchguid=0x..(guid)`` the switch port-0 GUID, ``(guid)``
    after a CA port number that port's GUID, and ``# "text"`` after the stanza
    line the node description. A port line without ``[peer port]`` means peer
    port 1 (as in ibsim); comments and ibsim options (``w=``, ``s=``) after the
    peer are ignored. Every link must be listed by both ends, consistently.
    Router (``Rt``) nodes, ibsim port aliases (``@``) and ``include``/``do``/
    ``module`` lines are refused with a clear error.

What the text formats cannot express: broken links are written as present,
node and link attributes and ``meta`` are dropped, links are renumbered in
file order, a node with no ports is written with one, and a node without a
GUID gets an invented one (``GUID_BASE + 256 * (index + 1)``; CA port GUIDs
are the node GUID plus the port number unless ``port_guids`` says otherwise).
The ibsim writer writes no port GUIDs (ibsim derives them the same way).
The real ibsim holds 2048 nodes, 256 switches and 13312 ports unless started
with ``-N``/``-S``/``-P``; InfiniBand switches have at most 255 ports, the
reader accepts up to :data:`MAX_PORTS`.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import ParseError

import defusedxml.ElementTree as safe_xml
import networkx as nx
import numpy as np
from defusedxml import DefusedXmlException

from vizcoll.errors import FileFormatError, TopologyError
from vizcoll.topology import model
from vizcoll.topology.generators import from_spec
from vizcoll.topology.model import ENDPOINT, KIND_NAMES, SCHEMA, SWITCH, Topology
from vizcoll.topology.node_link import from_node_link, is_node_link

__all__ = ["FORMATS", "MAX_FILE_BYTES", "MAX_PORTS", "GUID_BASE", "parse", "dumps", "read", "write", "load"]

FORMATS = ("json", "graphml", "ibnetdiscover", "ibsim")
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_PORTS = 65_535
GUID_BASE = 0x0002C90000000000
EXTENSIONS = {".json": "json", ".graphml": "graphml", ".xml": "graphml", ".net": "ibsim",
              ".ibnd": "ibnetdiscover", ".txt": "ibnetdiscover"}
GRAPHML_NS = "{http://graphml.graphdrawing.org/xmlns}"


# ====================================================================== public API
def parse(data: bytes | str, filename: str = "upload") -> Topology:
    """Read a topology file of any supported format from its content.

    The format is recognised from the content (``{`` JSON, ``<`` GraphML,
    otherwise ibnetdiscover/ibsim text), the extension of ``filename`` being a
    hint when the content does not tell.

    Parameters
    ----------
    data : bytes or str
        The file content (UTF-8 when bytes), at most :data:`MAX_FILE_BYTES`.
    filename : str
        Name used in error messages and as a format hint.

    Returns
    -------
    Topology

    Raises
    ------
    FileFormatError
        For anything wrong with the file; the message starts with
        ``filename`` and, where it applies, the line.

    Examples
    --------
    >>> topo = parse('Switch 8 "s"\\n[1] "h"[1]\\n\\nHca 1 "h"\\n[1] "s"[1]\\n', "tiny.net")
    >>> topo.names, topo.n_links
    (['s', 'h'], 1)
    """
    if len(data) > MAX_FILE_BYTES:
        raise FileFormatError(f"the file is {len(data):,} bytes; the limit is {MAX_FILE_BYTES:,}", source=filename)
    text = _decode(data, filename)
    if not text.strip():
        raise FileFormatError("the file is empty", source=filename)
    fmt = _detect(text, filename)
    if fmt == "json":
        return _read_json(text, filename)
    if fmt == "graphml":
        return _read_graphml(text, filename)
    return _read_net(text, filename, fmt)


def dumps(topo: Topology, fmt: str) -> str:
    """The text of ``topo`` in format ``fmt`` (one of :data:`FORMATS`).

    Examples
    --------
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> parse(dumps(topo, "graphml")) == topo
    True
    """
    if fmt == "json":
        return json.dumps(topo.to_dict()) + "\n"
    if fmt == "graphml":
        return _write_graphml(topo)
    if fmt in ("ibsim", "ibnetdiscover"):
        return _write_net(topo, fmt)
    raise FileFormatError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}", source="export")


def read(path: str | Path) -> Topology:
    """Read the topology file at ``path`` (see :func:`parse`)."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise FileFormatError(f"the file is larger than the limit of {MAX_FILE_BYTES:,} bytes", source=str(path))
        data = path.read_bytes()
    except OSError as exc:
        raise FileFormatError(f"cannot read the file ({exc.strerror or exc})", source=str(path)) from None
    return parse(data, str(path))


def write(topo: Topology, path: str | Path, fmt: str | None = None) -> None:
    """Write ``topo`` to ``path``; ``fmt`` defaults to the one of the extension.

    ``.json`` json, ``.graphml``/``.xml`` graphml, ``.net`` ibsim,
    ``.ibnd``/``.txt`` ibnetdiscover.
    """
    path = Path(path)
    if fmt is None:
        fmt = EXTENSIONS.get(path.suffix.lower())
        if fmt is None:
            raise FileFormatError(f"cannot tell the format from the extension {path.suffix!r}; "
                                  f"give one of {', '.join(FORMATS)}", source=str(path))
    text = dumps(topo, fmt)
    path.write_text(text, encoding="utf-8", newline="\n")


def load(spec_or_path: str) -> Topology:
    """The topology of a file if ``spec_or_path`` names one, else of a generator spec.

    Examples
    --------
    >>> load("torus:3x3,hosts=1").n_nodes
    18
    """
    path = Path(spec_or_path)
    if path.is_file():
        return read(path)
    if path.suffix.lower() in EXTENSIONS:
        raise FileFormatError("no such file", source=spec_or_path)
    return from_spec(spec_or_path)


# ====================================================================== detection
def _decode(data: bytes | str, filename: str) -> str:
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise FileFormatError("the text holds an invalid character (a lone surrogate)",
                                  line=data.count("\n", 0, exc.start) + 1, source=filename) from None
        return data.removeprefix("\ufeff")
    data = bytes(data)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"not UTF-8 text (byte {exc.start})", line=data.count(b"\n", 0, exc.start) + 1,
                              source=filename) from None


def _detect(text: str, filename: str) -> str:
    first = text.lstrip()[:1]
    if first == "{":
        return "json"
    if first == "<":
        return "graphml"
    hinted = EXTENSIONS.get(Path(filename).suffix.lower())
    if hinted in ("json", "graphml"):
        return hinted
    if re.search(r"^\s*Hca\s", text, re.M):
        return "ibsim"
    if re.search(r'^\s*(Ca\s|vendid=)|# "', text, re.M):
        return "ibnetdiscover"
    return "ibsim"


# ====================================================================== JSON
def _read_json(text: str, filename: str) -> Topology:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"not valid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno,
                              source=filename) from None
    except (ValueError, RecursionError) as exc:
        raise FileFormatError(f"not valid JSON ({exc})", source=filename) from None
    return _from_dict(data, filename)


def _from_dict(data: object, filename: str) -> Topology:
    try:
        if is_node_link(data):
            return from_node_link(data)
        if not isinstance(data, dict) or "schema" not in data:
            raise TopologyError(f"a JSON topology is either a node-link object (a 'nodes' list and a 'links' list) "
                                f"or vizcoll's own export (the field 'schema' = {SCHEMA!r})")
        return Topology.from_dict(data)
    except TopologyError as exc:
        raise FileFormatError(str(exc), source=filename) from None
    except (OverflowError, TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        raise FileFormatError(f"a field has the wrong type or value ({exc})", source=filename) from None


# ====================================================================== GraphML
def _write_graphml(topo: Topology) -> str:
    g = nx.MultiGraph(
        schema=SCHEMA,
        meta=json.dumps(topo.meta),
        port_guids=json.dumps(topo.to_dict()["port_guids"]),
        node_attrs=json.dumps(sorted(topo.node_attrs)),
        link_attrs=json.dumps(sorted(topo.link_attrs)),
        has_guid=topo.guid is not None,
        has_desc=topo.desc is not None,
    )
    for i, name in enumerate(topo.names):
        data = {"kind": KIND_NAMES[int(topo.kind[i])], "nports": int(topo.nports[i])}
        data.update({f"attr.{k}": int(v[i]) for k, v in sorted(topo.node_attrs.items())})
        if topo.guid is not None:
            data["guid"] = f"0x{int(topo.guid[i]):016x}"
        if topo.desc is not None:
            data["desc"] = topo.desc[i]
        g.add_node(name, **data)
    for row in range(topo.n_links):
        a, b = topo.names[topo.link_a[row]], topo.names[topo.link_b[row]]
        data = {"a": a, "pa": int(topo.link_pa[row]), "pb": int(topo.link_pb[row]),
                "broken": bool(topo.broken[row]), "row": row}
        data.update({f"attr.{k}": int(v[row]) for k, v in sorted(topo.link_attrs.items())})
        g.add_edge(a, b, key=int(topo.link_id[row]), **data)
    return "\n".join(nx.generate_graphml(g)) + "\n"


def _read_graphml(text: str, filename: str) -> Topology:
    _check_xml(text, filename)
    try:
        with warnings.catch_warnings():  # e.g. "GraphML port tag not supported"
            warnings.simplefilter("ignore")
            g = nx.parse_graphml(text, force_multigraph=True)
    except Exception as exc:  # networkx raises many kinds on malformed GraphML
        raise FileFormatError(f"not valid GraphML ({exc})", source=filename) from None
    return _from_dict(_graph_to_dict(g, filename), filename)


def _check_xml(text: str, filename: str) -> None:
    """Parse with defusedxml (no DTD, no entities) and check the sizes before networkx sees it."""
    try:
        root = safe_xml.fromstring(text, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise FileFormatError(f"XML with a DTD, entities or external references is refused ({exc})",
                              source=filename) from None
    except ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise FileFormatError(f"not well-formed XML ({str(exc).split(':')[0]})", line=line, source=filename) from None
    for tag, limit, what in (("node", model.MAX_NODES, "nodes"), ("edge", model.MAX_LINKS, "links")):
        count = sum(1 for _ in root.iter(GRAPHML_NS + tag))
        if count > limit:
            raise FileFormatError(f"{count:,} {what} is more than the limit of {limit:,}", source=filename)


def _need(data: dict, key: str, where: str, filename: str):
    if key not in data:
        raise FileFormatError(f"{where} has no attribute {key!r}", source=filename)
    return data[key]


def _graph_json(g: nx.MultiGraph, key: str, filename: str):
    value = _need(g.graph, key, "the graph", filename)
    try:
        return json.loads(value)
    except (TypeError, ValueError, RecursionError):
        raise FileFormatError(f"the graph attribute {key!r} is not valid JSON", source=filename) from None


def _graph_to_dict(g: nx.MultiGraph, filename: str) -> dict:
    """The :meth:`Topology.to_dict` form of a graph :func:`_write_graphml` wrote."""
    if g.graph.get("schema") != SCHEMA:
        raise FileFormatError(f"not a vizcoll GraphML file: the graph attribute 'schema' must be {SCHEMA!r}",
                              source=filename)
    node_keys, link_keys = _graph_json(g, "node_attrs", filename), _graph_json(g, "link_attrs", filename)
    if not all(isinstance(k, str) for k in [*node_keys, *link_keys]):
        raise FileFormatError("the graph attributes 'node_attrs' and 'link_attrs' must list names", source=filename)
    nodes = _graph_nodes(g, node_keys, filename)
    links = _graph_links(g, link_keys, filename)
    return {"schema": SCHEMA, "meta": _graph_json(g, "meta", filename), "nodes": nodes, "links": links,
            "port_guids": _graph_json(g, "port_guids", filename)}


def _graph_nodes(g: nx.MultiGraph, keys: list[str], filename: str) -> dict:
    has_guid = _need(g.graph, "has_guid", "the graph", filename) is True
    has_desc = _need(g.graph, "has_desc", "the graph", filename) is True
    cols: dict = {"name": [], "kind": [], "ports": [], "attrs": {k: [] for k in keys}}
    cols.update({"guid": []} if has_guid else {})
    cols.update({"desc": []} if has_desc else {})
    for name, data in g.nodes(data=True):
        where = f"node {name!r}"
        cols["name"].append(name)
        cols["kind"].append(_need(data, "kind", where, filename))
        cols["ports"].append(_need(data, "nports", where, filename))
        for k in keys:
            cols["attrs"][k].append(_need(data, f"attr.{k}", where, filename))
        if has_guid:
            cols["guid"].append(_need(data, "guid", where, filename))
        if has_desc:
            cols["desc"].append(data.get("desc", ""))  # GraphML cannot tell an empty string from none
    return cols


def _graph_edge(u: str, v: str, key, data: dict, keys: list[str], filename: str) -> dict:
    where = f"edge {key!r} ({u!r} - {v!r})"
    edge = {name: _need(data, name, where, filename) for name in ("a", "pa", "pb", "broken", "row")}
    if edge["a"] not in (u, v):
        raise FileFormatError(f"{where}: attribute 'a' must name one of its ends", source=filename)
    if not isinstance(key, int) or not isinstance(edge["row"], int):
        raise FileFormatError(f"{where}: the edge id and 'row' must be integers", source=filename)
    edge.update(id=key, b=v if edge["a"] == u else u)
    edge["attrs"] = [_need(data, f"attr.{k}", where, filename) for k in keys]
    return edge


def _graph_links(g: nx.MultiGraph, keys: list[str], filename: str) -> dict:
    index = {name: i for i, name in enumerate(g.nodes)}
    edges = sorted((_graph_edge(u, v, key, data, keys, filename) for u, v, key, data in
                    g.edges(keys=True, data=True)), key=lambda e: e["row"])
    if [e["row"] for e in edges] != list(range(len(edges))):
        raise FileFormatError("the edge attribute 'row' must number the edges 0, 1, 2, ...", source=filename)
    cols = {name: [e[name] for e in edges] for name in ("id", "pa", "pb", "broken")}
    cols.update(a=[index[e["a"]] for e in edges], b=[index[e["b"]] for e in edges])
    cols["attrs"] = {k: [e["attrs"][j] for e in edges] for j, k in enumerate(keys)}
    return cols


# ====================================================================== ibnetdiscover / ibsim: reading
_HEADER = re.compile(r'(Switch|Hca|Ca|Rt)\s+([0-9]+)\s+"([^"]*)"\s*(.*)')
_KEYWORD = re.compile(r"(Switch|Hca|Ca|Rt)\b")
_ASSIGN = re.compile(r"([A-Za-z_]\w*)\s*=\s*(.*)")
_GUID_VALUE = re.compile(r"(0x[0-9a-fA-F]+|[0-9]+)(?:\(([0-9a-fA-F]+)\))?\s*(?:#.*)?")
_PORT = re.compile(r"""
    \[(?P<port>[0-9]+)\](?:\[ext\ [0-9]+\])?    # local port, optional external port number
    (?:\((?P<guid>[0-9a-fA-F]+)\))?\s*          # CA port GUID (ibnetdiscover)
    "(?P<peer>[^"]*)"                           # peer node id
    (?:\[(?P<peer_port>[0-9]+)\])?(?:\[ext\ [0-9]+\])?  # peer port (ibsim: 1 when left out)
    \s*(?:\((?P<peer_guid>[0-9a-fA-F]+)\))?     # peer CA port GUID (ibnetdiscover)
    \s*(?P<rest>.*)""", re.X)
_IGNORED = ("Chassis ", "Non-Chassis Nodes", "Hostname:")  # ibnetdiscover -g grouping lines
_GUID_KEYS = {"switchguid": SWITCH, "caguid": ENDPOINT, "hcaguids": ENDPOINT}
_KINDS = {"Switch": SWITCH, "Hca": ENDPOINT, "Ca": ENDPOINT}


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
    """Line-by-line reader of ibnetdiscover / ibsim text (see the module docstring)."""

    filename: str
    nodes: list[_Stanza] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    entries: dict[tuple[int, int], tuple[str, int, int]] = field(default_factory=dict)
    port_guids: dict[tuple[int, int], int] = field(default_factory=dict)
    pending: dict[int, tuple[int, int | None]] = field(default_factory=dict)
    guid_owner: dict[int, str] = field(default_factory=dict)
    current: int | None = None

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

    def feed(self, line: int, text: str) -> None:
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
        if _KEYWORD.match(text):
            self.header(line, text)
        elif match := _ASSIGN.fullmatch(text):
            self.assignment(line, match.group(1), match.group(2))
        else:
            raise self.error(f"unrecognised line {text[:40]!r}", line)

    def assignment(self, line: int, key: str, value: str) -> None:
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
        match = _HEADER.fullmatch(text)
        if not match:
            raise self.error(f"malformed node line {text[:40]!r} (expected e.g. Switch 36 \"name\")", line)
        keyword, digits, name, rest = match.groups()
        if keyword == "Rt":
            raise self.error("router (Rt) nodes are not supported", line)
        nports = self.number(digits, "port count", line, MAX_PORTS)
        if nports < 1:
            raise self.error(f"node {name!r} has no ports", line)
        if not name:
            raise self.error("empty node name", line)
        if name in self.index:
            raise self.error(f"duplicate node name {name!r} (first on line {self.nodes[self.index[name]].line})", line)
        if len(self.nodes) >= model.MAX_NODES:
            raise self.error(f"more than the limit of {model.MAX_NODES:,} nodes", line)
        kind = _KINDS[keyword]
        node = _Stanza(name, kind, nports, line, desc=self.description(line, rest))
        self.index[name] = self.current = len(self.nodes)
        self.nodes.append(node)
        if kind in self.pending:
            node.guid, port0 = self.pending.pop(kind)
            self.claim_guid(node.guid, name, line)
            if port0 is not None and kind == SWITCH:
                self.port_guids[self.current, 0] = port0

    def claim_guid(self, guid: int, name: str, line: int) -> None:
        if guid and guid in self.guid_owner:
            raise self.error(f"duplicate GUID 0x{guid:016x}: {name!r} and {self.guid_owner[guid]!r}", line)
        self.guid_owner[guid] = name

    def description(self, line: int, rest: str) -> str | None:
        if not rest:
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
        if self.current is None:
            raise self.error("port line outside a Switch/Ca/Hca stanza", line)
        match = _PORT.fullmatch(text)
        if not match:
            raise self.error(f"malformed port line {text[:40]!r} (expected e.g. [1] \"peer\"[2])", line)
        rest = match["rest"]
        if rest and not rest.startswith("#") and not re.match(r"[A-Za-z]\w*=", rest):
            raise self.error(f"unexpected text {rest[:40]!r} after the peer", line)
        node = self.nodes[self.current]
        port = self.number(match["port"], "port", line, MAX_PORTS)
        if not 1 <= port <= node.nports:
            raise self.error(f"port {port} of {node.name!r} is outside 1..{node.nports}", line)
        if (self.current, port) in self.entries:
            first = self.entries[self.current, port][2]
            raise self.error(f"port {port} of {node.name!r} is used twice (first on line {first})", line)
        peer_port = self.number(match["peer_port"], "port", line, MAX_PORTS) if match["peer_port"] else 1
        self.entries[self.current, port] = (match["peer"], peer_port, line)
        if match["guid"]:
            self.port_guids[self.current, port] = self.guid(match["guid"], line)

    def links(self) -> list[tuple[int, int, int, int]]:
        """Both-sides-checked links in file order."""
        links, done = [], set()
        for (u, p), (peer, pp, line) in self.entries.items():
            v = self.link_peer(u, p, peer, pp, line)
            if (u, p) not in done:
                links.append((u, p, v, pp))
                done.update({(u, p), (v, pp)})
        return links

    def link_peer(self, u: int, p: int, peer: str, pp: int, line: int) -> int:
        name = self.nodes[u].name
        v = self.index.get(peer)
        if v is None:
            raise self.error(f"dangling peer {peer!r}: no stanza has that name (truncated file?)", line)
        if v == u:
            raise self.error(f"port {p} of {name!r} is linked to its own node", line)
        if not 1 <= pp <= self.nodes[v].nports:
            raise self.error(f"peer port {pp} of {peer!r} is outside 1..{self.nodes[v].nports}", line)
        back = self.entries.get((v, pp))
        if back is None:
            raise self.error(f"{name!r}[{p}] links to {peer!r}[{pp}], but {peer!r} does not list that "
                             "port (missing line; truncated file?)", line)
        if back[:2] != (name, p):
            raise self.error(f"the two sides disagree: {name!r}[{p}] links to {peer!r}[{pp}], but line {back[2]} "
                             f"links {peer!r}[{pp}] to {back[0]!r}[{back[1]}]", line)
        return v

    def topology(self, fmt: str) -> Topology:
        if not self.nodes:
            raise self.error("no Switch, Ca or Hca node found", None)
        topo = Topology.from_arrays([n.name for n in self.nodes], [n.kind for n in self.nodes],
                                    [n.nports for n in self.nodes], self.links(), meta={"format": fmt},
                                    validate=False)
        if any(n.guid is not None for n in self.nodes):
            topo.guid = np.array([n.guid or 0 for n in self.nodes], dtype=np.uint64)
        if any(n.desc is not None for n in self.nodes):
            topo.desc = [n.desc or "" for n in self.nodes]
        topo.port_guids = dict(self.port_guids)
        try:
            topo.validate()
        except TopologyError as exc:
            raise self.error(str(exc), None) from None
        return topo


def _read_net(text: str, filename: str, fmt: str) -> Topology:
    reader = _NetReader(filename)
    for number, line in enumerate(text.split("\n"), 1):
        reader.feed(number, line)
    return reader.topology(fmt)


# ====================================================================== ibnetdiscover / ibsim: writing
def _export_guids(topo: Topology, fmt: str) -> list[int]:
    given = [0] * topo.n_nodes if topo.guid is None else topo.guid.tolist()
    guids = [g or GUID_BASE + 256 * (i + 1) for i, g in enumerate(given)]
    if len(set(guids)) != len(guids):
        raise FileFormatError("two nodes would have the same GUID", source=f"{fmt} export")
    return guids


def _check_text(topo: Topology, fmt: str) -> None:
    bad_name = set('"\n\r#@' if fmt == "ibsim" else '"\n\r')
    for name in topo.names:
        if bad_name & set(name):
            raise FileFormatError(f"node name {name!r} cannot be written: it holds one of "
                                  f"{''.join(sorted(bad_name))!r}", source=f"{fmt} export")
    for desc in topo.desc or ():
        if set('"\n\r') & set(desc):
            raise FileFormatError(f"description {desc!r} cannot be written: it holds a quote or a line break",
                                  source=f"{fmt} export")


def _write_net(topo: Topology, fmt: str) -> str:
    _check_text(topo, fmt)
    guids = _export_guids(topo, fmt)
    view = topo.ports(include_broken=True)
    title = "Topology file" if fmt == "ibnetdiscover" else "ibsim net file"
    generator = " ".join(str(topo.meta.get("generator", "")).split())
    out = [f"# {title}: written by vizcoll" + (f" from {generator}" if generator else ""),
           f"# {topo.n_nodes} nodes, {topo.n_links} links (broken links are written as present)", ""]
    for u in range(topo.n_nodes):
        out += _stanza(topo, u, guids, fmt)
        for k in range(view.indptr[u], view.indptr[u + 1]):
            out.append(_port_line(topo, u, int(view.port[k]), int(view.peer[k]), int(view.peer_port[k]), guids, fmt))
        out.append("")
    return "\n".join(out)


def _stanza(topo: Topology, u: int, guids: list[int], fmt: str) -> list[str]:
    """The GUID lines and the node line of node ``u``."""
    switch, guid, name = topo.kind[u] == SWITCH, guids[u], topo.names[u]
    nports = max(1, int(topo.nports[u]))
    desc = f'\t\t# "{topo.desc[u]}"' if topo.desc is not None else ""
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


def _port_line(topo: Topology, u: int, port: int, v: int, peer_port: int, guids: list[int], fmt: str) -> str:
    """``[port] "peer"[peer_port]``, with ibnetdiscover's GUIDs and comment in that format."""
    peer = f'"{topo.names[v]}"[{peer_port}]'
    if fmt == "ibsim":
        return f"[{port}]\t{peer}"
    peer_desc = topo.desc[v] if topo.desc is not None else ""
    if topo.kind[v] != SWITCH:
        peer += f"({_port_guid(topo, v, peer_port, guids):x}) "
    if topo.kind[u] == SWITCH:
        return f'[{port}]\t{peer}\t\t# "{peer_desc}" lid 0 4xQDR'
    return f'[{port}]({_port_guid(topo, u, port, guids):x}) \t{peer}\t\t# lid 0 lmc 0 "{peer_desc}" lid 0 4xQDR'
