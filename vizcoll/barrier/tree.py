"""The tree barriers: Gather up a tree to one root, then Release (the DLCT barrier paper, section 4).

- ``ms`` (:class:`MasterSlave`, a single-level tree): everyone sends its
  Gather to the master, the processor nearest the grid centre (off the grid:
  the process with the smallest total hop distance to the others), which then
  releases everyone, one message each;
- ``tree`` (:class:`TreeBarrier`): a minimum spanning tree of the network
  (links weighted by length) from the processor nearest the centre, on the
  live or the intact grid (``tree_on``);
- ``tournament`` (:class:`Tournament`): a binomial Gather on node order to
  the champion (node order 0), then a flat Release.

The details and the choices where the paper is silent are in
:mod:`vizcoll.barrier.algorithms`.

References: [DLCT19, §4] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from vizcoll.barrier.base import children_of
from vizcoll.barrier.network import Message
from vizcoll.barrier.schedules import ms_schedule, tournament_schedule, tree_schedule
from vizcoll.barrier.structures import lct_children, lct_parent
from vizcoll.barrier.twophase import FixedTree, TwoPhase

__all__ = ["MasterSlave", "TreeBarrier", "Tournament"]


class MasterSlave(TwoPhase):
    """``ms``: everyone ↔ the master (the processor nearest the grid centre; off the grid, the most central process)."""

    name, label, title = "ms", "MS (master–slave)", "Master–slave barrier"
    help = "everyone sends its Gather to the master, which releases everyone"
    colour, goal_schedule = "#7f7f7f", staticmethod(ms_schedule)

    def setup(self) -> None:
        super().setup()
        self.master = self.grid.centre()

    def expected(self, u: int) -> int:
        return self.n - 1 if u == self.master else 0

    def parent(self, u: int) -> int:
        return -1 if u == self.master else self.master

    def plan(self, u: int, msg: Message | None) -> list[tuple[int, int, dict]]:
        return [(v, 0, {}) for v in self.nodes if v != u] if u == self.master else []


class TreeBarrier(FixedTree, TwoPhase):
    """``tree``: a minimum spanning tree (links weighted by length) from the centre, on the live or intact grid.

    Off the grid: the minimum spanning tree of the processes weighted by their
    hop distance (:meth:`~vizcoll.barrier.fabric.FabricNetwork.spanning_tree`).
    Processors the tree cannot reach (cut off) send to the root through the
    network: their Gather dead-ends and the failure is reported.
    """

    name, label, title = "tree", "Tree (minimum spanning tree)", "Tree barrier (minimum spanning tree of the network)"
    help = "Gather up and Release down a minimum spanning tree of the network"
    colour, goal_schedule = "#1f77b4", staticmethod(tree_schedule)

    def setup(self) -> None:
        super().setup()
        self.root = self.grid.centre()
        net = self.grid if self.p.tree_on == "live" else self.grid.intact()
        self.par = net.spanning_tree(self.root)
        for u in self.nodes:
            self.par.setdefault(u, self.root)
        self.kids = children_of(self.par)


class Tournament(TwoPhase):
    """``tournament``: binomial Gather on node order to the champion (node order 0), flat Release."""

    name, label, title = "tournament", "Tournament", "Tournament barrier"
    help = "a binomial Gather to the champion, which releases everyone directly"
    colour, goal_schedule = "#bcbd22", staticmethod(tournament_schedule)

    def expected(self, u: int) -> int:
        return len(lct_children(self.rank[u], self.n))

    def parent(self, u: int) -> int:
        up = lct_parent(self.rank[u])
        return -1 if up < 0 else self.nodes[up]

    def plan(self, u: int, msg: Message | None) -> list[tuple[int, int, dict]]:
        return [(v, 0, {}) for v in self.nodes if v != u] if msg is None else []

    def release_ok(self, u: int, msg: Message) -> bool:
        return msg.src == self.nodes[0]
