"""The HPC join / leave protocol for multicast groups (section 3.2 of the FULB-MC paper) as a Timeline.

In InfiniBand every ``SubnAdmSet(MCMemberRecord)`` join changes the group and
makes the subnet manager (SM) recompute its multicast routes, so the group is
often temporarily unusable. The paper's protocol for HPC computes the routes
**once per group**:

1. every process sends ``SubnAdmSet(MCMemberRecord)`` carrying a new field
   ``MemberCount`` (the number of members of the group);
2. the first request makes the SM create the group (state
   ``ReceivingJoinReq``); routes are computed only once all ``MemberCount``
   requests have arrived (``ComputingRoutes``, then ``Ready``);
3. process 0, once it has sent its own request, periodically polls
   ``SubnAdmGet(MCGStateRecord)`` (a new attribute); the SM answers
   ``SubnAdmGetResp(MCGStateRecord)`` with the group state;
4. when the answer says ``Ready``, process 0 multicasts "ready" to the other
   members; each of them may use the group as soon as it has the notification.

Leaving does not recompute routes: the first leave request moves the group to
``ReceivingLeaveReq`` and when every member has left it goes to
``Destroying``. Timeouts: joins not complete within ``join_timeout`` of the
group's creation (a process crashed, a request was lost) take
``ReceivingJoinReq`` to ``Destroying``; leaves not complete within
``leave_timeout`` of the first leave take ``ReceivingLeaveReq`` to
``Destroying``.

**States of the group** (state key ``"group"``): the paper's five,
``ReceivingJoinReq → ComputingRoutes → Ready → ReceivingLeaveReq →
Destroying``, plus two of this simulation: ``"Absent"`` before the first join
request reaches the SM (the group does not exist yet) and the terminal
``"Deleted"`` once the SM has torn the group down (``latency`` after entering
``Destroying``). :func:`next_state` is the transition table.

**States of a process** (state keys ``"p0"``, ``"p1"``, ...): ``idle`` →
``joining`` (request sent) → ``joined`` (counted by the SM) → ``ready`` (has
the notification) → ``leaving`` → ``left``; or ``lost`` (its join request was
lost), ``crashed``, ``failed`` (process 0 learnt from the SM that the group
is being destroyed, or gave up polling a group that was never created).

Choices the paper leaves open (documented, deterministic):

- Messages take ``latency``; the SM answers a poll at once with the state the
  group has when the query arrives. Polls happen every ``poll_interval`` from
  process 0's join request on (a tick is skipped while a reply is still on its
  way); process 0 stops polling when it sees ``Ready``, ``Destroying`` or
  ``Deleted``, and gives up (``failed``) if no group exists ``join_timeout``
  after its own request.
- Leaving is ``SubnAdmDelete(MCMemberRecord)`` as in the IB specification (the
  paper does not name the message). ``leave_times[i]`` is how long member ``i``
  uses the group after it got "ready" before it sends its leave request.
- A crashed process sends nothing more; messages to it are dropped. Join or
  leave requests that reach the SM after a timeout are ignored (the group is
  being or has been destroyed). If process 0 crashes after joining, nobody
  multicasts "ready" and the group stays ``Ready`` (the paper defines no
  timeout in that state).
- The "ready" multicast is shown as one ``send`` per receiving member.

Examples
--------
>>> tl = simulate_group([4, 5, 6], sm_node=0, seed=1)
>>> tl.summary["final_state"], tl.summary["route_computations"], tl.summary["timed_out"]
('Deleted', 1, False)
>>> next_state("ReceivingJoinReq", "joins_complete", {"member_count": 3, "joins": 3})
'ComputingRoutes'
"""

from __future__ import annotations

import heapq
import math
import numbers
from collections.abc import Iterable, Mapping

import numpy as np

from vizcoll.errors import SpecError, VizcollError
from vizcoll.sim.timeline import MAX_EVENTS, Event, Timeline

__all__ = [
    "ABSENT",
    "RECEIVING_JOIN",
    "COMPUTING_ROUTES",
    "READY",
    "RECEIVING_LEAVE",
    "DESTROYING",
    "DELETED",
    "GROUP_STATES",
    "GROUP_EVENTS",
    "PROCESS_STATES",
    "TRANSITIONS",
    "LEGEND",
    "MAX_MEMBERS",
    "next_state",
    "simulate_group",
]

ABSENT = "Absent"
RECEIVING_JOIN = "ReceivingJoinReq"
COMPUTING_ROUTES = "ComputingRoutes"
READY = "Ready"
RECEIVING_LEAVE = "ReceivingLeaveReq"
DESTROYING = "Destroying"
DELETED = "Deleted"

GROUP_STATES = (ABSENT, RECEIVING_JOIN, COMPUTING_ROUTES, READY, RECEIVING_LEAVE, DESTROYING, DELETED)
#: what can happen to a group at the SM
GROUP_EVENTS = ("join", "joins_complete", "join_timeout", "routes_done", "leave", "leaves_complete",
                "leave_timeout", "destroyed")
PROCESS_STATES = ("idle", "joining", "joined", "lost", "ready", "leaving", "left", "crashed", "failed")

#: (state, event) -> next state; every other pair is invalid
TRANSITIONS: dict[tuple[str, str], str] = {
    (ABSENT, "join"): RECEIVING_JOIN,
    (RECEIVING_JOIN, "join"): RECEIVING_JOIN,
    (RECEIVING_JOIN, "joins_complete"): COMPUTING_ROUTES,
    (RECEIVING_JOIN, "join_timeout"): DESTROYING,
    (COMPUTING_ROUTES, "routes_done"): READY,
    (READY, "leave"): RECEIVING_LEAVE,
    (RECEIVING_LEAVE, "leave"): RECEIVING_LEAVE,
    (RECEIVING_LEAVE, "leaves_complete"): DESTROYING,
    (RECEIVING_LEAVE, "leave_timeout"): DESTROYING,
    (DESTROYING, "destroyed"): DELETED,
}

LEGEND = {
    ABSENT: "the SM has no such group yet: no join request has arrived",
    RECEIVING_JOIN: "the SM has created the group and counts join requests until MemberCount have arrived",
    COMPUTING_ROUTES: "all MemberCount join requests are in: the SM computes the multicast routes (once)",
    READY: "routes are computed: the group can carry multicast data",
    RECEIVING_LEAVE: "members are leaving; routes are not recomputed",
    DESTROYING: "the SM is destroying the group (everyone left, or a timeout)",
    DELETED: "the group no longer exists",
    "idle": "has not sent its join request yet",
    "joining": "has sent SubnAdmSet(MCMemberRecord); the SM has not counted it yet",
    "joined": "the SM has counted its join request; waits for 'ready'",
    "lost": "its join request was lost on the way: the SM never counts it",
    "ready": "knows the group is ready and uses it",
    "leaving": "has sent its leave request",
    "left": "has left the group",
    "crashed": "has crashed: sends and receives nothing any more",
    "failed": "learnt that the group could not be built",
}

MAX_MEMBERS = 200_000
MAX_POLLS = 100_000

# order of simultaneous actions: crashes, SM completions, messages and sends, timeouts
_PRIORITY = {"crash": 0, "routes_done": 1, "destroyed": 1, "join_timeout": 3, "leave_timeout": 3}


# ---------------------------------------------------------------- transition table
def _count(counts: Mapping, key: str, default: int | None = 0) -> int:
    value = counts.get(key, default)
    if value is None:
        raise VizcollError(f"counts must give {key!r}")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise VizcollError(f"counts[{key!r}] must be an integer >= 0, got {value!r}")
    return int(value)


def _guard(state: str, event: str, mc: int, joins: int, leaves: int) -> str | None:
    """Why ``event`` cannot happen with these counts (None if it can)."""
    if event == "join":
        if state == ABSENT:
            return None if joins == 1 else f"the first join request creates the group, so joins must be 1, not {joins}"
        if not 2 <= joins <= mc:
            return f"join request number {joins} does not fit MemberCount={mc}"
    elif event == "joins_complete" and joins != mc:
        return (f"routes are computed only once all MemberCount={mc} join requests have arrived "
                f"({joins} so far)")
    elif event == "join_timeout" and joins >= mc:
        return f"all MemberCount={mc} join requests have arrived, so the joins cannot time out"
    elif event == "leave":
        if state == READY:
            return None if leaves == 1 else f"the first leave request must make leaves 1, not {leaves}"
        if not 2 <= leaves <= mc:
            return f"leave request number {leaves} does not fit MemberCount={mc}"
    elif event == "leaves_complete" and leaves != mc:
        return f"the group is destroyed only once all {mc} members have left ({leaves} so far)"
    elif event == "leave_timeout" and leaves >= mc:
        return f"all {mc} members have left, so the leaves cannot time out"
    return None


def next_state(state: str, event: str, counts: Mapping) -> str:
    """The group state after ``event`` happens to a group in ``state`` (the paper's Fig. 4).

    Parameters
    ----------
    state : one of :data:`GROUP_STATES`.
    event : one of :data:`GROUP_EVENTS`: ``"join"`` / ``"leave"`` (the SM
        receives a request), ``"joins_complete"`` (all MemberCount joins are
        in: start computing routes), ``"routes_done"``, ``"leaves_complete"``,
        ``"join_timeout"``, ``"leave_timeout"``, ``"destroyed"``.
    counts : mapping with ``"member_count"`` (required, >= 1), ``"joins"`` and
        ``"leaves"`` (default 0): requests the SM has received, *including*
        the one of this event.

    Raises
    ------
    VizcollError
        for an unknown state or event, a transition the protocol does not
        allow, or counts that contradict the event (e.g. computing routes
        before MemberCount joins have arrived).

    Examples
    --------
    >>> next_state("Absent", "join", {"member_count": 4, "joins": 1})
    'ReceivingJoinReq'
    >>> next_state("ReceivingJoinReq", "joins_complete", {"member_count": 4, "joins": 3})
    Traceback (most recent call last):
    ...
    vizcoll.errors.VizcollError: invalid transition ReceivingJoinReq --joins_complete-->: routes are computed only \
once all MemberCount=4 join requests have arrived (3 so far)
    """
    if state not in GROUP_STATES:
        raise VizcollError(f"unknown group state {state!r}; expected one of {', '.join(GROUP_STATES)}")
    if event not in GROUP_EVENTS:
        raise VizcollError(f"unknown group event {event!r}; expected one of {', '.join(GROUP_EVENTS)}")
    if not isinstance(counts, Mapping):
        raise VizcollError(f"counts must be a mapping with 'member_count', 'joins', 'leaves', got {counts!r}")
    mc = _count(counts, "member_count", None)
    if mc < 1:
        raise VizcollError("counts['member_count'] must be at least 1")
    joins, leaves = _count(counts, "joins"), _count(counts, "leaves")
    target = TRANSITIONS.get((state, event))
    if target is None:
        allowed = [e for (s, e) in TRANSITIONS if s == state]
        hint = f"allowed in {state}: {', '.join(allowed)}" if allowed else f"{state} is final"
        raise VizcollError(f"invalid transition: event {event!r} cannot happen in group state {state!r} ({hint})")
    why = _guard(state, event, mc, joins, leaves)
    if why:
        raise VizcollError(f"invalid transition {state} --{event}-->: {why}")
    return target


# ---------------------------------------------------------------- input checks
def _number(name: str, value, *, positive: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or (
        value <= 0 if positive else value < 0
    ):
        raise SpecError(f"{name} must be a {'positive' if positive else 'non-negative'} number, got {value!r}")
    return float(value)


def _index(name: str, value, low: int, high: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low or (
        high is not None and value >= high
    ):
        span = f"{low}..{high - 1}" if high is not None else f">= {low}"
        raise SpecError(f"{name} must be an integer in {span}, got {value!r}")
    return int(value)


def _times(name: str, values, n: int) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise SpecError(f"{name} must be a list of {n} numbers") from None
    if arr.shape != (n,):
        raise SpecError(f"{name} must hold one time per member ({n}), got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise SpecError(f"{name}[{i}] must be a finite number >= 0, got {arr[i]!r}")
    return arr


def _positions(name: str, values, n: int) -> set[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise SpecError(f"{name} must be a list of member positions, got {values!r}")
    return {_index(f"{name} entry", v, 0, n) for v in values}


# ---------------------------------------------------------------- simulation
def simulate_group(
    members: list[int] | np.ndarray,
    sm_node: int = -1,
    *,
    join_times=None,
    leave_times=None,
    lost_joins: Iterable[int] = (),
    crashed: Iterable[int] | Mapping[int, float] = (),
    route_time: float = 1.0,
    poll_interval: float = 0.5,
    join_timeout: float = 10.0,
    leave_timeout: float = 10.0,
    latency: float = 0.1,
    seed: int = 0,
    names: list[str] | None = None,
) -> Timeline:
    """Simulate one multicast group's life at the SM, from the first join to its deletion.

    Parameters
    ----------
    members : node index of each member process, process 0 first (several
        processes may share a node). ``MemberCount = len(members)``.
    sm_node : node index of the subnet manager, or -1 (not on the topology).
    join_times : when each member sends its join request (absolute times);
        default seeded random arrivals in ``[0, 1)`` (two decimals).
    leave_times : how long each member uses the group after it got "ready"
        before it sends its leave request; default seeded random in ``[1, 2)``.
    lost_joins : member positions whose join request is lost on the way.
    crashed : member positions that crash at time 0 (never join, never leave),
        or a mapping ``position -> crash time`` (a crash after joining makes the
        leave phase time out).
    route_time : how long the SM computes the routes.
    poll_interval : period of process 0's ``SubnAdmGet(MCGStateRecord)`` polls.
    join_timeout, leave_timeout : see the module docstring.
    latency : one-way time of every message; also the SM's tear-down time.
    seed : seeds the default join/leave times (``numpy.random.default_rng``).
    names : topology node names indexed by node (e.g. ``topo.names``), only
        used to make the labels say where the processes run.

    Returns
    -------
    Timeline
        state keys ``"group"`` and ``"p<i>"``; ``entities`` map ``p<i>`` to
        ``{"node": members[i]}`` and ``"group"`` to ``{"node": sm_node}``;
        ``summary`` has ``final_state``, ``ready_at`` (group Ready at the SM),
        ``all_ready_at`` (last live member has "ready"), ``destroying_at``,
        ``destroyed_at`` (Deleted), ``joins_received``, ``leaves_received``,
        ``member_count``, ``timed_out``, ``timeout`` (``"join"``/``"leave"``/None),
        ``route_computations``, ``polls`` and ``messages`` (``send`` events).
    """
    # ---- checks
    if isinstance(members, (str, bytes)) or not isinstance(members, (Iterable, np.ndarray)):
        raise SpecError(f"members must be a list of node indices, got {members!r}")
    nodes = [_index("member node", v, 0, None) for v in (members.tolist() if isinstance(members, np.ndarray)
                                                          else list(members))]
    n = len(nodes)
    if not 1 <= n <= MAX_MEMBERS:
        raise SpecError(f"a group needs 1..{MAX_MEMBERS:,} members, got {n:,}")
    sm = _index("sm_node", sm_node, -1, None)
    if names is not None:
        names = list(names)
        if any(not isinstance(x, str) for x in names):
            raise SpecError("names must be a list of node names (strings)")
        top = max([*nodes, sm])
        if top >= len(names):
            raise SpecError(f"node {top} has no name: names holds only {len(names)} entries")
    route_time = _number("route_time", route_time, positive=False)
    poll_interval = _number("poll_interval", poll_interval, positive=True)
    join_timeout = _number("join_timeout", join_timeout, positive=True)
    leave_timeout = _number("leave_timeout", leave_timeout, positive=True)
    latency = _number("latency", latency, positive=False)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise SpecError(f"seed must be an integer >= 0, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    default_join = np.round(rng.uniform(0.0, 1.0, n), 2)
    default_leave = np.round(rng.uniform(1.0, 2.0, n), 2)
    join_t = default_join if join_times is None else _times("join_times", join_times, n)
    use_t = default_leave if leave_times is None else _times("leave_times", leave_times, n)
    lost = _positions("lost_joins", lost_joins, n)
    if isinstance(crashed, Mapping):
        crash_at = {_index("crashed position", k, 0, n): _number(f"crash time of p{k}", v, positive=False)
                    for k, v in crashed.items()}
    else:
        crash_at = dict.fromkeys(sorted(_positions("crashed", crashed, n)), 0.0)
    horizon = float(join_t.max()) + max(route_time, join_timeout) + 4 * latency + poll_interval
    if horizon / poll_interval > MAX_POLLS:
        raise SpecError(f"poll_interval={poll_interval:g} is too small: process 0 could poll up to "
                        f"{horizon / poll_interval:,.0f} times (limit {MAX_POLLS:,})")

    def who(i: int) -> str:
        return f"p{i} ({names[nodes[i]]})" if names is not None else f"p{i}"

    sm_name = f"SM ({names[sm]})" if names is not None and sm >= 0 else "SM"

    # ---- simulation state
    events: list[Event] = []
    heap: list[tuple] = []
    seq = 0

    def at(t: float, action: str, *args) -> None:
        nonlocal seq
        heapq.heappush(heap, (round(t, 9), _PRIORITY.get(action, 2), seq, action, args))
        seq += 1

    def emit(t: float, kind: str, label: str, src: int = -1, dst: int = -1, **changes) -> None:
        if len(events) >= MAX_EVENTS:
            raise SpecError(f"the simulation exceeds {MAX_EVENTS:,} events")
        events.append(Event(t, kind, src=src, dst=dst, label=label, state_changes=changes))

    group = ABSENT
    pstate = ["idle"] * n
    dead = [False] * n
    joins = leaves = 0
    counts = {"member_count": n, "joins": 0, "leaves": 0}
    info = {"ready_at": None, "all_ready_at": None, "destroying_at": None, "destroyed_at": None,
            "timeout": None, "route_computations": 0, "polls": 0}
    p0 = {"sent_at": None, "done": False, "waiting": False}
    notified = 0  # "ready" notifications handled (received or dropped)

    def move(event: str) -> str:
        nonlocal group
        counts.update(joins=joins, leaves=leaves)
        group = next_state(group, event, counts)
        return group

    def set_p(i: int, value: str) -> dict:
        if dead[i]:
            return {}
        pstate[i] = value
        return {f"p{i}": value}

    def destroy(t: float, why: str, note: str) -> None:
        info["destroying_at"] = t
        emit(t, "note", note)
        emit(t, "state", why, group=group)
        at(t + latency, "destroyed")

    for i, c in crash_at.items():
        at(c, "crash", i)
    for i in range(n):
        at(float(join_t[i]), "send_join", i)

    while heap:
        t, _, _, action, args = heapq.heappop(heap)
        if action == "crash":
            (i,) = args
            emit(t, "note", f"{who(i)} crashes: it will send and receive nothing any more", **set_p(i, "crashed"))
            dead[i] = True
        elif action == "send_join":
            (i,) = args
            if dead[i]:
                continue
            emit(t, "send", f"{who(i)} → {sm_name}: SubnAdmSet(MCMemberRecord), MemberCount={n}",
                 nodes[i], sm, **set_p(i, "joining"))
            at(t + latency, "join_lost" if i in lost else "join_arrives", i)
            if i == 0:
                p0["sent_at"] = t
                at(t + poll_interval, "poll")
        elif action == "join_lost":
            (i,) = args
            emit(t, "drop", f"{who(i)}'s join request is lost: the SM never sees it", nodes[i], sm,
                 **set_p(i, "lost"))
        elif action == "join_arrives":
            (i,) = args
            if group not in (ABSENT, RECEIVING_JOIN):
                emit(t, "deliver", f"{sm_name} ignores {who(i)}'s late join request: the group is {group}",
                     nodes[i], sm)
                continue
            joins += 1
            first = group == ABSENT
            move("join")
            if first:
                emit(t, "note", f"The first join request ({who(i)}, MemberCount={n}) creates the group: "
                                f"{RECEIVING_JOIN}; no routes are computed yet")
                emit(t, "state", f"{sm_name} creates the group: 1 of {n} join requests", nodes[i], sm,
                     group=group, **set_p(i, "joined"))
                at(t + join_timeout, "join_timeout")
            else:
                emit(t, "deliver", f"{sm_name} counts {who(i)}'s join request: {joins} of MemberCount={n}",
                     nodes[i], sm, **set_p(i, "joined"))
            if joins == n:
                move("joins_complete")
                info["route_computations"] += 1
                emit(t, "note", f"All MemberCount={n} join requests are in: the SM computes the multicast "
                                f"routes, once for the whole group")
                emit(t, "state", f"{sm_name} starts computing the routes", group=group)
                at(t + route_time, "routes_done")
        elif action == "routes_done":
            move("routes_done")
            info["ready_at"] = t
            emit(t, "state", f"{sm_name} has computed the routes: the group is {READY}", group=group)
        elif action == "join_timeout":
            if group != RECEIVING_JOIN:
                continue
            move("join_timeout")
            info["timeout"] = "join"
            destroy(t, f"Join timeout: {sm_name} destroys the group",
                    f"Only {joins} of MemberCount={n} join requests arrived within join_timeout={join_timeout:g} "
                    f"(a process crashed or a request was lost): {RECEIVING_JOIN} → {DESTROYING}")
        elif action == "destroyed":
            move("destroyed")
            info["destroyed_at"] = t
            emit(t, "note", f"{sm_name} has torn the group down: it no longer exists")
            emit(t, "state", f"{sm_name} deletes the group", group=group)
        elif action == "poll":
            if dead[0] or p0["done"]:
                continue
            at(t + poll_interval, "poll")
            if p0["waiting"]:
                continue
            p0["waiting"] = True
            info["polls"] += 1
            emit(t, "send", f"{who(0)} → {sm_name}: SubnAdmGet(MCGStateRecord) (poll {info['polls']})", nodes[0], sm)
            at(t + latency, "poll_arrives")
        elif action == "poll_arrives":
            what = "no such group yet" if group == ABSENT else f"state={group}"
            emit(t, "send", f"{sm_name} → {who(0)}: SubnAdmGetResp(MCGStateRecord), {what}", sm, nodes[0])
            at(t + latency, "poll_reply", group)
        elif action == "poll_reply":
            (seen,) = args
            p0["waiting"] = False
            if dead[0]:
                emit(t, "drop", f"{who(0)} has crashed: nobody reads the SM's reply", sm, nodes[0])
                continue
            if seen == READY:
                p0["done"] = True
                notified_all = n == 1
                emit(t, "note", f"{who(0)} sees {READY} and multicasts 'ready' to the other {n - 1} members"
                     if n > 1 else f"{who(0)} sees {READY}: the group is built")
                emit(t, "deliver", f"{who(0)} learns the group is {READY}", sm, nodes[0], **set_p(0, "ready"))
                at(t + float(use_t[0]), "send_leave", 0)
                for j in range(1, n):
                    emit(t, "send", f"{who(0)} → {who(j)}: multicast 'ready'", nodes[0], nodes[j])
                    at(t + latency, "ready_arrives", j)
                if notified_all:
                    info["all_ready_at"] = t
            elif seen in (DESTROYING, DELETED):
                p0["done"] = True
                emit(t, "deliver", f"{who(0)} learns the group is {seen}: building it failed", sm, nodes[0],
                     **set_p(0, "failed"))
            elif seen == ABSENT and t - p0["sent_at"] >= join_timeout:
                p0["done"] = True
                emit(t, "deliver", f"{who(0)} gives up: still no group join_timeout={join_timeout:g} after its "
                                   f"request", sm, nodes[0], **set_p(0, "failed"))
            else:
                emit(t, "deliver", f"{who(0)} reads {seen}: not ready yet, it polls again", sm, nodes[0])
        elif action == "ready_arrives":
            (j,) = args
            notified += 1
            if dead[j]:
                emit(t, "drop", f"{who(j)} has crashed: the 'ready' notification is lost", nodes[0], nodes[j])
            else:
                emit(t, "deliver", f"{who(j)} receives 'ready' and may use the group", nodes[0], nodes[j],
                     **set_p(j, "ready"))
                at(t + float(use_t[j]), "send_leave", j)
            if notified == n - 1:
                info["all_ready_at"] = t
                live = sum(not d for d in dead)
                emit(t, "note", f"The group is built: {live} of {n} members have 'ready' and use it")
        elif action == "send_leave":
            (i,) = args
            if dead[i]:
                continue
            emit(t, "send", f"{who(i)} → {sm_name}: SubnAdmDelete(MCMemberRecord) (leave)", nodes[i], sm,
                 **set_p(i, "leaving"))
            at(t + latency, "leave_arrives", i)
        elif action == "leave_arrives":
            (i,) = args
            if group not in (READY, RECEIVING_LEAVE):
                emit(t, "deliver", f"{sm_name} ignores {who(i)}'s late leave request: the group is {group}",
                     nodes[i], sm, **set_p(i, "left"))
                continue
            leaves += 1
            first = group == READY
            move("leave")
            if first:
                emit(t, "note", f"The first leave request ({who(i)}): {RECEIVING_LEAVE}; "
                                f"routes are not recomputed")
                emit(t, "state", f"{sm_name} receives the first leave request: 1 of {n}", nodes[i], sm,
                     group=group, **set_p(i, "left"))
                at(t + leave_timeout, "leave_timeout")
            else:
                emit(t, "deliver", f"{sm_name} counts {who(i)}'s leave request: {leaves} of {n}; routes unchanged",
                     nodes[i], sm, **set_p(i, "left"))
            if leaves == n:
                move("leaves_complete")
                destroy(t, f"All members have left: {sm_name} destroys the group",
                        f"All {n} members have left: {RECEIVING_LEAVE} → {DESTROYING}")
        elif action == "leave_timeout":
            if group != RECEIVING_LEAVE:
                continue
            move("leave_timeout")
            info["timeout"] = "leave"
            destroy(t, f"Leave timeout: {sm_name} destroys the group",
                    f"Only {leaves} of {n} leave requests arrived within leave_timeout={leave_timeout:g} "
                    f"(a process crashed or a request was lost): {RECEIVING_LEAVE} → {DESTROYING}")
        else:  # pragma: no cover - every action is handled above
            raise AssertionError(action)

    initial = {"group": ABSENT, **{f"p{i}": "idle" for i in range(n)}}
    entities = {f"p{i}": {"node": nodes[i]} for i in range(n)}
    entities["group"] = {"node": sm}
    where = f" on {sm_name}" if sm >= 0 else ""
    summary = {
        "final_state": group,
        "ready_at": info["ready_at"],
        "all_ready_at": info["all_ready_at"],
        "destroying_at": info["destroying_at"],
        "destroyed_at": info["destroyed_at"],
        "joins_received": joins,
        "leaves_received": leaves,
        "member_count": n,
        "timed_out": info["timeout"] is not None,
        "timeout": info["timeout"],
        "route_computations": info["route_computations"],
        "polls": info["polls"],
        "messages": sum(e.kind == "send" for e in events),
        "lost_joins": sorted(lost),
        "crashed": sorted(crash_at),
    }
    return Timeline(
        title=f"Multicast group join/leave: {n} member{'s' * (n != 1)}",
        intro=(f"{n} processes join one multicast group managed by the SM{where}. Each sends "
               f"SubnAdmSet(MCMemberRecord) with MemberCount={n}; the SM computes the routes only once all "
               f"{n} requests are in. Process 0 polls SubnAdmGet(MCGStateRecord) every {poll_interval:g} and "
               f"multicasts 'ready' when the group is Ready. Leaving does not recompute routes."),
        initial_state=initial,
        events=events,
        entities=entities,
        legend=dict(LEGEND),
        summary=summary,
    )
