"""The barrier messages' transport: a seeded, message-level discrete-event simulation (DLCT paper, section 4).

The network a message crosses is a :class:`~vizcoll.barrier.grid.GridNetwork`
(the paper's grid, greedy routing by position; see :mod:`vizcoll.barrier.grid`)
or a :class:`~vizcoll.barrier.fabric.FabricNetwork` (chosen nodes of any
fabric over min-hop routes): both give ``nodes``, ``route``, ``hops``,
``components``, ``centre``, ``spanning_tree``, ``groups`` and ``intact``.
:func:`is_grid` tells whether a topology is a grid the paper's model runs on;
:func:`break_links` breaks random links of it.

**Timing** (:class:`Network`): every node handles one message at a time, in
FIFO order of arrival, for ``proc`` seconds (sending, forwarding or
receiving); a hop then takes ``hop_latency`` seconds on the link. A message of
``h`` hops without contention takes ``(h + 1) * proc + h * hop_latency``.
Gather messages count the hops they travel (``content += 1`` per hop: the
paper's "path length so far, updated by every node it passes").

**Event core**: the one core of every simulation,
:class:`vizcoll.sim.engine.Engine` (events at equal times run in the order
they were scheduled, so a run is deterministic). The network's callbacks get
the event time as their first argument.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from vizcoll.arrays import ranges
from vizcoll.barrier.grid import ROUTINGS, Block, GridNetwork, NetRoute, grid_blocks, is_grid, mst_tree
from vizcoll.errors import SpecError
from vizcoll.sim.engine import Engine
from vizcoll.sim.events import EventColumns, run_starts
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.words import plural

__all__ = [
    "ROUTINGS",
    "DEFAULT_HOP_LATENCY",
    "DEFAULT_PROC",
    "MAX_EVENTS",
    "NetRoute",
    "Message",
    "Recorder",
    "GridNetwork",
    "Network",
    "Block",
    "grid_blocks",
    "mst_tree",
    "is_grid",
    "break_links",
]

DEFAULT_HOP_LATENCY = 0.0005
"""Seconds a message spends on one link (the paper leaves it open)."""
DEFAULT_PROC = 0.001
"""Seconds a node needs to handle (send, forward or receive) one message (the paper leaves it open)."""
MAX_EVENTS = 20_000_000
"""A run stops with ``RuntimeError`` after this many events (:meth:`vizcoll.sim.engine.Engine.run`)."""


@dataclass(slots=True)
class Message:
    """A barrier message: ``kind`` (``"gather"``, ``"release"``, ...), ``barrier`` index and ``content``.

    ``content`` is the path length travelled so far for Gather messages and
    ``K`` for DLCT Release messages; ``data`` holds algorithm fields (round,
    sender ID, level, ...). The network fills ``route``, ``hops``, ``path``
    (link ids crossed so far), ``sent_at`` and ``mid`` (a serial number).
    """

    kind: str
    src: int
    dst: int
    barrier: int
    content: int = 0
    data: dict = field(default_factory=dict)
    route: NetRoute | None = None
    hops: int = 0
    path: list[int] = field(default_factory=list)
    sent_at: float = 0.0
    mid: int = -1


class Recorder:
    """Collects the timeline's events as columns (a no-op when ``enabled`` is False): a paper-scale run records a
    million hops, and an :class:`~vizcoll.sim.timeline.Event` object each would cost more than the run."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.t: list[float] = []
        self.kind: list[str] = []
        self.src: list[int] = []
        self.dst: list[int] = []
        self.label: list[str] = []
        self.n_links: list[int] = []
        self.links: list[int] = []
        self.n_changes: list[int] = []
        self.keys: list[str] = []
        self.values: list = []

    def add(
        self, t: float, kind: str, src: int = -1, dst: int = -1, links=(), label: str = "", changes: dict | None = None
    ) -> None:
        """Record one event (events may come out of time order: :meth:`columns` sorts them)."""
        if self.enabled:
            self.t.append(t)
            self.kind.append(kind)
            self.src.append(src)
            self.dst.append(dst)
            self.label.append(label)
            self.n_links.append(len(links))
            self.links.extend(links)
            changes = changes or {}
            self.n_changes.append(len(changes))
            self.keys.extend(changes)
            self.values.extend(changes.values())

    def __len__(self) -> int:
        return len(self.t)

    def columns(self) -> EventColumns:
        """The events recorded, ordered by time, in the order they were recorded among equal times."""
        order = np.argsort(np.asarray(self.t, dtype=float), kind="stable")
        at = order.tolist()
        kinds = list(dict.fromkeys(self.kind))
        code = {kind: i for i, kind in enumerate(kinds)}
        link_start, change_start = run_starts(self.n_links), run_starts(self.n_changes)
        links = np.asarray(self.links, dtype=np.int64)
        link_rows = ranges(link_start[order], link_start[order + 1])
        change_rows = ranges(change_start[order], change_start[order + 1]).tolist()
        return EventColumns(
            t=np.asarray(self.t, dtype=float)[order],
            kind=np.fromiter((code[self.kind[i]] for i in at), dtype=np.int32, count=len(at)),
            kinds=kinds,
            src=np.asarray(self.src, dtype=np.int64)[order],
            dst=np.asarray(self.dst, dtype=np.int64)[order],
            link_start=run_starts(self.n_links[i] for i in at),
            links=links[link_rows],
            label=[self.label[i] for i in at],
            change_start=run_starts(self.n_changes[i] for i in at),
            change_key=[self.keys[j] for j in change_rows],
            change_value=[self.values[j] for j in change_rows],
        )


class Network:
    """Message transport over a :class:`GridNetwork` or a :class:`~vizcoll.barrier.fabric.FabricNetwork`.

    One timing model for both: every node a message passes (its source, each
    forwarding node, its destination) handles it for ``proc`` seconds, one
    message at a time in FIFO order, and every link takes ``hop_latency``.

    The messages are events of ``engine``: ``deliver(t, msg)`` is called
    when a message has been handled by its destination; ``drop(t, msg)`` when
    it hits a dead end. ``describe(msg)`` gives the text used in event labels
    (e.g. ``"Gather"``).

    >>> from vizcoll.topology.generators import mesh
    >>> grid, engine, got = GridNetwork(mesh((1, 3), neighbors=4, hosts=0)), Engine(), []
    >>> net = Network(grid, engine, lambda t, m: got.append((t, m.hops)), print, Recorder(), 0.5, 1.0)
    >>> net.send(0.0, Message("gather", grid.nodes[0], grid.nodes[2], 0))
    >>> engine.run(); got  # (h + 1) * proc + h * hop_latency, h = 2
    [(4.0, 2)]
    """

    def __init__(
        self,
        grid: GridNetwork,
        engine: Engine,
        deliver: Callable,
        drop: Callable,
        recorder: Recorder,
        hop_latency: float = DEFAULT_HOP_LATENCY,
        proc: float = DEFAULT_PROC,
        describe: Callable[[Message], str] = lambda m: m.kind,
    ):
        for name, value in (("hop_latency", hop_latency), ("proc", proc)):
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not (math.isfinite(value) and value > 0)
            ):
                raise SpecError(f"{name} must be a positive number of seconds, got {value!r}")
        self.grid, self.engine, self.rec = grid, engine, recorder
        self._deliver, self._drop, self.describe = deliver, drop, describe
        self.hop_latency, self.proc = float(hop_latency), float(proc)
        self._at, self._on_arrive, self._on_handled = engine.at, self._arrive, self._handled  # bound once: per hop
        self.busy: dict[int, float] = {}  # when each node (processor or forwarding switch) is free again
        self.messages = 0
        self.hops = 0
        self.detours = 0
        self.link_load: dict[int, int] = {}
        self.dead: list[Message] = []

    def send(self, t: float, msg: Message) -> None:
        """Hand ``msg`` to the network at its source at time ``t`` (it queues behind the source's work)."""
        msg.route = self.grid.route(msg.src, msg.dst)
        msg.sent_at, msg.mid = t, self.messages
        self.messages += 1
        self.detours += msg.route.detour and msg.route.reached
        self._arrive(t, msg, 0)

    def _arrive(self, t: float, msg: Message, i: int) -> None:
        u = msg.route.nodes[i]
        free = self.busy.get(u, 0.0)
        done = (t if t >= free else free) + self.proc
        self.busy[u] = done
        self._at(done, self._on_handled, done, msg, i)

    def _handled(self, t: float, msg: Message, i: int) -> None:
        route = msg.route
        if i == len(route.links):
            if route.reached:
                self._deliver(t, msg)
            else:
                self._dead_end(t, msg)
            return
        lid = route.links[i]
        msg.hops += 1
        msg.path.append(lid)
        if msg.kind == "gather":
            msg.content += 1
        self.hops += 1
        self.link_load[lid] = self.link_load.get(lid, 0) + 1
        if self.rec.enabled:
            names, u, v = self.grid.topo.names, route.nodes[i], route.nodes[i + 1]
            what = f"{self.describe(msg)} {names[msg.src]} → {names[msg.dst]}"
            hop = f"hop {i + 1} of {route.hops}" + (" (detour)" if route.detour else "")
            self.rec.add(t, "send", u, v, [lid], f"{what}: {names[u]} → {names[v]}, {hop}")
        nxt = t + self.hop_latency
        self._at(nxt, self._on_arrive, nxt, msg, i + 1)

    def _dead_end(self, t: float, msg: Message) -> None:
        self.dead.append(msg)
        if self.rec.enabled:
            names = self.grid.topo.names
            where = names[msg.route.nodes[-1]]
            self.rec.add(
                t,
                "drop",
                msg.route.nodes[-1],
                msg.dst,
                [],
                (
                    f"{self.describe(msg)} {names[msg.src]} → {names[msg.dst]} is stuck at {where} after "
                    f"{plural(msg.hops, 'hop')}: {msg.route.reason} (dead end, the message is dropped)"
                ),
            )
        self._drop(t, msg)

    @property
    def max_link_load(self) -> int:
        """Most messages that crossed one link (both directions) so far."""
        return max(self.link_load.values(), default=0)


def _components(n: int, ends: np.ndarray, alive: np.ndarray) -> int:
    from scipy.sparse.csgraph import connected_components  # here: csgraph imports scipy.linalg, slow to start

    a, b = ends[alive, 0], ends[alive, 1]
    mat = sp.coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
    return connected_components(mat, directed=False, return_labels=False)


def break_links(topo: Topology, rate: float, seed: int = 0, keep_connected: bool = True) -> list[int]:
    """Break ``round(rate * L)`` random processor-to-processor links of ``topo`` in place; their ids.

    ``L`` counts every switch-to-switch link (links already broken count
    towards the target). Links are tried in a random order drawn from
    ``numpy.random.default_rng(seed)``; with ``keep_connected`` a link whose
    loss would cut the live network further is skipped, so fewer links may
    break than asked (4 neighbors at 50%: a 16x16 grid has 480 links and
    needs at least 255 of them).

    Parameters
    ----------
    topo : Topology
        The fabric; its links are marked broken.
    rate : float
        Share of the switch-to-switch links to break, in ``[0, 1]``.
    seed : int
        Seed of the random order.
    keep_connected : bool
        Skip a link whose loss would cut the live network further.

    Returns
    -------
    list of int
        Stable ids of the links broken now, in the order they broke.

    Raises
    ------
    SpecError
        If ``rate`` is not a number in ``[0, 1]``.

    Examples
    --------
    >>> from vizcoll.topology.generators import mesh
    >>> topo = mesh((4, 4), 4, hosts=0)
    >>> len(break_links(topo, 0.25, seed=1)), int(topo.broken.sum())
    (6, 6)
    """
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise SpecError(f"the break rate must be between 0 and 1, got {rate!r}")
    sw = topo.kind == SWITCH
    rows = np.flatnonzero(sw[topo.link_a] & sw[topo.link_b])
    index = np.full(topo.n_nodes, -1, dtype=np.int64)
    index[topo.switches] = np.arange(len(topo.switches))
    ends = np.stack([index[topo.link_a[rows]], index[topo.link_b[rows]]], axis=1)
    alive = ~topo.broken[rows]
    target = int(round(rate * len(rows))) - int((~alive).sum())
    pieces = _components(len(topo.switches), ends, alive)
    out: list[int] = []
    for i in np.random.default_rng(seed).permutation(np.flatnonzero(alive)).tolist():
        if len(out) >= target:
            break
        alive[i] = False
        if keep_connected and _components(len(topo.switches), ends, alive) > pieces:
            alive[i] = True
            continue
        out.append(int(topo.link_id[rows[i]]))
    for lid in out:
        topo.set_broken(lid)
    return out
