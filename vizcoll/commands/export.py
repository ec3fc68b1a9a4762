"""``python -m vizcoll animate ...`` and ``python -m vizcoll figures ...``: the pages' exports from a terminal.

Usage::

    python -m vizcoll animate --page barrier [--scenario FILE.json] [--format gif|mp4|frames] [-o out.gif]
                              [--player NAME] [--first N] [--last N] [--fps F] [--size 1280x720] [--goal FILE]
                              [--group N]
    python -m vizcoll figures --page multicast [--scenario FILE.json] [-o pack.zip] [--goal FILE]

Both compute exactly what the page shows for the scenario (the file "Download scenario" saves; without
``--scenario``, the app's default scenario) and render it as the page's export does, with the same code
(:mod:`vizcoll.ui.export`): ``animate`` frame ``k`` is the player at step ``k``; ``figures`` writes the
page's figure pack (SVG, PDF, CSV, scenario, README). ``--goal`` is the GOAL file the schedules page would
have opened (default: the page's example, a dissemination barrier); ``--group`` the multicast group to
highlight, as choosing it on the page does (default: the scenario's; the page animates none without one). Each
prints ``{"file", ...}`` as JSON.
The UI's modules (Plotly, kaleido) are imported only when one of these commands runs; without them (an install of
the engine alone), the command says which extras to install.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from vizcoll.commands import command
from vizcoll.errors import SpecError
from vizcoll.ui.export.names import pack_pages, player_pages, players

__all__: list[str] = []

FORMATS = ("gif", "mp4", "frames")
DRAWING = ("dash", "plotly", "kaleido", "imageio", "PIL")  # what the pages' figures and their rendering import
DRAWING_INSTALL = 'pip install "vizcoll[web,export]" (in the project folder: pip install ".[web,export]")'


def _drawing_installed(name: str) -> None:
    missing = [module for module in DRAWING if importlib.util.find_spec(module) is None]
    if missing:
        raise SpecError(f"{name} draws with the app's figure code, which needs {', '.join(missing)}: {DRAWING_INSTALL}")


def _common(parser: argparse.ArgumentParser, pages) -> None:
    parser.add_argument("--page", required=True, choices=pages, help="the page whose export this is")
    parser.add_argument("--scenario", metavar="FILE", help="a scenario file (default: the app's default scenario)")
    parser.add_argument("--goal", metavar="FILE", help="schedules page: the GOAL file it opened (default: its example)")
    parser.add_argument("-o", "--output", metavar="FILE", help="where to write (default: a name in the current folder)")


def _animate_args(parser: argparse.ArgumentParser) -> None:
    _common(parser, player_pages())
    parser.add_argument(
        "--player",
        help="the player of a page with several (faults: "
        + ", ".join(players("faults"))
        + "; default: the page's first)",
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="gif", help="gif (default), mp4 (H.264) or frames (a ZIP of PNG frames)"
    )
    parser.add_argument("--first", type=int, default=0, help="first step (0 = the initial state, default)")
    parser.add_argument("--last", type=int, help="last step (default: the timeline's last)")
    parser.add_argument("--fps", type=float, default=2.0, help="frames per second (default 2)")
    parser.add_argument("--size", default="1280x720", help="frame size WIDTHxHEIGHT (default 1280x720)")
    parser.add_argument(
        "--group",
        type=int,
        help="multicast page: the group whose join/leave to animate (default: the scenario's highlighted group)",
    )


def _figures_args(parser: argparse.ArgumentParser) -> None:
    _common(parser, pack_pages())


def _scenario_and_goal(args: argparse.Namespace):
    """The scenario (the file's, else the app's default) and, for the schedules page, its GOAL store."""
    from vizcoll.scenario import Scenario
    from vizcoll.ui.pages.schedules.export import example_goal
    from vizcoll.ui.store import DEFAULT_SCENARIO

    scenario = Scenario.loads(Path(args.scenario).read_bytes()) if args.scenario else DEFAULT_SCENARIO
    if args.page != "schedules":
        return scenario, None
    if args.goal:
        return scenario, {"name": Path(args.goal).name, "text": Path(args.goal).read_text(encoding="utf-8")}
    return scenario, example_goal(scenario)


def _highlighted(scenario, group: int):
    """The scenario with multicast group ``group`` highlighted (checked: the scenario has it)."""
    from vizcoll.ui.pages.multicast.export import highlighted

    return highlighted(scenario, group)


def _progress(what: str):
    """``progress(done, total)`` printing to a terminal's stderr (nothing when stderr is a file or a pipe)."""

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{what}: {done} of {total}" + ("\n" if done >= total else ""))

    return progress


@command("animate", "export a page's animation (GIF, MP4 or PNG frames) as its Export animation does", _animate_args)
def _animate(args: argparse.Namespace) -> dict:
    _drawing_installed("animate")
    from vizcoll.ui.export.animation import export_animation, read_options
    from vizcoll.ui.export.animations import animation_of

    scenario, goal = _scenario_and_goal(args)
    if args.group is not None and args.page == "multicast":
        scenario = _highlighted(scenario, args.group)
    animation = animation_of(args.page, scenario, args.player, goal)
    options = read_options(args.format, args.first, args.last, args.fps, args.size, animation.timeline.n_steps + 1)
    out = export_animation(animation, options, _progress("frames"))
    path = Path(args.output or out["filename"])
    path.write_bytes(out["content"])
    return {
        "file": str(path),
        "format": options.fmt,
        "frames": out["frames"],
        "first": options.first,
        "last": options.last,
        "steps": animation.timeline.n_steps,
        "bytes": len(out["content"]),
    }


@command("figures", "write a page's figure pack (SVG, PDF, CSV, scenario, README in one ZIP)", _figures_args)
def _figures(args: argparse.Namespace) -> dict:
    _drawing_installed("figures")
    from vizcoll.ui.export.catalog import pack_file

    scenario, goal = _scenario_and_goal(args)
    out = pack_file(args.page, scenario, goal, _progress("computing"), _progress("figures"))
    path = Path(args.output or out["filename"])
    path.write_bytes(out["content"])
    return {"file": str(path), "files": out["files"], "bytes": len(out["content"])}
