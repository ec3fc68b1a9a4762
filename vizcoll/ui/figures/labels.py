"""Names on a Plotly drawing of a fabric: each node named beside it where its name fits, on no link and on no
other name (issue 46: "labels never lie on links").

A drawing keeps its aspect (``scaleanchor``), so the pixels a node gets are known from the figure's size
(:func:`plot_pixels`). Names are fitted as on the cytoscape canvas (:func:`~vizcoll.ui.figures.captions.fit_texts`):
whole, cut with "…", or left to the hover text. Each name then takes the first side of its node, below, above,
right or left, where it covers no link drawn, no node and no name already placed (:func:`placed`: the links
rasterised once, every box's count read from a summed-area table). A name with no free side is left out: it shows
on hover, and in the page's "Links and nodes by name" table. We chose this over names on a white plate (which
hide the links under them) and over names written upwards between crowded switches (which lay on their links).

"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from vizcoll.topology.model import SWITCH, Topology
from vizcoll.ui.figures.captions import FONT, FONT_FAMILY, LINE, caption_width, captions, fitted_captions
from vizcoll.ui.figures.style import HALF

__all__ = ["SIDES", "PLOT_HEIGHT", "plot_pixels", "placed", "add_labels", "outward"]

SIDES = ("bottom center", "top center", "middle right", "middle left")  # where a name may go, in this order
GAP = 6  # px from a node's centre to its name (a mark reaches 3 px from it)
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


def _boxes(pixels: np.ndarray, widths: np.ndarray, side: str) -> np.ndarray:
    """The boxes (left, top, right, bottom; px, y downwards) of names ``widths`` px wide written on ``side`` of the
    nodes at ``pixels``, with :data:`CLEAR` px around them."""
    x, y, w, h = pixels[:, 0], pixels[:, 1], widths, LINE
    left, top = {
        "bottom center": (x - w / 2, y + GAP),
        "top center": (x - w / 2, y - GAP - h),
        "middle right": (x + GAP, y - h / 2),
        "middle left": (x - GAP - w, y - h / 2),
    }[side]
    return np.c_[left - CLEAR, top - CLEAR, left + w + CLEAR, top + h + CLEAR]


def _raster(points: np.ndarray, pixels: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pixel the links' lines (``points``, px, NaN between links) or the nodes' marks (at ``pixels``) cover
    up to ``reach`` px around the nodes, as a summed-area table, and the pixel its (0, 0) stands for."""
    a, b = points[:-1], points[1:]
    keep = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    a, b = a[keep], b[keep]
    steps = np.ceil(np.abs(b - a).max(axis=1, initial=0.0)).astype(np.int64) + 1  # one sample per pixel
    seg = np.repeat(np.arange(len(a)), steps)
    t = (np.arange(len(seg)) - np.repeat(np.cumsum(steps) - steps, steps)) / np.maximum(steps[seg] - 1, 1)
    samples = a[seg] + t[:, None] * (b[seg] - a[seg])
    around = np.stack(np.meshgrid(np.arange(-3, 4), np.arange(-3, 4)), axis=-1).reshape(-1, 2)
    marks = (pixels[:, None, :] + around[None]).reshape(-1, 2)  # a node's mark: 7 x 7 px
    covered = np.round(np.r_[samples, marks]).astype(np.int64)
    origin = np.floor(pixels.min(axis=0) - reach).astype(np.int64)
    covered -= origin
    shape = np.ceil(pixels.max(axis=0) + reach).astype(np.int64) - origin + 1
    inside = (covered >= 0).all(axis=1) & (covered < shape).all(axis=1)
    grid = np.zeros((shape[1], shape[0]), dtype=np.int32)
    grid[covered[inside, 1], covered[inside, 0]] = 1
    table = np.zeros((shape[1] + 1, shape[0] + 1), dtype=np.int32)
    table[1:, 1:] = grid.cumsum(axis=0).cumsum(axis=1)
    return table, origin


def _covered(table: np.ndarray, origin: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """How many covered pixels each of ``boxes`` holds (read from the summed-area ``table``)."""
    high = np.array(table.shape[::-1]) - 1
    x0, y0 = [np.clip(np.floor(boxes[:, i] - origin[i]).astype(np.int64), 0, high[i]) for i in (0, 1)]
    x1, y1 = [np.clip(np.ceil(boxes[:, i + 2] - origin[i]).astype(np.int64), 0, high[i]) for i in (0, 1)]
    return table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0]


def placed(
    topo: Topology, pos: np.ndarray, lines: tuple[np.ndarray, np.ndarray], width: int = HALF
) -> dict[str, tuple[list[int], list[str]]]:
    """The nodes named, by side (one of :data:`SIDES`), with their names: each fitted name
    (:func:`~vizcoll.ui.figures.captions.fitted_captions`) on the first side of its node where it covers no link of
    ``lines`` (x and y in the drawing's units, NaN between links), no node and no name placed before it (switches
    first, top rows first); a name with no such side is left out."""
    pos = np.asarray(pos, dtype=float)
    to_pixels = _to_pixels(pos, width, PLOT_HEIGHT)
    pixels = to_pixels(pos)
    fitted = fitted_captions(topo, pixels, captions(topo))
    named = np.array([i for i, text in enumerate(fitted) if text], dtype=np.int64)
    if not len(named):
        return {}
    widths = np.array([caption_width(fitted[i]) for i in named])
    reach = GAP + CLEAR + max(widths.max(), LINE) + 1  # no name's box goes further from its node
    table, origin = _raster(to_pixels(np.c_[lines[0], lines[1]].astype(float)), pixels, reach)
    boxes = {side: _boxes(pixels[named], widths, side) for side in SIDES}
    free = {side: _covered(table, origin, boxes[side]) == 0 for side in SIDES}
    order = np.lexsort((pixels[named, 0], pixels[named, 1], topo.kind[named] != SWITCH))
    taken = np.zeros_like(table, dtype=bool)  # the names placed so far
    out: dict[str, tuple[list[int], list[str]]] = {}
    for j in order.tolist():
        for side in SIDES:
            if not free[side][j]:
                continue
            x0, y0, x1, y1 = np.round(boxes[side][j] - np.r_[origin, origin]).astype(np.int64).clip(0)
            if taken[y0:y1, x0:x1].any():
                continue
            taken[y0:y1, x0:x1] = True
            nodes, texts = out.setdefault(side, ([], []))
            nodes.append(int(named[j]))
            texts.append(fitted[named[j]])
            break
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
