"""Ways to split processes into communicators (the workloads of the papers).

Each split takes the processes as a :class:`~vizcoll.comm.Placement` (the
result keeps it, so :meth:`Communicators.nodes` works) or as a plain count
``P`` (ranks ``0..P-1`` with no placement). Members of every communicator are
listed in ascending rank order unless said otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vizcoll.comm.communicators import Communicators
from vizcoll.comm.placement import Placement, compute_nodes
from vizcoll.errors import SpecError, TopologyError
from vizcoll.topology.model import ENDPOINT, Topology

__all__ = [
    "grid",
    "grid2d",
    "grid3d",
    "hierarchical",
    "hierarchical_by_topology",
    "random_groups",
    "from_lists",
]

Procs = Placement | int


def _procs(procs: Procs) -> tuple[int, Placement | None]:
    if isinstance(procs, Placement):
        return procs.nprocs, procs
    if isinstance(procs, (int, np.integer)) and not isinstance(procs, bool) and procs >= 1:
        return int(procs), None
    raise SpecError(f"the processes must be a Placement or a positive count, got {procs!r}")


def _positive(name: str, value: object) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise SpecError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _csr(blocks: list[np.ndarray], nprocs: int, placement: Placement | None, label: str) -> Communicators:
    """Communicators from 2-D blocks whose rows are communicators."""
    ranks = np.concatenate([b.ravel() for b in blocks])
    sizes = np.concatenate([np.full(b.shape[0], b.shape[1], dtype=np.int64) for b in blocks])
    return Communicators(ranks, np.r_[0, np.cumsum(sizes)], nprocs, placement, label)


def grid(procs: Procs, dims: Sequence[int], label: str = "") -> Communicators:
    """Lay the processes out row-major (C order) in a grid; every line of it is a communicator.

    For each dimension ``d`` every line along ``d`` (all processes that differ
    only in coordinate ``d``) is one communicator, so a process belongs to
    exactly ``len(dims)`` communicators. Lines along the last dimension
    (consecutive ranks) come first, then the next-to-last dimension, ...,
    then the first; within a dimension lines are ordered by their other
    coordinates.

    Raises
    ------
    SpecError
        If the grid's size differs from the number of processes.
    """
    n, placement = _procs(procs)
    dims = tuple(_positive(f"grid dimension {i + 1}", d) for i, d in enumerate(dims))
    if not dims or int(np.prod(dims)) != n:
        shape = "x".join(map(str, dims)) or "empty"
        raise SpecError(f"a {shape} grid holds {int(np.prod(dims))} processes, but there are {n}")
    cube = np.arange(n, dtype=np.int64).reshape(dims)
    blocks = [np.moveaxis(cube, d, -1).reshape(-1, dims[d]) for d in reversed(range(len(dims)))]
    return _csr(blocks, n, placement, label or "grid:" + "x".join(map(str, dims)))


def grid2d(procs: Procs, rows: int, cols: int) -> Communicators:
    """2-D grid split: ``rows`` row communicators (size ``cols``), then ``cols`` column ones.

    Rank ``r`` sits at row ``r // cols``, column ``r % cols``; each process is
    in exactly 2 communicators. ``grid2d(P, 160, 256)`` makes the 256-wide rows
    blocks of consecutive ranks (the aggregation-tree paper's topology-aware
    256x160 pattern on 256-node supernodes).

    Parameters
    ----------
    procs : Placement or int
        The processes: a placement (kept by the result, so :meth:`Communicators.nodes` works) or a count ``P``.
    rows, cols : int
        The grid's shape; ``rows * cols`` must equal the number of processes.

    Returns
    -------
    Communicators
        The ``rows`` row communicators, then the ``cols`` column ones; labelled ``grid2d:RxC``.

    Raises
    ------
    SpecError
        If the grid's size differs from the number of processes, or a size is not a positive integer.

    Examples
    --------
    >>> grid2d(6, 2, 3).lists()
    [[0, 1, 2], [3, 4, 5], [0, 3], [1, 4], [2, 5]]
    """
    return grid(procs, (rows, cols), label=f"grid2d:{rows}x{cols}")


def grid3d(procs: Procs, a: int, b: int, c: int) -> Communicators:
    """3-D grid split over an ``a x b x c`` grid (rank = ``(i*b + j)*c + k``).

    Communicators: the ``a*b`` lines of size ``c``, then the ``a*c`` lines of
    size ``b``, then the ``b*c`` lines of size ``a``; each process is in
    exactly 3.
    """
    return grid(procs, (a, b, c), label=f"grid3d:{a}x{b}x{c}")


def hierarchical(procs: Procs, group_size: int) -> Communicators:
    """Consecutive groups of ``group_size`` ranks (the last may be smaller), then the leaders.

    The last communicator holds the first rank of every group, so there are
    ``ceil(P / group_size) + 1`` communicators (the leaders' one even when
    there is a single group).

    Examples
    --------
    >>> hierarchical(5, 2).lists()
    [[0, 1], [2, 3], [4], [0, 2, 4]]
    """
    n, placement = _procs(procs)
    size = _positive("group size", group_size)
    starts = np.arange(0, n, size, dtype=np.int64)
    sizes = np.r_[np.diff(np.r_[starts, n]), len(starts)]
    ranks = np.r_[np.arange(n, dtype=np.int64), starts]
    return Communicators(ranks, np.r_[0, np.cumsum(sizes)], n, placement, f"hier:{size}")


def _attached_switch(topo: Topology) -> np.ndarray:
    """Per node: the neighbor on its lowest connected port (itself for a switch; -1 if unlinked)."""
    ports = topo.ports()
    first = ports.indptr[:-1]
    has = ports.indptr[1:] > first
    out = np.full(topo.n_nodes, -1, dtype=np.int64)
    out[has] = ports.peer[first[has]]
    switch = topo.kind != ENDPOINT
    out[switch] = np.flatnonzero(switch)
    return out


def _node_keys(topo: Topology, attr: str) -> np.ndarray:
    if attr == "node":
        return np.arange(topo.n_nodes, dtype=np.int64)
    if attr == "switch":
        return _attached_switch(topo)
    if attr not in topo.node_attrs:
        choices = ", ".join(["node", "switch", *sorted(topo.node_attrs)])
        raise SpecError(f"the topology has no node attribute {attr!r}; choose one of {choices}")
    return topo.node_attrs[attr].astype(np.int64)


def hierarchical_by_topology(topo: Topology, placement: Placement, attr: str = "group") -> Communicators:
    """Group the ranks by a property of their node, then add the group leaders.

    ``attr`` is a node attribute of ``topo`` (``group``: pod of a fat tree,
    dragonfly group, ...; ``level``, ``x``, ...), or ``"node"`` (processes on
    the same compute node) or ``"switch"`` (end nodes on the same switch,
    the one on their lowest port). Groups are ordered by their lowest rank and
    hold their ranks ascending; the last communicator holds the first rank of
    every group.

    Raises
    ------
    SpecError
        If ``attr`` is unknown or a process's node has no value for it (-1).
    """
    keys = _node_keys(topo, attr)[placement.node]
    if len(keys) and keys.min() < 0:
        name = topo.names[int(placement.node[np.argmin(keys)])]
        raise SpecError(f"node {name!r} has no {attr!r} value, so its processes cannot be grouped by it")
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    position = np.argsort(np.argsort(first))
    gid = position[inverse.reshape(-1)]
    ranks = np.r_[np.argsort(gid, kind="stable"), np.sort(first)]
    sizes = np.r_[np.bincount(gid, minlength=len(first)), len(first)]
    return Communicators(ranks, np.r_[0, np.cumsum(sizes)], placement.nprocs, placement, f"hier:attr={attr}")


def random_groups(procs: Procs, groups: int, size: int | None = None, seed: int = 0) -> Communicators:
    """Processes randomly join ``groups`` communicators (seeded with ``numpy.random.default_rng``).

    Without ``size``, every process joins exactly one group: a random
    permutation of the ranks is cut into ``groups`` parts whose sizes differ by
    at most one. With ``size``, ``groups * size`` distinct processes are drawn
    without replacement and dealt into groups of ``size``; the others join no
    group. Members are listed in ascending rank order.

    Raises
    ------
    SpecError
        If there are fewer processes than the groups need.
    """
    n, placement = _procs(procs)
    groups = _positive("the number of groups", groups)
    rng = np.random.default_rng(seed)
    label = f"random:{groups}" + (f",size={size}" if size is not None else "") + f",seed={seed}"
    if size is None:
        if groups > n:
            raise SpecError(f"{groups} random groups need at least {groups} processes, but there are {n}")
        group_of = np.empty(n, dtype=np.int64)
        group_of[rng.permutation(n)] = np.arange(n) * groups // n
        ranks = np.argsort(group_of, kind="stable")
        return Communicators(ranks, np.r_[0, np.cumsum(np.bincount(group_of))], n, placement, label)
    size = _positive("the group size", size)
    if groups * size > n:
        raise SpecError(f"{groups} random groups of {size} need {groups * size} processes, but there are {n}")
    chosen = np.sort(rng.choice(n, groups * size, replace=False).reshape(groups, size), axis=1)
    return _csr([chosen], n, placement, label)


def _node_indices(topo: Topology, lists: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Node index and communicator index of every listed name (checked)."""
    is_compute = np.zeros(topo.n_nodes, dtype=bool)
    is_compute[compute_nodes(topo)] = True
    kind = "end node" if len(topo.endpoints) else "switch"
    nodes, comm = [], []
    for i, names in enumerate(lists):
        if isinstance(names, str) or not isinstance(names, Sequence) or not names:
            raise SpecError(f"communicator {i} must be a non-empty list of {kind} names")
        for name in names:
            try:
                u = topo.index(name) if isinstance(name, str) else -1
            except TopologyError as exc:
                raise SpecError(f"communicator {i}: {exc}") from None
            if u < 0 or not is_compute[u]:
                raise SpecError(f"communicator {i}: {name!r} is not the name of an {kind}")
            nodes.append(u)
        comm.append(np.full(len(names), i, dtype=np.int64))
    if not nodes:
        raise SpecError("no communicators given")
    return np.asarray(nodes, dtype=np.int64), np.concatenate(comm)


def from_lists(topo: Topology, lists: Sequence[Sequence[str]], label: str = "lists") -> Communicators:
    """Communicators given as lists of end-node names (switch names if there are no end nodes).

    A name repeated within one communicator stands for several processes on
    that node: the ``k``-th occurrence of node ``X`` in any communicator is
    ``X``'s ``k``-th process, so ``X`` runs as many processes as its largest
    count in one communicator, and a process may be in several communicators.
    Ranks are numbered node by node, nodes in order of their first appearance
    (reading communicator 0 first), a node's processes consecutively. Each
    communicator keeps the order it was listed in. The placement's ``order``
    is ``"lists"`` and its ``ppn`` the most processes on one node.

    Parameters
    ----------
    topo : Topology
        The fabric the names belong to.
    lists : sequence of sequence of str
        One list of node names per communicator (any name :meth:`Topology.index` takes).
    label : str
        What built them (a file's name, say).

    Returns
    -------
    Communicators
        The communicators, with the placement the lists imply.

    Raises
    ------
    SpecError
        For no communicators, an empty communicator, or a name that is not an end node (switch) of ``topo``.

    Examples
    --------
    >>> from vizcoll.topology import from_spec
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> from_lists(topo, [["h1", "h0"], ["h0", "h5", "h0"]]).lists()
    [[0, 1], [1, 3, 2]]
    """
    node, comm = _node_indices(topo, lists)
    order = np.lexsort((np.arange(len(node)), node, comm))
    key = comm[order] * topo.n_nodes + node[order]
    run_start = np.maximum.accumulate(np.where(np.r_[True, key[1:] != key[:-1]], np.arange(len(key)), 0))
    occurrence = np.empty(len(node), dtype=np.int64)
    occurrence[order] = np.arange(len(key)) - run_start
    count = np.zeros(topo.n_nodes, dtype=np.int64)
    np.maximum.at(count, node, occurrence + 1)
    uniq, first = np.unique(node, return_index=True)
    in_order = uniq[np.argsort(first)]
    base = np.zeros(topo.n_nodes, dtype=np.int64)
    base[in_order] = np.r_[0, np.cumsum(count[in_order])[:-1]]
    placement = Placement(np.repeat(in_order, count[in_order]), int(count.max()), "lists", 0)
    sizes = np.bincount(comm, minlength=len(lists))
    return Communicators(base[node] + occurrence, np.r_[0, np.cumsum(sizes)], placement.nprocs, placement, label)
