"""The fabric on a cytoscape canvas: positions that edits keep, edge ids that never outlive their ends, captions
that never overlap."""

from __future__ import annotations

import numpy as np
import pytest

from tests.fabrics import REAL_FABRICS as FOLDER
from vizcoll.scenario import Scenario
from vizcoll.topology import io as topo_io
from vizcoll.topology.model import SWITCH
from vizcoll.ui.figures.captions import FONT, NODE_BOX, caption_width, fitted_captions
from vizcoll.ui.figures.topology import _pixel_positions, canvas_layout, cytoscape_elements, edge_id, links_selector
from vizcoll.ui.store import DEFAULT_SCENARIO, positions_of, topology_of


def caption_boxes(topo, pixels, texts) -> np.ndarray:
    """left, top, right, bottom of every caption written (as cytoscape places it: under its node, centred)."""
    rows = []
    for i, text in enumerate(texts):
        if text:
            top = pixels[i, 1] + NODE_BOX[int(topo.kind[i])][1] / 2 + 2
            half = caption_width(text) / 2
            rows.append([pixels[i, 0] - half, top, pixels[i, 0] + half, top + FONT * 1.3])
    return np.array(rows).reshape(-1, 4)


def overlaps(boxes: np.ndarray) -> int:
    """Pairs of boxes that overlap by more than half a pixel both ways."""
    dx = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    dy = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    return int(np.triu((dx > 0.5) & (dy > 0.5), 1).sum())


def scenarios():
    yield "default", DEFAULT_SCENARIO
    yield "torus", Scenario(spec="torus:4x4x2,hosts=1")
    yield "dragonfly", Scenario(spec="dragonfly:a=4,p=2,h=2")
    for name in ("loginoff-topo.ibnd", "psmn-X5.topofile", "zoo-Cogentco.graphml"):
        if (FOLDER / name).exists():
            yield name, Scenario.from_upload(topo_io.read(FOLDER / name), name)


@pytest.mark.parametrize("name,scenario", list(scenarios()), ids=[n for n, _ in scenarios()])
def test_no_two_captions_overlap_and_crowded_ones_are_cut_or_left_out(name, scenario):
    topo = topology_of(scenario)
    pixels = _pixel_positions(topo, positions_of(scenario))
    texts = fitted_captions(topo, pixels)
    boxes = caption_boxes(topo, pixels, texts)
    assert len(boxes) > 0 and overlaps(boxes) == 0
    assert all(
        t == "" or t.endswith("…") or t == full for t, full in zip(texts, topo.names, strict=True) if topo.desc is None
    )


def test_a_crowded_row_shortens_its_captions_and_the_full_name_stays_in_the_data():
    topo = topology_of(DEFAULT_SCENARIO)
    pixels = _pixel_positions(topo, positions_of(DEFAULT_SCENARIO))
    squeezed = pixels * np.array([0.8, 1.0])  # the same drawing narrower: its end nodes get crowded
    texts = fitted_captions(topo, squeezed, ["a-rather-long-host-name"] * topo.n_nodes)
    hosts = [texts[i] for i in topo.endpoints]
    assert all(t == "" or (t.endswith("…") and len(t) < 10) for t in hosts) and any(hosts)
    assert overlaps(caption_boxes(topo, squeezed, texts)) == 0
    elements = cytoscape_elements(topo, pos=positions_of(DEFAULT_SCENARIO))
    assert {e["data"]["label"] for e in elements if "source" not in e["data"]} == set(topo.names)


def test_edge_ids_name_their_ends_and_selectors_name_link_ids():
    topo = topology_of(DEFAULT_SCENARIO)
    ids = [edge_id(topo, row) for row in range(topo.n_links)]
    assert len(set(ids)) == topo.n_links
    row = topo.link_row(5)
    assert ids[row] == f"l5-{topo.link_a[row]}-{topo.link_b[row]}"
    # the bug this prevents: a smaller fabric reusing link id 0 between other nodes gets another edge id
    small = Scenario(spec="torus:2x2,hosts=1")
    other = topology_of(small)
    assert edge_id(other, other.link_row(0)) != ids[topo.link_row(0)]
    assert links_selector([5, 17]) == "edge[link = 5], edge[link = 17]"
    assert canvas_layout("abc") == {"name": "preset", "fit": True, "padding": 30, "fabric": "abc"}


def test_positions_of_a_scenario_are_cached_and_ignore_breaks():
    pos = positions_of(DEFAULT_SCENARIO)
    assert pos.shape == (topology_of(DEFAULT_SCENARIO).n_nodes, 2)
    assert np.array_equal(positions_of(DEFAULT_SCENARIO.toggled("h5[1]-edge1.0[2]")), pos)
    switch = int(np.flatnonzero(topology_of(DEFAULT_SCENARIO).kind == SWITCH)[0])
    edited = DEFAULT_SCENARIO.with_edit({"op": "add_node", "name": "probe", "kind": "switch"})
    assert np.array_equal(positions_of(edited)[switch], pos[switch])


def test_an_exported_frame_finds_the_links_a_player_step_highlights():
    """The static export resolves the pages' link selectors (``edge[link = 5]``) as cytoscape does."""
    from vizcoll.ui.figures.cytoscape import resolve_styles

    elements = cytoscape_elements(topology_of(DEFAULT_SCENARIO))
    styles = resolve_styles(elements, [{"selector": links_selector([5, 17]), "style": {"line-color": "#ff7f0e"}}])
    orange = {eid for eid, style in styles.items() if style.get("line-color") == "#ff7f0e"}
    assert {e["data"]["link"] for e in elements if e["data"]["id"] in orange} == {5, 17}


def test_parallel_cables_are_drawn_apart_on_the_canvas_and_in_its_static_export():
    """Two cables between the same two switches: each its own curve (its own bend, opposite sides) on the canvas,
    the same curves in the export, on the side the Plotly figures draw it (issue 23, item 3)."""
    from pathlib import Path

    from vizcoll.topology.layout import positions
    from vizcoll.ui.figures.cytoscape import drawing_figure, resolve_styles
    from vizcoll.ui.figures.efi import link_middles
    from vizcoll.ui.figures.topology import base_stylesheet, state_stylesheet

    topo = topo_io.parse((Path(__file__).parents[1] / "data" / "cluster" / "stanzas.txt").read_text(), "stanzas.txt")
    pos = positions(topo)
    elements = cytoscape_elements(topo, pos=pos)
    edge = {e["data"]["link"]: e for e in elements if "source" in e["data"]}
    hot, cold, alone = edge[0], edge[1], edge[6]  # links 0 and 1: spine-2 to rack-1 (8c10), ports 1-33 and 3-34
    assert hot["classes"] == cold["classes"] == "parallel" and "bend" not in alone["data"] and alone["classes"] == ""
    assert (hot["data"]["source"], hot["data"]["target"]) == (cold["data"]["source"], cold["data"]["target"])
    assert hot["data"]["bend"] == -cold["data"]["bend"] != 0  # opposite sides of the straight line
    assert "cable 1 of 2" in hot["data"]["hover"] and hot["data"]["name"] == topo.link_label(0)
    rule = next(r["style"] for r in base_stylesheet() if r["selector"] == ".parallel")
    assert rule["curve-style"] == "unbundled-bezier" and rule["control-point-distances"] == "data(bend)"
    styles = resolve_styles(elements, base_stylesheet())
    assert styles[hot["data"]["id"]]["curve-style"] == "unbundled-bezier"
    assert styles[alone["data"]["id"]]["curve-style"] == "bezier"

    # the export draws the canvas's curves: the highlighted cable (a player step) through its own middle
    fig = drawing_figure(elements, base_stylesheet() + state_stylesheet({}, [0], []), 800, 560)
    where = {e["data"]["id"]: np.array([e["position"]["x"], e["position"]["y"]]) for e in elements if "position" in e}

    def canvas_middle(e):  # cytoscape: the control point `bend` off the middle on (-dy, dx), the curve half-way
        s, t = where[e["data"]["source"]], where[e["data"]["target"]]
        d = t - s
        middle = (s + t) / 2 + np.array([-d[1], d[0]]) / np.hypot(*d) * e["data"]["bend"] / 2
        return middle * [1, -1]  # the figure's y is upwards

    def path_of(e):
        trace = next(t for t in fig.data if t.meta and e["data"]["id"] in t.meta)
        i = trace.meta.index(e["data"]["id"])
        xs = np.array([np.nan if v is None else v for v in trace.x], dtype=float)
        ys = np.array([np.nan if v is None else v for v in trace.y], dtype=float)
        pieces = np.split(np.c_[xs, ys], np.flatnonzero(np.isnan(xs)) + 1)
        return trace, pieces[i][~np.isnan(pieces[i][:, 0])]

    (orange, hot_path), (grey, cold_path) = path_of(hot), path_of(cold)
    assert orange.line.color == "#ff7f0e" and grey.line.color == "#b8c2cc"
    assert np.allclose(hot_path[len(hot_path) // 2], canvas_middle(hot))
    assert np.allclose(cold_path[len(cold_path) // 2], canvas_middle(cold))
    assert np.hypot(*(canvas_middle(hot) - canvas_middle(cold))) >= 10  # px apart on the canvas at zoom 1
    assert len(path_of(alone)[1]) == 2  # a cable alone: a straight line

    # the same side as on the Plotly figures: the sign of (middle - straight middle) across the pair's direction
    def side(lo, hi, middle) -> float:  # > 0: the middle lies left of the way from lo to hi (y upwards)
        d, m = hi - lo, middle - (lo + hi) / 2
        return float(np.sign(d[0] * m[1] - d[1] * m[0]))

    lo, hi = sorted((int(topo.link_a[0]), int(topo.link_b[0])))
    figure_side = side(pos[lo], pos[hi], link_middles(topo, pos, [0])[0])
    assert figure_side == side(where[f"n{lo}"] * [1, -1], where[f"n{hi}"] * [1, -1], canvas_middle(hot)) != 0
