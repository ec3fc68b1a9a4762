"""The registry of topology file formats: a format registered once is read, written, offered and explained by
the engine, the CLI and the topology page alike; no consumer spells a format's name itself."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from vizcoll.cli import main
from vizcoll.errors import FileFormatError
from vizcoll.topology import formats, from_spec
from vizcoll.topology import io as topo_io
from vizcoll.topology.formats.nodelink import from_node_link
from vizcoll.topology.model import Topology

PACKAGE = Path(__file__).resolve().parents[2] / "vizcoll"
SPEC = "fat-tree:radix=4,levels=2"


# ---------------------------------------------------------------- a toy format: an edge list, one "a b" per link
def read_edges(text: str, filename: str) -> Topology:
    pairs = [line.split() for line in text.split("\n") if line.strip() and not line.startswith("#")]
    if any(len(pair) != 2 for pair in pairs):
        raise FileFormatError("an edge list has two names a line", source=filename)
    topo = from_node_link({"nodes": sorted({name for pair in pairs for name in pair}), "links": pairs})
    topo.meta["format"] = "edges"
    return topo


def write_edges(topo: Topology) -> str:
    names = topo.names
    return "".join(f"{names[a]} {names[b]}\n" for a, b in zip(topo.link_a.tolist(), topo.link_b.tolist(), strict=True))


def sniff_edges(text: str) -> bool:
    lines = [line for line in text.split("\n") if line.strip() and not line.startswith("#")]
    return bool(lines) and all(len(line.split()) == 2 for line in lines)


EDGES = formats.FileFormat(
    "edges",
    "edge list",
    read_edges,
    write_edges,
    (".edges",),
    sniff_edges,
    help="one link a line: the names of its two ends",
)


@pytest.fixture
def edges():
    """The toy format, registered for one test (last in detection order) and taken out after it."""
    formats.register(EDGES)
    try:
        yield EDGES
    finally:
        formats.unregister(EDGES.name)
    assert EDGES.name not in formats.REGISTRY and ".edges" not in formats.extensions()


def test_a_registered_format_is_read_by_content_and_written_by_extension(edges, tmp_path):
    topo = from_spec(SPEC)
    text = topo_io.dumps(topo, "edges")
    assert topo_io.detect(text).name == "edges" and "edges" in formats.writable()
    back = topo_io.parse(text, "upload")  # no telling name: the content tells
    assert sorted(back.names) == sorted(topo.names) and back.n_links == topo.n_links
    assert back.meta["format"] == "edges"
    path = tmp_path / "t.edges"
    topo_io.write(topo, path)  # the format from the extension
    assert path.read_text() == text and topo_io.read(path).n_links == topo.n_links
    with pytest.raises(FileFormatError, match="no such file"):  # a known extension: no generator spec
        topo_io.load(str(tmp_path / "missing.edges"))
    for builtin in formats.writable()[:4]:  # the formats before it still win their own files
        assert topo_io.detect(topo_io.dumps(topo, builtin)).name != "edges"


def test_a_format_without_content_test_is_read_by_its_extension_only():
    pairs = replace(EDGES, name="pairs", extensions=(".pairs",), sniff=None)
    formats.register(pairs)
    try:
        assert topo_io.parse("a b\nb c\n", "f.pairs").n_links == 2
        with pytest.raises(FileFormatError, match="cannot tell the format; tried vizcoll JSON"):
            topo_io.parse("a b\nb c\n", "f.txt")
    finally:
        formats.unregister("pairs")


def test_registry_order_and_refusals(edges):
    assert [fmt.name for fmt in formats.readable()][-1] == "edges"
    with pytest.raises(ValueError, match="registered already"):
        formats.register(EDGES)
    with pytest.raises(ValueError, match="belong to other formats"):
        formats.register(replace(EDGES, name="other", extensions=(".net",)))
    early = formats.register(replace(EDGES, name="early", extensions=()), before="json")
    try:
        assert formats.readable()[0] is early
    finally:
        formats.unregister("early")


def test_the_cli_offers_and_explains_a_registered_format(edges, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        main(["topo", "export", "--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0 and "edges}" in out and "edges (.edges): one link a line" in " ".join(out.split())
    assert main(["topo", "export", SPEC, "--format", "edges"]) == 0
    assert capsys.readouterr().out == topo_io.dumps(from_spec(SPEC), "edges")
    path = tmp_path / "t.edges"
    assert main(["topo", "export", SPEC, "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["topo", "info", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "edges"
    with pytest.raises(SystemExit):
        main(["topo", "info", "--help"])
    assert "edges: one link a line" in " ".join(capsys.readouterr().out.split())


def test_the_topology_page_offers_and_explains_a_registered_format(edges):
    pytest.importorskip("dash")
    from tests.callback_context import in_callback
    from vizcoll.scenario import Scenario
    from vizcoll.ui.pages.topology import _model as model
    from vizcoll.ui.pages.topology import page

    hint, tooltip = model.upload_hint()
    assert hint.endswith(", edge list") and "edges: one link a line" in tooltip
    assert {"label": "edges (.edges)", "value": "edges", "title": formats.describe(EDGES)} in model.export_options()
    scenario = Scenario(spec=SPEC)
    assert "edges (.edges)" in str(page.body(scenario)) and "edge list" in str(page.body(scenario))
    out = in_callback(page.export, "topo-export-topo.n_clicks", 1, scenario.to_dict(), "edges")
    assert out == {"content": topo_io.dumps(from_spec(SPEC), "edges"), "filename": "topology.edges"}
