"""The plotly.js the app serves: the cartesian partial bundle when it was downloaded, else the full one."""

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
from vizcoll.ui import plotlyjs

BANNER = f"/**\n* plotly.js (cartesian - minified) v{plotlyjs.VERSION}\n* Copyright\n*/\n".encode()


def package(content: bytes) -> bytes:
    """An npm package tarball holding the bundle ``content``."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        info = tarfile.TarInfo("package/plotly-cartesian.min.js")
        info.size = len(content)
        archive.addfile(info, io.BytesIO(content))
    return out.getvalue()


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


@pytest.fixture
def vendor(tmp_path, monkeypatch) -> Path:
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

    monkeypatch.setattr(plotlyjs, "_get", get)
    return asked, served


def test_without_the_bundle_the_full_one_is_served(vendor):
    assert not plotlyjs.bundle().exists()
    assert plotlyjs.served() == plotlyjs.FULL
    assert f"plotly.js v{plotlyjs.VERSION}".encode() in plotlyjs.FULL.read_bytes()[:200]


def test_fetch_asks_the_registry_for_the_version_plotly_py_carries_and_keeps_the_checked_bundle(vendor, registry):
    asked, served = registry
    path = plotlyjs.fetch()
    assert asked == [f"{plotlyjs.REGISTRY}/{plotlyjs.PACKAGE}/{plotlyjs.VERSION}", "https://registry.example/p.tgz"]
    assert path == vendor / f"plotly-cartesian-{plotlyjs.VERSION}.min.js" == plotlyjs.served()
    assert path.read_bytes() == BANNER + b"var Plotly = {};"
    assert list(vendor.iterdir()) == [path]  # no partial file left


def test_a_tarball_that_does_not_match_the_registrys_integrity_is_refused(vendor, registry):
    _, served = registry
    served["dist"] = {"tarball": "https://registry.example/p.tgz", "integrity": integrity(b"something else")}
    with pytest.raises(ValueError, match="integrity"):
        plotlyjs.fetch()
    assert not plotlyjs.bundle().exists() and plotlyjs.served() == plotlyjs.FULL


def test_a_tarball_address_that_is_not_https_is_never_opened(vendor, registry):
    asked, served = registry
    served["dist"] = {"tarball": "file:///etc/passwd", "integrity": integrity(served["tarball"])}
    with pytest.raises(ValueError, match="no https address"):
        plotlyjs.fetch()
    assert asked == [f"{plotlyjs.REGISTRY}/{plotlyjs.PACKAGE}/{plotlyjs.VERSION}"]


def test_a_bundle_of_another_version_is_refused(vendor, registry):
    _, served = registry
    served["tarball"] = package(b"/**\n* plotly.js (cartesian - minified) v1.0.0\n*/\n")
    with pytest.raises(ValueError, match=f"not plotly.js v{re.escape(plotlyjs.VERSION)}"):
        plotlyjs.fetch()
    assert not plotlyjs.bundle().exists()


def test_ensure_never_raises_and_says_which_bundle_is_served(vendor, monkeypatch):
    def offline(url, timeout):
        raise OSError("network is unreachable")

    monkeypatch.setattr(plotlyjs, "_get", offline)
    assert plotlyjs.ensure() == (
        "plotly.js: the full bundle (the cartesian one could not be downloaded: network is unreachable)"
    )
    plotlyjs.bundle().write_bytes(BANNER)
    assert plotlyjs.ensure() == f"plotly.js: the cartesian bundle {plotlyjs.bundle()}"  # on disk: nothing fetched


def test_the_page_names_the_route_which_serves_the_bundle_when_there_is_one(vendor):
    client = app.server.test_client()
    page = client.get("/topology").get_data(as_text=True)
    route = f"/_vizcoll/plotly-{plotlyjs.VERSION}.min.js"
    assert f'<meta name="vizcoll-plotly" content="{route}">' in page
    full = client.get(route)
    assert full.status_code == 200 and full.mimetype == "text/javascript"
    assert full.get_data() == plotlyjs.FULL.read_bytes()
    plotlyjs.bundle().write_bytes(BANNER + b"var Plotly = {};")
    assert client.get(route).get_data() == BANNER + b"var Plotly = {};"


def test_every_trace_type_the_app_draws_is_in_the_bundle():
    """Figures are built with ``go.<Trace>(...)``: each type must be one of :data:`plotlyjs.TRACES`, which the
    bundle served has (checked against the downloaded bundle when there is one)."""
    root = Path(plotlyjs.__file__).resolve().parents[1]
    used = {
        name.lower()
        for path in root.rglob("*.py")
        for name in re.findall(r"\bgo\.([A-Z][A-Za-z]+)\(", path.read_text())
        if name not in {"Figure", "Frame", "Layout"}
    }
    assert used and used <= plotlyjs.TRACES, used - plotlyjs.TRACES
    text = plotlyjs.served().read_text(errors="replace")
    for trace in plotlyjs.TRACES:
        assert f'moduleType:"trace",name:"{trace}"' in text
