"""The /multicast page: InfiniBand multicast groups routed by two algorithms, their EFI and the join/leave protocol.

One folder: ``page`` (the Dash page: layout and callbacks), ``_model`` (what it computes, without Dash), ``_views``
(tables and sentences), ``_figures`` (its figure builders). Dash imports only ``page`` (the private modules start
with ``_``)."""
