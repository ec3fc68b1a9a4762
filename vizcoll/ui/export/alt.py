"""Figures as text: every figure of a page told in a sentence and the data behind it as a table, for a screen reader
or anyone who cannot read a drawing (WCAG 2.1 1.1.1, issue 46).

The text comes from the page's figure pack (:mod:`vizcoll.ui.export.packs`), built by the page's own builders from
the same cached model calls: each figure's caption, and each table's caption, a summary of its numbers
(:func:`table_summary`: "48 rows: 1 broken; max efi_a 3 on edge0.0[3]-agg0.0[1], 24 of 48 above 1.5"), its first
:data:`ROWS` rows and, up to :data:`MAX_CSV` characters, the whole table as CSV (the pack holds every table,
whatever its size).
"""

from __future__ import annotations

import numpy as np

from vizcoll.ui.export.packs import Pack, PackTable, csv_text, value

__all__ = ["ROWS", "MAX_CSV", "table_summary", "describe"]

ROWS = 20  # rows of a table shown on the page
MAX_CSV = 200_000  # characters of a CSV the page carries (larger: in the figure pack)
COUNTERS = frozenset(
    {"index", "link_id", "x", "y", "step", "t", "i", "j", "row", "low", "high", "k", "n", "dc", "src", "dst", "block"}
)
"""Columns that number or place things (an index, a node, a coordinate, a time), not values worth a maximum."""
NAMES = ("link", "name", "tree", "code", "structure", "which", "variant", "program", "task", "figure")
"""Columns that name a row (what a maximum is "on"), the first found is used."""
PAIRS = 8  # a table of names and values (a run's figures) is told pair by pair, up to this many


def _number(cell) -> bool:
    return isinstance(cell, int | float) and not isinstance(cell, bool)


def _label_column(table: PackTable) -> int | None:
    """The column of :data:`NAMES` that names the rows (what a maximum is "on"), None when there is none."""
    columns = [name for name, _ in table.columns]
    return next((columns.index(name) for name in NAMES if name in columns), None)


def _shown(x: float) -> str:
    return f"{x:,.4g}" if isinstance(x, float) else f"{x:,}"


def table_summary(table: PackTable, most: int = 3) -> str:
    """A sentence of ``table``'s numbers: its row count, then for each of its first ``most`` value columns the
    largest value, the row's name where the table has one, and how many rows are above half of it."""
    n = len(table.rows)
    name_at = _label_column(table)
    if name_at == 0 and len(table.columns) == 2 and n:  # names and values: told pair by pair
        pairs = [f"{row[0]} {_shown(row[1]) if _number(row[1]) else row[1]}" for row in table.rows[:PAIRS]]
        return "; ".join(pairs) + ("; …" if n > PAIRS else "")
    parts = []
    for c, (column, _) in enumerate(table.columns):
        cells = [row[c] for row in table.rows]
        if column in COUNTERS or not cells or not all(_number(v) for v in cells):
            continue
        if set(cells) <= {0, 1}:  # a flag (broken): how many rows have it
            flagged = sum(cells)
            told = f"{flagged:,} {column}" if column == "broken" else f"{flagged:,} of {n:,} with {column} 1"
            parts += [told] if flagged else []
            continue
        values = np.asarray(cells)
        at = int(values.argmax())
        top = cells[at]
        where = f" on {table.rows[at][name_at]}" if name_at is not None and n > 1 else ""
        above = f", {int((values > top / 2).sum()):,} of {n:,} above {_shown(top / 2)}" if n > 2 and top > 0 else ""
        parts.append(f"max {column} {_shown(top)}{where}{above}")
        if len(parts) == most:
            break
    return f"{n:,} row{'s' * (n != 1)}" + (": " + "; ".join(parts) if parts else "")


def describe(pack: Pack) -> dict:
    """``{"title", "figures": [{"name", "text"}], "tables": [{"name", "caption", "summary", "columns", "rows",
    "total", "csv"}], "notes"}`` of ``pack`` (``rows``: the first :data:`ROWS`; ``csv``: None when longer than
    :data:`MAX_CSV`)."""
    tables = []
    for table in pack.tables:
        csv = csv_text(table)
        tables.append(
            {
                "name": table.name,
                "caption": table.caption,
                "summary": table_summary(table),
                "columns": [name for name, _ in table.columns],
                "rows": [[value(cell) for cell in row] for row in table.rows[:ROWS]],
                "total": len(table.rows),
                "csv": csv if len(csv) <= MAX_CSV else None,
            }
        )
    return {
        "title": pack.title,
        "figures": [{"name": fig.name, "text": fig.caption} for fig in pack.figures],
        "tables": tables,
        "notes": list(pack.notes),
    }
