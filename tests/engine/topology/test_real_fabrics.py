"""Real fabrics' own files (../shared/data/real-fabrics, never copied here) load with their independent counts.

SOURCES.txt lists, per file, the switches, end nodes and links counted by other tools (an own counter and
ibsim's dump; for GraphML: nodes / edges). Every file must load, from a path (the CLI) and from its bytes (an
upload), with exactly those counts. Skipped where the folder is not there (set VIZCOLL_REAL_FABRICS to it).
"""

from __future__ import annotations

import re

import pytest

from tests.fabrics import REAL_FABRICS
from vizcoll.scenario import Scenario
from vizcoll.topology import io as topo_io
from vizcoll.topology.hops import min_hops

FOLDER = REAL_FABRICS
pytestmark = pytest.mark.skipif(not (FOLDER / "SOURCES.txt").exists(), reason=f"no real fabric files at {FOLDER}")


def listed_counts() -> dict[str, tuple[int, int, int]]:
    """file -> (switches, end nodes, links) from SOURCES.txt (GraphML: every node a switch, edges = links)."""
    text = (FOLDER / "SOURCES.txt").read_text()
    counts = {}
    for name, switches, ends, links in re.findall(r"^# (\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+yes", text, re.M):
        counts[name] = (int(switches), int(ends), int(links))
    zoo = re.search(r"^# GraphML \(nodes / edges / distinct node pairs\): (.*)$", text, re.M).group(1)
    for name, nodes, edges in re.findall(r"(\w+) (\d+)/(\d+)/\d+", zoo):
        counts[f"zoo-{name}.graphml"] = (int(nodes), 0, int(edges))
    return counts


COUNTS = listed_counts() if (FOLDER / "SOURCES.txt").exists() else {}


def test_every_file_of_the_folder_is_listed():
    files = {p.name for p in FOLDER.iterdir() if p.name != "SOURCES.txt"}
    assert files == set(COUNTS) and len(files) == 16


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_a_real_file_loads_with_its_listed_counts(name):
    path = FOLDER / name
    for topo in (topo_io.read(path), topo_io.parse(path.read_bytes(), name)):
        s = topo.summary()
        assert (s["switches"], s["endpoints"], s["links"]) == COUNTS[name]
    min_hops(topo)  # routes can be computed (loopback cables included)
    scenario = Scenario.from_upload(topo, name)
    assert Scenario.from_fragment(scenario.to_fragment()).topology().summary() == topo.summary()


def test_what_the_tools_tolerate_is_said_in_warnings():
    topo = topo_io.read(FOLDER / "ibtopotool-3.topo")
    warnings = topo.meta["warnings"]
    assert warnings[0].startswith("skipped 1 line it does not know (line 1: 'src/query_smp.c:195")
    assert warnings[1].startswith("3 loopback cables between two ports of one switch kept")
