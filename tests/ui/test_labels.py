"""Names on the Plotly drawings of a fabric never lie on a link, nor on each other (issue 46), checked on the
figure as drawn (:mod:`tests.ui.label_check`)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from tests.fabrics import CIRCE, REAL_FABRICS, campus_cluster
from tests.ui.label_check import crossing, misplaced
from vizcoll.commands import load_topology
from vizcoll.topology.formats import slurm
from vizcoll.topology.generators import from_spec
from vizcoll.topology.io import parse
from vizcoll.topology.layout import positions
from vizcoll.topology.model import ENDPOINT, SWITCH
from vizcoll.ui.figures.captions import LINE, NODE_BOX, caption_width, captions, node_hovers
from vizcoll.ui.figures.efi import link_lines, link_value_figure
from vizcoll.ui.figures.labels import add_labels
from vizcoll.ui.figures.style import FULL, HALF
from vizcoll.ui.figures.topology import cytoscape_elements
from vizcoll.ui.store import DEFAULT_SCENARIO, positions_of, topology_of


def drawing(topo) -> go.Figure:
    return link_value_figure(topo, np.arange(topo.n_links) % 3, "loads", pos=positions(topo))


def test_the_checker_finds_a_name_written_across_the_links_below_a_switch():
    topo = topology_of(DEFAULT_SCENARIO)
    fig = drawing(topo)
    switch = int(topo.switches[len(topo.switches) // 2])
    fig.add_trace(
        go.Scatter(
            x=[positions(topo)[switch, 0]],
            y=[positions(topo)[switch, 1]],
            mode="text",
            text=["a-switch"],
            textposition="bottom center",
            name="names",
        )
    )
    assert misplaced(fig, HALF) == ["a-switch"]


@pytest.mark.parametrize("width", [HALF, FULL])
def test_on_the_teaching_fabric_hosts_are_named_under_and_switches_where_no_link_runs(width):
    topo = topology_of(DEFAULT_SCENARIO)
    fig = go.Figure()
    for trace in drawing(topo).data:
        if trace.name != "names":
            fig.add_trace(trace)
    add_labels(
        fig,
        topo,
        positions_of(DEFAULT_SCENARIO),
        link_lines(topo, positions_of(DEFAULT_SCENARIO), np.arange(topo.n_links)),
        width=width,
    )
    assert misplaced(fig, width) == []
    written = {t.textposition: set(t.text) for t in fig.data if t.name == "names"}
    hosts = {topo.names[i] for i in np.flatnonzero(topo.kind == ENDPOINT)}
    assert hosts <= written["bottom center"]  # end nodes: under them, where no link runs
    tops = {
        topo.names[i]
        for i in topo.switches
        if positions_of(DEFAULT_SCENARIO)[i, 1] == positions_of(DEFAULT_SCENARIO)[topo.switches, 1].max()
    }
    assert tops <= written["top center"]  # the top switches: above them
    assert not any(a.textangle for a in fig.layout.annotations)  # nothing written upwards along the links


@pytest.mark.parametrize("name", ["loginoff-topo.ibnd", "fattreebuilder-k4n3.topo", "ibtopotool-2.topo", "ibsim-net"])
def test_no_name_lies_on_a_link_of_a_real_fabric(name):
    path = REAL_FABRICS / name
    if not path.exists():
        pytest.skip(f"{name} is not in {REAL_FABRICS}")
    fig = drawing(load_topology(str(path)))
    assert misplaced(fig, HALF) == []
    if name == "loginoff-topo.ibnd":  # its one top switch is named above it, clear of its 41 links down
        assert [(t.textposition, list(t.text)) for t in fig.data if t.name == "names"] == [
            ("top center", ["ib8:SX6036/U1"])  # "MF0;", which every switch's name starts with, left out
        ]


def test_no_name_lies_on_a_link_of_a_1570_node_cluster():
    assert misplaced(drawing(parse(campus_cluster(), "campus.ibnd")), HALF) == []


@pytest.mark.parametrize("name", ["teaching", "loginoff-topo.ibnd"])
def test_no_caption_lies_on_a_link_of_a_canvas_drawing(name):
    """The cytoscape canvas (/topology, /trees, /schedules): each caption on the side its class says."""
    if name == "teaching":
        topo = topology_of(DEFAULT_SCENARIO)
    elif (REAL_FABRICS / name).exists():
        topo = load_topology(str(REAL_FABRICS / name))
    else:
        pytest.skip(f"{name} is not in {REAL_FABRICS}")
    elements = cytoscape_elements(topo)
    at = {e["data"]["id"]: (e["position"]["x"], e["position"]["y"]) for e in elements if "position" in e}
    pieces = np.array([[*at[e["data"]["source"]], *at[e["data"]["target"]]] for e in elements if "source" in e["data"]])
    written = [e for e in elements if e["data"].get("caption")]
    assert written
    for node in written:
        (x, y), w = at[node["data"]["id"]], caption_width(node["data"]["caption"])
        hx, hy = (s / 2 + 2 for s in NODE_BOX[SWITCH if "switch" in node["classes"] else ENDPOINT])
        left, top = {
            "": (x - w / 2, y + hy),
            "caption-above": (x - w / 2, y - hy - LINE),
            "caption-right": (x + hx, y - LINE / 2),
            "caption-left": (x - hx - w, y - LINE / 2),
        }[next((c for c in node["classes"].split() if c.startswith("caption-")), "")]
        assert not crossing(np.array([left, top, left + w, top + LINE]), pieces).any(), node["data"]["caption"]


def test_captions_leave_out_the_prefix_every_host_shares_and_the_hover_keeps_the_name():
    topo = slurm.read(CIRCE, "topology.conf")
    texts = captions(topo)
    assert texts[topo.index("circe-n051")] == "n051" and texts[topo.index("s3")] == "s3"  # not "circ…"
    assert node_hovers(topo, [topo.index("circe-n051")]) == ["circe-n051"]
    fat = from_spec("fat-tree:radix=4,levels=3")
    assert captions(fat) == list(fat.names)  # h0, edge0.0: nothing shared up to a separator
