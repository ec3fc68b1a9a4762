"""The event loop of the LogGP timing (:mod:`vizcoll.schedule.loggp` says what it computes) on the event core.

Operations are rows of the schedule's columns (:mod:`vizcoll.schedule.columns`). An event is a row and its
callback: an operation becoming due (a send, a receive being posted, a computation), or the message of a send
reaching its destination; a deferred event is scheduled again with the same priority, so it keeps its place.

The state is LogGOPSim's, as plain lists: per host (and CPU / NIC) the next free CPU, send NIC and receive NIC
times, the posted receives and unexpected messages, per row its count of unmet dependencies, and the costs of
each send and of each handled message, computed for every row at once. Each callback is a closure over these
lists: an event costs least so (measured: docs/design.md); reading the same state through attributes of an object
(about 40 % more per event, measured on the Rabenseifner reduction of 4,096 ranks, 160,000 events) or numpy
elements (ten times a list's) would cost more.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from vizcoll.schedule.columns import SEND, Columns
from vizcoll.schedule.model import ANY
from vizcoll.sim.engine import Engine

__all__ = ["run"]


def run(c: Columns, p, trace: bool, limit: int) -> tuple[list, list, list, list, list]:
    """(finish per rank, unexpected messages left, posted receives left, operations never started per rank,
    trace) of the LogGP parameters ``p`` on the columns ``c``; RuntimeError after ``limit`` events."""
    st = _State(c, p, trace)
    engine = Engine()
    handlers: list[Callable] = []  # by kind, filled below (the issuer reads it when called)
    issue = _issuer(st, engine, handlers)
    message = _message_handler(st, engine, issue)
    handlers += [_send_handler(st, engine, message, issue), _recv_handler(st, engine, issue)]
    handlers.append(_calc_handler(st, engine, issue))
    ready = np.flatnonzero(np.array(st.waiting) == 0)
    ready = ready[np.lexsort((ready, c.kind[ready], st.rank[ready]))].tolist()  # by host, then kind
    for row in ready:
        st.ts_of[row] = stamp = st.stamp()
        engine.at(0, handlers[st.kind[row]], row, priority=stamp)
    engine.run(limit=limit)
    cpus = st.cpus
    finish = [max(st.nexto[h * cpus : h * cpus + cpus]) for h in range(st.n)]
    unexpected = [_left(h, st.host[m], st.tag[m], st.size[m]) for h, q in enumerate(st.uq) for m in q]
    unreceived = [_left(h, st.peer[r], st.tag[r], st.size[r]) for h, q in enumerate(st.rq) for r in q]
    bounds = c.start.tolist()
    not_run = [hi - lo - sum(st.started[lo:hi]) for lo, hi in zip(bounds, bounds[1:], strict=False)]
    return finish, unexpected, unreceived, not_run, st.trace


class _State:
    """Everything a run reads and changes (see the module docstring)."""

    def __init__(self, c: Columns, p, trace: bool) -> None:
        self.p, self.n = p, c.num_ranks
        self.rank = rank = c.rank()
        self.cpus, self.nics = 1 + int(c.cpu.max(initial=0)), 1 + int(c.nic.max(initial=0))
        self.host, self.kind, self.size, self.peer, self.tag, self.cpu, self.nic = (
            x.tolist() for x in (rank, c.kind, c.size, c.peer, c.tag, c.cpu, c.nic)
        )
        self.oslot = (rank * self.cpus + c.cpu).tolist()
        self.nslot = (rank * self.nics + c.nic).tolist()
        self.send_o, self.send_g, self.recv_o, self.recv_g = _costs(c.size, p)
        self.done_of, waiting = _dependents(c.requires, c.n_ops)
        self.start_of, waiting_i = _dependents(c.irequires, c.n_ops)
        self.waiting = (waiting + waiting_i).tolist()
        self.nexto = [0] * (self.n * self.cpus)
        self.nextgs, self.nextgr = [0] * (self.n * self.nics), [0] * (self.n * self.nics)
        self.rq: list[list[int]] = [[] for _ in range(self.n)]
        self.uq: list[list[int]] = [[] for _ in range(self.n)]
        self.ready: list[list[int]] = [[] for _ in range(self.n)]
        self.started = bytearray(c.n_ops)
        self.ts_of, self.msg_ts = [0] * c.n_ops, [0] * c.n_ops
        self.stamp = itertools.count().__next__
        self.trace: list[dict] = []
        self.record = self._record if trace else None
        self.release = _releaser(self)

    def _record(self, start: int, end: int, rank: int, kind: str, peer: int, size: int) -> None:
        self.trace.append({"start": start, "end": end, "rank": rank, "kind": kind, "peer": peer, "size": size})


def _issuer(st: _State, engine: Engine, handlers: list[Callable]) -> Callable[[int], None]:
    """Queue the newly ready operations of a host: sends, then receives, then computations, each at the time
    its CPU (and a send's NIC) is free. An event that freed some on two hosts issues them in host order."""
    at, kind, stamp, ts_of, ready_of = engine.at, st.kind, st.stamp, st.ts_of, st.ready
    nexto, nextgs, oslot, nslot = st.nexto, st.nextgs, st.oslot, st.nslot
    by_kind = kind.__getitem__

    def issue(host: int) -> None:
        fresh = ready_of[host]
        ready_of[host] = []
        if len(fresh) > 1:
            fresh.sort(key=by_kind)
        for row in fresh:
            ts_of[row] = ts = stamp()
            time = nexto[oslot[row]]
            if kind[row] == SEND and nextgs[nslot[row]] > time:
                time = nextgs[nslot[row]]
            at(time, handlers[kind[row]], row, priority=ts)

    return issue


def _releaser(st: _State) -> Callable[[int, list[int]], None]:
    """Count down the operations of ``host`` waiting for one (``rows``: they wait for it to start or finish)."""
    waiting, ready_of = st.waiting, st.ready

    def release(host: int, rows: list[int]) -> None:
        for a in rows:
            waiting[a] -= 1
            if not waiting[a]:
                ready_of[host].append(a)

    return release


def _calc_handler(st: _State, engine: Engine, issue) -> Callable[[int], None]:
    at, nexto, oslot, size, ts_of, started, record, host_of, ready_of, release = (
        engine.at,
        st.nexto,
        st.oslot,
        st.size,
        st.ts_of,
        st.started,
        st.record,
        st.host,
        st.ready,
        st.release,
    )
    start_of, done_of = st.start_of, st.done_of

    def calc(row: int) -> None:
        t, slot = engine.now, oslot[row]
        if nexto[slot] > t:
            at(nexto[slot], calc, row, priority=ts_of[row])
            return
        host = host_of[row]
        nexto[slot] = t + size[row]
        started[row] = 1
        if start_of[row]:
            release(host, start_of[row])
        if done_of[row]:
            release(host, done_of[row])
        if record is not None:
            record(t, t + size[row], host, "calc", -1, size[row])
        if ready_of[host]:
            issue(host)

    return calc


def _send_handler(st: _State, engine: Engine, message, issue) -> Callable[[int], None]:
    at, nexto, nextgs, oslot, nslot, send_o, send_g, host_of, ready_of = (
        engine.at,
        st.nexto,
        st.nextgs,
        st.oslot,
        st.nslot,
        st.send_o,
        st.send_g,
        st.host,
        st.ready,
    )
    size, ts_of, msg_ts, started, record, stamp, release = (
        st.size,
        st.ts_of,
        st.msg_ts,
        st.started,
        st.record,
        st.stamp,
        st.release,
    )
    start_of, done_of, flight, eager = st.start_of, st.done_of, st.p.o + st.p.L, st.p.S

    def send(row: int) -> None:
        t, so, sn = engine.now, oslot[row], nslot[row]
        free = nexto[so] if nexto[so] >= nextgs[sn] else nextgs[sn]
        if free > t:
            at(free, send, row, priority=ts_of[row])
            return
        host = host_of[row]
        started[row] = 1
        if start_of[row]:
            release(host, start_of[row])
        nexto[so] = t + send_o[row]
        nextgs[sn] = t + send_g[row]
        msg_ts[row] = ts = stamp()
        at(t + flight, message, row, priority=ts)
        if size[row] <= eager and done_of[row]:
            release(host, done_of[row])
        if record is not None:
            record(t, nexto[so], host, "send", st.peer[row], size[row])
        if ready_of[host]:
            issue(host)

    return send


def _recv_handler(st: _State, engine: Engine, issue) -> Callable[[int], None]:
    """A receive is posted: matched with the first fitting unexpected message, else queued."""
    host_of, peer, tag, size, uq, rq, started, record, ready_of, release = (
        st.host,
        st.peer,
        st.tag,
        st.size,
        st.uq,
        st.rq,
        st.started,
        st.record,
        st.ready,
        st.release,
    )
    start_of, done_of, rendezvous, eager = st.start_of, st.done_of, _rendezvous(st), st.p.S
    issue_both = _both(st, issue)

    def recv(row: int) -> None:
        host = host_of[row]
        started[row] = 1
        if start_of[row]:
            release(host, start_of[row])
        sent = _match(peer[row], tag[row], uq[host], host_of, tag) if uq[host] else None
        if sent is None:
            rq[host].append(row)
        else:
            t = engine.now
            sender = rendezvous(sent, st.cpu[row], st.nic[row], t) if size[row] > eager else host
            if done_of[row]:
                release(host, done_of[row])
            if record is not None:
                record(t, t, host, "recv", host_of[sent], size[sent])
            if sender != host:
                issue_both(host, sender)
                return
        if ready_of[host]:
            issue(host)

    return recv


def _message_handler(st: _State, engine: Engine, issue) -> Callable[[int], None]:
    """The message of the send ``row`` reaches its destination: handled when the CPU and receiving NIC are free,
    matched with the first fitting posted receive, else kept as unexpected."""
    at, nexto, nextgr, recv_o, recv_g, host_of, peer, tag, size, cpu, nic = (
        engine.at,
        st.nexto,
        st.nextgr,
        st.recv_o,
        st.recv_g,
        st.host,
        st.peer,
        st.tag,
        st.size,
        st.cpu,
        st.nic,
    )
    uq, rq, msg_ts, record, ranks, cpus, nics, ready_of, release = (
        st.uq,
        st.rq,
        st.msg_ts,
        st.record,
        st.n,
        st.cpus,
        st.nics,
        st.ready,
        st.release,
    )
    done_of, rendezvous, eager, issue_both = st.done_of, _rendezvous(st), st.p.S, _both(st, issue)

    def message(row: int) -> None:
        t, dest = engine.now, peer[row]
        if not 0 <= dest < ranks:
            return  # a send to a rank that does not exist: check() reports it
        ro, rn = dest * cpus + cpu[row], dest * nics + nic[row]
        free = nexto[ro] if nexto[ro] >= nextgr[rn] else nextgr[rn]
        if free > t:
            at(free, message, row, priority=msg_ts[row])
            return
        nexto[ro] = t + recv_o[row]
        nextgr[rn] = t + recv_g[row]
        recv = _match(host_of[row], tag[row], rq[dest], peer, tag) if rq[dest] else None
        sender = dest
        if recv is None:
            uq[dest].append(row)
        else:
            if size[row] > eager:
                sender = rendezvous(row, cpu[row], nic[row], t)
            if done_of[recv]:
                release(dest, done_of[recv])
        if record is not None:
            record(t, nexto[ro], dest, "recv", host_of[row], size[row])
        if sender != dest:
            issue_both(dest, sender)
        elif ready_of[dest]:
            issue(dest)

    return message


def _rendezvous(st: _State) -> Callable[[int, int, int, int], int]:
    """The matched rendezvous send finishes now; its host's CPU and NIC are busy until now at least. Returns
    the sender's host."""
    nexto, nextgs, host_of, cpus, nics, done_of, release = (
        st.nexto,
        st.nextgs,
        st.host,
        st.cpus,
        st.nics,
        st.done_of,
        st.release,
    )

    def rendezvous(send: int, cpu: int, nic: int, t: int) -> int:
        sender = host_of[send]
        if done_of[send]:
            release(sender, done_of[send])
        so, sn = sender * cpus + cpu, sender * nics + nic
        nexto[so] = max(nexto[so], t)
        nextgs[sn] = max(nextgs[sn], t)
        return sender

    return rendezvous


def _both(st: _State, issue) -> Callable[[int, int], None]:
    """Issue the operations an event freed on two hosts, in host order."""
    ready_of = st.ready

    def issue_both(a: int, b: int) -> None:
        for host in (a, b) if a < b else (b, a):
            if ready_of[host]:
                issue(host)

    return issue_both


def _match(peer: int, tag: int, queue: list[int], peers: list[int], tags: list[int]) -> int | None:
    """Remove and return the first row of ``queue`` whose source and tag (``peers[row]``, ``tags[row]``) fit
    ``peer`` and ``tag`` (``-1`` fits all)."""
    for i, row in enumerate(queue):
        other, other_tag = peers[row], tags[row]
        if (peer == other or ANY in (peer, other)) and (tag == other_tag or ANY in (tag, other_tag)):
            del queue[i]
            return row
    return None


def _left(rank: int, peer: int, tag: int, size: int) -> dict:
    return {"rank": rank, "peer": peer, "tag": tag, "size": size}


def _costs(size: np.ndarray, p) -> tuple[list[int], ...]:
    """Per row: a send's CPU and NIC times ``o + (n-1)·O``, ``g + (n-1)·G``, and a handled message's
    ``o + max((n-1)·O, (n-1)·G)``, ``g + (n-1)·G`` (Python integers where int64 could overflow)."""
    extra = size - 1
    if size.dtype == object or int(np.abs(size).max(initial=0)) > 2**62 // max(p.O, p.G, 1):
        extra = extra.astype(object)
    send_o, gap = p.o + extra * p.O, p.g + extra * p.G
    recv_o = p.o + np.maximum(extra * p.O, extra * p.G)
    return send_o.tolist(), gap.tolist(), recv_o.tolist(), gap.tolist()


def _dependents(pairs: np.ndarray, n_ops: int) -> tuple[list, np.ndarray]:
    """(rows, count): the rows waiting for row ``b`` are ``rows[b]`` in the schedule's order (None when none
    do), and ``count[a]`` is how many dependencies row ``a`` has among ``pairs``."""
    count = np.bincount(pairs[:, 0], minlength=n_ops)
    if not len(pairs):
        return [None] * n_ops, count
    order = np.argsort(pairs[:, 1], kind="stable")
    waiting = pairs[order, 0].tolist()
    bounds = np.searchsorted(pairs[order, 1], np.arange(n_ops + 1)).tolist()
    return [waiting[lo:hi] if hi > lo else None for lo, hi in zip(bounds, bounds[1:], strict=False)], count
