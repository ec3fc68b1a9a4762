"""The layout rules every figure follows, in one place: :func:`styled` is the last call of every figure builder.

Measured in a real browser at 1280×720 (``tests/browser/test_readability.py`` reads the bounding boxes of every
figure text), a figure keeps its texts readable when

- **the mode bar has its own row**: Plotly draws it in the top right corner, :data:`MODEBAR` pixels high; the
  title starts below it (``pad.t``) and the top margin holds both, so the mode bar never covers a title;
- **titles wrap** (:func:`wrap`) at the width the figure has on the page (:data:`HALF`: one of a pair of
  figures, :data:`FULL`: the width of the main column) instead of running past the figure's edge;
- **legends sit below the plot in the figure's own coordinates** (``yref="container"``), so Plotly pushes the
  plot area up to make room and a legend never sits on an axis title; the figure grows by the legend's rows
  (:func:`legend_rows`) so its plot keeps its height. Figures without a colour bar may keep the legend on the
  right (``legend="right"``), where Plotly also makes room for it;
- **log axes** label only the powers of ten (``dtick = 1``), so their ticks never crowd.

The palettes are colour-blind safe: :data:`SEQUENTIAL` (ColorBrewer YlOrRd: light = little, dark red = much)
for loads such as the EFI or packets, :data:`DIVERGING` (ColorBrewer RdBu, reversed: blue = less, white = no
change, red = more) for differences, and :data:`CATEGORICAL` (Okabe and Ito's eight colours) for the default
colours of traces.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from vizcoll.ui.figures.margins import seeded, text_px

__all__ = [
    "MODEBAR",
    "HALF",
    "FULL",
    "SEQUENTIAL",
    "DIVERGING",
    "CATEGORICAL",
    "ColourScale",
    "wrap",
    "ink",
    "title_chars",
    "legend_rows",
    "styled",
    "warm_up",
]

MODEBAR = 32  # pixels of the mode bar's row at the top of a figure
TITLE_SIZE = 15  # title font size (px)
TITLE_LINE = 20  # pixels per line of a title
LEGEND_ROW = 21  # pixels per row of a horizontal legend
MULTILINE_SHIFT = 11  # Plotly starts a title of several lines this many pixels higher than one of one line
PLOTLY_MARGIN = 80  # Plotly's left, right and bottom margins when a figure sets none
CHAR_WIDTH = 0.6  # width of an average character of the sans fonts browsers use, in font sizes
HALF, FULL = 430, 880  # a figure's width at 1280 px: one of a pair, or the whole main column
SEQUENTIAL = "YlOrRd"
DIVERGING = "RdBu_r"
CATEGORICAL = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]


@dataclass(frozen=True)
class ColourScale:
    """What the colours of a figure of values per link say: the value's name, whether it is a difference, the top.

    Parameters
    ----------
    label : str or None
        The value's name (``"EFI"``, ``"packets"``) in the legend and the hover boxes; None: no value (a plain
        fabric's blocks and bundles).
    diverging : bool
        Centre the colours on 0 (:data:`DIVERGING`: a difference between two algorithms), else
        :data:`SEQUENTIAL` from 0.
    top : float, optional
        The largest value of the scale (default: the largest value drawn), shared by panels compared side by side.
    """

    label: str | None = "EFI"
    diverging: bool = False
    top: float | None = None


DARK_INK, LIGHT_INK = "#000000", "#ffffff"
"""Text written on a coloured mark: whichever contrasts more with it, at least 4.58:1 for any colour (WCAG 2.1 AA)."""


def _luminance(colour: str) -> float | None:
    """WCAG 2.1's relative luminance of ``"#rgb"``, ``"#rrggbb"`` or ``"rgb(r, g, b)"``; None for anything else."""
    text = str(colour).strip().lower()
    if text.startswith("#") and len(text) in (4, 7):
        digits = text[1:] if len(text) == 7 else "".join(c * 2 for c in text[1:])
        channels = [int(digits[i : i + 2], 16) for i in (0, 2, 4)]
    elif text.startswith("rgb(") and text.endswith(")"):
        channels = [float(v) for v in text[4:-1].split(",")[:3]]
    else:
        return None
    linear = [(v / 255) / 12.92 if v / 255 <= 0.03928 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def ink(colour: str) -> str:
    """The text colour for a label written on a mark of ``colour``: dark or white, whichever has the larger WCAG
    contrast ratio with it (a vertex's number, a grid node's ID); dark for a colour it cannot read.

    >>> ink("#0072B2"), ink("#F0E442"), ink("#d62728")
    ('#ffffff', '#000000', '#ffffff')
    """
    lum = _luminance(colour)
    if lum is None:
        return DARK_INK
    dark = _luminance(DARK_INK)
    return LIGHT_INK if (1.05 / (lum + 0.05)) >= (lum + 0.05) / (dark + 0.05) else DARK_INK


def title_chars(width: int, size: int = TITLE_SIZE) -> int:
    """How many characters of a ``size`` px font fit on one line of a figure ``width`` pixels wide."""
    return max(int((width - 30) / (size * CHAR_WIDTH)), 20)


def wrap(text: str, chars: int) -> str:
    """``text`` broken into lines of at most ``chars`` characters at spaces (``<br>`` between lines; existing
    ``<br>`` kept). A single word longer than a line stays whole. Every break has a space before its ``<br>``, so
    that the words stay apart where the figure's text is read out of the page (Plotly draws each line in a tspan of
    its own, and the page's text joins them as they are: "see the message" + "above").

    >>> wrap("Run time vs broken links: 16×16 grid (3 seeds, 8 neighbors)", 30)
    'Run time vs broken links: <br>16×16 grid (3 seeds, 8 <br>neighbors)'
    """
    lines = []
    for paragraph in str(text).split("<br>"):
        line = ""
        for word in paragraph.strip().split(" "):
            if line and len(line) + 1 + len(word) > chars:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return " <br>".join(lines)


def _legend_entries(fig: go.Figure) -> list[str]:
    """The names of ``fig``'s legend, empty when Plotly draws none (one entry and ``showlegend`` unset)."""
    names = [str(t.name or "") for t in fig.data if t.showlegend is not False and t.name]
    return names if len(names) > 1 or fig.layout.showlegend else []


def legend_rows(names: list[str], width: int, size: int = 12) -> int:
    """Rows a horizontal legend of entries ``names`` takes in a figure ``width`` pixels wide: one when they fit
    side by side, else as many a row as the widest fits (Plotly then gives every entry the widest one's width;
    an entry is its symbol, 45 px, and its text)."""
    if not names:
        return 0
    widths = [45 + text_px(name, size) for name in names]
    room = width - 10
    if sum(widths) <= room:
        return 1
    return -(-len(names) // max(int(room // max(widths)), 1))


def _or(value, default):
    return default if value is None else value


def styled(fig: go.Figure, width: int = HALF, legend: str = "below", top: int = 8) -> go.Figure:
    """Apply the layout rules (see the module) to ``fig``, a figure ``width`` pixels wide on the page.

    ``legend``: ``"below"`` (the default), ``"right"`` (Plotly's own place, for figures without a colour bar)
    or ``"hidden"``. ``top``: pixels kept free between the title and the plot (more for subplot titles).
    Styling a figure again (a builder adding to another's figure) gives the same result as styling it once.
    """
    layout = fig.layout
    meta = layout.meta if isinstance(layout.meta, dict) else {}
    height = (layout.height or 450) - meta.get("legend_px", 0)
    text = layout.title.text if layout.title and layout.title.text else ""
    titled = wrap(text, title_chars(width)) if text else ""
    lines = titled.count("<br>") + 1 if titled else 0
    fig.update_layout(
        title={
            "text": titled,
            "x": 0.01,
            "xanchor": "left",
            "yref": "container",
            "y": 1,
            "yanchor": "top",
            "pad": {"t": MODEBAR + (MULTILINE_SHIFT if lines > 1 else 0)},
            "automargin": True,
            "font": {"size": TITLE_SIZE},
        },
        margin={"t": MODEBAR + lines * TITLE_LINE + top},
        colorway=CATEGORICAL,
    )
    rows = 0
    if legend == "hidden":
        fig.update_layout(showlegend=False)
    elif legend == "below":
        rows = legend_rows(_legend_entries(fig), width) + bool(layout.legend.title.text)
        extra = rows * LEGEND_ROW
        fig.update_layout(
            legend={
                "orientation": "h",
                "xref": "container",
                "yref": "container",
                "x": 0.01,
                "xanchor": "left",
                "y": 0,
                "yanchor": "bottom",
            },
            height=height + extra,
            meta={**meta, "legend_px": extra},
        )
    base = meta.get("margin") or {side: _or(layout.margin[side], PLOTLY_MARGIN) for side in "lrb"}
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    fig.update_layout(margin=seeded(fig, base, width, rows), meta={**meta, "margin": base})
    for name in [key for key in layout.to_plotly_json() if key.startswith(("xaxis", "yaxis"))]:
        if layout[name].type == "log" and layout[name].dtick is None:
            layout[name].update(dtick=1)
    return fig


def warm_up() -> None:
    """Build one figure with every kind of trace the pages draw: Plotly loads the checks of each kind the first
    time (measured: docs/design.md), so a web worker does it at start-up instead of in its first visitor's request."""
    traces = [
        go.Scatter(x=[0], y=[0], mode="lines+markers+text", text=["a"], marker={"color": [0], "colorbar": {}}),
        go.Bar(x=[0], y=[0]),
        go.Histogram(x=[0]),
        go.Heatmap(z=[[0]]),
    ]
    fig = go.Figure(traces, layout={"annotations": [{"text": "a"}], "shapes": [{"type": "line"}]})
    styled(fig).to_dict()
