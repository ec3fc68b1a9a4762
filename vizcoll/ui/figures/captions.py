"""Node captions on a cytoscape canvas: what is written under each node, cut or left out where it would overlap.

A caption is drawn :data:`FONT` px high (before zooming) in :data:`FONT_FAMILY` under its node; its width is
estimated from the widths of Liberation Sans / Arial's characters (:func:`caption_width`), plus
:data:`MARGIN` for the slightly wider fonts a browser may fall back to (DejaVu Sans), so that a caption given
the room between its neighbors never runs into theirs.
"""

from __future__ import annotations

import numpy as np

from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

__all__ = ["CAPTION_CHARS", "FONT", "FONT_FAMILY", "MIN_FONT", "NODE_BOX", "captions", "caption_width",
           "fitted_captions"]

CAPTION_CHARS = 24
FONT = 10  # px of a node's caption (before zooming); cytoscape hides captions drawn smaller than MIN_FONT
MIN_FONT = 7
FONT_FAMILY = "Liberation Sans, Arial, Helvetica, sans-serif"
MARGIN = 1.12  # DejaVu Sans, the widest usual fallback, is about 10 % wider than Arial
NODE_BOX = {SWITCH: (22, 14), ENDPOINT: (12, 12)}  # width, height (px) of a switch / an end node
LINE = FONT * 1.3  # height of a caption's line
# Arial's advance widths, in ems, by character (others: 0.6)
_EM = {**dict.fromkeys("ijl", 0.222), **dict.fromkeys("ft .,;:!|'I/", 0.278), **dict.fromkeys("r-()[]", 0.333),
       **dict.fromkeys("0123456789abcdeghnopqsuv#_$", 0.556), **dict.fromkeys("kxyzJ", 0.5), "m": 0.833,
       "w": 0.722, **dict.fromkeys("ABEKPSVXY", 0.667), **dict.fromkeys("CDHNRU", 0.722),
       **dict.fromkeys("GOQ", 0.778), "M": 0.833, "W": 0.944, **dict.fromkeys("FTZL", 0.611), "…": 1.0}


def captions(topo: Topology) -> list[str]:
    """What a drawing writes under each node: its description when the file gave one (ibnetdiscover's
    ``stage114 mlx4_0`` rather than ``H-0002c903003421b0``), else its name; cut to :data:`CAPTION_CHARS`."""
    descs = topo.desc or [""] * topo.n_nodes
    out = []
    for name, desc in zip(topo.names, descs, strict=True):
        text = (desc or "").strip() or name
        out.append(text if len(text) <= CAPTION_CHARS else text[:CAPTION_CHARS - 1] + "…")
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
    ends = np.cumsum([MARGIN * FONT * _EM.get(c, 0.6) for c in text]) + caption_width("…")
    keep = int(np.searchsorted(ends, width, side="right"))
    return text[:keep] + "…" if keep >= 3 else ""


def fitted_captions(topo: Topology, pixels: np.ndarray, texts: list[str] | None = None) -> list[str]:
    """The captions (default :func:`captions`) shortened or left out so that no two overlap, and none covers a
    node, on a canvas with nodes at ``pixels`` (y downwards).

    Captions sit under their node and scale with it when the user zooms, so a drawing that is readable at one
    zoom is so at every zoom. Switches are captioned first (top rows first), then end nodes; each caption
    gets the width left between the captions and nodes already placed on its line, and at most half the way
    to the next node of its row: its whole text, a text cut with "…" (at least 3 characters), or nothing (its
    name still shows on hover).
    """
    texts = captions(topo) if texts is None else texts
    size = np.array([NODE_BOX[int(k)] for k in topo.kind], dtype=float).reshape(-1, 2)
    boxes = np.c_[pixels - size / 2, pixels + size / 2]  # left, top, right, bottom of every node
    top = pixels[:, 1] + size[:, 1] / 2 + 2
    out = [""] * topo.n_nodes
    for i in np.lexsort((pixels[:, 0], pixels[:, 1], topo.kind != SWITCH)).tolist():
        line = (boxes[:, 1] < top[i] + LINE) & (boxes[:, 3] > top[i])
        line[i] = False
        left, right, x = boxes[line, 0], boxes[line, 2], pixels[i, 0]
        room = np.where(right <= x, x - right, np.where(left >= x, left - x, 0.0)).min(initial=1e6)
        row = np.abs(pixels[:, 1] - pixels[i, 1]) < LINE
        row[i] = False
        room = min(room, np.abs(pixels[row, 0] - x).min(initial=2e6) / 2)  # half the way to a neighbor's
        out[i] = _longest(texts[i], 2 * room - 2)
        if out[i]:
            half = caption_width(out[i]) / 2 + 1
            boxes = np.r_[boxes, [[x - half, top[i], x + half, top[i] + LINE]]]
    return out
