"""A table of :mod:`vizcoll.ui.components.tables` read back as its cells' text, written apart from the module
(``tests/browser/test_components.py`` checks the browser shows the same)."""

from __future__ import annotations

import re

from dash import dcc


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip()[1:-1].split("|")]


def _shown(source: str) -> str:
    strong = source.startswith("**") and source.endswith("**") and len(source) > 4
    text = source[2:-2] if strong else source
    return re.sub(r"&#(\d+);", lambda m: chr(int(m[1])), text)


def is_table(component) -> bool:
    return isinstance(component, dcc.Markdown) and "table" in (component.className or "").split()


def head(table: dcc.Markdown) -> list[str]:
    return [_shown(c) for c in _cells(table.children.splitlines()[0])]


def rows(table: dcc.Markdown) -> list[list[str]]:
    """The body's rows, each cell's text as the page shows it."""
    assert is_table(table), table
    return [[_shown(c) for c in _cells(line)] for line in table.children.splitlines()[2:]]


def chosen(table: dcc.Markdown) -> list[int]:
    """The indexes of the rows drawn emphasised."""
    lines = table.children.splitlines()[2:]
    return [i for i, line in enumerate(lines) if all(c.startswith("**") for c in _cells(line) if c)]


def text(table: dcc.Markdown) -> str:
    """Every cell's text, the head's first, one row a line."""
    return "\n".join(" ".join(r) for r in [head(table), *rows(table)])


def shown(component) -> str:
    """The text of ``component`` and of everything in it, its tables' cells as the page shows them."""
    if is_table(component):
        return text(component)
    if isinstance(component, (list, tuple)):
        return " ".join(shown(c) for c in component)
    if component is None or isinstance(component, (str, int, float)):
        return "" if component is None else str(component)
    return shown(getattr(component, "children", None))
