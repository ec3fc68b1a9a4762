"""Broadcast from one node along a shortest-path tree: the first simulation on the timeline.

Rules (deterministic, no randomness):

- only live links carry packets; switches forward, end nodes only receive,
  except the root itself, which sends on all its live ports even if it is an
  end node (it hands the packet to its switch);
- every node receives the packet once, from a parent one hop closer to the
  root; among several possible parents the lowest node index wins, and among
  several links from that parent its lowest port number;
- hop ``h`` (all packets from depth ``h-1`` to depth ``h``) happens at time
  ``h * hop_latency`` and is one step of the timeline.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from vizcoll.arrays import ranges
from vizcoll.errors import SpecError, TopologyError
from vizcoll.sim.events import EventColumns, run_starts
from vizcoll.sim.timeline import Timeline
from vizcoll.words import plural

if TYPE_CHECKING:  # the event core's package imports this module: it does not import the topology's (scipy)
    from vizcoll.topology.model import Topology

__all__ = ["broadcast", "broadcast_tree"]

LEGEND = {
    "root": "starts the broadcast",
    "waiting": "has not received the packet yet",
    "received": "has received the packet",
    "forwarding": "is sending the packet on to its neighbors",
    "done": "has received and forwarded the packet",
    "unreachable": "cannot be reached: every path to it uses a broken link or passes through an end node",
}


def _root_index(topo: Topology, root: int | str) -> int:
    if isinstance(root, str):
        return topo.index(root)
    root = int(root)
    if not 0 <= root < topo.n_nodes:
        raise TopologyError(f"root {root} is not a node index (0..{topo.n_nodes - 1})")
    return root


def _bfs(topo: Topology, root: int):
    """Level-synchronous BFS; also returns the parent's port (row into PortView)."""
    from vizcoll.topology.model import SWITCH

    n = topo.n_nodes
    view = topo.ports()
    parent = np.full(n, -1, dtype=np.int64)
    arc = np.full(n, -1, dtype=np.int64)  # PortView row of the parent's sending port
    depth = np.full(n, -1, dtype=np.int64)
    depth[root] = 0
    owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(view.indptr))  # node of each port row
    frontier = np.array([root], dtype=np.int64)
    level = 0
    while len(frontier):
        senders = frontier[(topo.kind[frontier] == SWITCH) | (frontier == root)]
        # frontier is sorted by node and each node's ports by number, so the
        # first arc reaching a node is from the lowest parent, lowest port
        rows = ranges(view.indptr[senders], view.indptr[senders + 1])
        rows = rows[depth[view.peer[rows]] < 0]
        peers, first = np.unique(view.peer[rows], return_index=True)
        level += 1
        depth[peers] = level
        arc[peers] = rows[first]
        parent[peers] = owner[rows[first]]
        frontier = peers
    return parent, arc, depth, view


def broadcast_tree(topo: Topology, root: int | str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The broadcast tree from ``root``: ``(parent, parent_link, depth)`` arrays over nodes.

    ``parent_link`` holds stable link ids. The root and unreachable nodes have
    parent -1 and parent_link -1; unreachable nodes have depth -1.
    """
    parent, arc, depth, view = _bfs(topo, _root_index(topo, root))
    link = np.where(arc >= 0, topo.link_id[view.link[np.maximum(arc, 0)]], -1)
    return parent, link.astype(np.int64), depth


def _names(topo: Topology, nodes, limit: int = 5) -> str:
    shown = ", ".join(topo.names[i] for i in nodes[:limit])
    return shown + (f" and {len(nodes) - limit} more" if len(nodes) > limit else "")


def broadcast(topo: Topology, root: int | str, hop_latency: float = 1.0) -> Timeline:
    """Simulate the broadcast from ``root`` (name or index) hop by hop.

    Only live links carry packets; switches forward, end nodes only receive (the root sends on all its live ports
    even if it is an end node). Every node receives the packet once from a parent one hop closer to the root (the
    lowest node index, then its lowest port number). One step per hop with one ``"send"`` event per packet (over
    one link, labelled like ``"edge0.1 → h3 (port 2)"``) and a ``"note"`` summing the hop up; a last ``"note"``
    step marks the nodes that cannot be reached. States: ``root``, ``waiting`` -> ``received`` (-> ``forwarding``
    -> ``done`` for nodes that pass the packet on), or ``unreachable``.

    Parameters
    ----------
    topo : Topology
        The fabric.
    root : int or str
        The root node, by index or by any name :meth:`Topology.index` takes.
    hop_latency : float
        Time of one hop (> 0); hop ``h`` happens at ``h * hop_latency``.

    Returns
    -------
    Timeline
        Its ``summary`` holds ``root``, ``nodes``, ``reached``, ``unreachable``, ``hops``, ``messages`` and
        ``completion_time``.

    Raises
    ------
    SpecError
        For a latency that is not a positive number.
    TopologyError
        For an unknown root.

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> tl = broadcast(from_spec("fat-tree:radix=4,levels=2"), "h0")
    >>> tl.summary["hops"], tl.summary["messages"], tl.final_state["h7"]
    (4, 13, 'received')
    """
    hop_latency = _check_latency(hop_latency)
    r = _root_index(topo, root)
    parent, arc, depth, view = _bfs(topo, r)
    names = topo.names
    n = topo.n_nodes
    hops = int(depth.max())
    reached = int((depth >= 0).sum())
    events, previous = _hop_events(topo, r, parent, arc, depth, view, hop_latency)
    lost = np.flatnonzero(depth < 0)
    _close(events, topo, r, lost, previous, hops, hop_latency)
    initial = dict.fromkeys(names, "waiting")
    initial[names[r]] = "root"
    return Timeline(
        title=f"Broadcast from {names[r]}",
        intro=(
            f"{names[r]} broadcasts a packet to the other {plural(n - 1, 'node')} along a shortest-path tree "
            "over live links: switches forward it, end nodes only receive it."
        ),
        initial_state=initial,
        events=events.columns(),
        entities={name: {"node": i} for i, name in enumerate(names)},
        legend=dict(LEGEND),
        summary={
            "root": names[r],
            "nodes": n,
            "reached": reached,
            "unreachable": int(len(lost)),
            "hops": hops,
            "messages": reached - 1,
            "completion_time": hops * hop_latency,
        },
    )


def _check_latency(hop_latency) -> float:
    if (
        isinstance(hop_latency, bool)
        or not isinstance(hop_latency, numbers.Real)
        or not (math.isfinite(hop_latency) and hop_latency > 0)
    ):
        raise SpecError(f"hop_latency must be a positive number, got {hop_latency!r}")
    return float(hop_latency)


@dataclass(frozen=True)
class _Changes:
    """The state changes of events added together: ``counts[i]`` of them per event, in order, each setting a key
    of ``keys`` to the value of ``values`` at the same place."""

    keys: list[str]
    values: list[str]
    counts: list[int]


class _Columns:
    """The broadcast's events, added in order, as the columns of :class:`EventColumns` (no object per event: a
    paper-scale broadcast has 46,000 sends, and its timeline is serialised and read back as columns)."""

    def __init__(self) -> None:
        self.t: list[float] = []
        self.kind: list[int] = []
        self.src: list[int] = []
        self.dst: list[int] = []
        self.links: list[int] = []
        self.n_links: list[int] = []
        self.label: list[str] = []
        self.keys: list[str] = []
        self.values: list[str] = []
        self.n_changes: list[int] = []

    def note(self, t: float, label: str, changes: dict[str, str]) -> None:
        each = _Changes(list(changes), list(changes.values()), [len(changes)])
        self._add([t], NOTE, [-1], [-1], [], [0], [label], each)

    def sends(self, t: float, src, dst, links, labels, changes: _Changes) -> None:
        n = len(labels)
        self._add([t] * n, SEND, src, dst, links, [1] * n, labels, changes)

    def _add(self, t, kind, src, dst, links, n_links, label, changes: _Changes) -> None:
        self.t += t
        self.kind += [kind] * len(t)
        self.src += list(src)
        self.dst += list(dst)
        self.links += list(links)
        self.n_links += n_links
        self.label += label
        self.keys += changes.keys
        self.values += changes.values
        self.n_changes += list(changes.counts)

    def columns(self) -> EventColumns:
        return EventColumns(
            t=np.asarray(self.t, dtype=float),
            kind=np.asarray(self.kind, dtype=np.int32),
            kinds=["note", "send"],
            src=np.asarray(self.src, dtype=np.int64),
            dst=np.asarray(self.dst, dtype=np.int64),
            link_start=run_starts(self.n_links),
            links=np.asarray(self.links, dtype=np.int64),
            label=self.label,
            change_start=run_starts(self.n_changes),
            change_key=self.keys,
            change_value=self.values,
        )


NOTE, SEND = 0, 1  # the codes of the two kinds of event, in _Columns.columns' ``kinds``


def _hop_events(
    topo: Topology, r: int, parent: np.ndarray, arc: np.ndarray, depth: np.ndarray, view, hop_latency: float
) -> tuple[_Columns, list[int]]:
    """The events of every hop (a note, then one send per packet) and the nodes that forwarded in the last one."""
    names, n = topo.names, topo.n_nodes
    hops = int(depth.max())
    order = np.lexsort((np.arange(n), depth))  # by depth, then node index
    order = order[depth[order] > 0]
    level_start = np.searchsorted(depth[order], np.arange(1, hops + 2))
    events = _Columns()
    previous: list[int] = []  # nodes that forwarded in the previous hop
    so_far = 1
    for h in range(1, hops + 1):
        nodes = order[level_start[h - 1] : level_start[h]]
        t = h * hop_latency
        senders = sorted(set(parent[nodes].tolist()))
        so_far += len(nodes)
        if len(nodes) == 1:
            v = int(nodes[0])
            what = f"{names[parent[v]]} sends the packet to {names[v]} over port {int(view.port[arc[v]])}"
        else:
            who = "1 node sends" if len(senders) == 1 else f"{len(senders):,} nodes send"
            what = f"{who} the packet over {len(nodes):,} links"
        events.note(
            t, f"Hop {h}: {what} ({so_far:,} of {n:,} nodes have it)", {names[u]: "done" for u in previous if u != r}
        )
        _sends(events, topo, r, parent, arc, view, nodes, t)
        previous = senders
    return events, previous


def _sends(events: _Columns, topo: Topology, r: int, parent, arc, view, nodes: np.ndarray, t: float) -> None:
    """One ``"send"`` per node reached in this hop; a parent is announced ``forwarding`` with its first packet."""
    names = topo.names
    src, a = parent[nodes], arc[nodes]
    first = np.zeros(len(nodes), dtype=bool)
    first[np.unique(src, return_index=True)[1]] = True
    first &= src != r
    ports = view.port[a].tolist()
    # each send's changes: its receiver "received", then its sender "forwarding" when announced here
    at = np.arange(len(nodes)) + np.r_[0, np.cumsum(first)[:-1]]
    who = np.empty(len(nodes) + int(first.sum()), dtype=np.int64)
    who[at], who[at[first] + 1] = nodes, src[first]
    received = np.zeros(len(who), dtype=bool)
    received[at] = True
    keys = [names[i] for i in who.tolist()]
    values = np.where(received, "received", "forwarding").tolist()
    labels = [
        f"{names[u]} → {names[v]} (port {p})" for u, v, p in zip(src.tolist(), nodes.tolist(), ports, strict=True)
    ]
    changes = _Changes(keys, values, (1 + first).tolist())
    events.sends(t, src.tolist(), nodes.tolist(), topo.link_id[view.link[a]].tolist(), labels, changes)


def _close(
    events: _Columns, topo: Topology, r: int, lost: np.ndarray, previous: list[int], hops: int, hop_latency: float
) -> None:
    """The last step: the last forwarders are done, and the nodes that cannot be reached are marked."""
    names, n = topo.names, topo.n_nodes
    if len(lost):
        why = "links broken" if topo.broken.any() else f"no path from {names[r]}"
        end = f"{plural(len(lost), 'node')} cannot be reached: {why} ({_names(topo, lost)})"
    else:
        end = f"Broadcast complete: all {n:,} nodes have the packet after {plural(hops, 'hop')}"
    changes = {names[u]: "done" for u in previous if u != r}
    changes.update({names[u]: "unreachable" for u in lost.tolist()})
    events.note((hops + 1) * hop_latency, end, changes)
