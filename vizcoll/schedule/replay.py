"""A LogGP run of a schedule as a timeline on a fabric: every message drawn along its min-hop route.

:func:`loggp_timeline` turns the trace of :func:`vizcoll.schedule.loggp.simulate`
(``trace=True``) into a :class:`~vizcoll.sim.timeline.Timeline` the player
animates. Rank ``r`` runs on the topology node ``rank_nodes[r]`` (e.g. the
scenario's placement of its processes). The times are LogGP's, unchanged:

- one ``"send"`` event per message at the time its send starts (the trace's
  ``start``), from the sender's node to the receiver's, with ``path_links`` =
  the stable ids of the links of the min-hop route between the two nodes over
  live links (:class:`vizcoll.trees.metrics.Router`: every switch forwards
  through its lowest-numbered port with the fewest hops, OpenSM's choice; no
  links when both ranks share a node, none either when no live route exists,
  which the label says);
- one ``"deliver"`` event per message at the time the receiver handles it
  (its CPU and NIC take it: LogGOPSim's receive overhead starts then);
- one ``"state"`` event per rank at its finishing time (its CPU is last free);
- a ``"note"`` summing up each time with more than :data:`SHOWN` events
  ("4 messages leave (rank 0 → rank 2, …), 2 messages are handled"), the caption of its step.
  Captions start with the step's time ("t = 1,200 ns: ..."): LogGOPSim's time unit is nominally the nanosecond.

Entities are ``r<rank>`` (``{"node": node, "rank": rank}``); their states are
``waiting`` (nothing sent or handled yet), ``busy`` (sending or receiving)
and ``done`` (finished). Messages between the same two ranks are handled in
the order they were sent (LogGOPSim's queues are FIFO), which pairs each send
with its handling. The trace also lists a receive posted after its message
was handled (``start == end``); a handling takes at least as long as the
message's send did, so the two cannot be confused unless the send took no
time (``o = 0``): then a zero-length entry counts as a handling while a sent
message waits for one.

References: [LOGGP95]; [LOGGOPSIM10] (keys: ``docs/papers.md``).

>>> from vizcoll.schedule.collectives import barrier
>>> from vizcoll.schedule.loggp import LogGP, simulate
>>> from vizcoll.topology.generators import from_spec
>>> from vizcoll.topology.hops import min_hops
>>> topo = from_spec("fat-tree:radix=4,levels=2")  # leaf0..3, spine0..1, h0..h7
>>> s = barrier("dissemination", 4)
>>> result = simulate(s, LogGP(L=1000, o=100, g=0, G=0, O=0), trace=True)
>>> nodes = [topo.index(f"h{i}") for i in range(4)]
>>> tl = loggp_timeline(s, result, nodes, topo, min_hops(topo))
>>> [e.t for e in tl.events if e.kind == "send"][:4], tl.summary["makespan"]
([0.0, 0.0, 0.0, 0.0], 2400)
>>> first = next(e for e in tl.events if e.kind == "send")
>>> first.label, len(first.path_links)
('t = 0: rank 0 sends 1 B to rank 1 (h0 → h1, 2 links), handled at 1,100', 2)
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence

from vizcoll.errors import SpecError
from vizcoll.schedule.loggp import LogGPResult
from vizcoll.schedule.model import Schedule
from vizcoll.sim.timeline import Event, Timeline
from vizcoll.topology.hops import MinHopTable
from vizcoll.topology.model import Topology
from vizcoll.trees.metrics import Router
from vizcoll.words import plural

__all__ = ["LEGEND", "SHOWN", "loggp_timeline", "messages"]

SHOWN = 2
"""A step with more events than this gets a note counting them (the player shows a few labels per step)."""

LEGEND = {
    "waiting": "has not sent or handled a message yet",
    "busy": "is sending or receiving",
    "done": "has finished: its CPU is free for good (LogGOPSim's finishing time)",
}


def messages(result: LogGPResult, num_ranks: int) -> list[dict]:
    """Every message of a traced run, in the order they were sent: ``{"src", "dst", "size", "sent", "handled"}``
    (``handled`` is None for a message nobody handled, e.g. to a rank that does not exist)."""
    sent: list[dict] = []
    waiting: dict[tuple[int, int], deque[dict]] = defaultdict(deque)
    for entry in result.trace:
        if entry["kind"] == "send":
            message = {
                "src": entry["rank"],
                "dst": entry["peer"],
                "size": entry["size"],
                "sent": entry["start"],
                "handled": None,
                "_cost": entry["end"] - entry["start"],
            }
            sent.append(message)
            if 0 <= message["dst"] < num_ranks:
                waiting[message["dst"], message["src"]].append(message)
    _pair_handlings(result.trace, waiting)
    for message in sent:
        message.pop("_cost", None)
    return sent


def _pair_handlings(trace: list[dict], waiting: dict[tuple[int, int], deque[dict]]) -> None:
    """Give each message its handling time: the receiver's trace entries from that sender, in FIFO order.

    A handling costs the receiver's CPU ``o + max((n-1)·O, (n-1)·G)``, at least what the send cost the sender's
    (``o + (n-1)·O``); an entry of no length after a send that took time is therefore a receive posted late."""
    entries: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for entry in trace:
        if entry["kind"] == "recv":
            entries[entry["rank"], entry["peer"]].append(entry)
    for pair, found in entries.items():
        queue = waiting.get(pair, deque())
        exact = len(found) == len(queue)  # no receive posted late: every entry is a handling
        for entry in found:
            if not queue:
                continue
            takes_time = entry["end"] > entry["start"]
            if exact or takes_time or (queue[0]["_cost"] == 0 and queue[0]["sent"] <= entry["start"]):
                queue.popleft()["handled"] = entry["start"]


def loggp_timeline(
    schedule: Schedule, result: LogGPResult, rank_nodes: Sequence[int], topo: Topology, table: MinHopTable
) -> Timeline:
    """The traced LogGP run ``result`` of ``schedule`` as a timeline on ``topo``, every message on its min-hop route.

    One ``"send"`` event per message when its send starts (its ``path_links`` the min-hop route between the two
    nodes over live links), one ``"deliver"`` when the receiver handles it, one ``"state"`` per rank when it
    finishes, and a ``"note"`` summing up busy times; the times are LogGP's, unchanged (see the module docstring).

    Parameters
    ----------
    schedule : Schedule
        The schedule that ran.
    result : LogGPResult
        Its run, simulated with ``trace=True``.
    rank_nodes : sequence of int
        Rank ``r`` runs on topology node ``rank_nodes[r]`` (e.g. the scenario's placement).
    topo : Topology
        The fabric.
    table : MinHopTable
        ``min_hops(topo)``.

    Returns
    -------
    Timeline
        Entities ``r<rank>`` (states ``waiting``, ``busy``, ``done``); ``time_unit`` ns.

    Raises
    ------
    SpecError
        When a rank has no node, a node is not in the topology, or the run has no trace.

    References
    ----------
    [LOGGOPSIM10] Torsten Hoefler, Timo Schneider, Andrew Lumsdaine, "LogGOPSim — Simulating Large-Scale
    Applications in the LogGOPS Model", HPDC 2010, pp. 597–604, DOI
    [10.1145/1851476.1851564](https://doi.org/10.1145/1851476.1851564).

    [OPENSM] OpenSM, the InfiniBand subnet manager (https://github.com/linux-rdma/opensm,
    ``doc/current-routing.txt``; software, no DOI). Min-hop routes.

    Examples
    --------
    >>> from vizcoll.schedule.collectives import barrier
    >>> from vizcoll.schedule.loggp import simulate
    >>> from vizcoll.topology.generators import from_spec
    >>> from vizcoll.topology.hops import min_hops
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> s = barrier("ms", 4)
    >>> tl = loggp_timeline(s, simulate(s, trace=True), [6, 7, 8, 9], topo, min_hops(topo))
    >>> sum(e.kind == "send" for e in tl.events), tl.time_unit
    (6, 'ns')
    """
    P = schedule.num_ranks
    nodes = [int(n) for n in rank_nodes[:P]]
    if len(nodes) < P:
        raise SpecError(f"the schedule has {P:,} ranks but only {len(rank_nodes):,} processes are placed")
    if any(not 0 <= n < topo.n_nodes for n in nodes):
        raise SpecError("a rank is placed on a node that is not in the topology")
    if schedule.messages() and not result.trace:
        raise SpecError("the LogGP result has no trace: simulate(schedule, params, trace=True)")
    router, names = Router(topo, table), topo.names
    events: list[Event] = []
    steps: dict[int, dict] = defaultdict(lambda: {"sends": [], "handled": 0, "finished": 0})
    unrouted = 0
    sent = [m for m in messages(result, P) if 0 <= m["dst"] < P]
    routes = router.routes([nodes[m["src"]] for m in sent], [nodes[m["dst"]] for m in sent])
    for m, route in zip(sent, routes, strict=True):
        a, b = nodes[m["src"]], nodes[m["dst"]]
        unrouted += route is None
        links = [int(topo.link_id[row]) for row in route or []]
        where = "same node" if a == b else (plural(len(links), "link") if route is not None else "no live route")
        handled = f", handled at {m['handled']:,}" if m["handled"] is not None else ", never handled"
        events.append(
            Event(
                m["sent"],
                "send",
                a,
                b,
                links,
                f"t = {m['sent']:,}: rank {m['src']} sends {m['size']:,} B to rank {m['dst']} "
                f"({names[a]} → {names[b]}, {where}){handled}",
                {f"r{m['src']}": "busy"},
            )
        )
        steps[m["sent"]]["sends"].append((m["src"], m["dst"]))
        if m["handled"] is not None:
            events.append(
                Event(
                    m["handled"],
                    "deliver",
                    a,
                    b,
                    [],
                    f"t = {m['handled']:,}: rank {m['dst']} handles the message of rank {m['src']} "
                    f"(sent at {m['sent']:,})",
                    {f"r{m['dst']}": "busy"},
                )
            )
            steps[m["handled"]]["handled"] += 1
    for r, t in enumerate(result.finish):
        events.append(Event(t, "state", nodes[r], -1, [], f"t = {t:,}: rank {r} finishes", {f"r{r}": "done"}))
        steps[t]["finished"] += 1
    events += [
        Event(t, "note", label=_summary(step))
        for t, step in steps.items()
        if len(step["sends"]) + step["handled"] + step["finished"] > SHOWN
    ]
    events.sort(key=lambda e: (e.t, e.kind != "note"))
    return Timeline(
        title=schedule.name or f"LogGP run of {plural(P, 'rank')}",
        intro=(
            f"{plural(P, 'rank')}, {plural(schedule.messages(), 'message')}. Each message is drawn on the "
            f"min-hop route between its ranks' nodes when LogGP starts its send; "
            f"makespan {result.makespan:,} at rank {result.host}."
        ),
        initial_state={f"r{r}": "waiting" for r in range(P)},
        events=events,
        entities={f"r{r}": {"node": node, "rank": r} for r, node in enumerate(nodes)},
        legend=dict(LEGEND),
        summary={
            "makespan": result.makespan,
            "host": result.host,
            "ranks": P,
            "messages": schedule.messages(),
            "unrouted": unrouted,
        },
        time_unit="ns",
    )


def _summary(step: dict) -> str:
    """The caption of a busy step: "4 messages leave (rank 0 → rank 1, …), 2 are handled"."""
    parts = []
    if step["sends"]:
        pairs = [f"rank {a} → rank {b}" for a, b in step["sends"][:3]]
        more = ", …" if len(step["sends"]) > 3 else ""
        parts.append(
            f"{plural(len(step['sends']), 'message')} leave{'s' * (len(step['sends']) == 1)} ({', '.join(pairs)}{more})"
        )
    if step["handled"]:
        parts.append(f"{plural(step['handled'], 'message')} {'is' if step['handled'] == 1 else 'are'} handled")
    if step["finished"]:
        parts.append(f"{plural(step['finished'], 'rank')} finish{'es' * (step['finished'] == 1)}")
    return ", ".join(parts)
