"""Pure builders for the multicast page: two algorithms' EFI on the fabric, their difference, the histogram."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from vizcoll.multicast.loads import groups_on_links, tree_rows
from vizcoll.multicast.routing import MulticastResult
from vizcoll.topology.model import Topology
from vizcoll.ui.figures.efi import efi_histogram, group_summary, groups_hover, link_value_figure

__all__ = ["route_figures"]


def route_figures(topo: Topology, a: MulticastResult, b: MulticastResult, group: int | None = None,
                  rows: np.ndarray | None = None, overview: bool = False, pos: np.ndarray | None = None
                  ) -> tuple[go.Figure, go.Figure, go.Figure, go.Figure]:
    """Heatmaps of A and B, their difference and the EFI histogram.

    ``overview``: the maximum EFI between groups of switches instead of the
    links; else the links ``rows`` (all by default), with ``group``'s trees
    drawn thick; ``pos``: the nodes' places.
    """
    hist = efi_histogram({f"A: {a.algo}": a.efi, f"B: {b.algo}": b.efi})
    if overview:
        return (group_summary(topo, a.efi, title=f"A: {a.algo} — max EFI between groups"),
                group_summary(topo, b.efi, title=f"B: {b.algo} — max EFI between groups"),
                group_summary(topo, b.efi - a.efi, label="EFI B − A", title="B − A, max per group pair",
                              diverging=True),
                hist)
    heat = [link_value_figure(topo, r.efi, f"{name}: {r.algo} (max EFI {int(r.efi.max(initial=0))})",
                              hover=groups_hover(groups_on_links(r, topo.n_links), rows=rows), rows=rows,
                              highlight=tree_rows(r, group), clickable=True, pos=pos)
            for name, r in (("A", a), ("B", b))]
    diff = link_value_figure(topo, b.efi - a.efi, f"Difference B − A ({b.algo} − {a.algo})", rows=rows,
                             diverging=True, label="EFI B − A", clickable=True, pos=pos)
    return heat[0], heat[1], diff, hist
