"""The registry of tree kinds (vizcoll.trees.kinds): a kind registered once shows in the CLI and on the /trees page,
and no consumer spells a kind's name itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dash import html

from tests.callback_context import find_component, in_callback
from vizcoll.cli import main
from vizcoll.scenario import Scenario
from vizcoll.schedule import parse
from vizcoll.trees import kinds
from vizcoll.trees.kinds import TreeKind
from vizcoll.trees.tree import Tree
from vizcoll.ui.pages.trees import _model as model
from vizcoll.ui.pages.trees import page

PACKAGE = Path(__file__).resolve().parents[2] / "vizcoll"
STAR = "star"


def star_tree(nprocs: int, k: int, groups) -> Tree:
    """The toy kind: rank 0 is every other rank's parent (k and groups unused)."""
    children = [list(range(1, nprocs))] + [[] for _ in range(1, nprocs)]
    return Tree.from_children(children, kind="star", label=[f"rank {r}" for r in range(nprocs)])


@pytest.fixture
def star():
    """The toy kind registered for one test, then removed."""
    kind = kinds.register(
        TreeKind(
            STAR,
            "star (rank 0 is every rank's parent)",
            star_tree,
            description="rank 0 is every other rank's parent",
            title="star",
        )
    )
    yield kind
    kinds.unregister(STAR)


def run(capsys, *argv) -> tuple[int, str]:
    status = main(list(argv))
    return status, capsys.readouterr().out


def test_a_registered_kind_is_a_choice_of_the_tree_command(star, capsys):
    status, out = run(capsys, "tree", "--kind", STAR, "--k", "2", "--nprocs", "5")
    result = json.loads(out)
    assert status == 0 and result["kind"] == STAR and result["height"] == 1
    assert result["parent"] == [-1, 0, 0, 0, 0] and result["children"][0] == [1, 2, 3, 4]


def test_a_registered_kind_is_a_choice_of_goal_tree(star, capsys):
    status, out = run(
        capsys, "goal", "tree", "--kind", STAR, "--k", "2", "--nprocs", "4", "--op", "bcast", "--loggp", "L=1000,o=100"
    )
    result = json.loads(out)
    assert status == 0 and result["ranks"] == 4 and result["messages"] == 3


def test_a_registered_kind_is_an_option_of_the_trees_page(star):
    dropdown = find_component(html.Div(page.tree_controls(model.DEFAULTS, [])), page.TREES_KIND)
    assert dropdown.options[-1] == {"label": star.label, "value": STAR}
    assert [o["value"] for o in dropdown.options] == list(kinds.names())
    assert model.read_params(model.DEFAULTS | {"kind": STAR})["kind"] == STAR
    assert model.tree_name(STAR, 4) == "star"


def test_the_trees_page_stores_builds_and_exports_a_registered_kind(star):
    values = model.DEFAULTS | {"kind": STAR}
    answer = in_callback(
        page.update,
        f"{page.TREES_KIND}.value",
        scenario=Scenario(),
        values={key: values[key] for key in page.PARAM_CONTROLS},
        use_preset=0,
        tap_edge=None,
        preset="sunway",
    )
    s = Scenario.from_dict(answer["store"])
    assert answer["message"] == "" and s.params["trees"]["kind"] == STAR
    assert "building the star tree" in model.job_stages(model.tree_plan(s))
    download = model.goal_file(s)
    parsed = parse(download["content"])
    assert parsed.problems == [] and parsed.schedule.messages() == parsed.schedule.num_ranks - 1
    assert download["filename"].endswith("-star.goal")


def test_the_toy_kind_is_gone_after_its_test(capsys):
    assert STAR not in kinds.names() and STAR not in model.KINDS
    with pytest.raises(SystemExit):  # argparse refuses the choice
        main(["tree", "--kind", STAR, "--k", "2", "--nprocs", "5"])
    assert "invalid choice: 'star'" in capsys.readouterr().err
    assert "unknown tree kind 'star'" in model.page_plan(Scenario(params={"trees": {"kind": STAR}}))["error"]


def test_a_taken_name_is_refused():
    with pytest.raises(ValueError, match="registered already"):
        kinds.register(TreeKind(kinds.KARY, "another k-ary", star_tree))
    assert kinds.get(kinds.KARY).label == "k-ary"
