"""Animation export: frame k equals what the player shows at step k, every player, and the encoded files.

The player's side is always the page's own callback (what the browser draws at slider value k); the state is
recomputed from the timeline with the player's ``timeline_at``.
"""

from __future__ import annotations

import io
import zipfile

import imageio.v2 as imageio
import imageio.v3 as iio
import numpy as np
import pytest

from vizcoll.errors import VizcollError
from vizcoll.ui.components.player import player_timeline, timeline_at
from vizcoll.ui.export.animation import AnimationOptions, export_animation, frame_figure, read_options
from vizcoll.ui.export.animations import animation_of
from vizcoll.ui.export.names import player_pages, players
from vizcoll.ui.figures.cytoscape import resolve_styles
from vizcoll.ui.figures.paper import paper_figure
from vizcoll.ui.figures.topology import BROKEN, STATE_COLOURS
from vizcoll.ui.pages.barrier import _model as barrier_model
from vizcoll.ui.pages.barrier import page as barrier
from vizcoll.ui.pages.barrier._views import CANVAS_LEGEND
from vizcoll.ui.pages.faults import page as faults
from vizcoll.ui.pages.multicast import page as multicast
from vizcoll.ui.pages.schedules import page as schedules
from vizcoll.ui.pages.schedules._model import example_goal
from vizcoll.ui.pages.topology import page as topology
from vizcoll.ui.pages.trees import page as trees
from vizcoll.ui.pages.trees._model import tree_plan
from vizcoll.ui.store import DEFAULT_SCENARIO, topology_of

W, H = 1280, 720
DATA = DEFAULT_SCENARIO.to_dict()
GROUP = DEFAULT_SCENARIO.with_params("multicast", {"group": 2})


def nodes_and_edges(fig):
    """(node id -> (fill, ring colour, ring width, x, y), edge id -> line colour) of a drawing frame."""
    marker_trace = next(t for t in fig.data if t.ids is not None)
    m = marker_trace.marker
    nodes = {
        i: (m.color[k], m.line.color[k], m.line.width[k], marker_trace.x[k], marker_trace.y[k])
        for k, i in enumerate(marker_trace.ids)
    }
    edges = {eid: t.line.color for t in fig.data if t.meta for eid in t.meta}
    return nodes, edges


def _topology_drawing():
    timeline = topology.compute_broadcast(DATA)["timeline"]
    return (
        animation_of("topology", DEFAULT_SCENARIO),
        topology.render_scenario(DATA)["elements"],
        lambda k: topology.render_step(k, timeline),
        timeline,
    )


def _trees_drawing():
    plan = tree_plan(DEFAULT_SCENARIO)
    animation = trees.animate(plan, DATA)
    tl_trees = animation["timeline"]
    return (
        animation_of("trees", DEFAULT_SCENARIO),
        animation["elements"],
        lambda k: trees.render_step(k, tl_trees, DATA),
        tl_trees,
    )


def _barrier_drawing():
    bar_plan = barrier_model.view_keys(DEFAULT_SCENARIO)[0]
    run = barrier.animate(lambda _: None, bar_plan, DATA)
    tl_bar, elements = run["timeline"], run["elements"]
    return (
        animation_of("barrier", DEFAULT_SCENARIO),
        elements,
        lambda k: barrier.render_step(k, tl_bar, bar_plan, DATA),
        tl_bar,
    )


def _schedules_drawing():
    goal = example_goal(DEFAULT_SCENARIO)
    analysed = schedules.analyse(goal=goal, scenario=DATA)
    return (
        animation_of("schedules", DEFAULT_SCENARIO, extra=goal),
        analysed["elements"],
        lambda k: schedules.render_step(k, analysed["timeline"], DATA),
        analysed["timeline"],
    )


DRAWING_CASES = {
    "topology": _topology_drawing,
    "trees": _trees_drawing,
    "barrier": _barrier_drawing,
    "schedules": _schedules_drawing,
}
"""(animation, elements, page stylesheet at position k, timeline dict) of every cytoscape player, built by the
test that uses it (built at collection, a player's timeline could be gone from the store by then)."""


@pytest.mark.parametrize("name", list(DRAWING_CASES))
def test_a_drawing_frame_is_the_players_drawing_at_that_step(name):
    animation, elements, sheet_at, timeline = DRAWING_CASES[name]()
    n = player_timeline(timeline).n_steps
    assert animation.timeline.n_steps == n
    for k in sorted({0, 1, n // 2, n}):
        frame = frame_figure(animation, k, W, H)
        nodes, edges = nodes_and_edges(frame)
        styles = resolve_styles(elements, sheet_at(k))
        shown = {e["data"]["id"]: e for e in elements if "position" in e}
        assert set(nodes) == set(shown)
        for nid, (fill, ring, width, x, y) in nodes.items():
            style = styles[nid]
            assert (x, y) == (shown[nid]["position"]["x"], -shown[nid]["position"]["y"])
            if float(style.get("background-opacity", 1)) != 0:
                assert fill == style["background-color"], (name, k, nid)
            assert (width > 0) == (float(style["border-width"]) > 0), (name, k, nid)
            if width > 0:
                assert ring == style["border-color"], (name, k, nid)
        assert edges == {
            e["data"]["id"]: styles[e["data"]["id"]]["line-color"] for e in elements if "source" in e["data"]
        }
        tl, step = timeline_at(timeline, k)
        texts = [a.text for a in frame.layout.annotations]
        assert f"step {step + 1} of {n}" in texts
        assert any(a.replace("<br>", "").startswith(tl.caption(step)[:60]) for a in texts), (name, k)


def test_the_broadcast_frame_rings_follow_the_state_at_that_step():
    """Recomputed from the timeline: at every step, the nodes that have the packet wear the received ring."""
    animation = animation_of("topology", DEFAULT_SCENARIO)
    timeline = animation.timeline.to_dict()
    for k in range(animation.timeline.n_steps + 1):
        tl, step = timeline_at(timeline, k)
        nodes, _ = nodes_and_edges(frame_figure(animation, k, W, H))
        received = {f"n{tl.entities[key]['node']}" for key, value in tl.state_at(step).items() if value == "received"}
        receiving = {f"n{e.dst}" for e in (tl.active_at(step) if step >= 0 else [])}
        for nid in received - receiving:
            assert nodes[nid][1] == STATE_COLOURS["received"], (k, nid)
        if k == 0:
            assert received == set()


def _reduction_figures():
    return animation_of("faults", DEFAULT_SCENARIO, "reduction"), lambda k: faults.render_reduction(k, "k", None, DATA)[
        "figure"
    ]


def _treft_figures():
    return animation_of("faults", DEFAULT_SCENARIO, "treft"), lambda k: faults.render_lanes(k, "k", DATA)


def _multicast_figures():
    timeline = multicast.group_protocol(GROUP.to_dict())
    return animation_of("multicast", GROUP), lambda k: multicast.render_protocol(k, timeline)


PLOTLY_CASES = {"reduction": _reduction_figures, "treft": _treft_figures, "multicast": _multicast_figures}
"""(animation, the page's figure at position k) of every Plotly player, built by the test that uses it."""


@pytest.mark.parametrize("name", list(PLOTLY_CASES))
def test_a_plotly_frame_is_the_players_figure_at_that_step(name):
    animation, page_figure = PLOTLY_CASES[name]()
    n = animation.timeline.n_steps
    for k in sorted({0, 1, n // 2, n}):
        frame = frame_figure(animation, k, W, H).to_plotly_json()
        shown = paper_figure(page_figure(k), W, H, app_colours=True).to_plotly_json()  # the page's colours
        assert frame["data"] == shown["data"]
        page_notes = shown["layout"].get("annotations", [])
        assert frame["layout"]["annotations"][: len(page_notes)] == page_notes
        tl = animation.timeline
        assert frame["layout"]["annotations"][-1]["text"] == f"step {k} of {n}"
        assert tl.caption(k - 1)[:60] in frame["layout"]["annotations"][-2]["text"].replace("<br>", "")


def test_every_player_of_the_app_has_an_animation():
    assert {page: players(page) for page in player_pages()} == {
        "topology": ("broadcast",),
        "trees": ("aggregation", "side-by-side"),
        "multicast": ("protocol", "side-by-side"),
        "barrier": ("barrier", "side-by-side"),
        "faults": ("reduction", "treft"),
        "schedules": ("replay",),
    }
    for page in player_pages():
        for player in players(page):
            scenario = GROUP if page == "multicast" else DEFAULT_SCENARIO
            extra = example_goal(scenario) if page == "schedules" else None
            assert animation_of(page, scenario, player, extra).timeline.n_steps > 0


def test_a_player_with_nothing_to_show_says_why():
    with pytest.raises(VizcollError, match="highlight a group"):
        animation_of("multicast", DEFAULT_SCENARIO)
    with pytest.raises(VizcollError, match="open a GOAL file"):
        animation_of("schedules", DEFAULT_SCENARIO)
    with pytest.raises(VizcollError, match="no player on page"):
        animation_of("erasure", DEFAULT_SCENARIO)
    with pytest.raises(VizcollError, match="has no player"):
        animation_of("faults", DEFAULT_SCENARIO, "nope")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("webm", 0, None, 2, "1280x720"), "unknown format"),
        (("gif", 5, 2, 2, "1280x720"), "last step must be between 5"),
        (("gif", -1, None, 2, "1280x720"), "first step must be between 0"),
        (("gif", 0, 99, 2, "1280x720"), "last step must be between 0 and 10"),
        (("gif", 0, None, 0, "1280x720"), "frames per second must be at least 0.1"),
        (("gif", 0, None, 120, "1280x720"), "at most 30"),
        (("gif", 0, None, 2, "1281x720"), "must be even"),
        (("gif", 0, None, 2, "4000x720"), "width must be between 320 and 1920"),
        (("gif", 0, None, 2, "big"), "WIDTHxHEIGHT"),
        (("gif", 0, None, "x", "1280x720"), "must be a number"),
    ],
)
def test_options_are_checked_with_their_limits(args, message):
    with pytest.raises(VizcollError, match=message):
        read_options(*args, n_positions=11)


def test_options_keep_a_gif_within_its_memory_budget():
    assert read_options("gif", 0, None, 2, "1280x720", 300).positions == range(300)
    with pytest.raises(VizcollError, match="301 frames is more than an export of 1280x720 may have \\(300\\)"):
        read_options("gif", 0, None, 2, "1280x720", 301)
    assert len(read_options("frames", 0, None, 2, "640x360", 600).positions) == 600
    with pytest.raises(VizcollError, match="more than an export of 640x360 may have \\(600\\)"):
        read_options("frames", 0, None, 2, "640x360", 601)


@pytest.fixture(scope="module")
def broadcast():
    return animation_of("topology", DEFAULT_SCENARIO)


@pytest.mark.parametrize("fmt", ["gif", "mp4", "frames"])
def test_a_whole_timeline_has_one_frame_per_step_read_back(broadcast, fmt):
    """GIF and MP4 read back with imageio: one frame per player position (the initial state and each step)."""
    positions = broadcast.timeline.n_steps + 1
    options = read_options(fmt, None, None, 4, "640x360", positions)
    done = []
    out = export_animation(broadcast, options, lambda d, total: done.append((d, total)))
    assert done == [(d, positions) for d in range(1, positions + 1)]
    assert out["frames"] == positions
    if fmt == "gif":
        frames = iio.imread(out["content"], index=None, extension=".gif")
        assert frames.shape[:3] == (positions, 360, 640)
        assert iio.immeta(out["content"], index=0, extension=".gif")["duration"] == 250
    elif fmt == "mp4":
        assert out["content"][4:8] == b"ftyp"
        path = f"/tmp/vizcoll-test-{id(out)}.mp4"
        with open(path, "wb") as file:
            file.write(out["content"])
        reader = imageio.get_reader(path, format="FFMPEG")
        assert reader.count_frames() == positions
        assert reader.get_meta_data()["codec"] == "h264" and reader.get_meta_data()["size"] == (640, 360)
    else:
        archive = zipfile.ZipFile(io.BytesIO(out["content"]))
        names = archive.namelist()
        assert names == [f"frame-{k:04d}.png" for k in range(positions)] + ["captions.csv"]
        assert iio.imread(archive.read("frame-0003.png")).shape[:2] == (360, 640)
        captions = archive.read("captions.csv").decode().splitlines()
        assert len(captions) == positions + 1
        assert captions[4].startswith("3,3,") and broadcast.timeline.caption(2) in captions[4]


def test_a_frame_range_exports_those_steps(broadcast):
    out = export_animation(broadcast, AnimationOptions("frames", 2, 4, 1, 640, 360))
    archive = zipfile.ZipFile(io.BytesIO(out["content"]))
    rows = archive.read("captions.csv").decode().splitlines()[1:]
    assert [row.split(",")[1] for row in rows] == ["2", "3", "4"]
    assert out["filename"] == "vizcoll-topology-broadcast.zip"


def test_a_large_fabrics_broadcast_is_exported_on_its_overview_as_the_page_plays_it():
    import numpy as np

    from vizcoll.scenario import Scenario

    scenario = Scenario(spec="torus:10x10x8,hosts=1")  # 1,600 nodes: the page draws its overview
    animation = animation_of("topology", scenario)
    handle = topology.compute_broadcast(scenario.to_dict(thin=True))["timeline"]
    frames = handle["overview"]
    assert animation.timeline.n_steps == handle["steps"] == frames["steps"]
    for k in (0, 1, handle["steps"] // 2, handle["steps"]):
        layer = next(t for t in animation.figure_at(k, W, H).data if t.meta == "overview-messages")
        lit = np.flatnonzero(np.asarray(layer.marker.size) > 0).tolist()
        assert lit == frames["bundles"][k]  # the bundles the browser lights at this step, no more, no less
        tl, step = timeline_at(handle, k)
        texts = [a.text.replace("<br>", "") for a in frame_figure(animation, k, W, H).layout.annotations]
        assert any(text.startswith(tl.caption(step)[:60]) for text in texts)


def campus_scenario():
    """The 1,570-node cluster of issue 23 with communicators of 16 processes: every page draws its overview."""
    from dataclasses import replace

    from tests.fabrics import campus_cluster
    from vizcoll.scenario import Scenario
    from vizcoll.topology import io as topo_io

    return replace(Scenario.from_upload(topo_io.parse(campus_cluster(), "campus.net"), "campus.net"), pattern="hier:16")


def page_handle(page: str, scenario):
    """The handle the page puts in its player for ``scenario`` (its overview frames included)."""
    from vizcoll.ui.pages.barrier import _views as barrier_views
    from vizcoll.ui.pages.schedules import _views as schedule_views
    from vizcoll.ui.pages.trees import _views as tree_views

    if page == "trees":
        return tree_views.aggregation_player(tree_plan(scenario), scenario)["timeline"]
    if page == "barrier":
        return barrier_views.run_view(scenario, barrier_model.view_keys(scenario)[0])["timeline"]
    from vizcoll.ui.pages.schedules._model import replay_of

    return schedule_views.replay_player(scenario, replay_of(scenario, example_goal(scenario), any_size=True)[1])


@pytest.mark.parametrize("page", ["trees", "barrier", "schedules"])
def test_a_large_fabrics_players_are_exported_on_its_overview_as_the_pages_light_it(page):
    import numpy as np

    scenario = campus_scenario()
    extra = example_goal(scenario) if page == "schedules" else None
    animation = animation_of(page, scenario, extra=extra)
    handle = page_handle(page, scenario)
    frames = handle["overview"]
    assert animation.timeline.n_steps == handle["steps"] == frames["steps"]
    lit_somewhere = 0
    for k in (0, 1, 2, 3, handle["steps"] // 2, handle["steps"]):
        figure = animation.figure_at(k, W, H)
        for meta, key in (("overview-messages", "bundles"), ("overview-nodes", "blocks")):
            layer = next(t for t in figure.data if t.meta == meta)
            lit = np.flatnonzero(np.asarray(layer.marker.size) > 0).tolist()
            assert lit == sorted(frames[key][k])  # what the browser lights at this step, no more, no less
            lit_somewhere += len(lit)
    assert lit_somewhere > 0


def test_a_group_drawn_alone_exports_the_barrier_node_by_node():
    scenario = campus_scenario().with_params("barrier", {"part": "group:1"})
    animation = animation_of("barrier", scenario)
    handle = page_handle("barrier", scenario)
    assert "overview" not in handle and handle["nodes"]
    states = [nodes_and_edges(animation.figure_at(k, W, H))[0] for k in (0, handle["steps"])]
    assert len(states[0]) == len(handle["nodes"])  # the group's nodes, each drawn
    assert sum(states[0][n][:3] != states[1][n][:3] for n in states[0]) > 0  # and they change with the run


def test_a_broken_link_stays_red_and_dashed_in_every_frame_as_the_page_draws_it_under_the_pages_legend():
    """Issue 46: the print theme's vermillion made a broken link look like a message's orange in a GIF, and a
    frame had no legend."""
    topo = topology_of(DEFAULT_SCENARIO)
    label = topo.link_label(int(np.flatnonzero(topo.kind[topo.link_a] == topo.kind[topo.link_b])[0]))
    scenario = DEFAULT_SCENARIO.toggled(label)
    animation = animation_of("barrier", scenario)
    for k in (0, 2, animation.timeline.n_steps):
        frame = frame_figure(animation, k, W, H)
        broken = [t for t in frame.data if t.meta and t.line.dash == "dash"]
        assert broken and {t.line.color for t in broken} == {BROKEN}, k
        keys = [(t.name, t.line.dash or t.marker.symbol) for t in frame.data if t.x == (None,)]
        assert frame.layout.showlegend and keys[-1] == ("broken link", "dash")
        assert [name for name, _ in keys] == [key.label for key in CANVAS_LEGEND]  # the page's own legend
