"""The shape of the code, kept true by tests: no import cycles, short modules and functions, one event core."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from tests.source_scan import docstring_ids

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "vizcoll"
MAX_MODULE_LINES = 350  # logical lines (statements), see logical_lines
MAX_FUNCTION_LINES = 45


def modules() -> dict[str, Path]:
    """Dotted name -> file of every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports, at any level (a function-level import counts too)."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def test_no_import_cycle_inside_the_package():
    known = modules()
    graph = nx.DiGraph()
    for name, path in known.items():
        for target in imported(name, path, known):
            # a package importing its own submodules (its public face) is no cycle
            if not (path.name == "__init__.py" and target.startswith(name + ".")):
                graph.add_edge(name, target)
    cycles = sorted(sorted(c) for c in nx.simple_cycles(graph) if len(c) > 1 and not _through_init(c, known))
    assert cycles == [], f"import cycles: {cycles}"


def test_a_pages_private_modules_are_imported_only_from_its_folder():
    """``vizcoll/ui/pages/<page>/_model.py`` and the other ``_`` modules serve their page; the rest of the package
    reads a page through its ``page`` and ``export`` modules."""
    known = modules()
    leaks = sorted(
        f"{name} imports {target}"
        for name, path in known.items()
        for target in imported(name, path, known)
        if (folder := _private_page_module(target)) and not name.startswith(folder + ".")
    )
    assert leaks == []


def _private_page_module(name: str) -> str | None:
    """The page folder's package of a page's private module (``vizcoll.ui.pages.trees._model`` ->
    ``vizcoll.ui.pages.trees``), else None."""
    folder, _, module = name.rpartition(".")
    return folder if folder.startswith("vizcoll.ui.pages.") and module.startswith("_") else None


def _through_init(cycle: list[str], known: dict[str, Path]) -> bool:
    """A cycle that only passes through a package's ``__init__`` re-exporting its submodules."""
    return any(known[m].name == "__init__.py" and all(o.startswith(m) for o in cycle) for m in cycle)


def logical_lines(text: str) -> list[int]:
    """The line on which each logical line (a statement, however many lines ``ruff format`` spreads it over)
    ends: Python's tokenizer's NEWLINE tokens. Sizes are counted in these, so that the formatter's one argument
    per line does not count as code."""
    return [t.start[0] for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.NEWLINE]


def test_a_statement_spread_over_lines_counts_once():
    assert logical_lines('f(\n    1,\n    2,\n)\nx = 1  # one\n\n"""doc\nstring"""\n') == [4, 5, 8]


def test_no_module_over_350_logical_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(logical_lines(p.read_text()))) > MAX_MODULE_LINES
    }
    assert long == {}, f"modules over {MAX_MODULE_LINES} logical lines: {long}"


def test_no_function_over_45_logical_lines():
    long = {}
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        ends = np.array(logical_lines(text))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = int(((ends >= node.lineno) & (ends <= node.end_lineno)).sum())
                if length > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = length
    assert long == {}, f"functions over {MAX_FUNCTION_LINES} logical lines: {long}"


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> int:
    """How many parameters a function takes (``self``/``cls`` not counted; ``*args`` and ``**kwargs`` one each)."""
    args = node.args
    named = [a.arg for a in (*args.posonlyargs, *args.args)]
    own = 1 if named and named[0] in ("self", "cls") else 0
    return len(named) - own + len(args.kwonlyargs) + (args.vararg is not None) + (args.kwarg is not None)


def test_no_function_takes_more_than_8_parameters():
    """Issue 49: values that travel together are one parameter object (a simulation takes its ``RunSetup``,
    ``ReductionRun``, ``GroupRun``…), in the package, the benchmarks and the scripts."""
    many = {
        f"{path.relative_to(ROOT)}:{node.lineno} {getattr(node, 'name', 'lambda')}": n
        for folder in (PACKAGE, ROOT / "benchmarks", ROOT / "scripts")
        for path in folder.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and (n := parameters(node)) > 8
    }
    assert many == {}


def test_one_event_core():
    """Every simulation (a module that builds a Timeline) runs on vizcoll.sim.engine and keeps no heap of its own.

    Heaps for searches (Dijkstra, best-first scheme search) are not event cores and stay where they are.
    """

    def simulation(path: Path) -> bool:
        text = path.read_text()
        return "vizcoll.sim.timeline import" in text or "from vizcoll.sim import" in text

    heaps = sorted(
        str(p.relative_to(ROOT))
        for p in PACKAGE.rglob("*.py")
        if simulation(p) and "heapq" in p.read_text() and p != PACKAGE / "sim" / "engine.py"
    )
    assert heaps == [], f"simulations with their own event heap: {heaps}"


def spelled(path: Path, names: set[str]) -> list[str]:
    """The string constants of ``path`` equal to one of ``names`` (docstrings left out: they explain, doctests
    and usage lines included, and choose nothing)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = docstring_ids(tree)
    return [
        f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings
    ]


@pytest.mark.parametrize("package", ["trees", "multicast", "topology"])
def test_a_registered_name_is_spelled_only_in_its_engine_package(package):
    """Tree kinds, multicast algorithms and file formats are known elsewhere only through their registries
    (``kinds.names()``, ``ALGORITHMS``, ``formats.REGISTRY``, or entries such as ``FULB.name``): a spelled name
    would be a second list that a new entry does not join."""
    from vizcoll.multicast.algorithms import ALGORITHMS
    from vizcoll.topology import formats
    from vizcoll.trees import kinds

    names = {"trees": set(kinds.names()), "multicast": set(ALGORITHMS), "topology": set(formats.REGISTRY)}[package]
    assert len(names) >= 4
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != package
        for hit in spelled(path, names)
    ]
    assert found == []
    inside = [hit for path in sorted((PACKAGE / package).rglob("*.py")) for hit in spelled(path, names)]
    assert len(inside) >= len(names)  # the scan finds the names where they are spelled: the registry
