"""Communication patterns as short strings (for the command line and the web page).

==========================  ====================================================
pattern                     communicators
==========================  ====================================================
``grid2d:RxC``              rows and columns of an R x C grid (R*C processes)
``grid3d:AxBxC``            the lines of an A x B x C grid (A*B*C processes)
``random:G[,size=S]``       G random groups (``seed=N``: their seed, default
                            the placement seed; ``procs=N``: number of processes)
``hier:K[,procs=N]``        consecutive groups of K ranks, then their leaders
``hier:attr=NAME``          ranks grouped by a node attribute (``group``,
                            ``node``, ``switch``, ...), then their leaders
``hosts:LIST``              one communicator of the processes a host list
                            places (``hosts:node[01-16]``, ``hosts:n1:4,n2:4``)
``PATH``                    a file (command line only): JSON
                            ``{"communicators": [[end-node name, ...], ...]}``,
                            or a host list (Open MPI hostfile, MPICH
                            machinefile, one host per line, Slurm hostlists)
==========================  ====================================================

Each kind is a :class:`Pattern` of the registry :data:`PATTERNS`, which :func:`parse_pattern`, its message,
the command line's ``--pattern`` help and the pages read when they run: one :func:`register` line adds a kind.

Grid patterns place exactly as many processes as the grid has; the others use
every slot (``compute nodes x ppn``) unless ``procs=`` says otherwise.

A host list (:mod:`vizcoll.comm.hostfile`) is "my job ran on these nodes": one
communicator of every listed process, a host's processes = its slots (``ppn``
for a line without a count), ranks host by host in the list's order. A host is
found by any name the fabric knows for it (:meth:`Topology.index`: the host of
an HCA's description, a fully qualified name's first label, a GUID); a host
with several HCAs (``node05 mlx5_0``, ``node05 mlx5_1``) runs its processes on
the first of them by name (``mlx5_0``, ``HCA-1``). A host the fabric lacks is named in
the message, with close names that exist.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vizcoll.comm.communicators import Communicators
from vizcoll.comm.hostfile import HostEntry, looks_like_hostfile, parse_hostfile
from vizcoll.comm.placement import check_fits, compute_nodes, place
from vizcoll.comm.splits import from_lists, grid, hierarchical, hierarchical_by_topology, random_groups
from vizcoll.errors import SpecError, TopologyError
from vizcoll.registry import Registry
from vizcoll.topology.model import Topology

__all__ = [
    "Pattern",
    "PATTERNS",
    "register",
    "unregister",
    "pattern_help",
    "pattern_examples",
    "MAX_LIST_BYTES",
    "parse_pattern",
    "parse_lists",
    "host_lists",
    "file_lists",
]

MAX_LIST_BYTES = 64 * 1024 * 1024


def _split(rest: str, pattern: str, keys: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    """Positional tokens and ``key=value`` pairs of a pattern's parameter part."""
    positional, params = [], {}
    for token in filter(None, (t.strip() for t in rest.split(","))):
        key, eq, value = token.partition("=")
        if not eq:
            positional.append(token)
        elif key.strip() in keys:
            params[key.strip()] = value.strip()
        else:
            raise SpecError(f"unknown parameter {key.strip()!r} in {pattern!r}; it takes {', '.join(keys) or 'none'}")
    return positional, params


def _int(value: str, what: str, pattern: str, minimum: int = 1) -> int:
    try:
        number = int(value)
    except ValueError:
        number = minimum - 1
    if number < minimum:
        raise SpecError(f"{what} in {pattern!r} must be an integer >= {minimum}, got {value!r}")
    return number


def _dims(positional: list[str], count: int, pattern: str) -> tuple[int, ...]:
    example = "x".join("4" * count) if count > 1 else "4"
    if len(positional) != 1 or len(positional[0].lower().split("x")) != count:
        raise SpecError(f"{pattern!r} needs {count} dimensions like {example}, got {','.join(positional) or 'none'}")
    return tuple(_int(d, "a grid dimension", pattern) for d in positional[0].lower().split("x"))


def _grid(topo: Topology, rest: str, pattern: str, count: int, ppn: int, order: str, seed: int) -> Communicators:
    dims = _dims(_split(rest, pattern, ())[0], count, pattern)
    nprocs = int(np.prod(dims))
    check_fits(topo, nprocs, ppn, what=pattern)
    return grid(place(topo, nprocs, ppn, order, seed), dims, label=pattern)


def _nprocs(topo: Topology, params: dict[str, str], pattern: str, ppn: int) -> int | None:
    if "procs" not in params:
        return None
    nprocs = _int(params["procs"], "procs", pattern)
    check_fits(topo, nprocs, ppn, what=pattern)
    return nprocs


def _random(topo: Topology, rest: str, pattern: str, ppn: int, order: str, seed: int) -> Communicators:
    positional, params = _split(rest, pattern, ("size", "seed", "procs"))
    if len(positional) != 1:
        raise SpecError(f"{pattern!r} needs the number of groups, like random:8,size=16")
    groups = _int(positional[0], "the number of groups", pattern)
    size = _int(params["size"], "size", pattern) if "size" in params else None
    group_seed = _int(params["seed"], "seed", pattern, minimum=0) if "seed" in params else seed
    placement = place(topo, _nprocs(topo, params, pattern, ppn), ppn, order, seed)
    comms = random_groups(placement, groups, size, group_seed)
    comms.label = pattern
    return comms


def _hier(topo: Topology, rest: str, pattern: str, ppn: int, order: str, seed: int) -> Communicators:
    positional, params = _split(rest, pattern, ("attr", "procs"))
    if len(positional) + ("attr" in params) != 1:
        raise SpecError(f"{pattern!r} needs a group size (hier:16) or a node attribute (hier:attr=group)")
    placement = place(topo, _nprocs(topo, params, pattern, ppn), ppn, order, seed)
    if "attr" in params:
        comms = hierarchical_by_topology(topo, placement, params["attr"])
    else:
        comms = hierarchical(placement, _int(positional[0], "the group size", pattern))
    comms.label = pattern
    return comms


def _hosts(topo: Topology, rest: str, pattern: str, ppn: int, order: str, seed: int) -> Communicators:
    return from_lists(topo, host_lists(topo, rest, ppn, "hosts"), label=pattern)


@dataclass(frozen=True)
class Pattern:
    """A kind of communication pattern: ``name`` (the text before ``:``, any case), ``label`` (the communicators it
    makes, in a few words), ``parse(topo, rest, pattern, ppn, order, seed) -> Communicators`` (``rest``: the text
    after ``name:``, ``pattern``: the whole, which labels them and names them in messages), ``help`` (its syntax,
    ``grid2d:RxC``) and ``example`` (the topology page's placeholder shows it; "" keeps the placeholder short)."""

    name: str
    label: str
    parse: Callable[..., Communicators]
    help: str
    example: str = ""


PATTERNS: Registry[Pattern] = Registry("communication pattern")
"""Every pattern kind by name, in the order help texts list them (what a scenario from a stranger may hold: none
names a file)."""
register, unregister = PATTERNS.register, PATTERNS.unregister

for _pattern in (
    Pattern(
        "grid2d",
        "rows and columns of an R x C grid",
        lambda topo, rest, pat, *a: _grid(topo, rest, pat, 2, *a),
        "grid2d:RxC",
        "grid2d:4x4",
    ),
    Pattern(
        "grid3d",
        "the lines of an A x B x C grid",
        lambda topo, rest, pat, *a: _grid(topo, rest, pat, 3, *a),
        "grid3d:AxBxC",
    ),
    Pattern("random", "random groups", _random, "random:GROUPS[,size=S][,seed=N]", "random:4,size=4"),
    Pattern("hier", "groups, then their leaders", _hier, "hier:GROUPSIZE, hier:attr=NAME", "hier:4"),
    Pattern("hosts", "the processes of a host list", _hosts, "hosts:node[01-16]", "hosts:node[01-16]"),
):
    register(_pattern)


def pattern_help() -> str:
    """Every pattern's syntax, then the files (for ``--pattern``'s help and the message of an unknown pattern).

    >>> pattern_help()[:36]
    'grid2d:RxC, grid3d:AxBxC, random:GRO'
    """
    kinds = ", ".join(pattern.help for pattern in PATTERNS.values())
    return f"{kinds} or a file: JSON end-node name lists or a host list (MPI hostfile, machinefile)"


def pattern_examples() -> str:
    """The patterns' examples, for a placeholder (``grid2d:4x4, random:4,size=4, ...``)."""
    return ", ".join(pattern.example for pattern in PATTERNS.values() if pattern.example)


def host_lists(topo: Topology, text: str | bytes, ppn: int = 1, source: str = "hostfile") -> list[list[str]]:
    """The one communicator a host list places, as end-node names (a name repeated once per process).

    Examples
    --------
    >>> from vizcoll.topology import from_spec
    >>> host_lists(from_spec("fat-tree:radix=4,levels=2"), "h0 slots=2\\nh[3-4]")
    [['h0', 'h0', 'h3', 'h4']]
    """
    computes = np.zeros(topo.n_nodes, dtype=bool)
    computes[compute_nodes(topo)] = True
    names = []
    for entry in parse_hostfile(text, ppn, source):
        names += [_host_node(topo, entry, source, computes)] * entry.slots
    return [names]


def _host_node(topo: Topology, entry: HostEntry, source: str, computes: np.ndarray) -> str:
    """The end node of a listed host (its first HCA by name where it has several)."""
    found = [u for u in topo.name_index.candidates(entry.host) if computes[u]]
    if not found:
        kind = "end node" if len(topo.endpoints) else "switch"
        raise SpecError(
            f"{source}, line {entry.line}: the fabric has no {kind} {entry.host!r}{topo.name_index.close(entry.host)}"
        )
    return min(topo.names[u] for u in found)


def file_lists(topo: Topology, data: str | bytes, source: str, ppn: int = 1) -> list[list[str]]:
    """The end-node name lists of a communicators file: JSON name lists (each name checked and written as the
    fabric names it), or a host list (one communicator, see :func:`host_lists`)."""
    if looks_like_hostfile(data):
        return host_lists(topo, data, ppn, source)
    lists = parse_lists(data, source)
    try:
        return [[topo.names[topo.index(name)] for name in names] for names in lists]
    except TopologyError as exc:
        raise SpecError(f"{source}: {exc}") from None


def parse_lists(data: str | bytes, source: str = "communicators file") -> list[list[str]]:
    """Parse ``{"communicators": [[name, ...], ...]}`` (or a bare list of lists) from JSON text.

    Raises
    ------
    SpecError
        Naming the line of a JSON syntax error or the field that is wrong.
    """
    if len(data) > MAX_LIST_BYTES:
        raise SpecError(f"{source}: {len(data):,} bytes is more than the limit of {MAX_LIST_BYTES:,}")
    try:
        doc = json.loads(data)
    except json.JSONDecodeError as exc:
        raise SpecError(f"{source}: line {exc.lineno}: {exc.msg}") from None
    except UnicodeDecodeError:
        raise SpecError(f"{source}: not UTF-8 text") from None
    lists = doc.get("communicators") if isinstance(doc, dict) else doc
    if not isinstance(lists, list):
        raise SpecError(f"{source}: expected an object with a list 'communicators'")
    for i, names in enumerate(lists):
        if not isinstance(names, list):
            raise SpecError(f"{source}: 'communicators[{i}]' must be a list of end-node names")
        for j, name in enumerate(names):
            if not isinstance(name, str):
                raise SpecError(f"{source}: 'communicators[{i}][{j}]' must be a node name (a string), got {name!r}")
    return lists


def _read_file(path: str) -> bytes:
    """The bytes of a communicators file (JSON name lists or a host list), at most :data:`MAX_LIST_BYTES`."""
    try:
        if os.path.getsize(path) > MAX_LIST_BYTES:
            raise SpecError(f"{path}: the file is larger than the limit of {MAX_LIST_BYTES:,} bytes")
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise SpecError(f"cannot read {path}: {exc.strerror or exc}") from None


def parse_pattern(pattern: str, topo: Topology, ppn: int = 1, order: str = "linear", seed: int = 0) -> Communicators:
    """Build the communicators a pattern string describes (see the module docstring).

    ``ppn``, ``order`` and ``seed`` go to :func:`vizcoll.comm.place`; a JSON
    file of node names fixes its own placement (see :func:`vizcoll.comm.from_lists`),
    a host list too (``ppn`` for its lines without a count).

    Parameters
    ----------
    pattern : str
        ``grid2d:RxC``, ``grid3d:AxBxC``, ``random:G[,size=S][,seed=N][,procs=N]``, ``hier:K[,procs=N]``,
        ``hier:attr=NAME``, ``hosts:LIST``, or the path of a communicators file (JSON name lists or a host list).
    topo : Topology
        The fabric the processes run on.
    ppn : int
        Processes per compute node.
    order : str
        The placement order: ``linear``, ``random`` or ``rail-major``.
    seed : int
        Seed of the random order (and of ``random:`` groups without their own ``seed=``).

    Returns
    -------
    Communicators
        The communicators, with their placement on ``topo``; labelled with the pattern.

    Raises
    ------
    SpecError
        Naming the bad part of a malformed pattern, or when the processes do
        not fit on ``topo``.

    Examples
    --------
    >>> from vizcoll.topology import from_spec
    >>> parse_pattern("grid2d:4x2", from_spec("fat-tree:radix=4,levels=2")).sizes()
    {2: 4, 4: 2}
    """
    text = str(pattern).strip()
    kind, colon, rest = text.partition(":")
    if colon and kind.strip().lower() in PATTERNS:
        return PATTERNS[kind.strip().lower()].parse(topo, rest, text, ppn, order, seed)
    if os.path.isfile(text):
        return from_lists(topo, file_lists(topo, _read_file(text), text, ppn), label=os.path.basename(text))
    if text.lower().endswith(".json"):
        raise SpecError(f"cannot read {text}: No such file or directory")
    raise SpecError(f"unknown communication pattern {text!r}; use {pattern_help()}")
