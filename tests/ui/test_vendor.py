"""The scripts the app downloads from npm: plotly.js's cartesian bundle (else the full one is served) and
regenerator-runtime (else pages keep Dash's babel polyfill)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import tarfile
from pathlib import Path

import pytest

from app import app
from vizcoll.ui import hints, vendor

BANNER = f"/**\n* plotly.js (cartesian - minified) v{vendor.VERSION}\n* Copyright\n*/\n".encode()


def package(content: bytes, member: str = vendor.PLOTLY.member) -> bytes:
    """An npm package tarball holding ``content`` as ``member``."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        info = tarfile.TarInfo(member)
        info.size = len(content)
        archive.addfile(info, io.BytesIO(content))
    return out.getvalue()


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("VIZCOLL_VENDOR_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def registry(monkeypatch):
    """A fake npm registry: the URLs ``_get`` was asked for, and what it answers (``served["tarball"]``)."""
    asked: list[str] = []
    served = {"tarball": package(BANNER + b"var Plotly = {};")}

    def get(url, timeout):
        asked.append(url)
        if url.endswith(".tgz"):
            return served["tarball"]
        dist = {"tarball": "https://registry.example/p.tgz", "integrity": integrity(served["tarball"])}
        return json.dumps({"dist": served.get("dist", dist)}).encode()

    monkeypatch.setattr(vendor, "_get", get)
    return asked, served


def test_without_the_bundle_the_full_one_is_served(folder):
    assert not vendor.PLOTLY.path.exists()
    assert vendor.plotly_served() == vendor.FULL
    assert f"plotly.js v{vendor.VERSION}".encode() in vendor.FULL.read_bytes()[:200]


def test_fetch_asks_the_registry_for_the_version_plotly_py_carries_and_keeps_the_checked_bundle(folder, registry):
    asked, served = registry
    path = vendor.fetch()
    assert asked == [f"{vendor.REGISTRY}/{vendor.PLOTLY.package}/{vendor.VERSION}", "https://registry.example/p.tgz"]
    assert path == folder / f"plotly-cartesian-{vendor.VERSION}.min.js" == vendor.plotly_served()
    assert path.read_bytes() == BANNER + b"var Plotly = {};"
    assert list(folder.iterdir()) == [path]  # no partial file left


def test_a_tarball_that_does_not_match_the_registrys_integrity_is_refused(folder, registry):
    _, served = registry
    served["dist"] = {"tarball": "https://registry.example/p.tgz", "integrity": integrity(b"something else")}
    with pytest.raises(ValueError, match="integrity"):
        vendor.fetch()
    assert not vendor.PLOTLY.path.exists() and vendor.plotly_served() == vendor.FULL


def test_a_tarball_address_that_is_not_https_is_never_opened(folder, registry):
    asked, served = registry
    served["dist"] = {"tarball": "file:///etc/passwd", "integrity": integrity(served["tarball"])}
    with pytest.raises(ValueError, match="no https address"):
        vendor.fetch()
    assert asked == [f"{vendor.REGISTRY}/{vendor.PLOTLY.package}/{vendor.VERSION}"]


def test_a_bundle_of_another_version_is_refused(folder, registry):
    _, served = registry
    served["tarball"] = package(b"/**\n* plotly.js (cartesian - minified) v1.0.0\n*/\n")
    with pytest.raises(ValueError, match=f"not the file of version {re.escape(vendor.VERSION)}"):
        vendor.fetch()
    assert not vendor.PLOTLY.path.exists()


def test_ensure_never_raises_and_says_what_is_served(folder, monkeypatch):
    def offline(url, timeout):
        raise OSError("network is unreachable")

    monkeypatch.setattr(vendor, "_get", offline)
    assert vendor.ensure().splitlines() == [
        f"plotly.js-cartesian-dist-min {vendor.VERSION} could not be downloaded (network is unreachable): the app"
        " serves the full plotly.js",
        "regenerator-runtime 0.14.1 could not be downloaded (network is unreachable): the app serves Dash's babel"
        " polyfill",
        "cytoscape-svg 0.4.0 could not be downloaded (network is unreachable): the app serves dash-cytoscape's extra"
        " bundle",
    ]
    vendor.PLOTLY.path.write_bytes(BANNER)  # on disk: nothing fetched
    assert vendor.ensure().splitlines()[0] == f"plotly.js-cartesian-dist-min {vendor.VERSION}: {vendor.PLOTLY.path}"


def test_regenerator_runtime_is_fetched_and_checked_like_the_bundle(folder, registry):
    asked, served = registry
    runtime = b"/**\n * Copyright (c) 2014-present, Facebook, Inc.\n */\n\nvar runtime = (function (exports) {\n})({});"
    served["tarball"] = package(runtime, vendor.REGENERATOR.member)
    assert vendor.fetch(vendor.REGENERATOR) == folder / "regenerator-runtime-0.14.1.js"
    assert asked[0] == f"{vendor.REGISTRY}/regenerator-runtime/0.14.1"
    assert vendor.REGENERATOR.path.read_bytes() == runtime
    served["tarball"] = package(b"var somethingElse = 1;", vendor.REGENERATOR.member)
    with pytest.raises(ValueError, match="not the file of version 0.14.1"):
        vendor.fetch(vendor.REGENERATOR)
    assert vendor.REGENERATOR.path.read_bytes() == runtime  # the file on disk is kept


def test_pages_load_regenerator_runtime_and_cytoscape_svg_while_they_are_on_disk(folder):
    client = app.server.test_client()
    runtime, svg = (f"/_vizcoll/{file.name}" for file in (vendor.REGENERATOR, vendor.CYTOSCAPE_SVG))
    page = client.get("/trees").get_data(as_text=True)
    assert "/deps/polyfill@" in page and runtime not in page and svg not in page
    assert client.get(runtime).status_code == client.get(svg).status_code == 404
    vendor.REGENERATOR.path.write_bytes(b"var runtime = (function (exports) {})({});")
    vendor.CYTOSCAPE_SVG.path.write_bytes(b"window.cytoscapeSvg = function () {};")
    page = client.get("/barrier").get_data(as_text=True)
    assert "polyfill" not in page
    assert page.index(f'<script src="{runtime}"></script>') < page.index("/deps/react@")  # first, where it was
    assert page.index("dash_renderer") < page.index(f'<script src="{svg}"></script>')
    for route, file, hint in ((runtime, vendor.REGENERATOR, b""), (svg, vendor.CYTOSCAPE_SVG, hints.HINT)):
        served = client.get(route)
        assert served.status_code == 200 and served.mimetype == "text/javascript"
        assert served.get_data() == hint + file.path.read_bytes()  # vizcoll.ui.hints
    assert client.get("/_vizcoll/runtime.js").status_code == 404  # only the vendored files, by their names


def test_page_scripts_swaps_the_polyfill_only_where_dash_put_it(folder):
    tags = '<script src="/p/_dash-component-suites/dash/deps/polyfill@7.v4m1.12.1.min.js"></script><script src="r.js">'
    assert vendor.page_scripts(tags, "/p/") == tags  # nothing on disk
    vendor.REGENERATOR.path.write_bytes(b"")
    assert vendor.page_scripts(tags, "/p/") == (
        f'<script src="/p/_vizcoll/{vendor.REGENERATOR.name}"></script><script src="r.js">'
    )


def test_the_page_names_the_route_which_serves_the_bundle_when_there_is_one(folder):
    client = app.server.test_client()
    page = client.get("/topology").get_data(as_text=True)
    route = f"/_vizcoll/plotly-{vendor.VERSION}.min.js"
    assert f'<meta name="vizcoll-plotly" content="{route}">' in page
    full = client.get(route)
    assert full.status_code == 200 and full.mimetype == "text/javascript"
    assert full.get_data() == hints.HINT + vendor.FULL.read_bytes()  # vizcoll.ui.hints
    vendor.PLOTLY.path.write_bytes(BANNER + b"var Plotly = {};")
    assert client.get(route).get_data() == hints.HINT + BANNER + b"var Plotly = {};"


def test_every_trace_type_the_app_draws_is_in_the_bundle():
    """Figures are built with ``go.<Trace>(...)``: each type must be one of :data:`vendor.TRACES`, which the
    bundle served has (checked against the downloaded bundle when there is one)."""
    root = Path(vendor.__file__).resolve().parents[1]
    used = {
        name.lower()
        for path in root.rglob("*.py")
        for name in re.findall(r"\bgo\.([A-Z][A-Za-z]+)\(", path.read_text())
        if name not in {"Figure", "Frame", "Layout"}
    }
    assert used and used <= vendor.TRACES, used - vendor.TRACES
    text = vendor.plotly_served().read_text(errors="replace")
    for trace in vendor.TRACES:
        assert f'moduleType:"trace",name:"{trace}"' in text
