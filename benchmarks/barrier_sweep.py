"""The DLCT paper's barrier experiment (seed 002, Fig. 6 and 7) on the simulated grid.

Run ``python benchmarks/barrier_sweep.py [--sizes 4,8,12,16,20] [--rates 0,0.1,0.2,0.3,0.4,0.5]
[--algos ...] [--seeds 3] [--neighbors 8] [--hop-latency S] [--proc S] [--judge model]``.

Prints one JSON document (see :func:`vizcoll.barrier.benchmark.sweep`), then
a compact table of the synchronisation time (run time - 1 s of work, ms) per
grid size, break rate and algorithm, and the wall time. ``--charts DIR``
also writes the page's charts as PNG (needs kaleido, in requirements-dev.txt):
``barrier-fig7.png`` (run-time range over the break rates per size, the
paper's Fig. 7) and ``barrier-vs-size.png`` (run time vs size at 20% broken).

``--markdown`` prints, instead of the JSON and the text table, the docs' tables (docs/benchmarks.md): the
synchronisation times, and the ratios behind the paper's claims (DLCT ÷ Tree, the slowdown from no breaks to the
highest rate, the growth from the smallest grid to the largest), with the date, the commit and the machine.

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

from benchmarks import stamp  # noqa: E402
from vizcoll.barrier.algorithms import ALGORITHMS, JUDGES  # noqa: E402
from vizcoll.barrier.benchmark import RATES, SIZES, SweepGrids, format_table, sweep  # noqa: E402

NAMES = {"dlct+ms": "ID1", "dlct+tree": "ID2", "dissemination+tree": "diss+tree"}


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run the sweep, print JSON and the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--rates", default=",".join(f"{r:g}" for r in RATES))
    ap.add_argument("--algos", default=",".join(ALGORITHMS.names))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--neighbors", type=int, choices=(4, 8), default=8)
    ap.add_argument("--tree-on", default="live,intact")
    ap.add_argument("--judge", choices=JUDGES, default="model")
    ap.add_argument("--block", type=int, default=4)
    ap.add_argument("--hop-latency", type=float)
    ap.add_argument("--proc", type=float)
    ap.add_argument("--disconnect", action="store_true", help="do not keep the grid connected (count failures)")
    ap.add_argument("--table-only", action="store_true", help="print only the table")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables with the date, commit and machine")
    ap.add_argument("--charts", type=Path, help="write barrier-fig7.png and barrier-vs-size.png into this folder")
    args = ap.parse_args(argv)
    params = {"judge": args.judge, "block": args.block}
    if args.hop_latency is not None:
        params["hop_latency"] = args.hop_latency
    if args.proc is not None:
        params["proc"] = args.proc
    start = time.perf_counter()
    grids = SweepGrids(
        [int(s) for s in args.sizes.split(",")],
        [float(r) for r in args.rates.split(",")],
        seeds=args.seeds,
        neighbors=args.neighbors,
        keep_connected=not args.disconnect,
    )
    result = sweep(
        grids,
        args.algos.split(","),
        tree_on=args.tree_on.split(","),
        **params,
    )
    result["wall_seconds"] = round(time.perf_counter() - start, 2)
    if args.markdown:
        print(markdown(result))
    elif not args.table_only:
        print(json.dumps(result, indent=1))
    if not args.markdown:
        print(format_table(result))
        print(f"wall time {result['wall_seconds']} s")
    if args.charts:
        write_charts(result, args.charts)
    return 0


def _ms(value, failures: int = 0) -> str:
    """A time in ms ("–": no run completed), "!" when some runs failed."""
    return ("–" if value is None or value != value else f"{value:.1f}") + "!" * bool(failures)


def _ratio(value, unit: str = "") -> str:
    return "–" if value is None else f"{value:.2f}{unit}"


def _dlct_table(result: dict, sizes: list[int], rates: list[float]) -> str | None:
    """ID1 / ID2 time ÷ the fixed Tree's (the paper's), per size and break rate."""
    fixed = "tree@intact" if "tree@intact" in result["columns"] else "tree"
    ratios = {k: v for k, v in result["claims"].get("dlct_over_tree", {}).items() if k.endswith(f"/{fixed}")}
    if not ratios:
        return None
    cells = [
        [f"{size}×{size}", *(" / ".join(_ratio(v.get(f"{size}@{rate:g}")) for v in ratios.values()) for rate in rates)]
        for size in sizes
    ]
    title = " / ".join(NAMES.get(k.split("/")[0], k) for k in ratios) + f" ÷ {fixed}"
    return stamp.table([title, *(f"{rate:.0%} broken" for rate in rates)], cells, right=range(1, 1 + len(rates)))


def _scaling_table(result: dict, sizes: list[int], rates: list[float]) -> str:
    """Per column: its slowdown from no breaks to the highest rate per size, and its growth from the smallest grid to
    the largest without breaks."""
    slow, grow = result["claims"]["slowdown_max_rate_over_no_breaks"], result["claims"]["growth_with_size"]
    no_breaks = f"{rates[0]:g}"
    cells = [
        [NAMES.get(c, c), *(_ratio(slow[c].get(size), "×") for size in sizes), _ratio(grow[c].get(no_breaks), "×")]
        for c in result["columns"]
    ]
    heads = [f"{rates[0]:.0%} → {rates[-1]:.0%} broken, and growth", *(f"{size}×{size}" for size in sizes)]
    heads.append(f"{sizes[0]}×{sizes[0]} → {sizes[-1]}×{sizes[-1]}, {rates[0]:.0%} broken")
    return stamp.table(heads, cells, right=range(1, 2 + len(sizes)))


def markdown(result: dict) -> str:
    """The synchronisation times (ms, mean over the seeds) per grid size and break rate, the claims' ratios, the
    sweep's wall time and the stamp."""
    cols = result["columns"]
    rows = [
        [f"{r['size']}×{r['size']}", f"{r['rate']:.0%}", *(_ms(r["sync_ms"][c], r["failures"][c]) for c in cols)]
        for r in result["rows"]
    ]
    parts = [stamp.table(["size", "broken", *(NAMES.get(c, c) for c in cols)], rows, right=range(2, 2 + len(cols)))]
    if any(any(r["failures"].values()) for r in result["rows"]):
        parts.append("! = some runs failed (a disconnected grid).")
    sizes, rates = sorted({r["size"] for r in result["rows"]}), sorted({r["rate"] for r in result["rows"]})
    parts += [t for t in (_dlct_table(result, sizes, rates), _scaling_table(result, sizes, rates)) if t]
    parts.append(f"The sweep ran in {result['wall_seconds']:.0f} s.\n{stamp.measured()}")
    return "\n\n".join(parts)


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
