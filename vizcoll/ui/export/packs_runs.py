"""The figure packs of the pages that run simulations and codes: /barrier, /faults, /erasure.

As in :mod:`vizcoll.ui.export.packs_fabric`: the page's builders on the page's cached model calls for the
scenario as the page opens (the fault replays: the page's own parameters when it sends them, a clicked worker
included), tables from the engine's results.
"""

from __future__ import annotations

from vizcoll.erasure.compare import paper_rows
from vizcoll.erasure.metrics import Metrics, dc_failure
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.treft import OPERATIONS
from vizcoll.ui.export.packs import Pack, PackFigure, PackTable, drawn, timeline_table
from vizcoll.ui.figures import barrier as charts
from vizcoll.ui.figures.erasure import compare_figure, dc_figure, matrix_figure
from vizcoll.ui.figures.faults import overhead_chart, reduction_diagram, treft_lanes
from vizcoll.ui.figures.paper import COLUMN_WIDTH
from vizcoll.ui.models import barrier as model
from vizcoll.ui.models import erasure as codes
from vizcoll.ui.models.faults import overheads, reduction_runs, scenario_reduction, scenario_treft, treft_run
from vizcoll.ui.store import page_params, topology_of
from vizcoll.ui.views.barrier import drawing, run_stylesheet, sweep_choices, uq_grid, uq_view

__all__ = ["barrier_pack", "faults_pack", "erasure_pack", "scalars"]


def scalars(name: str, caption: str, results: dict[str, dict]) -> PackTable:
    """The plain numbers (and flags, texts) of one or more results side by side, one row per figure."""
    keys = list(
        dict.fromkeys(
            k for r in results.values() for k, v in r.items() if v is None or isinstance(v, bool | int | float | str)
        )
    )
    columns = [("figure", "what is measured")] + [(column, f"its value for {column}") for column in results]
    return PackTable(name, caption, columns, [[k, *[r.get(k) for r in results.values()]] for k in keys])


# ---------------------------------------------------------------- /barrier
def _barrier_run(scenario: Scenario, plan: dict, pack: Pack) -> None:
    topo = topology_of(scenario)
    elements = drawing(topo, plan)
    if "error" in plan or plan["reason"]:
        pack.notes.append("The barrier run: " + (plan.get("error") or plan["reason"]).removeprefix("⚠ "))
        return
    run = model.run_of(scenario, plan)
    pack.tables.append(scalars("run-figures", "The run's figures (times in s).", {"value": run["figures"]}))
    if elements:
        pack.figures.append(
            drawn(
                "run-drawing",
                "The barrier's processes and the broken links (on a grid, the "
                "processors' DLCT IDs), before the first message.",
                elements,
                run_stylesheet(plan["grid"], topo, run["timeline"], 0),
            )
        )
    if run["timeline"] is not None:
        tl = Timeline.from_dict(run["timeline"])
        pack.tables.append(timeline_table("run-messages", f"{tl.title}: every hop of every message.", tl, topo.names))


def _sweep(result: dict, pack: Pack) -> None:
    sizes, rates = ([o["value"] for o in options] for options in sweep_choices(result))
    pack.figures += [
        PackFigure(
            "vs-rate",
            f"Run time minus work of every algorithm vs the break rate, {sizes[-1]}x{sizes[-1]} grid.",
            charts.sweep_figure(result, "rate", sizes[-1]),
        ),
        PackFigure(
            "vs-size",
            f"Run time minus work of every algorithm vs the grid size, {rates[-1]:.0%} broken.",
            charts.sweep_figure(result, "size", rates[-1]),
        ),
        PackFigure(
            "ranges",
            "Fig. 7: per grid size, each algorithm's run times over every break rate.",
            charts.range_figure(result),
        ),
    ]
    rows = [
        [r["size"], r["rate"], r["broken"], algo, r["sync_ms"][algo], r["time_s"][algo]]
        for r in result["rows"]
        for algo in result["columns"]
    ]
    pack.tables.append(
        PackTable(
            "sweep",
            "Every algorithm on every grid size and break rate.",
            [
                ("size", "grid side"),
                ("rate", "share of links broken at random"),
                ("broken", "share actually broken"),
                ("algorithm", "the barrier algorithm"),
                ("sync_ms", "run time minus work (ms)"),
                ("time_s", "run time (s)"),
            ],
            rows,
        )
    )


def barrier_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    """The run, LCT vs BST (Fig. 3), the UQ histogram (Fig. 5) and the sweep the page shows (Fig. 6, 7)."""
    plan, uq_key, sweep_key = model.view_keys(scenario)
    pack = Pack("barrier", "Barrier")
    _barrier_run(scenario, plan, pack)
    lct, bst, _ = uq_view(uq_key)
    rows, cols = uq_grid(uq_key)
    uq = model.uq_of(rows, cols, uq_key["neighbors"], uq_key["k"], uq_key["numbering"])
    side = model.histogram_side(uq_key)
    histogram = model.histogram_of(side, uq_key["neighbors"])
    pack.figures += [
        PackFigure("uq-lct", f"LCT's Gather links before and after round({uq_key['k']}).", lct, COLUMN_WIDTH, 400),
        PackFigure("uq-bst", f"BST's Gather links before and after round({uq_key['k']}).", bst, COLUMN_WIDTH, 400),
        PackFigure(
            "uq-histogram",
            "Fig. 5: UQ(LCT) - UQ(BST) over every shift.",
            charts.uq_histogram_figure(histogram, paper=(side, uq_key["neighbors"]) == (4, 8)),
            COLUMN_WIDTH,
            320,
        ),
    ]
    pack.tables += [
        PackTable(
            "uq",
            f"Update quantity of round({uq_key['k']}) on the {rows}x{cols} grid "
            f"({uq_key['numbering']}, {uq_key['neighbors']} neighbors).",
            [
                ("structure", "LCT or BST"),
                ("intersection", "|A and B|: Gather links used before and after"),
                ("union", "|A or B|"),
                ("uq", "1 - intersection / union"),
            ],
            [[s.upper(), *[uq[s]["uq"][key] for key in ("intersection", "union", "uq")]] for s in ("lct", "bst")],
        ),
        PackTable(
            "uq-histogram",
            "UQ(LCT) - UQ(BST) histogram.",
            [("low", "bin's lower edge"), ("high", "bin's upper edge"), ("shifts", "shifts in the bin")],
            [
                [lo, hi, n]
                for lo, hi, n in zip(histogram["edges"], histogram["edges"][1:], histogram["counts"], strict=False)
            ],
        ),
    ]
    _sweep(model.run_sweep(sweep_key["mode"], sweep_key["neighbors"], progress=progress), pack)
    return pack


# ---------------------------------------------------------------- /faults
def faults_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    """Both replays at their end and the TREFT overhead chart (``extra``: the page's ``{"reduction",
    "treft"}`` parameter stores)."""
    extra = extra if isinstance(extra, dict) else {}
    red = scenario_reduction(scenario, extra.get("reduction"))
    ft = scenario_treft(scenario, extra.get("treft"))
    timeline, figures, binomial = reduction_runs(red)
    treft, treft_figures = treft_run(ft)
    pack = Pack("faults", "Fault replays")
    pack.figures += [
        PackFigure(
            "reduction-end",
            f"{timeline.title}: the tree the tasks built, at the end.",
            reduction_diagram(timeline, timeline.n_steps - 1, figures, red["procs"]),
        ),
        PackFigure(
            "treft-end", f"{treft.title}: the replicas at the end.", treft_lanes(treft, treft.n_steps - 1, OPERATIONS)
        ),
        PackFigure(
            "treft-overhead",
            "TREFT, E1 and E2 overhead on every program, against the paper's averages.",
            overhead_chart(overheads(progress=progress)),
        ),
    ]
    tasks = [[i, *task["pair"], task["to"]] for i, task in enumerate(figures["tasks"])]
    ops = [
        [op.get(k) for k in ("step", "t", "symbol", "op", "replica", "section", "kernel", "label")]
        for op in treft_figures["ops"]
    ]
    pack.tables += [
        scalars(
            "reduction-figures",
            "The task-based reduction and the binomial tree under the same slow nodes "
            "and fault (times in s, sizes in bytes).",
            {"task": figures, "binomial": binomial},
        ),
        PackTable(
            "reduction-tasks",
            "The tasks the master formed, in order.",
            [("task", "order"), ("i", "first worker"), ("j", "second worker"), ("to", "the worker holding the sum")],
            tasks,
        ),
        timeline_table("reduction-messages", f"{timeline.title}: every event.", timeline),
        scalars("treft-figures", "TREFT's run (times in s).", {"value": treft_figures}),
        PackTable(
            "treft-operations",
            "TREFT's numbered operations, in order.",
            [
                (k, f"the operation's {k}")
                for k in ("step", "t", "symbol", "op", "replica", "section", "kernel", "label")
            ],
            ops,
        ),
        PackTable(
            "treft-overhead",
            "Overhead over one unprotected run, in %.",
            [("variant", "TREFT, E1 or E2"), ("program", "workflow.class"), ("overhead_pct", "overhead in %")],
            [[v, p, pct] for v, per in overheads().items() for p, pct in per.items()],
        ),
    ]
    return pack


# ---------------------------------------------------------------- /erasure
def erasure_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    """The code of the page's parameters, every family compared, the generator matrix."""
    stored = page_params(scenario, codes.PAGE, codes.DEFAULTS)
    params = codes.read_params(*[stored[k] for k in ("n", "k", "dcs", "code", "traffic", "d", "seed", "placement")])
    result = codes.build_code(params, progress=progress)
    compared = codes.compare_result(params)
    failure = dc_failure(Metrics.from_dict(result).code, [])
    paper = paper_rows(params["n"], params["k"], params["dcs"])
    pack = Pack("erasure", "Erasure codes")
    pack.figures += [
        PackFigure(
            "stripe",
            f"{result['name']}: the blocks in their data centres.",
            dc_figure(result, params["traffic"], None, [], failure),
        ),
        PackFigure(
            "families",
            "Every code family at the same n, k, N (Table 2 values as diamonds).",
            compare_figure(compared["codes"], paper, params["code"], params["traffic"]),
        ),
        PackFigure("generator", f"{result['name']}: the generator matrix.", matrix_figure(result)),
    ]
    suffix = "_aggregated" if params["traffic"] == "aggregated" else ""
    blocks = [
        [
            g["block"],
            g["dc"],
            result["kinds"][g["block"]],
            g["group"],
            g["remote"],
            g["cross_dc"],
            result["cross_dc_traffic_aggregated"][g["block"]],
            result[f"repair_time_per_block{suffix}"][g["block"]],
        ]
        for g in result["repair_groups"]
    ]
    families = [
        [
            c["code"],
            c.get("name"),
            *[
                c.get(k)
                for k in (
                    "mean_traffic",
                    "mean_traffic_aggregated",
                    "dc_failures_survived",
                    "block_failures_tolerated",
                    "overhead",
                    "repair_time_ms_per_mb",
                )
            ],
            c.get("error"),
        ]
        for c in compared["codes"].values()
    ]
    pack.tables += [
        PackTable(
            "repair",
            f"{result['name']}: every block's minimum-cross-DC repair group.",
            [
                ("block", "the lost block"),
                ("dc", "its data centre"),
                ("kind", "data or parity"),
                ("group", "blocks read to repair it"),
                ("remote", "those in other data centres"),
                ("cross_dc", "cross-DC traffic, every remote block read (blocks)"),
                ("cross_dc_aggregated", "cross-DC traffic, one combined block per remote DC (blocks)"),
                ("repair_ms_per_mb", "modelled repair time (ms per MB)"),
            ],
            blocks,
        ),
        PackTable(
            "families",
            "Every family at the same n, k, N.",
            [
                ("code", "family"),
                ("name", "the code"),
                ("mean_traffic", "mean cross-DC repair traffic (blocks)"),
                ("mean_traffic_aggregated", "the same, one combined block per remote DC"),
                ("dc_failures_survived", "DC failures survived"),
                ("block_failures_tolerated", "block failures tolerated"),
                ("overhead", "n/k"),
                ("repair_time_ms_per_mb", "modelled repair time (ms per MB)"),
                ("error", "why the family has no code at these n, k, N (empty: it has one)"),
            ],
            families,
        ),
        PackTable(
            "paper-table2",
            "The paper's Table 2 values at these n, k, N (empty: the paper has none).",
            [
                (k, k)
                for k in (
                    "label",
                    "code",
                    "n",
                    "k",
                    "dcs",
                    "mean_traffic",
                    "repair_time_ms_per_mb",
                    "d",
                    "D",
                    "overhead",
                )
            ],
            [
                [
                    row.get(k)
                    for k in (
                        "label",
                        "code",
                        "n",
                        "k",
                        "dcs",
                        "mean_traffic",
                        "repair_time_ms_per_mb",
                        "d",
                        "D",
                        "overhead",
                    )
                ]
                for row in paper
            ],
        ),
        PackTable(
            "generator",
            "The generator matrix over GF(2^8): one row per data block, one column per coded block.",
            [("row", "data block")] + [(f"y{i}", f"coded block {i}") for i in range(params["n"])],
            [[j, *row] for j, row in enumerate(result["generator"])],
        ),
    ]
    return pack
