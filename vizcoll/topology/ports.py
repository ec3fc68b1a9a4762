"""The connected ports of every node of a topology, CSR style (see :meth:`vizcoll.topology.model.Topology.ports`).

>>> import numpy as np
>>> view = PortView(np.array([0, 1, 2]), np.array([1, 1]), np.array([1, 0]), np.array([1, 1]), np.array([0, 0]))
>>> view.of(1), view.peer[view.of(1)].tolist()
(slice(1, 2, None), [0])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PortView", "port_view"]


@dataclass(frozen=True)
class PortView:
    """Connected ports of every node, CSR style, sorted by port number.

    The ports of node ``u`` are ``port[indptr[u]:indptr[u+1]]``; for each of
    them ``peer`` / ``peer_port`` is the other end and ``link`` the link's row.
    """

    indptr: np.ndarray
    port: np.ndarray
    peer: np.ndarray
    peer_port: np.ndarray
    link: np.ndarray

    def of(self, node: int) -> slice:
        """Slice of the arrays holding ``node``'s ports."""
        return slice(int(self.indptr[node]), int(self.indptr[node + 1]))


def port_view(topo, include_broken: bool = False) -> PortView:
    """The :class:`PortView` of a :class:`~vizcoll.topology.model.Topology`'s live links (every link with
    ``include_broken``)."""
    rows = np.arange(topo.n_links) if include_broken else np.flatnonzero(topo.live)
    node = np.concatenate([topo.link_a[rows], topo.link_b[rows]])
    port = np.concatenate([topo.link_pa[rows], topo.link_pb[rows]])
    peer = np.concatenate([topo.link_b[rows], topo.link_a[rows]])
    peer_port = np.concatenate([topo.link_pb[rows], topo.link_pa[rows]])
    link = np.concatenate([rows, rows])
    order = np.lexsort((port, node))
    indptr = np.zeros(topo.n_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(node, minlength=topo.n_nodes), out=indptr[1:])
    return PortView(indptr, port[order], peer[order], peer_port[order], link[order])
