"""The /topology page: generate, upload, draw and edit a fabric, define communicators, watch a broadcast.

One folder: ``page`` (the Dash page: layout and callbacks), ``_model`` (what it computes, without Dash), ``_views``
(tables and sentences). Dash imports only ``page`` (the private modules start with ``_``)."""

ORDER = 1
"""Its place in the navbar (``register_page``'s ``order``) and in the lists of exports."""
EXPORTS = {"pack": "topology_pack", "players": {"broadcast": "topology_animation"}}
"""What ``export`` exports, by function name: the figure pack and each player (the first is the page's default),
read by the exports registry (:mod:`vizcoll.ui.export.names`)."""
