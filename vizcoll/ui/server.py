"""Serving the app (``vizcoll serve``, ``python app.py``, the Dockerfile's command): gunicorn where it is installed,
with the settings of the hosted demo (:func:`settings`), else Flask's own server in one process.

Each gunicorn worker imports :mod:`vizcoll.ui.app` itself (as ``gunicorn vizcoll.ui.app:server`` would, no
preloading): the job pool's dispatcher thread and the caches' connections then belong to the worker that uses
them. ``--debug`` takes Flask's server with hot reload (one process; development routes answer).
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["SERVER_TIMEOUT_S", "serve", "settings"]

SERVER_TIMEOUT_S = 120
"""gunicorn kills a worker whose request runs longer (a callback that is not a background job)."""


def settings(host: str, port: int, workers: int) -> dict:
    """gunicorn's settings: the address, ``workers`` processes (sync), :data:`SERVER_TIMEOUT_S`, the access log on
    stdout."""
    return {"bind": f"{host}:{port}", "workers": workers, "timeout": SERVER_TIMEOUT_S, "accesslog": "-"}


def serve(host: str, port: int, workers: int, debug: bool = False) -> None:
    """Serve the app on ``host:port`` until interrupted (see the module's docstring)."""
    if debug or importlib.util.find_spec("gunicorn") is None:
        from vizcoll.ui.app import VENDORED, app
        from vizcoll.ui.security import hide_server_software

        print(VENDORED, file=sys.stderr)
        hide_server_software()
        app.run(host=host, port=port, debug=debug)
        return
    from vizcoll.ui import vendor

    print(vendor.ensure(), file=sys.stderr)  # once, before the workers import the app
    _gunicorn(settings(host, port, workers)).run()


def _gunicorn(options: dict):
    import gunicorn.http.wsgi
    from gunicorn.app.base import BaseApplication

    gunicorn.http.wsgi.SERVER = "vizcoll"  # responses name no server software or version

    class Server(BaseApplication):
        def load_config(self) -> None:
            for key, value in options.items():
                self.cfg.set(key, value)

        def load(self):
            from vizcoll.ui.app import server

            return server

    return Server()
