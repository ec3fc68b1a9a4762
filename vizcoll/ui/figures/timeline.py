"""Pure builder: one step of a timeline drawn as a process diagram (no topology needed).

Entities (processes, threads, the subnet manager, a group...) sit on a circle
(``"group"``/``"sm"``-like hubs listed in ``hubs`` sit in the middle), each
coloured by its state at the step (the legend names the states, the hover says
each one's) and named outside the circle where the names fit; the messages of
the step are arrows between the entities whose nodes they connect.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from vizcoll.sim.timeline import Timeline
from vizcoll.ui.figures.labels import outward
from vizcoll.ui.figures.style import FULL, styled

__all__ = ["process_diagram"]

COLOURS = ["#4a6fa5", "#2ca02c", "#f5b800", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#d62728"]


def _positions(keys: list[str], hubs: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    ring = [k for k in keys if k not in hubs]
    angle = np.pi / 2 - 2 * np.pi * np.arange(len(ring)) / max(len(ring), 1)
    pos = {k: (float(np.cos(a)), float(np.sin(a))) for k, a in zip(ring, angle, strict=True)}
    centre = [k for k in keys if k in hubs]
    for i, k in enumerate(centre):
        pos[k] = (0.0, 0.25 * (len(centre) - 1) / 2 - 0.25 * i)
    return pos


RING_PX = 140  # the circle's radius on the page, in pixels (height 440, y from -1.35 to 1.3)
CHAR_PX = 7.5  # width of a caption's character at Plotly's 12 px font


def _names_fit(ring: list[str]) -> bool:
    """Whether the names of the circle's entities fit between their neighbours (else the hover names them)."""
    return not ring or 2 * np.pi * RING_PX / len(ring) >= CHAR_PX * max(map(len, ring)) + 4


def process_diagram(timeline: Timeline, step: int, hubs: tuple[str, ...] = ("group", "sm")) -> go.Figure:
    """The state of every entity after ``step`` (-1 = initial) and the messages of that step."""
    state = timeline.state_at(step)
    keys = list(state)
    pos = _positions(keys, hubs)
    values = sorted({str(v) for v in state.values()})
    colour = {v: COLOURS[i % len(COLOURS)] for i, v in enumerate(values)}
    fig = go.Figure()
    by_node: dict[int, str] = {}
    for key, meta in timeline.entities.items():
        by_node.setdefault(int(meta.get("node", -1)), key)
    for event in timeline.active_at(step) if step >= 0 else []:
        src, dst = by_node.get(event.src), by_node.get(event.dst)
        if src in pos and dst in pos and src != dst:
            fig.add_annotation(
                x=pos[dst][0],
                y=pos[dst][1],
                ax=pos[src][0],
                ay=pos[src][1],
                xref="x",
                yref="y",
                axref="x",
                ayref="y",
                showarrow=True,
                arrowhead=3,
                arrowwidth=2.5,
                arrowcolor="#ff7f0e",
                standoff=14,
                startstandoff=14,
            )
    named = _names_fit([k for k in keys if k not in hubs])
    for value in values:
        members = [k for k in keys if str(state[k]) == value]
        fig.add_trace(
            go.Scatter(
                x=[pos[k][0] for k in members],
                y=[pos[k][1] for k in members],
                mode="markers+text",
                name=value,
                text=[k if named or k in hubs else "" for k in members],
                textposition=["bottom center" if k in hubs else outward(*pos[k]) for k in members],
                marker={
                    "size": 26 if members[0] in hubs else 18,
                    "color": colour[value],
                    "line": {"width": 1, "color": "#333"},
                },
                hovertext=[f"{k}: {value}" for k in members],
                hoverinfo="text",
            )
        )
    fig.update_layout(
        height=440,
        plot_bgcolor="white",
        margin={"l": 10, "r": 10, "b": 10},
        xaxis={"visible": False, "range": [-1.45, 1.45]},
        yaxis={"visible": False, "range": [-1.35, 1.3], "scaleanchor": "x"},
        legend={"title": {"text": "state"}},
        title={"text": timeline.title},
    )
    return styled(fig, FULL, legend="right")
