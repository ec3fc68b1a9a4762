"""The schedules page's texts and tables: the file's problems by line, the LogGP timing in LogGOPSim's words; the
replay's player (node by node, or on a large fabric's overview) and its stylesheet at a player step."""

from __future__ import annotations

from dash import html

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.overview import overview_frames
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.model import Topology
from vizcoll.ui.cache import cached
from vizcoll.ui.components.legend import Key
from vizcoll.ui.components.player import player_data, player_timeline, timeline_at
from vizcoll.ui.components.tables import table
from vizcoll.ui.figures.topology import BROKEN, base_stylesheet
from vizcoll.ui.models.parts import natural_part, view_of
from vizcoll.ui.pages.schedules._figures import (
    HANDLING,
    SENDING,
    STATE_COLOURS,
    node_states,
    rank_stylesheet,
    step_stylesheet,
)
from vizcoll.ui.pages.schedules._model import MAX_PROBLEMS, replay_timeline, scenario_of_key
from vizcoll.ui.store import topology_of
from vizcoll.words import plural

__all__ = [
    "LEGEND",
    "file_line",
    "problems_view",
    "timing_view",
    "loggp_text",
    "replay_handle",
    "replay_player",
    "replay_flag",
    "replay_stylesheet",
]

LEGEND = [  # the replay's drawing
    Key("no message sent or handled yet", "ring", STATE_COLOURS["waiting"]),
    Key("sending or receiving", "ring", STATE_COLOURS["busy"]),
    Key("finished", "ring", STATE_COLOURS["done"]),
    Key("message leaving now (its min-hop route)", "line", SENDING),
    Key("handles a message now", "ring", HANDLING),
    Key("broken link", "dashed", BROKEN),
]


def file_line(name: str, result: dict) -> str:
    """``"b.goal: 16 ranks, 128 operations, 64 messages."``"""
    if result.get("ranks") is None:
        return f"{name}: could not be read as a schedule."
    return (
        f"{name}: {plural(result['ranks'], 'rank')}, {plural(result['operations'], 'operation')}, "
        f"{plural(result['messages'], 'message')}."
    )


def problems_view(problems: list[dict]) -> html.Div:
    """Every problem with its line (the first :data:`MAX_PROBLEMS`), or a line saying there is none."""
    if not problems:
        return html.P("No problem: LogGOPSim reads this file as written and runs it to the end.", className="info")
    errors = sum(p["severity"] == "error" for p in problems)
    head = f"{plural(errors, 'error')}, {plural(len(problems) - errors, 'warning')}"
    shown = problems[:MAX_PROBLEMS]
    rows = [[p["line"] or "—", p["severity"], p["message"]] for p in shown]
    more = len(problems) - MAX_PROBLEMS
    return html.Div(
        [
            html.P(head, className="info"),
            table(
                ("line", "severity", "problem"),
                rows,
                chosen=[i for i, p in enumerate(shown) if p["severity"] == "error"],
            ),
            html.P(f"… and {more:,} more (python -m vizcoll goal check FILE lists them all)", className="info")
            if more > 0
            else None,
        ]
    )


def loggp_text(params: dict) -> str:
    """``"L=2500, o=1500, g=1000, G=6, O=0, S=65535"``."""
    return ", ".join(f"{key}={value}" for key, value in params.items())


def timing_view(result: dict, params: dict) -> list:
    """The makespan and the host reaching it, as LogGOPSim prints them."""
    timing = result.get("timing")
    if timing is None:
        return [html.P(result.get("why") or "No timing.", className="message")]
    makespan, host, ranks = timing["makespan"], timing["host"], len(timing["finish"])
    printed = (
        f"LogGOPSim -b (and any run with more than 16 ranks) prints “Maximum finishing time at host {host}: {makespan}”"
        if ranks > 16
        else f"LogGOPSim prints one “Host i: t” line per rank (the chart); with -b “Maximum finishing time at host "
        f"{host}: {makespan}”"
    )
    return [
        html.P(
            [
                "Makespan ",
                html.B(f"{makespan:,}", id="sched-makespan"),
                f" (LogGOPSim's time unit, nominally ns), reached at host {host}.",
            ]
        ),
        html.P(
            f"{printed}. LogGP {loggp_text(params)}; no congestion (LogGOPSim without a network file).",
            className="info",
        ),
    ]


@cached
def replay_handle(text: str, params: dict, key: dict, nodes: list[int]) -> dict:
    """``{"handle", "summary"}``: the player's handle of the replay of a GOAL text on the scenario of ``key``
    (:func:`replay_player`; its timeline kept on the server by the handle's ref) and the replay's summary, made
    once for every worker. The timeline goes to the player as it is computed: its dict read back as events (most
    of a second for a binomial reduce of 16,384 ranks: docs/design.md) and its captions made again at every view
    were what made the page
    drawn a second time eleven times slower than before it had a replay on large fabrics."""
    timeline = replay_timeline(text, params, key, nodes)
    return {"handle": replay_player(scenario_of_key(key), timeline), "summary": dict(timeline.summary)}


def replay_player(scenario: Scenario, timeline: dict | Timeline) -> dict:
    """The player's handle of the replay ``timeline`` on the scenario's fabric: drawn node by node from the
    server (:func:`replay_stylesheet`) up to ``SMALL_LIMIT`` nodes; above, on the fabric's overview, its frames
    (the handle's ``overview``: per step, the messages crossing each bundle of links and the ranks of each block
    changing state, drawn in the browser)."""
    handle = player_data(timeline)
    topo = topology_of(scenario)
    view = view_of(scenario, natural_part(topo))  # the part the page draws: the whole fabric, or its overview
    if view.overview is None:
        return handle
    return {**handle, "overview": overview_frames(player_timeline(handle), topo, view.overview)}


def replay_flag(scenario: Scenario, summary: dict, overview: bool) -> str:
    """The line above the replay: its ranks, how it is drawn, and the messages with no live route."""
    where = (
        " It plays on the fabric's overview: a bundle of links lights with the messages crossing it in the "
        "step (colour and size: how many), a block with its ranks sending, handling a message or finishing."
        if overview
        else ""
    )
    unrouted = summary["unrouted"]
    return (
        f"{plural(summary['ranks'], 'rank')} on the scenario's fabric ({scenario.title}); press ▶ Play or step "
        f"with next ›.{where}"
        + (
            f" ⚠ {plural(unrouted, 'message')} {'has' if unrouted == 1 else 'have'} no live "
            "route (broken links): drawn without links."
            if unrouted
            else ""
        )
    )


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
    if any(not 0 <= n < topo.n_nodes for n in nodes[: len(tl.entities)]):
        return sheet  # a timeline of another fabric (the scenario changed meanwhile)
    events = tl.active_at(step) if step >= 0 else []
    links = list(dict.fromkeys(lid for e in events if e.kind == "send" for lid in e.path_links))
    handling = list(dict.fromkeys(e.dst for e in events if e.kind == "deliver"))
    return (
        sheet
        + rank_stylesheet(tl.entities)
        + step_stylesheet(node_states(tl.state_at(step), tl.entities), links, handling)
    )
