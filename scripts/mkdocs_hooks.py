"""mkdocs hooks (``hooks:`` in mkdocs.yml): the command-line reference is the parser's own ``--help``.

A page line ``<!-- cli-help -->`` becomes one section per command, each with what ``vizcoll COMMAND --help`` prints
at build time, so the reference never drifts from the code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

MARKER = "<!-- cli-help -->"
ROOT = Path(__file__).resolve().parents[1]


def _helps() -> list[tuple[str, str]]:
    if str(ROOT) not in sys.path:  # the project's own vizcoll, installed or not
        sys.path.insert(0, str(ROOT))
    from vizcoll.cli import build_parser

    parser = build_parser()
    found = [("vizcoll", parser.format_help())]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append((f"vizcoll {name}", sub.format_help()))
                for inner in sub._actions:
                    if isinstance(inner, argparse._SubParsersAction):
                        found += [(f"vizcoll {name} {n}", p.format_help()) for n, p in inner.choices.items()]
    return found


def cli_reference() -> str:
    """Markdown: a heading and a code block of ``--help`` for ``vizcoll`` and each command and sub-command."""
    return "\n".join(f"## `{name}`\n\n```text\n{text.rstrip()}\n```\n" for name, text in _helps())


def on_page_markdown(markdown: str, **_) -> str:
    return markdown.replace(MARKER, cli_reference()) if MARKER in markdown else markdown
