"""The fault replays page's pure views and callbacks, called directly (no browser)."""

from __future__ import annotations

import functools

import pytest
from dash import no_update

from tests import table_text
from tests.callback_context import find_component, in_callback, paragraphs, registered
from tests.probe import HOSTILE, probe
from vizcoll.reduction import FAULT_LOCATIONS, ReductionRun, simulate_task_reduction
from vizcoll.scenario import Scenario
from vizcoll.schedule import parse, static_reduction
from vizcoll.schedule.check import check
from vizcoll.ui.components.player import player_timeline
from vizcoll.ui.pages.faults import _model as model
from vizcoll.ui.pages.faults import page
from vizcoll.ui.pages.faults._figures import PAPER_AVERAGE, reduction_diagram, tasks_so_far
from vizcoll.ui.store import DEFAULT_SCENARIO, key_of, scenario_of

SIZE = str(8 << 20)
PROCS_CHANGED, WORKFLOW_CHANGED = f"{page.FT_RED_PROCS}.value", f"{page.FT_TREFT_WORKFLOW}.value"
STORES = [value for value in HOSTILE if value is not None]  # None in the scenario store: the default scenario


def callbacks() -> dict:
    """The page's callbacks by name (:func:`tests.callback_context.registered`)."""
    return registered(page)


CALLBACKS = callbacks()
RUN_REDUCTION, RENDER_REDUCTION, CLICK_KILL = (
    CALLBACKS[n] for n in ("run_reduction", "render_reduction", "click_kill")
)
KERNELS, VARS, RUN_TREFT, EXPORT_GOAL = (
    CALLBACKS[n] for n in ("kernel_choices", "var_choices", "run_treft", "export_goal")
)


def one_output(function, name: str):
    """A callback of one output (registered with ``app.callback``) as :func:`tests.probe.probe` calls one: its
    answer by ``name``."""

    @functools.wraps(function)
    def callback(*args, **kwargs):
        return {name: function(*args, **kwargs)}

    return callback


def nothing(answer: dict) -> bool:
    """Whether a callback's answer (every output by name) changes nothing."""
    return all(value is no_update for value in answer.values())


def reduction_values(procs, size, root, slow, fault, seed) -> dict:
    """The reduction's controls as its callback takes them."""
    return dict(zip(page.REDUCTION_CONTROLS, (procs, size, root, slow, fault, seed), strict=True))


def treft_values(workflow, cls, variant, replica, kernel, var, second) -> dict:
    return dict(zip(page.TREFT_CONTROLS, (workflow, cls, variant, replica, kernel, var, second), strict=True))


def written(store, data) -> dict:
    """The scenario store after a callback answered ``store`` to the one it was given (``data``)."""
    return data if store is no_update else store


def run_reduction(*args, scenario: Scenario = DEFAULT_SCENARIO, changed=None) -> dict:
    """The reduction callback as Dash calls it when the process count (or ``changed``) changed, with the six
    controls' values and the clicked worker: its outputs by name, and ``data``, the scenario store as the views then
    read it."""
    data = scenario.to_dict()
    values = reduction_values(*args[:6]) | {"kill": args[6], "scenario": data}
    answer = in_callback(RUN_REDUCTION, changed or PROCS_CHANGED, **values)
    return answer | {"data": written(answer["scenario"], data)}


def run_treft(*args, scenario: Scenario = DEFAULT_SCENARIO) -> dict:
    """The TREFT callback as Dash calls it when the workflow changed: its outputs by name, and ``data``."""
    data = scenario.to_dict()
    answer = in_callback(RUN_TREFT, WORKFLOW_CHANGED, **treft_values(*args), scenario=data)
    return answer | {"data": written(answer["scenario"], data)}


def shown(position, key, data, kill=None) -> dict:
    """The reduction's views (``figure``, ``tasks``) at slider ``position``."""
    return RENDER_REDUCTION(position=position, key=key, kill=kill, scenario=data)


def click_on(rank, position, key, data, kill=None) -> dict:
    """A click on the diagram's worker ``rank`` (its ``customdata``) at slider ``position``: ``kill``, ``fault``."""
    return CLICK_KILL(click={"points": [{"customdata": rank}]}, position=position, key=key, kill=kill, scenario=data)


def reduction(fault="none", kill=None, procs=8, slow="2,5"):
    return run_reduction(procs, SIZE, 0, slow, fault, 0, kill)


@pytest.mark.parametrize("location", FAULT_LOCATIONS)
def test_a_fault_at_each_location_reports_what_the_engine_reports(location):
    run = reduction(location)
    assert run["message"] == ""
    _, engine = simulate_task_reduction(ReductionRun(8, 8 << 20, 0, slow=[(2, 4.0), (5, 4.0)], kill=location))
    expected = "unrecoverable" if engine["unrecoverable"] else "recovered" if engine["recovered"] else "fault hit"
    assert expected in str(run["summary"])
    assert location in str(run["summary"])
    assert player_timeline(run["timeline"]).n_steps > 10


def test_the_diagram_at_a_mid_step_shows_the_tree_edges_formed_so_far():
    run = reduction()
    key, data = run["key"], run["data"]
    tl = player_timeline(run["timeline"])
    _, figures, _ = model.reduction_runs(model.scenario_reduction(scenario_of(data)))
    mid = tl.n_steps // 2
    formed = tasks_so_far(tl, mid - 1, figures["tasks"])
    assert 0 < len(formed) < len(figures["tasks"])
    drawn = shown(mid, key, data)
    fig, tasks = drawn["figure"], drawn["tasks"]
    tree = next(t for t in fig.data if t.name.startswith("tree so far"))
    assert tree.name == f"tree so far ({len(formed)} tasks)"
    assert sum(x is None for x in tree.x) == len(formed)  # one segment per task edge
    assert f"Tasks formed so far: {len(formed)} of {len(figures['tasks'])}" in str(tasks)
    first = figures["tasks"][0]
    assert f"({first['pair'][0]},{first['pair'][1]}) → {first['to']}" in str(tasks)
    assert any(ann.text and ann.text.startswith("<b>Q</b>") for ann in fig.layout.annotations)
    # at the end every task is in the tree and the summary compares with the binomial tree
    fig = shown(tl.n_steps, key, data)["figure"]
    assert (
        next(t for t in fig.data if t.name.startswith("tree so far")).name
        == f"tree so far ({len(figures['tasks'])} tasks)"
    )


def test_a_clicked_worker_is_killed_at_the_shown_step():
    run = reduction()
    key, data = run["key"], run["data"]
    tl, _, _ = model.reduction_runs(model.scenario_reduction(scenario_of(data)))
    clicked = click_on(3, 20, key, data)
    assert clicked == {"kill": [3, tl.time_at(19)], "fault": model.CLICK}
    kill = clicked["kill"]
    # Dash calls the run with both changed at once: a user's action, so the scenario says a worker was clicked
    both = [f"{page.FT_RED_KILL}.data", f"{page.FT_RED_FAULT}.value"]
    run2 = run_reduction(8, SIZE, 0, "2,5", model.CLICK, 0, kill, changed=both)
    assert run2["message"] == "" and "w3 killed at" in str(run2["summary"])
    assert run2["data"]["params"]["faults"]["fault"] == model.CLICK
    params = model.read_reduction(8, SIZE, 0, "2,5", model.CLICK, 0, kill)
    assert run2["key"] == key_of(params) != key
    killed, figures, _ = model.reduction_runs(params)
    fig = shown(10**6, run2["key"], run2["data"], kill)["figure"]  # the views draw the clicked worker's replay
    assert fig == reduction_diagram(killed, killed.n_steps - 1, figures, 8)
    assert nothing(
        in_callback(CLICK_KILL, None, click={"points": [{"x": 0}]}, position=20, key=key, kill=None, scenario=data)
    )


def test_treft_injection_ends_corrected_with_an_error_cell_at_the_injection_step():
    run = run_treft("HC", "A", "treft", "1", "K4", "u4", None)
    key, data = run["key"], run["data"]
    assert run["message"] == "" and "corrected" in str(run["summary"])
    tl = player_timeline(run["timeline"])
    inject = next(k for k in range(tl.n_steps) if any("flips bit" in e.label for e in tl.active_at(k)))
    fig = page.render_lanes(inject + 1, key, data)  # position = step + 1
    assert any(ann.text == "ERROR in u4" for ann in fig.layout.annotations)
    assert tl.final_state["r1.data"] == "corrected"
    final = page.render_lanes(tl.n_steps, key, data)
    assert any(ann.text == "corrected" for ann in final.layout.annotations)
    # an operation step shows its circled number
    op_step = next(k for k in range(tl.n_steps) if any(e.label.startswith("④") for e in tl.active_at(k)))
    assert any(ann.text == "④" for ann in page.render_lanes(op_step + 1, key, data).layout.annotations)


def test_overhead_chart_has_three_workflows_by_three_variants():
    fig = page.render_overhead(lambda _value: None, None)
    bars = [t for t in fig.data if t.type == "bar"]
    assert [t.name for t in bars] == ["TREFT", "TREFT-E1", "TREFT-E2"]
    # the paper's averages: dashed lines named in the legend (no label over the bars)
    assert [t.name for t in fig.data if t.type != "bar"] == [
        f"paper average {name}: {PAPER_AVERAGE[key]} %"
        for key, name in (("treft", "TREFT"), ("e1", "TREFT-E1"), ("e2", "TREFT-E2"))
    ]
    assert not fig.layout.annotations
    for trace in bars:
        assert {x.split(".")[0] for x in trace.x} == {"HC", "VP", "MB"}
        assert len(trace.x) == 6
    assert sorted(s.y0 for s in fig.layout.shapes) == sorted(PAPER_AVERAGE.values())


@pytest.mark.parametrize(
    "args",
    [
        (1, SIZE, 0, "", "none", 0, None),
        (8, SIZE, 9, "", "none", 0, None),
        (8, SIZE, 0, "2:x", "none", 0, None),
        (8, SIZE, 0, "12", "none", 0, None),
        (8, "big", 0, "", "none", 0, None),
    ],
)
def test_bad_reduction_input_gives_a_warning(args):
    run = run_reduction(*args)
    assert run["message"].startswith("⚠")
    assert run["key"] is run["summary"] is run["timeline"] is run["scenario"] is no_update


@pytest.mark.parametrize(
    "args",
    [
        ("HC", "A", "treft", "1", "K99", "u4", None),
        ("HC", "A", "treft", "1", "K4", "u4", "garbage"),
        ("HC", "A", "nope", "1", "K4", "u4", None),
        ("XX", "A", "treft", "none", None, None, None),
    ],
)
def test_bad_treft_input_gives_a_warning(args):
    run = run_treft(*args)
    assert run["message"].startswith("⚠")
    assert run["key"] is run["summary"] is run["timeline"] is run["scenario"] is no_update


def test_kernel_and_variable_choices_follow_the_workflow():
    kernels = KERNELS(workflow="VP", cls="B", kernel="K4")
    assert kernels["kernel"] == "K4" and len(kernels["options"]) == 18
    assert KERNELS(workflow="VP", cls="B", kernel="K99")["kernel"] == kernels["options"][18 // 4]["value"]
    assert VARS(kernel="K5", workflow="VP", cls="B", var=None) == {
        "options": [{"label": "u5", "value": "u5"}],
        "var": "u5",
    }
    page.body(
        Scenario(params={"faults": {"procs": 6, "fault": "executing-task", "inject": "r2:K3:u3", "workflow": "MB"}})
    )


def test_the_process_count_comes_from_the_scenario_communicator_unless_set_on_the_page():
    assert model.scenario_procs(DEFAULT_SCENARIO) == (4, "Processes from the scenario's communicator 0: 4.")
    assert model.scenario_procs(Scenario())[0] == 8  # no communicator: the page's default
    wide = Scenario(spec="fat-tree:radix=8,levels=2", pattern="grid2d:1x32")
    assert model.scenario_procs(wide)[0] == min(32, model.MAX_PROCS)
    assert find_component(page.body(DEFAULT_SCENARIO), page.FT_RED_PROCS).value == 4
    assert find_component(page.body(DEFAULT_SCENARIO), page.FT_RED_SLOW).value == "2"  # rank 5 is no worker of 4
    set_here = Scenario(pattern="grid2d:4x4", params={"faults": {"procs": 6}})
    assert find_component(page.body(set_here), page.FT_RED_PROCS).value == 6


def test_the_page_parameters_go_into_the_scenario():
    values = reduction_values(6, SIZE, 0, "2,5", "none", 0) | {"kill": None, "scenario": DEFAULT_SCENARIO.to_dict()}
    assert in_callback(RUN_REDUCTION, PROCS_CHANGED, **values)["scenario"]["params"]["faults"]["procs"] == 6
    loaded = in_callback(RUN_REDUCTION, None, **values)
    assert loaded["scenario"] is no_update  # a page load is no user action: the store is left alone
    assert loaded["key"] == in_callback(RUN_REDUCTION, PROCS_CHANGED, **values)["key"]  # the replay all the same


# ------------------------------------------------------------------ Download GOAL
@pytest.mark.parametrize("algo", ["binomial", "mst", "rabenseifner"])
def test_download_goal_is_the_static_reduction_with_the_pages_processes_size_and_root(algo):
    answer = EXPORT_GOAL(clicks=1, algo=algo, procs=6, size=SIZE, root=5)
    download = answer["file"]
    assert answer["message"] == "" and download["filename"] == f"vizcoll-reduction-{algo}-6.goal"
    parsed = parse(download["content"])
    assert parsed.problems == [] and check(parsed.schedule, parsed.lines) == []
    assert parsed.schedule.ops == static_reduction(algo, 6, 8 << 20, 5).ops


@pytest.mark.parametrize(
    "args, words",
    [
        (("nope", 8, SIZE, 0), "unknown reduction 'nope'"),
        (("mst", 1, SIZE, 0), "processes must be between 2 and 32"),
        (("mst", 8, SIZE, 8), "root must be between 0 and 7"),
        (("mst", "8", None, 0), "data size must be an integer"),
        (("mst", 10**18, SIZE, 0), "processes must be between 2 and 32"),
    ],
)
def test_download_goal_refuses_bad_controls_with_a_message(args, words):
    answer = EXPORT_GOAL(clicks=1, **dict(zip(("algo", "procs", "size", "root"), args, strict=True)))
    assert answer["file"] is no_update and answer["message"].startswith("⚠") and words in answer["message"]


# ------------------------------------------------------------------ stores and values from the browser, background jobs
def test_every_callback_checks_what_the_browser_sends():
    """Each input in turn gets every hostile value: the answer says ⚠ why, changes nothing or is what the valid
    values gave (a value read as the default: the first step, no worker clicked, no slow rank, seed 0). The views
    are probed on the store a run wrote (waiting for a click) and on none (None: the default scenario)."""
    clicked = run_reduction(8, SIZE, 0, "", model.CLICK, 0, None)  # waits for a click: no worker killed yet
    assert clicked["message"] == "Click a worker in the diagram to kill it."
    treft = run_treft("HC", "A", "treft", "1", "K4", "u4", None)
    data = DEFAULT_SCENARIO.to_dict()
    controls = reduction_values(8, SIZE, 0, "", model.CLICK, 0)
    probe(RUN_REDUCTION, PROCS_CHANGED, controls | {"kill": None, "scenario": data})
    click = f"{page.FT_RED_DIAGRAM}.clickData"
    for store, hostile in ((clicked["data"], STORES), (data, HOSTILE)):
        at = {"position": 0, "key": clicked["key"], "kill": None, "scenario": store}
        probe(RENDER_REDUCTION, None, at, hostile=hostile)
        probe(CLICK_KILL, click, at | {"click": {"points": [{"customdata": 3}]}}, hostile=hostile)
    lanes = one_output(page.render_lanes, "figure")
    probe(lanes, None, {"position": 0, "key": treft["key"], "data": treft["data"]}, hostile=STORES)
    probe(lanes, None, {"position": 0, "key": treft["key"], "data": data})
    kernels = [o["value"] for o in model.kernel_options("HC", "A")]
    probe(KERNELS, None, {"workflow": "HC", "cls": "A", "kernel": kernels[len(kernels) // 4]})
    var = model.var_options("HC", "A", "K4")[0]["value"]
    probe(VARS, None, {"kernel": "K4", "workflow": "HC", "cls": "A", "var": var})
    probe(RUN_TREFT, WORKFLOW_CHANGED, treft_values("HC", "A", "treft", "1", "K4", "u4", None) | {"scenario": data})
    probe(EXPORT_GOAL, f"{page.FT_GOAL}.n_clicks", {"clicks": 1, "algo": "mst", "procs": 8, "size": SIZE, "root": 0})


def test_the_views_draw_the_scenarios_parameters_whatever_the_parameter_stores_hold():
    run = reduction("executing-task")
    key, data = run["key"], run["data"]
    treft = run_treft("HC", "A", "treft", "1", "K4", "u4", None)
    drawn, lanes = shown(2, key, data), page.render_lanes(2, treft["key"], treft["data"])
    assert drawn["figure"] is not no_update and lanes.layout.annotations[0].text != "Choose a workflow."
    for forged in ("x" * 24, {"procs": 10**6}, [key], 7):
        assert str(shown(2, forged, data)) == str(drawn)
        assert page.render_lanes(2, forged, treft["data"]) == lanes
    assert nothing(shown(2, None, data))  # before the run answered: nothing changes (the layout's hint stays)
    assert page.render_lanes(2, None, treft["data"]) is no_update
    hints = [find_component(page.body(DEFAULT_SCENARIO), i).figure for i in (page.FT_RED_DIAGRAM, page.FT_TREFT_LANES)]
    assert [fig.layout.annotations[0].text for fig in hints] == [
        "Choose the reduction's parameters.",
        "Choose a workflow.",
    ]


def test_a_forged_scenario_or_clicked_worker_gives_nothing():
    run = reduction("executing-task")
    key, data = run["key"], run["data"]
    clicked = scenario_of(data).with_params("faults", {"fault": model.CLICK}).to_dict()
    assert shown(2, key, clicked, [1, 0.0])["tasks"] is not no_update
    for faults, kill in (
        ({"procs": 10**6}, None),
        ({"slow": "99"}, None),
        ({"size": "big"}, None),
        ({"fault": model.CLICK}, [99, 0.0]),
        ({"fault": model.CLICK}, [1, -2]),
        ({"fault": model.CLICK}, "x"),
    ):
        forged = scenario_of(data).with_params("faults", faults).to_dict()
        assert nothing(shown(2, key, forged, kill))
        assert nothing(click_on(1, 2, key, forged, kill))
    for faults in ({"inject": "1:K99:u4"}, {"inject": "1:K4:u4", "second": "garbage"}, {"inject": "7:K4:u4"}):
        forged = DEFAULT_SCENARIO.with_params("faults", faults).to_dict()
        assert page.render_lanes(2, "k", forged) is no_update
    unknown = DEFAULT_SCENARIO.with_params("faults", {"variant": "nope"}).to_dict()  # shown as the default
    assert page.render_lanes(2, "k", unknown) == page.render_lanes(2, "k", DEFAULT_SCENARIO.to_dict())
    assert nothing(click_on(8, 2, key, data))  # no w8
    assert nothing(click_on(True, 2, key, data))
    assert click_on(7, 2, key, data)["fault"] == model.CLICK
    assert nothing(KERNELS(workflow=["HC"], cls="A", kernel=None))
    assert nothing(VARS(kernel={"k": 1}, workflow="HC", cls="A", var=None))  # no kernel of the program
    assert nothing(VARS(kernel="K99", workflow="HC", cls="A", var=None))


def test_bad_values_of_the_right_kind_say_what_is_wrong():
    message = run_reduction(8, SIZE, 0, ["2"], "none", 0, None)["message"]
    assert message == "⚠ slow ranks must be text like 2,5 or 2:8"
    assert run_reduction(8, SIZE, 0, "2", ["none"], 0, None)["message"].startswith("⚠ unknown fault")
    assert run_reduction(8, SIZE, 0, "2", model.CLICK, 0, 5)["message"] == "⚠ the clicked worker must be [rank, time]"
    assert run_reduction(8, SIZE, 0, "2", model.CLICK, 0, [1, -3])["message"].startswith(
        "⚠ kill time must be at least 0"
    )
    assert run_treft(["HC"], "A", "treft", "none", None, None, None)["message"].startswith("⚠ unknown workflow")
    assert run_treft("HC", "A", "treft", "1", {"k": 1}, "u4", None)["message"].startswith("⚠ unknown kernel")
    assert (
        run_treft("HC", "A", "treft", "1", "K4", "u4", 5)["message"] == "⚠ the second fault must be text like r2:K4:u4"
    )
    for replica in (None, 1, "r1", "3"):  # the dropdown offers none, 0, 1, 2
        assert run_treft("HC", "A", "treft", replica, "K4", "u4", None)["message"].startswith("⚠ unknown replica")


def test_the_overhead_chart_reports_its_progress_run_by_run():
    seen = []
    fig = page.render_overhead(seen.append, None)
    runs = len(model.OVERHEAD_RUNS)
    assert runs == 18 and seen[0] == (0, 1, "TREFT overhead…")
    assert seen[1:] == [(i, runs, f"TREFT overhead: {i} of {runs} runs") for i in range(1, runs + 1)]
    assert [t.name for t in fig.data if t.type == "bar"] == ["TREFT", "TREFT-E1", "TREFT-E2"]
    assert find_component(page.body(DEFAULT_SCENARIO), f"{page.FT_OVERHEAD_JOB}-cancel") is not None


def test_a_summary_says_what_a_failed_run_lacks_never_none():
    """A worker killed before the task-based reduction can recover: no tree height, shown as a dash."""
    params = model.read_reduction("8", str(8 << 20), "0", "2,5", model.CLICK, "0", [2, 0.0115])
    _, figures, binomial = model.reduction_runs(params)
    assert figures["rounds"] is None and figures["unrecoverable"]
    text = table_text.shown(page.reduction_summary(figures, binomial))
    assert "None" not in text and "\ntree height (rounds) — " in text


DEFAULT_KILL_REASON = (
    "w7 died at 2.15 ms, before the copy of its original data reached w0 (due at 10.38 ms); its other copy, on "
    "w7's own disk, died with it: no live worker holds w7's data. The app places a sending-task kill after its "
    "victim's copy has arrived when it can; in this run every sending-task window closes before its worker's "
    "copy arrives."
)


def test_the_default_killed_run_says_why_it_is_unrecoverable():
    """The page's defaults with its first fault location: w7 is killed before its copy reaches w0."""
    run = reduction("sending-task")
    summary = run["summary"]
    assert paragraphs(summary, "ft-why") == [
        f"Why unrecoverable: {DEFAULT_KILL_REASON} The master gave up the reduction at 70.00 ms (step 43 of 43)."
    ]
    assert "\noutcome unrecoverable: w7's data had no surviving copy failed: " in table_text.shown(summary)
    assert paragraphs(summary, "ft-verdict") == [
        "The binomial tree cannot survive this failure; the task-based reduction could not recover either: "
        "w7's data had no surviving copy."
    ]
    tl = player_timeline(run["timeline"])
    assert tl.n_steps == 43 and DEFAULT_KILL_REASON.split(".")[0] in tl.caption(42)  # the player's step 43


def test_the_pages_own_defaults_with_the_first_fault_location_say_why():
    """The default scenario's communicator 0 has 4 processes (slow rank 2): w3 dies before its copy reaches w0."""
    v = model.shown_values(DEFAULT_SCENARIO)
    assert (v["procs"], v["size"], v["slow"], v["fault"]) == (4, SIZE, "2", "none")
    summary = run_reduction(v["procs"], v["size"], v["root"], v["slow"], "sending-task", v["seed"], None)["summary"]
    assert paragraphs(summary, "ft-why") == [
        "Why unrecoverable: w3 died at 2.13 ms, before the copy of its original data reached w0 (due at 10.37 ms); "
        "its other copy, on w3's own disk, died with it: no live worker holds w3's data. The app places a "
        "sending-task kill after its victim's copy has arrived when it can; in this run every sending-task window "
        "closes before its worker's copy arrives. The master gave up the reduction at 70.00 ms (step 18 of 18)."
    ]


def test_a_clicked_kill_before_the_copy_names_the_copy_that_had_not_arrived():
    params = model.read_reduction("8", SIZE, "0", "2,5", model.CLICK, "0", [2, 0.0115])
    timeline, figures, binomial = model.reduction_runs(params)
    assert paragraphs(page.reduction_summary(figures, binomial, timeline), "ft-why") == [
        "Why unrecoverable: w2 died at 11.50 ms, before the copy of its original data reached w3 (due at "
        "41.49 ms); its other copy, on w2's own disk, died with it: no live worker holds w2's data. The master "
        "gave up the reduction at 70.00 ms (step 44 of 44)."
    ]


@pytest.mark.parametrize("fault", ["none", "executing-task", "fetching-data"])
def test_a_run_that_finishes_gives_no_reason(fault):
    summary = reduction(fault)["summary"]
    assert paragraphs(summary, "ft-why") == [] and "unrecoverable" not in table_text.shown(summary)


def test_the_replay_intro_says_when_lost_data_is_rebuilt_and_when_it_cannot_be():
    timeline = reduction()["timeline"]
    assert (
        player_timeline(timeline)
        .caption(-1)
        .endswith(
            "When a worker calls reduce, its original data is copied to its own disk and to the next worker's "
            "(w(i+1)); 8 MiB take 10.37 ms to get there, longer from a slow worker. If a worker fails while its data "
            "is still needed, the data is read back from that copy, provided the copy had arrived; if it had not (or "
            "the worker had not called reduce yet), no readable copy survives and the reduction cannot be recovered. "
            "A worker whose data was already reduced into another's loses nothing."
        )
    )
    assert "rebuilt from its replicas" not in player_timeline(timeline).caption(-1)


def test_treft_says_why_two_soft_errors_beat_the_vote():
    summary = run_treft("HC", "A", "treft", "1", "K4", "u4", "r2:K5:u5")["summary"]
    assert paragraphs(summary, "ft-why") == [
        "Why unrecoverable: two replicas were hit by different soft errors (r1's u4 after K4, r2's u5 after K5), "
        "so the three copies of u18 all differ at the vote ending section 1: there is no 2-of-3 majority to "
        "restore it."
    ]
    summary = run_treft("HC", "A", "treft", "1", "K4", "u4", "r2:K4:u4")["summary"]
    assert paragraphs(summary, "ft-why") == [
        "Why undetected: two replicas were hit by the same soft error (r1's u4 after K4, r2's u4 after K4): at "
        "the vote ending section 1 their two equal wrong copies of u18 outvote r0's correct one."
    ]
    summary = run_treft("HC", "A", "treft", "1", "K4", "u4", None)["summary"]
    assert paragraphs(summary, "ft-why") == []
