"""Pure builders for link-load views: EFI heatmaps on the fabric, differences, histograms (a large fabric's
overview: :mod:`vizcoll.ui.figures.blocks`).

A *link value* is one number per link row of a topology (e.g. the edge
forwarding index: how many multicast groups use the link). Links are drawn as
line segments coloured by value; Plotly cannot vary a line's colour along one
trace, so values are binned into a few colour classes (one trace each) and
a colour bar is added through an invisible marker trace. Every link also
gets an invisible hover point at its middle saying what it is and its value;
its ``customdata`` is the link's ``a[pa]-b[pb]`` label
(:meth:`Topology.link_label`), so a click on it (Plotly ``clickData``) names
the link. Broken links are drawn dashed in near-black (red means load here),
with a legend entry.

**Parallel cables** (two or more links between the same two nodes, on other
ports) are drawn apart, each as its own curve (:func:`link_lines`): a cable
alone is a straight segment, the cables of a pair bow out to either side,
their middles :data:`GAP_PX` pixels apart (three cables: one straight between
two bowed), so each keeps its own colour and width and its own hover point
(:func:`link_middles`), and the hover and a click always name the cable under
the pointer. Why curves rather than one bundle whose hover lists its cables:
a bundle needs one colour for several values (a hot and an idle cable look
alike), and a click on it could not say which cable to break; the few pixels
the curves take stay readable even on a pod whose every uplink is doubled.
The order of a pair's cables (by link id, from the end with the smaller node
index) is the one the cytoscape canvas uses
(:func:`vizcoll.ui.figures.topology.cytoscape_elements`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from vizcoll.arrays import unique
from vizcoll.topology.layout import positions
from vizcoll.topology.model import ENDPOINT, Topology
from vizcoll.ui.figures.captions import node_hovers
from vizcoll.ui.figures.labels import PLOT_HEIGHT, add_labels
from vizcoll.ui.figures.style import DIVERGING, HALF, SEQUENTIAL, ColourScale, styled
from vizcoll.words import noun, plural

__all__ = [
    "LinkHover",
    "link_value_figure",
    "shared_top",
    "efi_histogram",
    "groups_hover",
    "parallel_cables",
    "link_middles",
    "link_lines",
    "BROKEN",
    "GAP_PX",
    "BOW",
]

BROKEN = "#222"  # dashed near-black: red is a load colour on these heatmaps
BINS = 9
LOG_SPAN = 50  # the histogram's link axis turns logarithmic beyond this ratio of counts
GAP_PX = 12  # px between the middles of two neighboring parallel cables, on a figure at its first size
BOW = 0.3  # a cable's middle leaves the straight line by at most this fraction of the line's length
CURVE_POINTS = 9  # points along a bowed cable's curve


def parallel_cables(topo: Topology) -> tuple[np.ndarray, np.ndarray]:
    """(lane, count) per link row: ``count`` cables join the link's two nodes, and the link is the one in lane
    ``lane`` among them (0 for a cable alone; -0.5, 0.5 for two; -1, 0, 1 for three: by link id).

    Examples
    --------
    >>> topo = Topology.from_arrays(["s", "t", "h"], [0, 0, 1], [3, 3, 1], [[0, 1, 1, 1], [1, 3, 2, 1],
    ...                                                                  [1, 2, 0, 2]])  # two cables s-t
    >>> lanes, counts = parallel_cables(topo)
    >>> lanes.tolist(), counts.tolist()
    ([-0.5, 0.0, 0.5], [2, 1, 2])
    """
    lo, hi = np.minimum(topo.link_a, topo.link_b), np.maximum(topo.link_a, topo.link_b)
    order = np.lexsort((topo.link_id, hi, lo))
    start = np.r_[True, (np.diff(lo[order]) != 0) | (np.diff(hi[order]) != 0)] if len(order) else np.zeros(0, bool)
    group = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    size = np.diff(np.r_[first, len(order)])
    lanes, counts = np.zeros(len(order)), np.ones(len(order), dtype=np.int64)
    lanes[order] = np.arange(len(order)) - first[group] - (size[group] - 1) / 2
    counts[order] = size[group]
    return lanes, counts


def _unit_px(pos: np.ndarray) -> float:
    """Pixels per unit of ``pos`` on a figure at its first size (as :func:`~vizcoll.ui.figures.labels.
    plot_pixels` places the nodes)."""
    span = np.maximum(pos.max(axis=0) - pos.min(axis=0), 1e-9) if len(pos) else np.ones(2)
    return float(min((HALF - 80) / span[0], PLOT_HEIGHT / span[1]))


def link_middles(topo: Topology, pos: np.ndarray, rows=None) -> np.ndarray:
    """Where the middle of each link ``rows`` (default: all) is drawn, an ``(n, 2)`` array: the middle of its two
    ends, moved sideways by its lane (:func:`parallel_cables`) times :data:`GAP_PX` for a parallel cable."""
    rows = np.arange(topo.n_links) if rows is None else np.asarray(rows, dtype=np.int64)
    a, b = pos[topo.link_a[rows]], pos[topo.link_b[rows]]
    middle = (a + b) / 2
    lanes = parallel_cables(topo)[0][rows]
    bent = np.flatnonzero(lanes != 0)
    if len(bent):
        ends = np.c_[topo.link_a[rows[bent]], topo.link_b[rows[bent]]]
        d = pos[ends.max(axis=1)] - pos[ends.min(axis=1)]  # the pair's direction, whichever end is ``a``
        length = np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-12)
        shift = np.clip(lanes[bent] * GAP_PX / _unit_px(pos), -BOW * length, BOW * length)
        middle[bent] += np.c_[-d[:, 1], d[:, 0]] * (shift / length)[:, None]
    return middle


def link_lines(
    topo: Topology, pos: np.ndarray, rows, middles: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """x and y of links ``rows`` for one line trace (NaN between links): a straight segment per cable alone, a
    curve through its :func:`link_middles` point per parallel cable (``middles``: every link's, when known)."""
    rows = np.asarray(rows, dtype=np.int64)
    a, b = pos[topo.link_a[rows]], pos[topo.link_b[rows]]
    middle = link_middles(topo, pos, rows) if middles is None else middles[rows]
    bent = np.any(middle != (a + b) / 2, axis=1)
    nan = np.full((int((~bent).sum()), 1, 2), np.nan)
    straight = np.concatenate([a[~bent, None], b[~bent, None], nan], axis=1)
    t = np.linspace(0.0, 1.0, CURVE_POINTS)[None, :, None]
    control = 2 * middle[bent] - (a[bent] + b[bent]) / 2  # a quadratic curve through the middle at t = 1/2
    curves = (1 - t) ** 2 * a[bent, None] + 2 * t * (1 - t) * control[:, None] + t**2 * b[bent, None]
    curves = np.concatenate([curves, np.full((len(curves), 1, 2), np.nan)], axis=1)
    points = np.concatenate([straight.reshape(-1, 2), curves.reshape(-1, 2)])
    return points[:, 0], points[:, 1]


def shared_top(*values: np.ndarray) -> float:
    """The colour scale's top for panels that are compared: the largest absolute value any of them draws (0 when
    they draw nothing), so that one colour means one value in every panel.

    >>> shared_top(np.array([0, 8]), np.array([3, -1]))
    8.0
    """
    return float(max((np.abs(np.asarray(v, dtype=float)).max(initial=0.0) for v in values), default=0.0))


def _colour(scale: str, fraction: float) -> str:
    from plotly.colors import sample_colorscale

    return sample_colorscale(scale, [min(max(fraction, 0.0), 1.0)])[0]


@dataclass(frozen=True)
class LinkHover:
    """What the hover box of a link says besides its ends and its value.

    Parameters
    ----------
    text : list of str, optional
        A line per link row of the fabric drawn ("" or None: none).
    clickable : bool
        Say that a click breaks (or repairs) the link.
    """

    text: list[str] | None = None
    clickable: bool = False


def link_value_figure(
    topo: Topology,
    values: np.ndarray,
    title: str,
    hover: LinkHover | None = None,
    rows: np.ndarray | None = None,
    scale: ColourScale | None = None,
    highlight: np.ndarray | None = None,
    pos: np.ndarray | None = None,
) -> go.Figure:
    """Links ``rows`` (default: all) coloured by ``values``; ``highlight`` (link rows) drawn thick on top.

    Zero-valued links are drawn thin and grey so loaded links stand out; broken links are dashed near-black.
    ``hover`` adds a line per link to its hover text and (``clickable``) says there that a click breaks (or
    repairs) it. ``scale`` (default ``ColourScale()``: the EFI) names the value; ``diverging`` centres the colour
    scale on 0 (for differences between two algorithms); ``top`` is its largest value (default: the largest value
    drawn), shared by panels compared side by side (:func:`shared_top`). ``pos``: the nodes' places (default
    :func:`~vizcoll.topology.layout.positions`).
    """
    hover = hover if hover is not None else LinkHover()
    scale = scale if scale is not None else ColourScale()
    label, diverging = scale.label, scale.diverging
    pos = positions(topo) if pos is None else pos
    rows = np.arange(topo.n_links) if rows is None else np.asarray(rows)
    values = np.asarray(values, dtype=float)
    palette = DIVERGING if diverging else SEQUENTIAL
    top = shared_top(values[rows]) if scale.top is None else float(scale.top)
    low = -top if diverging else 0.0
    fig = go.Figure()
    middles = link_middles(topo, pos)  # once for every trace: each parallel cable on its own curve
    idle = rows[(values[rows] == 0) & ~topo.broken[rows]]
    xs, ys = link_lines(topo, pos, idle, middles)
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            line={"color": "#d9d9d9", "width": 1},
            name=f"{label} 0 ({plural(len(idle), 'link')})",
            hoverinfo="skip",
        )
    )
    busy = rows[values[rows] != 0]
    edges = np.linspace(low, top, BINS + 1) if top > 0 else np.array([0.0, 1.0])
    which = np.clip(np.digitize(values[busy], edges[1:-1]), 0, len(edges) - 2)
    for b in unique(which):
        sel = busy[which == b]
        xs, ys = link_lines(topo, pos, sel, middles)
        mid = (edges[b] + edges[b + 1]) / 2
        colour = _colour(palette, (mid - low) / ((top - low) or 1))
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                showlegend=False,
                hoverinfo="skip",
                line={"color": colour, "width": 1.5 + 3.5 * abs(mid) / (top or 1)},
            )
        )
    broken = rows[topo.broken[rows]]
    if len(broken):
        xs, ys = link_lines(topo, pos, broken, middles)
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line={"color": BROKEN, "width": 2.5, "dash": "dash"},
                name=f"{noun(len(broken), 'broken link')} ({len(broken):,})",
                hoverinfo="skip",
            )
        )
    if highlight is not None and len(highlight):
        xs, ys = link_lines(topo, pos, np.asarray(highlight), middles)
        fig.add_trace(
            go.Scatter(
                x=xs, y=ys, mode="lines", line={"color": "#1f3a5f", "width": 5}, name="selected tree", hoverinfo="skip"
            )
        )
    _add_nodes(fig, topo, pos, link_lines(topo, pos, rows, middles))
    _add_hover(fig, topo, middles, rows, values, hover.text, label, hover.clickable)
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            showlegend=False,
            hoverinfo="skip",
            marker={
                "colorscale": palette,
                "cmin": low,
                "cmax": max(top, 1),
                "color": [0],
                "showscale": True,
                "colorbar": {"title": {"text": label}, "thickness": 14},
            },
        )
    )
    fig.update_layout(
        title={"text": title},
        plot_bgcolor="white",
        height=520,
        margin={"l": 10, "r": 10, "b": 10},
        xaxis={"visible": False},
        yaxis={"visible": False, "scaleanchor": "x"},
        hovermode="closest",
    )
    return styled(fig)


def _add_nodes(fig: go.Figure, topo: Topology, pos: np.ndarray, lines: tuple[np.ndarray, np.ndarray]) -> None:
    """Switches (squares) and end nodes (dots) with their names as hover text, and written beside them where they
    fit off the links ``lines`` (:func:`vizcoll.ui.figures.labels.add_labels`)."""
    sw = topo.switches
    fig.add_trace(
        go.Scatter(
            x=pos[sw, 0],
            y=pos[sw, 1],
            mode="markers",
            name="switches",
            marker={"symbol": "square", "size": 7 if topo.n_nodes < 3000 else 3, "color": "#4a6fa5"},
            text=_texts(node_hovers(topo, sw.tolist(), sep="<br>")),
            hoverinfo="text",
        )
    )
    ends = np.flatnonzero(topo.kind == ENDPOINT)
    if 0 < len(ends) <= 3000:
        fig.add_trace(
            go.Scatter(
                x=pos[ends, 0],
                y=pos[ends, 1],
                mode="markers",
                name="end nodes",
                marker={"size": 5, "color": "#9aa5b1"},
                text=_texts(node_hovers(topo, ends.tolist(), sep="<br>")),
                hoverinfo="text",
            )
        )
    add_labels(fig, topo, pos, lines)


def _add_hover(fig, topo, middles, rows, values, hover, label, clickable=False) -> None:
    """Invisible points at link middles (``middles``, see :func:`link_middles`: each parallel cable on its own
    curve) carrying the hover text and the link's label (only loaded and broken links on big fabrics)."""
    shown = rows if len(rows) <= 20_000 else rows[(values[rows] != 0) | topo.broken[rows]][:20_000]
    a, b = topo.link_a[shown], topo.link_b[shown]
    labels = _texts(topo.link_label(r) for r in shown.tolist())
    click = ("<br><i>click: repair this link</i>", "<br><i>click: break this link</i>") if clickable else ("", "")
    ids, pa, pb = topo.link_id[shown].tolist(), topo.link_pa[shown].tolist(), topo.link_pb[shown].tolist()
    broken, names = topo.broken[shown].tolist(), topo.names
    lanes, counts = parallel_cables(topo)
    cables = [
        f"<br>cable {int(lane + (n + 1) / 2)} of {n} between these two" if n > 1 else ""
        for lane, n in zip(lanes[shown].tolist(), counts[shown].tolist(), strict=True)
    ]
    text = _texts(
        f"link {lid}:<br>{names[i]}[{p}] –<br>{names[j]}[{q}]"  # one end per line: a narrow box, inside the figure
        + ("<br><b>broken</b>" if cut else f"<br>{label} {value:g}")
        + cable
        + (f"<br>{hover[r]}" if hover and hover[r] else "")
        + click[0 if cut else 1]
        for r, i, j, lid, p, q, cut, value, cable in zip(
            shown.tolist(), a.tolist(), b.tolist(), ids, pa, pb, broken, values[shown].tolist(), cables, strict=True
        )
    )
    fig.add_trace(
        go.Scatter(
            x=middles[shown, 0],
            y=middles[shown, 1],
            mode="markers",
            marker={"size": 10, "opacity": 0},
            text=text,
            hoverinfo="text",
            showlegend=False,
            customdata=labels,
            name="links",
        )
    )


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
    fig.update_layout(
        barmode="group",
        title={"text": "Links per EFI value"},
        height=320,
        xaxis_title="EFI (groups on the link)",
        yaxis_title="links" + (" (log scale)" if log else ""),
        yaxis_type="log" if log else "linear",
        xaxis_dtick=1 if top <= 20 else None,
        margin={"l": 50, "r": 10, "b": 40},
        plot_bgcolor="white",
    )
    return styled(fig)
