"""/barrier: its figure pack and player (the run drawn, its figures and the sweep).

Registered in :mod:`vizcoll.ui.export.names`. The page's own builders on the page's cached model calls for the
scenario as the page opens, tables from the engine's results; :mod:`vizcoll.ui.export.packs` writes the ZIP,
:mod:`vizcoll.ui.export.animation` the GIF/MP4.
"""

from __future__ import annotations

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.ui.export.animation import Animation
from vizcoll.ui.export.animations import drawing_animation, drawn_at, overview_animation, side_by_side_animation
from vizcoll.ui.export.packs import Pack, PackFigure, PackTable, drawn, scalars, timeline_table
from vizcoll.ui.figures.paper import COLUMN_WIDTH
from vizcoll.ui.models.parts import WHOLE
from vizcoll.ui.pages.barrier import _figures as charts
from vizcoll.ui.pages.barrier import _model as barrier_model
from vizcoll.ui.pages.barrier import _model as model
from vizcoll.ui.pages.barrier._views import (
    CANVAS_LEGEND,
    compared_algo,
    compared_runs,
    drawing,
    run_drawing,
    run_elements,
    run_figure,
    run_stylesheet,
    sweep_choices,
    uq_grid,
    uq_view,
)
from vizcoll.ui.store import topology_of

__all__ = ["barrier_pack", "barrier_animation", "barrier_side_by_side"]


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


def barrier_animation(scenario: Scenario, extra=None) -> Animation:
    """/barrier: the barriers' Gather and Release hop by hop on what the page draws: the grid, the fabric or a
    group alone node by node, a large fabric's overview."""
    plan = barrier_model.view_keys(scenario)[0]
    if "error" in plan or plan["reason"]:
        raise VizcollError((plan.get("error") or plan["reason"]).removeprefix("⚠ "))
    timeline = barrier_model.run_of(scenario, plan)["timeline"]
    if timeline is None:
        raise VizcollError(plan["note"])
    topo, drawn = topology_of(scenario), run_drawing(scenario, plan)
    if drawn.overview is not None:
        return overview_animation("vizcoll-barrier", timeline, topo, drawn.overview, run_figure(topo, plan, drawn))
    if not drawn.canvas:
        raise VizcollError(
            f"a part of more than {barrier_model.ANIMATION_LIMIT:,} nodes is drawn without the animation: choose "
            "the overview or a smaller part"
        )
    if drawn.view is not None and drawn.view.part != WHOLE:
        timeline = {**timeline, "nodes": drawn.view.kept.tolist()}
    return drawing_animation(
        "vizcoll-barrier",
        timeline,
        run_elements(topo, plan, drawn),
        lambda position: run_stylesheet(plan["grid"], topo, timeline, position),
        CANVAS_LEGEND,
    )


def barrier_side_by_side(scenario: Scenario, extra=None) -> Animation:
    """/barrier's side-by-side player: the run and the run of the algorithm compared with it
    (:func:`~vizcoll.ui.pages.barrier._model.compared_algo`), one clock, both drawings in each frame."""
    found = compared_runs(scenario, compared_algo(scenario))
    topo = topology_of(scenario)
    return side_by_side_animation(
        "vizcoll-barrier-side-by-side",
        found.lockstep,
        [drawn_at(found.elements, lambda p, t=t: run_stylesheet(found.grid, topo, t, p)) for t in found.timelines],
        CANVAS_LEGEND,
    )
