"""Links and nodes by name: a table of the fabric's links found by their ends' names, each with a Break/Repair
button, so that a keyboard (or a screen reader) breaks and repairs what a mouse clicks on the drawing, and a table of
the nodes named so (their kind, links and broken links) (issue 46).

``link_list(prefix)`` is a folded panel of a page: a search box (``<prefix>-links-find``), the table
(``<prefix>-links-table``, at most :data:`SHOWN` rows; :func:`vizcoll.topology.listing.find_links` finds them) and
the page's message box (``<prefix>-links-message``). A row's button toggles its link in the shared scenario, as a
click on the drawing does, so every page follows. ``register_link_list(app, prefix)`` wires it.
"""

from __future__ import annotations

from dash import ALL, Dash, Input, Output, State, ctx, dcc, html

from vizcoll.errors import VizcollError
from vizcoll.topology.listing import MAX_QUERY, find_links, find_nodes
from vizcoll.ui.callbacks import by_name
from vizcoll.ui.components.kit import field, info, message_box, section
from vizcoll.ui.store import SCENARIO, checked, store_output, topology_of
from vizcoll.words import plural

__all__ = ["SHOWN", "NODES", "link_list", "link_table", "node_table", "register_link_list"]

SHOWN = 30  # rows of the links' table: type a name to find a link further down
NODES = 10  # rows of the nodes' table
MAX_LABEL = 1000  # characters of a link's label the browser may send back


def _ids(prefix: str) -> tuple[str, str, str, str]:
    return f"{prefix}-links-find", f"{prefix}-links-table", f"{prefix}-links-message", f"{prefix}-link"


def link_list(prefix: str, open: bool = False) -> html.Details:  # noqa: A002
    """The folded panel "Links and nodes by name" of page ``prefix``."""
    find, table, message, _ = _ids(prefix)
    return section(
        "Links and nodes by name",
        info(
            "Find a link by the names of its ends (e.g. leaf3 spine1), then break or repair it: as a click on it. "
            "The nodes named so are listed below it."
        ),
        field(
            "find",
            dcc.Input(id=find, type="search", debounce=True, maxLength=MAX_QUERY, placeholder="a node's name"),
        ),
        html.Div(id=table, className="link-table"),
        message_box(message),
        open=open,
        id=f"{prefix}-links",
    )


def link_table(found: dict, toggle: str) -> html.Table | html.P:
    """The table of :func:`find_links`'s answer ``found``; each row's button has the id ``{"type": toggle,
    "link": label}``."""
    if not found["links"]:
        return html.P(f"No link has an end named like {found['query']!r}." if found["query"] else "No link.")
    shown, total = len(found["links"]), found["total"]
    rows = [
        html.Tr(
            [
                html.Th(link["label"], scope="row"),
                html.Td("broken" if link["broken"] else "intact", className="broken" if link["broken"] else ""),
                html.Td(
                    html.Button(
                        "Repair" if link["broken"] else "Break",
                        id={"type": toggle, "link": link["label"]},
                        n_clicks=0,
                        **{"aria-label": f"{'Repair' if link['broken'] else 'Break'} {link['label']}"},
                    )
                ),
            ]
        )
        for link in found["links"]
    ]
    caption = plural(total, "link") if shown == total else f"{shown} of {total:,} links: type a name to find others"
    head = html.Tr([html.Th("link", scope="col"), html.Th("state", scope="col"), html.Th("", scope="col")])
    return html.Table([html.Caption(caption), html.Thead(head), html.Tbody(rows)])


def node_table(found: dict) -> html.Table | html.P:
    """The table of :func:`find_nodes`'s answer ``found``: each node's name, kind, links and broken links."""
    if not found["nodes"]:
        return html.P(f"No node is named like {found['query']!r}." if found["query"] else "No node.")
    shown, total = len(found["nodes"]), found["total"]
    rows = [
        html.Tr([html.Th(n["name"], scope="row"), html.Td(n["kind"]), html.Td(n["links"]), html.Td(n["broken"])])
        for n in found["nodes"]
    ]
    caption = plural(total, "node") if shown == total else f"{shown} of {total:,} nodes"
    head = html.Tr([html.Th(c, scope="col") for c in ("node", "kind", "links", "broken")])
    return html.Table([html.Caption(caption), html.Thead(head), html.Tbody(rows)])


def listed(query, data, toggle: str) -> list:
    """The links' and the nodes' tables for the search box's ``query`` on the scenario ``data`` (a message instead
    when it cannot be read)."""
    scenario, message = checked(data)
    if scenario is None:
        return [html.P(message)]
    query = query if isinstance(query, str) else ""
    try:
        topo = topology_of(scenario)
        return [link_table(find_links(topo, query, SHOWN), toggle), node_table(find_nodes(topo, query, NODES))]
    except VizcollError as exc:
        return [html.P(f"⚠ {exc}")]


def toggled(clicks, scenario) -> dict:
    """The ``store`` with the link of the button pressed broken or repaired, and a ``message``."""
    link = ctx.triggered_id.get("link") if isinstance(ctx.triggered_id, dict) else None
    pressed = bool(ctx.triggered) and isinstance(ctx.triggered[0].get("value"), int) and ctx.triggered[0]["value"] > 0
    if not pressed or not isinstance(link, str) or not link or len(link) > MAX_LABEL:
        return {}
    read, message = checked(scenario)
    if read is None:
        return {"message": message}
    try:
        after = read.toggled(link)
    except VizcollError as exc:
        return {"message": f"⚠ {exc}"}
    return {"store": after.to_dict(thin=True), "message": ""}


def register_link_list(app: Dash, prefix: str) -> None:
    """The callbacks of :func:`link_list` ``prefix``."""
    find, table, message, toggle = _ids(prefix)
    app.callback(  # only while the panel is open: a page's first view computes nothing for it
        Output(table, "children"),
        Input(f"{prefix}-links", "open"),
        Input(find, "value"),
        Input(SCENARIO, "data"),
    )(lambda shown, query, data: listed(query, data, toggle) if shown is True else [])
    pressed = {"clicks": Input({"type": toggle, "link": ALL}, "n_clicks"), "scenario": State(SCENARIO, "data")}
    outputs = {"store": store_output(), "message": Output(message, "children")}
    by_name(app, outputs, pressed, prevent_initial_call=True)(toggled)
