"""Type I aggregation trees: k-ary, k-nomial, Zhao et al.'s and the minimum-height hierarchical k-nomial tree.

Every builder returns a :class:`~vizcoll.trees.tree.Tree` over the processes
``0..P-1`` whose vertex ``v`` is rank ``v`` (``label[v] == "rank v"``) and whose
root, vertex 0, is rank 0. Children are listed in the order the algorithm emits
them.

- :func:`kary_tree` (definition 7): ``parent(r) = (r − 1) // k``, children
  ``r·k + i`` for ``i = 1..k``;
- :func:`knomial_tree`: Algorithm 1 (:func:`build_k_nomial_tree`) run for
  every rank;
- :func:`zhao_tree`: a k-nomial tree per group, then a k-nomial tree over the
  group leaders (Zhao et al.);
- :func:`hier_knomial_tree`: the minimum-height hierarchical k-nomial tree,
  Algorithms 2–4 (:func:`merge_groups`, :func:`build_rank_mapping`,
  :func:`build_hierarchical_tree`) on a :class:`Group` hierarchy;

**Groups** are nested lists of ranks (see :mod:`vizcoll.trees.groups`).

**Height.** Algorithm 2 minimises ``cnt``, the size of the group's k-nomial
tree (the paper's "height" ``log_k cnt``: it raises ``cnt`` only when no
aligned block is free), and never needs more slots than Zhao's tree. The
actual height (deepest occupied node) can still exceed Zhao's: first fit may
take a deeper free block (``[5, 1]``, k = 4: the single process goes to node
5, depth 2, though node 8 has depth 1: height 2 against Zhao's 1), and the
smallest ``cnt`` can force deep nodes (``[4, 2, 2]``, k = 2: height 3 in 8
slots against Zhao's 2 in 16). The paper's Fig. 9 (14 processes, 4 groups,
k = 2, e.g. sizes ``[3, 3, 3, 5]``) is a case where it is lower: 3 against 4.

**Root.** The hierarchical tree is rooted at the first process of the group
Algorithm 2 places first (the largest ``cnt``, ties in the given order), and
Zhao's tree at the first process of the first group. When that process ``r0``
is not rank 0, vertices 0 and ``r0`` trade places (vertex 0 stays the root);
``label`` names the rank of every vertex and :func:`vertex_ranks` reads it.

References: [AGGT24, def. 7–8, Alg. 1–4, Fig. 9]; Zhao et al.: [AGGT24, ref. 25] (keys: ``docs/papers.md``).

Examples
--------
>>> knomial_tree(9, 3).children[0]
[3, 6, 1, 2]
>>> kary_tree(7, 2).children
[[1, 2], [3, 4], [5, 6], [], [], [], []]
>>> hier_knomial_tree([[0, 1], [2, 3, 4]], 2).children  # the group of 3 (cnt 4) is placed first
[[2, 4, 3], [], [1], [], []]
>>> vertex_ranks(hier_knomial_tree([[0, 1], [2, 3, 4]], 2))
[2, 1, 0, 3, 4]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.trees.groups import Nested, flatten_groups, is_leaf_group, normalize_groups
from vizcoll.trees.tree import Tree

__all__ = [
    "Group",
    "kary_tree",
    "build_k_nomial_tree",
    "knomial_links",
    "knomial_tree",
    "zhao_tree",
    "make_group",
    "merge_groups",
    "build_rank_mapping",
    "build_hierarchical_tree",
    "hier_knomial_tree",
    "vertex_ranks",
]


def _check(P: int, k: int) -> None:
    if not isinstance(P, (int, np.integer)) or P < 1:
        raise SpecError(f"the number of processes must be a positive integer, got {P!r}")
    if not isinstance(k, (int, np.integer)) or k < 2:
        raise SpecError(f"the tree width k must be an integer >= 2, got {k!r}")


def _tree(P: int, root: int, child: np.ndarray, parent: np.ndarray, order: np.ndarray, kind: str) -> Tree:
    """A Tree over ranks ``0..P-1`` from its edges (``child`` rank below ``parent`` rank, a parent's children in
    ``order``): vertex v = rank v, except that the root rank and rank 0 swap vertices."""
    vertex = np.arange(P)
    vertex[[0, root]] = [root, 0]  # the swap is its own inverse: vertex v holds rank vertex[v]
    child, parent = vertex[child], vertex[parent]
    parents = np.full(P, -1, dtype=np.int64)
    parents[child] = parent
    tree = Tree(
        parents.tolist(), _children_lists(P, child, parent, order), [], [f"rank {r}" for r in vertex.tolist()], kind
    )
    tree.validate()
    return tree


def vertex_ranks(tree: Tree) -> list[int]:
    """The rank of every vertex: from labels ``"rank r"`` when all have one, else ``v`` itself.

    The labels are read joined, in a few passes of C (measured: docs/design.md): when the joined text splits
    on ``"\\nrank "`` into one string of digits per vertex, no label holds a line break and each is ``"rank "``
    and its digits.

    >>> vertex_ranks(Tree([-1, 0], [[1], []], [], ["rank 7", "rank 3"])), vertex_ranks(Tree([-1], [[]], [], ["r"]))
    ([7, 3], [0])
    """
    labels = tree.label if len(tree.label) == tree.size else []
    joined = "\n".join(labels)
    if labels and joined.startswith("rank "):
        numbers = joined[5:].split("\nrank ")
        if len(numbers) == len(labels) and all(numbers) and "".join(numbers).isdigit():
            return list(map(int, numbers))
    return list(range(tree.size))


# ---------------------------------------------------------------- k-ary and k-nomial
def kary_tree(P: int, k: int) -> Tree:
    """The complete k-ary tree (definition 7): BFS numbering, parent ``(r − 1) // k``."""
    _check(P, k)
    child = np.arange(1, P, dtype=np.int64)
    parent = (child - 1) // k  # every parent at once: its children are in rank order
    children = _children_lists(P, child, parent, child)
    return Tree([-1, *parent.tolist()], children, [], [f"rank {r}" for r in range(P)], f"{k}-ary")


def build_k_nomial_tree(my_rank: int, k: int, P: int) -> tuple[int, list[int]]:
    """Algorithm 1: the parent (-1 for rank 0) and children (in emit order) of ``my_rank``.

    >>> build_k_nomial_tree(0, 2, 8), build_k_nomial_tree(6, 2, 8)
    ((-1, [4, 2, 1]), (4, [7]))
    """
    parent, mask = -1, 1
    while mask < P:
        if my_rank % (k * mask):
            parent = my_rank // (k * mask) * (k * mask)
            break
        mask *= k
    mask //= k
    children = []
    while mask > 0:
        for r in range(1, k):
            child = my_rank + mask * r
            if child < P:
                children.append(child)
        mask //= k
    return parent, children


def knomial_links(nodes, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1 for many nodes of one k-nomial tree at once: each node's parent (-1 for node 0: its lowest
    non-zero base-``k`` digit cleared) and a key ordering a parent's children as Algorithm 1 emits them (larger
    subtrees first, then by that digit).

    >>> [x.tolist() for x in knomial_links([0, 1, 2, 3, 4, 6], 2)]
    [[-1, 0, 0, 2, 0, 4], [0, 1, -1, 1, -3, -1]]
    """
    nodes = np.asarray(nodes, dtype=np.int64)
    parent = np.full(len(nodes), -1, dtype=np.int64)
    order = np.zeros(len(nodes), dtype=np.int64)
    pending, mask, level = nodes > 0, 1, 0
    while pending.any():
        digit = nodes // mask % k
        hit = pending & (digit > 0)
        parent[hit] = nodes[hit] - digit[hit] * mask
        order[hit] = digit[hit] - level * k
        pending &= ~hit
        mask, level = mask * k, level + 1
    return parent, order


def _children_lists(n: int, child: np.ndarray, parent: np.ndarray, order: np.ndarray) -> list[list[int]]:
    """``children[v]`` for vertices ``0..n-1`` from each ``child``'s ``parent``, in ``order``."""
    sort = np.lexsort((order, parent))
    kids = child[sort].tolist()
    bounds = np.searchsorted(parent[sort], np.arange(n + 1)).tolist()
    return [kids[bounds[v] : bounds[v + 1]] for v in range(n)]


def knomial_tree(P: int, k: int) -> Tree:
    """The k-nomial tree (definition 8) of Algorithm 1 over ranks ``0..P-1``.

    Algorithm 1 (:func:`build_k_nomial_tree`) is run for all ranks at once (:func:`knomial_links`); vertex ``v``
    is rank ``v`` and the root is rank 0.

    Parameters
    ----------
    P : int
        Number of processes (at least 1).
    k : int
        The base (at least 2).

    Returns
    -------
    Tree
        Labelled ``"rank v"``, of kind ``"{k}-nomial"``.

    Raises
    ------
    SpecError
        If ``P < 1`` or ``k < 2``.

    References
    ----------
    [AGGT24] Chen Shuping, Wei Hongmei, Wang Fei, Li Yi, He Wangquan, Qi Fengbin, "Method to Create Aggregate Tree
    for Hardware Supported Collectives", Journal of Computer Research and Development, 61(2): 503–517, 2024, DOI
    [10.7544/issn1000-1239.202220684](https://doi.org/10.7544/issn1000-1239.202220684). Definition 8, Algorithm 1.

    Examples
    --------
    >>> knomial_tree(9, 3).children[:4]
    [[3, 6, 1, 2], [], [], [4, 5]]
    """
    _check(P, k)
    parent, order = knomial_links(np.arange(P), k)
    children = _children_lists(P, np.arange(1, P), parent[1:], order[1:])
    return Tree(parent.tolist(), children, [], [f"rank {r}" for r in range(P)], f"{k}-nomial")


# ---------------------------------------------------------------- Zhao et al.
def zhao_tree(groups: Sequence, k: int) -> Tree:
    """Zhao et al.'s hierarchical tree: a k-nomial tree per group, then one over the group leaders.

    A group's leader is its first process. Nested hierarchies are handled
    level by level: each sub-group is built recursively, then a k-nomial tree
    joins the sub-groups' leaders in the given order; the group's leader is
    its first sub-group's leader. A leader lists the children it gains at a
    higher level first (higher levels hold the larger subtrees, as a k-nomial
    tree emits its largest subtrees first).
    """
    groups = normalize_groups(groups)
    P = len(flatten_groups(groups))
    _check(P, k)
    members, first, depth = _zhao_members(groups)
    position = np.arange(len(members)) - first
    parent, order = knomial_links(position, k)  # Algorithm 1 inside every group at once
    has = parent >= 0
    child, parent_rank = members[has], members[(first + parent)[has]]
    emitted = np.empty(int(has.sum()), dtype=np.int64)  # a leader's children: higher levels first, then Algorithm 1's
    emitted[np.lexsort((order[has], depth[has]))] = np.arange(len(emitted))
    return _tree(P, int(members[0]), child, parent_rank, emitted, f"zhao {k}-nomial")


def _zhao_members(groups: Nested) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every group of a hierarchy, one after the other: its members (a leaf group's ranks, else the leaders, i.e.
    first ranks, of its sub-groups), and per member the index where its group starts and the group's depth."""
    members: list[int] = []
    first: list[int] = []
    depth: list[int] = []
    todo = [(groups, 0)]
    while todo:
        group, d = todo.pop()
        leaders = group if is_leaf_group(group) else [_first_rank(g) for g in group]
        first += [len(members)] * len(leaders)
        depth += [d] * len(leaders)
        members += leaders
        if not is_leaf_group(group):
            todo += [(g, d + 1) for g in group]
    return np.array(members, dtype=np.int64), np.array(first, dtype=np.int64), np.array(depth, dtype=np.int64)


def _first_rank(group: Nested) -> int:
    while not isinstance(group, int):
        group = group[0]
    return group


# ---------------------------------------------------------------- Algorithms 2-4
@dataclass
class Group:
    """A process group of the paper's Fig. 10 data structure.

    Attributes
    ----------
    cnt : int
        Nodes of the group's k-nomial tree (a power of k).
    slots : dict
        ``{tree node: rank}`` for the occupied nodes; the paper's array
        ``ranks[cnt]`` is :attr:`ranks` (-1 = empty), kept sparse here because
        ``cnt`` grows like ``k`` to the number of levels.
    sub_groups : list of Group
        The nested groups (empty for a bottom-level group).
    """

    cnt: int = 1
    slots: dict[int, int] = field(default_factory=dict)
    sub_groups: list[Group] = field(default_factory=list)

    @property
    def ranks(self) -> list[int]:
        """``ranks[cnt]``: the rank at each tree node, -1 where empty."""
        out = [-1] * self.cnt
        for node, rank in self.slots.items():
            out[node] = rank
        return out

    @property
    def nodes_id(self) -> dict[int, int]:
        """``{rank: tree node}``."""
        return {rank: node for node, rank in self.slots.items()}


def make_group(groups: Sequence, k: int) -> Group:
    """The :class:`Group` hierarchy of nested lists (bottom groups get their ranks, others sub-groups).

    A bottom group of ``n`` ranks has ``cnt = k^⌈log_k n⌉`` with its ranks at
    nodes ``0..n-1`` (Algorithm 1's k-nomial tree over ``n`` processes).
    """
    return _make(normalize_groups(groups), k)


def _make(group: Nested, k: int) -> Group:
    if not is_leaf_group(group):
        return Group(sub_groups=[_make(g, k) for g in group])
    cnt = 1
    while cnt < len(group):
        cnt *= k
    return Group(cnt, dict(enumerate(group)))


def merge_groups(g: list[Group], k: int, parent: Group) -> None:
    """[AGGT24] Algorithm 2: map the groups ``g`` into ``parent``'s k-nomial tree with minimum height.

    Groups are taken by ``cnt``, largest first (a stable sort: ties keep their
    order). Each goes to the first node ``j``, a multiple of its ``cnt``, whose
    slot is empty (checking the block's first slot only, as the paper does);
    when there is none, ``parent.cnt`` grows by a factor ``k`` and the group
    goes to ``j = `` the old ``cnt``. Only occupied slots are copied (copying
    the paper's -1 entries onto empty slots changes nothing; a copy onto an
    occupied slot would be a bug and raises ``AssertionError``).
    """
    order = sorted(g, key=lambda x: -x.cnt)
    parent.cnt, parent.slots = order[0].cnt, {}
    for gi in order:
        j = next((j for j in range(0, parent.cnt, gi.cnt) if j not in parent.slots), parent.cnt)
        if j >= parent.cnt:
            parent.cnt *= k
        for x, rank in gi.slots.items():
            assert j + x not in parent.slots, "merge_groups: a block whose first slot is free is not empty"
            parent.slots[j + x] = rank


def build_rank_mapping(g: Group, k: int) -> None:
    """Algorithm 3: map the sub-groups recursively, then merge them into ``g``."""
    if not g.sub_groups:
        return
    for sub in g.sub_groups:
        build_rank_mapping(sub, k)
    merge_groups(g.sub_groups, k, g)


def build_hierarchical_tree(my_rank: int, k: int, g: Group) -> tuple[int, list[int]]:
    """Algorithm 4 (steps 3–12) for one rank of a mapped top group ``g``.

    Returns the parent rank (-1 at the root) and the children ranks in the
    order Algorithm 1 emits them, skipping empty tree nodes.
    """
    return _node_links(g.nodes_id[my_rank], k, g)


def _node_links(node_id: int, k: int, g: Group) -> tuple[int, list[int]]:
    """Parent rank and children ranks of the rank at tree node ``node_id`` of ``g``."""
    parent_node, children = build_k_nomial_tree(node_id, k, g.cnt)
    parent_rank = g.slots[parent_node] if parent_node >= 0 else -1
    return parent_rank, [g.slots[c] for c in children if c in g.slots]


def hier_knomial_tree(groups: Sequence, k: int) -> Tree:
    """The minimum-height hierarchical k-nomial tree (Algorithms 2–4) over a group hierarchy.

    Algorithm 2 (:func:`merge_groups`) packs each group's sub-groups into aligned blocks of a k-nomial tree,
    Algorithm 3 (:func:`build_rank_mapping`) maps ranks to tree slots and Algorithm 4
    (:func:`build_hierarchical_tree`) links them (see the module docstring for the height and the root).

    Parameters
    ----------
    groups : sequence
        Nested lists of ranks (:mod:`vizcoll.trees.groups`), e.g. ``[[0, 1, 2], [3, 4]]`` or group sizes.
    k : int
        The base (at least 2).

    Returns
    -------
    Tree
        Vertex ``v`` is rank ``v``; of kind ``"hierarchical {k}-nomial"``.

    Raises
    ------
    SpecError
        For malformed groups, ``k < 2`` or no process.

    References
    ----------
    [AGGT24] Chen Shuping, Wei Hongmei, Wang Fei, Li Yi, He Wangquan, Qi Fengbin, "Method to Create Aggregate Tree
    for Hardware Supported Collectives", Journal of Computer Research and Development, 61(2): 503–517, 2024, DOI
    [10.7544/issn1000-1239.202220684](https://doi.org/10.7544/issn1000-1239.202220684). Algorithms 2–4.

    Examples
    --------
    >>> tree = hier_knomial_tree([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11, 12, 13]], 2)
    >>> tree.height
    3
    """
    groups = normalize_groups(groups)
    P = len(flatten_groups(groups))
    _check(P, k)
    top = _make(groups, k)
    build_rank_mapping(top, k)
    nodes = np.fromiter(top.slots, dtype=np.int64, count=len(top.slots))
    ranks = np.fromiter(top.slots.values(), dtype=np.int64, count=len(top.slots))
    parent, order = knomial_links(nodes, k)  # Algorithm 4 for every rank at once: parent slots, children order
    rank_at = dict(zip(nodes.tolist(), ranks.tolist(), strict=True))
    parent_rank = np.array([rank_at[p] if p >= 0 else -1 for p in parent.tolist()], dtype=np.int64)
    below = parent_rank >= 0
    return _tree(P, top.slots[0], ranks[below], parent_rank[below], order[below], f"hierarchical {k}-nomial")
