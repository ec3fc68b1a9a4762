"""The paper's aggregation-tree entry experiment (section 6.2.2, Fig. 19/20) on our TaihuLight model.

Run ``python benchmarks/trees_entries.py [--degree D|radix ...] [--entries 16] [--only NAME]``.
For every pattern, the communicators are routed in order, once with
unlimited entries (the paper's "total entries used", Fig. 19) and once with
``--entries`` per switch (the failure rate, Fig. 20), each time with the
physical-tree method and the min-cost method (Algorithm 5). Prints one JSON
document: per degree bound and pattern, the entries used, the reduction
(1 - min-cost / physical) and the failure rates, plus the number of
communicators that span several supernodes (they need a top switch as root:
the top level holds ``top switches x entries`` trees at most).

Patterns on ``pruned-fat-tree:preset=taihulight`` (160 supernodes of 256
nodes, one process per node, linear placement):

- ``2d-aware``: the paper's 256x160 grid = vizcoll ``grid2d:160x256`` (the
  160 communicators of one dimension each fill one supernode);
- ``2d-unaware``: ``grid2d:202x202`` (40,804 processes);
- ``3d-aware``: ``grid3d:160x16x16`` (lines of 16 inside one leaf switch or
  one supernode, lines of 160 across supernodes);
- ``3d-unaware``: ``grid3d:34x34x35`` (40,460 processes; no dimension
  follows the supernodes);
- ``random``: ``random:160`` (160 random communicators of 256 processes, seed 0).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vizcoll.comm import parse_pattern  # noqa: E402
from vizcoll.topology.generators import from_spec  # noqa: E402
from vizcoll.trees.entries import entry_experiment  # noqa: E402
from vizcoll.trees.typetwo import TypeTwoPlanner  # noqa: E402

SPEC = "pruned-fat-tree:preset=taihulight"
PATTERNS = {
    "2d-aware": "grid2d:160x256",
    "2d-unaware": "grid2d:202x202",
    "3d-aware": "grid3d:160x16x16",
    "3d-unaware": "grid3d:34x34x35",
    "random": "random:160",
}
PAPER = {
    "entry_reduction": ">= 90% fewer entries with min-cost trees (Fig. 19)",
    "physical_failure_rate_max": 0.7451,
    "mincost_failure_rate": 0.0,
    "entries_per_switch": 16,
}


def _cross_supernode(topo, comms) -> int:
    group = topo.attr("group")
    return sum(len(set(group[comms.nodes(i)].tolist())) > 1 for i in range(len(comms)))


def _brief(result: dict) -> dict:
    keep = ("failed", "failure_rate", "entries_used", "entries_per_tree", "entries_per_switch")
    return {k: result[k] for k in keep}


def run_pattern(topo, planner: TypeTwoPlanner, pattern: str, entries: int, degree: int | None) -> dict:
    comms = parse_pattern(pattern, topo)
    start = time.perf_counter()
    free = entry_experiment(topo, comms, entries=None, degree=degree, planner=planner)
    tight = entry_experiment(topo, comms, entries=entries, degree=degree, planner=planner)
    return {
        "pattern": pattern,
        "processes": comms.nprocs,
        "communicators": len(comms),
        "sizes": comms.sizes(),
        "cross_supernode": _cross_supernode(topo, comms),
        "unlimited": {
            "physical_entries": free["physical"]["entries_used"],
            "mincost_entries": free["mincost"]["entries_used"],
            "reduction": round(free["reduction"], 4),
        },
        f"entries_{entries}": {
            "physical": _brief(tight["physical"]),
            "mincost": _brief(tight["mincost"]),
            "reduction": round(tight["reduction"], 4),
        },
        "seconds": round(time.perf_counter() - start, 1),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--degree",
        nargs="+",
        default=["radix", "64"],
        help="degree bounds D to run ('radix' = each switch's port count); default: radix 64",
    )
    parser.add_argument("--entries", type=int, default=16, help="entries per switch for the failure rates")
    parser.add_argument("--only", choices=sorted(PATTERNS), help="run one pattern")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    topo = from_spec(SPEC)
    planner = TypeTwoPlanner(topo)
    tops = int((topo.attr("level")[topo.switches] == 3).sum())
    out = {
        "topology": SPEC,
        "summary": topo.summary(),
        "top_switches": tops,
        "top_level_capacity": tops * args.entries,
        "entries_per_switch": args.entries,
        "paper": PAPER,
        "runs": {},
    }
    names = [args.only] if args.only else list(PATTERNS)
    for text in args.degree:
        degree = None if text == "radix" else int(text)
        out["runs"][f"degree={text}"] = {
            name: run_pattern(topo, planner, PATTERNS[name], args.entries, degree) for name in names
        }
    out["seconds"] = round(time.perf_counter() - start, 1)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
