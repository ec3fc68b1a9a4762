"""A real fabric's multicast tables, read from OpenSM's ``opensm.mcfdbs`` dump, as groups and link loads.

OpenSM lists, per switch and multicast LID, the ports a packet of the group
leaves on (:mod:`vizcoll.multicast.mcfdbs`). Read against the fabric:

- a listed port whose cable leads to an **end node** makes that end node a
  member of the group; port 0 makes the switch itself a member;
- a listed port whose cable leads to another switch puts that cable in the
  group's tree (counted once, whichever end lists it; a cable listed by one
  end only is reported, as OpenSM programs both ends of a tree link);
- a link's **EFI** is the number of groups whose tree uses it, the same count
  :class:`~vizcoll.multicast.routing.MulticastResult` keeps for vizcoll's own
  routes, so the tables a fabric has today compare with FULB-MC, MINIHOP-MC or
  SSSP-MC routing the same groups (:func:`compare`).

Any routing engine's tables read (OpenSM's own, ours, others'); a switch GUID
or a port the fabric does not have is an error naming it.

:func:`tables_result` turns the tables into a
:class:`~vizcoll.multicast.routing.MulticastResult` (one tree per MLID, in
MLID order), so whatever draws or lists a routing shows the real tables too.

References: [OPENSM]; EFI as in [FULB22] (keys: ``docs/papers.md``).

>>> from vizcoll.topology.generators import from_spec
>>> from vizcoll.multicast.routing import route
>>> from vizcoll.multicast.mcfdbs import dump_mcfdbs
>>> topo = from_spec("fat-tree:radix=4,levels=2")
>>> routed = route(topo, [[topo.index("h0"), topo.index("h3")]], "minhop")
>>> tables = read_tables(topo, dump_mcfdbs(topo, routed))
>>> tables.groups, (tables.efi == routed.efi).all()
({49153: ['h0', 'h3']}, np.True_)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from vizcoll.errors import FileFormatError
from vizcoll.multicast.mcfdbs import node_guids, parse_mcfdbs
from vizcoll.multicast.results import MulticastResult, MulticastTree
from vizcoll.multicast.routing import route
from vizcoll.topology.hops import min_hops
from vizcoll.topology.model import ENDPOINT, Topology
from vizcoll.words import plural

__all__ = ["Tables", "read_tables", "compare", "link_rows", "tables_result"]


@dataclass
class Tables:
    """The groups (MLID -> member names) and per-link EFI of a fabric's multicast tables, and warnings.

    What :func:`read_tables` returns.

    Attributes
    ----------
    groups : dict of int to list of str
        MLID -> the members' node names (sorted by name).
    members : dict of int to list of int
        MLID -> the members' node indices (in the same order).
    efi : numpy.ndarray
        Per link row: the number of groups whose tree uses the link.
    warnings : list of str
        Oddities of the dump (a switch-to-switch cable listed by one end only; at most 50).
    links : dict of int to list of int
        MLID -> the link rows its tree uses (ascending).
    """

    groups: dict[int, list[str]]
    members: dict[int, list[int]]
    efi: np.ndarray
    warnings: list[str] = field(default_factory=list)
    links: dict[int, list[int]] = field(default_factory=dict)

    @property
    def max_efi(self) -> int:
        return int(self.efi.max(initial=0))


def read_tables(topo: Topology, text: str) -> Tables:
    """The groups and link loads of the ``opensm.mcfdbs`` text ``text`` on ``topo``.

    A listed port whose cable leads to an end node makes that end node a member of the group (port 0: the switch
    itself); a listed port whose cable leads to another switch puts that cable in the group's tree, counted once
    whichever end lists it (see the module docstring). Any routing engine's tables read.

    Parameters
    ----------
    topo : Topology
        The fabric the tables were programmed on.
    text : str
        The ``opensm.mcfdbs`` dump.

    Returns
    -------
    Tables
        The groups, their members and links, the per-link EFI and warnings.

    Raises
    ------
    FileFormatError
        For a line the reader does not understand, a switch GUID the fabric does not have, or a listed port
        without a cable.

    References
    ----------
    [OPENSM] OpenSM, the InfiniBand subnet manager (https://github.com/linux-rdma/opensm,
    ``doc/current-routing.txt``; software, no DOI). The ``opensm.mcfdbs`` dump.

    [FULB22] Chen Shuping, Zhou Huilin, He Wangquan, Qi Fengbin, "Load-Balanced Multicast Routing for Large-Scale
    Infiniband Network", Computer Engineering and Applications, 58(5): 138–147, 2022, DOI
    [10.3778/j.issn.1002-8331.2009-0276](https://doi.org/10.3778/j.issn.1002-8331.2009-0276). The EFI.

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> from vizcoll.multicast.routing import route
    >>> from vizcoll.multicast.mcfdbs import dump_mcfdbs
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> routed = route(topo, [[topo.index("h0"), topo.index("h3")]], "minhop")
    >>> read_tables(topo, dump_mcfdbs(topo, routed)).groups
    {49153: ['h0', 'h3']}
    """
    by_guid = {guid: node for node, guid in enumerate(node_guids(topo))}
    at_port = {
        (int(node), int(port)): row
        for row, (node, port) in enumerate(zip(topo.link_a.tolist(), topo.link_pa.tolist(), strict=True))
    }
    at_port |= {
        (int(node), int(port)): row
        for row, (node, port) in enumerate(zip(topo.link_b.tolist(), topo.link_pb.tolist(), strict=True))
    }
    used: dict[int, dict[int, int]] = {}
    members: dict[int, set[int]] = {}
    for guid, entries in parse_mcfdbs(text).items():
        if guid not in by_guid:
            raise FileFormatError(f"switch GUID 0x{guid:016x} of the dump is not in the fabric", source="mcfdbs")
        switch = by_guid[guid]
        for group_lid, ports in entries.items():
            group_members = members.setdefault(group_lid, set())
            group_links = used.setdefault(group_lid, {})
            for port in ports:
                if port == 0:
                    group_members.add(switch)
                    continue
                row = at_port.get((switch, port))
                if row is None:
                    raise FileFormatError(
                        f"switch {topo.names[switch]} (GUID 0x{guid:016x}) has no cable on port "
                        f"{port}, which MLID 0x{group_lid:04X} lists",
                        source="mcfdbs",
                    )
                peer = int(topo.link_b[row] if topo.link_a[row] == switch else topo.link_a[row])
                if topo.kind[peer] == ENDPOINT:
                    group_members.add(peer)
                group_links[row] = group_links.get(row, 0) + 1
    efi = np.zeros(topo.n_links, dtype=np.int64)
    warnings = []
    for group_lid, rows in sorted(used.items()):
        for row, ends in rows.items():
            efi[row] += 1
            peer_is_switch = topo.kind[topo.link_a[row]] != ENDPOINT and topo.kind[topo.link_b[row]] != ENDPOINT
            if peer_is_switch and ends == 1 and len(warnings) < 50:
                warnings.append(f"MLID 0x{group_lid:04X}: only one end of {topo.link_label(row)} lists it")
    ordered = {lid: sorted(nodes, key=lambda n: topo.names[n]) for lid, nodes in sorted(members.items())}
    return Tables(
        {lid: [topo.names[n] for n in nodes] for lid, nodes in ordered.items()},
        ordered,
        efi,
        warnings,
        {lid: sorted(rows) for lid, rows in sorted(used.items())},
    )


def link_rows(topo: Topology, efi: np.ndarray) -> list[dict]:
    """``{"a", "a_port", "b", "b_port", "groups"}`` for every link some group uses."""
    return [
        {
            "a": topo.names[topo.link_a[r]],
            "a_port": int(topo.link_pa[r]),
            "b": topo.names[topo.link_b[r]],
            "b_port": int(topo.link_pb[r]),
            "groups": int(efi[r]),
        }
        for r in np.flatnonzero(efi).tolist()
    ]


def compare(topo: Topology, tables: Tables, algos: list[str]) -> dict[str, dict]:
    """Each algorithm routing the tables' groups on the same fabric: its max EFI and per-link counts.

    The groups with members are routed in MLID order on one min-hop table, so a fabric's tables today compare with
    what FULB-MC, MINIHOP-MC or SSSP-MC would do.

    Parameters
    ----------
    topo : Topology
        The fabric.
    tables : Tables
        The fabric's tables (:func:`read_tables`).
    algos : list of str
        Names of :data:`~vizcoll.multicast.algorithms.ALGORITHMS`.

    Returns
    -------
    dict of str to dict
        Per algorithm: ``max_efi``, ``unroutable`` (groups) and ``links`` (:func:`link_rows` of its EFIs).

    Raises
    ------
    SpecError
        For an unknown algorithm.

    References
    ----------
    [FULB22] Chen Shuping, Zhou Huilin, He Wangquan, Qi Fengbin, "Load-Balanced Multicast Routing for Large-Scale
    Infiniband Network", Computer Engineering and Applications, 58(5): 138–147, 2022, DOI
    [10.3778/j.issn.1002-8331.2009-0276](https://doi.org/10.3778/j.issn.1002-8331.2009-0276). The comparison of
    section 4 (max EFI).

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> from vizcoll.multicast.routing import route
    >>> from vizcoll.multicast.mcfdbs import dump_mcfdbs
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> groups = [[topo.index("h0"), topo.index("h2")], [topo.index("h1"), topo.index("h3")]]
    >>> tables = read_tables(topo, dump_mcfdbs(topo, route(topo, groups, "minhop")))
    >>> {algo: out["max_efi"] for algo, out in compare(topo, tables, ["minhop", "fulb"]).items()}
    {'minhop': 2, 'fulb': 1}
    """
    groups = [nodes for nodes in tables.members.values() if nodes]
    table = min_hops(topo)
    out = {}
    for algo in algos:
        result = route(topo, groups, algo, table)
        out[algo] = {
            "max_efi": int(result.efi.max(initial=0)),
            "unroutable": len(result.unroutable),
            "links": link_rows(topo, result.efi),
        }
    return out


def tables_result(topo: Topology, tables: Tables, algo: str = "tables") -> tuple[MulticastResult, list[str]]:
    """The tables as a routing result named ``algo``, and messages about groups whose links are not one tree.

    Group ``i`` is the ``i``-th MLID (ascending) with the tables' members; the
    EFI is the tables' own. The dump names no root, so each tree is rooted at
    the switch in the middle of the longest path between two members over the
    group's links (the lowest height a root of that tree gives); the height
    is that root's hops to its farthest member, as for vizcoll's routes. A
    group whose links hold a cycle or fall apart keeps its exact EFI; its tree
    is what a breadth-first search from the root reaches, and a message names
    it. A group listing no port at all gets no tree (``unroutable``).

    >>> from vizcoll.topology.generators import from_spec
    >>> from vizcoll.multicast.mcfdbs import dump_mcfdbs
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> routed = route(topo, [[topo.index("h0"), topo.index("h4")]], "fulb")
    >>> result, notes = tables_result(topo, read_tables(topo, dump_mcfdbs(topo, routed)))
    >>> topo.names[result.trees[0].root], result.trees[0].height, (result.efi == routed.efi).all(), notes
    ('spine0', 2, np.True_, [])
    """
    trees: list[MulticastTree | None] = []
    notes: list[str] = []
    for group, (lid, members) in enumerate(tables.members.items()):
        tree, note = _tree(topo, group, lid, members, tables.links.get(lid, []))
        trees.append(tree)
        if note and len(notes) < 50:
            notes.append(note)
    unroutable = [g for g, tree in enumerate(trees) if tree is None]
    return (
        MulticastResult(algo, trees, unroutable, tables.efi.copy(), topo.link_id.copy(), int(topo.live.sum()), 0.0),
        notes,
    )


def _tree(
    topo: Topology, group: int, lid: int, members: list[int], rows: list[int]
) -> tuple[MulticastTree | None, str]:
    """One MLID's tree (see :func:`tables_result`) and a message when its links are not one tree."""
    adjacent: dict[int, list[tuple[int, int]]] = {int(m): [] for m in members}
    for row in rows:
        a, b = int(topo.link_a[row]), int(topo.link_b[row])
        adjacent.setdefault(a, []).append((b, row))
        adjacent.setdefault(b, []).append((a, row))
    if not adjacent:
        return None, ""
    root = _middle(topo, adjacent, [int(m) for m in members] or sorted(adjacent))
    reached = _search(adjacent, root)
    nodes = list(reached)
    parent = [reached[n][0] for n in nodes]
    link = [-1 if reached[n][1] < 0 else int(topo.link_id[reached[n][1]]) for n in nodes]
    depth = {root: 0}
    for node in nodes[1:]:
        depth[node] = depth[reached[node][0]] + 1
    tree = MulticastTree(
        group,
        root,
        np.asarray(members, dtype=np.int64),
        np.asarray(nodes, dtype=np.int64),
        np.asarray(parent, dtype=np.int64),
        np.asarray(link, dtype=np.int64),
        max((depth[m] for m in members if m in depth), default=0),
    )
    note = ""
    if len(reached) < len(adjacent):
        note = (
            f"MLID 0x{lid:04X}: its links fall apart into pieces; {len(adjacent) - len(reached)} of its nodes are "
            f"not reached from {topo.names[root]}"
        )
    elif len(rows) > len(reached) - 1:
        note = (
            f"MLID 0x{lid:04X}: its links hold a cycle ({plural(len(rows) - len(reached) + 1, 'link')} beyond a tree)"
        )
    return tree, note


def _search(adjacent: dict[int, list[tuple[int, int]]], source: int) -> dict[int, tuple[int, int]]:
    """Breadth-first from ``source``: ``{node: (parent, link row)}`` in visiting order (the source: (-1, -1))."""
    reached = {source: (-1, -1)}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for peer, row in adjacent[node]:
            if peer not in reached:
                reached[peer] = (node, row)
                queue.append(peer)
    return reached


def _middle(topo: Topology, adjacent: dict[int, list[tuple[int, int]]], targets: list[int]) -> int:
    """The switch in the middle of the longest path between two ``targets`` (a switch next to it if it is none)."""
    wanted = set(targets)

    def farthest(source: int) -> tuple[int, dict[int, tuple[int, int]]]:
        reached = _search(adjacent, source)
        return [n for n in reached if n in wanted][-1], reached

    far, _ = farthest(targets[0])
    other, reached = farthest(far)
    path = [other]
    while path[-1] != far:
        path.append(reached[path[-1]][0])
    length = len(path) - 1
    for node in dict.fromkeys((path[length // 2], path[(length + 1) // 2])):
        if topo.kind[node] != ENDPOINT:
            return node
    node = path[length // 2]
    return next((peer for peer, _ in adjacent[node] if topo.kind[peer] != ENDPOINT), node)
