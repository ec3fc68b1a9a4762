r"""The pages' tables, each drawn as one Markdown component.

Dash draws every component of a page in a React wrapper that, as it mounts, updates the renderer's store, and
every wrapper checks the store at every update: drawing N components costs of the order of N² checks. A table of
``html.Td`` cells is one component per cell: /trees' three tables were 88 of the 310 components of the page a
share link opens. As Markdown, each is one component (the renderer's store updated 316 → 224 times as /trees
opened), and its first frame came sooner in a new browser (medians of 10, alternated: docs/design.md).

The text of a cell is shown as it is: each ASCII punctuation character, the only ones Markdown reads as markup, is
written as its numeric character reference (``|`` as ``&#124;``), which Markdown shows as the character and never
reads as markup. Backslash escapes are not enough: ``dcc.Markdown`` (react-markdown 4, remark-parse 5 in its GitHub
mode) turns ``http://...`` into a link that swallows the backslash of a ``\)`` after it.
"""

from __future__ import annotations

import string
from collections.abc import Collection, Iterable, Sequence

from dash import dcc

__all__ = ["table", "cell_text"]

MARKUP = frozenset(string.punctuation)


def cell_text(value) -> str:
    """``value`` as the Markdown source of a table cell that shows ``str(value)`` on one line.

    >>> cell_text("a|b (1)")
    'a&#124;b &#40;1&#41;'
    """
    return "".join(f"&#{ord(c)};" if c in MARKUP else c for c in " ".join(str(value).split()))


def _row(cells: Iterable, strong: bool = False) -> str:
    texts = [cell_text(c) for c in cells]
    return "| " + " | ".join(f"**{t}**" if strong and t else t for t in texts) + " |"


def table(
    head: Sequence[str] | None,
    rows: Iterable[Sequence],
    *,
    chosen: Collection[int] = (),
    className: str = "summary",  # noqa: N803 (Dash's spelling)
    **kwargs,
) -> dcc.Markdown:
    """A table of ``rows`` under the column titles ``head`` (None: rows alone, the header row hidden); the rows
    whose index is in ``chosen`` emphasised (bold, highlighted by the stylesheet). ``kwargs`` go to the
    component (an ``id``)."""
    rows = list(rows)
    width = len(head) if head is not None else max((len(r) for r in rows), default=1)
    lines = [_row(head if head is not None else [""] * width), "|" + " --- |" * width]
    lines += [_row(r, i in chosen) for i, r in enumerate(rows)]
    classes = f"{className} headless" if head is None else className
    return dcc.Markdown("\n".join(lines), className=f"table {classes}", **kwargs)
