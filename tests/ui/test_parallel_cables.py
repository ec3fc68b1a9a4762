"""Parallel cables on the Plotly drawings of a fabric (EFI heatmaps, a tree's packets): each cable its own curve,
its own colour and width, its own hover point naming it with its own value (issue 23, item 3)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.fabrics import campus_cluster
from vizcoll.scenario import Scenario
from vizcoll.topology import io as topo_io
from vizcoll.topology.model import Topology
from vizcoll.ui.figures.efi import GAP_PX, LinkHover, link_lines, link_middles, link_value_figure, parallel_cables
from vizcoll.ui.figures.fabric import view_figure
from vizcoll.ui.figures.labels import PLOT_HEIGHT
from vizcoll.ui.figures.style import HALF, ColourScale
from vizcoll.ui.models.parts import view_of
from vizcoll.ui.pages.trees._figures import packets_figure

IDLE = "#d9d9d9"


def twin_cables() -> Topology:
    """Two switches joined by two cables (links 0 and 1, ports 1-1 and 2-2), a host under each switch."""
    return Topology.from_arrays(
        ["s1", "s2", "h1", "h2"], [0, 0, 1, 1], [3, 3, 1, 1], [[0, 1, 1, 1], [0, 2, 1, 2], [0, 3, 2, 1], [1, 3, 3, 1]]
    )


def hover_of(fig):
    return next(t for t in fig.data if t.name == "links")


def traces_through(fig, point) -> list:
    """The line traces of ``fig`` with a vertex at ``point``."""
    out = []
    for t in fig.data:
        if t.mode == "lines" and t.x is not None:
            xy = np.c_[np.asarray(t.x, dtype=float), np.asarray(t.y, dtype=float)]
            if np.any(np.all(np.isclose(xy, point), axis=1)):
                out.append(t)
    return out


@pytest.mark.parametrize("label", ["EFI", "packets"])
def test_a_loaded_and_an_idle_parallel_cable_each_have_their_own_curve_colour_and_hover(label):
    topo = twin_cables()
    hot, cold = topo.link_label(0), topo.link_label(1)
    if label == "EFI":
        fig = link_value_figure(topo, np.array([5.0, 0, 5, 5]), "twins", LinkHover(clickable=True))
    else:
        fig = packets_figure(topo, {0: 5, 2: 5, 3: 5}, "twins")
    hover = hover_of(fig)
    where = dict(zip(hover.customdata, np.c_[np.asarray(hover.x), np.asarray(hover.y)], strict=True))
    text = dict(zip(hover.customdata, hover.text, strict=True))
    assert len(hover.customdata) == topo.n_links  # one hover point per cable
    assert not np.allclose(where[hot], where[cold])  # two points: the pointer reaches each cable
    assert f"link 0:<br>s1[1] –<br>s2[1]<br>{label} 5<br>cable 1 of 2" in text[hot]  # one end per line
    assert f"link 1:<br>s1[2] –<br>s2[2]<br>{label} 0<br>cable 2 of 2" in text[cold]
    (hot_line,), (cold_line,) = traces_through(fig, where[hot]), traces_through(fig, where[cold])
    assert cold_line.line.color == IDLE and hot_line.line.color != IDLE  # each drawn in its own colour ...
    assert hot_line.line.width > cold_line.line.width  # ... and width, where its hover point is


def test_the_middles_of_parallel_cables_stand_apart_and_a_cable_alone_stays_straight():
    topo = twin_cables()
    pos = np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, 0.0]])
    middles = link_middles(topo, pos)
    assert np.allclose(middles[0] + middles[1], [1.0, 2.0])  # symmetric about the straight line
    px = min(HALF - 80, PLOT_HEIGHT)  # pixels per unit of this 1 x 1 drawing on a figure at its first size
    assert abs(middles[0, 1] - middles[1, 1]) * px == pytest.approx(GAP_PX) and np.allclose(middles[:2, 0], 0.5)
    assert np.allclose(middles[2:], [[0.0, 0.5], [1.0, 0.5]])  # the hosts' cables are alone: straight
    xs, ys = link_lines(topo, pos, [2])
    assert np.allclose(xs[:2], [0, 0]) and np.allclose(ys[:2], [1, 0]) and len(xs) == 3  # a, b, gap
    xs, ys = link_lines(topo, pos, [0])  # a curve from s1 to s2 through its middle, then a gap
    assert np.allclose([xs[0], ys[0], xs[-2], ys[-2]], [0, 1, 1, 1]) and np.isnan(xs[-1])
    assert np.allclose([xs[(len(xs) - 2) // 2], ys[(len(xs) - 2) // 2]], middles[0])


def test_three_cables_fan_out_around_a_straight_one_and_lanes_ignore_which_end_is_a():
    topo = Topology.from_arrays(["s1", "s2"], [0, 0], [3, 3], [[0, 1, 1, 1], [1, 2, 0, 2], [0, 3, 1, 3]])
    lanes, counts = parallel_cables(topo)
    assert lanes.tolist() == [-1.0, 0.0, 1.0] and counts.tolist() == [3, 3, 3]
    middles = link_middles(topo, np.array([[0.0, 0.0], [4.0, 0.0]]))
    assert np.allclose(middles[1], [2.0, 0.0]) and middles[0, 1] == pytest.approx(-middles[2, 1])
    assert middles[0, 1] != 0


def test_a_group_of_a_real_shaped_cluster_gives_every_cable_its_own_hover_point():
    """The campus cluster's edge switches have two parallel cables to each of 7 tier-2 switches: drawn alone, no
    two of its cables share a hover point (the bug: the hover named the idle twin over a loaded cable)."""
    scenario = Scenario.from_upload(topo_io.parse(campus_cluster(), "campus.txt"), "campus.txt")
    view = view_of(scenario, "group:0")
    lanes, counts = parallel_cables(view.topo)
    assert (counts == 2).sum() == 14
    values = np.zeros(int(view.rows.max()) + 1)
    values[view.rows[lanes < 0]] = 5  # one cable of each pair loaded, its twin idle
    fig = view_figure(view, values, "a group alone", hover=LinkHover(clickable=True))
    hover = hover_of(fig)
    points = np.c_[np.asarray(hover.x), np.asarray(hover.y)]
    assert len(np.unique(points.round(9), axis=0)) == len(points) == view.topo.n_links
    text = dict(zip(hover.customdata, hover.text, strict=True))
    for row in np.flatnonzero(counts == 2):
        assert f"EFI {5 if lanes[row] < 0 else 0}<br>cable" in text[view.topo.link_label(int(row))]


def test_a_real_clusters_hover_boxes_are_narrow_enough_to_stay_inside_the_figure():
    """Each line of a link's or a node's hover box at most 40 characters on a cluster with long switch names
    (``MF0;spine-2:MQM8700/U1``, ``Voltaire 4036 # rack-1 (8c10)``): one end per line, the node's description and
    GUID on lines of their own. A half-width figure (about 450 px) then has room for it beside any point."""
    topo = topo_io.parse(campus_cluster(), "campus.txt")
    fig = link_value_figure(topo, np.arange(topo.n_links, dtype=float), "campus", scale=ColourScale("EFI"))
    lines = [line for t in fig.data if t.hoverinfo == "text" for text in t.text for line in str(text).split("<br>")]
    assert max(map(len, lines)) <= 40, max(lines, key=len)
    assert any(line.startswith("link ") for line in lines)
