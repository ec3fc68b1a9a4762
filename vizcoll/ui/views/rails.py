"""The rails panels of /trees (``trees-rails``) and /multicast (``mc-rails``): what rails change, one row a placement.

Each page's callback hands its checked inputs to :func:`trees_panel` or :func:`groups_panel`;
the numbers come from :mod:`vizcoll.ui.models.rails`. On a fabric without rails the panel is empty. A panel is a
callback of its own, computed in the request and cached: on a large fabric it shows while the page's other views
are a background job (/trees' ``heavy(plan)``, /multicast's routes), its engine call taking well under a second
at 65,536 processes (the measurements are in :mod:`vizcoll.ui.models.rails`).
"""

from __future__ import annotations

from dash import dcc, html

from vizcoll.errors import VizcollError
from vizcoll.scenario import WORLD, Scenario
from vizcoll.ui.components.tables import table
from vizcoll.ui.models.rails import LISTS, NONE, OWN, TABLES, groups_rails, trees_rails
from vizcoll.ui.store import checked
from vizcoll.words import plural

__all__ = ["PLACEMENT_TEXT", "fabric_text", "trees_table", "groups_table", "trees_panel", "groups_panel"]

PLACEMENT_TEXT = {
    "rail-aware": "the scenario's: a server's GPUs on consecutive ranks",
    "naive": "rail-major: ranks fill rail 0 first, then rail 1, …",
    OWN: "the scenario's",
}
WHY = {
    LISTS: "The communicators were drawn by hand or loaded from a file: they fix each process's NIC, so there is "
    "no other placement of them to compare; the counts are those of the scenario's own.",
    TABLES: "The groups are the fabric's multicast tables: their members are fixed, so there is no other "
    "placement to compare; the counts are those of the tables' groups.",
    NONE: "The scenario has no communicators: its one group is IPoIB's broadcast group of every end node. Define "
    "communicators with a pattern (Topology page) to compare a rail-aware and a naive placement.",
}


def fabric_text(out: dict) -> str:
    """The rail fabric in one line: rails, servers, the links between the rails."""
    links = (
        f"{plural(out['cross_links'], 'link')} between rails"
        if out["cross_links"]
        else "no link between rails (they meet only inside the servers, over NVLink)"
    )
    return f"Rail fabric: {plural(out['rails'], 'rail')}, {plural(out['servers'], 'server')}, {links}."


def _table(head: list[str], out: dict, cells) -> dcc.Markdown:
    placements = out["placements"]
    rows = [[name, PLACEMENT_TEXT[name], *[f"{c:,}" for c in cells(row)]] for name, row in placements.items()]
    return table(
        head, rows, chosen=[i for i, name in enumerate(placements) if name != "naive"], className="summary rails"
    )


def trees_table(out: dict) -> dcc.Markdown:
    """One row a placement: tree edges, those crossing rails, of which within a server and between servers."""
    head = [
        "placement",
        "ranks placed",
        "tree edges",
        "crossing rails",
        "within a server (NVLink)",
        "between servers (rail to rail)",
    ]
    return _table(head, out, lambda r: (r["edges"], r["cross_rail"], r["within_server"], r["between_servers"]))


def groups_table(out: dict) -> dcc.Markdown:
    """One row a placement: the groups, those spanning more than one rail, the most rails one spans."""
    head = ["placement", "ranks placed", "groups", "spanning more than one rail", "most rails a group spans"]
    return _table(head, out, lambda r: (r["groups"], r["cross_rail"], r["max_rails"]))


def _what(plan: dict, tree: str, out: dict, pattern: str) -> str:
    tree = f"{tree} tree"
    if plan["comm"] == WORLD:
        whom = f"every process of the scenario ({plural(plan['nprocs'], 'rank')})"
    else:
        whom = f"communicator {plan['comm']} ({plural(plan['nprocs'], 'rank')})"
    if not out["compared"]:
        return f"The page's {tree} over {whom}."
    how = (
        f"the pattern {pattern} placed each way, its communicator {plan['comm']} taken from each"
        if plan["comm"] != WORLD
        else f"the pattern {pattern} placed each way"
        if pattern
        else "placed each way"
    )
    return f"The page's {tree} over {whom}, {how}:"


NETWORK = {  # what the links between rails (cross=1) do, or their absence: (trees, groups) x (with, without)
    ("trees", True): "The links between rails carry the edges between servers on different rails.",
    ("trees", False): "Without links between rails the network has no route for an edge between servers on "
    "different rails (the min-hop table says unreachable): such an edge is cut off.",
    ("groups", True): "A group spanning rails is one multicast tree through the links between rails.",
    ("groups", False): "Without links between rails a group spanning rails cannot be one multicast tree: its "
    "members on different rails cannot all reach one switch (the page lists it as unroutable).",
}


def _notes(page: str, out: dict) -> str:
    return " ".join([NETWORK[page, out["cross_links"] > 0], *([WHY[out["why"]]] if out["why"] else [])])


def trees_panel(plan: dict, tree: str, scenario: Scenario):
    """The /trees panel of ``scenario``'s ``plan`` (its tree named ``tree``): the fabric's rails and the chosen
    tree's edges crossing rails under each placement; empty without rails, a message when it cannot be
    computed."""
    try:
        out = trees_rails(scenario, plan["comm"], plan["kind"], plan["k"])
    except VizcollError as exc:
        return html.P(f"⚠ Rails: {exc}", className="message")
    if out is None:
        return None
    return html.Div(
        className="panel rails",
        children=[
            html.H3("What rails change"),
            html.P(fabric_text(out), className="info"),
            html.P(_what(plan, tree, out, scenario.pattern), className="info"),
            trees_table(out),
            html.P(_notes("trees", out), className="info"),
        ],
    )


def groups_panel(data, groups):
    """The /multicast panel on the store ``data`` (``groups``: the page's groups of a scenario): the fabric's rails
    and the groups spanning rails under each placement; empty without rails, a message when the groups do not fit
    the fabric."""
    scenario, _ = checked(data)
    if scenario is None:
        return None
    try:
        out = groups_rails(scenario, groups)
    except VizcollError as exc:
        return html.P(f"⚠ Rails: {exc}", className="message")
    if out is None:
        return None
    what = (
        f"The groups of the pattern {scenario.pattern}, placed each way:"
        if out["compared"]
        else "The groups the page routes:"
    )
    return html.Div(
        className="panel rails",
        children=[
            html.H3("What rails change"),
            html.P(fabric_text(out), className="info"),
            html.P(what, className="info"),
            groups_table(out),
            html.P(_notes("groups", out), className="info"),
        ],
    )
