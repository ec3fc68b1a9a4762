"""``pip install ".[web]"`` in a fresh virtual environment (no system packages), then ``vizcoll serve`` started from
another folder: the app, with its pages, its assets and its callbacks, comes from the installed package alone.

It installs from the package index (versions pinned by ``requirements.txt`` as constraints, so that pip takes what
the CI run has cached), and takes about a minute: ``scripts/test.sh`` runs it on its own (marker ``install``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from benchmarks.dash_http import DashClient
from tests.gunicorn_server import free_port, get
from tests.test_packaging import ROOT, source_copy

pytestmark = pytest.mark.install
ASSETS = ROOT / "vizcoll" / "ui" / "assets"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(base URL, the server's log) of ``vizcoll serve`` from the fresh venv, run in an empty folder."""
    root = tmp_path_factory.mktemp("installed")
    venv, elsewhere = root / "venv", root / "elsewhere"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = [venv / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    source, constraints = source_copy(root / "source"), root / "constraints.txt"
    constraints.write_text(re.sub(r"\[[^]]*\]", "", (ROOT / "requirements.txt").read_text()))  # pip: no extras there
    done = subprocess.run([*install, f"{source}[web]", "-c", constraints], capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    elsewhere.mkdir()
    port, log = free_port(), root / "serve.log"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PORT", "HOST", "WEB_CONCURRENCY")}
    env["VIZCOLL_CACHE_DIR"] = str(root / "cache")
    with log.open("w") as out:
        proc = subprocess.Popen(
            [venv / "bin" / "vizcoll", "serve", "--port", str(port), "--workers", "2"],
            cwd=elsewhere,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                get(base + "/healthz")
                break
            except OSError:
                assert proc.poll() is None, log.read_text()[-3000:]
                time.sleep(0.25)
        yield base, log
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def page_paths() -> list[str]:
    """Every page's path, from the app's own registry (the not-found page aside)."""
    import dash

    from app import app  # noqa: F401  (the pages register with the app)

    return sorted(page["path"] for page in dash.page_registry.values() if not page["module"].endswith("not_found_404"))


def test_the_installed_app_answers_its_health_check_from_another_folder(served):
    base, log = served
    assert get(base + "/healthz") == b'{"status":"ok"}\n'
    assert "Booting worker" in log.read_text()  # gunicorn, as `vizcoll serve` uses where it is installed


def test_every_page_is_drawn_by_the_installed_app(served):
    base, log = served
    client = DashClient(base)
    router = next(d for d in client.deps if d["output"].startswith(".._pages_content.children..."))  # Dash's router
    paths = page_paths()
    assert {"/", "/topology", "/trees", "/multicast", "/barrier", "/faults", "/erasure", "/help"} <= set(paths)
    for path in paths:
        page = get(base + path).decode()
        assert "<title>vizcoll</title>" in page and 'lang="en"' in page, path
        answer = client.post(router, {"_pages_location.pathname": path, "_pages_location.href": base + path})
        drawn = str(answer["response"]["_pages_content"]["children"])
        assert "Page not found" not in drawn and len(drawn) > 200, path
    assert "Traceback" not in log.read_text()


def test_every_asset_is_served_from_the_installed_package(served):
    base, _ = served
    page = get(base + "/").decode()
    for asset in sorted(ASSETS.iterdir()):
        assert f"/assets/{asset.name}?m=" in page, asset.name  # the page loads it
        assert get(f"{base}/assets/{asset.name}") == asset.read_bytes(), asset.name
