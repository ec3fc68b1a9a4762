"""The HPC join / leave protocol for multicast groups ([FULB22, §3.2], keys: ``docs/papers.md``) as a Timeline.

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

**States** of the group (state key ``"group"``) and of every process (keys
``"p0"``, ``"p1"``, ...), the transition table and :func:`next_state`: see
:mod:`vizcoll.multicast.group_states`.

Choices the paper leaves open (documented, deterministic):

- Times are in milliseconds (the timeline's ``time_unit``): the paper gives
  none. The defaults (0.1 ms a message, 1 ms to compute a group's routes, a
  poll every 0.5 ms, timeouts of 10 ms) keep the order of events readable.
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
>>> tl = simulate_group(GroupRun([4, 5, 6], sm_node=0, seed=1))
>>> tl.summary["final_state"], tl.summary["route_computations"], tl.summary["timed_out"]
('Deleted', 1, False)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, dataclass

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.multicast.group_states import (
    ABSENT,
    COMPUTING_ROUTES,
    DELETED,
    DESTROYING,
    GROUP_EVENTS,
    GROUP_STATES,
    LEGEND,
    PROCESS_STATES,
    READY,
    RECEIVING_JOIN,
    RECEIVING_LEAVE,
    TRANSITIONS,
    next_state,
)
from vizcoll.sim.engine import Engine
from vizcoll.sim.timeline import MAX_EVENTS, Event, Timeline
from vizcoll.words import plural

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
    "GroupRun",
    "next_state",
    "simulate_group",
]

MAX_MEMBERS = 200_000
MAX_POLLS = 100_000
MESSAGES = ("send", "join", "leave")  # event kinds that are a message sent (join and leave requests: key moments)

#: order of simultaneous actions (the event core's priority): crashes, SM completions, messages and
#: sends (2, the default), timeouts
_PRIORITY = {"crash": 0, "routes_done": 1, "destroyed": 1, "join_timeout": 3, "leave_timeout": 3}


# ---------------------------------------------------------------- input checks
def _number(name: str, value, *, positive: bool) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
        or (value <= 0 if positive else value < 0)
    ):
        raise SpecError(f"{name} must be a {'positive' if positive else 'non-negative'} number, got {value!r}")
    return float(value)


def _index(name: str, value, low: int, high: int | None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or value < low
        or (high is not None and value >= high)
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


# ---------------------------------------------------------------- what a caller asks for
@dataclass(frozen=True)
class GroupRun:
    """One multicast group to simulate: its members, the SM, when they join and leave, the faults, the times.

    Nothing is checked when the object is made: :func:`simulate_group` checks every field and raises
    :class:`~vizcoll.errors.SpecError` for a bad one. Times are in milliseconds; the fields after ``sm_node`` are
    keyword-only.

    Parameters
    ----------
    members : list of int or numpy.ndarray
        Node index of each member process, process 0 first (several processes may share a node).
        ``MemberCount = len(members)``.
    sm_node : int
        Node index of the subnet manager, or -1 (not on the topology).
    join_times : sequence of float, optional
        When each member sends its join request (absolute times); default seeded random arrivals in ``[0, 1)``
        (two decimals).
    leave_times : sequence of float, optional
        How long each member uses the group after it got "ready" before it sends its leave request; default
        seeded random in ``[1, 2)``.
    lost_joins : iterable of int
        Member positions whose join request is lost on the way.
    crashed : iterable of int or mapping of int to float
        Member positions that crash at time 0 (never join, never leave), or a mapping ``position -> crash time``
        (a crash after joining makes the leave phase time out).
    route_time : float
        How long the SM computes the routes.
    poll_interval : float
        Period of process 0's ``SubnAdmGet(MCGStateRecord)`` polls.
    join_timeout : float
        Time from the group's creation within which every join must arrive, else ``ReceivingJoinReq`` goes to
        ``Destroying``.
    leave_timeout : float
        Time from the first leave within which every leave must arrive, else ``ReceivingLeaveReq`` goes to
        ``Destroying``.
    latency : float
        One-way time of every message; also the SM's tear-down time.
    seed : int
        Seeds the default join/leave times (``numpy.random.default_rng``).
    names : list of str, optional
        Topology node names indexed by node (e.g. ``topo.names``), only used to make the labels say where the
        processes run.

    Examples
    --------
    >>> GroupRun([4, 5, 6], sm_node=0, crashed=[2]).join_timeout
    10.0
    """

    members: list[int] | np.ndarray
    sm_node: int = -1
    _: KW_ONLY
    join_times: Iterable[float] | None = None
    leave_times: Iterable[float] | None = None
    lost_joins: Iterable[int] = ()
    crashed: Iterable[int] | Mapping[int, float] = ()
    route_time: float = 1.0
    poll_interval: float = 0.5
    join_timeout: float = 10.0
    leave_timeout: float = 10.0
    latency: float = 0.1
    seed: int = 0
    names: list[str] | None = None


@dataclass(frozen=True)
class _Plan:
    """A :class:`GroupRun` checked (:func:`_checked`): what :class:`_Group` runs."""

    nodes: list[int]
    sm: int
    names: list[str] | None
    join_t: np.ndarray
    use_t: np.ndarray
    lost: set[int]
    crash_at: dict[int, float]
    route_time: float
    poll_interval: float
    join_timeout: float
    leave_timeout: float
    latency: float


# ---------------------------------------------------------------- simulation
def simulate_group(group: GroupRun) -> Timeline:
    """Simulate one multicast group's life at the SM, from the first join to its deletion.

    The paper's join / leave protocol for HPC computes the routes once per group: every join request carries
    ``MemberCount``, the SM computes the routes once all have arrived, process 0 polls the group state and
    multicasts "ready"; leaving does not recompute routes, and timeouts take a group that never completes to
    ``Destroying`` (see the module docstring for the steps and the choices the paper leaves open). Times are in
    milliseconds.

    Parameters
    ----------
    group : GroupRun
        The members (node of each process, process 0 first), the SM's node, the join and leave times, the lost
        joins and crashes, the protocol's times (routes, polls, timeouts, latency), the seed of the default times
        and the node names.

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

    Raises
    ------
    SpecError
        For members that are not node indices (or more than :data:`MAX_MEMBERS`), negative or non-finite times,
        timeouts or a poll interval that are not positive, positions outside the group, a negative seed, names
        that do not cover the nodes, or a poll interval so small that process 0 would poll too often.

    References
    ----------
    [FULB22] Chen Shuping, Zhou Huilin, He Wangquan, Qi Fengbin, "Load-Balanced Multicast Routing for Large-Scale
    Infiniband Network", Computer Engineering and Applications, 58(5): 138–147, 2022, DOI
    [10.3778/j.issn.1002-8331.2009-0276](https://doi.org/10.3778/j.issn.1002-8331.2009-0276). Section 3.2, Fig. 4
    (the group states).

    Examples
    --------
    >>> tl = simulate_group(GroupRun([4, 5, 6], sm_node=0, seed=1, crashed=[2]))
    >>> tl.summary["final_state"], tl.summary["timed_out"], tl.summary["timeout"]
    ('Deleted', True, 'join')
    """
    life = _Group(_checked(group))
    life.run()
    return life.timeline()


def _checked(group: GroupRun) -> _Plan:
    """The fields of ``group``, checked, as the :class:`_Plan` of :class:`_Group`."""
    members, names, seed, crashed = group.members, group.names, group.seed, group.crashed
    if isinstance(members, (str, bytes)) or not isinstance(members, (Iterable, np.ndarray)):
        raise SpecError(f"members must be a list of node indices, got {members!r}")
    nodes = [
        _index("member node", v, 0, None)
        for v in (members.tolist() if isinstance(members, np.ndarray) else list(members))
    ]
    n = len(nodes)
    if not 1 <= n <= MAX_MEMBERS:
        raise SpecError(f"a group needs 1..{MAX_MEMBERS:,} members, got {n:,}")
    sm = _index("sm_node", group.sm_node, -1, None)
    if names is not None:
        names = list(names)
        if any(not isinstance(x, str) for x in names):
            raise SpecError("names must be a list of node names (strings)")
        top = max([*nodes, sm])
        if top >= len(names):
            raise SpecError(f"node {top} has no name: names holds only {len(names)} entries")
    times = {
        key: _number(key, value, positive=positive)
        for key, value, positive in (
            ("route_time", group.route_time, False),
            ("poll_interval", group.poll_interval, True),
            ("join_timeout", group.join_timeout, True),
            ("leave_timeout", group.leave_timeout, True),
            ("latency", group.latency, False),
        )
    }
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise SpecError(f"seed must be an integer >= 0, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    default_join = np.round(rng.uniform(0.0, 1.0, n), 2)
    default_leave = np.round(rng.uniform(1.0, 2.0, n), 2)
    join_t = default_join if group.join_times is None else _times("join_times", group.join_times, n)
    use_t = default_leave if group.leave_times is None else _times("leave_times", group.leave_times, n)
    lost = _positions("lost_joins", group.lost_joins, n)
    if isinstance(crashed, Mapping):
        crash_at = {
            _index("crashed position", k, 0, n): _number(f"crash time of p{k}", v, positive=False)
            for k, v in crashed.items()
        }
    else:
        crash_at = dict.fromkeys(sorted(_positions("crashed", crashed, n)), 0.0)
    poll = times["poll_interval"]
    horizon = float(join_t.max()) + max(times["route_time"], times["join_timeout"]) + 4 * times["latency"] + poll
    if horizon / poll > MAX_POLLS:
        raise SpecError(
            f"poll_interval={poll:g} ms is too small: process 0 could poll up to "
            f"{horizon / poll:,.0f} times (limit {MAX_POLLS:,})"
        )
    return _Plan(nodes=nodes, sm=sm, names=names, join_t=join_t, use_t=use_t, lost=lost, crash_at=crash_at, **times)


class _Group:
    """One group's life: the SM's state and counts, every process's state, the recorded events.

    Every action is an event of the core (:class:`~vizcoll.sim.engine.Engine`) at a time rounded to 9
    decimals, ordered by :data:`_PRIORITY` among equal times, then FIFO; :data:`_HANDLERS` runs it.
    """

    def __init__(self, plan: _Plan) -> None:
        nodes, sm, names = plan.nodes, plan.sm, plan.names
        self.nodes, self.sm, self.names, self.n = nodes, sm, names, len(nodes)
        self.join_t, self.use_t, self.lost, self.crash_at = plan.join_t, plan.use_t, plan.lost, plan.crash_at
        self.route_time, self.poll_interval, self.latency = plan.route_time, plan.poll_interval, plan.latency
        self.join_timeout, self.leave_timeout = plan.join_timeout, plan.leave_timeout
        self.sm_host = names[sm] if names is not None and sm >= 0 else ""
        self.sm_name = f"SM ({self.sm_host})" if self.sm_host else "SM"
        self.engine = Engine()
        self.events: list[Event] = []
        self.group = ABSENT
        self.dead = [False] * self.n
        self.joins = self.leaves = 0
        self.counts = {"member_count": self.n, "joins": 0, "leaves": 0}
        self.info = {
            "ready_at": None,
            "all_ready_at": None,
            "destroying_at": None,
            "destroyed_at": None,
            "timeout": None,
            "route_computations": 0,
            "polls": 0,
        }
        self.p0 = {"sent_at": None, "done": False, "waiting": False}
        self.notified = 0  # "ready" notifications handled (received or dropped)

    # ------------------------------------------------------------ helpers of the handlers
    @property
    def now(self) -> float:
        return self.engine.now

    def who(self, i: int) -> str:
        return f"p{i} ({self.names[self.nodes[i]]})" if self.names is not None else f"p{i}"

    def after(self, delay: float, action: str, *args) -> None:
        """Schedule ``action`` ``delay`` from now, at a time rounded to 9 decimals."""
        self.engine.at(round(self.now + delay, 9), _HANDLERS[action], self, *args, priority=_PRIORITY.get(action, 2))

    def emit(self, kind: str, label: str, src: int = -1, dst: int = -1, **changes) -> None:
        if len(self.events) >= MAX_EVENTS:
            raise SpecError(f"the simulation exceeds {MAX_EVENTS:,} events")
        self.events.append(Event(self.now, kind, src=src, dst=dst, label=label, state_changes=changes))

    def move(self, event: str) -> str:
        self.counts.update(joins=self.joins, leaves=self.leaves)
        self.group = next_state(self.group, event, self.counts)
        return self.group

    def set_p(self, i: int, value: str) -> dict:
        return {} if self.dead[i] else {f"p{i}": value}

    def destroy(self, why: str, note: str) -> None:
        self.info["destroying_at"] = self.now
        self.emit("note", note)
        self.emit("state", why, group=self.group)
        self.after(self.latency, "destroyed")

    # ------------------------------------------------------------ run and output
    def run(self) -> None:
        for i, c in self.crash_at.items():  # now = 0: the delays are the absolute times
            self.after(c, "crash", i)
        for i in range(self.n):
            self.after(float(self.join_t[i]), "send_join", i)
        self.engine.run()

    def summary(self) -> dict:
        info, times = self.info, ("ready_at", "all_ready_at", "destroying_at", "destroyed_at")
        return {
            "final_state": self.group,
            **{key: info[key] for key in times},
            "joins_received": self.joins,
            "leaves_received": self.leaves,
            "member_count": self.n,
            "timed_out": info["timeout"] is not None,
            **{key: info[key] for key in ("timeout", "route_computations", "polls")},
            "messages": sum(e.kind in MESSAGES for e in self.events),
            "lost_joins": sorted(self.lost),
            "crashed": sorted(self.crash_at),
        }

    def timeline(self) -> Timeline:
        n = self.n
        entities = {f"p{i}": {"node": self.nodes[i]} for i in range(n)}
        entities["group"] = {"node": self.sm}
        where = f" on {self.sm_host}" if self.sm_host else ""
        return Timeline(
            title=f"Multicast group join/leave: {plural(n, 'member')}",
            intro=(
                f"{plural(n, 'process')} join{'s' * (n == 1)} one multicast group managed by the subnet manager "
                f"(SM){where}. Each sends SubnAdmSet(MCMemberRecord) with MemberCount={n}; the SM computes the "
                f"routes only once all {n} requests are in. Process 0 polls SubnAdmGet(MCGStateRecord) every "
                f"{self.poll_interval:g} ms and multicasts 'ready' when the group is Ready. Leaving does not "
                "recompute routes."
            ),
            initial_state={"group": ABSENT, **{f"p{i}": "idle" for i in range(n)}},
            events=self.events,
            entities=entities,
            legend=dict(LEGEND),
            summary=self.summary(),
            time_unit="ms",
        )


# ---------------------------------------------------------------- handlers: one per action
def _crash(g: _Group, i: int) -> None:
    g.emit("fault", f"{g.who(i)} crashes: it will send and receive nothing any more", **g.set_p(i, "crashed"))
    g.dead[i] = True


def _send_join(g: _Group, i: int) -> None:
    if g.dead[i]:
        return
    g.emit(
        "join",
        f"{g.who(i)} → {g.sm_name}: SubnAdmSet(MCMemberRecord), MemberCount={g.n}",
        g.nodes[i],
        g.sm,
        **g.set_p(i, "joining"),
    )
    g.after(g.latency, "join_lost" if i in g.lost else "join_arrives", i)
    if i == 0:
        g.p0["sent_at"] = g.now
        g.after(g.poll_interval, "poll")


def _join_lost(g: _Group, i: int) -> None:
    g.emit("drop", f"{g.who(i)}'s join request is lost: the SM never sees it", g.nodes[i], g.sm, **g.set_p(i, "lost"))


def _join_arrives(g: _Group, i: int) -> None:
    n, sm_name = g.n, g.sm_name
    if g.group not in (ABSENT, RECEIVING_JOIN):
        g.emit("deliver", f"{sm_name} ignores {g.who(i)}'s late join request: the group is {g.group}", g.nodes[i], g.sm)
        return
    g.joins += 1
    first = g.group == ABSENT
    g.move("join")
    if first:
        g.emit(
            "note",
            f"The first join request ({g.who(i)}, MemberCount={n}) creates the group: "
            f"{RECEIVING_JOIN}; no routes are computed yet",
        )
        g.emit(
            "state",
            f"{sm_name} creates the group: 1 of {n} join requests",
            g.nodes[i],
            g.sm,
            group=g.group,
            **g.set_p(i, "joined"),
        )
        g.after(g.join_timeout, "join_timeout")
    else:
        g.emit(
            "deliver",
            f"{sm_name} counts {g.who(i)}'s join request: {g.joins} of MemberCount={n}",
            g.nodes[i],
            g.sm,
            **g.set_p(i, "joined"),
        )
    if g.joins == n:
        g.move("joins_complete")
        g.info["route_computations"] += 1
        g.emit(
            "note",
            f"All MemberCount={n} join requests are in: the SM computes the multicast routes, once for the whole group",
        )
        g.emit("state", f"{sm_name} starts computing the routes", group=g.group)
        g.after(g.route_time, "routes_done")


def _routes_done(g: _Group) -> None:
    g.move("routes_done")
    g.info["ready_at"] = g.now
    g.emit("state", f"{g.sm_name} has computed the routes: the group is {READY}", group=g.group)


def _join_timeout(g: _Group) -> None:
    if g.group != RECEIVING_JOIN:
        return
    g.move("join_timeout")
    g.info["timeout"] = "join"
    g.destroy(
        f"Join timeout: {g.sm_name} destroys the group",
        f"Only {g.joins} of MemberCount={g.n} join requests arrived within join_timeout={g.join_timeout:g} ms "
        f"(a process crashed or a request was lost): {RECEIVING_JOIN} → {DESTROYING}",
    )


def _destroyed(g: _Group) -> None:
    g.move("destroyed")
    g.info["destroyed_at"] = g.now
    g.emit("note", f"{g.sm_name} has torn the group down: it no longer exists")
    g.emit("state", f"{g.sm_name} deletes the group", group=g.group)


def _poll(g: _Group) -> None:
    if g.dead[0] or g.p0["done"]:
        return
    g.after(g.poll_interval, "poll")
    if g.p0["waiting"]:
        return
    g.p0["waiting"] = True
    g.info["polls"] += 1
    g.emit("send", f"{g.who(0)} → {g.sm_name}: SubnAdmGet(MCGStateRecord) (poll {g.info['polls']})", g.nodes[0], g.sm)
    g.after(g.latency, "poll_arrives")


def _poll_arrives(g: _Group) -> None:
    what = "no such group yet" if g.group == ABSENT else f"state={g.group}"
    g.emit("send", f"{g.sm_name} → {g.who(0)}: SubnAdmGetResp(MCGStateRecord), {what}", g.sm, g.nodes[0])
    g.after(g.latency, "poll_reply", g.group)


def _poll_reply(g: _Group, seen: str) -> None:
    g.p0["waiting"] = False
    p0, sm, node = g.who(0), g.sm, g.nodes[0]
    if g.dead[0]:
        g.emit("drop", f"{p0} has crashed: nobody reads the SM's reply", sm, node)
    elif seen == READY:
        _multicast_ready(g)
    elif seen in (DESTROYING, DELETED):
        g.p0["done"] = True
        g.emit("deliver", f"{p0} learns the group is {seen}: building it failed", sm, node, **g.set_p(0, "failed"))
    elif seen == ABSENT and g.now - g.p0["sent_at"] >= g.join_timeout:
        g.p0["done"] = True
        g.emit(
            "deliver",
            f"{p0} gives up: still no group join_timeout={g.join_timeout:g} ms after its request",
            sm,
            node,
            **g.set_p(0, "failed"),
        )
    else:
        g.emit("deliver", f"{p0} reads {seen}: not ready yet, it polls again", sm, node)


def _multicast_ready(g: _Group) -> None:
    """Process 0 read Ready: it multicasts 'ready' to the other members (part of ``poll_reply``)."""
    n, p0 = g.n, g.who(0)
    g.p0["done"] = True
    g.emit(
        "note",
        f"{p0} sees {READY} and multicasts 'ready' to the other {plural(n - 1, 'member')}"
        if n > 1
        else f"{p0} sees {READY}: the group is built",
    )
    g.emit("deliver", f"{p0} learns the group is {READY}", g.sm, g.nodes[0], **g.set_p(0, "ready"))
    g.after(float(g.use_t[0]), "send_leave", 0)
    for j in range(1, n):
        g.emit("send", f"{p0} → {g.who(j)}: multicast 'ready'", g.nodes[0], g.nodes[j])
        g.after(g.latency, "ready_arrives", j)
    if n == 1:
        g.info["all_ready_at"] = g.now


def _ready_arrives(g: _Group, j: int) -> None:
    g.notified += 1
    if g.dead[j]:
        g.emit("drop", f"{g.who(j)} has crashed: the 'ready' notification is lost", g.nodes[0], g.nodes[j])
    else:
        g.emit(
            "deliver",
            f"{g.who(j)} receives 'ready' and may use the group",
            g.nodes[0],
            g.nodes[j],
            **g.set_p(j, "ready"),
        )
        g.after(float(g.use_t[j]), "send_leave", j)
    if g.notified == g.n - 1:
        g.info["all_ready_at"] = g.now
        live = sum(not d for d in g.dead)
        g.emit("note", f"The group is built: {live} of {g.n} members have 'ready' and use it")


def _send_leave(g: _Group, i: int) -> None:
    if g.dead[i]:
        return
    g.emit(
        "leave",
        f"{g.who(i)} → {g.sm_name}: SubnAdmDelete(MCMemberRecord) (leave)",
        g.nodes[i],
        g.sm,
        **g.set_p(i, "leaving"),
    )
    g.after(g.latency, "leave_arrives", i)


def _leave_arrives(g: _Group, i: int) -> None:
    n, sm_name = g.n, g.sm_name
    if g.group not in (READY, RECEIVING_LEAVE):
        g.emit(
            "deliver",
            f"{sm_name} ignores {g.who(i)}'s late leave request: the group is {g.group}",
            g.nodes[i],
            g.sm,
            **g.set_p(i, "left"),
        )
        return
    g.leaves += 1
    first = g.group == READY
    g.move("leave")
    if first:
        g.emit("note", f"The first leave request ({g.who(i)}): {RECEIVING_LEAVE}; routes are not recomputed")
        g.emit(
            "state",
            f"{sm_name} receives the first leave request: 1 of {n}",
            g.nodes[i],
            g.sm,
            group=g.group,
            **g.set_p(i, "left"),
        )
        g.after(g.leave_timeout, "leave_timeout")
    else:
        g.emit(
            "deliver",
            f"{sm_name} counts {g.who(i)}'s leave request: {g.leaves} of {n}; routes unchanged",
            g.nodes[i],
            g.sm,
            **g.set_p(i, "left"),
        )
    if g.leaves == n:
        g.move("leaves_complete")
        g.destroy(
            f"All members have left: {sm_name} destroys the group",
            f"All {n} members have left: {RECEIVING_LEAVE} → {DESTROYING}",
        )


def _leave_timeout(g: _Group) -> None:
    if g.group != RECEIVING_LEAVE:
        return
    g.move("leave_timeout")
    g.info["timeout"] = "leave"
    g.destroy(
        f"Leave timeout: {g.sm_name} destroys the group",
        f"Only {g.leaves} of {g.n} leave requests arrived within leave_timeout={g.leave_timeout:g} ms "
        f"(a process crashed or a request was lost): {RECEIVING_LEAVE} → {DESTROYING}",
    )


#: action -> handler(group, *args): the protocol, one small function per action
_HANDLERS = {
    "crash": _crash,
    "send_join": _send_join,
    "join_lost": _join_lost,
    "join_arrives": _join_arrives,
    "routes_done": _routes_done,
    "join_timeout": _join_timeout,
    "destroyed": _destroyed,
    "poll": _poll,
    "poll_arrives": _poll_arrives,
    "poll_reply": _poll_reply,
    "ready_arrives": _ready_arrives,
    "send_leave": _send_leave,
    "leave_arrives": _leave_arrives,
    "leave_timeout": _leave_timeout,
}
