"""FMEL-style search: time and T̄ over (n, k, N), reductions over RS / LRC, and Table 2 of the paper.

Run ``python benchmarks/erasure_search.py`` (about 1.5 minutes here, most of it the 32-block cases;
``--quick`` for the small cases only, a few seconds). Prints one JSON document:

- ``table2``: the paper's four columns recomputed (:func:`vizcoll.erasure.compare.paper_table`);
- ``cases``: for each (n, k, N) and each traffic model (every remote block read / one block per remote DC):
  the DC failures D the code survives (the most the parameters allow), the search's wall time and counts,
  the FMEL T̄ and its lower bound, RS and LRC at the same (n, k, N) (LRC with one local group per DC, whatever
  D that gives), and FMEL's reduction of T̄ over each — at the same (n, k, N), and against an FMEL code asked
  to survive exactly as many DC failures as the other code;
- ``summary``: the range of the reductions next to the abstract's claim (42.9–56.0 %).

Wall times depend on the machine and its load; they are printed, never asserted. ``--markdown`` prints the docs'
tables (docs/benchmarks.md) instead (T̄ per case and traffic model, the summary), with the date, the commit and the
machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import stamp  # noqa: E402
from vizcoll.erasure import PAPER_REDUCTION, CheckBudgets, SearchOptions, compare, fmel_search, paper_table  # noqa: E402
from vizcoll.erasure.metrics import TRAFFIC  # noqa: E402

QUICK = [(6, 2, 3), (9, 5, 3), (8, 4, 4), (12, 8, 4), (12, 6, 4)]
FULL = QUICK + [(16, 8, 4), (16, 12, 4), (18, 12, 6), (20, 12, 5), (24, 16, 4), (24, 16, 6), (32, 24, 8), (32, 16, 8)]
BUDGET = 400_000  # subset checks per code for the comparison's exact metrics


def case(n: int, k: int, dcs: int, traffic: str) -> dict:
    key = "mean_traffic" if traffic == "blocks" else "mean_traffic_aggregated"
    started = time.perf_counter()
    result = fmel_search(n, k, dcs, search=SearchOptions(traffic=traffic))
    search_s = time.perf_counter() - started
    out = compare(n, k, dcs, SearchOptions(traffic=traffic), CheckBudgets(BUDGET))
    codes = out["codes"]
    return {
        "n": n,
        "k": k,
        "dcs": dcs,
        "traffic": traffic,
        "D": result.dc_tolerance,
        "search_s": round(search_s, 3),
        "search": {name: result.stats[name] for name in ("schemes", "pattern_rejected", "trials", "constructed")},
        "fmel": round(result.metrics.mean_traffic(traffic), 4),
        "lower_bound": result.lower_bound["mean"],
        "meets_lower_bound": result.meets_lower_bound,
        "fmel_is_rs": result.code.params.get("baseline") == "rs",
        "rs": codes["rs"].get(key),
        "rs_D": codes["rs"].get("dc_failures_survived"),
        "lrc": codes["lrc"].get(key),
        "lrc_D": codes["lrc"].get("dc_failures_survived"),
        "reduction_vs_rs_pct": out["reductions_pct"].get("rs", {}).get(traffic),
        "reduction_vs_lrc_pct": out["reductions_pct"].get("lrc", {}).get(traffic),
        "reduction_vs_lrc_same_D_pct": out["reductions_at_same_D_pct"].get("lrc", {}).get("reduction"),
    }


def _number(x) -> str:
    return "–" if x is None else f"{x:.2f}".rstrip("0").rstrip(".")


def markdown(result: dict) -> str:
    """T̄ of FMEL / its lower bound / RS per case under both traffic models (RS with FMEL's reduction), the search
    times, then the summary per traffic model, then the stamp."""
    by_case: dict[tuple, dict] = {}
    for c in result["cases"]:
        by_case.setdefault((c["n"], c["k"], c["dcs"]), {})[c["traffic"]] = c

    def cell(c: dict) -> str:
        cut = c["reduction_vs_rs_pct"]
        rs = _number(c["rs"]) + (f" (−{cut:.0f}%)" if cut else "")
        return f"{_number(c['fmel'])} / {_number(c['lower_bound'])} / {rs}"

    rows = [
        [f"{n}, {k}, {dcs}", str(t["blocks"]["D"]), cell(t["blocks"]), cell(t["aggregated"])]
        + [" / ".join(f"{t[m]['search_s']:.2f}" for m in TRAFFIC) + " s"]
        for (n, k, dcs), t in by_case.items()
    ]
    headers = ["(n, k, N)", "D", "every remote block: FMEL / bound / RS", "one block per remote DC: FMEL / bound / RS"]
    first = stamp.table([*headers, "search (each model)"], rows, right=[1, 4])

    def span(pair) -> str:
        if not pair:
            return "–"
        return f"{pair[0]:.0f}%" if round(pair[0]) == round(pair[1]) else f"{pair[0]:.0f}–{pair[1]:.0f}%"

    models = {"blocks": "every remote block", "aggregated": "one block per remote DC"}
    summary = [
        [models[m], span(s["reduction_vs_rs_pct"]), span(s["reduction_vs_lrc_same_D_pct"]), s["meets_lower_bound"]]
        + [f"{s['search_s_max']:.2f} s"]
        for m, s in result["summary"].items()
    ]
    headers = ["traffic model", "T̄ below RS", "below an LRC of the same D", "meets its lower bound", "slowest search"]
    second = stamp.table(headers, summary, right=[4])
    return f"{first}\n\n{second}\n\n{stamp.measured()}"


def main(argv: list[str] | None = None) -> dict | None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the small cases")
    parser.add_argument("--markdown", action="store_true", help="Markdown tables with the date, commit and machine")
    args = parser.parse_args(argv)
    cases = [case(n, k, dcs, traffic) for n, k, dcs in (QUICK if args.quick else FULL) for traffic in TRAFFIC]
    summary = {}
    for traffic in TRAFFIC:
        rows = [c for c in cases if c["traffic"] == traffic]
        vs_rs = [c["reduction_vs_rs_pct"] for c in rows if c["reduction_vs_rs_pct"] is not None]
        vs_lrc = [c["reduction_vs_lrc_same_D_pct"] for c in rows if c["reduction_vs_lrc_same_D_pct"] is not None]
        summary[traffic] = {
            "reduction_vs_rs_pct": [min(vs_rs), max(vs_rs)] if vs_rs else None,
            "reduction_vs_lrc_same_D_pct": [min(vs_lrc), max(vs_lrc)] if vs_lrc else None,
            "meets_lower_bound": f"{sum(c['meets_lower_bound'] for c in rows)} of {len(rows)}",
            "search_s_max": max(c["search_s"] for c in rows),
        }
    result = {
        "table2": paper_table(),
        "cases": cases,
        "summary": summary,
        "paper_claimed_reduction_pct": list(PAPER_REDUCTION),
    }
    if args.markdown:
        print(markdown(result))
        return None
    return result


if __name__ == "__main__":
    result = main()
    if result is not None:
        print(json.dumps(result, indent=1))
