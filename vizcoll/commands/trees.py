"""Commands ``tree`` (type I aggregation trees) and ``kopt`` (the best tree width, eq. 5).

Usage::

    python -m vizcoll tree --kind kary|knomial|zhao|hier-knomial|... --k K --nprocs P
                           [--groups 5,4,3,2 | --topology SPEC --ppn N]
    python -m vizcoll kopt --P 512 --a 1.12 --b 0.01 [--eps 0.1] [--k-limit 64]

``tree`` prints ``parent`` (the root is vertex 0, its parent -1), ``children``
(in emit order) and ``height``; vertex ``v`` is rank ``v`` (``ranks`` lists
the rank of each vertex when the root is not rank 0, see
:mod:`vizcoll.trees.typeone`). ``--groups`` takes group sizes over
consecutive ranks (``5,4,3,2``) or nested JSON lists of ranks; without it
the hierarchical kinds (``zhao``, ``hier-knomial``) group the processes of
``--topology`` by node, leaf switch and ``group`` attribute (on a rail fabric: the rail). ``--kind`` takes
every kind of :mod:`vizcoll.trees.kinds`. With ``--topology`` the processes are
placed ``--ppn`` per node (each on its own port) and the output adds the
``radius``, the link metrics of :func:`vizcoll.trees.metrics.tree_metrics`
and the modelled latency (eq. 2, default Sunway parameters, width ``--k``).

On a rail fabric (``rail-fat-tree:...``) the output adds ``rails``: the
fabric's rails and, for the rail-aware placement (a server's GPUs on
consecutive ranks, the default) and the naive one (ranks fill rail 0 first),
the tree built for that placement and how many of its edges cross rails
(``{"edges", "cross_rail", "within_server", "between_servers"}``, see
:mod:`vizcoll.comm.rails`, :func:`vizcoll.trees.rails.tree_rails`); ``--ppn`` and ``--groups`` apply to both.
"""

from __future__ import annotations

import argparse
import json

from vizcoll.comm import place
from vizcoll.comm.rails import has_rails, rail_placements
from vizcoll.commands import command, load_topology
from vizcoll.errors import SpecError
from vizcoll.trees import kinds
from vizcoll.trees.cost import kopt
from vizcoll.trees.groups import hierarchy_from_topology, hierarchy_levels, normalize_groups
from vizcoll.trees.metrics import LatencyModel, tree_metrics
from vizcoll.trees.rails import tree_rails
from vizcoll.trees.typeone import vertex_ranks

__all__ = ["kind_args", "parse_groups"]

METRIC_KEYS = (
    "radius",
    "edge_links",
    "max_link",
    "max_switch_link",
    "leaf_pairs_max",
    "cross_group",
    "link_packets",
    "switch_entries",
    "latency_us",
    "flags",
)


def parse_groups(text: str) -> list:
    """``"5,4,3,2"`` (sizes) or a JSON list (sizes or nested rank lists) -> normalised nested lists."""
    text = text.strip()
    try:
        value = json.loads(text) if text.startswith("[") else [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SpecError(f"--groups must be sizes like 5,4,3,2 or a JSON list of rank lists, got {text!r}") from None
    if not isinstance(value, list):
        raise SpecError("--groups must be a list")
    return normalize_groups(value)


def kind_args(parser: argparse.ArgumentParser) -> None:
    """``--kind``: one of the registered tree kinds (read when the parser is built) and ``--k``."""
    described = "; ".join(f"{kind.name}: {kind.description or kind.label}" for kind in kinds.REGISTRY.values())
    parser.add_argument("--kind", choices=kinds.names(), required=True, help=f"which type I tree ({described})")
    parser.add_argument("--k", type=int, required=True, help="tree width (k-ary) or base (k-nomial)")


def _tree_args(parser: argparse.ArgumentParser) -> None:
    kind_args(parser)
    parser.add_argument("--nprocs", type=int, help="number of processes (default: the groups' total)")
    parser.add_argument("--groups", help="group sizes (5,4,3,2) or nested JSON rank lists")
    parser.add_argument("--topology", metavar="SPEC", help="generator spec or topology file to map the tree on")
    parser.add_argument("--ppn", type=int, default=1, help="processes per node with --topology (default 1)")


def _nprocs(args: argparse.Namespace, groups: list | None) -> int:
    total = None if groups is None else len(hierarchy_levels(groups)[0])
    if args.nprocs is None and total is None:
        raise SpecError("give --nprocs (or --groups)")
    if args.nprocs is not None and total is not None and args.nprocs != total:
        raise SpecError(f"--nprocs {args.nprocs} but the groups hold {total} processes")
    return int(args.nprocs if args.nprocs is not None else total)


@command("tree", "build a type I aggregation tree (k-ary, k-nomial, Zhao, hierarchical k-nomial, ...)", _tree_args)
def _tree(args: argparse.Namespace) -> dict:
    groups = parse_groups(args.groups) if args.groups else None
    nprocs = _nprocs(args, groups)
    topo = load_topology(args.topology) if args.topology else None
    placement = place(topo, nprocs, args.ppn) if topo is not None else None
    kind = kinds.get(args.kind)
    if kind.hierarchical and groups is None:
        if topo is None:
            raise SpecError(f"--kind {args.kind} needs --groups or --topology")
        groups = hierarchy_from_topology(topo, placement)
    tree = kind.build(nprocs, args.k, groups if kind.hierarchical else None)
    out = {
        "kind": args.kind,
        "k": args.k,
        "nprocs": nprocs,
        "parent": tree.parent,
        "children": tree.children,
        "height": tree.height,
    }
    ranks = vertex_ranks(tree)
    if ranks != list(range(tree.size)):
        out["ranks"] = ranks
    levels = None
    if groups is not None:
        levels = {f"level{i + 1}": ids[ranks] for i, ids in enumerate(hierarchy_levels(groups))}
    if topo is not None:
        metrics = tree_metrics(tree, topo, placement, levels=levels, latency=LatencyModel(k=args.k))
        out.update({key: metrics[key] for key in METRIC_KEYS})
        out["cross_group"] = {name: int(n) for name, n in out["cross_group"].items()}
    elif levels is not None:
        out["cross_group"] = tree_metrics(tree, levels=levels)["cross_group"]
    if topo is not None and has_rails(topo):
        out["rails"] = tree_rails(
            topo, args.kind, args.k, rail_placements(topo, nprocs, args.ppn), groups if args.groups else None
        )
    return out


def _kopt_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--P", type=int, required=True, help="number of processes")
    parser.add_argument("--a", type=float, required=True, help="a = delta * l in microseconds")
    parser.add_argument("--b", type=float, required=True, help="b = theta + S'/beta + S* gamma in microseconds")
    parser.add_argument("--eps", type=float, default=0.1, help="tolerance in microseconds (default 0.1)")
    parser.add_argument("--k-limit", type=int, help="largest width allowed (default: none)")


@command("kopt", "best type I tree width k for P processes (eq. 5) and the widths within eps of it", _kopt_args)
def _kopt(args: argparse.Namespace) -> dict:
    return kopt(args.P, args.a, args.b, args.eps, args.k_limit)
