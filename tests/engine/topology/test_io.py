"""Topology files: JSON/GraphML exact round trips, ibnetdiscover/ibsim text, malformed input, ibsim itself."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import ibtools
from vizcoll.errors import FileFormatError, SpecError
from vizcoll.topology import from_spec, model
from vizcoll.topology import io as topo_io
from vizcoll.topology.formats import writable
from vizcoll.topology.io import GUID_BASE, MAX_FILE_BYTES, dumps, load, parse, read, write
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

DATA = Path(__file__).resolve().parents[2] / "data"
SPECS = [
    "fat-tree:radix=4,levels=2",
    "fat-tree:radix=4,levels=3",
    "pruned-fat-tree:pods=2,leaves=2,hosts=2,spines=2,up=2,paths=2",
    "sunway-supernode",
    "torus:3x3x2,hosts=2",
    "dragonfly:a=4,p=2,h=2",
    "mesh:3x3,neighbors=8",
]
TINY_NET = 'Switch 4 "s"\n[1] "h"[1]\n\nHca 1 "h"\n[1] "s"[1]\n'


# ---------------------------------------------------------------- helpers
def edited(topo: Topology, odd_name: bool = True) -> Topology:
    """A copy after every kind of edit, with GUIDs, descriptions and port GUIDs set."""
    topo = topo.copy()
    topo.guid = np.arange(1, topo.n_nodes + 1, dtype=np.uint64) * np.uint64(0x1000) + np.uint64(0xFFFF_0000_0000_0000)
    topo.desc = [f"node {i} HCA-1" for i in range(topo.n_nodes)]
    topo.port_guids = {(0, 0): 0x42, (topo.n_nodes - 1, 1): 0xABCDEF0123456789}
    topo.add_node("new-switch", "switch", 2)
    topo.add_node("new-host", "endpoint", level=0)  # 0 ports: grows when linked
    topo.add_link("new-switch", "new-host")
    topo.add_link(topo.names[0], "new-switch")  # the first switch's port count grows
    topo.set_broken(int(topo.link_id[3]))
    topo.remove_node(topo.names[int(topo.endpoints[0])])
    topo.rename(topo.names[1], 'odd <name> & "quoted" é\t' if odd_name else "renamed")
    return topo


def link_set(topo: Topology, names: list[str] | None = None) -> set:
    """Links as a set of unordered {(name, port), (name, port)} pairs."""
    names = topo.names if names is None else names
    rows = zip(topo.link_a.tolist(), topo.link_pa.tolist(), topo.link_b.tolist(), topo.link_pb.tolist(), strict=True)
    return {frozenset({(names[a], pa), (names[b], pb)}) for a, pa, b, pb in rows}


def fails(text: str | bytes, match: str, filename: str = "bad.net") -> FileFormatError:
    with pytest.raises(FileFormatError, match=match) as info:
        parse(text, filename)
    assert str(info.value).startswith(filename)
    return info.value


@pytest.fixture(scope="module", params=SPECS)
def generated(request) -> Topology:
    return from_spec(request.param)


# ---------------------------------------------------------------- JSON and GraphML: exact
@pytest.mark.parametrize("fmt", ["json", "graphml"])
@pytest.mark.parametrize("variant", ["plain", "edited"])
def test_exact_round_trip(generated, fmt, variant):
    topo = edited(generated) if variant == "edited" else generated
    text = dumps(topo, fmt)
    back = parse(text, f"t.{fmt}")
    assert back == topo
    assert back.to_dict() == topo.to_dict()
    assert list(back.link_id) == list(topo.link_id) and back.meta == topo.meta
    if variant == "edited":
        assert back.broken.sum() == 1 and back.desc[-1] == "" and back.guid.dtype == np.uint64
        assert back.port_guids[back.n_nodes - 3, 1] == 0xABCDEF0123456789  # index shifted by remove_node
        assert 'odd <name> & "quoted" é\t' in back.names


def test_graphml_keeps_link_order_orientation_and_empty_columns():
    topo = Topology.from_arrays(
        ["a", "b", "c"],
        [0, 0, 1],
        [3, 3, 1],
        [(1, 2, 0, 1), (2, 1, 0, 2), (0, 3, 1, 3)],
        node_attrs={"level": [1, 1, 0]},
        link_attrs={"global": [0, 1, 0]},
    )
    topo.link_id = np.array([7, 2, 5])  # not sorted: the rows must keep their order
    back = parse(dumps(topo, "graphml"))
    assert back == topo and back.link_a.tolist() == [1, 2, 0]
    empty = Topology.from_arrays([], [], [], np.zeros((0, 4)), node_attrs={"level": []}, meta={"k": [1, "x"]})
    assert parse(dumps(empty, "graphml")) == empty and parse(dumps(empty, "json")) == empty


def test_graphml_is_plain_networkx_graphml():
    import networkx as nx

    g = nx.parse_graphml(dumps(from_spec("fat-tree:radix=4,levels=2"), "graphml"))
    assert g.number_of_nodes() == 14 and g.number_of_edges() == 16
    assert g.nodes["leaf0"]["kind"] == "switch" and g.nodes["h0"]["nports"] == 1


# ---------------------------------------------------------------- ibsim / ibnetdiscover: writer -> reader
@pytest.mark.parametrize("fmt", ["ibsim", "ibnetdiscover"])
@pytest.mark.parametrize("variant", ["plain", "edited"])
def test_text_writer_reader_identity(generated, fmt, variant):
    topo = edited(generated, odd_name=False) if variant == "edited" else generated
    back = parse(dumps(topo, fmt), f"t.{fmt}")
    assert back.names == topo.names
    assert back.kind.tolist() == topo.kind.tolist() and back.nports.tolist() == topo.nports.tolist()
    assert link_set(back) == link_set(topo) and back.n_links == topo.n_links
    assert not back.broken.any()  # broken links are written as present
    assert back.link_id.tolist() == list(range(topo.n_links))
    assert back.meta == {"format": fmt}
    if variant == "plain":
        assert back.guid.tolist() == [GUID_BASE + 256 * (i + 1) for i in range(topo.n_nodes)]
        assert back.desc is None
    else:
        expected = [g or GUID_BASE + 256 * (i + 1) for i, g in enumerate(topo.guid.tolist())]
        assert back.guid.tolist() == expected and back.desc == topo.desc
    if fmt == "ibnetdiscover":
        ends = zip(
            back.link_a.tolist() + back.link_b.tolist(), back.link_pa.tolist() + back.link_pb.tolist(), strict=True
        )
        ca_ports = {(u, p) for u, p in ends if back.kind[u] == ENDPOINT}
        assert {key: back.port_guids[key] for key in ca_ports} == {
            (u, p): topo.port_guids.get((u, p), int(back.guid[u]) + p) for u, p in ca_ports
        }
        assert back.port_guids[0, 0] == (0x42 if variant == "edited" else int(back.guid[0]))


def test_ibsim_writer_layout():
    text = dumps(from_spec("fat-tree:radix=4,levels=2"), "ibsim")
    lines = text.splitlines()
    assert lines[0] == "# ibsim net file: written by vizcoll from fat-tree:radix=4,levels=2"
    assert lines[3:6] == ["switchguid=0x0002c90000000100", 'Switch\t4 "leaf0"', '[1]\t"h0"[1]']
    assert 'Hca\t1 "h0"' in lines and text.endswith('[1]\t"leaf3"[2]\n')


def test_names_the_format_cannot_quote_are_written_under_their_guid():
    topo = from_spec("fat-tree:radix=4,levels=2")
    topo.rename("h0", 'a "b"')
    for fmt in ("ibsim", "ibnetdiscover"):
        with pytest.raises(FileFormatError, match=f"{fmt} export: 'a \"b\"' cannot be written: it holds a quote"):
            dumps(topo, fmt)
    topo.rename('a "b"', "h#0")
    text = dumps(topo, "ibsim")
    assert 'Hca\t1 "H-0002c90000000700"\t\t# "h#0"' in text and '[1]\t"H-0002c90000000700"[1]' in text
    for fmt in ("ibsim", "ibnetdiscover"):
        back = parse(dumps(topo, fmt))
        assert back.names == topo.names and link_set(back) == link_set(topo)


def test_node_without_ports_is_written_with_one():
    topo = from_spec("fat-tree:radix=4,levels=2")
    topo.add_node("lonely", "switch")
    back = parse(dumps(topo, "ibsim"))
    assert back.nports[-1] == 1 and back.n_links == 16


# ---------------------------------------------------------------- real-style files
def test_real_style_ibnetdiscover_file():
    topo = read(DATA / "ibnetdiscover-2sw-4hca.txt")
    ids = [
        "S-0002c903007b8a30",
        "S-0002c903007b8b50",
        "H-0002c9030045f0e0",
        "H-0002c9030045f100",
        "H-0002c9030045f120",
        "H-0002c9030045f140",
    ]
    assert topo.names == [
        "MF0;switch-abc:MSX6036/U1",
        "MF0;switch-def:MSX6036/U1",
        "node01",
        "node02",
        "node03",
        "node04",
    ]
    assert [topo.index(i) for i in ids] == list(range(6))  # the file's ids still find their nodes
    assert topo.kind.tolist() == [SWITCH, SWITCH] + [ENDPOINT] * 4 and topo.nports.tolist() == [36, 36, 2, 2, 2, 2]
    assert topo.guid.tolist() == [
        0x2C903007B8A30,
        0x2C903007B8B50,
        0x2C9030045F0E0,
        0x2C9030045F100,
        0x2C9030045F120,
        0x2C9030045F140,
    ]
    assert topo.desc == [
        "MF0;switch-abc:MSX6036/U1",
        "MF0;switch-def:MSX6036/U1",
        "node01 HCA-1",
        "node02 HCA-1",
        "node03 HCA-1",
        "node04 HCA-1",
    ]
    assert topo.port_guids == {
        (0, 0): 0x2C903007B8A30,
        (1, 0): 0x2C903007B8B50,
        (2, 1): 0x2C9030045F0E1,
        (3, 1): 0x2C9030045F101,
        (4, 1): 0x2C9030045F121,
        (5, 1): 0x2C9030045F141,
        (5, 2): 0x2C9030045F142,
    }
    assert list(
        zip(topo.link_a.tolist(), topo.link_pa.tolist(), topo.link_b.tolist(), topo.link_pb.tolist(), strict=True)
    ) == [(0, 1, 2, 1), (0, 2, 3, 1), (0, 3, 5, 2), (0, 35, 1, 35), (0, 36, 1, 36), (1, 1, 4, 1), (1, 2, 5, 1)]
    assert topo.meta == {"format": "ibnetdiscover"} and not topo.broken.any()
    crlf = (DATA / "ibnetdiscover-2sw-4hca.txt").read_bytes().replace(b"\n", b"\r\n")
    assert b"\r\n" in crlf and parse(crlf, "crlf.txt") == topo
    assert parse(crlf.decode(), "crlf.txt") == parse(b"\xef\xbb\xbf" + crlf, "bom.txt") == topo


def test_ibsim_net_file():
    topo = read(DATA / "ibsim-2sw-4hca.net")
    assert topo.names == ["Switch1", "Switch2", "Hca1", "Hca2", "Hca3", "Hca4"]
    assert topo.meta == {"format": "ibsim"} and topo.desc == ["", "spine switch", "", "", "", ""]
    assert topo.guid.tolist() == [
        0x8F10400410010,
        0x8F10400410020,
        0x8F10403960100,
        0x8F10403960200,
        0x8F10403960300,
        0x8F10403960400,
    ]
    assert topo.port_guids == {}
    assert link_set(topo) == link_set(
        Topology.from_arrays(
            topo.names,
            topo.kind,
            topo.nports,
            [(0, 1, 2, 1), (0, 2, 4, 1), (0, 3, 1, 3), (0, 5, 1, 5), (1, 1, 3, 1), (1, 2, 5, 2)],
        )
    )


def test_output_of_real_ibnetdiscover_on_ibsim():
    """tests/data holds what ibnetdiscover printed for our ibsim export of the fat tree, run in ibsim."""
    original = from_spec("fat-tree:radix=4,levels=2")
    topo = read(DATA / "ibsim-fat-tree-radix4-levels2.ibnetdiscover.txt")
    check_rediscovered(original, topo)


def check_rediscovered(original: Topology, topo: Topology) -> None:
    """``topo`` is ibnetdiscover's view of ``original``: ids S-/H-guid, descriptions and so names our names."""
    assert sorted(topo.desc) == sorted(original.names) and topo.n_links == original.n_links
    assert topo.names == topo.desc
    index = [original.index(d) for d in topo.desc]
    assert link_set(topo, names=topo.desc) == link_set(original)
    assert all(topo.kind[i] == original.kind[j] and topo.nports[i] == original.nports[j] for i, j in enumerate(index))
    assert all(int(topo.guid[i]) == GUID_BASE + 256 * (j + 1) for i, j in enumerate(index))
    prefix = {SWITCH: "S", ENDPOINT: "H"}
    assert all(topo.index(f"{prefix[int(topo.kind[i])]}-{int(topo.guid[i]):016x}") == i for i in range(topo.n_nodes))


# ---------------------------------------------------------------- the real ibsim
def ibsim_output(path: Path) -> str:
    """Let ibsim parse and connect ``path``, quit, and return what it printed."""
    proc = subprocess.run(["ibsim", "-v", "-s", str(path)], input="Quit\n", capture_output=True, text=True, timeout=30)
    out = proc.stdout + proc.stderr
    if proc.returncode and "can't bind" in out:
        pytest.skip("another ibsim is running here")
    assert proc.returncode == 0, out
    return out


@pytest.mark.skipif(shutil.which("ibsim") is None, reason="ibsim not installed (apt-get install ibsim-utils)")
@pytest.mark.parametrize("fmt", ["ibsim", "ibnetdiscover"])
@pytest.mark.parametrize("spec", ["fat-tree:radix=4,levels=3", "dragonfly:a=4,p=2,h=2", "torus:3x3x2,hosts=2"])
def test_real_ibsim_accepts_export(tmp_path, spec, fmt):
    topo = edited(from_spec(spec), odd_name=False)
    path = tmp_path / f"fabric.{fmt}"
    write(topo, path, fmt)
    out = ibsim_output(path)
    assert "Network simulator ready." in out and "fatal" not in out
    assert f"connect_ports: {2 * topo.n_links} ports connected" in out
    assert f"{path}: parsed {len(path.read_text().splitlines())} lines" in out


def test_real_ibsim_rejects_what_the_reader_rejects(tmp_path):
    if shutil.which("ibsim") is None:
        pytest.skip("ibsim not installed")
    path = tmp_path / "bad.net"
    path.write_text('Switch 4 "s"\n[1] "h"[1]\n\nHca 1 "h"\n[1] "s"[2]\n')
    proc = subprocess.run(["ibsim", "-s", str(path)], input="Quit\n", capture_output=True, text=True, timeout=30)
    assert proc.returncode != 0 and "is not connected to" in proc.stdout + proc.stderr
    with pytest.raises(FileFormatError, match="disagree"):
        read(path)


def test_real_ibnetdiscover_through_ibsim(tmp_path):
    """Export -> ibsim -> the real ibnetdiscover -> our reader gives back the same fabric."""
    original = from_spec("dragonfly:a=4,p=2,h=2")
    net = tmp_path / "fabric.net"
    write(original, net)
    with ibtools.simulated(net, lids=False) as run:
        text = run("ibnetdiscover")
    topo = parse(text, "ibnetdiscover-output")
    assert topo.meta == {"format": "ibnetdiscover"}
    check_rediscovered(original, topo)


# ---------------------------------------------------------------- malformed input: one clear error each
def test_truncated_files():
    text = (DATA / "ibnetdiscover-2sw-4hca.txt").read_text()
    cut = text[: text.index('Ca\t2 "H-0002c9030045f120"')]  # stanzas of node03/node04 missing
    fails(cut, r"^cut\.txt, line 13: dangling peer 'H-0002c9030045f140'.*truncated file", "cut.txt")
    mid = text[: text.rindex("[2](")]  # node04's second port line missing
    fails(mid, r"line 13: 'S-0002c903007b8a30'\[3\] links to 'H-0002c9030045f140'\[2\].*truncated file", "mid.txt")
    line = text[: text.index("[3]\t") + 12]  # a port line cut in the middle
    fails(line, r"line 13: malformed port line", "line.txt")


def test_port_out_of_range():
    fails('Switch 4 "s"\n[5] "h"[1]\n', r"^bad\.net, line 2: port 5 of 's' is outside 1\.\.4$")
    fails('Switch 4 "s"\n[0] "h"[1]\n', r"line 2: port 0 of 's' is outside 1\.\.4")
    fails('Switch 4 "s"\n[1] "h"[2]\n\nHca 1 "h"\n[1] "s"[1]\n', r"line 2: peer port 2 of 'h' is outside 1\.\.1")


def test_port_used_twice():
    fails('Switch 4 "s"\n[1] "h"[1]\n[1] "g"[1]\n', r"line 3: port 1 of 's' is used twice \(first on line 2\)")


def test_dangling_peer():
    fails('Switch 4 "s"\n[1] "h"[1]\n', r"line 2: dangling peer 'h'")


def test_both_sides_disagree():
    fails(
        'Switch 4 "s"\n[1] "h"[1]\n[2] "g"[1]\n\nHca 1 "h"\n[1] "s"[2]\n\nHca 1 "g"\n[1] "s"[2]\n',
        r"line 2: the two sides disagree: 's'\[1\] links to 'h'\[1\], but line 6 links 'h'\[1\] to 's'\[2\]",
    )


def test_link_to_itself():
    fails('Switch 4 "s"\n[1] "s"[1]\n', r"line 2: port 1 of 's' is linked to itself")
    loop = parse('Switch 4 "s"\n[1] "s"[2]\n[2] "s"[1]\n[3] "h"[1]\n\nHca 1 "h"\n[1] "s"[3]\n', "loop.net")
    assert [loop.link_label(r) for r in range(loop.n_links)] == ["s[1]-s[2]", "s[3]-h[1]"]
    assert loop.meta["warnings"] == [
        "1 loopback cable between two ports of one switch kept (no route uses them): s[1]-s[2]"
    ]


def test_unknown_lines_are_skipped_and_counted_as_ibsim_does():
    topo = parse('ibwarn: [123] _do_madrpc: recv failed\nSwitch 4 "s"\n[1] "h"[1]\n\nHca 1 "h"\n[1] "s"[1]\n', "t.net")
    assert topo.n_links == 1 and topo.meta["warnings"] == [
        "skipped 1 line it does not know (line 1: 'ibwarn: [123] _do_madrpc: recv failed')"
    ]


def test_duplicate_guid_and_name():
    fails('switchguid=0x10\nSwitch 4 "a"\n\ncaguid=0x10\nCa 1 "b"\n', r"line 5: duplicate GUID 0x0000000000000010")
    fails('Switch 4 "a"\n\nHca 1 "a"\n', r"line 3: duplicate node name 'a' \(first on line 1\)")
    fails('Switch 4 ""\n', r"line 1: empty node name")


def test_routers_are_read_as_switches():
    topo = parse(
        'rtguid=0x10\nRt 2 "R-0000000000000010" # "gw-1"\n[1] "H-0000000000000020"[1]\n\n'
        'caguid=0x20\nCa 1 "H-0000000000000020" # "node01 HCA-1"\n[1] "R-0000000000000010"[1]\n',
        "rt.txt",
    )
    assert topo.names == ["gw-1", "node01"] and topo.kind.tolist() == [SWITCH, ENDPOINT]
    assert topo.guid.tolist() == [0x10, 0x20] and topo.index("R-0000000000000010") == 0
    assert topo.meta["warnings"] == ["1 router read as switches: R-0000000000000010"]


def test_unsupported_text():
    fails('Switch 4 "s"\n@[1] "alias"\n', r"line 2: ibsim port aliases \('@'\) are not supported")
    fails('[1] "s"[1]\n', r"line 1: port line outside a Switch/Ca/Hca stanza")
    fails('include "other.net"\n', r"line 1: ibsim 'include' lines are not supported")
    fails('module="x"\nSwitch 4 "s"\n', r"line 1: ibsim 'module' prefixes")
    fails('Switch four "s"\n', r"line 1: malformed node line")
    fails('Switch 4 "s" x\n', r"line 1: unexpected text 'x'")
    fails('Switch 4 "s"\n[1] "h"[1] junk\n', r"line 2: unexpected text 'junk'")
    fails("switchguid=0xzz\n", r"line 1: bad GUID")
    fails("switchguid=0x1234567890abcdef12\n", r"line 1: GUID .* does not fit in 64 bits")
    fails("vendid=0x2c9\n", r"^bad\.net: no Switch, Ca or Hca node found$")


def test_huge_claims_fail_before_allocating(monkeypatch):
    fails('Switch 10000000 "x"\n', r"line 1: port count 10000000 is above the limit of 65,535")
    fails('Hca 99999999999999999999 "x"\n', r"line 1: port count 99999999999999999999 is above the limit")
    fails('Switch 4 "x"\n[70000] "y"[1]\n', r"line 2: port 70000 is above the limit")
    text = dumps(from_spec("fat-tree:radix=4,levels=2"), "ibsim")
    json_text, graphml = (
        dumps(from_spec("fat-tree:radix=4,levels=2"), "json"),
        dumps(from_spec("fat-tree:radix=4,levels=2"), "graphml"),
    )
    monkeypatch.setattr(model, "MAX_NODES", 3)
    fails(text, r"line 26: more than the limit of 3 nodes")  # the 4th Switch line
    fails(json_text, r"^t\.json: 14 nodes is more than the limit of 3$", "t.json")
    fails(graphml, r"^t\.graphml: 14 nodes is more than the limit of 3$", "t.graphml")


def test_xml_entity_tricks_are_refused():
    laughs = (
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected">'
        '<node id="&lol3;"/></graph></graphml>'
    )
    fails(laughs, r"^x\.graphml: XML with a DTD, entities or external references is refused", "x.graphml")
    external = (
        '<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph><node id="&xxe;"/></graph></graphml>'
    )
    fails(external, r"XML with a DTD, entities or external references is refused", "x.graphml")
    fails("<graphml><graph>\n<node id='a'></graph>", r"^x\.graphml, line 2: not well-formed XML", "x.graphml")


def test_graphml_missing_or_wrong_attributes():
    text = dumps(from_spec("fat-tree:radix=4,levels=2"), "graphml")
    key = re.search(r'<key id="(d\d+)" for="node" attr.name="nports"', text).group(1)
    fails(re.sub(f'<data key="{key}">4</data>', "", text, count=1), r"node 'leaf0' has no attribute 'nports'", "t.xml")
    key = re.search(r'<key id="(d\d+)" for="edge" attr.name="pb"', text).group(1)
    fails(
        re.sub(f'<data key="{key}">\\d+</data>', "", text, count=1),
        r"edge 0 \('leaf0' - 'h0'\) has no attribute 'pb'",
        "t.xml",
    )
    key = re.search(r'<key id="(d\d+)" for="graph" attr.name="meta"', text).group(1)
    fails(
        re.sub(f'<data key="{key}">[^<]*</data>', f'<data key="{key}">{{oops</data>', text),
        r"the graph attribute 'meta' is not valid JSON",
        "t.xml",
    )
    fails(text.replace("vizcoll.topology/1", "other/2"), r"not a vizcoll GraphML file", "t.xml")
    fails(text.replace(">switch<", ">router<", 1), r"wrong type or value", "t.xml")
    import networkx as nx

    other = parse("\n".join(nx.generate_graphml(nx.path_graph(3))), "t.xml")  # anyone's graph: all switches
    assert other.names == ["0", "1", "2"] and other.n_links == 2 and len(other.switches) == 3
    fails(
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph><data key="nope">1</data></graph></graphml>',
        r"the graph has no nodes",
        "t.xml",
    )


def test_json_errors():
    data = from_spec("fat-tree:radix=4,levels=2").to_dict()
    fails(json.dumps({**data, "schema": "other/1"}), r"^t\.json: not a vizcoll topology: the field 'schema'", "t.json")
    fails(json.dumps({k: v for k, v in data.items() if k != "links"}), r"^t\.json: missing field 'links'$", "t.json")
    bad = json.loads(json.dumps(data))
    bad["nodes"]["ports"][0] = "many"
    fails(json.dumps(bad), r"wrong type or value", "t.json")
    bad["nodes"]["ports"][0] = 10**30
    fails(json.dumps(bad), r"wrong type or value", "t.json")
    bad["nodes"]["ports"][0] = -5  # the message names the count, not a range "1..-5"
    fails(json.dumps(bad), r"^t\.json: node 'leaf0' has -5 ports \(at least 1\)$", "t.json")
    for name in (1, [1], None, ""):  # not "used twice" nor a name made up by str()
        named = json.loads(json.dumps(data))
        named["nodes"]["name"][:2] = [name, name]
        said = re.escape(repr(name))
        fails(json.dumps(named), rf"^t\.json: 'nodes\.name' 0 must be non-empty text \(it is {said}\)$", "t.json")
    fails('{"schema": \n oops}', r"^t\.json, line 2: not valid JSON", "t.json")
    fails(
        "not json at all",
        r"^t\.json: cannot tell the format; tried vizcoll JSON or node-link JSON \(line 1: 'n' "
        r"where a JSON topology starts with '\{'\)",
        "t.json",
    )  # the content tells, never the name
    fails("[" * 100_000, r"not valid JSON", "t.json")
    fails('{"a": ' + "1" * 5000 + "}", r"not valid JSON", "t.json")


def test_garbage_empty_and_too_large(tmp_path):
    fails(bytes(range(256)) * 4, r"^bad\.net, line 2: not UTF-8 text \(byte 128\)$")
    error = fails("\x00\x01\x02garbage\nmore", r"^bad\.net: cannot tell the format; tried vizcoll JSON")
    for title in (
        "GraphML",
        "ibnetdiscover output or ibsim net file",
        "ibnetdiscover ports report",
        "iblinkinfo output",
        "Slurm topology.conf",
    ):  # every format, with the line that ruled it out
        assert re.search(rf"{title}[^;]*\(line 1: '\\x00", str(error)), title
    fails("ok\n\ud800", r"line 2: the text holds an invalid character")
    for empty in (b"", "", " \n\r\n\t"):
        fails(empty, r"^bad\.net: the file is empty$")
    fails(b" " * (MAX_FILE_BYTES + 1), r"the file is 20,971,521 bytes; the limit is 20,971,520")
    big = tmp_path / "big.net"
    with big.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(FileFormatError, match=r"big\.net: the file is larger than the limit"):
        read(big)


# ---------------------------------------------------------------- fuzzing: only FileFormatError, never a crash
def parse_or_error(data) -> None:
    try:
        topo = parse(data, "fuzz")
    except FileFormatError as exc:
        assert str(exc).startswith("fuzz")
        return
    topo.validate()
    assert isinstance(topo, Topology) and topo.n_nodes > 0


FRAGMENTS = [
    'Switch 4 "s"',
    'Switch 2 "t"',
    'Hca 1 "h"',
    'Ca 2 "c"\t# "desc"',
    "[1]",
    "[2]",
    "[3]",
    '"s"',
    '"h"',
    '"c"',
    "[1](2c9)",
    "[ext 5]",
    "switchguid=0x10(10)",
    "caguid=0x20",
    "# comment",
    " ",
    "\t",
    "\r",
    "\n",
    "\n\n",
    "lid 3 4xQDR",
    "w=3",
    "0x",
    "{",
    "<",
    "'",
    '"',
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.binary(max_size=300), st.text(max_size=300), st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
    )
)
def test_fuzz_never_crashes(data):
    parse_or_error(data)


VALID = [dumps(from_spec("fat-tree:radix=4,levels=2"), fmt) for fmt in writable()]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VALID), st.integers(0, 10**9), st.integers(0, 10**9), st.text(max_size=5))
def test_fuzz_mutated_valid_files(text, start, length, insert):
    start %= len(text)
    parse_or_error(text[:start] + insert + text[start + length % 40 :])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VALID[2:]), st.lists(st.integers(0, 10**6), max_size=4))
def test_fuzz_dropped_lines(text, drops):
    lines = text.split("\n")
    for d in drops:
        lines.pop(d % len(lines))
    parse_or_error("\n".join(lines))


# ---------------------------------------------------------------- detection, read/write/load
def test_detection_and_api(tmp_path):
    assert writable() == ("json", "graphml", "ibnetdiscover", "ibsim") and topo_io.MAX_FILE_BYTES == 20 * 1024 * 1024
    topo = from_spec("torus:3x3x2,hosts=2")
    for ext, fmt, head in (
        (".json", "json", "{"),
        (".graphml", "graphml", "<"),
        (".xml", "graphml", "<"),
        (".net", "ibsim", "# ibsim net file"),
        (".ibnd", "ibnetdiscover", "# Topology file"),
        (".txt", "ibnetdiscover", "# Topology file"),
    ):
        path = tmp_path / f"t{ext}"
        write(topo, path)
        assert path.read_text().startswith(head), ext
        back = read(path)
        assert (back == topo) if fmt in ("json", "graphml") else back.meta == {"format": fmt}
        assert load(str(path)).names == topo.names
    write(topo, tmp_path / "t.anything", "ibsim")
    assert read(tmp_path / "t.anything").meta == {"format": "ibsim"}
    with pytest.raises(FileFormatError, match=r"cannot tell the format from the extension '\.dot'"):
        write(topo, tmp_path / "t.dot")
    with pytest.raises(FileFormatError, match="unknown format 'dot'"):
        dumps(topo, "dot")
    with pytest.raises(FileFormatError, match=r"missing\.json: cannot read the file"):
        read(tmp_path / "missing.json")
    with pytest.raises(FileFormatError, match=r"missing\.json: no such file"):
        load(str(tmp_path / "missing.json"))
    with pytest.raises(SpecError, match="unknown topology"):
        load("no-such-generator:3")
    assert load("mesh:3x3,neighbors=8") == from_spec("mesh:3x3,neighbors=8")
    assert parse(TINY_NET).meta == {"format": "ibsim"} and parse(TINY_NET.encode(), "x.txt").n_links == 1
    assert parse(TINY_NET.replace("Hca", "Ca")).meta == {"format": "ibnetdiscover"}


def test_ibsim_switchguid_with_a_0x_port_guid(tmp_path):
    """``switchguid=0x…(0x…)``: ibsim reads it (2 ports connected), so do we."""
    text = (
        'switchguid=0x0002c90200200001(0x0002c90200200001)\nSwitch\t8 "sw1"\n[1]\t"h1"[1]\n\n'
        'caguid=0x0002c90200200100\nHca\t1 "h1"\n[1]\t"sw1"[1]\n'
    )
    topo = parse(text, "net")
    assert topo.guid.tolist() == [0x0002C90200200001, 0x0002C90200200100]
    assert topo.port_guids == {(0, 0): 0x0002C90200200001} and topo.meta == {"format": "ibsim"}
    if shutil.which("ibsim"):
        path = tmp_path / "guids.net"
        path.write_text(text)
        assert "connect_ports: 2 ports connected" in ibsim_output(path)
