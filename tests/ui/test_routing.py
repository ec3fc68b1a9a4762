"""Dash pages: every page module registers itself, the shell's navbar and callbacks follow the registry, and
Dash's router draws each page for the link's or the store's scenario (no browser)."""

from __future__ import annotations

import dash
import pytest
from dash import html

from app import create_app
from tests.callback_context import in_callback, with_props
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui import routing, shell
from vizcoll.ui.store import DEFAULT_SCENARIO, MESSAGE, topology_of

ROUTER = "_pages_content.children"
NAVBAR = [
    ("/topology", "Topology"),
    ("/trees", "Trees"),
    ("/multicast", "Multicast"),
    ("/barrier", "Barrier"),
    ("/faults", "Fault replays"),
    ("/erasure", "Erasure codes"),
    ("/schedules", "Schedules"),
    ("/lessons", "Lessons"),
    ("/help", "Help"),
]
UPLOAD = Scenario(spec="", uploaded=topology_of(DEFAULT_SCENARIO).to_dict(), name="mine.json")


def text(component) -> str:
    """Every string inside a component tree, joined by spaces."""
    if isinstance(component, str | int | float):
        return str(component)
    if isinstance(component, list | tuple):
        return " ".join(text(c) for c in component)
    children = getattr(component, "children", None)
    return "" if children is None else text(children)


def value_of(layout, id_: str):
    """The ``value`` of the component ``id_`` in a layout as JSON (None when it is not there)."""
    if isinstance(layout, dict):
        props = layout.get("props", {})
        if props.get("id") == id_:
            return props.get("value")
        layout = props.get("children")
    for child in layout if isinstance(layout, list) else [layout] if isinstance(layout, dict) else []:
        found = value_of(child, id_)
        if found is not None:
            return found
    return None


@pytest.fixture(scope="module")
def app():
    return create_app()


def routed(app, path: str, search: str = "", hash_: str = "", scenario=None, version=0, trigger=None) -> dict:
    """What Dash's own router answers for ``path`` (a POST to _dash-update-component, as the browser sends)."""
    client = app.server.test_client()
    client.get("/")  # the router is set up on the first request
    callback = next(c for key, c in app.callback_map.items() if key.startswith(".._pages_content.children"))
    values = {
        ("_pages_location", "pathname"): path,
        ("_pages_location", "search"): search,
        ("_pages_location", "hash"): hash_,
        ("_pages_location", "href"): f"http://localhost{path}{search}",
        (routing.VERSION, "data"): version,
        ("scenario", "data"): scenario,
    }
    fill = lambda deps: [dict(d, value=values[(d["id"], d["property"])]) for d in deps]  # noqa: E731
    outputs = [{"id": "_pages_content", "property": "children"}, {"id": "_pages_store", "property": "data"}]
    payload = {
        "output": ".._pages_content.children..._pages_store.data..",
        "outputs": outputs,
        "inputs": fill(callback["inputs"]),
        "state": fill(callback["state"]),
        "changedPropIds": [trigger or "_pages_location.pathname"],
    }
    answer = client.post("/_dash-update-component", json=payload)
    assert answer.status_code == 200, answer.data[:500]
    return answer.get_json()["response"]["_pages_content"]["children"]


def test_every_page_module_registers_and_the_navbar_follows_the_registry(app):
    pages = {page["module"].removesuffix(".page").rpartition(".")[2]: page for page in dash.page_registry.values()}
    assert {"home", "topology", "trees", "multicast", "barrier", "faults", "erasure", "not_found_404"} <= set(pages)
    assert pages["home"]["path"] == "/" and pages["home"]["nav"] is False
    assert shell.nav_entries() == NAVBAR
    navbar = next(child for child in shell.shell_layout().children if getattr(child, "className", "") == "navbar")
    assert [(link.href, link.children) for link in navbar.children[1:]] == NAVBAR
    assert "shell-page" in str(shell.shell_layout())


def test_each_page_registers_its_callbacks_on_every_app(app):
    other = create_app()  # a second app (a test's, a gunicorn worker's) gets every callback too
    for each in (app, other):
        outputs = " ".join(each.callback_map)
        for owned in (
            "topo-canvas.elements",
            "trees-params.data",
            "mc-summary.children",
            "bar-params.data",
            "ft-red-params.data",
            "era-params.data",
            "scenario-badge.children",
        ):
            assert owned in outputs, owned


@pytest.mark.parametrize("scenario", [DEFAULT_SCENARIO, UPLOAD], ids=["default", "upload"])
def test_every_registered_page_draws_for_the_store_and_ignores_query_parameters(app, scenario):
    for page in dash.page_registry.values():
        drawn = in_callback(
            page["layout"],
            "_pages_location.pathname",
            shell_scenario=scenario.to_dict(),
            shell_hash="",
            shell_version=0,
            shell_href=f"http://h{page['path']}",
            foo="1",
            **{"a-b": ["1", "2"], "../etc": "x"},
        )
        assert isinstance(drawn, html.Div), page["module"]


def test_the_router_draws_the_page_of_the_path(app):
    trees = routed(app, "/trees", "?k=99&shell_scenario=forged", scenario=DEFAULT_SCENARIO.to_dict())
    assert "trees-page" in str(trees) and "trees-k" in str(trees)  # unknown and forged parameters are ignored
    start = str(routed(app, "/", scenario=None))
    assert "banner" in start and "topo-canvas" in start
    assert "topology-page" in str(routed(app, "/topology/")) and "banner" not in str(routed(app, "/topology"))
    missing = str(routed(app, "/no/such/page"))
    assert "Page not found" in missing and "/no/such/page" in missing


def test_the_first_load_of_a_link_shows_its_scenario_and_open_scenario_the_store(app):
    linked = DEFAULT_SCENARIO.with_params("trees", {"k": 3})
    stored = DEFAULT_SCENARIO.with_params("trees", {"k": 5})
    fragment = "#s=" + linked.to_fragment()
    assert value_of(routed(app, "/trees", hash_=fragment, scenario=stored.to_dict()), "trees-k") == 3
    reopened = routed(
        app, "/trees", hash_=fragment, scenario=stored.to_dict(), version=1, trigger=f"{routing.VERSION}.data"
    )  # "Open scenario…" replaced the store
    assert value_of(reopened, "trees-k") == 5
    damaged = routed(app, "/trees", hash_="#s=AAAA", scenario=stored.to_dict())
    assert value_of(damaged, "trees-k") == 5  # the shell's message says the link is damaged
    assert value_of(routed(app, "/trees", scenario=None), "trees-k") == 4  # a new tab: the default scenario


def test_page_scenario_and_page_path_read_the_router_values():
    linked = DEFAULT_SCENARIO.with_breaks([])
    fragment = "#s=" + linked.to_fragment()
    assert routing.page_scenario({"shell_hash": fragment}) == linked
    assert routing.page_scenario({"shell_hash": fragment, "shell_scenario": DEFAULT_SCENARIO.to_dict()}) == linked
    assert (
        in_callback(
            routing.page_scenario,
            f"{routing.VERSION}.data",
            {"shell_hash": fragment, "shell_scenario": DEFAULT_SCENARIO.to_dict()},
        )
        == DEFAULT_SCENARIO
    )
    assert routing.page_scenario({"shell_scenario": {"schema": "nonsense"}}) == DEFAULT_SCENARIO
    assert routing.page_scenario({}) == DEFAULT_SCENARIO
    assert routing.page_path({"shell_href": "http://h:1/a/b?x=1#s=2"}) == "/a/b"
    assert routing.page_path({"shell_href": 7}) == "/"
    assert routing.fragment_of("#s=abc") == "abc" and routing.fragment_of("#x") is None


def test_a_page_module_imported_without_an_app_registers_nothing(monkeypatch):
    def no_app():
        raise dash.exceptions.AppNotFoundError("no app")

    calls = []
    monkeypatch.setattr(dash, "get_app", no_app)
    monkeypatch.setattr(dash, "register_page", lambda *a, **k: calls.append(a))
    routing.register_page("vizcoll.ui.pages.example", lambda **_: html.Div(), path="/example")
    assert calls == []


def test_filled_sets_each_answers_props_by_id():
    from dash import Output, no_update

    page = html.Div(id="page", children=[html.Div(id="a"), html.P("kept", id="b"), html.Div(id={"type": "x"})])
    drawn_and_kept = {"drawing": Output("a", "children"), "kept": Output("b", "children")}
    answers = [
        (drawn_and_kept, {"drawing": "drawn", "kept": no_update}),  # no_update: as it is
        ({"title": Output("page", "title")}, {"title": "the title"}),
        (drawn_and_kept, {}),  # nothing changes
    ]
    filled = routing.filled(page, lambda scenario: answers, DEFAULT_SCENARIO)
    assert filled is page and page.title == "the title"
    assert page.children[0].children == "drawn" and page.children[1].children == "kept"
    with pytest.raises(KeyError):  # an answer naming no output of its callback is a mistake, not ignored
        routing.filled(page, lambda s: [(drawn_and_kept, {"drawn": "a typo"})], None)

    def failing(scenario):
        raise VizcollError("the trees of this scenario cannot be built")

    bare = html.Div(id="page", children=[html.Div(id="a")])
    drawn, props = with_props(routing.filled, bare, failing, DEFAULT_SCENARIO)  # the page, without its views
    assert drawn is bare and bare.children[0].children is None
    assert "cannot be built" in props[MESSAGE]["children"]  # and the message line says why
