"""A rooted tree over the processes (type I) or over switches and processes (type II).

Vertex 0 is the root and ``parent[0] == -1``; ``children[v]`` lists ``v``'s
children in the order the building algorithm emits them. ``node[v]`` is the
topology node the vertex sits on (an end node for a process, a switch for an
aggregation point) when the tree is mapped on a fabric, else -1; ``label[v]``
names the vertex (e.g. ``"rank 5"`` or ``"leaf3"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from vizcoll.arrays import ranges
from vizcoll.errors import VizcollError

__all__ = ["Tree", "breadth_first"]


@dataclass
class Tree:
    """A rooted tree over the processes (type I) or over switches and processes (type II).

    Vertex 0 is the root and ``parent[0] == -1``. Build one with :meth:`from_children` or a tree builder
    (:func:`~vizcoll.trees.typeone.knomial_tree`, :func:`~vizcoll.trees.typetwo.type_two_tree`, ...).

    Parameters
    ----------
    parent : list of int
        ``parent[v]``: the parent of vertex ``v`` (-1 for the root, vertex 0).
    children : list of list of int
        ``children[v]``: ``v``'s children in the order the building algorithm emits them.
    node : list of int
        ``node[v]``: the topology node the vertex sits on (an end node for a process, a switch for an aggregation
        point) when the tree is mapped on a fabric, else -1 (or empty).
    label : list of str
        ``label[v]`` names the vertex (e.g. ``"rank 5"`` or ``"leaf3"``).
    kind : str
        What built it (``"4-nomial"``, ``"hierarchical 2-nomial"``, ...).

    Examples
    --------
    >>> tree = Tree.from_children([[1, 2], [3], [], []])
    >>> tree.parent, tree.height, tree.depth().tolist()
    ([-1, 0, 0, 1], 2, [0, 1, 1, 2])
    """

    parent: list[int]
    children: list[list[int]]
    node: list[int] = field(default_factory=list)
    label: list[str] = field(default_factory=list)
    kind: str = ""

    @classmethod
    def from_children(cls, children: list[list[int]], kind: str = "", node=None, label=None) -> Tree:
        """Build a tree from the children lists (vertex 0 is the root).

        Parameters
        ----------
        children : list of list of int
            Each vertex's children, in order.
        kind : str
            What built it.
        node : sequence of int, optional
            The topology node of each vertex.
        label : sequence of str, optional
            The name of each vertex.

        Returns
        -------
        Tree
            The tree, its ``parent`` list derived from ``children`` (not validated: see :meth:`validate`).
        """
        parent = [-1] * len(children)
        for v, kids in enumerate(children):
            for c in kids:
                parent[c] = v
        return cls(parent, [list(k) for k in children], list(node or []), list(label or []), kind)

    @property
    def size(self) -> int:
        return len(self.parent)

    def levels(self) -> list[np.ndarray]:
        """The vertices by depth, breadth-first from the root, one level of children at a time.

        Returns
        -------
        list of numpy.ndarray
            Level ``d``: the children of level ``d - 1``'s vertices, in their order.

        Raises
        ------
        VizcollError
            When some vertex cannot be reached from the root.
        """
        count = np.fromiter(map(len, self.children), dtype=np.int64, count=len(self.children))
        kids = np.fromiter(chain.from_iterable(self.children), dtype=np.int64, count=int(count.sum()))
        start = np.cumsum(count) - count
        levels, reached = [np.zeros(min(self.size, 1), dtype=np.int64)], min(self.size, 1)
        while reached < self.size:
            n = count[levels[-1]]
            level = kids[np.repeat(start[levels[-1]] - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))]
            if not len(level):
                break
            levels.append(level)
            reached += len(level)
        if reached != self.size:
            raise VizcollError(f"the tree reaches {reached} of its {self.size} vertices from the root")
        return levels

    def depth(self) -> np.ndarray:
        """Edges from each vertex up to the root.

        Returns
        -------
        numpy.ndarray
            ``int64`` depth of every vertex.

        Raises
        ------
        VizcollError
            When some vertex cannot be reached from the root.
        """
        depth = np.zeros(self.size, dtype=np.int64)
        for d, level in enumerate(self.levels()):
            depth[level] = d
        return depth

    @property
    def height(self) -> int:
        """Most edges from a vertex to the root (0 for a single vertex)."""
        return int(self.depth().max()) if self.size else 0

    def to_dict(self) -> dict:
        """JSON-serialisable form.

        Returns
        -------
        dict
            ``parent``, ``children``, ``node``, ``label`` and ``kind``.
        """
        return {
            "parent": list(self.parent),
            "children": [list(c) for c in self.children],
            "node": list(self.node),
            "label": list(self.label),
            "kind": self.kind,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Tree:
        """Inverse of :meth:`to_dict`, validated.

        Parameters
        ----------
        data : dict
            What :meth:`to_dict` returned.

        Returns
        -------
        Tree
            The tree.

        Raises
        ------
        VizcollError
            When a field is missing or of the wrong type, or parent and children disagree.
        """
        try:
            tree = cls(
                [int(p) for p in data["parent"]],
                [[int(c) for c in kids] for kids in data["children"]],
                [int(n) for n in data.get("node", [])],
                [str(x) for x in data.get("label", [])],
                str(data.get("kind", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise VizcollError(f"not a tree: {exc}") from None
        tree.validate()
        return tree

    def validate(self) -> None:
        """Raise unless parent and children agree and every vertex hangs below the root."""
        if len(self.children) != self.size or (self.size and self.parent[0] != -1):
            raise VizcollError("a tree needs one children list per vertex and vertex 0 as its root")
        count = np.fromiter(map(len, self.children), dtype=np.int64, count=self.size)
        kids = np.fromiter(chain.from_iterable(self.children), dtype=np.int64, count=int(count.sum()))
        owner = np.repeat(np.arange(self.size), count)
        inside = (kids >= 0) & (kids < self.size)
        named = np.zeros(len(kids), dtype=bool)
        named[inside] = np.asarray(self.parent, dtype=np.int64)[kids[inside]] == owner[inside]
        wrong = np.flatnonzero(~named)
        if len(wrong):
            raise VizcollError(f"vertex {int(owner[wrong[0]])}'s children do not name it as their parent")
        self.depth()


def breadth_first(root: int, ptr: np.ndarray, below: np.ndarray) -> tuple[list[int], list[int], list[list[int]]]:
    """Number the vertices reached from ``root`` breadth-first, whose children are ``below[ptr[v]:ptr[v + 1]]``
    (in order): ``(origin, parent, children)``, ``origin[a]`` the vertex numbered ``a`` and the parent and children
    lists of the numbered tree. Level by level on arrays: in breadth-first order the children of ``a`` are the
    vertices that follow the children of every vertex numbered before it.

    >>> breadth_first(2, np.array([0, 0, 0, 2, 2]), np.array([3, 0]))
    ([2, 3, 0], [-1, 0, 0], [[1, 2], [], []])
    """
    levels = [np.array([root], dtype=np.int64)]
    while len(levels[-1]):
        levels.append(below[ranges(ptr[levels[-1]], ptr[levels[-1] + 1])])
    origin = np.concatenate(levels)
    size = ptr[origin + 1] - ptr[origin]
    first = np.cumsum(size) - size + 1
    children = list(map(list, map(range, first.tolist(), (first + size).tolist())))
    return origin.tolist(), [-1, *np.repeat(np.arange(len(origin)), size).tolist()], children
