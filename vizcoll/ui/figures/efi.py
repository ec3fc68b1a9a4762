"""Pure builders for link-load views: EFI heatmaps on the fabric, differences, histograms (a large fabric's
overview: :mod:`vizcoll.ui.figures.blocks`).

A *link value* is one number per link row of a topology (e.g. the edge
forwarding index: how many multicast groups use the link). Links are drawn as
line segments coloured by value; Plotly cannot vary a line's colour along one
trace, so values are binned into a few colour classes (one WebGL trace each)
and a colour bar is added through an invisible marker trace. Every link also
gets an invisible hover point at its middle saying what it is and its value;
its ``customdata`` is the link's ``a[pa]-b[pb]`` label
(:meth:`Topology.link_label`), so a click on it (Plotly ``clickData``) names
the link. Broken links are drawn dashed in near-black (red means load here),
with a legend entry.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from vizcoll.arrays import unique
from vizcoll.topology.layout import positions
from vizcoll.topology.model import ENDPOINT, Topology
from vizcoll.ui.figures.captions import node_hovers
from vizcoll.ui.figures.labels import add_labels
from vizcoll.ui.figures.style import DIVERGING, SEQUENTIAL, styled

__all__ = ["link_value_figure", "efi_histogram", "groups_hover", "BROKEN"]

BROKEN = "#222"  # dashed near-black: red is a load colour on these heatmaps
BINS = 9
LOG_SPAN = 50  # the histogram's link axis turns logarithmic beyond this ratio of counts


def _segments(pos: np.ndarray, topo: Topology, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    nan = np.full(len(rows), np.nan)
    xs = np.stack([pos[topo.link_a[rows], 0], pos[topo.link_b[rows], 0], nan], 1).ravel()
    ys = np.stack([pos[topo.link_a[rows], 1], pos[topo.link_b[rows], 1], nan], 1).ravel()
    return xs, ys


def _colour(scale: str, fraction: float) -> str:
    from plotly.colors import sample_colorscale

    return sample_colorscale(scale, [min(max(fraction, 0.0), 1.0)])[0]


def link_value_figure(
    topo: Topology,
    values: np.ndarray,
    title: str,
    hover: list[str] | None = None,
    rows: np.ndarray | None = None,
    diverging: bool = False,
    highlight: np.ndarray | None = None,
    label: str = "EFI",
    clickable: bool = False,
    pos: np.ndarray | None = None,
) -> go.Figure:
    """Links ``rows`` (default: all) coloured by ``values``; ``highlight`` (link rows) drawn thick on top.

    Zero-valued links are drawn thin and grey so loaded links stand out; broken
    links are dashed near-black. ``diverging`` centres the colour scale on 0 (for
    differences between two algorithms). ``clickable`` says in each link's
    hover text that a click breaks (or repairs) it. ``pos``: the nodes'
    places (default :func:`~vizcoll.topology.layout.positions`).
    """
    pos = positions(topo) if pos is None else pos
    rows = np.arange(topo.n_links) if rows is None else np.asarray(rows)
    values = np.asarray(values, dtype=float)
    scale = DIVERGING if diverging else SEQUENTIAL
    top = float(np.abs(values[rows]).max()) if len(rows) else 0.0
    low = -top if diverging else 0.0
    fig = go.Figure()
    idle = rows[(values[rows] == 0) & ~topo.broken[rows]]
    xs, ys = _segments(pos, topo, idle)
    fig.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", line={"color": "#d9d9d9", "width": 1},
                               name=f"{label} 0 ({len(idle):,} links)", hoverinfo="skip"))
    busy = rows[values[rows] != 0]
    edges = np.linspace(low, top, BINS + 1) if top > 0 else np.array([0.0, 1.0])
    which = np.clip(np.digitize(values[busy], edges[1:-1]), 0, len(edges) - 2)
    for b in unique(which):
        sel = busy[which == b]
        xs, ys = _segments(pos, topo, sel)
        mid = (edges[b] + edges[b + 1]) / 2
        colour = _colour(scale, (mid - low) / ((top - low) or 1))
        fig.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", showlegend=False, hoverinfo="skip",
                                   line={"color": colour, "width": 1.5 + 3.5 * abs(mid) / (top or 1)}))
    broken = rows[topo.broken[rows]]
    if len(broken):
        xs, ys = _segments(pos, topo, broken)
        fig.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", line={"color": BROKEN, "width": 2.5, "dash": "dash"},
                                   name=f"broken link{'s' * (len(broken) > 1)} ({len(broken):,})",
                                   hoverinfo="skip"))
    if highlight is not None and len(highlight):
        xs, ys = _segments(pos, topo, np.asarray(highlight))
        fig.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", line={"color": "#1f3a5f", "width": 5},
                                   name="selected tree", hoverinfo="skip"))
    _add_nodes(fig, topo, pos)
    _add_hover(fig, topo, pos, rows, values, hover, label, clickable)
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", showlegend=False, hoverinfo="skip",
                             marker={"colorscale": scale, "cmin": low, "cmax": max(top, 1), "color": [0],
                                     "showscale": True, "colorbar": {"title": {"text": label}, "thickness": 14}}))
    fig.update_layout(title={"text": title}, plot_bgcolor="white", height=520, margin={"l": 10, "r": 10, "b": 10},
                      xaxis={"visible": False}, yaxis={"visible": False, "scaleanchor": "x"}, hovermode="closest")
    return styled(fig)


def _add_nodes(fig: go.Figure, topo: Topology, pos: np.ndarray) -> None:
    """Switches (squares) and end nodes (dots) with their names as hover text, and written under them where they
    fit (:func:`vizcoll.ui.figures.labels.add_labels`)."""
    sw = topo.switches
    fig.add_trace(go.Scattergl(x=pos[sw, 0], y=pos[sw, 1], mode="markers", name="switches",
                               marker={"symbol": "square", "size": 7 if topo.n_nodes < 3000 else 3,
                                       "color": "#4a6fa5"},
                               text=_texts(node_hovers(topo, sw.tolist())), hoverinfo="text"))
    ends = np.flatnonzero(topo.kind == ENDPOINT)
    if 0 < len(ends) <= 3000:
        fig.add_trace(go.Scattergl(x=pos[ends, 0], y=pos[ends, 1], mode="markers", name="end nodes",
                                   marker={"size": 5, "color": "#9aa5b1"},
                                   text=_texts(node_hovers(topo, ends.tolist())), hoverinfo="text"))
    add_labels(fig, topo, pos)


def _add_hover(fig, topo, pos, rows, values, hover, label, clickable=False) -> None:
    """Invisible points at link middles carrying the hover text and the link's label (only loaded and broken
    links on big fabrics)."""
    shown = rows if len(rows) <= 20_000 else rows[(values[rows] != 0) | topo.broken[rows]][:20_000]
    a, b = topo.link_a[shown], topo.link_b[shown]
    labels = _texts(topo.link_label(r) for r in shown.tolist())
    click = ("<br><i>click: repair this link</i>", "<br><i>click: break this link</i>") if clickable else ("", "")
    ids, pa, pb = topo.link_id[shown].tolist(), topo.link_pa[shown].tolist(), topo.link_pb[shown].tolist()
    broken, names = topo.broken[shown].tolist(), topo.names
    text = _texts(f"link {lid}: {names[i]}[{p}] – {names[j]}[{q}]"
                  + ("<br><b>broken</b>" if cut else f"<br>{label} {value:g}")
                  + (f"<br>{hover[r]}" if hover and hover[r] else "") + click[0 if cut else 1]
                  for r, i, j, lid, p, q, cut, value in zip(shown.tolist(), a.tolist(), b.tolist(), ids, pa, pb,
                                                             broken, values[shown].tolist(), strict=True))
    fig.add_trace(go.Scattergl(x=(pos[a, 0] + pos[b, 0]) / 2, y=(pos[a, 1] + pos[b, 1]) / 2, mode="markers",
                               marker={"size": 10, "opacity": 0}, text=text, hoverinfo="text", showlegend=False,
                               customdata=labels, name="links"))


def _texts(items) -> np.ndarray:
    """Hover texts as an object array: Plotly takes an array as it is, where it checks a list item by item (a
    second for the 100,000 links of a paper-scale fabric)."""
    return np.array(list(items), dtype=object)


def groups_hover(crossing: list[list[int]], limit: int = 8, rows: np.ndarray | None = None) -> list[str]:
    """Hover text per link row from :func:`vizcoll.multicast.loads.groups_on_links`: the first groups crossing it
    (only for ``rows`` when given, the drawn links: the others get none)."""
    shown = range(len(crossing)) if rows is None else np.asarray(rows).tolist()
    out = [""] * len(crossing)
    for r in shown:
        g = crossing[r]
        if g:
            out[r] = "groups " + ", ".join(map(str, g[:limit])) + (" …" if len(g) > limit else "")
    return out


def efi_histogram(series: dict[str, np.ndarray]) -> go.Figure:
    """Number of links at each EFI value, one bar series per algorithm (links with EFI 0 left out).

    The link axis is logarithmic only when the counts span more than :data:`LOG_SPAN` (a large fabric's many
    lightly loaded links beside its few hot ones); otherwise plain numbers read better.
    """
    fig = go.Figure()
    heights, top = [], 0
    for name, efi in series.items():
        efi = np.asarray(efi, dtype=int)
        counts = np.bincount(efi[efi > 0]) if (efi > 0).any() else np.zeros(1, dtype=int)
        x = np.flatnonzero(counts)
        heights += counts[x].tolist()
        top = max(top, len(counts) - 1)
        fig.add_trace(go.Bar(x=x, y=counts[x], name=name))
    log = bool(heights) and max(heights) > LOG_SPAN * min(heights)
    fig.update_layout(barmode="group", title={"text": "Links per EFI value"}, height=320,
                      xaxis_title="EFI (groups on the link)", yaxis_title="links" + (" (log scale)" if log else ""),
                      yaxis_type="log" if log else "linear", xaxis_dtick=1 if top <= 20 else None,
                      margin={"l": 50, "r": 10, "b": 40}, plot_bgcolor="white")
    return styled(fig)
