"""The shell's callbacks: the badge, the share link and scenario files (no browser; pages: test_routing.py)."""

from __future__ import annotations

import base64

import pytest
from dash import no_update

from tests.callback_context import in_callback, with_props
from tests.probe import probe
from vizcoll.scenario import Scenario
from vizcoll.ui import routing, shell
from vizcoll.ui.store import DEFAULT_SCENARIO, SCENARIO, fabric_of, topology_of

BREAK = "edge0.0[4]-agg0.1[1]"


def text(component) -> str:
    """Every string inside a component tree, joined by spaces."""
    if isinstance(component, str | int | float):
        return str(component)
    if isinstance(component, list | tuple):
        return " ".join(text(c) for c in component)
    children = getattr(component, "children", None)
    return "" if children is None else text(children)


def data_url(raw: str | bytes) -> str:
    raw = raw.encode() if isinstance(raw, str) else raw
    return "data:application/json;base64," + base64.b64encode(raw).decode()


def test_the_badge_names_the_fabric_counts_it_and_lists_the_breaks():
    words = text(shell.render_badge(DEFAULT_SCENARIO.to_dict()))
    for part in (
        "fat-tree:radix=4,levels=3",
        "20 switches",
        "16 end nodes",
        "48 links",
        "1 broken",
        f"{BREAK} (link 17)",
        "repair",
    ):
        assert part in words, part
    assert "0 broken" in text(shell.render_badge(DEFAULT_SCENARIO.with_breaks([]).to_dict()))


def test_a_break_whose_link_is_gone_is_listed_as_missing():
    gone = DEFAULT_SCENARIO.with_edit({"op": "remove_node", "name": "edge0.0"})
    words = text(shell.badge(gone, topology_of(gone), fabric_of(gone)))
    assert f"⚠ {BREAK}: no such link" in words and "forget" in words and "0 broken" in words


def test_repair_from_the_badge():
    button = '{"link":"' + BREAK + '","type":"scenario-repair"}.n_clicks'
    answer = in_callback(shell.repair, button, clicks=[1], scenario=DEFAULT_SCENARIO.to_dict(), trigger_value=1)
    assert Scenario.from_dict(answer["store"]).broken == [] and answer["message"] == ""
    # a badge drawn again (n_clicks 0) is no click
    assert in_callback(shell.repair, button, clicks=[0], scenario=DEFAULT_SCENARIO.to_dict(), trigger_value=0) == {}
    forged = in_callback(shell.repair, button, clicks=[1], scenario={"spec": 5}, trigger_value=1)
    assert set(forged) == {"message"} and forged["message"].startswith("⚠")


def test_the_share_link_carries_the_whole_scenario_in_the_fragment():
    edited = DEFAULT_SCENARIO.with_edit({"op": "add_node", "name": "probe", "kind": "endpoint"})
    shared = shell.render_share(edited.to_dict(), "/trees", "http://example.org:8050/topology#old")
    href, title = shared["href"], shared["title"]
    assert href.startswith("http://example.org:8050/trees#s=") and "Copy this link" in title
    assert Scenario.from_fragment(shell.fragment_of(href.partition("#")[2])) == edited
    assert shell.render_share({"spec": 5}, "/trees", "http://h/") == {}  # an unreadable store: the link stays


def test_a_scenario_too_large_for_a_url_gets_the_page_url(monkeypatch):
    monkeypatch.setattr(shell, "MAX_FRAGMENT_CHARS", 10)
    href, title = shell.share_href(DEFAULT_SCENARIO, "http://h/", "/multicast")
    assert href == "http://h/multicast" and "Download scenario" in title


def opened(hash_: str, data) -> tuple:
    """What the router's answer to a page opened at ``#hash_`` on a tab whose store holds ``data`` sends besides
    the page: (the store's new data or no_update, the message line)."""
    _, props = with_props(routing.page_scenario, {"shell_hash": hash_, "shell_scenario": data})
    return props.get(SCENARIO, {}).get("data", no_update), props.get(shell.MESSAGE, {}).get("children", "")


def test_a_link_fills_the_store_and_a_damaged_link_says_so():
    fragment = "#s=" + DEFAULT_SCENARIO.with_breaks([]).to_fragment()
    store, message = opened(fragment, None)
    assert Scenario.from_dict(store).broken == [] and message == ""
    store, message = opened("#s=AAAA", None)  # a new tab: the default scenario, and why
    assert store == DEFAULT_SCENARIO.to_dict() and message.startswith("⚠ The link's scenario could not be opened")
    edited = DEFAULT_SCENARIO.toggled("h5[1]-edge1.0[2]").to_dict(thin=True)
    assert opened("#s=AAAA", edited)[0] is no_update  # the tab's scenario is kept
    assert opened("", None) == (DEFAULT_SCENARIO.to_dict(), "")
    assert opened("", edited) == (no_update, "")
    assert opened("#s=" + Scenario.from_dict(edited).to_fragment(), edited) == (no_update, "")  # the same: unsent


def test_scenario_files_round_trip_and_bad_files_get_a_message():
    edited = DEFAULT_SCENARIO.toggled("h5[1]-edge1.0[2]")
    saved = shell.download(1, edited.to_dict())
    assert saved["filename"] == "vizcoll-scenario.json" and Scenario.loads(saved["content"]) == edited
    answer = shell.open_file(data_url(saved["content"]), 3, None)
    assert Scenario.from_dict(answer["store"]) == edited and answer["version"] == 4 and answer["message"] == ""
    assert answer["upload"] is None  # the box is emptied: the same file can be opened again
    # the old page goes in the same update (its drawings with it)
    assert "Opening the scenario" in str(answer["content"])
    for bad, words in (
        (data_url("{oops"), "not valid JSON"),
        (data_url('{"spec": "torus:2x2"}'), "schema"),
        (data_url('{"schema": "vizcoll.scenario/2", "communicators": [1, 2]}'), "communicators"),
        (12, "not a file"),
        ("data:x;base64,@@", "could not be opened"),
    ):
        answer = shell.open_file(bad, 3, None)
        assert set(answer) == {"message", "upload"} and words in answer["message"], (bad, answer)
        # the store, the version and the page stay as they are; the box is emptied
        assert answer["upload"] is None
    assert shell.open_file(None, 3, None) == {}


# ---------------------------------------------------------------- the uploaded fabric stays on the server
def campus_scenario() -> Scenario:
    from tests.fabrics import campus_cluster
    from vizcoll.topology import io as topo_io

    return Scenario.from_upload(topo_io.parse(campus_cluster(), "campus.txt"), "campus.txt")


def test_the_store_carries_the_uploaded_fabrics_hash_and_the_link_and_file_the_fabric(monkeypatch):
    import json

    from vizcoll import uploads

    uploaded = campus_scenario()
    link = "#s=" + uploaded.to_fragment()
    store, message = opened(link, None)  # a share link opened: the fabric goes to the server's store
    assert message == "" and store["fabric"]["uploaded"] is None and store["fabric"]["ref"] == uploaded.ref
    assert len(json.dumps(store)) < 2_000 < len(link)  # every callback posts this, not the fabric
    assert "1,356 end nodes" in text(shell.render_badge(store))
    href = shell.render_share(store, "/trees", "http://h/")["href"]
    assert Scenario.from_fragment(shell.fragment_of(href.partition("#")[2])).to_dict() == uploaded.to_dict()
    assert json.loads(shell.download(1, store)["content"]) == uploaded.to_dict()  # the file: the fabric itself
    monkeypatch.setattr(uploads, "_store", uploads.MemoryStore())  # the server restarted with an empty cache
    assert "no longer on the server" in text(shell.render_badge(store))  # said, not a traceback
    assert opened(link, store) == (no_update, "")  # the link (the address bar keeps it) brings the fabric back
    assert Scenario.from_dict(store).topology().n_nodes == 1570


def test_a_fabric_over_the_apps_limits_is_refused_with_a_message_before_it_is_built(monkeypatch):
    from vizcoll.topology import generators, rails
    from vizcoll.ui.store import checked

    with monkeypatch.context() as patched:
        for module in (generators, rails):  # where the generators build their Topology
            patched.setattr(module, "build", lambda *a, **k: pytest.fail("a fabric over the limits was built"))
        for spec, nodes, most in (
            ("fat-tree:radix=128,levels=3", "544,768", "200,000 nodes and 1,000,000 links"),
            ("rail-fat-tree:servers=131072,rails=16,radix=128", "2,228,224", "1,250,000 nodes and 3,500,000 links"),
        ):  # a rail fabric: up to the engine's
            scenario, message = checked(Scenario(spec=spec).to_dict())
            assert scenario is None and f"would have {nodes} nodes" in message
            assert f"the app takes fabrics of up to {most}" in message
    assert checked(Scenario(spec="pruned-fat-tree:preset=taihulight").to_dict())[0] is not None  # the paper's largest


def test_a_file_over_the_apps_limits_is_refused_once_read(monkeypatch):
    from vizcoll.ui import store

    monkeypatch.setattr(store, "UI_MAX_NODES", 30)  # the default fabric has 36 nodes
    scenario, message = store.checked(Scenario(spec="fat-tree:radix=4,levels=3", pattern="grid2d:4x4").to_dict())
    assert scenario is None and "the app takes fabrics of up to 30 nodes" in message


def test_forged_repairs_and_files_say_why_or_change_nothing():
    button = '{"link":"' + BREAK + '","type":"scenario-repair"}.n_clicks'
    probe(shell.repair, button, {"clicks": [1], "scenario": DEFAULT_SCENARIO.to_dict()})
    saved = data_url(DEFAULT_SCENARIO.dumps())
    probe(shell.open_file, "scenario-open.contents", {"contents": saved, "version": None, "scenario": None})
    assert shell.open_file(saved, "abc", None)["version"] == 1  # a forged version counts from 0
