"""Every page's first answer at its largest presets, cold and warm, with the callbacks called in-process.

Run ``python benchmarks/pages.py`` (options: ``--only /trees``, ``--case NAME``, ``--repeat N``). No browser
and no server: each case calls, in a fresh Python process with a fresh cache directory, the callbacks the
browser would trigger for one user action, in the order Dash runs them (a preset's ``update``, the views
following the new scenario, a background job run to its end with its progress discarded), exactly as the
page tests call them (:mod:`tests.callback_context`). Imports are done before the clock starts.

- ``cold_s``: the first run, on an empty engine cache (a fresh ``VIZCOLL_CACHE_DIR``);
- ``warm_s``: the same action again, every engine result and figure in the shared cache but none in the
  process's memory (as another web worker, or a new background job, answers it): the best of two.

With ``--repeat N`` each case runs in N fresh processes and the best cold time is kept (the machine is
shared; the spread is printed on stderr). It prints one JSON list, one entry per case:
``{"page": "/trees", "case": "...", "cold_s": ..., "warm_s": ...}``. A full run takes a few minutes.

``--fabric FILE`` runs every page's first answer on the fabric of any file vizcoll reads instead (uploaded on
/topology, opened from a share link, then /trees with every process, /multicast, /barrier and /schedules on it);
``--bytes`` adds ``request_bytes`` and ``response_bytes``: what the callbacks of the action take in (their
Inputs and States as JSON: what the browser posts) and give back (their outputs as Dash serialises them), for
the cases that count them (the ``--fabric`` ones). ``--fabric campus`` is the 1,570-node cluster of
``tests/fabrics.py`` (``campus_cluster``), written to a temporary file. ``--markdown`` prints the docs' table
(docs/benchmarks.md) instead of the JSON, with the date, the commit and the machine.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.fresh import run_child  # noqa: E402

TAIHULIGHT, FAT_TREE_64 = "pruned-fat-tree:preset=taihulight", "fat-tree:radix=64,levels=3"


def no_progress(_value) -> None:
    """A background callback's ``set_progress``, called directly."""


METER = {"request": 0, "response": 0}
"""Bytes the metered callbacks of the running action took in and gave back (see :func:`call`)."""


def _json_size(value) -> int:
    from plotly.io.json import to_json_plotly

    return len(to_json_plotly(value))


def call(fn, *args, prop: str | None = None, **kwargs):
    """``fn(*args, **kwargs)`` as Dash runs a callback for the browser (triggered by ``prop`` when given), counting
    the bytes of its arguments (posted; a background job's ``set_progress`` is no argument of the browser's) and of
    its outputs (sent back) in :data:`METER`."""
    from dash import no_update

    from tests.callback_context import in_callback

    METER["request"] += _json_size([a for a in args if not callable(a)] + list(kwargs.values()))
    out = in_callback(fn, prop, *args, **kwargs)
    sent = {k: v for k, v in out.items() if v is not no_update} if isinstance(out, dict) else out  # as Dash sends it
    METER["response"] += _json_size(sent)
    return out


@functools.cache
def callbacks(page) -> dict:
    """``page``'s callbacks as Dash calls them, by name: the store as the browser posts it in, every output by name
    out (:func:`tests.callback_context.registered`)."""
    from tests.callback_context import registered

    return registered(page)


# ---------------------------------------------------------------- the cases: one user action each
def topology_generate(spec: str) -> Callable[[], object]:
    """/topology: a spec typed and Generate pressed; the drawing, the counts and the broadcast follow."""
    from tests.callback_context import in_callback
    from vizcoll.ui.pages.topology import page
    from vizcoll.ui.store import DEFAULT_SCENARIO

    states = {key: None for key in page._scenario_states()} | {"scenario": DEFAULT_SCENARIO.to_dict()}
    values = {key: None for key in page._scenario_inputs()} | states | {"params": spec, "generate": 1}

    def run():
        store = in_callback(page.update_scenario, f"{page.TOPO_GENERATE}.n_clicks", **values)["scenario"]
        return page.render_scenario(store), page.compute_broadcast(store)

    return run


def _trees_action(preset: str, spec: str = "", k: int = 2, kind: str | None = None) -> Callable[[], tuple]:
    """/trees: "Replace the scenario with this preset" (or a scenario on ``spec`` opened with its every process and
    width ``k``), or with ``kind`` that tree kind chosen once the preset's views are computed: the action, which
    returns (the scenario store, the views, F(k) or None)."""
    from tests.callback_context import in_callback
    from vizcoll.scenario import Scenario
    from vizcoll.ui.pages.trees import _model as model
    from vizcoll.ui.pages.trees import page
    from vizcoll.ui.store import DEFAULT_SCENARIO

    controls = {key: model.DEFAULTS[key] for key in page.PARAM_CONTROLS}
    opened = Scenario(spec=spec, params={"trees": {"k": k}}).to_dict() if spec else None

    def use_preset():
        values = {"values": controls, "use_preset": 1, "tap_edge": None, "preset": preset}
        prop = f"{page.TREES_USE_PRESET}.n_clicks"
        return in_callback(callbacks(page)["update"], prop, scenario=DEFAULT_SCENARIO.to_dict(), **values)["store"]

    def views(store):
        plan = page.refresh(store)["key"]
        job = page.dispatch(plan, None, None, store)
        if isinstance(job, dict):
            return page.compute_views(no_progress, job, store), plan
        return (
            page.render_compare(plan, store),
            page.render_type_one(plan, store),
            page.render_type_two(plan, True, store),
            page.animate(plan, store),
        ), plan

    if kind is None:

        def run():
            store = opened or use_preset()
            shown, plan = views(store)
            return store, shown, page.render_width(plan, store)

        return run
    views(use_preset())  # the preset's views computed before the other kind is timed
    store = use_preset()
    values = model.shown_params(Scenario.from_dict(store)) | {"kind": kind}

    def other():
        changed = in_callback(
            callbacks(page)["update"],
            f"{page.TREES_KIND}.value",
            values={key: values[key] for key in page.PARAM_CONTROLS},
            use_preset=1,
            tap_edge=None,
            preset=preset,
            scenario=store,
        )["store"]
        return changed, views(changed)[0], None

    return other


def trees_preset(preset: str, spec: str = "", k: int = 2) -> Callable[[], object]:
    """/trees: "Replace the scenario with this preset" (or a scenario on ``spec`` opened with its every process and
    width ``k``); the plan, the background job of the views, F(k): what the page shows first. On a large plan the
    aggregation's player follows in a job of its own that the views' job orders as it ends (until 2026-12, the views'
    job's last stage), timed apart (:func:`trees_player`)."""
    return _trees_action(preset, spec, k)


def trees_other_kind(preset: str, kind: str) -> Callable[[], object]:
    """/trees: another tree kind chosen once the preset's views are computed (the trees are cached; the chosen
    tree's drawings are new): the page's drill into one tree. Its aggregation's player is timed apart
    (:func:`trees_player`)."""
    return _trees_action(preset, kind=kind)


def trees_player(preset: str, spec: str = "", k: int = 2, kind: str | None = None) -> Callable[[], object]:
    """/trees: the aggregation's player of a large plan once the views are shown (those of :func:`trees_preset`, or
    with ``kind`` of :func:`trees_other_kind`, computed before the clock starts): the job the views' job orders as it
    ends (the timeline, the player's handle, the overview's frames), run to its end."""
    from vizcoll.ui.pages.trees import page

    store, views, _ = _trees_action(preset, spec, k, kind)()
    order = views.get("order") if isinstance(views, dict) else None
    assert isinstance(order, dict), "the views were computed in the request: no aggregation job to time"
    return lambda: page.compute_animation(no_progress, order, store)


def multicast_preset(
    preset: str, group: int | None = None, part: str | None = None, second: bool = False
) -> Callable[[], object]:
    """/multicast: "Use this preset" (then, with ``group`` / ``part``, one group highlighted / one part drawn:
    the drill-down, timed on its own once the preset's views are computed); on a large fabric the routes are
    background jobs. The preset's case times the page's first view: until 2026-12 one job routed A and B and drew
    every view; now the routes' job routes A and draws A's views, run to its end, and orders B's job, which routes
    B and draws every view with the comparison: timed apart with ``second`` (its first job run before the clock)."""
    from tests.callback_context import in_callback
    from vizcoll.scenario import Scenario
    from vizcoll.ui.pages.multicast import page
    from vizcoll.ui.store import DEFAULT_SCENARIO

    named = callbacks(page)

    def use_preset():
        return in_callback(
            page.update, f"{page.MC_USE_PRESET}.n_clicks", {}, {}, 1, preset, DEFAULT_SCENARIO.to_dict()
        )["scenario"]

    def views(store):  # what follows a new store: the controls, the views, and on a large fabric the routes' job
        shown = named["controls"](scenario=store), named["render"](scenario=store), page.group_protocol(store)
        job = page.dispatch(store)
        return named["compute_views"](no_progress, order=job, scenario=store) if isinstance(job, dict) else shown

    def every_view(store):  # the first view, then B's job it orders (before the clock)
        first = views(store)
        order = first.get("order_b") if isinstance(first, dict) else None
        return named["compute_second"](no_progress, order=order, scenario=store) if isinstance(order, dict) else first

    preset_store = use_preset()
    if second:
        order = views(preset_store)["order_b"]
        assert isinstance(order, dict), "A's job ordered no job of B: nothing to time"
        return lambda: named["compute_second"](no_progress, order=order, scenario=preset_store)
    if group is None and part is None:
        return lambda: views(use_preset())
    every_view(preset_store)  # the preset's views computed before the drill-down is timed
    p = page.page_state(Scenario.from_dict(preset_store))[2]
    trigger = page.MC_GROUP if group is not None else page.MC_PART

    def drill():
        store = in_callback(
            page.update,
            f"{trigger}.value",
            {"a": p["a"], "b": p["b"], "part": part, "group": group},
            {},
            1,
            preset,
            preset_store,
        )["scenario"]
        return views(store)

    return drill


def barrier_grid(side: int = 16) -> Callable[[], object]:
    """/barrier: "Use this grid" at 16 x 16 with 8 neighbors; the run (a job), LCT/BST and the UQ histogram."""
    from tests.callback_context import in_callback
    from vizcoll.ui.pages.barrier import _model as model
    from vizcoll.ui.pages.barrier import page
    from vizcoll.ui.store import DEFAULT_SCENARIO

    def run():
        store = in_callback(
            page.update,
            f"{page.BAR_USE_GRID}.n_clicks",
            None,
            1,
            0,
            None,
            f"{side}x{side}",
            8,
            {key: model.DEFAULTS[key] for key in page.PARAM_CONTROLS},
            DEFAULT_SCENARIO.to_dict(),
        )["scenario"]
        refreshed = page.refresh(store)
        plan, uq_key = refreshed["plan"], refreshed["uq"]
        return page.animate(no_progress, plan, store), page.render_uq(uq_key), page.render_histogram(uq_key)

    return run


def barrier_sweep(mode: str) -> Callable[[], object]:
    """/barrier: the quick or the full sweep (every algorithm, grid size and break rate), a background job."""
    from vizcoll.ui.pages.barrier import page

    def run():
        sweep = page.compute_sweep(no_progress, {"mode": mode, "neighbors": 8}, None, None)
        return page.render_sweep(sweep["sweep"], sweep["size"], sweep["rate"])

    return run


def faults_largest() -> Callable[[], object]:
    """/faults: the reduction at its largest (32 processes of 32 MiB, a worker failing while it executes its
    task) and TREFT's run with a soft error, each drawn at its last step."""
    from tests.callback_context import in_callback
    from vizcoll.ui.pages.faults import _model as model
    from vizcoll.ui.pages.faults import page
    from vizcoll.ui.store import DEFAULT_SCENARIO

    d = model.DEFAULTS

    def run():
        reduction = in_callback(
            page.run_reduction,
            f"{page.FT_RED_PROCS}.value",
            DEFAULT_SCENARIO,
            None,
            procs=str(model.MAX_PROCS),
            size=str(32 << 20),
            root="0",
            slow=d["slow"],
            fault="executing-task",
            seed=d["seed"],
        )
        treft = in_callback(
            page.run_treft,
            f"{page.FT_TREFT_WORKFLOW}.value",
            DEFAULT_SCENARIO,
            workflow=d["workflow"],
            cls=d["cls"],
            variant=d["variant"],
            replica="1",
            kernel="K4",
            var="u4",
            second=d["second"],
        )
        return (
            page.render_reduction(10**6, reduction["key"], None, reduction["scenario"]),
            page.render_lanes(10**6, treft["key"], treft["scenario"]),
        )

    return run


def faults_overhead() -> Callable[[], object]:
    """/faults: TREFT's overhead chart (18 runs), the background job the page starts when it opens."""
    from vizcoll.ui.pages.faults import page

    return lambda: page.render_overhead(no_progress, None)


def erasure_code(n: int, k: int, dcs: int) -> Callable[[], object]:
    """/erasure: the controls set to an FMEL (n, k) code over ``dcs`` data centres: the build (a job), its
    views, and the family comparison (a job): the page's defaults are (9, 5, 3), its largest codes n = 32."""
    from tests.callback_context import in_callback
    from vizcoll.ui.pages.erasure import _model as model
    from vizcoll.ui.pages.erasure import page
    from vizcoll.ui.store import DEFAULT_SCENARIO

    def run():
        values = {"n": str(n), "k": str(k), "dcs": str(dcs), "code": "fmel", "traffic": "blocks", "d": "", "seed": "0"}
        built = in_callback(page.build, f"{page.ERA_N}.value", no_progress, DEFAULT_SCENARIO, **values, placement="")
        key, store = built["key"], built["scenario"]
        return (
            page.render_dcs(key, dict(model.EMPTY_VIEW), store),
            page.render_code(key, store),
            page.render_compare(no_progress, key, store),
        )

    return run


def schedules_goal(ranks: int) -> Callable[[], object]:
    """/schedules: a GOAL file opened (a binomial reduce over ``ranks`` ranks; the example when 0) on the
    TaihuLight scenario: its check, LogGP timing, chart and replay."""
    from tests.callback_context import in_callback
    from vizcoll.scenario import Scenario
    from vizcoll.schedule import dumps, tree_collective
    from vizcoll.trees.typeone import knomial_tree
    from vizcoll.ui.pages.schedules import page

    data = Scenario(spec=TAIHULIGHT).to_dict()
    goal = (
        {"name": f"reduce-{ranks}.goal", "text": dumps(tree_collective(knomial_tree(ranks, 2), "reduce", 8))}
        if ranks
        else None
    )

    def run():
        opened = goal or in_callback(page.load_goal, f"{page.SCHED_EXAMPLE}.n_clicks", None, 1, None, data)["goal"]
        return page.analyse(opened, data)

    return run


# ---------------------------------------------------------------- the cases of --fabric FILE
FABRIC = os.environ.get("VIZCOLL_BENCH_FABRIC", "")
"""The file of ``--fabric`` (the child processes read it from the environment)."""


FABRIC_PATTERN = "hier:16"
"""The communicators of the ``--fabric`` cases: groups of 16 consecutive processes, then their leaders (a
class's first pattern), so that /multicast routes groups and /barrier synchronises a communicator."""


def _uploaded_store() -> dict:
    """The scenario store of the file uploaded on /topology with :data:`FABRIC_PATTERN` (what the browser
    keeps)."""
    from dataclasses import replace

    from vizcoll.scenario import Scenario
    from vizcoll.topology import io as topo_io

    name = Path(FABRIC).name
    scenario = Scenario.from_upload(topo_io.read(FABRIC), name)
    return replace(scenario, pattern=FABRIC_PATTERN).to_dict(thin=True)


def fabric_upload() -> Callable[[], object]:
    """/topology: the file chosen in the upload box: the scenario, the drawing and the broadcast that follow."""
    import base64

    from vizcoll.ui.pages.topology import page
    from vizcoll.ui.store import DEFAULT_SCENARIO

    contents = "data:application/octet-stream;base64," + base64.b64encode(Path(FABRIC).read_bytes()).decode()
    states = {key: None for key in page._scenario_states()} | {
        "scenario": DEFAULT_SCENARIO.to_dict(thin=True),
        "upload_name": Path(FABRIC).name,
    }

    def run():
        values = {key: None for key in page._scenario_inputs()} | states | {"upload": contents}
        if page.large_upload(contents):
            store = call(page.read_large_upload, no_progress, contents, Path(FABRIC).name, None, states["scenario"])
        else:
            store = call(page.update_scenario, prop=f"{page.TOPO_UPLOAD}.contents", **values)
        store = store["scenario"]
        return call(page.render_scenario, store), call(page.compute_broadcast, store)

    return run


def fabric_link() -> Callable[[], object]:
    """/topology opened from the share link of the uploaded file: the page drawn with its first views and the link
    read into the store (the router's answer: :func:`vizcoll.ui.routing.page_scenario`,
    :func:`vizcoll.ui.pages.topology.page.first_views`), then the views of the store, which change nothing."""
    from tests.callback_context import find_component, with_props
    from vizcoll.scenario import Scenario
    from vizcoll.ui.pages.topology import page
    from vizcoll.ui.store import SCENARIO

    link = "#s=" + Scenario.from_dict(_uploaded_store()).to_fragment()

    def run():
        METER["request"] += _json_size([link])
        layout, props = with_props(page.layout, shell_hash=link, shell_scenario=None, shell_version=0)
        METER["response"] += _json_size(props) + _json_size(layout)
        store, drawn = props[SCENARIO]["data"], find_component(layout, page.TOPO_DRAWN).data  # as the browser sends
        render = page.unless_shown(page.render_with_key)
        return call(render, store, drawn), call(page.unless_shown(page.compute_broadcast), store, drawn)

    return run


def fabric_page(name: str) -> Callable[[], object]:
    """/trees, /multicast, /barrier or /schedules opened on the uploaded file's scenario: the page's layout and
    the callbacks that run when it opens (background jobs run to their end)."""
    from vizcoll.scenario import Scenario

    store = _uploaded_store()
    opened = {
        "/trees": _open_trees,
        "/multicast": _open_multicast,
        "/barrier": _open_barrier,
        "/schedules": _open_schedules,
    }[name]

    def run():
        return opened(store, Scenario.from_dict(store))

    return run


def _open_trees(store: dict, scenario) -> object:
    from vizcoll.ui.pages.trees import page

    opened = _drawn(page, scenario)
    plan = page.refresh(store)["key"]  # the key the page holds (drawn with it)
    job = call(page.dispatch, plan, None, None, store)
    if isinstance(job, dict):
        return call(page.compute_views, no_progress, job, store)
    return opened, call(page.render_type_two, plan, True, store)  # drawn once on the screen: as if scrolled to


def _open_multicast(store: dict, scenario) -> object:
    from vizcoll.ui.pages.multicast import page

    page.body(scenario)
    named = callbacks(page)
    shown = call(named["controls"], scenario=store), call(named["render"], scenario=store)
    shown = (*shown, call(page.group_protocol, store))
    job = call(page.dispatch, store)
    return call(named["compute_views"], no_progress, order=job, scenario=store) if isinstance(job, dict) else shown


def _open_barrier(store: dict, scenario) -> object:
    from vizcoll.ui.pages.barrier import page

    opened = _drawn(page, scenario)
    refreshed = page.refresh(store)  # the keys the page holds (drawn with them)
    plan, uq_key = refreshed["plan"], refreshed["uq"]
    job = call(page.opening_order, plan, store)
    run = call(page.run_job, no_progress, job, store) if isinstance(job, dict) else None
    return opened, run, call(page.render_uq, uq_key)


def _drawn(page, scenario) -> object:
    """The router's answer: ``page``'s layout for ``scenario`` with the first views its ``body`` draws (/trees,
    /barrier: :func:`vizcoll.ui.routing.filled`), counted as a response."""
    layout = page.body(scenario)
    METER["response"] += _json_size(layout)
    return layout


def _open_schedules(store: dict, scenario) -> object:
    from vizcoll.ui.pages.schedules import page

    page.body(scenario)
    opened = call(page.load_goal, None, 1, None, store, prop=f"{page.SCHED_EXAMPLE}.n_clicks")["goal"]
    return call(page.analyse, opened, store)


def fabric_click_break() -> Callable[[], object]:
    """/topology on the uploaded file: a click on a link breaks it; the drawing and the broadcast follow."""
    from vizcoll.scenario import Scenario
    from vizcoll.ui.pages.topology import page
    from vizcoll.ui.store import topology_of

    store = _uploaded_store()
    topo = topology_of(Scenario.from_dict(store))
    tap = {"data": {"name": topo.link_label(topo.n_links // 2)}}
    states = {key: None for key in page._scenario_states()} | {"scenario": store, "mode": page.SELECT}
    values = {key: None for key in page._scenario_inputs()} | states | {"tap_edge": tap}

    def run():
        broken = call(page.update_scenario, prop=f"{page.TOPO_CANVAS}.tapEdge", **values)["scenario"]
        return call(page.render_scenario, broken), call(page.compute_broadcast, broken)

    return run


def fabric_click_k() -> Callable[[], object]:
    """/trees on the uploaded file: the width k changed to 8; the plan and the views follow."""
    from vizcoll.scenario import Scenario
    from vizcoll.ui.pages.trees import _model as model
    from vizcoll.ui.pages.trees import page

    store = _uploaded_store()
    _open_trees(store, Scenario.from_dict(store))  # the page open before the click
    values = model.shown_params(Scenario.from_dict(store)) | {"k": 8}

    def run():
        changed = call(
            callbacks(page)["update"],
            values={key: values[key] for key in page.PARAM_CONTROLS},
            use_preset=1,
            tap_edge=None,
            preset="",
            scenario=store,
            prop=f"{page.TREES_K}.value",
        )["store"]
        return _open_trees(changed, Scenario.from_dict(changed))

    return run


FABRIC_CASES: dict[str, tuple[str, Callable[[], Callable[[], object]]]] = {
    "upload the file": ("/topology", fabric_upload),
    "open its share link": ("/topology", fabric_link),
    "a click breaks a link": ("/topology", fabric_click_break),
    "k changed to 8": ("/trees", fabric_click_k),
    **{
        f"open on the file, every process ({p})": (p, lambda p=p: fabric_page(p))
        for p in ("/trees", "/multicast", "/barrier", "/schedules")
    },
}


CASES: dict[str, tuple[str, Callable[[], Callable[[], object]]]] = {
    "generate TaihuLight (46,144 nodes)": ("/topology", lambda: topology_generate(TAIHULIGHT)),
    "generate the 64-port fat tree (70,656 nodes)": ("/topology", lambda: topology_generate(FAT_TREE_64)),
    "preset TaihuLight: 40,960 processes, k = 32": ("/trees", lambda: trees_preset("taihulight")),
    "preset 64-port fat tree: 65,536 processes, k = 2": ("/trees", lambda: trees_preset("fat-tree-64")),
    "fat tree of 40-port switches: 16,000 processes, k = 2": (
        "/trees",
        lambda: trees_preset("", "fat-tree:radix=40,levels=3", 2),
    ),
    "another tree kind on TaihuLight (drill into one tree)": (
        "/trees",
        lambda: trees_other_kind("taihulight", "knomial"),
    ),
    "preset TaihuLight: 40,960 processes, k = 32 (the player's timeline)": (
        "/trees",
        lambda: trees_player("taihulight"),
    ),
    "preset 64-port fat tree: 65,536 processes, k = 2 (the player's timeline)": (
        "/trees",
        lambda: trees_player("fat-tree-64"),
    ),
    "fat tree of 40-port switches: 16,000 processes, k = 2 (the player's timeline)": (
        "/trees",
        lambda: trees_player("", "fat-tree:radix=40,levels=3", 2),
    ),
    "another tree kind on TaihuLight (the player's timeline)": (
        "/trees",
        lambda: trees_player("taihulight", kind="knomial"),
    ),
    "preset TaihuLight: 3,584 groups, SSSP-MC vs FULB-MC": ("/multicast", lambda: multicast_preset("taihulight")),
    "preset 64-port fat tree: 5,120 groups, SSSP-MC vs FULB-MC": (
        "/multicast",
        lambda: multicast_preset("fat-tree-64"),
    ),
    "preset TaihuLight: 3,584 groups, SSSP-MC vs FULB-MC (B and the comparison)": (
        "/multicast",
        lambda: multicast_preset("taihulight", second=True),
    ),
    "preset 64-port fat tree: 5,120 groups, SSSP-MC vs FULB-MC (B and the comparison)": (
        "/multicast",
        lambda: multicast_preset("fat-tree-64", second=True),
    ),
    "drill into one group (64-port fat tree)": ("/multicast", lambda: multicast_preset("fat-tree-64", group=5000)),
    "drill into one pod (64-port fat tree)": ("/multicast", lambda: multicast_preset("fat-tree-64", part="group:0")),
    "grid 16x16, 8 neighbors: run, LCT/BST, UQ": ("/barrier", barrier_grid),
    "quick sweep (a job)": ("/barrier", lambda: barrier_sweep("quick")),
    "full sweep (a job)": ("/barrier", lambda: barrier_sweep("full")),
    "reduction of 32 processes with a fault, TREFT with a soft error": ("/faults", faults_largest),
    "TREFT overhead chart (a job)": ("/faults", faults_overhead),
    "FMEL (9, 5, 3), the defaults: build and compare": ("/erasure", lambda: erasure_code(9, 5, 3)),
    "FMEL (32, 16, 8): build and compare (jobs)": ("/erasure", lambda: erasure_code(32, 16, 8)),
    "example GOAL file on TaihuLight": ("/schedules", lambda: schedules_goal(0)),
    "binomial reduce of 16,384 ranks on TaihuLight": ("/schedules", lambda: schedules_goal(16384)),
}


# ---------------------------------------------------------------- measuring
def measure(name: str) -> dict:
    """One case in this (fresh) process: set up, then the action cold and warm (best of two)."""
    import app as web  # noqa: F401  (the app: its cache on the fresh VIZCOLL_CACHE_DIR, every page registered)
    from vizcoll.ui import cache

    page, factory = (FABRIC_CASES if FABRIC else CASES)[name]
    action = factory()
    METER.update(request=0, response=0)
    start = time.perf_counter()
    action()
    cold = time.perf_counter() - start
    sent = dict(METER)
    warm = []
    for _ in range(2):
        cache._memo.clear()  # another process: the shared cache only
        start = time.perf_counter()
        action()
        warm.append(time.perf_counter() - start)
    row = {"page": page, "case": name, "cold_s": round(cold, 3), "warm_s": round(min(warm), 3)}
    if FABRIC:
        row |= {"fabric": Path(FABRIC).name, "request_bytes": sent["request"], "response_bytes": sent["response"]}
    return row


def measured(name: str) -> dict:
    """Measure ``name`` in a fresh interpreter with a fresh cache directory."""
    with tempfile.TemporaryDirectory(prefix="vizcoll-bench-") as cache:
        env = os.environ | {"VIZCOLL_CACHE_DIR": cache, "VIZCOLL_BENCH_FABRIC": FABRIC}
        env.pop("VIZCOLL_REDIS_URL", None)
        env.pop("VIZCOLL_CACHE_REDIS_URL", None)
        return run_child(__file__, name, env=env)


def _size(count: int) -> str:
    return f"{count / 1e6:.2f} MB" if count >= 1e6 else f"{count / 1e3:.1f} kB"


def markdown(rows: list[dict]) -> str:
    """The rows as the docs' table (docs/benchmarks.md) (with the bytes when counted), then the stamp."""
    from benchmarks import stamp

    heads, right = ["page", "case", "cold", "warm"], [2, 3]
    if any("request_bytes" in r for r in rows):
        heads, right = [*heads, "posted", "sent back"], [2, 3, 4, 5]
    cells = [
        [f"`{r['page']}`", r["case"], stamp.seconds(r["cold_s"]), stamp.seconds(r["warm_s"])]
        + ([_size(r["request_bytes"]), _size(r["response_bytes"])] if len(heads) > 4 else [])
        for r in rows
    ]
    fabric = f"On `{rows[0]['fabric']}`.\n\n" if rows and "fabric" in rows[0] else ""
    return fabric + stamp.table(heads, cells, right=right) + "\n\n" + stamp.measured()


def _campus() -> str:
    """``tests/fabrics.py``'s 1,570-node cluster written to a file removed when this process ends."""
    import atexit
    import shutil

    from tests.fabrics import campus_cluster

    folder = tempfile.mkdtemp(prefix="vizcoll-campus-")
    atexit.register(shutil.rmtree, folder, True)
    path = Path(folder) / "campus.net"
    path.write_text(campus_cluster())
    return str(path)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="just this page (e.g. /trees)")
    parser.add_argument("--case", help="just this case (its name in the output)")
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per case; the best is kept")
    parser.add_argument("--fabric", metavar="FILE", help="every page's first answer on this fabric file instead")
    parser.add_argument("--bytes", action="store_true", help="(with --fabric) the bytes posted and sent back")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table with the date, commit and machine")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    global FABRIC
    fabric = _campus() if args.fabric == "campus" and not Path("campus").exists() else args.fabric
    FABRIC = str(Path(fabric).resolve()) if fabric else FABRIC
    cases = FABRIC_CASES if FABRIC else CASES
    if args.child:
        print(json.dumps(measure(args.child)))
        return
    names = [args.case] if args.case else [n for n, (page, _) in cases.items() if args.only in (None, page)]
    rows = []
    for name in names:
        runs = [measured(name) for _ in range(max(1, args.repeat))]
        print(json.dumps(runs), file=sys.stderr, flush=True)
        best = min(runs, key=lambda r: r["cold_s"]) | {"warm_s": min(r["warm_s"] for r in runs)}
        rows.append(best if args.bytes else {k: v for k, v in best.items() if not k.endswith("_bytes")})
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
