"""A rail fabric drawn part by part: its rails, a rail's pods, a pod, a leaf, one server's NICs (issue 28)."""

from __future__ import annotations

import numpy as np
import pytest

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui.figures.topology import fabric_drawing
from vizcoll.ui.models.parts import OVERVIEW, part_options, read_part, view_of
from vizcoll.ui.pages.topology._model import clicked_part
from vizcoll.ui.store import topology_of

SCENARIO = Scenario(spec="rail-fat-tree:servers=2048,rails=8,radix=32")  # 20,480 nodes; a rail: 2,560


@pytest.fixture(scope="module")
def topo():
    return topology_of(SCENARIO)


def test_a_rail_too_large_to_draw_is_drawn_as_its_pods_with_the_rest_of_the_fabric_as_one_block(topo):
    view = view_of(SCENARIO, read_part("group:3", SCENARIO, topo))
    assert view.topo.n_nodes == topo.n_nodes and view.name == "rail 3" and view.overview.path == "group:3/"
    names = view.overview.names
    assert {f"pod {p}, end nodes" for p in range(8)} <= set(names) and names[-1] == "the rest of the fabric"
    _, figure = fabric_drawing(view, topo)
    assert figure.layout.title.text.startswith("rail 3 alone, grouped")
    blocks = next(t for t in figure.data if str(t.name).startswith("end node blocks"))
    assert "group:3/group:5" in blocks.customdata  # a click on pod 5 drills into it
    click = {"points": [{"customdata": "group:3/group:5"}]}
    assert read_part(clicked_part(click), SCENARIO, topo) == "group:3/group:5"


def test_a_pod_small_enough_is_drawn_node_by_node_and_a_server_is_its_nics_on_every_rail(topo):
    pod = view_of(SCENARIO, "group:3/group:5")
    assert pod.overview is None and pod.name == "rail 3, pod 5"
    names = pod.topo.names
    assert sum("-nic" in n for n in names) == 256 and all(n.endswith("-nic3") for n in names if "-nic" in n)
    assert {topo.names[i] for i in pod.kept} == set(names)  # the fabric's nodes, by name
    server = view_of(SCENARIO, read_part("server:1234", SCENARIO, topo))
    assert sorted(n for n in server.topo.names if "-nic" in n) == [f"s1234-nic{r}" for r in range(8)]
    assert sum("leaf" in n for n in server.topo.names) == 8 and server.topo.n_links == 8


def test_the_menu_offers_the_parts_above_and_in_the_drawn_one(topo):
    labels = {o["value"]: o["label"] for o in part_options(SCENARIO, topo, "group:3/group:5/group:80")}
    assert labels[OVERVIEW].startswith("overview") and "group:7" in labels  # the rails
    assert labels["group:3/group:5"] == "rail 3, pod 5 alone"
    assert labels["server:1280"] == "server 1280: its NICs on every rail"  # leaf 80's first server
    assert sum(value.startswith("server:") for value in labels) == 16  # the leaf's 16 servers
    assert part_options(SCENARIO, topo, "server:7")[-1] == {
        "label": "server 7: its NICs on every rail",
        "value": "server:7",
    }  # the drawn server stays chosen
    inside = {o["value"] for o in part_options(SCENARIO, topo, "group:3")}
    assert {f"group:3/group:{p}" for p in range(8)} <= inside


@pytest.mark.parametrize(
    "part, message",
    [
        ("group:3/group:9", "rail 3 has no part 9"),
        ("group:3/group:5/group:7", "rail 3, pod 5 has no part 7"),
        ("group:3/group:5/group:80/group:1", "leaf 80 has no part 1"),
        ("server:99999", "no server"),
        ("group:3/pod:5", "no group"),
        ("server:-1", "no server"),
        ("everything", "unknown part"),
    ],
)
def test_a_forged_part_is_refused_with_a_message(topo, part, message):
    with pytest.raises(VizcollError, match=message):
        read_part(part, SCENARIO, topo)


def test_a_fabric_whose_groups_do_not_nest_keeps_its_groups_alone():
    fat = Scenario(spec="fat-tree:radix=4,levels=3")
    topo = topology_of(fat)
    with pytest.raises(VizcollError, match="has no part"):
        read_part("group:1/group:0", fat, topo)
    assert view_of(fat, "group:1").topo.n_nodes == 4 + 4 + 4  # pod 1 with the cores it reaches
    assert np.array_equal(view_of(fat, "group:1").kept, view_of(fat, "group:1").kept)
