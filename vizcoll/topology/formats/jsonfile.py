"""JSON topology files: :meth:`Topology.to_dict` as JSON (schema ``vizcoll.topology/1``, lossless), and a
hand-written node-link JSON (a ``nodes`` list and a ``links`` list, see :mod:`vizcoll.topology.formats.nodelink`).

>>> from vizcoll.topology.generators import from_spec
>>> topo = from_spec("fat-tree:radix=4,levels=2")
>>> read(write(topo), "t.json") == topo
True
"""

from __future__ import annotations

import json

from vizcoll.errors import FileFormatError, TopologyError
from vizcoll.topology.formats.nodelink import from_node_link, is_node_link
from vizcoll.topology.model import SCHEMA, Topology

__all__ = ["from_dict", "read", "write"]


def write(topo: Topology) -> str:
    """The JSON text of ``topo`` (one line and a newline)."""
    return json.dumps(topo.to_dict()) + "\n"


def read(text: str, filename: str) -> Topology:
    """The topology of a JSON text (vizcoll's export or node-link JSON)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileFormatError(
            f"not valid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno, source=filename
        ) from None
    except (ValueError, RecursionError) as exc:
        raise FileFormatError(f"not valid JSON ({exc})", source=filename) from None
    return from_dict(data, filename)


def from_dict(data: object, filename: str) -> Topology:
    """The topology of decoded JSON: a node-link object or :meth:`Topology.to_dict`'s form."""
    try:
        if is_node_link(data):
            return from_node_link(data)
        if not isinstance(data, dict) or "schema" not in data:
            raise TopologyError(
                f"a JSON topology is either a node-link object (a 'nodes' list and a 'links' list) "
                f"or vizcoll's own export (the field 'schema' = {SCHEMA!r})"
            )
        return Topology.from_dict(data)
    except TopologyError as exc:
        raise FileFormatError(str(exc), source=filename) from None
    except (OverflowError, TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        raise FileFormatError(f"a field has the wrong type or value ({exc})", source=filename) from None
