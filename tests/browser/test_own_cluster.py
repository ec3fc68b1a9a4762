"""Your own cluster in the browser: what the real tools print on it, read; its hosts named everywhere; your job's
hostfile as the communicators."""

from __future__ import annotations

from pathlib import Path

from dash.testing.wait import until

from .browser_helpers import counts_line

DATA = Path(__file__).resolve().parents[1] / "data"
CLUSTER = DATA / "cluster"
CLUSTER_COUNTS = counts_line(5, 9, 22, 0, 36)  # cluster.net: 5 switches, 9 HCAs, 22 cables


def test_a_real_ibnetdiscover_fabric_shows_host_names_in_captions_hovers_the_root_menu_and_the_trees_table(
    page, tmp_path
):
    page.open("/topology")
    page.upload("topo-upload", CLUSTER / "ports.txt")  # ibnetdiscover -p, as the real tool printed it
    page.duo.wait_for_text_to_equal("#topo-counts", CLUSTER_COUNTS, timeout=20)
    page.generate("fat-tree:radix=4,levels=2")
    page.duo.wait_for_text_to_equal("#topo-counts", counts_line(6, 8, 16, 0, 4), timeout=20)
    page.upload("topo-upload", CLUSTER / "stanzas.txt")  # ibnetdiscover, as the real tool printed it
    page.duo.wait_for_text_to_equal("#topo-counts", CLUSTER_COUNTS, timeout=20)
    until(lambda: page.cy("return cy.nodes().length;") == 14, 10, msg="the cluster is not drawn")
    labels = set(page.cy("return cy.nodes().map(n => n.data('label'));"))
    assert {"node01", "node02", "node06", "node05 mlx5_0", "MF0;spine-1:MQM8700/U1", "leaf-3"} <= labels
    assert not any(label.startswith(("H-", "S-")) for label in labels)
    captions = page.cy("return cy.nodes().map(n => n.data('caption')).filter(c => c);")
    assert any(c.startswith("node0") for c in captions) and not any(c.startswith("H-") for c in captions)

    page.hover_element("node[label = 'node01']")
    page.duo.wait_for_text_to_equal("#topo-hover", "node01 · node01 HCA-1 · GUID 0x0002c9030000a770")

    page.duo.select_dcc_dropdown("#topo-root", value="node06")  # the root menu lists the hosts
    page.duo.wait_for_contains_text("#topo-player-caption", "node06 broadcasts", timeout=20)

    hostfile = tmp_path / "hostfile"
    hostfile.write_text("# my job\nnode01 slots=2\nnode02.cluster.example.org slots=2\nnode06\n")
    page.upload("topo-comm-upload", hostfile)
    page.duo.wait_for_contains_text("#topo-comm-info", "1 communicator ", timeout=20)
    until(
        lambda: page.cy("return cy.$('node.comm0').map(n => n.data('label')).sort().join();") == "node01,node02,node06",
        10,
        msg="the hostfile's hosts are not the communicator",
    )

    unknown = tmp_path / "bad-hostfile"
    unknown.write_text("node01\nnode0254 slots=4\n")
    page.upload("topo-comm-upload", unknown)
    page.duo.wait_for_contains_text("#topo-message", "bad-hostfile, line 2: the fabric has no end node 'node0254'")
    page.screenshot("own-cluster-topology.png")

    page.click("a[href='/trees']")
    page.duo.wait_for_contains_text("#trees-compare", "hierarchical", timeout=30)
    table = page.duo.find_element("#trees-compare").text  # the busiest links named by hosts and switches
    assert "node01" in table and "Voltaire 4036 # rack-1 (8c10)" in table and "MF0;spine-1:MQM8700/U1" in table, table
    assert "H-0" not in table and "S-0" not in table
    assert page.duo.get_logs() == []
