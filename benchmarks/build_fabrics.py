"""Time and memory of building the big fabrics and their min-hop tables.

Run ``python benchmarks/build_fabrics.py`` (optionally ``--only NAME``; ``--markdown`` for the docs' table
(docs/benchmarks.md)). Each fabric is measured in a fresh Python process so that its peak resident memory
is its own; the script prints one JSON list with a dict per fabric:

- ``generator_s``, ``min_hops_s``, ``total_s``: wall-clock seconds;
- ``baseline_rss_mb``: peak RSS of the child after its imports, before building;
- ``peak_rss_mb``: peak RSS at the end; ``peak_minus_baseline_mb`` the difference;
- ``switches``, ``endpoints``, ``links``, the table's ``dist_dtype`` / ``dist_mb``
  and the switch ``diameter``;
- ``meets_target``: total <= 3 s and peak <= 2 GB (only for the fabrics with
  that target, ``null`` otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

FABRICS = {
    "fat-tree": ("fat-tree:radix=40,levels=3", True),  # 16,000 end nodes
    "torus": ("torus:30x20x20,hosts=2", True),  # 24,000 end nodes
    "dragonfly": ("dragonfly:a=18,p=9,h=9", True),  # 26,406 end nodes
    "taihulight": ("pruned-fat-tree:preset=taihulight", False),  # 40,960 end nodes
}
TARGET_S, TARGET_MB = 3.0, 2048.0
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import stamp  # noqa: E402
from benchmarks.fresh import run_child  # noqa: E402


def _peak_rss_mb() -> float:
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes on macOS, KiB on Linux


def measure(name: str) -> dict:
    """Build one fabric and its min-hop table in this process and report the figures."""
    import time

    from vizcoll.topology.generators import from_spec
    from vizcoll.topology.hops import min_hops

    spec, has_target = FABRICS[name]
    baseline = _peak_rss_mb()
    start = time.perf_counter()
    topo = from_spec(spec)
    built = time.perf_counter()
    table = min_hops(topo)
    done = time.perf_counter()
    peak = _peak_rss_mb()
    summary = topo.summary()
    total = done - start
    return {
        "name": name,
        "spec": spec,
        "switches": summary["switches"],
        "endpoints": summary["endpoints"],
        "links": summary["links"],
        "generator_s": round(built - start, 3),
        "min_hops_s": round(done - built, 3),
        "total_s": round(total, 3),
        "baseline_rss_mb": round(baseline, 1),
        "peak_rss_mb": round(peak, 1),
        "peak_minus_baseline_mb": round(peak - baseline, 1),
        "dist_dtype": str(table.dist.dtype),
        "dist_mb": round(table.dist.nbytes / 2**20, 1),
        "diameter": table.diameter,
        "cpus": os.cpu_count(),
        "meets_target": (total <= TARGET_S and peak <= TARGET_MB) if has_target else None,
    }


def markdown(rows: list[dict]) -> str:
    """The rows as the docs' table (docs/benchmarks.md), then when, where and how they were measured."""
    shown = [
        [
            f"`{r['spec']}`",
            f"{r['switches']:,}",
            f"{r['endpoints']:,}",
            f"{r['links']:,}",
            f"{r['generator_s']:.2f} s",
            f"{r['min_hops_s']:.2f} s",
            f"{r['total_s']:.2f} s",
            f"{r['peak_rss_mb']:.0f} MB ({r['peak_minus_baseline_mb']:.0f} MB)",
        ]
        for r in rows
    ]
    headers = ["fabric", "switches", "end nodes", "links", "generate", "min-hop table", "total"]
    headers.append("peak RSS (above the interpreter)")
    return stamp.table(headers, shown, right=range(1, 8)) + "\n\n" + stamp.measured()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(FABRICS), help="measure just this fabric")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table with the date, commit and machine")
    parser.add_argument("--child", choices=sorted(FABRICS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child)))
        return
    names = [args.only] if args.only else list(FABRICS)
    rows = [run_child(__file__, name) for name in names]
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
