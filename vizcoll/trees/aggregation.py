"""An aggregation (reduce, then broadcast of the result) along any tree mapped on a topology, as a Timeline.

The tree is a :class:`~vizcoll.trees.tree.Tree` whose ``node[v]`` is the
topology node of vertex ``v``: a type I tree over processes or a type II tree
over switches and NICs. The simulation follows the cost model's vocabulary
(the aggregation-tree paper, eq. 2): ``l`` = ``latency`` per link, ``θ`` =
``theta`` per packet a vertex processes. Times are in microseconds (μs), the
cost model's unit (:mod:`vizcoll.trees.cost`); the captions say so.

Rules (deterministic; randomness only through ``seed``):

- **Values.** Each process contributes its rank (``seed=None``) or a seeded
  integer in ``0..99``; a vertex hosting several processes combines them
  locally for free. The operation is ``sum`` by default (see :data:`OPS`).
  The root's final value is compared with the direct reduction of all values.
- **Up.** Every tree edge carries one aggregation packet from the child to
  its parent, hop by hop along the unicast shortest path over live links
  (at each node the lowest-numbered port one hop closer, as OpenSM routes;
  only switches forward). A hop takes ``latency``; an edge between two
  vertices on the same node takes no time and no link. Leaves send at time
  0. An inner vertex processes its children's packets in arrival order,
  ``theta`` each (combining them into its partial result), and sends once it
  has all of them.
- **Down.** The root, once it has combined everything, sends the result back
  down the same tree (each edge's path in reverse); a vertex spends
  ``theta`` on the packet and forwards it to all its children at once.
- **Broken links.** A tree edge whose endpoints no live path joins is
  flagged (``summary["broken_edges"]``); its packet is dropped, every vertex
  above it stays ``blocked`` and there is no result and no broadcast: the
  simulation ends with a note instead of waiting forever, saying how many
  processes' values never reach the root.
- **Routes as built on the intact fabric** (``routing.fabric``, the fabric before
  its breaks): a packet whose route crosses a broken link travels up to it
  and is lost there (a ``drop``, the player's key moment "message lost"),
  as a real fabric whose routing tables were not recomputed loses it.

States per vertex: ``waiting``, ``value=x``, ``partial=x (k/n)``,
``done, sent=x``, ``result=x``, ``blocked``. State keys are the vertices'
labels (or node names), made unique; ``entities`` maps each key to
``{"node": index, "vertex": v}`` so the topology view can draw it.

References: [AGGT24, eq. 2] (keys: ``docs/papers.md``).

Examples
--------
>>> from vizcoll.topology import from_spec
>>> from vizcoll.trees.tree import Tree
>>> topo = from_spec("fat-tree:radix=4,levels=2")  # leaf0..3, spine0..1, h0..h7
>>> tree = Tree.from_children([[1, 2, 3], [], [], []], node=[topo.index(h) for h in ("h0", "h1", "h2", "h3")])
>>> tl = simulate_aggregation(topo, tree, timing=Timing(latency=1.0, theta=0.5))
>>> {k: tl.summary[k] for k in ("result", "expected", "correct", "time", "packets", "height", "radius")}
{'result': 6, 'expected': 6, 'correct': True, 'time': 9.5, 'packets': 3, 'height': 1, 'radius': 4}
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import reduce

import numpy as np

from vizcoll.errors import SpecError, TopologyError
from vizcoll.sim.events import EventLog, StateChanges
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.hops import MinHopTable, min_hops
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.trees.routing import FlatRoutes, Router, Routing
from vizcoll.trees.tree import Tree
from vizcoll.words import plural

__all__ = ["OPS", "Timing", "simulate_aggregation", "unicast_path"]

OPS: dict[str, Callable] = {"sum": operator.add, "prod": operator.mul, "max": max, "min": min}

LEGEND = {
    "waiting": "has received nothing from its children yet",
    "value=…": "a process's own value, not sent yet",
    "partial=…": "partial result combined so far (children received / children)",
    "done, sent=…": "has sent its partial result to its parent and waits for the final result",
    "result=…": "has the final result",
    "blocked": "cannot finish: a tree edge below it crosses broken links",
}

Hop = tuple[int, int]  # (node reached, link row)
_DIGITS = 9  # event times are rounded to this many decimals


@dataclass(frozen=True)
class Timing:
    """The timing of an aggregation (eq. 2's symbols): a time per link hop and per packet received.

    Checked by :func:`simulate_aggregation`.

    Parameters
    ----------
    latency : float
        ``l``, time per link hop in μs (> 0).
    theta : float
        ``θ``, time in μs a vertex spends on each packet it receives (>= 0).
    """

    latency: float = 1.0
    theta: float = 0.1


def unicast_path(table: MinHopTable, src: int, dst: int) -> list[Hop] | None:
    """The deterministic unicast shortest path ``src -> dst`` over live links.

    Returns the hops as ``(node reached, link row)`` pairs (empty when
    ``src == dst``), or None when no live path exists. At every node the
    lowest-numbered port whose peer is one hop closer wins; only switches (and
    the destination) are entered.
    """
    left = int(table.hops(src, dst))
    if left < 0:
        return None
    view, path, here = table.port_view, [], int(src)
    while here != dst:
        span = view.of(here)
        peers = view.peer[span]
        closer = (table.hops(peers, dst) == left - 1) & ((table.kind[peers] == SWITCH) | (peers == dst))
        if not closer.any():  # defensive: a consistent table always has a closer neighbor
            return None
        j = int(np.argmax(closer))
        here, left = int(peers[j]), left - 1
        path.append((here, int(view.link[span][j])))
    return path


# ---------------------------------------------------------------- set-up
def _check_params(latency: float, theta: float, op: str) -> None:
    for name, value, low in (("latency", latency, "positive"), ("theta", theta, "non-negative")):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise SpecError(f"{name} must be a finite number, got {value!r}")
        if value < 0 or (low == "positive" and value == 0):
            raise SpecError(f"{name} must be {low}, got {value!r}")
    if op not in OPS:
        raise SpecError(f"unknown operation {op!r}; choose one of {', '.join(OPS)}")


def _check_tree(topo: Topology, tree: Tree) -> None:
    tree.validate()
    if tree.size == 0:
        raise SpecError("the tree has no vertices")
    if len(tree.node) != tree.size:
        raise SpecError("the tree is not mapped on the topology (node[v] is missing)")
    bad = [n for n in tree.node if not 0 <= n < topo.n_nodes]
    if bad:
        raise TopologyError(f"tree vertex on node {bad[0]}, outside 0..{topo.n_nodes - 1}")


def _keys(topo: Topology, tree: Tree) -> list[str]:
    """One unique state key per vertex: its label, else its node's name (``#v`` added to repeats)."""
    base = [
        (tree.label[v] if len(tree.label) == tree.size and tree.label[v] else topo.names[tree.node[v]])
        for v in range(tree.size)
    ]
    counts: dict[str, int] = {}
    for key in base:
        counts[key] = counts.get(key, 0) + 1
    return [key if counts[key] == 1 else f"{key}#{v}" for v, key in enumerate(base)]


def _default_ranks(topo: Topology, tree: Tree) -> list[list[int]]:
    """Leaves and vertices on end nodes host one process each (all vertices without end nodes)."""
    no_ends = not len(topo.endpoints)
    hosts = [
        bool(no_ends or not kids or topo.kind[n] != SWITCH) for n, kids in zip(tree.node, tree.children, strict=True)
    ]
    ranks, next_rank = [], 0
    for host in hosts:
        ranks.append([next_rank] if host else [])
        next_rank += host
    return ranks


def _values(ranks: list[list[int]], seed: int | None) -> dict[int, int]:
    every = sorted({int(r) for rs in ranks for r in rs})
    if seed is None:
        return {r: r for r in every}
    drawn = np.random.default_rng(seed).integers(0, 100, size=len(every))
    return dict(zip(every, drawn.tolist(), strict=True))


@dataclass
class _Routes:
    """Every tree edge's unicast path, child to parent: edge ``v`` (``v >= 1``; the root's entry is empty) has
    ``length[v]`` hops (-1: no live path; 0: both ends on one node), its hop ``i`` reaching ``node[start[v] + i]``
    over link row ``row[start[v] + i]``."""

    length: np.ndarray
    start: np.ndarray
    node: np.ndarray
    row: np.ndarray
    stop: np.ndarray  # per edge: the hop whose link is broken, where its packet is lost (-1: none)


@dataclass
class _Run:
    """Everything the two phases share; their events go to ``log``, each with its place in the run: (1, the
    vertex's place in post-order, ...) going up, (3, its place breadth-first, ...) coming down."""

    topo: Topology
    tree: Tree
    keys: list[str]
    routes: _Routes
    op: str
    latency: float
    theta: float
    log: EventLog = field(default_factory=EventLog)

    def __post_init__(self) -> None:
        tree = self.tree
        self.levels = tree.levels()
        self.bfs = np.empty(tree.size, dtype=np.int64)
        self.bfs[np.concatenate(self.levels)] = np.arange(tree.size)
        self.post = tree.size - 1 - self.bfs  # post-order: children before their parent
        self.parent = np.asarray(tree.parent, dtype=np.int64)
        self.node = np.asarray(tree.node, dtype=np.int64)
        self.kids = np.fromiter(map(len, tree.children), dtype=np.int64, count=tree.size)
        self.place = np.zeros(tree.size, dtype=np.int64)  # each vertex's place among its parent's children
        for kids in tree.children:
            self.place[kids] = np.arange(len(kids))


COMBINE = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}
""":data:`OPS` on arrays of Python ints (``dtype=object``: no overflow, the same values)."""
OWN = 1 << 40  # the place of a vertex's own events after those combining its children (one per child)


def _expand(items: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each item repeated ``counts`` times, with its repeat number 0, 1, ..."""
    each = np.repeat(items, counts)
    return each, np.arange(len(each)) - np.repeat(np.cumsum(counts) - counts, counts)


def _pick(mask: np.ndarray, items: list) -> list:
    return [item for item, keep in zip(items, mask.tolist(), strict=True) if keep]


def _hops(
    run: _Run, edges: np.ndarray, start: np.ndarray, down: bool, what: list[str], length: np.ndarray | None = None
) -> np.ndarray:
    """The hop events of tree edges ``edges`` (their child vertices, each routed) leaving at ``start``, up to the
    parent or (``down``) back, ``what`` naming each edge's packet; returns the arrival times (an edge on one node
    is handed over at once). ``length``: the hops made, when fewer than the route's (a packet lost on its way)."""
    keys, names = run.keys, run.topo.names
    length = run.routes.length[edges] if length is None else length
    phase, order, first = (3, run.bfs[edges], 0) if down else (1, run.post[edges], OWN + 2)
    tail, head = (run.parent[edges], edges) if down else (edges, run.parent[edges])
    same = run.routes.length[edges] == 0  # both ends on one node (not a packet lost at its first hop)
    hands = [
        f"{keys[a]} hands {w} to {keys[b]} on the same node"
        for a, b, w in zip(tail.tolist(), head.tolist(), what, strict=True)
    ]
    run.log.add(start[same], "arrive", _pick(same, hands), (phase, order[same], first), *[run.node[edges[same]]] * 2)
    index, i = _expand(np.arange(len(edges)), length)
    edge = edges[index]
    n = run.routes.length[edge]  # the route's hops (a packet lost on its way makes fewer: ``length``)
    up = n - 1 - i if down else i  # the hop's number on the upward path
    at = run.routes.start[edge] + up
    far = run.routes.node[at]
    near = np.where(up == 0, run.node[edge], run.routes.node[np.maximum(at - 1, 0)])
    frm, to = (far, near) if down else (near, far)
    rows = zip(*(a.tolist() for a in (frm, to, index, tail[index], head[index], i + 1, n)), strict=True)
    labels = [
        f"{names[x]} → {names[y]}: {what[e]} from {keys[a]} to {keys[b]} (hop {h} of {m})"
        for x, y, e, a, b, h, m in rows
    ]
    link = run.topo.link_id[run.routes.row[at]]
    run.log.add(start[index] + (i + 1) * run.latency, "send", labels, (phase, order[index], first + i), frm, to, link)
    return start + length * run.latency


# ---------------------------------------------------------------- phases
def _up(run: _Run, own: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Reduce phase, the deepest level first: per vertex its partial result (a value, whether it has one), the
    time it is ready and whether it is blocked."""
    size = run.tree.size
    values = np.empty(size, dtype=object)
    values[:] = [0 if v is None else v for v in own]
    has = np.array([v is not None for v in own], dtype=bool)
    ready, arrive, blocked = np.zeros(size), np.full(size, math.inf), np.zeros(size, dtype=bool)
    for depth in range(len(run.levels) - 1, -1, -1):
        level = run.levels[depth]
        below = run.levels[depth + 1] if depth + 1 < len(run.levels) else level[:0]
        got = _combine(run, below[np.isfinite(arrive[below])], arrive, values, has, ready)[level]
        blocked[level] = stuck = got < run.kids[level]
        _blocked(run, level[stuck], (run.kids[level] - got)[stuck], ready)
        if depth:
            arrive[level[~stuck]] = _send_up(
                run, level[~stuck], _shown(values[level[~stuck]], has[level[~stuck]]), ready
            )
    return values, has, ready, blocked


def _combine(run: _Run, sent: np.ndarray, arrive, values, has, ready) -> np.ndarray:
    """The parents of ``sent`` (children whose packets arrive) take them in arrival order (ties in their
    children's order), θ each, each combined into their partial result; sets their ready times. Returns how many
    packets each vertex got."""
    sent = sent[np.lexsort((run.place[sent], arrive[sent], run.parent[sent]))]
    parent = run.parent[sent]
    first = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]]) if len(sent) else sent[:0]
    count = np.diff(np.r_[first, len(sent)])
    clock, t, number = np.zeros(len(first)), np.zeros(len(sent)), np.zeros(len(sent), dtype=np.int64)
    partial, partial_has = np.empty(len(sent), dtype=object), np.zeros(len(sent), dtype=bool)
    for j in range(int(count.max(initial=0))):
        live = count > j
        at = first[live] + j
        k, p = sent[at], parent[at]
        clock[live] = np.maximum(clock[live], arrive[k]) + run.theta
        both, only = has[p] & has[k], has[k] & ~has[p]
        values[p[both]] = COMBINE[run.op](values[p[both]], values[k[both]])
        values[p[only]] = values[k[only]]
        has[p] |= has[k]
        t[at], number[at], partial[at], partial_has[at] = clock[live], j + 1, values[p], has[p]
    ready[parent[first]] = clock
    _combined(run, sent, t, _shown(partial, partial_has), number)
    return np.bincount(parent, minlength=run.tree.size)


def _shown(values: np.ndarray, has: np.ndarray) -> list[str]:
    """Each value as the captions write it ("None" without one)."""
    return [str(v) if h else "None" for v, h in zip(values.tolist(), has.tolist(), strict=True)]


def _combined(run: _Run, sent: np.ndarray, t: np.ndarray, partial: list[str], number: np.ndarray) -> None:
    """The events of parents combining the packets of ``sent``: the ``number``-th, making ``partial``, at ``t``."""
    parent = run.parent[sent]
    keys = [run.keys[v] for v in parent.tolist()]
    rows = list(zip(keys, sent.tolist(), partial, number.tolist(), run.kids[parent].tolist(), strict=True))
    labels = [f"{v} combines the packet of {run.keys[k]}: partial={x} ({c} of {n})" for v, k, x, c, n in rows]
    states = [f"partial={x} ({c}/{n})" for _, _, x, c, n in rows]
    run.log.add(
        t, "state", labels, (1, run.post[parent], number - 1), run.node[parent], changes=StateChanges(keys, states)
    )


def _blocked(run: _Run, stuck: np.ndarray, missing: np.ndarray, ready: np.ndarray) -> None:
    """``stuck`` vertices are blocked: ``missing`` children each can never reach them."""
    keys = [run.keys[v] for v in stuck.tolist()]
    labels = [
        f"{key} is blocked: {plural(m, 'child')} can never reach it"
        for key, m in zip(keys, missing.tolist(), strict=True)
    ]
    place = (1, run.post[stuck], OWN)
    blocked = StateChanges(keys, ["blocked"] * len(keys))
    run.log.add(ready[stuck], "state", labels, place, run.node[stuck], changes=blocked)


def _send_up(run: _Run, senders: np.ndarray, value: list[str], ready: np.ndarray) -> np.ndarray:
    """``senders`` send their partial results (``value``, as captions write them) to their parents, or drop them
    at a broken edge; the arrival times (inf: never)."""
    length, parents = run.routes.length[senders], run.parent[senders]
    child, parent = [run.keys[v] for v in senders.tolist()], [run.keys[p] for p in parents.tolist()]
    done = [f"done, sent={x}" for x in value]
    lost, routed = length < 0, length >= 0
    run.log.add(
        ready[senders[lost]],
        "drop",
        [
            f"{v} cannot reach {p}: every path crosses a broken link"
            for v, p in zip(_pick(lost, child), _pick(lost, parent), strict=True)
        ],
        (1, run.post[senders[lost]], OWN + 1),
        run.node[senders[lost]],
        run.node[parents[lost]],
        changes=StateChanges(_pick(lost, child), _pick(lost, done)),
    )
    sends = [f"{v} sends {x} to {p}" for v, x, p in zip(child, value, parent, strict=True)]
    place = (1, run.post[senders[routed]], OWN + 1)
    run.log.add(
        ready[senders[routed]],
        "state",
        _pick(routed, sends),
        place,
        run.node[senders[routed]],
        changes=StateChanges(_pick(routed, child), _pick(routed, done)),
    )
    arrive = np.full(len(senders), math.inf)
    what = [f"partial {x}" for x in _pick(routed, value)]
    stop = run.routes.stop[senders[routed]]
    made = np.where(stop >= 0, stop, length[routed])
    arrive[routed] = _hops(run, senders[routed], ready[senders[routed]], False, what, made)
    cut = stop >= 0
    _lost_on_the_way(run, senders[routed][cut], ready[senders[routed][cut]], stop[cut], _pick(cut, what))
    arrive[np.flatnonzero(routed)[cut]] = math.inf
    return arrive


def _lost_on_the_way(run: _Run, edges: np.ndarray, start: np.ndarray, stop: np.ndarray, what: list[str]) -> None:
    """The packets of ``edges`` reach the broken link of their hop ``stop`` and are lost there (drops)."""
    at = run.routes.start[edges] + stop
    near = np.where(stop == 0, run.node[edges], run.routes.node[np.maximum(at - 1, 0)])
    far, rows = run.routes.node[at], run.routes.row[at]
    names, keys, parents = run.topo.names, run.keys, run.parent[edges]
    labels = [
        f"{names[x]} → {names[y]}: {w} from {keys[a]} to {keys[b]} lost: link {run.topo.link_label(r)} is broken "
        f"(hop {h + 1} of {n}; routes as built on the intact fabric)"
        for x, y, w, a, b, r, h, n in zip(
            near.tolist(),
            far.tolist(),
            what,
            edges.tolist(),
            parents.tolist(),
            rows.tolist(),
            stop.tolist(),
            run.routes.length[edges].tolist(),
            strict=True,
        )
    ]
    link = run.topo.link_id[rows]
    place = (1, run.post[edges], OWN + 2 + stop)  # after the hops it made
    run.log.add(start + (stop + 1) * run.latency, "drop", labels, place, near, far, link)


def _down(run: _Run, result, start: float) -> float:
    """Broadcast phase from the root at ``start``, a level at a time; the time the last vertex has the result."""
    got = np.full(run.tree.size, start)
    for level in run.levels[1:]:
        got[level] = _hops(run, level, got[run.parent[level]], True, [f"result {result}"] * len(level)) + run.theta
        keys = [run.keys[v] for v in level.tolist()]
        states = [f"result={result}"] * len(keys)
        labels = [f"{key} has the result {result}" for key in keys]
        changes = StateChanges(keys, states)
        run.log.add(got[level], "state", labels, (3, run.bfs[level], OWN), run.node[level], changes=changes)
    return float(got.max())


def _finish(run: _Run, result, expected, ready: float, broken: list[dict], processes: np.ndarray) -> float | None:
    """After the reduce phase: the broadcast of the result (the time the last vertex has it), or, when the root
    is blocked, a closing note (None)."""
    if result is None:
        run.log.add(run.log.latest() + run.latency, "note", [_closing_note(run, broken, processes)], (4, 0, 0))
        return None
    key = run.keys[0]
    label = f"{key} has the result {result} (expected {expected}) and sends it down the tree"
    changes = StateChanges([key], [f"result={result}"])
    run.log.add(ready, "result", [label], (2, 0, 0), run.node[0], changes=changes)
    done = _down(run, result, ready)
    run.log.add(done, "note", [f"Every vertex has the result {result} at t = {done:g} μs"], (4, 0, 0))
    return done


# ---------------------------------------------------------------- figures
def _radius(run: _Run) -> int | None:
    """Most links from a leaf to the root, summing the edges' path lengths (None if an edge is broken)."""
    length = run.routes.length
    if (length < 0).any() or (run.routes.stop >= 0).any():
        return None
    dist = np.zeros(run.tree.size, dtype=np.int64)
    for level in run.levels[1:]:
        dist[level] = dist[run.parent[level]] + length[level]
    return int(dist[run.kids == 0].max())


def _broken(run: _Run) -> list[dict]:
    names, tree = run.topo.names, run.tree
    return [
        {
            "child": run.keys[v],
            "parent": run.keys[tree.parent[v]],
            "from": names[tree.node[v]],
            "to": names[tree.node[tree.parent[v]]],
        }
        for v in np.flatnonzero((run.routes.length < 0) | (run.routes.stop >= 0)).tolist()
    ]


def _closing_note(run: _Run, broken: list[dict], processes: np.ndarray) -> str:
    """What was lost: the edges over broken links, and how many processes' values never reach the root."""
    shown = ", ".join(f"{b['child']} → {b['parent']}" for b in broken[:3])
    more = f" and {len(broken) - 3:,} more" if len(broken) > 3 else ""
    crossing = f"{plural(len(broken), 'tree edge')} cross{'es' * (len(broken) == 1)}"
    cut = (run.routes.length < 0) | (run.routes.stop >= 0)
    for level in run.levels[1:]:  # a vertex below a cut edge is cut off too
        cut[level] |= cut[run.parent[level]]
    lost = int(processes[cut].sum())
    return (
        f"The aggregation cannot complete: {crossing} broken links ({shown}{more}); the values of "
        f"{plural(lost, 'process')} below {'it' if len(broken) == 1 else 'them'} never reach the root, "
        f"which never gets the result"
    )


# ---------------------------------------------------------------- the simulation
def simulate_aggregation(
    topo: Topology,
    tree: Tree,
    ranks: Sequence[Sequence[int]] | None = None,
    *,
    op: str = "sum",
    seed: int | None = None,
    timing: Timing = Timing(),
    routing: Routing | None = None,
    title: str = "",
) -> Timeline:
    """Simulate the reduction up ``tree`` and the broadcast of the result down it, as a timeline.

    Every tree edge sends one packet along its min-hop route over live links; a vertex spends ``timing.theta`` on
    each packet it receives and every link hop takes ``timing.latency``. A broken link on an edge's route blocks
    that edge.

    Parameters
    ----------
    topo : Topology
        The fabric; broken links are avoided (or the edge is flagged).
    tree : Tree
        Any tree with ``node[v]`` set (type I or type II).
    ranks : sequence of sequences of int, optional
        Processes hosted by each vertex (``[]`` = a pure aggregation point,
        e.g. a switch). Default: every leaf and every vertex on a non-switch
        node hosts one process, ranks numbered in vertex order. For a
        :class:`~vizcoll.trees.typetwo.TypeTwoTree` pass ``result.vertex_ranks()``.
    op : {"sum", "prod", "max", "min"}
        The reduction.
    seed : int, optional
        None: each process contributes its rank; else seeded integers 0..99.
    timing : Timing
        ``l`` per link hop and ``θ`` per packet received, in μs (default: 1 and 0.1).
    routing : Routing, optional
        The fabric the routes are computed on, when not ``topo`` (the intact fabric, ``topo`` without its breaks,
        whose routes a packet follows until a link broken in ``topo`` stops it), and the min-hop table of the
        fabric the routes follow (default: ``min_hops`` of it).
    title : str
        Title of the timeline (default from ``tree.kind``).

    Returns
    -------
    Timeline
        Its ``summary`` holds ``result`` (None when blocked), ``expected``,
        ``correct``, ``time`` (when the last vertex has the result; None when
        blocked), ``packets`` (aggregation packets sent up, one per tree edge
        that could be sent), ``bcast_packets``, ``max_link_packets`` (most
        upward packets over one link), ``height``, ``radius`` (most links
        leaf -> root; None with a broken edge), ``broken_edges``, ``op``,
        ``latency`` and ``theta``. Its events are columns
        (:class:`~vizcoll.sim.events.EventColumns`): a level of the tree at a
        time, every edge of a level at once, the events in the order an
        edge-by-edge simulation appends them (``tests/engine/trees/
        aggregation_reference.py``, the oracle it is checked against).

    Raises
    ------
    SpecError
        For a non-positive ``timing.latency``, a negative ``timing.theta``, an unknown ``op``, an empty tree or one
        not mapped on the topology (``node`` missing).
    TopologyError
        For a vertex on a node outside ``topo``.

    References
    ----------
    [AGGT24] Chen Shuping, Wei Hongmei, Wang Fei, Li Yi, He Wangquan, Qi Fengbin, "Method to Create Aggregate Tree
    for Hardware Supported Collectives", Journal of Computer Research and Development, 61(2): 503–517, 2024, DOI
    [10.7544/issn1000-1239.202220684](https://doi.org/10.7544/issn1000-1239.202220684). Eq. 2 (the timing this
    replays).

    Examples
    --------
    >>> from vizcoll.topology import from_spec
    >>> from vizcoll.trees.metrics import map_tree
    >>> from vizcoll.trees.typeone import knomial_tree
    >>> from vizcoll.comm import place
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> tl = simulate_aggregation(topo, map_tree(knomial_tree(8, 2), place(topo, 8)))
    >>> s = tl.summary
    >>> s["result"], s["correct"], s["packets"], s["height"]
    (28, True, 7, 3)
    """
    latency, theta = timing.latency, timing.theta
    routing = routing if routing is not None else Routing()
    _check_params(latency, theta, op)
    _check_tree(topo, tree)
    routed = topo if routing.fabric is None else routing.fabric
    table = routing.table if routing.table is not None else min_hops(routed)
    ranks, values = _ranks_and_values(topo, tree, ranks, seed)
    combine = OPS[op]
    own = [reduce(combine, (values[r] for r in rs)) if rs else None for rs in ranks]
    run = _Run(topo, tree, _keys(topo, tree), _routes(topo, routed, table, tree), op, float(latency), float(theta))
    expected = reduce(combine, values.values())
    partial, has, ready, blocked = _up(run, own)
    broken = _broken(run)
    result = None if blocked[0] else partial[0]
    processes = np.fromiter(map(len, ranks), dtype=np.int64, count=len(ranks))
    done = _finish(run, result, expected, float(ready[0]), broken, processes)
    done = None if done is None else round(done, _DIGITS)
    return _timeline(run, ranks, own, title, _summary(run, result, expected, done, blocked, broken))


def _summary(run: _Run, result, expected, done: float | None, blocked: np.ndarray, broken: list[dict]) -> dict:
    """The figures of the run (see :func:`simulate_aggregation`)."""
    tree, length, rows = run.tree, run.routes.length, run.routes.row
    return {
        "result": result,
        "expected": expected,
        "correct": result == expected,
        "time": done,
        "packets": int((~blocked[1:] & (length[1:] >= 0)).sum()),
        "bcast_packets": tree.size - 1 if result is not None else 0,
        "max_link_packets": int(np.bincount(rows).max()) if len(rows) else 0,
        "height": len(run.levels) - 1,
        "radius": _radius(run),
        "broken_edges": broken,
        "op": run.op,
        "latency": run.latency,
        "theta": run.theta,
    }


def _ranks_and_values(
    topo: Topology, tree: Tree, ranks: Sequence[Sequence[int]] | None, seed: int | None
) -> tuple[list[list[int]], dict[int, int]]:
    """The processes of every vertex (checked against the tree) and each process's value."""
    ranks = _default_ranks(topo, tree) if ranks is None else [list(map(int, rs)) for rs in ranks]
    if len(ranks) != tree.size:
        raise SpecError(f"ranks lists {len(ranks)} vertices, the tree has {tree.size}")
    values = _values(ranks, seed)
    if not values:
        raise SpecError("no vertex of the tree hosts a process")
    return ranks, values


def _routes(topo: Topology, routed: Topology, table: MinHopTable, tree: Tree) -> _Routes:
    """The unicast path of every tree edge on ``routed`` (``table``: its min-hop table), child to parent, all edges
    routed at once by :meth:`~vizcoll.trees.routing.Router.flat_routes`: the same paths as :func:`unicast_path` edge
    by edge, about a hundred times faster on 40,960 edges; each path's first link broken in ``topo``, if any."""
    node = np.asarray(tree.node, dtype=np.int64)
    src, dst = node[1:], node[np.asarray(tree.parent[1:], dtype=np.int64)]
    flat = Router(routed, table).flat_routes(src, dst)
    reached = _nodes_reached(topo, flat, src)
    stop = np.full(tree.size, -1, dtype=np.int64)
    if routed is not topo and topo.broken.any():
        hop = np.flatnonzero(topo.broken[flat.rows])
        first = np.full(tree.size - 1, np.iinfo(np.int64).max)
        np.minimum.at(first, flat.owner[hop], hop - flat.start[flat.owner[hop]])
        stop[1:] = np.where(first < np.iinfo(np.int64).max, first, -1)
    return _Routes(np.r_[0, flat.length], np.r_[0, flat.start], reached, flat.rows, stop)


def _nodes_reached(topo: Topology, flat: FlatRoutes, src: np.ndarray) -> np.ndarray:
    """The node each hop of ``flat`` reaches: the end of its link away from the node before (``src`` first)."""
    a, b = topo.link_a[flat.rows].astype(np.int64), topo.link_b[flat.rows].astype(np.int64)
    position = np.arange(len(flat.rows)) - flat.start[flat.owner]
    reached = np.empty(len(flat.rows), dtype=np.int64)
    for hop in range(int(position.max(initial=-1)) + 1):
        at = np.flatnonzero(position == hop)
        before = src[flat.owner[at]] if hop == 0 else reached[at - 1]
        reached[at] = np.where(a[at] == before, b[at], a[at])
    return reached


def _timeline(run: _Run, ranks: list[list[int]], own: list, title: str, summary: dict) -> Timeline:
    tree = run.tree
    initial = {run.keys[v]: ("waiting" if tree.children[v] else f"value={own[v]}") for v in range(tree.size)}
    for v in range(tree.size):
        if tree.children[v] and own[v] is not None:
            initial[run.keys[v]] = f"value={own[v]}"
    leaves = int((run.kids == 0).sum())
    sends = "sends its value" if leaves == 1 else "send their values"
    run.log.add(0.0, "note", [f"The {plural(leaves, 'leaf')} {sends} up"], (0, 0, 0))
    kind = tree.kind or "aggregation tree"
    procs, edges = sum(map(len, ranks)), tree.size - 1
    each = "The one process" if procs == 1 else f"Each of the {procs:,} processes"
    return Timeline(
        title=title or f"Aggregation ({summary['op']}) along a {kind}",
        intro=(
            f"{each} contributes a value; the {plural(edges, 'tree edge')} carr{'ies' if edges == 1 else 'y'} "
            f"partial results up to {run.keys[0]} (latency l = {run.latency:g} μs per link, θ = {run.theta:g} μs "
            "per packet), then the result comes back down the same tree."
        ),
        initial_state=initial,
        events=run.log.columns(),  # ordered as an edge-by-edge run appends them, then by rounded time
        entities={run.keys[v]: {"node": int(tree.node[v]), "vertex": v} for v in range(tree.size)},
        legend=dict(LEGEND),
        summary=summary,
    )
