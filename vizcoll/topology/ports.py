"""The connected ports of every node of a topology, CSR style (see :meth:`vizcoll.topology.model.Topology.ports`).

>>> import numpy as np
>>> view = PortView(np.array([0, 1, 2]), np.array([1, 1]), np.array([1, 0]), np.array([1, 1]), np.array([0, 0]))
>>> view.of(1), view.peer[view.of(1)].tolist()
(slice(1, 2, None), [0])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PortView"]


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
