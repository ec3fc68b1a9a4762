"""Multicast routing for collectives (the FULB-MC paper): MINIHOP-MC, SSSP-MC, FULB-MC, link EFIs, OpenSM tables.

- :func:`route` / :func:`route_communicators` build one multicast tree per
  group with one of :data:`ALGORITHMS` and count each link's EFI
  (:class:`MulticastResult`, :class:`MulticastTree`); the algorithms are a
  registry (:mod:`vizcoll.multicast.algorithms`, :func:`register`);
- :func:`forwarding_tables` / :func:`dump_mcfdbs` turn the trees into the
  per-switch multicast forwarding tables OpenSM would program (and its
  ``opensm.mcfdbs`` dump); :func:`parse_mcfdbs` reads such a dump back.

Engine code: no dash or plotly; results serialise with ``to_dict`` / ``from_dict``.

References: [FULB22]; [OPENSM] (keys: ``docs/papers.md``).
"""

from vizcoll.multicast.algorithms import MulticastAlgorithm, register
from vizcoll.multicast.mcfdbs import MLID_BASE, dump_mcfdbs, forwarding_tables, mlid, parse_mcfdbs
from vizcoll.multicast.routing import (
    ALGORITHMS,
    MulticastResult,
    MulticastTree,
    communicator_groups,
    route,
    route_communicators,
)

__all__ = [
    "ALGORITHMS",
    "MLID_BASE",
    "MulticastAlgorithm",
    "MulticastResult",
    "MulticastTree",
    "communicator_groups",
    "dump_mcfdbs",
    "forwarding_tables",
    "mlid",
    "parse_mcfdbs",
    "register",
    "route",
    "route_communicators",
]
