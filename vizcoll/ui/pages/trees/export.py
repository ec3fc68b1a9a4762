"""/trees: its figure pack and player (the compared trees, F(k), the chosen tree drawn and animated).

Registered in :mod:`vizcoll.ui.export.names`. The page's own builders on the page's cached model calls for the
scenario as the page opens, tables from the engine's results; :mod:`vizcoll.ui.export.packs` writes the ZIP,
:mod:`vizcoll.ui.export.animation` the GIF/MP4.
"""

from __future__ import annotations

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.trees.cost import f_width
from vizcoll.ui.export.animation import Animation
from vizcoll.ui.export.animations import drawing_animation, drawn_at, overview_animation, side_by_side_animation
from vizcoll.ui.export.packs import Pack, PackFigure, PackTable, link_table, timeline_table
from vizcoll.ui.figures.paper import COLUMN_WIDTH
from vizcoll.ui.models.parts import drawn_view
from vizcoll.ui.pages.trees._figures import K_RANGE, fk_figure
from vizcoll.ui.pages.trees._model import (
    TYPE2,
    compared_kind,
    cost_of,
    engine_key,
    tree_name,
    tree_plan,
    type_one,
    type_two,
)
from vizcoll.ui.pages.trees._views import (
    LEGEND,
    animation_view,
    compared_trees,
    comparison_rows,
    step_stylesheet,
    type_one_view,
    type_two_view,
)
from vizcoll.ui.store import topology_of

__all__ = ["trees_pack", "trees_animation", "trees_side_by_side"]


def _compared(key: dict, plan: dict) -> PackTable:
    rows = [
        [
            r["tree"],
            r["height"],
            r["radius"],
            (r["max_link"] or {}).get("packets"),
            "-".join((r["max_link"] or {}).get("ends", [])),
            r["cross_group"].get("switch"),
            r["cross_group"].get("group"),
            r["latency_us"],
            r["crossing"],
        ]
        for r in comparison_rows(key, plan)
    ]
    return PackTable(
        "trees-compared",
        "The trees compared on the same processes and k (the page's table).",
        [
            ("tree", "the tree"),
            ("height", "most tree edges to the root"),
            ("radius", "most links to the root"),
            ("max_link_packets", "aggregation packets on the busiest link"),
            ("max_link", "that link's ends"),
            ("packets_between_leaf_switches", "tree edges joining processes on different leaf switches"),
            ("packets_between_groups", "tree edges joining different groups (pods, supernodes); empty: no groups"),
            ("latency_us", "modelled latency, eq. 2 (microseconds)"),
            ("edges_crossing_breaks", "tree edges whose route crosses a broken link"),
        ],
        rows,
    )


def _fk_table(plan: dict) -> PackTable:
    cost = cost_of(plan, plan["nprocs"])
    rows = [[k, f_width(k, plan["nprocs"], cost.a, cost.b)] for k in range(K_RANGE[0], K_RANGE[1] + 1)]
    return PackTable(
        "f-of-k",
        f"Eq. 5, F(k) = log_k P (a + k b), for P = {plan['nprocs']}, a = {cost.a:g} us, b = {cost.b:g} us.",
        [("k", "tree width"), ("F_us", "F(k) in microseconds")],
        rows,
    )


def _trees_drawn(plan: dict, scenario: Scenario, part: str | None) -> list[PackFigure]:
    """The chosen tree and the type II trees on the fabric (``part`` None: the whole, or its overview), captioned
    with the fabric, the tree and the part."""
    params = {**scenario.params.get("trees", {}), "part": part}
    drawn = scenario.with_params("trees", params)
    mapped = type_one_view(plan, drawn)["mapped"]
    two = type_two_view(plan, drawn)
    where = f"{scenario.title}, {drawn_view(drawn, 'trees').name}"
    suffix = "-" + part.replace(":", "") if part else ""
    return [
        PackFigure(
            "tree-on-fabric" + suffix,
            f"The {tree_name(plan['kind'], plan['k'])} tree on {where}: link colour and width = aggregation packets.",
            mapped,
        ),
        PackFigure(
            "type2-physical" + suffix,
            f"The physical type II tree on {where}: packets per link, switches holding an entry.",
            two["physical"],
        ),
        PackFigure(
            "type2-mincost" + suffix, f"The minimum-cost type II tree (Algorithm 5) on {where}.", two["mincost"]
        ),
    ]


def trees_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    plan = tree_plan(scenario)
    key, topo = engine_key(scenario, plan), topology_of(scenario)
    pack = Pack("trees", "Trees")
    logical = type_one_view(plan, scenario)["logical"]
    cost = cost_of(plan, plan["nprocs"])
    part = scenario.params.get("trees", {}).get("part")
    pack.figures += [
        PackFigure(
            "tree-logical",
            f"The {tree_name(plan['kind'], plan['k'])} tree drawn logically (host names under its vertices).",
            logical,
        ),
        PackFigure(
            "f-of-k",
            "F(k) with k*, the epsilon interval and the chosen k.",
            fk_figure(plan["nprocs"], cost.a, cost.b, plan["eps"], plan["k"]),
            COLUMN_WIDTH,
            460,
        ),
        *_trees_drawn(plan, scenario, None),
        *(_trees_drawn(plan, scenario, part) if part else []),
    ]
    built, two = type_one(key, plan["kind"], plan["routes"]), type_two(key, plan["routes"])
    per_link = {"packets": ("aggregation packets of the chosen tree", built["metrics"]["link_packets"])}
    if two["ok"]:
        per_link |= {
            "type2_physical": ("packets of the physical type II tree", two["metrics"]["physical"]["link_packets"]),
            "type2_mincost": ("packets of the min-cost type II tree", two["metrics"]["tree"]["link_packets"]),
        }
    pack.tables += [
        _compared(key, plan),
        link_table(
            "packets-per-link", "Aggregation packets per link (one per tree edge whose route uses it).", topo, per_link
        ),
        _fk_table(plan),
    ]
    timeline = animation_view(plan, scenario)["timeline"]
    if timeline is not None:
        tl = Timeline.from_dict(timeline)
        pack.tables.append(
            timeline_table("aggregation-messages", f"{tl.title}: every packet, step by step.", tl, topo.names)
        )
    return pack


def trees_animation(scenario: Scenario, extra=None) -> Animation:
    """/trees: the aggregation up the chosen tree and the result broadcast down, on what the page draws (on a
    large fabric's overview: the animated tree's figure, the mapped type I tree or the min-cost type II tree)."""
    plan = tree_plan(scenario)
    shown = animation_view(plan, scenario)
    timeline, elements = shown["timeline"], shown["elements"]
    if timeline is None:
        raise VizcollError((shown["flag"] or shown["summary"] or "no aggregation to animate").removeprefix("⚠ "))
    if not elements:
        two = plan["anim"] == TYPE2
        figure = type_two_view(plan, scenario)["mincost"] if two else type_one_view(plan, scenario)["mapped"]
        return overview_animation(
            "vizcoll-trees-aggregation", timeline, topology_of(scenario), drawn_view(scenario, "trees").overview, figure
        )
    return drawing_animation(
        "vizcoll-trees-aggregation",
        timeline,
        elements,
        lambda position: step_stylesheet(position, timeline, plan, scenario),
        LEGEND,
    )


def trees_side_by_side(scenario: Scenario, extra=None) -> Animation:
    """/trees' side-by-side player: the animated tree's aggregation and that of the tree kind compared with it
    (:func:`~vizcoll.ui.pages.trees._model.compared_kind`), one clock, both drawings in each frame."""
    plan = tree_plan(scenario)
    ls, handles, elements = compared_trees(plan, scenario, compared_kind(scenario))
    return side_by_side_animation(
        "vizcoll-trees-side-by-side",
        ls,
        [drawn_at(elements, lambda p, h=h: step_stylesheet(p, h, plan, scenario)) for h in handles],
        LEGEND,
    )
