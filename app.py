"""The app from a checkout: ``python app.py [--port N] [--workers N] [--debug]`` is ``vizcoll serve``; gunicorn
(``app:server``), Celery (``-A app:celery_app``) and the tests name the app of :mod:`vizcoll.ui.app` here."""

import sys

if __name__ == "__main__":
    from vizcoll.cli import main

    sys.exit(main(["serve", *sys.argv[1:]]))
from vizcoll.ui.app import app, celery_app, create_app, server  # noqa: E402, F401
