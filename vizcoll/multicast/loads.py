"""Per-link views of a multicast result: which groups cross each link, a tree's links, the busiest links.

Helpers for anything that draws or lists a :class:`~vizcoll.multicast.routing.MulticastResult`
on its topology (the /multicast page, reports). They read a result; they
never route.

>>> from vizcoll.topology.generators import from_spec
>>> from vizcoll.multicast.routing import route
>>> topo = from_spec("fat-tree:radix=4,levels=2")
>>> result = route(topo, [[topo.index("h0"), topo.index("h1")], [topo.index("h0"), topo.index("h2")]], "fulb")
>>> crossing = groups_on_links(result, topo.n_links)
>>> sorted(crossing[r] for r in tree_rows(result, 0).tolist())
[[0], [0, 1]]
>>> [int(result.efi[r]) for r in worst_rows(result, 1).tolist()]
[2]
"""

from __future__ import annotations

import numpy as np

from vizcoll.errors import VizcollError
from vizcoll.multicast.routing import MulticastResult

__all__ = ["groups_on_links", "tree_rows", "worst_rows"]


def groups_on_links(result: MulticastResult, n_links: int, rows=None) -> list[list[int]]:
    """Per link row (of ``rows``, default every row): the groups whose tree uses the link, in group order
    (``len`` = the link's EFI)."""
    if n_links != len(result.link_ids):
        raise VizcollError(f"the result was routed on {len(result.link_ids)} links, not {n_links}")
    trees = [t for t in result.trees if t is not None]
    per_tree = [t.links for t in trees]
    links = np.concatenate(per_tree).astype(np.int64) if trees else np.zeros(0, dtype=np.int64)
    groups = np.repeat([t.group for t in trees], list(map(len, per_tree))).astype(np.int64)
    order = np.argsort(result.link_ids, kind="stable")
    link_rows = order[np.searchsorted(result.link_ids, links, sorter=order)]
    rows = np.arange(n_links) if rows is None else np.asarray(rows, dtype=np.int64)
    if len(rows) < n_links:  # only the entries of the rows asked for are sorted
        keep = np.isin(link_rows, rows)
        link_rows, groups = link_rows[keep], groups[keep]
    by_row = np.lexsort((groups, link_rows))
    link_rows, groups = link_rows[by_row], groups[by_row]
    starts, ends = np.searchsorted(link_rows, rows), np.searchsorted(link_rows, rows, side="right")
    return [groups[a:b].tolist() for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]


def tree_rows(result: MulticastResult, group: int | None) -> np.ndarray:
    """Link rows of group ``group``'s tree (empty for None, an unroutable group or an index out of range)."""
    if group is None or not 0 <= group < len(result.trees) or result.trees[group] is None:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.isin(result.link_ids, result.trees[group].links))


def worst_rows(result: MulticastResult, count: int = 5) -> np.ndarray:
    """Rows of the ``count`` links with the highest EFI (ties: lowest row), links no tree uses left out."""
    rows = np.argsort(-result.efi, kind="stable")[:count]
    return rows[result.efi[rows] > 0]
