"""Figures to image bytes with kaleido, one warm browser per process, and SVG made deterministic.

Kaleido drives a headless Chromium (``BROWSER_PATH`` names it, else the
``chromium`` on ``PATH``); starting it takes seconds, a figure then a fraction
of one (measured: docs/design.md). :func:`render` keeps one kaleido session per process
(a background job is a process of its own, or a Celery worker that serves
many jobs), started on first use in a thread of its own with its event loop,
and renders every frame of an export in that one session. A process made by
``fork`` does not inherit it: it starts its own.

Plotly gives each drawing a random six-digit id (``defs-1a2b3c``,
``clip1a2b3cxyplot``...), and the browser writes the attributes of the root
``<svg>`` in the order they were set (a drawing made again in a tab that drew
one before sets them in another order), so two exports of one figure would
differ: :func:`fixed_ids` replaces the id by a fixed one and writes the root's
attributes in alphabetical order, so the same figure gives the same bytes.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import threading

import plotly.graph_objects as go

from vizcoll.errors import VizcollError
from vizcoll.ui.pool import memory_limit_lifted

__all__ = ["FORMATS", "render", "fixed_ids", "close"]

FORMATS = ("png", "svg", "pdf")
RENDER_TIMEOUT_S = 120  # one figure; the first also waits for the browser to start
FIXED_UID = "vc0000"
_UID = re.compile(rb'id="defs-([0-9a-f]{6})"')
_ROOT = re.compile(rb"^<svg((?:\s+[^\s=>]+=\"[^\"]*\")*)\s*>")
_ATTRIBUTE = re.compile(rb'([^\s=>]+)="([^"]*)"')
_SESSION: dict[int, tuple] = {}  # pid -> (event loop, kaleido)
_LOCK = threading.Lock()


def _fresh_lock() -> None:
    global _LOCK
    _LOCK = threading.Lock()


os.register_at_fork(after_in_child=_fresh_lock)  # a job forked while a thread starts a browser renders all the same


def fixed_ids(svg: bytes) -> bytes:
    """``svg`` with plotly's random drawing id replaced by a fixed one and the root's attributes sorted (same
    figure, same bytes).

    >>> fixed_ids(b'<svg width="2" style=""><defs id="defs-a1b2c3"/><clipPath id="clipa1b2c3xyplot"/></svg>')
    b'<svg style="" width="2"><defs id="defs-vc0000"/><clipPath id="clipvc0000xyplot"/></svg>'
    """
    match = _UID.search(svg)
    if match:
        svg = svg.replace(match.group(1), FIXED_UID.encode())
    root = _ROOT.match(svg)
    if root is None:
        return svg
    attributes = sorted(_ATTRIBUTE.findall(root.group(1)))
    return b"<svg" + b"".join(b' %s="%s"' % pair for pair in attributes) + b">" + svg[root.end() :]


def _browser() -> dict:
    path = os.environ.get("BROWSER_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    return {"path": path} if path else {}


def _session():
    """This process's (event loop, kaleido), started on first use."""
    with _LOCK:
        if os.getpid() not in _SESSION:
            import kaleido

            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, daemon=True, name="kaleido").start()

            async def start():
                browser = kaleido.Kaleido(n=1, timeout=RENDER_TIMEOUT_S, mathjax=False, **_browser())
                await browser.open()
                return browser

            try:
                with memory_limit_lifted():
                    browser = asyncio.run_coroutine_threadsafe(start(), loop).result(RENDER_TIMEOUT_S)
            except Exception as exc:  # noqa: BLE001 (no browser: one message, whatever choreographer raised)
                loop.call_soon_threadsafe(loop.stop)
                raise VizcollError(f"no browser to render figures with (set BROWSER_PATH): {exc}") from None
            _SESSION[os.getpid()] = (loop, browser)
        return _SESSION[os.getpid()]


def render(fig: go.Figure, fmt: str, width: int, height: int, scale: float = 1) -> bytes:
    """``fig`` as ``fmt`` (png, svg or pdf) bytes of ``width`` x ``height`` px (PNG pixels x ``scale``)."""
    if fmt not in FORMATS:
        raise VizcollError(f"unknown image format {fmt!r}: one of {', '.join(FORMATS)}")
    loop, browser = _session()
    opts = {"format": fmt, "width": width, "height": height, "scale": scale}
    data = asyncio.run_coroutine_threadsafe(browser.calc_fig(fig, opts), loop).result(RENDER_TIMEOUT_S)
    return fixed_ids(data) if fmt == "svg" else data


def close() -> None:
    """Stop this process's browser (it also stops when the process ends)."""
    with _LOCK:
        session = _SESSION.pop(os.getpid(), None)
    if session is not None:
        loop, browser = session
        asyncio.run_coroutine_threadsafe(browser.close(), loop).result(RENDER_TIMEOUT_S)
        loop.call_soon_threadsafe(loop.stop)
