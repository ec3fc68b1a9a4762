"""The schedules page's texts and tables: the file's problems by line, the LogGP timing in LogGOPSim's words; the
replay's stylesheet at a player step."""

from __future__ import annotations

from dash import html

from vizcoll.errors import VizcollError
from vizcoll.topology.model import Topology
from vizcoll.ui.components.player import timeline_at
from vizcoll.ui.figures.schedules import node_states, rank_stylesheet, step_stylesheet
from vizcoll.ui.figures.topology import base_stylesheet
from vizcoll.ui.models.schedules import MAX_PROBLEMS

__all__ = ["file_line", "problems_view", "timing_view", "loggp_text", "replay_stylesheet"]


def file_line(name: str, result: dict) -> str:
    """``"b.goal: 16 ranks, 128 operations, 64 messages."``"""
    if result.get("ranks") is None:
        return f"{name}: could not be read as a schedule."
    return (f"{name}: {result['ranks']:,} rank{'s' * (result['ranks'] != 1)}, {result['operations']:,} operations, "
            f"{result['messages']:,} messages.")


def problems_view(problems: list[dict]) -> html.Div:
    """Every problem with its line (the first :data:`MAX_PROBLEMS`), or a line saying there is none."""
    if not problems:
        return html.P("No problem: LogGOPSim reads this file as written and runs it to the end.", className="info")
    errors = sum(p["severity"] == "error" for p in problems)
    head = f"{errors:,} error{'s' * (errors != 1)}, {len(problems) - errors:,} warning" \
           f"{'s' * (len(problems) - errors != 1)}"
    rows = [html.Tr([html.Td(p["line"] or "—"), html.Td(p["severity"]), html.Td(p["message"])],
                    style={"color": "#a61b1b"} if p["severity"] == "error" else {})
            for p in problems[:MAX_PROBLEMS]]
    more = len(problems) - MAX_PROBLEMS
    return html.Div([
        html.P(head, className="info"),
        html.Table(className="summary", children=[
            html.Thead(html.Tr([html.Th("line"), html.Th("severity"), html.Th("problem")])), html.Tbody(rows)]),
        html.P(f"… and {more:,} more (python -m vizcoll goal check FILE lists them all)", className="info")
        if more > 0 else None,
    ])


def loggp_text(params: dict) -> str:
    """``"L=2500, o=1500, g=1000, G=6, O=0, S=65535"``."""
    return ", ".join(f"{key}={value}" for key, value in params.items())


def timing_view(result: dict, params: dict) -> list:
    """The makespan and the host reaching it, as LogGOPSim prints them."""
    timing = result.get("timing")
    if timing is None:
        return [html.P(result.get("why") or "No timing.", className="message")]
    makespan, host, ranks = timing["makespan"], timing["host"], len(timing["finish"])
    printed = (f"LogGOPSim -b (and any run with more than 16 ranks) prints “Maximum finishing time at host {host}: "
               f"{makespan}”" if ranks > 16 else
               f"LogGOPSim prints one “Host i: t” line per rank (the chart); with -b “Maximum finishing time at host "
               f"{host}: {makespan}”")
    return [
        html.P(["Makespan ", html.B(f"{makespan:,}", id="sched-makespan"), f" (LogGOPSim's time unit, nominally ns), "
                f"reached at host {host}."]),
        html.P(f"{printed}. LogGP {loggp_text(params)}; no congestion (LogGOPSim without a network file).",
               className="info"),
    ]


def replay_stylesheet(topo: Topology | None, timeline: dict | None, position) -> list[dict]:
    """The replay's stylesheet at player ``position``: each rank node's label and state, this step's messages and
    handlings (the plain drawing for a malformed timeline or one of another fabric)."""
    sheet = base_stylesheet()
    if not timeline or topo is None:
        return sheet
    try:
        tl, step = timeline_at(timeline, position)
        nodes = [int(e["node"]) for e in tl.entities.values()] + [int(e["rank"]) for e in tl.entities.values()]
    except (VizcollError, KeyError, TypeError, ValueError, IndexError):
        return sheet  # the browser sent a malformed timeline
    if any(not 0 <= n < topo.n_nodes for n in nodes[:len(tl.entities)]):
        return sheet  # a timeline of another fabric (the scenario changed meanwhile)
    events = tl.active_at(step) if step >= 0 else []
    links = list(dict.fromkeys(lid for e in events if e.kind == "send" for lid in e.path_links))
    handling = list(dict.fromkeys(e.dst for e in events if e.kind == "deliver"))
    return (sheet + rank_stylesheet(tl.entities)
            + step_stylesheet(node_states(tl.state_at(step), tl.entities), links, handling))
