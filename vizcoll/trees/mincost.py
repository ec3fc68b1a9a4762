"""Algorithm 5 of the paper (section 4): the minimum-cost type II tree derived from a physical tree.

A type II tree reduces inside the switches; each switch of the tree uses one
aggregation-tree entry. From the physical tree ``T`` (definition 9: the
union of the shortest paths from the NICs to the root), the derived tree
``A`` (definition 10) only ever *promotes* a vertex to become a child of one
of its ancestors, keeps at most ``K(sw)`` children per switch and uses as few
switches (the *cost*, definition 11) as the algorithm finds. See
:func:`build_minimum_type_II_tree`; :mod:`vizcoll.trees.typetwo` builds ``T``
on a fabric and calls it.

References: [AGGT24, §4, def. 9–11, Alg. 5] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from vizcoll.trees.tree import Tree, breadth_first

__all__ = ["build_minimum_type_II_tree", "tree_cost"]


def _bounds(children: list[list[int]], bound: int | Sequence[int]) -> list[int]:
    """``K(v) = max(bound, child count)`` per vertex (definition 10 needs K >= children in T)."""
    if isinstance(bound, (int, np.integer)):
        return [max(int(bound), len(kids)) for kids in children]
    if len(bound) != len(children):
        raise ValueError(f"{len(bound)} degree bounds for {len(children)} vertices")
    return [max(int(k), len(kids)) for k, kids in zip(bound, children, strict=True)]


def _post_order(children: list[list[int]]) -> list[int]:
    """Vertices with every child before its parent (reverse breadth-first order)."""
    order = [0]
    for v in order:
        order.extend(children[v])
    return order[::-1]


class _Derivation:
    """Mutable state of Algorithm 5 over a physical tree (vertices = T's vertex numbers)."""

    def __init__(self, physical: Tree, bound: int | Sequence[int]):
        self.children = physical.children
        self.switch = [bool(kids) for kids in self.children]  # definition 9: T's leaves are the NICs
        self.bound = _bounds(self.children, bound)
        node = physical.node if len(physical.node) == physical.size else range(physical.size)
        self.key = [int(n) for n in node]  # ties between equally small leaf switches: node order
        self.kids: dict[int, list[int]] = {}
        self.parent = [-1] * physical.size

    def run(self) -> int:
        """Algorithm 5 bottom-up; returns the root of ``A`` (a vertex of ``T``)."""
        top = list(range(len(self.children)))
        for v in _post_order(self.children):
            if not self.switch[v]:
                continue  # step 1: a NIC is a tree by itself
            subs = [top[c] for c in self.children[v]]  # step 2: the children's trees A_i
            if len(subs) == 1:
                top[v] = subs[0]  # step 3: a switch with one child is not needed
                continue
            self.kids[v] = subs  # step 4
            for s in subs:
                self.parent[s] = v
            self._promote(v)  # steps 5-9
        return top[0]

    def _is_leaf_switch(self, s: int) -> bool:
        return all(not self.switch[c] for c in self.kids[s])

    def _leaf_switches(self, v: int) -> list[tuple[int, int, int]]:
        """Heap of ``(children, node key, vertex)`` for the leaf switches of ``A_v`` other than ``v``."""
        heap, stack = [], [c for c in self.kids[v] if self.switch[c]]
        while stack:
            s = stack.pop()
            inner = [c for c in self.kids[s] if self.switch[c]]
            if inner:
                stack.extend(inner)
            else:
                heap.append((len(self.kids[s]), self.key[s], s))
        heapq.heapify(heap)
        return heap

    def _promote(self, v: int) -> None:
        """While ``v`` has room: move a process of the smallest leaf switch up to ``v``."""
        heap = self._leaf_switches(v)
        while len(self.kids[v]) < self.bound[v] and heap:
            count, _, leaf = heapq.heappop(heap)
            if leaf not in self.kids or len(self.kids[leaf]) != count or not self._is_leaf_switch(leaf):
                continue  # a stale heap entry
            p = self.kids[leaf].pop()  # step 7: "any process": the last one (highest node in T's order)
            self.kids[v].append(p)
            self.parent[p] = v
            if len(self.kids[leaf]) == 1:  # step 8: the leaf switch is no longer needed
                grand = self._collapse(leaf)
                if grand != v and self._is_leaf_switch(grand):
                    heapq.heappush(heap, (len(self.kids[grand]), self.key[grand], grand))
            else:
                heapq.heappush(heap, (len(self.kids[leaf]), self.key[leaf], leaf))

    def _collapse(self, leaf: int) -> int:
        """Hand ``leaf``'s only child ``q`` to ``q``'s grandparent, delete ``leaf``; return that grandparent."""
        (q,) = self.kids.pop(leaf)
        grand = self.parent[leaf]
        siblings = self.kids[grand]
        siblings[siblings.index(leaf)] = q
        self.parent[q] = grand
        self.parent[leaf] = -1
        return grand


def _tree_from(root: int, kids: dict[int, list[int]], physical: Tree, kind: str) -> tuple[Tree, list[int]]:
    """Number ``A`` breadth-first from ``root``; returns ``(A, origin)`` with ``origin[a]`` = vertex of T."""
    count = np.zeros(physical.size, dtype=np.int64)
    count[list(kids)] = list(map(len, kids.values()))
    ptr = np.zeros(physical.size + 1, dtype=np.int64)
    np.cumsum(count, out=ptr[1:])
    below = np.zeros(int(ptr[-1]), dtype=np.int64)  # the kids of every vertex of T, in T's vertex order
    for v, vertex_kids in kids.items():
        below[ptr[v] : ptr[v + 1]] = vertex_kids
    origin, parent, children = breadth_first(root, ptr, below)
    node = list(map(physical.node.__getitem__, origin)) if len(physical.node) == physical.size else []
    label = list(map(physical.label.__getitem__, origin)) if len(physical.label) == physical.size else []
    return Tree(parent, children, node, label, kind), origin


def build_minimum_type_II_tree(physical: Tree, bound: int | Sequence[int]) -> tuple[Tree, list[int]]:
    """Algorithm 5: the minimum-cost type II tree derived from a physical tree.

    Parameters
    ----------
    physical : Tree
        The physical tree ``T``; its leaves are the NICs (definition 9) and
        every inner vertex is a switch.
    bound : int or sequence of int
        The degree bound ``K``: one value for every switch or one per vertex
        of ``T``; a bound below a switch's child count in ``T`` is raised to it.

    Returns
    -------
    (Tree, list of int)
        ``A`` numbered breadth-first from its root (``node`` and ``label`` are
        copied from ``T``), and ``origin[a]``: the vertex of ``T`` that vertex
        ``a`` of ``A`` is.

    Notes
    -----
    Bottom-up, a switch ``r`` with one child is dropped (its child's tree is
    returned); otherwise ``r`` adopts its children's trees ``A_i`` and, while
    it has fewer than ``K(r)`` children, takes a process from the smallest
    leaf switch ``L`` of all ``A_i`` (a *leaf switch* has only NICs as
    children; *smallest* = fewest children, ties: lowest topology node, i.e.
    ``T.node``, or vertex number without one). The process moved is ``L``'s
    last child. If ``L`` is left with one child ``q``, ``q`` replaces ``L``
    under ``L``'s parent and ``L`` is deleted. The loop also stops when no
    leaf switch is left.

    The paper states that the result has minimum cost (proof omitted). A
    brute-force comparison over random small trees (tests) agrees when every
    switch has the same bound and no switch of ``T`` has a single child, but
    finds smaller derived trees otherwise: step 3 discards a single-child
    switch whose spare bound could adopt vertices from below, and with
    per-switch bounds the fewest-children rule can empty the wrong leaf
    switch. This function follows the algorithm as printed.

    Examples
    --------
    >>> t = Tree.from_children([[1, 2], [3, 4], [5, 6], [], [], [], []])  # root, 2 switches, 4 NICs
    >>> a, origin = build_minimum_type_II_tree(t, 3)
    >>> a.children, origin
    ([[1, 2, 3], [], [4, 5], [], [], []], [0, 3, 2, 4, 5, 6])
    >>> tree_cost(a)
    2
    """
    if physical.size == 0:
        raise ValueError("the physical tree has no vertices")
    run = _Derivation(physical, bound)
    root = run.run()
    return _tree_from(root, run.kids, physical, "type II (min-cost)")


def tree_cost(tree: Tree) -> int:
    """Switches (inner vertices) of a type II tree: definition 11's cost = entries it uses."""
    return sum(1 for kids in tree.children if kids)
