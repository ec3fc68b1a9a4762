"""A fabric's own analysis at load (issue 47): its parts, its file's oddities with their lines, and the true cause
of processes cut apart (the file, or a break). Parts are counted independently with networkx."""

import json

import networkx as nx
import pytest

from tests.fabrics import CIRCE, REAL_FABRICS
from vizcoll.barrier.algorithms import run_barriers
from vizcoll.cli import main
from vizcoll.topology import io as topo_io
from vizcoll.topology.analysis import analysis, apart_by, cut_cause, part_labels
from vizcoll.topology.formats import slurm


def networkx_parts(topo) -> int:
    graph = nx.Graph()
    graph.add_nodes_from(range(topo.n_nodes))
    graph.add_edges_from(zip(topo.link_a.tolist(), topo.link_b.tolist(), strict=True))
    return nx.number_connected_components(graph)


def test_a_slurm_tree_without_a_top_switch_says_its_parts_and_oddities_with_their_lines():
    topo = slurm.read(CIRCE, "topology.conf")
    found = analysis(topo)
    assert found["parts"] == 5 == networkx_parts(topo)  # s3 and s4 share circe-n051; s5 alone
    assert found["warnings"] == [
        "line 5: Nodes= lists circe-n051 more than once (kept once)",
        "line 6: host circe-n051 is under s4 and under s3 (line 5): it keeps a link to each",
        "5 parts: the file has no switch above s[0-5]",
        "1 switch with no end node below it: s5",
    ]


def test_a_switch_whose_whole_subtree_has_no_host_is_named_and_a_joined_tree_is_one_part():
    topo = slurm.read(
        "SwitchName=top Switches=a,b\nSwitchName=a Nodes=n[1-2]\nSwitchName=b Switches=c\nSwitchName=c\n", "t.conf"
    )
    assert analysis(topo) == {"parts": 1, "warnings": ["2 switches with no end node below them: b and c"]}


FABRIC_FILES = sorted(p for p in REAL_FABRICS.glob("*") if p.name != "SOURCES.txt")
real = pytest.mark.skipif(not FABRIC_FILES, reason=f"no real fabric files at {REAL_FABRICS}")


@real
@pytest.mark.parametrize("path", FABRIC_FILES, ids=lambda p: p.name)
def test_the_parts_of_every_real_fabric_agree_with_networkx(path):
    topo = topo_io.parse(path.read_text(encoding="utf-8-sig"), path.name)
    assert analysis(topo)["parts"] == networkx_parts(topo)


@real
@pytest.mark.parametrize("name", ["zoo-Abilene.graphml", "zoo-Geant2012.graphml"])
def test_a_switch_only_graph_says_it_has_no_end_nodes(name):
    path = REAL_FABRICS / name
    graph = nx.read_graphml(path)  # the independent count: the Topology Zoo's own file read by networkx
    topo = topo_io.parse(path.read_text(encoding="utf-8"), name)
    found = analysis(topo)
    assert found["parts"] == nx.number_connected_components(graph.to_undirected())
    assert found["warnings"][0].startswith(f"no end nodes: all {graph.number_of_nodes()} nodes are switches")


def test_a_host_to_host_cable_is_named():
    nodes = [{"name": "s", "kind": "switch"}, {"name": "a", "kind": "endpoint"}, {"name": "b", "kind": "endpoint"}]
    text = json.dumps({"nodes": nodes, "links": [["s", "a"], ["a", "b"]]})
    topo = topo_io.parse(text, "cable.json")
    warnings = analysis(topo)["warnings"]
    assert len(warnings) == 1 and warnings[0].startswith("1 host-to-host cable (a[2]-b[1]")


def test_the_cause_of_processes_apart_is_the_file_or_the_break():
    topo = slurm.read(CIRCE, "topology.conf")
    hosts = [topo.index(f"circe-n{i:03d}") for i in (1, 2, 20, 40)]  # under s0, s0, s1, s2: three parts
    assert cut_cause(topo, hosts, "processor") == (
        "the fabric as loaded is in 5 parts, the processors in 3 of them "
        "(2 processors cut off): the file cuts them apart, not a break"
    )
    topo.set_broken(int(topo.link_id[0]))  # s0 - circe-n001: now cut from circe-n002 too
    cause = cut_cause(topo, hosts, "processor")
    assert cause.endswith("the broken links cut the processors into 4 parts (3 processors cut off)")
    assert apart_by(topo, [hosts[:2], [hosts[1], topo.index("circe-n003")], hosts[2:]]) == ["breaks", None, "file"]
    assert part_labels(topo, live=True)[0] == 6 and part_labels(topo)[0] == 5


def test_a_barrier_on_a_split_file_blames_the_file_not_the_break():
    topo = slurm.read(CIRCE, "topology.conf")
    hosts = [topo.index(f"circe-n{i:03d}") for i in (1, 2, 3, 20, 21, 40)]
    topo.set_broken(int(topo.link_id[2]))  # s0 - circe-n003: its own processor cut off, no other
    _, fig = run_barriers(topo, "tree", participants=hosts, record=False)
    assert "the broken links cut the processors into 4 parts" in fig["failure"]
    assert "the fabric as loaded is in 5 parts" in fig["failure"]
    topo.broken[:] = False
    topo.set_broken(int(topo.link_id[70]))  # a link far from the processors
    _, fig = run_barriers(topo, "tree", participants=hosts, record=False)
    assert fig["failure"].endswith(
        "the processors in 3 of them (3 processors cut off): the file cuts them apart, not a break"
    )


def test_topo_info_prints_parts_and_warnings(tmp_path, capsys):
    path = tmp_path / "topology.conf"
    path.write_text(CIRCE)
    assert main(["topo", "info", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["parts"] == 5 and out["endpoints"] == 80 and len(out["warnings"]) == 4
    assert main(["topo", "info", "fat-tree:radix=4,levels=3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["parts"] == 1 and out["warnings"] == []
