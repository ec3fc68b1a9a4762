"""The third-party scripts a browser runs that the app downloads instead of committing (npm packages, checked).

- **plotly.js's partial bundle "cartesian"** (:data:`PLOTLY`). Every trace the pages draw (scatter, bar,
  histogram, heatmap: :data:`TRACES`) is in it; it is 1.5 MB where the full bundle is 4.8 MB (the difference is
  maps, 3-D, WebGL and the rest). A visitor's browser starts it in a third of the time: opening the 1,570-node
  cluster's share link on /topology in a new headless Chromium is faster with it (median of 8 each, alternated,
  issue 23; measured: docs/design.md), most of the difference plotly.js setting up its modules on the page's main
  thread. Its version is
  the one plotly.py carries (:data:`VERSION`), so that figures and bundle agree. It is served at :data:`ROUTE`,
  named in a ``<meta name="vizcoll-plotly">`` tag which ``assets/figures.js`` reads (the way Dash documents for
  a smaller plotly.js: ``dcc.Graph`` uses ``window.Plotly`` when the page has one). Without the file the app
  serves the full bundle plotly.py carries, under the same address.
- **regenerator-runtime instead of Dash's babel polyfill** (:data:`REGENERATOR`). Dash puts
  ``@babel/polyfill`` (core-js 2) first on every page, for browsers older than any Dash 4 supports. Of the 100 kB
  the one thing the app's scripts use that a current browser lacks is the global ``regeneratorRuntime`` (Dash's
  and dcc's lazy components are compiled against it); the rest costs a new browser time to set up and
  replaces the browser's own ``String.prototype.trim`` by a slower one, which plotly.js calls on every point it
  styles (measured: docs/design.md). Where the page would load the polyfill it loads regenerator-runtime alone
  (:func:`register`). The cluster's share link on /trees in a new Chromium opens faster with neither it nor
  dash-cytoscape's extra bundle (medians of 6, alternated; docs/design.md).
  Without the file the page keeps the polyfill.

``python -m vizcoll.ui.vendor`` downloads both from the npm registry (``VIZCOLL_NPM_REGISTRY``), checks each
package against the registry's SHA-512 integrity and the file against its expected first lines, and keeps them
in :func:`vendor_dir`. The app's module (:mod:`vizcoll.ui.app`) does it once when a file is missing; the Dockerfile
does it when the image is built, and ``scripts/test.sh`` before the tests, so that they run with what visitors get.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import dash_cytoscape as cyto
import plotly
from dash import Dash
from flask import abort, send_file
from plotly.offline import get_plotlyjs_version

__all__ = [
    "VERSION",
    "TRACES",
    "NpmFile",
    "PLOTLY",
    "REGENERATOR",
    "CYTOSCAPE_SVG",
    "vendor_dir",
    "plotly_served",
    "page_scripts",
    "fetch",
    "ensure",
    "register",
]

VERSION = get_plotlyjs_version()
TRACES = frozenset({"scatter", "bar", "histogram", "heatmap"})  # the trace types pages may draw: all in the bundle
REGISTRY = os.environ.get("VIZCOLL_NPM_REGISTRY", "https://registry.npmjs.org")
MAX_BYTES = 20 * 1024 * 1024  # a package larger than this is not the one asked for
FULL = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
FETCH_ERRORS = (OSError, ValueError, KeyError, tarfile.TarError)  # what a failed download raises
ROUTE = f"_vizcoll/plotly-{VERSION}.min.js"
POLYFILL = re.compile(r'<script src="[^"]*/deps/polyfill@[^"]*"></script>')  # Dash's tag for @babel/polyfill


@dataclass(frozen=True)
class NpmFile:
    """One file of an npm package: ``member`` in the package's tarball, whose first 400 bytes hold ``head``;
    kept in :func:`vendor_dir` as ``name`` and served at ``_vizcoll/<name>``; ``without`` says what the app
    serves while it is missing."""

    package: str
    version: str
    member: str
    head: bytes
    name: str
    without: str

    @property
    def path(self) -> Path:
        """Where the file is kept (it may not exist)."""
        return vendor_dir() / self.name

    @property
    def route(self) -> str:
        return f"_vizcoll/{self.name}"


PLOTLY = NpmFile(
    "plotly.js-cartesian-dist-min",
    VERSION,
    "package/plotly-cartesian.min.js",
    f"plotly.js (cartesian - minified) v{VERSION}\n".encode(),
    f"plotly-cartesian-{VERSION}.min.js",
    "the full plotly.js",
)
REGENERATOR = NpmFile(
    "regenerator-runtime",
    "0.14.1",
    "package/runtime.js",
    b"var runtime = (function (exports) {",
    "regenerator-runtime-0.14.1.js",
    "Dash's babel polyfill",
)
CYTOSCAPE_SVG = NpmFile(
    "cytoscape-svg",
    "0.4.0",
    "package/cytoscape-svg.js",
    b"exports.cytoscapeSvg=e()",
    "cytoscape-svg-0.4.0.js",
    "dash-cytoscape's extra bundle",
)
FILES = (PLOTLY, REGENERATOR, CYTOSCAPE_SVG)


def vendor_dir() -> Path:
    """Where downloaded front-end files are kept: ``VIZCOLL_VENDOR_DIR``, else ``$XDG_CACHE_HOME/vizcoll`` (by
    default ``~/.cache/vizcoll``)."""
    if os.environ.get("VIZCOLL_VENDOR_DIR"):
        return Path(os.environ["VIZCOLL_VENDOR_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vizcoll"


def plotly_served() -> Path:
    """The plotly.js the browser gets: the cartesian bundle when it is on disk, else the full one."""
    return PLOTLY.path if PLOTLY.path.is_file() else FULL


def page_scripts(tags: str, prefix: str) -> str:
    """The page's script tags ``tags`` as the app sends them (``prefix``: the app's path): regenerator-runtime in
    place of Dash's babel polyfill and cytoscape-svg after the rest, while their files are on disk."""
    if REGENERATOR.path.is_file():
        tags = POLYFILL.sub(f'<script src="{prefix}{REGENERATOR.route}"></script>', tags, count=1)
    if CYTOSCAPE_SVG.path.is_file():
        tags += f'<script src="{prefix}{CYTOSCAPE_SVG.route}"></script>'
    return tags


def _get(url: str, timeout: float) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (the registry's https address)
        data = response.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{url} is larger than {MAX_BYTES >> 20} MB")
    return data


def _checked(file: NpmFile, tarball: bytes, integrity: str) -> bytes:
    """``file``'s bytes out of its package's ``tarball``, once its SHA-512 matches the registry's ``integrity``."""
    algorithm, _, digest = integrity.partition("-")
    if algorithm != "sha512" or base64.b64decode(digest) != hashlib.sha512(tarball).digest():
        raise ValueError(f"the {file.package} {file.version} package does not match the registry's integrity")
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        data = archive.extractfile(archive.getmember(file.member)).read()
    if file.head not in data[:400]:
        raise ValueError(f"{file.member} in {file.package} is not the file of version {file.version}")
    return data


def fetch(file: NpmFile = PLOTLY, timeout: float = 60) -> Path:
    """Download ``file`` into :func:`vendor_dir` (see the module's docstring); its path. Raises one of
    :data:`FETCH_ERRORS` saying what failed."""
    meta = json.loads(_get(f"{REGISTRY}/{file.package}/{file.version}", timeout))
    dist = meta.get("dist") or {}
    tarball = str(dist.get("tarball", ""))
    if not tarball.startswith("https://"):  # never a local file, whatever the registry answers
        raise ValueError(f"the registry gave no https address for {file.package} {file.version}")
    data = _checked(file, _get(tarball, timeout), dist.get("integrity", ""))
    path = file.path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.part")
    partial.write_bytes(data)
    partial.replace(path)  # atomic: a web worker never serves half a file
    return path


def _ensured(file: NpmFile, timeout: float) -> str:
    if file.path.is_file():
        return f"{file.package} {file.version}: {file.path}"
    try:
        return f"{file.package} {file.version}: downloaded to {fetch(file, timeout)}"
    except FETCH_ERRORS as exc:
        return f"{file.package} {file.version} could not be downloaded ({exc}): the app serves {file.without}"


def ensure(timeout: float = 30) -> str:
    """Fetch each file that is not on disk; a line for each saying what the app serves (never raises)."""
    return "\n".join(_ensured(file, timeout) for file in FILES)


def register(app: Dash) -> None:
    """Serve plotly.js (:func:`plotly_served`) at :data:`ROUTE`, named in a ``<meta name="vizcoll-plotly">`` tag
    which ``assets/figures.js`` reads, and the other files at their routes; pages carry :func:`page_scripts`.
    dash-cytoscape's base bundle is loaded when cytoscape-svg is on disk as the app starts, else its extra bundle
    (which has cytoscape-svg). Each address carries its version: a browser may keep it a day."""
    prefix = app.config.routes_pathname_prefix
    files = {file.name: file for file in FILES if file is not PLOTLY}

    def vendored(name: str):
        if name not in files or not files[name].path.is_file():
            abort(404)
        return send_file(files[name].path, mimetype="text/javascript", max_age=86400)

    app.server.add_url_rule(
        prefix + ROUTE, "plotlyjs", lambda: send_file(plotly_served(), mimetype="text/javascript", max_age=86400)
    )
    app.server.add_url_rule(prefix + "_vizcoll/<name>", "vendored", vendored)
    app.config.meta_tags.append({"name": "vizcoll-plotly", "content": app.get_relative_path("/" + ROUTE)})
    if not CYTOSCAPE_SVG.path.is_file():
        cyto.load_extra_layouts()
    index = app.interpolate_index

    def interpolate_index(**parts):
        parts["scripts"] = page_scripts(parts["scripts"], app.get_relative_path("/"))
        return index(**parts)

    app.interpolate_index = interpolate_index


def main() -> None:
    """``python -m vizcoll.ui.vendor``: download the files (again), print where they went; exit 1 on failure."""
    done = []
    for file in FILES:
        try:
            path = fetch(file)
        except FETCH_ERRORS as exc:
            sys.exit(f"{file.package} {file.version} could not be downloaded: {exc}")
        done.append({"package": file.package, "version": file.version, "path": str(path), "bytes": path.stat().st_size})
    print(json.dumps(done))


if __name__ == "__main__":
    main()
