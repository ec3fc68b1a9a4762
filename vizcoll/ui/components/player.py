"""The timeline player: one animation control for every simulation in vizcoll.

``player(prefix)`` lays out the controls (first, previous key moment, back,
play/pause, forward, next key moment, last, a step slider, a speed choice and
the caption); ``register_player(app, prefix)`` wires them. The page owning the
player puts :func:`player_data` of its timeline in ``<prefix>-timeline`` and
draws ``state_at(step)`` itself (:func:`timeline_at`): the step slider's value
is the only state the browser keeps, everything shown is recomputed from the
event list. The slider counts *positions*: 0 is the initial state and
position ``p`` shows the timeline after its step ``p - 1`` (see
:func:`timeline_step`).

**The timeline stays on the server.** A timeline of a paper-scale run is
megabytes; the store holds a *handle* (:func:`player_data`: the timeline's
content ref, its number of steps, its key moments, and what an overview draws
per step), and the timeline itself waits in the shared cache
(:data:`vizcoll.ui.cache.timelines`), so a step of the slider posts a few
hundred bytes (the ref, ``<prefix>-ref``). A handle whose timeline the server
no longer holds says so.

**A press is answered in the browser.** The buttons, the clock and the speed
move the slider in ``assets/player.js`` (``dash_clientside.vizcoll.control``),
and an overview is lit there too (:data:`OVERVIEW_STEP_JS`); the server only
writes the caption. A step takes one round trip (on a large fabric:
``benchmarks/players.py``, docs/design.md). A new timeline's first caption needs none: a
handle carries the captions of a timeline of up to :data:`HANDLE_CAPTIONS`
steps, and the browser writes the one the slider shows as the handle arrives
(:data:`CAPTION_JS`), without waiting for the figures the same answer draws.

**Key moments** (:data:`vizcoll.sim.timeline.KEY_MOMENTS`: a fault injected,
its detection, a vote, a join...) are marked on the slider with a sign each
(:data:`MARKS`, explained under it) and the ⇤ / ⇥ buttons jump to the
previous / next one. The browser finds them in the timeline it holds (the
kinds of its events), as it counts the steps, so that no button press sends
the timeline back to the server.

**A new timeline keeps the step** the slider is on (clamped to its length):
killing a worker at step 40 replays the new run from step 40, not from 0.

**Class speed**: speeds up to 16× (:data:`SPEEDS`), and "pause at key moments" holds playing on each key moment
for :data:`KEY_PAUSE_MS` before it goes on, so that a class sees each milestone of a fast run.

**Keys** (``assets/player.js``): space plays or pauses, ← / → step back /
forward, Page Up / Page Down (or Shift + ← / →) jump between key moments,
Home / End go to the first / last step; they drive the player last used (or
the first one on screen), never while the user types in a box.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from dash import ClientsideFunction, Dash, Input, Output, State, dcc, html, no_update

from vizcoll import uploads
from vizcoll.errors import VizcollError
from vizcoll.sim.timeline import KEY_MOMENTS, Timeline
from vizcoll.ui.cache import timelines
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.kit import titled

__all__ = [
    "player",
    "register_player",
    "caption_at",
    "first_frame",
    "register_overview",
    "timeline_step",
    "timeline_at",
    "player_timeline",
    "player_captions",
    "player_data",
    "on_canvas",
    "SPEEDS",
    "KEY_PAUSE_MS",
    "MARKS",
    "BUTTONS",
]

SPEEDS = {"0.5×": 1600, "1×": 800, "2×": 400, "4×": 200, "8×": 100, "16×": 50}
"""Milliseconds a step at each speed: 16× plays a run of 683 steps (an 8×8 DLCT run of three barriers) in 34 s."""
KEY_PAUSE_MS = 2000
"""How long playing holds on a key moment when "pause at key moments" is on (``assets/player.js`` says the same)."""
PAUSE = "pause"  # the value of the "pause at key moments" box when it is ticked
MARKS = {
    "fault": "⚡",
    "detect": "⚠",
    "vote": "✓",
    "recover": "↺",
    "drop": "✕",
    "join": "+",
    "leave": "−",
    "release": "↓",
    "complete": "■",
    "result": "Σ",
    "peak": "▲",
}
"""The sign of each key moment on the slider (one per kind of :data:`~vizcoll.sim.timeline.KEY_MOMENTS`)."""
MAX_MARKS = 60  # more key moments than this: every one can be jumped to, an even share of them is marked
# In the browser, from the timeline dict: its number of steps (runs of equal event times), the positions of its
# key moments, the slider's marks and the line explaining them (the key-moment buttons are off without any), so
# that ticks and button presses never send the whole timeline to the server.
KEY_MOMENTS_JS = (
    """function (tl) {
    const names = KIND_NAMES, signs = KIND_SIGNS, most = MOST_MARKS;
    const ref = tl && tl.ref ? {ref: tl.ref, steps: tl.steps} : (tl || null);  // what the caption needs
    if (!tl || !Array.isArray(tl.moments)) { return [0, [], {}, "", true, true, ref]; }
    const n = tl.steps, moments = [], kinds = {}, seen = [];
    for (const [position, kind] of tl.moments) {
        if (!(kind in names)) { continue; }
        moments.push(position); kinds[position] = kind;
        if (!seen.includes(kind)) { seen.push(kind); }
    }
    const marks = {}, every = Math.max(1, Math.ceil(moments.length / most));
    moments.forEach((p, i) => { if (i % every === 0) {
        marks[p] = {label: signs[kinds[p]], style: {color: "#1f3a5f", fontWeight: "bold"}}; } });
    const legend = seen.length ? "Key moments: " + seen.map(k => signs[k] + " " + names[k]).join(", ")
        + " (⇤ ⇥ or Page Up / Page Down jump to them)" : "";
    return [n, moments, marks, legend, !moments.length, !moments.length, ref];
}""".replace("KIND_NAMES", json.dumps(KEY_MOMENTS))
    .replace("KIND_SIGNS", json.dumps(MARKS))
    .replace("MOST_MARKS", str(MAX_MARKS))
)
OVERVIEW_STEP_JS = """function (position, handle) {
    const f = handle && handle.overview;
    if (window.vizcollOverview) { window.vizcollOverview.show(GRAPH, f || null, position); }
    return window.dash_clientside.no_update;
}"""
"""A step of a player drawn on an overview, in the browser: the frames of its handle (``handle.overview``, see
:func:`vizcoll.sim.overview.overview_frames`) light the marks of the figure's two animation layers
(:func:`vizcoll.ui.figures.blocks.add_animation_layers`) at that position, on a canvas over the plot
(``assets/overview.js``; the figure itself is not redrawn: Plotly is slow to redraw a few thousand marks,
docs/design.md)."""
SHOWN_JS = """function (step, h) { const c = window.dash_clientside, by = c.callback_context.triggered;
    c.vizcoll.toLink(c.callback_context.inputs_list[0].id.replace(/-step$/, ""), step);  // the step in the link
    if (h && "overview" in h) { return by.some(t => t.prop_id.endsWith(".data")) ? null : c.no_update; }
    return {position: step, handle: h ? Object.assign({}, h, {moments: [], captions: []}) : null}; }"""
"""The ``<prefix>-shown`` store, in the browser: ``{"position", "handle"}`` at each step of a timeline drawn on a
canvas (:func:`on_canvas`); left alone while an overview plays (the browser lights its steps), so that a step never
posts an overview's frames. It also writes the step into the share link (``assets/player.js``: ``&step=prefix:n``,
which opens the player on that step)."""
CAPTION_JS = """function (h, step) {
    const c = h && h.captions;
    if (!Array.isArray(c) || !c.length) { return [window.dash_clientside.no_update, window.dash_clientside.no_update]; }
    const n = c.length - 1, p = Math.min(Math.max(parseInt(step, 10) || 0, 0), n);
    return [String(c[p]), "step " + p + " of " + n];
}"""
"""A new handle's caption at the slider's position, in the browser, when the handle carries its captions (the
server's caption callback writes the same once asked)."""
BUTTONS = (
    ("first", "« first", "first step (Home)"),
    ("prev-key", "⇤", "previous key moment (Page Up)"),
    ("back", "‹ back", "back one step (←)"),
    ("play", "▶ Play", "play / pause (space)"),
    ("forward", "next ›", "forward one step (→)"),
    ("next-key", "⇥", "next key moment (Page Down)"),
    ("last", "last »", "last step (End)"),
)


def pid(prefix: str, part: str) -> str:
    """Id of one part of the player ``prefix``."""
    return f"{prefix}-{part}"


def player(prefix: str) -> html.Div:
    """The player's layout (its timeline store starts empty)."""
    buttons = [
        html.Button(label, id=pid(prefix, name), n_clicks=0, className=f"player-button player-{name}", title=title)
        for name, label, title in BUTTONS
    ]
    return html.Div(
        className="player",
        children=[
            dcc.Store(id=pid(prefix, "timeline")),
            dcc.Store(id=pid(prefix, "steps"), data=0),
            dcc.Store(id=pid(prefix, "moments"), data=[]),
            dcc.Store(id=pid(prefix, "ref")),
            dcc.Store(id=pid(prefix, "shown")),
            dcc.Interval(id=pid(prefix, "tick"), interval=SPEEDS["1×"], disabled=True),
            html.Div(
                className="player-controls",
                children=[
                    *buttons,
                    html.Label("playback speed", id=pid(prefix, "speed") + "-label", className="visually-hidden"),
                    titled(
                        dcc.Dropdown(
                            id=pid(prefix, "speed"),
                            options=[{"label": k, "value": ms} for k, ms in SPEEDS.items()],
                            value=SPEEDS["1×"],
                            clearable=False,
                            className="player-speed",
                        ),
                        "playback speed",
                    ),
                    dcc.Checklist(
                        id=pid(prefix, "pause"),
                        options=[{"label": " pause at key moments", "value": PAUSE}],
                        value=[],
                        className="player-pause",
                    ),
                    html.Span(id=pid(prefix, "position"), className="player-position"),
                ],
            ),
            html.Label("step", id=pid(prefix, "step") + "-label", className="visually-hidden"),  # assets/a11y.js
            titled(
                dcc.Slider(
                    id=pid(prefix, "step"),
                    min=0,
                    max=0,
                    step=1,
                    value=0,
                    marks=None,
                    tooltip={"placement": "bottom"},
                    updatemode="drag",
                ),
                "step: drag, or ← / → one step, Page Up / Page Down a key moment",
            ),
            html.Div(id=pid(prefix, "moments-legend"), className="player-moments"),
            # read out by a screen reader as it changes, once the reader is idle
            html.Div(id=pid(prefix, "caption"), className="player-caption", **{"aria-live": "polite"}),
        ],
    )


def timeline_step(position: int | None, n_steps: int) -> int:
    """The timeline step shown at slider ``position`` (-1 = the initial state)."""
    return min(max(int(position or 0), 0), n_steps) - 1


def player_data(timeline, **extra):
    """What a page puts in its player's ``<prefix>-timeline`` store for ``timeline`` (a Timeline or its dict): a
    handle, ``{"ref", "steps", "moments": [[position, kind], ...], **extra}`` (``extra``: what the page draws per
    step in the browser, e.g. an overview's frames), the timeline itself kept on the server by its ref, and apart
    from it the caption of every position (:func:`player_captions`), which the handle carries too (``"captions"``)
    when the timeline has at most :data:`HANDLE_CAPTIONS` steps. A timeline the server still holds (the same ref)
    is not stored again: its captions and key moments are read back. None (nothing to play) and ``no_update`` pass
    through."""
    if not isinstance(timeline, Timeline | dict):
        return timeline
    tl = timeline if isinstance(timeline, Timeline) else Timeline.from_dict(timeline)
    ref = tl.digest()
    kept = timelines.get(ref + CAPTIONS) if timelines.holds(ref) else None  # the same timeline, handed out before
    if not isinstance(kept, dict) or "moments" not in kept:
        kept = {"captions": _captions(tl), "moments": [[m["step"] + 1, m["kinds"][0]] for m in tl.key_moments()]}
        timelines.put(ref, {HELD: tl})  # the timeline itself: its columns pickle as arrays, read back unchecked
        timelines.put(ref + CAPTIONS, kept)
    _remember(ref, tl)
    shown = {"captions": kept["captions"]} if tl.n_steps <= HANDLE_CAPTIONS else {}
    return {"ref": ref, "steps": tl.n_steps, "moments": kept["moments"], **shown, **extra}


_parsed: dict[str, Timeline] = {}  # this process's last timelines by ref, parsed (a result of its key: no user state)
PARSED_EVENTS = 1_000_000
"""Events of the parsed timelines a process keeps: about 3 paper-scale aggregations (TaihuLight's preset:
297,588 events)."""
HELD = "timeline"  # a timeline's entry in the shared cache: {HELD: the Timeline} (the server's own, never posted)
CAPTIONS = ":captions"  # the key of a timeline's captions (and key moments) in the shared cache: its ref and this
HANDLE_CAPTIONS = 400
"""A timeline of at most this many steps has its captions in its handle: sent once with it, never posted back (an
aggregation of 1,024 processes in 376 steps: 61 kB)."""


def player_timeline(data: dict) -> Timeline:
    """The timeline of a player's store: a handle (:func:`player_data`), or a whole timeline dict (exports,
    tests); :class:`VizcollError` when the server no longer holds the handle's timeline."""
    if _whole(data):
        return Timeline.from_dict(data)
    ref = _ref(data)
    if ref not in _parsed:
        found = timelines.get(ref)
        if found is None:
            raise VizcollError("this animation is no longer on the server: change a setting or reload the page")
        held = found.get(HELD)
        _remember(ref, held if isinstance(held, Timeline) else Timeline.from_dict(found))
    return _parsed[ref]


def player_captions(data: dict) -> list[str]:
    """The caption at every slider position (0: the initial state) of a player's store (see
    :func:`player_timeline`), read from the shared cache: a step of the slider never parses the timeline (a
    paper-scale one takes a web worker that has not seen it a few hundred ms)."""
    if _whole(data):
        return _captions(Timeline.from_dict(data))
    found = timelines.get(_ref(data) + CAPTIONS)
    if found is None:
        found = {"captions": _captions(player_timeline(data))}
        timelines.put(_ref(data) + CAPTIONS, found)
    return found["captions"]


def _whole(data) -> bool:
    """Whether a player's store holds a whole timeline (its events or their columns), not a handle."""
    return isinstance(data, dict) and ("events" in data or "columns" in data)


def _ref(data) -> str:
    ref = data.get("ref") if isinstance(data, dict) else None
    if not isinstance(ref, str) or not uploads.REF.fullmatch(ref):
        raise VizcollError("the browser sent a malformed animation")
    return ref


def _captions(tl: Timeline) -> list[str]:
    return tl.captions()


def _remember(ref: str, tl: Timeline) -> None:
    """Keep ``tl`` parsed: the last 8 timelines, and at most :data:`PARSED_EVENTS` events in all."""
    held = lambda: sum(len(t.events) for t in _parsed.values())  # noqa: E731
    while _parsed and (len(_parsed) >= 8 or held() + len(tl.events) > PARSED_EVENTS):
        _parsed.pop(next(iter(_parsed)))
    _parsed[ref] = tl


def timeline_at(timeline: dict, position: int | None) -> tuple[Timeline, int]:
    """The timeline of a player's store (see :func:`player_timeline`) and the step its slider ``position`` shows."""
    tl = player_timeline(timeline)
    return tl, timeline_step(position, tl.n_steps)


def register_player(app: Dash, prefix: str) -> None:
    """Wire the controls of player ``prefix`` on ``app``."""
    p = lambda part: pid(prefix, part)  # noqa: E731

    app.clientside_callback(
        KEY_MOMENTS_JS,
        Output(p("steps"), "data"),
        Output(p("moments"), "data"),
        Output(p("step"), "marks"),
        Output(p("moments-legend"), "children"),
        Output(p("prev-key"), "disabled"),
        Output(p("next-key"), "disabled"),
        Output(p("ref"), "data"),
        Input(p("timeline"), "data"),
    )

    app.clientside_callback(
        SHOWN_JS, Output(p("shown"), "data"), Input(p("step"), "value"), Input(p("timeline"), "data")
    )
    app.clientside_callback(  # assets/player.js: the transitions, in the browser (no round trip per press)
        ClientsideFunction("vizcoll", "control"),
        Output(p("step"), "value"),
        Output(p("step"), "max"),
        Output(p("tick"), "disabled"),
        Output(p("play"), "children"),
        Output(p("tick"), "interval"),
        *[Input(p(name), "n_clicks") for name, _, _ in BUTTONS],
        Input(p("tick"), "n_intervals"),
        Input(p("steps"), "data"),
        Input(p("speed"), "value"),
        State(p("step"), "value"),
        State(p("tick"), "disabled"),
        State(p("moments"), "data"),
        State(p("pause"), "value"),
    )

    app.clientside_callback(
        CAPTION_JS,
        Output(p("caption"), "children", allow_duplicate=True),
        Output(p("position"), "children", allow_duplicate=True),
        Input(p("timeline"), "data"),
        State(p("step"), "value"),
        prevent_initial_call=True,
    )

    by_name(
        app, _caption_outputs(prefix), {"position": Input(p("step"), "value"), "timeline": Input(p("ref"), "data")}
    )(caption_at)


def _caption_outputs(prefix: str) -> dict[str, Output]:
    return {
        "caption": Output(pid(prefix, "caption"), "children"),
        "position": Output(pid(prefix, "position"), "children"),
    }


def caption_at(position, timeline) -> dict[str, str]:
    """The caption and the position line of a player at slider ``position`` for its store ``timeline`` (a handle, or
    what its ``<prefix>-ref`` store holds)."""
    if not timeline:
        return {"caption": "Nothing to play.", "position": ""}
    try:
        captions = player_captions(timeline)
    except VizcollError as exc:
        return {"caption": f"⚠ {exc}", "position": ""}
    step = timeline_step(position, len(captions) - 1)
    return {"caption": captions[step + 1], "position": f"step {step + 1} of {len(captions) - 1}"}


def first_frame(prefix: str, timeline) -> tuple[dict[str, Output], dict]:
    """Player ``prefix``'s caption and position at its first step for the store ``timeline``, as a page's answer to
    :func:`~vizcoll.ui.routing.filled`: a page that draws its player's timeline in the router's answer shows its
    first frame at once, before the player's callbacks run (they give the same)."""
    return _caption_outputs(prefix), {} if timeline is no_update else caption_at(0, timeline)


def on_canvas(render: Callable) -> Callable:
    """A page's canvas stylesheet at a step, ``render(position, handle, *states)``, as the callback of its player's
    ``<prefix>-shown`` store (:data:`SHOWN_JS`; anything else the browser sends counts as no step)."""

    def callback(shown, *states):
        shown = shown if isinstance(shown, dict) else {}
        return render(shown.get("position"), shown.get("handle"), *states)

    return callback


def register_overview(app: Dash, prefix: str, graph: str) -> None:
    """Draw player ``prefix``'s steps on the overview figure ``graph`` in the browser (:data:`OVERVIEW_STEP_JS`),
    when its handle carries overview frames."""
    app.clientside_callback(
        OVERVIEW_STEP_JS.replace("GRAPH", json.dumps(graph)),
        Output(graph, "figure", allow_duplicate=True),
        Input(pid(prefix, "step"), "value"),
        Input(pid(prefix, "timeline"), "data"),
        prevent_initial_call=True,
    )
