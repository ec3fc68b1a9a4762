"""The layout rules of every figure (vizcoll.ui.figures.style): titles below the mode bar and wrapped, legends
below the plot in the figure's own coordinates, readable log axes, colour-blind-safe palettes."""

from __future__ import annotations

import plotly.graph_objects as go

from vizcoll.ui.figures import style
from vizcoll.ui.figures.style import FULL, HALF, MODEBAR, legend_rows, styled, title_chars, wrap


def test_wrap_breaks_at_spaces_and_keeps_line_breaks():
    assert wrap("a b c", 3) == "a b <br>c"
    assert wrap("one<br>two three", 5) == "one <br>two <br>three"
    assert wrap("links: 16×16", 8).replace("<br>", "") == "links: 16×16"  # the page's text keeps its spaces
    assert wrap("unbreakable-word", 4) == "unbreakable-word"
    text = "Choosing the width: F(k) for P = 16, a = δ·l = 1.12 μs, b = 0.01 μs"
    assert all(len(line) <= title_chars(HALF) for line in wrap(text, title_chars(HALF)).split(" <br>"))
    assert title_chars(FULL) > 2 * title_chars(HALF) - 10


def test_a_styled_title_sits_below_the_mode_bar_and_wraps_to_the_figure():
    long = "Run time vs broken links: 16×16 grid (3 seeds, 8 neighbors) and a few more words to wrap"
    fig = styled(go.Figure().update_layout(title={"text": long}))
    lines = fig.layout.title.text.split(" <br>")
    assert len(lines) > 1 and " ".join(lines) == long
    assert fig.layout.title.pad.t > MODEBAR and fig.layout.title.yref == "container"
    assert fig.layout.margin.t >= MODEBAR + 20 * len(lines)
    one = styled(go.Figure().update_layout(title={"text": "short"}), FULL)
    assert one.layout.title.text == "short" and one.layout.margin.t < fig.layout.margin.t
    assert one.layout.title.pad.t == MODEBAR


def test_a_legend_below_grows_the_figure_by_its_rows_once():
    fig = go.Figure([go.Scatter(x=[1], y=[1], name=f"algorithm number {i}") for i in range(9)])
    fig.update_layout(height=400, xaxis_title="share of links broken (%)")
    styled(fig, HALF)
    rows = legend_rows([t.name for t in fig.data], HALF)
    assert rows >= 3 and fig.layout.height == 400 + rows * style.LEGEND_ROW
    assert (fig.layout.legend.yref, fig.layout.legend.y, fig.layout.legend.orientation) == ("container", 0, "h")
    assert styled(fig, HALF).layout.height == 400 + rows * style.LEGEND_ROW  # styling again changes nothing
    right = styled(go.Figure(go.Scatter(x=[1], y=[1], name="a")).update_layout(height=300), legend="right")
    assert right.layout.height == 300 and right.layout.legend.yref is None


def test_log_axes_label_powers_of_ten_and_palettes_are_colour_blind_safe():
    fig = styled(go.Figure(go.Bar(x=[1, 2], y=[1, 5000])).update_layout(yaxis_type="log"))
    assert fig.layout.yaxis.dtick == 1 and fig.layout.xaxis.dtick is None
    assert (style.SEQUENTIAL, style.DIVERGING) == ("YlOrRd", "RdBu_r")  # ColorBrewer's colour-blind-safe scales
    assert fig.layout.colorway == tuple(style.CATEGORICAL) and len(set(style.CATEGORICAL)) == 8  # Okabe–Ito


def test_a_legend_packs_its_entries_as_plotly_does():
    assert legend_rows([], HALF) == 0 and legend_rows(["a", "b", "c"], HALF) == 1  # side by side
    overview = ["link bundles (1,038): colour = max packets, size = mean", "switch blocks (214)", "end node blocks"]
    assert legend_rows(overview, HALF) == 3  # each as wide as the widest: one a row (Chromium drew 3 rows)
    assert legend_rows([f"entry {i}" for i in range(30)], FULL) > 1


def test_the_margins_hold_what_plotly_would_push_them_out_to():
    """The pushes Chromium made on the 1,570-node cluster's overview on /trees (issue 23): row names 125 px on
    the left, the colour bar "max packets" 116 px on the right, the x axis (51 px) and a legend of 3 rows (67 px)
    below. Seeded at least that wide, Plotly draws the figure once; not much wider, the plot keeps its room."""
    names = ["end nodes", "edge switches (tier 1)", "tier 2", "tier 3"]
    fig = go.Figure(
        [
            go.Scatter(
                x=[0, 1],
                y=[0, 1],
                name="link bundles (1,038): colour = max packets, size = mean",
                marker={"color": [0, 60], "showscale": True, "colorbar": {"title": {"text": "max packets"}}},
            ),
            go.Scatter(x=[0], y=[1], name="switch blocks (214)"),
            go.Scatter(x=[1], y=[0], name="end node blocks (334)"),
        ]
    ).update_layout(
        margin={"l": 10, "r": 10, "b": 10}, xaxis_title="edge", yaxis={"tickvals": [0, 1, 2, 3], "ticktext": names}
    )
    margin = styled(fig, HALF).layout.margin
    assert 125 <= margin.l <= 150 and 116 <= margin.r <= 135 and 118 <= margin.b <= 135
    again = styled(fig, HALF).layout.margin
    assert (again.l, again.r, again.b) == (margin.l, margin.r, margin.b)  # styling again changes nothing
    plain = styled(go.Figure(go.Scatter(x=[1], y=[1])).update_layout(margin={"l": 60, "r": 10, "b": 10}), HALF)
    assert (plain.layout.margin.l, plain.layout.margin.b) == (60, 30 + 4)  # an untitled x axis, no legend
