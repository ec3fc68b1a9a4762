"""The /faults page: the task-based reduction and TREFT replayed step by step.

One folder: ``page`` (the Dash page: layout and callbacks), ``_model`` (what it computes, without Dash), ``_views``
(tables and sentences), ``_figures`` (its figure builders). Dash imports only ``page`` (the private modules start
with ``_``)."""

ORDER = 5
"""Its place in the navbar (``register_page``'s ``order``) and in the lists of exports."""
EXPORTS = {"pack": "faults_pack", "players": {"reduction": "reduction_animation", "treft": "treft_animation"}}
"""What ``export`` exports, by function name: the figure pack and each player (the first is the page's default),
read by the exports registry (:mod:`vizcoll.ui.export.names`)."""
