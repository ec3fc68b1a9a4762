"""The figure packs of the pages drawn on the scenario's fabric: /topology, /trees, /multicast, /schedules.

Each function builds the page's figures with the page's builders from the same cached model calls (what the
page shows for the scenario as it opens) and the tables from the engine's results; see
:mod:`vizcoll.ui.export.packs` for the ZIP and its README.
"""

from __future__ import annotations

import numpy as np

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.trees.cost import f_width
from vizcoll.ui.export.packs import Pack, PackFigure, PackTable, drawn, link_table, timeline_table
from vizcoll.ui.figures.multicast import route_figures
from vizcoll.ui.figures.paper import COLUMN_WIDTH
from vizcoll.ui.figures.schedules import finish_figure
from vizcoll.ui.figures.topology import base_stylesheet, cytoscape_elements, fabric_drawing
from vizcoll.ui.figures.trees import K_RANGE, fk_figure
from vizcoll.ui.models.multicast import page_state, protocol_timeline, routed
from vizcoll.ui.models.parts import drawn_view, natural_part, view_of
from vizcoll.ui.models.schedules import analysis, opened_goal, read_goal, replay_of, stored_params
from vizcoll.ui.models.topology import broadcast_timeline, communicator_colours, root_of
from vizcoll.ui.models.trees import cost_of, engine_key, tree_name, tree_plan, type_one, type_two
from vizcoll.ui.store import positions_of, topology_of
from vizcoll.ui.views.schedules import replay_stylesheet
from vizcoll.ui.views.topology import broadcast_stylesheet
from vizcoll.ui.views.trees import animation_view, comparison_rows, type_one_view, type_two_view

__all__ = ["topology_pack", "trees_pack", "multicast_pack", "schedules_pack"]


# ---------------------------------------------------------------- /topology
def _nodes_table(topo, pos, colours: dict, final: dict) -> PackTable:
    rows = [
        [
            i,
            name,
            "switch" if i in set(topo.switches.tolist()) else "end node",
            float(pos[i, 0]),
            float(pos[i, 1]),
            colours.get(i, ""),
            final.get(name, ""),
        ]
        for i, name in enumerate(topo.names)
    ]
    return PackTable(
        "nodes",
        "Every node of the fabric.",
        [
            ("index", "the node's index"),
            ("name", "its name"),
            ("kind", "switch or end node"),
            ("x", "its position in the drawing (layout units)"),
            ("y", "its position in the drawing (layout units)"),
            ("communicator", "the first communicator it hosts (empty: none)"),
            ("broadcast_state", "its state when the broadcast has ended"),
        ],
        rows,
    )


def topology_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    topo = topology_of(scenario)
    try:
        colours, _ = communicator_colours(scenario, topo)
    except VizcollError:
        colours = {}
    pack = Pack("topology", "Topology")
    pack.tables.append(link_table("links", "Every link of the fabric.", topo, {}))
    root = root_of(scenario, topo)
    tl = Timeline.from_dict(broadcast_timeline(scenario.source_key(), root)) if root else None
    pack.tables.insert(0, _nodes_table(topo, positions_of(scenario), colours, tl.final_state if tl else {}))
    whole = view_of(scenario, natural_part(topo))
    elements, figure = fabric_drawing(whole, topo, colours)
    if figure is not None:
        pack.figures.append(
            PackFigure(
                "fabric", f"The fabric {scenario.title} as the page draws it: its blocks and bundles of links.", figure
            )
        )
    else:
        pack.figures.append(
            drawn(
                "fabric",
                f"The fabric {scenario.title}: switches (squares), end nodes coloured "
                "by their first communicator, broken links dashed.",
                elements,
                base_stylesheet(),
            )
        )
        if tl is not None:
            pack.figures.append(
                drawn(
                    "broadcast-end",
                    f"{tl.title}: every node's state once the broadcast has "
                    "ended (ring: received; diamond: unreachable).",
                    elements,
                    broadcast_stylesheet(tl.to_dict(), tl.n_steps),
                )
            )
            pack.tables.append(
                timeline_table("broadcast-messages", f"{tl.title}: every message, hop by hop.", tl, topo.names)
            )
    view = drawn_view(scenario, "topology")
    if view.part != whole.part:  # the group the page draws alone, after the whole fabric
        name, caption = "fabric-" + view.part.replace(":", ""), f"{view.name} of {scenario.title}, drawn alone."
        part_elements, part_figure = fabric_drawing(view, topo, colours)
        pack.figures.append(
            PackFigure(name, caption, part_figure)
            if part_figure is not None
            else drawn(name, caption, part_elements, base_stylesheet())
        )
    return pack


# ---------------------------------------------------------------- /trees
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
    data = scenario.with_params("trees", params).to_dict()
    _, mapped, _ = type_one_view(plan, data)
    physical, mincost, _ = type_two_view(plan, data)
    where = f"{scenario.title}, {drawn_view(scenario.with_params('trees', params), 'trees').name}"
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
            physical,
        ),
        PackFigure("type2-mincost" + suffix, f"The minimum-cost type II tree (Algorithm 5) on {where}.", mincost),
    ]


def trees_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    plan = tree_plan(scenario)
    data, key, topo = scenario.to_dict(), engine_key(scenario, plan), topology_of(scenario)
    pack = Pack("trees", "Trees")
    logical = type_one_view(plan, data)[0]
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
    timeline = animation_view(plan, data)[0]
    if timeline is not None:
        tl = Timeline.from_dict(timeline)
        pack.tables.append(
            timeline_table("aggregation-messages", f"{tl.title}: every packet, step by step.", tl, topo.names)
        )
    return pack


# ---------------------------------------------------------------- /multicast
def _efi_histogram(results: dict) -> PackTable:
    top = max(int(r.efi.max(initial=0)) for r in results.values())
    counts = {name: np.bincount(r.efi.astype(int), minlength=top + 1) for name, r in results.items()}
    rows = [[v, *[int(counts[name][v]) for name in results]] for v in range(1, top + 1)]
    columns = [("efi", "groups crossing a link")]
    columns += [(f"links_{name}", f"links at that EFI under {name.upper()}: {r.algo}") for name, r in results.items()]
    return PackTable("efi-histogram", "Number of links at each EFI value (links with EFI 0 left out).", columns, rows)


def multicast_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    topo, groups, p, notes = page_state(scenario)
    if not groups:
        raise VizcollError(" ".join(notes) or "the scenario has no multicast group to route")
    results = {"a": routed(scenario, p["a"]), "b": routed(scenario, p["b"])}
    pack = Pack("multicast", "Multicast")
    parts = [natural_part(topo)] + ([p["part"]] if p["part"] and p["part"] != natural_part(topo) else [])
    for part in parts:  # the whole fabric (or its overview), then the part the page drills into
        view = view_of(scenario, part)
        figs = route_figures(view, results["a"], results["b"], p["group"])
        where = f"{scenario.title}, {view.name}"
        suffix = "" if part == parts[0] else "-" + part.replace(":", "")
        for name, fig, caption in zip(
            ("efi-a", "efi-b", "efi-difference", "efi-histogram"),
            figs,
            (
                f"EFI per link under A ({results['a'].algo}) on {where}.",
                f"EFI per link under B ({results['b'].algo}) on {where}.",
                f"The difference B - A ({results['b'].algo} - {results['a'].algo}) per link on {where}.",
                f"Links per EFI value, A ({results['a'].algo}) and B ({results['b'].algo}).",
            ),
            strict=True,
        ):
            if name != "efi-histogram" or part == parts[0]:  # one histogram: of the whole fabric
                pack.figures.append(
                    PackFigure(
                        name + suffix,
                        caption,
                        fig,
                        COLUMN_WIDTH if name == "efi-histogram" else 672,
                        320 if name == "efi-histogram" else None,
                    )
                )
    efi = {
        f"efi_{name}": (f"groups whose tree uses the link under {name.upper()} ({r.algo})", r.efi_by_link_id())
        for name, r in results.items()
    }
    summaries = [
        [name.upper(), r.algo, *[r.summary()[k] for k in ("groups", "unroutable", "max_efi", "mean_efi", "max_height")]]
        for name, r in results.items()
    ]
    pack.tables += [
        link_table("efi-per-link", "The edge forwarding index (EFI) of every link under A and B.", topo, efi),
        _efi_histogram(results),
        PackTable(
            "summary",
            "A and B side by side (the page's table, without the routing time, which is measured, not computed).",
            [
                ("which", "A or B"),
                ("algorithm", "the routing algorithm"),
                ("groups", "groups routed"),
                ("unroutable", "groups no tree joins"),
                ("max_efi", "largest EFI"),
                ("mean_efi", "mean EFI over the links a tree uses"),
                ("max_height", "tallest tree"),
            ],
            summaries,
        ),
    ]
    timeline = protocol_timeline(scenario)
    if timeline is not None:
        tl = Timeline.from_dict(timeline)
        pack.tables.append(timeline_table("protocol-messages", f"{tl.title}: the join/leave protocol.", tl))
    return pack


# ---------------------------------------------------------------- /schedules
def schedules_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    """The GOAL file the page opened (``extra``)."""
    goal = opened_goal(extra)
    name, text = read_goal(goal)
    result = analysis(text, stored_params(scenario))
    pack = Pack("schedules", "Schedules")
    problems = [[p["line"], p["severity"], p["message"]] for p in result["problems"]]
    pack.tables.append(
        PackTable(
            "problems",
            f"{name}: its problems, by line.",
            [("line", "line of the file"), ("severity", "error or warning"), ("message", "what is wrong")],
            problems,
        )
    )
    timing = result["timing"]
    if timing is None:
        pack.notes.append(f"No timing, no replay: {result['why'].removeprefix('⚠ ')}")
        return pack
    pack.figures.append(
        PackFigure(
            "finish-times",
            f"{name}: every rank's finishing time (LogGP).",
            finish_figure(timing["finish"], timing["host"]),
            COLUMN_WIDTH,
            320,
        )
    )
    pack.tables.append(
        PackTable(
            "finish-times",
            f"{name}: LogGP timing (makespan {timing['makespan']} at host {timing['host']}).",
            [("rank", "the rank"), ("finish", "its finishing time (ns)")],
            [[r, f] for r, f in enumerate(timing["finish"])],
        )
    )
    try:
        _, timeline = replay_of(scenario, goal)
    except VizcollError as exc:
        pack.notes.append(f"No replay: {exc}")
        return pack
    topo, tl = topology_of(scenario), Timeline.from_dict(timeline)
    pack.figures.append(
        drawn(
            "replay-end",
            f"{name} replayed on the scenario's fabric, at its end.",
            cytoscape_elements(topo, pos=positions_of(scenario)),
            replay_stylesheet(topo, timeline, tl.n_steps),
        )
    )
    pack.tables.append(timeline_table("replay-messages", f"{name}: every message of the replay.", tl, topo.names))
    return pack
