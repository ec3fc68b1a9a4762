"""The task-based fault-tolerant reduction (seed 001) against binomial and Rabenseifner: the paper's experiments.

Run ``python benchmarks/reduction.py`` (``--quick`` for fewer samples, about
20 s; the full run takes about two minutes on two cores). It prints one JSON
object per experiment, each with the paper's figures next to ours and a
``note``:

- ``table1``: the master's received messages per second during one reduction
  of 200 processes, 128 KB … 128 MB (Table 1; the calibration of θ);
- ``ideal``: times on the idle cluster (section 4.1: MPI faster, the gap
  shrinking with the size);
- ``slow_nodes``: a few processes 4 times slower, 32 MB (the task-based
  reduction should win);
- ``psdm``: a co-scheduled job on 50/100/150/200 of the 200 nodes (section 4.2:
  MPI faster below 4 MB, the task-based one up to 5.59, 2.09, 3, 5.15 times
  faster from 4 MB);
- ``concurrent``: 4 … 28 reductions of 8 MB at once (sections 4.1, 4.2);
- ``production``: the busy cluster, 32 MB (section 4.3: 1.67 times faster on
  average, at most 2.2);
- ``reliability``: the fault experiment (section 4.5: 98.43 % over 700 runs)
  and how it changes with the number of processes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vizcoll.reduction import (  # noqa: E402
    ReductionRun,
    interference,
    simulate_binomial,
    simulate_rabenseifner,
    simulate_task_reduction,
)
from vizcoll.reduction.reliability import PAPER_RELIABILITY, reliability_experiment  # noqa: E402

MB = 1 << 20
TABLE1 = {17: 5220, 18: 5005, 19: 4996, 20: 4460, 21: 3957, 22: 3302, 23: 2400, 24: 1543, 25: 923, 26: 479, 27: 250}
PSDM_PAPER = {50: 5.59, 100: 2.09, 150: 3.0, 200: 5.15}


def _times(procs: int, size: int, **kw) -> dict:
    """Times (s) of the three algorithms on the same scenario; the task-based one with warm counters."""
    reduction = ReductionRun(procs, size, **kw)
    _, task = simulate_task_reduction(reduction, record=False, counters="warm")
    _, binomial = simulate_binomial(reduction, record=False)
    _, raben = simulate_rabenseifner(reduction, record=False)
    assert task["result_ok"] and binomial["result_ok"] and raben["result_ok"]
    return {"task": task["time"], "binomial": binomial["time"], "rabenseifner": raben["time"]}


def table1() -> dict:
    rows = []
    for exp, paper in TABLE1.items():
        _, f = simulate_task_reduction(ReductionRun(200, 1 << exp), record=False)
        rate = f["master_received"] / f["time"]
        rows.append(
            {
                "size": 1 << exp,
                "received_per_s": round(rate),
                "paper": paper,
                "ratio": round(rate / paper, 3),
                "sent_per_received": round(f["master_sent"] / f["master_received"], 4),
            }
        )
    return {
        "experiment": "table1",
        "rows": rows,
        "note": "A reduction of 200 processes makes the master receive 399 messages and send 199 tasks (the "
        "paper's sent/received ratio is 0.499), so Table 1 gives the reduction time 399/rate; "
        "theta = 4.2 ms and beta = 1/812.7 MB/s reproduce it within a few per cent.",
    }


def ideal() -> dict:
    rows = []
    for exp in range(17, 28, 2):
        t = _times(200, 1 << exp)
        rows.append(
            {
                "size": 1 << exp,
                **{k: round(v, 4) for k, v in t.items()},
                "binomial_over_task": round(t["binomial"] / t["task"], 3),
            }
        )
    return {
        "experiment": "ideal",
        "procs": 200,
        "rows": rows,
        "note": "No interference: the binomial tree and Rabenseifner beat the task-based reduction (two framework "
        "messages per round), and the gap shrinks as the data grows (paper, Fig. 6a).",
    }


def slow_nodes(samples: int) -> dict:
    rng = np.random.default_rng(1)
    rows = []
    for procs in (64, 200):
        for count in (1, 4, 16):
            ratios = []
            for _ in range(samples):
                slow = [(int(r), 4.0) for r in rng.choice(procs, count, replace=False)]
                t = _times(procs, 32 * MB, slow=slow)
                ratios.append(t["binomial"] / t["task"])
            rows.append(
                {
                    "procs": procs,
                    "slow_nodes": count,
                    "factor": 4.0,
                    "binomial_over_task_mean": round(float(np.mean(ratios)), 3),
                    "min": round(min(ratios), 3),
                    "max": round(max(ratios), 3),
                }
            )
    return {
        "experiment": "slow_nodes",
        "size": 32 * MB,
        "rows": rows,
        "note": "Slow processes (CPU 4x slower) stall their ancestors in the binomial tree; the task-based "
        "reduction pairs whoever is ready and gives tasks to the faster process, so it wins.",
    }


def psdm(seeds: int, sizes: tuple[int, ...]) -> dict:
    rows = []
    for nodes, paper in PSDM_PAPER.items():
        for size in sizes:
            ratios = []
            for seed in range(seeds):
                eps = interference(200, 30.0, seed=seed, nodes=nodes, load=0.5, factors=(2, 8), mean_length=0.2)
                t = _times(200, size, interference=eps)
                ratios.append(t["binomial"] / t["task"])
            rows.append(
                {
                    "psdm_nodes": nodes,
                    "size": size,
                    "binomial_over_task_mean": round(float(np.mean(ratios)), 3),
                    "max": round(max(ratios), 3),
                    "paper_max_from_4MB": paper,
                }
            )
    return {
        "experiment": "psdm",
        "procs": 200,
        "rows": rows,
        "note": "A job busy half of the time (2-8x slower) on 50..200 nodes: the binomial tree wins below 4 MB "
        "(latency dominates), the task-based reduction wins from 4 MB, as in the paper; our largest "
        "gains (about 2-3x) are below the paper's best cases (up to 5.59x).",
    }


def concurrent(counts: tuple[int, ...]) -> dict:
    rows = []
    for load in (0.0, 0.5):
        for k in counts:
            eps = [] if load == 0 else interference(200, 30.0, seed=k, load=load)
            t = _times(200, 8 * MB, concurrent=k, interference=eps)
            rows.append(
                {
                    "load": load,
                    "reductions": k,
                    **{a: round(v, 4) for a, v in t.items()},
                    "binomial_over_task": round(t["binomial"] / t["task"], 3),
                }
            )
    return {
        "experiment": "concurrent",
        "size": 8 * MB,
        "rows": rows,
        "note": "Concurrent reductions (roots root+c) share the nodes' links and CPUs. The paper finds the "
        "distributed version faster even on the idle cluster; in this model MPI's concurrent binomial "
        "trees keep every link busy and stay faster when idle, the task-based one wins under load. "
        "The paper's MPI concurrent reductions probably progressed one at a time, which is not modelled.",
    }


def production(seeds: int) -> dict:
    ratios = []
    for seed in range(seeds):
        eps = interference(200, 30.0, seed=100 + seed, load=0.5)
        t = _times(200, 32 * MB, interference=eps)
        ratios.append(t["binomial"] / t["task"])
    return {
        "experiment": "production",
        "procs": 200,
        "size": 32 * MB,
        "binomial_over_task_mean": round(float(np.mean(ratios)), 3),
        "max": round(max(ratios), 3),
        "paper": {"mean": 1.67, "max": 2.2},
        "note": "Every node busy half of the time, 2-8x slower while busy.",
    }


def reliability(runs: int, sweep_runs: int) -> dict:
    main = reliability_experiment(ReductionRun(200, 32 << 20, seed=7), runs=runs)
    window = (1 - main["reliability"]) * main["mean_time"]
    sweep = []
    for procs in (50, 100, 200, 400):
        r = reliability_experiment(ReductionRun(procs, 32 << 20, seed=procs), runs=sweep_runs)
        sweep.append({"procs": procs, "reliability": round(r["reliability"], 4), "mean_time": round(r["mean_time"], 4)})
    return {
        "experiment": "reliability",
        "procs": 200,
        "size": 32 * MB,
        "runs": main["runs"],
        "unrecoverable": main["unrecoverable"],
        "reliability": round(main["reliability"], 4),
        "per_day": [d["unrecoverable"] for d in main["per_day"]],
        "mean_time": round(main["mean_time"], 4),
        "replica_time": round(main["replica_time"], 4),
        "exposure": round(window, 4),
        "paper": {"reliability": PAPER_RELIABILITY, "per_day": [2, 1, 0, 2, 3, 1, 2]},
        "mean_time_for_paper_figure": round(window / (1 - PAPER_RELIABILITY), 3),
        "by_procs": sweep,
        "note": (
            "A kill is unrecoverable only while the victim's data is still needed (until another worker has "
            "read it) and its copy has not reached the neighbour yet (alpha + n*beta: 41 ms for 32 MB at full "
            "speed, longer while the victim's node is busy), so 1 - reliability = exposure / t, t the mean "
            "reduction time (the kill time is uniform in [0, t]). Drivers: the copy time (n, beta, the "
            "victim's load) and how soon the victim's data is read (its place in the arrival order, theta) "
            "against t (ceil(log p) rounds of 2*theta + lambda + n*(beta + gamma), stretched by the load). "
            "With the Table 1 calibration and a cluster busy half of the time t is about 0.8 s and the "
            "exposure about 60 ms: about 93 %, the same order as the paper's 98.43 %. The paper's figure "
            "means an exposure of 1.6 % of t; with our exposure that is the mean time printed as "
            "mean_time_for_paper_figure (a busier production cluster than modelled). The figure grows with "
            "p (eq. 5) only slowly, since t grows like log p: by_procs is within the noise of its runs."
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples (about 20 s)")
    parser.add_argument(
        "--only", help="one experiment: table1, ideal, slow_nodes, psdm, concurrent, production, reliability"
    )
    args = parser.parse_args(argv)
    q = args.quick
    experiments = {
        "table1": table1,
        "ideal": ideal,
        "slow_nodes": lambda: slow_nodes(3 if q else 10),
        "psdm": lambda: psdm(2 if q else 5, (MB, 4 * MB, 32 * MB) if q else (MB, 4 * MB, 32 * MB, 128 * MB)),
        "concurrent": lambda: concurrent((4, 16) if q else (4, 8, 16, 28)),
        "production": lambda: production(3 if q else 9),
        "reliability": lambda: reliability(200 if q else 700, 100 if q else 300),
    }
    for name, run in experiments.items():
        if args.only and name != args.only:
            continue
        start = time.perf_counter()
        out = run()
        out["seconds"] = round(time.perf_counter() - start, 1)
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
