"""Communicators: ranks placed on compute nodes and split into communicators.

- :func:`place` puts ranks ``0..P-1`` on the topology's end nodes
  (``ppn`` per node, linear or seeded random order) -> :class:`Placement`;
- the splits :func:`grid2d`, :func:`grid3d`, :func:`grid`,
  :func:`hierarchical`, :func:`hierarchical_by_topology`,
  :func:`random_groups` and :func:`from_lists` build :class:`Communicators`;
- :func:`parse_pattern` turns a short string such as ``grid2d:256x160`` into
  communicators on a topology (used by the command line and the web page);
- :func:`file_lists` reads a communicators file: JSON name lists, or an MPI
  host list (:func:`parse_hostfile`: Open MPI hostfiles, MPICH machinefiles,
  Slurm hostlists) as one communicator.

Engine code: no dash or plotly; results serialise with ``to_dict`` /
``from_dict``.
"""

from vizcoll.comm.communicators import Communicators
from vizcoll.comm.hostfile import parse_hostfile
from vizcoll.comm.patterns import (
    PATTERNS,
    file_lists,
    host_lists,
    parse_lists,
    parse_pattern,
    pattern_examples,
    pattern_help,
)
from vizcoll.comm.placement import ORDERS, Placement, compute_nodes, place
from vizcoll.comm.splits import (
    from_lists,
    grid,
    grid2d,
    grid3d,
    hierarchical,
    hierarchical_by_topology,
    random_groups,
)

__all__ = [
    "ORDERS",
    "PATTERNS",
    "Communicators",
    "Placement",
    "compute_nodes",
    "file_lists",
    "from_lists",
    "grid",
    "grid2d",
    "grid3d",
    "hierarchical",
    "hierarchical_by_topology",
    "host_lists",
    "parse_hostfile",
    "parse_lists",
    "parse_pattern",
    "pattern_examples",
    "pattern_help",
    "place",
    "random_groups",
]
