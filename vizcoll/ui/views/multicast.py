"""Pure views of the multicast page: the fabric's line, the choices, the summary table and sentences."""

from __future__ import annotations

from dash import html

from vizcoll.multicast.loads import switch_groups, worst_rows
from vizcoll.multicast.routing import MulticastResult
from vizcoll.scenario import Scenario
from vizcoll.topology.model import Topology
from vizcoll.ui.figures.topology import SMALL_LIMIT
from vizcoll.ui.models.multicast import MAX_GROUP_OPTIONS, OVERVIEW, WHOLE

__all__ = ["fabric_line", "group_options", "part_options", "summary_table", "unroutable_line", "worst_links",
           "group_info"]


def _names(topo: Topology, nodes, limit: int = 6) -> str:
    nodes = list(nodes)
    return ", ".join(topo.names[n] for n in nodes[:limit]) + (", …" if len(nodes) > limit else "")


def fabric_line(scenario: Scenario, topo: Topology, groups) -> str:
    s = topo.summary()
    text = (f"The scenario's fabric: {scenario.title} ({s['switches']:,} switches, {s['endpoints']:,} end nodes, "
            f"{s['links']:,} links, {s['broken_links']:,} broken).")
    if groups is not None:
        text += f" {len(groups):,} communicator{'s' * (len(groups) != 1)} → one multicast group each."
    return text


def group_options(topo: Topology, groups) -> list[dict]:
    return [{"label": f"group {i}: {len(g)} member{'s' * (len(g) != 1)} ({_names(topo, g, 3)})", "value": i}
            for i, g in enumerate((groups or [])[:MAX_GROUP_OPTIONS])]


def part_options(topo: Topology) -> list[dict]:
    options = [{"label": "overview by group", "value": OVERVIEW}]
    if topo.n_nodes <= SMALL_LIMIT:
        options.insert(0, {"label": "whole fabric", "value": WHOLE})
    return options + [{"label": f"group {g}", "value": f"group:{g}"} for g in switch_groups(topo)]


def summary_table(params: dict, results: dict[str, MulticastResult]) -> html.Table:
    rows = [("max EFI", "max_efi"), ("mean EFI (used links)", "mean_efi"), ("max tree height", "max_height"),
            ("groups", "groups"), ("unroutable groups", "unroutable"), ("routing time (s)", "runtime_s")]
    summaries = {name: r.summary() for name, r in results.items()}
    head = html.Tr([html.Th("")] + [html.Th(f"{name.upper()}: {params[name]}") for name in results])
    body = [html.Tr([html.Td(label)] + [html.Td(f"{summaries[n][key]:,}") for n in results]) for label, key in rows]
    return html.Table(className="summary", children=[html.Thead(head), html.Tbody(body)])


def unroutable_line(topo: Topology, groups, results: dict[str, MulticastResult], limit: int = 6) -> str:
    """The groups no algorithm could route (members cut apart by the broken links), by name."""
    lost = sorted({g for r in results.values() for g in r.unroutable})
    if not lost:
        return ""
    named = "; ".join(f"group {g} ({_names(topo, groups[g], 4) or 'no members'})" for g in lost[:limit])
    more = f"; and {len(lost) - limit} more" if len(lost) > limit else ""
    one = len(lost) == 1
    return (f"⚠ {len(lost)} group{'' if one else 's'} cannot be routed: {'its' if one else 'their'} members cannot "
            f"all reach one switch over the live links — {named}{more}. Repair a link (badge above) to route "
            f"{'it' if one else 'them'}.")


def worst_links(topo: Topology, result: MulticastResult, name: str, count: int = 5) -> str:
    parts = [f"{topo.link_label(r)} (link {int(topo.link_id[r])}): EFI {int(result.efi[r])}"
             for r in worst_rows(result, count).tolist()]
    return f"Worst links under {name} ({result.algo}): " + "; ".join(parts) if parts else ""


def group_info(topo: Topology, groups, params: dict, results: dict[str, MulticastResult]) -> str:
    """The highlighted group's members and trees; without one, the first groups by name."""
    group = params["group"]
    if group is None:
        shown = "; ".join(f"{i}: {_names(topo, g, 4)}" for i, g in enumerate(groups[:6]))
        more = f"; … ({len(groups):,} groups)" if len(groups) > 6 else ""
        return f"Groups — {shown}{more}. Choose one above to highlight its tree and replay its join/leave."
    described = []
    for name, result in results.items():
        tree = result.trees[group]
        described.append(f"{name.upper()} {result.algo}: unroutable" if tree is None else
                         f"{name.upper()} {result.algo}: root {topo.names[tree.root]}, height {tree.height}, "
                         f"{len(tree.links)} links")
    members = groups[group]
    return (f"Group {group} ({len(members)} member{'s' * (len(members) != 1)}: {_names(topo, members, 8)}) — "
            + "; ".join(described))
