"""Topology edits, validation and the lossless dict form."""

import json

import pytest

from vizcoll.errors import TopologyError
from vizcoll.topology import Topology, from_spec


def roundtrip(t):
    return Topology.from_dict(json.loads(json.dumps(t.to_dict())))


def test_edits_keep_link_ids_stable_and_roundtrip():
    t = from_spec("mesh:3x3")
    ids_before = set(t.link_id.tolist())
    t.add_node("extra", "endpoint")
    new = t.add_link("extra", "sw0-0")
    assert new == max(ids_before) + 1
    t.set_broken(0)
    t.remove_node("sw1-1")
    remaining = set(t.link_id.tolist())
    assert remaining <= ids_before | {new} and 0 in remaining and 3 not in remaining
    t.rename("extra", "probe")
    assert t.index("probe") == t.n_nodes - 1
    assert roundtrip(t) == t
    assert t.broken[t.link_row(0)]


def test_add_link_uses_lowest_free_port_and_grows_radix():
    t = from_spec("fat-tree:radix=4,levels=2")
    t.add_node("x", "switch")
    t.add_link("x", "leaf0")
    row = t.link_row(int(t.link_id.max()))
    assert t.link_pb[row] == 5 and t.nports[t.index("leaf0")] == 5
    assert t.link_pa[row] == 1


@pytest.mark.parametrize(
    "action, message",
    [
        (lambda t: t.add_node("leaf0"), "already used"),
        (lambda t: t.add_link("leaf0", "leaf0"), "itself"),
        (lambda t: t.add_link("leaf0", "spine0", pa=3, pb=9), "port 3 of 'leaf0' is used"),
        (lambda t: t.remove_node("nope"), "no node named"),
        (lambda t: t.set_broken(999), "no link with id"),
        (lambda t: t.rename("leaf0", "leaf1"), "already used"),
    ],
)
def test_bad_edits_raise_and_leave_topology_unchanged(action, message):
    t = from_spec("fat-tree:radix=4,levels=2")
    before = t.to_dict()
    with pytest.raises(TopologyError, match=message):
        action(t)
    assert t.to_dict() == before


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(schema="x"), "schema"),
        (lambda d: d["nodes"].pop("ports"), "missing field 'ports'"),
        (lambda d: d["links"]["pa"].__setitem__(0, 99), "outside"),
        (lambda d: d["nodes"]["kind"].__setitem__(0, "router"), "wrong type or value"),
        (lambda d: d["links"]["b"].__setitem__(0, 10_000), "does not exist"),
    ],
)
def test_from_dict_names_the_bad_field(mutate, message):
    d = from_spec("fat-tree:radix=4,levels=2").to_dict()
    mutate(d)
    with pytest.raises(TopologyError, match=message):
        Topology.from_dict(d)


def test_ports_view_is_sorted_and_skips_broken_links():
    t = from_spec("fat-tree:radix=4,levels=2")
    leaf = t.index("leaf0")
    view = t.ports()
    assert view.port[view.of(leaf)].tolist() == [1, 2, 3, 4]
    t.set_broken(int(t.link_id[view.link[view.of(leaf)][2]]))
    assert t.ports().port[t.ports().of(leaf)].tolist() == [1, 2, 4]
    assert t.adjacency().nnz == 2 * (t.n_links - 1)
