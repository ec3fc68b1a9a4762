"""The erasure-code page's callbacks, views and figure builders, called directly (no browser)."""

from __future__ import annotations

import functools
from typing import NamedTuple

import pytest
from dash import no_update
from flask import Flask

from tests import table_text
from tests.callback_context import find_component, in_callback, paragraphs, registered
from tests.probe import HOSTILE, no_progress, probe
from vizcoll.erasure.compare import against_paper, measure
from vizcoll.scenario import Scenario
from vizcoll.ui import cache as cache_module
from vizcoll.ui.pages.erasure import _model as model
from vizcoll.ui.pages.erasure import page
from vizcoll.ui.pages.erasure._figures import block_layout, compare_figure, dc_figure, matrix_figure
from vizcoll.ui.store import DEFAULT_SCENARIO

CLICK = f"{page.ERA_DC_FIG}.clickData"
N_CHANGED = f"{page.ERA_N}.value"
CONTROLS = tuple(page.PARAM_CONTROLS)  # the build callback's control keys


def controls(**changes) -> dict:
    """The controls' values as the build callback takes them (control key -> value)."""
    values = model.DEFAULTS | {"n": 9, "k": 5, "dcs": 3, "d": None, "seed": 0}
    return {key: changes.get(key, values[key]) for key in CONTROLS}


def callbacks() -> dict:
    """The page's callbacks by name (:func:`tests.callback_context.registered`)."""
    return registered(page)


CALLBACKS = callbacks()
BUILD, DCS, CODE, COMPARE = (CALLBACKS[n] for n in ("build", "render_dcs", "render_code", "render_compare"))


def nothing(answer: dict) -> bool:
    """Whether a callback's answer (every output by name) changes nothing."""
    return all(value is no_update for value in answer.values())


def build(values: dict, scenario: Scenario = DEFAULT_SCENARIO, progress=no_progress) -> dict:
    """The build callback (a background job) as Dash calls it when n changed: ``key`` (the views' trigger),
    ``message``, ``scenario`` (the store)."""
    return in_callback(BUILD, N_CHANGED, progress, **values, scenario=scenario.to_dict())


def dcs(key, view, data) -> dict:
    """The DC figure (``figure``), its ``status`` line and that line's class (``flag``)."""
    return DCS(key=key, view=view, scenario=data)


def code(p) -> dict:
    """The code's ``summary``, ``scheme`` and ``matrix`` for a :class:`Built` (or its key and store)."""
    return CODE(key=p[0], scenario=p[1])


def compared(p, progress=no_progress) -> dict:
    """The comparison's ``figure`` and ``table`` for a :class:`Built` (or its key and store)."""
    return COMPARE(progress, key=p[0], scenario=p[1])


class Built(NamedTuple):
    """What the page holds once the build answered: the views' key, the scenario store, the checked parameters
    the views read from it."""

    key: str
    data: dict
    checked: dict


def params(**changes) -> Built:
    """The build of the controls' values with ``changes``, on the default scenario."""
    built = build(controls(**changes))
    assert built["message"] == "" and len(built["key"]) == 24
    data = DEFAULT_SCENARIO.to_dict() if built["scenario"] is no_update else built["scenario"]
    return Built(built["key"], data, model.scenario_params(Scenario.from_dict(data)))


def click(kind: str, index: int, p: Built, view: dict | None = None) -> dict:
    return in_callback(
        page.update_view,
        CLICK,
        {"points": [{"customdata": [kind, index]}]},
        0,
        p.key,
        view or dict(model.EMPTY_VIEW),
        p.data,
    )


def texts(component) -> str:
    return table_text.shown(component)


def arrowheads(fig, prefix: str) -> int:
    """Arrows drawn by the traces whose name starts with ``prefix`` (one arrowhead marker each)."""
    return sum(
        list(t.marker.symbol).count("arrow")
        for t in fig.data
        if t.name.startswith(prefix) and isinstance(t.marker.symbol, tuple | list)
    )


# ------------------------------------------------------------------ parameters
def test_build_stores_checked_parameters():
    p = params().checked
    assert p == {"n": 9, "k": 5, "dcs": 3, "code": "fmel", "traffic": "blocks", "d": None, "seed": 0, "placement": None}
    assert params(placement="0,0,0,1,1,1,2,2,2", code="rs").checked["placement"] == [0, 0, 0, 1, 1, 1, 2, 2, 2]


@pytest.mark.parametrize(
    "change, words",
    [
        ({"k": 12}, "k = 12 data blocks cannot exceed n = 9"),
        ({"n": 400}, "above the limit of 32"),
        ({"dcs": 0}, "the number of data centres must be at least 1"),
        ({"n": "x"}, "n (coded blocks) must be an integer"),
        ({"code": "replication"}, "multiple of k"),
        ({"d": 2}, "can survive 2 DC failures"),
        ({"placement": "0,1"}, "lists 2 DC numbers"),
        ({"code": "raid"}, "unknown code family"),
    ],
)
def test_bad_input_becomes_one_message_and_keeps_the_last_result(change, words):
    built = build(controls(**change))
    assert built["key"] is no_update and built["scenario"] is no_update
    message = built["message"]
    assert message.startswith("⚠ ") and words in message and "Traceback" not in message


# ------------------------------------------------------------------ the view
def test_clicks_select_blocks_and_toggle_dcs():
    p = params()
    view = click("block", 4, p)
    assert view == {"block": 4, "failed": []}
    view = click("dc", 1, p, view)
    assert view == {"block": 4, "failed": [1]}
    assert click("dc", 1, p, view) == {"block": 4, "failed": []}  # a second click restores it
    assert click("dc", 7, p, view) is no_update and click("block", 99, p, view) is no_update
    assert in_callback(page.update_view, CLICK, {"points": [{"x": 1}]}, 0, p.key, view, p.data) is no_update
    assert in_callback(page.update_view, f"{page.ERA_RESTORE}.n_clicks", None, 1, p.key, view, p.data) == {
        "block": 4,
        "failed": [],
    }
    assert in_callback(page.update_view, f"{page.ERA_PARAMS}.data", None, 0, p.key, view, p.data) == model.EMPTY_VIEW


def test_a_selected_block_shows_its_repair_group_with_the_cross_dc_count():
    p = params()
    result = measure("fmel", 9, 5, 3)
    for block in range(9):
        r = result["repair_groups"][block]
        drawn = dcs(p.key, {"block": block, "failed": []}, p.data)
        fig, status = drawn["figure"], drawn["status"]
        assert f"Rebuilding y{block} " in status and drawn["flag"] == "flag"
        assert f"cross-DC traffic {r['cross_dc']} block{'s' * (r['cross_dc'] != 1)} (per remote block read)" in status
        assert arrowheads(fig, "cross-DC read") == r["cross_dc"]  # remote reads in red
        assert arrowheads(fig, "read in its own DC") == len(r["local"])
        assert arrowheads(fig, "") == len(r["group"])
    names = [t.name for t in fig.data]
    assert "its repair group" in names and any(n.startswith("y8: the block being rebuilt") for n in names)


def test_aggregated_traffic_draws_one_red_arrow_per_remote_dc():
    p = params(traffic="aggregated")
    result = model.code_result(p.checked)
    block = next(i for i, r in enumerate(result["repair_groups_aggregated"]) if r["cross_dc"] == 1)
    drawn = dcs(p.key, {"block": block, "failed": []}, p.data)
    fig, status = drawn["figure"], drawn["status"]
    assert arrowheads(fig, "cross-DC transfer") == 1
    assert any(a.text == "<b>Σ</b>" for a in fig.layout.annotations)
    assert "one combined block from each of DC" in status
    assert result["mean_traffic_aggregated"] == pytest.approx(0.666667)


def test_failing_dcs_says_whether_the_stripe_survives():
    p = params(code="rs")
    drawn = dcs(p.key, {"block": None, "failed": [0]}, p.data)
    fig, status = drawn["figure"], drawn["status"]
    assert status.startswith("✓ The stripe survives the loss of DC 0: y0, y1, y2 are lost") and drawn["flag"] == "flag"
    assert [s.fillcolor for s in fig.layout.shapes] == ["#fde8e8", "#f8fafc", "#f8fafc"]
    assert "lost, rebuilt from the surviving DCs" in [t.name for t in fig.data]
    drawn = dcs(p.key, {"block": None, "failed": [0, 2]}, p.data)
    fig, status = drawn["figure"], drawn["status"]
    assert status.startswith("✕ Data lost: with DC 0, 2 down") and drawn["flag"] == "flag warn"
    assert "gone for good: y0, y1, y2, y6, y7, y8" in status
    assert "lost for good" in [t.name for t in fig.data]
    assert dcs(p.key, dict(model.EMPTY_VIEW), p.data)["status"].startswith("Click a block")


# ------------------------------------------------------------------ code, comparison, matrix
def test_code_views_and_matrix():
    views = code(params())
    summary, scheme, matrix = views["summary"], views["scheme"], views["matrix"]
    assert "FMEL(9,5)" in texts(summary) and "Lower bound on T̄: 0.778" in texts(scheme)
    assert "meets it ✓" in texts(scheme)
    assert len(matrix.data[0].z) == 5 and len(matrix.data[0].z[0]) == 9
    assert matrix.data[0].x[0] == "y0·DC0"
    rs_scheme = code(params(code="rs"))["scheme"]
    assert "Cauchy" in texts(rs_scheme)


def test_comparison_chart_and_table():
    p = params()
    comparison = compared(p)
    fig, table = comparison["figure"], comparison["table"]
    bars = [t for t in fig.data if t.type == "bar"]
    assert bars[0].name == "T̄ per remote block" and "FMEL ◀" in list(bars[0].x)
    paper = [t for t in fig.data if t.name == "paper (Table 2)"]
    assert len(paper) == 3 and paper[0].y[0] == 0.67  # the Table 2 column FMEL (n=9, k=5)
    assert bars[0].text[2] == "n/a"  # replication cannot store 9 blocks of 5
    assert "42.9–56.0 %" in texts(table) and "paper: FMEL (n=9, k=5)" in texts(table)
    assert "Reed–Solomon 74.1 %" in texts(table)
    fig = compared(params(code="rs", n=6, k=2))["figure"]
    assert "RS ◀" in list(fig.data[0].x)
    assert {t.hovertemplate.split(":")[0] for t in fig.data if t.name == "paper (Table 2)"} == {
        "paper, FMEL (n=6, k=2)"
    }


def test_pure_builders():
    pos, boxes = block_layout([0, 0, 1, 1, 2], 3)
    assert set(pos) == {0, 1, 2, 3, 4} and [b["dc"] for b in boxes] == [0, 1, 2]
    assert all(boxes[z]["x0"] < pos[i][0] < boxes[z]["x1"] for i, z in enumerate([0, 0, 1, 1, 2]))
    result = measure("lrc", 9, 5, 3)
    fig = dc_figure(result)
    assert {t.name for t in fig.data} >= {"data block", "local parity block", "global parity block"}
    assert fig.layout.yaxis.scaleanchor == "x"
    assert matrix_figure(result).data[0].z[0][3] is None  # x0 is not in y3
    out = compare_figure({"rs": {"error": "no"}, "fmel": measure("fmel", 6, 2, 3)}, [], "fmel", "blocks")
    assert out.data[0].text[0] == "n/a"


CONTROL_IDS = tuple(page.PARAM_CONTROLS.values())


def control_values(node, found: dict | None = None) -> dict:
    """The value of every control in a layout tree, by id."""
    found = {} if found is None else found
    if getattr(node, "id", None) in CONTROL_IDS:
        found[node.id] = node.value
    children = getattr(node, "children", None)
    for child in children if isinstance(children, list | tuple) else [children]:
        if child is not None and not isinstance(child, str):
            control_values(child, found)
    return found


def test_layout_shows_the_scenario_parameters():
    scenario = Scenario(
        params={
            "erasure": {"n": 12, "k": 8, "dcs": 4, "code": "rs", "traffic": "aggregated", "d": 1, "placement": "0,1"}
        }
    )
    found = control_values(page.body(scenario))
    assert found == {
        page.ERA_N: 12,
        page.ERA_K: 8,
        page.ERA_DCS: 4,
        page.ERA_CODE: "rs",
        page.ERA_TRAFFIC: "aggregated",
        page.ERA_D: 1,
        page.ERA_SEED: 0,
        page.ERA_PLACEMENT: "0,1",
    }
    forged = Scenario(params={"erasure": {"n": "zz", "code": "raid"}})
    assert control_values(page.body(forged))[page.ERA_CODE] == "fmel"  # unusable values fall back to the defaults


def test_the_parameters_go_into_the_scenario_and_reopen_the_same_view():
    values = dict(n=12, k=8, dcs=4, code="rs", traffic="aggregated", d=1, placement="0,0,0,1,1,1,2,2,2,3,3,3")
    built = build(controls(**values))
    store = built["scenario"]
    assert built["message"] == "" and store["params"]["erasure"]["placement"] == values["placement"]
    reopened = control_values(page.body(Scenario.from_dict(store)))
    again = build(dict(zip(CONTROLS, [reopened[i] for i in CONTROL_IDS], strict=True)), Scenario.from_dict(store))
    assert again == built | {"scenario": no_update}  # nothing changed: the store is left alone


# ------------------------------------------------------------------ stores and values from the browser, background jobs
def fixed(callback, **values):
    """``callback`` with the inputs ``values`` fixed (those a probe leaves alone)."""
    return functools.wraps(callback)(functools.partial(callback, **values))


def test_every_callback_checks_what_the_browser_sends():
    """Each input in turn gets every hostile value: the answer says ⚠ why, changes nothing or is what the valid
    values gave (a value read as the default: no placement, seed 0, no selection; None in the scenario store: the
    default scenario, which holds the same parameters). D = 0 is a D the search is asked for, probed apart. In an
    app's cache: the views read the code the build made (its search's time included) and compare it."""
    server = Flask(__name__)
    cache_module.cache.init_app(server, config={"CACHE_TYPE": "SimpleCache"})
    with server.app_context():
        _probe_every_callback()


def _probe_every_callback() -> None:
    p, view = params(), dict(model.EMPTY_VIEW)
    values = {key: value for key, value in controls().items() if key != "d"} | {"scenario": DEFAULT_SCENARIO.to_dict()}
    probe(fixed(BUILD, d=None), N_CHANGED, values, progress=True)
    probe(fixed(BUILD, **values), N_CHANGED, {"d": None}, progress=True, hostile=[v for v in HOSTILE if v != 0])
    assert build(controls(d=0))["key"] != p.key  # (a code surviving no DC failure)
    clicked = {
        "click": {"points": [{"customdata": ["dc", 1]}]},
        "_restore": 0,
        "key": p.key,
        "view": view,
        "data": p.data,
    }
    update_view = functools.wraps(page.update_view)(lambda *args, **kwargs: {"view": page.update_view(*args, **kwargs)})
    probe(update_view, CLICK, clicked)
    probe(DCS, None, {"key": p.key, "view": view, "scenario": p.data})
    probe(CODE, None, {"key": p.key, "scenario": p.data})
    probe(COMPARE, None, {"key": p.key, "scenario": p.data}, progress=True)


def test_the_views_read_the_parameters_from_the_scenario_whatever_the_store_says():
    """The browser's era-params store holds only the key of the build; the views read the checked parameters from
    the scenario on the server: a forged key draws the scenario's own views, a forged scenario nothing."""
    p = params(code="rs")
    own = (str(code(p)), dcs(p.key, None, p.data)["status"])
    assert own[1].startswith("Click a block")
    for forged in (p.checked | {"n": 40}, {"n": 9}, [p.key], "params", 3):
        assert (str(code((forged, p.data))), dcs(forged, None, p.data)["status"]) == own
    assert nothing(code((None, p.data))) and nothing(dcs(None, None, p.data))  # before the build answered
    for bad in ({"n": 400}, {"n": "x"}, {"code": "raid"}, {"placement": "0,1"}, {"k": 12}, {"dcs": 0}):
        data = Scenario(params={"erasure": model.DEFAULTS | bad}).to_dict()
        assert model.scenario_params(Scenario.from_dict(data)) is None
        assert nothing(code((p.key, data))) and nothing(compared((p.key, data))) and nothing(dcs(p.key, None, data))
    assert model.stored_view({"block": True, "failed": [0, 0, 7, "1", None]}, p.checked) == {
        "block": None,
        "failed": [0],
    }


def test_the_views_show_only_a_code_a_build_job_made():
    server = Flask(__name__)
    cache_module.cache.init_app(server, config={"CACHE_TYPE": "SimpleCache"})
    p = params(n=12, k=8, dcs=4, code="lrc")
    with server.app_context():
        assert (
            model.built_code(p.checked) is None
        )  # valid parameters nobody built here (a forged store): no computation
        drawn = dcs(p.key, None, p.data)
        assert drawn["status"] == page.NOT_BUILT and drawn["flag"] == "flag warn"
        assert nothing(code(p))
        model.build_code(p.checked)  # what the build job does
        assert model.built_code(p.checked)["name"] == "LRC(12,8; l=4, g=0)"
        assert "LRC(12,8; l=4, g=0)" in texts(code(p)["summary"]) and dcs(p.key, None, p.data)["flag"] == "flag"


def test_the_build_reports_the_fmel_search_scheme_by_scheme():
    seen = []
    built = build(controls(n=12, k=6, dcs=4), Scenario(), progress=seen.append)
    assert built["message"] == "" and model.scenario_params(Scenario.from_dict(built["scenario"]))["n"] == 12
    total = model.PAGE_SCHEMES + 1
    assert seen[0] == (0, 1, "Building the FMEL (searched) code…")
    tried = seen[1:-2]
    assert tried and [done for done, *_ in tried] == list(range(1, len(tried) + 1))
    assert tried[0] == (1, total, f"FMEL search: 1 of at most {model.PAGE_SCHEMES} schemes tried")
    assert seen[-2:] == [
        (total - 1, total, "FMEL search: computing the exact metrics of the code found…"),
        (total, total, "FMEL search: done"),
    ]
    seen.clear()
    build(controls(code="rs"), Scenario(), progress=seen.append)
    assert seen == [(0, 1, "Building the Reed–Solomon code…")]  # no search: one step


def test_the_comparison_reports_each_family(monkeypatch):
    monkeypatch.setattr(cache_module, "_server", None)  # computed here, not read from an earlier test's cache
    seen = []
    compared(params(), progress=seen.append)
    assert [text for *_, text in seen] == [
        "Comparing: Reed–Solomon (1 of 5)…",
        "Comparing: Azure LRC (2 of 5)…",
        "Comparing: replication (3 of 5)…",
        "Comparing: FMEL (searched) (4 of 5)…",
    ]


def test_the_page_has_a_job_bar_for_each_background_job():
    layout = page.body(Scenario())
    for prefix in (page.ERA_BUILD_JOB, page.ERA_COMPARE_JOB):
        for part in ("job", "progress", "progress-text", "cancel"):
            assert find_component(layout, f"{prefix}-{part}") is not None, (prefix, part)


# ------------------------------------------------------------------ the paper's T̄
DEFAULT_NOTE = (
    "T̄ = 0.778 here, counting every remote block read, with 4, 3, 2 blocks in the 3 DCs (no linear code does "
    "better counting so); counting one combined block per remote DC gives 0.778 too on these blocks. Table 2's "
    "0.67 for FMEL (n=9, k=5) holds when counting one combined block per remote DC, with 3, 3, 3 blocks in the "
    "3 DCs: choose “one combined block per remote DC” to see it."
)


def test_the_default_code_says_why_its_traffic_is_not_the_papers_0_67():
    summary = code(params())["summary"]
    assert "T̄, every remote block read 0.778\nT̄, one block per remote DC 0.778\n" in texts(summary)
    assert paragraphs(summary, "era-paper") == [DEFAULT_NOTE]


def test_counting_one_block_per_remote_dc_shows_the_papers_0_67():
    summary = code(params(traffic="aggregated"))["summary"]
    assert "T̄, one block per remote DC 0.667\n" in texts(summary)
    assert paragraphs(summary, "era-paper") == [
        "T̄ = 0.667 here, counting one combined block per remote DC, with 3, 3, 3 blocks in the 3 DCs: Table 2's "
        "0.67 for FMEL (n=9, k=5) ✓."
    ]


def test_a_placement_entered_against_the_papers_says_what_to_change():
    summary = code(params(traffic="aggregated", placement="0,0,0,0,1,1,1,2,2"))["summary"]
    assert paragraphs(summary, "era-paper") == [
        "T̄ = 0.778 here, counting one combined block per remote DC, with 4, 3, 2 blocks in the 3 DCs (no linear "
        "code does better counting so on this placement); counting every remote block read gives 0.778 too on "
        "these blocks. Table 2's 0.67 for FMEL (n=9, k=5) holds when counting one combined block per remote DC, "
        "with 3, 3, 3 blocks in the 3 DCs: enter a placement of 3, 3, 3 blocks or clear it to see it."
    ]


def test_codes_the_paper_has_not_get_no_note():
    summary = code(params(code="rs"))["summary"]
    assert paragraphs(summary, "era-paper") == [""]
    summary = code(params(n=8, k=4))["summary"]
    assert paragraphs(summary, "era-paper") == [""]


def test_the_comparison_says_the_same_beside_the_papers_column():
    p = params()
    table = compared(p)["table"]
    assert paragraphs(table, "era-paper") == [f"FMEL: {DEFAULT_NOTE}"]


def test_the_intro_cites_the_traffic_the_engine_finds_under_each_model():
    intro = texts(page.body(Scenario()))
    assert (
        "The paper's T̄ = 0.67 for FMEL(9,5) holds only under that second model, with 3 blocks in each of the 3 "
        "DCs; counting every remote block read, no linear code goes below 7/9 ≈ 0.778 (4, 3, 2 blocks)."
    ) in intro
    ours = against_paper(measure("fmel", 9, 5, 3))
    assert ours["holds"] == [{"traffic": "aggregated", "sizes": [3, 3, 3]}]
    assert (round(ours["shown"], 3), ours["sizes"], ours["least"]) == (0.778, [4, 3, 2], True)
