"""The event loop of the LogGP timing (:mod:`vizcoll.schedule.loggp` says what it computes) on the event core.

Operations are rows of the schedule's columns (:mod:`vizcoll.schedule.columns`). An event is a row and its
callback: an operation becoming due (a send, a receive being posted, a computation), or the message of a send
reaching its destination; a deferred event is scheduled again with the same priority, so it keeps its place.

The state is LogGOPSim's, as plain lists: per host (and CPU / NIC) the next free CPU, send NIC and receive NIC
times, the posted receives and unexpected messages, per row its count of unmet dependencies, and the costs of
each send and of each handled message, computed for every row at once. Each callback is a closure over these
lists: an event costs about 4 μs, which reading the same state through attributes of an object (about 40 % more
per event, measured on the Rabenseifner reduction of 4,096 ranks, 160,000 events) or numpy elements (ten times a
list's) would not give.
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
    release = _releaser(st)
    message = _message_handler(st, engine, release, issue)
    handlers += [_send_handler(st, engine, message, release, issue), _recv_handler(st, engine, release, issue)]
    handlers.append(_calc_handler(st, engine, release, issue))
    ready = [row for row, w in enumerate(st.waiting) if w == 0]
    for row in sorted(ready, key=lambda row: (st.host[row], st.kind[row])):  # stable: rows in order
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
        rank = c.rank()
        self.cpus, self.nics = 1 + int(c.cpu.max(initial=0)), 1 + int(c.nic.max(initial=0))
        self.host, self.kind, self.size, self.peer, self.tag, self.cpu, self.nic = (
            x.tolist() for x in (rank, c.kind, c.size, c.peer, c.tag, c.cpu, c.nic)
        )
        self.oslot = (rank * self.cpus + c.cpu).tolist()
        self.nslot = (rank * self.nics + c.nic).tolist()
        self.send_o, self.send_g, self.recv_o, self.recv_g = _costs(c.size, p)
        self.done_ptr, self.done_rows, waiting = _dependents(c.requires, c.n_ops)
        self.start_ptr, self.start_rows, waiting_i = _dependents(c.irequires, c.n_ops)
        self.waiting = (waiting + waiting_i).tolist()
        self.nexto = [0] * (self.n * self.cpus)
        self.nextgs, self.nextgr = [0] * (self.n * self.nics), [0] * (self.n * self.nics)
        self.rq: list[list[int]] = [[] for _ in range(self.n)]
        self.uq: list[list[int]] = [[] for _ in range(self.n)]
        self.ready: list[list[int]] = [[] for _ in range(self.n)]
        self.dirty: list[int] = []
        self.started = bytearray(c.n_ops)
        self.ts_of, self.msg_ts = [0] * c.n_ops, [0] * c.n_ops
        self.stamp = itertools.count().__next__
        self.trace: list[dict] = []
        self.record = self._record if trace else None

    def _record(self, start: int, end: int, rank: int, kind: str, peer: int, size: int) -> None:
        self.trace.append({"start": start, "end": end, "rank": rank, "kind": kind, "peer": peer, "size": size})


def _issuer(st: _State, engine: Engine, handlers: list[Callable]) -> Callable[[], None]:
    """Queue the newly ready operations of the hosts an event freed some on, in host order: per host sends,
    then receives, then computations, each at the time its CPU (and a send's NIC) is free."""
    at, kind, stamp, ts_of, dirty, ready_of = engine.at, st.kind, st.stamp, st.ts_of, st.dirty, st.ready
    nexto, nextgs, oslot, nslot = st.nexto, st.nextgs, st.oslot, st.nslot
    by_kind = kind.__getitem__

    def issue() -> None:
        if len(dirty) > 1:
            dirty.sort()
        for host in dirty:
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
        dirty.clear()

    return issue


def _releaser(st: _State) -> Callable[[int, list[int], list[int]], None]:
    """Count down the operations waiting for ``row`` (to start or to finish: ``ptr`` / ``rows``)."""
    waiting, ready_of, host_of, dirty = st.waiting, st.ready, st.host, st.dirty

    def release(row: int, ptr: list[int], rows: list[int]) -> None:
        host = host_of[row]
        ready = ready_of[host]
        for a in rows[ptr[row] : ptr[row + 1]]:
            waiting[a] -= 1
            if waiting[a] == 0:
                if not ready:
                    dirty.append(host)
                ready.append(a)

    return release


def _calc_handler(st: _State, engine: Engine, release, issue) -> Callable[[int], None]:
    at, nexto, oslot, size, ts_of, started, dirty, record = (
        engine.at,
        st.nexto,
        st.oslot,
        st.size,
        st.ts_of,
        st.started,
        st.dirty,
        st.record,
    )
    start_ptr, start_rows, done_ptr, done_rows = st.start_ptr, st.start_rows, st.done_ptr, st.done_rows

    def calc(row: int) -> None:
        t, slot = engine.now, oslot[row]
        if nexto[slot] > t:
            at(nexto[slot], calc, row, priority=ts_of[row])
            return
        nexto[slot] = t + size[row]
        started[row] = 1
        if start_ptr[row] != start_ptr[row + 1]:
            release(row, start_ptr, start_rows)
        if done_ptr[row] != done_ptr[row + 1]:
            release(row, done_ptr, done_rows)
        if record is not None:
            record(t, t + size[row], st.host[row], "calc", -1, size[row])
        if dirty:
            issue()

    return calc


def _send_handler(st: _State, engine: Engine, message, release, issue) -> Callable[[int], None]:
    at, nexto, nextgs, oslot, nslot, send_o, send_g = (
        engine.at,
        st.nexto,
        st.nextgs,
        st.oslot,
        st.nslot,
        st.send_o,
        st.send_g,
    )
    size, ts_of, msg_ts, started, dirty, record, stamp = (
        st.size,
        st.ts_of,
        st.msg_ts,
        st.started,
        st.dirty,
        st.record,
        st.stamp,
    )
    start_ptr, start_rows, done_ptr, done_rows = st.start_ptr, st.start_rows, st.done_ptr, st.done_rows
    flight, eager = st.p.o + st.p.L, st.p.S

    def send(row: int) -> None:
        t, so, sn = engine.now, oslot[row], nslot[row]
        free = nexto[so] if nexto[so] >= nextgs[sn] else nextgs[sn]
        if free > t:
            at(free, send, row, priority=ts_of[row])
            return
        started[row] = 1
        if start_ptr[row] != start_ptr[row + 1]:
            release(row, start_ptr, start_rows)
        nexto[so] = t + send_o[row]
        nextgs[sn] = t + send_g[row]
        msg_ts[row] = ts = stamp()
        at(t + flight, message, row, priority=ts)
        if size[row] <= eager and done_ptr[row] != done_ptr[row + 1]:
            release(row, done_ptr, done_rows)
        if record is not None:
            record(t, nexto[so], st.host[row], "send", st.peer[row], size[row])
        if dirty:
            issue()

    return send


def _recv_handler(st: _State, engine: Engine, release, issue) -> Callable[[int], None]:
    """A receive is posted: matched with the first fitting unexpected message, else queued."""
    host_of, peer, tag, size, uq, rq, started, dirty, record = (
        st.host,
        st.peer,
        st.tag,
        st.size,
        st.uq,
        st.rq,
        st.started,
        st.dirty,
        st.record,
    )
    start_ptr, start_rows, done_ptr, done_rows = st.start_ptr, st.start_rows, st.done_ptr, st.done_rows
    rendezvous, eager = _rendezvous(st, release), st.p.S

    def recv(row: int) -> None:
        host = host_of[row]
        started[row] = 1
        if start_ptr[row] != start_ptr[row + 1]:
            release(row, start_ptr, start_rows)
        sent = _match(peer[row], tag[row], uq[host], host_of, tag) if uq[host] else None
        if sent is None:
            rq[host].append(row)
        else:
            t = engine.now
            if size[row] > eager:
                rendezvous(sent, st.cpu[row], st.nic[row], t)
            if done_ptr[row] != done_ptr[row + 1]:
                release(row, done_ptr, done_rows)
            if record is not None:
                record(t, t, host, "recv", host_of[sent], size[sent])
        if dirty:
            issue()

    return recv


def _message_handler(st: _State, engine: Engine, release, issue) -> Callable[[int], None]:
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
    uq, rq, msg_ts, dirty, record, ranks, cpus, nics = (
        st.uq,
        st.rq,
        st.msg_ts,
        st.dirty,
        st.record,
        st.n,
        st.cpus,
        st.nics,
    )
    done_ptr, done_rows, rendezvous, eager = st.done_ptr, st.done_rows, _rendezvous(st, release), st.p.S

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
        if recv is None:
            uq[dest].append(row)
        else:
            if size[row] > eager:
                rendezvous(row, cpu[row], nic[row], t)
            if done_ptr[recv] != done_ptr[recv + 1]:
                release(recv, done_ptr, done_rows)
        if record is not None:
            record(t, nexto[ro], dest, "recv", host_of[row], size[row])
        if dirty:
            issue()

    return message


def _rendezvous(st: _State, release) -> Callable[[int, int, int, int], None]:
    """The matched rendezvous send finishes now; its host's CPU and NIC are busy until now at least."""
    nexto, nextgs, host_of, cpus, nics, done_ptr, done_rows = (
        st.nexto,
        st.nextgs,
        st.host,
        st.cpus,
        st.nics,
        st.done_ptr,
        st.done_rows,
    )

    def rendezvous(send: int, cpu: int, nic: int, t: int) -> None:
        release(send, done_ptr, done_rows)
        so, sn = host_of[send] * cpus + cpu, host_of[send] * nics + nic
        nexto[so] = max(nexto[so], t)
        nextgs[sn] = max(nextgs[sn], t)

    return rendezvous


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


def _dependents(pairs: np.ndarray, n_ops: int) -> tuple[list[int], list[int], np.ndarray]:
    """(ptr, rows, count): the rows waiting for row ``b`` are ``rows[ptr[b]:ptr[b+1]]`` in the schedule's order,
    and ``count[a]`` is how many dependencies row ``a`` has among ``pairs``."""
    order = np.argsort(pairs[:, 1], kind="stable")
    ptr = np.searchsorted(pairs[order, 1], np.arange(n_ops + 1))
    return ptr.tolist(), pairs[order, 0].tolist(), np.bincount(pairs[:, 0], minlength=n_ops)
