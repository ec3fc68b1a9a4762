"""The /barrier page: barrier messages around broken links, and DLCT adjusting its pattern.

One folder: ``page`` (the Dash page: layout and callbacks), ``_model`` (what it computes, without Dash), ``_views``
(tables and sentences), ``_figures`` (its figure builders). Dash imports only ``page`` (the private modules start
with ``_``)."""
