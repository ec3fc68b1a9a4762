"""Names beside the nodes of a drawing of a fabric, on no link and on no other name (issue 46: "labels never lie
on links"): on a Plotly drawing (:func:`add_labels`) and on the cytoscape canvas
(:func:`~vizcoll.ui.figures.topology.cytoscape_elements`), both with :func:`free_sides`.

A Plotly drawing keeps its aspect (``scaleanchor``), so the pixels a node gets are known from the figure's size
(:func:`plot_pixels`). Names are fitted as on the canvas (:func:`~vizcoll.ui.figures.captions.fit_texts`): whole,
cut with "…", or left to the hover text. Each name then takes the first side of its node, below, above, right or
left, where it covers no link, no node and no name already placed, each box tested exactly against the links in
the cells around it. A name with no free side is left out: it shows on hover, and in the page's "Links and nodes
by name" table. We chose this over names on a white plate (which hide the links under them) and over names
written upwards between crowded switches (which lay on their links).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import plotly.graph_objects as go

from vizcoll.topology.model import SWITCH, Topology
from vizcoll.ui.figures.captions import FONT, FONT_FAMILY, LINE, caption_width, captions, fitted_captions
from vizcoll.ui.figures.style import HALF

__all__ = ["SIDES", "PLOT_HEIGHT", "plot_pixels", "free_sides", "switches_first", "placed", "add_labels", "outward"]

SIDES = ("bottom center", "top center", "middle right", "middle left")  # where a name may go, in this order
GAP = 2  # px from a mark's edge to its name
MARK = 4  # px from a node's centre to its mark's edge on a Plotly drawing (markers of 7 and 5 px)
CELL = 32  # px of the cells :func:`_crossed` sorts the links into
CLEAR = 2  # px kept free around a name (the browser's plot area is a little smaller than plot_pixels's)
PLOT_HEIGHT = 330  # px of a drawing's plot area (a figure of 520 px, less its title, legend and margins)
LABELLED = 3000  # fabrics with more nodes are not named (their names stay in the hover texts)


def outward(x: float, y: float) -> str:
    """The ``textposition`` of a caption beside a point of a circle around (0, 0), away from its centre (above the
    top ones, left of the left ones...), so that neighbours' captions stand apart as their points do.

    >>> outward(0.0, 1.0), outward(-1.0, 0.0), outward(0.7, -0.7)
    ('top center', 'middle left', 'bottom right')
    """
    vertical = "top" if y > 0.38 else "bottom" if y < -0.38 else "middle"
    return f"{vertical} {'right' if x > 0.38 else 'left' if x < -0.38 else 'center'}"


def _to_pixels(pos: np.ndarray, width: int, height: int):
    """The map from the drawing's units to the pixels of :func:`plot_pixels` (y downwards)."""
    low = pos.min(axis=0) if len(pos) else np.zeros(2)
    span = np.maximum(pos.max(axis=0) - low, 1e-9) if len(pos) else np.ones(2)
    scale = min((width - 80) / span[0], height / span[1]) * np.array([1.0, -1.0])
    return lambda points: (points - low) * scale


def plot_pixels(pos: np.ndarray, width: int = HALF, height: int = PLOT_HEIGHT) -> np.ndarray:
    """Where the nodes at ``pos`` land (px, y downwards) in a plot area about ``width`` - 80 by ``height`` pixels
    that keeps the drawing's aspect (the 80: margins and a colour bar)."""
    pos = np.asarray(pos, dtype=float)
    return _to_pixels(pos, width, height)(pos)


def _boxes(pixels: np.ndarray, half: np.ndarray, widths: np.ndarray, side: str) -> np.ndarray:
    """The boxes (left, top, right, bottom; px, y downwards) of names ``widths`` px wide written on ``side`` of
    marks at ``pixels`` (``half``: each mark's half width and height), :data:`GAP` px off the mark, with
    :data:`CLEAR` px around them."""
    x, y, w, h = pixels[:, 0], pixels[:, 1], widths, LINE
    hx, hy = half[:, 0] + GAP, half[:, 1] + GAP
    left, top = {
        "bottom center": (x - w / 2, y + hy),
        "top center": (x - w / 2, y - hy - h),
        "middle right": (x + hx, y - h / 2),
        "middle left": (x - hx - w, y - h / 2),
    }[side]
    return np.c_[left - CLEAR, top - CLEAR, left + w + CLEAR, top + h + CLEAR]


def _segments(points: np.ndarray, pixels: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Every straight piece (x0, y0, x1, y1; px) of the lines ``points`` (NaN between lines) and the two diagonals
    of every mark (at ``pixels``, ``half`` its half sizes, a little inside its edge): a box that covers a piece of
    either covers a link or a node."""
    a, b = points[:-1], points[1:]
    pieces = np.c_[a, b][np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)]
    inner = np.maximum(half - 1, 0)
    one = np.c_[pixels - inner, pixels + inner]
    other = one[:, [0, 3, 2, 1]]  # from the bottom left corner to the top right one
    return np.concatenate([pieces, one, other])


def _cells(pieces: np.ndarray, low: np.ndarray, width: int) -> np.ndarray:
    """The (cell, piece) pairs of the straight ``pieces`` (x0, y0, x1, y1), sorted by cell: each piece sampled once
    a :data:`CELL` along its longer side, so that a piece through a box has a sample in one of the box's cells or
    their neighbours. Cells are numbered row by row from the cell ``low``, ``width`` cells a row."""
    length = np.abs(pieces[:, 2:] - pieces[:, :2]).max(axis=1)
    steps = np.ceil(length / CELL).astype(np.int64) + 1
    seg = np.repeat(np.arange(len(pieces)), steps)
    t = (np.arange(len(seg)) - np.repeat(np.cumsum(steps) - steps, steps)) / np.maximum(steps[seg] - 1, 1)
    at = pieces[seg, :2] + t[:, None] * (pieces[seg, 2:] - pieces[seg, :2])
    cells = np.floor(at / CELL).astype(np.int64) - low
    key = np.sort((cells[:, 1] * width + cells[:, 0]) * len(pieces) + seg)
    key = key[np.r_[True, key[1:] != key[:-1]]]
    return np.c_[key // len(pieces), key % len(pieces)]


def _crossed(boxes: np.ndarray, pieces: np.ndarray, pairs: np.ndarray, low: np.ndarray, width: int) -> np.ndarray:
    """Which ``boxes`` (left, top, right, bottom) some of the straight ``pieces`` pass through: each box meets the
    pieces of the cells around it (``pairs``, :func:`_cells`), tested exactly (:func:`_clips`), so that a canvas
    10,000 px wide with 4,000 links costs no raster of its size."""
    first = np.floor(boxes[:, :2] / CELL).astype(np.int64) - low - 1  # the cells around each box
    last = np.floor(boxes[:, 2:] / CELL).astype(np.int64) - low + 1
    nx, ny = (last - first + 1).T
    box = np.repeat(np.arange(len(boxes)), nx * ny)
    k = np.arange(len(box)) - np.repeat(np.cumsum(nx * ny) - nx * ny, nx * ny)
    cell = (first[box, 1] + k // nx[box]) * width + first[box, 0] + k % nx[box]
    start, stop = np.searchsorted(pairs[:, 0], cell, "left"), np.searchsorted(pairs[:, 0], cell, "right")
    count = stop - start
    which = np.repeat(np.arange(len(cell)), count)
    piece = pairs[np.repeat(start, count) + np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count), 1]
    return np.bincount(box[which][_clips(boxes[box[which]], pieces[piece])], minlength=len(boxes)) > 0


def _clips(boxes: np.ndarray, pieces: np.ndarray) -> np.ndarray:
    """Whether each piece (x0, y0, x1, y1) passes through its box (left, top, right, bottom): Liang-Barsky."""
    x0, y0 = pieces[:, 0], pieces[:, 1]
    dx, dy = pieces[:, 2] - x0, pieces[:, 3] - y0
    low, high = np.zeros(len(pieces)), np.ones(len(pieces))
    hit = np.ones(len(pieces), dtype=bool)
    for p, q in ((-dx, x0 - boxes[:, 0]), (dx, boxes[:, 2] - x0), (-dy, y0 - boxes[:, 1]), (dy, boxes[:, 3] - y0)):
        flat = p == 0
        hit &= ~(flat & (q < 0))
        r = q / np.where(flat, 1.0, p)
        low = np.where(~flat & (p < 0), np.maximum(low, r), low)
        high = np.where(~flat & (p > 0), np.minimum(high, r), high)
    return hit & (low <= high)


def _overlaps(box: np.ndarray, others: np.ndarray) -> bool:
    """Whether ``box`` overlaps one of ``others`` (left, top, right, bottom each)."""
    apart = (others[:, 2] <= box[0]) | (box[2] <= others[:, 0]) | (others[:, 3] <= box[1]) | (box[3] <= others[:, 1])
    return not apart.all()


def free_sides(pixels: np.ndarray, half: np.ndarray, texts: list[str], points: np.ndarray, order) -> list[str]:
    """The side (one of :data:`SIDES`) each of ``texts`` is written on, beside its mark at ``pixels`` (px, y
    downwards; ``half``: the marks' half width and height), or "" (no text, or no free side): the first side,
    in :data:`SIDES`'s order, where it covers no line of ``points`` (px, NaN between lines), no mark and no text
    placed before it (every text tries a side, in ``order``, before those left try the next). Remembered for the
    last drawings: a page draws the same fabric again at each step of its player."""
    arrays = [np.ascontiguousarray(a, dtype=float) for a in (pixels, half, points)]
    order = np.ascontiguousarray(order, dtype=np.int64)
    return list(_free_sides(*(a.tobytes() for a in arrays), tuple(texts), order.tobytes()))


@lru_cache(maxsize=32)
def _free_sides(pixels: bytes, half: bytes, points: bytes, texts: tuple[str, ...], order: bytes) -> tuple[str, ...]:
    """:func:`free_sides`, its arrays given as bytes."""
    pixels, half = np.frombuffer(pixels).reshape(-1, 2), np.frombuffer(half).reshape(-1, 2)
    points, order = np.frombuffer(points).reshape(-1, 2), np.frombuffer(order, dtype=np.int64)
    sides = [""] * len(texts)
    named = np.array([i for i in order.tolist() if texts[i]], dtype=np.int64)
    if not len(named):
        return tuple(sides)
    widths = np.array([caption_width(texts[i]) for i in named])
    boxes = {side: _boxes(pixels[named], half[named], widths, side) for side in SIDES}
    pieces = _segments(points, pixels, half)
    ends = np.r_[pieces.reshape(-1, 2), *(b.reshape(-1, 2) for b in boxes.values())]
    low = np.floor(ends.min(axis=0) / CELL).astype(np.int64) - 2
    width = int(np.floor(ends[:, 0].max() / CELL)) - int(low[0]) + 3
    pairs = _cells(pieces, low, width)
    taken = np.empty((0, 4))  # the texts placed so far
    left = np.arange(len(named))  # the texts with no side yet: most take the first, the others try the next
    for side in SIDES:
        crossed = _crossed(boxes[side][left], pieces, pairs, low, width)
        for j in left[~crossed].tolist():
            if not _overlaps(boxes[side][j], taken):
                taken = np.r_[taken, boxes[side][j][None]]
                sides[int(named[j])] = side
        left = np.array([j for j in left.tolist() if not sides[int(named[j])]], dtype=np.int64)
        if not len(left):
            break
    return tuple(sides)


def switches_first(topo: Topology, pixels: np.ndarray) -> np.ndarray:
    """The nodes in the order their names are placed: switches first, then top rows first, left to right."""
    return np.lexsort((pixels[:, 0], pixels[:, 1], topo.kind != SWITCH))


def placed(
    topo: Topology, pos: np.ndarray, lines: tuple[np.ndarray, np.ndarray], width: int = HALF
) -> dict[str, tuple[list[int], list[str]]]:
    """The nodes named on a Plotly drawing, by side (one of :data:`SIDES`), with their names: each fitted name
    (:func:`~vizcoll.ui.figures.captions.fitted_captions`) on a free side of its node (:func:`free_sides`, off the
    links ``lines``: x and y in the drawing's units, NaN between links; switches first, top rows first)."""
    pos = np.asarray(pos, dtype=float)
    to_pixels = _to_pixels(pos, width, PLOT_HEIGHT)
    pixels = to_pixels(pos)
    fitted = fitted_captions(topo, pixels, captions(topo))
    order = switches_first(topo, pixels)
    half = np.full((topo.n_nodes, 2), MARK)
    sides = free_sides(pixels, half, fitted, to_pixels(np.c_[lines[0], lines[1]].astype(float)), order)
    out: dict[str, tuple[list[int], list[str]]] = {}
    for node in order.tolist():
        if sides[node]:
            nodes, texts = out.setdefault(sides[node], ([], []))
            nodes.append(node)
            texts.append(fitted[node])
    return out


def add_labels(
    fig: go.Figure, topo: Topology, pos: np.ndarray, lines: tuple[np.ndarray, np.ndarray], width: int = HALF
) -> None:
    """Write the nodes' names (as :func:`~vizcoll.ui.figures.captions.captions`: host names where a file gives
    them) on ``fig`` beside their nodes, off the links ``lines`` (:func:`placed`); every name stays whole in the
    hover text."""
    if topo.n_nodes == 0 or topo.n_nodes > LABELLED:
        return
    for side, (nodes, texts) in placed(topo, pos, lines, width).items():
        fig.add_trace(
            go.Scatter(
                x=pos[nodes, 0],
                y=pos[nodes, 1],
                mode="text",
                text=texts,
                textposition=side,
                hoverinfo="skip",
                showlegend=False,
                name="names",
                textfont={"size": FONT, "color": "#333", "family": FONT_FAMILY},
            )
        )
