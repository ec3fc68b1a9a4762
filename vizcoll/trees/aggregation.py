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
  simulation ends with a note instead of waiting forever.

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
>>> tl = simulate_aggregation(topo, tree, latency=1.0, theta=0.5)
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
from vizcoll.sim.timeline import Event, Timeline, sort_events
from vizcoll.topology.hops import MinHopTable, min_hops
from vizcoll.topology.model import SWITCH, Topology
from vizcoll.trees.routing import FlatRoutes, Router
from vizcoll.trees.tree import Tree
from vizcoll.words import plural

__all__ = ["OPS", "simulate_aggregation", "unicast_path"]

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
class _Run:
    """Everything the two phases share."""

    topo: Topology
    tree: Tree
    keys: list[str]
    paths: list[list[Hop] | None]
    combine: Callable
    latency: float
    theta: float
    events: list[Event] = field(default_factory=list)

    def name(self, v: int) -> str:
        return self.keys[v]

    def travel(self, v: int, start: float, down: bool, what: str) -> float:
        """Emit the hop events of edge ``v``-parent (reversed when ``down``); return the arrival time."""
        path = self.paths[v]
        src, dst = (self.tree.parent[v], v) if down else (v, self.tree.parent[v])
        nodes = [self.tree.node[v]] + [n for n, _ in path]
        links = [row for _, row in path]
        if down:
            nodes, links = nodes[::-1], links[::-1]
        if not links:
            self.events.append(
                Event(
                    start,
                    "arrive",
                    nodes[0],
                    nodes[0],
                    label=f"{self.name(src)} hands {what} to {self.name(dst)} on the same node",
                )
            )
            return start
        names, ids = self.topo.names, self.topo.link_id
        for i, row in enumerate(links):
            label = (
                f"{names[nodes[i]]} → {names[nodes[i + 1]]}: {what} from {self.name(src)} "
                f"to {self.name(dst)} (hop {i + 1} of {len(links)})"
            )
            self.events.append(
                Event(start + (i + 1) * self.latency, "send", nodes[i], nodes[i + 1], [int(ids[row])], label)
            )
        return start + len(links) * self.latency


# ---------------------------------------------------------------- phases
def _post_order(tree: Tree) -> list[int]:
    order = [0]
    for v in order:
        order.extend(tree.children[v])
    return order[::-1]


def _up(run: _Run, own: list) -> tuple[list, list[float], list[bool]]:
    """Reduce phase: per vertex its partial result, the time it is ready and whether it is blocked."""
    tree = run.tree
    partial, ready = list(own), [0.0] * tree.size
    blocked = [False] * tree.size
    arrive = [math.inf] * tree.size
    for v in _post_order(tree):
        kids = tree.children[v]
        got = sorted((k for k in kids if not math.isinf(arrive[k])), key=lambda k: arrive[k])
        t = 0.0
        for count, k in enumerate(got, start=1):
            t = max(t, arrive[k]) + run.theta
            if partial[k] is not None:  # a leaf hosting no process sends nothing to combine
                partial[v] = partial[k] if partial[v] is None else run.combine(partial[v], partial[k])
            run.events.append(
                Event(
                    t,
                    "state",
                    tree.node[v],
                    label=(
                        f"{run.name(v)} combines the packet of {run.name(k)}: "
                        f"partial={partial[v]} ({count} of {len(kids)})"
                    ),
                    state_changes={run.name(v): f"partial={partial[v]} ({count}/{len(kids)})"},
                )
            )
        ready[v] = t
        blocked[v] = len(got) < len(kids)
        if blocked[v]:
            run.events.append(
                Event(
                    t,
                    "state",
                    tree.node[v],
                    label=f"{run.name(v)} is blocked: {len(kids) - len(got)} child(ren) can never reach it",
                    state_changes={run.name(v): "blocked"},
                )
            )
        if v and not blocked[v]:
            arrive[v] = _send_up(run, v, partial[v], t)
    return partial, ready, blocked


def _send_up(run: _Run, v: int, value, t: float) -> float:
    """Send ``v``'s partial result to its parent (or drop it at a broken edge); the arrival time."""
    parent_key = run.name(run.tree.parent[v])
    if run.paths[v] is None:
        run.events.append(
            Event(
                t,
                "drop",
                run.tree.node[v],
                run.tree.node[run.tree.parent[v]],
                label=(f"{run.name(v)} cannot reach {parent_key}: every path crosses a broken link"),
                state_changes={run.name(v): f"done, sent={value}"},
            )
        )
        return math.inf
    run.events.append(
        Event(
            t,
            "state",
            run.tree.node[v],
            label=f"{run.name(v)} sends {value} to {parent_key}",
            state_changes={run.name(v): f"done, sent={value}"},
        )
    )
    return run.travel(v, t, down=False, what=f"partial {value}")


def _down(run: _Run, result, start: float) -> float:
    """Broadcast phase from the root at ``start``; returns the time the last vertex has the result."""
    tree, got, last = run.tree, {0: start}, start
    order = [0]
    for u in order:
        for c in tree.children[u]:
            t = run.travel(c, got[u], down=True, what=f"result {result}") + run.theta
            got[c] = t
            last = max(last, t)
            run.events.append(
                Event(
                    t,
                    "state",
                    tree.node[c],
                    label=f"{run.name(c)} has the result {result}",
                    state_changes={run.name(c): f"result={result}"},
                )
            )
            order.append(c)
    return last


# ---------------------------------------------------------------- figures
def _radius(tree: Tree, paths: list[list[Hop] | None]) -> int | None:
    """Most links from a leaf to the root, summing the edges' path lengths (None if an edge is broken)."""
    if any(p is None for p in paths[1:]):
        return None
    dist = [0] * tree.size
    order = [0]
    for u in order:
        for c in tree.children[u]:
            dist[c] = dist[u] + len(paths[c])
            order.append(c)
    return max(dist[v] for v in range(tree.size) if not tree.children[v])


def _max_link_packets(paths: list[list[Hop] | None]) -> int:
    rows = [row for p in paths[1:] if p for _, row in p]
    return int(np.bincount(rows).max()) if rows else 0


def _broken(run: _Run) -> list[dict]:
    names, tree = run.topo.names, run.tree
    return [
        {
            "child": run.name(v),
            "parent": run.name(tree.parent[v]),
            "from": names[tree.node[v]],
            "to": names[tree.node[tree.parent[v]]],
        }
        for v in range(1, tree.size)
        if run.paths[v] is None
    ]


def _closing_note(run: _Run, broken: list[dict], t: float) -> Event:
    shown = ", ".join(f"{b['child']} → {b['parent']}" for b in broken[:3])
    more = f" and {len(broken) - 3:,} more" if len(broken) > 3 else ""
    crossing = f"{plural(len(broken), 'tree edge')} cross{'es' * (len(broken) == 1)}"
    return Event(
        t,
        "note",
        label=(
            f"The aggregation cannot complete: {crossing} broken links ({shown}{more}); the root never gets every value"
        ),
    )


# ---------------------------------------------------------------- the simulation
def simulate_aggregation(
    topo: Topology,
    tree: Tree,
    ranks: Sequence[Sequence[int]] | None = None,
    *,
    op: str = "sum",
    seed: int | None = None,
    latency: float = 1.0,
    theta: float = 0.1,
    table: MinHopTable | None = None,
    title: str = "",
) -> Timeline:
    """Simulate the reduction up ``tree`` and the broadcast of the result down it.

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
    latency : float
        ``l``, time per link hop in μs (> 0).
    theta : float
        ``θ``, time in μs a vertex spends on each packet it receives (>= 0).
    table : MinHopTable, optional
        ``min_hops(topo)`` if already built.
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
        ``latency`` and ``theta``.
    """
    _check_params(latency, theta, op)
    _check_tree(topo, tree)
    table = table if table is not None else min_hops(topo)
    ranks, values = _ranks_and_values(topo, tree, ranks, seed)
    combine = OPS[op]
    own = [reduce(combine, (values[r] for r in rs)) if rs else None for rs in ranks]
    paths = _edge_paths(topo, table, tree)
    run = _Run(topo, tree, _keys(topo, tree), paths, combine, float(latency), float(theta))
    expected = reduce(combine, values.values())
    partial, ready, blocked = _up(run, own)
    broken = _broken(run)
    result = None if blocked[0] else partial[0]
    done = _finish(run, result, expected, ready[0], broken)
    _tidy(run.events)
    done = None if done is None else round(done, _DIGITS)
    return _timeline(run, ranks, own, title, _summary(run, result, expected, done, blocked, broken, op))


def _summary(run: _Run, result, expected, done: float | None, blocked: list[bool], broken: list[dict], op: str) -> dict:
    """The figures of the run (see :func:`simulate_aggregation`)."""
    tree, paths = run.tree, run.paths
    return {
        "result": result,
        "expected": expected,
        "correct": result == expected,
        "time": done,
        "packets": sum(1 for v in range(1, tree.size) if not blocked[v] and paths[v] is not None),
        "bcast_packets": tree.size - 1 if result is not None else 0,
        "max_link_packets": _max_link_packets(paths),
        "height": tree.height,
        "radius": _radius(tree, paths),
        "broken_edges": broken,
        "op": op,
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


def _edge_paths(topo: Topology, table: MinHopTable, tree: Tree) -> list[list[Hop] | None]:
    """The unicast path of every tree edge, child to parent (the root's entry is empty), all edges routed at once
    by :meth:`~vizcoll.trees.routing.Router.flat_routes`: the same paths as :func:`unicast_path` edge by edge,
    about a hundred times faster on 40,960 edges."""
    node = np.asarray(tree.node, dtype=np.int64)
    src, dst = node[1:], node[np.asarray(tree.parent[1:], dtype=np.int64)]
    flat = Router(topo, table).flat_routes(src, dst)
    reached = _nodes_reached(topo, flat, src)
    paths: list[list[Hop] | None] = [[]]
    for length, start in zip(flat.length.tolist(), flat.start.tolist(), strict=True):
        end = start + max(length, 0)
        paths.append(None if length < 0 else list(zip(reached[start:end], flat.rows[start:end].tolist(), strict=True)))
    return paths


def _nodes_reached(topo: Topology, flat: FlatRoutes, src: np.ndarray) -> list[int]:
    """The node each hop of ``flat`` reaches: the end of its link away from the node before (``src`` first)."""
    a, b = topo.link_a[flat.rows].astype(np.int64), topo.link_b[flat.rows].astype(np.int64)
    position = np.arange(len(flat.rows)) - flat.start[flat.owner]
    reached = np.empty(len(flat.rows), dtype=np.int64)
    for hop in range(int(position.max(initial=-1)) + 1):
        at = np.flatnonzero(position == hop)
        before = src[flat.owner[at]] if hop == 0 else reached[at - 1]
        reached[at] = np.where(a[at] == before, b[at], a[at])
    return reached.tolist()


def _finish(run: _Run, result, expected, ready: float, broken: list[dict]) -> float | None:
    """After the reduce phase: the broadcast of the result (the time the last vertex has it), or, when the root
    is blocked, a closing note (None)."""
    if result is None:
        last = max((e.t for e in run.events), default=0.0)
        run.events.append(_closing_note(run, broken, last + run.latency))
        return None
    run.events.append(
        Event(
            ready,
            "result",
            run.tree.node[0],
            label=(f"{run.name(0)} has the result {result} (expected {expected}) and sends it down the tree"),
            state_changes={run.name(0): f"result={result}"},
        )
    )
    done = _down(run, result, ready)
    run.events.append(Event(done, "note", label=f"Every vertex has the result {result} at t = {done:g} μs"))
    return done


def _tidy(events: list[Event]) -> None:
    """Round times (sums of latencies and thetas) so that equal times are equal floats: one step each."""
    for event in events:
        event.t = round(event.t, _DIGITS)


def _timeline(run: _Run, ranks: list[list[int]], own: list, title: str, summary: dict) -> Timeline:
    tree = run.tree
    initial = {run.name(v): ("waiting" if tree.children[v] else f"value={own[v]}") for v in range(tree.size)}
    for v in range(tree.size):
        if tree.children[v] and own[v] is not None:
            initial[run.name(v)] = f"value={own[v]}"
    leaves = sum(1 for k in tree.children if not k)
    sends = "sends its value" if leaves == 1 else "send their values"
    start = Event(0.0, "note", label=f"The {plural(leaves, 'leaf')} {sends} up")
    kind = tree.kind or "aggregation tree"
    procs, edges = sum(map(len, ranks)), tree.size - 1
    each = "The one process" if procs == 1 else f"Each of the {procs:,} processes"
    return Timeline(
        title=title or f"Aggregation ({summary['op']}) along a {kind}",
        intro=(
            f"{each} contributes a value; the {plural(edges, 'tree edge')} carr{'ies' if edges == 1 else 'y'} "
            f"partial results up to {run.name(0)} (latency l = {run.latency:g} μs per link, θ = {run.theta:g} μs "
            "per packet), then the result comes back down the same tree."
        ),
        initial_state=initial,
        events=sort_events([start, *run.events]),  # times were rounded by _tidy
        entities={run.name(v): {"node": int(tree.node[v]), "vertex": v} for v in range(tree.size)},
        legend=dict(LEGEND),
        summary=summary,
    )
