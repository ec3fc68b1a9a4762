"""/help (issue 47, item 5): a section for every page of the navbar, every link opening a registered page (a shipped
lesson, a scenario that reads), and every word it takes from elsewhere true there: the controls it names are on
their page, its papers are docs/papers.md's and the engine's, its formats and keys are the app's (no browser)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import dash
import pytest
from dash import dcc, html

from app import create_app
from tests.ui.layouts import page_layouts, text, walk
from vizcoll.lessons import load_shipped, shipped
from vizcoll.scenario import Scenario
from vizcoll.topology import formats
from vizcoll.ui.app import ASSETS
from vizcoll.ui.components.player import BUTTONS
from vizcoll.ui.pages.help import _model as model
from vizcoll.ui.pages.help import page as help_page
from vizcoll.ui.shell import nav_entries

ROOT = Path(__file__).resolve().parents[2]
ENGINES = {  # the engine packages whose papers each page reproduces
    "/trees": ("vizcoll.trees",),
    "/multicast": ("vizcoll.multicast",),
    "/barrier": ("vizcoll.barrier",),
    "/faults": ("vizcoll.reduction", "vizcoll.treft"),
    "/erasure": ("vizcoll.erasure",),
    "/schedules": ("vizcoll.schedule",),
}


@pytest.fixture(scope="module")
def app():
    return create_app()


@pytest.fixture(scope="module")
def layouts(app):
    return page_layouts()


@pytest.fixture(scope="module")
def shown(app):
    return help_page.layout()


def hrefs(layout) -> list[str]:
    return [c.href for c, _ in walk(layout) if isinstance(c, dcc.Link | html.A)]


def test_help_is_registered_and_in_the_navbar(app):
    assert ("/help", "Help") in nav_entries() and nav_entries()[-1] == ("/help", "Help")


def test_every_link_on_help_opens_a_registered_page(shown):
    pages = {page["path"] for page in dash.page_registry.values() if not page["module"].endswith("not_found_404")}
    links = hrefs(shown)
    assert len(links) > 20
    for href in links:
        parts = urlsplit(href)
        assert parts.path in pages, href
        query = parse_qs(parts.query)
        if "lesson" in query:  # the presenter: a shipped lesson, on one of its steps
            lesson = load_shipped(query["lesson"][0])
            assert 1 <= int(query.get("step", ["1"])[0]) <= len(lesson.steps)
        if parts.fragment:  # a share link: a scenario that reads
            assert parts.fragment.startswith("s=") and Scenario.from_fragment(parts.fragment[2:]), href


def test_every_page_of_the_navbar_has_a_section_with_its_examples(shown):
    sections = {c.id: c for c, _ in walk(shown) if isinstance(c, html.Section)}
    for path, name in nav_entries():
        if path == help_page.PATH:
            continue
        section = sections[help_page.section_id(path)]
        assert section.children[0].children.href == path and section.children[0].children.children == name
        assert path in model.GUIDES
    for path in ("/topology", "/trees", "/multicast", "/barrier"):  # the pages' own presets and examples
        assert len(hrefs(sections[help_page.section_id(path)])) > 2, path
    lessons = hrefs(sections["help-lessons"])
    assert [href for href in lessons if "?lesson=" in href] == [model.present_href(name) for name in shipped()]


def test_the_examples_are_the_pages_presets(app):
    from vizcoll.ui.pages.barrier import page as barrier
    from vizcoll.ui.pages.multicast import _model as multicast
    from vizcoll.ui.pages.topology._model import example_specs
    from vizcoll.ui.pages.trees import _model as trees
    from vizcoll.ui.pages.trees import page as trees_page

    assert [label for label, _ in barrier.examples()] == ["4×4 grid, 8 neighbors: the paper's Fig. 3"]
    assert barrier.examples()[0][1].spec == "mesh:4x4,neighbors=8,hosts=0"  # the paper's Fig. 3
    layout = help_page.layout()
    labels = {
        c.id: [a.children for a, _ in walk(c) if isinstance(a, dcc.Link)][1:]
        for c, _ in walk(layout)
        if isinstance(c, html.Section)
    }  # the links of each section after its title
    assert labels["help-topology"] == list(example_specs().values())
    trees_titles = [label for label, _, _ in trees.PRESETS.values()]
    assert labels["help-trees"] == [*trees_titles, load_shipped("aggregation-trees").title]
    assert labels["help-multicast"][:-1] == [p["label"] for p in multicast.PRESETS.values()]
    fig7 = trees_page.examples()[0]
    link = model.example_links("/trees", [fig7])[0][1]
    assert Scenario.from_fragment(link.split("#s=")[1]) == fig7[1] and fig7[1].params["trees"]["k"] == 4
    assert [title for title, _ in model.lesson_links("/faults")] == [
        load_shipped("task-reduction").title,
        load_shipped("treft").title,
    ]


def test_every_control_the_guide_names_is_on_its_page(layouts):
    every = text([layouts["shell"], *layouts.values()])
    for sentence in model.EVERY_PAGE:
        for name in model.controls(sentence):
            assert name in every, name
    for path, guide in model.GUIDES.items():
        on_page = text([layouts[path], layouts["shell"], layouts["presenter"]])
        for name in (name for sentence in guide.does for name in model.controls(sentence)):
            assert name in on_page, f"{path}: {name!r}"


def table_rows() -> dict[str, tuple[str, str]]:
    rows = re.findall(r"^\| \[(\w+)\] \| (.+?) \| (.+?) \|$", (ROOT / "docs" / "papers.md").read_text(), re.M)
    return {key: (paper, venue) for key, paper, venue in rows}


def test_the_papers_are_docs_papers_and_the_engines_references():
    rows = table_rows()
    for key, cited in model.PAPERS.items():
        assert rows[key] == cited, key
    for path, packages in ENGINES.items():
        references = " ".join(importlib.import_module(p).__doc__.split("References:")[1] for p in packages)
        assert model.GUIDES[path].papers and all(f"[{key}]" in references for key in model.GUIDES[path].papers)
    assert all(guide.papers or guide.no_paper for guide in model.GUIDES.values())


def test_the_files_are_the_formats_registry_and_the_keys_the_players_and_the_presenters(shown):
    files = text(next(c for c, _ in walk(shown) if getattr(c, "id", None) == "help-files"))
    for fmt in formats.readable():
        assert formats.describe(fmt, with_extensions=True).split(": ")[0] in files
    assert "ibsim (.net)" not in files  # written, not read (ibnetdiscover reads it)
    keys = text(next(c for c, _ in walk(shown) if getattr(c, "id", None) == "help-keys"))
    for _, label, title in BUTTONS:
        assert title.rsplit("(", 1)[1].rstrip(")") in keys and label in keys
    assert "Ctrl+Z" in keys and "Ctrl+Shift+Z" in keys
    script = (ASSETS / "lesson.js").read_text()
    words = {"→": "ArrowRight", "←": "ArrowLeft", "Page Down": "PageDown", "Page Up": "PageUp"}
    for names, _ in model.PRESENTER_KEYS:
        for name in names:
            assert re.search(rf"\b{re.escape(words.get(name, name))}\b", script), name
