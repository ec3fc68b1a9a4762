"""The one discrete-event core of every simulation: a clock, one event queue, callbacks, processes, signals, queues.

The shape is SimPy's (one environment, one clock, processes as generators
that yield events) in a thin core of our own; ``benchmarks/event_core.py``
measures both (docs/design.md). Two ways to use it:

- **callbacks**: :meth:`Engine.at` / :meth:`Engine.schedule` run
  ``callback(*args)`` at an absolute time / after a delay;
- **processes**: a generator yields :class:`Signal` objects and is resumed
  (with the signal's value) when the signal fires; :meth:`Engine.timeout` is a
  signal that fires after a delay, :class:`Queue` a FIFO between processes.

Everything is deterministic: events are ordered by ``(time, priority,
sequence)``, so callbacks due at the same time and priority run in the order
they were scheduled (FIFO), and a lower ``priority`` runs first.

>>> eng = Engine()
>>> log = []
>>> def worker(q):
...     item = yield q.get()
...     log.append((eng.now, item))
>>> def producer(q):
...     yield eng.timeout(2.0)
...     q.put("job")
>>> q = Queue(eng, dispatch_delay=0.5)
>>> _ = eng.start(worker(q)); _ = eng.start(producer(q))
>>> eng.run()
>>> log
[(2.5, 'job')]
"""

from __future__ import annotations

import heapq
import itertools
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable
from typing import Any

__all__ = ["Engine", "Process", "Queue", "Signal"]

Process = Generator["Signal", Any, Any]


class Signal:
    """A one-shot event: processes waiting on it resume when :meth:`fire` is called."""

    __slots__ = ("_callbacks", "_engine", "fired", "value")

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._callbacks: list[Callable[[Any], None]] = []
        self.fired = False
        self.value: Any = None

    def fire(self, value: Any = None) -> None:
        """Fire now with ``value``; waiting callbacks run at the current time, in order."""
        if self.fired:
            raise RuntimeError("a signal fires only once")
        self.fired, self.value = True, value
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            self._engine.schedule(0.0, callback, value)

    def then(self, callback: Callable[[Any], None]) -> None:
        """Call ``callback(value)`` when the signal fires (at once if it already has)."""
        if self.fired:
            self._engine.schedule(0.0, callback, self.value)
        else:
            self._callbacks.append(callback)


class Engine:
    """The event loop: a clock and the events scheduled, in the order ``(time, priority, sequence)``.

    The events of one time are a bucket (a dict by time; a heap of the distinct times gives the next): the entry
    ``(priority, sequence, time, callback, args)`` itself while it is alone, then a FIFO while events come in
    that order (equal priorities, or priorities growing as they are handed out), a heap once one comes out of
    order. An event then costs an append and a pop at the ends of a deque, where one heap of all the events
    compared tuples down its depth. Measured in instructions (valgrind) against that heap: the LogGP timing of a
    schedule on 512 ranks 21 % fewer (on 4,096 ranks, about 5,000 events pending at 2 distinct times, the heap
    was a fifth of its time), events at 2 times in 5,000 chains 53 % fewer, the barrier runs of
    ``benchmarks/event_core.py`` 11 % fewer and its chains at random times (every time distinct) 10 % fewer.

    Attributes
    ----------
    now : float
        The simulated time (starts at 0).
    processed : int
        Events run so far.

    Examples
    --------
    >>> eng = Engine()
    >>> eng.schedule(2.0, print, "second")
    >>> eng.at(1.0, print, "first")
    >>> eng.run()
    first
    second
    >>> eng.now, eng.processed
    (2.0, 2)
    """

    def __init__(self) -> None:
        self.now = 0.0
        self.processed = 0
        self._times: list = []  # heap of the times that have a bucket
        self._buckets: dict = {}
        self._seq = itertools.count()

    def at(self, time: float, callback: Callable, *args: Any, priority: int = 0) -> None:
        """Run ``callback(*args)`` at absolute time ``time`` (never before :attr:`now`).

        Parameters
        ----------
        time : float
            When, at or after :attr:`now`.
        callback : callable
            What to run.
        *args : object
            Its arguments.
        priority : int
            Among events of one time, a lower priority runs first (then FIFO).

        Raises
        ------
        ValueError
            When ``time`` is before :attr:`now`.
        """
        if time < self.now:
            raise ValueError(f"cannot schedule at t={time} before the current time {self.now}")
        self._insert(time, priority, callback, args)

    def schedule(self, delay: float, callback: Callable, *args: Any, priority: int = 0) -> None:
        """Run ``callback(*args)`` after ``delay`` simulated seconds (a negative delay counts as 0).

        Parameters
        ----------
        delay : float
            Simulated seconds from :attr:`now`.
        callback : callable
            What to run.
        *args : object
            Its arguments.
        priority : int
            Among events of one time, a lower priority runs first (then FIFO).
        """
        self._insert(self.now + delay if delay > 0 else self.now, priority, callback, args)

    def _insert(self, time: float, priority: int, callback: Callable, args: tuple) -> None:
        entry = (priority, next(self._seq), time, callback, args)
        bucket = self._buckets.get(time)
        if bucket is None:  # the first event of its time: the bucket is the entry itself
            self._buckets[time] = entry
            heapq.heappush(self._times, time)
        elif type(bucket) is deque and priority >= bucket[-1][0]:
            bucket.append(entry)
        else:
            self._add(time, bucket, entry)

    def _add(self, time: float, bucket, entry: tuple) -> None:
        """A second event for a time (the bucket becomes a FIFO, or a heap when out of order), or one out of
        order."""
        if type(bucket) is tuple:
            self._buckets[time] = deque((bucket, entry)) if entry[0] >= bucket[0] else [entry, bucket]
            return
        if type(bucket) is deque:  # in order: a valid heap as it is
            bucket = self._buckets[time] = list(bucket)
        heapq.heappush(bucket, entry)

    def _pop(self) -> tuple:
        """The next event's entry, taken out."""
        time = self._times[0]
        bucket = self._buckets[time]
        if type(bucket) is tuple:
            entry, bucket = bucket, ()
        else:
            entry = bucket.popleft() if type(bucket) is deque else heapq.heappop(bucket)
        if not bucket:
            del self._buckets[time]
            heapq.heappop(self._times)
        return entry

    def signal(self) -> Signal:
        """A new, unfired signal."""
        return Signal(self)

    def fired(self, value: Any = None) -> Signal:
        """A signal that has already fired with ``value``."""
        signal = Signal(self)
        signal.fire(value)
        return signal

    def timeout(self, delay: float, value: Any = None) -> Signal:
        """A signal firing after ``delay`` seconds, for a process to yield.

        Parameters
        ----------
        delay : float
            Simulated seconds from :attr:`now`.
        value : object, optional
            The value the signal fires with (what the ``yield`` returns).

        Returns
        -------
        Signal
            The signal.
        """
        signal = Signal(self)
        self.schedule(delay, signal.fire, value)
        return signal

    def timeout_at(self, time: float) -> Signal:
        """A signal firing at absolute time ``time`` (now if it is in the past)."""
        return self.timeout(time - self.now)

    def all_of(self, signals: Iterable[Signal]) -> Signal:
        """A signal firing (with the list of values) once every signal has fired."""
        signals = list(signals)
        done = Signal(self)
        if not signals:
            done.fire([])
            return done
        left = [len(signals)]

        def one(_value: Any) -> None:
            left[0] -= 1
            if left[0] == 0:
                done.fire([s.value for s in signals])

        for signal in signals:
            signal.then(one)
        return done

    def start(self, process: Process) -> Signal:
        """Start a generator process now; it yields :class:`Signal` objects and resumes when each fires.

        Parameters
        ----------
        process : generator
            The process, e.g. ``worker(queue)``.

        Returns
        -------
        Signal
            A signal firing with the process's return value when it ends.
        """
        done = Signal(self)

        def step(value: Any) -> None:
            try:
                target = process.send(value)
            except StopIteration as stop:
                done.fire(stop.value)
                return
            target.then(step)

        self.schedule(0.0, step, None)
        return done

    @property
    def pending(self) -> int:
        """Events scheduled and not yet run."""
        return sum(1 if type(bucket) is tuple else len(bucket) for bucket in self._buckets.values())

    def step(self) -> None:
        """Run the next event."""
        _, _, self.now, callback, args = self._pop()
        self.processed += 1
        callback(*args)

    def run(self, limit: int | None = None) -> None:
        """Process events until none is left, or stop with RuntimeError after ``limit`` events.

        The loop is :meth:`step`'s, written out, and it takes the events of a FIFO bucket one after the other
        while it stays the bucket of its time (per event, a method call and the look-ups of the next time and
        its bucket were a third of the core's time in the LogGP timing, whose events do little).

        Parameters
        ----------
        limit : int, optional
            The most events :attr:`processed` may reach (None: no limit).

        Raises
        ------
        RuntimeError
            When ``limit`` events have run and some are left.
        """
        times, buckets, most = self._times, self._buckets, sys.maxsize if limit is None else limit
        while times:
            time = times[0]
            bucket = buckets[time]
            if type(bucket) is not deque:
                if self.processed >= most:
                    raise RuntimeError(f"the simulation exceeded {limit:,} events")
                if type(bucket) is tuple:  # alone at its time
                    _, _, self.now, callback, args = bucket
                    del buckets[time]
                    heapq.heappop(times)
                    self.processed += 1
                    callback(*args)
                else:
                    self.step()
                continue
            while True:
                if self.processed >= most:
                    raise RuntimeError(f"the simulation exceeded {limit:,} events")
                _, _, self.now, callback, args = bucket.popleft()
                if not bucket:
                    del buckets[time]
                    heapq.heappop(times)
                self.processed += 1
                callback(*args)
                if not bucket or buckets.get(time) is not bucket:
                    break


class Queue:
    """A FIFO message queue between threads.

    :meth:`get` returns a signal that fires with the next item;
    ``dispatch_delay`` is the time a thread takes to pick a message up, so a
    pushed item stays visible (in :attr:`pending`) for at least that long.
    ``on_change(queue)`` is called whenever :attr:`pending` changes.
    """

    def __init__(
        self, engine: Engine, dispatch_delay: float = 0.0, on_change: Callable[[Queue], None] | None = None
    ) -> None:
        self._engine = engine
        self._items: deque = deque()
        self._getters: deque[Signal] = deque()
        self.pending: list = []
        self.dispatch_delay = float(dispatch_delay)
        self.on_change = on_change

    def put(self, item: Any) -> None:
        """Append ``item``; a waiting getter receives it after ``dispatch_delay``."""
        self._items.append(item)
        self.pending.append(item)
        self._changed()
        self._serve()

    def get(self) -> Signal:
        """A signal firing with the oldest item (after ``dispatch_delay``)."""
        getter = self._engine.signal()
        self._getters.append(getter)
        self._serve()
        return getter

    def _serve(self) -> None:
        while self._items and self._getters:
            self._engine.schedule(self.dispatch_delay, self._deliver, self._getters.popleft(), self._items.popleft())

    def _deliver(self, getter: Signal, item: Any) -> None:
        index = next(i for i, x in enumerate(self.pending) if x is item)
        del self.pending[index]
        self._changed()
        getter.fire(item)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)
