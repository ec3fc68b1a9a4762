"""Multicast routing on the paper's fabrics (seed 003): max/mean EFI, tree height and run time per algorithm.

Run ``python benchmarks/multicast.py`` (options: ``--only FABRIC``,
``--algos fulb,sssp-new``, ``--quick``). For every fabric x pattern x
algorithm it prints one JSON row: ``max_efi``, ``mean_efi`` (over the links
some tree uses), ``max_height``, ``runtime_s`` (routing only, not the min-hop
table, which is built once per fabric and reported as ``min_hops_s``),
``groups`` and ``unroutable``. A final ``checks`` object tests the targets on
the 16,000-node fat tree with ``grid3d:40x20x20`` (2,000 groups): FULB-MC
in at most 2 s, SSSP-MC at least 5 times slower.

``--quick`` keeps one pattern per fabric and runs SSSP-MC only on the fat tree
and BlueLight (the smallest switch graphs); a full run takes about two minutes
on two cores (SSSP-MC included everywhere).

``--markdown`` prints the docs' table (docs/benchmarks.md) instead (max EFI / routing time per algorithm), with
the date, the commit and the machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name: (spec, processes per node, patterns); the first pattern is the --quick one
FABRICS = {
    "fat-tree": ("fat-tree:radix=40,levels=3", 1, ["grid3d:40x20x20", "grid2d:160x100", "random:1000"]),
    "torus": ("torus:30x20x20,hosts=2", 1, ["grid2d:240x100", "grid3d:40x30x20", "random:1000"]),
    "dragonfly": ("dragonfly:a=18,p=9,h=9", 1, ["grid3d:81x27x12", "grid2d:162x162", "random:1000"]),
    "bluelight": ("pruned-fat-tree:preset=bluelight", 4, ["grid2d:272x128", "grid3d:34x32x32", "random:1000"]),
    "taihulight": ("pruned-fat-tree:preset=taihulight", 1, ["grid2d:256x160", "grid3d:40x32x32", "random:1000"]),
}
QUICK_SSSP = {"fat-tree", "bluelight"}


def run_fabric(name: str, algos: list[str], quick: bool) -> list[dict]:
    """Route every pattern of one fabric with every algorithm; one row per (pattern, algorithm)."""
    from vizcoll.comm import parse_pattern
    from vizcoll.multicast import route_communicators
    from vizcoll.topology.generators import from_spec
    from vizcoll.topology.hops import min_hops

    spec, ppn, patterns = FABRICS[name]
    topo = from_spec(spec)
    start = time.perf_counter()
    table = min_hops(topo)
    table_s = round(time.perf_counter() - start, 3)
    if quick:
        patterns = patterns[:1]
        algos = [a for a in algos if name in QUICK_SSSP or not a.startswith("sssp")]
    rows = []
    for pattern in patterns:
        comms = parse_pattern(pattern, topo, ppn=ppn)
        for algo in algos:
            summary = route_communicators(topo, comms, algo, table).summary()
            row = {"fabric": name, "pattern": pattern, "ppn": ppn, "algo": algo, "min_hops_s": table_s}
            row.update(
                {
                    key: summary[key]
                    for key in ("groups", "unroutable", "max_efi", "mean_efi", "max_height", "runtime_s")
                }
            )
            print(json.dumps(row), file=sys.stderr, flush=True)  # progress
            rows.append(row)
    return rows


def checks(rows: list[dict]) -> dict:
    """The run-time targets on the fat tree with grid3d:40x20x20, when both algorithms ran."""
    times = {r["algo"]: r["runtime_s"] for r in rows if r["fabric"] == "fat-tree" and r["pattern"] == "grid3d:40x20x20"}
    out: dict = {}
    if "fulb" in times:
        out["fulb_fat_tree_grid3d_s"] = times["fulb"]
        out["fulb_within_2s"] = times["fulb"] <= 2.0
    if "fulb" in times and "sssp" in times:
        out["sssp_over_fulb"] = round(times["sssp"] / max(times["fulb"], 1e-9), 1)
        out["sssp_5x_slower"] = out["sssp_over_fulb"] >= 5
    return out


LABELS = {
    "fat-tree": "fat tree 16,000",
    "torus": "torus 24,000",
    "dragonfly": "dragonfly 26,406",
    "bluelight": "BlueLight (ppn 4)",
    "taihulight": "TaihuLight 40,960",
}


def markdown(rows: list[dict], algos: list[str]) -> str:
    """One row per fabric and pattern, one "max EFI / routing time" column per algorithm; then the stamp."""
    from benchmarks import stamp

    cells: dict[tuple, dict] = {}
    for r in rows:
        cell = f"{r['max_efi']} / {r['runtime_s']:.2f} s"
        cells.setdefault((r["fabric"], r["pattern"], r["groups"]), {})[r["algo"]] = cell
    shown = [
        [LABELS.get(fabric, fabric), pattern, f"{groups:,}", *(by.get(a) for a in algos)]
        for (fabric, pattern, groups), by in cells.items()
    ]
    return stamp.table(["fabric", "pattern", "groups", *algos], shown, right=[2]) + "\n\n" + stamp.measured()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sys.path.insert(0, str(ROOT))
    from vizcoll.multicast.algorithms import REGISTRY

    parser.add_argument("--only", choices=sorted(FABRICS), help="just this fabric")
    parser.add_argument("--algos", default=",".join(REGISTRY), help="comma-separated algorithms (default: all)")
    parser.add_argument("--quick", action="store_true", help="one pattern per fabric, SSSP only on small switch graphs")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table with the date, commit and machine")
    args = parser.parse_args(argv)
    algos = [a.strip() for a in args.algos.split(",") if a.strip()]
    unknown = sorted(set(algos) - set(REGISTRY))
    if unknown:
        parser.error(f"unknown algorithm(s) {', '.join(unknown)}; choose from {', '.join(REGISTRY)}")
    rows = []
    for name in [args.only] if args.only else list(FABRICS):
        rows += run_fabric(name, algos, args.quick)
    print(markdown(rows, algos) if args.markdown else json.dumps({"rows": rows, "checks": checks(rows)}, indent=1))


if __name__ == "__main__":
    main()
