"""Pure builders for the erasure-code page: the DCs with their blocks and a repair group, the codes compared,
the generator matrix (plain engine dicts in, Plotly figures out; nothing here calls the engine).

``result`` is :meth:`vizcoll.erasure.metrics.Metrics.to_dict` (``measure``'s output): ``n``, ``k``, ``dcs``,
``placement``, ``kinds``, ``generator``, ``repair_groups`` / ``repair_groups_aggregated``, ...
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from vizcoll.ui.figures.style import FULL, ink, styled
from vizcoll.words import noun, plural

__all__ = [
    "KIND_COLOURS",
    "FAMILY_NAMES",
    "block_layout",
    "dc_figure",
    "repair_text",
    "failure_text",
    "compare_figure",
    "matrix_figure",
]

KIND_COLOURS = {
    "data": "#1f77b4",
    "parity": "#ff7f0e",
    "local parity": "#2ca02c",
    "global parity": "#9467bd",
    "replica": "#17becf",
}
FAMILY_NAMES = {"rs": "Reed–Solomon", "lrc": "Azure LRC", "replication": "replication", "fmel": "FMEL (searched)"}
SHORT_NAMES = {"rs": "RS", "lrc": "LRC", "replication": "replication", "fmel": "FMEL"}
FAMILY_COLOURS = {"rs": "#7f7f7f", "lrc": "#9467bd", "replication": "#17becf", "fmel": "#d62728"}
REMOTE, LOCAL, SUM = "#d62728", "#52606d", "#ff7f0e"
PER_ROW = 6  # DC boxes per row
SPAN = 1.0  # distance between block centres


# ---------------------------------------------------------------- the DCs and their blocks
def block_layout(placement: list[int], dcs: int) -> tuple[dict[int, tuple[float, float]], list[dict]]:
    """Block centres and DC boxes (``{"dc", "x0", "x1", "y0", "y1", "header": (x, y)}``), DCs in rows of 6.

    >>> pos, boxes = block_layout([0, 0, 1], 2)
    >>> pos[1], pos[2], len(boxes)
    ((1.85, -1.3), (4.05, -1.3), 2)
    """
    members: list[list[int]] = [[] for _ in range(dcs)]
    for i, z in enumerate(placement):
        members[z].append(i)
    most = max((len(m) for m in members), default=1)
    cols = max(1, min(4, math.ceil(math.sqrt(most))))  # square-ish, so that arrows rarely run along a row
    rows = max(1, math.ceil(most / cols))
    width, height = cols * SPAN + 0.7, rows * SPAN + 1.0
    pos: dict[int, tuple[float, float]] = {}
    boxes = []
    for z in range(dcs):
        x0 = (z % PER_ROW) * (width + 0.5)
        top = -(z // PER_ROW) * (height + 0.6)
        boxes.append(
            {"dc": z, "x0": x0, "x1": x0 + width, "y0": top - height, "y1": top, "header": (x0 + 0.45, top - 0.35)}
        )
        for m, i in enumerate(members[z]):
            pos[i] = (round(x0 + 0.85 + (m % cols) * SPAN, 6), round(top - 1.3 - (m // cols) * SPAN, 6))
    return pos, boxes


def _label(i: int, kind: str, data_blocks: list[int]) -> str:
    if kind == "data" and i in data_blocks:
        return f"y{i} = x{data_blocks.index(i)}"
    return f"y{i}: {kind}"


def _draw_dcs(fig: go.Figure, boxes: list[dict], failed: set, dcs: int) -> None:
    """The DC boxes (failed ones shaded red) and the square of each DC that fails or restores it."""
    for box in boxes:
        down = box["dc"] in failed
        fig.add_shape(
            type="rect",
            x0=box["x0"],
            x1=box["x1"],
            y0=box["y0"],
            y1=box["y1"],
            layer="below",
            line={"color": "#d62728" if down else "#9fb3c8", "width": 2, "dash": "dash" if down else "solid"},
            fillcolor="#fde8e8" if down else "#f8fafc",
        )
    hx = [b["header"][0] for b in boxes]
    hy = [b["header"][1] for b in boxes]
    fig.add_trace(
        go.Scatter(
            x=hx,
            y=hy,
            mode="markers+text",
            name="data centre (click its square to fail / restore it)",
            marker={
                "symbol": "square",
                "size": 18,
                "color": ["#d62728" if z in failed else "#2f5386" for z in range(dcs)],
                "line": {"color": "white", "width": 1},
            },
            text=[f"DC {z}" + (" — failed" if z in failed else "") for z in range(dcs)],
            textposition="middle right",
            textfont={"size": 13, "color": "#1f2933"},
            customdata=[["dc", z] for z in range(dcs)],
            hovertext=[f"DC {z}: click to {'restore' if z in failed else 'fail'} it" for z in range(dcs)],
            hoverinfo="text",
        )
    )


def dc_figure(
    result: dict, traffic: str = "blocks", selected: int | None = None, failed=(), failure: dict | None = None
) -> go.Figure:
    """The DCs as boxes with their blocks (colour = kind); the selected block's repair group with arrows
    (cross-DC reads in red; with ``traffic="aggregated"`` each remote DC's blocks meet in a Σ that sends one
    block); failed DCs shaded, their lost blocks ringed green (rebuilt from the others) or red (lost)."""
    n, dcs = result["n"], result["dcs"]
    placement, kinds, data = result["placement"], result["kinds"], result["data_blocks"]
    groups = result["repair_groups" if traffic == "blocks" else "repair_groups_aggregated"]
    pos, boxes = block_layout(placement, dcs)
    failed = set(failed)
    lost = {i for i in range(n) if placement[i] in failed}
    recoverable = set((failure or {}).get("recoverable", []))
    fig = go.Figure()
    _draw_dcs(fig, boxes, failed, dcs)
    for kind, colour in KIND_COLOURS.items():
        ids_ = [i for i in range(n) if kinds[i] == kind and i not in lost]
        if not ids_:
            continue
        fig.add_trace(
            go.Scatter(
                x=[pos[i][0] for i in ids_],
                y=[pos[i][1] for i in ids_],
                mode="markers+text",
                name=f"{kind} block",
                marker={"symbol": "square", "size": 34, "color": colour, "line": {"color": "white", "width": 1}},
                text=[f"y{i}" for i in ids_],
                textfont={"color": ink(colour), "size": 12},  # white or black: whichever reads on it
                customdata=[["block", i] for i in ids_],
                hovertext=[_block_hover(i, kinds, data, groups) for i in ids_],
                hoverinfo="text",
            )
        )
    for label, members, ring in (
        ("lost, rebuilt from the surviving DCs", sorted(lost & recoverable), "#2ca02c"),
        ("lost for good", sorted(lost - recoverable), "#d62728"),
    ):
        if members:
            fig.add_trace(
                go.Scatter(
                    x=[pos[i][0] for i in members],
                    y=[pos[i][1] for i in members],
                    mode="markers+text",
                    name=label,
                    marker={"symbol": "square", "size": 34, "color": "#e4e7eb", "line": {"color": ring, "width": 3}},
                    text=[f"y{i}" for i in members],
                    textfont={"color": "#52606d", "size": 12},
                    customdata=[["block", i] for i in members],
                    hovertext=[f"y{i} ({kinds[i]}) is lost with DC {placement[i]}" for i in members],
                    hoverinfo="text",
                )
            )
    if selected is not None and 0 <= selected < n:
        _draw_repair(fig, groups[selected], pos, boxes, placement, traffic)
    right = max(b["x1"] for b in boxes) + 0.3
    bottom = min(b["y0"] for b in boxes) - 0.3
    aspect = (0.3 - bottom) / (right + 0.3)
    fig.update_layout(
        height=int(min(900, max(280, 110 + 980 * aspect))),
        plot_bgcolor="white",
        margin={"l": 10, "r": 10, "b": 10},
        clickmode="event",
        title={
            "text": f"{result['name']} on {plural(dcs, 'data centre')}: click a block for its repair "
            "group, a DC's square to fail or restore it"
        },
        xaxis={"visible": False, "range": [-0.3, right]},
        yaxis={"visible": False, "range": [bottom, 0.3], "scaleanchor": "x", "scaleratio": 1},
        dragmode=False,
    )
    return styled(fig, FULL)


def _block_hover(i: int, kinds: list[str], data: list[int], groups: list[dict]) -> str:
    r = groups[i]
    if r["group"] is None:
        return f"{_label(i, kinds[i], data)}<br>cannot be rebuilt from the other blocks"
    return (
        f"{_label(i, kinds[i], data)}<br>repair reads {plural(len(r['local']), 'block')} in its DC and "
        f"{len(r['remote'])} from other DCs: cross-DC traffic {r['cross_dc']}"
    )


def _curve(x0: float, y0: float, x1: float, y1: float, bend: float, stop: float = 0.32) -> tuple[list, list]:
    """Points of a gentle arc from (x0, y0) to just before (x1, y1): a spline through a control point pushed
    sideways by ``bend`` × the length, ending ``stop`` short of the target (outside its square)."""
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy) or 1.0
    cx, cy = (x0 + x1) / 2 - dy / length * bend * length, (y0 + y1) / 2 + dx / length * bend * length
    ex, ey = x1 - cx, y1 - cy
    last = math.hypot(ex, ey) or 1.0
    sx, sy = (
        x0 + (cx - x0) / (math.hypot(cx - x0, cy - y0) or 1.0) * 0.25,
        y0 + (cy - y0) / (math.hypot(cx - x0, cy - y0) or 1.0) * 0.25,
    )
    return [sx, cx, x1 - ex / last * stop], [sy, cy, y1 - ey / last * stop]


def _arrows(fig: go.Figure, paths: list[tuple[list, list]], name: str, colour: str, width: float) -> None:
    """Curved arrows (one trace: segments separated by gaps; an arrowhead marker at each end)."""
    if not paths:
        return
    xs, ys, symbols, sizes = [], [], [], []
    for px, py in paths:
        xs += [*px, None]
        ys += [*py, None]
        symbols += ["circle"] * (len(px) - 1) + ["arrow", "circle"]
        sizes += [0] * (len(px) - 1) + [9 + 2 * width, 0]
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines+markers",
            name=name,
            hoverinfo="skip",
            line={"color": colour, "width": width, "shape": "spline"},
            marker={"symbol": symbols, "size": sizes, "color": colour, "angleref": "previous"},
        )
    )


def _draw_repair(fig: go.Figure, r: dict, pos: dict, boxes: list[dict], placement: list[int], traffic: str) -> None:
    target = r["block"]
    tx, ty = pos[target]
    fig.add_trace(
        go.Scatter(
            x=[tx],
            y=[ty],
            mode="markers",
            name=f"y{target}: the block being rebuilt",
            marker={"symbol": "square-open", "size": 44, "color": "#1f2933", "line": {"width": 3}},
            hoverinfo="skip",
        )
    )
    if r["group"] is None:
        return
    if r["group"]:
        fig.add_trace(
            go.Scatter(
                x=[pos[j][0] for j in r["group"]],
                y=[pos[j][1] for j in r["group"]],
                mode="markers",
                name="its repair group",
                hoverinfo="skip",
                marker={"symbol": "square-open", "size": 42, "color": "#f5b800", "line": {"width": 3}},
            )
        )

    def bend(m: int) -> float:  # alternate sides, wider and wider, so that arrows along one row stay apart
        return (0.16 + 0.06 * (m // 2)) * (1 if m % 2 == 0 else -1)

    _arrows(
        fig,
        [_curve(*pos[j], tx, ty, bend(m)) for m, j in enumerate(r["local"])],
        "read in its own DC (free)",
        LOCAL,
        1.5,
    )
    if traffic == "blocks":
        _arrows(
            fig,
            [_curve(*pos[j], tx, ty, bend(m)) for m, j in enumerate(r["remote"])],
            f"cross-DC read ({len(r['remote'])})",
            REMOTE,
            3,
        )
        return
    sums, feeds = [], []
    for m, w in enumerate(r.get("remote_dcs", [])):
        box = boxes[w]
        sx = box["x1"] - 0.2 if box["x1"] < tx else box["x0"] + 0.2
        sy = (box["y0"] + box["y1"] - 0.7) / 2  # beside the blocks, below the header
        feeds += [_curve(*pos[j], sx, sy, 0.0, stop=0.12) for j in r["remote"] if placement[j] == w]
        sums.append(_curve(sx, sy, tx, ty, bend(m)))
        fig.add_annotation(
            x=sx,
            y=sy,
            text="<b>Σ</b>",
            showarrow=False,
            font={"size": 15, "color": SUM},
            bgcolor="white",
            bordercolor=SUM,
            borderwidth=1,
        )
    _arrows(fig, feeds, "combined inside its DC", SUM, 1.2)
    _arrows(fig, sums, f"cross-DC transfer, one block per DC ({len(sums)})", REMOTE, 3)


def repair_text(result: dict, i: int, traffic: str = "blocks") -> str:
    """One sentence: what rebuilding block i reads, and its cross-DC traffic (both models)."""
    r = result["repair_groups"][i]
    a = result["repair_groups_aggregated"][i]
    where = f"y{i} (DC {r['dc']}, {result['kinds'][i]})"
    if r["group"] is None:
        return f"{where} cannot be rebuilt from the other blocks at all."
    local = ", ".join(f"y{j}" for j in r["local"]) or "nothing"
    remote = ", ".join(f"y{j}" for j in r["remote"]) or "nothing"
    counted = (
        f"cross-DC traffic {plural(r['cross_dc'], 'block')} (per remote block read); "
        f"{a['cross_dc']} if each remote DC sends one combined block (reading "
        f"{', '.join('y' + str(j) for j in a['remote']) or 'nothing'} in {noun(len(a['remote_dcs']), 'DC')} "
        f"{', '.join(map(str, a['remote_dcs'])) or '—'})"
    )
    if traffic == "aggregated":
        counted = (
            f"cross-DC traffic {a['cross_dc']} (one combined block from each of DC "
            f"{', '.join(map(str, a['remote_dcs'])) or '—'}); {r['cross_dc']} counting every remote block"
        )
        local = ", ".join(f"y{j}" for j in a["local"]) or "nothing"
        remote = ", ".join(f"y{j}" for j in a["remote"]) or "nothing"
    exact = "" if r["exact"] and a["exact"] else " (search budget exhausted: an upper bound)"
    return f"Rebuilding {where} reads {local} in its DC and {remote} from other DCs: {counted}.{exact}"


def failure_text(failure: dict) -> str:
    """Whether the stripe survives the failed DCs, and which lost blocks come back."""
    if not failure["failed"]:
        return ""
    dcs = ", ".join(map(str, failure["failed"]))
    lost = ", ".join(f"y{i}" for i in failure["lost"]) or "no blocks"
    if failure["survives"]:
        return (
            f"✓ The stripe survives the loss of DC {dcs}: {lost} are lost and every one can be rebuilt from "
            f"the surviving DCs (rank {failure['rank']} = k)."
        )
    back = ", ".join(f"y{i}" for i in failure["recoverable"]) or "none of them"
    gone = ", ".join(f"y{i}" for i in failure["unrecoverable"])
    return (
        f"✕ Data lost: with DC {dcs} down the surviving blocks have rank {failure['rank']} < k. Lost: {lost}; "
        f"recoverable: {back}; gone for good: {gone}."
    )


# ---------------------------------------------------------------- the codes compared
def compare_figure(rows: dict[str, dict], paper: list[dict], current: str, traffic: str) -> go.Figure:
    """T̄ (both traffic models), n/k and DC failures survived for every family, Table 2 values as diamonds."""
    fig = make_subplots(
        rows=1,
        cols=3,
        horizontal_spacing=0.07,
        subplot_titles=("mean cross-DC repair traffic T̄ (blocks)", "storage overhead n/k", "DC failures survived"),
    )
    families = [f for f in FAMILY_NAMES if f in rows]
    names = [SHORT_NAMES[f] + (" ◀" if f == current else "") for f in families]
    ok = [f for f in families if "error" not in rows[f]]

    def values(key):
        return [rows[f].get(key) if f in ok else None for f in families]

    series = [
        ("mean_traffic", "T̄ per remote block", "#2f5386"),
        ("mean_traffic_aggregated", "T̄ per remote DC (aggregated)", "#9fb3c8"),
    ]
    if traffic == "aggregated":
        series.reverse()
    for key, label, colour in series:
        ys = values(key)
        fig.add_trace(
            go.Bar(
                x=names,
                y=ys,
                name=label,
                marker_color=colour,
                legendgroup="t",
                cliponaxis=False,
                text=["n/a" if y is None else f"{y:.2f}" for y in ys],
                textposition="outside",
                textfont={"size": 10},
                hovertemplate="%{x}: %{y:.3f}<extra>" + label + "</extra>",
            ),
            row=1,
            col=1,
        )
    for col, key, label in ((2, "overhead", "n/k"), (3, "dc_failures_survived", "DC failures survived")):
        ys = values(key)
        fig.add_trace(
            go.Bar(
                x=names,
                y=ys,
                name=label,
                showlegend=False,
                cliponaxis=False,
                marker_color=[FAMILY_COLOURS[f] for f in families],
                text=["n/a" if y is None else f"{y:g}" for y in ys],
                textposition="outside",
                textfont={"size": 10},
                hovertemplate="%{x}: %{y}<extra>" + label + "</extra>",
            ),
            row=1,
            col=col,
        )
    shown = False
    for row in paper:
        if row["code"] not in families:
            continue
        x = names[families.index(row["code"])]
        for col, key in ((1, "mean_traffic"), (2, "overhead"), (3, "D")):
            fig.add_trace(
                go.Scatter(
                    x=[x],
                    y=[row[key]],
                    mode="markers",
                    name="paper (Table 2)",
                    legendgroup="paper",
                    showlegend=not shown,
                    cliponaxis=False,
                    marker={
                        "symbol": "diamond",
                        "size": 13,
                        "color": "#f5b800",
                        "line": {"color": "#1f2933", "width": 1.5},
                    },
                    hovertemplate=f"paper, {row['label']}: %{{y}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
            shown = True
    fig.update_layout(
        barmode="group", height=360, plot_bgcolor="white", margin={"l": 40, "r": 10, "b": 40}, bargap=0.25
    )
    for col in (1, 2, 3):
        fig.update_yaxes(gridcolor="#e4e7eb", rangemode="tozero", row=1, col=col)
        fig.update_xaxes(tickfont={"size": 12}, tickangle=0, row=1, col=col)
    peak = max([v for f in ok for v in (rows[f]["mean_traffic"], rows[f]["mean_traffic_aggregated"])] + [1.0])
    fig.update_yaxes(range=[0, peak * 1.2], row=1, col=1)
    tallest = max([rows[f]["overhead"] for f in ok] + [1.0])
    fig.update_yaxes(range=[0, tallest * 1.2], row=1, col=2)
    survived = max([rows[f]["dc_failures_survived"] for f in ok] + [1])
    fig.update_yaxes(range=[0, survived * 1.25 + 0.1], dtick=1, row=1, col=3)
    return styled(fig, FULL, top=30)


# ---------------------------------------------------------------- the generator matrix
def matrix_figure(result: dict) -> go.Figure:
    """G (k × n) as a heatmap: rows = data blocks x_j, columns = coded blocks y_i (with their DC); 0 is white."""
    g = result["generator"]
    k, n = len(g), len(g[0])
    z = [[None if v == 0 else v for v in row] for row in g]
    x = [f"y{i}·DC{result['placement'][i]}" for i in range(n)]
    y = [f"x{j}" for j in range(k)]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=x,
            y=y,
            colorscale="Blues",
            zmin=0,
            zmax=255,
            xgap=2,
            ygap=2,
            hoverongaps=False,
            colorbar={"title": {"text": "GF(2⁸)"}, "thickness": 12},
            texttemplate="%{z}" if n * k <= 240 else None,
            textfont={"size": 10},
            hovertemplate="coefficient of %{y} in %{x}: %{z}<extra></extra>",
        )
    )
    fig.update_layout(
        height=max(220, 90 + 26 * k),
        plot_bgcolor="white",
        margin={"l": 40, "r": 10, "b": 60},
        title={"text": f"Generator matrix G ({k} × {n}, GF(2⁸)): y = x·G; blank = 0"},
        yaxis={"autorange": "reversed"},
        xaxis={"tickangle": -45, "tickfont": {"size": 10}},
    )
    return styled(fig, FULL)
