"""/faults: its figure pack and players (the task-based reduction and TREFT).

Registered in :mod:`vizcoll.ui.export.names`. The page's own builders on the page's cached model calls for the
scenario as the page opens, tables from the engine's results; :mod:`vizcoll.ui.export.packs` writes the ZIP,
:mod:`vizcoll.ui.export.animation` the GIF/MP4.
"""

from __future__ import annotations

from vizcoll.reduction.static import BINOMIAL
from vizcoll.scenario import Scenario
from vizcoll.treft import OPERATIONS
from vizcoll.ui.components.player import timeline_step
from vizcoll.ui.export.animation import Animation
from vizcoll.ui.export.packs import Pack, PackFigure, PackTable, scalars, timeline_table
from vizcoll.ui.pages.faults._figures import overhead_chart, reduction_diagram, treft_lanes
from vizcoll.ui.pages.faults._model import overheads, reduction_runs, scenario_reduction, scenario_treft, treft_run

__all__ = ["faults_pack", "reduction_animation", "treft_animation"]


def faults_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    """Both replays at their end and the TREFT overhead chart (``extra``: the page's clicked worker)."""
    red = scenario_reduction(scenario, extra)
    ft = scenario_treft(scenario)
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
            {"task": figures, BINOMIAL.name: binomial},
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


def reduction_animation(scenario: Scenario, extra=None) -> Animation:
    """/faults: the task-based fault-tolerant reduction (the page's parameters, its clicked worker included)."""
    params = scenario_reduction(scenario, extra)
    timeline, figures, _ = reduction_runs(params)
    return Animation(
        "vizcoll-faults-reduction",
        timeline.title,
        timeline,
        lambda position, width, height: reduction_diagram(
            timeline, timeline_step(position, timeline.n_steps), figures, params["procs"]
        ),
    )


def treft_animation(scenario: Scenario, extra=None) -> Animation:
    """/faults: TREFT's three replicas, the injected soft error, the vote and the correction."""
    params = scenario_treft(scenario)
    timeline, _ = treft_run(params)
    return Animation(
        "vizcoll-faults-treft",
        timeline.title,
        timeline,
        lambda position, width, height: treft_lanes(timeline, timeline_step(position, timeline.n_steps), OPERATIONS),
    )
