"""Pure builders for the multicast page: two algorithms' EFI on the fabric, their difference, the histogram."""

from __future__ import annotations

import plotly.graph_objects as go

from vizcoll.multicast.loads import groups_on_links, tree_rows
from vizcoll.multicast.routing import MulticastResult
from vizcoll.ui.figures.efi import LinkHover, efi_histogram, groups_hover, shared_top
from vizcoll.ui.figures.fabric import view_figure
from vizcoll.ui.figures.style import ColourScale

__all__ = ["first_figure", "route_figures"]


def route_figures(
    view, a: MulticastResult, b: MulticastResult, group: int | None = None
) -> tuple[go.Figure, go.Figure, go.Figure, go.Figure]:
    """Heatmaps of A and B on ``view`` (the part of the fabric drawn, :class:`~vizcoll.ui.models.parts.
    FabricView`: every link of the whole fabric or of one group with ``group``'s trees drawn thick, or the
    overview's bundles), their difference and the EFI histogram. A and B share one colour scale (the larger
    maximum of the two, stated in their titles), so the same colour is the same EFI in both; the difference keeps
    its own scale, centred on 0."""
    hist = efi_histogram({f"A: {a.algo}": a.efi, f"B: {b.algo}": b.efi})
    where, per = _scope(view)
    top = shared_top(a.efi[view.rows], b.efi[view.rows])
    heat = [_heat(view, r, name, group, top, " in A and B") for name, r in (("A", a), ("B", b))]
    diff = view_figure(
        view,
        b.efi - a.efi,
        f"Difference B − A ({b.algo} − {a.algo}){where}{per}",
        ColourScale("EFI B − A", diverging=True),
        LinkHover(clickable=True),
    )
    return heat[0], heat[1], diff, hist


def first_figure(view, a: MulticastResult, group: int | None = None) -> go.Figure:
    """A's heatmap alone, on its own colour scale: the page's first view while B is still being routed (then
    :func:`route_figures` draws it again on the scale A and B share)."""
    return _heat(view, a, "A", group, shared_top(a.efi[view.rows]), "")


def _scope(view) -> tuple[str, str]:
    """The titles' words for the part drawn: which part, and per bundle on the overview."""
    where = "" if view.part in ("whole", "overview") else f", {view.name} alone"
    return where, " per bundle of links" if view.overview is not None else ""


def _heat(view, r: MulticastResult, name: str, group: int | None, top: float, shared: str) -> go.Figure:
    where, per = _scope(view)
    return view_figure(
        view,
        r.efi,
        f"{name}: {r.algo} (max EFI {int(r.efi[view.rows].max(initial=0))}; colours 0–{top:g}{shared}){where}{per}",
        ColourScale(top=top),
        LinkHover(None if view.overview is not None else groups_hover(groups_on_links(r, len(r.efi), view.rows)), True),
        highlight=tree_rows(r, group),
    )
