"""``vizcoll serve``: the web app (:mod:`vizcoll.ui.server`), after ``pip install "vizcoll[web]"``."""

from __future__ import annotations

import argparse
import importlib.util
import os

from vizcoll.commands import command
from vizcoll.errors import SpecError

__all__: list[str] = []

WEB = ("dash", "dash_cytoscape", "plotly", "flask_caching", "diskcache", "multiprocess", "psutil")
WEB_INSTALL = 'pip install "vizcoll[web]" (in the project folder: pip install ".[web]")'


def _within(low: int, high: int, what: str):
    """An argparse ``type``: a whole number from ``low`` to ``high`` (``what`` names it in the message)."""

    def read(text: str) -> int:
        value = int(text) if text.strip().isdigit() else None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} is a number from {low} to {high}, not {text[:20]}")
        return value

    return read


def _serve_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default=os.environ.get("HOST", "127.0.0.1"), help="address to listen on (default: HOST or 127.0.0.1)"
    )
    parser.add_argument(
        "--port",
        type=_within(1, 65535, "a port"),
        default=os.environ.get("PORT", "8050"),
        help="port (default: PORT or 8050)",
    )
    parser.add_argument(
        "--workers",
        type=_within(1, 64, "--workers"),
        default=os.environ.get("WEB_CONCURRENCY", "3"),
        help="gunicorn worker processes (default: WEB_CONCURRENCY or 3)",
    )
    parser.add_argument("--debug", action="store_true", help="Flask's server with hot reload, in one process")


@command("serve", "serve the web app (gunicorn where installed, else Flask's server)", _serve_args)
def _serve(args: argparse.Namespace) -> None:
    missing = [module for module in WEB if importlib.util.find_spec(module) is None]
    if missing:
        raise SpecError(f"serve runs the web app, which needs {', '.join(missing)}: {WEB_INSTALL}")
    from vizcoll.ui.server import serve

    serve(args.host, args.port, args.workers, args.debug)
