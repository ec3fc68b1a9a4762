"""Multicast routes that must never change: the cases, and their writer.

``python -m tests.engine.multicast.golden_routes FILE`` routes every case with the checked-out engine and writes,
per case, what ``python -m vizcoll mcast SPEC --pattern PATTERN --algo ALGO`` prints (its JSON, without the run
time) and a digest of every tree (root, members, nodes, parents, parent links) and every link's EFI to ``FILE``. The
file in ``tests/data/multicast/golden-routes.json`` was written by the engine of commit 95203b4, before the
per-group routing was made cheaper (issue 44): every algorithm on small fabrics (fat trees, the pruned fat tree of
the page's teaching preset, a dragonfly, a torus with parallel cables, a cluster whose end nodes sit on two
switches, the real clusters' files where they are), some with broken links, and the paper-scale presets of the
/multicast page (TaihuLight and the 64-port fat tree with their grid3d patterns) with the algorithms the page
compares.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from tests.fabrics import REAL_FABRICS
from vizcoll.comm import parse_pattern
from vizcoll.multicast import route_communicators
from vizcoll.multicast.algorithms import ALGORITHMS
from vizcoll.topology import io as topo_io
from vizcoll.topology.model import SWITCH, Topology

PAPER = ("minhop-new", "sssp", "fulb")  # the algorithms the paper-scale presets compare (and the default A)
CASES = [  # (spec or file, pattern, ppn, break rate, parallel cables, algorithms)
    ("fat-tree:radix=16,levels=3", "grid3d:16x8x8", 1, 0.0, False, ALGORITHMS),
    ("fat-tree:radix=16,levels=3", "random:60", 1, 0.0, False, ALGORITHMS),
    ("fat-tree:radix=16,levels=3", "grid3d:16x8x8", 1, 0.05, False, ALGORITHMS),
    ("fat-tree:radix=8,levels=3", "grid2d:16x8", 1, 0.1, True, ALGORITHMS),
    ("pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4", "grid2d:16x8", 2, 0.0, False, ALGORITHMS),
    ("pruned-fat-tree:pods=4,leaves=4,hosts=8,spines=4,up=2,paths=2", "grid2d:8x16", 1, 0.05, True, ALGORITHMS),
    ("dragonfly:a=4,p=2,h=2", "grid2d:12x6", 1, 0.0, False, ALGORITHMS),
    ("dragonfly:a=4,p=2,h=2", "random:30", 1, 0.1, False, ALGORITHMS),
    ("torus:4x4x3,hosts=2", "random:30", 1, 0.2, True, ALGORITHMS),
    ("sunway-supernode", "random:30", 1, 0.05, False, ALGORITHMS),
    ("mesh:6x6", "random:20", 1, 0.0, False, ALGORITHMS),
    (f"{REAL_FABRICS}/loginoff-topo.ibnd", "random:20", 1, 0.0, False, ALGORITHMS),
    (f"{REAL_FABRICS}/psmn-X5.topofile", "random:20", 1, 0.1, False, ALGORITHMS),
    (f"{REAL_FABRICS}/fattreebuilder-k4n3.topo", "grid2d:4x4", 1, 0.0, False, ALGORITHMS),
    (f"{REAL_FABRICS}/ibtopotool-3.topo", "random:3", 1, 0.0, False, ALGORITHMS),
    ("pruned-fat-tree:preset=taihulight", "grid3d:40x32x32", 1, 0.0, False, PAPER),
    ("fat-tree:radix=64,levels=3", "grid3d:64x32x32", 1, 0.0, False, PAPER),
]


def cases() -> list[tuple[str, str, str, int, float, bool, str]]:
    """``(key, spec, pattern, ppn, rate, parallel, algo)`` of every routing."""
    return [
        (f"{Path(spec).name}|{pattern}|{ppn}|{rate}|{parallel}|{algo}", spec, pattern, ppn, rate, parallel, algo)
        for spec, pattern, ppn, rate, parallel, algos in CASES
        for algo in algos
    ]


def fabric(spec: str, rate: float, parallel: bool) -> Topology:
    """The case's fabric: a second cable beside every third switch-to-switch link with ``parallel``, then ``rate``
    of the switch-to-switch links and a fifth of that of the others broken (seeded)."""
    topo = topo_io.load(spec)
    inside = (topo.kind[topo.link_a] == SWITCH) & (topo.kind[topo.link_b] == SWITCH)
    if parallel:
        for row in np.flatnonzero(inside)[::3].tolist():
            topo.add_link(topo.names[topo.link_a[row]], topo.names[topo.link_b[row]])
        inside = (topo.kind[topo.link_a] == SWITCH) & (topo.kind[topo.link_b] == SWITCH)
    rng = np.random.default_rng(7)
    for rows, share in ((np.flatnonzero(inside), rate), (np.flatnonzero(~inside), rate / 5)):
        topo.broken[rng.choice(rows, size=int(share * len(rows)), replace=False)] = True
    return topo


def routed(spec: str, pattern: str, ppn: int, rate: float, parallel: bool, algo: str) -> dict:
    """The command line's JSON of one routing (without ``runtime_s``) and the digest of its trees and EFIs."""
    topo = fabric(spec, rate, parallel)
    comms = parse_pattern(pattern, topo, ppn=ppn)
    result = route_communicators(topo, comms, algo)
    out = result.summary() | {"pattern": comms.label}
    out.pop("runtime_s")
    whole = result.to_dict()
    whole.pop("runtime_s")
    out["efi_histogram"] = {str(k): v for k, v in out["efi_histogram"].items()}  # as JSON keeps it
    out["digest"] = hashlib.sha256(json.dumps(whole, sort_keys=True).encode()).hexdigest()
    return out


def main(path: str) -> None:
    runs = {}
    for key, *case in cases():
        if Path(case[0]).is_absolute() and not Path(case[0]).exists():
            print(f"skipped (not here): {key}", file=sys.stderr)
            continue
        runs[key] = routed(*case)
        print(key, runs[key]["max_efi"], file=sys.stderr)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
