"""The fault replays page's pure views and callbacks, called directly (no browser)."""

from __future__ import annotations

import pytest
from dash import no_update

from tests import table_text
from tests.callback_context import find_component, in_callback, paragraphs
from vizcoll.reduction import FAULT_LOCATIONS, simulate_task_reduction
from vizcoll.scenario import Scenario
from vizcoll.schedule import parse, static_reduction
from vizcoll.schedule.check import check
from vizcoll.ui.components.player import player_timeline
from vizcoll.ui.pages.faults import _model as model
from vizcoll.ui.pages.faults import page
from vizcoll.ui.pages.faults._figures import PAPER_AVERAGE, reduction_diagram, tasks_so_far
from vizcoll.ui.store import DEFAULT_SCENARIO, key_of, scenario_of

SIZE = str(8 << 20)


def reduction_values(procs, size, root, slow, fault, seed) -> dict:
    """The reduction's controls as its callback takes them."""
    return dict(zip(page.REDUCTION_CONTROLS, (procs, size, root, slow, fault, seed), strict=True))


def treft_values(workflow, cls, variant, replica, kernel, var, second) -> dict:
    return dict(zip(page.TREFT_CONTROLS, (workflow, cls, variant, replica, kernel, var, second), strict=True))


def written(store, data) -> dict:
    """The scenario store after a callback answered ``store`` to the one it was given (``data``)."""
    return data if store is no_update else store


def run_reduction(*args, scenario: Scenario = DEFAULT_SCENARIO, changed=None):
    """The reduction callback as Dash calls it when the process count (or ``changed``) changed: its outputs, the
    scenario store last, as the views then read it."""
    data = scenario.to_dict()
    changed = changed or f"{page.FT_RED_PROCS}.value"
    *outputs, store = in_callback(page.run_reduction, changed, reduction_values(*args[:6]), args[6], data)
    return (*outputs, written(store, data))


def run_treft(*args, scenario: Scenario = DEFAULT_SCENARIO):
    data = scenario.to_dict()
    *outputs, store = in_callback(page.run_treft, f"{page.FT_TREFT_WORKFLOW}.value", treft_values(*args), data)
    return (*outputs, written(store, data))


def reduction(fault="none", kill=None, procs=8, slow="2,5"):
    return run_reduction(procs, SIZE, 0, slow, fault, 0, kill)


@pytest.mark.parametrize("location", FAULT_LOCATIONS)
def test_a_fault_at_each_location_reports_what_the_engine_reports(location):
    _, message, summary, timeline, _ = reduction(location)
    assert message == ""
    _, engine = simulate_task_reduction(8, 8 << 20, 0, slow=[(2, 4.0), (5, 4.0)], kill=location)
    expected = "unrecoverable" if engine["unrecoverable"] else "recovered" if engine["recovered"] else "fault hit"
    assert expected in str(summary)
    assert location in str(summary)
    assert player_timeline(timeline).n_steps > 10


def test_the_diagram_at_a_mid_step_shows_the_tree_edges_formed_so_far():
    key, _, _, timeline, data = reduction()
    tl = player_timeline(timeline)
    _, figures, _ = model.reduction_runs(model.scenario_reduction(scenario_of(data)))
    mid = tl.n_steps // 2
    formed = tasks_so_far(tl, mid - 1, figures["tasks"])
    assert 0 < len(formed) < len(figures["tasks"])
    fig, tasks = page.render_reduction(mid, key, None, data)
    tree = next(t for t in fig.data if t.name.startswith("tree so far"))
    assert tree.name == f"tree so far ({len(formed)} tasks)"
    assert sum(x is None for x in tree.x) == len(formed)  # one segment per task edge
    assert f"Tasks formed so far: {len(formed)} of {len(figures['tasks'])}" in str(tasks)
    first = figures["tasks"][0]
    assert f"({first['pair'][0]},{first['pair'][1]}) → {first['to']}" in str(tasks)
    assert any(ann.text and ann.text.startswith("<b>Q</b>") for ann in fig.layout.annotations)
    # at the end every task is in the tree and the summary compares with the binomial tree
    fig, _ = page.render_reduction(tl.n_steps, key, None, data)
    assert (
        next(t for t in fig.data if t.name.startswith("tree so far")).name
        == f"tree so far ({len(figures['tasks'])} tasks)"
    )


def test_a_clicked_worker_is_killed_at_the_shown_step():
    key, *_, data = reduction()
    tl, _, _ = model.reduction_runs(model.scenario_reduction(scenario_of(data)))
    kill, fault = page.click_kill({"points": [{"customdata": 3}]}, 20, key, None, data)
    assert fault == model.CLICK and kill == [3, tl.time_at(19)]
    # Dash calls the run with both changed at once: a user's action, so the scenario says a worker was clicked
    both = [f"{page.FT_RED_KILL}.data", f"{page.FT_RED_FAULT}.value"]
    key2, message, summary, _, data2 = run_reduction(8, SIZE, 0, "2,5", model.CLICK, 0, kill, changed=both)
    assert message == "" and "w3 killed at" in str(summary)
    assert data2["params"]["faults"]["fault"] == model.CLICK
    params = model.read_reduction(8, SIZE, 0, "2,5", model.CLICK, 0, kill)
    assert key2 == key_of(params) != key
    killed, figures, _ = model.reduction_runs(params)
    fig, _ = page.render_reduction(10**6, key2, kill, data2)  # the views draw the clicked worker's replay
    assert fig == reduction_diagram(killed, killed.n_steps - 1, figures, 8)
    assert page.click_kill({"points": [{"x": 0}]}, 20, key, None, data) == (no_update, no_update)


def test_treft_injection_ends_corrected_with_an_error_cell_at_the_injection_step():
    key, message, summary, timeline, data = run_treft("HC", "A", "treft", "1", "K4", "u4", None)
    assert message == "" and "corrected" in str(summary)
    tl = player_timeline(timeline)
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
    key, message, summary, timeline, _ = run_reduction(*args)
    assert message.startswith("⚠") and key is no_update and timeline is no_update


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
    key, message, *_ = run_treft(*args)
    assert message.startswith("⚠") and key is no_update


def test_kernel_and_variable_choices_follow_the_workflow():
    options, value = page.kernel_choices("VP", "B", "K4")
    assert value == "K4" and len(options) == 18
    assert page.var_choices("K5", "VP", "B", None) == ([{"label": "u5", "value": "u5"}], "u5")
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
    values = reduction_values(6, SIZE, 0, "2,5", "none", 0)
    *_, store = in_callback(page.run_reduction, f"{page.FT_RED_PROCS}.value", values, None, DEFAULT_SCENARIO.to_dict())
    assert store["params"]["faults"]["procs"] == 6
    *_, store = in_callback(page.run_reduction, None, values, None, DEFAULT_SCENARIO.to_dict())
    assert store is no_update  # a page load is no user action: the store is left alone


# ------------------------------------------------------------------ Download GOAL
@pytest.mark.parametrize("algo", ["binomial", "mst", "rabenseifner"])
def test_download_goal_is_the_static_reduction_with_the_pages_processes_size_and_root(algo):
    download, message = page.export_goal(1, algo, 6, SIZE, 5)
    assert message == "" and download["filename"] == f"vizcoll-reduction-{algo}-6.goal"
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
    download, message = page.export_goal(1, *args)
    assert download is no_update and message.startswith("⚠") and words in message


# ------------------------------------------------------------------ stores and values from the browser, background jobs
HOSTILE = [
    None,
    True,
    0,
    -1,
    10**18,
    1.5,
    "",
    "abc",
    "/etc/passwd",
    [],
    [None],
    {},
    {"x": 1},
    [[1, 2]],
    {"points": [{}]},
    {"points": [{"customdata": [1, 2, 3]}]},
    {"points": [{"customdata": 99}]},
    ["HC"],
    {"workflow": "HC"},
    "x" * 5000,
]


def no_progress(_value) -> None:
    """The ``set_progress`` of a background callback called directly."""


def probe(callback, prop_id: str | None, *args) -> None:
    """``callback`` with each argument in turn replaced by every hostile value (the others valid), and each value
    of an argument that is a dict of the controls' values: it answers (a message, nothing to update), it never
    raises."""
    for i in range(len(args)):
        for value in HOSTILE:
            in_callback(callback, prop_id, *args[:i], value, *args[i + 1 :])
            for key in args[i] if _controls(args[i]) else ():
                in_callback(callback, prop_id, *args[:i], args[i] | {key: value}, *args[i + 1 :])


def _controls(arg) -> bool:
    """Whether ``arg`` is a dict of a callback's controls' values (a writing callback's ``values``)."""
    return isinstance(arg, dict) and set(arg) in (set(page.REDUCTION_CONTROLS), set(page.TREFT_CONTROLS))


def test_every_callback_checks_what_the_browser_sends():
    key, *_, data = reduction("executing-task")
    treft, *_, treft_data = run_treft("HC", "A", "treft", "1", "K4", "u4", None)
    probe(
        page.run_reduction,
        f"{page.FT_RED_PROCS}.value",
        reduction_values(8, SIZE, 0, "2,5", model.CLICK, 0),
        [1, 0.5],
        data,
    )
    probe(page.render_reduction, None, 3, key, [1, 0.5], data)
    probe(page.click_kill, None, {"points": [{"customdata": 3}]}, 3, key, [1, 0.5], data)
    probe(page.kernel_choices, None, "HC", "A", "K4")
    probe(page.var_choices, None, "K4", "HC", "A", "u4")
    probe(
        page.run_treft,
        f"{page.FT_TREFT_WORKFLOW}.value",
        treft_values("HC", "A", "treft", "1", "K4", "u4", "r2:K4:u4"),
        data,
    )
    probe(page.render_lanes, None, 3, treft, treft_data)
    probe(page.export_goal, None, 1, "mst", 8, SIZE, 0)


def test_the_views_draw_the_scenarios_parameters_whatever_the_parameter_stores_hold():
    key, *_, data = reduction("executing-task")
    treft, *_, treft_data = run_treft("HC", "A", "treft", "1", "K4", "u4", None)
    drawn, lanes = page.render_reduction(2, key, None, data), page.render_lanes(2, treft, treft_data)
    assert lanes.layout.annotations[0].text != "Choose a workflow."
    for forged in ("x" * 24, {"procs": 10**6}, [key], 7):
        assert str(page.render_reduction(2, forged, None, data)) == str(drawn)
        assert page.render_lanes(2, forged, treft_data) == lanes
    assert page.render_reduction(2, None, None, data)[1] == ""  # before the run answered: nothing yet


def test_a_forged_scenario_or_clicked_worker_gives_nothing():
    key, *_, data = reduction("executing-task")
    clicked = scenario_of(data).with_params("faults", {"fault": model.CLICK}).to_dict()
    assert page.render_reduction(2, key, [1, 0.0], clicked)[1] != ""
    for faults, kill in (
        ({"procs": 10**6}, None),
        ({"slow": "99"}, None),
        ({"size": "big"}, None),
        ({"fault": model.CLICK}, [99, 0.0]),
        ({"fault": model.CLICK}, [1, -2]),
        ({"fault": model.CLICK}, "x"),
    ):
        forged = scenario_of(data).with_params("faults", faults).to_dict()
        assert page.render_reduction(2, key, kill, forged)[1] == ""
        assert page.click_kill({"points": [{"customdata": 1}]}, 2, key, kill, forged) == (no_update, no_update)
    for faults in ({"inject": "1:K99:u4"}, {"inject": "1:K4:u4", "second": "garbage"}):
        forged = DEFAULT_SCENARIO.with_params("faults", faults).to_dict()
        assert page.render_lanes(2, "k", forged).layout.annotations[0].text == "Choose a workflow."
    unknown = DEFAULT_SCENARIO.with_params("faults", {"variant": "nope"}).to_dict()  # shown as the default
    assert page.render_lanes(2, "k", unknown) == page.render_lanes(2, "k", DEFAULT_SCENARIO.to_dict())
    assert page.click_kill({"points": [{"customdata": 8}]}, 2, key, None, data) == (no_update, no_update)  # no w8
    assert page.click_kill({"points": [{"customdata": True}]}, 2, key, None, data) == (no_update, no_update)
    assert page.kernel_choices(["HC"], "A", None) == (no_update, no_update)
    assert page.var_choices({"k": 1}, "HC", "A", None) == ([], None)


def test_bad_values_of_the_right_kind_say_what_is_wrong():
    _, message, *_ = run_reduction(8, SIZE, 0, ["2"], "none", 0, None)
    assert message == "⚠ slow ranks must be text like 2,5 or 2:8"
    assert run_reduction(8, SIZE, 0, "2", ["none"], 0, None)[1].startswith("⚠ unknown fault")
    assert run_reduction(8, SIZE, 0, "2", model.CLICK, 0, 5)[1] == "⚠ the clicked worker must be [rank, time]"
    assert run_reduction(8, SIZE, 0, "2", model.CLICK, 0, [1, -3])[1].startswith("⚠ kill time must be at least 0")
    assert run_treft(["HC"], "A", "treft", "none", None, None, None)[1].startswith("⚠ unknown workflow")
    assert run_treft("HC", "A", "treft", "1", {"k": 1}, "u4", None)[1].startswith("⚠ unknown kernel")
    assert run_treft("HC", "A", "treft", "1", "K4", "u4", 5)[1] == "⚠ the second fault must be text like r2:K4:u4"


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
    _, _, summary, timeline, _ = reduction("sending-task")
    assert paragraphs(summary, "ft-why") == [
        f"Why unrecoverable: {DEFAULT_KILL_REASON} The master gave up the reduction at 70.00 ms (step 43 of 43)."
    ]
    assert "\noutcome unrecoverable: w7's data had no surviving copy failed: " in table_text.shown(summary)
    assert paragraphs(summary, "ft-verdict") == [
        "The binomial tree cannot survive this failure; the task-based reduction could not recover either: "
        "w7's data had no surviving copy."
    ]
    tl = player_timeline(timeline)
    assert tl.n_steps == 43 and DEFAULT_KILL_REASON.split(".")[0] in tl.caption(42)  # the player's step 43


def test_the_pages_own_defaults_with_the_first_fault_location_say_why():
    """The default scenario's communicator 0 has 4 processes (slow rank 2): w3 dies before its copy reaches w0."""
    v = model.shown_values(DEFAULT_SCENARIO)
    assert (v["procs"], v["size"], v["slow"], v["fault"]) == (4, SIZE, "2", "none")
    _, _, summary, _, _ = run_reduction(v["procs"], v["size"], v["root"], v["slow"], "sending-task", v["seed"], None)
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
    _, _, summary, _, _ = reduction(fault)
    assert paragraphs(summary, "ft-why") == [] and "unrecoverable" not in table_text.shown(summary)


def test_the_replay_intro_says_when_lost_data_is_rebuilt_and_when_it_cannot_be():
    _, _, _, timeline, _ = reduction()
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
    _, _, summary, _, _ = run_treft("HC", "A", "treft", "1", "K4", "u4", "r2:K5:u5")
    assert paragraphs(summary, "ft-why") == [
        "Why unrecoverable: two replicas were hit by different soft errors (r1's u4 after K4, r2's u5 after K5), "
        "so the three copies of u18 all differ at the vote ending section 1: there is no 2-of-3 majority to "
        "restore it."
    ]
    _, _, summary, _, _ = run_treft("HC", "A", "treft", "1", "K4", "u4", "r2:K4:u4")
    assert paragraphs(summary, "ft-why") == [
        "Why undetected: two replicas were hit by the same soft error (r1's u4 after K4, r2's u4 after K4): at "
        "the vote ending section 1 their two equal wrong copies of u18 outvote r0's correct one."
    ]
    _, _, summary, _, _ = run_treft("HC", "A", "treft", "1", "K4", "u4", None)
    assert paragraphs(summary, "ft-why") == []
