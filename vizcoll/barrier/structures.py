"""Barrier communication patterns (LCT, BST), grid numberings, ``round(K)`` and greedy grid routing.

This module follows the DLCT barrier paper (its sections on LCT, BST and AAO).

**Patterns.** A two-phase barrier pattern is a pair of maps on the IDs
``0..n-1`` (any ``n >= 1``, not only powers of 2): Gather sends to the parent,
Release to the children. Both structures are binomial trees rooted at 0:

- LCT (local continuous tree): ``parent(x) = x & (x - 1)`` (clear the lowest
  set bit); every subtree is a contiguous ID range (the subtree of 12 for
  ``n = 16`` is 12..15);
- BST (binomial structure tree, as the paper draws it): ``parent(x)`` clears
  the *highest* set bit; subtrees are strided (the subtree of 3 for ``n = 16``
  is 3, 7, 11, 15).

Children are listed in Release order, largest subtree first. For LCT this is
Algorithm 1: set, one at a time, each bit below ``x``'s lowest set bit, from
the highest such bit down (for the root, every bit of ``n - 1``), keeping
results ``< n``. For BST: set each bit above ``x``'s highest set bit, from the
lowest up.

**Numberings.** ``numbering(kind, rows, cols)`` is a ``(rows, cols)`` array
whose entry ``[x, y]`` is the ID of the node at row ``x``, column ``y``
(the paper's ``num(x, y)``, ``x`` the row). ``adjust`` is the asynchronous
adjustment operator ``round(K)``: ``ID' = (ID + K) mod N``.

**Network.** The paper's grid (section 4, JADE): each node knows its grid
neighbors (4: N/S/W/E, or 8: also the diagonals); a message goes to the
neighbor closest to the destination, which repeats until the destination is
reached; a broken link is removed from both ends' neighbor lists. Distances
are Euclidean by default (``"manhattan"`` and ``"chebyshev"`` are available);
ties go to the neighbor with the smallest ``(row, col)``. Because the rule is
memoryless, a message that comes back to a node it already visited would
circulate forever; :func:`greedy_route` stops there and flags a ``"loop"`` (or a
``"dead end"`` when a node has no neighbor left).

**Which model reproduces the paper (Fig. 3).** The link set of a pattern is the
set of undirected physical links crossed by its *Gather* messages on the
*8-neighbor* grid with greedy Euclidean forwarding. On the 4x4 S-curve with
``round(1)`` this gives UQ(LCT) = 1 - 7/26 and UQ(BST) = 1 - 18/22 = 2/11
(18.2%), exactly the paper's numbers. No 4-neighbor model (any distance, any
tie order, Gather / Release / both, directed or not) reproduces 7/26; on the
8-neighbor grid Euclidean and Manhattan forwarding never tie and give the same
routes. These are the defaults (``neighbors=8``, ``phase="gather"``,
``metric="euclidean"``).

References: [DLCT19, Alg. 1] (LCT, BST, AAO ``round(K)``; keys: ``docs/papers.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from vizcoll.errors import SpecError, VizcollError
from vizcoll.words import plural

__all__ = [
    "STRUCTURES",
    "NUMBERINGS",
    "METRICS",
    "PHASES",
    "Cell",
    "Link",
    "Route",
    "GreedyDeadEnd",
    "lct_parent",
    "lct_children",
    "bst_parent",
    "bst_children",
    "gather_map",
    "release_map",
    "subtree",
    "numbering",
    "adjust",
    "position_of",
    "link",
    "grid_neighbors",
    "greedy_route",
    "pattern_links",
]

Cell = tuple[int, int]
Link = tuple[Cell, Cell]


# ---------------------------------------------------------------- structures
def _check_id(x: int, n: int | None = None) -> None:
    if x < 0:
        raise SpecError(f"IDs are non-negative, got {x}")
    if n is not None and x >= n:
        raise SpecError(f"ID {x} is outside 0..{n - 1}")


def lct_parent(x: int) -> int:
    """LCT Gather target: ``x`` with its lowest set bit cleared; -1 for the root 0.

    >>> lct_parent(6), lct_parent(12), lct_parent(0)
    (4, 8, -1)
    """
    _check_id(x)
    return x & (x - 1) if x else -1


def lct_children(x: int, n: int) -> list[int]:
    """LCT Release targets of ``x`` among ``0..n-1`` (Algorithm 1), largest subtree first.

    >>> lct_children(0, 16), lct_children(8, 16), lct_children(12, 14)
    ([8, 4, 2, 1], [12, 10, 9], [13])
    """
    _check_id(x, n)
    top = (x & -x).bit_length() - 1 if x else (n - 1).bit_length()
    return [x | 1 << b for b in range(top - 1, -1, -1) if x | 1 << b < n]


def bst_parent(x: int) -> int:
    """BST Gather target: ``x`` with its highest set bit cleared; -1 for the root 0.

    >>> bst_parent(7), bst_parent(11), bst_parent(0)
    (3, 3, -1)
    """
    _check_id(x)
    return x & ~(1 << (x.bit_length() - 1)) if x else -1


def bst_children(x: int, n: int) -> list[int]:
    """BST Release targets of ``x`` among ``0..n-1``: set one bit above its highest, largest subtree first.

    >>> bst_children(0, 16), bst_children(3, 16), bst_children(2, 11)
    ([1, 2, 4, 8], [7, 11], [6, 10])
    """
    _check_id(x, n)
    b = x.bit_length()
    out = []
    while x | 1 << b < n:
        out.append(x | 1 << b)
        b += 1
    return out


STRUCTURES: dict[str, tuple[Callable[[int], int], Callable[[int, int], list[int]]]] = {
    "lct": (lct_parent, lct_children),
    "bst": (bst_parent, bst_children),
}


def _structure(name: str) -> tuple[Callable[[int], int], Callable[[int, int], list[int]]]:
    if name not in STRUCTURES:
        raise SpecError(f"unknown structure {name!r}; choose one of {', '.join(STRUCTURES)}")
    return STRUCTURES[name]


def _check_n(n: int) -> None:
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise SpecError(f"the number of IDs must be a positive integer, got {n!r}")


def gather_map(structure: str, n: int) -> np.ndarray:
    """Parent (Gather target) of every ID ``0..n-1``; the root 0 has -1.

    >>> gather_map("lct", 8).tolist()
    [-1, 0, 0, 2, 0, 4, 4, 6]
    """
    _check_n(n)
    parent = _structure(structure)[0]
    return np.array([parent(x) for x in range(n)], dtype=np.int64)


def release_map(structure: str, n: int) -> list[list[int]]:
    """Children (Release targets, in send order) of every ID ``0..n-1``.

    >>> release_map("bst", 4)
    [[1, 2], [3], [], []]
    """
    _check_n(n)
    children = _structure(structure)[1]
    return [children(x, n) for x in range(n)]


def subtree(structure: str, x: int, n: int) -> list[int]:
    """The IDs of ``x``'s subtree (``x`` included), sorted.

    >>> subtree("lct", 12, 16), subtree("bst", 3, 16)
    ([12, 13, 14, 15], [3, 7, 11, 15])
    """
    children = _structure(structure)[1]
    out, stack = [], [x]
    while stack:
        y = stack.pop()
        out.append(y)
        stack.extend(children(y, n))
    return sorted(out)


# ---------------------------------------------------------------- numberings
NUMBERINGS = ("s-curve", "z-order", "hilbert", "row-major")


def _morton(row: np.ndarray, col: np.ndarray, bits: int) -> np.ndarray:
    code = np.zeros_like(row)
    for b in range(bits):
        code |= ((col >> b) & 1) << (2 * b) | ((row >> b) & 1) << (2 * b + 1)
    return code


def _hilbert(row: np.ndarray, col: np.ndarray, bits: int) -> np.ndarray:
    """Hilbert index on a ``2**bits`` square (x = column, y = row; starts at (0, 0), ends at row 0, last column)."""
    side = 1 << bits
    x, y, d = col.copy(), row.copy(), np.zeros_like(row)
    s = side >> 1
    while s:
        rx, ry = (x & s) > 0, (y & s) > 0
        d += s * s * ((3 * rx) ^ ry)
        flip = ~ry & rx
        x, y = np.where(flip, side - 1 - x, x), np.where(flip, side - 1 - y, y)
        x, y = np.where(~ry, y, x), np.where(~ry, x, y)
        s >>= 1
    return d


def _compressed(codes: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Rank of every cell's curve code: the curve's order restricted to the grid's cells."""
    ids = np.empty(codes.size, dtype=np.int64)
    ids[np.argsort(codes, kind="stable")] = np.arange(codes.size)
    return ids.reshape(shape)


def numbering(kind: str, rows: int, cols: int | None = None) -> np.ndarray:
    """IDs of the nodes of a ``rows x cols`` grid: entry ``[x, y]`` is ``num(x, y)`` (``x`` = row).

    - ``"s-curve"`` (the paper's): ``num(x, y) = x*cols + y + (x % 2)*(cols - 1 - 2y)``,
      rows alternately left-to-right and right-to-left;
    - ``"row-major"``: ``x*cols + y``;
    - ``"z-order"`` (Morton) and ``"hilbert"``: the curve on the enclosing
      ``2**k x 2**k`` square (the smallest holding the grid), with the cells
      outside the grid dropped and the rest renumbered ``0..N-1`` in curve
      order. On a power-of-2 square this is the usual curve; otherwise the
      order is kept but consecutive IDs are no longer always adjacent.

    Parameters
    ----------
    kind : str
        One of :data:`NUMBERINGS`: ``"s-curve"``, ``"z-order"``, ``"hilbert"``, ``"row-major"``.
    rows : int
        Grid rows.
    cols : int, optional
        Grid columns (default ``rows``).

    Returns
    -------
    numpy.ndarray
        ``(rows, cols)`` ``int64`` IDs, a permutation of ``0..rows*cols-1``.

    Raises
    ------
    SpecError
        For an unknown kind or a side that is not a positive integer.

    Examples
    --------
    >>> numbering("s-curve", 4)[3].tolist()
    [15, 14, 13, 12]
    >>> numbering("hilbert", 2).tolist()
    [[0, 3], [1, 2]]
    """
    cols = rows if cols is None else cols
    _check_n(rows)
    _check_n(cols)
    row, col = (a.ravel().astype(np.int64) for a in np.indices((rows, cols)))
    if kind == "row-major":
        return (row * cols + col).reshape(rows, cols)
    if kind == "s-curve":
        return (row * cols + col + (row % 2) * (cols - 1 - 2 * col)).reshape(rows, cols)
    bits = (max(rows, cols) - 1).bit_length()
    if kind == "z-order":
        return _compressed(_morton(row, col, bits), (rows, cols))
    if kind == "hilbert":
        return _compressed(_hilbert(row, col, bits), (rows, cols))
    raise SpecError(f"unknown numbering {kind!r}; choose one of {', '.join(NUMBERINGS)}")


def adjust(ids: np.ndarray, k: int, n: int | None = None) -> np.ndarray:
    """The adjustment operator ``round(K)``: every ID becomes ``(ID + K) mod n``.

    DLCT's asynchronous adjustment: every process shifts its ID by ``K``, which moves the roles of the
    communication pattern to other nodes.

    Parameters
    ----------
    ids : numpy.ndarray
        The IDs (a numbering).
    k : int
        The shift ``K``.
    n : int, optional
        The number of IDs (default ``ids.size``).

    Returns
    -------
    numpy.ndarray
        The new IDs, of the shape of ``ids``.

    Raises
    ------
    SpecError
        If ``n`` is not a positive integer.

    References
    ----------
    [DLCT19] Xiang Zhehui, Qin Xiaolin, You Feng, Liu Liang, "Synchronization Mechanism for Network Disconnection
    Perception", Journal of Frontiers of Computer Science and Technology, 13(2): 195–204, 2019, DOI
    [10.3778/j.issn.1673-9418.1805061](https://doi.org/10.3778/j.issn.1673-9418.1805061). The adjustment operator
    round(K) (AAO).

    Examples
    --------
    >>> adjust(numbering("s-curve", 2), 1).tolist()
    [[1, 2], [0, 3]]
    """
    ids = np.asarray(ids)
    n = ids.size if n is None else n
    _check_n(n)
    return (ids + k) % n


def position_of(ids: np.ndarray) -> dict[int, Cell]:
    """The inverse of a numbering: ID -> ``(row, col)``; ``ids`` must be a permutation of ``0..N-1``.

    >>> position_of(numbering("s-curve", 2))[3]
    (1, 0)
    """
    ids = np.asarray(ids)
    if ids.ndim != 2:
        raise SpecError(f"a numbering is a 2-D array of IDs, got {ids.ndim} dimensions")
    if not np.array_equal(np.sort(ids, axis=None), np.arange(ids.size)):
        raise SpecError(f"a numbering must hold each ID 0..{ids.size - 1} exactly once")
    return {int(ids[r, c]): (r, c) for r, c in np.ndindex(*ids.shape)}


# ---------------------------------------------------------------- grid network and greedy routing
METRICS: dict[str, Callable[[int, int], int]] = {
    "euclidean": lambda dr, dc: dr * dr + dc * dc,  # squared: same order, exact integers
    "manhattan": lambda dr, dc: abs(dr) + abs(dc),
    "chebyshev": lambda dr, dc: max(abs(dr), abs(dc)),
}
PHASES = ("gather", "release", "both")
_STEPS = {
    4: ((-1, 0), (0, -1), (0, 1), (1, 0)),
    8: ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)),
}


class GreedyDeadEnd(VizcollError):
    """A message cannot reach its destination by greedy forwarding (a dead end or a loop)."""

    def __init__(self, route: Route):
        self.route = route
        super().__init__(
            f"greedy routing from {route.path[0]} to {route.dst} fails: {route.reason} "
            f"at {route.path[-1]} after {plural(len(route.path) - 1, 'hop')}"
        )


@dataclass(frozen=True)
class Route:
    """A greedily forwarded message: the cells visited (source first), whether it arrived and why not."""

    path: tuple[Cell, ...]
    dst: Cell
    reached: bool
    reason: str = ""

    @property
    def links(self) -> list[Link]:
        """The physical links crossed, canonical (see :func:`link`)."""
        return [link(a, b) for a, b in zip(self.path, self.path[1:], strict=False)]


def link(a: Cell, b: Cell) -> Link:
    """The canonical form of the undirected link ``a -- b``: its two cells sorted."""
    a, b = (int(a[0]), int(a[1])), (int(b[0]), int(b[1]))
    return (a, b) if a <= b else (b, a)


def _broken_set(broken: Iterable) -> set[Link]:
    return {link(*tuple(pair)) for pair in broken}


def grid_neighbors(
    shape: tuple[int, int],
    neighbors: int = 8,
    broken: Iterable = frozenset(),
) -> dict[Cell, list[Cell]]:
    """Neighbor list of every cell of a ``rows x cols`` grid, sorted by ``(row, col)``, broken links removed.

    ``broken`` holds links as pairs of cells (tuples or frozensets), in any order.

    >>> grid_neighbors((2, 2), 4, broken=[((0, 0), (0, 1))])[(0, 0)]
    [(1, 0)]
    """
    if neighbors not in _STEPS:
        raise SpecError(f"neighbors must be 4 or 8, got {neighbors}")
    rows, cols = shape
    cut = _broken_set(broken)
    table = {}
    for r, c in np.ndindex(rows, cols):
        near = ((r + dr, c + dc) for dr, dc in _STEPS[neighbors])
        table[(r, c)] = [q for q in near if 0 <= q[0] < rows and 0 <= q[1] < cols and link((r, c), q) not in cut]
    return table


def _route(src: Cell, dst: Cell, table: dict[Cell, list[Cell]], distance: Callable[[int, int], int]) -> Route:
    path, seen, cur = [src], {src}, src
    while cur != dst:
        near = table[cur]
        if not near:
            return Route(tuple(path), dst, False, "dead end")
        cur = min(near, key=lambda q: (distance(q[0] - dst[0], q[1] - dst[1]), q))
        path.append(cur)
        if cur in seen:
            return Route(tuple(path), dst, False, "loop")
        seen.add(cur)
    return Route(tuple(path), dst, True)


def _metric(name: str) -> Callable[[int, int], int]:
    if name not in METRICS:
        raise SpecError(f"unknown distance {name!r}; choose one of {', '.join(METRICS)}")
    return METRICS[name]


def greedy_route(
    src: Cell,
    dst: Cell,
    shape: tuple[int, int],
    neighbors: int = 8,
    broken: Iterable = frozenset(),
    metric: str = "euclidean",
) -> Route:
    """Forward a message from ``src`` to ``dst``: always to the neighbor closest to ``dst``.

    Ties go to the smallest ``(row, col)``. The route stops unreached with
    ``reason="dead end"`` at a node without neighbors, or ``"loop"`` when it
    comes back to a node (greedy forwarding would then cycle forever).

    >>> greedy_route((0, 0), (2, 3), (4, 4)).path
    ((0, 0), (1, 1), (2, 2), (2, 3))
    >>> greedy_route((0, 0), (0, 1), (4, 4), 4, broken=[((0, 0), (0, 1))]).reason
    'loop'
    """
    table = grid_neighbors(shape, neighbors, broken)
    for cell in (src, dst):
        if cell not in table:
            raise SpecError(f"cell {cell} is outside the {shape[0]}x{shape[1]} grid")
    return _route(tuple(src), tuple(dst), table, _metric(metric))


def _messages(structure: str, pos: dict[int, Cell], phase: str) -> list[tuple[Cell, Cell]]:
    if phase not in PHASES:
        raise SpecError(f"unknown phase {phase!r}; choose one of {', '.join(PHASES)}")
    parents = gather_map(structure, len(pos))
    pairs = []
    for x in range(1, len(pos)):
        up = (pos[x], pos[int(parents[x])])
        if phase in ("gather", "both"):
            pairs.append(up)
        if phase in ("release", "both"):
            pairs.append(up[::-1])
    return pairs


def pattern_links(
    structure: str,
    ids: np.ndarray,
    neighbors: int = 8,
    broken: Iterable = frozenset(),
    *,
    phase: str = "gather",
    metric: str = "euclidean",
) -> set[Link]:
    """The set of physical links a pattern uses on the grid numbered by ``ids``.

    Every message of ``phase`` (``"gather"``: child -> parent, the paper's
    Fig. 3; ``"release"``: parent -> child; ``"both"``) is routed greedily (see
    :func:`greedy_route`); the result holds the canonical links (:func:`link`)
    they cross.

    Parameters
    ----------
    structure : str
        ``"lct"`` or ``"bst"``.
    ids : numpy.ndarray
        The grid's numbering (:func:`numbering`, possibly :func:`adjust`-ed).
    neighbors : int
        4 or 8.
    broken : iterable of Link
        Links ``((r, c), (r, c))`` removed from the grid.
    phase : str
        ``"gather"``, ``"release"`` or ``"both"``.
    metric : str
        ``"euclidean"``, ``"manhattan"`` or ``"chebyshev"``.

    Returns
    -------
    set of Link
        The canonical links crossed.

    Raises
    ------
    GreedyDeadEnd
        If a message cannot arrive (a dead end or a loop).
    SpecError
        For an unknown structure, phase or metric, or a numbering that is not a permutation.

    Examples
    --------
    >>> len(pattern_links("lct", numbering("s-curve", 4)))
    16
    """
    pos = position_of(ids)
    table = grid_neighbors(np.shape(ids), neighbors, broken)
    distance = _metric(metric)
    used: set[Link] = set()
    for src, dst in _messages(structure, pos, phase):
        route = _route(src, dst, table, distance)
        if not route.reached:
            raise GreedyDeadEnd(route)
        used.update(route.links)
    return used
