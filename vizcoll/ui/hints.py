"""Compile hints on the page's large scripts: a new browser compiles them while it downloads them.

A browser that has not opened the app before has no compiled code for its scripts. V8 then compiles most of a
script's functions lazily, on the page's main thread, the first time each one is called. Nearly every function of
React's DOM renderer, Dash's renderer and its component bundles, dash-cytoscape and plotly.js runs as a page opens,
so this lazy compiling happens while the page is being drawn.

The magic comment ``//# allFunctionsCalledOnLoad`` on a script's first line is V8's explicit compile hint
(Chrome 136 and later; "Giving V8 a heads-up: faster JavaScript startup with explicit compile hints", v8.dev,
2025). It asks V8 to compile every function of the file eagerly, on a background thread, while the file streams
in. Other browsers read it as a comment. :func:`register` puts it at the start of those scripts
(:data:`HINTED`) as the app serves them, whichever route serves them (Dash's component suites or
:mod:`vizcoll.ui.vendor`'s files).

Measured in a new headless Chromium, with the 1,570-node cluster's share link (issue 23; the figures:
docs/design.md):

- the page's main thread on /trees was busy less (one trace each), evaluating scripts and parsing functions;
- the first frame came sooner on /trees and /topology (medians of 10, alternated).

The machine had 2 cores, which the background compiling shares with the page and the server; a machine with more
cores gains more. A browser that has the scripts cached already has their compiled code, and gains nothing.
"""

from __future__ import annotations

import re

from dash import Dash
from flask import Response, request

__all__ = ["HINT", "HINTED", "register"]

HINT = b"//# allFunctionsCalledOnLoad\n"
HINTED = re.compile(
    r"/(react-dom@|dash_renderer\.|dash_core_components|dash_html_components\.|dash_cytoscape\.|plotly-"
    r"|cytoscape-svg-)[^/]*\.js$"
)
"""The scripts whose functions nearly all run as a page opens (the paths they are served at)."""


def register(app: Dash) -> None:
    """Every answer of a script named by :data:`HINTED` starts with :data:`HINT`."""

    @app.server.after_request
    def hinted(response: Response) -> Response:
        if response.status_code == 200 and HINTED.search(request.path):
            response.direct_passthrough = False  # a file sent as it is read: read it here
            response.set_data(HINT + response.get_data())
        return response
