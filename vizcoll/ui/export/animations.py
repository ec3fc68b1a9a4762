"""Every player of the app as an :class:`~vizcoll.ui.export.animation.Animation`, from the scenario it shows.

One function per player, named by its page's entry in :data:`vizcoll.ui.export.names.REGISTRY`;
each computes the timeline with the same cached model call as the page and
draws each position with the page's own figure builder:

- players on a cytoscape canvas (the topology broadcast, the trees'
  aggregation, the barrier run, the schedule replay): the canvas's elements
  and the page's stylesheet at that position
  (:func:`~vizcoll.ui.pages.topology._views.broadcast_stylesheet`,
  :func:`~vizcoll.ui.pages.trees._views.step_stylesheet`,
  :func:`~vizcoll.ui.pages.barrier._views.run_stylesheet`,
  :func:`~vizcoll.ui.pages.schedules._views.replay_stylesheet`) drawn by
  :func:`~vizcoll.ui.figures.cytoscape.drawing_figure`;
- Plotly players (the multicast join/leave protocol, the task-based reduction, TREFT): the page's builder
  (:func:`~vizcoll.ui.figures.timeline.process_diagram`,
  :func:`~vizcoll.ui.pages.faults._figures.reduction_diagram`, :func:`~vizcoll.ui.pages.faults._figures.treft_lanes`).

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
from vizcoll.ui.export.animation import Animation, frame_margin
from vizcoll.ui.export.names import PLAYERS, REGISTRY, builder
from vizcoll.ui.figures.blocks import animation_frame
from vizcoll.ui.figures.cytoscape import drawing_figure

__all__ = ["animation_of", "drawing_animation", "overview_animation"]


def drawing_animation(
    name: str, timeline: dict, elements: list[dict], sheet_at: Callable[[int], list[dict]]
) -> Animation:
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


def overview_animation(name: str, timeline: dict, topo, blocks, figure) -> Animation:
    """A player on a large fabric's overview (its ``blocks``): the page's overview ``figure`` with its animation
    layers lit at each position as the browser lights them (:func:`~vizcoll.ui.figures.blocks.animation_frame`)."""
    tl = Timeline.from_dict(timeline)
    frames = overview_frames(tl, topo, blocks)
    return Animation(name, tl.title, tl, lambda position, width, height: animation_frame(figure, frames, position))


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
