"""/multicast: its figure pack and player (the groups' routes, EFI and the join/leave protocol).

Registered in :mod:`vizcoll.ui.export.names`. The page's own builders on the page's cached model calls for the
scenario as the page opens, tables from the engine's results; :mod:`vizcoll.ui.export.packs` writes the ZIP,
:mod:`vizcoll.ui.export.animation` the GIF/MP4.
"""

from __future__ import annotations

import numpy as np

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.ui.components.player import timeline_at
from vizcoll.ui.export.animation import Animation
from vizcoll.ui.export.animations import side_by_side_animation
from vizcoll.ui.export.packs import Pack, PackFigure, PackTable, link_table, timeline_table
from vizcoll.ui.figures.paper import COLUMN_WIDTH
from vizcoll.ui.figures.timeline import process_diagram
from vizcoll.ui.models.parts import natural_part, view_of
from vizcoll.ui.pages.multicast._figures import route_figures
from vizcoll.ui.pages.multicast._model import PAGE, groups_of, page_state, protocol_timeline, read_group, routed
from vizcoll.ui.pages.multicast._sides import buildup_figure, compared_routings

__all__ = ["multicast_pack", "multicast_animation", "highlighted"]


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


def multicast_animation(scenario: Scenario, extra=None) -> Animation:
    """/multicast: the join/leave protocol of the highlighted group under algorithm B."""
    timeline = protocol_timeline(scenario)
    if timeline is None:
        raise VizcollError("highlight a group on the multicast page: its join/leave protocol is the animation")
    tl = Timeline.from_dict(timeline)
    return Animation(
        "vizcoll-multicast-protocol",
        tl.title,
        tl,
        lambda position, width, height: process_diagram(*timeline_at(timeline, position)),
    )


def highlighted(scenario: Scenario, group: int) -> Scenario:
    """The scenario with multicast group ``group`` highlighted, as the page's group control sets it (checked: the
    scenario has it)."""
    read_group(group, len(groups_of(scenario) or []))
    return scenario.with_params(PAGE, {**scenario.params.get(PAGE, {}), "group": group})


def multicast_side_by_side(scenario: Scenario, extra=None) -> Animation:
    """/multicast's side-by-side player: A's and B's routes built up group by group, one clock, both drawings in
    each frame on one colour scale."""
    ls, timelines, top = compared_routings(scenario)
    topo = page_state(scenario)[0]
    return side_by_side_animation(
        "vizcoll-multicast-side-by-side",
        ls,
        [lambda position, width, height, tl=tl: buildup_figure(topo, tl, position - 1, top) for tl in timelines],
    )
