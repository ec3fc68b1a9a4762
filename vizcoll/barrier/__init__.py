"""Barriers with an adjustable communication pattern (the DLCT barrier paper).

- :mod:`vizcoll.barrier.structures`: the LCT and BST patterns (Gather / Release
  maps for any number of IDs), grid numberings (S-curve, Z-order, Hilbert,
  row-major), the adjustment operator ``round(K)``, greedy grid routing and the
  link set of a pattern;
- :mod:`vizcoll.barrier.uq`: the update quantity UQ (Fig. 3) and the 256
  S-curve transformations of the 4x4 grid (Fig. 5);
- :mod:`vizcoll.barrier.grid` (the paper's grid network and its greedy
  routing, :func:`is_grid`), :mod:`vizcoll.barrier.fabric` (any fabric:
  processes on chosen nodes, min-hop routes avoiding broken links) and
  :mod:`vizcoll.barrier.network` (the timing model, on the event core
  :mod:`vizcoll.sim.engine`);
- :mod:`vizcoll.barrier.algorithms`: ``run_barriers`` and the registry
  :data:`~vizcoll.barrier.algorithms.ALGORITHMS` of the algorithms, one module
  per family (:mod:`~vizcoll.barrier.tree`,
  :mod:`~vizcoll.barrier.dissemination`, :mod:`~vizcoll.barrier.dlct`) on
  the machinery of :mod:`~vizcoll.barrier.base` and
  :mod:`~vizcoll.barrier.twophase` (the DLCT variants are ``grid_only``: they
  need a grid); :mod:`vizcoll.barrier.schedules`: their logical GOAL schedules;
- :mod:`vizcoll.barrier.benchmark`: the paper's sweep (Fig. 6 and 7).

References: [DLCT19] (keys: ``docs/papers.md``).
"""

from vizcoll.barrier.algorithms import ALGORITHMS, run_barriers
from vizcoll.barrier.fabric import FabricNetwork
from vizcoll.barrier.network import is_grid
from vizcoll.barrier.structures import (
    NUMBERINGS,
    STRUCTURES,
    GreedyDeadEnd,
    Route,
    adjust,
    bst_children,
    bst_parent,
    gather_map,
    greedy_route,
    grid_neighbors,
    lct_children,
    lct_parent,
    link,
    numbering,
    pattern_links,
    position_of,
    release_map,
    subtree,
)
from vizcoll.barrier.uq import mean_uq, update_quantity, uq_difference_histogram, uq_matrix, uq_round

__all__ = [
    "ALGORITHMS",
    "FabricNetwork",
    "is_grid",
    "run_barriers",
    "NUMBERINGS",
    "STRUCTURES",
    "GreedyDeadEnd",
    "Route",
    "adjust",
    "bst_children",
    "bst_parent",
    "gather_map",
    "greedy_route",
    "grid_neighbors",
    "lct_children",
    "lct_parent",
    "link",
    "numbering",
    "pattern_links",
    "position_of",
    "release_map",
    "subtree",
    "mean_uq",
    "update_quantity",
    "uq_difference_histogram",
    "uq_matrix",
    "uq_round",
]
