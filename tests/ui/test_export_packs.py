"""Figure packs: every page's ZIP holds what its README lists, SVGs parse, CSV numbers are the engine's, and a
pack made twice has the same SVG and CSV bytes."""

from __future__ import annotations

import csv
import html
import io
import re
import zipfile

import numpy as np
import pytest
from defusedxml import ElementTree

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.timeline import Timeline
from vizcoll.ui.export.catalog import pack_file, pack_of
from vizcoll.ui.export.names import pack_pages
from vizcoll.ui.export.packs import PackTable, csv_text, figure_pack
from vizcoll.ui.figures.paper import MIN_FONT_PX
from vizcoll.ui.pages.barrier import _model as barrier_model
from vizcoll.ui.pages.erasure import _model as erasure_model
from vizcoll.ui.pages.faults._model import overheads, reduction_runs, scenario_reduction
from vizcoll.ui.pages.multicast._model import protocol_timeline, routed
from vizcoll.ui.pages.schedules._model import analysis, example_goal, stored_params
from vizcoll.ui.pages.topology._model import broadcast_timeline
from vizcoll.ui.pages.trees._model import engine_key, tree_plan, type_one
from vizcoll.ui.store import DEFAULT_SCENARIO, page_params, topology_of

SCENARIO = DEFAULT_SCENARIO.with_params("multicast", {"group": 1})
GOAL = example_goal(SCENARIO)


def extra_of(page: str):
    return GOAL if page == "schedules" else None


class Packs(dict):
    """page -> (its Pack, its ZIP, the ZIP of the same pack made a second time), each made when a test first asks
    for it: a test process of pytest-xdist makes only the packs of the tests it runs (all seven took 48 s)."""

    def __missing__(self, page: str) -> tuple:
        pack = pack_of(page, SCENARIO, extra_of(page))
        self[page] = pack, figure_pack(pack, SCENARIO), figure_pack(pack, SCENARIO)
        return self[page]


@pytest.fixture(scope="module")
def packs() -> Packs:
    return Packs()


def table(archive: zipfile.ZipFile, name: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(archive.read(f"data/{name}.csv").decode())))


def test_every_page_has_a_pack():
    assert pack_pages() == ("topology", "trees", "multicast", "barrier", "faults", "erasure", "schedules")


@pytest.mark.parametrize("page", pack_pages())
def test_the_pack_holds_exactly_the_files_its_readme_lists(packs, page):
    pack, content, _ = packs[page]
    archive = zipfile.ZipFile(io.BytesIO(content))
    readme = archive.read("README.txt").decode()
    listed = re.findall(r"^(\S+\.(?:txt|json|svg|pdf|csv))$", readme, re.MULTILINE)
    assert sorted(listed) == sorted(archive.namelist())
    assert len(pack.figures) >= 2 and len(pack.tables) >= 2
    for fig in pack.figures:
        assert f"    {fig.caption}" in readme
    for name in archive.namelist():
        data = archive.read(name)
        if name.endswith(".svg"):
            root = ElementTree.fromstring(data)
            assert root.tag == "{http://www.w3.org/2000/svg}svg"
            sizes = [float(s) for s in re.findall(rb"font-size: ?([0-9.]+)px", data)]
            assert sizes and min(sizes) >= MIN_FONT_PX, (name, min(sizes))
        elif name.endswith(".pdf"):
            assert data.startswith(b"%PDF-")
        elif name.endswith(".csv"):
            rows = list(csv.reader(io.StringIO(data.decode())))
            assert rows and all(len(r) == len(rows[0]) for r in rows), name
    assert Scenario.loads(archive.read("scenario.json")) == SCENARIO


@pytest.mark.parametrize("page", pack_pages())
def test_a_pack_made_twice_has_the_same_svg_and_csv_bytes(packs, page):
    _, first, second = packs[page]
    a, b = zipfile.ZipFile(io.BytesIO(first)), zipfile.ZipFile(io.BytesIO(second))
    assert a.namelist() == b.namelist()
    for name in a.namelist():
        if not name.endswith(".pdf"):  # a PDF carries its creation time
            assert a.read(name) == b.read(name), name


@pytest.mark.parametrize("page", pack_pages())
def test_every_svg_is_titled_with_its_caption_and_the_fabric(packs, page):
    pack, data, _ = packs[page]
    archive = zipfile.ZipFile(io.BytesIO(data))
    for fig in pack.figures:
        svg = archive.read(f"figures/{fig.name}.svg").decode()
        title = svg[svg.index("<title>") + 7 : svg.index("</title>")]
        assert title.startswith(html.escape(fig.caption, quote=False)) and SCENARIO.title in title, (fig.name, title)
    if page == "multicast":  # the algorithm names the panel: A's and B's drawings never share a title
        titles = [archive.read(f"figures/efi-{x}.svg").decode().split("</title>")[0] for x in "ab"]
        assert "(minhop-new)" in titles[0] and "(fulb)" in titles[1]


def test_topology_csv_is_the_fabric(packs):
    archive = zipfile.ZipFile(io.BytesIO(packs["topology"][1]))
    topo = topology_of(SCENARIO)
    links = table(archive, "links")
    assert [(int(r["link_id"]), r["link"], int(r["broken"])) for r in links] == [
        (int(topo.link_id[row]), topo.link_label(row), int(topo.broken[row])) for row in range(topo.n_links)
    ]
    nodes = table(archive, "nodes")
    assert [r["name"] for r in nodes] == topo.names
    tl = Timeline.from_dict(broadcast_timeline(SCENARIO.source_key(), "h0"))
    assert {r["name"]: r["broadcast_state"] for r in nodes} == {n: str(tl.final_state[n]) for n in topo.names}
    messages = table(archive, "broadcast-messages")
    assert len(messages) == len(tl.events) and int(messages[-1]["step"]) == tl.n_steps


def test_trees_csv_is_the_engines_packets_per_link(packs):
    archive = zipfile.ZipFile(io.BytesIO(packs["trees"][1]))
    plan = tree_plan(SCENARIO)
    built = type_one(engine_key(SCENARIO, plan), plan["kind"], plan["routes"])
    rows = table(archive, "packets-per-link")
    assert {int(r["link_id"]): int(r["packets"]) for r in rows if int(r["packets"])} == built["metrics"]["link_packets"]
    compared = table(archive, "trees-compared")
    assert compared[0]["height"] == str(built["metrics"]["height"])
    assert float(compared[0]["latency_us"]) == built["metrics"]["latency_us"]


def test_multicast_csv_is_the_engines_efi(packs):
    archive = zipfile.ZipFile(io.BytesIO(packs["multicast"][1]))
    rows = table(archive, "efi-per-link")
    for column, algo in (("efi_a", "minhop-new"), ("efi_b", "fulb")):
        assert {int(r["link_id"]): int(r[column]) for r in rows} == routed(SCENARIO, algo).efi_by_link_id()
    summary = table(archive, "summary")
    assert [int(r["max_efi"]) for r in summary] == [
        routed(SCENARIO, a).summary()["max_efi"] for a in ("minhop-new", "fulb")
    ]
    protocol = table(archive, "protocol-messages")
    assert len(protocol) == len(Timeline.from_dict(protocol_timeline(SCENARIO)).events)


def test_barrier_csv_is_the_engines_run_and_sweep(packs):
    archive = zipfile.ZipFile(io.BytesIO(packs["barrier"][1]))
    plan, uq_key, sweep_key = barrier_model.view_keys(SCENARIO)
    figures = barrier_model.run_of(SCENARIO, plan)["figures"]
    run = {r["figure"]: r["value"] for r in table(archive, "run-figures")}
    assert float(run["time"]) == figures["time"] and int(run["messages"]) == figures["messages"]
    sweep = barrier_model.run_sweep(sweep_key["mode"], sweep_key["neighbors"])
    rows = table(archive, "sweep")
    assert len(rows) == len(sweep["rows"]) * len(sweep["columns"])
    first = sweep["rows"][0]
    assert float(rows[0]["sync_ms"]) == first["sync_ms"][sweep["columns"][0]]
    uq = {r["structure"]: r for r in table(archive, "uq")}
    assert float(uq["LCT"]["uq"]) == pytest.approx(1 - 7 / 26)  # the paper's Fig. 3 on the 4x4 grid


def test_faults_csv_is_the_engines_runs(packs):
    archive = zipfile.ZipFile(io.BytesIO(packs["faults"][1]))
    timeline, figures, binomial = reduction_runs(scenario_reduction(SCENARIO))
    red = {r["figure"]: r for r in table(archive, "reduction-figures")}
    assert float(red["time"]["task"]) == figures["time"] and float(red["time"]["binomial"]) == binomial["time"]
    assert [[int(r["i"]), int(r["j"]), int(r["to"])] for r in table(archive, "reduction-tasks")] == [
        [*t["pair"], t["to"]] for t in figures["tasks"]
    ]
    assert len(table(archive, "reduction-messages")) == len(timeline.events)
    over = {(r["variant"], r["program"]): float(r["overhead_pct"]) for r in table(archive, "treft-overhead")}
    assert over == {(v, p): pct for v, per in overheads().items() for p, pct in per.items()}


def test_erasure_csv_is_the_engines_repair_traffic(packs):
    archive = zipfile.ZipFile(io.BytesIO(packs["erasure"][1]))
    stored = page_params(SCENARIO, erasure_model.PAGE, erasure_model.DEFAULTS)
    params = erasure_model.read_params(
        *[stored[k] for k in ("n", "k", "dcs", "code", "traffic", "d", "seed", "placement")]
    )
    result = erasure_model.build_code(params)
    rows = table(archive, "repair")
    assert [int(r["cross_dc"]) for r in rows] == result["cross_dc_traffic"]
    assert [int(r["cross_dc_aggregated"]) for r in rows] == result["cross_dc_traffic_aggregated"]
    assert [[int(r[f"y{i}"]) for i in range(params["n"])] for r in table(archive, "generator")] == result["generator"]


def test_schedules_csv_is_the_loggp_timing(packs):
    archive = zipfile.ZipFile(io.BytesIO(packs["schedules"][1]))
    timing = analysis(GOAL["text"], stored_params(SCENARIO))["timing"]
    assert [int(r["finish"]) for r in table(archive, "finish-times")] == timing["finish"]


def test_csv_numbers_are_written_as_python_prints_them():
    text = csv_text(
        PackTable("t", "", [("a", ""), ("b", ""), ("c", "")], [[np.int64(3), 0.1 + 0.2, None], [True, [1, 2], "x,y"]])
    )
    assert text == 'a,b,c\n3,0.30000000000000004,\nTrue,1 2,"x,y"\n'


def test_a_page_without_what_its_pack_needs_says_why():
    with pytest.raises(VizcollError, match="open a GOAL file"):
        pack_of("schedules", SCENARIO)
    with pytest.raises(VizcollError, match="no figure pack"):
        pack_of("nowhere", SCENARIO)
    bad = SCENARIO.with_params("erasure", {"n": "99"})
    with pytest.raises(VizcollError):
        pack_file("erasure", bad)


def test_a_multicast_pack_of_a_drill_down_holds_the_whole_fabric_too():
    drilled = SCENARIO.with_params("multicast", {"group": 1, "part": "group:0"})
    pack = pack_of("multicast", drilled)
    names = [f.name for f in pack.figures]
    assert names == [
        "efi-a",
        "efi-b",
        "efi-difference",
        "efi-histogram",
        "efi-a-group0",
        "efi-b-group0",
        "efi-difference-group0",
    ]  # it held the drill-down alone (issue 24)
    captions = {f.name: f.caption for f in pack.figures}
    assert "(minhop-new)" in captions["efi-a"] and "the whole fabric" in captions["efi-a"]
    assert DEFAULT_SCENARIO.spec in captions["efi-a-group0"] and "pod 0" in captions["efi-a-group0"]
    whole, part = pack.figures[0].figure, pack.figures[4].figure
    assert len(whole.data[0].x) > len(part.data[0].x)  # two drawings: the fabric, then the pod alone


def test_a_topology_pack_of_a_drill_down_holds_the_whole_fabric_too():
    drilled = DEFAULT_SCENARIO.with_params("topology", {"part": "group:2"})
    pack = pack_of("topology", drilled)
    assert [f.name for f in pack.figures] == ["fabric", "broadcast-end", "fabric-group2"]  # it held the pod alone
    whole, part = pack.figures[0], pack.figures[2]
    assert DEFAULT_SCENARIO.spec in whole.caption and "pod 2" in part.caption and DEFAULT_SCENARIO.spec in part.caption
    assert len(whole.figure.data[0].x) > len(part.figure.data[0].x)


def test_a_trees_pack_of_a_drill_down_holds_the_whole_fabric_too():
    drilled = DEFAULT_SCENARIO.with_params("trees", {"part": "group:1"})
    names = [f.name for f in pack_of("trees", drilled).figures]
    assert names == [
        "tree-logical",
        "f-of-k",
        "tree-on-fabric",
        "type2-physical",
        "type2-mincost",
        "tree-on-fabric-group1",
        "type2-physical-group1",
        "type2-mincost-group1",
    ]
    captions = {f.name: f.caption for f in pack_of("trees", drilled).figures}
    assert "4-ary tree on fat-tree:radix=4,levels=3, the whole fabric" in captions["tree-on-fabric"]
    assert "pod 1" in captions["type2-mincost-group1"]
