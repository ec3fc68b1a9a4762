"""The plotly.js the browser runs: plotly.js's official partial bundle "cartesian" when it is on disk, else the
full bundle plotly.py carries.

Every trace the pages draw (scatter, bar, histogram, heatmap: :data:`TRACES`) is in the cartesian bundle, which
is 1.5 MB where the full bundle is 4.8 MB; the difference is maps, 3-D, WebGL and the rest. A visitor's browser
starts it in a third of the time: opening the 1,570-node cluster's share link on /topology in a new headless
Chromium took 2.48 s instead of 3.21 s (median of 8 each, alternated, issue 23), most of it plotly.js setting up
its modules on the page's main thread. (This is the way Dash documents for a smaller plotly.js: ``dcc.Graph``
uses ``window.Plotly`` when the page has one; ``assets/figures.js`` loads it.)

The bundle is not in the repository: ``python -m vizcoll.ui.plotlyjs`` downloads the npm package
``plotly.js-cartesian-dist-min`` of the version plotly.py carries (:data:`VERSION`, so that figures and bundle
agree) from the npm registry, checks it against the registry's SHA-512 integrity and its own version banner, and
keeps it in :func:`vendor_dir`. ``python app.py`` does it once when the file is missing; the Dockerfile does it
when the image is built. Without the file (no network) the app serves the full bundle, under the same address.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import urllib.request
from pathlib import Path

import plotly
from dash import Dash
from flask import send_file
from plotly.offline import get_plotlyjs_version

__all__ = ["VERSION", "TRACES", "vendor_dir", "bundle", "served", "fetch", "ensure", "register"]

VERSION = get_plotlyjs_version()
TRACES = frozenset({"scatter", "bar", "histogram", "heatmap"})  # the trace types pages may draw: all in the bundle
PACKAGE = "plotly.js-cartesian-dist-min"
REGISTRY = os.environ.get("VIZCOLL_NPM_REGISTRY", "https://registry.npmjs.org")
ROUTE = f"_vizcoll/plotly-{VERSION}.min.js"
MAX_BYTES = 20 * 1024 * 1024  # a package larger than this is not the bundle
FULL = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
FETCH_ERRORS = (OSError, ValueError, KeyError, tarfile.TarError)  # what a failed download raises


def vendor_dir() -> Path:
    """Where downloaded front-end files are kept: ``VIZCOLL_VENDOR_DIR``, else ``$XDG_CACHE_HOME/vizcoll`` (by
    default ``~/.cache/vizcoll``)."""
    if os.environ.get("VIZCOLL_VENDOR_DIR"):
        return Path(os.environ["VIZCOLL_VENDOR_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vizcoll"


def bundle() -> Path:
    """The cartesian bundle's file for :data:`VERSION` (it may not exist)."""
    return vendor_dir() / f"plotly-cartesian-{VERSION}.min.js"


def served() -> Path:
    """The file the browser gets: the cartesian bundle when it is on disk, else the full one."""
    path = bundle()
    return path if path.is_file() else FULL


def _get(url: str, timeout: float) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (the registry's https address)
        data = response.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{url} is larger than {MAX_BYTES >> 20} MB")
    return data


def _checked(tarball: bytes, integrity: str) -> bytes:
    """The bundle's bytes out of the package ``tarball``, once its SHA-512 matches the registry's ``integrity``."""
    algorithm, _, digest = integrity.partition("-")
    if algorithm != "sha512" or base64.b64decode(digest) != hashlib.sha512(tarball).digest():
        raise ValueError(f"the {PACKAGE} {VERSION} package does not match the registry's integrity")
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        member = archive.getmember("package/plotly-cartesian.min.js")
        data = archive.extractfile(member).read()
    if f"plotly.js (cartesian - minified) v{VERSION}\n".encode() not in data[:200]:
        raise ValueError(f"the bundle in {PACKAGE} is not plotly.js v{VERSION}")
    return data


def fetch(timeout: float = 60) -> Path:
    """Download the cartesian bundle of :data:`VERSION` into :func:`vendor_dir` (see the module's docstring); its
    path. Raises one of :data:`FETCH_ERRORS` saying what failed."""
    meta = json.loads(_get(f"{REGISTRY}/{PACKAGE}/{VERSION}", timeout))
    dist = meta.get("dist") or {}
    tarball = str(dist.get("tarball", ""))
    if not tarball.startswith("https://"):  # never a local file, whatever the registry answers
        raise ValueError(f"the registry gave no https address for {PACKAGE} {VERSION}")
    data = _checked(_get(tarball, timeout), dist.get("integrity", ""))
    path = bundle()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.part")
    partial.write_bytes(data)
    partial.replace(path)  # atomic: a web worker never serves half a file
    return path


def ensure(timeout: float = 30) -> str:
    """Fetch the bundle unless it is on disk; one line saying which plotly.js the app serves (never raises)."""
    if bundle().is_file():
        return f"plotly.js: the cartesian bundle {bundle()}"
    try:
        return f"plotly.js: downloaded the cartesian bundle to {fetch(timeout)}"
    except FETCH_ERRORS as exc:
        return f"plotly.js: the full bundle (the cartesian one could not be downloaded: {exc})"


def register(app: Dash) -> None:
    """Serve :func:`served` at the app's :data:`ROUTE` and name that address in a ``<meta name="vizcoll-plotly">``
    tag, which ``assets/figures.js`` reads. The address carries the version, so a browser may keep it a day."""
    prefix = app.config.routes_pathname_prefix
    app.server.add_url_rule(
        prefix + ROUTE,
        "plotlyjs",
        lambda: send_file(served(), mimetype="text/javascript", max_age=86400),
    )
    app.config.meta_tags.append({"name": "vizcoll-plotly", "content": app.get_relative_path("/" + ROUTE)})


def main() -> None:
    """``python -m vizcoll.ui.plotlyjs``: download the bundle (again), print where it went; exit 1 on failure."""
    try:
        path = fetch()
    except FETCH_ERRORS as exc:
        sys.exit(f"plotly.js's cartesian bundle could not be downloaded: {exc}")
    print(json.dumps({"version": VERSION, "path": str(path), "bytes": path.stat().st_size}))


if __name__ == "__main__":
    main()
