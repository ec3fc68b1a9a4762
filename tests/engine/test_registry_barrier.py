"""The registry of barrier algorithms is the one list: a registered algorithm shows up everywhere.

The toy algorithm mirrors CONTRIBUTING.md's walk-through "add a barrier algorithm": one class and one
``register`` line. The last test keeps the registered names from being spelled outside ``vizcoll/barrier/``.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tests.source_scan import docstring_ids
from vizcoll import cli
from vizcoll.barrier.algorithms import ALGORITHMS, MasterSlave, algorithm, register, run_barriers, unregister
from vizcoll.barrier.benchmark import SweepGrids, sweep
from vizcoll.barrier.schedules import flat
from vizcoll.errors import SpecError
from vizcoll.scenario import Scenario
from vizcoll.schedule import barrier, parse
from vizcoll.topology.generators import from_spec, mesh
from vizcoll.ui.pages.barrier import _model as model
from vizcoll.ui.pages.barrier import page

PACKAGE = Path(__file__).resolve().parents[2] / "vizcoll"
GRID = "mesh:4x4,neighbors=8,hosts=0"


class Toy(MasterSlave):
    """``toy``: a flat Gather / Release to the first processor (master–slave with another master)."""

    name, label, title = "toy", "Toy (flat to the first)", "Toy barrier"
    help = "everyone sends its Gather to the first processor, which releases everyone"

    def setup(self) -> None:
        super().setup()
        self.master = self.nodes[0]

    @staticmethod
    def goal_schedule(s, P: int, size: int, block: int) -> None:
        flat(s, 0, list(range(1, P)), size)


@pytest.fixture
def toy():
    """The toy registered for one test, and unregistered after it."""
    register(Toy)
    try:
        yield Toy
    finally:
        unregister(Toy.name)
    assert "toy" not in ALGORITHMS.names


def _option(command: str, option: str = "--algo"):
    """``command``'s ``option`` (an argparse action) in a freshly built parser."""
    parser = cli.build_parser(command.split())
    for word in command.split():  # argparse keeps its subparsers private
        parser = next(a for a in parser._actions if a.choices and word in a.choices).choices[word]
    return parser._option_string_actions[option]


def _help(capsys, *command: str) -> str:
    with pytest.raises(SystemExit):
        cli.main([*command, "--help"])
    return capsys.readouterr().out


def _options(component) -> list[dict]:
    """The options of the algorithm dropdown in a page's component tree."""
    if getattr(component, "id", None) == page.BAR_ALGO:
        return component.options
    children = getattr(component, "children", None)
    for child in children if isinstance(children, list | tuple) else [children] if children is not None else []:
        found = _options(child)
        if found:
            return found
    return []


def test_a_registered_algorithm_runs(toy):
    assert algorithm("toy") is Toy and ALGORITHMS.names[-1] == "toy"
    _, figures = run_barriers(mesh((4, 4), 8, hosts=0), "toy", barriers=2)
    assert figures["completed"] and figures["messages"] == 2 * 2 * 15
    topo = from_spec("fat-tree:radix=4,levels=2")
    _, figures = run_barriers(topo, "toy", barriers=1, participants=topo.endpoints)  # not grid_only: any fabric
    assert figures["completed"] and figures["messages"] == 2 * 7


def test_a_registered_algorithm_is_in_the_barrier_command(toy, capsys):
    action = _option("barrier")
    assert "toy" in action.choices and f"toy = {Toy.help}" in action.help
    assert "toy" in _help(capsys, "barrier")
    assert cli.main(["barrier", "--size", "4", "--algo", "toy", "--barriers", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["algo"] == "toy" and out["completed"] and out["messages"] == 30
    assert "toy" in _option("barrier", "--compare").choices


def test_a_registered_algorithm_is_on_the_page(toy):
    scenario = Scenario(spec=GRID)
    options = model.algo_options(scenario, scenario.topology())
    assert options[-1] == {"label": Toy.label, "value": "toy", "disabled": False}
    assert {"label": Toy.label, "value": "toy", "disabled": False} in _options(page.body(scenario))
    assert model.read_params({**model.DEFAULTS, "algo": "toy", "compare": "toy"})["algo"] == "toy"
    fabric = Scenario(spec="fat-tree:radix=4,levels=2")
    assert {"label": Toy.label, "value": "toy", "disabled": False} in model.algo_options(fabric, fabric.topology())


def test_a_registered_algorithm_is_in_goal_barrier(toy, capsys):
    assert "toy" in _option("goal barrier").choices and "toy" in _help(capsys, "goal", "barrier")
    assert cli.main(["goal", "barrier", "--algo", "toy", "--procs", "5"]) == 0
    text = capsys.readouterr().out
    parsed = parse(text.encode())
    assert text.startswith("// written by vizcoll: toy barrier on 5 ranks") and parsed.problems == []
    assert parsed.schedule.messages() == barrier("ms", 5).messages() == 8
    assert cli.main(["goal", "barrier", "--algo", "toy", "--size", "3"]) == 0  # every hop of a grid run
    assert "toy barrier on a 3x3 grid" in capsys.readouterr().out


def test_a_registered_algorithm_is_in_the_sweeps(toy, capsys):
    result = sweep(SweepGrids([4], [0.0], seeds=1), barriers=1)  # every registered algorithm by default
    assert result["columns"][-1] == "toy" and result["rows"][0]["failures"]["toy"] == 0
    assert _option("barrier-sweep", "--algos").default.endswith(",dlct+tree,toy")  # the default: all
    args = ["barrier-sweep", "--sizes", "4", "--rates", "0", "--seeds", "1", "--algos", "toy,ms", "--barriers", "1"]
    assert cli.main(args) == 0
    assert json.loads(capsys.readouterr().out)["columns"] == ["toy", "ms"]


def test_an_unregistered_algorithm_is_refused_everywhere(capsys):
    assert "toy" not in ALGORITHMS.names
    with pytest.raises(SpecError, match=r"unknown barrier algorithm 'toy'; choose one of ms, tree, "):
        run_barriers(mesh((4, 4), 8, hosts=0), "toy")
    with pytest.raises(SpecError, match="unknown barrier algorithm 'toy'"):
        sweep(SweepGrids([4], [0.0], seeds=1), ["toy"])
    with pytest.raises(SpecError, match=r"unknown barrier 'toy'; choose one of ms, .*dissemination\+tree \(DLCT"):
        barrier("toy", 4)
    with pytest.raises(SystemExit):
        cli.main(["barrier", "--size", "4", "--algo", "toy"])
    assert "invalid choice: 'toy'" in capsys.readouterr().err


def test_a_duplicate_name_is_a_value_error():
    class Again(Toy):
        name = "dlct"

    with pytest.raises(ValueError, match="barrier algorithm 'dlct' is registered already"):
        register(Again)
    assert ALGORITHMS["dlct"].label == "DLCT"


# ---------------------------------------------------------------- one spelling
ALGO_WORDS = ("algo", "compare", "barrier", "columns")
"""A string constant is used as a barrier algorithm's name when what it is bound to, compared with or passed to
is named with one of these words (case-insensitive): ``algo="tree"``, ``p["algo"] != "tree"``, ``barrier("ms",
8)``, ``NOT_GRID_ALGO = "tree"``, ``def f(columns=("tree", ...))``; or when it is one of two or more keys of a dict
that are names (a table by algorithm, ``{"ms": ..., "tree": ...}``); or when it is the argparse ``default`` of an
option with ``choices``. "tree" alone is a tree kind, a page, a record's field and a word in many other places:
those are left alone."""

ALLOWED: dict[tuple[str, str], str] = {
    # (module under vizcoll/, name): why it is spelled there
}


def _bound_to(node: ast.AST, parents: dict[ast.AST, ast.AST], names: set[str]) -> str | None:
    """What the constant ``node`` is used as, when that is an algorithm's name (None otherwise): the text that
    names its use (a keyword, a target, a function, a comparison) or ``"dict key"``."""
    child, up = node, parents.get(node)
    while isinstance(up, ast.Tuple | ast.List | ast.Set | ast.IfExp | ast.BoolOp | ast.Starred):
        child, up = up, parents.get(up)
    if isinstance(up, ast.Dict):
        if any(key is child for key in up.keys):  # a table by algorithm: two or more of its keys are names
            table = sum(isinstance(key, ast.Constant) and key.value in names for key in up.keys) > 1
            return "dict key" if table else None
        key = up.keys[up.values.index(child)]
        return ast.unparse(key) if key is not None else None
    if isinstance(up, ast.Compare):
        return " ".join(ast.unparse(side) for side in (up.left, *up.comparators) if side is not child)
    if isinstance(up, ast.keyword):
        call = parents[up]
        choices = up.arg == "default" and any(k.arg == "choices" for k in call.keywords)
        return "default of choices" if choices else up.arg
    if isinstance(up, ast.Call) and child in up.args:
        return ast.unparse(up.func)
    if isinstance(up, ast.Assign | ast.AnnAssign):
        return " ".join(ast.unparse(t) for t in (up.targets if isinstance(up, ast.Assign) else [up.target]))
    if isinstance(up, ast.arguments):
        params = [*up.posonlyargs, *up.args]
        if child in up.defaults:
            return params[len(params) - len(up.defaults) + up.defaults.index(child)].arg
        return next((a.arg for a, d in zip(up.kwonlyargs, up.kw_defaults, strict=True) if d is child), None)
    if isinstance(up, ast.Return):
        func = next((p for p in _ancestors(up, parents) if isinstance(p, ast.FunctionDef)), None)
        return func.name if func else None
    return None


def _ancestors(node: ast.AST, parents: dict[ast.AST, ast.AST]):
    while node in parents:
        node = parents[node]
        yield node


def _algorithm_names_spelled(source: str, module: str, names: set[str]) -> list[tuple[str, str, int]]:
    """``(module, name, line)`` of every string constant of the code ``source`` equal to one of ``names`` and used
    as an algorithm's name (docstrings left out)."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    docstrings = docstring_ids(tree)
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings:
            use = _bound_to(node, parents, names)
            if use is not None and (use == "dict key" or any(w in use.lower() for w in (*ALGO_WORDS, "choices"))):
                hits.append((module, node.value, node.lineno))
    return hits


def _spelled_in(path: Path, names: set[str]) -> list[tuple[str, str, int]]:
    return _algorithm_names_spelled(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)), names)


def test_a_barrier_algorithm_is_named_only_in_its_package():
    """Outside ``vizcoll/barrier/`` every consumer reads :data:`ALGORITHMS` (or an entry's ``name``, or a default
    such as ``DEFAULT_ALGORITHM``): a spelled name would be a second list that a new algorithm does not join."""
    names = set(ALGORITHMS.names)
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "barrier"
        for hit in _spelled_in(path, names)
        if hit[:2] not in ALLOWED
    ]
    assert found == []
    inside = [hit for path in sorted((PACKAGE / "barrier").rglob("*.py")) for hit in _spelled_in(path, names)]
    assert {name for _, name, _ in inside} >= {"tree"}  # the rule finds names where they are used as such


def test_the_spelling_rule_finds_what_it_should():
    """The rule flags the forms a second list of algorithms takes, and leaves "tree" as a word alone."""
    code = """
ALGO_NAMES = {"ms": "MS", "dlct+tree": "ID2"}
record = {"tree": tree.to_dict(), "kind": kind}
DEFAULT_ALGO = "dlct"
def f(p, algo="tree", columns=("dlct+ms",)):
    if p["algo"] == "tournament":
        return barrier("dissemination", 4)
    parser.add_argument("--algo", choices=NAMES, default="dlct+tree")
def compared_algo(p):
    return "dissemination+tree"
kind = "tree"
parser.add_argument("--kind", default="tree")
label = f"{name} tree"
x = {"kind": "tree"}
"""
    found = sorted(name for _, name, _ in _algorithm_names_spelled(code, "probe.py", set(ALGORITHMS.names)))
    assert found == sorted(
        ["ms", "dlct+tree", "dlct", "tree", "dlct+ms", "tournament", "dissemination", "dlct+tree", "dissemination+tree"]
    )
