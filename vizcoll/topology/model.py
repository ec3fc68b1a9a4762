"""The topology model: switches, end nodes, numbered ports and links with stable ids.

A :class:`Topology` stores everything column-wise in numpy arrays so that
fabrics with tens of thousands of end nodes stay small and fast:

- nodes ``0..n-1``: ``names`` (unique), ``kind`` (``SWITCH`` = 0 forwards
  packets, ``ENDPOINT`` = 1 is a NIC/HCA/processor that never forwards),
  ``nports`` (the radix; ports are numbered ``1..nports`` as a subnet manager
  numbers them), optional integer attributes (``level``, ``group``, ``x``,
  ``y``, ``z``; -1 = unknown), a ``guid`` (0 = none) and a description;
- links: one row per undirected physical link ``(a, pa) -- (b, pb)`` with a
  stable ``link_id`` (ids survive edits), a ``broken`` flag (failed links are
  kept, and every computation skips them) and optional integer attributes
  (``global`` = 1 for dragonfly global links).

Node order is meaningful: ties between equal choices anywhere in vizcoll are
broken by it (files keep their own order).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from vizcoll.errors import TopologyError
from vizcoll.topology import checks
from vizcoll.topology.checks import ENDPOINT, MAX_ENDPOINTS, MAX_LINKS, MAX_NODES, SWITCH
from vizcoll.topology.names import NameIndex
from vizcoll.topology.ports import PortView, port_view

__all__ = ["SWITCH", "ENDPOINT", "KIND_NAMES", "MAX_ENDPOINTS", "MAX_NODES", "MAX_LINKS", "PortView", "Topology"]

KIND_NAMES = ("switch", "endpoint")
SCHEMA = "vizcoll.topology/1"
LINK_LABEL = re.compile(r"(.+?)\[(\d+)\]-(.+)\[(\d+)\]")


def _int_array(values, dtype=np.int32) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values, dtype=dtype).reshape(-1))


def _copied(value):
    """A field of a topology copied: arrays and lists, and the values of a dict (one level down)."""
    if isinstance(value, np.ndarray | list):
        return value.copy()
    return {k: _copied(v) for k, v in value.items()} if isinstance(value, dict) else value


@dataclass(eq=False)
class Topology:
    """A network fabric: switches, end nodes, numbered ports and links with stable ids, stored column-wise.

    Everything is kept in numpy arrays (see the module docstring) so that fabrics with tens of thousands of end
    nodes stay small and fast. Nodes are ``0..n-1``; node order is meaningful: ties between equal choices anywhere
    in vizcoll are broken by it (files keep their own order). Links are one row per undirected physical link
    ``(a, pa) -- (b, pb)``; their ``link_id`` survives edits, and a broken link is kept (every computation skips
    it). Build one with :meth:`from_arrays`, a generator (:func:`vizcoll.topology.generators.from_spec`) or a
    file reader (:func:`vizcoll.topology.io.load`).

    Parameters
    ----------
    names : list of str
        Unique node names, in node order.
    kind : numpy.ndarray
        ``int8`` node kinds: ``SWITCH`` (0) forwards packets, ``ENDPOINT`` (1) is a NIC/HCA/processor that never
        forwards.
    nports : numpy.ndarray
        Port count (radix) of each node; ports are numbered ``1..nports`` as a subnet manager numbers them.
    link_a, link_pa, link_b, link_pb : numpy.ndarray
        Per link row: its ends ``a`` and ``b`` (node indices) and their port numbers.
    link_id : numpy.ndarray
        ``int64`` stable id of each link row (ids survive edits).
    broken : numpy.ndarray
        ``bool`` per link row: True for a failed link (kept, and skipped by every computation).
    node_attrs : dict of str to numpy.ndarray
        Optional integer node attributes (``level``, ``group``, ``x``, ``y``, ``z``, ``rail``; -1 = unknown).
    link_attrs : dict of str to numpy.ndarray
        Optional integer link attributes (``global`` = 1 for dragonfly global links).
    guid : numpy.ndarray or None
        ``uint64`` node GUIDs (0 = none), when a file gave them.
    desc : list of str or None
        Node descriptions, when a file gave them.
    port_guids : dict of (int, int) to int
        Port GUIDs by ``(node, port)`` where they differ from the node's.
    meta : dict
        Free-form metadata, e.g. ``{"generator": "fat-tree:radix=4,levels=2"}``.

    Examples
    --------
    >>> topo = Topology.from_arrays(["s", "h"], [SWITCH, ENDPOINT], [4, 1], [[0, 1, 1, 1]])
    >>> topo.n_nodes, topo.n_links, topo.link_label(0)
    (2, 1, 's[1]-h[1]')
    """

    names: list[str]
    kind: np.ndarray
    nports: np.ndarray
    link_a: np.ndarray
    link_pa: np.ndarray
    link_b: np.ndarray
    link_pb: np.ndarray
    link_id: np.ndarray
    broken: np.ndarray
    node_attrs: dict[str, np.ndarray] = field(default_factory=dict)
    link_attrs: dict[str, np.ndarray] = field(default_factory=dict)
    guid: np.ndarray | None = None
    desc: list[str] | None = None
    port_guids: dict[tuple[int, int], int] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    # ------------------------------------------------------------ building
    @classmethod
    def from_arrays(
        cls,
        names,
        kind,
        nports,
        links,
        node_attrs: dict | None = None,
        link_attrs: dict | None = None,
        meta: dict | None = None,
        validate: bool = True,
    ) -> Topology:
        """Build a topology from node columns and a ``(m, 4)`` array of ``a, pa, b, pb`` rows.

        Link ids are ``0..m-1``; no link is broken.

        Parameters
        ----------
        names : sequence of str
            Unique node names, in node order.
        kind : array_like of int
            Node kinds, ``SWITCH`` (0) or ``ENDPOINT`` (1).
        nports : array_like of int
            Port count of each node.
        links : array_like of int
            ``(m, 4)`` rows ``a, pa, b, pb``: the two ends (node indices) and their ports.
        node_attrs : dict, optional
            Integer node attribute columns by name.
        link_attrs : dict, optional
            Integer link attribute columns by name.
        meta : dict, optional
            Metadata, e.g. the generator spec.
        validate : bool
            Check the result (:meth:`validate`); generators that build a consistent fabric skip it.

        Returns
        -------
        Topology
            The new fabric.

        Raises
        ------
        TopologyError
            With ``validate``, when the topology is inconsistent (a port used twice, a port beyond the radix, ...).

        Examples
        --------
        >>> topo = Topology.from_arrays(["s", "a", "b"], [0, 1, 1], [2, 1, 1], [[0, 1, 1, 1], [0, 2, 2, 1]])
        >>> topo.link_id.tolist(), topo.endpoints.tolist()
        ([0, 1], [1, 2])
        """
        links = np.asarray(links, dtype=np.int64).reshape(-1, 4)
        m = len(links)
        topo = cls(
            names=list(names),
            kind=_int_array(kind, np.int8),
            nports=_int_array(nports),
            link_a=_int_array(links[:, 0]),
            link_pa=_int_array(links[:, 1]),
            link_b=_int_array(links[:, 2]),
            link_pb=_int_array(links[:, 3]),
            link_id=np.arange(m, dtype=np.int64),
            broken=np.zeros(m, dtype=bool),
            node_attrs={k: _int_array(v) for k, v in (node_attrs or {}).items()},
            link_attrs={k: _int_array(v) for k, v in (link_attrs or {}).items()},
            meta=dict(meta or {}),
        )
        if validate:
            topo.validate()
        return topo

    def __getstate__(self) -> dict:
        """What a pickle keeps (a fabric in the app's shared cache): the fields, not the lookups built from them
        (a million names' index loads slower than it is built again)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def copy(self) -> Topology:
        """A deep copy (edits on it leave this one alone; cached lookups are built again)."""
        return Topology(**{f.name: _copied(getattr(self, f.name)) for f in fields(self)})

    # ------------------------------------------------------------ sizes
    @property
    def n_nodes(self) -> int:
        return len(self.names)

    @property
    def n_links(self) -> int:
        return len(self.link_id)

    @property
    def switches(self) -> np.ndarray:
        """Indices of the switches, in node order."""
        return np.flatnonzero(self.kind == SWITCH)

    @property
    def endpoints(self) -> np.ndarray:
        """Indices of the end nodes, in node order."""
        return np.flatnonzero(self.kind == ENDPOINT)

    @property
    def live(self) -> np.ndarray:
        """Boolean mask over link rows: True where the link is not broken."""
        return ~self.broken

    def summary(self) -> dict:
        """Counts for display and for ``vizcoll topo info``.

        Returns
        -------
        dict
            ``nodes``, ``switches``, ``endpoints``, ``links``, ``broken_links``, ``max_ports`` (the largest radix),
            ``max_used_ports`` (the most links on one node) and ``generator`` (the spec, or None).

        Examples
        --------
        >>> from vizcoll.topology.generators import from_spec
        >>> s = from_spec("fat-tree:radix=4,levels=2").summary()
        >>> s["switches"], s["endpoints"], s["links"], s["generator"]
        (6, 8, 16, 'fat-tree:radix=4,levels=2')
        """
        used = np.bincount(np.concatenate([self.link_a, self.link_b]), minlength=self.n_nodes)
        return {
            "nodes": self.n_nodes,
            "switches": int((self.kind == SWITCH).sum()),
            "endpoints": int((self.kind == ENDPOINT).sum()),
            "links": self.n_links,
            "broken_links": int(self.broken.sum()),
            "max_ports": int(self.nports.max()) if self.n_nodes else 0,
            "max_used_ports": int(used.max()) if self.n_nodes else 0,
            "generator": self.meta.get("generator"),
        }

    # ------------------------------------------------------------ lookups
    @cached_property
    def _index(self) -> dict[str, int]:
        return dict(zip(self.names, range(len(self.names)), strict=True))

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def index(self, name: str) -> int:
        """Node index of ``name``: a node's name or any other name a user may type for it.

        Besides the node's name, its description, host name or GUID find it
        (:class:`~vizcoll.topology.names.NameIndex`).

        Parameters
        ----------
        name : str
            The name typed.

        Returns
        -------
        int
            The node's index.

        Raises
        ------
        TopologyError
            Naming close names when ``name`` is unknown (or not text).

        Examples
        --------
        >>> from vizcoll.topology.generators import from_spec
        >>> from_spec("fat-tree:radix=4,levels=2").index("h0")
        6
        """
        try:
            return self._index[name]
        except KeyError:
            return self.name_index.resolve(str(name))
        except TypeError:
            raise TopologyError(f"a node name is text, got {name!r}") from None

    @cached_property
    def name_index(self) -> NameIndex:
        """Every name a user may type for a node (kept until an edit)."""
        guid = None if self.guid is None else self.guid.tolist()
        return NameIndex(self.names, self.desc, guid, self.port_guids)

    def link_row(self, link_id: int) -> int:
        """Row of the link with stable id ``link_id`` (:meth:`link_rows` of one id)."""
        return int(self.link_rows([link_id])[0])

    def link_rows(self, link_ids) -> np.ndarray:
        """Rows of the links with stable ids ``link_ids`` (an int64 array; one sort per edit, a binary search per
        id); raises :class:`TopologyError` naming an unknown id."""
        ids = np.asarray(link_ids, dtype=np.int64).reshape(-1)
        order = self._id_order
        rows = order[np.minimum(np.searchsorted(self.link_id[order], ids), max(self.n_links - 1, 0))]
        if len(ids) and (not self.n_links or not np.array_equal(self.link_id[rows], ids)):
            raise TopologyError(f"no link with id {int(ids[~np.isin(ids, self.link_id)][0])}")
        return rows

    @cached_property
    def _id_order(self) -> np.ndarray:
        return np.argsort(self.link_id, kind="stable")

    def attr(self, key: str) -> np.ndarray:
        """Node attribute column ``key`` (all -1 when the generator did not set it)."""
        return self.node_attrs.get(key, np.full(self.n_nodes, -1, dtype=np.int32))

    # ------------------------------------------------------------ fast views
    def adjacency(self, include_broken: bool = False) -> sp.csr_matrix:
        """Symmetric node x node CSR matrix (1 where a live link joins two nodes)."""
        keep = slice(None) if include_broken else self.live
        a, b = self.link_a[keep], self.link_b[keep]
        rows = np.concatenate([a, b])
        cols = np.concatenate([b, a])
        data = np.ones(len(rows), dtype=np.int8)
        mat = sp.csr_matrix((data, (rows, cols)), shape=(self.n_nodes, self.n_nodes))
        mat.data[:] = 1
        return mat

    def ports(self, include_broken: bool = False) -> PortView:
        """Per-node connected ports sorted by port number (see :class:`PortView`); kept until the links or the
        breaks change (do not modify its arrays)."""
        key = (include_broken, b"" if include_broken else self.broken.tobytes())
        kept = self.__dict__.setdefault("_ports", {})
        if kept.get(include_broken, (None,))[0] != key:
            kept[include_broken] = (key, port_view(self, include_broken))
        return kept[include_broken][1]

    # ------------------------------------------------------------ checks
    def validate(self) -> None:
        """Raise :class:`TopologyError` unless the topology is consistent (:mod:`vizcoll.topology.checks`)."""
        checks.check_nodes(self)
        checks.check_links(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Topology):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    # ------------------------------------------------------------ edits
    def _changed(self) -> None:
        self.__dict__.pop("_index", None)
        self.__dict__.pop("name_index", None)
        self.__dict__.pop("_port_link", None)
        self.__dict__.pop("_id_order", None)
        self.__dict__.pop("_ports", None)

    def free_port(self, node: int) -> int:
        """Lowest port number of ``node`` not used by any link (may be nports + 1)."""
        used = set(self.link_pa[self.link_a == node].tolist()) | set(self.link_pb[self.link_b == node].tolist())
        port = 1
        while port in used:
            port += 1
        return port

    def add_node(self, name: str, kind: int | str = SWITCH, nports: int = 1, **attrs: int) -> int:
        """Append a node and return its index.

        Attributes default to -1. A node has at least one port (the topology is checked whole at each edit: a new
        node waiting for its first link must pass).

        Parameters
        ----------
        name : str
            The new node's name (not empty, not used yet).
        kind : int or str
            ``SWITCH`` / ``ENDPOINT``, or ``"switch"`` / ``"endpoint"``.
        nports : int
            Its port count (at least 1).
        **attrs : int
            Node attributes (``level=1``, ``group=0``, ...).

        Returns
        -------
        int
            The new node's index (the last).

        Raises
        ------
        TopologyError
            If the name is empty or taken, the kind unknown, or the topology already has the most nodes.
        """
        kind = KIND_NAMES.index(kind) if isinstance(kind, str) else int(kind)
        if not name or name in self._index:
            raise TopologyError(f"node name {name!r} is empty or already used")
        if kind not in (SWITCH, ENDPOINT):
            raise TopologyError(f"unknown node kind {kind!r}")
        if self.n_nodes >= MAX_NODES:
            raise TopologyError(f"the topology already has the maximum of {MAX_NODES} nodes")
        self.names.append(name)
        self.kind = np.append(self.kind, np.int8(kind))
        self.nports = np.append(self.nports, np.int32(max(1, int(nports))))
        for key in set(self.node_attrs) | set(attrs):
            col = self.node_attrs.get(key, np.full(self.n_nodes - 1, -1, dtype=np.int32))
            self.node_attrs[key] = np.append(col, np.int32(attrs.get(key, -1)))
        if self.guid is not None:
            self.guid = np.append(self.guid, np.uint64(0))
        if self.desc is not None:
            self.desc.append("")
        self._changed()
        return self.n_nodes - 1

    def remove_node(self, name: str) -> None:
        """Delete a node and every link touching it; later node indices shift down."""
        node = self.index(name)
        keep_links = (self.link_a != node) & (self.link_b != node)
        self._keep_links(keep_links)
        keep = np.ones(self.n_nodes, dtype=bool)
        keep[node] = False
        self.names.pop(node)
        self.kind, self.nports = self.kind[keep], self.nports[keep]
        self.node_attrs = {k: v[keep] for k, v in self.node_attrs.items()}
        if self.guid is not None:
            self.guid = self.guid[keep]
        if self.desc is not None:
            self.desc.pop(node)
        self.link_a = self.link_a - (self.link_a > node)
        self.link_b = self.link_b - (self.link_b > node)
        self.port_guids = {(u - (u > node), p): g for (u, p), g in self.port_guids.items() if u != node}
        self._changed()

    def rename(self, old: str, new: str) -> None:
        """Rename a node (names stay unique)."""
        node = self.index(old)
        if not new or (new != old and new in self._index):
            raise TopologyError(f"node name {new!r} is empty or already used")
        self.names[node] = new
        self._changed()

    def add_link(self, a: str, b: str, pa: int | None = None, pb: int | None = None, **attrs: int) -> int:
        """Connect two nodes (lowest free ports by default) and return the new link id.

        A node's port count grows when the chosen port is beyond it. The topology is checked after the change and
        left as it was when the check fails.

        Parameters
        ----------
        a, b : str
            The two ends, by any name :meth:`index` takes.
        pa, pb : int, optional
            Their ports (default: the lowest free port of each, :meth:`free_port`).
        **attrs : int
            Link attributes (``global=1``, ...).

        Returns
        -------
        int
            The new link's stable id (one more than the largest id).

        Raises
        ------
        TopologyError
            If an end is unknown, both ends are one node, a port is taken, or the topology already has the most
            links.

        Examples
        --------
        >>> topo = Topology.from_arrays(["s", "h"], [SWITCH, ENDPOINT], [4, 1], [[0, 1, 1, 1]])
        >>> topo.add_node("h2", "endpoint")
        2
        >>> topo.add_link("s", "h2"), topo.link_label(1)
        (1, 's[2]-h2[1]')
        """
        ia, ib = self.index(a), self.index(b)
        if ia == ib:
            raise TopologyError(f"cannot link {a!r} to itself")
        if self.n_links >= MAX_LINKS:
            raise TopologyError(f"the topology already has the maximum of {MAX_LINKS} links")
        pa = self.free_port(ia) if pa is None else int(pa)
        pb = self.free_port(ib) if pb is None else int(pb)
        new_id = int(self.link_id.max()) + 1 if self.n_links else 0
        before = self.copy()
        self.nports[ia] = max(self.nports[ia], pa)
        self.nports[ib] = max(self.nports[ib], pb)
        self.link_a = np.append(self.link_a, np.int32(ia))
        self.link_pa = np.append(self.link_pa, np.int32(pa))
        self.link_b = np.append(self.link_b, np.int32(ib))
        self.link_pb = np.append(self.link_pb, np.int32(pb))
        self.link_id = np.append(self.link_id, np.int64(new_id))
        self.broken = np.append(self.broken, False)
        self._changed()
        for key in set(self.link_attrs) | set(attrs):
            col = self.link_attrs.get(key, np.full(self.n_links - 1, -1, dtype=np.int32))
            self.link_attrs[key] = np.append(col, np.int32(attrs.get(key, -1)))
        try:
            self.validate()
        except TopologyError:
            self.__dict__.update(before.__dict__)
            self._changed()
            raise
        return new_id

    def _keep_links(self, keep: np.ndarray) -> None:
        for name in ("link_a", "link_pa", "link_b", "link_pb", "link_id", "broken"):
            setattr(self, name, getattr(self, name)[keep])
        self.link_attrs = {k: v[keep] for k, v in self.link_attrs.items()}
        self._changed()

    def remove_link(self, link_id: int) -> None:
        """Delete the link with this id (other ids do not change)."""
        keep = np.ones(self.n_links, dtype=bool)
        keep[self.link_row(link_id)] = False
        self._keep_links(keep)

    def set_broken(self, link_id: int, broken: bool = True) -> None:
        """Mark a link failed (True) or repaired (False).

        Parameters
        ----------
        link_id : int
            The link's stable id.
        broken : bool
            True to break it, False to repair it.

        Raises
        ------
        TopologyError
            If no link has that id.
        """
        self.broken[self.link_row(link_id)] = bool(broken)

    # ------------------------------------------------------------ link labels
    def link_label(self, row: int) -> str:
        """The link at ``row`` named by its ends and ports, ``a[pa]-b[pb]`` (stable across edits)."""
        a, b = self.names[self.link_a[row]], self.names[self.link_b[row]]
        return f"{a}[{int(self.link_pa[row])}]-{b}[{int(self.link_pb[row])}]"

    def find_link(self, label: str) -> int | None:
        """Row of the link named ``a[pa]-b[pb]``, the form :meth:`link_label` writes.

        Either end may come first; an end is named by any name :meth:`index` takes.

        Parameters
        ----------
        label : str
            The link's label, e.g. ``"leaf0[3]-spine1[1]"``.

        Returns
        -------
        int or None
            The link's row, or None when the fabric has no such link.

        Raises
        ------
        TopologyError
            When ``label`` is not of that form.

        Examples
        --------
        >>> from vizcoll.topology.generators import from_spec
        >>> topo = from_spec("fat-tree:radix=4,levels=2")
        >>> row = topo.find_link("leaf0[1]-h0[1]")
        >>> topo.link_label(row)
        'h0[1]-leaf0[1]'
        """
        match = LINK_LABEL.fullmatch(str(label).strip())
        if not match:
            raise TopologyError(f"a link is named like s0[1]-h0[1] (end[port]-end[port]), got {label!r}")
        ends = []
        for name, port in ((match.group(1), match.group(2)), (match.group(3), match.group(4))):
            found = self.name_index.candidates(name)
            if len(found) != 1:
                return None
            ends.append((found[0], int(port)))
        rows = self._port_link.get(ends[0])
        if rows is None or self._port_link.get(ends[1]) != rows:
            return None
        return rows

    @cached_property
    def _port_link(self) -> dict[tuple[int, int], int]:
        ends = zip(np.r_[self.link_a, self.link_b].tolist(), np.r_[self.link_pa, self.link_pb].tolist(), strict=True)
        rows = np.r_[np.arange(self.n_links), np.arange(self.n_links)].tolist()
        return dict(zip(ends, rows, strict=True))

    def links_between(self, a: str, b: str) -> list[int]:
        """Ids of the links joining two named nodes."""
        ia, ib = self.index(a), self.index(b)
        hit = ((self.link_a == ia) & (self.link_b == ib)) | ((self.link_a == ib) & (self.link_b == ia))
        return self.link_id[hit].tolist()

    # ------------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        """Lossless, JSON-serialisable, column-wise form (schema ``vizcoll.topology/1``).

        Returns
        -------
        dict
            ``schema``, ``meta``, ``nodes`` (``name``, ``kind``, ``ports``, ``attrs``, and ``guid`` / ``desc``
            when set), ``links`` (``id``, ``a``, ``pa``, ``b``, ``pb``, ``broken``, ``attrs``) and ``port_guids``.
        """
        nodes: dict = {
            "name": list(self.names),
            "kind": [KIND_NAMES[k] for k in self.kind.tolist()],
            "ports": self.nports.tolist(),
            "attrs": {k: v.tolist() for k, v in sorted(self.node_attrs.items())},
        }
        if self.guid is not None:
            nodes["guid"] = [f"0x{g:016x}" for g in self.guid.tolist()]
        if self.desc is not None:
            nodes["desc"] = list(self.desc)
        links = {
            "id": self.link_id.tolist(),
            "a": self.link_a.tolist(),
            "pa": self.link_pa.tolist(),
            "b": self.link_b.tolist(),
            "pb": self.link_pb.tolist(),
            "broken": self.broken.astype(int).tolist(),
            "attrs": {k: v.tolist() for k, v in sorted(self.link_attrs.items())},
        }
        port_guids = [[u, p, f"0x{g:016x}"] for (u, p), g in sorted(self.port_guids.items())]
        return {"schema": SCHEMA, "meta": dict(self.meta), "nodes": nodes, "links": links, "port_guids": port_guids}

    @classmethod
    def from_dict(cls, data: dict) -> Topology:
        """Inverse of :meth:`to_dict`: the topology of its dict, checked.

        Parameters
        ----------
        data : dict
            What :meth:`to_dict` returned (e.g. read back from JSON).

        Returns
        -------
        Topology
            The fabric, validated.

        Raises
        ------
        TopologyError
            Naming the bad field (wrong schema, missing field, wrong type, sizes over the limits).

        Examples
        --------
        >>> from vizcoll.topology.generators import from_spec
        >>> topo = from_spec("torus:3x3,hosts=1")
        >>> Topology.from_dict(topo.to_dict()) == topo
        True
        """
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise TopologyError(f"not a vizcoll topology: the field 'schema' must be {SCHEMA!r}")
        try:
            nodes, links = data["nodes"], data["links"]
            n = len(nodes["name"])
            if n > MAX_NODES:
                raise TopologyError(f"{n} nodes is more than the limit of {MAX_NODES}")
            if len(links["id"]) > MAX_LINKS:
                raise TopologyError(f"{len(links['id'])} links is more than the limit of {MAX_LINKS}")
            kinds = [KIND_NAMES.index(k) for k in nodes["kind"]]
            named = next((i for i, x in enumerate(nodes["name"]) if not isinstance(x, str) or not x), None)
            if named is not None:
                raise TopologyError(f"'nodes.name' {named} must be non-empty text (it is {nodes['name'][named]!r})")
            topo = cls(
                names=list(nodes["name"]),
                kind=_int_array(kinds, np.int8),
                nports=_int_array(nodes["ports"]),
                link_a=_int_array(links["a"]),
                link_pa=_int_array(links["pa"]),
                link_b=_int_array(links["b"]),
                link_pb=_int_array(links["pb"]),
                link_id=_int_array(links["id"], np.int64),
                broken=_int_array(links["broken"], bool),
                node_attrs={k: _int_array(v) for k, v in nodes.get("attrs", {}).items()},
                link_attrs={k: _int_array(v) for k, v in links.get("attrs", {}).items()},
                meta=dict(data.get("meta", {})),
            )
            if "guid" in nodes:
                topo.guid = np.array([int(g, 16) for g in nodes["guid"]], dtype=np.uint64)
                if len(topo.guid) != n:
                    raise TopologyError(f"'nodes.guid' has {len(topo.guid)} entries for {n} nodes")
            if "desc" in nodes:
                topo.desc = [str(x) for x in nodes["desc"]]
                if len(topo.desc) != n:
                    raise TopologyError(f"'nodes.desc' has {len(topo.desc)} entries for {n} nodes")
            topo.port_guids = {(int(u), int(p)): int(g, 16) for u, p, g in data.get("port_guids", [])}
        except TopologyError:
            raise
        except KeyError as exc:
            raise TopologyError(f"missing field {exc.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise TopologyError(f"a field has the wrong type or value ({exc})") from None
        topo.validate()
        return topo
