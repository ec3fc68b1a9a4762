"""Uploaded fabrics stored once, by content: a scenario carries its uploaded fabric's hash, not the fabric.

An uploaded fabric is a topology's lossless dict (:meth:`Topology.to_dict`): megabytes for a real cluster. A
scenario names it by its *ref*, ``"sha256:"`` and the SHA-256 of its canonical JSON, and :func:`put` keeps the
dict in a :class:`FabricStore` under that ref; :func:`get` gives it back. The web app stores them in its shared
cache (every worker and job on the host, or on the Redis of a multi-host deployment: see
:class:`vizcoll.ui.cache.SharedStore`), so the browser and every callback carry a few dozen characters where
they carried the fabric; elsewhere (the command line, tests) a store in this process's memory is used.

A ref is a content address: whoever holds the same fabric computes the same ref, and a ref is only ever
believed when the store holds it (a ref from a browser that the store does not know is refused, with a message
saying how to get the fabric back: the share link and the scenario file carry the whole fabric).

>>> ref = put({"schema": "vizcoll.topology/1", "nodes": {}})
>>> ref.startswith("sha256:") and get(ref) == {"schema": "vizcoll.topology/1", "nodes": {}}
True
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from typing import Protocol

from vizcoll.errors import VizcollError

__all__ = ["FabricStore", "MemoryStore", "REF", "content_ref", "get", "put", "use_store"]

REF = re.compile(r"sha256:[0-9a-f]{64}")
"""What a ref looks like."""


class FabricStore(Protocol):
    """Where uploaded fabrics are kept by ref."""

    def get(self, ref: str) -> dict | None: ...

    def put(self, ref: str, uploaded: dict) -> None: ...


class MemoryStore:
    """The last ``size`` fabrics in this process's memory (the command line, tests, one process)."""

    def __init__(self, size: int = 16):
        self.size = size
        self.kept: OrderedDict[str, dict] = OrderedDict()

    def get(self, ref: str) -> dict | None:
        if ref in self.kept:
            self.kept.move_to_end(ref)
        return self.kept.get(ref)

    def put(self, ref: str, uploaded: dict) -> None:
        self.kept[ref] = uploaded
        self.kept.move_to_end(ref)
        while len(self.kept) > self.size:
            self.kept.popitem(last=False)


_store: FabricStore = MemoryStore()


def use_store(store: FabricStore) -> None:
    """Keep uploaded fabrics in ``store`` from now on (the web app's shared cache; see the module docstring)."""
    global _store
    _store = store


def content_ref(payload: dict) -> str:
    """The ref of plain JSON data (an uploaded fabric, a timeline): ``sha256:`` and the hash of its canonical
    JSON."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def put(uploaded: dict) -> str:
    """Keep ``uploaded`` and return its ref."""
    ref = content_ref(uploaded)
    _store.put(ref, uploaded)
    return ref


def get(ref: str) -> dict:
    """The fabric of ``ref``; :class:`VizcollError` saying how to get it back when the store does not know it."""
    found = _store.get(ref) if isinstance(ref, str) and REF.fullmatch(ref) else None
    if found is None:
        raise VizcollError(
            "this page's uploaded fabric is no longer on the server (was it restarted?): open your "
            "share link or your scenario file again, or upload the fabric's file again"
        )
    return found
