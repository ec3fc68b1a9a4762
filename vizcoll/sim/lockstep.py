"""Two runs of one scenario on one time axis: a side-by-side player's steps, and where the runs part.

A side-by-side view (a DLCT barrier against a tree barrier on the same broken links, a 4-ary tree against a
4-nomial one) plays two timelines with one player. Its steps are the union of both runs' event times: at each
step every run shows its own state at that time, the last of its steps at or before it (:func:`lockstep`). So a
run that is quicker reaches its end while the other still moves, and both drawings always show the same moment.

The side-by-side run is itself a :class:`~vizcoll.sim.timeline.Timeline`, of one event per run and time (a
``"note"``, or the run's key moment at that time) labelled "NAME: what the run did", so the ordinary player, its
key moments and the animation export play it unchanged; ``positions`` tells each drawing which of its own
positions to show.

**Where they part** (:func:`parting`): the first time at which the runs' key moments differ (one releases a
barrier, delivers its result, loses a message, while the other does not at that time), said as "step 41 (t =
12 µs): DLCT first: barrier release; Tree is still at: (its caption)". Key moments, not single messages: two
algorithms send different messages from their first step, what a class compares is when each reaches its
milestones. Runs whose key moments all coincide part where one of them ends first, if it does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vizcoll.errors import VizcollError
from vizcoll.sim.events import Event
from vizcoll.sim.timeline import KEY_MOMENTS, Timeline

__all__ = ["Lockstep", "lockstep", "parting"]


@dataclass(frozen=True)
class Lockstep:
    """Two runs on one time axis: ``timeline`` (the side-by-side player's steps, captions and key moments),
    ``positions[r][p]`` the own position of run ``r`` at the player's position ``p`` (0: its initial state), and
    ``parting`` (``{"position", "text"}``, or None when the runs never part)."""

    names: tuple[str, str]
    timeline: Timeline
    positions: tuple[list[int], list[int]]
    parting: dict | None

    def to_dict(self) -> dict:
        """The plain result (the CLI's JSON): the names, the side-by-side steps, each run's steps, the key moments
        (``[position, kinds, label]``) and the parting."""
        moments = [[m["step"] + 1, m["kinds"], m["label"]] for m in self.timeline.key_moments()]
        return {
            "names": list(self.names),
            "steps": self.timeline.n_steps,
            "run_steps": [p[-1] for p in self.positions],
            "moments": moments,
            "parting": self.parting,
        }


def _text(caption: str) -> str:
    """A caption without its leading clock ("t = 12 µs: ...")."""
    return caption.split(": ", 1)[1] if caption.startswith("t = ") and ": " in caption else caption


def _own_events(tl: Timeline, name: str, times: np.ndarray) -> list[Event]:
    """One event per step of ``tl``: its first key moment's kind (or a note), labelled "name: caption"."""
    kinds = {m["step"]: m["kinds"][0] for m in tl.key_moments()}
    captions = tl.captions()
    return [
        Event(times[step], kinds.get(step, "note"), label=f"{name}: {_text(captions[step + 1])}")
        for step in range(tl.n_steps)
    ]


def lockstep(a: Timeline, b: Timeline, names: tuple[str, str]) -> Lockstep:
    """Runs ``a`` and ``b`` (named ``names``) on one time axis; VizcollError when their clocks differ (a time
    unit each) or they are the same name."""
    if a.time_unit != b.time_unit:
        raise VizcollError(f"the two runs count time in different units ({a.time_unit!r}, {b.time_unit!r})")
    if names[0] == names[1]:
        raise VizcollError(f"choose another run to compare with {names[0]}: both sides would be the same")
    times = (a.step_times(), b.step_times())
    events = sorted(
        _own_events(a, names[0], times[0]) + _own_events(b, names[1], times[1]), key=lambda e: e.t
    )  # stable: at equal times run a's event comes first
    merged = Timeline(
        title=f"{names[0]} and {names[1]}, side by side",
        events=events,
        intro=f"{names[0]} (left) and {names[1]} (right) on the same scenario, one clock",
        time_unit=a.time_unit,
    )
    axis = merged.step_times()
    positions = tuple([0, *np.searchsorted(t, axis, side="right").tolist()] for t in times)
    return Lockstep(names, merged, positions, parting(a, b, names, merged, positions))


def _moments_at(tl: Timeline) -> dict[float, set[str]]:
    """Key-moment kinds by time."""
    out: dict[float, set[str]] = {}
    for m in tl.key_moments():
        out.setdefault(tl.time_at(m["step"]), set()).update(m["kinds"])
    return out


def parting(a: Timeline, b: Timeline, names, merged: Timeline, positions) -> dict | None:
    """Where the runs part (see the module): ``{"position", "text"}`` at the first side-by-side step where one run
    has a key moment the other has not, else where the first run to end ends; None when neither happens."""
    runs, seen = (a, b), (_moments_at(a), _moments_at(b))
    for step, t in enumerate(merged.step_times().tolist()):
        ahead = [sorted(seen[r].get(t, set()) - seen[1 - r].get(t, set())) for r in (0, 1)]
        if ahead[0] or ahead[1]:
            r = 0 if ahead[0] else 1
            what = KEY_MOMENTS[ahead[r][0]]
            return _parted(step, merged, runs, names, positions, r, what)
    ends = [tl.time_at(tl.n_steps - 1) if tl.n_steps else 0.0 for tl in runs]
    if ends[0] == ends[1]:
        return None
    r = 0 if ends[0] < ends[1] else 1
    step = int(np.searchsorted(merged.step_times(), ends[r], side="left"))
    return _parted(step, merged, runs, names, positions, r, "the run ends")


def _parted(step: int, merged: Timeline, runs, names, positions, r: int, what: str) -> dict:
    """The parting line at side-by-side ``step``: run ``r`` did ``what``, the other is where its position says."""
    other = 1 - r
    own = runs[other].captions()[positions[other][step + 1]]
    text = f"step {step + 1} ({merged.clock(step)}): {names[r]} first: {what}; {names[other]} is still at: {_text(own)}"
    return {"position": step + 1, "text": text}
