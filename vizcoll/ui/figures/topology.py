"""Pure builders: topology (and a player state) -> cytoscape elements / stylesheet or a Plotly figure.

Small fabrics are drawn node by node with dash-cytoscape (preset positions from
:mod:`vizcoll.topology.layout`); fabrics above :data:`SMALL_LIMIT` nodes get a
WebGL Plotly figure of the switches only, each sized by the end nodes it
serves, so the page stays responsive at tens of thousands of nodes.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from scipy.spatial import cKDTree

from vizcoll.topology.layout import positions
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology
from vizcoll.ui.figures.style import FULL, styled
from vizcoll.ui.limits import DRAWN_NODES

__all__ = ["SMALL_LIMIT", "PALETTE", "captions", "cytoscape_elements", "base_stylesheet", "state_stylesheet",
           "large_figure"]

SMALL_LIMIT = DRAWN_NODES  # the reason: vizcoll.ui.limits
# communicator fills: no orange, green, red or gold, which the player uses for packets and states
PALETTE = ["#1f77b4", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#aec7e8", "#c5b0d5",
           "#c49c94", "#f7b6d2", "#9edae5", "#dbdb8d", "#006d77", "#3d405b", "#b5838d", "#6d6875"]
STATE_COLOURS = {"root": "#f5b800", "received": "#2ca02c", "forwarding": "#2ca02c", "done": "#2ca02c",
                 "unreachable": "#d62728"}
BROKEN = "#d62728"


def _pixel_positions(topo: Topology) -> np.ndarray:
    """Layout positions scaled so that neighboring nodes are about 45 px apart (y downwards)."""
    pos = positions(topo)
    if len(pos) > 1:
        dist, _ = cKDTree(pos).query(pos, k=2)
        nearest = np.median(dist[:, 1]) or 1.0
        pos = pos * (45.0 / nearest)
    return pos * np.array([1.0, -1.0])


CAPTION_CHARS = 24


def captions(topo: Topology) -> list[str]:
    """What a drawing writes under each node: its description when the file gave one (ibnetdiscover's
    ``stage114 mlx4_0`` rather than ``H-0002c903003421b0``), else its name; cut to :data:`CAPTION_CHARS`."""
    descs = topo.desc or [""] * topo.n_nodes
    out = []
    for name, desc in zip(topo.names, descs, strict=True):
        text = (desc or "").strip() or name
        out.append(text if len(text) <= CAPTION_CHARS else text[:CAPTION_CHARS - 1] + "…")
    return out


def cytoscape_elements(topo: Topology, colour_of: dict[int, int] | None = None) -> list[dict]:
    """Nodes ``n<index>`` (``data.label`` = the node's name, ``data.caption`` = what is written under it, see
    :func:`captions`) and edges ``l<link id>`` (``data.name`` = the link's ``a[pa]-b[pb]`` label);
    ``colour_of`` maps node -> communicator."""
    pos = _pixel_positions(topo)
    colour_of = colour_of or {}
    nodes = []
    for i, (name, caption) in enumerate(zip(topo.names, captions(topo), strict=True)):
        classes = "switch" if topo.kind[i] == SWITCH else "endpoint"
        if i in colour_of:
            classes += f" comm{colour_of[i] % len(PALETTE)}"
        nodes.append({"data": {"id": f"n{i}", "label": name, "caption": caption}, "classes": classes,
                      "position": {"x": float(pos[i, 0]), "y": float(pos[i, 1])}})
    is_global = topo.link_attrs.get("global", np.zeros(topo.n_links, dtype=int))
    edges = []
    for row in range(topo.n_links):
        lid = int(topo.link_id[row])
        a, b = int(topo.link_a[row]), int(topo.link_b[row])
        classes = "broken" if topo.broken[row] else ("global" if is_global[row] == 1 else "")
        edges.append({"data": {"id": f"l{lid}", "source": f"n{a}", "target": f"n{b}", "link": lid,
                               "name": topo.link_label(row),
                               "label": f"link {lid}: {topo.names[a]}[{topo.link_pa[row]}] – "
                                        f"{topo.names[b]}[{topo.link_pb[row]}]"},
                      "classes": classes})
    return nodes + edges


def base_stylesheet() -> list[dict]:
    """Shapes and colours: switches, end nodes, broken / global links, communicator colours."""
    sheet = [
        {"selector": "node", "style": {"label": "data(caption)", "font-size": 9, "text-valign": "bottom",
                                       "text-margin-y": 2, "color": "#333"}},
        {"selector": ".switch", "style": {"shape": "round-rectangle", "width": 22, "height": 14,
                                          "background-color": "#4a6fa5"}},
        {"selector": ".endpoint", "style": {"shape": "ellipse", "width": 12, "height": 12,
                                            "background-color": "#9aa5b1"}},
        {"selector": "edge", "style": {"width": 1.5, "line-color": "#b8c2cc", "curve-style": "bezier"}},
        {"selector": ".global", "style": {"line-color": "#7f7f7f", "line-style": "dotted"}},
        {"selector": ".broken", "style": {"line-color": BROKEN, "line-style": "dashed", "width": 3,
                                          "target-arrow-shape": "none", "source-label": "✕"}},
        {"selector": ":selected", "style": {"border-width": 3, "border-color": "#000"}},
    ]
    sheet += [{"selector": f".comm{c}", "style": {"background-color": colour}} for c, colour in enumerate(PALETTE)]
    return sheet


def state_stylesheet(state: dict, active_links: list[int], active_nodes: list[int]) -> list[dict]:
    """Rules layered over :func:`base_stylesheet` for one step of a timeline on the topology.

    ``state`` maps ``"n<index>"`` to a state name. States show as a thick
    coloured ring (``STATE_COLOURS``) so communicator colours stay visible;
    the links and receiving nodes of the current step are highlighted.
    """
    by_state: dict[str, list[str]] = {}
    for entity, value in state.items():
        by_state.setdefault(str(value), []).append(f"#{entity}")
    sheet = [{"selector": ", ".join(members),
              "style": {"border-width": 4, "border-color": STATE_COLOURS.get(value, "#888")}}
             for value, members in sorted(by_state.items()) if value != "waiting"]
    if "unreachable" in by_state:
        sheet.append({"selector": ", ".join(by_state["unreachable"]),
                      "style": {"shape": "diamond", "background-color": STATE_COLOURS["unreachable"]}})
    if active_links:
        sheet.append({"selector": ", ".join(f"#l{lid}" for lid in active_links),
                      "style": {"line-color": "#ff7f0e", "width": 5, "z-index": 10}})
    if active_nodes:
        sheet.append({"selector": ", ".join(f"#n{n}" for n in active_nodes),
                      "style": {"border-width": 5, "border-color": "#ff7f0e"}})
    return sheet


def large_figure(topo: Topology) -> go.Figure:
    """WebGL drawing of a large fabric: switches sized by their end nodes, switch links, broken links in red."""
    pos = positions(topo)
    sw = topo.switches
    is_sw = topo.kind == SWITCH
    hosts_per_switch = np.zeros(topo.n_nodes, dtype=int)
    host_side = np.where(topo.kind[topo.link_a] == ENDPOINT, topo.link_b, topo.link_a)
    touches_host = (topo.kind[topo.link_a] == ENDPOINT) | (topo.kind[topo.link_b] == ENDPOINT)
    np.add.at(hosts_per_switch, host_side[touches_host], 1)
    fig = go.Figure()
    between = is_sw[topo.link_a] & is_sw[topo.link_b]
    for mask, colour, name in ((between & ~topo.broken, "#b8c2cc", "links"),
                               (between & topo.broken, BROKEN, "broken links")):
        rows = np.flatnonzero(mask)
        xs = np.stack([pos[topo.link_a[rows], 0], pos[topo.link_b[rows], 0], np.full(len(rows), np.nan)], 1)
        ys = np.stack([pos[topo.link_a[rows], 1], pos[topo.link_b[rows], 1], np.full(len(rows), np.nan)], 1)
        fig.add_trace(go.Scattergl(x=xs.ravel(), y=ys.ravel(), mode="lines", name=f"{name} ({len(rows):,})",
                                   line={"color": colour, "width": 1 if colour != BROKEN else 3},
                                   hoverinfo="skip"))
    level = topo.attr("level")[sw]
    shown = captions(topo)
    fig.add_trace(go.Scattergl(
        x=pos[sw, 0], y=pos[sw, 1], mode="markers", name=f"switches ({len(sw):,})",
        marker={"size": 4 + 2 * np.sqrt(hosts_per_switch[sw]), "color": level, "colorscale": "Viridis",
                "line": {"width": 0}},
        text=[f"{shown[i]}: {hosts_per_switch[i]} end nodes" for i in sw.tolist()], hoverinfo="text"))
    fig.update_layout(
        title=f"{len(sw):,} switches and {len(topo.endpoints):,} end nodes (end nodes folded into their switch)",
        showlegend=True, margin={"l": 10, "r": 10, "b": 10},
        xaxis={"visible": False}, yaxis={"visible": False, "scaleanchor": "x"}, plot_bgcolor="white",
        height=600)
    return styled(fig, FULL)
