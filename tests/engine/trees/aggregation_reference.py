"""The aggregation simulation as it was before it was vectorised (an object per event, edge by edge): the oracle
the vectorised :func:`vizcoll.trees.aggregation.simulate_aggregation` is checked against, event for event."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import reduce

import numpy as np

from vizcoll.sim.timeline import Event, Timeline, sort_events
from vizcoll.topology.hops import MinHopTable, min_hops
from vizcoll.topology.model import Topology
from vizcoll.trees.aggregation import (
    LEGEND,
    OPS,
    _check_params,
    _check_tree,
    _keys,
    _ranks_and_values,
    unicast_path,
)
from vizcoll.trees.tree import Tree
from vizcoll.words import plural

__all__ = ["simulate_aggregation"]

Hop = tuple[int, int]  # (node reached, link row)
_DIGITS = 9  # event times are rounded to this many decimals


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
    cut_at_breaks: bool = False  # routes as built on the intact fabric: a packet stops at a link broken in topo

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
            if self.cut_at_breaks and not down and self.topo.broken[row]:
                label = (
                    f"{names[nodes[i]]} → {names[nodes[i + 1]]}: {what} from {self.name(src)} to {self.name(dst)} "
                    f"lost: link {self.topo.link_label(row)} is broken (hop {i + 1} of {len(links)}; routes as built "
                    "on the intact fabric)"
                )
                self.events.append(
                    Event(start + (i + 1) * self.latency, "drop", nodes[i], nodes[i + 1], [int(ids[row])], label)
                )
                return math.inf
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
                    label=f"{run.name(v)} is blocked: {plural(len(kids) - len(got), 'child')} can never reach it",
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
        if run.paths[v] is None or (run.cut_at_breaks and any(run.topo.broken[row] for _, row in run.paths[v]))
    ]


def _subtree(tree: Tree, v: int) -> list[int]:
    out = [v]
    for u in out:
        out.extend(tree.children[u])
    return out


def _closing_note(run: _Run, broken: list[dict], t: float, ranks: list[list[int]]) -> Event:
    shown = ", ".join(f"{b['child']} → {b['parent']}" for b in broken[:3])
    more = f" and {len(broken) - 3:,} more" if len(broken) > 3 else ""
    crossing = f"{plural(len(broken), 'tree edge')} cross{'es' * (len(broken) == 1)}"
    cut = {run.keys.index(b["child"]) for b in broken}
    lost = {u for v in cut for u in _subtree(run.tree, v)}
    processes = sum(len(ranks[u]) for u in lost)
    return Event(
        t,
        "note",
        label=(
            f"The aggregation cannot complete: {crossing} broken links ({shown}{more}); the values of "
            f"{plural(processes, 'process')} below {'it' if len(broken) == 1 else 'them'} never reach the root, "
            "which never gets the result"
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
    routes_on: Topology | None = None,
    title: str = "",
) -> Timeline:
    """:func:`vizcoll.trees.aggregation.simulate_aggregation`, edge by edge, an :class:`Event` per event."""
    _check_params(latency, theta, op)
    _check_tree(topo, tree)
    table = table if table is not None else min_hops(topo if routes_on is None else routes_on)
    ranks, values = _ranks_and_values(topo, tree, ranks, seed)
    combine = OPS[op]
    own = [reduce(combine, (values[r] for r in rs)) if rs else None for rs in ranks]
    paths = _edge_paths(topo, table, tree)
    run = _Run(topo, tree, _keys(topo, tree), paths, combine, float(latency), float(theta))
    run.cut_at_breaks = routes_on is not None
    expected = reduce(combine, values.values())
    partial, ready, blocked = _up(run, own)
    broken = _broken(run)
    result = None if blocked[0] else partial[0]
    done = _finish(run, result, expected, ready[0], broken, ranks)
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
        "radius": None if broken else _radius(tree, paths),
        "broken_edges": broken,
        "op": op,
        "latency": run.latency,
        "theta": run.theta,
    }


def _edge_paths(topo: Topology, table: MinHopTable, tree: Tree) -> list[list[Hop] | None]:
    """The unicast path of every tree edge, child to parent, one edge at a time (the root's entry is empty)."""
    return [[]] + [unicast_path(table, tree.node[v], tree.node[tree.parent[v]]) for v in range(1, tree.size)]


def _finish(run: _Run, result, expected, ready: float, broken: list[dict], ranks: list[list[int]]) -> float | None:
    """After the reduce phase: the broadcast of the result (the time the last vertex has it), or, when the root
    is blocked, a closing note (None)."""
    if result is None:
        last = max((e.t for e in run.events), default=0.0)
        run.events.append(_closing_note(run, broken, last + run.latency, ranks))
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
