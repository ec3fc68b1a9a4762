"""Names people use: readable node names from what a fabric file says, and every name a user may type for a node.

A fabric file names a node by what its tool knows: ibnetdiscover by a GUID-derived id (``"H-0002c9030008a772"``),
the ports report and iblinkinfo by a GUID, a LID and the node description only. Admins set an HCA's node
description to ``"<host> <device>"`` (OFED's ``node0254 HCA-1``; rdma-core's rdma-ndd writes ``%h %d``,
``node0254 mlx5_0``), so :func:`readable_names` derives, in this order:

- a file's own id when it is not GUID-derived (ibsim's ``"Switch1"``, a hand-written ``"leafA"``): kept as is;
- an end node: its host part (``node0254``) when the description is ``<host>`` or ``<host> <device>`` and no other
  node has that host part; else its whole description (two HCAs of one host: ``node0254 HCA-1`` and
  ``node0254 HCA-2``; a vendor default such as ``MT4115 ConnectX4 Mellanox Technologies``);
- a switch: its description (``MF0;sw-spine-3:MQM8700/U1``);
- where names still repeat (default descriptions, switches of one model), a short GUID suffix:
  ``MT25408 ConnectX Mellanox Technologies (b600)``, the last 4 hex digits, more where 4 do not tell them apart;
- a node with no description: the file's id, else ``S-``/``H-`` and its GUID, as ibnetdiscover names it.

:class:`NameIndex` finds a node by any name a user may type (:meth:`Topology.index` asks it when a name is not a
node's own): the node's name, its description, its host part and the host part's first DNS label (``node0254``
for ``node0254.cluster``), host names and descriptions ignoring case and runs of blanks (DNS names are
case-insensitive), its GUID (``0x0002c9030008a772``, 16 hex digits, ``H-…``/``S-…``) and its port GUIDs, and
the first label of a fully qualified name typed (``node0254.example.org``). A name that fits several nodes is
refused with their names; an unknown one with a few close names that exist.

>>> readable_names([1, 1, 1, 0], ["node01 HCA-1", "node02 mlx5_0", "node02 mlx5_1", "leaf-3"], [1, 2, 3, 4])
['node01', 'node02 mlx5_0', 'node02 mlx5_1', 'leaf-3']
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from vizcoll.errors import TopologyError
from vizcoll.topology.checks import ENDPOINT, SWITCH

__all__ = ["NameIndex", "guid_id", "host_part", "readable_names"]
GUID_ID = re.compile(r"[SHR]-[0-9a-fA-F]{16}")
_TYPED_GUID = re.compile(r"(?:[SHRshr]-|0[xX])([0-9a-fA-F]{1,16})|([0-9a-fA-F]{16})")
_DEVICE = re.compile(r"HCA-?\d+|[A-Za-z][A-Za-z0-9]*_?\d+", re.I)
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
SUGGESTIONS = 3


def guid_id(kind: int, guid: int) -> str:
    """ibnetdiscover's id of a node: ``S-`` (switch) or ``H-`` (end node) and the GUID's 16 hex digits."""
    return f"{'S' if kind == SWITCH else 'H'}-{guid:016x}"


def host_part(desc: str) -> str | None:
    """The host of a node description ``<host>`` or ``<host> <device>`` (None for any other description).

    >>> host_part("node0254 HCA-1"), host_part("gpu17 mlx5_3"), host_part("MT4115 ConnectX4 Mellanox Technologies")
    ('node0254', 'gpu17', None)
    """
    words = desc.split()
    if len(words) == 1 or (len(words) == 2 and _DEVICE.fullmatch(words[1])):
        return words[0]
    return None


def readable_names(
    kind: Sequence[int], desc: Sequence[str] | None, guid: Sequence[int] | None, ids: Sequence[str | None] | None = None
) -> list[str]:
    """Unique readable names of nodes (see the module docstring).

    Parameters
    ----------
    kind : node kinds (0 switch, 1 end node)
    desc : node descriptions ("" or None where a file gives none)
    guid : node GUIDs (0 where unknown)
    ids : the file's own ids (None where a file gives none)
    """
    n = len(kind)
    desc = [" ".join((d or "").split()) for d in desc] if desc is not None else [""] * n
    guid = [int(g) for g in guid] if guid is not None else [0] * n
    ids = list(ids) if ids is not None else [None] * n
    names = [_first_choice(int(kind[i]), desc[i], guid[i], ids[i]) for i in range(n)]
    hosts = Counter(names)
    names = [
        desc[i] if hosts[names[i]] > 1 and desc[i] and _from_host(names[i], desc[i], ids[i]) else names[i]
        for i in range(n)
    ]
    return _suffixed(names, guid)


def _from_host(name: str, desc: str, file_id: str | None) -> bool:
    return name != desc and (file_id is None or GUID_ID.fullmatch(file_id) is not None)


def _first_choice(kind: int, desc: str, guid: int, file_id: str | None) -> str:
    if file_id and not GUID_ID.fullmatch(file_id):
        return file_id
    if desc:
        return (host_part(desc) if kind == ENDPOINT else None) or desc
    return file_id or guid_id(kind, guid)


def _suffixed(names: list[str], guid: list[int]) -> list[str]:
    """``names`` with a GUID suffix (or a number where GUIDs do not tell them apart) wherever a name repeats."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, name in enumerate(names):
        groups[name].append(i)
    out = list(names)
    taken = set(names)
    for name, members in groups.items():
        if len(members) == 1:
            continue
        for i, suffix in zip(members, _suffixes([guid[i] for i in members]), strict=True):
            candidate, extra = f"{name} ({suffix})", 2
            while candidate in taken:
                candidate, extra = f"{name} ({suffix}.{extra})", extra + 1
            out[i] = candidate
            taken.add(candidate)
    return out


def _suffixes(guids: list[int]) -> list[str]:
    """The shortest tails (4, 6, ... 16 hex digits) that tell these GUIDs apart; numbers 1, 2, ... if none does."""
    if len(set(guids)) == len(guids) and all(guids):
        for width in (4, 6, 8, 12, 16):
            tails = [f"{g:016x}"[-width:] for g in guids]
            if len(set(tails)) == len(tails):
                return tails
    return [str(j) for j in range(1, len(guids) + 1)]


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


class NameIndex:
    """Every name a user may type for a node of a topology (see the module docstring); built once per topology."""

    def __init__(
        self,
        names: Sequence[str],
        desc: Sequence[str] | None,
        guid: Sequence[int] | None,
        port_guids: dict[tuple[int, int], int] | None = None,
    ):
        self.names = list(names)
        self.exact = {name: i for i, name in enumerate(self.names)}
        self.words: dict[str, list[int]] = defaultdict(list)
        for i, name in enumerate(self.names):
            self._add(name, i)
        for i, text in enumerate(desc or ()):
            if text.strip():
                self._add(text, i)
                host = host_part(text)
                if host:
                    self._add(host, i)
                    self._add(host.split(".")[0], i)
        self.guids: dict[int, int] = {}
        for i, g in enumerate(guid if guid is not None else ()):
            if int(g):
                self.guids.setdefault(int(g), i)
        for (u, _), g in (port_guids or {}).items():
            self.guids.setdefault(int(g), u)

    def _add(self, text: str, node: int) -> None:
        nodes = self.words[_folded(text)]
        if node not in nodes:
            nodes.append(node)

    def candidates(self, text: str) -> list[int]:
        """The nodes ``text`` may name, in node order (empty when none; several when it is ambiguous)."""
        if text in self.exact:
            return [self.exact[text]]
        folded = _folded(text)
        if folded in self.words:
            return sorted(self.words[folded])
        match = _TYPED_GUID.fullmatch(text.strip())
        if match:
            node = self.guids.get(int(match.group(1) or match.group(2), 16))
            if node is not None:
                return [node]
        short = folded.split(".")[0]
        if "." in folded and not _IPV4.fullmatch(folded) and short in self.words:
            return sorted(self.words[short])
        return []

    def resolve(self, text: str) -> int:
        """The node ``text`` names; :class:`TopologyError` naming close names when none, or the nodes when several."""
        found = self.candidates(text)
        if len(found) == 1:
            return found[0]
        if found:
            listed = ", ".join(repr(self.names[u]) for u in found[:5]) + (" ..." if len(found) > 5 else "")
            raise TopologyError(f"{text!r} names {len(found)} nodes ({listed}); type one of those names")
        raise TopologyError(f"no node named {text!r}{self.close(text)}")

    def close(self, text: str) -> str:
        """``"; close names: a, b, c"`` for an unknown name (empty when nothing is close)."""
        words = [w for w in self.words if abs(len(w) - len(_folded(text))) <= 3]
        close = difflib.get_close_matches(_folded(text), words, n=SUGGESTIONS, cutoff=0.6)
        shown = list(dict.fromkeys(self.names[self.words[w][0]] for w in close))
        return f"; close names: {', '.join(shown)}" if shown else ""
