"""Every player of the app as an :class:`~vizcoll.ui.export.animation.Animation`, from the scenario it shows.

One function per player, named by its page's entry in :data:`vizcoll.ui.export.names.REGISTRY`;
each computes the timeline with the same cached model call as the page and
draws each position with the page's own figure builder:

- players on a cytoscape canvas (the topology broadcast, the trees'
  aggregation, the barrier run, the schedule replay): the canvas's elements
  and the page's stylesheet at that position
  (:func:`~vizcoll.ui.views.topology.broadcast_stylesheet`,
  :func:`~vizcoll.ui.views.trees.step_stylesheet`,
  :func:`~vizcoll.ui.views.barrier.run_stylesheet`,
  :func:`~vizcoll.ui.views.schedules.replay_stylesheet`) drawn by
  :func:`~vizcoll.ui.figures.cytoscape.drawing_figure`;
- Plotly players (the multicast join/leave protocol, the task-based reduction, TREFT): the page's builder
  (:func:`~vizcoll.ui.figures.timeline.process_diagram`,
  :func:`~vizcoll.ui.figures.faults.reduction_diagram`, :func:`~vizcoll.ui.figures.faults.treft_lanes`).

``extra`` is what a page knows besides the scenario: the fault replays' parameter stores (a clicked worker is
not in the scenario) and the GOAL file the schedules page opened (the CLI passes its ``--goal`` file, or the
page's example). A player with nothing to show raises :class:`~vizcoll.errors.VizcollError` saying why, as its
page does.
"""

from __future__ import annotations

from collections.abc import Callable

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.overview import overview_frames
from vizcoll.sim.timeline import Timeline
from vizcoll.treft import OPERATIONS
from vizcoll.ui.components.player import timeline_at, timeline_step
from vizcoll.ui.export.animation import Animation, frame_margin
from vizcoll.ui.export.names import PLAYERS, REGISTRY, builder
from vizcoll.ui.figures.blocks import animation_frame
from vizcoll.ui.figures.cytoscape import drawing_figure
from vizcoll.ui.figures.faults import reduction_diagram, treft_lanes
from vizcoll.ui.figures.timeline import process_diagram
from vizcoll.ui.figures.topology import cytoscape_elements, fabric_drawing
from vizcoll.ui.models import barrier as barrier_model
from vizcoll.ui.models.faults import reduction_runs, scenario_reduction, scenario_treft, treft_run
from vizcoll.ui.models.multicast import protocol_timeline
from vizcoll.ui.models.parts import WHOLE, drawn_view, natural_part, view_of
from vizcoll.ui.models.schedules import opened_goal, replay_of
from vizcoll.ui.models.topology import ANIMATION_LIMIT, broadcast_timeline, communicator_colours, root_of
from vizcoll.ui.models.trees import TYPE2, tree_plan
from vizcoll.ui.store import positions_of, topology_of
from vizcoll.ui.views.barrier import run_drawing, run_elements, run_figure, run_stylesheet
from vizcoll.ui.views.schedules import replay_stylesheet
from vizcoll.ui.views.topology import broadcast_stylesheet
from vizcoll.ui.views.trees import animation_view, step_stylesheet, type_one_view, type_two_view

__all__ = ["animation_of"]


def _drawing(name: str, timeline: dict, elements: list[dict], sheet_at: Callable[[int], list[dict]]) -> Animation:
    """A cytoscape player: ``sheet_at(position)`` is the page's stylesheet at that position."""
    tl = Timeline.from_dict(timeline)
    return Animation(
        name,
        tl.title,
        tl,
        lambda position, width, height: drawing_figure(
            elements, sheet_at(position), width, height, frame_margin(height)
        ),
    )


def _overview(name: str, timeline: dict, topo, blocks, figure) -> Animation:
    """A player on a large fabric's overview (its ``blocks``): the page's overview ``figure`` with its animation
    layers lit at each position as the browser lights them (:func:`~vizcoll.ui.figures.blocks.animation_frame`)."""
    tl = Timeline.from_dict(timeline)
    frames = overview_frames(tl, topo, blocks)
    return Animation(name, tl.title, tl, lambda position, width, height: animation_frame(figure, frames, position))


def topology_animation(scenario: Scenario, extra=None) -> Animation:
    """/topology: the broadcast along a shortest-path tree from the scenario's root, on what the page draws (the
    whole fabric or a group alone node by node, a large fabric's overview)."""
    topo = topology_of(scenario)
    root = root_of(scenario, topo)
    if root is None:
        raise VizcollError("the fabric has no node to start a broadcast from")
    timeline = broadcast_timeline(scenario.source_key(), root)
    view = drawn_view(scenario, "topology")
    if view.overview is not None:
        return _overview("vizcoll-topology-broadcast", timeline, topo, view.overview, fabric_drawing(view, topo)[1])
    if view.topo.n_nodes > ANIMATION_LIMIT:
        raise VizcollError(
            f"a part of more than {ANIMATION_LIMIT:,} nodes is drawn without the animation: choose "
            "the overview or a smaller part"
        )
    try:
        colours, _ = communicator_colours(scenario, topo)
    except VizcollError:
        colours = {}
    drawn = {**timeline, "nodes": view.kept.tolist()}
    elements = fabric_drawing(view, topo, colours)[0]
    return _drawing(
        "vizcoll-topology-broadcast", timeline, elements, lambda position: broadcast_stylesheet(drawn, position)
    )


def trees_animation(scenario: Scenario, extra=None) -> Animation:
    """/trees: the aggregation up the chosen tree and the result broadcast down, on what the page draws (on a
    large fabric's overview: the animated tree's figure, the mapped type I tree or the min-cost type II tree)."""
    plan = tree_plan(scenario)
    data = scenario.to_dict()
    timeline, flag, _, elements, summary = animation_view(plan, data)
    if timeline is None:
        raise VizcollError((flag or summary or "no aggregation to animate").removeprefix("⚠ "))
    if not elements:
        figure = (type_two_view if plan["anim"] == TYPE2 else type_one_view)(plan, data)[1]
        return _overview(
            "vizcoll-trees-aggregation", timeline, topology_of(scenario), drawn_view(scenario, "trees").overview, figure
        )
    return _drawing(
        "vizcoll-trees-aggregation",
        timeline,
        elements,
        lambda position: step_stylesheet(position, timeline, plan, data),
    )


def multicast_animation(scenario: Scenario, extra=None) -> Animation:
    """/multicast: the join/leave protocol of the highlighted group under algorithm B."""
    timeline = protocol_timeline(scenario)
    if timeline is None:
        raise VizcollError("highlight a group on the multicast page: its join/leave protocol is the animation")
    tl = Timeline.from_dict(timeline)
    return Animation(
        "vizcoll-multicast-protocol",
        tl.title,
        tl,
        lambda position, width, height: process_diagram(*timeline_at(timeline, position)),
    )


def barrier_animation(scenario: Scenario, extra=None) -> Animation:
    """/barrier: the barriers' Gather and Release hop by hop on what the page draws: the grid, the fabric or a
    group alone node by node, a large fabric's overview."""
    plan = barrier_model.view_keys(scenario)[0]
    if "error" in plan or plan["reason"]:
        raise VizcollError((plan.get("error") or plan["reason"]).removeprefix("⚠ "))
    timeline = barrier_model.run_of(scenario, plan)["timeline"]
    if timeline is None:
        raise VizcollError(plan["note"])
    topo, drawn = topology_of(scenario), run_drawing(scenario, plan)
    if drawn.overview is not None:
        return _overview("vizcoll-barrier", timeline, topo, drawn.overview, run_figure(topo, plan, drawn))
    if not drawn.canvas:
        raise VizcollError(
            f"a part of more than {ANIMATION_LIMIT:,} nodes is drawn without the animation: choose "
            "the overview or a smaller part"
        )
    if drawn.view is not None and drawn.view.part != WHOLE:
        timeline = {**timeline, "nodes": drawn.view.kept.tolist()}
    return _drawing(
        "vizcoll-barrier",
        timeline,
        run_elements(topo, plan, drawn),
        lambda position: run_stylesheet(plan["grid"], topo, timeline, position),
    )


def reduction_animation(scenario: Scenario, extra=None) -> Animation:
    """/faults: the task-based fault-tolerant reduction (the page's parameters, its clicked worker included)."""
    params = scenario_reduction(scenario, extra)
    timeline, figures, _ = reduction_runs(params)
    return Animation(
        "vizcoll-faults-reduction",
        timeline.title,
        timeline,
        lambda position, width, height: reduction_diagram(
            timeline, timeline_step(position, timeline.n_steps), figures, params["procs"]
        ),
    )


def treft_animation(scenario: Scenario, extra=None) -> Animation:
    """/faults: TREFT's three replicas, the injected soft error, the vote and the correction."""
    params = scenario_treft(scenario, extra)
    timeline, _ = treft_run(params)
    return Animation(
        "vizcoll-faults-treft",
        timeline.title,
        timeline,
        lambda position, width, height: treft_lanes(timeline, timeline_step(position, timeline.n_steps), OPERATIONS),
    )


def schedules_animation(scenario: Scenario, extra=None) -> Animation:
    """/schedules: the replay on the scenario's fabric of the GOAL file ``extra`` (the page's file store), node by
    node or on a large fabric's overview, as the page draws it."""
    _, timeline = replay_of(scenario, opened_goal(extra), any_size=True)
    topo = topology_of(scenario)
    view = view_of(scenario, natural_part(topo))
    if view.overview is not None:
        return _overview("vizcoll-schedule-replay", timeline, topo, view.overview, fabric_drawing(view, topo)[1])
    return _drawing(
        "vizcoll-schedule-replay",
        timeline,
        cytoscape_elements(topo, pos=positions_of(scenario)),
        lambda position: replay_stylesheet(topo, timeline, position),
    )


def animation_of(page: str, scenario: Scenario, player: str | None = None, extra=None) -> Animation:
    """The animation of ``player`` (default: the page's first) of ``page`` on ``scenario`` (the pages' players:
    :data:`vizcoll.ui.export.names.REGISTRY`)."""
    if page not in PLAYERS:
        raise VizcollError(f"no player on page {str(page)[:20]!r}; pages with one: {', '.join(PLAYERS)}")
    players = dict(REGISTRY[page].players)
    name = player or next(iter(players))
    if name not in players:
        raise VizcollError(f"page {page} has no player {str(name)[:20]!r}; it has {', '.join(players)}")
    return builder(players[name])(scenario, extra)
