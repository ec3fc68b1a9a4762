"""MINIHOP-MC, OpenSM's multicast routing (``minhop``; ``minhop-new`` adds FULB's root rotation).

Root: the first switch (lowest node index) of
minimum eccentricity. Top-down: at each switch every member not yet
reached leaves through the lowest-numbered live port with the fewest hops
to it (``MinHopTable.min_ports(switch, member)[0]``); members are grouped
per port and the split repeats at the peer. No balancing. Two branches
never meet again: if they did, both would be shortest, so the switch where
they split would have sent both members through the same lowest port
(the code still keeps a switch's first parent only, defensively).

References: [FULB22, Alg. 1]; [OPENSM] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import numpy as np

from vizcoll.multicast.state import BIG, RoutingState, TreeParts, first_per_owner

__all__ = ["minhop_tree"]


def minhop_tree(st: RoutingState, root_row: int, members: np.ndarray, gid: int) -> TreeParts:
    """MINIHOP-MC: top-down, lowest-numbered min-hop port per (switch, member)."""
    root = int(st.switches[root_row])
    parts = TreeParts(root)
    st.stamp[root] = gid
    todo = members[members != root]
    at = np.full(len(todo), root, dtype=np.int64)
    while len(todo):
        idx, owner, segments = st.expand(at)
        peer, dst = st.peer[idx], todo[owner]
        hops = np.full(len(idx), BIG, dtype=np.int64)
        via = st.peer_row[idx] >= 0
        hops[via] = 1 + st.switch_hops(st.peer_row[idx[via]], dst[via])
        hops[~via & (peer == dst)] = 1
        best = np.minimum.reduceat(hops, segments)
        if best.max() >= BIG:
            raise RuntimeError("MINIHOP-MC lost a member")  # the root's eccentricity said it was reachable
        pos = np.flatnonzero(hops == best[owner])
        chosen = idx[pos[first_per_owner(owner[pos])]]
        nxt = st.peer[chosen]
        fresh = np.flatnonzero(st.stamp[nxt] != gid)
        new = fresh[st.firsts(nxt[fresh])]
        parts.add(nxt[new], at[new], st.link[chosen[new]])
        st.stamp[nxt[new]] = gid
        going = nxt != todo
        at, todo = nxt[going], todo[going]
    return parts
