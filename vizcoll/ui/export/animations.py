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
from vizcoll.sim.lockstep import Lockstep
from vizcoll.sim.overview import overview_frames
from vizcoll.sim.timeline import Timeline
from vizcoll.ui.export.animation import Animation, frame_margin
from vizcoll.ui.export.names import REGISTRY, builder, player_pages
from vizcoll.ui.figures.blocks import animation_frame
from vizcoll.ui.figures.cytoscape import drawing_figure

__all__ = ["animation_of", "drawing_animation", "overview_animation", "side_by_side_animation", "drawn_at"]


def drawing_animation(
    name: str, timeline: dict, elements: list[dict], sheet_at: Callable[[int], list[dict]], legend=()
) -> Animation:
    """A cytoscape player: ``sheet_at(position)`` is the page's stylesheet at that position, ``legend`` the keys
    of the page's legend (:class:`~vizcoll.ui.components.legend.Key`)."""
    tl = Timeline.from_dict(timeline)
    return Animation(
        name,
        tl.title,
        tl,
        lambda position, width, height: drawing_figure(
            elements, sheet_at(position), width, height, frame_margin(height)
        ),
        tuple(legend),
    )


def overview_animation(name: str, timeline: dict, topo, blocks, figure) -> Animation:
    """A player on a large fabric's overview (its ``blocks``): the page's overview ``figure`` with its animation
    layers lit at each position as the browser lights them (:func:`~vizcoll.ui.figures.blocks.animation_frame`)."""
    tl = Timeline.from_dict(timeline)
    frames = overview_frames(tl, topo, blocks)
    return Animation(name, tl.title, tl, lambda position, width, height: animation_frame(figure, frames, position))


def side_by_side_animation(name: str, ls: Lockstep, figures: list[Callable], legend=()) -> Animation:
    """Two players in one frame (:mod:`vizcoll.sim.lockstep`): at each position of the side-by-side run ``ls``,
    run ``r``'s figure ``figures[r](own position, width, height)``, left and right, each under its name; the
    frame's caption is the side-by-side run's (what each run does at that time); ``legend``: the page's legend of
    two canvas drawings (two Plotly figures keep none: two legends would cover the caption)."""

    def figure_at(position: int, width: int, height: int):
        halves = [figures[r](ls.positions[r][position], width // 2, height) for r in (0, 1)]
        return beside(*halves, ls.names)

    return Animation(name, ls.timeline.title, ls.timeline, figure_at, tuple(legend))


def drawn_at(elements: list[dict], sheet_at: Callable[[int], list[dict]]) -> Callable:
    """A cytoscape drawing's figure at a position, for :func:`side_by_side_animation`."""
    return lambda position, width, height: drawing_figure(
        elements, sheet_at(position), width, height, frame_margin(height)
    )


def beside(left, right, names) -> object:
    """Figure ``right`` moved onto a second pair of axes right of ``left``'s, each half named above it (the two
    share a colour scale, when they have one: the right one's bar is kept)."""
    fig = left.update_traces(marker_showscale=False, selector={"type": "scatter"})  # one colour bar: the right's
    for trace in right.data:
        fig.add_trace(trace.update(xaxis="x2", yaxis="y2", showlegend=False))
    for arrow in right.layout.annotations:
        fig.add_annotation(arrow.update(xref="x2", yref="y2", axref="x2", ayref="y2"))
    square = "x2" if left.layout.yaxis.scaleanchor else None
    fig.update_layout(
        meta={"sides": list(names)},  # frame_figure keeps a strip above the drawings for their names
        showlegend=False,  # two legends would cover the caption; the names say which side is which
        xaxis={"domain": [0, 0.49]},
        xaxis2={"domain": [0.51, 1], "visible": False, "range": right.layout.xaxis.range, "anchor": "y2"},
        yaxis2={"visible": False, "range": right.layout.yaxis.range, "anchor": "x2", "scaleanchor": square},
    )
    for x, name in zip((0.245, 0.755), names, strict=True):
        fig.add_annotation(
            text=f"<b>{name}</b>",
            xref="paper",
            yref="paper",
            x=x,
            y=1,
            yanchor="bottom",
            showarrow=False,
            font={"size": 18},
        )
    return fig


def animation_of(page: str, scenario: Scenario, player: str | None = None, extra=None) -> Animation:
    """The animation of ``player`` (default: the page's first) of ``page`` on ``scenario`` (the pages' players:
    :data:`vizcoll.ui.export.names.REGISTRY`)."""
    if page not in player_pages():
        raise VizcollError(f"no player on page {str(page)[:20]!r}; pages with one: {', '.join(player_pages())}")
    players = dict(REGISTRY[page].players)
    name = player or next(iter(players))
    if name not in players:
        raise VizcollError(f"page {page} has no player {str(name)[:20]!r}; it has {', '.join(players)}")
    return builder(players[name])(scenario, extra)
