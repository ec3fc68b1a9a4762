"""What every response of the hosted demo carries, and what no request may exceed.

- **Request size**: Flask's ``MAX_CONTENT_LENGTH`` (:data:`MAX_REQUEST_BYTES`,
  ``VIZCOLL_MAX_REQUEST_MB`` to change it): a larger body is answered 413
  before it is read, with a one-line message. Uploads are capped below it
  (:data:`MAX_UPLOAD_BYTES`: a file travels base64-encoded, 4/3 of its size,
  inside a JSON callback body).
- **Headers** on every response: a Content-Security-Policy that Dash and Plotly
  work under (scripts only from the app and its own inline scripts, by hash,
  and no ``eval``: the pages draw no WebGL trace, whose shaders' glue code
  plotly.js compiles with ``new Function``; no frames but the app's own, which the lesson presenter shows its
  live pages in; no plugins), ``X-Content-Type-Options: nosniff``,
  ``X-Frame-Options: SAMEORIGIN`` (no other site frames it), ``Referrer-Policy: no-referrer``. The ``Server``
  header is the web server's: :func:`hide_server_software` makes Werkzeug's
  development server say ``vizcoll``, and :mod:`vizcoll.ui.server` does the same
  for gunicorn, so no response names a software version.
- **Visitor cookie**: a browser without one gets ``vizcoll_visitor``, a random
  id (HttpOnly, SameSite=Lax) by which the job pool shares its workers fairly
  between visitors (:mod:`vizcoll.ui.pool`); it names no one and holds nothing else.
- **Development routes** (``/_reload-hash``) answer 404 unless the app runs
  with hot reload (``vizcoll serve --debug``).
"""

from __future__ import annotations

import os
import uuid

from dash import Dash
from flask import Response, abort, request
from werkzeug.exceptions import RequestEntityTooLarge

from vizcoll.ui.fairqueue import VISITOR_COOKIE

__all__ = [
    "MAX_REQUEST_BYTES",
    "MAX_UPLOAD_BYTES",
    "SERVER_NAME",
    "harden",
    "content_security_policy",
    "hide_server_software",
]

MAX_REQUEST_BYTES = int(float(os.environ.get("VIZCOLL_MAX_REQUEST_MB", "20")) * 1024 * 1024)
"""Largest request body: 20 MB unless ``VIZCOLL_MAX_REQUEST_MB`` says otherwise."""
MAX_UPLOAD_BYTES = MAX_REQUEST_BYTES * 3 // 4 - 64 * 1024
"""Largest uploaded file: base64 makes it 4/3 larger, and the callback's JSON needs a little room."""
SERVER_NAME = "vizcoll"


def content_security_policy(app: Dash) -> str:
    """The policy: only the app's own scripts and its inline ones (by their hashes), styles inline too (Dash and
    Plotly set element styles), images and workers from the app or data:/blob: URLs (figure downloads)."""
    scripts = " ".join(dict.fromkeys(app.csp_hashes()))  # hashes come quoted; each once
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src 'self' {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self' data:",
            "worker-src 'self' blob:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'self'",
        ]
    )


def harden(app: Dash) -> None:
    """Cap request bodies and add the security headers to every response of ``app``."""
    server = app.server
    server.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    policy: list[str] = []  # computed on the first response: every inline script is registered by then

    @server.after_request
    def _headers(response: Response) -> Response:
        if not policy:
            policy.append(content_security_policy(app))
        response.headers["Content-Security-Policy"] = policy[0]
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "SAMEORIGIN"
        response.headers["Referrer-Policy"] = "no-referrer"
        if VISITOR_COOKIE not in request.cookies:
            response.set_cookie(VISITOR_COOKIE, uuid.uuid4().hex, max_age=30 * 86400, httponly=True, samesite="Lax")
        return response

    @server.before_request
    def _no_dev_routes():
        if request.path.endswith("/_reload-hash") and not app._dev_tools.hot_reload:
            abort(404)

    @server.errorhandler(RequestEntityTooLarge)
    def _too_large(_error) -> tuple[str, int]:
        return f"The request is larger than the limit of {MAX_REQUEST_BYTES >> 20} MB.\n", 413


def hide_server_software() -> None:
    """Werkzeug's development server (``vizcoll serve`` without gunicorn, or ``--debug``) answers ``Server:
    vizcoll`` instead of its versions."""
    from werkzeug.serving import WSGIRequestHandler

    WSGIRequestHandler.server_version = SERVER_NAME
    WSGIRequestHandler.sys_version = ""
