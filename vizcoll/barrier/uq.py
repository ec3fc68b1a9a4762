"""Update quantity (UQ) of the adjustment operator ``round(K)`` (DLCT paper, Definition 1, Fig. 3 and Fig. 5).

If ``round(K)`` changes the set of links a pattern uses from ``A`` to ``B``,
``UQ = 1 - |A ∩ B| / |A ∪ B|`` (0: nothing changed, 1: every link is new).
Link sets come from :func:`vizcoll.barrier.structures.pattern_links`: the
Gather messages, greedily routed on the grid (8 neighbors by default, the
model that reproduces Fig. 3).

**The paper's experiment (section 4.2).** On a 4x4 grid there are 16 S-curve
numberings: fixing the ID of one node fixes all the others, so they are the 16
cyclic shifts ``(S + j) mod 16`` of the S-curve ``S``. Each is turned into
another by ``round(K)``: 16 x 16 = 256 transformations (``K = 0..15``, so the
16 identities ``K = 0`` with UQ 0 are among them). Our numbers:

- ``round(1)`` on the plain S-curve: UQ(LCT) = 1 - 7/26 = 73.1% and
  UQ(BST) = 1 - 18/22 = 2/11 = 18.2%, as in the paper;
- mean UQ(LCT) over the 256 transformations = 0.5623 (0.5998 without the 16
  ``K = 0`` cases); the paper reports 0.5527. The same model reproduces both
  Fig. 3 values exactly, and no grid model we tried (4 or 8 neighbors;
  Euclidean, Manhattan or Chebyshev distance with every tie order; Gather,
  Release or both; directed or undirected links; link multisets) gives
  0.5527 while keeping 7/26, so the paper leaves the difference open (its
  JADE routing or averaging may differ in a detail it does not describe).
  Mean UQ(BST) = 0.4082;
- UQ(LCT) - UQ(BST) over the 256 (Fig. 5): 170 positive, 70 negative, 16 zero
  (the ``K = 0`` cases), mean +0.154: LCT changes more links in most cases,
  as the paper says.

References: [DLCT19, Definition 1, §4.2, Fig. 3 and 5] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import numpy as np

from vizcoll.barrier.structures import adjust, numbering, pattern_links
from vizcoll.errors import SpecError

__all__ = ["MAX_UQ_SIZE", "update_quantity", "uq_round", "uq_matrix", "mean_uq", "uq_difference_histogram"]

MAX_UQ_SIZE = 16
"""Largest grid side for the all-pairs experiments (N**2 link-set comparisons)."""


def update_quantity(a: set, b: set) -> float:
    """``1 - |A ∩ B| / |A ∪ B|``; 0 when both sets are empty.

    >>> update_quantity({1, 2, 3}, {2, 3, 4})
    0.5
    """
    union = len(a | b)
    return 1.0 - len(a & b) / union if union else 0.0


def uq_round(structure: str, numbering_ids: np.ndarray, k: int = 1, neighbors: int = 8) -> dict:
    """The update quantity of ``round(k)`` on a numbered grid (the paper's Definition 1, Fig. 3).

    ``UQ = 1 - |A ∩ B| / |A ∪ B|`` where ``A`` and ``B`` are the pattern's link sets
    (:func:`~vizcoll.barrier.structures.pattern_links`, Gather messages) before and after the adjustment.

    Parameters
    ----------
    structure : str
        ``"lct"`` or ``"bst"``.
    numbering_ids : numpy.ndarray
        The grid's numbering.
    k : int
        The shift ``K``.
    neighbors : int
        4 or 8 (8 reproduces Fig. 3).

    Returns
    -------
    dict
        ``{"intersection", "union", "uq"}``.

    Raises
    ------
    GreedyDeadEnd
        If a message cannot be routed greedily.

    References
    ----------
    [DLCT19] Xiang Zhehui, Qin Xiaolin, You Feng, Liu Liang, "Synchronization Mechanism for Network Disconnection
    Perception", Journal of Frontiers of Computer Science and Technology, 13(2): 195–204, 2019, DOI
    [10.3778/j.issn.1673-9418.1805061](https://doi.org/10.3778/j.issn.1673-9418.1805061). Definition 1, Fig. 3.

    Examples
    --------
    >>> uq_round("lct", numbering("s-curve", 4), 1)
    {'intersection': 7, 'union': 26, 'uq': 0.7307692307692308}
    """
    ids = np.asarray(numbering_ids)
    before = pattern_links(structure, ids, neighbors)
    after = pattern_links(structure, adjust(ids, k), neighbors)
    return {"intersection": len(before & after), "union": len(before | after), "uq": update_quantity(before, after)}


def _check_size(size: int) -> None:
    if not isinstance(size, (int, np.integer)) or not 1 <= size <= MAX_UQ_SIZE:
        raise SpecError(f"size must be an integer in 1..{MAX_UQ_SIZE}, got {size!r}")


def uq_matrix(size: int = 4, structure: str = "lct", neighbors: int = 8, numbering_kind: str = "s-curve") -> np.ndarray:
    """UQ of every transformation: entry ``[j, k]`` is ``round(k)`` applied to the shift ``j`` of the numbering.

    The ``N = size**2`` numberings are ``adjust(base, j)``, ``j = 0..N-1``
    (for the S-curve: every S-curve numbering of the grid), and ``k = 0..N-1``.
    """
    _check_size(size)
    base = numbering(numbering_kind, size, size)
    n = base.size
    sets = [pattern_links(structure, adjust(base, j), neighbors) for j in range(n)]
    return np.array([[update_quantity(sets[j], sets[(j + k) % n]) for k in range(n)] for j in range(n)])


def mean_uq(size: int = 4, structure: str = "lct", neighbors: int = 8, numbering: str = "s-curve") -> float:
    """Mean UQ over the ``N x N`` transformations of :func:`uq_matrix` (``K = 0`` included, as the paper's 256).

    The paper's 4x4 S-curve LCT value is 0.5527; this model gives 0.5623
    (see the module docstring).

    Parameters
    ----------
    size : int
        Grid side, 1 to :data:`MAX_UQ_SIZE`.
    structure : str
        ``"lct"`` or ``"bst"``.
    neighbors : int
        4 or 8.
    numbering : str
        The base numbering (its ``N`` cyclic shifts are the numberings compared).

    Returns
    -------
    float
        The mean UQ.

    Raises
    ------
    SpecError
        For a size outside ``1..MAX_UQ_SIZE``.

    References
    ----------
    [DLCT19] Xiang Zhehui, Qin Xiaolin, You Feng, Liu Liang, "Synchronization Mechanism for Network Disconnection
    Perception", Journal of Frontiers of Computer Science and Technology, 13(2): 195–204, 2019, DOI
    [10.3778/j.issn.1673-9418.1805061](https://doi.org/10.3778/j.issn.1673-9418.1805061). Section 4.2 (the 256
    transformations of the 4x4 grid).

    Examples
    --------
    >>> round(mean_uq(4, "lct"), 4)
    0.5623
    """
    return float(uq_matrix(size, structure, neighbors, numbering).mean())


def uq_difference_histogram(size: int = 4, neighbors: int = 8, bins: int = 20) -> dict:
    """UQ(LCT) - UQ(BST) over the S-curve transformations (the paper's Fig. 5).

    Parameters
    ----------
    size : int
        Grid side, 1 to :data:`MAX_UQ_SIZE`.
    neighbors : int
        4 or 8.
    bins : int
        Equal histogram bins over [-1, 1].

    Returns
    -------
    dict
        ``size``, ``neighbors``, ``values`` (one per transformation, ordered by numbering shift ``j`` then
        ``K``), the counts of ``positive`` / ``negative`` / ``zero`` differences, ``mean_lct``, ``mean_bst``,
        ``mean_difference`` and the histogram of the values (``edges``, ``counts``).

    Raises
    ------
    SpecError
        For a size outside ``1..MAX_UQ_SIZE``.

    Examples
    --------
    >>> h = uq_difference_histogram(4)
    >>> h["positive"], h["negative"], h["zero"]
    (170, 70, 16)
    """
    lct = uq_matrix(size, "lct", neighbors)
    bst = uq_matrix(size, "bst", neighbors)
    diff = (lct - bst).ravel()
    counts, edges = np.histogram(diff, bins=bins, range=(-1.0, 1.0))
    eps = 1e-12
    return {
        "size": size,
        "neighbors": neighbors,
        "values": diff.tolist(),
        "positive": int((diff > eps).sum()),
        "negative": int((diff < -eps).sum()),
        "zero": int((np.abs(diff) <= eps).sum()),
        "mean_lct": float(lct.mean()),
        "mean_bst": float(bst.mean()),
        "mean_difference": float(diff.mean()),
        "edges": edges.tolist(),
        "counts": counts.tolist(),
    }
