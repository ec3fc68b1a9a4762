"""Aggregation-tree entries: how many switch entries type II trees use, and how often they do not fit.

Every switch holds a limited number of aggregation-tree entries (16 in the
paper's experiment; BG/Q supports 12 trees per node); each type II tree uses
one entry in every switch it aggregates in. :func:`entry_experiment` routes
the communicators one after the other, in their order, with each method
starting from an empty fabric:

- ``"physical"``: every switch of the physical tree ``T`` needs and takes an
  entry (the "traditional" method of the paper);
- ``"mincost"``: only the switches of the minimum-cost derived tree ``A``
  (Algorithm 5) do.

A communicator fails when no candidate root gives a tree whose entry-holding
switches all have a free entry (see :mod:`vizcoll.trees.typetwo`); it then
uses nothing. Every routed tree adds one to the load of each link of its
``T``, which orders later candidate roots.

References: [AGGT24, §6.2.2, Fig. 19–20] (keys: ``docs/papers.md``).

Examples
--------
>>> from vizcoll.topology import from_spec
>>> from vizcoll.comm import parse_pattern
>>> topo = from_spec("fat-tree:radix=4,levels=2")
>>> out = entry_experiment(topo, parse_pattern("grid2d:2x4", topo), entries=16, degree=4)
>>> out["physical"]["entries_used"], out["mincost"]["entries_used"], round(out["reduction"], 3)
(18, 6, 0.667)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vizcoll.comm import Communicators
from vizcoll.topology.hops import MinHopTable
from vizcoll.topology.model import Topology
from vizcoll.trees.typetwo import METHODS, TypeTwoPlanner

__all__ = ["DEFAULT_ENTRIES", "entry_experiment", "route_all"]

DEFAULT_ENTRIES = 16
_EXAMPLES = 3


def _groups(comms: Communicators | Sequence) -> list[np.ndarray]:
    """Node index of every process, per communicator."""
    if isinstance(comms, Communicators):
        return [comms.nodes(i) for i in range(len(comms))]
    return [np.asarray(g, dtype=np.int64).reshape(-1) for g in comms]


def route_all(
    planner: TypeTwoPlanner, groups: list[np.ndarray], method: str, entries: int | None, degree: int | None
) -> dict:
    """Route ``groups`` in order with one method; the figures of :func:`entry_experiment` for it."""
    topo = planner.topo
    free = None if entries is None else np.full(topo.n_nodes, int(entries), dtype=np.int64)
    used = np.zeros(topo.n_nodes, dtype=np.int64)
    load = np.zeros(topo.n_links, dtype=np.int64)
    failed: list[dict] = []
    tried = 0
    for i, members in enumerate(groups):
        result = planner.build(members, method=method, degree=degree, free=free, link_load=load)
        tried += result.tried
        if not result.ok:
            failed.append({"communicator": i, "reason": result.reason})
            continue
        switches = result.entry_switches
        used[switches] += 1
        if free is not None:
            free[switches] -= 1
        load[result.link_rows] += 1
    return _figures(topo, len(groups), used, failed, tried)


def _figures(topo: Topology, total: int, used: np.ndarray, failed: list[dict], tried: int) -> dict:
    per_switch = used[topo.switches]
    holding = per_switch[per_switch > 0]
    routed = total - len(failed)
    return {
        "communicators": total,
        "routed": routed,
        "failed": len(failed),
        "failure_rate": len(failed) / total if total else 0.0,
        "entries_used": int(per_switch.sum()),
        "entries_per_tree": float(per_switch.sum() / routed) if routed else 0.0,
        "entries_per_switch": {
            "max": int(per_switch.max()) if len(per_switch) else 0,
            "mean": float(per_switch.mean()) if len(per_switch) else 0.0,
            "mean_over_used": float(holding.mean()) if len(holding) else 0.0,
        },
        "switches_used": int(len(holding)),
        "candidates_tried": int(tried),
        "failed_examples": failed[:_EXAMPLES],
    }


def entry_experiment(
    topo: Topology,
    comms: Communicators | Sequence,
    entries: int | None = DEFAULT_ENTRIES,
    degree: int | None = None,
    *,
    table: MinHopTable | None = None,
    planner: TypeTwoPlanner | None = None,
) -> dict:
    """Route every communicator with the physical and the min-cost method and compare the entries used.

    Parameters
    ----------
    topo : Topology
        The fabric.
    comms : Communicators or sequence of sequences of int
        Communicators with a placement, or the node index of every process
        of each communicator.
    entries : int or None
        Aggregation-tree entries per switch (None = unlimited).
    degree : int, optional
        The degree bound ``D`` of the min-cost trees (default: each switch's radix).
    table : MinHopTable, optional
        A prebuilt ``min_hops(topo)``.
    planner : TypeTwoPlanner, optional
        A prebuilt planner of ``topo`` (it holds its own table).

    Returns
    -------
    dict
        ``{"physical": {...}, "mincost": {...}, "reduction": r, "entries": ..., "degree": ...}``;
        per method: ``communicators``, ``routed``, ``failed``, ``failure_rate``
        (failed / communicators), ``entries_used``, ``entries_per_tree``,
        ``entries_per_switch`` (``max``, ``mean`` over all switches,
        ``mean_over_used``), ``switches_used``, ``candidates_tried`` and up to
        three ``failed_examples``. ``reduction`` = 1 - mincost entries /
        physical entries (None when the physical trees used none). With a
        finite ``entries`` the physical method's failures also lower its
        count: compare with ``entries=None`` for the paper's "entries used".

    References
    ----------
    [AGGT24] Chen Shuping, Wei Hongmei, Wang Fei, Li Yi, He Wangquan, Qi Fengbin, "Method to Create Aggregate Tree
    for Hardware Supported Collectives", Journal of Computer Research and Development, 61(2): 503–517, 2024, DOI
    [10.7544/issn1000-1239.202220684](https://doi.org/10.7544/issn1000-1239.202220684). Section 6.2.2, Fig. 19–20.

    Examples
    --------
    >>> from vizcoll.topology import from_spec
    >>> from vizcoll.comm import parse_pattern
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> out = entry_experiment(topo, parse_pattern("grid2d:2x4", topo), entries=None, degree=4)
    >>> out["physical"]["failed"], out["mincost"]["entries_used"]
    (0, 6)
    """
    planner = planner if planner is not None else TypeTwoPlanner(topo, table)
    groups = _groups(comms)
    out = {m: route_all(planner, groups, m, entries, degree) for m in METHODS}
    phys, cheap = out["physical"]["entries_used"], out["mincost"]["entries_used"]
    out["reduction"] = 1.0 - cheap / phys if phys else None
    out["entries"] = entries
    out["degree"] = "radix" if degree is None else int(degree)
    return out
