"""The registry of multicast routing algorithms: every consumer (routing, CLI, the /multicast page) reads it.

An algorithm is a :class:`MulticastAlgorithm`: a tree builder
``build_tree(state, root_row, members, gid) -> TreeParts`` for one group, whether
the root rotates among the minimum-height ones (FULB's root rotation), and an
optional ``setup(state, n_groups)`` run once per :func:`~vizcoll.multicast.routing.route`
call before the first group (SSSP-MC's weighted switch graph). :func:`register`
adds one; :data:`ALGORITHMS` is the live sequence of the registered names, in
registration order (the order the CLI and the page show them).

>>> ALGORITHMS[0], "fulb" in ALGORITHMS, algorithm("fulb").label
('minhop', True, 'FULB-MC')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from vizcoll.multicast.fulb import fulb_tree
from vizcoll.multicast.minhop import minhop_tree
from vizcoll.multicast.sssp import SsspGraph, sssp_tree
from vizcoll.multicast.state import RoutingState, TreeParts
from vizcoll.registry import Registry

__all__ = [
    "ALGORITHMS",
    "DEFAULT_ALGORITHM",
    "REGISTRY",
    "MulticastAlgorithm",
    "algorithm",
    "register",
    "unregister",
    "MINHOP",
    "MINHOP_NEW",
    "SSSP",
    "SSSP_NEW",
    "FULB",
    "FULB_GLOBAL",
]

TreeBuilder = Callable[[RoutingState, int, np.ndarray, int], TreeParts]


@dataclass(frozen=True)
class MulticastAlgorithm:
    """One routing algorithm: its name (the CLI's ``--algo``), label, tree builder, root rule and setup.

    :func:`register` (``REGISTRY.register``) adds one to :data:`ALGORITHMS`, after which
    :func:`~vizcoll.multicast.routing.route`, the CLI and the /multicast page all offer it.

    Parameters
    ----------
    name : str
        The name ``route`` and ``--algo`` take (``"fulb"``).
    label : str
        The name people read (``"FULB-MC"``).
    build_tree : callable
        ``build_tree(state, root_row, members, gid) -> TreeParts``: the tree of one group on the shared
        :class:`~vizcoll.multicast.state.RoutingState`.
    rotates_roots : bool
        Whether the root rotates among the minimum-height ones (FULB's root rotation).
    setup : callable, optional
        ``setup(state, n_groups)``, run once per ``route`` call before the first group (SSSP-MC's weighted switch
        graph).
    description : str
        One line for the help.
    """

    name: str
    label: str
    build_tree: TreeBuilder
    rotates_roots: bool = False
    setup: Callable[[RoutingState, int], None] | None = None
    description: str = ""


REGISTRY: Registry[MulticastAlgorithm] = Registry("multicast algorithm")
"""Every multicast routing algorithm by name, in registration order."""
register, unregister, algorithm = REGISTRY.register, REGISTRY.unregister, REGISTRY.lookup

ALGORITHMS: Sequence[str] = REGISTRY.names
"""Names accepted by :func:`~vizcoll.multicast.routing.route` (live: a registered algorithm appears at once)."""


def _sssp_graph(st: RoutingState, n_groups: int) -> None:
    st.sssp = SsspGraph(st, n_groups)


# the built-in algorithms, in the order the CLI and the page list them (the module docstring of
# vizcoll.multicast.routing describes each)
MINHOP = register(
    MulticastAlgorithm(
        "minhop", "MINIHOP-MC", minhop_tree, description="OpenSM's: lowest-numbered min-hop port, no balancing"
    )
)
MINHOP_NEW = register(
    MulticastAlgorithm(
        "minhop-new",
        "MINIHOP-MC with root rotation",
        minhop_tree,
        True,
        description="MINIHOP-MC with FULB's root rotation",
    )
)
SSSP = register(
    MulticastAlgorithm(
        "sssp", "SSSP-MC", sssp_tree, False, _sssp_graph, description="Dijkstra over load-weighted switch links"
    )
)
SSSP_NEW = register(
    MulticastAlgorithm(
        "sssp-new",
        "SSSP-MC with root rotation",
        sssp_tree,
        True,
        _sssp_graph,
        description="SSSP-MC with FULB's root rotation",
    )
)
FULB = register(
    MulticastAlgorithm(
        "fulb",
        "FULB-MC",
        partial(fulb_tree, use_global=False),
        True,
        description="root rotation, then link rotation by EFI",
    )
)
FULB_GLOBAL = register(
    MulticastAlgorithm(
        "fulb+global",
        "FULB-MC with the global-link rule",
        partial(fulb_tree, use_global=True),
        True,
        description="FULB-MC preferring ports with fewer dragonfly global links",
    )
)

DEFAULT_ALGORITHM = FULB.name
"""The CLI's default (``mcast --algo``, ``mcast-import --compare``)."""
