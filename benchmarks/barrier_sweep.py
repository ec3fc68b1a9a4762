"""The DLCT paper's barrier experiment (seed 002, Fig. 6 and 7) on the simulated grid.

Run ``python benchmarks/barrier_sweep.py [--sizes 4,8,12,16,20] [--rates 0,0.1,0.2,0.3,0.4,0.5]
[--algos ...] [--seeds 3] [--neighbors 8] [--hop-latency S] [--proc S] [--judge model]``.

Prints one JSON document (see :func:`vizcoll.barrier.benchmark.sweep`), then
a compact table of the synchronisation time (run time - 1 s of work, ms) per
grid size, break rate and algorithm, and the wall time. ``--charts DIR``
also writes the page's charts as PNG (needs kaleido, in requirements-dev.txt):
``barrier-fig7.png`` (run-time range over the break rates per size, the
paper's Fig. 7) and ``barrier-vs-size.png`` (run time vs size at 20% broken).

The paper's claims: without breaks Tree is about as fast as DLCT (ID1 = dlct+ms, ID2 =
dlct+tree), with breaks DLCT is 30-50% faster than Tree, and only Tree, ID1
and ID2 scale.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vizcoll.barrier.algorithms import ALGOS, JUDGES  # noqa: E402
from vizcoll.barrier.benchmark import RATES, SIZES, format_table, sweep  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run the sweep, print JSON and the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--rates", default=",".join(f"{r:g}" for r in RATES))
    ap.add_argument("--algos", default=",".join(ALGOS))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--neighbors", type=int, choices=(4, 8), default=8)
    ap.add_argument("--tree-on", default="live,intact")
    ap.add_argument("--judge", choices=JUDGES, default="model")
    ap.add_argument("--block", type=int, default=4)
    ap.add_argument("--hop-latency", type=float)
    ap.add_argument("--proc", type=float)
    ap.add_argument("--disconnect", action="store_true", help="do not keep the grid connected (count failures)")
    ap.add_argument("--table-only", action="store_true", help="print only the table")
    ap.add_argument("--charts", type=Path, help="write barrier-fig7.png and barrier-vs-size.png into this folder")
    args = ap.parse_args(argv)
    params = {"judge": args.judge, "block": args.block}
    if args.hop_latency is not None:
        params["hop_latency"] = args.hop_latency
    if args.proc is not None:
        params["proc"] = args.proc
    start = time.perf_counter()
    result = sweep(
        [int(s) for s in args.sizes.split(",")],
        [float(r) for r in args.rates.split(",")],
        args.algos.split(","),
        seeds=args.seeds,
        neighbors=args.neighbors,
        keep_connected=not args.disconnect,
        tree_on=args.tree_on.split(","),
        **params,
    )
    result["wall_seconds"] = round(time.perf_counter() - start, 2)
    if not args.table_only:
        print(json.dumps(result, indent=1))
    print(format_table(result))
    print(f"wall time {result['wall_seconds']} s")
    if args.charts:
        write_charts(result, args.charts)
    return 0


def write_charts(result: dict, folder: Path) -> None:
    """The page's Fig. 7 range chart and run time vs size (at 20% broken, else the highest rate) as PNG files."""
    os.environ.setdefault("BROWSER_PATH", "/usr/bin/chromium")
    from vizcoll.ui.pages.barrier._figures import range_figure, sweep_figure

    folder.mkdir(parents=True, exist_ok=True)
    rates = result["params"]["rates"]
    rate = 0.2 if 0.2 in rates else max(rates)
    for name, fig in (
        ("barrier-fig7.png", range_figure(result)),
        ("barrier-vs-size.png", sweep_figure(result, "size", rate)),
    ):
        fig.write_image(folder / name, width=1000, height=480)
        print(f"wrote {folder / name}")


if __name__ == "__main__":
    raise SystemExit(main())
