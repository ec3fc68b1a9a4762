"""Exports in a real browser: from two pages of the app (the barrier's, the faults page's two players) the figure
pack and every player's animation land in the browser's download folder (Chromium told to save downloads there, as
a user's browser does); a drawing's PNG and SVG at every size (the canvas's own image, or the overview rendered on
the server)."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import imageio.v3 as iio
import pytest
from dash.testing.wait import until

from vizcoll.ui.store import DEFAULT_SCENARIO

PAGES = {  # path: (figure pack prefix, players)
    "/barrier": ("bar-pack", ["bar-player"]),
    "/faults": ("ft-pack", ["ft-red-player", "ft-treft-player"]),
}
"""The pages whose exports the whole app downloads here; the controls themselves are tested in a tiny app
(tests/browser/test_components.py), every page's wiring, pack and players without a browser (tests/ui)."""


@pytest.fixture
def downloads(page, tmp_path) -> Path:
    """The folder the browser saves downloads to."""
    page.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    page.driver.set_window_size(1400, 1000)
    return tmp_path


def downloaded(folder: Path, name: str, timeout: float = 120) -> bytes:
    """The bytes of ``name`` once the browser has finished saving it."""
    path = folder / name
    until(
        lambda: path.exists() and not list(folder.glob("*.crdownload")),
        timeout,
        msg=f"{name} was never downloaded (the folder has {sorted(p.name for p in folder.iterdir())})",
    )
    time.sleep(0.2)
    return path.read_bytes()


def press(page, selector: str) -> None:
    element = page.duo.find_element(selector)
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def export_animation(page, downloads: Path, player: str) -> None:
    """Open the player's Export animation, ask for its first two steps at 640x360 and read the GIF back."""
    press(page, f"#{player}-export summary")
    page.type_into(f"#{player}-export-last", "1")
    press(page, f"#{player}-export-button")
    until(
        lambda: page.duo.find_element(f"#{player}-export-message").text.startswith("vizcoll-"),
        120,
        msg=f"{player}: {page.duo.find_element(f'#{player}-export-message').text!r}",
    )
    name = page.duo.find_element(f"#{player}-export-message").text.split(":")[0]
    frames = iio.imread(downloaded(downloads, name), index=None, extension=".gif")
    assert frames.shape[:3] == (2, 720, 1280), player


@pytest.mark.parametrize("path", list(PAGES))
def test_the_figure_pack_and_every_animation_download_from_the_page(page, downloads, path):
    pack, players = PAGES[path]
    page.open(f"{path}#s={DEFAULT_SCENARIO.to_fragment()}", counts=None)
    for player in players:
        until(
            lambda p=player: page.driver.execute_script(
                f"const s = document.querySelector('#{p}-position'); return s && s.textContent.includes(' of ');"
            ),
            60,
            msg=f"{player} never got a timeline",
        )
        export_animation(page, downloads, player)
        page.screenshot(f"export-{player}.png")
    press(page, f"#{pack}-button")
    name = f"vizcoll-{path.strip('/')}-figures.zip"
    archive = zipfile.ZipFile(io.BytesIO(downloaded(downloads, name, timeout=240)))
    assert {"README.txt", "scenario.json"} <= set(archive.namelist())
    assert any(n.endswith(".svg") for n in archive.namelist()) and any(n.endswith(".csv") for n in archive.namelist())
    assert page.duo.find_element(f"#{pack}-message").text.startswith(name)
    page.screenshot(f"export-{pack}.png")
    assert page.duo.get_logs() == []


def download_to(page, folder: Path) -> Path:
    """Save the next downloads to ``folder`` (two downloads of one name never clash)."""
    folder.mkdir()
    page.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})
    return folder


def test_png_and_svg_of_the_topology_drawing_download_from_the_page(page, downloads):
    """The page's own wiring of its image buttons; the canvas's image and the server's render of a view too large for
    the canvas are tested in a tiny app (tests/browser/test_components.py)."""
    page.open("/topology")
    press(page, "#topo-png")  # the canvas draws the fabric: the browser saves its image (title, legend)
    assert downloaded(downloads, "vizcoll-topology.png")[:8] == b"\x89PNG\r\n\x1a\n"
    press(page, "#topo-svg")
    svg = downloaded(downloads, "vizcoll-topology.svg")
    assert svg.startswith(b"<svg") and b"Broadcast along a shortest-path tree" in svg  # the drawing's panel title
    page.driver.set_window_size(1280, 720)
    page.driver.execute_script("document.getElementById('topo-png').scrollIntoView({block: 'center'});")
    page.screenshot("image-download-topology.png")
    assert page.duo.get_logs() == []
