"""The figure pack of a page: one ZIP with every figure as SVG and PDF, the data behind each as CSV, the scenario
that reproduces the page and a README.txt saying what each file is.

A page's contents (:data:`vizcoll.ui.export.names.REGISTRY`) are a :class:`Pack`: its figures, made by the
page's own figure builders from the same cached model calls, and its tables, made from the engine's results
(not read back from the figures). :func:`figure_pack` draws each figure in the paper theme
(:func:`vizcoll.ui.figures.paper.paper_figure`, no title drawn: its caption is in the README, and each SVG
carries it as its ``<title>``, naming the fabric, the algorithm and the part drawn) at its print width
(one column, 3.5 in, or the page's width, 7 in) and renders it with kaleido; CSV numbers are written as Python
prints them (the shortest text that reads back as the same number), so a pack made twice has the same SVG and
CSV bytes (ZIP entries carry a fixed date).

The ZIP::

    README.txt                    what each file is (the figures' captions, the tables' columns)
    scenario.json                 the scenario ("Download scenario"'s file): open it to reproduce the page
    figures/<name>.svg, .pdf      every figure
    data/<name>.csv               the data behind the figures
"""

from __future__ import annotations

import csv
import html
import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field

import plotly.graph_objects as go

from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.model import Topology
from vizcoll.ui.export.animation import zip_entry
from vizcoll.ui.export.render import render
from vizcoll.ui.figures.cytoscape import drawing_figure, fitted_height
from vizcoll.ui.figures.paper import PAGE_WIDTH, paper_figure

__all__ = [
    "PackFigure",
    "PackTable",
    "Pack",
    "figure_pack",
    "titled",
    "csv_text",
    "readme_text",
    "pack_files",
    "drawn",
    "timeline_table",
    "link_table",
    "value",
    "scalars",
]


@dataclass(frozen=True)
class PackFigure:
    """One figure of a pack: its file stem, caption (for the README) and print size in px."""

    name: str
    caption: str
    figure: go.Figure
    width: int = PAGE_WIDTH
    height: int | None = None  # None: the figure's own height


@dataclass(frozen=True)
class PackTable:
    """One CSV of a pack: its file stem, what it holds, its columns (name, meaning) and rows."""

    name: str
    caption: str
    columns: list[tuple[str, str]]
    rows: list[list]


@dataclass
class Pack:
    """What a page's figure pack holds."""

    page: str
    title: str
    figures: list[PackFigure] = field(default_factory=list)
    tables: list[PackTable] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # why a figure is missing (e.g. nothing to draw)


# ---------------------------------------------------------------- what many pages' packs hold
def value(x):
    """A cell: numpy numbers as Python's, None as empty, lists joined by spaces."""
    if x is None:
        return ""
    if isinstance(x, list | tuple):
        return " ".join(str(value(v)) for v in x)
    return x.item() if hasattr(x, "item") else x


def drawn(name: str, caption: str, elements: list[dict], stylesheet: list[dict], width: int = PAGE_WIDTH) -> PackFigure:
    """A page's cytoscape drawing as a pack figure, as tall as the drawing needs at ``width``."""
    height = fitted_height(elements, width)
    return PackFigure(name, caption, drawing_figure(elements, stylesheet, width, height), width, height)


def timeline_table(name: str, caption: str, tl: Timeline, names: list[str] | None = None) -> PackTable:
    """Every event of a player's timeline, step by step (``names``: the fabric's node names, for src / dst)."""

    def node(index: int) -> str:
        return names[index] if names is not None and 0 <= index < len(names) else ""

    rows = [
        [step + 1, e.t, e.kind, e.src, node(e.src), e.dst, node(e.dst), value(list(e.path_links)), e.label]
        for step in range(tl.n_steps)
        for e in tl.active_at(step)
    ]
    columns = [
        ("step", "the player's step (1 = the first after the initial state)"),
        ("t", "simulated time"),
        ("kind", "what happens"),
        ("src", "sending node or entity (-1: none)"),
        ("src_name", "its name"),
        ("dst", "receiving node or entity (-1: none)"),
        ("dst_name", "its name"),
        ("links", "ids of the links the message crosses in this step"),
        ("label", "the player's caption"),
    ]
    return PackTable(name, caption, columns, rows)


def link_table(name: str, caption: str, topo: Topology, values: dict[str, tuple[str, dict]]) -> PackTable:
    """One row per link of ``topo``: its id, ends and ports, whether it is broken, then one column per entry of
    ``values`` (column name -> (meaning, {link id: value}); 0 for a link missing from the dict)."""
    columns = [
        ("link_id", "the link's id"),
        ("link", "the link as a[port]-b[port]"),
        ("broken", "1 if the scenario breaks it"),
    ]
    columns += [(column, meaning) for column, (meaning, _) in values.items()]
    rows = []
    for row in range(topo.n_links):
        lid = int(topo.link_id[row])
        rows.append(
            [
                lid,
                topo.link_label(row),
                int(topo.broken[row]),
                *[value(per_link.get(lid, 0)) for _, per_link in values.values()],
            ]
        )
    return PackTable(name, caption, columns, rows)


def scalars(name: str, caption: str, results: dict[str, dict]) -> PackTable:
    """The plain numbers (and flags, texts) of one or more results side by side, one row per figure."""
    keys = list(
        dict.fromkeys(
            k for r in results.values() for k, v in r.items() if v is None or isinstance(v, bool | int | float | str)
        )
    )
    columns = [("figure", "what is measured")] + [(column, f"its value for {column}") for column in results]
    return PackTable(name, caption, columns, [[k, *[r.get(k) for r in results.values()]] for k in keys])


def csv_text(table: PackTable) -> str:
    """The table as CSV: a header row of the column names, then the rows (numbers as Python prints them)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([name for name, _ in table.columns])
    writer.writerows([[value(cell) for cell in row] for row in table.rows])
    return out.getvalue()


def readme_text(pack: Pack, scenario: Scenario) -> str:
    """README.txt: the page, the scenario, then every file and what it is."""
    lines = [
        f"vizcoll figure pack of the {pack.title} page ({pack.page})",
        "",
        f'Scenario: {scenario.title}. Open scenario.json with "Open scenario..." (any page) to see the page '
        "again; the figures and tables below were computed from it.",
        "Figures are drawn at print size (1 px = 0.75 pt: a 336 px figure is one 3.5 in column wide, a 672 px "
        "one 7 in), every text at least 10 pt, in the paper theme (white, sans-serif, Okabe-Ito colours).",
        "",
        "Files:",
        "",
        "README.txt",
        "    this file",
        "scenario.json",
        "    the scenario (vizcoll.scenario/2): fabric, edits, broken links, communicators, every page's settings",
    ]
    for fig in pack.figures:
        lines += [f"figures/{fig.name}.svg", f"figures/{fig.name}.pdf", f"    {fig.caption}"]
    for table in pack.tables:
        lines += [f"data/{table.name}.csv", f"    {table.caption} Columns:"]
        lines += [f"      {name}: {meaning}" for name, meaning in table.columns]
    if pack.notes:
        lines += ["", "Not in this pack:", *[f"    {note}" for note in pack.notes]]
    return "\n".join(lines) + "\n"


def pack_files(pack: Pack) -> list[str]:
    """Every file of the pack's ZIP, in the order written."""
    files = ["README.txt", "scenario.json"]
    for fig in pack.figures:
        files += [f"figures/{fig.name}.svg", f"figures/{fig.name}.pdf"]
    return files + [f"data/{table.name}.csv" for table in pack.tables]


def titled(svg: bytes, title: str) -> bytes:
    """``svg`` with ``title`` as the ``<title>`` of its root (what a viewer or a screen reader names it by).

    >>> titled(b'<svg width="2"><g/></svg>', "EFI <A>")
    b'<svg width="2"><title>EFI &lt;A&gt;</title><g/></svg>'
    """
    end = svg.index(b">") + 1
    return svg[:end] + b"<title>" + html.escape(title, quote=False).encode() + b"</title>" + svg[end:]


def figure_pack(pack: Pack, scenario: Scenario, progress: Callable[[int, int], None] | None = None) -> bytes:
    """The ZIP of ``pack`` (computed from ``scenario``); ``progress(done, total)`` after every figure."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(zip_entry("README.txt"), readme_text(pack, scenario))
        archive.writestr(zip_entry("scenario.json"), scenario.dumps())
        for done, fig in enumerate(pack.figures, start=1):
            drawn = paper_figure(fig.figure, fig.width, fig.height, title=False)
            for fmt in ("svg", "pdf"):
                data = render(drawn, fmt, drawn.layout.width, drawn.layout.height)
                if fmt == "svg":
                    data = titled(
                        data,
                        fig.caption if scenario.title in fig.caption else f"{fig.caption} Fabric: {scenario.title}.",
                    )
                archive.writestr(zip_entry(f"figures/{fig.name}.{fmt}"), data)
            if progress is not None:
                progress(done, len(pack.figures))
        for table in pack.tables:
            archive.writestr(zip_entry(f"data/{table.name}.csv"), csv_text(table))
    return out.getvalue()
