"""Pure builders for the fault replays page: the reduction's master/worker diagram, the task list, and
TREFT's three replica lanes and overhead chart (no Dash, no engine calls: timelines and figures in, figures out).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from vizcoll.sim.timeline import Timeline
from vizcoll.ui.figures.labels import outward
from vizcoll.ui.figures.style import FULL, styled, wrap

__all__ = [
    "reduction_diagram",
    "tasks_so_far",
    "task_text",
    "LANE_COLUMNS",
    "lane_category",
    "treft_lanes",
    "step_ops",
    "overhead_chart",
    "PAPER_AVERAGE",
    "VARIANT_NAMES",
]

# ---------------------------------------------------------------- the reduction
STATE_COLOURS = {
    "computing": "#bcccdc",
    "ready": "#f5b800",
    "task": "#9467bd",
    "fetching": "#ff7f0e",
    "serving": "#ffbb78",
    "reducing": "#1f77b4",
    "idle": "#e4e7eb",
    "recovering": "#17becf",
    "result": "#2ca02c",
    "failed": "#d62728",
    "aborted": "#7f0000",
    "waiting": "#9fb3c8",
    "scheduling": "#9467bd",
    "done": "#2ca02c",
}
# message kinds drawn as arrows: colour, dash, width, legend text
ARROWS = {
    "send": ("#1f3a5f", "solid", 1.6, "message (Wi, Pi) to the master"),
    "task": ("#9467bd", "solid", 1.6, "task sent by the master"),
    "fetch": ("#ff7f0e", "solid", 3.2, "data read worker → worker"),
    "replica": ("#8c8c8c", "dot", 1.2, "original data copied to a neighbor's disk"),
}
TREE_COLOUR = "#2ca02c"
MASTER_POS = (0.0, 0.0)


def _worker_pos(procs: int) -> dict[int, tuple[float, float]]:
    angle = np.pi / 2 - 2 * np.pi * np.arange(procs) / max(procs, 1)
    return {r: (float(np.cos(a)), float(np.sin(a))) for r, a in enumerate(angle)}


def tasks_so_far(timeline: Timeline, step: int, tasks: list[dict]) -> list[dict]:
    """The tasks the master has formed up to ``step`` (the engine lists them in formation order)."""
    formed = sum(1 for k in range(step + 1) for e in timeline.active_at(k) if e.kind == "task")
    return list(tasks[:formed])


def task_text(task: dict) -> str:
    """``{"pair": [0, 3], "to": 3}`` -> ``"(0,3) → 3"``."""
    i, j = task["pair"]
    return f"({i},{j}) → {task['to']}"


def _edge(task: dict) -> tuple[int, int]:
    """(supplier, assignee) of a task: the assignee fetches the other's data."""
    i, j = task["pair"]
    to = int(task["to"])
    return (int(j) if to == int(i) else int(i)), to


def _arrow_ends(event, pos: dict, procs: int):
    """Where an event's arrow starts and ends (None: not drawn). src/dst are ranks, -1 = the master."""

    def at(rank):
        return MASTER_POS if rank < 0 else pos.get(rank)

    if event.kind == "send" and 0 <= event.src < procs:
        return pos[event.src], MASTER_POS
    if event.kind == "task" and 0 <= event.dst < procs:
        return MASTER_POS, pos[event.dst]
    if event.kind in ("fetch", "replica") and event.src != event.dst and event.src >= 0 and event.dst >= 0:
        a, b = at(event.src), at(event.dst)
        return (a, b) if a and b else None
    return None


def _draw_step_arrows(fig: go.Figure, timeline: Timeline, step: int, pos: dict, procs: int) -> None:
    """The step's messages as arrows, with one legend entry per kind present."""
    seen = set()
    for event in timeline.active_at(step) if step >= 0 else []:
        ends = _arrow_ends(event, pos, procs)
        if not ends:
            continue
        colour, dash, width, text = ARROWS[event.kind]
        (x0, y0), (x1, y1) = ends
        fig.add_annotation(
            x=x1,
            y=y1,
            ax=x0,
            ay=y0,
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=3,
            arrowwidth=width,
            arrowcolor=colour,
            standoff=16,
            startstandoff=14,
            text="",
        )
        seen.add(event.kind)
    for kind in ARROWS:
        if kind in seen:
            colour, dash, width, text = ARROWS[kind]
            fig.add_trace(
                go.Scatter(
                    x=[None], y=[None], mode="lines", name=text, line={"color": colour, "width": width, "dash": dash}
                )
            )


def reduction_diagram(timeline: Timeline, step: int, figures: dict, procs: int) -> go.Figure:
    """Master in the middle, workers on a circle coloured by state, the step's messages as arrows, Q's contents
    next to the master and the dynamic tree so far (the union of the task edges formed up to ``step``)."""
    state = timeline.state_at(step)
    pos = _worker_pos(procs)
    fig = go.Figure()
    # the dynamic tree so far: supplier -> assignee of every task formed
    formed = tasks_so_far(timeline, step, figures.get("tasks", []))
    xs, ys = [], []
    for task in formed:
        a, b = _edge(task)
        if a in pos and b in pos:
            xs += [pos[a][0], pos[b][0], None]
            ys += [pos[a][1], pos[b][1], None]
    fig.add_trace(
        go.Scatter(
            x=xs or [None],
            y=ys or [None],
            mode="lines",
            name=f"tree so far ({len(formed)} tasks)",
            line={"color": TREE_COLOUR, "width": 5},
            opacity=0.45,
            hoverinfo="skip",
        )
    )
    _draw_step_arrows(fig, timeline, step, pos, procs)
    # workers, one trace per state (legend = states)
    by_state: dict[str, list[int]] = {}
    for r in range(procs):
        by_state.setdefault(str(state.get(f"w{r}", "?")), []).append(r)
    root = int(figures.get("root", 0))
    for value, ranks in by_state.items():
        fig.add_trace(
            go.Scatter(
                x=[pos[r][0] for r in ranks],
                y=[pos[r][1] for r in ranks],
                mode="markers+text",
                name=value,
                text=[f"<b>w{r}</b>" if r == root else f"w{r}" for r in ranks],  # the root: bold, ringed
                textposition=[outward(*pos[r]) for r in ranks],
                customdata=ranks,
                hovertext=[f"w{r}{' (root)' * (r == root)}: {value} — click to kill w{r} now" for r in ranks],
                hoverinfo="text",
                marker={
                    "size": 30,
                    "color": STATE_COLOURS.get(value, "#7f7f7f"),
                    "symbol": "x" if value == "failed" else "circle",
                    "line": {"width": 2 if r == root else 1, "color": "#333"},
                },
            )
        )
    master = str(state.get("master", "waiting"))
    fig.add_trace(
        go.Scatter(
            x=[MASTER_POS[0]],
            y=[MASTER_POS[1]],
            mode="markers+text",
            name=f"master: {master}",
            text=["master"],
            textposition="bottom center",
            hoverinfo="text",
            hovertext=[f"master (scheduler S): {master}"],
            marker={
                "size": 40,
                "symbol": "square",
                "color": STATE_COLOURS.get(master, "#9fb3c8"),
                "line": {"width": 1, "color": "#333"},
            },
        )
    )
    queue = str(state.get("Q", "(empty)"))
    fig.add_annotation(
        x=0,
        y=-0.3,
        xref="x",
        yref="y",
        showarrow=False,
        text=f"<b>Q</b>: {wrap(queue, 34)}",
        align="center",
        font={"size": 13},
        bgcolor="#fff7d6",
        bordercolor="#f5b800",
        borderpad=3,
    )
    t = timeline.time_at(step) * 1e3
    fig.update_layout(
        height=520,
        plot_bgcolor="white",
        margin={"l": 10, "r": 10, "b": 10},
        xaxis={"visible": False, "range": [-1.35, 1.35]},
        yaxis={"visible": False, "range": [-1.3, 1.3], "scaleanchor": "x"},
        legend={"title": {"text": "workers / arrows"}, "font": {"size": 12}},
        title={"text": f"{timeline.title} — t = {t:.2f} ms"},
        clickmode="event",
    )
    return styled(fig, FULL, legend="right")


# ---------------------------------------------------------------- TREFT
LANE_COLUMNS = ("executor", "worker", "subworker", "monitor", "device", "wq", "cq", "fq", "data")
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
CATEGORY_COLOURS = {
    "idle / empty": "#f0f4f8",
    "busy thread": "#9ecae1",
    "queue holds items": "#ffe08a",
    "monitor syncing (OPRS / OPRFS)": "#c5b0d5",
    "data ok": "#ffffff",
    "ERROR (soft error)": "#d62728",
    "corrected by the vote": "#2ca02c",
}
IDLE_VALUES = {"idle", "empty", "not started", "finished", "done"}


def lane_category(role: str, value: str) -> str:
    """The colour category of one cell of the lanes figure."""
    text = str(value)
    if role == "data":
        if text.startswith("ERROR"):
            return "ERROR (soft error)"
        return "corrected by the vote" if text == "corrected" else "data ok"
    if text in IDLE_VALUES:
        return "idle / empty"
    if role in ("wq", "cq", "fq"):
        return "queue holds items"
    if role == "monitor" and ("OPRS" in text or "OPRFS" in text):
        return "monitor syncing (OPRS / OPRFS)"
    return "busy thread"


def _short(text: str, width: int = 16, lines: int = 3) -> str:
    wrapped = wrap(" ".join(text.split()), width).split(" <br>")
    if len(wrapped) > lines:
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: width - 1] + "…"
    return " <br>".join(wrapped)


def step_ops(timeline: Timeline, step: int) -> list[str]:
    """The numbered operations (①..⑩) the events of ``step`` perform, in order."""
    found = [e.label[0] for e in timeline.active_at(step) if e.label[:1] and e.label[0] in CIRCLED]
    return list(dict.fromkeys(found))


def _last_op(timeline: Timeline, step: int) -> str | None:
    for k in range(step, -1, -1):
        ops = step_ops(timeline, k)
        if ops:
            return ops[-1]
    return None


def _draw_replica_messages(fig: go.Figure, timeline: Timeline, step: int) -> None:
    """The step's messages between replicas, as arrows between their lanes (data copies red, checks orange)."""
    col = {name: i for i, name in enumerate(LANE_COLUMNS)}
    for event in timeline.active_at(step) if step >= 0 else []:
        if event.kind not in ("send", "arrive") or not (0 <= event.src < 3 and 0 <= event.dst < 3):
            continue
        if event.src == event.dst:
            continue
        data = "copy" in event.label
        x0 = col["data"] if data else col["monitor"]
        x1 = col["data"] if data else col["fq"]
        shift = 0.12 * (event.src - event.dst) + (0.2 if abs(event.src - event.dst) == 2 else 0)
        fig.add_annotation(
            x=x1 + shift,
            y=2 - event.dst + (0.3 if event.dst < event.src else -0.3),
            ax=x0 + shift,
            ay=2 - event.src,
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=3,
            arrowwidth=2.2,
            text="",
            arrowcolor="#d62728" if data else "#ff7f0e",
        )


def _draw_operation(fig: go.Figure, timeline: Timeline, step: int, operations: dict[int, str]) -> None:
    """The step's operation numbers shown big at the right (or the last one, greyed)."""
    ops = step_ops(timeline, step) if step >= 0 else []
    x_op = len(LANE_COLUMNS) + 0.45
    if ops:
        names = "<br>".join(operations.get(CIRCLED.index(o) + 1, "") for o in ops)
        fig.add_annotation(x=x_op, y=1.35, text=" ".join(ops), showarrow=False, font={"size": 48, "color": "#1f3a5f"})
        fig.add_annotation(x=x_op, y=0.6, text=names, showarrow=False, font={"size": 12, "color": "#1f3a5f"})
    else:
        last = _last_op(timeline, step) if step >= 0 else None
        fig.add_annotation(x=x_op, y=1.2, text=last or "", showarrow=False, font={"size": 30, "color": "#7b8794"})
        fig.add_annotation(
            x=x_op,
            y=0.6,
            text="(last operation)" if last else "no operation yet",
            showarrow=False,
            font={"size": 11, "color": "#52606d"},
        )


def treft_lanes(timeline: Timeline, step: int, operations: dict[int, str] | None = None) -> go.Figure:
    """Three replica lanes (rows r0..r2) × threads and queues (columns), cells coloured by state, the step's
    inter-replica messages as arrows between lanes, and the step's operation number shown big."""
    state = timeline.state_at(step)
    operations = operations or {}
    fig = go.Figure()
    cells: dict[str, tuple[list, list, list]] = {c: ([], [], []) for c in CATEGORY_COLOURS}
    shapes = []
    for r in range(3):
        y = 2 - r
        for c, role in enumerate(LANE_COLUMNS):
            value = str(state.get(f"r{r}.{role}", ""))
            category = lane_category(role, value)
            shapes.append(
                {
                    "type": "rect",
                    "x0": c - 0.46,
                    "x1": c + 0.46,
                    "y0": y - 0.4,
                    "y1": y + 0.4,
                    "fillcolor": CATEGORY_COLOURS[category],
                    "line": {"color": "#829ab1", "width": 1},
                    "layer": "below",
                }
            )
            xs, ys, hover = cells[category]
            xs.append(c)
            ys.append(y)
            hover.append(f"r{r}.{role}: {value}")
            dark = category in ("ERROR (soft error)", "corrected by the vote")
            fig.add_annotation(
                x=c,
                y=y,
                text=_short(value),
                showarrow=False,
                xref="x",
                yref="y",
                font={"size": 10, "color": "#fff" if dark else "#1f2933"},
            )
    for category, (xs, ys, hover) in cells.items():
        if xs:  # invisible markers carrying the full text of each cell as hover
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="markers",
                    name=category,
                    hovertext=hover,
                    hoverinfo="text",
                    marker={"symbol": "square", "size": 40, "opacity": 0},
                    showlegend=False,
                )
            )
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=category,
                hoverinfo="skip",
                marker={
                    "symbol": "square",
                    "size": 14,
                    "color": CATEGORY_COLOURS[category],
                    "line": {"color": "#829ab1", "width": 1},
                },
            )
        )
    _draw_replica_messages(fig, timeline, step)
    _draw_operation(fig, timeline, step, operations)
    fig.update_layout(
        shapes=shapes,
        height=430,
        plot_bgcolor="white",
        margin={"l": 40, "r": 10, "b": 30},
        xaxis={
            "tickvals": list(range(len(LANE_COLUMNS))),
            "ticktext": list(LANE_COLUMNS),
            "side": "top",
            "range": [-0.6, len(LANE_COLUMNS) + 1.0],
            "showgrid": False,
            "zeroline": False,
        },
        yaxis={
            "tickvals": [2, 1, 0],
            "ticktext": ["r0", "r1", "r2"],
            "range": [-0.6, 2.6],
            "showgrid": False,
            "zeroline": False,
        },
        legend={"title": {"text": "cell colour"}, "font": {"size": 11}},
        title={"text": f"{timeline.title} — t = {timeline.time_at(step):.3f} s"},
    )
    return styled(fig, FULL, top=28)


# ---------------------------------------------------------------- overhead
PAPER_AVERAGE = {"treft": 10.77, "e1": 13.05, "e2": 52.77}
VARIANT_NAMES = {"treft": "TREFT", "e1": "TREFT-E1", "e2": "TREFT-E2"}
VARIANT_COLOURS = {"treft": "#4a6fa5", "e1": "#f5b800", "e2": "#d62728"}


def overhead_chart(overheads: dict[str, dict[str, float]]) -> go.Figure:
    """Grouped bars: program (HC.A ... MB.B) × variant, with the paper's average per variant as a dashed line
    (named in the legend).

    ``overheads`` maps variant -> {program name: overhead %}."""
    fig = go.Figure()
    for variant, values in overheads.items():
        programs = list(values)
        fig.add_trace(
            go.Bar(
                x=programs,
                y=[values[p] for p in programs],
                name=VARIANT_NAMES.get(variant, variant),
                marker_color=VARIANT_COLOURS.get(variant),
                text=[f"{values[p]:.1f}" for p in programs],
                textposition="outside",
                textfont={"size": 11},
                hovertemplate="%{x}: %{y:.2f} %<extra>" + VARIANT_NAMES.get(variant, variant) + "</extra>",
            )
        )
    for variant, average in PAPER_AVERAGE.items():  # dashed lines named in the legend, so no label meets a bar
        if variant in overheads:
            fig.add_hline(y=average, line={"color": VARIANT_COLOURS[variant], "dash": "dash", "width": 1.5})
            fig.add_trace(
                go.Scatter(
                    x=[None],
                    y=[None],
                    mode="lines",
                    hoverinfo="skip",
                    line={"color": VARIANT_COLOURS[variant], "dash": "dash", "width": 1.5},
                    name=f"paper average {VARIANT_NAMES[variant]}: {average} %",
                )
            )
    fig.update_layout(
        barmode="group",
        height=420,
        plot_bgcolor="white",
        margin={"l": 60, "r": 10, "b": 50},
        title={"text": "Fault-tolerance overhead, no fault injected (dashed: the paper's averages)"},
        xaxis={"title": {"text": "workflow.class"}},
        yaxis={"title": {"text": "overhead %"}, "gridcolor": "#e4e7eb"},
        legend={"title": {"text": "variant"}},
    )
    return styled(fig, FULL, legend="right")
