"""Download a scenario, open it into a fresh session, get the identical view."""

from __future__ import annotations

import json

from dash.testing.wait import until

from vizcoll.scenario import SCHEMA

from .browser_helpers import DEFAULT_COUNTS, counts_line


def test_export_then_import_gives_the_identical_view(page, tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    page.open("/topology")
    # headless Chromium only saves downloads once told where
    page.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})

    # edits: break link 5 by its id (stored by its ends and ports), add an end node
    page.type_into("#topo-link-id", "5")
    page.click("#topo-toggle-link")
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(20, 16, 48, 2, 4))
    page.type_into("#topo-new-name", "visitor")
    page.click("#topo-new-kind input[value=endpoint]")
    page.click("#topo-add-node")
    edited = counts_line(20, 17, 48, 2, 4)
    page.duo.wait_for_text_to_equal("#topo-counts", edited)
    until(
        lambda: page.cy("return cy.$('node[label = \"visitor\"]').hasClass('endpoint');"),
        10,
        msg="the new end node is not drawn",
    )
    view = page.elements()
    assert {eid.split("-")[0] for eid, classes, _ in view if "broken" in classes.split()} == {"l5", "l17"}

    page.click("#scenario-download-button")
    target = downloads / "vizcoll-scenario.json"
    until(lambda: target.exists() and not list(downloads.glob("*.crdownload")), 15, msg="no scenario was downloaded")
    saved = json.loads(target.read_text())
    assert saved["schema"] == SCHEMA
    assert saved["edits"] == [{"op": "add_node", "name": "visitor", "kind": "endpoint"}]
    assert saved["broken"] == ["edge0.0[4]-agg0.1[1]", "h5[1]-edge1.0[2]"]

    page.driver.execute_script("window.sessionStorage.clear();")
    page.open("/topology")  # a fresh session shows the default view again
    page.duo.wait_for_text_to_equal("#topo-counts", DEFAULT_COUNTS)
    assert page.elements() != view

    page.upload("scenario-open", target)
    page.duo.wait_for_text_to_equal("#topo-counts", edited)
    until(lambda: page.elements() == view, 10, msg="the imported view differs from the exported one")
    assert page.duo.find_element("#topo-message").text == ""
    assert page.duo.get_logs() == []
