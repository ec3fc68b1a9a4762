"""The /erasure page: erasure-coded stripes over data centres, their repair groups and cross-DC traffic.

One folder: ``page`` (the Dash page: layout and callbacks), ``_model`` (what it computes, without Dash), ``_views``
(tables and sentences), ``_figures`` (its figure builders). Dash imports only ``page`` (the private modules start
with ``_``)."""
