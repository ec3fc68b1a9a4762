"""The dissemination barriers (DLCT paper, section 4): ``dissemination`` and the two-layer ``dissemination+tree``.

- ``dissemination`` (:class:`Dissemination`): round ``k``
  (``k < ceil(log2 N)``) sends to rank ``(i + 2**k) mod N`` and waits for
  ``(i - 2**k) mod N``; ``N log N`` messages (ranks: node order, off the grid
  participant order);
- ``dissemination+tree`` (:class:`DisseminationTree`): minimum spanning trees
  inside ``block x block`` squares gather to the blocks' leaders, the leaders
  run Dissemination among themselves, then each leader releases its tree.

:class:`DisseminationRounds` holds the rounds both share.

References: [DLCT19, §4] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import math

from vizcoll.barrier.base import BarrierRun, children_of
from vizcoll.barrier.network import Message
from vizcoll.barrier.schedules import dissemination_schedule, dissemination_tree_schedule
from vizcoll.barrier.twophase import FixedTree, TwoPhase

__all__ = ["DisseminationRounds", "Dissemination", "DisseminationTree", "rounds"]


def rounds(members: int) -> int:
    """The dissemination rounds among ``members`` processors: ``ceil(log2 members)`` (0 for one)."""
    return math.ceil(math.log2(members)) if members > 1 else 0


class DisseminationRounds:
    """The dissemination rounds among :attr:`members`, shared by ``dissemination`` and ``dissemination+tree``.

    Round ``k`` (``k < ceil(log2 M)``) sends to the member ``2**k`` places
    further (cyclic) and waits for the one ``2**k`` places before; a message
    of a round not yet reached (or of the next barrier) is kept as a flag.
    Subclasses call :meth:`init_rounds` and :meth:`start_rounds` and implement
    :meth:`finished_rounds` and :meth:`in_rounds`.
    """

    def init_rounds(self, members: list[int]) -> None:
        """Set up the rounds among ``members`` (in this order)."""
        self.members = list(members)
        self._pos = {v: i for i, v in enumerate(self.members)}
        self.rounds = rounds(len(self.members))
        self.round = dict.fromkeys(self.nodes, 0)
        self.flags: dict[int, set] = {u: set() for u in self.nodes}

    def partner(self, u: int, k: int, step: int) -> int:
        """The member ``step * 2**k`` places after ``u`` (cyclic)."""
        return self.members[(self._pos[u] + step * (1 << k)) % len(self.members)]

    def finished_rounds(self, t: float, u: int) -> None:
        """All rounds done."""
        raise NotImplementedError

    def in_rounds(self, u: int) -> bool:
        """Is ``u`` running its rounds now?"""
        raise NotImplementedError

    def start_rounds(self, t: float, u: int) -> None:
        """Begin the rounds of ``u``'s current barrier."""
        self.round[u] = 0
        self._advance(t, u)

    def _advance(self, t: float, u: int) -> None:
        while True:
            k = self.round[u]
            if k == self.rounds:
                self.finished_rounds(t, u)
                return
            if ("sent", k) not in self.flags[u]:
                self.flags[u].add(("sent", k))
                self.send(t, "diss", u, self.partner(u, k, 1), round=k)
            key = (self.cur[u], k)
            if key not in self.flags[u]:
                return
            self.flags[u] -= {key, ("sent", k)}
            self.round[u] = k + 1

    def on_diss(self, t: float, msg: Message) -> None:
        """A dissemination message: set its flag, and go on if it was the one awaited."""
        u, k = msg.dst, msg.data["round"]
        self.require(msg.src == self.partner(u, k, -1), lambda: "dissemination message from the wrong partner")
        self.require(
            msg.barrier in (self.cur[u], self.cur[u] + 1),
            lambda: f"{self.names[u]} in barrier {self.cur[u] + 1} got a message of barrier {msg.barrier + 1}",
        )
        key = (msg.barrier, k)
        self.require(key not in self.flags[u], lambda: "duplicate dissemination message")
        self.flags[u].add(key)
        if self.rec.enabled:
            self.rec.add(
                t,
                "deliver",
                msg.src,
                u,
                (),
                f"{self.names[u]} got round {k + 1} of barrier {msg.barrier + 1} from {self.names[msg.src]}",
            )
        if msg.barrier == self.cur[u] and self.in_rounds(u):
            self._advance(t, u)

    def describe(self, msg: Message) -> str:
        if msg.kind == "diss":
            return f"Dissemination round {msg.data['round'] + 1}"
        return msg.kind.capitalize()


class Dissemination(DisseminationRounds, BarrierRun):
    """``dissemination``: ``ceil(log2 N)`` rounds among all processors, in node order."""

    name, label, title = "dissemination", "Dissemination", "Dissemination barrier"
    help = "round k sends to rank i + 2^k and waits for rank i - 2^k (N log N messages)"
    colour, goal_schedule = "#9467bd", staticmethod(dissemination_schedule)

    @classmethod
    def messages_per_barrier(cls, n: int, groups: int) -> int:
        """``ceil(log2 n)`` rounds of one message per processor."""
        return n * rounds(n)

    def setup(self) -> None:
        self.init_rounds(self.nodes)

    def enter(self, t: float, u: int) -> None:
        self.start_rounds(t, u)

    def finished_rounds(self, t: float, u: int) -> None:
        self.leave(t, u)

    def in_rounds(self, u: int) -> bool:
        return self.phase[u] == "gather"

    def deliver(self, t: float, msg: Message) -> None:
        self.on_diss(t, msg)


class DisseminationTree(DisseminationRounds, FixedTree, TwoPhase):
    """``dissemination+tree``: spanning trees inside ``block x block`` squares, Dissemination among their leaders.

    Off the grid the squares are the groups of processes under one leaf switch
    (:meth:`~vizcoll.barrier.fabric.FabricNetwork.groups`).
    """

    name, label, title = "dissemination+tree", "Dissemination + Tree", "Dissemination + Tree barrier (two layers)"
    help = "trees gather each block to its leader, the leaders disseminate, then each releases its tree"
    colour, goal_schedule = "#c5b0d5", staticmethod(dissemination_tree_schedule)

    @classmethod
    def messages_per_barrier(cls, n: int, groups: int) -> int:
        """A Gather and a Release per processor but the leaders, and the leaders' rounds."""
        return 2 * (n - groups) + groups * rounds(groups)

    def setup(self) -> None:
        super().setup()
        leaders, self.par = [], {}
        for leader, members in self.grid.groups(self.p.block):
            par = self.grid.spanning_tree(leader, set(members))
            self.par.update({u: par.get(u, leader) for u in members})  # cut off inside the block: via the network
            self.par[leader] = -1
            leaders.append(leader)
        self.kids = children_of(self.par)
        self.init_rounds(leaders)
        self.exchanging = dict.fromkeys(self.nodes, False)

    def at_root(self, t: float, u: int) -> None:
        self.exchanging[u] = True
        self.mark(t, u, "exchanging", f"leader {self.names[u]} has its block and starts the dissemination")
        self.start_rounds(t, u)

    def finished_rounds(self, t: float, u: int) -> None:
        self.exchanging[u] = False
        self.release(t, u, None)

    def in_rounds(self, u: int) -> bool:
        return self.exchanging[u]

    def other(self, t: float, msg: Message) -> None:
        self.require(msg.kind == "diss", lambda: f"unexpected {msg.kind} message")
        self.on_diss(t, msg)
