"""Every topology file format vizcoll reads or writes: one registry that the engine, the CLI and the pages read.

Each format is a module with ``read(text, filename) -> Topology`` and ``rules_out(lines) -> (line, reason) | None``
(None when the content is of that format, else the first line that rules it out), and ``write(topo) -> str``
where vizcoll writes it. Each registers one :class:`~vizcoll.topology.formats.registry.FileFormat` in
:data:`~vizcoll.topology.formats.registry.REGISTRY`, in the order :func:`vizcoll.topology.io.parse` tries them:

- :mod:`~vizcoll.topology.formats.jsonfile`: vizcoll's own JSON export and hand-written node-link JSON;
- :mod:`~vizcoll.topology.formats.graphml`: lossless GraphML (networkx) and anyone else's, checked with defusedxml;
- :mod:`~vizcoll.topology.formats.ibnet`: ``ibnetdiscover`` output and ibsim net files (one reader, two writers);
- :mod:`~vizcoll.topology.formats.ibports`: the ports report, ``ibnetdiscover -p`` (``-s -p``);
- :mod:`~vizcoll.topology.formats.iblinkinfo`: ``iblinkinfo`` and ``iblinkinfo -l``;
- :mod:`~vizcoll.topology.formats.slurm`: Slurm's ``topology.conf`` (topology/tree and topology/block).

Adding a format is one module and one :func:`register` line here (or a call to it from anywhere).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vizcoll.topology.formats import graphml, iblinkinfo, ibnet, ibports, jsonfile, slurm
from vizcoll.topology.formats.registry import (
    DEFAULT,
    REGISTRY,
    FileFormat,
    by_extension,
    describe,
    extensions,
    readable,
    register,
    unregister,
    writable,
)
from vizcoll.topology.model import Topology

__all__ = [
    "FileFormat",
    "REGISTRY",
    "DEFAULT",
    "register",
    "unregister",
    "readable",
    "writable",
    "by_extension",
    "extensions",
    "describe",
]


def _first_char(chars: str, what: str) -> Callable[[list[str]], tuple[int, str] | None]:
    """``rules_out`` of a format whose first non-blank character is one of ``chars``."""

    def rules_out(lines: list[str]) -> tuple[int, str] | None:
        for number, line in enumerate(lines, 1):
            first = line.strip()[:1]
            if first:
                return None if first in chars else (number, f"{first!r} where {what} starts with {chars[0]!r}")
        return 0, "the file is empty"

    return rules_out


def _json_ruled_out(lines: list[str]) -> tuple[int, str] | None:
    """A JSON object, or a JSON list (which the reader refuses with a clear word): ``[`` not of a port line."""
    ruled_out = _first_char("{[", "a JSON topology")(lines)
    if ruled_out is None and re.match(r"\s*\[\d+\]", next(line for line in lines if line.strip())):
        return 1, "'[' of a stanza's port line where a JSON topology starts with '{'"
    return ruled_out


_STANZA = re.compile(r'\s*(Switch|Hca|Ca|Rt)\s+\d+\s+"')
_STANZA_TEXT = re.compile(
    r"(?:Switch|Hca|Ca|Rt)\b|\[|@|(?:include|do|module)\b|"
    r"(?:vendid|devid|sysimgguid|switchguid|caguid|hcaguids|rtguid|module)\s*="
)


def _stanzas_ruled_out(lines: list[str]) -> tuple[int, str] | None:
    """None when a ``Switch 36 "…"`` / ``Ca 1 "…"`` stanza line is there, or when every line is of the stanza
    grammar (the reader then says what is wrong); else the first line that is not."""
    if any(_STANZA.match(line) for line in lines):
        return None
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if text and not text.startswith("#") and not _STANZA_TEXT.match(text):
            return number, f"{text[:40]!r} is no stanza line"
    return (0, "the file is empty") if not any(line.strip() for line in lines) else None


def _read_stanzas(text: str, filename: str) -> Topology:
    """ibsim net files write ``Hca`` where ibnetdiscover writes ``Ca``: ``meta["format"]`` says which it was."""
    fmt = "ibsim" if re.search(r"^\s*Hca\s", text, re.M) else "ibnetdiscover"
    return ibnet.read(text, filename, fmt)


for _format in (  # detection order: a format whose signature line is rarer goes first
    FileFormat(
        "json",
        "vizcoll JSON or node-link JSON",
        jsonfile.read,
        jsonfile.write,
        (".json",),
        help="vizcoll's own JSON (lossless) or a hand-written node-link JSON",
        rules_out=_json_ruled_out,
    ),
    FileFormat(
        "graphml",
        "GraphML",
        graphml.read,
        graphml.write,
        (".graphml", ".xml"),
        help="vizcoll's own GraphML (lossless) or anyone else's (Topology Zoo, networkx, yEd)",
        rules_out=_first_char("<", "GraphML (XML)"),
    ),
    FileFormat(
        "ibnetdiscover",
        "ibnetdiscover output or ibsim net file",
        _read_stanzas,
        lambda topo: ibnet.write(topo, "ibnetdiscover"),
        (".ibnd", ".txt"),
        help="the stanzas ibnetdiscover prints (an ibsim net file reads the same)",
        rules_out=_stanzas_ruled_out,
    ),
    FileFormat(
        "ibsim",
        "ibsim net file",
        writer=lambda topo: ibnet.write(topo, "ibsim"),
        extensions=(".net",),
        help="an ibsim net file (read as ibnetdiscover: one grammar)",
    ),
    FileFormat(
        "ibnetdiscover-ports",
        "ibnetdiscover ports report (-p)",
        ibports.read,
        help="the ports report of ibnetdiscover -p (or -s -p)",
        rules_out=ibports.rules_out,
    ),
    FileFormat(
        "iblinkinfo",
        "iblinkinfo output",
        iblinkinfo.read,
        help="what iblinkinfo (or iblinkinfo -l) prints",
        rules_out=iblinkinfo.rules_out,
    ),
    FileFormat(
        "slurm",
        "Slurm topology.conf",
        slurm.read,
        help="Slurm's topology.conf (topology/tree or topology/block)",
        rules_out=slurm.rules_out,
    ),
):
    register(_format)
del _format
