"""The registry of the pages' exports (vizcoll.ui.export.names): a page's pack and players registered once show in
the CLI's choices and are what ``pack_of`` and ``animation_of`` run."""

from __future__ import annotations

import importlib

import pytest

from vizcoll.cli import build_parser
from vizcoll.errors import VizcollError
from vizcoll.ui.export import names
from vizcoll.ui.export.animations import animation_of
from vizcoll.ui.export.catalog import pack_of
from vizcoll.ui.export.names import PageExports
from vizcoll.ui.export.packs import Pack
from vizcoll.ui.pages.topology.export import topology_animation
from vizcoll.ui.store import DEFAULT_SCENARIO

CALLS: list[tuple] = []
TOY = "toy"


def toy_pack(scenario, extra, progress) -> Pack:
    """The toy page's pack: it records its call and holds nothing."""
    CALLS.append(("pack", scenario, extra))
    return Pack(page=TOY, title="toy")


def toy_animation(scenario, extra):
    """The toy page's player: the topology page's broadcast, its call recorded."""
    CALLS.append(("spin", scenario, extra))
    return topology_animation(scenario, extra)


@pytest.fixture
def toy():
    """The toy page's exports registered for one test, then removed."""
    CALLS.clear()
    entry = names.register(PageExports(TOY, f"{__name__}:toy_pack", (("spin", f"{__name__}:toy_animation"),)))
    yield entry
    names.unregister(TOY)


def takes(command: str, page: str) -> bool:
    """Whether ``vizcoll COMMAND --page PAGE`` (``figures``, ``animate``) gets past the CLI's parser."""
    try:
        build_parser().parse_args([command, "--page", page])
    except SystemExit:
        return False
    return True


def test_a_registered_page_shows_in_the_cli_and_its_builders_run(toy):
    assert takes("figures", TOY) and takes("animate", TOY)
    assert names.players(TOY) == ("spin",) and TOY in names.pack_pages()
    pack_of(TOY, DEFAULT_SCENARIO, extra="x")
    assert animation_of(TOY, DEFAULT_SCENARIO).timeline.n_steps > 0
    assert [call[0] for call in CALLS] == ["pack", "spin"] and CALLS[0][1:] == (DEFAULT_SCENARIO, "x")


def test_an_unregistered_page_is_gone_everywhere(toy):
    names.unregister(TOY)
    assert not takes("figures", TOY) and not takes("animate", TOY)
    assert TOY not in names.player_pages() and TOY not in names.pack_pages()
    with pytest.raises(VizcollError, match="no figure pack for page 'toy'"):
        pack_of(TOY, DEFAULT_SCENARIO)
    with pytest.raises(VizcollError, match="no player on page 'toy'"):
        animation_of(TOY, DEFAULT_SCENARIO)
    names.register(toy)  # the fixture takes it out again


def test_a_page_with_a_pack_and_no_player_is_not_a_player_page():
    assert "erasure" in names.pack_pages() and "erasure" not in names.player_pages()
    assert names.players("erasure") == () and names.players("no-such-page") == ()


def test_the_registry_is_what_the_page_folders_declare():
    declared = {}
    for name in ("topology", "trees", "multicast", "barrier", "faults", "erasure", "schedules"):
        folder = importlib.import_module(f"vizcoll.ui.pages.{name}")
        declared[name] = (folder.ORDER, folder.EXPORTS)
    assert list(names.pack_pages()) == sorted(declared, key=lambda name: declared[name][0])  # the navbar's order
    for name, (_, exports) in declared.items():
        entry = names.REGISTRY[name]
        assert entry.pack == f"vizcoll.ui.pages.{name}.export:{exports['pack']}"
        assert [player for player, _ in entry.players] == list(exports["players"])
        assert all(callable(names.builder(target)) for target in (entry.pack, *dict(entry.players).values()))
