"""DLCT, the barrier whose communication pattern adjusts itself ([DLCT19] Algorithm 2), and its two-level variants.

**The pattern.** Every processor has an ID ``(num(x, y) + offset) mod n``
(``num`` = the S-curve by default); it sends its Gather to the processor
holding ``G(ID)`` (LCT: ``ID & (ID - 1)``) and releases the processors holding
``R(ID)``. The maps never change: only the offset does.

**[DLCT19] Algorithm 2**, as simulated (per processor):

1. ID and the number of Gather messages to expect (``len(R(ID))``);
2. *Gather*: wait for all children's Gathers; add up their path lengths
   (``content``, incremented by the network at every hop); **clear the
   Gather queue, then** send the own Gather (content = that sum) to the parent;
3. *Release*: a non-root waits for its parent's Release and reads ``K`` from
   it; the root *judges* (below) and picks ``K``; forward the Release (content
   ``K``) to the children;
4. *Adjust*: apply ``round(K)`` (``ID' = (ID + K) mod n``) to the own ID,
   leave, compute. The next barrier's Gather of a processor that switched
   early may reach one that has not switched yet; it waits in that
   processor's queue until it enters the next barrier (the queue was cleared
   before, so two barriers never mix: checked, see
   :class:`~vizcoll.barrier.twophase.TwoPhase`).

**The judge** (the paper leaves it open; ``judge=``):

- ``"model"`` (default): the root compares the gathered total path length
  with the ideal one, the total of the same Gather messages routed on the
  intact grid (it knows the grid and the numbering). If the gathered total
  is larger, a harmful break exists; the root then evaluates every
  ``K = 0..n-1`` with its model of the live network (the routing of
  :class:`~vizcoll.barrier.grid.GridNetwork`: we assume the root knows the
  broken links, as the nodes' neighbor tables do, like link-state routing)
  and takes the ``K`` whose routed pattern has the shortest *critical
  chains* (the longest Gather chain plus the longest Release chain, counting
  hops + 1 per message; it bounds the barrier's time), then the fewest total
  hops, then the smallest ``K``; ``K = 0`` unless that is strictly better
  than now. In the two-level variants the estimate also counts the block
  root's messages to and from the other blocks' roots (the shift moves the
  block's root; ``K`` still only acts inside the block). The root's model
  of the current pattern reproduces the gathered total exactly
  (``figures["judged"]``: ``"gathered"`` == ``"model"``).
- ``"hops"``: the same, but fewest total hops first, critical chains second;
- ``"step"``: the paper's example: any excess → ``round(1)``;
- ``"never"``: no adjustment (a static LCT).

**Two levels** (the paper: "DLCT alone scales poorly; ID1 = DLCT + MS,
ID2 = DLCT + Tree; the adjustment acts on the DLCT level only"; its UQ
experiment stays on 4x4 "because DLCT extends through two-level barriers").
Our split: the grid is cut into ``block x block`` squares (4 by default), each
with its own DLCT (own S-curve numbering, own offset, own judge at its ID 0).
Block roots (ID 0 of their block) then synchronise across blocks:

- ``dlct+ms`` (ID1): every block root sends its block's Gather to the root of
  the master block (the block whose initial root is nearest the grid centre),
  which releases them;
- ``dlct+tree`` (ID2): block roots gather along a BFS tree of blocks (two
  blocks are adjacent when a live link joins them) rooted at the master block.

A block root judges its own block when it gets the top-level Release (the
master block's root when it has everything) and passes the Release on, with
``K`` in its own block and with its block's new offset to the child blocks'
roots (their Gathers of the next barrier must find its new ID 0; the block
Release carries that offset down so whoever becomes the next block root knows
it). With one block (``dlct``, or a grid not larger than ``block``) there is
no top level.

References: [DLCT19, Alg. 2, §4] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import numpy as np

from vizcoll.barrier.base import JUDGES
from vizcoll.barrier.grid import Block, GridNetwork, grid_blocks
from vizcoll.barrier.network import Message
from vizcoll.barrier.structures import STRUCTURES, numbering
from vizcoll.barrier.twophase import TwoPhase
from vizcoll.topology.generators import mesh
from vizcoll.topology.model import Topology

__all__ = [
    "JUDGES",
    "DlctBarrier",
    "DlctMs",
    "DlctTree",
    "block_ids",
    "pattern_cost",
    "offset_costs",
    "four_node_example",
]


def block_ids(grid: GridNetwork, blk: Block, kind: str = "s-curve") -> list[int]:
    """Processors of ``blk`` in ID order under numbering ``kind`` (missing cells skipped, IDs renumbered)."""
    ids = numbering(kind, blk.h, blk.w)
    codes = [int(ids[grid.y[u] - blk.r0, grid.x[u] - blk.c0]) for u in blk.nodes]
    return [blk.nodes[i] for i in np.argsort(codes, kind="stable")]


def pattern_cost(grid: GridNetwork, at: list[int], offset: int, parent_of) -> tuple[float, float]:
    """Routed hops of the pattern's Gather and Release messages when ID ``j`` sits on ``at[(j - offset) % n]``.

    ``parent_of`` is the structure's Gather map; a message that cannot arrive costs ``inf``.
    """
    n = len(at)
    gather = release = 0.0
    for j in range(1, n):
        child, up = at[(j - offset) % n], at[(parent_of(j) - offset) % n]
        gather += grid.hops(child, up)
        release += grid.hops(up, child)
    return gather, release


def critical_cost(grid: GridNetwork, at: list[int], offset: int, parent_of) -> tuple[float, float]:
    """Longest Gather chain and longest Release chain of the pattern, in messages handled (hops + 1 each)."""
    n = len(at)
    node = [at[(j - offset) % n] for j in range(n)]
    up = [0.0] * n
    for j in range(n - 1, 0, -1):
        p = parent_of(j)
        up[p] = max(up[p], up[j] + grid.hops(node[j], node[p]) + 1)
    down = [0.0] * n
    for j in range(1, n):
        down[j] = down[parent_of(j)] + grid.hops(node[parent_of(j)], node[j]) + 1
    return up[0], max(down)


def offset_costs(grid: GridNetwork, at: list[int], parent_of) -> tuple[np.ndarray, np.ndarray]:
    """:func:`critical_cost` and :func:`pattern_cost` of the pattern at every offset ``0..n-1`` at once, each pair
    summed: ``(critical chains, total hops)``, two float arrays over the offsets.

    A message of ID ``j`` goes between the processors ``at[(j - off) % n]`` and ``at[(p(j) - off) % n]``, whose
    places differ by ``j - p(j)`` whatever the offset (a power of two for LCT and BST): the hops of every pair of
    processors that far apart are read once per difference, then every offset's chains are taken at once, in the
    order :func:`critical_cost` takes them (so the floats are the same).

    >>> from vizcoll.topology.generators import mesh
    >>> from vizcoll.barrier.structures import lct_parent
    >>> grid = GridNetwork(mesh((3, 3), neighbors=4, hosts=0))
    >>> crit, total = offset_costs(grid, grid.nodes, lct_parent)
    >>> off = 4
    >>> (crit[off], total[off]) == (sum(critical_cost(grid, grid.nodes, off, lct_parent)),
    ...                             sum(pattern_cost(grid, grid.nodes, off, lct_parent)))
    True
    """
    n = len(at)
    ids = np.arange(1, n)
    parents = np.array([parent_of(j) for j in range(1, n)], dtype=np.int64)
    place = (ids[:, None] - np.arange(n)[None, :]) % n  # place[j - 1, off]: where ID j sits at that offset
    gather, release = np.empty((n - 1, n)), np.empty((n - 1, n))
    for d in np.unique(ids - parents).tolist():
        rows = np.flatnonzero(ids - parents == d)
        up = np.array([grid.hops(at[a], at[(a - d) % n]) for a in range(n)], dtype=float)
        down = np.array([grid.hops(at[(a - d) % n], at[a]) for a in range(n)], dtype=float)
        gather[rows], release[rows] = up[place[rows]], down[place[rows]]
    chain_up, chain_down = np.zeros((n, n)), np.zeros((n, n))
    for j in range(n - 1, 0, -1):
        p = parents[j - 1]
        chain_up[p] = np.maximum(chain_up[p], chain_up[j] + gather[j - 1] + 1)
    for j in range(1, n):
        chain_down[j] = chain_down[parents[j - 1]] + release[j - 1] + 1
    return chain_up[0] + chain_down.max(axis=0), gather.sum(axis=0) + release.sum(axis=0)


class DlctBarrier(TwoPhase):
    """``dlct``: one LCT over the whole grid with the asynchronous adjustment ``round(K)``."""

    name, label, title, short = "dlct", "DLCT", "DLCT barrier", "DLCT"
    help = "the paper's: one LCT over the grid, adjusted by round(K) around broken links (grid only)"
    colour = "#d62728"
    grid_only = True
    top: str | None = None

    def setup(self) -> None:
        super().setup()
        p, g = self.p, self.grid
        self.parent_id, self.children_id = STRUCTURES[p.structure]
        size = p.block if self.top else max(g.rows, g.cols)
        self.blocks = grid_blocks(g, size)
        self.at = [block_ids(g, blk, p.numbering) for blk in self.blocks]
        self.base = {u: j for at in self.at for j, u in enumerate(at)}
        self.block_of = {u: blk.index for blk in self.blocks for u in blk.nodes}
        self.off = dict.fromkeys(self.nodes, 0)  # each processor's own offset: its ID is base + off
        self.up_off = dict.fromkeys(self.nodes, 0)  # what it knows of its parent block's offset
        self.k_now = dict.fromkeys(self.nodes, 0)
        self.senders: dict[int, list[int]] = {u: [] for u in self.nodes}
        self.root_block = self._master_block() if self.top else 0
        self.top_parent = self._top_tree()
        self.top_kids = [[c for c, q in enumerate(self.top_parent) if q == b] for b in range(len(self.blocks))]
        self.intact = GridNetwork(self.topo, p.routing, include_broken=True)
        self.judged: list[dict] = []
        self._costs: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _master_block(self) -> int:
        """The block whose initial root (ID 0) is nearest the grid centre (ties: lowest block)."""
        g = self.grid
        cy, cx = (g.rows - 1) / 2, (g.cols - 1) / 2
        return min(
            range(len(self.blocks)), key=lambda b: ((g.y[self.at[b][0]] - cy) ** 2 + (g.x[self.at[b][0]] - cx) ** 2, b)
        )

    def _top_tree(self) -> list[int]:
        """Parent block of every block (-1 for the master block)."""
        nb = len(self.blocks)
        parent = [self.root_block] * nb
        parent[self.root_block] = -1
        if self.top == "tree":
            adj: dict[int, set[int]] = {b: set() for b in range(nb)}
            for u, v in self.grid.link:
                if self.block_of[u] != self.block_of[v]:
                    adj[self.block_of[u]].add(self.block_of[v])
            seen, frontier = {self.root_block}, [self.root_block]
            while frontier:
                nxt = []
                for b in frontier:
                    for c in sorted(adj[b] - seen):
                        seen.add(c)
                        parent[c] = b
                        nxt.append(c)
                frontier = nxt
        return parent

    # ------------------------------------------------------------ IDs
    def ident(self, u: int) -> int:
        """``u``'s current ID in its block (by its own knowledge)."""
        return (self.base[u] + self.off[u]) % len(self.at[self.block_of[u]])

    def holder(self, b: int, ident: int, off: int) -> int:
        """The processor holding ``ident`` in block ``b`` when the block's offset is ``off``."""
        at = self.at[b]
        return at[(ident - off) % len(at)]

    def describe(self, msg: Message) -> str:
        top = " (between blocks)" if msg.data.get("level") == "top" else ""
        if msg.kind == "release" and not top:
            return f"Release K={msg.content}"
        return msg.kind.capitalize() + top

    # ------------------------------------------------------------ TwoPhase hooks
    def enter(self, t: float, u: int) -> None:
        self.senders[u] = []
        super().enter(t, u)

    def expected(self, u: int) -> int:
        b, i = self.block_of[u], self.ident(u)
        return len(self.children_id(i, len(self.at[b]))) + (len(self.top_kids[b]) if i == 0 else 0)

    def parent(self, u: int) -> int:
        b, i = self.block_of[u], self.ident(u)
        if i:
            return self.holder(b, self.parent_id(i), self.off[u])
        pb = self.top_parent[b]
        return -1 if pb < 0 else self.holder(pb, 0, self.up_off[u])

    def gather_data(self, u: int) -> dict:
        i = self.ident(u)
        return {"id": i, "block": self.block_of[u], "level": "block" if i else "top"}

    def belongs(self, u: int, msg: Message) -> bool:
        b, i, d = self.block_of[u], self.ident(u), msg.data
        if d["level"] == "top":
            return i == 0 and self.top_parent[d["block"]] == b
        return d["block"] == b and self.parent_id(d["id"]) == i

    def consume(self, u: int, msg: Message) -> None:
        if msg.data["level"] == "top":
            self.senders[u].append(msg.src)  # the Gather's path length counts in its own block only
        else:
            self.acc[u] += msg.content

    def plan(self, u: int, msg: Message | None) -> list[tuple[int, int, dict]]:
        b, i, n = self.block_of[u], self.ident(u), len(self.at[self.block_of[u]])
        if i == 0:
            if msg is not None:
                self.up_off[u] = msg.data["up_off"]
            self.k_now[u] = self.judge(msg.barrier if msg else self.cur[u], u)
        else:
            self.k_now[u] = msg.content
            self.up_off[u] = msg.data["up_off"]
        k = self.k_now[u]
        down = {"level": "block", "id": i, "up_off": self.up_off[u]}
        out = [(self.holder(b, c, self.off[u]), k, down) for c in self.children_id(i, n)]
        if i == 0:
            across = {"level": "top", "id": 0, "up_off": (self.off[u] + k) % n}
            out += [(v, 0, across) for v in self.senders[u]]
        return out

    def adjust(self, t: float, u: int, msg: Message | None) -> None:
        k, n = self.k_now[u], len(self.at[self.block_of[u]])
        old = self.ident(u)
        self.off[u] = (self.off[u] + k) % n
        if k and self.rec.enabled:
            name = self.names[u]
            self.rec.add(
                t,
                "state",
                -1,
                u,
                (),
                f"{name} applies round({k}): ID {old} → {self.ident(u)}",
                {f"id:{name}": self.ident(u)},
            )

    # ------------------------------------------------------------ judge
    def _ideal(self, b: int, off: int) -> float:
        return pattern_cost(self.intact, self.at[b], off, self.parent_id)[0]

    def model_costs(self, b: int, u: int) -> list[tuple[float, float]]:
        """The judge's estimate for block ``b`` at every offset: (critical chains, total hops), Gather + Release
        (:func:`offset_costs`, kept for the run: the live grid does not change).

        With two levels it adds the block root's own messages between blocks
        (to the parent block's next root, from the child blocks' current
        roots, both ways), as seen by the judging root ``u``.
        """
        if b not in self._costs:
            self._costs[b] = offset_costs(self.grid, self.at[b], self.parent_id)
        crit, total = self._costs[b]
        if not self.top:
            return list(zip(crit.tolist(), total.tolist(), strict=True))
        pb = self.top_parent[b]
        ends = ([self.holder(pb, 0, self.up_off[u])] if pb >= 0 else []) + self.senders[u]
        out = []
        for off in range(len(self.at[b])):
            root = self.holder(b, 0, off)
            top = [self.grid.hops(root, v) + self.grid.hops(v, root) for v in ends]
            out.append((float(crit[off]) + max(top, default=0), float(total[off]) + sum(top)))
        return out

    def judge(self, barrier: int, u: int) -> int:
        """The root of block ``b`` decides ``K`` from the gathered path length (see the module docstring)."""
        b, n, off, gathered = self.block_of[u], len(self.at[self.block_of[u]]), self.off[u], self.acc[u]
        ideal = self._ideal(b, off)
        k, live = 0, None
        if self.p.judge != "never" and gathered > ideal:
            if self.p.judge == "step":
                k = 1 % n
            else:
                every = self.model_costs(b, u)
                costs = [every[(off + j) % n] for j in range(n)]
                if self.p.judge == "hops":
                    costs = [c[::-1] for c in costs]
                best = min(range(n), key=lambda j: (costs[j], j))
                k = best if costs[best] < costs[0] else 0
                live = pattern_cost(self.grid, self.at[b], off, self.parent_id)[0]
        self.adjustments += k != 0
        self.judged.append(
            {
                "barrier": barrier,
                "block": b,
                "root": self.names[u],
                "gathered": gathered,
                "ideal": ideal,
                "model": live,
                "k": k,
            }
        )
        if self.rec.enabled:
            where = f" of block {b}" if len(self.blocks) > 1 else ""
            verdict = (
                f"a harmful break → round({k})"
                if k
                else "a break, but no shift does better → round(0)"
                if gathered > ideal
                else "no harmful break"
            )
            self.note(
                self.engine.now,
                f"Root {self.names[u]}{where} gathered a total path length of {gathered} (ideal {ideal:g}): {verdict}",
            )
        return k

    # ------------------------------------------------------------ output
    def initial_state(self) -> dict:
        state = super().initial_state()
        state.update({f"id:{self.names[u]}": self.base[u] for u in self.nodes})
        return state

    def entities(self) -> dict:
        out = super().entities()
        out.update({f"id:{self.names[u]}": {"node": u, "kind": "id"} for u in self.nodes})
        return out

    def figures(self) -> dict:
        out = super().figures()
        ks: list[list[int | None]] = [[None] * len(self.blocks) for _ in range(self.p.barriers)]
        for rec in self.judged:
            ks[rec["barrier"]][rec["block"]] = rec["k"]
        out.update(
            k=ks,
            judged=self.judged,
            blocks=len(self.blocks),
            final_ids={self.names[u]: self.ident(u) for u in self.nodes},
        )
        return out


class DlctMs(DlctBarrier):
    """``dlct+ms`` (ID1): DLCT inside ``block x block`` squares, master–slave between the block roots."""

    name, label, title, short, top = "dlct+ms", "DLCT + MS (ID1)", "DLCT + MS barrier (ID1)", "DLCT + MS", "ms"
    help = "DLCT inside block x block squares, master–slave between their roots (grid only)"
    colour = "#ff7f0e"


class DlctTree(DlctBarrier):
    """``dlct+tree`` (ID2): DLCT inside ``block x block`` squares, a BFS tree of blocks between their roots."""

    name, label, title, short, top = (
        "dlct+tree",
        "DLCT + Tree (ID2)",
        "DLCT + Tree barrier (ID2)",
        "DLCT + Tree",
        "tree",
    )
    help = "DLCT inside block x block squares, a tree of blocks between their roots (grid only)"
    colour = "#2ca02c"


def four_node_example() -> Topology:
    """The spec's 4-node example: a 2x2 grid, 8 neighbors, the link between IDs 0 and 2 broken.

    S-curve IDs: ``sw0-0`` = 0, ``sw0-1`` = 1, ``sw1-1`` = 2, ``sw1-0`` = 3.

    >>> int(four_node_example().broken.sum())
    1
    """
    topo = mesh((2, 2), neighbors=8, hosts=0)
    (lid,) = topo.links_between("sw0-0", "sw1-1")
    topo.set_broken(lid)
    return topo
