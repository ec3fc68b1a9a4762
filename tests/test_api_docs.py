"""The API reference's docstrings: every object a page of ``docs/reference/api/`` names is documented in numpydoc.

Each ``::: dotted.path`` line of those pages (and each member its ``options: members: [...]`` lists) is imported
and its docstring parsed with griffe's numpy parser (the parser mkdocstrings uses for the site):

- a one-line summary;
- a ``Parameters`` section naming exactly the parameters of the signature, in order (a method's ``self`` /
  ``cls`` left out); for a class, the constructor's (``__init__`` or the dataclass fields), each in
  ``Parameters`` or ``Attributes``;
- a ``Returns`` (or ``Yields``) section when the function returns something (its annotation is not ``None``);
- a ``References`` section with a DOI for the objects that implement a paper's algorithm (:data:`PAPERS`).

So adding a parameter to one of these signatures without documenting it fails here.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import griffe
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs" / "reference" / "api").glob("*.md"))
DIRECTIVE = re.compile(r"^::: +([\w.]+)\s*$")
MEMBERS = re.compile(r"^\s+members:\s*\[([^\]]*)\]\s*$")

PAPERS = {
    # object -> the DOI its References section must give (docs/papers.md)
    "vizcoll.multicast.routing.route": "10.3778/j.issn.1002-8331.2009-0276",
    "vizcoll.multicast.tables.compare": "10.3778/j.issn.1002-8331.2009-0276",
    "vizcoll.multicast.groups.simulate_group": "10.3778/j.issn.1002-8331.2009-0276",
    "vizcoll.trees.cost.CostParams": "10.7544/issn1000-1239.202220684",
    "vizcoll.trees.cost.kopt": "10.7544/issn1000-1239.202220684",
    "vizcoll.trees.cost.selection_table": "10.7544/issn1000-1239.202220684",
    "vizcoll.trees.typeone.knomial_tree": "10.7544/issn1000-1239.202220684",
    "vizcoll.trees.typeone.hier_knomial_tree": "10.7544/issn1000-1239.202220684",
    "vizcoll.trees.typetwo.type_two_tree": "10.7544/issn1000-1239.202220684",
    "vizcoll.trees.entries.entry_experiment": "10.7544/issn1000-1239.202220684",
    "vizcoll.trees.metrics.tree_metrics": "10.7544/issn1000-1239.202220684",
    "vizcoll.trees.aggregation.simulate_aggregation": "10.7544/issn1000-1239.202220684",
    "vizcoll.barrier.algorithms.run_barriers": "10.3778/j.issn.1673-9418.1805061",
    "vizcoll.barrier.benchmark.sweep": "10.3778/j.issn.1673-9418.1805061",
    "vizcoll.barrier.structures.adjust": "10.3778/j.issn.1673-9418.1805061",
    "vizcoll.barrier.uq.uq_round": "10.3778/j.issn.1673-9418.1805061",
    "vizcoll.barrier.uq.mean_uq": "10.3778/j.issn.1673-9418.1805061",
    "vizcoll.reduction.task.simulate_task_reduction": "10.13700/j.bh.1001-5965.2017.0786",
    "vizcoll.reduction.reliability.reliability_experiment": "10.13700/j.bh.1001-5965.2017.0786",
    "vizcoll.reduction.static_sim.simulate_static": "10.1177/1094342005051521",
    "vizcoll.reduction.static.rabenseifner_cost": "10.1177/1094342005051521",
    "vizcoll.reduction.static.binomial_cost": "10.1002/cpe.1206",
    "vizcoll.reduction.static.task_cost": "10.13700/j.bh.1001-5965.2017.0786",
    "vizcoll.reduction.params.ReductionParams": "10.13700/j.bh.1001-5965.2017.0786",
    "vizcoll.treft.simulate.simulate_treft": "10.3969/j.issn.1007-130X.2015.12.007",
    "vizcoll.treft.sections.place_sections": "10.3969/j.issn.1007-130X.2015.12.007",
    "vizcoll.treft.network.CostModel": "10.3969/j.issn.1007-130X.2015.12.007",
    "vizcoll.erasure.fmel.fmel_search": "10.7544/issn1000-1239.202220580",
    "vizcoll.erasure.compare.compare": "10.7544/issn1000-1239.202220580",
    "vizcoll.erasure.codes.reed_solomon": "10.1137/0108018",
    "vizcoll.erasure.metrics.evaluate": "10.7544/issn1000-1239.202220580",
    "vizcoll.schedule.loggp.simulate": "10.1145/1851476.1851564",
    "vizcoll.schedule.loggp.LogGP": "10.1145/215399.215427",
    "vizcoll.schedule.goal.dumps": "10.1145/1851476.1851564",
    "vizcoll.schedule.model.Schedule": "10.1145/1851476.1851564",
    "vizcoll.schedule.replay.loggp_timeline": "10.1145/1851476.1851564",
    "vizcoll.schedule.collectives.barrier": "10.3778/j.issn.1673-9418.1805061",
    "vizcoll.schedule.collectives.tree_collective": "10.7544/issn1000-1239.202220684",
    "vizcoll.schedule.collectives.static_reduction": "10.1177/1094342005051521",
}


def documented() -> list[str]:
    """Every object a page names, and every member listed in its options, as dotted paths (page order)."""
    found: list[str] = []
    for page in PAGES:
        current = None
        for line in page.read_text(encoding="utf-8").splitlines():
            directive = DIRECTIVE.match(line)
            if directive:
                current = directive.group(1)
                found.append(current)
                continue
            members = MEMBERS.match(line)
            if members and current:
                found += [f"{current}.{name.strip()}" for name in members.group(1).split(",") if name.strip()]
            elif line.strip() and not line.startswith((" ", "\t")):
                current = None
    return found


def resolve(path: str):
    """The object at ``path`` (the longest importable module prefix, then attributes) and whether it is a method.

    A method is returned as its function; its first parameter (``self``, or ``cls`` of a classmethod) is not one
    the docstring documents.
    """
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        bound = False
        for name in parts[cut:]:
            owner_is_class = inspect.isclass(obj)
            obj = inspect.getattr_static(obj, name) if owner_is_class else getattr(obj, name)
            bound = owner_is_class and not isinstance(obj, staticmethod) and not inspect.isclass(obj)
        if isinstance(obj, classmethod | staticmethod):
            obj = obj.__func__
        return obj, bound
    raise ImportError(path)


def sections(doc: str) -> dict[str, list]:
    """The docstring's sections by kind (``parameters``, ``returns``, ...; admonitions by their title)."""
    out: dict[str, list] = {}
    for section in griffe.Docstring(doc).parse("numpy"):
        key = section.title.lower() if section.kind.value == "admonition" else section.kind.value
        out.setdefault(key, []).append(section)
    return out


def names(found: dict[str, list], kind: str) -> list[str]:
    """The names a section documents (``a, b : int`` documents two; ``**kwargs`` is ``kwargs``)."""
    items = (item.name for section in found.get(kind, []) for item in section.value)
    return [name.strip().lstrip("*") for item in items for name in item.split(",")]


def signature_names(func, bound: bool = False) -> list[str]:
    """The parameters a docstring documents: all of the signature's but a method's first."""
    return list(inspect.signature(func).parameters)[1 if bound else 0 :]


def returns_something(func) -> bool:
    annotation = inspect.signature(func).return_annotation
    return annotation not in (None, "None")


OBJECTS = documented()


def test_pages_name_objects():
    assert len(PAGES) == 11
    assert len(OBJECTS) == len(set(OBJECTS)), "an object is named twice"
    named = [line for page in PAGES for line in page.read_text(encoding="utf-8").splitlines() if DIRECTIVE.match(line)]
    assert len(named) >= 60
    assert not set(PAPERS) - set(OBJECTS), f"PAPERS names objects no page documents: {set(PAPERS) - set(OBJECTS)}"


@pytest.mark.parametrize("path", OBJECTS)
def test_numpydoc(path):
    obj, bound = resolve(path)
    doc = obj.__doc__  # the object's own: not a base class's, nor a dataclass's generated signature
    assert doc and doc.strip(), f"{path} has no docstring"
    doc = inspect.cleandoc(doc)
    lines = doc.strip().splitlines()
    assert len(lines) == 1 or not lines[1].strip(), f"{path}: the summary is not one line: {lines[:2]}"
    found = sections(doc)
    params = names(found, "parameters")
    if inspect.isclass(obj):
        wanted = signature_names(obj)
        both = params + names(found, "attributes")
        assert not set(wanted) - set(both), f"{path}: undocumented {sorted(set(wanted) - set(both))}"
        assert not set(params) - set(wanted), f"{path}: no such parameter {sorted(set(params) - set(wanted))}"
    else:
        assert callable(obj), f"{path} is not a function or class"
        wanted = signature_names(obj, bound)
        assert params == wanted, f"{path}: Parameters {params} != signature {wanted}"
        if returns_something(obj):
            assert "returns" in found or "yields" in found, f"{path}: no Returns section"
    if path in PAPERS:
        refs = "\n".join(section.value.description for section in found.get("references", []))
        assert PAPERS[path] in refs, f"{path}: References without the DOI {PAPERS[path]}"
