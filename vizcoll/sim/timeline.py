"""The one timeline format every animation in vizcoll uses.

A simulation (a broadcast, an aggregation tree going up and down, a barrier, a
fault-tolerant reduction, TREFT's threads, multicast group states, ...)
returns a :class:`Timeline`: an *initial state* (entity key -> state value)
and a list of :class:`Event` objects ordered by simulated time ``t``.

**Steps.** A player does not step through single events but through *steps*:
one step is all the events that share the same ``t`` (exactly equal floats),
in insertion order. Steps are numbered ``0..n_steps-1`` in time order; step
``-1`` is the initial state, before any event.

**State.** The state at step ``k`` is ``initial_state`` with the
``state_changes`` of every event of steps ``0..k`` applied in order
(:meth:`Timeline.state_at`). It is always recomputed from the event list, so
stepping back or jumping shows exactly the same thing as playing forward. A
few snapshots are cached to keep this fast for 10^5 events; the result is
identical to a full replay.

**Entities.** State keys are strings. By convention a key that is the name of
a topology node is drawn on that node; ``entities`` may say so explicitly
(``{"sw3": {"node": 3}}``) and describe other entities (threads, queues,
groups). ``legend`` explains each state value (keys are ``str(value)``).

**Clock.** ``time_unit`` names the unit of ``t`` ("ns", "ms", ...); when it is
set, every step's caption starts with its time ("t = 1,200 ns: ..."), so a
player, a GIF and a CSV of the run all say when each step happens. Timelines
whose notes already state their times leave it empty.

**Kinds** of events are free strings; the usual ones are in :data:`KINDS`.
Events with ``path_links`` are messages moving over those links during their
step (:meth:`Timeline.active_at`); ``"note"`` events carry no message, only a
caption for their step (and possibly state changes).

**Key moments.** An event whose kind is one of :data:`KEY_MOMENTS` (a fault
injected, its detection, a vote, a join or leave request, a barrier's
release, a recovery...) marks a moment a viewer wants to jump to: players put
a marker on its step and step from one to the next
(:meth:`Timeline.key_moments`). Such an event is captioned like a note.

**Columns.** ``events`` is a list of :class:`Event`, or, for a paper-scale run, an
:class:`~vizcoll.sim.events.EventColumns` (one array per field, read as a sequence of
events); the player's work (captions, state, key moments, overview frames) reads
columns either way (:attr:`Timeline.columns`).

A timeline is JSON-serialisable (:meth:`Timeline.to_dict`, schema
``vizcoll.timeline/1``: its events as a list of objects, ``"events"``, or as
columns, ``"columns"``) and round-trips exactly through :meth:`Timeline.from_dict`.
Treat a timeline as immutable once built: make a new one rather than editing
``events`` in place.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from dataclasses import dataclass, field

import numpy as np

from vizcoll.errors import VizcollError
from vizcoll.sim.events import Event, EventColumns, is_state_value, plain
from vizcoll.words import plural

__all__ = ["SCHEMA", "KINDS", "KEY_MOMENTS", "MAX_EVENTS", "Event", "Timeline", "sort_events"]

SCHEMA = "vizcoll.timeline/1"
KINDS = ("send", "arrive", "deliver", "state", "drop", "note")
KEY_MOMENTS = {
    "fault": "fault injected",  # a soft error (TREFT), a worker killed (reduction), a member crashing (multicast)
    "detect": "fault detected",  # the master's ping times out, a vote finds a copy that differs
    "vote": "vote",  # TREFT's 2-of-3 comparison of the three copies
    "recover": "recovery",  # the reduction's recovery steps
    "drop": "message lost",  # a broken link stops a message (barrier, aggregation), a lost or unread one
    "join": "join request",  # a multicast group member asks the subnet manager to join
    "leave": "leave request",
    "release": "barrier release",  # a two-phase barrier's root has every Gather and releases
    "complete": "barrier complete",  # every processor has left a barrier
    "result": "result at the root",  # an aggregation's result is complete and goes back down
    "peak": "largest EFI rises",  # a multicast group's tree raises the largest EFI (vizcoll.multicast.buildup)
}
"""Event kinds that mark a key moment of a replay, and what a player calls them."""
MAX_EVENTS = 2_000_000
NOTED = ("note", *KEY_MOMENTS)
"""Kinds whose labels caption their step (the others' labels do when a step has none of these)."""

StateValue = str | int | float


def sort_events(events) -> list[Event]:
    """The events ordered by ``t``, keeping insertion order among equal times (stable)."""
    return sorted(events, key=lambda e: e.t)


@dataclass
class Timeline:
    """An initial state plus time-ordered events: the one format every animation of vizcoll replays.

    A player steps through *steps*: one step is all the events that share the same ``t`` (exactly equal floats),
    in insertion order; step -1 is the initial state. The state at step ``k`` is ``initial_state`` with the state
    changes of every event of steps ``0..k`` applied in order (:meth:`state_at`), always recomputed from the
    events, so stepping back or jumping shows exactly what playing forward shows. Events of a kind in
    :data:`KEY_MOMENTS` mark moments a viewer jumps to (:meth:`key_moments`). The timeline checks its events on
    construction (:class:`~vizcoll.errors.VizcollError` for times that are not finite, negative or out of order,
    or too many events), round-trips exactly through :meth:`to_dict` / :meth:`from_dict` (schema
    ``vizcoll.timeline/1``) and is treated as immutable once built (see the module docstring).

    Parameters
    ----------
    title : str
        The run's title.
    initial_state : dict
        Entity key -> state value before the first step.
    events : list of Event or EventColumns
        The events ordered by time (:func:`sort_events` orders a list; a paper-scale run passes columns).
    entities : dict of str to dict
        What each state key is, e.g. ``{"sw3": {"node": 3}}`` (a key naming a topology node is drawn on it).
    legend : dict of str to str
        What each state value means (keys are ``str(value)``).
    summary : dict
        The figures of the run (completion time, messages, ...).
    intro : str
        The caption shown before the first step.
    time_unit : str
        The unit of ``t`` (``"ns"``, ``"ms"``, ...); when set, every caption starts with the step's time.

    Examples
    --------
    >>> events = [Event(0.0, "state", label="a starts", state_changes={"a": "busy"}), Event(2.0, "note", label="done")]
    >>> tl = Timeline(initial_state={"a": "idle"}, events=events)
    >>> tl.n_steps, tl.state_at(-1), tl.state_at(0), tl.caption(1)
    (2, {'a': 'idle'}, {'a': 'busy'}, 'done')
    """

    title: str = ""
    initial_state: dict[str, StateValue] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    entities: dict[str, dict] = field(default_factory=dict)
    legend: dict[str, str] = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    intro: str = ""
    time_unit: str = ""

    #: take a snapshot of the state after at least this many state changes
    #: (and at least one per ``len(initial_state)`` changes)
    SNAPSHOT_CHANGES = 4096

    _starts: np.ndarray = field(init=False, repr=False, compare=False)
    _columns: EventColumns | None = field(init=False, repr=False, compare=False, default=None)
    _keys: list | None = field(init=False, repr=False, compare=False, default=None)
    _values: list = field(init=False, repr=False, compare=False, default_factory=list)
    _cut: list = field(init=False, repr=False, compare=False, default_factory=list)
    _snap_steps: list = field(init=False, repr=False, compare=False, default_factory=list)
    _snaps: list = field(init=False, repr=False, compare=False, default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.events, EventColumns):
            self.events = list(self.events)
        self.initial_state = {str(k): plain(v) for k, v in self.initial_state.items()}
        self.validate()
        t = self._times()
        new_step = np.ones(len(t), dtype=bool)
        new_step[1:] = t[1:] != t[:-1]
        #: index of the first event of each step, plus len(events) at the end
        self._starts = np.r_[np.flatnonzero(new_step), len(t)].astype(np.int64)

    def __getstate__(self) -> dict:
        """What pickles: the timeline without the replay's snapshots (made again when a state is asked for) nor
        a list of events' columns (made again when read), so a timeline pickles the same however it was used."""
        return self.__dict__ | {
            "_columns": None,
            "_keys": None,
            "_values": [],
            "_cut": [],
            "_snap_steps": [],
            "_snaps": [],
        }

    def validate(self) -> None:
        """Raise :class:`VizcollError` unless times are finite, >= 0 and in order."""
        if len(self.events) > MAX_EVENTS:
            raise VizcollError(f"{len(self.events):,} events is more than the limit of {MAX_EVENTS:,}")
        t = self._times()
        bad = ~np.isfinite(t) | (t < 0)
        if bad.any():
            i = int(np.argmax(bad))
            raise VizcollError(f"event {i} has time t={t[i]!r}; times must be finite and >= 0")
        back = np.flatnonzero(t[1:] < t[:-1])
        if len(back):
            i = int(back[0]) + 1
            raise VizcollError(f"events are not in time order: event {i} at t={t[i]:g} comes after t={t[i - 1]:g}")

    def _times(self) -> np.ndarray:
        """Every event's time: the columns' (made once), not read from every event at each call (the captions
        of a replay of 49,186 events read them once per step, which was slow: docs/design.md)."""
        return self.columns.t

    @property
    def columns(self) -> EventColumns:
        """The events as columns (made once from a list of events)."""
        if isinstance(self.events, EventColumns):
            return self.events
        if self._columns is None:
            self._columns = EventColumns.of(self.events)
        return self._columns

    # ------------------------------------------------------------ steps
    @property
    def n_steps(self) -> int:
        """Number of steps (distinct event times)."""
        return len(self._starts) - 1

    @property
    def steps(self) -> list[list[Event]]:
        """The events grouped by step: one step = all events sharing the same ``t``."""
        return [self.active_at(k) for k in range(self.n_steps)]

    def _check(self, step: int) -> int:
        step = int(step)
        if not -1 <= step < self.n_steps:
            raise IndexError(f"step {step} is outside -1..{self.n_steps - 1}")
        return step

    def _span(self, step: int) -> tuple[int, int]:
        return int(self._starts[step]), int(self._starts[step + 1])

    def event_steps(self) -> np.ndarray:
        """The step of every event."""
        return np.repeat(np.arange(self.n_steps), np.diff(self._starts))

    def step_times(self) -> np.ndarray:
        """The simulated time of every step, in order."""
        return self._times()[self._starts[:-1]].astype(float)

    def time_at(self, step: int) -> float:
        """Simulated time of ``step`` (0.0 for the initial state, step -1)."""
        step = self._check(step)
        return 0.0 if step < 0 else float(self._times()[int(self._starts[step])])

    def active_at(self, step: int) -> list[Event]:
        """The events of ``step`` (messages moving in it, notes); empty for step -1."""
        step = self._check(step)
        if step < 0:
            return []
        a, b = self._span(step)
        return self.events[a:b]

    def changes_at(self, step: int) -> dict[str, StateValue]:
        """The state changes made by ``step`` alone (later events of the step win)."""
        if self._check(step) < 0:
            return {}
        cols = self.columns
        a, b = (int(cols.change_start[i]) for i in self._span(step))
        return dict(zip(cols.change_key[a:b], cols.change_value[a:b], strict=True))

    def caption(self, step: int, limit: int = 3) -> str:
        """Text for ``step``: its notes' labels if it has notes, else its events' labels.

        At most ``limit`` distinct labels are shown, then "… and N more".
        Step -1 gives ``intro`` (or the title). With a ``time_unit``, the step's time comes first.

        Parameters
        ----------
        step : int
            A step, -1 to ``n_steps - 1``.
        limit : int
            Most labels shown.

        Returns
        -------
        str
            The caption.

        Raises
        ------
        IndexError
            For a step outside -1..``n_steps - 1``.
        """
        step = self._check(step)
        if step < 0:
            return self.intro or self.title or "Initial state"
        cols, (a, b) = self.columns, self._span(step)
        notes = a + np.flatnonzero(np.isin(cols.kind[a:b], cols.codes(NOTED)))
        shown = (cols.label[i] for i in notes.tolist()) if len(notes) else cols.label[a:b]
        labels = list(dict.fromkeys(label for label in shown if label))
        text = "; ".join(labels[:limit]) if labels else plural(b - a, "event")
        if len(labels) > limit:
            text += f"; … and {len(labels) - limit:,} more"
        return f"{self.clock(step)}: {text}" if self.time_unit else text

    def captions(self, limit: int = 3) -> list[str]:
        """:meth:`caption` of every step from -1 (the initial state) to the last, the notes found in one pass over
        the columns (a caption each costs a search of its step's kinds; one pass is faster: docs/design.md).

        >>> tl = Timeline(events=[Event(0, "send", label="a"), Event(0, "note", label="b"), Event(1, "send")])
        >>> tl.captions() == [tl.caption(step) for step in range(-1, tl.n_steps)]
        True
        """
        cols, starts = self.columns, self._starts.tolist()
        notes = np.flatnonzero(np.isin(cols.kind, cols.codes(NOTED)))
        first, last = np.searchsorted(notes, starts[:-1]).tolist(), np.searchsorted(notes, starts[1:]).tolist()
        notes, label, out = notes.tolist(), cols.label, [self.caption(-1, limit)]
        for step in range(self.n_steps):
            a, b = starts[step], starts[step + 1]
            shown = [label[i] for i in notes[first[step] : last[step]]] if last[step] > first[step] else label[a:b]
            labels = list(dict.fromkeys(text for text in shown if text))
            text = "; ".join(labels[:limit]) if labels else plural(b - a, "event")
            if len(labels) > limit:
                text += f"; … and {len(labels) - limit:,} more"
            out.append(f"{self.clock(step)}: {text}" if self.time_unit else text)
        return out

    def clock(self, step: int) -> str:
        """``step``'s time with its unit: "t = 1,200 ns", "t = 0.14 ms" (the bare number without a unit)."""
        t = self.time_at(step)
        number = f"{int(t):,}" if t == int(t) else f"{t:,.6g}"
        return f"t = {number} {self.time_unit}".rstrip()

    def key_moments(self) -> list[dict]:
        """The steps holding a key moment (:data:`KEY_MOMENTS`), in order.

        Returns
        -------
        list of dict
            ``{"step", "kinds", "label"}`` with the step's key kinds (each once, in event order) and the label of
            its first key event.

        Examples
        --------
        >>> tl = Timeline(events=[Event(0, "send"), Event(1, "fault", label="r1 flips a bit"), Event(2, "note")])
        >>> tl.key_moments()
        [{'step': 1, 'kinds': ['fault'], 'label': 'r1 flips a bit'}]
        """
        cols = self.columns
        keys = np.flatnonzero(np.isin(cols.kind, cols.codes(KEY_MOMENTS)))
        steps = self.event_steps()[keys]
        moments = []
        for step in np.unique(steps).tolist():
            at = keys[steps == step].tolist()
            kinds = list(dict.fromkeys(cols.kinds[int(cols.kind[i])] for i in at))
            moments.append({"step": step, "kinds": kinds, "label": cols.label[at[0]]})
        return moments

    # ------------------------------------------------------------ state
    def _build_replay(self) -> None:
        """Flatten all state changes and take snapshots (lazily, once)."""
        cols = self.columns
        keys, values, cut = cols.change_key, cols.change_value, cols.change_start[self._starts].tolist()
        every = max(int(self.SNAPSHOT_CHANGES), len(self.initial_state), 1)
        state = dict(self.initial_state)
        snap_steps, snaps, last = [0], [dict(state)], 0
        for k in range(self.n_steps):
            state.update(zip(keys[cut[k] : cut[k + 1]], values[cut[k] : cut[k + 1]], strict=True))
            if cut[k + 1] - last >= every:
                snap_steps.append(k + 1)
                snaps.append(dict(state))
                last = cut[k + 1]
        self._keys, self._values, self._cut = keys, values, cut
        self._snap_steps, self._snaps = snap_steps, snaps

    def state_at(self, step: int) -> dict[str, StateValue]:
        """State after all events of steps ``<= step`` (a fresh dict; step -1 = initial).

        Replays the event list from the nearest cached snapshot: the result is
        the same as replaying every event from ``initial_state``.

        Parameters
        ----------
        step : int
            A step, -1 to ``n_steps - 1``.

        Returns
        -------
        dict
            Entity key -> state value.

        Raises
        ------
        IndexError
            For a step outside -1..``n_steps - 1``.
        """
        step = self._check(step)
        if self._keys is None:
            self._build_replay()
        end = step + 1  # number of steps applied
        i = bisect_right(self._snap_steps, end) - 1
        state = dict(self._snaps[i])
        a, b = self._cut[self._snap_steps[i]], self._cut[end]
        state.update(zip(self._keys[a:b], self._values[a:b], strict=True))
        return state

    @property
    def final_state(self) -> dict[str, StateValue]:
        """State after the last step."""
        return self.state_at(self.n_steps - 1)

    # ------------------------------------------------------------ serialisation
    def digest(self) -> str:
        """``sha256:`` and the hash of everything the timeline holds, its events read as columns: equal timelines
        (however their events are held) have equal digests. One pass over arrays and joined texts (the JSON of a
        paper-scale timeline's events takes most of a second)."""
        h = hashlib.sha256(json.dumps(self.to_dict(events=False), sort_keys=True, default=str).encode())
        cols = self.columns
        h.update(np.asarray(cols.t, dtype=float).tobytes())
        for array in (cols.kind, cols.src, cols.dst, cols.link_start, cols.links, cols.change_start):
            h.update(np.asarray(array, dtype=np.int64).tobytes())
        for texts in (cols.kinds, cols.label, cols.change_key):
            h.update("\x1f".join(texts).encode() + b"\x1e")
        h.update(json.dumps(cols.change_value).encode())
        return "sha256:" + h.hexdigest()

    def to_dict(self, events: bool = True) -> dict:
        """JSON-serialisable form (schema ``vizcoll.timeline/1``; columns stay columns).

        Parameters
        ----------
        events : bool
            Include the events (``"events"``: a list of objects, or ``"columns"``); False: all but the events.

        Returns
        -------
        dict
            ``schema``, ``title``, ``intro``, ``initial_state``, ``entities``, ``legend``, ``summary``,
            ``time_unit`` and the events.
        """
        if not events:
            events = {}
        elif isinstance(self.events, EventColumns):
            events = {"columns": self.events.to_dict()}
        else:
            events = {"events": [e.to_dict() for e in self.events]}
        return {
            "schema": SCHEMA,
            "title": self.title,
            "intro": self.intro,
            "initial_state": dict(self.initial_state),
            "entities": {k: dict(v) for k, v in self.entities.items()},
            "legend": dict(self.legend),
            "summary": dict(self.summary),
            "time_unit": self.time_unit,
            **events,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Timeline:
        """Inverse of :meth:`to_dict`: the timeline of its dict, exactly.

        Parameters
        ----------
        data : dict
            What :meth:`to_dict` returned (e.g. read back from JSON).

        Returns
        -------
        Timeline
            The timeline.

        Raises
        ------
        VizcollError
            With a clear message for a wrong schema, a field of the wrong type or bad events.
        """
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise VizcollError(f"not a vizcoll timeline: the field 'schema' must be {SCHEMA!r}")
        for key, kind, default in (
            ("title", str, ""),
            ("intro", str, ""),
            ("initial_state", dict, {}),
            ("entities", dict, {}),
            ("legend", dict, {}),
            ("summary", dict, {}),
            ("time_unit", str, ""),
            ("events", list, []),
        ):
            if not isinstance(data.get(key, default), kind):
                raise VizcollError(f"timeline field {key!r} must be a {'list' if kind is list else kind.__name__}")
        for key, value in data.get("initial_state", {}).items():
            if not is_state_value(value):
                raise VizcollError(f"initial state of {key!r} must be a string or a finite number, got {value!r}")
        for key, value in data.get("entities", {}).items():
            if not isinstance(value, dict):
                raise VizcollError(f"entity {key!r} must be an object")
        for key, value in data.get("legend", {}).items():
            if not isinstance(value, str):
                raise VizcollError(f"legend entry {key!r} must be a string")
        if len(data.get("time_unit", "")) > 8:
            raise VizcollError("timeline field 'time_unit' must be a unit of at most 8 characters, such as 'ns'")
        return cls(
            title=data.get("title", ""),
            initial_state=dict(data.get("initial_state", {})),
            events=_events_of(data),
            entities={k: dict(v) for k, v in data.get("entities", {}).items()},
            legend=dict(data.get("legend", {})),
            summary=dict(data.get("summary", {})),
            intro=data.get("intro", ""),
            time_unit=data.get("time_unit", ""),
        )


def _events_of(data: dict) -> list[Event] | EventColumns:
    """The events of a timeline's dict (:meth:`Timeline.to_dict`), checked."""
    if "columns" in data:
        columns = data["columns"]
        size = len(columns.get("t", ())) if isinstance(columns, dict) and isinstance(columns.get("t"), list) else 0
        if size > MAX_EVENTS:
            raise VizcollError(f"{size:,} events is more than the limit of {MAX_EVENTS:,}")
        return EventColumns.from_dict(columns)
    raw = data.get("events", [])
    if len(raw) > MAX_EVENTS:
        raise VizcollError(f"{len(raw):,} events is more than the limit of {MAX_EVENTS:,}")
    events = []
    for i, item in enumerate(raw):
        try:
            events.append(Event.from_dict(item))
        except VizcollError as exc:
            raise VizcollError(f"event {i}: {exc}") from None
    return events
