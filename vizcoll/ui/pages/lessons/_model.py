"""Which lesson a request means, the links that open its steps, and your own lessons (kept by the browser).

A lesson is named in a link by ``?lesson=NAME`` (a shipped lesson, :func:`vizcoll.lessons.shipped`),
``?lesson=own:NAME`` (one of your own, which the browser keeps in local storage: the store ``lesson-own``) or
carried whole by ``#l=...`` (:meth:`vizcoll.lessons.Lesson.to_fragment`, a lesson shared as a link). The store
comes from the browser: every lesson in it is checked as a file is, and it is capped (:data:`MAX_OWN`,
:data:`MAX_OWN_CHARS`).

A step opens as its page's share link: ``/barrier#s=<scenario>&moment=bar-player:2`` (``assets/player.js``
opens the player on its second key moment; ``&step=bar-player:41`` on step 41).
"""

from __future__ import annotations

import json

from vizcoll.errors import VizcollError
from vizcoll.lessons import MAX_STEPS, PAGES, SCHEMA, Lesson, LessonStep, load_shipped, shipped
from vizcoll.scenario import Scenario

PLAYER_IDS = {
    ("/topology", "broadcast"): "topo-player",
    ("/trees", "aggregation"): "trees-player",
    ("/trees", "side-by-side"): "trees-cmp",
    ("/multicast", "protocol"): "mc-player",
    ("/multicast", "side-by-side"): "mc-cmp",
    ("/barrier", "barrier"): "bar-player",
    ("/barrier", "side-by-side"): "bar-cmp",
    ("/faults", "reduction"): "ft-red-player",
    ("/faults", "treft"): "ft-treft-player",
    ("/schedules", "replay"): "sched-player",
}
"""The id prefix of each page's player on the page (tests check each against the page's layout)."""
OWN = "own:"
MY_LESSON = "My lesson"
MAX_OWN = 20
MAX_OWN_CHARS = 4_000_000
"""Your own lessons, at most (the browser's local storage holds 5 MiB per site)."""
FRAGMENT_KEY = "l="


def player_id(step: LessonStep) -> str | None:
    """The id prefix of the step's player on its page (None: the step names none)."""
    return PLAYER_IDS.get((step.page, step.player["name"])) if step.player else None


def step_href(step: LessonStep) -> str:
    """The link that opens ``step``: its page, its scenario and its player's position."""
    href = f"{step.page}#s={step.scenario.to_fragment()}"
    prefix = player_id(step)
    if prefix is None:
        return href
    kind = "moment" if "moment" in step.player else "step"
    return f"{href}&{kind}={prefix}:{step.player[kind]}"


def own_lessons(data) -> dict[str, Lesson]:
    """Your own lessons from the browser's store ``{name: lesson dict}``; a damaged entry is left out."""
    if not isinstance(data, dict):
        return {}
    found = {}
    for name, lesson in list(data.items())[:MAX_OWN]:
        if isinstance(name, str) and 0 < len(name) <= 80:
            try:
                found[name] = Lesson.from_dict(lesson)
            except VizcollError:
                continue
    return found


def resolve(name, hash_, own_data) -> tuple[Lesson, str]:
    """(the lesson, its key: ``NAME``, ``own:NAME`` or ``link``) a presenter's link names (see the module)."""
    text = (hash_ if isinstance(hash_, str) else "").lstrip("#")
    if text.startswith(FRAGMENT_KEY):
        return Lesson.from_fragment(text[len(FRAGMENT_KEY) :]), "link"
    if isinstance(name, str) and name.startswith(OWN):
        own = own_lessons(own_data)
        if name[len(OWN) :] not in own:
            raise VizcollError(f"this browser keeps no lesson named {name[len(OWN) :][:40]!r}")
        return own[name[len(OWN) :]], name
    if name not in shipped():
        raise VizcollError(f"no lesson {str(name)[:40]!r}; the shipped lessons are {', '.join(shipped())}")
    return load_shipped(name), name


def stored(own: dict[str, Lesson]) -> dict:
    """Your lessons as the browser's store keeps them; :class:`VizcollError` when they would not fit in it."""
    data = {name: lesson.to_dict() for name, lesson in own.items()}
    if len(json.dumps(data)) > MAX_OWN_CHARS:
        raise VizcollError("your lessons would not fit in the browser's storage: download and delete some first")
    return data


def added_view(own_data, page: str, scenario: Scenario, player: dict | None) -> tuple[dict, str]:
    """Your own lessons with the view (``page``, ``scenario``, ``player``) added as the last step of
    :data:`MY_LESSON`, and a sentence saying so; :class:`VizcollError` when it cannot be."""
    if page not in PAGES:
        raise VizcollError(f"a lesson shows the app's pages ({', '.join(PAGES)}), not {str(page)[:40]}")
    own = own_lessons(own_data)
    lesson = own[MY_LESSON].to_dict() if MY_LESSON in own else {"schema": SCHEMA, "title": MY_LESSON, "steps": []}
    if len(lesson["steps"]) >= MAX_STEPS:
        raise VizcollError(f"{MY_LESSON!r} has {MAX_STEPS} steps, the most a lesson holds: start another")
    step = LessonStep(page, scenario, player, narration="", notes="").to_dict()
    mine = Lesson.from_dict({**lesson, "steps": [*lesson["steps"], step]})  # checked as a file is
    return stored({**own, MY_LESSON: mine}), f"Added as step {len(mine.steps)} of {MY_LESSON!r} (see Lessons)."


def linked_player(page: str, hash_) -> dict | None:
    """The player position a page's link carries (``&step=bar-player:41``) as a lesson's ``player``."""
    text = hash_ if isinstance(hash_, str) else ""
    for (path, name), prefix in PLAYER_IDS.items():
        marker = f"&step={prefix}:"
        if path == page and marker in text:
            digits = text.split(marker, 1)[1].split("&", 1)[0]
            if digits.isdigit() and len(digits) < 9:
                return {"name": name, "step": int(digits)}
    return None
