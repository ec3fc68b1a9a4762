"""One serialisable scenario: a topology source, the user's edits, communicators and view parameters.

A scenario stores *how* to rebuild what the user sees rather than the full
fabric: a generator spec (or, for uploaded files, the topology's lossless
dict), then the ordered list of edits the user made (add/remove nodes and
links, rename, break/repair links). Replaying the edits on the source gives
the exact same topology, link ids included, so a scenario exported to JSON and
imported back shows the identical view. A compact form for URLs keeps the spec,
the broken link ids, the communicator pattern and the view parameters; edits
other than broken links only travel in exported files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from urllib.parse import parse_qsl, urlencode

from vizcoll.comm import Communicators, from_lists, parse_pattern
from vizcoll.errors import VizcollError
from vizcoll.topology.generators import from_spec
from vizcoll.topology.model import Topology

__all__ = ["SCHEMA", "DEFAULT_SPEC", "EDIT_OPS", "Scenario", "apply_edit"]

SCHEMA = "vizcoll.scenario/1"
DEFAULT_SPEC = "fat-tree:radix=4,levels=3"
EDIT_OPS = ("add_node", "remove_node", "rename", "add_link", "remove_link", "toggle_broken")
VIEW_KEYS = ("root",)
PATTERN_KINDS = ("grid2d", "grid3d", "random", "hier")


def apply_edit(topo: Topology, edit: dict) -> None:
    """Apply one edit dict (``{"op": ..., ...}``) to ``topo`` in place.

    Ops: ``add_node`` (name, kind), ``remove_node`` (name), ``rename`` (name,
    new), ``add_link`` (a, b), ``remove_link`` (id), ``toggle_broken`` (id).
    """
    op = edit.get("op")
    try:
        if op == "add_node":
            topo.add_node(str(edit["name"]), edit.get("kind", "switch"))
        elif op == "remove_node":
            topo.remove_node(str(edit["name"]))
        elif op == "rename":
            topo.rename(str(edit["name"]), str(edit["new"]))
        elif op == "add_link":
            topo.add_link(str(edit["a"]), str(edit["b"]))
        elif op == "remove_link":
            topo.remove_link(int(edit["id"]))
        elif op == "toggle_broken":
            row = topo.link_row(int(edit["id"]))
            topo.broken[row] = not topo.broken[row]
        else:
            raise VizcollError(f"unknown edit {op!r}; choose one of {', '.join(EDIT_OPS)}")
    except KeyError as exc:
        raise VizcollError(f"edit {op!r} is missing the field {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, VizcollError):
            raise
        raise VizcollError(f"edit {op!r} has a bad value ({exc})") from None


@dataclass
class Scenario:
    """What the user built: topology source + edits + communicators + view parameters."""

    spec: str = DEFAULT_SPEC
    topology: dict | None = None
    edits: list[dict] = field(default_factory=list)
    pattern: str = ""
    ppn: int = 1
    params: dict = field(default_factory=dict)
    lists: list[list[str]] | None = None

    def source_key(self) -> str:
        """A canonical string of everything that determines the topology (for cache keys)."""
        return json.dumps([self.spec, self.topology, self.edits], sort_keys=True, separators=(",", ":"))

    def build(self) -> Topology:
        """The topology: the source with every edit replayed in order."""
        topo = Topology.from_dict(self.topology) if self.topology is not None else from_spec(self.spec)
        for edit in self.edits:
            apply_edit(topo, edit)
        return topo

    def with_edit(self, edit: dict) -> Scenario:
        """A new scenario with ``edit`` appended, after checking it applies cleanly."""
        apply_edit(self.build(), edit)
        return replace(self, edits=[*self.edits, dict(edit)])

    def communicators(self, topo: Topology) -> Communicators | None:
        """The communicators on ``topo``: uploaded name lists, else the pattern (None when neither).

        Scenarios may come from strangers, so only the built-in pattern kinds
        are accepted here, never a path to a file on the server.
        """
        if self.lists is not None:
            return from_lists(topo, self.lists)
        if not self.pattern:
            return None
        if self.pattern.partition(":")[0] not in PATTERN_KINDS:
            raise VizcollError(f"unknown pattern {self.pattern!r}; use {', '.join(PATTERN_KINDS)} "
                               "or upload a communicators file")
        return parse_pattern(self.pattern, topo, ppn=self.ppn)

    def broken_ids(self) -> list[int]:
        """Ids of the links broken in the built topology."""
        topo = self.build()
        return sorted(topo.link_id[topo.broken].tolist())

    # ------------------------------------------------------------ files
    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "spec": self.spec,
            "topology": self.topology,
            "edits": [dict(e) for e in self.edits],
            "communicators": {"pattern": self.pattern, "ppn": self.ppn, "lists": self.lists},
            "params": dict(self.params),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Scenario:
        """Inverse of :meth:`to_dict`; checks the schema and that the topology builds."""
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise VizcollError(f"not a vizcoll scenario: the field 'schema' must be {SCHEMA!r}")
        comm = data.get("communicators") or {}
        edits = data.get("edits") or []
        if not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
            raise VizcollError("the field 'edits' must be a list of objects")
        try:
            scenario = cls(
                spec=str(data.get("spec") or DEFAULT_SPEC),
                topology=data.get("topology"),
                edits=edits,
                pattern=str(comm.get("pattern") or ""),
                ppn=int(comm.get("ppn") or 1),
                params=dict(data.get("params") or {}),
                lists=comm.get("lists"),
            )
        except (TypeError, ValueError) as exc:
            raise VizcollError(f"a scenario field has the wrong type ({exc})") from None
        scenario.build()
        return scenario

    def dumps(self) -> str:
        return json.dumps(self.to_dict(), indent=1, sort_keys=True)

    @classmethod
    def loads(cls, text: str | bytes) -> Scenario:
        try:
            return cls.from_dict(json.loads(text))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise VizcollError(f"the scenario file is not valid JSON ({exc})") from None

    # ------------------------------------------------------------ URLs
    def to_query(self) -> str:
        """Compact URL query: spec, broken link ids, pattern, ppn and view parameters."""
        items = {"spec": self.spec}
        broken = self.broken_ids() if self.edits else []
        if broken:
            items["broken"] = ".".join(map(str, broken))
        if self.pattern:
            items["pattern"] = self.pattern
        if self.ppn != 1:
            items["ppn"] = str(self.ppn)
        items.update({k: str(v) for k, v in sorted(self.params.items()) if k in VIEW_KEYS and v not in (None, "")})
        return urlencode(items)

    @classmethod
    def from_query(cls, query: str) -> Scenario:
        """Inverse of :meth:`to_query` (uploaded topologies cannot travel in a URL)."""
        items = dict(parse_qsl(query.lstrip("?")))
        scenario = cls(spec=items.get("spec") or DEFAULT_SPEC, pattern=items.get("pattern", ""))
        try:
            scenario.ppn = int(items.get("ppn", 1))
            broken = [int(x) for x in items.get("broken", "").split(".") if x]
        except ValueError:
            raise VizcollError("the URL parameters 'ppn' and 'broken' must be integers") from None
        scenario.edits = [{"op": "toggle_broken", "id": i} for i in broken]
        scenario.params = {k: v for k, v in items.items() if k in VIEW_KEYS}
        scenario.build()
        return scenario
