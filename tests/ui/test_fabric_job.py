"""A large generated fabric is built by the shell's background job, never in a request (issue 28)."""

from __future__ import annotations

import pytest
from dash import no_update
from flask import Flask

from tests.probe import probe
from vizcoll.scenario import Scenario
from vizcoll.topology import generators, rails
from vizcoll.ui import cache as cache_mod
from vizcoll.ui import fabricjob, store
from vizcoll.ui.pages.topology import page as topology_page
from vizcoll.ui.pages.topology.page import TOPO_GENERATE

MILLION = "rail-fat-tree:servers=131072,rails=8,radix=128"


@pytest.fixture
def server(tmp_path, monkeypatch):
    """A fresh app cache, and fabrics of more than 30 nodes counted as large (built by the job)."""
    monkeypatch.setattr(cache_mod, "_server", cache_mod._server)  # restored after the test
    app = Flask("fabric-job")
    cache_mod.init_cache(app, {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": str(tmp_path)})
    monkeypatch.setattr(store, "BUILT_IN_JOB_NODES", 30)
    store._planned_nodes.cache_clear()
    return app


def test_the_million_nic_rail_fabric_is_taken_by_the_app_and_sized_without_being_built(monkeypatch):
    with monkeypatch.context() as patched:
        for module in (generators, rails):
            patched.setattr(module, "build", lambda *a, **k: pytest.fail("sizing a fabric built it"))
        assert generators.spec_size(MILLION) == (1_114_112, 3_145_728)
        assert store.built_in_job(Scenario(spec=MILLION))
    assert not store.built_in_job(Scenario(spec="pruned-fat-tree:preset=taihulight"))  # 46,144 nodes: in the request
    assert store.app_limits(MILLION) == (1_250_000, 3_500_000)
    assert store.app_limits("fat-tree:radix=128,levels=3") == store.app_limits("") == (200_000, 1_000_000)


def test_a_page_says_the_fabric_is_being_built_until_the_job_has_built_it(server):
    data = Scenario(spec="fat-tree:radix=4,levels=3", pattern="grid2d:4x4").to_dict(thin=True)
    with server.test_request_context():
        scenario, message = store.checked(data)
        assert scenario is None and message.startswith("⏳ The fabric fat-tree:radix=4,levels=3 (36 nodes) is being")
        order = fabricjob.order_build(data, None)
        assert order == {"run": 1, "scenario": data}
    built = fabricjob.build_job(lambda progress: None, order)  # the job: no request, builds it
    assert built == {"built": 1, "message": ""}
    with server.test_request_context():
        scenario, message = store.checked(data)
        assert message == "" and store.topology_of(scenario).n_nodes == 36
        assert fabricjob.order_build(data, order) is None  # built: the order ends
        assert fabricjob.order_build(data, None) is no_update


def test_the_job_checks_its_order_again(server):
    small = Scenario(spec="fat-tree:radix=4,levels=2").to_dict(thin=True)  # built in a request
    for forged in (None, "x", {"run": 1}, {"run": 1, "scenario": {"schema": "nope"}}, {"run": 1, "scenario": small}):
        assert fabricjob.build_job(lambda progress: None, forged) == {}


def test_generating_a_large_fabric_stores_it_at_once_and_leaves_the_building_to_the_job(server):
    from tests.callback_context import in_callback

    with server.test_request_context():
        out = in_callback(
            topology_page.update_scenario,
            f"{TOPO_GENERATE}.n_clicks",
            trigger_value=1,
            **_values(params="fat-tree:radix=6,levels=3"),
        )
    assert Scenario.from_dict(out["scenario"], build=lambda _s: None).spec == "fat-tree:radix=6,levels=3"
    assert out["message"].startswith("⏳ the fabric fat-tree:radix=6,levels=3 (99 nodes) is being built")
    with server.test_request_context():
        out = in_callback(
            topology_page.update_scenario,
            f"{TOPO_GENERATE}.n_clicks",
            trigger_value=1,
            **_values(params="fat-tree:radix=6,levels=0"),
        )
    assert "scenario" not in out and out["message"].startswith("⚠")  # a bad spec is still refused at once


def _values(**given) -> dict:
    keys = (*topology_page._scenario_inputs(), *topology_page._scenario_states())
    return {key: None for key in keys} | {"generate": 1, "mode": "link", "comm_edit": -1} | given


def test_a_link_to_a_large_fabric_opens_without_building_it_and_its_page_waits_for_the_job(server, monkeypatch):
    from tests.callback_context import with_props
    from vizcoll.ui import routing

    large = Scenario(spec="fat-tree:radix=6,levels=3", pattern="grid2d:6x6")  # 99 nodes: "large" here
    with server.test_request_context(), monkeypatch.context() as patched:
        patched.setattr(generators, "build", lambda *a, **k: pytest.fail("the request built the large fabric"))
        opened, props = with_props(routing.page_scenario, {"shell_hash": f"#s={large.to_fragment()}"})
        store_data = props[store.SCENARIO]["data"]
        assert opened == large and Scenario.from_dict(store_data, build=lambda _s: None) == large
        assert store.MESSAGE not in props
        page = routing._when_built(lambda **kwargs: store.topology_of(routing.page_scenario(kwargs)))
        waiting = page(shell_scenario=store_data)
        assert waiting.id == routing.PENDING and "(99 nodes) is being built" in waiting.children
    assert fabricjob.build_job(lambda progress: None, {"run": 3, "scenario": store_data}) == {"built": 3, "message": ""}
    with server.test_request_context():
        assert page(shell_scenario=store_data).n_nodes == 99  # built: the page is drawn


def test_a_forged_order_changes_nothing():
    probe(fabricjob.build_job, "fabric-build-order.data", {"order": None}, progress=True)
