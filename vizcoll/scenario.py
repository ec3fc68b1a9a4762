"""One scenario that every page looks at: a fabric, the user's edits, broken links, communicators, page settings.

A scenario stores *how* to rebuild what the user sees:

- the fabric's source: a generator spec (``fat-tree:radix=4,levels=3``) or an
  uploaded / imported topology (its lossless dict, with the file's name), kept
  once by its content hash, its *ref* (:mod:`vizcoll.uploads`): the store the
  browser keeps (:meth:`Scenario.to_dict` with ``thin=True``) and every cache
  key carry the ref, a few dozen characters, where they carried megabytes;
- the structural edits made on top of it, in order (add/remove nodes and
  links, rename);
- the broken links, in ONE encoding: each names its link by its ends and
  ports, ``a[pa]-b[pb]`` (:meth:`Topology.link_label`). Link ids are only a
  display aid, so resizing a grid or editing the fabric never moves a break
  onto another link; a break whose link no longer exists stays listed as
  *missing* (:meth:`Scenario.missing_breaks`) and breaks nothing;
- the communicators: a pattern (``grid2d:4x4``) with processes per node, or
  explicit lists of end-node names (uploaded or drawn by hand);
- each page's parameters, ``params[page] = {key: value}``;
- the fabric's **multicast tables**, when the user loaded them: the text of
  OpenSM's ``opensm.mcfdbs`` dump (:mod:`vizcoll.multicast.tables` reads it
  against the fabric; the /multicast page shows them beside FULB-MC). Stored
  as the file's text, at most :data:`MAX_TABLES_CHARS` characters, and only
  checked here for being such a text: reading it against the fabric is the
  page's (cached) work, not every request's. They do not change the
  topology, so :meth:`Scenario.source_key` leaves them out; a new fabric (a
  new ``Scenario``) has none, while edits, breaks and communicators keep
  them. What they cost: the browser keeps the scenario in session storage
  (5 MiB per origin) and posts it with every callback, so the tables travel
  with each request (a FULB-MC dump of 1,000 groups of 64 end nodes on a
  1,344-node fat tree is 2 MB); in the share link they are compressed like an
  uploaded fabric (that dump: 0.34 M characters of fragment; a scenario past
  :data:`MAX_FRAGMENT_CHARS` is shared as a file).

The multicast tables still travel with the browser's store (they are the
user's text, at most :data:`MAX_TABLES_CHARS`).

:meth:`Scenario.topology` is the one way to get the fabric with its breaks
applied. Scenarios travel as JSON files (:meth:`dumps` / :meth:`loads`,
schema ``vizcoll.scenario/2``; files of schema ``/1``, whose breaks were link
ids, are converted) and as URL fragments (:meth:`to_fragment`: zlib-compressed
JSON in base64url), both whole (the uploaded fabric itself, so that they open
on another server). Everything read is checked: scenarios come from browsers;
a thin scenario's ref is believed only when the store holds it.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from vizcoll import uploads
from vizcoll.comm import PATTERNS, Communicators, Placement, from_lists, parse_pattern, place
from vizcoll.errors import VizcollError
from vizcoll.topology.generators import from_spec
from vizcoll.topology.layout import edited_positions
from vizcoll.topology.layout import positions as layout_positions
from vizcoll.topology.model import ENDPOINT, LINK_LABEL, Topology
from vizcoll.words import plural

__all__ = [
    "SCHEMA",
    "DEFAULT_SPEC",
    "EDIT_OPS",
    "MAX_FRAGMENT_CHARS",
    "MAX_TABLES_CHARS",
    "WORLD",
    "FABRIC_BOUND",
    "Scenario",
    "apply_edit",
]

SCHEMA = "vizcoll.scenario/2"
OLD_SCHEMA = "vizcoll.scenario/1"
DEFAULT_SPEC = "fat-tree:radix=4,levels=3"
EDIT_OPS = ("add_node", "remove_node", "rename", "add_link", "remove_link")
MAX_EDITS = 10_000
MAX_BREAKS = 200_000
MAX_PARAMS = 64
MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_FRAGMENT_CHARS = 2_000_000
WORLD = -1
"""The communicator index of every process of the scenario (MPI_COMM_WORLD) in :meth:`Scenario.placement`."""
"""Longest share-link fragment: Chromium's URL limit is 2 MB (a larger scenario is shared as a file)."""
MAX_TABLES_CHARS = 4 * 1024 * 1024
"""Longest multicast-tables text. The browser keeps the whole scenario in session storage, which holds
5 MiB per origin (Chromium measured: 5,241,856 characters; Firefox: 5 MiB), and the dump's newlines
double in JSON; 4 MiB leaves room for the fabric, and its share-link fragment (about a fifth of the text,
measured on dumps of FULB routings) stays under :data:`MAX_FRAGMENT_CHARS`. That is ~150,000 table lines:
a fat tree of 1,344 nodes with 1,000 groups of 64 end nodes dumps 2 MB."""


def apply_edit(topo: Topology, edit: dict) -> None:
    """Apply one structural edit (``{"op": ..., ...}``) to ``topo`` in place.

    Ops: ``add_node`` (name, kind), ``remove_node`` (name), ``rename`` (name,
    new), ``add_link`` (a, b; optional ports pa, pb), ``remove_link`` (link:
    its ``a[pa]-b[pb]`` label).

    Parameters
    ----------
    topo : Topology
        The fabric to change.
    edit : dict
        The edit: its ``op`` (one of :data:`EDIT_OPS`) and that op's fields.

    Raises
    ------
    VizcollError
        For an unknown op, a missing field, a bad name or port, a link the fabric lacks, or an edit the topology
        refuses (:class:`~vizcoll.errors.TopologyError`).

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> apply_edit(topo, {"op": "add_node", "name": "h8", "kind": "endpoint"})
    >>> apply_edit(topo, {"op": "add_link", "a": "leaf3", "b": "h8"})
    >>> topo.links_between("leaf3", "h8")
    [16]
    """
    op = edit.get("op")
    try:
        if op == "add_node":
            topo.add_node(_name(edit["name"]), edit.get("kind", "switch"))
        elif op == "remove_node":
            topo.remove_node(_name(edit["name"]))
        elif op == "rename":
            topo.rename(_name(edit["name"]), _name(edit["new"]))
        elif op == "add_link":
            topo.add_link(_name(edit["a"]), _name(edit["b"]), _port(edit.get("pa")), _port(edit.get("pb")))
        elif op == "remove_link":
            topo.remove_link(int(topo.link_id[_row(topo, edit["link"])]))
        else:
            raise VizcollError(f"unknown edit {op!r}; choose one of {', '.join(EDIT_OPS)}")
    except KeyError as exc:
        raise VizcollError(f"edit {op!r} is missing the field {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, VizcollError):
            raise
        raise VizcollError(f"edit {op!r} has a bad value ({exc})") from None


def _name(value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise VizcollError(f"a node name must be a non-empty text, got {value!r}")
    return value.strip()


def _port(value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise VizcollError(f"a port number must be a whole number ≥ 1, got {value!r}")
    return value


def _row(topo: Topology, label) -> int:
    row = topo.find_link(label)
    if row is None:
        raise VizcollError(f"the fabric has no link {label}")
    return row


FABRIC_BOUND = ("part", "root", "group", "comm")  # page parameters naming a pod, a root, a group, a communicator


@dataclass
class Scenario:
    """What the user built: a fabric, the user's edits, broken links, communicators and page settings.

    A scenario stores *how* to rebuild what the user sees (see the module docstring): the fabric's source (a
    generator spec, or an uploaded topology kept once by its content hash, its ``ref``), the structural edits in
    order, the broken links each named ``a[pa]-b[pb]`` (so no edit moves a break onto another link; a break whose
    link no longer exists stays listed as missing and breaks nothing), the communicators (a pattern with processes
    per node, or explicit name lists), each page's parameters and the fabric's multicast tables when loaded.
    :meth:`topology` is the one way to get the fabric with its breaks applied. A scenario travels as a JSON file
    (:meth:`dumps` / :meth:`loads`, schema ``vizcoll.scenario/2``; files of schema ``/1`` are converted) and as a
    URL fragment (:meth:`to_fragment`). Every ``with_*`` change returns a new scenario.

    Parameters
    ----------
    spec : str
        The generator spec of the fabric (``""`` for an uploaded one).
    uploaded : dict or None
        The uploaded fabric's lossless dict (:meth:`Topology.to_dict`), when this object holds it; stored by its
        hash, which becomes ``ref``.
    name : str
        The uploaded file's name.
    edits : list of dict
        The structural edits, in order (:func:`apply_edit`).
    broken : list of str
        The broken links, by their labels ``a[pa]-b[pb]``.
    pattern : str
        The communicators' pattern (``grid2d:4x4``, ...), or ``""``.
    ppn : int
        Processes per node for the pattern.
    lists : list of list of str or None
        Explicit communicators as end-node name lists (they win over ``pattern``).
    params : dict of str to dict
        Each page's parameters, ``params[page] = {key: value}``.
    mcast_tables : str or None
        The text of an ``opensm.mcfdbs`` dump (at most :data:`MAX_TABLES_CHARS` characters), or None.
    ref : str
        The uploaded fabric's content address (:mod:`vizcoll.uploads`; ``""`` for a generated fabric).

    Examples
    --------
    >>> scenario = Scenario(spec="fat-tree:radix=4,levels=2", pattern="grid2d:4x2")
    >>> scenario = scenario.toggled("leaf0[3]-spine0[1]")
    >>> scenario.broken, int(scenario.topology().broken.sum())
    (['leaf0[3]-spine0[1]'], 1)
    >>> Scenario.loads(scenario.dumps()) == scenario
    True
    """

    spec: str = DEFAULT_SPEC
    uploaded: dict | None = field(default=None, compare=False, repr=False)
    """The uploaded fabric's lossless dict, when this object holds it (a thin scenario holds only its ``ref``)."""
    name: str = ""
    edits: list[dict] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    pattern: str = ""
    ppn: int = 1
    lists: list[list[str]] | None = None
    params: dict[str, dict] = field(default_factory=dict)
    mcast_tables: str | None = None
    """The fabric's multicast tables: the text of an ``opensm.mcfdbs`` dump (None: none loaded)."""
    ref: str = ""
    """The uploaded fabric's content address (:mod:`vizcoll.uploads`; "" for a generated fabric)."""

    def __post_init__(self) -> None:
        if self.uploaded is not None and not self.ref:
            self.ref = uploads.put(self.uploaded)

    @classmethod
    def from_upload(cls, topo: Topology, name: str) -> Scenario:
        """A scenario on an uploaded fabric; the file's broken links become the scenario's breaks.

        Parameters
        ----------
        topo : Topology
            The fabric as read from the file.
        name : str
            The file's name (default ``"uploaded fabric"`` when empty).

        Returns
        -------
        Scenario
            A scenario holding the fabric with no link broken, and its breaks listed.
        """
        broken = [topo.link_label(r) for r in np.flatnonzero(topo.broken).tolist()]
        intact = topo.copy()
        intact.broken[:] = False
        return cls(spec="", uploaded=intact.to_dict(), name=name or "uploaded fabric", broken=broken)

    # ------------------------------------------------------------ the fabric
    @property
    def title(self) -> str:
        """The fabric's name for people: the spec, or the uploaded file's name (+ edits)."""
        base = self.name if self.ref else self.spec
        return base + (f" + {plural(len(self.edits), 'edit')}" if self.edits else "")

    def fabric(self) -> Topology:
        """The fabric without breaks: the source with every edit replayed in order.

        Returns
        -------
        Topology
            A new topology (built from the spec or the uploaded dict).

        Raises
        ------
        VizcollError
            When the source cannot be built or an edit no longer applies.
        """
        topo = Topology.from_dict(self.uploaded_fabric()) if self.ref else from_spec(self.spec)
        topo.broken[:] = False
        for edit in self.edits:
            apply_edit(topo, edit)
        return topo

    def uploaded_fabric(self) -> dict | None:
        """The uploaded fabric's lossless dict (from the store when this scenario is thin); None for a spec."""
        if not self.ref:
            return None
        return self.uploaded if self.uploaded is not None else uploads.get(self.ref)

    def positions(self, fabric: Topology | None = None) -> np.ndarray:
        """Where a drawing puts each node of :meth:`fabric` (``(n, 2)``): the source fabric's layout with every
        edit replayed on it (:func:`vizcoll.topology.layout.edited_positions`), so an edit moves no node it did
        not add, and a new node goes next to what it is linked to. ``fabric`` is :meth:`fabric` when the caller
        has it already (it is not changed)."""
        fabric = self.fabric() if fabric is None else fabric
        if not self.edits:
            return layout_positions(fabric)
        return edited_positions(replace(self, edits=[]).fabric(), self.edits, fabric)

    def topology(self, fabric: Topology | None = None) -> Topology:
        """The fabric with the scenario's breaks applied (breaks naming a missing link are skipped).

        Parameters
        ----------
        fabric : Topology, optional
            :meth:`fabric` when the caller has it already (a copy is broken, not it).

        Returns
        -------
        Topology
            The fabric with its broken links marked.
        """
        topo = self.fabric() if fabric is None else fabric.copy()
        rows = [r for r in (topo.find_link(label) for label in self.broken) if r is not None]
        topo.broken[rows] = True
        return topo

    def missing_breaks(self, topo: Topology) -> list[str]:
        """The breaks whose link is not in ``topo`` (e.g. removed, or the grid got smaller).

        Parameters
        ----------
        topo : Topology
            The scenario's fabric.

        Returns
        -------
        list of str
            Their labels, in the scenario's order.
        """
        return [label for label in self.broken if topo.find_link(label) is None]

    def source_key(self) -> dict:
        """Everything that determines :meth:`topology` (for cache keys; ``Scenario(**key)`` is a thin scenario
        with that topology)."""
        return {"spec": self.spec, "ref": self.ref, "edits": self.edits, "broken": self.broken}

    # ------------------------------------------------------------ changes (each returns a new scenario)
    def with_edit(self, edit: dict) -> Scenario:
        """The scenario with ``edit`` appended, after checking that it applies.

        A rename carries the breaks on that node along.

        Parameters
        ----------
        edit : dict
            A structural edit (:func:`apply_edit`).

        Returns
        -------
        Scenario
            A new scenario.

        Raises
        ------
        VizcollError
            When the edit does not apply to the fabric.
        """
        apply_edit(self.fabric(), edit)
        broken = self.broken
        if edit.get("op") == "rename":
            broken = [_renamed(label, edit["name"], edit["new"]) for label in broken]
        return replace(self, edits=[*self.edits, dict(edit)], broken=broken)

    def toggled(self, label: str) -> Scenario:
        """The link ``label`` broken if it was live, repaired if it was broken (or listed as missing).

        Parameters
        ----------
        label : str
            The link, ``a[pa]-b[pb]`` (either end first, any name of a node).

        Returns
        -------
        Scenario
            A new scenario.

        Raises
        ------
        VizcollError
            When the fabric has no such link.
        TopologyError
            When ``label`` is not of the form ``a[pa]-b[pb]``.
        """
        if label in self.broken:
            return replace(self, broken=[b for b in self.broken if b != label])
        topo = self.fabric()
        row = _row(topo, label)
        same = [b for b in self.broken if topo.find_link(b) == row]
        if same:
            return replace(self, broken=[b for b in self.broken if b not in same])
        return replace(self, broken=[*self.broken, topo.link_label(row)])

    def with_breaks(self, labels: list[str]) -> Scenario:
        """The scenario with exactly these links broken (each checked against the fabric).

        Parameters
        ----------
        labels : list of str
            The links, ``a[pa]-b[pb]`` each.

        Returns
        -------
        Scenario
            A new scenario; the labels are written as the fabric names the links, without repeats.

        Raises
        ------
        VizcollError
            When the fabric lacks one of the links.
        """
        topo = self.fabric()
        return replace(self, broken=list(dict.fromkeys(topo.link_label(_row(topo, label)) for label in labels)))

    def with_member(self, topo: Topology, name: str, comm: int) -> Scenario:
        """End node ``name`` put into communicator ``comm`` (taken out if it is in; a new one when ``comm`` is
        :data:`WORLD` or does not exist). A pattern is first written out as name lists, so editing by hand
        continues from what the user sees; a communicator left empty is dropped."""
        if name not in topo or topo.kind[topo.index(name)] != ENDPOINT:
            raise VizcollError(f"{name!r} is not an end node: only end nodes run processes")
        lists = [list(c) for c in (self.lists if self.lists is not None else self.name_lists(topo))]
        if not (isinstance(comm, int) and 0 <= comm < len(lists)):
            lists.append([name])
        elif name in lists[comm]:
            lists[comm] = [n for n in lists[comm] if n != name]
        else:
            lists[comm].append(name)
        return replace(self, pattern="", lists=[c for c in lists if c])

    def params_for_new_fabric(self) -> dict[str, dict]:
        """The pages' parameters for another fabric, without those naming this one's pods, root, groups or
        communicators (:data:`FABRIC_BOUND`): ``{"topology": {"root": "h0", "speed": 2}}`` gives
        ``{"topology": {"speed": 2}}``."""
        return {
            page: {key: value for key, value in values.items() if key not in FABRIC_BOUND}
            for page, values in self.params.items()
        }

    def with_params(self, page: str, values: dict) -> Scenario:
        """The scenario with page ``page``'s parameters replaced.

        Parameters
        ----------
        page : str
            The page's key (``"trees"``, ``"barrier"``, ...).
        values : dict
            Its parameters.

        Returns
        -------
        Scenario
            A new scenario.
        """
        return replace(self, params={**self.params, page: dict(values)})

    # ------------------------------------------------------------ communicators
    def communicators(self, topo: Topology) -> Communicators | None:
        """The communicators on ``topo``: explicit name lists, else the pattern (None when neither).

        Scenarios come from strangers, so only the built-in pattern kinds are
        accepted here, never a path to a file on the server.

        Parameters
        ----------
        topo : Topology
            The scenario's fabric.

        Returns
        -------
        Communicators or None
            The communicators with their placement, or None.

        Raises
        ------
        VizcollError
            For a pattern of an unknown kind, a malformed one, or names the fabric lacks.
        """
        if self.lists is not None:
            return from_lists(topo, self.lists)
        if not self.pattern:
            return None
        if self.pattern.partition(":")[0] not in PATTERNS:
            raise VizcollError(
                f"unknown pattern {self.pattern!r}; use {', '.join(PATTERNS)} or upload a communicators file"
            )
        return parse_pattern(self.pattern, topo, ppn=self.ppn)

    def name_lists(self, topo: Topology) -> list[list[str]]:
        """The communicators as lists of end-node names (a name repeated = several processes on it)."""
        comms = self.communicators(topo)
        if comms is None:
            return []
        return [[topo.names[n] for n in comms.nodes(i).tolist()] for i in range(len(comms))]

    def placement(self, topo: Topology, comm: int = WORLD) -> Placement:
        """Where communicator ``comm``'s processes run, rank ``j`` = its ``j``-th member.

        Parameters
        ----------
        topo : Topology
            The scenario's fabric.
        comm : int
            A communicator's index, or :data:`WORLD`: every process of the scenario (the communicators'
            placement, or every end node x ``ppn`` when the scenario has none).

        Returns
        -------
        Placement
            The placement (order ``"lists"`` for one communicator).

        Raises
        ------
        VizcollError
            When communicator ``comm`` does not exist.
        """
        comms = self.communicators(topo)
        if comm == WORLD:
            return comms.placement if comms is not None and comms.placement is not None else place(topo, ppn=self.ppn)
        if comms is None or not 0 <= comm < len(comms):
            count = 0 if comms is None else len(comms)
            raise VizcollError(f"communicator {comm} does not exist: the scenario has {count}")
        nodes = comms.nodes(comm)
        return Placement(nodes, int(np.bincount(nodes).max()), "lists", 0)

    # ------------------------------------------------------------ files
    def to_dict(self, thin: bool = False) -> dict:
        """Plain JSON; ``multicast_tables`` only when tables are loaded (so files without stay as they were).

        Parameters
        ----------
        thin : bool
            The uploaded fabric named by its ``ref`` alone (``fabric.uploaded`` null), for the browser's store;
            else (default) the fabric itself (files, share links: they open on any server).

        Returns
        -------
        dict
            ``schema`` (``vizcoll.scenario/2``), ``fabric``, ``edits``, ``broken``, ``communicators``, ``params``
            and, when loaded, ``multicast_tables``.
        """
        fabric = {"spec": self.spec, "uploaded": None if thin else self.uploaded_fabric(), "name": self.name}
        if thin and self.ref:
            fabric["ref"] = self.ref
        data = {
            "schema": SCHEMA,
            "fabric": fabric,
            "edits": [dict(e) for e in self.edits],
            "broken": list(self.broken),
            "communicators": {"pattern": self.pattern, "ppn": self.ppn, "lists": self.lists},
            "params": {page: dict(values) for page, values in self.params.items()},
        }
        if self.mcast_tables is not None:
            data["multicast_tables"] = self.mcast_tables
        return data

    @classmethod
    def from_dict(cls, data, build: Callable[[Scenario], object] | None = None) -> Scenario:
        """Inverse of :meth:`to_dict`, checking every field and that the fabric builds.

        A dict of the old schema ``vizcoll.scenario/1`` (breaks as link ids) is converted.

        Parameters
        ----------
        data : dict
            A scenario's dict (from a browser or a file: untrusted).
        build : callable, optional
            Builds the scenario's fabric to check it, e.g. a cached :meth:`fabric` (default: :meth:`fabric`).

        Returns
        -------
        Scenario
            The scenario.

        Raises
        ------
        VizcollError
            Naming the first bad field, or why the fabric does not build.
        """
        if isinstance(data, dict) and data.get("schema") == OLD_SCHEMA:
            return _from_v1(data)
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise VizcollError(f"not a vizcoll scenario: the field 'schema' must be {SCHEMA!r}")
        fabric = _dict(data.get("fabric") or {}, "fabric")
        comm = _dict(data.get("communicators") or {}, "communicators")
        scenario = cls(
            spec=_text(fabric.get("spec") or "", "fabric.spec"),
            uploaded=_dict(fabric["uploaded"], "fabric.uploaded") if fabric.get("uploaded") is not None else None,
            ref=_known_ref(fabric) if fabric.get("uploaded") is None else "",  # a given fabric: its own hash
            name=_text(fabric.get("name") or "", "fabric.name"),
            edits=_list_of(data.get("edits") or [], "edits", dict, MAX_EDITS),
            broken=_list_of(data.get("broken") or [], "broken", str, MAX_BREAKS),
            pattern=_text(comm.get("pattern") or "", "communicators.pattern"),
            ppn=_ppn(comm.get("ppn", 1)),
            lists=_lists(comm.get("lists")),
            params=_params(data.get("params") or {}),
            mcast_tables=_tables(data.get("multicast_tables")),
        )
        if not scenario.ref and not scenario.spec:
            raise VizcollError("a scenario needs 'fabric.spec' (a generator spec) or 'fabric.uploaded'")
        (build or cls.fabric)(scenario)
        return scenario

    def dumps(self) -> str:
        """The scenario as a JSON file's text (the whole fabric included, keys sorted).

        Returns
        -------
        str
            Indented JSON of :meth:`to_dict`.
        """
        return json.dumps(self.to_dict(), indent=1, sort_keys=True)

    @classmethod
    def loads(cls, text: str | bytes, build: Callable[[Scenario], object] | None = None) -> Scenario:
        """The scenario of a JSON text.

        Parameters
        ----------
        text : str or bytes
            A scenario file's content (at most 64 MB).
        build : callable, optional
            As :meth:`from_dict`'s.

        Returns
        -------
        Scenario
            The scenario.

        Raises
        ------
        VizcollError
            When the text is too large, not JSON, or not a valid scenario.
        """
        if len(text) > MAX_JSON_BYTES:
            raise VizcollError(f"the scenario file is larger than {MAX_JSON_BYTES >> 20} MB")
        try:
            return cls.from_dict(json.loads(text), build)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise VizcollError(f"the scenario file is not valid JSON ({exc})") from None

    # ------------------------------------------------------------ URL fragments
    def to_fragment(self) -> str:
        """The scenario as compact text for a URL fragment: base64url of zlib-compressed JSON.

        Returns
        -------
        str
            The fragment, without ``=`` padding.
        """
        raw = json.dumps(self.to_dict(), separators=(",", ":"), sort_keys=True).encode()
        return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")

    @classmethod
    def from_fragment(cls, text: str, build: Callable[[Scenario], object] | None = None) -> Scenario:
        """Inverse of :meth:`to_fragment`.

        Parameters
        ----------
        text : str
            The fragment (at most :data:`MAX_FRAGMENT_CHARS` characters).
        build : callable, optional
            As :meth:`from_dict`'s.

        Returns
        -------
        Scenario
            The scenario.

        Raises
        ------
        VizcollError
            When the fragment is too long, damaged (a link cut short) or not a valid scenario.
        """
        if not isinstance(text, str) or len(text) > MAX_FRAGMENT_CHARS:
            raise VizcollError("the link's scenario is too long or not text")
        try:
            packed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            inflater = zlib.decompressobj()
            raw = inflater.decompress(packed, MAX_JSON_BYTES)
            if inflater.unconsumed_tail:
                raise VizcollError(f"the link's scenario is larger than {MAX_JSON_BYTES >> 20} MB")
            if not inflater.eof:
                raise zlib.error("truncated")
        except (binascii.Error, ValueError, zlib.error) as exc:
            if isinstance(exc, VizcollError):
                raise
            raise VizcollError("the link's scenario is damaged (was the link cut short?)") from None
        return cls.loads(raw, build)


# ---------------------------------------------------------------- checks of untrusted fields
def _dict(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise VizcollError(f"the field {where!r} must be an object")
    return value


def _text(value, where: str, limit: int = 4096) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise VizcollError(f"the field {where!r} must be a text of at most {limit} characters")
    return value.strip()


def _list_of(value, where: str, kind: type, limit: int) -> list:
    if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
        raise VizcollError(f"the field {where!r} must be a list of {'objects' if kind is dict else 'texts'}")
    if len(value) > limit:
        raise VizcollError(f"the field {where!r} has {len(value):,} entries; the limit is {limit:,}")
    return [dict(v) if kind is dict else v for v in value]


def _known_ref(fabric: dict) -> str:
    """A thin scenario's ``fabric.ref`` ("" when it has none), once the store is known to hold it."""
    ref = fabric.get("ref")
    if ref is None:
        return ""
    uploads.get(ref)  # a ref the store does not hold: the message says how to get the fabric back
    return ref


def _ppn(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1024:
        raise VizcollError(f"processes per node must be a whole number from 1 to 1024, got {value!r}")
    return value


def _lists(value) -> list[list[str]] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(c, list) and all(isinstance(n, str) for n in c) for c in value
    ):
        raise VizcollError("the field 'communicators.lists' must be a list of lists of end-node names")
    return [list(c) for c in value]


def _params(value) -> dict[str, dict]:
    params = _dict(value, "params")
    scalar = (str, int, float, bool, type(None))
    for page, values in params.items():
        if (
            not isinstance(values, dict)
            or len(values) > MAX_PARAMS
            or not all(isinstance(k, str) and isinstance(v, scalar) for k, v in values.items())
        ):
            raise VizcollError(f"the field 'params.{page}' must be an object of at most {MAX_PARAMS} plain values")
    return {str(page): dict(values) for page, values in params.items()}


def _tables(value) -> str | None:
    """The multicast tables' text (None when absent): a non-empty text of at most :data:`MAX_TABLES_CHARS`."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TABLES_CHARS:
        raise VizcollError(
            f"the field 'multicast_tables' must be the non-empty text of an opensm.mcfdbs dump of at "
            f"most {MAX_TABLES_CHARS:,} characters"
        )
    return value


def _renamed(label: str, old: str, new: str) -> str:
    """``label`` with the end named ``old`` renamed to ``new``."""
    match = LINK_LABEL.fullmatch(label)
    if not match:
        return label
    a, pa, b, pb = match.groups()
    a, b = (new if a == old else a), (new if b == old else b)
    return f"{a}[{pa}]-{b}[{pb}]"


def _from_v1(data: dict) -> Scenario:
    """A schema-1 scenario (breaks and removed links named by link id) in today's encoding."""
    topology = data.get("topology")
    source = Scenario(
        spec=str(data.get("spec") or DEFAULT_SPEC),
        uploaded=topology,
        name=str(data.get("spec") or "").removeprefix("file:"),
    )
    if topology is not None:
        source.spec = ""
    topo = source.fabric()
    edits = []
    for edit in _list_of(data.get("edits") or [], "edits", dict, MAX_EDITS):
        try:
            if edit.get("op") == "toggle_broken":
                row = topo.link_row(int(edit["id"]))
                topo.broken[row] = not topo.broken[row]
                continue
            if edit.get("op") == "remove_link":
                edit = {"op": "remove_link", "link": topo.link_label(topo.link_row(int(edit["id"])))}
        except (KeyError, TypeError, ValueError) as exc:
            raise VizcollError(f"edit {edit.get('op')!r} of the old scenario is unusable ({exc})") from None
        apply_edit(topo, edit)
        edits.append(edit)
    comm = _dict(data.get("communicators") or {}, "communicators")
    root = (data.get("params") or {}).get("root")
    return replace(
        source,
        edits=edits,
        broken=[topo.link_label(r) for r in np.flatnonzero(topo.broken).tolist()],
        pattern=_text(comm.get("pattern") or "", "communicators.pattern"),
        ppn=_ppn(comm.get("ppn", 1)),
        lists=_lists(comm.get("lists")),
        params={"topology": {"root": root}} if root else {},
    )
