"""Timing model of TREFT: network, thread and comparison costs.

Every node (a replica's host, or the device node running one of its kernels)
has a full-duplex access link of ``bandwidth_mbps``. A message costs the
one-way ``latency``. A data flow of ``b`` bytes uses the sender's uplink and
the receiver's downlink; concurrent flows share links max-min fairly, so a
lone flow takes ``8 b / bandwidth`` seconds, and it arrives ``latency`` after
its last byte left. Defaults are the paper's simulated Internet: 100 ms and
13.98 Mbps.

References: [TREFT15] (keys: ``docs/papers.md``).

>>> from vizcoll.sim.engine import Engine
>>> eng = Engine()
>>> net = Network(eng, CostModel(latency=0.1, bandwidth_mbps=8.0))   # 1 MB/s
>>> a = net.transfer("x", "y", 1e6); b = net.transfer("x", "z", 1e6)  # share x's uplink
>>> eng.run()
>>> round(eng.now, 6)
2.1
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from vizcoll.errors import SpecError
from vizcoll.sim.engine import Engine, Signal

__all__ = ["CostModel", "Network"]


def _positive(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise SpecError(f"{what} must be a positive number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class CostModel:
    """The timing model's parameters: network, host threads and the comparison of replicas.

    Every node has a full-duplex access link of ``bandwidth_mbps``; a message costs the one-way ``latency``;
    concurrent flows share links max-min fairly (see the module docstring). Every field must be a positive number
    (:class:`~vizcoll.errors.SpecError` otherwise).

    Attributes
    ----------
    latency : float
        One-way network latency in seconds (paper: 100 ms).
    bandwidth_mbps : float
        Access-link bandwidth in Mbit/s (paper: 13.98 Mbps).
    thread_op : float
        Seconds a host thread takes to pick up and handle one queue message.
    compare_rate : float
        Bytes per second a node's RMK hashes when it compares three copies.

    References
    ----------
    [TREFT15] Li Xin, Lin Yufei, Guo Xiaowei, "A triple modular eager redundancy fault-tolerant technique for
    distributed stream architecture", Computer Engineering & Science, 37(12): 2233–2241, 2015, DOI
    [10.3969/j.issn.1007-130X.2015.12.007](https://doi.org/10.3969/j.issn.1007-130X.2015.12.007). Section 4 (the
    simulated Internet: 100 ms, 13.98 Mbps).

    Examples
    --------
    >>> model = CostModel(bandwidth_mbps=8.0)
    >>> model.wire_time(1e6), model.latency
    (1.0, 0.1)
    """

    latency: float = 0.1
    bandwidth_mbps: float = 13.98
    thread_op: float = 0.001
    compare_rate: float = 500e6

    def __post_init__(self) -> None:
        _positive(self.latency, "latency")
        _positive(self.bandwidth_mbps, "bandwidth_mbps")
        _positive(self.thread_op, "thread_op")
        _positive(self.compare_rate, "compare_rate")

    def wire_time(self, nbytes: float) -> float:
        """Seconds ``nbytes`` occupy a link."""
        return 8.0 * float(nbytes) / (self.bandwidth_mbps * 1e6)

    def compare_time(self, nbytes: float) -> float:
        """Seconds to hash and compare three copies of ``nbytes``."""
        return 3.0 * float(nbytes) / self.compare_rate


@dataclass(eq=False)
class _Flow:
    src: str
    dst: str
    left: float
    done: Signal
    rate: float = 0.0


class Network:
    """Messages and fair-shared data flows between named nodes on an :class:`Engine`.

    Flows share links max-min fairly (progressive filling), re-computed
    whenever a flow starts or ends: two flows leaving the same node each get
    half of its uplink, a node receiving two copies gets each at half rate.
    """

    def __init__(self, engine: Engine, cost: CostModel) -> None:
        self.engine = engine
        self.cost = cost
        self.capacity = cost.bandwidth_mbps * 1e6 / 8.0  # bytes per second
        self._flows: list[_Flow] = []
        self._updated = 0.0
        self._version = 0
        self.bytes_sent = 0.0

    def message(self) -> Signal:
        """A small control message: arrives after the latency."""
        return self.engine.timeout(self.cost.latency)

    def transfer(self, src: str, dst: str, nbytes: float) -> Signal:
        """Send ``nbytes`` from node ``src`` to node ``dst``; fires on arrival (at once if same node)."""
        if src == dst or nbytes <= 0:
            return self.engine.fired()
        self._advance()
        flow = _Flow(src, dst, float(nbytes), self.engine.signal())
        self._flows.append(flow)
        self.bytes_sent += nbytes
        self._reschedule()
        return flow.done

    def _advance(self) -> None:
        elapsed = self.engine.now - self._updated
        for flow in self._flows:
            flow.left -= flow.rate * elapsed
        self._updated = self.engine.now

    def _share(self) -> None:
        """Max-min fair rates: every flow uses its source's uplink and its destination's downlink."""
        capacity: dict[tuple[str, str], float] = defaultdict(lambda: self.capacity)
        links = {id(f): (("up", f.src), ("down", f.dst)) for f in self._flows}
        waiting = list(self._flows)
        while waiting:
            users: dict[tuple[str, str], int] = defaultdict(int)
            for flow in waiting:
                for link in links[id(flow)]:
                    users[link] += 1
            rate = min(capacity[link] / n for link, n in users.items())
            tight = {link for link, n in users.items() if capacity[link] / n <= rate * (1 + 1e-12)}
            still = []
            for flow in waiting:
                if tight.intersection(links[id(flow)]):
                    flow.rate = rate
                    for link in links[id(flow)]:
                        capacity[link] -= rate
                else:
                    still.append(flow)
            waiting = still

    def _reschedule(self) -> None:
        self._share()
        self._version += 1
        if self._flows:
            soonest = min(max(f.left, 0.0) / f.rate for f in self._flows)
            self.engine.schedule(soonest, self._finish, self._version)

    def _finish(self, version: int) -> None:
        if version != self._version:
            return
        self._advance()
        done = [f for f in self._flows if f.left <= 1e-6]
        self._flows = [f for f in self._flows if f.left > 1e-6]
        for flow in done:
            self.engine.schedule(self.cost.latency, flow.done.fire)
        self._reschedule()
