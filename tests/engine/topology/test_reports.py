"""The ports report (ibnetdiscover -p) and iblinkinfo: what the real tools printed, read back exactly.

Counts come from an independent counter: the small net-file parser below (the fabric the tools ran on), or hand
counts of the public files; never from the readers under test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import ibtools
from tests.fabrics import REAL_FABRICS
from vizcoll.errors import FileFormatError
from vizcoll.topology.io import detect, parse, read
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

DATA = Path(__file__).resolve().parents[2] / "data"
CLUSTER = DATA / "cluster"
CAPTURES = ("stanzas", "ports", "ports-s", "iblinkinfo", "iblinkinfo-l")
FORMAT = {
    "stanzas": "ibnetdiscover",
    "ports": "ibnetdiscover-ports",
    "ports-s": "ibnetdiscover-ports",
    "iblinkinfo": "iblinkinfo",
    "iblinkinfo-l": "iblinkinfo",
}


# ---------------------------------------------------------------- an independent counter of net files
def net_fabric(text: str) -> tuple[dict[str, tuple[str, int]], set[frozenset]]:
    """``{id: (kind word, GUID)}`` and the cables ``{(id, port), (id, port)}`` of an ibsim/ibnetdiscover file."""
    nodes, cables, current, guid = {}, set(), None, 0
    for line in text.splitlines():
        if m := re.match(r"\s*(?:switchguid|caguid)=0x([0-9a-f]+)", line):
            guid = int(m.group(1), 16)
        elif m := re.match(r'\s*(Switch|Hca|Ca)\s+\d+\s+"([^"]+)"', line):
            current = m.group(2)
            nodes[current] = ("switch" if m.group(1) == "Switch" else "ca", guid)
        elif m := re.match(r'\s*\[(\d+)\]\S*\s+"([^"]+)"\[(\d+)\]', line):
            cables.add(frozenset({(current, int(m.group(1))), (m.group(2), int(m.group(3)))}))
    return nodes, cables


def cable_set(topo: Topology, key: dict[int, str]) -> set[frozenset]:
    rows = zip(topo.link_a.tolist(), topo.link_pa.tolist(), topo.link_b.tolist(), topo.link_pb.tolist(), strict=True)
    return {frozenset({(key[a], pa), (key[b], pb)}) for a, pa, b, pb in rows}


def check_same_fabric(topo: Topology, net_text: str) -> None:
    """``topo`` is the fabric of the net file: same switches, end nodes and cables, each node found by its GUID (a
    CA by its node GUID or the GUID of its first cabled port, as ibsim numbers them: node GUID + port)."""
    nodes, cables = net_fabric(net_text)
    kinds = [word for word, _ in nodes.values()]
    assert (len(topo.switches), len(topo.endpoints), topo.n_links) == (
        kinds.count("switch"),
        kinds.count("ca"),
        len(cables),
    )
    first_port = {}
    for cable in cables:
        for node, port in cable:
            first_port[node] = min(first_port.get(node, port), port)
    key = {}
    for node, (word, guid) in nodes.items():
        found = guid if word == "switch" or guid in topo.guid.tolist() else guid + first_port[node]
        key[topo.index(f"0x{found:016x}")] = node
    assert len(key) == topo.n_nodes
    assert all((topo.kind[u] == SWITCH) == (nodes[node][0] == "switch") for u, node in key.items())
    assert cable_set(topo, key) == cables


# ---------------------------------------------------------------- what the real tools printed (tests/data/cluster)
@pytest.mark.parametrize("capture", CAPTURES)
def test_every_capture_of_the_cluster_is_the_cluster(capture):
    path = CLUSTER / f"{capture}.txt"
    topo = read(path)
    assert detect(path.read_text(), "upload").name == FORMAT[capture] and topo.meta["format"] == FORMAT[capture]
    check_same_fabric(topo, (CLUSTER / "cluster.net").read_text())
    assert "warnings" not in topo.meta


@pytest.mark.parametrize("capture", CAPTURES)
def test_hosts_and_switches_are_named_as_people_name_them(capture):
    topo = read(CLUSTER / f"{capture}.txt")
    names = set(topo.names)
    assert {"node01", "node02", "node03", "node04", "node06"} <= names  # "nodeNN HCA-1": the host
    assert {"node05 mlx5_0", "node05 mlx5_1"} <= names  # two HCAs of one host: their descriptions
    assert {"MF0;spine-1:MQM8700/U1", "MF0;spine-2:MQM8700/U1", "leaf-3"} <= names
    assert {"Voltaire 4036 # rack-1 (8c10)", "Voltaire 4036 # rack-1 (8c20)"} <= names  # one description, two
    defaults = sorted(n for n in names if n.startswith("MT4115 ConnectX4 Mellanox Technologies ("))
    assert len(defaults) == 2 and len(names) == 14
    node06 = topo.index("node06")
    assert topo.nports[node06] == 2 and sorted(
        topo.link_pa[topo.link_a == node06].tolist() + topo.link_pb[topo.link_b == node06].tolist()
    ) == [1, 2]
    for typed in ("node06 HCA-1", "NODE06", "node06.cluster.example.org", "0x0002c9030000c001"):
        assert topo.index(typed) == node06  # description, case, FQDN, port GUID


def test_progress_lines_of_s_are_passed_over():
    text = (CLUSTER / "ports-s.txt").read_text()
    assert text.startswith("DR path slid 0; dlid 0; 0 -> new Switch {0002c90300aa0001}")
    assert read(CLUSTER / "ports-s.txt") == read(CLUSTER / "ports.txt")


def test_a_dual_port_hca_is_one_node_whose_guid_is_the_node_guid():
    for capture in ("ports", "iblinkinfo", "iblinkinfo-l"):
        topo = read(CLUSTER / f"{capture}.txt")
        u = topo.index("node06")
        assert int(topo.guid[u]) == 0x0002C9030000C000, capture
        assert {p: g for (v, p), g in topo.port_guids.items() if v == u} == {
            1: 0x0002C9030000C001,
            2: 0x0002C9030000C002,
        }


# ---------------------------------------------------------------- public files (tests/data/public, Apache-2.0)
def test_infiniband_exporter_partial_capture():
    """Hand count: switches 9ce5b0, 5c2740, b07320 (seen only as a peer), add20e (seen only unconnected); CAs
    4bde, 4b96, cc02a6; cables 4bde-9ce5b0[10], 4b96-9ce5b0[11], cc02a6-5c2740[35], 9ce5b0[1]-b07320[1]."""
    topo = read(DATA / "public" / "infiniband_exporter-test.out")
    assert (len(topo.switches), len(topo.endpoints), topo.n_links) == (4, 3, 4)
    assert sorted(topo.names) == ["ib-i1l1s01", "ib-i1l2s01", "ib-i4l1s01", "ib-i7l2s01", "o0001", "o0002", "p0001"]
    assert {topo.link_label(r) for r in range(4)} == {
        "o0001[1]-ib-i1l1s01[10]",
        "o0002[1]-ib-i1l1s01[11]",
        "p0001[1]-ib-i4l1s01[35]",
        "ib-i1l1s01[1]-ib-i1l2s01[1]",
    }
    assert topo.nports[topo.index("ib-i7l2s01")] == 80 and topo.nports[topo.index("ib-i4l1s01")] == 37


def test_infiniband_exporter_port_with_two_peers_keeps_the_first():
    """Hand count: switches 630bf6, 618c82, 618c83, 53ec1a; CAs 630bfe (the SHARP aggregation node), da1138; the
    aggregation node's port 1 is cabled to 630bf6[81] on line 1 and to 53ec1a[81] on line 5."""
    topo = read(DATA / "public" / "infiniband_exporter-test2.out")
    assert (len(topo.switches), len(topo.endpoints), topo.n_links) == (4, 2, 2)
    assert set(topo.names) == {
        "5FB0405-leaf-IB01",
        "5FB0406-spine-IB01",
        "5FB0406-spine-IB02",
        "5FB0406-spine-IB03",
        "Mellanox Technologies Aggregation Node",
        "worker20",
    }  # blanks around names cut
    assert topo.meta["warnings"] == [
        "1 port listed with two peers: line 5 cables '5FB0406-spine-IB03'[81] to 'Mellanox Technologies "
        "Aggregation Node'[1], but line 1 gave one of these ports another peer: kept line 1"
    ]


def test_infiniband_exporter_old_unquoted_description():
    topo = read(DATA / "public" / "infiniband_exporter-test3.out")
    assert topo.names == ["Infiniscale-IV Mellanox Technologies"] and topo.nports.tolist() == [22]
    assert topo.n_links == 0 and int(topo.guid[0]) == 0x0002C9020040F161


# ---------------------------------------------------------------- shapes seen in public iblinkinfo outputs
def test_iblinkinfo_shapes_of_real_clusters():
    """Shapes seen in public pages (written here, not copied): an FDR10 link whose speed part holds its own
    parentheses, "Active/ LinkUp" with one blank, a switch description holding ':' and ';', Down ports."""
    text = """CA: n02 HCA-1:
      0xec0d9a03003d62be  4  1[  ] ==( 4X  25.78125 Gbps Active/  LinkUp)==>  2  17[  ] "MF0;SB7700:MSB7700/U1" ( )
CA: gpfs-a4-005-p HCA-1:
      0x0002c903004d14a5  145  1[  ] ==( 4X  10.0 Gbps (FDR10) Active/ LinkUp)==>  2  2[  ] "MF0;SB7700:MSB7700/U1" ( )
Switch: 0x506b4b0300820910 MF0;SB7700:MSB7700/U1:
           2    1[  ] ==(                Down/ Polling)==>             [  ] "" ( )
           2    2[  ] ==( 4X  10.0 Gbps (FDR10) Active/ LinkUp)==>     145    1[  ] "gpfs-a4-005-p HCA-1" ( )
           2  17[  ] ==( 4X  25.78125 Gbps Active/  LinkUp)==>  4  1[  ] "n02 HCA-1" ( Could be 14.0625 Gbps)
           2   36[  ] ==(                Down/ Polling)==>             [  ] "" ( )
"""
    topo = parse(text, "iblinkinfo.out")
    assert topo.names == ["n02", "gpfs-a4-005-p", "MF0;SB7700:MSB7700/U1"]
    assert topo.kind.tolist() == [ENDPOINT, ENDPOINT, SWITCH] and topo.nports.tolist() == [1, 1, 36]
    assert {topo.link_label(r) for r in range(topo.n_links)} == {
        "n02[1]-MF0;SB7700:MSB7700/U1[17]",
        "gpfs-a4-005-p[1]-MF0;SB7700:MSB7700/U1[2]",
    }


def test_iblinkinfo_two_cas_cabled_back_to_back_and_sharing_descriptions():
    """Two adapters without a switch (a shape of the Arch wiki's example); then two CAs of one description."""
    text = """CA: MT25408 ConnectX Mellanox Technologies:
      0x0002c90300002779      4    1[  ] ==( 4X           5.0 Gbps Active/  LinkUp)==>       3    1[  ] "kvm mlx4_0" ( )
CA: kvm mlx4_0:
  0x0002c90300002f79 3 1[ ] ==( 4X 5.0 Gbps Active/ LinkUp)==> 4 1[ ] "MT25408 ConnectX Mellanox Technologies" ( )
"""
    topo = parse(text, "x")
    assert topo.names == ["MT25408 ConnectX Mellanox Technologies", "kvm"] and topo.n_links == 1
    assert topo.kind.tolist() == [ENDPOINT, ENDPOINT]
    twins = "\n".join(
        f"CA: MT25408 ConnectX Mellanox Technologies:\n      0x0002c9030000{i}779      {i}    1[  ] "
        f'==( 4X 5.0 Gbps Active/  LinkUp)==>       9    {i}[  ] "sw" ( )'
        for i in (1, 2)
    )
    topo = parse(twins, "x")  # keyed by LID: two CAs, one switch seen only as a peer with two ports
    assert len(topo.endpoints) == 2 and len(topo.switches) == 1 and topo.n_links == 2


def test_a_node_printed_twice_is_one_node():
    """Two sweeps saved in one file: every node keyed by its GUID (a CA by its port's), every cable by its ends."""
    for capture in ("iblinkinfo", "iblinkinfo-l", "ports"):
        text = (CLUSTER / f"{capture}.txt").read_text()
        assert parse(text + text, "twice.txt") == parse(text, "twice.txt"), capture


def test_iblinkinfo_without_lids_finds_peers_by_description():
    assert read(CLUSTER / "iblinkinfo.txt").n_links == 22
    text = """Switch: 0x0000000000000100 s:
           0    1[  ] ==( 4X 2.5 Gbps Initialize/  LinkUp)==>       0    1[  ] "h" ( )
CA: h:
      0x0000000000000201      0    1[  ] ==( 4X 2.5 Gbps Initialize/  LinkUp)==>       0    1[  ] "s" ( )
"""
    topo = parse(text, "x")
    assert topo.names == ["s", "h"] and topo.n_links == 1
    twins = text + 'CA: h:\n  0x0000000000000301  0  1[  ] ==( 4X 2.5 Gbps Down/ Polling)==>  [  ] "" ( )\n'
    with pytest.raises(FileFormatError, match=r"x, line 2: cannot tell which node the peer 'h' is: every LID is 0"):
        parse(twins, "x")


# ---------------------------------------------------------------- bad files: a message with the line
def test_bad_report_lines_name_their_line():
    good = "SW 1 1 0x0000000000000100 4x EDR - CA 2 1 0x0000000000000201 ( 'sw' - 'node01 HCA-1' )\n"
    cases = [
        (
            good + "SW 1 2 0x0000000000000100 4x EDR - CA 2 1 0x00000000000002 ( 'sw' - \n",
            r"line 2: malformed port line",
        ),
        (good + "CA 1 2 0x0000000000000100 4x EDR\n", r"line 2: 'sw' is a endpoint here but a switch on line 1"),
        (
            good + "SW 1 7 0x0000000000000100 4x EDR - SW 1 7 0x0000000000000100 ( 'sw' - 'sw' )\n",
            r"line 2: port 7 of 'sw' is linked to itself",
        ),
        (good + "SW 1 99999 0x0000000000000100 4x EDR\n", r"line 2: port 99999 is above the limit of 65,535"),
    ]
    for text, message in cases:
        with pytest.raises(FileFormatError, match=message):
            parse(text, "ports.txt")
    with pytest.raises(FileFormatError, match=r"line 1: port line before any Switch:/CA: header"):
        parse('    1    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>       2    1[  ] "h" ( )\n', "x")


def test_unknown_lines_are_counted_as_warnings():
    text = (
        "ibwarn: [123] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1)\n"
        + (CLUSTER / "ports.txt").read_text()
    )
    topo = parse(text, "x")
    assert topo.meta["warnings"] == [
        "skipped 1 line it does not know (line 1: 'ibwarn: [123] mad_rpc: _do_madrpc failed; dport (D')"
    ]


# ---------------------------------------------------------------- the real fabrics through the real tools
REAL_IBNETDISCOVER = ("loginoff-topo.ibnd", "psmn-X5.topofile", "fattreebuilder-k4n3.topo", "ibtopotool-1.topo")


@pytest.mark.parametrize("name", REAL_IBNETDISCOVER)
def test_real_fabrics_through_ibsim_read_the_same_from_every_tool(tmp_path, name):
    """A real cluster's ibnetdiscover file run in ibsim; every report the real tools print on it reads back as the
    same fabric (counts from the net-file counter, cables by GUID)."""
    path = REAL_FABRICS / name
    if not path.exists():
        pytest.skip(f"no real fabric files at {REAL_FABRICS}")
    net = tmp_path / "fabric.net"
    net.write_text(path.read_text())
    for capture, text in ibtools.outputs(net).items():
        topo = parse(text, capture)
        assert topo.meta["format"] == FORMAT[capture], capture
        check_same_fabric(topo, path.read_text())


# ---------------------------------------------------------------- damaged files: a message, never a crash
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    capture=st.sampled_from(CAPTURES[1:]),
    cut=st.integers(0, 10_000),
    width=st.integers(0, 40),
    junk=st.text(alphabet="0123456789abcdefx []()'\"=:-#\n\tCASWRT", max_size=12),
)
def test_damaged_captures_read_or_give_a_file_format_error(capture, cut, width, junk):
    text = (CLUSTER / f"{capture}.txt").read_text()
    cut %= len(text)
    damaged = text[:cut] + junk + text[cut + width :]
    try:
        parse(damaged, "damaged.txt")
    except FileFormatError as exc:
        assert str(exc).startswith("damaged.txt")
