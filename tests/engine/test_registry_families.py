"""Static reductions, tree collectives and CLI commands are registries (:class:`vizcoll.registry.Registry`): a toy
entry registered once shows in every consumer, a taken name is refused, and no module outside a family's package
spells a registered name.

The toys mirror CONTRIBUTING.md's walk-through "add a static reduction, a tree collective or a command".
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from tests.callback_context import find_component
from tests.source_scan import docstring_ids
from vizcoll import cli, commands
from vizcoll.errors import SpecError
from vizcoll.reduction import static
from vizcoll.reduction.static import BINOMIAL, StaticReduction, binomial_cost, binomial_schedule
from vizcoll.scenario import Scenario
from vizcoll.schedule import parse
from vizcoll.schedule.collectives import REDUCE, TREE_COLLECTIVES, TreeCollective, static_reduction
from vizcoll.schedule.model import Schedule
from vizcoll.trees.tree import Tree
from vizcoll.ui.pages.faults import _model as faults_model
from vizcoll.ui.pages.faults import page as faults_page
from vizcoll.ui.pages.trees import _model as trees_model
from vizcoll.ui.pages.trees import page as trees_page

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "vizcoll"
TOY = "toy"


def run(capsys, *argv) -> tuple[int, str]:
    status = cli.main(list(argv))
    return status, capsys.readouterr().out


def help_text(capsys, *argv) -> str:
    """What ``vizcoll ARGV --help`` prints."""
    with pytest.raises(SystemExit) as exc:
        cli.main([*argv, "--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


# ---------------------------------------------------------------- static reductions
def toy_schedule(procs: int, root: int = 0) -> static.Schedule:
    """The toy static reduction: the binomial tree's messages under another name."""
    return binomial_schedule(procs, root)


@pytest.fixture
def toy_reduction():
    """The toy static reduction registered for one test, then removed."""
    entry = static.register(
        StaticReduction(
            TOY, "toy (a binomial tree, renamed)", "The binomial tree, renamed", toy_schedule, binomial_cost
        )
    )
    try:
        yield entry
    finally:
        static.unregister(TOY)
    assert TOY not in static.REGISTRY.names


def test_a_registered_static_reduction_is_in_the_cli(toy_reduction, capsys):
    assert "binomial,mst,rabenseifner,toy,task}" in help_text(capsys, "reduce")
    assert "{binomial,mst,rabenseifner,toy}" in help_text(capsys, "goal", "reduce")
    argv = ["--procs", "8", "--size", "1024", "--slow", "2:4"]
    status, toy = run(capsys, "reduce", *argv, "--algo", TOY)
    _, binomial = run(capsys, "reduce", *argv, "--algo", BINOMIAL.name)
    assert status == 0 and json.loads(toy) == json.loads(binomial) and json.loads(toy)["result_ok"]
    argv = ["--procs", "8", "--size", "1024", "--loggp", "L=1000,o=100"]
    status, toy = run(capsys, "goal", "reduce", "--algo", TOY, *argv)
    _, binomial = run(capsys, "goal", "reduce", "--algo", BINOMIAL.name, *argv)
    assert status == 0 and json.loads(toy) == json.loads(binomial) and json.loads(toy)["messages"] == 7


def test_a_registered_static_reduction_is_a_schedule_and_on_the_faults_page(toy_reduction):
    assert static_reduction(TOY, 8, 1024).messages() == 7
    option = {"label": toy_reduction.label, "value": TOY}
    assert faults_model.goal_algo_options()[-1] == option
    dropdown = find_component(faults_page.body(Scenario()), faults_page.FT_GOAL_ALGO)
    assert dropdown.options[-1] == option and dropdown.value == BINOMIAL.name
    download = faults_model.goal_file(TOY, 8, 1024, 0)
    parsed = parse(download["content"])
    assert parsed.problems == [] and parsed.schedule.messages() == 7
    assert download["filename"] == "vizcoll-reduction-toy-8.goal" and toy_reduction.label in download["content"]


def test_an_unregistered_static_reduction_is_refused(capsys):
    assert TOY not in static.REGISTRY.names
    with pytest.raises(SystemExit):
        cli.main(["goal", "reduce", "--algo", TOY, "--procs", "8", "--size", "1024"])
    assert "invalid choice: 'toy'" in capsys.readouterr().err
    with pytest.raises(SpecError, match="unknown static reduction 'toy'; choose one of binomial, mst, rabe"):
        static_reduction(TOY, 8, 1024)
    with pytest.raises(ValueError, match="static reduction 'mst' is registered already"):
        static.register(StaticReduction("mst", "another MST", "", toy_schedule, binomial_cost))
    assert static.reduction("mst").label == "MST (minimum spanning tree)"


# ---------------------------------------------------------------- tree collectives
def toy_collective(schedule: Schedule, tree: Tree, size: int) -> None:
    """The toy tree collective: a reduce under another name."""
    REDUCE.build(schedule, tree, size)


@pytest.fixture
def toy_op():
    """The toy tree collective registered for one test, then removed."""
    entry = TREE_COLLECTIVES.register(TreeCollective(TOY, "toy (a reduce)", "a reduce, renamed", toy_collective))
    try:
        yield entry
    finally:
        TREE_COLLECTIVES.unregister(TOY)
    assert TOY not in TREE_COLLECTIVES.names


def test_a_registered_tree_collective_is_in_goal_tree(toy_op, capsys):
    assert "{bcast,reduce,allreduce,toy}" in help_text(capsys, "goal", "tree")
    argv = ["goal", "tree", "--kind", "kary", "--k", "2", "--nprocs", "8", "--op"]
    status, toy = run(capsys, *argv, TOY)
    _, reduce = run(capsys, *argv, REDUCE.name)
    assert status == 0 and toy.replace("toy along", "reduce along") == reduce
    parsed = parse(toy)
    assert parsed.problems == [] and parsed.schedule.messages() == 7


def test_a_registered_tree_collective_is_on_the_trees_page(toy_op):
    dropdown = find_component(trees_page.body(Scenario()), trees_page.TREES_GOAL_OP)
    assert dropdown.options[-1] in (TOY, {"label": TOY, "value": TOY})
    assert trees_model.read_params(trees_model.DEFAULTS | {"goal_op": TOY})["goal_op"] == TOY
    scenario = Scenario().with_params(trees_model.PAGE, trees_model.DEFAULTS | {"goal_op": TOY})
    download = trees_model.goal_file(scenario)
    parsed = parse(download["content"])
    assert parsed.problems == [] and parsed.schedule.messages() == parsed.schedule.num_ranks - 1
    assert download["filename"].startswith("vizcoll-trees-toy-")


def test_an_unregistered_tree_collective_is_refused(capsys):
    assert TOY not in TREE_COLLECTIVES.names and trees_model.DEFAULTS["goal_op"] == REDUCE.name
    with pytest.raises(SystemExit):
        cli.main(["goal", "tree", "--kind", "kary", "--k", "2", "--nprocs", "8", "--op", TOY])
    assert "invalid choice: 'toy'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="tree operation 'reduce' is registered already"):
        TREE_COLLECTIVES.register(TreeCollective(REDUCE.name, "reduce again", "", toy_collective))
    assert TREE_COLLECTIVES.lookup(REDUCE.name) is REDUCE


# ---------------------------------------------------------------- commands
def _toy_args(parser) -> None:
    parser.add_argument("--times", type=int, default=1, help="how many times (default 1)")


@pytest.fixture
def toy_command():
    """The toy command registered for one test, then removed."""
    commands.command(TOY, "a toy command: twice its --times", _toy_args)(lambda args: {"twice": 2 * args.times})
    try:
        yield commands.COMMANDS[TOY]
    finally:
        commands.COMMANDS.unregister(TOY)
    assert TOY not in commands.COMMANDS


def test_a_registered_command_is_in_the_help_and_runs(toy_command, capsys):
    top = help_text(capsys)
    assert re.search(r"\n +toy +a toy command: twice its --times\n", top)
    assert "--times TIMES" in help_text(capsys, TOY)
    status, out = run(capsys, TOY, "--times", "3")
    assert status == 0 and json.loads(out) == {"twice": 6}


def test_a_command_name_registered_twice_is_refused():
    commands.load_all()
    before = commands.COMMANDS["reduce"]
    with pytest.raises(ValueError, match="command 'reduce' is registered already"):
        commands.command("reduce", "another reduce")(lambda args: None)
    assert commands.COMMANDS["reduce"] is before and TOY not in commands.COMMANDS


# ---------------------------------------------------------------- names spelled only in their package
def _tree(path: Path) -> tuple[ast.Module, set[int]]:
    """The module's syntax tree and the ids of its docstrings' nodes (they explain, and choose nothing)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = docstring_ids(tree)
    return tree, docstrings


def spelled(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """``(line, name)`` of every string constant of ``path`` equal to one of ``names`` (docstrings left out)."""
    tree, docstrings = _tree(path)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings
    ]


def command_lines(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """``(line, command)`` of every command line spelled in ``path``: a list or tuple whose first strings (after a
    ``"vizcoll"`` item, when there is one) are a sub-command (``["goal", "reduce", ...]``) or a command followed by
    an option (``["reduce", "--procs", ...]``); and any string constant that is a whole sub-command (``"topo info"``,
    docstrings left out). A group word alone (``tree``, ``barrier``, ``reduce``) is an ordinary word elsewhere."""
    tree, _ = _tree(path)
    found = [(line, name) for line, name in spelled(path, names) if " " in name]
    for node in ast.walk(tree):
        if not isinstance(node, ast.List | ast.Tuple):
            continue
        items = [e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None for e in node.elts]
        words = items[items.index("vizcoll") + 1 :] if "vizcoll" in items else items
        if len(words) >= 2 and None not in words[:2]:
            if f"{words[0]} {words[1]}" in names:
                found.append((node.lineno, f"{words[0]} {words[1]}"))
            elif words[0] in names and words[1].startswith("-"):
                found.append((node.lineno, words[0]))
    return found


# (module, name) pairs where a generic word equals a registered name without naming the entry, with the reason
ALLOWED = {
    "tree collective": {
        ("vizcoll/commands/__init__.py", "reduce"): "the module of the reduce-reliability command (reduce.py)",
        ("vizcoll/commands/reduce.py", "reduce"): "the name of the CLI command (a command, not the collective)",
        ("vizcoll/reduction/static_sim.py", "reduce"): "a timeline event's kind (a rank reduces what it received)",
        ("vizcoll/reduction/task_sim.py", "reduce"): "a timeline event's kind (a worker reduces two pieces)",
    },
}


def _family(family: str):
    """The registered names of ``family``, the folders or modules (under ``vizcoll/``) that may spell them, and the
    scan: ``(line, name)`` of every use of a name in a module."""
    if family == "static reduction":
        return set(static.REGISTRY.names), ("reduction/",), spelled
    if family == "tree collective":
        return set(TREE_COLLECTIVES.names), ("schedule/",), spelled
    commands.load_all()
    return set(commands.COMMANDS), ("commands/", "cli.py"), command_lines


@pytest.mark.parametrize("family", ["static reduction", "tree collective", "command"])
def test_a_registered_name_is_spelled_only_in_its_package(family):
    """Outside its package, an entry is named through its registry (``static.REGISTRY.names``, ``BINOMIAL.name``,
    ``REDUCE.name``): a spelled name is a second list that a new entry does not join. A command counts where a
    command line names it (:func:`command_lines`)."""
    names, home, scan = _family(family)
    allowed = ALLOWED.get(family, {})
    found, used = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix().startswith(home):
            continue
        for line, name in scan(path, names):
            key = (path.relative_to(ROOT).as_posix(), name)
            used.add(key) if key in allowed else found.append(f"{key[0]}:{line}: {name!r}")
    assert found == []
    assert used == set(allowed), "an allowed pair no longer occurs: drop it"
    inside = {
        name
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix().startswith(home)
        for _, name in spelled(path, names)
    }
    assert names <= inside  # the scan finds every name where it is spelled: its registration


def test_the_command_line_scan_finds_a_command_line(tmp_path):
    path = tmp_path / "example.py"
    path.write_text(
        '"""A docstring naming goal reduce."""\n'
        'ARGV = ["goal", "reduce", "--algo", ALGO]\n'
        'RUN = [sys.executable, "-m", "vizcoll", "reduce", "--procs", "8"]\n'
        'WHAT = "topo info"\n'
        'COLUMNS = ("tree", "tree@intact")\n'
    )
    assert command_lines(path, {"goal reduce", "reduce", "topo info", "tree"}) == [
        (4, "topo info"),
        (2, "goal reduce"),
        (3, "reduce"),
    ]
