"""Barrier runs whose figures and timelines must never change: the cases, and their writer.

``python -m tests.engine.barrier.golden FILE`` runs every case with the checked-out engine and writes its figures
and its timeline's digest (:meth:`vizcoll.sim.timeline.Timeline.digest`) to ``FILE``. The file in
``tests/data/barrier/golden-runs.json`` was written by the engine of commit 7ba3e06, before the barrier ran at any
size (classes of twins, routes read from the min-hop table, the timeline recorded as columns): the runs it holds are
every algorithm on small fabrics (fat trees, a dragonfly, a torus, a cluster with dual-homed hosts and parallel
cables, the real clusters' files where they are, a switch-only graph) and on grids, with and without broken links.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.fabrics import REAL_FABRICS
from vizcoll.barrier.algorithms import run_barriers
from vizcoll.barrier.network import break_links
from vizcoll.topology import io as topo_io
from vizcoll.topology.generators import from_spec, mesh

CLUSTER = Path(__file__).resolve().parents[2] / "data" / "cluster" / "ports.txt"
FABRICS = [  # (spec or file, break rate; None = a sample of 60 end nodes, no breaks)
    ("fat-tree:radix=4,levels=2", 0.0),
    ("fat-tree:radix=4,levels=3", 0.0),
    ("fat-tree:radix=4,levels=3", 0.2),
    ("fat-tree:radix=8,levels=3", 0.1),
    ("dragonfly:a=4,p=2,h=2", 0.1),
    ("torus:3x3x2,hosts=2", 0.15),
    ("pruned-fat-tree:preset=bluelight", None),
    (f"file:{REAL_FABRICS}/loginoff-topo.ibnd", 0.1),
    (f"file:{REAL_FABRICS}/psmn-X5.topofile", 0.0),
    (f"file:{REAL_FABRICS}/fattreebuilder-k4n3.topo", 0.3),
    (f"file:{REAL_FABRICS}/ibtopotool-3.topo", 0.0),
    (f"file:{CLUSTER}", 0.0),
    (f"file:{CLUSTER}", 0.3),
    (f"file:{REAL_FABRICS}/zoo-Cogentco.graphml", 0.05),
]
ALGOS = ["ms", "tree", "tournament", "dissemination", "dissemination+tree"]
GRIDS = [(8, 8, 0.0), (8, 4, 0.2), (6, 8, 0.4), (12, 8, 0.1)]  # side, neighbors, break rate
GRID_ALGOS = [*ALGOS, "dlct", "dlct+ms", "dlct+tree"]


def fabric_cases() -> list[tuple[str, str, float | None, str, str]]:
    """``(key, spec, rate, algo, tree_on)`` of every run on a fabric."""
    return [
        (f"{Path(spec).name if spec.startswith('file:') else spec}|{rate}|{algo}|{tree_on}", spec, rate, algo, tree_on)
        for spec, rate in FABRICS
        for algo in ALGOS
        for tree_on in (["live", "intact"] if algo == "tree" else ["live"])
    ]


def grid_cases() -> list[tuple[str, int, int, float, str]]:
    """``(key, side, neighbors, rate, algo)`` of every run on a grid."""
    return [(f"mesh{side}|{nb}|{rate}|{algo}", side, nb, rate, algo) for side, nb, rate in GRIDS for algo in GRID_ALGOS]


def fabric_run(spec: str, rate: float | None, algo: str, tree_on: str) -> dict:
    """The figures and the timeline's digest of one run on a fabric."""
    topo = topo_io.read(spec[5:]) if spec.startswith("file:") else from_spec(spec)
    parts = topo.endpoints.tolist()
    if rate is None:
        parts, rate = parts[::97][:60], 0.0
    if len(parts) < 2:  # a graph of switches alone: 50 of them are the processes
        parts = topo.switches.tolist()[:50]
    break_links(topo, rate, seed=3, keep_connected=rate < 0.25)
    jitter = 0.1 if algo == "ms" else 0.0
    timeline, figures = run_barriers(topo, algo, participants=parts, tree_on=tree_on, jitter=jitter, seed=5)
    return {"figures": figures, "digest": timeline.digest(), "events": len(timeline.events)}


def grid_run(side: int, neighbors: int, rate: float, algo: str) -> dict:
    """The figures and the timeline's digest of one run on a grid."""
    topo = mesh((side, side), neighbors=neighbors, hosts=0)
    break_links(topo, rate, seed=1)
    timeline, figures = run_barriers(topo, algo)
    return {"figures": figures, "digest": timeline.digest(), "events": len(timeline.events)}


def main(path: str) -> None:
    out = {key: fabric_run(*case) for key, *case in fabric_cases()}
    out |= {key: grid_run(*case) for key, *case in grid_cases()}
    Path(path).write_text(json.dumps(out, indent=0, sort_keys=True, default=str) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
