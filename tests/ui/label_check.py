"""Where a Plotly drawing of a fabric writes its names, read back from the figure itself: its line traces cut
exactly against each written name's box (Liang-Barsky), not the raster :mod:`vizcoll.ui.figures.labels` places
them with."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from vizcoll.ui.figures.captions import LINE, caption_width
from vizcoll.ui.figures.labels import GAP, MARK, plot_pixels

__all__ = ["misplaced"]


def name_boxes(fig: go.Figure, width: int) -> list[tuple[str, np.ndarray]]:
    """Each name written on ``fig`` and its box (left, top, right, bottom; px of :func:`plot_pixels`), where Plotly
    puts a text of that ``textposition`` beside its point."""
    nodes = np.concatenate([np.c_[t.x, t.y] for t in fig.data if t.name in ("switches", "end nodes")]).astype(float)
    low, pixels = nodes.min(axis=0), plot_pixels(nodes, width)
    scale = (pixels[:, 0].max() - pixels[:, 0].min()) / max(np.ptp(nodes[:, 0]), 1e-9)
    out = []
    for trace in (t for t in fig.data if t.name == "names"):
        vertical, horizontal = trace.textposition.split()
        for x, y, text in zip(trace.x, trace.y, trace.text, strict=True):
            px, py = (x - low[0]) * scale, -(y - low[1]) * scale
            w = caption_width(text)
            off = MARK + GAP  # from the node's centre
            left = {"center": px - w / 2, "right": px + off, "left": px - off - w}[horizontal]
            top = {"bottom": py + off, "top": py - off - LINE, "middle": py - LINE / 2}[vertical]
            out.append((text, np.array([left, top, left + w, top + LINE])))
    return out


def segments(fig: go.Figure, width: int) -> np.ndarray:
    """Every straight piece of every line drawn on ``fig`` (x0, y0, x1, y1; px)."""
    nodes = np.concatenate([np.c_[t.x, t.y] for t in fig.data if t.name in ("switches", "end nodes")]).astype(float)
    low, pixels = nodes.min(axis=0), plot_pixels(nodes, width)
    scale = (pixels[:, 0].max() - pixels[:, 0].min()) / max(np.ptp(nodes[:, 0]), 1e-9)
    pieces = []
    for trace in (t for t in fig.data if t.mode == "lines" and t.x is not None):
        xy = np.c_[np.asarray(trace.x, dtype=float), np.asarray(trace.y, dtype=float)]
        xy = (xy - low) * scale * np.array([1.0, -1.0])
        pieces.append(np.c_[xy[:-1], xy[1:]])
    pieces = np.concatenate(pieces)
    return pieces[np.isfinite(pieces).all(axis=1)]


def crossing(box: np.ndarray, pieces: np.ndarray) -> np.ndarray:
    """Which ``pieces`` pass through ``box`` (Liang-Barsky clipping, every piece at once)."""
    x0, y0 = pieces[:, 0], pieces[:, 1]
    dx, dy = pieces[:, 2] - x0, pieces[:, 3] - y0
    low, high = np.zeros(len(pieces)), np.ones(len(pieces))
    hit = np.ones(len(pieces), dtype=bool)
    for p, q in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]), (dy, box[3] - y0)):
        parallel = p == 0
        hit &= ~(parallel & (q < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(parallel, 0.0, q / np.where(parallel, 1.0, p))
        low = np.where(~parallel & (p < 0), np.maximum(low, r), low)
        high = np.where(~parallel & (p > 0), np.minimum(high, r), high)
    return hit & (low <= high)


def misplaced(fig: go.Figure, width: int) -> list[str]:
    """The names written on a link or on another name."""
    boxes, pieces = name_boxes(fig, width), segments(fig, width)
    bad = [text for text, box in boxes if crossing(box, pieces).any()]
    for i, (text, a) in enumerate(boxes):
        for _, b in boxes[:i]:
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                bad.append(f"{text} on another name")
    return bad
