"""Type II aggregation trees: root choice, physical tree and the minimum-cost derived tree (paper section 4).

A type II tree reduces inside the switches. Building one for a communicator
takes three steps (the aggregation-tree paper's type II trees):

1. **Root candidates.** For every switch the largest hop count to the
   communicator's NICs (:meth:`MinHopTable.eccentricity_to`, live links
   only; switches that cannot reach every NIC are dropped). The candidates
   are the switches with the smallest such count, ordered by load: most free
   aggregation-tree entries first, then the lightest *link load* (the summed
   number of earlier trees crossing the candidate's own live links), then
   node order.
2. **Physical tree** ``T`` (definition 9): the shortest path from every NIC to
   the root, walked deterministically: a NIC leaves through its
   lowest-numbered port with the fewest hops to the root, and every switch on
   the way up forwards through ``min_ports(switch, root)[0]`` (OpenSM's
   "lowest-numbered port with the least hops"). All these next hops form a
   tree towards the root, so the union of the paths is a tree whose leaves
   are exactly the NICs of the communicator. If every switch that needs an
   aggregation-tree entry has a free one, the candidate is taken, else the
   next candidate is tried; when none works the build fails (reported in
   :class:`TypeTwoTree`, never raised).
3. **Minimum-cost derived tree** ``A`` (definition 10, Algorithm 5,
   :func:`build_minimum_type_II_tree` in :mod:`vizcoll.trees.mincost`):
   vertices of ``T`` are only ever *promoted* to become children of one of
   their ancestors, every switch ``sw`` keeps at most ``K(sw)`` children, and
   the number of switches (the *cost*, one aggregation-tree entry each) is
   minimal.

**Several processes on one NIC.** ``T`` and ``A`` have one vertex per NIC;
:attr:`TypeTwoTree.ranks` lists the communicator ranks each NIC hosts (the
NIC combines them locally, no link is involved) and the vertex's label says
so (``"h3: ranks 4, 5"``). A member running on a switch (a fabric without end
nodes) becomes a leaf vertex below its own switch's vertex, 0 hops away.

**Degree bound.** ``K(sw) = max(D, children of sw in T)`` where ``D`` is the
``degree`` argument or, by default, the switch's radix (``nports``):
definition 10 requires ``K(sw)`` to be at least the child count in ``T``.

**Which switches need an entry** (``method``): ``"mincost"`` (default) the
switches of ``A``, the tree actually loaded into the switches;
``"physical"`` every switch of ``T`` (section 4.1 taken literally, the
"traditional" method the paper compares with).

References: [AGGT24, §4, Alg. 5] (keys: ``docs/papers.md``).

Examples
--------
>>> from vizcoll.topology import from_spec
>>> topo = from_spec("fat-tree:radix=4,levels=2")  # leaf0..3, spine0..1, h0..h7
>>> members = [topo.index(h) for h in ("h0", "h1", "h2", "h3")]
>>> result = type_two_tree(topo, members, degree=3)
>>> topo.names[result.root], result.physical_cost, result.cost
('spine0', 3, 2)
>>> [result.tree.label[c] for c in result.tree.children[0]]
['h0: rank 0', 'leaf1', 'h1: rank 1']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vizcoll.arrays import ranges, unique
from vizcoll.topology.hops import MinHopTable, min_hops
from vizcoll.topology.model import Topology
from vizcoll.trees.mincost import build_minimum_type_II_tree, tree_cost
from vizcoll.trees.tree import Tree, breadth_first

__all__ = [
    "METHODS",
    "Occupancy",
    "TypeTwoPlanner",
    "TypeTwoTree",
    "build_minimum_type_II_tree",
    "tree_cost",
    "type_two_tree",
]

METHODS = ("physical", "mincost")
_BIG = 1 << 30


@dataclass(frozen=True)
class Occupancy:
    """What the trees built before use of a fabric: free aggregation-tree entries and trees crossing each link.

    Neither array is modified.

    Parameters
    ----------
    free : numpy.ndarray, optional
        Free aggregation-tree entries per node (None = unlimited).
    link_load : numpy.ndarray, optional
        Trees already crossing each link row (for the candidate order).
    """

    free: np.ndarray | None = None
    link_load: np.ndarray | None = None


# ---------------------------------------------------------------- result
@dataclass
class TypeTwoTree:
    """The outcome of building one communicator's type II tree (:func:`type_two_tree`).

    A failed build is reported here (``ok`` False, :attr:`reason`), never raised. ``cost`` and ``physical_cost``
    (properties) count the switches of ``A`` and ``T``.

    Attributes
    ----------
    ok : bool
        False when no tree could be built; :attr:`reason` says why.
    reason : str
        Why the build failed ("" when it worked).
    root : int
        Node index of the chosen root switch of ``T`` (-1 on failure).
    physical : Tree or None
        The physical tree ``T`` (switches and NICs, ``node[v]`` = node index).
    tree : Tree or None
        The minimum-cost derived tree ``A`` (its root may be below ``root``
        when ``root`` would keep a single child).
    ranks : dict
        NIC (or member switch) node index -> communicator ranks it hosts.
    links : list of int
        Stable ids of the links of ``T`` (the links the tree's packets use).
    method : str
        ``"physical"`` or ``"mincost"``: whose switches needed an entry.
    candidates : int
        Number of candidate roots (switches with the smallest eccentricity).
    tried : int
        Candidates examined before success or failure.
    link_rows : numpy.ndarray
        Link rows of ``T``.
    physical_switches : numpy.ndarray
        Node indices of the switches of ``T``.
    tree_switches : numpy.ndarray
        Node indices of the switches of ``A`` (one aggregation-tree entry each).
    """

    ok: bool
    reason: str = ""
    root: int = -1
    physical: Tree | None = None
    tree: Tree | None = None
    ranks: dict[int, list[int]] = field(default_factory=dict)
    links: list[int] = field(default_factory=list)
    method: str = "mincost"
    candidates: int = 0
    tried: int = 0
    link_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)
    physical_switches: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)
    tree_switches: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)

    @property
    def cost(self) -> int:
        """Switches in the derived tree ``A`` (definition 11), 0 on failure."""
        return len(self.tree_switches)

    @property
    def physical_cost(self) -> int:
        """Switches in the physical tree ``T``, 0 on failure."""
        return len(self.physical_switches)

    @property
    def entry_switches(self) -> np.ndarray:
        """Node indices of the switches that hold an aggregation-tree entry under :attr:`method`."""
        return self.physical_switches if self.method == "physical" else self.tree_switches

    def vertex_ranks(self, which: str = "tree") -> list[list[int]]:
        """Ranks hosted by each vertex of ``tree`` (``which="tree"``) or ``physical``; [] for switches."""
        tree = self.tree if which == "tree" else self.physical
        if tree is None:
            return []
        leaves = [not kids for kids in tree.children]
        return [list(self.ranks.get(n, [])) if leaf else [] for n, leaf in zip(tree.node, leaves, strict=True)]

    def to_dict(self) -> dict:
        """JSON-serialisable form."""
        return {
            "ok": self.ok,
            "reason": self.reason,
            "root": self.root,
            "method": self.method,
            "cost": self.cost,
            "physical_cost": self.physical_cost,
            "candidates": self.candidates,
            "tried": self.tried,
            "links": list(self.links),
            "ranks": {str(k): list(v) for k, v in self.ranks.items()},
            "physical": None if self.physical is None else self.physical.to_dict(),
            "tree": None if self.tree is None else self.tree.to_dict(),
        }


# ---------------------------------------------------------------- planner
def _widen(values: np.ndarray, sentinel: int) -> np.ndarray:
    out = values.astype(np.int64)
    out[values == sentinel] = _BIG
    return out


@dataclass
class _Physical:
    """Arrays of one physical tree before it becomes a :class:`Tree`."""

    switches: np.ndarray  # switch nodes of T
    up: dict[int, int]  # switch node -> parent switch node
    entry: np.ndarray  # per NIC (sorted unique): the switch it hangs below
    link_rows: np.ndarray  # link rows of T


class TypeTwoPlanner:
    """Builds type II trees on one fabric (routing arrays are prepared once).

    Parameters
    ----------
    topo : Topology
        The fabric (its broken links are skipped).
    table : MinHopTable, optional
        ``min_hops(topo)``, built when not given.
    """

    def __init__(self, topo: Topology, table: MinHopTable | None = None):
        self.topo = topo
        self.table = table if table is not None else min_hops(topo)
        self.radix = np.asarray(topo.nports, dtype=np.int64)
        view = self._view = self.table.port_view
        sw_pos = self.table.sw_pos
        owner = np.repeat(np.arange(len(view.indptr) - 1, dtype=np.int64), np.diff(view.indptr))
        rows = np.flatnonzero((sw_pos[owner] >= 0) & (sw_pos[view.peer] >= 0))  # by owner, then port
        # switch-to-switch ports as CSR over switch rows: peer's switch row and the link row
        self._sw_ptr = np.zeros(len(self.table.switches) + 1, dtype=np.int64)
        np.cumsum(np.bincount(sw_pos[owner[rows]], minlength=len(self.table.switches)), out=self._sw_ptr[1:])
        self._sw_peer = sw_pos[view.peer[rows]]
        self._sw_link = view.link[rows]

    # ------------------------------------------------------------ routing
    def _dist_to(self, root: int) -> np.ndarray:
        """Hops from every switch row to the switch ``root`` (``_BIG`` = unreachable)."""
        return _widen(self.table.dist[self.table.sw_pos[root]], self.table.unreachable)

    def _next_hops(self, rows: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Next switch row and link row towards the root for switch ``rows`` (-1 where there is none).

        The next hop is ``min_ports(switch, root)[0]``: the lowest-numbered
        port whose peer switch is one hop closer to the root.
        """
        ports = ranges(self._sw_ptr[rows], self._sw_ptr[rows + 1])
        which = np.repeat(np.arange(len(rows)), self._sw_ptr[rows + 1] - self._sw_ptr[rows])
        closer = dist[self._sw_peer[ports]] == dist[rows][which] - 1
        nxt = np.full(len(rows), -1, dtype=np.int64)
        link = np.full(len(rows), -1, dtype=np.int64)
        got, first = np.unique(which[closer], return_index=True)
        nxt[got] = self._sw_peer[ports[closer][first]]
        link[got] = self._sw_link[ports[closer][first]]
        return nxt, link

    def _entries(self, nics: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The switch each member hangs below towards the root and the link row used (-1: none).

        ``dist`` holds the hops from every switch row to the root.

        A NIC leaves through its lowest-numbered port with the fewest hops; a
        member that is a switch hangs below itself.
        """
        sw_pos, view = self.table.sw_pos, self._view
        entry = np.where(sw_pos[nics] >= 0, nics, -1)
        link = np.full(len(nics), -1, dtype=np.int64)
        ends = np.flatnonzero(sw_pos[nics] < 0)
        if not len(ends):
            return entry, link
        rows = ranges(view.indptr[nics[ends]], view.indptr[nics[ends] + 1])
        which = np.repeat(np.arange(len(ends)), np.diff(view.indptr)[nics[ends]])
        peer_row = sw_pos[view.peer[rows]]
        hops = np.where(peer_row >= 0, dist[np.maximum(peer_row, 0)], _BIG)
        best = np.full(len(ends), _BIG, dtype=np.int64)
        np.minimum.at(best, which, hops)
        pick = (hops == best[which]) & (hops < _BIG)
        got, first = np.unique(which[pick], return_index=True)
        entry[ends[got]] = view.peer[rows[pick][first]]
        link[ends[got]] = view.link[rows[pick][first]]
        return entry, link

    def _climb(self, nics: np.ndarray, root: int) -> _Physical | None:
        """Union of the paths from the members to ``root`` (None if a member cannot get there)."""
        dist = self._dist_to(root)
        entry, entry_link = self._entries(nics, dist)
        if np.any(entry < 0):
            return None
        sw_pos, switches = self.table.sw_pos, self.table.switches
        root_row = int(sw_pos[root])
        up: dict[int, int] = {}
        links = [entry_link[entry_link >= 0]]
        frontier = unique(sw_pos[entry])
        seen = np.zeros(len(switches), dtype=bool)
        seen[frontier] = True
        while len(frontier):
            frontier = frontier[frontier != root_row]
            nxt, link = self._next_hops(frontier, dist)
            if np.any(nxt < 0):
                return None
            up.update(zip(switches[frontier].tolist(), switches[nxt].tolist(), strict=True))
            links.append(link)
            frontier = unique(nxt[~seen[nxt]])
            seen[frontier] = True
        return _Physical(switches[seen], up, entry, np.concatenate(links))

    # ------------------------------------------------------------ trees
    def _physical_tree(self, root: int, nics: np.ndarray, phys: _Physical, ranks: dict[int, list[int]]) -> Tree:
        """``T`` as a :class:`Tree`: switches and member vertices, children in node order (a switch before a member
        on it), breadth-first."""
        item_node = np.concatenate([phys.switches, nics])  # the switches of T, then the members
        member = np.r_[np.zeros(len(phys.switches), dtype=np.int64), np.ones(len(nics), dtype=np.int64)]
        item_of = dict(zip(phys.switches.tolist(), range(len(phys.switches)), strict=True))
        up = [item_of[phys.up[s]] if s in phys.up else -1 for s in phys.switches.tolist()]
        parent = np.r_[np.asarray(up, dtype=np.int64), [item_of[e] for e in phys.entry.tolist()]].astype(np.int64)
        below = np.flatnonzero(parent >= 0)
        below = below[np.lexsort((member[below], item_node[below], parent[below]))]
        ptr = np.zeros(len(item_node) + 1, dtype=np.int64)
        np.cumsum(np.bincount(parent[below], minlength=len(item_node)), out=ptr[1:])
        origin, tree_parent, children = breadth_first(item_of[root], ptr, below)
        names = self.topo.names
        node = item_node[origin].tolist()
        label = [
            self._label(names[n], ranks[n]) if m else names[n]
            for n, m in zip(node, member[origin].tolist(), strict=True)
        ]
        return Tree(tree_parent, children, node, label, "type II (physical)")

    @staticmethod
    def _label(name: str, ranks: list[int]) -> str:
        if len(ranks) == 1:
            return f"{name}: rank {ranks[0]}"
        return f"{name}: ranks {', '.join(map(str, ranks))}"

    def _bound(self, tree: Tree, degree: int | None) -> list[int]:
        if degree is None:
            return [int(self.radix[n]) for n in tree.node]
        return [int(degree)] * tree.size

    # ------------------------------------------------------------ root choice
    def candidates(
        self, nics: np.ndarray, free: np.ndarray | None = None, link_load: np.ndarray | None = None
    ) -> np.ndarray:
        """Candidate roots (switch nodes), lightest first; empty when no switch reaches every NIC.

        Order: free entries descending (``free`` over nodes, None = unlimited),
        then the summed ``link_load`` (over link rows) of the switch's live
        links, then node index.
        """
        ecc = self.table.eccentricity_to(nics).astype(np.int64)
        ok = ecc >= 0
        if not ok.any():
            return np.zeros(0, dtype=np.int64)
        best = self.table.switches[ok & (ecc == ecc[ok].min())]
        spare = np.zeros(len(best), dtype=np.int64) if free is None else np.asarray(free)[best]
        load = np.zeros(len(best), dtype=np.int64)
        if link_load is not None:
            ptr = self._view.indptr
            rows = ranges(ptr[best], ptr[best + 1])
            which = np.repeat(np.arange(len(best)), ptr[best + 1] - ptr[best])
            np.add.at(load, which, np.asarray(link_load, dtype=np.int64)[self._view.link[rows]])
        return best[np.lexsort((best, load, -spare))]

    def _unreachable_reason(self, nics: np.ndarray) -> str:
        names = self.topo.names
        if not len(self.table.switches):
            return "the fabric has no switches to aggregate in"
        counts = self.table.anchor_ptr[nics + 1] - self.table.anchor_ptr[nics]
        if np.any(counts == 0):
            cut = nics[counts == 0]
            return f"{names[int(cut[0])]} has no live link to a switch (broken links?)"
        hops = self.table.hops(nics[0], nics)
        if np.any(hops < 0):
            other = int(nics[np.argmax(hops < 0)])
            return (
                f"{names[int(nics[0])]} and {names[other]} cannot reach each other over live links: "
                "no switch reaches every member"
            )
        return "no switch reaches every member over live links"

    # ------------------------------------------------------------ the build
    def build(
        self,
        members,
        *,
        method: str = "mincost",
        degree: int | None = None,
        free: np.ndarray | None = None,
        link_load: np.ndarray | None = None,
        ranks: Sequence[int] | None = None,
        progress=None,
    ) -> TypeTwoTree:
        """Build the type II tree of one communicator (see the module docstring).

        Parameters
        ----------
        members : sequence of int
            Node index of every process of the communicator (a NIC may repeat).
        method : {"mincost", "physical"}
            Whose switches need a free entry: those of ``A`` or those of ``T``.
        degree : int, optional
            The degree bound ``D`` (default: each switch's radix).
        free : ndarray, optional
            Free aggregation-tree entries per node (None = unlimited); not modified.
        link_load : ndarray, optional
            Trees already crossing each link row (for the candidate order); not modified.
        ranks : sequence of int, optional
            Rank of each process (default: its position in ``members``).
        progress : callable, optional
            ``progress(done, total)`` over the candidate roots: before each root is tried, and
            ``(total, total)`` when the search ends.
        """
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        members = np.asarray(members, dtype=np.int64).reshape(-1)
        if not len(members):
            return TypeTwoTree(False, "the communicator is empty", method=method)
        ranks = list(range(len(members))) if ranks is None else [int(r) for r in ranks]
        nics = unique(members)
        hosted: dict[int, list[int]] = {int(u): [] for u in nics}
        for u, r in zip(members.tolist(), ranks, strict=True):
            hosted[u].append(r)
        roots = self.candidates(nics, free, link_load)
        if not len(roots):
            return TypeTwoTree(False, self._unreachable_reason(nics), ranks=hosted, method=method)
        for tried, root in enumerate(roots.tolist(), start=1):
            if progress is not None:
                progress(tried - 1, len(roots))
            result = self._try(root, nics, hosted, method, degree, free)
            if result is not None:
                result.candidates, result.tried = len(roots), tried
                if progress is not None:
                    progress(len(roots), len(roots))
                return result
        if progress is not None:
            progress(len(roots), len(roots))
        where = "T" if method == "physical" else "the min-cost tree"
        return TypeTwoTree(
            False,
            f"none of the {len(roots)} candidate roots ({self.topo.names[int(roots[0])]}, ...) "
            f"has a free aggregation-tree entry on every switch of {where}",
            ranks=hosted,
            method=method,
            candidates=len(roots),
            tried=len(roots),
        )

    def _try(
        self,
        root: int,
        nics: np.ndarray,
        hosted: dict[int, list[int]],
        method: str,
        degree: int | None,
        free: np.ndarray | None,
    ) -> TypeTwoTree | None:
        """The trees rooted at ``root``, or None when a switch that needs an entry has none free."""
        # With two or more member nodes a root of minimum eccentricity has at least two children in T
        # (one child would be closer to every member), so Algorithm 5 keeps it: check it first.
        if free is not None and free[root] <= 0 and (method == "physical" or len(nics) > 1):
            return None
        phys = self._climb(nics, root)
        if phys is None:
            return None
        if method == "physical" and free is not None and np.any(free[phys.switches] <= 0):
            return None
        physical = self._physical_tree(root, nics, phys, hosted)
        derived, _ = build_minimum_type_II_tree(physical, self._bound(physical, degree))
        used = np.asarray(
            sorted(n for n, kids in zip(derived.node, derived.children, strict=True) if kids), dtype=np.int64
        )
        if method == "mincost" and free is not None and np.any(free[used] <= 0):
            return None
        rows = unique(phys.link_rows)
        return TypeTwoTree(
            True,
            "",
            root,
            physical,
            derived,
            hosted,
            self.topo.link_id[rows].tolist(),
            method,
            link_rows=rows,
            physical_switches=phys.switches,
            tree_switches=used,
        )


def type_two_tree(
    topo: Topology,
    members,
    *,
    table: MinHopTable | None = None,
    method: str = "mincost",
    degree: int | None = None,
    occupancy: Occupancy = Occupancy(),
    ranks: Sequence[int] | None = None,
    progress=None,
) -> TypeTwoTree:
    """Build one communicator's type II trees: the physical tree ``T`` and the minimum-cost derived tree ``A``.

    Root candidates are the switches with the smallest eccentricity to the members, ordered by load; ``T`` is the
    union of the members' min-hop paths to the root, ``A`` its minimum-cost derived tree (Algorithm 5,
    :func:`~vizcoll.trees.mincost.build_minimum_type_II_tree`); see the module docstring and
    :meth:`TypeTwoPlanner.build`, which this calls on a new planner.

    Parameters
    ----------
    topo : Topology
        The fabric (its broken links are skipped).
    members : sequence of int
        Node index of every process of the communicator (a NIC may repeat).
    table : MinHopTable, optional
        ``min_hops(topo)``, built when not given.
    method : {"mincost", "physical"}
        Whose switches need a free entry: those of ``A`` or those of ``T``.
    degree : int, optional
        The degree bound ``D`` (default: each switch's radix).
    occupancy : Occupancy
        Free aggregation-tree entries per node and trees already crossing each link row (default: unlimited
        entries, no load); not modified.
    ranks : sequence of int, optional
        Rank of each process (default: its position in ``members``).
    progress : callable, optional
        ``progress(done, total)`` over the candidate roots.

    Returns
    -------
    TypeTwoTree
        The trees, or ``ok`` False and the reason.

    References
    ----------
    [AGGT24] Chen Shuping, Wei Hongmei, Wang Fei, Li Yi, He Wangquan, Qi Fengbin, "Method to Create Aggregate Tree
    for Hardware Supported Collectives", Journal of Computer Research and Development, 61(2): 503–517, 2024, DOI
    [10.7544/issn1000-1239.202220684](https://doi.org/10.7544/issn1000-1239.202220684). Section 4, definitions 9–11,
    Algorithm 5.

    Examples
    --------
    >>> from vizcoll.topology import from_spec
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> result = type_two_tree(topo, [topo.index(h) for h in ("h0", "h1", "h2", "h3")], degree=3)
    >>> result.ok, topo.names[result.root], result.physical_cost, result.cost
    (True, 'spine0', 3, 2)
    """
    return TypeTwoPlanner(topo, table).build(
        members,
        method=method,
        degree=degree,
        free=occupancy.free,
        link_load=occupancy.link_load,
        ranks=ranks,
        progress=progress,
    )
