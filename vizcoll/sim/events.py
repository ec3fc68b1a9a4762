"""The events of a :class:`~vizcoll.sim.timeline.Timeline`: one :class:`Event` object each, or columns.

A simulation of a few thousand events builds :class:`Event` objects. A paper-scale one (the aggregation of every
process of TaihuLight: about 300,000 events) builds :class:`EventColumns`, one array or list per field, which
reads as a sequence of events (an :class:`Event` is made only for the events asked for) and serialises as
columns: an object per event is slow to make and to read back, seconds at that size (measured: docs/design.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vizcoll.errors import VizcollError

__all__ = ["Event", "EventColumns", "EventLog", "StateChanges", "plain", "is_state_value", "run_starts"]

StateValue = str | int | float


def plain(value):
    """numpy scalars -> Python scalars (so that everything stays JSON-serialisable)."""
    return value.item() if isinstance(value, np.generic) else value


def is_state_value(value) -> bool:
    """Whether ``value`` can be a state: a string or a finite number (not a bool)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, (str, int))


@dataclass
class Event:
    """One thing happening at simulated time ``t``.

    ``src`` / ``dst`` are node indices (-1 = none), ``path_links`` the stable
    ids of the links the message traverses in this event (usually one hop),
    ``label`` a caption a student can read ("sw3 forwards the packet to h7
    over port 4") and ``state_changes`` maps entity keys to their new state.
    """

    t: float
    kind: str
    src: int = -1
    dst: int = -1
    path_links: list[int] = field(default_factory=list)
    label: str = ""
    state_changes: dict[str, StateValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.t = float(self.t)
        self.src = int(self.src)
        self.dst = int(self.dst)
        self.path_links = [int(x) for x in self.path_links]
        self.state_changes = {str(k): plain(v) for k, v in self.state_changes.items()}

    def to_dict(self) -> dict:
        return {
            "t": self.t,
            "kind": self.kind,
            "src": self.src,
            "dst": self.dst,
            "path_links": list(self.path_links),
            "label": self.label,
            "state_changes": dict(self.state_changes),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Event:
        """Inverse of :meth:`to_dict`; raises :class:`VizcollError` naming the bad field."""
        if not isinstance(data, dict):
            raise VizcollError("an event must be an object")
        missing = [k for k in ("t", "kind") if k not in data]
        if missing:
            raise VizcollError(f"missing field {missing[0]!r}")
        t = data["t"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
            raise VizcollError(f"'t' must be a finite number >= 0, got {t!r}")
        kind = data["kind"]
        if not isinstance(kind, str) or not kind:
            raise VizcollError(f"'kind' must be a non-empty string, got {kind!r}")
        for key in ("src", "dst"):
            value = data.get(key, -1)
            if isinstance(value, bool) or not isinstance(value, int) or value < -1:
                raise VizcollError(f"{key!r} must be a node index or -1, got {value!r}")
        links = data.get("path_links", [])
        if not isinstance(links, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in links):
            raise VizcollError(f"'path_links' must be a list of link ids, got {links!r}")
        label = data.get("label", "")
        if not isinstance(label, str):
            raise VizcollError(f"'label' must be a string, got {label!r}")
        changes = data.get("state_changes", {})
        if not isinstance(changes, dict):
            raise VizcollError("'state_changes' must be an object")
        for key, value in changes.items():
            if not is_state_value(value):
                raise VizcollError(f"state of {key!r} must be a string or a finite number, got {value!r}")
        return cls(t, kind, data.get("src", -1), data.get("dst", -1), links, label, changes)


@dataclass(eq=False)
class EventColumns(Sequence):
    """Events as columns: event ``i`` happens at ``t[i]``, is of kind ``kinds[kind[i]]``, goes ``src[i]`` ->
    ``dst[i]`` over the links ``links[link_start[i]:link_start[i + 1]]``, reads ``label[i]`` and sets the state
    of ``change_key[j]`` to ``change_value[j]`` for ``j`` in ``change_start[i]:change_start[i + 1]``.

    A sequence of :class:`Event` (each made when asked for), equal to any sequence of the same events.
    """

    t: np.ndarray
    kind: np.ndarray
    kinds: list[str]
    src: np.ndarray
    dst: np.ndarray
    link_start: np.ndarray
    links: np.ndarray
    label: list[str]
    change_start: np.ndarray
    change_key: list[str]
    change_value: list

    FIELDS = ("t", "kind", "kinds", "src", "dst", "link_start", "links", "label", "change_start", "change_key")

    def __len__(self) -> int:
        return len(self.t)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._event(i) for i in range(*index.indices(len(self)))]
        index = range(len(self))[index]
        return self._event(index)

    def __iter__(self):
        return (self._event(i) for i in range(len(self)))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Sequence) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None

    def _event(self, i: int) -> Event:
        a, b = int(self.link_start[i]), int(self.link_start[i + 1])
        c, d = int(self.change_start[i]), int(self.change_start[i + 1])
        changes = dict(zip(self.change_key[c:d], self.change_value[c:d], strict=True))
        kind = self.kinds[int(self.kind[i])]
        return Event(
            float(self.t[i]), kind, int(self.src[i]), int(self.dst[i]), self.links[a:b], self.label[i], changes
        )

    def codes(self, kinds) -> np.ndarray:
        """The codes of those of ``kinds`` these events use."""
        return np.asarray([code for code, kind in enumerate(self.kinds) if kind in kinds], dtype=self.kind.dtype)

    @classmethod
    def of(cls, events: Sequence[Event]) -> EventColumns:
        """The columns of a sequence of events."""
        if isinstance(events, EventColumns):
            return events
        kinds: dict[str, int] = {}
        links = [link for e in events for link in e.path_links]
        keys = [key for e in events for key in e.state_changes]
        values = [value for e in events for value in e.state_changes.values()]
        return cls(
            t=np.fromiter((e.t for e in events), dtype=float, count=len(events)),
            kind=np.fromiter((kinds.setdefault(e.kind, len(kinds)) for e in events), dtype=np.int32, count=len(events)),
            kinds=list(kinds),
            src=np.fromiter((e.src for e in events), dtype=np.int64, count=len(events)),
            dst=np.fromiter((e.dst for e in events), dtype=np.int64, count=len(events)),
            link_start=run_starts(len(e.path_links) for e in events),
            links=np.asarray(links, dtype=np.int64),
            label=[e.label for e in events],
            change_start=run_starts(len(e.state_changes) for e in events),
            change_key=keys,
            change_value=values,
        )

    def to_dict(self) -> dict:
        """JSON-serialisable columns (lists)."""
        out = {name: getattr(self, name) for name in self.FIELDS}
        out = {name: value.tolist() if isinstance(value, np.ndarray) else list(value) for name, value in out.items()}
        return out | {"change_value": list(self.change_value)}

    @classmethod
    def from_dict(cls, data) -> EventColumns:
        """Inverse of :meth:`to_dict`, every column checked; :class:`VizcollError` names the bad one."""
        if not isinstance(data, dict):
            raise VizcollError("'columns' must be an object")
        t = _numbers(data.get("t"), "t")
        n = len(t)
        kinds = _texts(data.get("kinds"), "kinds", None)
        if not all(kinds):
            raise VizcollError("column 'kinds' must hold non-empty strings")
        kind = _whole(data.get("kind"), "kind", n, 0, len(kinds) - 1)
        link_start, change_start = _offsets(data, "link_start", n), _offsets(data, "change_start", n)
        links = _whole(data.get("links"), "links", int(link_start[-1]), None, None)
        keys = _texts(data.get("change_key"), "change_key", int(change_start[-1]))
        values = data.get("change_value")
        if not isinstance(values, list) or len(values) != len(keys) or not all(map(is_state_value, values)):
            raise VizcollError("column 'change_value' must hold a string or a finite number per state change")
        src, dst = (_whole(data.get(name), name, n, -1, None) for name in ("src", "dst"))
        label = _texts(data.get("label"), "label", n)
        return cls(t, kind, kinds, src, dst, link_start, links, label, change_start, keys, values)


def run_starts(counts) -> np.ndarray:
    """Offsets of consecutive runs of ``counts`` items (0 first, the total last)."""
    return np.r_[0, np.cumsum(np.fromiter(counts, dtype=np.int64))].astype(np.int64)


def _numbers(values, name: str) -> np.ndarray:
    out = np.asarray(values) if isinstance(values, list) else None
    if out is None or (len(out) and out.dtype.kind not in "iuf") or out.ndim != 1:
        raise VizcollError(f"column {name!r} must be a list of numbers")
    out = out.astype(float)
    if not np.isfinite(out).all() or (out < 0).any():
        raise VizcollError(f"column {name!r} must hold finite numbers >= 0")
    return out


def _whole(values, name: str, n: int, low: int | None, high: int | None) -> np.ndarray:
    """A column of ``n`` whole numbers in ``low..high`` (None: unbounded)."""
    out = np.asarray(values) if isinstance(values, list) and len(values) == n else None
    if out is None or (n and out.dtype.kind not in "iu") or out.ndim != 1:
        raise VizcollError(f"column {name!r} must be a list of {n:,} whole numbers")
    out = out.astype(np.int64)
    if len(out) and ((low is not None and out.min() < low) or (high is not None and out.max() > high)):
        raise VizcollError(f"column {name!r} holds a number outside {low}..{'' if high is None else high}")
    return out


def _texts(values, name: str, n: int | None) -> list[str]:
    if not isinstance(values, list) or (n is not None and len(values) != n):
        raise VizcollError(f"column {name!r} must be a list of {'' if n is None else f'{n:,} '}strings")
    if not all(isinstance(x, str) for x in values):
        raise VizcollError(f"column {name!r} must hold strings")
    return values


def _offsets(data: dict, name: str, n: int) -> np.ndarray:
    """Offsets of ``n`` runs: ``n + 1`` non-decreasing whole numbers from 0."""
    out = _whole(data.get(name), name, n + 1, 0, None)
    if out[0] != 0 or (np.diff(out) < 0).any():
        raise VizcollError(f"column {name!r} must start at 0 and never decrease")
    return out


@dataclass(frozen=True, slots=True)
class StateChanges:
    """The state change of each event of an :class:`EventLog` chunk: event ``i`` sets ``key[i]`` to ``value[i]``.

    Parameters
    ----------
    key : list of str
        The entity of each event whose state changes.
    value : list
        Its new state (a string or a finite number).
    """

    key: list[str]
    value: list


class EventLog:
    """Events added a chunk at a time, as columns, each with its place in the run (phase, major, minor: whole
    numbers); :meth:`columns` orders them by time rounded to ``digits`` decimals, then by place. That is the order
    of events appended in place order and sorted stably by time (:func:`~vizcoll.sim.timeline.sort_events`),
    without an object per event."""

    def __init__(self, digits: int = 9) -> None:
        self.digits = digits
        self._chunks: list[dict] = []

    def add(self, t, kind: str, label: list[str], place, src=-1, dst=-1, link=-1, changes=None) -> None:
        """One chunk of ``len(label)`` events of ``kind``: ``t``, ``src``, ``dst``, ``link`` (a link id, -1:
        none) and each of ``place``'s three numbers an array or a scalar; ``changes``: each event's state change
        (:class:`StateChanges`), or None for none."""
        n = len(label)
        if not n:
            return
        column = lambda value, dtype: np.broadcast_to(np.asarray(value, dtype=dtype), (n,))  # noqa: E731
        self._chunks.append(
            {
                "t": column(t, float),
                "kind": kind,
                "label": list(label),
                "place": [column(p, np.int64) for p in place],
                "src": column(src, np.int64),
                "dst": column(dst, np.int64),
                "link": column(link, np.int64),
                "key": None if changes is None else changes.key,
                "value": None if changes is None else changes.value,
            }
        )

    def latest(self) -> float:
        """The latest time added (not rounded; 0.0 when there is none)."""
        return max((float(c["t"].max()) for c in self._chunks), default=0.0)

    def columns(self) -> EventColumns:
        """Every event added, in order."""
        chunks = self._chunks
        if not chunks:
            return EventColumns.of([])
        kinds = list(dict.fromkeys(c["kind"] for c in chunks))
        joined = lambda name: np.concatenate([c[name] for c in chunks])  # noqa: E731
        distinct, index = np.unique(joined("t"), return_inverse=True)  # few: round each once, as Python does
        t = np.asarray([round(x, self.digits) for x in distinct.tolist()], dtype=float)[index.ravel()]
        phase, major, minor = (np.concatenate([c["place"][i] for c in chunks]) for i in range(3))
        order = np.lexsort((minor, major, phase, t))
        at = order.tolist()
        kind = np.concatenate([np.full(len(c["label"]), kinds.index(c["kind"]), dtype=np.int32) for c in chunks])
        labels = [label for c in chunks for label in c["label"]]
        keys = [k for c in chunks for k in (c["key"] or [None] * len(c["label"]))]
        values = [v for c in chunks for v in (c["value"] or [None] * len(c["label"]))]
        changed = np.fromiter((keys[i] is not None for i in at), dtype=bool, count=len(at))
        link = joined("link")[order]
        return EventColumns(
            t=t[order],
            kind=kind[order],
            kinds=kinds,
            src=joined("src")[order],
            dst=joined("dst")[order],
            link_start=np.r_[0, np.cumsum(link >= 0)].astype(np.int64),
            links=link[link >= 0],
            label=[labels[i] for i in at],
            change_start=np.r_[0, np.cumsum(changed)].astype(np.int64),
            change_key=[keys[i] for i in at if keys[i] is not None],
            change_value=[values[i] for i in at if keys[i] is not None],
        )
