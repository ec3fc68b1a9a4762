"""The timeline player: one animation control for every simulation in vizcoll.

``player(prefix)`` lays out the controls (first, back, play/pause, forward,
last, a step slider, a speed choice and the caption); ``register_player(app,
prefix)`` wires them. The page owning the player stores a timeline dict in
``<prefix>-timeline`` and draws ``state_at(step)`` itself: the step slider's
value is the only state the browser keeps, everything shown is recomputed
from the event list. The slider counts *positions*: 0 is the initial state and
position ``p`` shows the timeline after its step ``p - 1`` (see
:func:`timeline_step`).
"""

from __future__ import annotations

from dash import Dash, Input, Output, State, ctx, dcc, html

from vizcoll.sim.timeline import MAX_EVENTS as MAX_STEPS
from vizcoll.sim.timeline import Timeline
from vizcoll.ui.forms import whole_or

__all__ = ["player", "register_player", "next_step", "timeline_step", "timeline_at", "SPEEDS"]

SPEEDS = {"0.5×": 1600, "1×": 800, "2×": 400, "4×": 200}
# Number of steps of a timeline dict, counted in the browser (steps = runs of equal event times), so
# that ticks and button presses never send the whole timeline to the server.
COUNT_STEPS_JS = """function (tl) {
    if (!tl || !tl.events) { return 0; }
    let n = 0, last = null;
    for (const e of tl.events) { if (n === 0 || e.t !== last) { n += 1; last = e.t; } }
    return n;
}"""
BUTTONS = (("first", "« first"), ("back", "‹ back"), ("play", "▶ Play"), ("forward", "next ›"), ("last", "last »"))


def pid(prefix: str, part: str) -> str:
    """Id of one part of the player ``prefix``."""
    return f"{prefix}-{part}"


def player(prefix: str) -> html.Div:
    """The player's layout (its timeline store starts empty)."""
    buttons = [html.Button(label, id=pid(prefix, name), n_clicks=0, className="player-button",
                           title=name) for name, label in BUTTONS]
    return html.Div(className="player", children=[
        dcc.Store(id=pid(prefix, "timeline")),
        dcc.Store(id=pid(prefix, "steps"), data=0),
        dcc.Interval(id=pid(prefix, "tick"), interval=SPEEDS["1×"], disabled=True),
        html.Div(className="player-controls", children=[
            *buttons,
            dcc.Dropdown(id=pid(prefix, "speed"), options=list(SPEEDS), value="1×", clearable=False,
                         className="player-speed"),
            html.Span(id=pid(prefix, "position"), className="player-position"),
        ]),
        dcc.Slider(id=pid(prefix, "step"), min=0, max=0, step=1, value=0, marks=None,
                   tooltip={"placement": "bottom"}, updatemode="drag"),
        html.Div(id=pid(prefix, "caption"), className="player-caption"),
    ])


def timeline_step(position: int | None, n_steps: int) -> int:
    """The timeline step shown at slider ``position`` (-1 = the initial state)."""
    return min(max(int(position or 0), 0), n_steps) - 1


def timeline_at(timeline: dict, position: int | None) -> tuple[Timeline, int]:
    """The timeline of a player's store and the step its slider ``position`` shows."""
    tl = Timeline.from_dict(timeline)
    return tl, timeline_step(position, tl.n_steps)


def next_step(trigger: str | None, position: int, n_steps: int, playing: bool) -> tuple[int, bool]:
    """The position and play state after a control event (pure; positions run 0..n_steps).

    >>> next_step("forward", 2, 5, False)
    (3, False)
    >>> next_step("tick", 5, 5, True)
    (5, False)
    """
    position = min(max(int(position or 0), 0), n_steps)
    if trigger == "timeline":
        return 0, False
    if trigger == "play":
        if playing:
            return position, False
        return (0 if position >= n_steps else position), n_steps > 0
    if trigger == "tick":
        return (position + 1, True) if position < n_steps else (n_steps, False)
    moves = {"first": 0, "back": max(position - 1, 0), "forward": min(position + 1, n_steps), "last": n_steps}
    return moves.get(trigger, position), False if trigger in moves else playing


def register_player(app: Dash, prefix: str) -> None:
    """Wire the controls of player ``prefix`` on ``app``."""
    p = lambda part: pid(prefix, part)  # noqa: E731

    app.clientside_callback(COUNT_STEPS_JS, Output(p("steps"), "data"), Input(p("timeline"), "data"))

    @app.callback(
        Output(p("step"), "value"), Output(p("step"), "max"), Output(p("tick"), "disabled"),
        Output(p("play"), "children"), Output(p("tick"), "interval"),
        *[Input(p(name), "n_clicks") for name, _ in BUTTONS],
        Input(p("tick"), "n_intervals"), Input(p("steps"), "data"), Input(p("speed"), "value"),
        State(p("step"), "value"), State(p("tick"), "disabled"),
    )
    def control(*args):
        n_steps, speed, step, paused = whole_or(args[-4], 0, 0, MAX_STEPS), args[-3], args[-2], args[-1] is True
        step = whole_or(step, 0, 0, n_steps)
        speed = speed if isinstance(speed, str) else None
        trigger = (ctx.triggered_id or "").removeprefix(f"{prefix}-") or None
        trigger = {"speed": None, "steps": "timeline"}.get(trigger, trigger)
        position, playing = next_step(trigger, step, n_steps, not paused)
        return position, n_steps, not playing, "❚❚ Pause" if playing else "▶ Play", SPEEDS.get(speed, 800)

    @app.callback(
        Output(p("caption"), "children"), Output(p("position"), "children"),
        Input(p("step"), "value"), Input(p("timeline"), "data"),
    )
    def caption(step, timeline):
        if not timeline:
            return "Nothing to play.", ""
        tl, step = timeline_at(timeline, step)
        return tl.caption(step), f"step {step + 1} of {tl.n_steps}"
