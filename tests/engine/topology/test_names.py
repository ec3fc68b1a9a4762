"""Names people use: readable names from a file's descriptions, and every name a user may type for a node."""

from __future__ import annotations

import pytest

from tests.fabrics import REAL_FABRICS
from vizcoll.errors import TopologyError
from vizcoll.topology import from_spec
from vizcoll.topology.io import parse, read
from vizcoll.topology.model import ENDPOINT, SWITCH
from vizcoll.topology.names import host_part, readable_names

S, E = SWITCH, ENDPOINT


@pytest.mark.parametrize(
    "desc, host",
    [
        ("node0254 HCA-1", "node0254"),
        ("gpu17 mlx5_3", "gpu17"),
        ("stage114 mlx4_0", "stage114"),
        ("login1 hfi1_0", "login1"),
        ("node01", "node01"),
        ("cn-12.cluster qib0", "cn-12.cluster"),
        ("MT4115 ConnectX4 Mellanox Technologies", None),
        ("Mellanox Technologies Aggregation Node", None),
        ("MT25408 ConnectX Mellanox Technologies", None),
        ("Voltaire 4036 # rack-2", None),
    ],
)
def test_the_host_part_of_a_description(desc, host):
    assert host_part(desc) == host


def test_an_hca_is_named_by_its_host_unless_the_host_has_two():
    names = readable_names(
        [E, E, E, E],
        ["node0254 HCA-1", "node07 HCA-1", "node07 HCA-2", "login mlx5_0"],
        [1, 2, 3, 4],
        ["H-0000000000000001"] * 4,
    )
    assert names == ["node0254", "node07 HCA-1", "node07 HCA-2", "login"]


def test_repeated_descriptions_get_the_shortest_guid_tail_that_tells_them_apart():
    default = "MT4115 ConnectX4 Mellanox Technologies"
    names = readable_names(
        [E, E, S, S], [default, default, "Quantum", "Quantum"], [0x248A070300928180, 0x248A070300928190, 0x1111, 0x2111]
    )
    assert names == [f"{default} (8180)", f"{default} (8190)", "Quantum (1111)", "Quantum (2111)"]
    same_tail = readable_names([S, S], ["sw", "sw"], [0xAAAA000012345678, 0xBBBB000012345678])
    assert same_tail == ["sw (aaaa000012345678)", "sw (bbbb000012345678)"]
    assert readable_names([S, S], ["sw", "sw"], [0, 0]) == ["sw (1)", "sw (2)"]  # no GUIDs: numbers


def test_a_files_own_ids_are_kept_and_guid_ids_give_way():
    names = readable_names(
        [S, E, E],
        ["spine switch", "", "node9 HCA-1"],
        [5, 6, 7],
        ["Switch1", "H-0000000000000006", "H-0000000000000007"],
    )
    assert names == ["Switch1", "H-0000000000000006", "node9"]
    assert readable_names([S, E], None, [0x10, 0x20]) == ["S-0000000000000010", "H-0000000000000020"]


def ibnetdiscover_text() -> str:
    return (
        "switchguid=0x0002c903007b8a30(2c903007b8a30)\n"
        'Switch 36 "S-0002c903007b8a30" # "MF0;leaf:MSX6036/U1" enhanced port 0 lid 3 lmc 0\n'
        '[1] "H-0002c9030008a770"[1](2c9030008a771) # "node0254 HCA-1" lid 12 4xQDR\n'
        '[2] "H-0002c9030008a780"[1](2c9030008a781) # "node0255 HCA-1" lid 13 4xQDR\n\n'
        'caguid=0x0002c9030008a770\nCa 2 "H-0002c9030008a770" # "node0254 HCA-1"\n'
        '[1](2c9030008a771) "S-0002c903007b8a30"[1] # lid 12 lmc 0 "MF0;leaf:MSX6036/U1" lid 3 4xQDR\n\n'
        'caguid=0x0002c9030008a780\nCa 2 "H-0002c9030008a780" # "node0255 HCA-1"\n'
        '[1](2c9030008a781) "S-0002c903007b8a30"[2] # lid 13 lmc 0 "MF0;leaf:MSX6036/U1" lid 3 4xQDR\n'
    )


@pytest.mark.parametrize(
    "typed",
    [
        "node0254",
        "node0254 HCA-1",
        "NODE0254",
        " node0254  HCA-1 ",
        "node0254.cluster.example.org",
        "H-0002c9030008a770",
        "0x0002c9030008a770",
        "0002c9030008a770",
        "0x2c9030008a770",
        "0x0002c9030008a771",
    ],
)
def test_host_description_and_guid_all_find_the_node(typed):
    topo = parse(ibnetdiscover_text(), "fabric.txt")
    assert topo.names == ["MF0;leaf:MSX6036/U1", "node0254", "node0255"]
    assert topo.index(typed) == 1


def test_an_unknown_name_lists_close_names_and_an_ambiguous_one_its_nodes():
    topo = parse(ibnetdiscover_text(), "fabric.txt")
    with pytest.raises(TopologyError, match=r"^no node named 'node0245'; close names: node0255, node0254$"):
        topo.index("node0245")
    with pytest.raises(TopologyError, match=r"^no node named 'zzz'$"):
        topo.index("zzz")
    two = parse(ibnetdiscover_text().replace("node0255 HCA-1", "node0254 HCA-2"), "fabric.txt")
    assert two.names[1:] == ["node0254 HCA-1", "node0254 HCA-2"]
    with pytest.raises(TopologyError, match=r"'node0254' names 2 nodes \('node0254 HCA-1', 'node0254 HCA-2'\)"):
        two.index("node0254")


def test_break_labels_and_edits_take_any_name_of_a_node():
    topo = parse(ibnetdiscover_text(), "fabric.txt")
    row = topo.find_link("node0254[1]-MF0;leaf:MSX6036/U1[1]")
    assert row is not None and topo.find_link("H-0002c9030008a770[1]-S-0002c903007b8a30[1]") == row
    assert topo.find_link("node0254 HCA-1[1]-0x0002c903007b8a30[1]") == row
    topo.rename("node0255 HCA-1", "gpu-a")  # the description still finds it after the rename
    assert topo.names[2] == "gpu-a" and topo.index("node0255") == 2


def test_generated_fabrics_keep_their_names():
    topo = from_spec("fat-tree:radix=4,levels=3")
    assert topo.names[-1] == "h15" and topo.index("h15") == topo.n_nodes - 1
    with pytest.raises(TopologyError, match=r"^no node named 'h155'; close names: h15"):
        topo.index("h155")


def test_a_real_fabric_is_named_by_its_hosts():
    path = REAL_FABRICS / "loginoff-topo.ibnd"
    if not path.exists():
        pytest.skip("no real fabric files")
    topo = read(path)
    hosts = [topo.names[u] for u in topo.endpoints]
    assert len(hosts) == 144 and all(" " not in h for h in hosts)  # "stage114 mlx4_0": stage114
    assert {"atlas", "rocket", "tank1", "stage98"} <= set(hosts)
    assert topo.index("stage114 mlx4_0") == topo.index("stage114") == topo.index("H-24be05ffff980030")
    assert sorted(topo.names[u] for u in topo.switches)[:2] == ["MF0;ib1:SX6036/U1", "MF0;ib2:SX6036/U1"]
