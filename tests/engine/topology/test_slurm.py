"""Slurm topology.conf: the manual's examples, every syntax the manual allows, every refusal with its line.

Counts come from the manual's text, from hand counts written here, or from an independent counter below
(:func:`independent_counts`, a regex and ``hostlist`` loop that shares no code with the reader).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import hostlist
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

from vizcoll.errors import FileFormatError, TopologyError
from vizcoll.topology import model
from vizcoll.topology.formats.slurm import read, rules_out
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

DATA = Path(__file__).resolve().parents[2] / "data"

# topology.conf(5), section EXAMPLE, verbatim (SchedMD/slurm doc/man/man5/topology.conf.5, Slurm 26.11;
# the same text at https://slurm.schedmd.com/topology.conf.html).
MANUAL_TREE = """##################################################################
# Slurm's network topology configuration file for use with the
# topology/tree plugin
##################################################################
SwitchName=s0 Nodes=dev[0-5]
SwitchName=s1 Nodes=dev[6-11]
SwitchName=s2 Nodes=dev[12-17]
SwitchName=s3 Switches=s[0-2]
"""
MANUAL_BLOCK = """##################################################################
# Slurm's network topology configuration file for use with the
# topology/block plugin
##################################################################
BlockName=block1 Nodes=node[1-32]
BlockName=block2 Nodes=node[33-64]
BlockName=block3 Nodes=node[65-96]
BlockName=block4 Nodes=node[97-128]
BlockSizes=30,120
"""
# Topology Guide (https://slurm.schedmd.com/topology.html, SchedMD/slurm doc/html/topology.shtml), verbatim:
# the first example (a three-level tree of two-port switches), the second (s[0-3] under four parents, LinkSpeed
# aligned with blanks) and the third (leaves under one root).
GUIDE_FIRST = """# topology.conf
# Switch Configuration
SwitchName=s0 Nodes=tux[0-1]
SwitchName=s1 Nodes=tux[2-3]
SwitchName=s2 Nodes=tux[4-5]
SwitchName=s3 Nodes=tux[6-7]
SwitchName=s4 Switches=s[0-1]
SwitchName=s5 Switches=s[2-3]
SwitchName=s6 Switches=s[4-5]
"""
GUIDE_SECOND = """# topology.conf
# Switch Configuration
SwitchName=s0 Nodes=tux[0-3]   LinkSpeed=900
SwitchName=s1 Nodes=tux[4-7]   LinkSpeed=900
SwitchName=s2 Nodes=tux[8-11]  LinkSpeed=900
SwitchName=s3 Nodes=tux[12-15] LinkSpeed=1800
SwitchName=s4 Switches=s[0-3]  LinkSpeed=1800
SwitchName=s5 Switches=s[0-3]  LinkSpeed=1800
SwitchName=s6 Switches=s[0-3]  LinkSpeed=1800
SwitchName=s7 Switches=s[0-3]  LinkSpeed=1800
"""
GUIDE_THIRD = """# topology.conf
# Switch Configuration
SwitchName=s0 Nodes=tux[0-3]
SwitchName=s1 Nodes=tux[4-7]
SwitchName=s2 Nodes=tux[8-11]
SwitchName=s3 Nodes=tux[12-15]
SwitchName=s4 Switches=s[0-3]
"""

# A realistic file written for this test: two spines over four leaves (each leaf under both spines), racks
# with two-level hostlists, a GPU leaf, a login leaf, TABs, a parent before its children, comments with '='.
REALISTIC = """# Cluster 'fjord' -- generated 2024-05-02, LinkSpeed=units are arbitrary
SwitchName=spine1\tSwitches=leaf[1-4]    LinkSpeed=200   # core, Switches=leaf1..4
SwitchName=spine2\tSwitches=leaf[1-4]\tLinkSpeed=200
SwitchName=leaf1 Nodes=rack[1-2]n[01-16]
SwitchName=leaf2 Nodes=rack[3-4]n[01-16],rack5n[01-08]
SwitchName=leaf3\tNodes=gpu[001-012,020]
SwitchName=leaf4   Nodes=login[1-2],mgmt.1.[9-10],gpu020  # gpu020 is cabled to two leaves
"""


def independent_counts(text: str) -> tuple[int, int, int]:
    """(switches, distinct hosts, links) of a tree topology.conf, counted without the reader: one regex per line
    (comments cut at '#'), hostlist.expand_hostlist for the values."""
    switches, hosts, links = 0, set(), 0
    for line in text.splitlines():
        line = line.split("#")[0]
        if not re.search(r"(?i)\bSwitchName\s*=", line):
            continue
        switches += 1
        for key in ("Nodes", "Switches"):
            value = re.search(rf"(?i)\b{key}\s*=\s*(\S+)", line)
            if value:
                names = hostlist.expand_hostlist(value.group(1))
                links += len(names)
                hosts |= set(names) if key == "Nodes" else set()
    return switches, len(hosts), links


def counts(topo: Topology) -> tuple[int, int, int]:
    return len(topo.switches), len(topo.endpoints), topo.n_links


def labels(topo: Topology) -> list[str]:
    return [topo.link_label(row) for row in range(topo.n_links)]


def neighbors(topo: Topology, name: str) -> set[str]:
    row = topo.adjacency()[topo.index(name)]
    return {topo.names[j] for j in row.indices}


def components(topo: Topology) -> int:
    return csgraph.connected_components(topo.adjacency(), directed=False)[0]


# ---------------------------------------------------------------- the manual's examples
def test_manual_tree_example():
    topo = read(MANUAL_TREE, "topology.conf")
    assert counts(topo) == (4, 18, 21)  # 3 leaves of 6 nodes, one root over 3 leaves: 18 + 3 links
    assert topo.names[:4] == ["s0", "s1", "s2", "s3"] and topo.names[4:] == [f"dev{i}" for i in range(18)]
    assert neighbors(topo, "s3") == {"s0", "s1", "s2"}
    assert neighbors(topo, "s1") == {f"dev{i}" for i in range(6, 12)} | {"s3"}
    # the leaf's hosts take ports 1-6 (their line comes first), the root's link port 7
    assert labels(topo)[:2] == ["s0[1]-dev0[1]", "s0[2]-dev1[1]"]
    assert labels(topo)[-3:] == ["s3[1]-s0[7]", "s3[2]-s1[7]", "s3[3]-s2[7]"]
    assert topo.nports.tolist() == [7, 7, 7, 3] + [1] * 18
    assert topo.meta == {"format": "slurm"} and topo.guid is None and topo.desc is None
    assert independent_counts(MANUAL_TREE) == counts(topo)


def test_manual_block_example():
    topo = read(MANUAL_BLOCK, "topology.conf")
    assert counts(topo) == (4, 128, 128)
    assert topo.names[:4] == ["block1", "block2", "block3", "block4"]
    assert neighbors(topo, "block2") == {f"node{i}" for i in range(33, 65)}
    assert topo.meta == {"format": "slurm", "block_sizes": [30, 120]}
    assert components(topo) == 4  # blocks are not joined by an invented switch


def test_guide_first_example_three_levels():
    topo = read(GUIDE_FIRST, "topology.conf")
    assert counts(topo) == (7, 8, 8 + 6)
    assert components(topo) == 1  # s6 is the root over s4 and s5; s5 is not under s4
    assert neighbors(topo, "s6") == {"s4", "s5"} and neighbors(topo, "s4") == {"s0", "s1", "s6"}
    assert labels(topo)[-2:] == ["s6[1]-s4[3]", "s6[2]-s5[3]"]


def test_guide_without_its_root_line_has_several_roots_and_no_invented_switch():
    assert counts(read(GUIDE_THIRD, "t.conf")) == (5, 16, 20) and components(read(GUIDE_THIRD, "t.conf")) == 1
    # The Guide: "it is legal to remove the line "SwitchName=s4 Switches=s[0-3]"" from its third example.
    topo = read(GUIDE_THIRD.replace("SwitchName=s4 Switches=s[0-3]\n", ""), "t.conf")
    assert topo.names[:4] == ["s0", "s1", "s2", "s3"] and counts(topo) == (4, 16, 16) and components(topo) == 4


def test_guide_second_example_a_switch_under_four_parents_keeps_every_link():
    topo = read(GUIDE_SECOND, "topology.conf")
    assert counts(topo) == (8, 16, 16 + 16)
    assert neighbors(topo, "s2") == {"tux8", "tux9", "tux10", "tux11", "s4", "s5", "s6", "s7"}
    assert topo.nports[topo.index("s2")] == 8 and topo.nports[topo.index("s7")] == 4
    assert components(topo) == 1


def test_realistic_file_matches_the_independent_count():
    topo = read(REALISTIC, "fjord.conf")
    by_hand = (6, 32 + 32 + 8 + 13 + 2 + 2, 8 + 32 + 40 + 13 + 5)  # gpu020 listed twice: 87 hosts, 98 links
    assert independent_counts(REALISTIC) == by_hand == counts(topo)
    assert neighbors(topo, "gpu020") == {"leaf3", "leaf4"}  # a host under two leaf switches keeps both links
    assert neighbors(topo, "leaf1") == {f"rack{r}n{n:02d}" for r in (1, 2) for n in range(1, 17)} | {"spine1", "spine2"}
    assert "mgmt.1.9" in topo and "mgmt.1.10" in topo
    # parents come first in the file, so each leaf's ports 1 and 2 go up
    assert labels(topo)[:2] == ["spine1[1]-leaf1[1]", "spine1[2]-leaf2[1]"]
    assert topo.link_label(topo.find_link("leaf1[3]-rack1n01[1]")) == "leaf1[3]-rack1n01[1]"


# ---------------------------------------------------------------- syntax the manual allows
def test_hostlist_expressions():
    text = (
        "SwitchName=a Nodes=node[001-032,040]\nSwitchName=b Nodes=gpu[03,04]\n"
        "SwitchName=c Nodes=rack[1-2]n[01-16]\nSwitchName=d Switches=switch.1.[9-10]\n"
        "SwitchName=switch.1.9 Nodes=x[1-3,5]\nSwitchName=switch.1.10 Nodes=tux[0-3,12,18-20]"
    )
    topo = read(text, "t.conf")
    assert neighbors(topo, "a") == {f"node{i:03d}" for i in [*range(1, 33), 40]}
    assert neighbors(topo, "b") == {"gpu03", "gpu04"}
    assert len(neighbors(topo, "c")) == 32 and {"rack1n01", "rack2n16"} <= neighbors(topo, "c")
    assert neighbors(topo, "d") == {"switch.1.9", "switch.1.10"}
    assert neighbors(topo, "switch.1.10") == {"tux0", "tux1", "tux2", "tux3", "tux12", "tux18", "tux19", "tux20", "d"}
    assert topo.kind[topo.index("switch.1.9")] == SWITCH and topo.kind[topo.index("x5")] == ENDPOINT
    assert counts(topo) == independent_counts(text) == (6, 33 + 2 + 32 + 4 + 8, 33 + 2 + 32 + 2 + 4 + 8)


def test_a_name_listed_twice_in_one_value_is_one_link():
    topo = read("SwitchName=s Nodes=n[1-3],n2,n[2-3]", "t.conf")
    assert labels(topo) == ["s[1]-n1[1]", "s[2]-n2[1]", "s[3]-n3[1]"]


def test_tabs_several_blanks_blanks_around_equals_and_quotes():
    plain = read("SwitchName=s0 Nodes=h[1-2]\nSwitchName=s1 Switches=s0", "a.conf")
    spaced = read('  SwitchName = s0\t\tNodes="h[1-2]"   \n\tSwitchName=s1 \t  Switches =s0\t', "b.conf")
    assert spaced.names == plain.names and labels(spaced) == labels(plain)


def test_comments_may_hold_equals_signs():
    text = (
        "# SwitchName=ghost Nodes=phantom[1-9]\n"
        "SwitchName=s0 Nodes=h[1-2] # LinkSpeed=100 Nodes=z[1-5] Foo=bar\n"
        "SwitchName=s1 Nodes=h3#no blank before the comment\n"
        "   # indented comment with a=b\n"
    )
    topo = read(text, "t.conf")
    assert topo.names == ["s0", "s1", "h1", "h2", "h3"] and topo.n_links == 3


def test_a_parent_before_its_children_numbers_the_uplink_first():
    topo = read(
        "SwitchName=top Switches=leaf[1-2]\nSwitchName=leaf1 Nodes=h[1-2]\nSwitchName=leaf2 Nodes=h[3-4]", "t.conf"
    )
    assert labels(topo) == [
        "top[1]-leaf1[1]",
        "top[2]-leaf2[1]",
        "leaf1[2]-h1[1]",
        "leaf1[3]-h2[1]",
        "leaf2[2]-h3[1]",
        "leaf2[3]-h4[1]",
    ]


def test_several_roots_stay_apart():
    text = "SwitchName=a1 Nodes=x[1-2]\nSwitchName=a Switches=a1\nSwitchName=b1 Nodes=y[1-2]\nSwitchName=b Switches=b1"
    topo = read(text, "t.conf")
    assert topo.names == ["a1", "a", "b1", "b", "x1", "x2", "y1", "y2"]  # no switch joins a and b
    assert components(topo) == 2 and neighbors(topo, "a") == {"a1"}


def test_no_final_newline_and_crlf_give_the_same_fabric():
    lf = read(MANUAL_TREE, "lf.conf")
    for text in (MANUAL_TREE.rstrip("\n"), MANUAL_TREE.replace("\n", "\r\n"), MANUAL_TREE.replace("\n", "\r\n")[:-2]):
        topo = read(text, "other.conf")
        assert topo.names == lf.names and labels(topo) == labels(lf)


def test_keys_are_case_insensitive_and_values_are_not():
    topo = read(
        "switchname=S0 NODES=Tux[1-2] linkspeed=5\nSWITCHNAME=top SwItChEs=S0\nSwitchname=s0 nodes=tux1", "t.conf"
    )
    assert topo.names == ["S0", "top", "s0", "Tux1", "Tux2", "tux1"]
    assert neighbors(topo, "top") == {"S0"}


def test_a_host_under_two_leaf_switches_keeps_both_links():
    topo = read("SwitchName=l1 Nodes=n[01-04]\nSwitchName=l2 Nodes=n[04-06]", "t.conf")
    assert counts(topo) == (2, 6, 7)
    assert neighbors(topo, "n04") == {"l1", "l2"} and topo.nports[topo.index("n04")] == 2
    assert labels(topo)[4] == "l2[1]-n04[2]"
    assert components(topo) == 1


def test_an_empty_leaf_switch_is_kept_isolated():
    topo = read('SwitchName=spare\nSwitchName=s0 Nodes=h1 LinkSpeed=10\nSwitchName=spare2 Nodes=""', "t.conf")
    assert topo.names == ["spare", "s0", "spare2", "h1"] and topo.nports.tolist() == [1, 1, 1, 1]
    assert topo.n_links == 1 and components(topo) == 3


def test_line_continuations_and_escaped_hashes_as_slurm_reads_them():
    topo = read("SwitchName=s0 \\\n   Nodes=h[1-2],\\\nh3  # continued\nSwitchName=s\\#1 Nodes=h4", "t.conf")
    assert topo.names == ["s0", "s#1", "h1", "h2", "h3", "h4"]
    with pytest.raises(FileFormatError, match=r"line 4: Nodes= without SwitchName="):
        read("SwitchName=s0 \\\nNodes=h1\n\nNodes=h2", "t.conf")  # the error names the continued line's first


def test_block_plugin_with_block_sizes_first_and_mixed_case():
    text = "blocksizes=4,8,32\n# racks\nBLOCKNAME=b1 nodes=n[01-04]\nBlockName=b2 Nodes=n[05-08],spare1\n"
    topo = read(text, "blocks.conf")
    assert topo.names == ["b1", "b2", "n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08", "spare1"]
    assert topo.meta["block_sizes"] == [4, 8, 32] and counts(topo) == (2, 9, 9)
    assert read("BlockName=b1 Nodes=n[1-3]", "t.conf").meta == {"format": "slurm"}


def test_bom_is_ignored():
    assert read("\ufeffSwitchName=s0 Nodes=h1", "t.conf").names == ["s0", "h1"]


# ---------------------------------------------------------------- refusals, each with its line
ERRORS = [
    (
        "SwitchName=s0 Nodes=a\nSwitchName=s1 Switches=s0,s9",
        r"t\.conf, line 2: Switches= names 's9', which no "
        r"SwitchName= line defines",
    ),
    ("SwitchName=s0 Nodes=a\n\nSwitchName=s0 Nodes=b", r"line 3: switch 's0' is defined twice \(lines 1 and 3\)"),
    ("BlockName=b Nodes=a\nBlockName=b Nodes=c", r"line 2: block 'b' is defined twice \(lines 1 and 2\)"),
    (
        "SwitchName=a Switches=b\nSwitchName=b Switches=c\nSwitchName=c Switches=a",
        r"line 3: the switches form a cycle, a -> b -> c -> a",
    ),
    ("SwitchName=a Switches=a", r"line 1: the switches form a cycle, a -> a"),
    (
        "SwitchName=r Switches=a\nSwitchName=a Switches=b,c\nSwitchName=b Nodes=x\nSwitchName=c Switches=a",
        r"line 4: the switches form a cycle, a -> c -> a",
    ),
    ("SwitchName=s0 Nodes=a\nSwitchName=s1 Nodes=b Speed=5", r"line 2: unknown key 'Speed' on a SwitchName= line"),
    ("BlockName=b Nodes=a LinkSpeed=5", r"line 1: unknown key 'LinkSpeed' on a BlockName= line"),
    ("# racks\nFrobnicate=1", r"line 2: unknown key 'Frobnicate'"),
    ("SwitchName=s0 Nodes=a\n# c = d\nNodes=tux[0-3]", r"line 3: Nodes= without SwitchName= or BlockName="),
    ("Switches=s[0-1] SwitchName=top", r"line 1: Switches= without SwitchName= or BlockName="),
    ("# only comments = nothing\n\n", r"t\.conf: no SwitchName= or BlockName= line"),
    ("", r"t\.conf: no SwitchName= or BlockName= line"),
    ("BlockSizes=8", r"t\.conf: no SwitchName= or BlockName= line"),
    ("SwitchName=s0 Nodes=a\nBlockName=b1 Nodes=c", r"line 2: a BlockName= line in a topology/tree file \(line 1\)"),
    ("BlockName=b1 Nodes=c\nSwitchName=s0 Nodes=a", r"line 2: a SwitchName= line in a topology/block file"),
    ("SwitchName=s0 Nodes=a\nBlockSizes=8", r"line 2: a BlockSizes= line in a topology/tree file"),
    ("SwitchName=s0 Nodes=a Switches=s1", r"line 1: switch 's0' has both Nodes= and Switches="),
    ("BlockName=b1", r"line 1: block 'b1' has no Nodes="),
    ("SwitchName=s0 Nodes=n[1-", r"line 1: bad hostlist Nodes=n\[1-: unbalanced brackets"),
    ("SwitchName=s0 Nodes=n[5-1]", r"line 1: bad hostlist Nodes=n\[5-1\]: start > stop"),
    ("SwitchName=s0 Switches=s[a-b]", r"line 1: bad hostlist Switches=s\[a-b\]: bad range"),
    ("SwitchName=s0 Nodes=,", r"line 1: Nodes=, names nothing"),
    ("SwitchName=s0 Nodes= Switches=s1", r"line 1: Nodes= has no value"),
    ("SwitchName=s0 Nodes=a Nodes=b", r"line 1: Nodes= is given twice on the line"),
    ("SwitchName=s0 Nodes=a junk", r"line 1: unexpected text 'junk'"),
    ("SwitchName=s[0-1] Nodes=a", r"line 1: SwitchName= takes one name, not a hostlist"),
    ('SwitchName="" Nodes=a', r"line 1: SwitchName= is empty"),
    (f"SwitchName={'x' * 65} Nodes=a", r"line 1: switch name 'x+'\.\.\. is longer than 64 characters"),
    ("SwitchName=s0 Nodes=a\nSwitchName=s1 Nodes=s0", r"line 2: 's0' is a switch \(line 1\) and a host \(line 2\)"),
    ("SwitchName=s1 Nodes=a\nSwitchName=a Nodes=b", r"line 2: 'a' is a switch \(line 2\) and a host \(line 1\)"),
    ("RingName=ring0 Nodes=node[01-08]", r"line 1: RingName= lines \(topology/ring\) are not read"),
    ("include /etc/slurm/topology.d/racks.conf\nSwitchName=s0 Nodes=a", r"line 1: 'include' lines are not followed"),
    (
        "BlockName=b1 Nodes=n[1-8]\nBlockSizes=8,12",
        r"line 2: BlockSizes=8,12: each size must be the one before it "
        r"times a power of two \(2, 4, 8, \.\.\.\), but 12 follows 8",
    ),
    ("BlockName=b1 Nodes=n[1-8]\nBlockSizes=8,8", r"line 2: .*but 8 follows 8"),
    ("BlockName=b1 Nodes=n[1-8]\nBlockSizes=8,x", r"line 2: BlockSizes= takes positive whole numbers"),
    ("BlockName=b1 Nodes=n[1-8]\nBlockSizes=0", r"line 2: BlockSizes= takes positive whole numbers"),
    ("BlockSizes=4\nBlockName=b1 Nodes=n[1-8]\nBlockSizes=8", r"line 3: BlockSizes= is given twice \(lines 1 and 3\)"),
    ("BlockSizes=4 BlockName=b1", r"line 1: unknown key 'BlockName' on a BlockSizes= line"),
    (
        "BlockName=b1 Nodes=n[1-8]\nBlockName=b2 Nodes=n[9-11]\nBlockSizes=4,8",
        r"line 2: block 'b2' has 3 nodes, fewer than the planning base block size 4 \(BlockSizes= on line 3\)",
    ),
]


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_a_bad_file_is_refused_with_its_line(text, message):
    with pytest.raises(FileFormatError, match=message):
        read(text, "t.conf")


def test_a_huge_hostlist_is_refused_before_it_is_expanded():
    with pytest.raises(
        FileFormatError,
        match=r"line 2: Nodes=n\[0-999999999\] names 1,000,000,000 nodes, more "
        r"than the limit of 1,250,000",
    ):
        read("SwitchName=s0 Nodes=a\nSwitchName=s1 Nodes=n[0-999999999]", "t.conf")
    # each part is under python-hostlist's own limit (100,000), their sum is not
    with pytest.raises(FileFormatError, match=r"line 1: Nodes=a\[0-99999\],b.* names 1,300,000 nodes"):
        read("SwitchName=s Nodes=" + ",".join(f"{c}[0-99999]" for c in "abcdefghijklm"), "t.conf")
    with pytest.raises(FileFormatError, match=r"line 1: Switches=s\[10-22\]\[0-99999\] names 1,300,000 nodes"):
        read("SwitchName=s Switches=s[10-22][0-99999]", "t.conf")


def test_the_node_and_link_limits_name_the_line(monkeypatch):
    monkeypatch.setattr(model, "MAX_NODES", 10)
    with pytest.raises(FileFormatError, match=r"line 2: more than the limit of 10 nodes"):
        read("SwitchName=s0 Nodes=a[1-5]\nSwitchName=s1 Nodes=b[1-5]", "t.conf")
    with pytest.raises(FileFormatError, match=r"line 1: Nodes=a\[1-11\] names 11 nodes"):
        read("SwitchName=s0 Nodes=a[1-11]", "t.conf")
    assert read("SwitchName=s0 Nodes=a[1-5]\nSwitchName=s1 Nodes=a[1-4]", "t.conf").n_nodes == 7
    monkeypatch.setattr(model, "MAX_LINKS", 8)
    with pytest.raises(FileFormatError, match=r"line 2: more than the limit of 8 links"):
        read("SwitchName=s0 Nodes=a[1-5]\nSwitchName=s1 Nodes=a[1-4]", "t.conf")


def test_a_topology_error_becomes_a_file_format_error(monkeypatch):
    def refuse(topo):
        raise TopologyError("refused by the model")

    monkeypatch.setattr(Topology, "validate", refuse)
    with pytest.raises(FileFormatError, match=r"^t\.conf: refused by the model$"):
        read("SwitchName=s0 Nodes=a", "t.conf")


FRAGMENTS = [
    "SwitchName=",
    "BlockName=",
    "BlockSizes=",
    "Switches=",
    "Nodes=",
    "LinkSpeed=",
    "s0",
    "s1",
    "n[1-3]",
    "n[",
    "]",
    ",",
    "-",
    "9",
    " ",
    "\t",
    "\n",
    "\r\n",
    "#",
    "\\",
    '"',
    "=",
    "include ",
    "RingName=",
    "[0-2]",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join))
def test_any_text_gives_a_fabric_or_a_file_format_error(text):
    try:
        topo = read(text, "fuzz.conf")
    except FileFormatError:
        return
    assert topo.n_nodes >= 1 and topo.meta["format"] == "slurm"
    assert rules_out(text.split("\n")) is None


# ---------------------------------------------------------------- excerpt-shaped tests of real clusters' files
# Written here in the shape of public files (not copied: their repositories state no licence).
def test_shaped_like_unsw_abacus_tabs_and_a_named_switch_beside_a_hostlist():
    # ruddj/UNSW-Rocks-Config slurm/topology.conf (Rocks cluster, 2015): TAB after SwitchName, two blanks before
    # Switches=, a root whose Switches= mixes a hostlist and a plain name, a blank line at the end.
    text = (
        "# /etc/slurm/topology.conf\n\nSwitchName=rk-0\tNodes=rk-0-[0-3]\nSwitchName=rk-1\tNodes=rk-1-[0-3]\n"
        "SwitchName=rk-up\tNodes=head\nSwitchName=rk-net  Switches=rk-[0-1],rk-up\n\n"
    )
    topo = read(text, "topology.conf")
    assert counts(topo) == independent_counts(text) == (4, 9, 9 + 3)
    assert neighbors(topo, "rk-net") == {"rk-0", "rk-1", "rk-up"} and components(topo) == 1


def test_shaped_like_a_superpod_with_a_host_on_two_leaves():
    # tonystarkiss/slurm-superpod topology.conf: five leaf switches, no root, one host listed under two leaves,
    # a part without the common prefix (c-n[001-004],n[005-006]).
    text = (
        "SwitchName=s0 Nodes=c-n[001-004],n[005-006]\nSwitchName=s1 Nodes=c-n[007-010]\n"
        "SwitchName=s2 Nodes=c-n[011-014]\nSwitchName=s3 Nodes=c-n[015,017-019,012]\n"
    )
    topo = read(text, "topology.conf")
    assert counts(topo) == independent_counts(text) == (4, 6 + 4 + 4 + 4, 6 + 4 + 4 + 5)
    assert neighbors(topo, "c-n012") == {"s2", "s3"} and {"n005", "n006"} <= neighbors(topo, "s0")
    assert components(topo) == 3  # s2 and s3 meet through c-n012 only


def test_shaped_like_a_puppet_managed_file_with_isolated_leaves():
    # maatthias/slurm-cluster topology.conf: a '#' banner with '--' and '!!', one leaf listing four hostlists
    # joined by commas, three leaves with one host each and no root.
    text = (
        "# *****\n# # * WARNING -- PUPPET MANAGED !! -- CHANGES WILL BE OVERWRITTEN\n# *****\n\n"
        "SwitchName=s0 Nodes=hpc[001-005],gpu[001-003],submit[1-2],master[1-2]\n"
        "SwitchName=s1 Nodes=beam-srv2\nSwitchName=s2 Nodes=beam-srv3\nSwitchName=s3 Nodes=saturn4\n"
    )
    topo = read(text, "topology.conf")
    assert counts(topo) == independent_counts(text) == (4, 15, 15)
    assert components(topo) == 4 and np.all(topo.nports[:4] == [12, 1, 1, 1])


# ---------------------------------------------------------------- rules_out
def test_rules_out_accepts_topology_conf_files():
    for text in (
        MANUAL_TREE,
        MANUAL_BLOCK,
        GUIDE_SECOND,
        REALISTIC,
        MANUAL_TREE.replace("\n", "\r\n"),
        "include racks.conf\nswitchname=s0 nodes=a",
        "RingName=ring0 Nodes=node[01-08]",
    ):
        assert rules_out(text.split("\n")) is None


def test_rules_out_an_ibnetdiscover_file_at_its_first_line_that_is_no_comment():
    lines = (DATA / "ibnetdiscover-2sw-4hca.txt").read_text().split("\n")
    first = next(i for i, line in enumerate(lines, 1) if line.strip() and not line.startswith("#"))
    assert first == 6 and lines[5] == "vendid=0x2c9"
    assert rules_out(lines) == (6, "'vendid=0x2c9' is no SwitchName=/BlockName=/BlockSizes= line")


def test_rules_out_an_ibsim_stanza_a_json_file_and_a_hostfile():
    ibsim = ["# two switches", "", 'Switch 36 "S-0002c903007b8a30"', '[1] "H-1"[1]']
    assert rules_out(ibsim) == (3, "'Switch 36 \"S-0002c903007b8a30\"' is no SwitchName=/BlockName=/BlockSizes= line")
    as_json = json.dumps({"nodes": [{"id": "s0"}], "links": []}, indent=1).split("\n")
    assert rules_out(as_json) == (1, "'{' is no SwitchName=/BlockName=/BlockSizes= line")
    hostfile = ["# MPI hostfile", "node01 slots=4", "node02 slots=4"]
    assert rules_out(hostfile) == (2, "'node01 slots=4' is no SwitchName=/BlockName=/BlockSizes= line")
    assert rules_out(["node[01-04]"]) == (1, "'node[01-04]' is no SwitchName=/BlockName=/BlockSizes= line")


def test_rules_out_a_text_without_a_switch_or_block():
    assert rules_out([""]) == (0, "no SwitchName= or BlockName= line")
    assert rules_out(["# SwitchName=s0 Nodes=a", "BlockSizes=8", ""]) == (0, "no SwitchName= or BlockName= line")
