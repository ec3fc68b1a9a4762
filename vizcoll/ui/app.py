"""The vizcoll web app: :data:`app`, its Flask :data:`server` and, with ``VIZCOLL_REDIS_URL`` set, the Celery app
whose workers run its jobs (``celery -A vizcoll.ui.app:celery_app worker --loglevel=INFO``, see
:mod:`vizcoll.ui.jobs`). ``vizcoll serve`` serves it (:mod:`vizcoll.ui.server`).

Importing the module first makes sure the browser scripts the app serves are on disk (:func:`vendor.ensure`:
downloaded once, a few file checks after that), since :func:`vendor.register` picks the page's bundles from what
is there when the app is built.
"""

from __future__ import annotations

from pathlib import Path

import scipy.optimize  # noqa: F401  (the engine loads it on first use, for F(k); a web worker at start-up)
from dash import Dash

import vizcoll.ui.pages
from vizcoll.runtime import tune_gc
from vizcoll.ui import hints, jobs, shell, vendor
from vizcoll.ui.cache import init_cache
from vizcoll.ui.figures.style import warm_up
from vizcoll.ui.routing import ROUTING_INPUTS
from vizcoll.ui.security import harden

__all__ = ["ASSETS", "app", "celery_app", "create_app", "server"]

ASSETS = Path(__file__).resolve().parent / "assets"
PAGES = Path(vizcoll.ui.pages.__file__).resolve().parent


def create_app(cache_config: dict | None = None) -> Dash:
    """A fresh Dash app with every page (Dash pages, from ``vizcoll/ui/pages``) and callback registered."""
    app = Dash(
        "vizcoll",  # the package: Dash names the page modules from it (vizcoll.ui.pages.trees.page), from any folder
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


VENDORED = vendor.ensure()
"""What :func:`vendor.ensure` said of each browser script (``vizcoll serve`` prints it)."""
app = create_app()
server = app.server
celery_app = jobs.celery_app()  # None unless VIZCOLL_REDIS_URL is set
