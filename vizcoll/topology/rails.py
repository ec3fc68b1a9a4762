"""Rail-optimized fabrics: ``servers`` servers of ``rails`` GPUs, one NIC per GPU, NIC ``r`` of every server on
rail ``r`` (``rail-fat-tree:servers=S,rails=R,radix=K[,cross=1]``).

Each rail is a fat tree of ``S`` end nodes built from ``K``-port switches with as few levels as fit
(:func:`rail_fat_tree`); the GPUs of one server talk over NVLink inside the server, which is not modelled, so
without ``cross=1`` the rails are disconnected parts of the network: a NIC reaches only the NICs of its own rail
(the min-hop table says :data:`~vizcoll.topology.hops.UNREACHABLE` for a pair on two rails, and keeps one
switch-to-switch block per rail, shared by the rails that are wired alike: :mod:`vizcoll.topology.blockdist`).

Node order: the switches level by level (leaves, spines, cores), rail by rail inside a level; then the NICs server
by server, ``s0-nic0 .. s0-nic7, s1-nic0, ...``, so that the default placement (rank ``i`` on end node ``i``) puts
server ``s``'s GPUs at ranks ``s*R .. s*R+R-1`` (a server's GPUs consecutive in rank order, rank ``i`` on rail
``i mod R``). Names: ``rail3-leaf17``, ``rail3-spine5``, ``rail3-core40``, ``s000123-nic3`` (the server number
padded to the width of the largest). Node attributes: ``level`` (0 for NICs), ``rail``, ``server`` (-1 for
switches), ``pod`` (3-level rails: the pod of a leaf, a spine or a NIC, else -1), ``leaf`` (the number of a leaf
within its rail, a NIC's leaf's; else -1) and ``group`` = ``rail`` (the overview's blocks,
:mod:`vizcoll.topology.blocks`, which names them by ``meta["group_word"]``); ``meta["nesting"]`` says how a rail is
drilled into (its pods, then a pod's leaves: :mod:`vizcoll.topology.drill`); the link attribute ``cross`` is 1 on
the links between rails.

References
----------
[NVRA] NVIDIA Enterprise Reference Architecture, HGX AI Factory (H100, H200, B200), "Networking Physical
Topologies": the compute fabric's rail-optimized leaf-spine design (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.topology.building import build, check_size, positive, stack_links
from vizcoll.topology.model import Topology

__all__ = ["LEVEL_NAMES", "RAIL_GENERATOR", "RAIL_MILLION", "rail_fat_tree", "rail_size"]

RAIL_GENERATOR = "rail-fat-tree"
"""The generator's name in a spec (``rail-fat-tree:servers=S,rails=R,radix=K``)."""
RAIL_MILLION = "rail-fat-tree:servers=131072,rails=8,radix=128"
"""1,048,576 NICs (131,072 servers of 8 GPUs) on 8 rails of 3-level fat trees of 128-port switches: an AI training
cluster of today (the app's "1M-endpoint rail-optimized cluster")."""

LEVEL_NAMES = {1: "leaf", 2: "spine", 3: "core"}


@dataclass(frozen=True)
class _Rail:
    """One rail's fat tree in local switch numbers (level 1 first)."""

    count: np.ndarray  # switches per level, index 0 = level 1
    links: np.ndarray  # (m, 4): local switch a, port, local switch b, port
    host_switch: np.ndarray  # the leaf of each of the rail's S end nodes
    host_port: np.ndarray
    pod: np.ndarray  # per local switch, -1 where none
    top_used: int  # down ports used on each top switch

    @property
    def level(self) -> np.ndarray:
        return np.repeat(np.arange(1, len(self.count) + 1), self.count)

    @property
    def within(self) -> np.ndarray:
        """Index of each local switch within its level."""
        return np.arange(self.count.sum()) - np.repeat(np.cumsum(self.count) - self.count, self.count)


def _levels(servers: int, radix: int) -> int:
    h = radix // 2
    for levels, fits in ((1, radix), (2, radix * h), (3, radix * h * h)):
        if servers <= fits:
            return levels
    raise SpecError(
        f"a rail of {servers:,} servers needs more than 3 levels of {radix}-port switches (3 levels hold "
        f"radix**3/4 = {radix * h * h:,}); use a larger radix"
    )


def _rail(servers: int, radix: int) -> _Rail:
    """The fat tree of one rail: 1 level (one switch), 2 levels (``ceil(S/h)`` leaves, ``h`` spines) or 3 levels
    (``ceil(S/h)`` leaves in ``P = ceil(S/h²)`` pods of ``h`` leaves and ``h`` spines, ``h²`` cores using ``P`` of
    their ports); ``h = radix/2``, full bisection, each switch's down ports first."""
    h, levels = radix // 2, _levels(servers, radix)
    s = np.arange(servers)
    if levels == 1:
        return _Rail(
            np.array([1]), np.zeros((0, 4), np.int64), np.zeros(servers, np.int64), s + 1, np.array([-1]), servers
        )
    n_leaf = -(-servers // h)
    leaf = np.arange(n_leaf)
    j = np.arange(h)
    if levels == 2:
        links = stack_links((leaf[:, None], h + 1 + j[None, :], n_leaf + j[None, :], leaf[:, None] + 1))
        return _Rail(np.array([n_leaf, h]), links, s // h, s % h + 1, np.full(n_leaf + h, -1), n_leaf)
    pods = -(-n_leaf // h)
    n_spine = pods * h
    spine = np.arange(n_spine)
    leaf_spine = (
        leaf[:, None],
        h + 1 + j[None, :],
        n_leaf + (leaf // h)[:, None] * h + j[None, :],
        (leaf % h)[:, None] + 1,
    )
    spine_core = (
        n_leaf + spine[:, None],
        h + 1 + j[None, :],
        n_leaf + n_spine + (spine % h)[:, None] * h + j[None, :],
        (spine // h)[:, None] + 1,
    )
    pod = np.r_[leaf // h, spine // h, np.full(h * h, -1)]
    return _Rail(np.array([n_leaf, n_spine, h * h]), stack_links(leaf_spine, spine_core), s // h, s % h + 1, pod, pods)


def rail_size(servers: int, rails: int, radix: int, cross: int = 0) -> dict:
    """Switches, end nodes, links and levels of ``rail-fat-tree:servers=,rails=,radix=[,cross=1]``, from the formula
    (nothing built).

    >>> rail_size(131072, 8, 128)
    {'levels': 3, 'switches': 65536, 'endpoints': 1048576, 'nodes': 1114112, 'links': 3145728}
    """
    rail = _rail_shape(servers, radix)
    switches = rails * int(rail["count"].sum())
    links = rails * (servers + rail["inner"]) + cross * rails * (rails - 1) // 2 * int(rail["count"][-1])
    return {
        "levels": len(rail["count"]),
        "switches": switches,
        "endpoints": servers * rails,
        "nodes": switches + servers * rails,
        "links": links,
    }


def _rail_shape(servers: int, radix: int) -> dict:
    h, levels = radix // 2, _levels(servers, radix)
    n_leaf = -(-servers // h)
    if levels == 1:
        return {"count": np.array([1]), "inner": 0}
    if levels == 2:
        return {"count": np.array([n_leaf, h]), "inner": n_leaf * h}
    pods = -(-n_leaf // h)
    return {"count": np.array([n_leaf, pods * h, h * h]), "inner": n_leaf * h + pods * h * h}


def rail_fat_tree(servers: int = 4, rails: int = 2, radix: int = 8, cross: int = 0) -> Topology:
    """Rail-optimized fabric: ``servers`` servers of ``rails`` NICs, NIC ``r`` of every server on rail ``r``.

    Each rail is a fat tree of ``servers`` end nodes from ``radix``-port switches with as few levels as fit (one
    switch up to ``radix`` servers, 2 levels up to ``radix²/2``, 3 levels up to ``radix³/4``; see the module
    docstring for names, order and attributes). ``cross=1`` adds spine links between the rails: top switch ``t``
    (the highest level) of every rail is linked to top switch ``t`` of every other rail, on the ports after its
    down ports (rail ``q``'s port to rail ``r`` is ``used + 1 + (r if r < q else r - 1)``), which needs
    ``rails - 1`` free ports on each top switch. ``rail-fat-tree:servers=131072,rails=8,radix=128`` has
    1,048,576 NICs (the engine's limit, :data:`~vizcoll.topology.checks.MAX_ENDPOINTS`), 65,536 switches
    and 3,145,728 links; built with its min-hop table (one block of the 2,144 classes of twins of a rail's
    8,192 switches, 4.4 MB, shared by the 8 rails) it takes seconds and 814 MB peak on the 2-core machine
    (``benchmarks/scaling.py --parts million``; measured: docs/design.md).

    Parameters
    ----------
    servers : int
        Servers, each with one NIC per rail.
    rails : int
        Rails (GPUs, and so NICs, per server).
    radix : int
        Ports per switch, even and at least 2.
    cross : int
        1 to link the rails' top switches, 0 (default) for separate rails.

    Returns
    -------
    Topology
        The fabric, with the node attributes ``level``, ``rail``, ``server``, ``pod``, ``leaf`` and ``group``.

    Raises
    ------
    SpecError
        For an odd radix, ``cross`` not 0 or 1, too few free ports on the top switches for ``cross=1``, or a
        fabric over the size limits.

    References
    ----------
    [NVRA] NVIDIA Enterprise Reference Architecture, HGX AI Factory (H100, H200, B200), "Networking Physical
    Topologies" (vendor documentation; no DOI): the rail-optimized leaf-spine compute fabric. Each rail as its own
    fat tree and the links between the rails are this model's, not the document's (``docs/papers.md``).

    Examples
    --------
    >>> topo = rail_fat_tree(servers=6, rails=2, radix=4)  # 2 levels: 3 leaves and 2 spines per rail
    >>> topo.names[:4], topo.names[-3:]
    (['rail0-leaf0', 'rail0-leaf1', 'rail0-leaf2', 'rail1-leaf0'], ['s4-nic1', 's5-nic0', 's5-nic1'])
    >>> topo.attr("rail")[topo.endpoints].tolist()
    [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]
    """
    positive(servers=servers, rails=rails, radix=radix)
    if radix % 2 or radix < 2:
        raise SpecError(f"radix must be an even number >= 2, got {radix}")
    if cross not in (0, 1):
        raise SpecError(f"cross must be 0 or 1, got {cross}")
    size = rail_size(servers, rails, radix, cross)
    check_size(size["nodes"], size["links"], "this rail fabric", size["endpoints"])
    rail = _rail(servers, radix)
    if cross and rail.top_used + rails - 1 > radix:
        raise SpecError(f"cross=1 needs {rails - 1} free ports on each top switch; they use {rail.top_used} of {radix}")
    glob = _Global(rail, rails)
    parts = [*glob.rail_links(), glob.host_links(servers)]
    if cross:
        parts.append(glob.cross_links())
    spec = f"rail-fat-tree:servers={servers},rails={rails},radix={radix}" + (",cross=1" if cross else "")
    nesting = [["pod", "pod"], ["leaf", "leaf"]][3 - len(rail.count) :]  # 1 level: none
    meta = {
        "generator": spec,
        "servers": servers,
        "rails": rails,
        "rail_levels": len(rail.count),
        "group_word": "rail",
        "nesting": nesting,
    }
    n_sw, n_end = glob.n_switches, servers * rails
    server = np.repeat(np.arange(servers), rails)
    nic_rail = np.tile(np.arange(rails), servers)
    n_cross = len(parts[-1][0].ravel()) if cross else 0
    nic_leaf = np.tile(rail.host_switch, (rails, 1)).T.ravel()  # the local leaf of each NIC, server by server
    leaf = np.where(glob.node_level == 1, glob.node_within, -1)
    return build(
        glob.names(servers),
        np.r_[np.zeros(n_sw), np.ones(n_end)],
        np.r_[np.full(n_sw, radix), np.ones(n_end)],
        stack_links(*parts),
        meta,
        level=np.r_[glob.node_level, np.zeros(n_end)],
        rail=np.r_[glob.node_rail, nic_rail],
        server=np.r_[np.full(n_sw, -1), server],
        pod=np.r_[glob.node_pod, rail.pod[nic_leaf]],
        leaf=np.r_[leaf, rail.within[nic_leaf]],
        group=np.r_[glob.node_rail, nic_rail],
        link_cross=np.r_[np.zeros(size["links"] - n_cross), np.ones(n_cross)],
    )


class _Global:
    """Global node numbers of the switches of every rail: level by level, rail by rail inside a level."""

    def __init__(self, rail: _Rail, rails: int):
        self.rail, self.rails = rail, rails
        level, within = rail.level, rail.within
        start = np.cumsum(rail.count) - rail.count
        self.base = rails * start[level - 1] + within  # global number of local switch l on rail 0
        self.stride = rail.count[level - 1]  # + rail * stride on rail `rail`
        self.n_switches = rails * int(rail.count.sum())
        order = np.argsort(self.of(np.arange(rails)[:, None], np.arange(len(level))[None, :]).ravel())
        r, local = np.divmod(order, len(level))
        self.node_rail, self.node_level = r, level[local]
        self.node_pod, self.node_within = rail.pod[local], within[local]

    def of(self, rail, local) -> np.ndarray:
        """Global node number of local switch ``local`` of rail ``rail`` (arrays broadcast)."""
        return self.base[local] + rail * self.stride[local]

    def rail_links(self) -> list[tuple]:
        a, pa, b, pb = (self.rail.links[:, i][None, :] for i in range(4))
        r = np.arange(self.rails)[:, None]
        return [(self.of(r, a), pa, self.of(r, b), pb)] if self.rail.links.size else []

    def host_links(self, servers: int) -> tuple:
        r, s = np.arange(self.rails)[None, :], np.arange(servers)[:, None]
        nic = self.n_switches + s * self.rails + r
        return nic, 1, self.of(r, self.rail.host_switch[:, None]), self.rail.host_port[:, None]

    def cross_links(self) -> tuple:
        top = np.arange(self.rail.count.sum() - self.rail.count[-1], self.rail.count.sum())[:, None]
        q, r = np.triu_indices(self.rails, 1)
        used = self.rail.top_used
        return self.of(q[None, :], top), used + r[None, :], self.of(r[None, :], top), used + 1 + q[None, :]

    def names(self, servers: int) -> list[str]:
        words = [LEVEL_NAMES[lv] for lv in range(1, len(self.rail.count) + 1)]
        names = [
            f"rail{r}-{words[lv - 1]}{i}"
            for r, lv, i in zip(
                self.node_rail.tolist(), self.node_level.tolist(), self.node_within.tolist(), strict=True
            )
        ]
        width = len(str(servers - 1))
        nics = [f"-nic{r}" for r in range(self.rails)]
        return names + [server + nic for server in (f"s{s:0{width}d}" for s in range(servers)) for nic in nics]
