"""Pure builder: a dash-cytoscape drawing (its elements and stylesheet) as a Plotly figure, for static exports.

The pages draw fabrics with dash-cytoscape, which cannot be rendered on the
server. :func:`drawing_figure` draws the same elements at the same positions
with the styles the stylesheet gives them, resolved as cytoscape.js does:
rules apply in order, a later rule overriding an earlier one
(:func:`resolve_styles`; selectors ``node``, ``edge``, ``.class``,
``.a.b``, ``node.class``, ``#id``, ``edge[link = 5]`` and comma lists; state selectors such as
``:selected`` match nothing, since nothing is selected in an export). The
stylesheet a page computes for a player's step therefore gives the frame of
that step.

What is drawn: nodes as markers (``ellipse`` circle, ``round-rectangle`` and
``rectangle`` square, ``diamond``, ``triangle``) with their fill, border
(ring) and label; edges as straight lines with their colour, width and dash,
or, where a rule gives them ``curve-style: unbundled-bezier`` and a
``control-point-distances`` (parallel cables each on its own curve, see
:func:`vizcoll.ui.figures.topology.cytoscape_elements`), as the same curve
cytoscape draws (:func:`edge_path`), in the order of their ``z-index``;
arrow heads where a rule sets one. Sizes
and widths scale as cytoscape's "fit" does (the drawing's bounding box fills
the plot area); labels that would be smaller than :data:`MIN_LABEL_PX` at that
scale are left out, as they would be unreadable.
"""

from __future__ import annotations

import re
from collections import defaultdict

import plotly.graph_objects as go

__all__ = ["resolve_styles", "drawing_figure", "fitted_height", "edge_path", "MIN_LABEL_PX"]

NODE_DEFAULTS = {
    "background-color": "#999999",
    "shape": "ellipse",
    "width": 30,
    "height": 30,
    "border-width": 0,
    "border-color": "#000000",
    "font-size": 16,
    "color": "#000000",
    "text-valign": "top",
}
EDGE_DEFAULTS = {"width": 3, "line-color": "#999999", "line-style": "solid", "z-index": 0}
SYMBOLS = {
    "ellipse": "circle",
    "round-rectangle": "square",
    "rectangle": "square",
    "diamond": "diamond",
    "triangle": "triangle-up",
}
DASHES = {"solid": "solid", "dashed": "dash", "dotted": "dot"}
VALIGN = {"top": "top", "center": "middle", "bottom": "bottom"}  # cytoscape's text-valign -> Plotly's
HALIGN = {"left": "left", "center": "center", "right": "right"}  # and its text-halign
MIN_LABEL_PX = 6
CURVE_POINTS = 13  # points along a curved edge
_CLASSES = re.compile(r"^(node|edge)?((?:\.[\w-]+)+)$")
_DATA = re.compile(r"^(node|edge)?\[\s*(\w+)\s*=\s*([\w.'\"-]+)\s*\]$")


def _group(element: dict) -> str:
    return "node" if "position" in element or "source" not in element.get("data", {}) else "edge"


def _targets(part: str, index: dict) -> set[str]:
    """Ids of the elements one simple selector matches."""
    part = part.strip()
    if part in ("node", "edge"):
        return index["group"][part]
    if part.startswith("#"):
        return {part[1:]} & index["all"]
    data = _DATA.match(part)
    if data is not None:  # edge[link = 5]: a data field equal to a number or a word
        group, key, value = data.groups()
        found = index["data"].get((key, value.strip("'\"")), set())
        return found & index["group"][group] if group else found
    match = _CLASSES.match(part)
    if match is None:
        return set()  # ":selected" and the like: nothing is in that state in an export
    group, classes = match.group(1), match.group(2)[1:].split(".")
    found = set.intersection(*(index["class"].get(c, set()) for c in classes))
    return found & index["group"][group] if group else found


def resolve_styles(elements: list[dict], stylesheet: list[dict]) -> dict[str, dict]:
    """Element id -> its style: the cytoscape defaults, then every matching rule in order (``data(key)``
    values read from the element's data)."""
    index = {"all": set(), "group": {"node": set(), "edge": set()}, "class": defaultdict(set), "data": defaultdict(set)}
    by_id = {}
    for element in elements:
        eid = str(element["data"]["id"])
        by_id[eid] = element
        index["all"].add(eid)
        index["group"][_group(element)].add(eid)
        for cls in str(element.get("classes") or "").split():
            index["class"][cls].add(eid)
        for key, value in element["data"].items():
            if isinstance(value, (int, str)) and not isinstance(value, bool):
                index["data"][(key, str(value))].add(eid)
    styles = {eid: dict(NODE_DEFAULTS if eid in index["group"]["node"] else EDGE_DEFAULTS) for eid in by_id}
    for rule in stylesheet:
        matched = set().union(*(_targets(part, index) for part in str(rule["selector"]).split(",")))
        for eid in matched:
            styles[eid].update(rule["style"])
    for eid, style in styles.items():
        for key, value in style.items():
            if isinstance(value, str) and value.startswith("data(") and value.endswith(")"):
                style[key] = str(by_id[eid]["data"].get(value[5:-1], ""))
    return styles


def _frame(nodes: list[dict], styles: dict, width: int, height: int, margin: dict) -> tuple[float, list, list]:
    """The scale of cytoscape's fit (px per model unit) and the axis ranges that centre the drawing."""
    xs = [n["position"]["x"] for n in nodes] or [0.0]
    ys = [-n["position"]["y"] for n in nodes] or [0.0]
    pad = max((max(float(styles[str(n["data"]["id"])]["width"]), 1.0) for n in nodes), default=30.0) + 20
    area_w = max(width - margin["l"] - margin["r"], 10)
    area_h = max(height - margin["t"] - margin["b"], 10)
    span_w, span_h = max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad
    scale = min(area_w / span_w, area_h / span_h)
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    half_w, half_h = area_w / scale / 2, area_h / scale / 2
    return scale, [cx - half_w, cx + half_w], [cy - half_h, cy + half_h]


def _colour(style: dict, key: str, opacity_key: str | None = None) -> str:
    if opacity_key and float(style.get(opacity_key, 1)) == 0:
        return "rgba(0,0,0,0)"
    return str(style[key])


def _radius(style: dict, scale: float) -> float:
    """A node's radius in px, its ring included."""
    return (float(style["width"]) + float(style["height"])) / 4 * scale + float(style["border-width"]) * scale / 2


def _number(value, default: float = 0.0) -> float:
    """A style value as a number (``"12.5"``, ``12.5``, ``"12.5px"``, or the first of a list ``"12 -12"``)."""
    text = str(value).split()[0].removesuffix("px") if str(value).strip() else ""
    try:
        return float(text)
    except ValueError:
        return default


def _control(source: tuple[float, float], target: tuple[float, float], style: dict) -> tuple[float, float] | None:
    """The control point of a curved edge (None: a straight one): for ``curve-style: unbundled-bezier``,
    ``control-point-distances`` from the point ``control-point-weights`` of the way along, on the normal
    ``(-dy, dx)`` of the edge's direction with y downwards (cytoscape's model coordinates), as cytoscape puts it."""
    bend = _number(style.get("control-point-distances", 0))
    (ax, ay), (bx, by) = source, target
    dx, dy = bx - ax, ay - by  # y downwards
    length = (dx * dx + dy * dy) ** 0.5
    if style.get("curve-style") != "unbundled-bezier" or bend == 0 or length == 0:
        return None
    w = _number(style.get("control-point-weights", 0.5), 0.5)
    return ax + w * (bx - ax) - dy / length * bend, ay + w * (by - ay) - dx / length * bend  # y upwards again


def edge_path(source: tuple[float, float], target: tuple[float, float], style: dict) -> list[tuple[float, float]]:
    """The points of an edge drawn from ``source`` to ``target`` (y upwards, as on the figure): the straight line,
    or the quadratic curve cytoscape draws through its control point (:func:`_control`)."""
    control = _control(source, target, style)
    if control is None:
        return [source, target]
    steps = [i / (CURVE_POINTS - 1) for i in range(CURVE_POINTS)]
    return [
        tuple(
            (1 - t) ** 2 * s + 2 * t * (1 - t) * c + t * t * e for s, c, e in zip(source, control, target, strict=True)
        )
        for t in steps
    ]


def _edge_traces(edges: list[dict], styles: dict, where: dict, scale: float) -> tuple[list, list]:
    """One line trace per (z-index, colour, width, dash), lowest z first (``meta`` = its edge ids), and the
    arrows as annotations (stopping at the border of the node they point at)."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    arrows = []
    for edge in edges:
        style = styles[str(edge["data"]["id"])]
        key = (
            float(style.get("z-index", 0)),
            str(style["line-color"]),
            max(float(style["width"]) * scale, 0.75),
            DASHES.get(style.get("line-style"), "solid"),
        )
        groups[key].append(edge)
        for end, (tail, head) in (("target", ("source", "target")), ("source", ("target", "source"))):
            if style.get(f"{end}-arrow-shape", "none") != "none":
                arrows.append((edge, tail, head, style.get(f"{end}-arrow-color", style["line-color"]), key[2]))
    traces = []
    for (_, colour, width, dash), members in sorted(groups.items(), key=lambda item: item[0][0]):
        x, y = [], []
        for edge in members:
            path = edge_path(
                where[edge["data"]["source"]], where[edge["data"]["target"]], styles[str(edge["data"]["id"])]
            )
            x += [p[0] for p in path] + [None]
            y += [p[1] for p in path] + [None]
        traces.append(
            go.Scatter(
                x=x,
                y=y,
                mode="lines",
                hoverinfo="skip",
                showlegend=False,
                meta=[str(e["data"]["id"]) for e in members],
                line={"color": colour, "width": width, "dash": dash},
            )
        )
    notes = [
        _arrow(edge, tail, head, colour, width, styles, where, scale) for edge, tail, head, colour, width in arrows
    ]
    return traces, notes


def _arrow(
    edge: dict, tail: str, head: str, colour: str, width: float, styles: dict, where: dict, scale: float
) -> dict:
    """An arrow head at the ``head`` end of ``edge`` (``"source"`` or ``"target"``), along the edge as it arrives
    there (from its control point on a curved edge), stopping at the border of the node."""
    start, end = where[edge["data"][tail]], where[edge["data"][head]]
    control = _control(where[edge["data"]["source"]], where[edge["data"]["target"]], styles[str(edge["data"]["id"])])
    start = control or start
    return {
        "x": end[0],
        "y": end[1],
        "ax": start[0],
        "ay": start[1],
        "xref": "x",
        "yref": "y",
        "axref": "x",
        "ayref": "y",
        "text": "",
        "showarrow": True,
        "arrowhead": 2,
        "arrowsize": 0.6,
        "arrowwidth": max(width, 1.0),
        "arrowcolor": colour,
        "standoff": _radius(styles[str(edge["data"][head])], scale),
    }


def _node_trace(nodes: list[dict], styles: dict, scale: float) -> go.Scatter:
    """Every node in one marker trace (``ids`` = the element ids), its label where it stays readable."""
    cols = defaultdict(list)
    for node in nodes:
        style = styles[str(node["data"]["id"])]
        size = (float(style["width"]) + float(style["height"])) / 2 * scale
        font = float(style["font-size"]) * scale
        label = str(style.get("label") or "")
        weight = style.get("font-weight") == "bold"
        cols["x"].append(node["position"]["x"])
        cols["y"].append(-node["position"]["y"])
        cols["symbol"].append(SYMBOLS.get(style["shape"], "circle"))
        cols["size"].append(max(size, 3.0))
        cols["fill"].append(_colour(style, "background-color", "background-opacity"))
        ring = float(style["border-width"]) * scale
        cols["ring"].append(_colour(style, "border-color") if ring > 0 else "rgba(0,0,0,0)")
        cols["ring_width"].append(max(ring, 1.0) if ring > 0 else 0)
        shown = label.replace("\n", "<br>") if font >= MIN_LABEL_PX else ""
        cols["text"].append(f"<b>{shown}</b>" if weight and shown else shown)
        vertical, horizontal = (
            VALIGN.get(style.get("text-valign"), "top"),
            HALIGN.get(style.get("text-halign"), "center"),
        )
        cols["position"].append(f"{vertical} {horizontal}")
        cols["font_size"].append(font)
        cols["font_colour"].append(str(style["color"]))
    return go.Scatter(
        x=cols["x"],
        y=cols["y"],
        ids=[str(n["data"]["id"]) for n in nodes],
        mode="markers+text",
        text=cols["text"],
        textposition=cols["position"],
        hoverinfo="skip",
        showlegend=False,
        textfont={"size": cols["font_size"], "color": cols["font_colour"]},
        marker={
            "symbol": cols["symbol"],
            "size": cols["size"],
            "color": cols["fill"],
            "opacity": 1,
            "line": {"color": cols["ring"], "width": cols["ring_width"]},
        },
    )


def drawing_figure(
    elements: list[dict], stylesheet: list[dict], width: int, height: int, margin: dict | None = None
) -> go.Figure:
    """The cytoscape drawing ``elements`` styled by ``stylesheet``, fitted into ``width`` x ``height`` px
    (``margin``: the space kept free around the plot area for a title and a caption)."""
    margin = {"l": 10, "r": 10, "t": 40, "b": 40} | (margin or {})
    styles = resolve_styles(elements, stylesheet)
    nodes = [e for e in elements if _group(e) == "node"]
    edges = [e for e in elements if _group(e) == "edge"]
    scale, x_range, y_range = _frame(nodes, styles, width, height, margin)
    where = {str(n["data"]["id"]): (n["position"]["x"], -n["position"]["y"]) for n in nodes}
    edges = [e for e in edges if e["data"]["source"] in where and e["data"]["target"] in where]
    lines, arrows = _edge_traces(edges, styles, where, scale)
    fig = go.Figure([*lines, _node_trace(nodes, styles, scale)])
    return fig.update_layout(
        width=width,
        height=height,
        margin=margin,
        plot_bgcolor="white",
        paper_bgcolor="white",
        annotations=arrows,
        xaxis={"visible": False, "range": x_range},
        yaxis={"visible": False, "range": y_range},
        showlegend=False,
    )


def fitted_height(elements: list[dict], width: int, low: int = 240, high: int = 900) -> int:
    """The height (px, within ``low..high``) at which the drawing ``elements`` fills ``width`` px."""
    xs = [e["position"]["x"] for e in elements if "position" in e] or [0.0]
    ys = [e["position"]["y"] for e in elements if "position" in e] or [0.0]
    span_w, span_h = max(xs) - min(xs) + 60, max(ys) - min(ys) + 60
    return int(min(max(width * span_h / span_w + 60, low), high))
