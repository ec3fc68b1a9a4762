"""The one scenario: exact round trips (file and URL fragment), breaks named by their link, checked input."""

import base64
import json
import zlib
from dataclasses import replace

import numpy as np
import pytest

from vizcoll import uploads
from vizcoll.errors import VizcollError
from vizcoll.multicast.mcfdbs import dump_mcfdbs
from vizcoll.multicast.routing import route
from vizcoll.scenario import MAX_FRAGMENT_CHARS, MAX_TABLES_CHARS, Scenario
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import from_spec
from vizcoll.topology.model import ENDPOINT

MESH = "mesh:3x3,neighbors=4,hosts=1"


def edited() -> Scenario:
    s = Scenario(spec=MESH, pattern="grid2d:3x3")
    for edit in (
        {"op": "add_node", "name": "probe", "kind": "endpoint"},
        {"op": "add_link", "a": "probe", "b": "sw0-0"},
        {"op": "rename", "name": "sw2-2", "new": "corner"},
        {"op": "remove_link", "link": s.fabric().link_label(0)},
    ):
        s = s.with_edit(edit)
    return s.toggled(s.fabric().link_label(2)).with_params("trees", {"k": 4, "kind": "kary"})


def test_export_import_is_exact():
    s = edited()
    back = Scenario.loads(s.dumps())
    assert back == s
    assert back.topology() == s.topology()
    assert back.topology().names[-1] == "probe" and "corner" in back.topology().names
    assert back.params == {"trees": {"k": 4, "kind": "kary"}}


def test_fragment_round_trip_is_exact_and_compact():
    s = edited()
    text = s.to_fragment()
    assert Scenario.from_fragment(text) == s
    assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert len(text) < 600  # a generated fabric with a few edits fits any URL


def test_uploaded_fabric_travels_in_the_fragment_with_its_names_and_breaks():
    topo = from_spec("fat-tree:radix=4,levels=2")
    topo.rename("h0", "alpha")
    topo.broken[3] = True  # a broken link in the file becomes a scenario break
    s = Scenario.from_upload(topo, "cluster.json")
    assert s.broken == [topo.link_label(3)] and s.title == "cluster.json"
    back = Scenario.from_fragment(s.to_fragment())
    assert back.topology() == topo
    assert "alpha" in back.topology().names


def test_toggle_twice_repairs_and_either_end_names_the_same_link():
    s = Scenario(spec=MESH)
    label = s.fabric().link_label(4)
    a, b = label.split("]-")
    reversed_label = f"{b}-{a}]"
    broken = s.toggled(label)
    assert broken.broken == [label] and broken.topology().broken.sum() == 1
    assert broken.toggled(reversed_label).broken == []


def test_a_break_names_its_link_so_resizing_never_moves_it():
    small = Scenario(spec="mesh:4x4,neighbors=4,hosts=0")
    label = small.fabric().link_label(20)
    big = Scenario(spec="mesh:6x6,neighbors=4,hosts=0", broken=small.toggled(label).broken)
    topo = big.topology()
    row = topo.find_link(label)
    assert row is not None and topo.broken[row] and topo.broken.sum() == 1
    assert topo.link_id[row] != 20  # the same cable has another id in the larger grid
    tiny = Scenario(spec="mesh:2x2,neighbors=4,hosts=0", broken=[label])
    assert tiny.missing_breaks(tiny.fabric()) == [label] and tiny.topology().broken.sum() == 0


def test_rename_carries_breaks_along_and_remove_node_leaves_them_missing():
    s = Scenario(spec=MESH)
    topo = s.fabric()
    row = int(next(r for r in range(topo.n_links) if topo.names[topo.link_a[r]] == "sw1-1"))
    s = s.toggled(topo.link_label(row))
    renamed = s.with_edit({"op": "rename", "name": "sw1-1", "new": "middle"})
    assert renamed.broken[0].startswith("middle[") and renamed.topology().broken.sum() == 1
    gone = renamed.with_edit({"op": "remove_node", "name": "middle"})
    assert gone.missing_breaks(gone.fabric()) == gone.broken and gone.topology().broken.sum() == 0


def test_with_breaks_checks_every_label():
    s = Scenario(spec=MESH)
    labels = [s.fabric().link_label(r) for r in (1, 2)]
    assert s.with_breaks(labels).broken == labels
    with pytest.raises(VizcollError, match="no link nowhere"):
        s.with_breaks(["nowhere[1]-else[1]"])
    with pytest.raises(VizcollError, match="end\\[port\\]-end\\[port\\]"):
        s.with_breaks(["17"])


def test_old_scenario_files_are_converted():
    old = {
        "schema": "vizcoll.scenario/1",
        "spec": "mesh:3x3",
        "pattern": "",
        "edits": [{"op": "toggle_broken", "id": 4}, {"op": "remove_link", "id": 2}],
        "communicators": {"pattern": "grid2d:3x3", "ppn": 1},
        "params": {"root": "h0-0"},
    }
    topo = from_spec("mesh:3x3")
    s = Scenario.from_dict(old)
    assert s.broken == [topo.link_label(topo.link_row(4))]
    assert s.edits == [{"op": "remove_link", "link": topo.link_label(topo.link_row(2))}]
    assert s.params == {"topology": {"root": "h0-0"}} and s.pattern == "grid2d:3x3"
    assert s.topology().n_links == topo.n_links - 1 and s.topology().broken.sum() == 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("not json", "not valid JSON"),
        ('{"schema": "other"}', "not a vizcoll scenario"),
        ('{"schema": "vizcoll.scenario/2", "fabric": {"spec": "fat-tree:radix=3"}}', "even"),
        (
            '{"schema": "vizcoll.scenario/2", "fabric": {"spec": "mesh:2x2"}, "edits": [{"op": "explode"}]}',
            "unknown edit",
        ),
        ('{"schema": "vizcoll.scenario/2", "fabric": {"spec": "mesh:2x2"}, "edits": 5}', "must be a list"),
        ('{"schema": "vizcoll.scenario/2", "fabric": {"spec": "mesh:2x2"}, "broken": [1, 2]}', "list of texts"),
        (
            '{"schema": "vizcoll.scenario/2", "fabric": {"spec": "mesh:2x2"}, "communicators": [1, 2]}',
            "'communicators' must be an object",
        ),
        (
            '{"schema": "vizcoll.scenario/2", "fabric": {"spec": "mesh:2x2"}, "communicators": {"ppn": "abc"}}',
            "processes per node",
        ),
        (
            '{"schema": "vizcoll.scenario/2", "fabric": {"spec": "mesh:2x2"}, "communicators": {"lists": [[1]]}}',
            "lists of end-node names",
        ),
        (
            '{"schema": "vizcoll.scenario/2", "fabric": {"spec": "mesh:2x2"}, "params": {"trees": {"k": [1]}}}',
            "plain values",
        ),
        ('{"schema": "vizcoll.scenario/2", "fabric": {}}', "needs 'fabric.spec'"),
        ('{"schema": "vizcoll.scenario/2", "fabric": {"spec": 7}}', "'fabric.spec' must be a text"),
        ('{"schema": "vizcoll.scenario/2", "fabric": {"uploaded": {"schema": "x"}}}', "not a vizcoll topology"),
        ("[1, 2]", "not a vizcoll scenario"),
    ],
)
def test_bad_scenarios_give_clear_errors(text, message):
    with pytest.raises(VizcollError, match=message):
        Scenario.loads(text)


@pytest.mark.parametrize(
    "fragment, message",
    [
        ("!!!", "damaged"),
        ("abc", "damaged"),
        (base64.urlsafe_b64encode(zlib.compress(b"[1]")).decode(), "not a vizcoll scenario"),
        ("A" * (MAX_FRAGMENT_CHARS + 1), "too long"),
    ],
)
def test_bad_fragments_give_clear_errors(fragment, message):
    with pytest.raises(VizcollError, match=message):
        Scenario.from_fragment(fragment)


def test_a_fragment_that_inflates_beyond_the_limit_is_refused():
    bomb = zlib.compress(b'{"schema":"' + b" " * (70 * 1024 * 1024) + b'"}', 9)
    with pytest.raises(VizcollError, match="larger than"):
        Scenario.from_fragment(base64.urlsafe_b64encode(bomb).decode())


def test_bad_edit_is_rejected_and_scenario_unchanged():
    s = Scenario(spec="mesh:2x2")
    with pytest.raises(VizcollError, match="no node named"):
        s.with_edit({"op": "remove_node", "name": "ghost"})
    with pytest.raises(VizcollError, match="non-empty text"):
        s.with_edit({"op": "add_node", "name": 5})
    with pytest.raises(VizcollError, match="port number"):
        s.with_edit({"op": "add_link", "a": "sw0-0", "b": "sw1-1", "pa": -5})
    assert s.edits == []


def test_communicators_from_pattern_lists_and_refused_paths():
    topo = Scenario(spec="mesh:3x3").topology()
    grid = Scenario(spec="mesh:3x3", pattern="grid2d:3x3").communicators(topo)
    assert grid.sizes() == {3: 6}
    lists = Scenario(spec="mesh:3x3", lists=[["h0-0", "h0-0", "h1-1"], ["h2-2"]])
    back = Scenario.loads(lists.dumps())
    assert back.lists == lists.lists and back.communicators(topo).sizes() == {3: 1, 1: 1}
    assert back.name_lists(topo) == lists.lists
    assert Scenario(spec="mesh:3x3").communicators(topo) is None
    with pytest.raises(VizcollError, match="upload a communicators file"):
        Scenario(spec="mesh:3x3", pattern="/etc/passwd.json").communicators(topo)


def test_scenario_file_is_plain_json_with_the_documented_keys():
    data = json.loads(edited().dumps())
    assert data["schema"] == "vizcoll.scenario/2"
    assert set(data) == {"schema", "fabric", "edits", "broken", "communicators", "params"}
    assert set(data["fabric"]) == {"spec", "uploaded", "name"}
    assert set(json.loads(replace(edited(), mcast_tables="x").dumps())) == set(data) | {"multicast_tables"}


def test_ibsim_upload_keeps_the_files_host_names():
    text = """Switch 4 "core"
[1] "alpha"[1]
[2] "beta"[1]

Hca 1 "alpha"
[1] "core"[1]

Hca 1 "beta"
[1] "core"[2]
"""
    s = Scenario.from_upload(topo_io.parse(text, "two.net"), "two.net")
    assert sorted(s.topology().names) == ["alpha", "beta", "core"]
    assert s.toggled("alpha[1]-core[1]").topology().broken.sum() == 1


# ---------------------------------------------------------------- the fabric's multicast tables
TABLES = "\nSwitch 0x0002c90000000100\nLID    : Out Port(s)\n0xC001 : 0x001  0x002 \n"


def test_multicast_tables_round_trip_in_files_and_fragments():
    s = replace(edited(), mcast_tables=TABLES)
    data = json.loads(s.dumps())
    assert data["multicast_tables"] == TABLES and data["schema"] == "vizcoll.scenario/2"
    assert Scenario.loads(s.dumps()) == s and Scenario.from_fragment(s.to_fragment()) == s
    assert Scenario.from_fragment(s.to_fragment()).mcast_tables == TABLES  # byte for byte, blanks kept
    # they do not change the topology, so the cache keys of the fabric stay the same
    assert s.source_key() == edited().source_key() and s.topology() == edited().topology()
    # a scenario without tables writes no key, and a file without the key (every older file) opens with none
    assert "multicast_tables" not in edited().to_dict()
    assert Scenario.loads(edited().dumps()).mcast_tables is None
    # every change made on top keeps them; a new fabric is a new scenario, without them
    assert s.toggled(s.fabric().link_label(5)).mcast_tables == TABLES
    assert s.with_params("trees", {"k": 2}).mcast_tables == TABLES
    assert Scenario.from_upload(s.topology(), "x.json").mcast_tables is None


@pytest.mark.parametrize("value", [7, ["Switch"], {"text": TABLES}, "", "  \n ", "x" * (MAX_TABLES_CHARS + 1), True])
def test_forged_multicast_tables_give_a_clear_error(value):
    data = Scenario(spec=MESH).to_dict() | {"multicast_tables": value}
    with pytest.raises(
        VizcollError,
        match="'multicast_tables' must be the non-empty text of an opensm.mcfdbs dump of at most 4,194,304 characters",
    ):
        Scenario.from_dict(data)
    with pytest.raises(VizcollError, match="multicast_tables"):
        Scenario.from_fragment(base64.urlsafe_b64encode(zlib.compress(json.dumps(data).encode())).decode())


def test_the_largest_tables_still_fit_the_share_link():
    """A real dump (FULB-MC, 2,200 groups of 64 end nodes on a 1,344-node fat tree) cut at the limit."""
    topo = from_spec("fat-tree:radix=16,levels=3")
    ends = np.flatnonzero(topo.kind == ENDPOINT)
    rng = np.random.default_rng(7)
    groups = [rng.choice(ends, 64, replace=False) for _ in range(2200)]
    dump = dump_mcfdbs(topo, route(topo, groups, "fulb"))[:MAX_TABLES_CHARS]
    s = Scenario(spec="fat-tree:radix=16,levels=3", mcast_tables=dump)
    assert len(dump) == MAX_TABLES_CHARS and len(s.to_fragment()) < MAX_FRAGMENT_CHARS / 2
    assert Scenario.from_fragment(s.to_fragment()).mcast_tables == dump


# ---------------------------------------------------------------- the uploaded fabric kept once, by its hash
def campus() -> Scenario:
    from tests.fabrics import campus_cluster

    return Scenario.from_upload(topo_io.parse(campus_cluster(), "campus.txt"), "campus.txt")


def test_a_thin_scenario_carries_the_fabrics_hash_and_builds_the_same_fabric():
    full = campus()
    assert full.ref == uploads.content_ref(full.uploaded) and full.ref.startswith("sha256:")
    thin = full.to_dict(thin=True)
    assert thin["fabric"] == {"spec": "", "uploaded": None, "ref": full.ref, "name": "campus.txt"}
    assert len(json.dumps(thin)) < 1_000 < 200_000 < len(json.dumps(full.to_dict()))  # bytes on the wire
    back = Scenario.from_dict(thin)
    assert back == full and back.uploaded is None  # equal: the same ref names the same fabric
    assert back.topology() == full.topology() and back.title == "campus.txt"
    assert Scenario(**back.source_key()).topology() == full.topology()  # the cache keys' form
    assert Scenario.from_fragment(back.to_fragment()).to_dict() == full.to_dict()  # links carry the fabric
    assert json.loads(back.dumps()) == full.to_dict()  # so do files


def test_a_ref_the_store_does_not_hold_is_refused_with_a_way_out(monkeypatch):
    thin = campus().to_dict(thin=True)
    monkeypatch.setattr(uploads, "_store", uploads.MemoryStore())  # another server, or this one restarted
    with pytest.raises(VizcollError, match="uploaded fabric is no longer on the server .* open your share link"):
        Scenario.from_dict(thin)
    for forged in ("sha256:" + "0" * 64, "md5:abc", 42):
        with pytest.raises(VizcollError, match="no longer on the server"):
            Scenario.from_dict({**thin, "fabric": {**thin["fabric"], "ref": forged}})


def test_a_fabric_sent_whole_is_hashed_again_whatever_ref_comes_with_it():
    full = campus().to_dict()
    small = from_spec("fat-tree:radix=4,levels=2").to_dict()
    forged = {**full, "fabric": {**full["fabric"], "uploaded": small, "ref": campus().ref}}
    opened = Scenario.from_dict(forged)
    assert opened.ref == uploads.content_ref(small) != campus().ref and opened.topology().n_nodes == 14
