"""Components in tiny apps, the dash-bootstrap-components way (issue 49): each test serves only the component it
drives, on the default scenario, in a browser of its own, and finds it by its ids.

- The export controls: a player's "Export animation" and a page's "Download figure pack" run as background jobs and
  land in the download folder. Every page's wiring of them is checked without a browser
  (tests/ui/test_export_controls.py), every pack's and every player's content too (tests/ui/test_export_packs.py,
  tests/ui/test_export_animation.py); the whole app keeps two pages' (tests/browser/test_exports.py).
"""

from __future__ import annotations

import zipfile
from io import BytesIO

from dash import Dash, dcc, html

from vizcoll.ui import jobs
from vizcoll.ui.app import ASSETS
from vizcoll.ui.cache import init_cache
from vizcoll.ui.components.exports import animation_export, figure_pack, register_animation_export, register_figure_pack
from vizcoll.ui.store import DEFAULT_SCENARIO, SCENARIO

from .browser_helpers import TopologyPage
from .conftest import WINDOW, free_port
from .test_exports import downloaded, export_animation, press


def tiny_app(*children) -> Dash:
    """An app of ``children`` and the shared scenario store (the default scenario), with the app's assets, cache
    and job pool: what a component needs of the app, nothing else."""
    app = Dash(
        __name__,
        assets_folder=str(ASSETS),
        suppress_callback_exceptions=True,
        background_callback_manager=jobs.manager(),
    )
    app.layout = html.Div([dcc.Store(id=SCENARIO, data=DEFAULT_SCENARIO.to_dict(thin=True)), *children])
    init_cache(app.server)
    return app


def served(dash_duo, app: Dash, downloads) -> TopologyPage:
    """``app`` served and opened in ``dash_duo``'s browser, which saves downloads to ``downloads``."""
    dash_duo.start_server(app, port=free_port())
    dash_duo.driver.set_window_size(*WINDOW)
    dash_duo.driver.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
    )
    return TopologyPage(dash_duo)


def test_the_export_controls_download_an_animation_and_a_figure_pack(dash_duo, tmp_path):
    app = tiny_app(animation_export("topo-player"), figure_pack("topo-pack"))
    register_animation_export(app, "topo-player", "topology")
    register_figure_pack(app, "topo-pack", "topology")
    page = served(dash_duo, app, tmp_path)
    export_animation(page, tmp_path, "topo-player")  # its first two steps, read back: 2 frames of 1280x720
    press(page, "#topo-pack-button")
    archive = zipfile.ZipFile(BytesIO(downloaded(tmp_path, "vizcoll-topology-figures.zip", timeout=240)))
    assert {"README.txt", "scenario.json"} <= set(archive.namelist())
    assert any(name.endswith(".svg") for name in archive.namelist())
    page.duo.wait_for_contains_text("#topo-pack-message", "vizcoll-topology-figures.zip: ", timeout=20)
    assert "flag warn" not in page.duo.find_element("#topo-pack-message").get_attribute("class")
    assert page.duo.get_logs() == []
