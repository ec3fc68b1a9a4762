"""Topology generators, vectorised so that real fabric sizes build in well under a second.

Every generator returns a validated :class:`~vizcoll.topology.model.Topology`
with levels, groups or coordinates set where it knows them. Node order is:
switches (lowest level first), then end nodes; this order breaks ties
everywhere in vizcoll.

A *spec* string names a generator and its parameters, e.g.
``fat-tree:radix=40,levels=3``, ``torus:30x20x20,hosts=2``, ``dragonfly:a=18,p=9,h=9`` or the rail-optimized
``rail-fat-tree:servers=131072,rails=8,radix=128`` (:mod:`vizcoll.topology.rails`); see :func:`from_spec` and
docs/howto/cli.md ("Topology specs"). Each generator is a :class:`Generator` of the registry :data:`GENERATORS`,
which :func:`from_spec`, its messages, the command line and the topology page read when they run: one
:func:`register` line adds a generator to all of them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.registry import Registry
from vizcoll.topology.building import build, check_size, hosts_below, planned_size, positive, stack_links
from vizcoll.topology.model import Topology
from vizcoll.topology.rails import RAIL_GENERATOR, rail_fat_tree

__all__ = [
    "fat_tree",
    "pruned_fat_tree",
    "sunway_supernode",
    "torus",
    "dragonfly",
    "mesh",
    "rail_fat_tree",
    "Generator",
    "GENERATORS",
    "register",
    "unregister",
    "syntax",
    "parse_params",
    "parse_spec",
    "from_spec",
    "spec_size",
]


def fat_tree(radix: int = 8, levels: int = 3) -> Topology:
    """Standard (full-bisection) fat tree of ``radix``-port switches.

    ``levels=2``: ``radix`` leaves and ``radix/2`` spines, ``radix²/2`` end nodes.
    ``levels=3``: ``radix`` pods of ``radix/2`` edge and ``radix/2`` aggregation
    switches, ``(radix/2)²`` core switches and ``radix³/4`` end nodes (radix 40:
    16,000 end nodes, 2,000 switches). Each switch has its down ports first
    (1..radix/2), then its up ports. ``group`` is the pod (3 levels) or leaf.
    Spec: ``fat-tree:radix=R,levels=L``.

    Parameters
    ----------
    radix : int
        Ports per switch, even and at least 2.
    levels : int
        2 or 3.

    Returns
    -------
    Topology
        The fabric, switches (lowest level first) before end nodes.

    Raises
    ------
    SpecError
        If ``radix`` is odd or below 2, ``levels`` is not 2 or 3, or the fabric is over the size limits.

    Examples
    --------
    >>> topo = fat_tree(radix=4, levels=3)
    >>> len(topo.switches), len(topo.endpoints)
    (20, 16)
    """
    positive(radix=radix)
    if radix % 2 or radix < 2:
        raise SpecError(f"radix must be an even number >= 2, got {radix}")
    if levels not in (2, 3):
        raise SpecError(f"levels must be 2 or 3, got {levels}")
    h = radix // 2
    meta = {"generator": f"fat-tree:radix={radix},levels={levels}"}
    if levels == 2:
        n_leaf, n_spine, n_host = radix, h, radix * h
        check_size(n_leaf + n_spine + n_host, 2 * n_host, "this fat tree")
        leaf, spine = np.arange(n_leaf), n_leaf + np.arange(n_spine)
        host, host_links = hosts_below(leaf, h, 1, n_leaf + n_spine)
        up = (leaf[:, None], h + 1 + np.arange(n_spine)[None, :], spine[None, :], leaf[:, None] + 1)
        names = [f"leaf{i}" for i in range(n_leaf)] + [f"spine{i}" for i in range(n_spine)]
        names += [f"h{i}" for i in range(n_host)]
        level = np.r_[np.ones(n_leaf), np.full(n_spine, 2), np.zeros(n_host)]
        group = np.r_[leaf, np.full(n_spine, -1), np.repeat(leaf, h)]
        kind = np.r_[np.zeros(n_leaf + n_spine), np.ones(n_host)]
        return build(
            names,
            kind,
            np.r_[np.full(n_leaf + n_spine, radix), np.ones(n_host)],
            stack_links(host_links, up),
            meta,
            level=level,
            group=group,
        )
    n_edge = n_agg = radix * h
    n_core, n_host = h * h, radix * h * h
    check_size(n_edge + n_agg + n_core + n_host, 3 * n_host, "this fat tree")
    edge = np.arange(n_edge)
    agg = n_edge + np.arange(n_agg)
    core = n_edge + n_agg + np.arange(n_core)
    host, host_links = hosts_below(edge, h, 1, n_edge + n_agg + n_core)
    pod_of_edge = edge // h
    i, j = np.meshgrid(np.arange(h), np.arange(h), indexing="ij")
    pods = np.arange(radix)[:, None, None]
    edge_agg = (pods * h + i, h + 1 + j, n_edge + pods * h + j, i + 1)
    agg_j = np.arange(n_agg) % h
    m = np.arange(h)
    agg_core = (
        agg[:, None],
        h + 1 + m[None, :],
        core[agg_j[:, None] * h + m[None, :]],
        (np.arange(n_agg) // h)[:, None] + 1,
    )
    names = [f"edge{q}.{k}" for q in range(radix) for k in range(h)]
    names += [f"agg{q}.{k}" for q in range(radix) for k in range(h)]
    names += [f"core{c}" for c in range(n_core)] + [f"h{x}" for x in range(n_host)]
    n_sw = n_edge + n_agg + n_core
    level = np.r_[np.ones(n_edge), np.full(n_agg, 2), np.full(n_core, 3), np.zeros(n_host)]
    group = np.r_[pod_of_edge, pod_of_edge, np.full(n_core, -1), np.repeat(pod_of_edge, h)]
    return build(
        names,
        np.r_[np.zeros(n_sw), np.ones(n_host)],
        np.r_[np.full(n_sw, radix), np.ones(n_host)],
        stack_links(host_links, edge_agg, agg_core),
        meta,
        level=level,
        group=group,
    )


PRUNED_PRESETS = {
    # Our models of the paper's two Sunway machines: the processor counts and
    # the number of shortest leaf -> top paths match the paper; the exact
    # switch counts of the real machines are not published there.
    "bluelight": dict(pods=34, leaves=16, hosts=16, spines=16, up=16, paths=8),
    "taihulight": dict(pods=160, leaves=16, hosts=16, spines=16, up=8, paths=2),
}


def pruned_fat_tree(
    pods: int = 4,
    leaves: int = 4,
    hosts: int = 8,
    spines: int = 4,
    up: int = 2,
    paths: int = 2,
    preset: str = "",
) -> Topology:
    """Pruned (oversubscribed) 3-level fat tree.

    Each of ``pods`` pods has ``leaves`` leaf switches with ``hosts`` end nodes
    each, and ``spines`` spine switches; every leaf links to every spine of its
    pod. Each spine has ``up`` uplinks to top switches, arranged so that every
    top switch is reached from a leaf through exactly ``paths`` spines: that is,
    ``paths`` distinct shortest paths leaf -> top (BlueLight 8, TaihuLight 2).
    There are ``spines * up / paths`` top switches with ``pods * paths`` ports.
    ``preset=bluelight|taihulight`` picks our model of those machines
    (8,704 and 40,960 processors).
    """
    if preset:
        if preset not in PRUNED_PRESETS:
            raise SpecError(f"unknown preset {preset!r}; choose one of {sorted(PRUNED_PRESETS)}")
        return pruned_fat_tree(**PRUNED_PRESETS[preset]) | _with_meta(f"pruned-fat-tree:preset={preset}")
    positive(pods=pods, leaves=leaves, hosts=hosts, spines=spines, up=up, paths=paths)
    if spines % paths:
        raise SpecError(f"paths ({paths}) must divide spines ({spines})")
    n_leaf, n_spine = pods * leaves, pods * spines
    n_top = spines * up // paths
    n_host = n_leaf * hosts
    check_size(n_leaf + n_spine + n_top + n_host, n_host + n_leaf * spines + n_spine * up, "this pruned fat tree")
    leaf = np.arange(n_leaf)
    spine0, top0 = n_leaf, n_leaf + n_spine
    host, host_links = hosts_below(leaf, hosts, 1, top0 + n_top)
    pod_of_leaf = leaf // leaves
    s = np.arange(spines)
    leaf_spine = (
        leaf[:, None],
        hosts + 1 + s[None, :],
        spine0 + pod_of_leaf[:, None] * spines + s[None, :],
        (leaf % leaves)[:, None] + 1,
    )
    spine = np.arange(n_spine)
    sp_local, sp_pod = spine % spines, spine // spines
    u = np.arange(up)
    top = (sp_local // paths)[:, None] * up + u[None, :]
    spine_top = (
        spine0 + spine[:, None],
        leaves + 1 + u[None, :],
        top0 + top,
        (sp_pod * paths + sp_local % paths)[:, None] + 1,
    )
    names = [f"leaf{q}.{k}" for q in range(pods) for k in range(leaves)]
    names += [f"spine{q}.{k}" for q in range(pods) for k in range(spines)]
    names += [f"top{t}" for t in range(n_top)] + [f"h{x}" for x in range(n_host)]
    n_sw = n_leaf + n_spine + n_top
    nports = np.r_[
        np.full(n_leaf, hosts + spines), np.full(n_spine, leaves + up), np.full(n_top, pods * paths), np.ones(n_host)
    ]
    meta = {
        "generator": f"pruned-fat-tree:pods={pods},leaves={leaves},hosts={hosts},spines={spines},up={up},paths={paths}",
        "paths": paths,
    }
    return build(
        names,
        np.r_[np.zeros(n_sw), np.ones(n_host)],
        nports,
        stack_links(host_links, leaf_spine, spine_top),
        meta,
        level=np.r_[np.ones(n_leaf), np.full(n_spine, 2), np.full(n_top, 3), np.zeros(n_host)],
        group=np.r_[pod_of_leaf, sp_pod, np.full(n_top, -1), np.repeat(pod_of_leaf, hosts)],
    )


class _with_meta:
    """``topo | _with_meta(spec)`` replaces the generator string (used by presets)."""

    def __init__(self, spec: str):
        self.spec = spec

    def __ror__(self, topo: Topology) -> Topology:
        topo.meta["generator"] = self.spec
        return topo


def sunway_supernode() -> Topology:
    """One Sunway supernode of the aggregation-tree paper.

    256 nodes with 2 network ports each (512 ports) on a 2-level fat tree of
    40-port switches: 32 leaves with 16 ports down and 16 up, and 16 spines
    (32 ports down, 8 left free). Node ``i``'s port 1 goes to leaf ``i // 16``
    and its port 2 to leaf ``16 + i // 16``, so each leaf serves 16 ports.
    """
    n_leaf, n_spine, n_node = 32, 16, 256
    leaf, spine0, node0 = np.arange(n_leaf), n_leaf, n_leaf + n_spine
    node = np.arange(n_node)
    port1 = (node0 + node, 1, node // 16, node % 16 + 1)
    port2 = (node0 + node, 2, 16 + node // 16, node % 16 + 1)
    s = np.arange(n_spine)
    leaf_spine = (leaf[:, None], 17 + s[None, :], spine0 + s[None, :], leaf[:, None] + 1)
    names = [f"leaf{i}" for i in range(n_leaf)] + [f"spine{i}" for i in range(n_spine)]
    names += [f"node{i}" for i in range(n_node)]
    return build(
        names,
        np.r_[np.zeros(n_leaf + n_spine), np.ones(n_node)],
        np.r_[np.full(n_leaf + n_spine, 40), np.full(n_node, 2)],
        stack_links(port1, port2, leaf_spine),
        {"generator": "sunway-supernode"},
        level=np.r_[np.ones(n_leaf), np.full(n_spine, 2), np.zeros(n_node)],
        group=np.r_[leaf % 16, np.full(n_spine, -1), node // 16],
    )


def torus(dims: tuple[int, ...] = (4, 4, 4), hosts: int = 1) -> Topology:
    """2D or 3D torus of switches with ``hosts`` end nodes on each.

    Switch ports: ``2d+1`` towards +1 and ``2d+2`` towards -1 in dimension
    ``d``; end nodes on ports ``2·ndims+1...``. A dimension of size 2 has one
    link between its two switches, size 1 none. Coordinates are the node
    attributes ``x``, ``y`` (, ``z``); switch index = C-order of the coordinates.
    Spec: ``torus:AxB[xC],hosts=H``.

    Parameters
    ----------
    dims : tuple of int
        The size of each of the 2 or 3 dimensions (each at least 1).
    hosts : int
        End nodes per switch (0 or more).

    Returns
    -------
    Topology
        The fabric; switches are named ``sw1-2``, end nodes ``h1-2`` (``h1-2.0``, ... with several hosts).

    Raises
    ------
    SpecError
        For 1 or more than 3 dimensions, a dimension below 1, negative ``hosts`` or a fabric over the limits.

    Examples
    --------
    >>> topo = torus((3, 3), hosts=1)
    >>> topo.n_nodes, topo.n_links, topo.names[:2]
    (18, 27, ['sw0-0', 'sw0-1'])
    """
    dims = tuple(int(d) for d in dims)
    if len(dims) not in (2, 3):
        raise SpecError(f"a torus has 2 or 3 dimensions, got {len(dims)}")
    positive(**{f"dimension {i + 1}": d for i, d in enumerate(dims)})
    if hosts < 0:
        raise SpecError(f"hosts must be >= 0, got {hosts}")
    n_sw = int(np.prod(dims))
    check_size(n_sw * (1 + hosts), n_sw * (len(dims) + hosts), "this torus")
    coords = np.stack(np.unravel_index(np.arange(n_sw), dims), axis=1)
    parts = []
    for d, size in enumerate(dims):
        if size == 1:
            continue
        src = np.arange(n_sw) if size > 2 else np.flatnonzero(coords[:, d] == 0)
        nxt = coords[src].copy()
        nxt[:, d] = (nxt[:, d] + 1) % size
        parts.append((src, 2 * d + 1, np.ravel_multi_index(nxt.T, dims), 2 * d + 2))
    host, host_links = hosts_below(np.arange(n_sw), hosts, 2 * len(dims) + 1, n_sw)
    if hosts:
        parts.append(host_links)
    label = lambda c: "-".join(map(str, c))  # noqa: E731
    names = [f"sw{label(c)}" for c in coords.tolist()]
    names += [f"h{label(c)}" + (f".{i}" if hosts > 1 else "") for c in coords.tolist() for i in range(hosts)]
    all_coords = np.r_[coords, np.repeat(coords, hosts, axis=0)]
    attrs = {axis: all_coords[:, d] for d, axis in enumerate("xyz"[: len(dims)])}
    spec = f"torus:{'x'.join(map(str, dims))},hosts={hosts}"
    return build(
        names,
        np.r_[np.zeros(n_sw), np.ones(n_sw * hosts)],
        np.r_[np.full(n_sw, 2 * len(dims) + hosts), np.ones(n_sw * hosts)],
        stack_links(*parts),
        {"generator": spec},
        level=np.r_[np.ones(n_sw), np.zeros(n_sw * hosts)],
        **attrs,
    )


def dragonfly(a: int = 4, p: int = 2, h: int = 2, g: int = 0) -> Topology:
    """Dragonfly with ``a`` switches per group, ``p`` end nodes and ``h`` global links per switch.

    ``g`` groups (default and maximum ``a·h + 1``, one global link between
    every pair of groups). Switches of a group are fully connected by local
    links. Global port ``k`` (0-based over the group's ``a·h`` global ports,
    switch ``k // h``) of group ``i`` leads to group ``(i + k + 1) mod g``.
    Switch ports: ``1..p`` end nodes, then ``a-1`` local, then ``h`` global.
    Global links carry the link attribute ``global = 1``.
    """
    positive(a=a, p=p, h=h)
    g = g or a * h + 1
    if not 2 <= g <= a * h + 1:
        raise SpecError(f"g must be between 2 and a*h+1 = {a * h + 1}, got {g}")
    n_sw, n_host = g * a, g * a * p
    check_size(n_sw + n_host, n_host + g * a * (a - 1) // 2 + g * (g - 1) // 2, "this dragonfly")
    sw = np.arange(n_sw)
    grp, local = sw // a, sw % a
    host, host_links = hosts_below(sw, p, 1, n_sw)
    s1, s2 = np.triu_indices(a, 1)
    base = (np.arange(g) * a)[:, None]
    local_links = (base + s1, p + s2, base + s2, p + 1 + s1)  # port p+1+j reaches the j-th other switch
    k = np.arange(g - 1)
    gi = np.repeat(np.arange(g), g - 1)
    kk = np.tile(k, g)
    gj = (gi + kk + 1) % g
    k2 = g - 2 - kk
    one_way = gi < gj
    gi, kk, gj, k2 = gi[one_way], kk[one_way], gj[one_way], k2[one_way]
    gport0 = p + a
    global_links = (gi * a + kk // h, gport0 + kk % h, gj * a + k2 // h, gport0 + k2 % h)
    links = stack_links(host_links, local_links, global_links)
    is_global = np.r_[np.zeros(n_host + len(s1) * g, dtype=int), np.ones(len(gi), dtype=int)]
    names = [f"sw{q}.{s}" for q in range(g) for s in range(a)]
    names += [f"h{q}.{s}.{t}" for q in range(g) for s in range(a) for t in range(p)]
    spec = f"dragonfly:a={a},p={p},h={h}" + (f",g={g}" if g != a * h + 1 else "")
    return build(
        names,
        np.r_[np.zeros(n_sw), np.ones(n_host)],
        np.r_[np.full(n_sw, p + a - 1 + h), np.ones(n_host)],
        links,
        {"generator": spec},
        level=np.r_[np.ones(n_sw), np.zeros(n_host)],
        group=np.r_[grp, np.repeat(grp, p)],
        link_global=is_global,
        local=np.r_[local, np.repeat(local, p)],
    )


MESH_DIRECTIONS = {4: [(0, 1), (1, 0)], 8: [(0, 1), (1, 0), (1, 1), (1, -1)]}


def mesh(dims: tuple[int, int] = (4, 4), neighbors: int = 4, hosts: int = 1) -> Topology:
    """2D mesh (grid, no wrap-around) of ``rows x cols`` routers, 4- or 8-neighborhood.

    Router ports: for each direction ``d`` of (east, south[, south-east,
    south-west]) port ``2d+1`` goes forward and ``2d+2`` back; ``hosts`` end
    nodes (default 1: the processor of that grid position) follow. Attributes
    ``x`` = column, ``y`` = row.
    """
    if len(dims) != 2:
        raise SpecError(f"a mesh has 2 dimensions (ROWSxCOLS), got {len(dims)}")
    rows, cols = (int(d) for d in dims)
    positive(rows=rows, cols=cols)
    if neighbors not in MESH_DIRECTIONS:
        raise SpecError(f"neighbors must be 4 or 8, got {neighbors}")
    if hosts < 0:
        raise SpecError(f"hosts must be >= 0, got {hosts}")
    n_sw = rows * cols
    ndir = len(MESH_DIRECTIONS[neighbors])
    check_size(n_sw * (1 + hosts), n_sw * (ndir + hosts), "this mesh")
    r, c = np.divmod(np.arange(n_sw), cols)
    parts = []
    for d, (dr, dc) in enumerate(MESH_DIRECTIONS[neighbors]):
        ok = (r + dr < rows) & (c + dc >= 0) & (c + dc < cols)
        src = np.flatnonzero(ok)
        parts.append((src, 2 * d + 1, (r[src] + dr) * cols + c[src] + dc, 2 * d + 2))
    host, host_links = hosts_below(np.arange(n_sw), hosts, 2 * ndir + 1, n_sw)
    if hosts:
        parts.append(host_links)
    cells = [f"{i}-{j}" for i, j in zip(r.tolist(), c.tolist(), strict=True)]
    names = [f"sw{cell}" for cell in cells]
    names += [f"h{cell}" + (f".{t}" if hosts > 1 else "") for cell in cells for t in range(hosts)]
    spec = f"mesh:{rows}x{cols},neighbors={neighbors},hosts={hosts}"
    return build(
        names,
        np.r_[np.zeros(n_sw), np.ones(n_sw * hosts)],
        np.r_[np.full(n_sw, 2 * ndir + hosts), np.ones(n_sw * hosts)],
        stack_links(*parts),
        {"generator": spec},
        level=np.r_[np.ones(n_sw), np.zeros(n_sw * hosts)],
        x=np.r_[c, np.repeat(c, hosts)],
        y=np.r_[r, np.repeat(r, hosts)],
    )


def empty() -> Topology:
    """A fabric of no node at all, to draw from nothing: the Topology page's "new empty fabric" (``empty``), whose
    nodes and links are then added by hand."""
    return build([], np.zeros(0), np.zeros(0), stack_links(), {"generator": "empty"})


def parse_params(rest: str, spec: str) -> dict:
    """The keyword arguments of the text after a spec's ``name:``: dimensions ``AxBxC`` become ``dims``, every
    ``key=value`` is an integer except ``preset``.

    >>> parse_params("30x20x20,hosts=2", "torus:30x20x20,hosts=2")
    {'dims': (30, 20, 20), 'hosts': 2}
    """
    params: dict = {}
    for token in filter(None, (t.strip() for t in rest.split(","))):
        key, eq, value = token.partition("=")
        if not eq:
            try:
                params["dims"] = tuple(int(x) for x in token.lower().split("x"))
            except ValueError:
                raise SpecError(f"{token!r} in {spec!r} is neither key=value nor dimensions like 4x4") from None
            continue
        try:
            params[key.strip()] = value.strip() if key.strip() == "preset" else int(value)
        except ValueError:
            raise SpecError(f"parameter {key!r} in {spec!r} must be an integer, got {value!r}") from None
    return params


@dataclass(frozen=True)
class Generator:
    """A fabric generator: ``name`` (a spec's prefix), ``label`` (what it builds, in a few words), ``build(**params)
    -> Topology`` (its keyword parameters and their defaults are the spec's), ``help`` (the spec's syntax,
    ``fat-tree:radix=R,levels=L``) and ``example`` (the spec of the topology page's fabric menu; "" keeps the
    generator out of the menu). The text after ``name:`` becomes ``build``'s keyword arguments by
    :func:`parse_params`."""

    name: str
    label: str
    build: Callable[..., Topology]
    help: str
    example: str = ""

    def parameters(self) -> Mapping[str, inspect.Parameter]:
        """``build``'s parameters: the keys a spec may give."""
        return inspect.signature(self.build).parameters

    def defaults(self) -> str:
        """The spec with every parameter at its default, as an example to edit.

        >>> GENERATORS["torus"].defaults()
        'torus:4x4x4,hosts=1'
        """
        parts = []
        for p in self.parameters().values():
            if p.name == "dims":
                parts.insert(0, "x".join(map(str, p.default)))
            elif p.default != "":
                parts.append(f"{p.name}={p.default}")
        return self.name + (":" + ",".join(parts) if parts else "")


GENERATORS: Registry[Generator] = Registry("fabric generator")
"""Every fabric generator by name, in the order of the topology page's fabric menu and of the messages."""
register, unregister = GENERATORS.register, GENERATORS.unregister

for _generator in (
    Generator(
        "fat-tree", "fat tree (full bisection)", fat_tree, "fat-tree:radix=R,levels=L", "fat-tree:radix=4,levels=3"
    ),
    Generator(
        "pruned-fat-tree",
        "pruned (oversubscribed) 3-level fat tree",
        pruned_fat_tree,
        "pruned-fat-tree:pods=P,leaves=L,hosts=H,spines=S,up=U,paths=N or pruned-fat-tree:preset=bluelight|taihulight",
        "pruned-fat-tree:pods=2,leaves=2,hosts=4,spines=2,up=2,paths=1",
    ),
    Generator("sunway-supernode", "one Sunway supernode", sunway_supernode, "sunway-supernode", "sunway-supernode"),
    Generator("torus", "2D or 3D torus", torus, "torus:AxB[xC],hosts=H", "torus:4x4x2,hosts=1"),
    Generator("dragonfly", "dragonfly", dragonfly, "dragonfly:a=A,p=P,h=H[,g=G]", "dragonfly:a=4,p=2,h=2"),
    Generator("mesh", "2D mesh", mesh, "mesh:RxC,neighbors=4|8,hosts=H", "mesh:4x4,neighbors=8"),
    Generator("grid", "2D mesh (the mesh's other name)", mesh, "grid:RxC,neighbors=4|8,hosts=H"),
    Generator(
        RAIL_GENERATOR,
        "rail-optimized fat trees",
        rail_fat_tree,
        "rail-fat-tree:servers=S,rails=R,radix=K[,cross=1]",
        "rail-fat-tree:servers=16,rails=4,radix=8",  # 1,048,576 NICs: RAIL_MILLION
    ),
    Generator("empty", "no node: a fabric drawn by hand", empty, "empty", "empty"),  # the Edit panel adds nodes
):
    register(_generator)


def syntax() -> str:
    """Every generator's spec syntax (its ``help``), in order: the command line's help of a SPEC.

    >>> syntax().split(", ")[0]
    'fat-tree:radix=R,levels=L'
    """
    return ", ".join(generator.help for generator in GENERATORS.values())


def parse_spec(spec: str) -> tuple[str, dict]:
    """Split ``name:AxBxC,key=value,...`` into the generator name and keyword arguments.

    Dimensions ``AxBxC`` become ``dims``; every ``key=value`` is an integer except ``preset``
    (:func:`parse_params`). Only the parameters the generator takes are accepted.

    Parameters
    ----------
    spec : str
        A generator spec, e.g. ``fat-tree:radix=40,levels=3``; the names are those of :data:`GENERATORS`.

    Returns
    -------
    tuple of (str, dict)
        The generator's name and its keyword arguments.

    Raises
    ------
    SpecError
        For an unknown generator, a token that is neither ``key=value`` nor dimensions, a value that is not an
        integer, or a parameter the generator does not take.

    Examples
    --------
    >>> parse_spec("torus:30x20x20,hosts=2")
    ('torus', {'dims': (30, 20, 20), 'hosts': 2})
    """
    name, _, rest = spec.strip().partition(":")
    if name not in GENERATORS:
        raise SpecError(
            f"unknown topology {name!r}; choose one of {', '.join(GENERATORS)} (a topology file is "
            "uploaded in the app, or named on the command line)"
        )
    generator = GENERATORS[name]
    params = parse_params(rest, spec)
    accepted = generator.parameters()
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise SpecError(f"{name} does not take {', '.join(unknown)}; it takes {', '.join(accepted) or 'nothing'}")
    return name, params


def from_spec(spec: str) -> Topology:
    """Build the topology a generator spec describes (see :func:`parse_spec`).

    Parameters
    ----------
    spec : str
        A generator spec: ``fat-tree:radix=40,levels=3``, ``torus:30x20x20,hosts=2``, ``dragonfly:a=18,p=9,h=9``,
        ``rail-fat-tree:servers=131072,rails=8,radix=128``, ``mesh:4x4``, ...

    Returns
    -------
    Topology
        The generated fabric, validated.

    Raises
    ------
    SpecError
        For a malformed spec (:func:`parse_spec`) or parameters the generator refuses.

    Examples
    --------
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> topo.names[:6], topo.n_links
    (['leaf0', 'leaf1', 'leaf2', 'leaf3', 'spine0', 'spine1'], 16)
    """
    name, params = parse_spec(spec)
    return GENERATORS[name].build(**params)


def spec_size(spec: str) -> tuple[int, int]:
    """``(nodes, links)`` of the fabric ``spec`` describes, without building it (:func:`~vizcoll.topology.
    building.planned_size`); SpecError as :func:`from_spec` raises it.

    >>> spec_size("rail-fat-tree:servers=131072,rails=8,radix=128")
    (1114112, 3145728)
    """
    name, params = parse_spec(spec)
    return planned_size(lambda: GENERATORS[name].build(**params))
