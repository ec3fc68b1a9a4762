"""Real multicast tables in: opensm.mcfdbs dumps read back as groups and per-link EFI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vizcoll.cli import main
from vizcoll.comm import parse_pattern
from vizcoll.errors import FileFormatError
from vizcoll.multicast.mcfdbs import dump_mcfdbs
from vizcoll.multicast.routing import ALGORITHMS, route, route_communicators
from vizcoll.multicast.tables import compare, read_tables
from vizcoll.topology.generators import from_spec

SMALL = "fat-tree:radix=4,levels=2"
# OpenSM's layout (without the blank OpenSM prints after each port), written by hand: h0 and h4 joined over
# spine1 (a routing vizcoll's MINIHOP-MC would not pick:
# it takes the lowest-numbered port, spine0), h1 alone, and spine0 itself a member of a third group
HAND = """
Switch 0x0002c90000000100
LID    : Out Port(s)
0xC001 : 0x001  0x004
0xC002 : 0x002

Switch 0x0002c90000000300
LID    : Out Port(s)
0xC001 : 0x001  0x004

Switch 0x0002c90000000500
LID    : Out Port(s)
0xC003 : 0x000

Switch 0x0002c90000000600
LID    : Out Port(s)
0xC001 : 0x001  0x003
"""


@pytest.mark.parametrize(
    "spec, pattern",
    [
        ("fat-tree:radix=4,levels=3", "grid2d:4x4"),
        ("pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4", "grid2d:8x8"),
        ("dragonfly:a=4,p=2,h=2", "random:6,size=5,seed=2"),
        ("torus:3x3x2,hosts=1", "grid2d:3x6"),
    ],
)
@pytest.mark.parametrize("algo", ["minhop", "sssp-new", "fulb"])
def test_a_dump_reads_back_to_the_same_groups_and_link_counts(spec, pattern, algo):
    topo = from_spec(spec)
    routed = route_communicators(topo, parse_pattern(pattern, topo), algo)
    tables = read_tables(topo, dump_mcfdbs(topo, routed))
    assert np.array_equal(tables.efi, routed.efi) and tables.max_efi == int(routed.efi.max())
    want = sorted(sorted(topo.names[n] for n in tree.members.tolist()) for tree in routed.trees if tree is not None)
    assert sorted(tables.groups.values()) == want
    assert tables.warnings == []


def test_tables_written_by_hand_in_opensm_layout():
    topo = from_spec(SMALL)
    tables = read_tables(topo, HAND)
    assert tables.groups == {0xC001: ["h0", "h4"], 0xC002: ["h1"], 0xC003: ["spine0"]}
    used = {topo.link_label(r): int(tables.efi[r]) for r in np.flatnonzero(tables.efi).tolist()}
    assert used == {
        "h0[1]-leaf0[1]": 1,
        "h1[1]-leaf0[2]": 1,
        "h4[1]-leaf2[1]": 1,
        "leaf0[4]-spine1[1]": 1,
        "leaf2[4]-spine1[3]": 1,
    }
    # MINIHOP-MC on the same groups goes over spine0 instead: same load, other links
    minhop = compare(topo, tables, ["minhop"])["minhop"]
    assert minhop["max_efi"] == 1 and {(x["a"], x["b"]) for x in minhop["links"]} >= {("leaf0", "spine0")}


def test_one_sided_tree_links_are_reported():
    topo = from_spec(SMALL)
    one_sided = HAND.replace("0xC001 : 0x001  0x003", "0xC001 : 0x003")  # spine1 forgets leaf0
    assert read_tables(topo, one_sided).warnings == ["MLID 0xC001: only one end of leaf0[4]-spine1[1] lists it"]


@pytest.mark.parametrize(
    "change, words",
    [
        (
            ("0x0002c90000000600", "0x0002c90000000f00"),
            "switch GUID 0x0002c90000000f00 of the dump is not in the fabric",
        ),
        (("0xC002 : 0x002", "0xC002 : 0x009"), "has no cable on port 9, which MLID 0xC002 lists"),
        (("LID    : Out Port(s)\n0xC003", "LID    : Out Port(s)\nrubbish"), "cannot read 'rubbish"),
    ],
)
def test_a_dump_that_does_not_fit_the_fabric_is_refused_with_its_reason(change, words):
    with pytest.raises(FileFormatError, match=words.replace("(", r"\(")):
        read_tables(from_spec(SMALL), HAND.replace(*change))


def test_the_cli_prints_groups_links_and_the_comparison(capsys, tmp_path):
    topo = from_spec("fat-tree:radix=4,levels=3")
    routed = route(topo, [[topo.index(h) for h in ("h0", "h5", "h9")], [topo.index("h1"), topo.index("h2")]], "minhop")
    dump = tmp_path / "opensm.mcfdbs"
    dump.write_text(dump_mcfdbs(topo, routed))
    assert main(["mcast-import", "fat-tree:radix=4,levels=3", str(dump), "--compare", "fulb,minhop"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["groups"] == {"0xC001": ["h0", "h5", "h9"], "0xC002": ["h1", "h2"]}
    assert out["max_efi"] == int(routed.efi.max())
    assert sum(link["groups"] for link in out["links"]) == int(routed.efi.sum())
    assert out["compare"]["minhop"]["links"] == out["links"] and set(out["compare"]) == {"fulb", "minhop"}
    assert main(["mcast-import", "fat-tree:radix=4,levels=3", str(dump), "--compare", "nope"]) == 2
    assert "unknown algorithm" in capsys.readouterr().err
    assert set(ALGORITHMS) >= {"fulb", "minhop", "sssp"}
