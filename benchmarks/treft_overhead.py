"""TREFT fault-tolerance overhead: TREFT, TREFT-E1, TREFT-E2 on the NGB workflows (paper Fig. 7).

Run ``python benchmarks/treft_overhead.py`` (``--json`` for one JSON document).

For each workflow (HC, VP, MB; classes A, B) and variant it simulates the
plain program and the three replicas (:func:`vizcoll.treft.simulate_treft`,
latency 100 ms, bandwidth 13.98 Mbps) and prints the overhead
``100 (time - baseline) / baseline`` next to the paper's figures, then the
averages next to 10.77 % / 13.05 % / 52.77 %, and explains how the model's
parameters produce them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vizcoll.treft import npb, place_sections, simulate_treft, workflow  # noqa: E402
from vizcoll.treft.network import CostModel  # noqa: E402
from vizcoll.treft.workflows import CLASSES, NAMES  # noqa: E402

VARIANTS = ("treft", "e1", "e2")
#: the overheads (%) the paper gives (Fig. 7 and its text); None where it only gives a bound
PAPER = {
    "treft": {"VP.A": 10.20, "VP.B": 20.03, "MB.B": 10.12},
    "e1": {"VP.B": 25.6},
    "e2": {"VP.A": 69.12, "VP.B": 67.17, "MB.A": 54.39, "MB.B": 38.09, "HC.A": 36.53, "HC.B": 50.31},
}
PAPER_AVERAGE = {"treft": 10.77, "e1": 13.05, "e2": 52.77}


def _checked_mb(name: str, variant: str) -> float:
    """Megabytes of live data one replica's copy contributes to the checks."""
    program = workflow(*name.split("."))
    sections, _ = place_sections(program, variant)
    return sum(program.sizes[v] for s in sections for v in s.live) / 1e6


def measure() -> dict:
    """Every workflow x variant: overhead, times, sections and checked data."""
    rows = {}
    for name in (f"{w}.{c}" for w in NAMES for c in CLASSES):
        program = workflow(*name.split("."))
        compute = sum(k.time for k in program.kernels.values())
        row = {"compute_s": compute}
        for variant in VARIANTS:
            _, fig = simulate_treft(program, variant)
            row[variant] = {
                "overhead_pct": fig["overhead_pct"],
                "time_s": round(fig["time"], 1),
                "baseline_s": round(fig["baseline_time"], 1),
                "sections": len(fig["sections"]),
                "checked_mb": round(_checked_mb(name, variant), 1),
            }
        rows[name] = row
    averages = {v: round(sum(r[v]["overhead_pct"] for r in rows.values()) / len(rows), 2) for v in VARIANTS}
    ordered = all(r["treft"]["overhead_pct"] < r["e1"]["overhead_pct"] < r["e2"]["overhead_pct"] for r in rows.values())
    for row in rows.values():
        row["e1_minus_treft_points"] = round(row["e1"]["overhead_pct"] - row["treft"]["overhead_pct"], 4)
        for variant in VARIANTS:
            row[variant]["overhead_pct"] = round(row[variant]["overhead_pct"], 4)
    return {
        "rows": rows,
        "averages": averages,
        "paper_averages": PAPER_AVERAGE,
        "paper": PAPER,
        "treft_lt_e1_lt_e2_everywhere": ordered,
    }


def _paper(variant: str, name: str) -> str:
    value = PAPER[variant].get(name)
    return f"{value:6.2f}" if value is not None else "     -"


def explain(result: dict) -> str:
    """The model's parameters and how they drive the numbers, as text."""
    cost = CostModel()
    rate = cost.bandwidth_mbps * 1e6 / 8 / 1e6
    rows = result["rows"]
    hc, vp, mb = rows["HC.A"], rows["VP.A"], rows["MB.A"]
    e1_gain = {n: 100 * (1 - r["e1"]["baseline_s"] / r["treft"]["baseline_s"]) for n, r in rows.items()}
    lines = [
        "How the model produces these numbers",
        "------------------------------------",
        f"Network: latency {cost.latency * 1e3:.0f} ms, bandwidth {cost.bandwidth_mbps} Mbps = {rate:.2f} MB/s per "
        "access link, shared max-min fairly by concurrent flows. Each kernel runs on its own device node "
        "(data between kernels crosses the network); each replica has one bound check node where its RMK votes.",
        f"Data: NGB meshes {npb.MESH['A']}^3 (A) and {npb.MESH['B']}^3 (B) points; bytes per point of a "
        f"kernel's output: {npb.BYTES_PER_POINT}.",
        f"Compute: NPB proportions {npb.NPB_PROPORTIONS} x {npb.CALIBRATION} s (class A), x4 for class B. "
        "The 0.85 is the only calibrated number: it makes the TREFT average match the paper's 10.77 %; "
        "E1 and E2 are then predictions of the model.",
        "",
        "TREFT (one large section, as in the paper's experiment): at the compare sync point the replicas "
        "pay OPRS (2 latencies), the requests for the copies (1), OPRFS (2) and OPET (1), and every replica's "
        "check node receives the three copies of the section's live variables -- only the data that leaves the "
        f"section: the workflow's results. VP.A checks {vp['treft']['checked_mb']} MB (its six FT frames), "
        f"MB.A {mb['treft']['checked_mb']} MB (three FT outputs), HC.A {hc['treft']['checked_mb']} MB (one LU "
        f"output): moving 3 copies at {rate:.2f} MB/s takes ~{3 * vp['treft']['checked_mb'] / rate:.0f} s, "
        f"~{3 * mb['treft']['checked_mb'] / rate:.0f} s and ~{3 * hc['treft']['checked_mb'] / rate:.0f} s "
        f"against baselines of {vp['treft']['baseline_s']:.0f} s, {mb['treft']['baseline_s']:.0f} s and "
        f"{hc['treft']['baseline_s']:.0f} s, hence VP > MB > HC, as in the paper.",
        "",
        "TREFT-E1 (eager transfer): a kernel's output is pushed to its readers as soon as it exists, so "
        "transfers to kernels further down the program overlap with the kernels in between. The baseline "
        f"shrinks by {e1_gain['VP.A']:.0f} % (VP), {e1_gain['MB.A']:.0f} % (MB) but only "
        f"{e1_gain['HC.A']:.1f} % (HC, a strict chain: each kernel needs its predecessor's output at once). "
        "The checks cost the same (and rule 1 forbids sending a Write's data to the main program before its "
        "check), so the overhead ratio grows for VP and MB and barely for HC, as in the paper.",
        "",
        "TREFT-E2 (one section per kernel): 18 sections, each paying the sync latencies, and every kernel's "
        "output is read later, so all of it is live: the data checked grows from the results alone to "
        f"everything ({hc['e2']['checked_mb']} MB for HC.A, {vp['e2']['checked_mb']} MB for VP.A, "
        f"{mb['e2']['checked_mb']} MB for MB.A per copy), and nothing overlaps (each check blocks the program).",
        "",
        "Where the model differs: classes A and B scale compute and data alike (x4), so their percentages "
        "are almost equal, whereas the paper's measured values differ (VP.B 20.03 vs VP.A 10.20). HC's "
        "TREFT overhead is small here because only its last LU output leaves the section; the paper's HC "
        "(about 7-8 %, implied by the 10.77 % average) includes costs the paper does not break down. E1's "
        "average rise is larger than the paper's +2.28 points because our VP and MB move every "
        "intermediate result over the 13.98 Mbps network, which eager transfer then hides.",
    ]
    return "\n".join(lines)


def report(result: dict) -> str:
    """The table, the averages and the explanation."""
    lines = [
        f"{'workflow':9} {'variant':7} {'overhead %':>10} {'paper %':>8} {'time s':>9} {'baseline s':>10} "
        f"{'sections':>8} {'checked MB':>10}"
    ]
    for name, row in result["rows"].items():
        for variant in VARIANTS:
            cell = row[variant]
            lines.append(
                f"{name:9} {variant:7} {cell['overhead_pct']:10.2f} {_paper(variant, name):>8} "
                f"{cell['time_s']:9.1f} {cell['baseline_s']:10.1f} {cell['sections']:8d} "
                f"{cell['checked_mb']:10.1f}"
            )
    lines.append("")
    lines.append(
        "average overhead:  "
        + "   ".join(
            f"{v.upper() if v == 'treft' else 'TREFT-' + v.upper()} {result['averages'][v]:.2f} % "
            f"(paper {PAPER_AVERAGE[v]:.2f} %)"
            for v in VARIANTS
        )
    )
    lines.append(
        f"TREFT < E1 < E2 for every workflow: {result['treft_lt_e1_lt_e2_everywhere']} "
        "(E1 - TREFT, points: "
        + ", ".join(f"{n} {r['e1_minus_treft_points']:+.4f}" for n, r in result["rows"].items())
        + ")"
    )
    lines.append("")
    lines.append(explain(result))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    result = measure()
    if "--json" in argv:
        print(json.dumps(result | {"explanation": explain(result)}, indent=1))
    else:
        print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
