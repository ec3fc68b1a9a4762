"""The /multicast page: InfiniBand multicast groups routed by two algorithms, their EFI and the join/leave protocol.

One folder: ``page`` (the Dash page: layout and callbacks), ``_model`` (what it computes, without Dash), ``_views``
(tables and sentences), ``_figures`` (its figure builders). Dash imports only ``page`` (the private modules start
with ``_``)."""

ORDER = 3
"""Its place in the navbar (``register_page``'s ``order``) and in the lists of exports."""
EXPORTS = {
    "pack": "multicast_pack",
    "players": {"protocol": "multicast_animation", "side-by-side": "multicast_side_by_side"},
}
"""What ``export`` exports, by function name: the figure pack and each player (the first is the page's default),
read by the exports registry (:mod:`vizcoll.ui.export.names`)."""
