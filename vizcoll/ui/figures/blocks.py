"""Pure builder: a large fabric at a glance, its blocks (a pod's switches of one level, ...) and the bundles of
links between them (:mod:`vizcoll.topology.blocks`), coloured and sized by a value per link.

Blocks are squares (switches) or dots (end nodes) at the mean place of their nodes, sized by their node count;
the fabric's rows are named inside the plot above each row (as :func:`~vizcoll.topology.blocks.blocks` names
them: "leaf switches" on a generated fat tree, "edge switches (tier 1)", "tier 2"... on a file) and its groups
(pods, edge switches with their end nodes) on the x axis when the blocks form such a grid.
A *bundle* (every link between two blocks) is one mark half way between them (above its pod when the other
block spans the whole fabric, as the top switches do): its colour is the largest value one of its links carries
(the hot spot: "max EFI 8"), its size the mean (how loaded the bundle is as a whole), both on the colour
scale's range (``top``: shared by panels compared side by side, so one colour and one size mean one value in
each of them). Without values (a plain
fabric) a bundle's size is its number of links and its colour says whether a link of it is broken. A bundle's
hover lists its cables (``a[pa]-b[pb]``) each with its own value, the hottest first (at most
:data:`~vizcoll.topology.blocks.LISTED`, then how many more), so parallel cables never hide a hot one. A few
bundles are also drawn as thin lines between their blocks. Everything is named in the hover texts; a click on a
block or a bundle drills into its pod (its ``customdata`` is the part to show, ``"group:7"``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import plotly.graph_objects as go

from vizcoll.arrays import unique
from vizcoll.topology.blocks import Blocks
from vizcoll.ui.figures.style import DIVERGING, HALF, SEQUENTIAL, ColourScale, styled
from vizcoll.words import plural

__all__ = ["blocks_figure", "add_animation_layers", "animation_frame", "MAX_TICKS"]

MAX_TICKS = 12  # pods named on the x axis at most (evenly spread; half as many on a figure of a pair)
LINES = 300  # bundles drawn as lines too, at most
ACTIVE = [[0, "#fdd49e"], [1, "#d7301f"]]  # what a step lights: few messages light orange, many deep red
BROKEN = "#d62728"


def _bundle_text(part: Blocks, bundle: dict, i: int, label: str | None) -> str:
    """A bundle named by its blocks, its number of links, the max and mean of their values, and its hottest
    cables each with its own value (``bundle["cables"]``, hottest first; the others counted): over parallel
    cables the hover names the hot one, never only the value of the cable drawn on top."""
    a, b, links = int(bundle["a"][i]), int(bundle["b"][i]), int(bundle["links"][i])
    text = f"{part.names[a]} –<br>{part.names[b]}: {plural(links, 'link')}"  # narrow lines: the box fits a figure
    if label:
        text += f"<br>max {label} {bundle['max'][i]:g}, mean {bundle['mean'][i]:.2f}"
    if bundle["broken"][i]:
        text += f"<br><b>{int(bundle['broken'][i])} broken</b>"
    cables = bundle.get("cables")
    if cables is None:
        return text
    lines = [text, "<i>cables, hottest first:</i>" if label else "<i>cables:</i>"]
    for name, value, broken in cables[i]:
        name = name.replace("]-", "] –<br>  ", 1)  # a cable's ends a[p]-b[q] on two lines
        lines.append((f"{name}: {label} {value:g}" if label else name) + (" <b>broken</b>" if broken else ""))
    if links > len(cables[i]):
        lines.append(f"and {links - len(cables[i]):,} more")
    return "<br>".join(lines)


def _places(part: Blocks, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where a bundle's mark goes: half way between its blocks, above the pod's block when the other block
    belongs to no pod (the top switches of a fat tree)."""
    x = (part.x[a] + part.x[b]) / 2
    podless_a, podless_b = part.group[a] < 0, part.group[b] < 0
    x = np.where(podless_a & ~podless_b, part.x[b], np.where(podless_b & ~podless_a, part.x[a], x))
    return x, (part.y[a] + part.y[b]) / 2


def _add_bundles(
    fig: go.Figure, part: Blocks, bundle: dict, label: str | None, diverging: bool, top: float | None
) -> None:
    between = np.flatnonzero(bundle["a"] != bundle["b"])
    a, b = bundle["a"][between], bundle["b"][between]
    if len(between) <= LINES:
        nan = np.full(len(a), np.nan)
        fig.add_trace(
            go.Scatter(
                x=np.stack([part.x[a], part.x[b], nan], 1).ravel(),
                y=np.stack([part.y[a], part.y[b], nan], 1).ravel(),
                mode="lines",
                line={"color": "#d9e2ec", "width": 1},
                hoverinfo="skip",
                showlegend=False,
            )
        )
    x, y = _places(part, a, b)
    if label is None:
        size = bundle["links"][between] / max(int(bundle["links"][between].max(initial=0)), 1)
        colour = np.where(bundle["broken"][between] > 0, 1.0, 0.0)
        scale, cmin, cmax = [[0, "#9fb3c8"], [1, BROKEN]], 0, 1
        name = f"link bundles ({len(between):,}; red ✕: some broken)"
    else:
        colour = bundle["max"][between]
        top = (float(np.abs(colour).max(initial=0.0)) if top is None else float(top)) or 1.0
        size = np.minimum(np.abs(bundle["mean"][between]) / top, 1.0)
        scale, cmin, cmax = (DIVERGING, -top, top) if diverging else (SEQUENTIAL, 0.0, top)
        name = f"link bundles ({len(between):,}): colour = max {label}, size = mean"
    group = np.where(part.group[a] >= 0, part.group[a], part.group[b])
    fig.add_trace(
        go.Scatter(
            x=x,
            y=y,
            mode="markers",
            name=name,
            hoverinfo="text",
            customdata=[f"{part.path}group:{int(g)}" if g >= 0 else "" for g in group],
            text=[_bundle_text(part, bundle, i, label) for i in between.tolist()],
            marker={  # a bundle with a broken link is a red ✕, not only red (colour is never the only cue)
                "symbol": np.where(bundle["broken"][between] > 0, "x", "diamond") if label is None else "diamond",
                "size": 5 + 11 * size,
                "color": colour,
                "colorscale": scale,
                "cmin": cmin,
                "cmax": cmax,
                "line": {"width": 0.5, "color": "#52606d"},
                "showscale": label is not None,
                "colorbar": {"title": {"text": label}, "thickness": 14} if label else None,  # "max": in the legend
            },
        )
    )


def _add_blocks(fig: go.Figure, part: Blocks, bundle: dict, selected: set[int]) -> None:
    inside = np.zeros(len(part), dtype=int)
    same = bundle["a"] == bundle["b"]
    np.add.at(inside, bundle["a"][same], bundle["links"][same])
    for switches, symbol, colour, name in (
        (True, "square", "#4a6fa5", "switch blocks"),
        (False, "circle", "#9aa5b1", "end node blocks"),
    ):
        sel = np.flatnonzero(part.switches == switches)
        if not len(sel):
            continue
        fig.add_trace(
            go.Scatter(
                x=part.x[sel],
                y=part.y[sel],
                mode="markers",
                name=f"{name} ({len(sel):,})",
                marker={
                    "symbol": symbol,
                    "size": 5 + 1.5 * np.log2(part.count[sel] + 1),
                    "color": colour,
                    "line": {"width": [3 if int(b) in selected else 0 for b in sel], "color": "#1f3a5f"},
                },
                customdata=[f"{part.path}group:{int(part.group[b])}" if part.group[b] >= 0 else "" for b in sel],
                text=[
                    f"{part.names[b]}: {plural(int(part.count[b]), 'switch' if switches else 'end node')}"
                    + (f", {plural(int(inside[b]), 'link')} inside" if inside[b] else "")
                    + ("<br><i>click: draw it alone</i>" if part.group[b] >= 0 else "")
                    for b in sel
                ],
                hoverinfo="text",
            )
        )


def add_animation_layers(fig: go.Figure, part: Blocks, bundle: dict) -> None:
    """Two layers a player draws on, step by step (from the frames of :func:`vizcoll.sim.overview.overview_frames`):
    a mark on every bundle (messages crossing it in this step: size and colour) and a ring on every block (its
    nodes changing state in this step). In the browser they are ``legendonly``: Plotly keeps their marks' places
    and styles but draws none of them (styling a thousand marks of size 0 slowed every figure: docs/design.md), and
    ``assets/overview.js`` draws the lit ones over the plot; :func:`animation_frame` shows them for the exports.
    Their ``meta`` names them (``overview-messages``, ``overview-nodes``)."""
    x, y = _places(part, bundle["a"], bundle["b"])
    for meta, xs, ys, symbol, name in (
        ("overview-messages", x, y, "diamond", "messages in this step"),
        ("overview-nodes", part.x, part.y, "circle-open", "nodes busy in this step"),
    ):
        marker = {
            "symbol": symbol,
            "size": np.zeros(len(xs)),
            "color": np.zeros(len(xs)),
            "colorscale": ACTIVE,
            "cmin": 0,
            "line": {"width": 2, "color": ACTIVE[-1][1]},
        }
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="markers",
                name=name,
                meta=meta,
                hoverinfo="skip",
                marker=marker,
                showlegend=False,
                visible="legendonly",
            )
        )


def lit_sizes(count: np.ndarray) -> np.ndarray:
    """The size of a lit mark for ``count`` messages or nodes (0: not lit); ``assets/overview.js`` draws the same."""
    return np.where(count > 0, 9 + 5 * np.log2(1 + count), 0.0)


def animation_frame(figure: go.Figure, frames: dict, position: int) -> go.Figure:
    """``figure`` (with :func:`add_animation_layers`) at player ``position`` of ``frames``
    (:func:`vizcoll.sim.overview.overview_frames`), as the browser draws it (for GIF and MP4 exports)."""
    p = min(max(int(position), 0), len(frames["bundles"]) - 1)
    layers = {
        "overview-messages": (frames["bundles"][p], frames["messages"][p], frames["n_bundles"]),
        "overview-nodes": (frames["blocks"][p], frames["nodes"][p], frames["n_blocks"]),
    }
    out = go.Figure(figure)
    for trace in out.data:
        if trace.meta in layers:
            index, count, n = layers[trace.meta]
            values = np.zeros(n)
            values[np.asarray(index, dtype=np.int64)] = count
            trace.marker.update(size=lit_sizes(values), color=values, cmax=max(1.0, float(values.max(initial=0))))
            trace.visible = True
    return out


def _grid(part: Blocks) -> bool:
    """Whether the blocks form a grid of rows (levels) and pods, as a fat tree's do: a few rows, and each pod in a
    column of its own (a torus's planes, laid out in a grid of grids, share columns: they keep their places)."""
    pods = part.group >= 0
    if not (len(unique(part.level)) <= 8 and pods.any() and (part.level >= 0).all()):
        return False
    columns = unique(np.round(part.x[pods], 6) * (1 << 20) + part.group[pods])
    return len(unique(columns // (1 << 20))) == len(unique(part.group[pods]))


def _axes(part: Blocks, ticks: int = MAX_TICKS) -> tuple[dict, dict, list[dict]]:
    """Axis settings and the rows' names: pods named on the x axis when the blocks form a grid of rows (at 0, 1,
    2...) and pods, at most ``ticks`` of them, and each row named inside the plot, above its left end (names on
    the y axis took a third of a half-page figure's width: issue 46); else hidden axes and no names."""
    if not _grid(part):
        return {"visible": False}, {"visible": False, "scaleanchor": "x"}, []
    levels = unique(part.level)
    pods = np.flatnonzero((part.group >= 0) & (part.level == part.level[part.group >= 0].min()))
    pods = pods[np.argsort(part.x[pods])]
    shown = pods[np.linspace(0, len(pods) - 1, min(ticks, len(pods))).round().astype(int)] if len(pods) else pods
    word = part.names[pods[0]].split(" ", 1)[0] if len(pods) else "group"
    low, high = float(part.x.min()), float(part.x.max())
    pad = 0.03 * (high - low) or 1.0  # the largest marks' half width: Plotly's own padding was 7 % a side
    xaxis = {
        "title": {"text": word},
        "range": [low - pad, high + pad],
        "tickvals": part.x[shown].tolist(),
        "ticktext": [str(int(part.group[b])) for b in shown],
        "showgrid": False,
        "zeroline": False,
    }
    yaxis = {"visible": False, "range": [-0.35, len(levels) - 0.55]}  # room above the top row for its name
    names = [
        {
            "x": 0,
            "xref": "paper",
            "y": row,
            "text": part.rows.get(int(level), f"row {level}"),
            "showarrow": False,
            "xanchor": "left",
            "yanchor": "bottom",
            "yshift": 7,
            "font": {"size": 12, "color": "#3e4c59"},
        }
        for row, level in enumerate(levels.tolist())
    ]
    return xaxis, yaxis, names


def blocks_figure(
    part: Blocks,
    bundle: dict,
    title: str,
    scale: ColourScale | None = None,
    selected=(),
    width: int = HALF,
    animated: bool = False,
) -> go.Figure:
    """The blocks and bundles of a fabric (see the module): ``scale`` says what the bundles' colours show (its
    ``label`` names the value, ``"EFI"``, ``"packets"``; ``diverging`` centres its colours on 0, a difference;
    ``top`` is the largest value of its colour scale, default the largest drawn; None: a plain fabric),
    ``selected`` blocks are ringed (those a highlighted tree uses); ``animated``: with the two layers a player
    lights step by step (:func:`add_animation_layers`)."""
    scale = scale if scale is not None else ColourScale(label=None)
    if _grid(part):  # rows at 0, 1, 2...: a fat tree's levels, evenly apart
        part = replace(part, y=np.searchsorted(unique(part.level), part.level).astype(float))
    fig = go.Figure()
    _add_bundles(fig, part, bundle, scale.label, scale.diverging, scale.top)
    _add_blocks(fig, part, bundle, set(int(b) for b in selected))
    if animated:
        add_animation_layers(fig, part, bundle)
    xaxis, yaxis, names = _axes(part, MAX_TICKS if width > HALF else MAX_TICKS // 2)  # one of a pair: half as many
    fig.update_layout(
        annotations=[*fig.layout.annotations, *names],
        title={"text": title},
        plot_bgcolor="white",
        height=520,
        hovermode="closest",
        margin={"l": 10, "r": 10, "b": 10},
        xaxis=xaxis,
        yaxis=yaxis,
        clickmode="event",
    )
    return styled(fig, width)
