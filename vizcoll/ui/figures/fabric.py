"""Pure builder: one value per link of the scenario's fabric drawn on the part a page shows (see
:mod:`vizcoll.ui.models.parts`): the overview's blocks and bundles, one group drawn alone, or the whole fabric."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from vizcoll.arrays import unique
from vizcoll.topology.blocks import bundles
from vizcoll.topology.layout import stretched
from vizcoll.ui.figures.blocks import blocks_figure
from vizcoll.ui.figures.efi import LinkHover, link_value_figure
from vizcoll.ui.figures.style import HALF, ColourScale

__all__ = ["view_figure"]


def view_figure(
    view,
    values: np.ndarray,
    title: str,
    scale: ColourScale | None = None,
    hover: LinkHover | None = None,
    highlight=None,
    width: int = HALF,
) -> go.Figure:
    """``values`` (one per link row of the whole fabric) on ``view`` (a :class:`~vizcoll.ui.models.parts.
    FabricView`): bundles coloured by their max and sized by their mean on the overview (the blocks a
    ``highlight`` — link rows, e.g. a group's tree — touches ringed), else every link of the part with its
    ``hover`` (its text: one per link drawn, per row of ``view.rows``), ``highlight`` drawn thick; ``scale``
    (default ``ColourScale()``: the EFI) names the value and its ``top`` is the colour scale's largest value
    (:func:`~vizcoll.ui.figures.efi.shared_top` of panels compared side by side)."""
    scale = scale if scale is not None else ColourScale()
    values = np.asarray(values, dtype=float)
    if view.overview is not None:
        part = view.overview
        rows = np.asarray(highlight if highlight is not None else [], dtype=np.int64)
        touched = unique(np.r_[part.of[view.topo.link_a[rows]], part.of[view.topo.link_b[rows]]])
        return blocks_figure(part, bundles(view.topo, part, values), title, scale, touched.tolist(), width)
    index = np.full(len(values), -1, dtype=np.int64)
    index[view.rows] = np.arange(len(view.rows))
    shown = index[np.asarray(highlight, dtype=np.int64)] if highlight is not None and len(highlight) else None
    pos = view.pos if view.part == "whole" else stretched(view.pos)  # a group alone fills the figure
    return link_value_figure(
        view.topo,
        values[view.rows],
        title,
        hover=hover,
        scale=scale,
        highlight=None if shown is None else shown[shown >= 0],
        pos=pos,
    )
