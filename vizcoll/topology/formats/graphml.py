"""GraphML topology files: vizcoll's own, written and parsed with networkx, lossless; and anyone else's.

**Anyone else's GraphML** (Internet Topology Zoo, networkx, yEd: a graph
without vizcoll's ``schema`` attribute) is read as a node-link topology
(:mod:`vizcoll.topology.formats.nodelink`), edges in file order: a node is
named by its ``label`` (or ``name``) when that is unique, else by
``label (id)``, else by its id; it is a switch unless a ``kind`` / ``type`` /
``typ`` / ``role`` attribute marks it as a host (``host``, ``endpoint``,
``hca``, ``ca``, ``server``, ``compute``, ``terminal``, ``nic``); ports are
numbered in edge order; parallel edges are kept; an edge from a node to itself
is a loopback cable; a node without edges (21 of the Topology Zoo's 276 graphs
have one) is kept with one free port. A **directed** graph (``edgedefault=
"directed"``, as networkx writes a ``DiGraph``, or edges marked
``directed="true"``) stores a cable once per direction: a pair of nodes has as
many cables as the more frequent of its two directions (``a→b`` and ``b→a``:
one cable; ``a→b`` alone: one cable too).

**vizcoll's own** GraphML: nodes carry ``kind``, ``nports``, ``guid``, ``desc`` and ``attr.<name>``
data; edges (GraphML edge id = stable link id) carry ``a`` (the name of the
link's first end), ``pa``, ``pb``, ``broken``, ``row`` (the link's position)
and ``attr.<name>``; the graph carries ``schema``, and ``meta``,
``port_guids``, ``node_attrs`` and ``link_attrs`` as JSON strings plus the
booleans ``has_guid`` and ``has_desc``. Untrusted XML is checked with
defusedxml first: a DTD (and so any entity trick) is refused.

>>> from vizcoll.topology.generators import from_spec
>>> topo = from_spec("fat-tree:radix=4,levels=2")
>>> read(write(topo), "t.graphml") == topo
True
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from typing import TYPE_CHECKING
from xml.etree.ElementTree import ParseError

import defusedxml.ElementTree as safe_xml
from defusedxml import DefusedXmlException

if TYPE_CHECKING:
    import networkx as nx

from vizcoll.errors import FileFormatError, TopologyError
from vizcoll.topology import model
from vizcoll.topology.formats.jsonfile import from_dict
from vizcoll.topology.formats.nodelink import from_node_link
from vizcoll.topology.model import KIND_NAMES, SCHEMA, Topology

__all__ = ["read", "write"]

GRAPHML_NS = "{http://graphml.graphdrawing.org/xmlns}"


# ---------------------------------------------------------------- writing
def write(topo: Topology) -> str:
    """The GraphML text of ``topo``."""
    import networkx as nx  # here, not at import: networkx is a tenth of a second of every start-up

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
        data = {
            "a": a,
            "pa": int(topo.link_pa[row]),
            "pb": int(topo.link_pb[row]),
            "broken": bool(topo.broken[row]),
            "row": row,
        }
        data.update({f"attr.{k}": int(v[row]) for k, v in sorted(topo.link_attrs.items())})
        g.add_edge(a, b, key=int(topo.link_id[row]), **data)
    return "\n".join(nx.generate_graphml(g)) + "\n"


# ---------------------------------------------------------------- reading
def read(text: str, filename: str) -> Topology:
    """The topology of a GraphML text (checked with defusedxml first): vizcoll's own, or any graph."""
    import networkx as nx  # here, not at import (see write)

    root = _check_xml(text, filename)
    if not _is_ours(root):
        return _read_generic(root, filename)
    try:
        with warnings.catch_warnings():  # e.g. "GraphML port tag not supported"
            warnings.simplefilter("ignore")
            g = nx.parse_graphml(text, force_multigraph=True)
    except Exception as exc:  # networkx raises many kinds on malformed GraphML
        raise FileFormatError(f"not valid GraphML ({exc})", source=filename) from None
    return from_dict(_graph_to_dict(g, filename), filename)


def _check_xml(text: str, filename: str):
    """Parse with defusedxml (no DTD, no entities) and check the sizes before networkx sees it."""
    try:
        root = safe_xml.fromstring(text, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise FileFormatError(
            f"XML with a DTD, entities or external references is refused ({exc})", source=filename
        ) from None
    except ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise FileFormatError(f"not well-formed XML ({str(exc).split(':')[0]})", line=line, source=filename) from None
    for tag, limit, what in (("node", model.MAX_NODES, "nodes"), ("edge", model.MAX_LINKS, "links")):
        count = sum(1 for _ in root.iter(GRAPHML_NS + tag))
        if count > limit:
            raise FileFormatError(f"{count:,} {what} is more than the limit of {limit:,}", source=filename)
    return root


# ---------------------------------------------------------------- anyone else's GraphML
HOST_WORDS = {
    "host",
    "hosts",
    "endpoint",
    "end node",
    "end-node",
    "endnode",
    "hca",
    "ca",
    "server",
    "compute",
    "terminal",
    "nic",
}
KIND_KEYS = ("kind", "type", "typ", "role")


def _is_ours(root) -> bool:
    """True when the graph carries vizcoll's ``schema`` attribute (a ``key`` named schema for the graph)."""
    return any(
        key.get("attr.name") == "schema" and key.get("for") in ("graph", "all") for key in root.iter(GRAPHML_NS + "key")
    )


def _data(element, names: dict[str, str]) -> dict[str, str]:
    """``attr.name -> text`` of an element's ``data`` children."""
    return {
        names[d.get("key")]: (d.text or "").strip()
        for d in element.findall(GRAPHML_NS + "data")
        if d.get("key") in names
    }


def _read_generic(root, filename: str) -> Topology:
    """Nodes and edges of any GraphML graph, in file order (see the module docstring)."""
    names = {key.get("id"): key.get("attr.name") or key.get("id") for key in root.iter(GRAPHML_NS + "key")}
    elements = list(root.iter(GRAPHML_NS + "node"))
    ids = [e.get("id") for e in elements]
    if not ids:
        raise FileFormatError("the graph has no nodes", source=filename)
    if None in ids:
        raise FileFormatError("a node has no id", source=filename)
    data = [_data(e, names) for e in elements]
    labels = [d.get("label") or d.get("name") or node_id for d, node_id in zip(data, ids, strict=True)]
    taken = Counter(labels)
    shown = [label if taken[label] == 1 else f"{label} ({node_id})" for label, node_id in zip(labels, ids, strict=True)]
    nodes = [
        {"name": name, **({"kind": "endpoint"} if _is_host(d) else {})} for name, d in zip(shown, data, strict=True)
    ]
    by_id = dict(zip(ids, shown, strict=True))
    links = []
    for i, edge in enumerate(root.iter(GRAPHML_NS + "edge")):
        ends = [by_id.get(edge.get(end)) for end in ("source", "target")]
        if None in ends:
            raise FileFormatError(f"edge {i} names a node that is not in the graph", source=filename)
        links.append((*ends, _directed(root, edge)))
    links = _cables(links)
    try:
        return from_node_link({"nodes": nodes, "links": links}, default_kind="switch", source="GraphML")
    except TopologyError as exc:
        raise FileFormatError(str(exc), source=filename) from None


def _directed(root, edge) -> bool:
    """Whether an edge is directed: its own ``directed`` attribute, else its graph's ``edgedefault``."""
    if edge.get("directed") is not None:
        return edge.get("directed").lower() == "true"
    graph = root.find(GRAPHML_NS + "graph")
    return graph is not None and graph.get("edgedefault", "").lower() == "directed"


def _cables(edges: list[tuple[str, str, bool]]) -> list[list[str]]:
    """The cables of GraphML edges in file order: a pair joined by directed edges has as many cables as its more
    frequent direction (each at the place of that direction's edges); undirected edges are a cable each."""
    count = Counter((a, b) for a, b, directed in edges if directed)
    cables, made = [], Counter()
    for a, b, directed in edges:
        pair = frozenset((a, b))
        if directed:
            if made[pair] >= max(count[a, b], count[b, a]):
                continue
            made[pair] += 1
        cables.append([a, b])
    return cables


def _is_host(data: dict[str, str]) -> bool:
    return any(data.get(key, "").lower() in HOST_WORDS for key in KIND_KEYS)


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
    """The :meth:`Topology.to_dict` form of a graph :func:`write` wrote."""
    if g.graph.get("schema") != SCHEMA:
        raise FileFormatError(
            f"not a vizcoll GraphML file: the graph attribute 'schema' must be {SCHEMA!r}", source=filename
        )
    node_keys, link_keys = _graph_json(g, "node_attrs", filename), _graph_json(g, "link_attrs", filename)
    if not all(isinstance(k, str) for k in [*node_keys, *link_keys]):
        raise FileFormatError("the graph attributes 'node_attrs' and 'link_attrs' must list names", source=filename)
    nodes = _graph_nodes(g, node_keys, filename)
    links = _graph_links(g, link_keys, filename)
    return {
        "schema": SCHEMA,
        "meta": _graph_json(g, "meta", filename),
        "nodes": nodes,
        "links": links,
        "port_guids": _graph_json(g, "port_guids", filename),
    }


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
    edges = sorted(
        (_graph_edge(u, v, key, data, keys, filename) for u, v, key, data in g.edges(keys=True, data=True)),
        key=lambda e: e["row"],
    )
    if [e["row"] for e in edges] != list(range(len(edges))):
        raise FileFormatError("the edge attribute 'row' must number the edges 0, 1, 2, ...", source=filename)
    cols = {name: [e[name] for e in edges] for name in ("id", "pa", "pb", "broken")}
    cols.update(a=[index[e["a"]] for e in edges], b=[index[e["b"]] for e in edges])
    cols["attrs"] = {k: [e["attrs"][j] for e in edges] for j, k in enumerate(keys)}
    return cols
