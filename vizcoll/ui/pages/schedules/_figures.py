"""Pure builders for the schedules page: the finishing time of every rank, and the replay's cytoscape styles.

The replay is drawn on :func:`vizcoll.ui.figures.topology.cytoscape_elements`
(nodes ``n<index>``, links ``l<link id>``): the nodes running ranks carry
their ranks in their label and a ring for their state, the links of the
messages leaving in the shown step are orange, and a node handling a message
in that step is outlined in purple.
"""

from __future__ import annotations

import plotly.graph_objects as go

from vizcoll.ui.figures.common import blank_figure
from vizcoll.ui.figures.style import FULL, styled
from vizcoll.ui.figures.topology import links_selector
from vizcoll.words import plural

__all__ = [
    "STATE_COLOURS",
    "SENDING",
    "HANDLING",
    "HOST",
    "MAX_BARS",
    "finish_figure",
    "rank_stylesheet",
    "node_states",
    "step_stylesheet",
]

STATE_COLOURS = {"waiting": "#9aa5b1", "busy": "#1f77b4", "done": "#2ca02c"}
SENDING, HANDLING, HOST = "#ff7f0e", "#9467bd", "#d62728"
MAX_BARS = 2048  # ranks drawn one bar each; more: a histogram of the finishing times
MAX_LABELLED = 3  # ranks named in a node's label ("r3, r4, r5, …")


def finish_figure(finish: list[int], host: int) -> go.Figure:
    """Finishing time per rank (the rank reaching the makespan in red), or their histogram for many ranks."""
    if not finish:
        return blank_figure("No rank.", height=300)
    makespan = finish[host]
    if len(finish) > MAX_BARS:
        fig = go.Figure(go.Histogram(x=finish, marker={"color": STATE_COLOURS["busy"]}, nbinsx=60))
        fig.update_layout(
            title=f"Finishing times of {plural(len(finish), 'rank')} (makespan {makespan:,} at host {host})",
            xaxis_title="finishing time (ns)",
            yaxis_title="ranks",
        )
    else:
        colours = [HOST if r == host else STATE_COLOURS["busy"] for r in range(len(finish))]
        fig = go.Figure(
            go.Bar(
                x=list(range(len(finish))),
                y=finish,
                marker={"color": colours},
                hovertemplate="rank %{x}: finishes at %{y:,} ns<extra></extra>",
            )
        )
        fig.update_layout(
            title=f"Finishing time per rank (makespan {makespan:,} at host {host}, red)",
            xaxis_title="rank",
            yaxis_title="finishing time (ns)",
            bargap=0.15,
        )
    fig.update_layout(
        height=300,
        plot_bgcolor="white",
        margin={"l": 60, "r": 10, "b": 40},
        yaxis={"gridcolor": "#e4e7eb", "rangemode": "tozero"},
    )
    return styled(fig, FULL, legend="hidden")


def rank_stylesheet(entities: dict) -> list[dict]:
    """Each node running ranks labelled with them ("r3", "r0, r1"), drawn larger so the player's rings show (the
    node names are in the captions: a rank's label stays short so that neighbors' labels do not overlap)."""
    ranks: dict[int, list[int]] = {}
    for entity in entities.values():
        ranks.setdefault(int(entity["node"]), []).append(int(entity["rank"]))
    rules = []
    for node, on in sorted(ranks.items()):
        shown = ", ".join(f"r{r}" for r in sorted(on)[:MAX_LABELLED]) + (", …" if len(on) > MAX_LABELLED else "")
        rules.append(
            {
                "selector": f"#n{node}",
                "style": {
                    "label": shown,
                    "width": 16,
                    "height": 16,
                    "font-size": 10,
                    "font-weight": "bold",
                    "color": "#1f2933",
                },
            }
        )
    return rules


def node_states(state: dict, entities: dict) -> dict[int, str]:
    """The state shown on each node from its ranks' states: busy if one is, else waiting if one is, else done."""
    order = {"busy": 0, "waiting": 1, "done": 2}
    out: dict[int, str] = {}
    for key, value in state.items():
        entity = entities.get(key)
        if entity is None or value not in order:
            continue
        node = int(entity["node"])
        if node not in out or order[value] < order[out[node]]:
            out[node] = value
    return out


def step_stylesheet(node_states: dict[int, str], links: list[int], handling: list[int]) -> list[dict]:
    """Rules for one step: a ring per rank node (its state), this step's message links and handling nodes."""
    by_state: dict[str, list[str]] = {}
    for node, state in node_states.items():
        by_state.setdefault(state, []).append(f"#n{node}")
    sheet = [
        {"selector": ", ".join(members), "style": {"border-width": 4, "border-color": STATE_COLOURS[state]}}
        for state, members in sorted(by_state.items())
        if state in STATE_COLOURS
    ]
    if links:
        sheet.append({"selector": links_selector(links), "style": {"line-color": SENDING, "width": 5, "z-index": 10}})
    if handling:
        sheet.append(
            {"selector": ", ".join(f"#n{n}" for n in handling), "style": {"border-width": 6, "border-color": HANDLING}}
        )
    return sheet
