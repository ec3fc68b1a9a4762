"""``python -m vizcoll lesson check FILE`` and ``lesson list``: lesson files (:mod:`vizcoll.lessons`).

``lesson check`` prints ``{"ok", "steps", "problems"}`` and exits 1 when the lesson is not ok: not JSON, an
unknown page, an invalid scenario, oversize text, or a player position past its timeline. The players' timelines
are computed with the pages' own code (:func:`vizcoll.ui.export.animations.animation_of`, as ``vizcoll animate``),
so that check needs the app's packages; without them every other check still runs and the result says
``"players": "not checked"``. ``lesson list`` prints ``{"lessons": [{"name", "title", "steps"}]}``, the shipped lessons.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from vizcoll.commands import command
from vizcoll.errors import VizcollError

__all__: list[str] = []


def _check_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a lesson file (JSON, schema vizcoll.lesson/1)")


def timeline_of(page: str, scenario, player: str) -> tuple[int, int]:
    """(steps, key moments) of ``player`` of ``page`` on ``scenario``, as the page computes them (the schedules
    page replays its example file, as it does when a lesson opens it)."""
    from vizcoll.ui.export.animations import animation_of
    from vizcoll.ui.pages.schedules.export import example_goal

    extra = example_goal(scenario) if page == "/schedules" else None
    timeline = animation_of(page.strip("/"), scenario, player, extra).timeline
    return timeline.n_steps, len(timeline.key_moments())


def check(text: str | bytes) -> dict:
    """The ``lesson check`` result of a lesson file's ``text``."""
    from vizcoll.lessons import problems, read_json

    try:
        data = read_json(text)
    except VizcollError as exc:
        return {"ok": False, "steps": 0, "problems": [str(exc)]}
    drawing = importlib.util.find_spec("plotly") is not None
    found = problems(data, timeline_of if drawing else None)
    steps = data.get("steps") if isinstance(data, dict) else None
    result = {"ok": not found, "steps": len(steps) if isinstance(steps, list) else 0, "problems": found}
    if not drawing:
        result["players"] = "not checked (install the app's packages: pip install 'vizcoll[web]')"
    return result


@command(
    "lesson check",
    "check a lesson file: its pages, scenarios, texts and player positions; exits 1 when it is not ok",
    _check_args,
    status=lambda result: 0 if result["ok"] else 1,
)
def _check(args: argparse.Namespace) -> dict:
    path = Path(args.file)
    if not path.is_file():
        return {"ok": False, "steps": 0, "problems": [f"no such file: {args.file}"]}
    return check(path.read_bytes())


@command("lesson list", "the lessons that ship with vizcoll: name, title and number of steps")
def _list(args: argparse.Namespace) -> dict:
    from vizcoll.lessons import load_shipped, shipped

    lessons = {name: load_shipped(name) for name in shipped()}
    return {"lessons": [{"name": name, "title": one.title, "steps": len(one.steps)} for name, one in lessons.items()]}
