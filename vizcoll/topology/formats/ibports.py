"""The ibnetdiscover ports report: ``ibnetdiscover -p`` (``--ports``), with or without ``-s`` progress lines.

One line per port, as ``ibnetdiscover``'s ports report prints it (infiniband-diags, ``man ibnetdiscover``: "a
list of connected ports with relevant information (like LID, portnum, GUID, width, speed, and
NodeDescription)"); it is what netloc and Prometheus' infiniband_exporter save::

    CA    44  1 0x78e7d10300215995 4x QDR - SW   142 32 0x0008f10500108c9e ( 'mirage006 HCA-1' - 'Voltaire 4036 # x' )
    SW   142 35 0x0008f10500108c9e 4x ???                                    'Voltaire 4036 # x'

type (``CA``, ``SW``, ``RT``), LID, port, port GUID, width and speed; for a cabled port ``-`` and the peer's type,
LID, port and GUID, then both node descriptions. What vizcoll reads:

- every node seen, on its own line or as a peer (a capture of part of a fabric lists some cables from one end
  only); a switch is keyed by its GUID (the same on all its ports); an end node by its port GUID, the ports of
  one HCA joined as :mod:`vizcoll.topology.formats.cables` says;
- a port without a cable (``4x ???``, or a link down) makes its node exist and counts as one of its ports; its
  description may be quoted or not (older versions print it bare);
- routers (``RT``) forward packets and are read as switches;
- ``DR path …`` progress lines of ``-s`` and ``#`` comments are passed over; other lines (a tool's warnings) are
  skipped and counted in ``meta["warnings"]``; widths, speeds and LIDs are not kept.

>>> topo = read("CA 3 1 0x0002c90300000001 4x EDR - SW 1 7 0x0002c90300000100 ( 'node01 HCA-1' - 'leaf-1' )\\n"
...             "SW 1 7 0x0002c90300000100 4x EDR - CA 3 1 0x0002c90300000001 ( 'leaf-1' - 'node01 HCA-1' )\\n", "p")
>>> topo.names, topo.n_links, topo.link_label(0)
(['node01', 'leaf-1'], 1, 'node01[1]-leaf-1[7]')
"""

from __future__ import annotations

import re

from vizcoll.topology.formats.cables import Report
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

__all__ = ["read", "rules_out"]

_GUID = r"0x([0-9a-fA-F]{1,16})"
_LINE = re.compile(rf"(CA|SW|RT)\s+(\d+)\s+(\d+)\s+{_GUID}\b\s*(.*)")
_CABLED = re.compile(rf".*?\s-\s+(CA|SW|RT)\s+(\d+)\s+(\d+)\s+{_GUID}\s+\(\s*'(.*)'\s+-\s+'(.*)'\s*\)")
_CABLED_START = re.compile(r".*?\s-\s+(CA|SW|RT)\s+\d")
_ALONE = re.compile(r"(?:\S+\s+)?\S+(?:\s+(.*))?")
_KINDS = {"CA": ENDPOINT, "SW": SWITCH, "RT": SWITCH}
_PASSED = ("#", "DR path")
WHAT = "port line of ibnetdiscover's ports report (CA 44 1 0x0002c9… 4x QDR - SW 142 32 0x… ( 'a' - 'b' ))"


def rules_out(lines: list[str]) -> tuple[int, str] | None:
    """None when some line is a port line of the report; else the first line that is not one."""
    if any(_LINE.fullmatch(line.strip()) for line in lines):
        return None
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if text and not text.startswith(_PASSED):
            return number, f"{text[:40]!r} is no port line"
    return 0, "no port line"


def read(text: str, filename: str) -> Topology:
    """The fabric of a ports report (see the module docstring)."""
    report = Report(filename)
    for number, line in enumerate(text.split("\n"), 1):
        _feed(report, number, line.strip())
    return report.topology("ibnetdiscover-ports", WHAT)


def _feed(report: Report, number: int, text: str) -> None:
    if not text or text.startswith(_PASSED):
        return
    match = _LINE.fullmatch(text)
    if not match:
        report.skipped.append((number, text))
        return
    kind, lid, port, guid, rest = match.groups()
    cabled = _CABLED.fullmatch(rest)
    if cabled is None and _CABLED_START.match(rest):
        raise report.error(f"malformed port line {text[:60]!r} (expected … - SW 142 32 0x… ( 'a' - 'b' ))", number)
    desc = cabled.group(5) if cabled else _bare(rest)
    u = _end(report, number, kind, lid, port, guid, desc)
    if cabled:
        v = _end(report, number, *cabled.group(1, 2, 3, 4, 6))
        report.cable(u, report.number(port, "port", number), v, report.number(cabled.group(3), "port", number), number)


def _end(report: Report, number: int, kind: str, lid: str, port: str, guid: str, desc: str) -> int:
    """The node of one end of a line (its port noted, with its GUID)."""
    report.number(lid, "LID", number, 0xFFFF)
    value = int(guid, 16)
    u = report.node(value, _KINDS[kind], desc, value, number)
    report.port(u, report.number(port, "port", number), value if _KINDS[kind] == ENDPOINT else None)
    return u


def _bare(rest: str) -> str:
    """The description after a width and a speed on a line without a cable, quoted (``'leaf-1'``) or bare."""
    alone = _ALONE.fullmatch(rest)
    desc = (alone.group(1) or "").strip() if alone else ""
    return desc[1:-1] if len(desc) >= 2 and desc[0] == desc[-1] == "'" else desc
