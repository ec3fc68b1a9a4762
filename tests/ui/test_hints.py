"""V8's compile hint on the page's large scripts (vizcoll.ui.hints)."""

from __future__ import annotations

import re
from pathlib import Path

import dash

from app import app
from vizcoll.ui import hints


def scripts(client) -> list[str]:
    return re.findall(r'<script src="([^"]+)"', client.get("/trees").get_data(as_text=True))


def test_the_large_scripts_start_with_the_hint_and_are_otherwise_as_served():
    client = app.server.test_client()
    hinted = [src for src in scripts(client) if hints.HINTED.search(src.split("?")[0])]
    names = " ".join(hinted)
    for name in ("react-dom@", "dash_renderer", "dash_core_components.", "dash_html_components", "dash_cytoscape"):
        assert name in names
    for src in hinted:
        served = client.get(src)
        assert served.status_code == 200 and served.get_data().startswith(hints.HINT), src
        assert served.content_length == len(served.get_data())
    renderer = next(src for src in hinted if "dash_renderer" in src)
    original = Path(dash.__file__).parent / "dash-renderer" / "build" / "dash_renderer.min.js"
    assert client.get(renderer).get_data() == hints.HINT + original.read_bytes()  # the file follows, as it is


def test_small_scripts_and_other_answers_are_left_as_they_are():
    client = app.server.test_client()
    for src in scripts(client):
        if not hints.HINTED.search(src.split("?")[0]):  # react, prop-types, the app's assets, ...
            assert not client.get(src).get_data().startswith(hints.HINT), src
    assert not client.get("/trees").get_data().startswith(hints.HINT)
    renderer = next(src for src in scripts(client) if "dash_renderer" in src)
    etag = client.get(renderer).headers.get("ETag")
    if etag:  # a browser's revalidation gets no body, and no hint
        again = client.get(renderer, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.get_data() == b""
