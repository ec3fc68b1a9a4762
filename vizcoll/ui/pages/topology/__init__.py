"""The /topology page: generate, upload, draw and edit a fabric, define communicators, watch a broadcast.

One folder: ``page`` (the Dash page: layout and callbacks), ``_model`` (what it computes, without Dash), ``_views``
(tables and sentences). Dash imports only ``page`` (the private modules start with ``_``)."""
