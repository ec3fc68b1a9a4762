"""/schedules: its figure pack and player (the GOAL file's timing and its replay).

Registered in :mod:`vizcoll.ui.export.names`. The page's own builders on the page's cached model calls for the
scenario as the page opens, tables from the engine's results; :mod:`vizcoll.ui.export.packs` writes the ZIP,
:mod:`vizcoll.ui.export.animation` the GIF/MP4.
"""

from __future__ import annotations

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.ui.export.animation import Animation
from vizcoll.ui.export.animations import drawing_animation, overview_animation
from vizcoll.ui.export.packs import Pack, PackFigure, PackTable, drawn, timeline_table
from vizcoll.ui.figures.paper import COLUMN_WIDTH
from vizcoll.ui.figures.topology import cytoscape_elements, fabric_drawing
from vizcoll.ui.models.parts import natural_part, view_of
from vizcoll.ui.pages.schedules._figures import finish_figure
from vizcoll.ui.pages.schedules._model import analysis, example_goal, opened_goal, read_goal, replay_of, stored_params
from vizcoll.ui.pages.schedules._views import LEGEND, replay_stylesheet
from vizcoll.ui.store import positions_of, topology_of

__all__ = ["schedules_pack", "schedules_animation", "example_goal"]


def schedules_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    """The GOAL file the page opened (``extra``)."""
    goal = opened_goal(extra)
    name, text = read_goal(goal)
    result = analysis(text, stored_params(scenario))
    pack = Pack("schedules", "Schedules")
    problems = [[p["line"], p["severity"], p["message"]] for p in result["problems"]]
    pack.tables.append(
        PackTable(
            "problems",
            f"{name}: its problems, by line.",
            [("line", "line of the file"), ("severity", "error or warning"), ("message", "what is wrong")],
            problems,
        )
    )
    timing = result["timing"]
    if timing is None:
        pack.notes.append(f"No timing, no replay: {result['why'].removeprefix('⚠ ')}")
        return pack
    pack.figures.append(
        PackFigure(
            "finish-times",
            f"{name}: every rank's finishing time (LogGP).",
            finish_figure(timing["finish"], timing["host"]),
            COLUMN_WIDTH,
            320,
        )
    )
    pack.tables.append(
        PackTable(
            "finish-times",
            f"{name}: LogGP timing (makespan {timing['makespan']} at host {timing['host']}).",
            [("rank", "the rank"), ("finish", "its finishing time (ns)")],
            [[r, f] for r, f in enumerate(timing["finish"])],
        )
    )
    try:
        _, timeline = replay_of(scenario, goal)
    except VizcollError as exc:
        pack.notes.append(f"No replay: {exc}")
        return pack
    topo, tl = topology_of(scenario), Timeline.from_dict(timeline)
    pack.figures.append(
        drawn(
            "replay-end",
            f"{name} replayed on the scenario's fabric, at its end.",
            cytoscape_elements(topo, pos=positions_of(scenario)),
            replay_stylesheet(topo, timeline, tl.n_steps),
        )
    )
    pack.tables.append(timeline_table("replay-messages", f"{name}: every message of the replay.", tl, topo.names))
    return pack


def schedules_animation(scenario: Scenario, extra=None) -> Animation:
    """/schedules: the replay on the scenario's fabric of the GOAL file ``extra`` (the page's file store), node by
    node or on a large fabric's overview, as the page draws it."""
    _, timeline = replay_of(scenario, opened_goal(extra), any_size=True)
    topo = topology_of(scenario)
    view = view_of(scenario, natural_part(topo))
    if view.overview is not None:
        return overview_animation(
            "vizcoll-schedule-replay", timeline, topo, view.overview, fabric_drawing(view, topo)[1]
        )
    return drawing_animation(
        "vizcoll-schedule-replay",
        timeline,
        cytoscape_elements(topo, pos=positions_of(scenario)),
        lambda position: replay_stylesheet(topo, timeline, position),
        LEGEND,
    )
