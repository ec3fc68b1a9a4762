"""/multicast side by side: algorithms A and B routing the scenario's groups one by one, on one clock.

The routes are static, so what plays is their build-up (:func:`vizcoll.multicast.buildup.efi_buildup`): step
``g`` adds group ``g``'s tree under A on the left and under B on the right, each link coloured by its EFI so far on
one colour scale (the larger of the two final maxima), the group's tree drawn thick; the two part at the first
group that raises one algorithm's largest EFI and not the other's (on the teaching preset: MINIHOP-MC-new's
largest EFI 3 → 4 at the 20th group, while FULB-MC stays at 3). The join/leave protocol, the page's other player,
does not depend on the routing (the subnet manager answers every join the same way), so it is not compared.

Drawn link by link, on fabrics of up to :data:`~vizcoll.ui.limits.DRAWN_NODES` nodes.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from vizcoll.errors import VizcollError
from vizcoll.multicast.buildup import efi_at, efi_buildup
from vizcoll.scenario import Scenario
from vizcoll.sim.lockstep import Lockstep, lockstep
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.model import Topology
from vizcoll.ui.figures.efi import link_value_figure
from vizcoll.ui.figures.style import ColourScale
from vizcoll.ui.limits import DRAWN_NODES
from vizcoll.ui.pages.multicast._model import page_state, routed

__all__ = ["compared_routings", "buildup_figure"]


def compared_routings(scenario: Scenario) -> tuple[Lockstep, list[Timeline], int]:
    """(the side-by-side build-up, A's and B's build-up timelines, the largest EFI of both) of the scenario's
    groups; VizcollError when there is nothing to route or the fabric is too large to draw link by link."""
    topo, groups, p, _ = page_state(scenario)
    if not groups:
        raise VizcollError("the scenario has no multicast group to route (define communicators on Topology)")
    if topo.n_nodes > DRAWN_NODES:
        raise VizcollError(
            f"side by side draws the fabric link by link, on up to {DRAWN_NODES:,} nodes; this one has "
            f"{topo.n_nodes:,}: compare A and B in the views above"
        )
    results = [routed(scenario, p[which]) for which in ("a", "b")]
    timelines = [efi_buildup(topo, result, p[which]) for result, which in zip(results, "ab", strict=True)]
    top = max(int(result.efi.max(initial=0)) for result in results)
    return lockstep(*timelines, (f"A: {p['a']}", f"B: {p['b']}")), timelines, top


def buildup_figure(topo: Topology, tl: Timeline, step: int, top: int) -> go.Figure:
    """Each link's EFI after ``step`` of a build-up on the colour scale ``0..top``, this step's tree thick."""
    row = {lid: r for r, lid in enumerate(topo.link_id.tolist())}
    tree = [row[lid] for e in (tl.active_at(step) if step >= 0 else []) for lid in e.path_links if lid in row]
    scale = ColourScale(top=top)
    return link_value_figure(topo, efi_at(topo, tl, step), "", scale=scale, highlight=np.array(tree, dtype=np.int64))
