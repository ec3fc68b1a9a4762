"""Node captions on a cytoscape canvas: what is written under each node, cut or left out where it would overlap.

A caption is drawn :data:`FONT` px high (before zooming) in :data:`FONT_FAMILY` under its node; its width is
estimated from the widths of Liberation Sans / Arial's characters (:func:`caption_width`), plus
:data:`MARGIN` for the slightly wider fonts a browser may fall back to (DejaVu Sans), so that a caption given
the room between its neighbors never runs into theirs.
"""

from __future__ import annotations

import os
from functools import lru_cache

import numpy as np

from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

__all__ = [
    "CAPTION_CHARS",
    "FONT",
    "FONT_FAMILY",
    "MIN_FONT",
    "NODE_BOX",
    "SEPARATORS",
    "captions",
    "caption_width",
    "fitted_captions",
    "fit_texts",
    "node_hovers",
    "shared_prefix",
]

CAPTION_CHARS = 24
FONT = 10  # px of a node's caption (before zooming); cytoscape hides captions drawn smaller than MIN_FONT
MIN_FONT = 7
FONT_FAMILY = "Liberation Sans, Arial, Helvetica, sans-serif"
MARGIN = 1.12  # DejaVu Sans, the widest usual fallback, is about 10 % wider than Arial
NODE_BOX = {SWITCH: (22, 14), ENDPOINT: (12, 12)}  # width, height (px) of a switch / an end node
LINE = FONT * 1.3  # height of a caption's line
# Arial's advance widths, in ems, by character (others: 0.6)
_EM = {
    **dict.fromkeys("ijl", 0.222),
    **dict.fromkeys("ft .,;:!|'I/", 0.278),
    **dict.fromkeys("r-()[]", 0.333),
    **dict.fromkeys("0123456789abcdeghnopqsuv#_$", 0.556),
    **dict.fromkeys("kxyzJ", 0.5),
    "m": 0.833,
    "w": 0.722,
    **dict.fromkeys("ABEKPSVXY", 0.667),
    **dict.fromkeys("CDHNRU", 0.722),
    **dict.fromkeys("GOQ", 0.778),
    "M": 0.833,
    "W": 0.944,
    **dict.fromkeys("FTZL", 0.611),
    "…": 1.0,
}


SEPARATORS = "-_.:;/ "
"""Where a prefix shared by every switch (or every end node) of a drawing may end: :func:`captions` leaves it out."""


def shared_prefix(names: list[str]) -> str:
    """The start every one of ``names`` (two or more) shares, up to and with its last :data:`SEPARATORS`
    character: what does not tell them apart.

    >>> shared_prefix(["circe-n001", "circe-n051", "circe-n080"]), shared_prefix(["h0", "h1"])
    ('circe-', '')
    >>> shared_prefix(["MF0;dr-sw01:SX6036/U1", "MF0;dr-sw02:SX6036/U1"]), shared_prefix(["stage114"])
    ('MF0;dr-', '')
    """
    if len(names) < 2:
        return ""
    common = os.path.commonprefix(names)
    cut = max(common.rfind(c) for c in SEPARATORS) + 1
    return common[:cut] if all(len(name) > cut for name in names) else ""


def captions(topo: Topology) -> list[str]:
    """What a drawing writes under each node: its name (a file's host names, ``stage114`` rather than
    ``H-0002c903003421b0``: :mod:`vizcoll.topology.names`) without the prefix that every node of its kind
    shares (:func:`shared_prefix`: ``n051``, not ``circe-n051`` cut to ``circ…``; the hover has the full name), cut
    to :data:`CAPTION_CHARS`."""
    names = list(topo.names)
    for kind in (SWITCH, ENDPOINT):
        nodes = np.flatnonzero(topo.kind == kind).tolist()
        cut = len(shared_prefix([names[u] for u in nodes]))
        for u in nodes:
            names[u] = names[u][cut:]
    return [name if len(name) <= CAPTION_CHARS else name[: CAPTION_CHARS - 1] + "…" for name in names]


def node_hovers(topo: Topology, nodes=None, sep: str = " · ") -> list[str]:
    """The hover text of nodes (default all): the name, then the file's description and the GUID where the fabric
    has them (``stage114 · stage114 mlx4_0 · GUID 0x24be05ffff980030``); a Plotly figure puts them on lines of their
    own (``sep="<br>"``), so that its hover box stays narrow enough to fit beside the node, inside the figure."""
    nodes = range(topo.n_nodes) if nodes is None else nodes
    out = []
    for u in nodes:
        name = topo.names[u]
        parts = [name]
        desc = topo.desc[u].strip() if topo.desc is not None else ""
        if desc and desc != name:
            parts.append(desc)
        if topo.guid is not None and int(topo.guid[u]):
            parts.append(f"GUID 0x{int(topo.guid[u]):016x}")
        out.append(sep.join(parts))
    return out


def caption_width(text: str) -> float:
    """The width (px, before zooming) of ``text`` written as a caption, with :data:`MARGIN`.

    >>> round(caption_width("MT25408…"), 1)
    58.5
    """
    return MARGIN * FONT * sum(_EM.get(c, 0.6) for c in text)


def _longest(text: str, width: float) -> str:
    """``text`` if it fits ``width``, else its longest start (at least 3 characters) plus "…" that does, else ""."""
    if caption_width(text) <= width:
        return text
    budget, used, keep = width - caption_width("…"), 0.0, 0
    for c in text:  # a few characters: plain Python is quicker than numpy here
        used += MARGIN * FONT * _EM.get(c, 0.6)
        if used > budget:
            break
        keep += 1
    return text[:keep] + "…" if keep >= 3 else ""


def fitted_captions(topo: Topology, pixels: np.ndarray, texts: list[str] | None = None) -> list[str]:
    """The captions (default :func:`captions`) of a fabric's nodes at ``pixels`` (y downwards), shortened or left
    out so that no two overlap and none covers a node (:func:`fit_texts`; switches are captioned first)."""
    texts = captions(topo) if texts is None else texts
    pixels = np.ascontiguousarray(pixels, dtype=float)
    return list(_fitted(topo.kind.astype(np.int8).tobytes(), pixels.tobytes(), tuple(texts)))


@lru_cache(maxsize=32)
def _fitted(kinds: bytes, pixels: bytes, texts: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`fitted_captions` remembered: the drawings of one page often show the same nodes (a pod's loads
    before, after and their difference)."""
    kind, pixels = np.frombuffer(kinds, dtype=np.int8), np.frombuffer(pixels).reshape(-1, 2)
    size = np.array([NODE_BOX[int(k)] for k in kind], dtype=float).reshape(-1, 2)
    return tuple(fit_texts(pixels, size, list(texts), np.lexsort((pixels[:, 0], pixels[:, 1], kind != SWITCH))))


def fit_texts(
    pixels: np.ndarray, sizes: np.ndarray, texts: list[str], order: np.ndarray | None = None, font: float = FONT
) -> list[str]:
    """Texts written under marks at ``pixels`` (marks ``sizes`` px wide and high; y downwards), in ``order``
    (default: top rows first), each shortened or left out so that no two overlap and none covers a mark.

    Captions sit under their mark and scale with it when the user zooms, so a drawing that is readable at one
    zoom is so at every zoom. Each text gets the width left between the texts and marks already placed on its
    line, and at most half the way to the next mark of its row: its whole text, a text cut with "…" (at least
    3 characters), or nothing (its full name still shows on hover).
    """
    pixels, sizes = np.asarray(pixels, dtype=float), np.asarray(sizes, dtype=float)
    scale, line = font / FONT, font * 1.3
    boxes = np.c_[pixels - sizes / 2, pixels + sizes / 2]  # left, top, right, bottom of every mark
    top = pixels[:, 1] + sizes[:, 1] / 2 + 2
    order = np.lexsort((pixels[:, 0], pixels[:, 1])) if order is None else order
    out = [""] * len(texts)
    for i in np.asarray(order).tolist():
        on_line = (boxes[:, 1] < top[i] + line) & (boxes[:, 3] > top[i])
        on_line[i] = False
        left, right, x = boxes[on_line, 0], boxes[on_line, 2], pixels[i, 0]
        room = np.where(right <= x, x - right, np.where(left >= x, left - x, 0.0)).min(initial=1e6)
        row = np.abs(pixels[:, 1] - pixels[i, 1]) < line
        row[i] = False
        room = min(room, np.abs(pixels[row, 0] - x).min(initial=2e6) / 2)  # half the way to a neighbor's
        out[i] = _longest(texts[i], (2 * room - 2) / scale)
        if out[i]:
            half = caption_width(out[i]) * scale / 2 + 1
            boxes = np.r_[boxes, [[x - half, top[i], x + half, top[i] + line]]]
    return out
