"""The multicast group's state machine at the SM (the FULB-MC paper's Fig. 4, section 3.2).

The protocol itself (requests, polls, the "ready" multicast, timeouts) is
simulated by :func:`vizcoll.multicast.groups.simulate_group`; this module is
the part both the simulation and its readers share: the states, the events,
:data:`TRANSITIONS` and :func:`next_state`, which checks every transition
against the SM's request counts.

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

References: [FULB22, §3.2, Fig. 4] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

from vizcoll.errors import VizcollError

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
    "next_state",
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
GROUP_EVENTS = (
    "join",
    "joins_complete",
    "join_timeout",
    "routes_done",
    "leave",
    "leaves_complete",
    "leave_timeout",
    "destroyed",
)
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
        return f"routes are computed only once all MemberCount={mc} join requests have arrived ({joins} so far)"
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
