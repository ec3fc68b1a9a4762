"""Paper-scale views: a large fabric's overview of blocks and bundles, one pod drawn alone with its names, the
same choice of part on /topology, /multicast and /trees."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from tests.callback_context import in_callback
from tests.fabrics import campus_cluster
from tests.ui.label_check import misplaced
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.topology.blocks import LISTED, blocks, bundles
from vizcoll.topology.generators import from_spec
from vizcoll.topology.io import parse
from vizcoll.topology.model import ENDPOINT
from vizcoll.ui.figures.blocks import blocks_figure
from vizcoll.ui.figures.efi import LinkHover, link_lines
from vizcoll.ui.figures.fabric import view_figure
from vizcoll.ui.figures.labels import add_labels
from vizcoll.ui.figures.style import FULL, HALF, ColourScale
from vizcoll.ui.models import parts
from vizcoll.ui.pages.trees import page as trees_page
from vizcoll.ui.store import DEFAULT_SCENARIO, positions_of, topology_of

TAIHULIGHT = Scenario(spec="pruned-fat-tree:preset=taihulight")


def test_a_large_fabric_opens_on_its_overview_and_offers_each_pod():
    topo = topology_of(TAIHULIGHT)
    assert (
        parts.natural_part(topo) == parts.OVERVIEW and parts.natural_part(topology_of(DEFAULT_SCENARIO)) == parts.WHOLE
    )
    options = parts.part_options(TAIHULIGHT, topo)
    assert options[0]["value"] == parts.OVERVIEW and len(options) == 1 + 160
    assert options[8] == {"label": "pod 7 (288 nodes) alone", "value": "group:7"}
    assert parts.read_part("group:7", TAIHULIGHT, topo) == "group:7"
    for bad, words in (("whole", "drawn up to 1,500 nodes"), ("group:160", "no group '160'"), (["x"], "unknown")):
        with pytest.raises(VizcollError, match=words):
            parts.read_part(bad, TAIHULIGHT, topo)


def test_a_pod_alone_holds_its_nodes_its_uplinks_and_the_top_switches_it_reaches():
    view = parts.view_of(TAIHULIGHT, "group:7")
    topo = topology_of(TAIHULIGHT)
    assert view.name == "pod 7" and view.overview is None
    assert view.topo.summary()["endpoints"] == 256 and view.topo.summary()["switches"] == 32 + 64
    assert np.array_equal(view.topo.link_id, topo.link_id[view.rows])
    assert [view.topo.names[i] for i in range(5)] == [topo.names[k] for k in view.kept[:5]]
    overview = parts.view_of(TAIHULIGHT, parts.OVERVIEW)
    assert len(overview.overview) == 481 and overview.topo.n_nodes == topo.n_nodes


def test_the_overview_marks_each_bundle_by_its_hottest_link_and_sizes_it_by_the_mean():
    topo = from_spec("fat-tree:radix=4,levels=3")
    part = blocks(topo)
    values = np.zeros(topo.n_links)
    values[topo.link_row(17)] = 6  # one hot link between pod 0's edge and aggregation switches
    fig = blocks_figure(part, bundles(topo, part, values), "A: fulb", ColourScale("EFI"))
    marks = next(t for t in fig.data if (t.name or "").startswith("link bundles"))
    hot = int(np.argmax(marks.marker.color))
    assert max(marks.marker.color) == 6 and "max EFI 6, mean 1.50" in marks.text[hot]  # 4 links, one of them 6
    assert marks.customdata[hot] == "group:0" and marks.marker.colorbar.title.text == "EFI"
    blocks_trace = next(t for t in fig.data if (t.name or "").startswith("switch blocks"))
    assert "click: draw it alone" in blocks_trace.text[0]
    assert [a.text for a in fig.layout.annotations] == ["end nodes", "leaf switches", "spine switches", "top switches"]
    plain = blocks_figure(part, bundles(topo, part), "a fabric")
    assert not any(getattr(t.marker, "showscale", False) for t in plain.data if t.marker)  # no values, no scale


def test_a_pod_alone_is_drawn_with_no_name_on_its_links_and_every_link_clickable():
    view = parts.view_of(TAIHULIGHT, "group:7")
    values = np.zeros(topology_of(TAIHULIGHT).n_links)
    values[view.rows[:5]] = 3
    fig = view_figure(view, values, "A: pod 7 alone", hover=LinkHover(clickable=True), highlight=view.rows[:2])
    hover = next(t for t in fig.data if t.name == "links")
    assert len(hover.customdata) == view.topo.n_links  # one hover point per link of the pod (click: break it)
    assert misplaced(fig, HALF) == [] and not fig.layout.annotations  # no name upwards along the links
    spines = next(t for t in fig.data if t.name == "switches")  # their names: on hover, each on its own line
    assert {f"spine7.{i}" for i in range(16)} <= {text.split("<br>")[0] for text in spines.text}
    assert any(t.name == "selected tree" for t in fig.data)


def test_names_that_fit_are_written_and_none_overlap_on_a_small_fabric():
    topo = topology_of(DEFAULT_SCENARIO).copy()
    pos = positions_of(DEFAULT_SCENARIO)
    lines = link_lines(topo, pos, np.arange(topo.n_links))
    fig = go.Figure()
    add_labels(fig, topo, pos, lines, width=FULL)  # 16 end nodes across a whole page
    written = {text for t in fig.data if t.name == "names" for text in t.text}
    assert {topo.names[i] for i in np.flatnonzero(topo.kind == ENDPOINT)} <= written and not fig.layout.annotations
    long = go.Figure()  # names too long for half a page: cut, or left to the hover text
    topo.names[:] = [f"n{i:02d}-a-long-name-for-this-node" for i in range(topo.n_nodes)]  # no prefix shared
    add_labels(long, topo, pos, lines, width=HALF)
    cut = [text for t in long.data if t.name == "names" for text in t.text]
    assert cut and all(text.endswith("…") and text.startswith("n") for text in cut)


def test_choosing_a_pod_on_the_trees_page_redraws_the_mapped_trees_from_the_computed_ones():
    scenario = Scenario(spec="fat-tree:radix=8,levels=3", pattern="grid2d:8x16")
    played = in_callback(trees_page.play_part, "trees-part.value", scenario=scenario, value="group:2")
    store = played["store"]
    assert played["message"] == "" and Scenario.from_dict(store).params["trees"]["part"] == "group:2"
    assert "(pod 2 alone)" in played["mapped"].layout.title.text.replace("<br>", "")
    assert "(pod 2 alone)" in played["physical"].layout.title.text.replace("<br>", "")
    choices = trees_page.part_choices(Scenario.from_dict(store).to_dict())
    assert (
        choices["part"] == "group:2" and {"label": "pod 2 (24 nodes) alone", "value": "group:2"} in choices["options"]
    )
    forged = in_callback(trees_page.play_part, "trees-part.value", scenario=scenario, value="group:99")
    assert forged.keys() == {"message"} and forged["message"].startswith("⚠") and "no group '99'" in forged["message"]


CAMPUS = parse(campus_cluster(), "campus.txt")


def test_a_cluster_files_overview_names_its_tiers_and_lists_each_parallel_cable_with_its_own_value():
    part = blocks(CAMPUS)
    leaf, up = CAMPUS.index("MF0;ib-l1-003:MQM8700/U1"), CAMPUS.index("MF0;ib-l2-21:MQM8700/U1")
    parallel = [r for r in range(CAMPUS.n_links) if {int(CAMPUS.link_a[r]), int(CAMPUS.link_b[r])} == {leaf, up}]
    values = np.zeros(CAMPUS.n_links)
    values[parallel[0]] = 8  # one of two parallel cables is hot; the one listed after it carries 0
    bundle = bundles(CAMPUS, part, values)
    fig = blocks_figure(part, bundle, "A: fulb", ColourScale("EFI"))
    assert [a.text for a in fig.layout.annotations] == ["end nodes", "edge switches (tier 1)", "tier 2", "tier 3"]
    assert fig.layout.xaxis.title.text == "edge"
    marks = next(t for t in fig.data if (t.name or "").startswith("link bundles"))

    def shown(row: int) -> str:  # a cable as its hover writes it: its two ends on two lines
        return CAMPUS.link_label(row).replace("]-", "] –<br>  ", 1)

    hot = [text for text in marks.text if shown(parallel[0]) in text]
    assert len(hot) == 1 and len(parallel) == 2
    assert max(len(line) for text in marks.text for line in text.split("<br>")) <= 45  # a narrow hover box
    lines = hot[0].replace("<br>  ", " ").split("<br>")
    assert lines[0] == "edge 3: ib-l1-003, edge switch –" and lines[1].startswith("tier 2")
    assert lines[2].startswith("max EFI 8,")
    assert lines[4] == f"{shown(parallel[0])}: EFI 8".replace("<br>  ", " ")  # the hot cable first, with its own value
    assert f"{shown(parallel[1])}: EFI 0".replace("<br>  ", " ") in lines  # its parallel twin, with its own
    between = np.flatnonzero(bundle["a"] != bundle["b"])
    big = int(between[np.argmax(bundle["links"][between])])
    text = marks.text[int(np.flatnonzero(between == big)[0])]
    assert bundle["links"][big] > LISTED and text.endswith(f"and {bundle['links'][big] - LISTED:,} more")
    assert text.count("]: EFI ") == LISTED


def test_a_cluster_files_edge_switch_is_drawn_alone_with_its_hosts_and_uplinks():
    scenario = Scenario.from_upload(CAMPUS, "campus.txt")
    topo = topology_of(scenario)
    options = parts.part_options(scenario, topo)
    assert options[0]["value"] == parts.OVERVIEW and len(options) == 1 + 150
    assert {"label": "edge 7: ib-l1-007 (10 nodes) alone", "value": "group:7"} in options
    view = parts.view_of(scenario, "group:7")
    leaf = topo.index("MF0;ib-l1-007:MQM8700/U1")
    linked = {int(b) for a, b in zip(topo.link_a, topo.link_b, strict=True) for a, b in ((a, b), (b, a)) if a == leaf}
    assert set(view.kept.tolist()) == linked | {leaf}  # the edge switch, its 9 hosts and 7 tier-2 switches
    assert view.topo.summary()["endpoints"] == 9 and view.topo.summary()["switches"] == 1 + 7
    assert view.topo.n_links == 9 + 7 * 2  # two parallel cables to each tier-2 switch
    assert view.name == "edge 7: ib-l1-007"
