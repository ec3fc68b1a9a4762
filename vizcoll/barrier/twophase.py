"""The two-phase family: Gather up a tree, then Release down (``ms``, ``tree``, ``tournament``, DLCT, ...).

:class:`TwoPhase` is the machinery (waiting for Gathers, the next barrier's
early Gathers kept in a queue, forwarding the Release, checks); an algorithm
gives the tree through a few hooks (:meth:`TwoPhase.expected`,
:meth:`TwoPhase.parent`, :meth:`TwoPhase.plan`, ...). :class:`FixedTree`
gives those hooks for a tree that does not change between barriers.
"""

from __future__ import annotations

from vizcoll.barrier.base import BarrierRun
from vizcoll.barrier.network import Message
from vizcoll.words import plural

__all__ = ["TwoPhase", "FixedTree"]


class TwoPhase(BarrierRun):
    """Gather up a tree, then Release down (the two-phase family); subclasses give the tree.

    A processor waits for :meth:`expected` Gather messages, *clears its Gather
    queue* (consumes them all), then sends its own Gather to :meth:`parent`
    (or, at a root, calls :meth:`at_root`). A Gather that arrives after that
    belongs to the next barrier: it waits in a queue until the processor
    enters that barrier (checked). On Release a processor first forwards it
    (:meth:`plan`), then :meth:`adjust` s, then leaves.
    """

    def setup(self) -> None:
        self.got = dict.fromkeys(self.nodes, 0)
        self.acc = dict.fromkeys(self.nodes, 0)
        self.queued: dict[int, list[Message]] = {u: [] for u in self.nodes}
        self.sent_to = dict.fromkeys(self.nodes, -1)

    # ------------------------------------------------------------ hooks
    def expected(self, u: int) -> int:
        """Number of Gather messages ``u`` waits for in its current barrier."""
        raise NotImplementedError

    def parent(self, u: int) -> int:
        """Where ``u`` sends its Gather (-1: ``u`` is a root)."""
        raise NotImplementedError

    def plan(self, u: int, msg: Message | None) -> list[tuple[int, int, dict]]:
        """Release messages ``u`` sends: ``(target, content, data)`` (``msg`` is None at the root)."""
        raise NotImplementedError

    def belongs(self, u: int, msg: Message) -> bool:
        """Is this Gather one ``u`` expects in its current barrier?"""
        return True

    def release_ok(self, u: int, msg: Message) -> bool:
        """Is this Release the one ``u`` waits for? (By default: from the node its Gather went to.)"""
        return msg.src == self.sent_to[u]

    def consume(self, u: int, msg: Message) -> None:
        """Take one expected Gather into account (adds its path length)."""
        self.acc[u] += msg.content

    def gather_data(self, u: int) -> dict:
        """Extra fields of ``u``'s Gather message."""
        return {}

    def at_root(self, t: float, u: int) -> None:
        """A root has everything: release."""
        self.release(t, u, None)

    def adjust(self, t: float, u: int, msg: Message | None) -> None:
        """After forwarding the Release (DLCT applies ``round(K)`` here)."""

    # ------------------------------------------------------------ engine
    def enter(self, t: float, u: int) -> None:
        self.got[u], self.acc[u] = 0, 0
        waiting, self.queued[u] = self.queued[u], []
        for msg in waiting:
            self._take(u, msg)
        self._check(t, u)

    def deliver(self, t: float, msg: Message) -> None:
        u = msg.dst
        if msg.kind == "gather":
            self._gather(t, u, msg)
        elif msg.kind == "release":
            self.require(
                self.phase[u] == "release" and msg.barrier == self.cur[u] and self.release_ok(u, msg),
                lambda: (
                    f"{self.names[u]} got a Release of barrier {msg.barrier + 1} from {self.names[msg.src]} "
                    f"while in phase {self.phase[u]} of barrier {self.cur[u] + 1}"
                ),
            )
            if self.rec.enabled:
                self.mark(
                    t,
                    u,
                    "released",
                    f"{self.names[u]} gets the Release from {self.names[msg.src]}",
                    kind="deliver",
                    src=msg.src,
                )
            self.release(t, u, msg)
        else:
            self.other(t, msg)

    def other(self, t: float, msg: Message) -> None:
        """A message of another kind (none by default)."""
        self.require(False, lambda: f"unexpected {msg.kind} message")

    def _gather(self, t: float, u: int, msg: Message) -> None:
        name = self.names[u]
        if self.phase[u] == "gather":
            self.require(
                msg.barrier == self.cur[u],
                lambda: f"{name} in barrier {self.cur[u] + 1} got a Gather of barrier {msg.barrier + 1}",
            )
            self._take(u, msg)
            if self.rec.enabled:
                self.mark(
                    t,
                    u,
                    "waiting",
                    f"{name} got the Gather of {self.names[msg.src]} ({self.got[u]} of {self.expected(u)})",
                    kind="deliver",
                    src=msg.src,
                )
            self._check(t, u)
            return
        # u already sent its Gather (its queue was cleared): this one is the next barrier's
        self.require(
            msg.barrier == self.cur[u] + 1,
            lambda: (
                f"{name} past the Gather of barrier {self.cur[u] + 1} got a "
                f"Gather of barrier {msg.barrier + 1}: barriers mixed"
            ),
        )
        self.queued[u].append(msg)
        self.early += 1
        if self.rec.enabled:
            self.rec.add(
                t,
                "deliver",
                msg.src,
                u,
                (),
                f"{name} queues an early Gather of barrier {msg.barrier + 1} "
                f"from {self.names[msg.src]} until it enters that barrier",
            )

    def _take(self, u: int, msg: Message) -> None:
        self.require(
            msg.barrier == self.cur[u] and self.belongs(u, msg),
            lambda: (
                f"{self.names[u]} cannot use the Gather of barrier {msg.barrier + 1} from "
                f"{self.names[msg.src]} in barrier {self.cur[u] + 1}: barriers or patterns mixed"
            ),
        )
        self.got[u] += 1
        self.require(self.got[u] <= self.expected(u), lambda: f"{self.names[u]} got too many Gather messages")
        self.consume(u, msg)

    def _check(self, t: float, u: int) -> None:
        if self.got[u] < self.expected(u):
            return
        self.phase[u] = "release"
        p = self.parent(u)
        if p < 0:
            self.at_root(t, u)
            return
        self.sent_to[u] = p
        self.send(t, "gather", u, p, self.acc[u], **self.gather_data(u))
        if self.rec.enabled:
            self.mark(t, u, "gathered", f"{self.names[u]} sends its Gather to {self.names[p]}")

    def release(self, t: float, u: int, msg: Message | None) -> None:
        """Forward the Release (``msg`` None: ``u`` is the root), adjust, leave."""
        targets = self.plan(u, msg)
        for v, content, data in targets:
            self.send(t, "release", u, v, content, **data)
        if msg is None:
            self.note(
                t,
                f"{self.names[u]} has every Gather of barrier {self.cur[u] + 1} and releases "
                f"{plural(len(targets), 'node')}",
                kind="release",
            )
        self.adjust(t, u, msg)
        self.leave(t, u)


class FixedTree:
    """Two-phase hooks for a fixed tree kept as ``self.par`` (parent per node) and ``self.kids``."""

    def expected(self, u: int) -> int:
        return len(self.kids[u])

    def parent(self, u: int) -> int:
        return self.par[u]

    def plan(self, u: int, msg: Message | None) -> list[tuple[int, int, dict]]:
        return [(v, 0, {}) for v in self.kids[u]]
