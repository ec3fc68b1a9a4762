"""vizcoll web app: ``python app.py [--port N]`` locally, ``gunicorn app:server`` in the container.

With ``VIZCOLL_REDIS_URL`` set, heavy callbacks run on Celery workers started with
``celery -A app:celery_app worker --loglevel=INFO`` (see :mod:`vizcoll.ui.jobs`).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import scipy.optimize  # noqa: F401  (the engine loads it on first use, for F(k); a web worker at start-up)
from dash import Dash

import vizcoll.ui.pages
from vizcoll.runtime import tune_gc
from vizcoll.ui import hints, jobs, shell, vendor
from vizcoll.ui.cache import init_cache
from vizcoll.ui.figures.style import warm_up
from vizcoll.ui.routing import ROUTING_INPUTS
from vizcoll.ui.security import harden, hide_server_software

ASSETS = Path(__file__).resolve().parent / "assets"
PAGES = Path(vizcoll.ui.pages.__file__).resolve().parent


def create_app(cache_config: dict | None = None) -> Dash:
    """A fresh Dash app with every page (Dash pages, from ``vizcoll/ui/pages``) and callback registered."""
    app = Dash(
        __name__,
        title="vizcoll",
        assets_folder=str(ASSETS),
        suppress_callback_exceptions=True,
        update_title=None,
        use_pages=True,
        pages_folder=str(PAGES),
        routing_callback_inputs=ROUTING_INPUTS,
        on_error=shell.report_error,
        background_callback_manager=jobs.manager(),
    )
    app.index_string = app.index_string.replace("<html>", '<html lang="en">', 1)
    app.layout = shell.shell_layout
    shell.register(app)
    init_cache(app.server, cache_config)
    harden(app)
    vendor.register(app)
    hints.register(app)
    app.server.add_url_rule("/healthz", "healthz", lambda: {"status": "ok"})
    warm_up()
    tune_gc()
    return app


if __name__ == "__main__":  # python app.py: the browser's scripts (vizcoll/ui/vendor.py) before the app is built
    print(vendor.ensure())
app = create_app()
server = app.server
celery_app = jobs.celery_app()  # None unless VIZCOLL_REDIS_URL is set


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Run the vizcoll web app.")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", 8050)))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args(argv)
    hide_server_software()
    app.run(host=args.host, port=args.port, debug=args.debug)


if __name__ == "__main__":
    main()
