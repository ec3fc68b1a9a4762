"""The rails panels of /trees (``trees-rails``) and /multicast (``mc-rails``), called as Dash calls them (no browser);
their numbers checked against plain loops over the page's own tree and groups."""

from __future__ import annotations

import pytest
from dash import html

from tests import table_text
from vizcoll.comm import Placement, parse_pattern, place
from vizcoll.multicast.mcfdbs import dump_mcfdbs
from vizcoll.multicast.routing import route_communicators
from vizcoll.scenario import WORLD, Scenario
from vizcoll.trees import kinds
from vizcoll.trees.groups import hierarchy_from_topology
from vizcoll.trees.typeone import vertex_ranks
from vizcoll.ui.models import rails as model
from vizcoll.ui.pages.multicast import page as mc_page
from vizcoll.ui.pages.trees import _model as trees_model
from vizcoll.ui.pages.trees import page as trees_page
from vizcoll.ui.store import fabric_of

RAILS = "rail-fat-tree:servers=64,rails=8,radix=16"  # 512 NICs, 8 rails of 2 levels, no link between them
LARGE = "rail-fat-tree:servers=512,rails=8,radix=32"  # 4,096 NICs: over the overview's limit, trees in a job


def rows(panel: html.Div) -> dict[str, list[str]]:
    """The panel's table: first cell -> the other cells."""
    table = next(c for c in panel.children if table_text.is_table(c))
    return {r[0]: r[1:] for r in table_text.rows(table)}


def texts(panel: html.Div) -> str:
    return " ".join(c.children for c in panel.children if isinstance(c, html.P))


def plan_of(s: Scenario) -> dict:
    return trees_model.page_plan(s)


def _nic(topo, node: int) -> tuple[str, str]:
    """(server, rail) of a NIC from its name (``s07-nic3``), not from the node attributes the engine reads."""
    server, nic = topo.names[int(node)].split("-")
    return server, nic


def edge_counts(topo, placement, kind: str, k: int) -> list[str]:
    """[edges, crossing, within a server, between servers] of the ``kind`` tree on ``placement``, by a loop."""
    builder = kinds.get(kind)
    tree = builder.build(
        placement.nprocs, k, hierarchy_from_topology(topo, placement) if builder.hierarchical else None
    )
    ranks, within, between = vertex_ranks(tree), 0, 0
    for v, p in enumerate(tree.parent):
        if p >= 0:
            (sa, ra), (sb, rb) = _nic(topo, placement.node[ranks[v]]), _nic(topo, placement.node[ranks[p]])
            within += ra != rb and sa == sb
            between += ra != rb and sa != sb
    return [f"{n:,}" for n in (placement.nprocs - 1, within + between, within, between)]


def group_counts(topo, groups) -> list[str]:
    spans = [len({_nic(topo, n)[1] for n in group}) for group in groups]
    return [f"{n:,}" for n in (len(spans), sum(s > 1 for s in spans), max(spans))]


@pytest.mark.parametrize("kind,k", [(kinds.KARY, 4), (kinds.KNOMIAL, 2), (kinds.HIER_KNOMIAL, 4)])
def test_the_trees_panel_counts_the_pages_tree_under_both_placements(kind, k):
    s = Scenario(spec=RAILS, params={"trees": {"kind": kind, "k": k}})
    panel = trees_page.trees_panel(plan_of(s), s.to_dict())
    fabric = fabric_of(s)
    got = rows(panel)
    assert list(got) == ["rail-aware", "naive"]
    own = trees_model.placement_of(s, WORLD)  # the tree the page draws is the rail-aware one
    assert got["rail-aware"][1:] == edge_counts(fabric, own, kind, k)
    assert got["naive"][1:] == edge_counts(fabric, place(fabric, order="rail-major"), kind, k)
    assert "Rail fabric: 8 rails, 64 servers, no link between rails" in texts(panel)
    assert "over every process of the scenario (512 ranks)" in texts(panel)
    assert panel.className == "panel rails"


def test_the_default_tree_in_numbers():
    s = Scenario(spec=RAILS)
    got = rows(trees_page.trees_panel(plan_of(s), s.to_dict()))
    assert got["rail-aware"][1:] == ["511", "447", "7", "440"]  # 4-ary: few parents on a child's server
    assert got["naive"][1:] == ["511", "448", "8", "440"]


def test_a_communicator_of_a_pattern_is_compared_placed_both_ways():
    s = Scenario(spec=RAILS, pattern="grid2d:16x32", params={"trees": {"comm": 19, "kind": kinds.KNOMIAL, "k": 2}})
    plan = plan_of(s)
    assert plan["nprocs"] == 16  # 16 rows of 32 ranks, then 32 columns of 16: column 3 is ranks 3, 35, 67, ...
    fabric = fabric_of(s)
    got = rows(trees_page.trees_panel(plan, s.to_dict()))
    assert got["rail-aware"][1:] == edge_counts(fabric, trees_model.placement_of(s, 19), kinds.KNOMIAL, 2)
    naive = parse_pattern("grid2d:16x32", fabric, order="rail-major")
    assert got["naive"][1:] == edge_counts(fabric, Placement(naive.nodes(19), 1, "rail-major"), kinds.KNOMIAL, 2)
    assert got["rail-aware"][2] == "0" and got["naive"][2] != "0"  # a column: one rail, or spread over rails


def test_hand_drawn_communicators_are_counted_as_they_are():
    names = [f"s{s:02}-nic{r}" for s in range(4) for r in (0, 5)]
    s = Scenario(spec=RAILS, lists=[names])
    panel = trees_page.trees_panel(plan_of(s), s.to_dict())
    assert list(rows(panel)) == [model.OWN]
    assert rows(panel)[model.OWN][1:] == edge_counts(fabric_of(s), trees_model.placement_of(s, WORLD), kinds.KARY, 4)
    assert "drawn by hand or loaded from a file" in texts(panel)


def test_no_panel_without_rails_nor_for_a_plan_with_a_problem():
    s = Scenario(spec="fat-tree:radix=4,levels=3")
    assert trees_page.trees_panel(plan_of(s), s.to_dict()) is None
    assert mc_page.groups_panel(Scenario(spec="fat-tree:radix=4,levels=3", pattern="grid2d:4x4").to_dict()) is None
    rails = Scenario(spec=RAILS, ppn=200)  # 102,400 processes: over the page's limit
    assert "error" in plan_of(rails) and trees_page.trees_panel(plan_of(rails), rails.to_dict()) is None
    for hostile in (None, "x", {"error": 3}, {"digest": "0" * 32}, [1]):
        assert trees_page.trees_panel(hostile, rails.to_dict()) is None
        assert mc_page.groups_panel(hostile) is None


def test_a_pattern_naming_a_file_is_refused():
    forged = Scenario(spec=RAILS, pattern="/etc/passwd")
    assert plan_of(forged)["error"].startswith("⚠ unknown pattern '/etc/passwd'")  # the page's message, no panel
    assert trees_page.trees_panel(plan_of(Scenario(spec=RAILS)), forged.to_dict()) is None
    forged = forged.to_dict()
    assert mc_page.groups_panel(forged).children.startswith("⚠ Rails: unknown pattern '/etc/passwd'")


def test_a_large_fabric_gets_its_panel_while_the_trees_are_a_job():
    s = Scenario(spec=LARGE, params={"trees": {"kind": kinds.HIER_KNOMIAL, "k": 8}})
    plan = plan_of(s)
    assert trees_model.heavy(plan)  # 4,096 processes: the other views wait for the background job
    got = rows(trees_page.trees_panel(plan, s.to_dict()))
    fabric = fabric_of(s)
    assert got["naive"][1:] == edge_counts(fabric, place(fabric, order="rail-major"), kinds.HIER_KNOMIAL, 8)
    assert got["rail-aware"][0] == "the scenario's: a server's GPUs on consecutive ranks"


@pytest.mark.parametrize("pattern,ppn", [("grid2d:32x16", 1), ("grid3d:8x8x16", 2), ("hier:16", 1)])
def test_the_multicast_panel_counts_the_pattern_placed_both_ways(pattern, ppn):
    s = Scenario(spec=RAILS, pattern=pattern, ppn=ppn)
    panel = mc_page.groups_panel(s.to_dict())
    fabric = fabric_of(s)
    got = rows(panel)
    for name, order in (("rail-aware", "linear"), ("naive", "rail-major")):
        comms = parse_pattern(pattern, fabric, ppn, order)
        assert got[name][1:] == group_counts(fabric, [comms.nodes(i).tolist() for i in range(len(comms))])
    assert f"The groups of the pattern {pattern}, placed each way" in texts(panel)
    assert "cannot be one multicast tree" in texts(panel)


def test_the_grid2d_groups_in_numbers():
    got = rows(mc_page.groups_panel(Scenario(spec=RAILS, pattern="grid2d:32x16").to_dict()))
    assert got["rail-aware"][1:] == ["48", "32", "8"]  # rows: 2 servers, all 8 rails; columns: one rail
    assert got["naive"][1:] == ["48", "16", "8"]  # rows: one rail; columns: every rail


def test_the_multicast_panel_without_a_pattern():
    names = [["s00-nic0", "s01-nic0"], ["s00-nic0", "s00-nic1", "s02-nic7"]]
    lists = mc_page.groups_panel(Scenario(spec=RAILS, lists=names).to_dict())
    assert rows(lists) == {model.OWN: ["the scenario's", "2", "1", "3"]}
    assert "drawn by hand or loaded from a file" in texts(lists)
    broadcast = mc_page.groups_panel(Scenario(spec=RAILS).to_dict())
    assert rows(broadcast) == {model.OWN: ["the scenario's", "1", "1", "8"]}
    assert "IPoIB's broadcast group" in texts(broadcast)


def test_the_fabric_s_tables_are_counted_as_they_are():
    spec = "rail-fat-tree:servers=16,rails=4,radix=8,cross=1"
    s = Scenario(spec=spec, pattern="grid2d:8x8")
    topo = fabric_of(s)
    tables = dump_mcfdbs(topo, route_communicators(topo, parse_pattern("grid2d:8x8", topo), "minhop"))
    panel = mc_page.groups_panel(Scenario(spec=spec, pattern="grid2d:8x8", mcast_tables=tables).to_dict())
    comms = parse_pattern("grid2d:8x8", topo)  # the tables route the communicators' groups: the same members
    assert rows(panel)[model.OWN] == [
        "the scenario's",
        *group_counts(topo, [comms.nodes(i).tolist() for i in range(len(comms))]),
    ]
    assert "multicast tables" in texts(panel) and "through the links between rails" in texts(panel)
