"""Pure views of the multicast page: the fabric's line, the choices, the summary table and sentences."""

from __future__ import annotations

import numpy as np
from dash import dcc, html

from vizcoll.multicast.algorithms import REGISTRY
from vizcoll.multicast.loads import worst_rows
from vizcoll.multicast.routing import MulticastResult
from vizcoll.scenario import MAX_TABLES_CHARS, Scenario
from vizcoll.topology.analysis import apart_by, part_labels
from vizcoll.topology.model import ENDPOINT, Topology
from vizcoll.ui.components.tables import table
from vizcoll.ui.pages.multicast._model import MAX_GROUP_OPTIONS, TABLES, TABLES_TITLE, LoadedTables
from vizcoll.words import plural

__all__ = [
    "fabric_line",
    "algo_options",
    "tables_line",
    "TABLES_HINT",
    "TABLES_ABOUT",
    "group_options",
    "summary_table",
    "verdict",
    "unroutable_line",
    "worst_links",
    "group_info",
]

TABLES_LABEL = "the fabric's tables (OpenSM)"
TABLES_HINT = f"OpenSM's dump of its multicast forwarding tables, at most {MAX_TABLES_CHARS >> 20} MB"
TABLES_ABOUT = (
    "The tables are read against the scenario's fabric (its switch GUIDs and ports): their groups, one per "
    "MLID, replace the communicators; algorithm A shows the tables as the fabric has them, B routes the "
    "same groups. They travel with the scenario (share link, file)."
)


def _names(topo: Topology, nodes, limit: int = 6) -> str:
    nodes = list(nodes)
    return ", ".join(topo.names[n] for n in nodes[:limit]) + (", …" if len(nodes) > limit else "")


def fabric_line(scenario: Scenario, topo: Topology, groups) -> str:
    s = topo.summary()
    text = (
        f"The scenario's fabric: {scenario.title} ({plural(s['switches'], 'switch')}, "
        f"{plural(s['endpoints'], 'end node')}, {plural(s['links'], 'link')}, {s['broken_links']:,} broken)."
    )
    if groups is not None and scenario.mcast_tables is not None:
        text += (
            f" {plural(len(groups), 'multicast group')} from the fabric's tables (the "
            "communicators are not used until the tables are forgotten)."
        )
    elif groups is not None:
        text += f" {plural(len(groups), 'communicator')} → one multicast group each."
    return text


def algo_options(tables: bool, b: bool = False) -> list[dict]:
    """The registered algorithms for A (with the fabric's tables when the scenario carries them) or B."""
    extra = [{"label": TABLES_LABEL, "value": TABLES}] if tables and not b else []
    return extra + [{"label": name, "value": name} for name in REGISTRY]


def tables_line(loaded: LoadedTables | None) -> str:
    """What the scenario's tables are (under the upload box)."""
    if loaded is None:
        return "No tables loaded: the groups are the scenario's communicators."
    if loaded.error:
        return "The loaded tables do not fit this fabric (see the message under the summary)."
    lids = loaded.mlids
    span = f"MLID 0x{lids[0]:04X}" + (f"–0x{lids[-1]:04X}" if len(lids) > 1 else "")
    efi = loaded.result.summary()["max_efi"] if loaded.result is not None else 0
    return (
        f"Loaded: {plural(len(lids), 'group')} ({span}), max EFI {efi} on the fabric's tables"
        + (f"; {plural(len(loaded.warnings), 'warning')} under the summary" if loaded.warnings else "")
        + "."
    )


def group_options(topo: Topology, groups, mlids: list[int] | None = None) -> list[dict]:
    """One option per group (with its MLID when the groups are the fabric's tables')."""

    def name(i: int) -> str:
        return f"group {i}" + (f" (MLID 0x{mlids[i]:04X})" if mlids and i < len(mlids) else "")

    return [
        {"label": f"{name(i)}: {plural(len(g), 'member')} ({_names(topo, g, 3)})", "value": i}
        for i, g in enumerate((groups or [])[:MAX_GROUP_OPTIONS])
    ]


def summary_table(params: dict, results: dict[str, MulticastResult]) -> dcc.Markdown:
    """The figures of A and B side by side (the tables have no routing time)."""
    rows = [
        ("max EFI", "max_efi"),
        ("mean EFI (used links)", "mean_efi"),
        ("max tree height", "max_height"),
        ("groups", "groups"),
        ("unroutable groups", "unroutable"),
        ("routing time (s)", "runtime_s"),
    ]
    summaries = {name: r.summary() for name, r in results.items()}

    def cell(name: str, key: str) -> str:
        return "—" if key == "runtime_s" and params[name] == TABLES else f"{summaries[name][key]:,}"

    head = ["", *(f"{name.upper()}: {r.algo}" for name, r in results.items())]
    return table(head, [[label, *(cell(n, key) for n in results)] for label, key in rows])


def verdict(a: MulticastResult, b: MulticastResult) -> html.P:
    """One sentence under the summary: does B put as many groups on every link as A (the fabric's tables)?"""
    sa, sb = a.summary(), b.summary()
    if np.array_equal(a.efi, b.efi):
        text = (
            f"Same EFI on every link: B ({b.algo}) puts exactly as many groups on each link as A ({a.algo}), "
            f"max EFI {sa['max_efi']}."
        )
    else:
        moved = int(np.count_nonzero(a.efi != b.efi))
        used = int(np.count_nonzero((a.efi > 0) | (b.efi > 0)))
        how = "lower" if sb["max_efi"] < sa["max_efi"] else "higher" if sb["max_efi"] > sa["max_efi"] else "the same"
        text = (
            f"B ({b.algo}) loads {moved:,} of the {plural(used, 'link')} in use differently from A ({a.algo}): "
            f"max EFI {sa['max_efi']} → {sb['max_efi']} ({how}), mean EFI {sa['mean_efi']:g} → {sb['mean_efi']:g}. "
            "The difference B − A below shows where."
        )
    return html.P(text, className="info verdict", style={"maxWidth": "46em", "fontWeight": 600})


def unroutable_line(topo: Topology, groups, results: dict[str, MulticastResult], limit: int = 6) -> str:
    """The groups no algorithm could route, by name, and why: the fabric has no end node, the file leaves their
    members in several parts, or the broken links cut them apart (only then: repair a link)."""
    lost = sorted({g for r in results.values() for g in r.unroutable})
    if not lost:
        return ""
    if not (topo.kind == ENDPOINT).any():
        return (
            f"⚠ No group can be routed: the fabric has no end nodes (all {plural(topo.n_nodes, 'node')} are "
            "switches), so its groups have no members. Load a fabric with end nodes, or add some (Edit)."
        )
    named = "; ".join(f"group {g} ({_names(topo, groups[g], 4) or 'no members'})" for g in lost[:limit])
    more = f"; and {len(lost) - limit:,} more" if len(lost) > limit else ""
    one = len(lost) == 1
    causes = set(apart_by(topo, [groups[g] for g in lost]))
    why = ["a group with no members has nothing to route"] if any(len(groups[g]) == 0 for g in lost) else []
    if "file" in causes:
        why.append(f"the fabric as loaded is in {plural(part_labels(topo)[0], 'part')}")
    if "breaks" in causes:
        why.append(f"the broken links cut {'its' if one else 'their'} members apart: repair a link (badge above)")
    return (
        f"⚠ {plural(len(lost), 'group')} cannot be routed: {'its' if one else 'their'} members cannot "
        f"all reach one switch over the live links — {named}{more}. Why: {'; '.join(why)}."
    )


def worst_links(topo: Topology, result: MulticastResult, name: str, count: int = 5) -> str:
    parts = [
        f"{topo.link_label(r)} (link {int(topo.link_id[r])}): EFI {int(result.efi[r])}"
        for r in worst_rows(result, count).tolist()
    ]
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
        root = "centre" if result.algo == TABLES_TITLE else "root"  # the dump names no root
        described.append(
            f"{name.upper()} {result.algo}: unroutable"
            if tree is None
            else f"{name.upper()} {result.algo}: {root} {topo.names[tree.root]}, height {tree.height}, "
            f"{plural(len(tree.links), 'link')}"
        )
    members = groups[group]
    return f"Group {group} ({plural(len(members), 'member')}: {_names(topo, members, 8)}) — " + "; ".join(described)
