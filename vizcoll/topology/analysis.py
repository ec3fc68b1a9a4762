"""A fabric as loaded, told as it is: its connected parts, its file's oddities, and why processes cannot reach
each other (the file's own parts, or the broken links).

``vizcoll topo info`` prints :func:`analysis` (``"parts"``, always; ``"warnings"``); the pages say the same when a
fabric loads and name the true cause in their messages (:func:`cut_cause`). What a reader knows about a line of its
file (a host under two switches, a name listed twice) it writes into ``meta["warnings"]`` as ``"line N: ..."``;
what needs the whole fabric (its parts, a host-to-host cable, a tree's switch with no end node below it) is found
here. Parts are counted over every link, broken or not: a break is the user's, the parts are the file's.

>>> from vizcoll.topology.formats import slurm
>>> topo = slurm.read("SwitchName=s0 Nodes=n[1-2]\\nSwitchName=s1 Nodes=n[3-4]\\n", "topology.conf")
>>> analysis(topo)
{'parts': 2, 'warnings': ['2 parts: the file has no switch above s[0-1]']}
"""

from __future__ import annotations

import numpy as np

from vizcoll import hostlists
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology
from vizcoll.words import noun, plural

__all__ = ["ADDED_ROOT", "analysis", "apart_by", "cut_cause", "join_roots", "part_labels", "parts_line"]

ADDED_ROOT = "vizcoll-added-root"
"""The name of the switch :func:`join_roots` adds above a tree's top switches (marked as not the file's)."""

SHOWN = 5  # names a warning quotes at most


def part_labels(topo: Topology, live: bool = False) -> tuple[int, np.ndarray]:
    """(Number of connected parts, each node's part) over every link, or over the live links only."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components  # here: csgraph imports scipy.linalg, slow to start

    keep = ~topo.broken if live else np.ones(topo.n_links, dtype=bool)
    a, b = topo.link_a[keep], topo.link_b[keep]
    graph = coo_matrix((np.ones(a.size, dtype=np.int8), (a, b)), shape=(topo.n_nodes, topo.n_nodes))
    return connected_components(graph, directed=False)


def _listed(names: list[str]) -> str:
    """At most :data:`SHOWN` names, "a, b and c" (then how many more)."""
    shown = names[:SHOWN]
    if len(names) > SHOWN:
        return ", ".join(shown) + f" and {len(names) - SHOWN:,} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _tree_roots(topo: Topology) -> list[str]:
    """A Slurm tree file's top switches: those no ``Switches=`` lists (its links run parent → child)."""
    sw = topo.kind == SWITCH
    below = np.zeros(topo.n_nodes, dtype=bool)
    below[topo.link_b[sw[topo.link_a] & sw[topo.link_b]]] = True
    return [topo.names[i] for i in np.flatnonzero(sw & ~below)]


def parts_line(topo: Topology) -> str | None:
    """What splits a fabric of several parts (None for one part): a Slurm tree's several top switches, or each
    part by a node of it.

    >>> from vizcoll.topology.model import Topology
    >>> topo = Topology.from_arrays(["s0", "s1", "h"], [0, 0, 1], [2, 2, 1], [(0, 1, 2, 1)])
    >>> parts_line(topo)
    '2 parts, no link between them: the part of s0 (2 nodes) and s1 alone'
    """
    n, labels = part_labels(topo)
    if n < 2:
        return None
    if topo.meta.get("format") == "slurm":  # a tree of several parts has several top switches
        return f"{n} parts: the file has no switch above {hostlists.collect(_tree_roots(topo))}"
    sizes = np.bincount(labels, minlength=n)
    order = np.argsort(topo.kind != SWITCH, kind="stable")  # switches first, each kind by index
    rank = np.empty(topo.n_nodes, dtype=np.int64)
    rank[order] = np.arange(topo.n_nodes)
    first = np.full(n, topo.n_nodes)
    np.minimum.at(first, labels, rank)
    first = order[first]  # each part's first switch, else its first node
    named = [
        f"the part of {topo.names[first[p]]} ({plural(int(sizes[p]), 'node')})"
        if sizes[p] > 1
        else f"{topo.names[first[p]]} alone"
        for p in np.argsort(-sizes, kind="stable")
    ]
    return f"{n} parts, no link between them: {_listed(named)}"


def join_roots(topo: Topology) -> tuple[list[str], list[dict]]:
    """A Slurm tree file of several parts: (its top switches, the scenario edits that join them under one added
    switch, :data:`ADDED_ROOT` or that name and a number if the fabric has one); ([], []) for any other fabric.

    What a user of a tree file whose top switch is missing expects (Slurm itself joins nothing: the
    Topology Guide calls such leaves ones "that lack a common parent switch"): the edits are the scenario's own,
    listed with the others, undone as one step and exported with the scenario.

    >>> from vizcoll.topology.formats import slurm
    >>> roots, edits = join_roots(slurm.read("SwitchName=s0 Nodes=n1\\nSwitchName=s1 Nodes=n2\\n", "t.conf"))
    >>> roots, edits[0]
    (['s0', 's1'], {'op': 'add_node', 'name': 'vizcoll-added-root', 'kind': 'switch'})
    >>> edits[2]
    {'op': 'add_link', 'a': 'vizcoll-added-root', 'b': 's1'}
    """
    if topo.meta.get("format") != "slurm" or part_labels(topo)[0] < 2:
        return [], []
    roots, name, n = _tree_roots(topo), ADDED_ROOT, 1
    while name in topo:
        n += 1
        name = f"{ADDED_ROOT}-{n}"
    return roots, [
        {"op": "add_node", "name": name, "kind": "switch"},
        *({"op": "add_link", "a": name, "b": r} for r in roots),
    ]


def _host_cables(topo: Topology) -> str | None:
    rows = np.flatnonzero((topo.kind[topo.link_a] == ENDPOINT) & (topo.kind[topo.link_b] == ENDPOINT))
    if not rows.size:
        return None
    named = [topo.link_label(int(r)) for r in rows[: SHOWN + 1]]
    return (
        f"{plural(rows.size, 'host-to-host cable')} ({_listed(named)}): "
        f"{'it joins' if rows.size == 1 else 'each joins'} two end nodes with no switch between them"
    )


def _bare_tree_switches(topo: Topology) -> str | None:
    """A tree file's switches with no end node anywhere below them (Slurm's links run parent → child)."""
    if topo.meta.get("format") != "slurm":
        return None
    has_hosts = np.zeros(topo.n_nodes, dtype=bool)
    has_hosts[topo.link_a[topo.kind[topo.link_b] == ENDPOINT]] = True
    down = topo.kind[topo.link_b] == SWITCH
    for _ in range(topo.n_nodes):  # a child's hosts count for its parents, level by level (a tree: no cycle)
        grown = has_hosts.copy()
        grown[topo.link_a[down & has_hosts[topo.link_b]]] = True
        if np.array_equal(grown, has_hosts):
            break
        has_hosts = grown
    bare = [topo.names[i] for i in np.flatnonzero((topo.kind == SWITCH) & ~has_hosts)]
    if not bare:
        return None
    return f"{plural(len(bare), 'switch')} with no end node below {'it' if len(bare) == 1 else 'them'}: {_listed(bare)}"


def _no_end_nodes(topo: Topology) -> str | None:
    if topo.n_nodes and not (topo.kind == ENDPOINT).any():
        return (
            f"no end nodes: all {plural(topo.n_nodes, 'node')} are switches (a graph of switches only), so no "
            "process runs on it until end nodes are added"
        )
    return None


def analysis(topo: Topology) -> dict:
    """The fabric's connected parts and its oddities, as ``vizcoll topo info`` prints them.

    Parts are counted over every link, broken or not (a break is the user's, the parts are the file's). The
    warnings are what its reader noted (``"line N: ..."``), then no end node at all, the parts, host-to-host
    cables and, in a tree file, switches with no end node below them.

    Parameters
    ----------
    topo : Topology
        The fabric as loaded.

    Returns
    -------
    dict
        ``{"parts": n, "warnings": [...]}``.

    Examples
    --------
    >>> from vizcoll.topology.generators import from_spec
    >>> analysis(from_spec("fat-tree:radix=4,levels=2"))
    {'parts': 1, 'warnings': []}
    """
    found = [_no_end_nodes(topo), parts_line(topo), _host_cables(topo), _bare_tree_switches(topo)]
    return {
        "parts": part_labels(topo)[0],
        "warnings": [*topo.meta.get("warnings", ()), *filter(None, found)],
    }


def apart_by(topo: Topology, groups) -> list[str | None]:
    """For each group of nodes, what keeps its members apart: ``"file"`` (in several parts of the fabric as
    loaded), ``"breaks"`` (together as loaded, apart over the live links) or None (together)."""
    _, built = part_labels(topo)
    _, live = part_labels(topo, live=True)
    out = []
    for members in groups:
        members = np.asarray(members, dtype=np.int64)
        if np.unique(built[members]).size > 1:
            out.append("file")
        else:
            out.append("breaks" if np.unique(live[members]).size > 1 else None)
    return out


def cut_cause(topo: Topology, nodes=None, word: str = "end node") -> str | None:
    """Why some of ``nodes`` (default: every end node; counted as ``word``) cannot reach the others, or None when
    all can: the fabric's own parts as loaded, the broken links, or both.

    >>> from vizcoll.topology.model import Topology
    >>> topo = Topology.from_arrays(["s0", "s1", "a", "b"], [0, 0, 1, 1], [2, 2, 1, 1],
    ...                             [(0, 1, 1, 1), (0, 2, 2, 1), (1, 2, 3, 1)])
    >>> print(cut_cause(topo))
    None
    >>> topo.broken[0] = True
    >>> cut_cause(topo)
    'the broken links cut the network into 2 parts (1 end node cut off)'
    """
    nodes = np.flatnonzero(topo.kind == ENDPOINT) if nodes is None else np.asarray(nodes, dtype=np.int64)
    if nodes.size < 2:
        return None
    n_built, built = part_labels(topo)
    _, live = part_labels(topo, live=True)
    file_parts, live_parts = np.unique(built[nodes]).size, np.unique(live[nodes]).size
    if live_parts < 2:
        return None
    cut = int(nodes.size - np.bincount(live[nodes]).max())
    what = f"{plural(cut, word)} cut off"
    loaded = f"the fabric as loaded is in {n_built} parts"
    if file_parts == live_parts:
        among = f", the {noun(2, word)} in {file_parts} of them" if file_parts < n_built else ""
        return f"{loaded}{among} ({what}): the file cuts them apart, not a break"
    if file_parts > 1:
        return f"{loaded}, and the broken links cut the {noun(2, word)} into {live_parts} parts ({what})"
    return f"the broken links cut the network into {plural(live_parts, 'part')} ({what})"
