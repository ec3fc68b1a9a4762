"""The /barrier page: barrier messages around broken links, and DLCT adjusting its pattern.

One folder: ``page`` (the Dash page: layout and callbacks), ``_model`` (what it computes, without Dash), ``_views``
(tables and sentences), ``_figures`` (its figure builders). Dash imports only ``page`` (the private modules start
with ``_``)."""

ORDER = 4
"""Its place in the navbar (``register_page``'s ``order``) and in the lists of exports."""
EXPORTS = {
    "pack": "barrier_pack",
    "players": {"barrier": "barrier_animation", "side-by-side": "barrier_side_by_side"},
}
"""What ``export`` exports, by function name: the figure pack and each player (the first is the page's default),
read by the exports registry (:mod:`vizcoll.ui.export.names`)."""
