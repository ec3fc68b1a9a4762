"""Names on a Plotly drawing of a fabric: each node named under it where its name fits, no two names overlapping.

A drawing keeps its aspect (``scaleanchor``), so the pixels a node gets are known from the figure's size
(:func:`plot_pixels`). Names are fitted as on the cytoscape canvas (:func:`~vizcoll.ui.figures.captions.fit_texts`):
whole, cut with "…", or left to the hover text. A row of switches too crowded for names written across (sixteen
leaf switches of a pod in half a page) gets them written upwards (rotated annotations), as long as the switches
are at least :data:`UPRIGHT` pixels apart; a row of end nodes that crowded keeps its names in the hover text.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from vizcoll.arrays import unique
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.ui.figures.captions import FONT, FONT_FAMILY, caption_width, captions, fitted_captions
from vizcoll.ui.figures.style import HALF

__all__ = ["UPRIGHT", "PLOT_HEIGHT", "plot_pixels", "add_labels", "outward"]

UPRIGHT = 14  # px between switches of a row for names written upwards
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


def plot_pixels(pos: np.ndarray, width: int = HALF, height: int = PLOT_HEIGHT) -> np.ndarray:
    """Where the nodes at ``pos`` land (px, y downwards) in a plot area about ``width`` - 80 by ``height`` pixels
    that keeps the drawing's aspect (the 80: margins and a colour bar)."""
    pos = np.asarray(pos, dtype=float)
    span = np.maximum(pos.max(axis=0) - pos.min(axis=0), 1e-9) if len(pos) else np.ones(2)
    scale = min((width - 80) / span[0], height / span[1])
    return (pos - pos.min(axis=0)) * scale * np.array([1.0, -1.0]) if len(pos) else pos


def _upright_rows(topo: Topology, pixels: np.ndarray, fitted: list[str], names: list[str]) -> dict[int, float]:
    """Switches whose row is too crowded for their names across but not for names upwards: node -> the pixels
    below it that its name may take (down to the next row)."""
    out: dict[int, float] = {}
    rows = np.round(pixels[:, 1], 3)
    for y in unique(rows[topo.switches]) if len(topo.switches) else []:
        row = np.flatnonzero((rows == y) & (topo.kind == SWITCH))
        if all(fitted[i] == names[i] for i in row):
            continue
        xs = np.sort(pixels[row, 0])
        gap = np.diff(xs).min(initial=np.inf)
        below = rows[rows > y + 1]
        room = (below.min() - y - 14) if len(below) else 120.0
        if gap >= UPRIGHT and room >= 4 * FONT:
            out.update(dict.fromkeys(row.tolist(), room))
    return out


def add_labels(fig: go.Figure, topo: Topology, pos: np.ndarray, width: int = HALF) -> None:
    """Write the nodes' names (as :func:`~vizcoll.ui.figures.captions.captions`: host names where a file gives
    them) on ``fig``: across under the nodes where they fit, upwards for crowded rows of switches; every name
    stays whole in the hover text."""
    if topo.n_nodes == 0 or topo.n_nodes > LABELLED:
        return
    pixels = plot_pixels(pos, width)
    names = captions(topo)
    fitted = fitted_captions(topo, pixels, names)
    upright = []
    for node, room in _upright_rows(topo, pixels, fitted, names).items():
        fitted[node] = ""
        text = names[node]
        while text and caption_width(text) > room:
            text = text[:-2] + "…" if len(text) > 2 else ""
        upright.append(
            {
                "x": pos[node, 0],
                "y": pos[node, 1],
                "text": text,
                "textangle": -90,
                "showarrow": False,
                "xanchor": "center",
                "yanchor": "top",
                "yshift": -8,
                "bgcolor": "rgba(255,255,255,0.8)",
                "font": {"size": FONT, "color": "#333", "family": FONT_FAMILY},
            }
        )
    if upright:  # all at once: Plotly checks every annotation again at each one added
        fig.update_layout(annotations=[*fig.layout.annotations, *upright])
    shown = [i for i, text in enumerate(fitted) if text]
    if shown:
        fig.add_trace(
            go.Scatter(
                x=pos[shown, 0],
                y=pos[shown, 1],
                mode="text",
                text=[fitted[i] for i in shown],
                textposition="bottom center",
                hoverinfo="skip",
                showlegend=False,
                name="names",
                textfont={"size": FONT, "color": "#333", "family": FONT_FAMILY},
            )
        )
