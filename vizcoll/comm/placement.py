"""Placement of MPI-style ranks ``0..P-1`` on the compute nodes of a topology.

The *compute nodes* are the topology's end nodes, in node order. A topology
with no end node at all (e.g. a mesh built with ``hosts=0``, where every
router is also a processor) uses its switches instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.topology.model import Topology

__all__ = ["ORDERS", "Placement", "check_fits", "compute_nodes", "place"]

ORDERS = ("linear", "random", "rail-major")
SCHEMA = "vizcoll.placement/1"


def compute_nodes(topo: Topology) -> np.ndarray:
    """Node indices that run processes: the end nodes, or the switches if there are none."""
    ends = topo.endpoints
    return ends if len(ends) else topo.switches


def _slot_kind(topo: Topology) -> str:
    return "end nodes" if len(topo.endpoints) else "switches"


def check_fits(topo: Topology, nprocs: int, ppn: int, what: str = "the placement") -> None:
    """Raise :class:`SpecError` unless ``nprocs`` processes fit on ``topo`` at ``ppn`` per node."""
    if not isinstance(ppn, (int, np.integer)) or ppn < 1:
        raise SpecError(f"ppn (processes per node) must be a positive integer, got {ppn!r}")
    if topo.n_nodes == 0:
        raise SpecError("the fabric has no node to run processes on: add nodes to it first")
    if not isinstance(nprocs, (int, np.integer)) or nprocs < 1:
        raise SpecError(f"the number of processes must be a positive integer, got {nprocs!r}")
    n_nodes = len(compute_nodes(topo))
    if nprocs > n_nodes * ppn:
        name = topo.meta.get("generator") or "the topology"
        raise SpecError(f"{what} needs {nprocs} processes but {name} has {n_nodes} {_slot_kind(topo)} x ppn {ppn}")


@dataclass(eq=False)
class Placement:
    """Where each rank runs: rank ``r`` on the topology node ``node[r]``.

    Build one with :func:`place` (or :func:`vizcoll.comm.from_lists`); its dict form has schema
    ``vizcoll.placement/1``.

    Attributes
    ----------
    node : numpy.ndarray
        ``node[r]`` is the topology node index of rank ``r``'s compute node.
    ppn : int
        Processes per node the placement was made with (the most on any node).
    order : str
        ``"linear"``, ``"random"``, ``"rail-major"`` (one of :data:`ORDERS`, as :func:`place` made it) or
        ``"lists"`` (built by :func:`vizcoll.comm.from_lists`).
    seed : int
        Seed of the random order (unused for the others).
    """

    node: np.ndarray
    ppn: int = 1
    order: str = "linear"
    seed: int = 0

    @property
    def nprocs(self) -> int:
        """Number of ranks."""
        return len(self.node)

    def ranks_on(self, node: int) -> np.ndarray:
        """Ranks placed on topology node ``node``, ascending.

        Parameters
        ----------
        node : int
            A topology node index.

        Returns
        -------
        numpy.ndarray
            The ranks (``int64``); empty when none runs there.
        """
        return np.flatnonzero(self.node == node)

    def to_dict(self) -> dict:
        """JSON-serialisable form (schema ``vizcoll.placement/1``).

        Returns
        -------
        dict
            ``schema``, ``node`` (a list), ``ppn``, ``order`` and ``seed``.
        """
        return {
            "schema": SCHEMA,
            "node": self.node.tolist(),
            "ppn": int(self.ppn),
            "order": self.order,
            "seed": int(self.seed),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Placement:
        """Inverse of :meth:`to_dict`.

        Parameters
        ----------
        data : dict
            What :meth:`to_dict` returned.

        Returns
        -------
        Placement
            The placement.

        Raises
        ------
        SpecError
            On a malformed dict (wrong schema, missing field, wrong type).
        """
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise SpecError(f"not a vizcoll placement: the field 'schema' must be {SCHEMA!r}")
        try:
            node = np.asarray(data["node"], dtype=np.int64).reshape(-1)
            return cls(node, int(data.get("ppn", 1)), str(data.get("order", "linear")), int(data.get("seed", 0)))
        except KeyError as exc:
            raise SpecError(f"placement: missing field {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            raise SpecError(f"placement: a field has the wrong type or value ({exc})") from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Placement):
            return NotImplemented
        return self.to_dict() == other.to_dict()


def place(topo: Topology, nprocs: int | None = None, ppn: int = 1, order: str = "linear", seed: int = 0) -> Placement:
    """Place ``nprocs`` ranks on the compute nodes of ``topo``, ``ppn`` per node.

    Parameters
    ----------
    topo : Topology
        The fabric; processes run on its end nodes (its switches if it has none).
    nprocs : int, optional
        Number of ranks; defaults to all slots, ``compute nodes x ppn``.
    ppn : int
        Processes per node.
    order : {"linear", "random", "rail-major"}
        ``linear``: rank ``r`` runs on compute node ``r // ppn`` in node order;
        ``random``: the same over a permutation of the compute nodes drawn with
        ``numpy.random.default_rng(seed)``; ``rail-major``: the same over the
        compute nodes sorted by their ``rail`` attribute, node order within a
        rail (on a rail fabric the naive placement that fills rail 0 first;
        elsewhere the linear one).
    seed : int
        Seed for ``order="random"``.

    Returns
    -------
    Placement
        Rank ``r``'s node, with the ``ppn``, ``order`` and ``seed`` it was made with.

    Raises
    ------
    SpecError
        If the processes do not fit, or ``ppn``/``order`` is invalid.

    Examples
    --------
    >>> from vizcoll.topology import from_spec
    >>> place(from_spec("fat-tree:radix=4,levels=2"), nprocs=5, ppn=2).node.tolist()
    [6, 6, 7, 7, 8]
    """
    nodes = compute_nodes(topo)
    if nprocs is None:
        nprocs = len(nodes) * ppn if isinstance(ppn, (int, np.integer)) else 0
    check_fits(topo, nprocs, ppn)
    if order not in ORDERS:
        raise SpecError(f"unknown placement order {order!r}; choose one of {', '.join(ORDERS)}")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SpecError(f"seed must be an integer >= 0, got {seed!r}")
    if order == "random":
        nodes = np.random.default_rng(seed).permutation(nodes)
    elif order == "rail-major":
        nodes = nodes[np.argsort(topo.attr("rail")[nodes], kind="stable")]
    return Placement(nodes[np.arange(nprocs) // ppn].astype(np.int64), int(ppn), order, int(seed))
