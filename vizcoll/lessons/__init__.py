"""Lessons: an ordered list of views of the app, each with its narration and speaker notes.

A lesson file (schema ``vizcoll.lesson/1``, JSON) holds a ``"title"``, an optional ``"summary"`` and its
``"steps"``; each step holds

- ``"page"``: the app's path that shows it (``/barrier``; one of :data:`PAGES`);
- ``"scenario"``: the scenario, as a scenario file holds it (:meth:`vizcoll.scenario.Scenario.to_dict`: the fabric,
  its edits and breaks, the communicators, the pages' settings);
- ``"player"``: ``null``, or where the page's player stands: ``{"name": "barrier", "step": 41}`` or
  ``{"name": "barrier", "moment": 2}`` (the second key moment, counted from 1). ``name`` is the player's name as
  ``vizcoll animate --player`` knows it (the page's players: :func:`vizcoll.ui.export.names.players`);
- ``"narration"``: Markdown (formulas between ``$...$``), shown beside the view;
- ``"notes"``: the speaker's notes (Markdown), shown in the presenter's second window only.

Lessons come from browsers and from files, so everything read is checked and capped like a scenario
(:func:`problems` lists every problem of a lesson; :meth:`Lesson.from_dict` raises on the first); a lesson also
travels as a link (:meth:`Lesson.to_fragment`: zlib-compressed JSON in base64url). Whether a step's player
position lies within its timeline needs the page's own computation: :func:`problems` takes it as ``timeline``
(``vizcoll lesson check`` passes the pages' players, :mod:`vizcoll.commands.lesson`).

The shipped lessons are this package's JSON files (:func:`shipped`), chosen by name from that list: no text a
user types names a file.

Design choice (the issue is silent): a key moment is counted from 1, as a lecturer says "the second key moment";
step 0 is the initial state, as the players count.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario

__all__ = [
    "SCHEMA",
    "PAGES",
    "MAX_STEPS",
    "MAX_TEXT_CHARS",
    "Lesson",
    "LessonStep",
    "problems",
    "shipped",
    "load_shipped",
    "read_json",
]

SCHEMA = "vizcoll.lesson/1"
PAGES = ("/", "/topology", "/trees", "/multicast", "/barrier", "/faults", "/erasure", "/schedules")
"""The app's paths a lesson step may show (the lessons' own pages excluded)."""
MAX_STEPS = 100
MAX_TEXT_CHARS = 8_000
"""Longest narration or notes of one step (about two printed pages of Markdown)."""
MAX_TITLE_CHARS = 200
MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_FRAGMENT_CHARS = 2_000_000  # Chromium's URL limit
KEYS = {"page", "scenario", "player", "narration", "notes"}

TimelineOf = Callable[[str, Scenario, str], tuple[int, int]]
"""``timeline(page, scenario, player) -> (steps, key moments)`` of a page's player on a scenario."""


@dataclass(frozen=True)
class LessonStep:
    """One view of a lesson: ``page`` showing ``scenario``, its player at ``player`` (or None)."""

    page: str
    scenario: Scenario
    player: dict | None = None
    narration: str = ""
    notes: str = ""

    def to_dict(self) -> dict:
        return {
            "page": self.page,
            "scenario": self.scenario.to_dict(),
            "player": dict(self.player) if self.player else None,
            "narration": self.narration,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class Lesson:
    """A titled, ordered list of :class:`LessonStep`."""

    title: str
    steps: tuple[LessonStep, ...]
    summary: str = ""

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "title": self.title,
            "summary": self.summary,
            "steps": [step.to_dict() for step in self.steps],
        }

    def dumps(self) -> str:
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data) -> Lesson:
        """The lesson ``data`` holds, checked (:class:`VizcollError` naming the first problem)."""
        found = problems(data)
        if found:
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            raise VizcollError(f"not a valid lesson: {found[0]}{more}")
        return cls(
            title=data["title"].strip(),
            summary=data.get("summary") or "",
            steps=tuple(
                LessonStep(
                    page=step["page"],
                    scenario=Scenario.from_dict(step["scenario"]),
                    player=step.get("player") or None,
                    narration=step.get("narration") or "",
                    notes=step.get("notes") or "",
                )
                for step in data["steps"]
            ),
        )

    @classmethod
    def loads(cls, text: str | bytes) -> Lesson:
        return cls.from_dict(read_json(text))

    def to_fragment(self) -> str:
        """The lesson as a URL fragment: zlib-compressed JSON in base64url (no padding)."""
        packed = zlib.compress(json.dumps(self.to_dict(), separators=(",", ":")).encode(), 9)
        return base64.urlsafe_b64encode(packed).decode().rstrip("=")

    @classmethod
    def from_fragment(cls, text: str) -> Lesson:
        if not isinstance(text, str) or len(text) > MAX_FRAGMENT_CHARS:
            raise VizcollError("not a lesson link: too long or not text")
        try:
            packed = base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
            raw = zlib.decompressobj().decompress(packed, MAX_JSON_BYTES)
        except (binascii.Error, ValueError, zlib.error) as exc:
            raise VizcollError("not a lesson link: it does not decode") from exc
        return cls.loads(raw)


def read_json(text: str | bytes):
    """The JSON value of a lesson file's ``text`` (capped; :class:`VizcollError` when it is not JSON)."""
    if len(text) > MAX_JSON_BYTES:
        raise VizcollError(f"a lesson file is at most {MAX_JSON_BYTES // 2**20} MiB")
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise VizcollError(f"not a lesson file: not JSON ({str(exc)[:80]})") from exc


def problems(data, timeline: TimelineOf | None = None) -> list[str]:
    """Every problem of the lesson ``data`` (an empty list: it is valid), each saying where it is.

    With ``timeline``, each step's player position is also checked against its player's timeline on the step's
    scenario (a step past the end, a key moment the run does not have)."""
    if not isinstance(data, dict):
        return ["a lesson is a JSON object"]
    if data.get("schema") != SCHEMA:
        return [f"the field 'schema' must be {SCHEMA!r}"]
    found = []
    title = data.get("title")
    if not isinstance(title, str) or not title.strip() or len(title) > MAX_TITLE_CHARS:
        found.append(f"'title' must be a text of 1 to {MAX_TITLE_CHARS} characters")
    if not isinstance(data.get("summary", ""), str) or len(data.get("summary") or "") > MAX_TEXT_CHARS:
        found.append(f"'summary' must be a text of at most {MAX_TEXT_CHARS:,} characters")
    steps = data.get("steps")
    if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
        return [*found, f"'steps' must be a list of 1 to {MAX_STEPS} steps"]
    for number, step in enumerate(steps, 1):
        found += [f"step {number}: {problem}" for problem in _step_problems(step, timeline)]
    return found


def _step_problems(step, timeline: TimelineOf | None) -> list[str]:
    if not isinstance(step, dict):
        return ["a step is a JSON object"]
    found = [f"unknown field {str(key)[:40]!r}" for key in step if key not in KEYS]
    page = step.get("page")
    if page not in PAGES:
        found.append(f"unknown page {str(page)[:60]!r}; a step shows one of {', '.join(PAGES)}")
    for key in ("narration", "notes"):
        text = step.get(key, "")
        if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
            size = f" ({len(text):,})" if isinstance(text, str) else ""
            found.append(f"'{key}' must be a text of at most {MAX_TEXT_CHARS:,} characters{size}")
    try:
        scenario = Scenario.from_dict(step.get("scenario"))
    except VizcollError as exc:
        return [*found, f"invalid scenario: {exc}"]
    player = step.get("player")
    if player is not None and page in PAGES:
        found += _player_problems(page, scenario, player, timeline)
    return found


def _player_problems(page: str, scenario: Scenario, player, timeline: TimelineOf | None) -> list[str]:
    from vizcoll.ui.export.names import players  # the pages' declared players: plain data, no Dash

    names = players(page.strip("/"))
    if not isinstance(player, dict) or set(player) not in ({"name", "step"}, {"name", "moment"}):
        return ['\'player\' must be null, {"name", "step"} or {"name", "moment"}']
    if player["name"] not in names:
        has = f"its players are {', '.join(names)}" if names else "it has no player"
        return [f"page {page} has no player {str(player['name'])[:40]!r}: {has}"]
    position, at = (player["step"], "step") if "step" in player else (player["moment"], "moment")
    if not isinstance(position, int) or isinstance(position, bool) or position < (0 if at == "step" else 1):
        return [f"the player's {at} must be a whole number of at least {0 if at == 'step' else 1}"]
    if timeline is None:
        return []
    try:
        steps, moments = timeline(page, scenario, player["name"])
    except VizcollError as exc:
        return [f"the {player['name']} player has nothing to play: {exc}"]
    if at == "step" and position > steps:
        return [f"step {position} is past the {player['name']} player's end (its last step is {steps})"]
    if at == "moment" and position > moments:
        return [f"key moment {position} is past the {player['name']} player's {moments} key moments"]
    return []


def shipped() -> tuple[str, ...]:
    """The names of the lessons that ship with vizcoll (``barriers``, ...), sorted."""
    folder = resources.files(__name__)
    return tuple(sorted(item.name[:-5] for item in folder.iterdir() if item.name.endswith(".json")))


def load_shipped(name: str) -> Lesson:
    """The shipped lesson ``name`` (one of :func:`shipped`)."""
    if name not in shipped():
        raise VizcollError(f"no shipped lesson {str(name)[:40]!r}; there are {', '.join(shipped())}")
    return Lesson.loads(resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8"))
