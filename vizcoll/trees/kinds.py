"""The registry of type I aggregation-tree kinds: the CLI (``tree --kind``, ``goal tree``) and the /trees page read it.

Each kind is a :class:`TreeKind` whose ``build(nprocs, k, groups)`` returns a
:class:`~vizcoll.trees.tree.Tree` over ranks ``0..nprocs-1`` (vertex 0 the
root). ``groups`` are the processes' nested rank lists
(:mod:`vizcoll.trees.groups`) for a ``hierarchical`` kind; the other kinds
ignore them (consumers pass None). Consumers read :data:`REGISTRY` when they
run (:func:`names`, :func:`get`, the live views :data:`LABELS` and
:data:`BUILDERS`), so a kind given to :func:`register` shows everywhere.
Adding a kind is one builder module and one :class:`TreeKind` line in
:data:`REGISTRY` below.

>>> names()
('kary', 'knomial', 'zhao', 'hier-knomial')
>>> get(ZHAO).title_for(4), get(ZHAO).hierarchical
('Zhao 4-nomial', True)
>>> BUILDERS[KARY](7, 2, None).children[0]
[1, 2]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from vizcoll.registry import Registry
from vizcoll.trees.groups import Nested
from vizcoll.trees.tree import Tree
from vizcoll.trees.typeone import hier_knomial_tree, kary_tree, knomial_tree, zhao_tree

__all__ = [
    "TreeKind",
    "REGISTRY",
    "LABELS",
    "BUILDERS",
    "KARY",
    "KNOMIAL",
    "ZHAO",
    "HIER_KNOMIAL",
    "register",
    "unregister",
    "get",
    "names",
]

KARY, KNOMIAL, ZHAO, HIER_KNOMIAL = "kary", "knomial", "zhao", "hier-knomial"

Builder = Callable[[int, int, Nested | None], Tree]


@dataclass(frozen=True)
class TreeKind:
    """A tree kind: ``name`` (``--kind``, the page's value), ``label`` (the page's option), ``build(nprocs, k,
    groups)``, whether it is built on the process groups, a sentence for help texts and ``title`` (the tree of
    width k by name, a format string with ``{k}``; the label when empty)."""

    name: str
    label: str
    build: Builder
    hierarchical: bool = False
    description: str = ""
    title: str = ""

    def title_for(self, k: int) -> str:
        """``"4-ary"``, ``"Zhao 4-nomial"``: the tree of width ``k`` by name."""
        return self.title.format(k=k) if self.title else self.label


REGISTRY: Registry[TreeKind] = Registry("tree kind")
"""Every tree kind by name, in the order the CLI and the page list them."""
register, unregister, get = REGISTRY.register, REGISTRY.unregister, REGISTRY.lookup


def names() -> tuple[str, ...]:
    """The registered kinds' names, in order."""
    return tuple(REGISTRY)


for _kind in (
    TreeKind(
        KARY,
        "k-ary",
        lambda P, k, groups: kary_tree(P, k),
        False,
        "the complete k-ary tree, parent (r - 1) // k",
        "{k}-ary",
    ),
    TreeKind(
        KNOMIAL,
        "k-nomial",
        lambda P, k, groups: knomial_tree(P, k),
        False,
        "the k-nomial tree (Algorithm 1)",
        "{k}-nomial",
    ),
    TreeKind(
        ZHAO,
        "Zhao et al. (k-nomial over group leaders)",
        lambda P, k, groups: zhao_tree(groups, k),
        True,
        "a k-nomial tree per group, then one over the group leaders (Zhao et al.)",
        "Zhao {k}-nomial",
    ),
    TreeKind(
        HIER_KNOMIAL,
        "hierarchical k-nomial",
        lambda P, k, groups: hier_knomial_tree(groups, k),
        True,
        "the minimum-height hierarchical k-nomial tree (Algorithms 2-4)",
        "hierarchical {k}-nomial",
    ),
):
    register(_kind)


class _View(Mapping):
    """Name -> one attribute of every registered kind, read from :data:`REGISTRY` on each use."""

    def __init__(self, attribute: str):
        self._attribute = attribute

    def __getitem__(self, name: str):
        return getattr(REGISTRY[name], self._attribute)

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)

    def __repr__(self) -> str:
        return repr(dict(self))


LABELS: Mapping[str, str] = _View("label")
"""Name -> label of every registered kind (live)."""
BUILDERS: Mapping[str, Builder] = _View("build")
"""Name -> ``build(nprocs, k, groups)`` of every registered kind (live)."""
