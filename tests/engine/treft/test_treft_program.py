"""TREFT program model, live variables, the five placement rules and the built-in NGB workflows."""

import numpy as np
import pytest

from vizcoll.errors import SpecError
from vizcoll.treft import (
    WORKFLOWS,
    KernelCall,
    Program,
    Serial,
    Write,
    live_variables,
    npb,
    place_sections,
    run_reference,
    workflow,
)


def gen():
    return np.arange(8.0)


def k(name, inputs, outputs, pattern=None, fn=None):
    fn = fn or (lambda *xs: sum(xs) + 1.0)
    return KernelCall(name, tuple(inputs), tuple(outputs), fn, time=1.0, subtasks=2, solver="T", pattern=pattern)


def prog(*statements, pragmas=None, outputs=None):
    outs = outputs or tuple(s.target for s in statements if isinstance(s, Write))
    sizes = {"x": 64} | {v: 64 for s in statements if not isinstance(s, Write) for v in s.outputs}
    return Program("test", (Serial("S0", (), ("x",), gen, time=0.5), *statements), sizes, outs, pragmas=pragmas)


def rules(violations):
    return sorted({v.rule for v in violations})


# ---------------------------------------------------------------- program model
def test_reference_values_flow_through_the_program():
    p = prog(k("K1", ["x"], ["a"]), k("K2", ["a"], ["b"]), Write("b", "y"))
    ref = run_reference(p)
    assert np.array_equal(ref["y"], np.arange(8.0) + 2.0)
    assert p.is_stream("a") and not p.is_stream("x") and not p.is_stream("y")
    assert p.last_use == {"x": 1, "a": 2, "b": 3, "y": -1}
    assert p.readers["a"] == (2,)


@pytest.mark.parametrize(
    ("statements", "message"),
    [
        ((k("K1", ["nope"], ["a"]),), "before it is defined"),
        ((k("K1", ["x"], ["a"]), k("K2", ["x"], ["a"])), "defined twice"),
        ((k("K1", ["x"], ["a"]), Serial("S1", ("a",), ("h",), lambda a: a)), "Write first"),
        ((Write("x", "y"),), "no kernel defines"),
        ((k("K1", ["x"], ["a"], "P"), k("K2", ["x"], ["b"]), k("K3", ["x"], ["c"], "P")), "consecutive"),
        ((k("K1", ["x"], ["a"], "P"), k("K2", ["a"], ["b"], "P")), "inside its own parallel pattern"),
        ((k("K:1", ["x"], ["a"]),), "without ':'"),
        ((k("K1", ["x"], ["a"]), k("K1", ["a"], ["b"])), "two statements are named"),
    ],
)
def test_invalid_programs_are_rejected(statements, message):
    with pytest.raises(SpecError, match=message):
        prog(*statements, outputs=("x",))


def test_outputs_must_be_host_variables_and_pragmas_valid():
    with pytest.raises(SpecError, match="host variable"):
        prog(k("K1", ["x"], ["a"]), outputs=("a",))
    with pytest.raises(SpecError, match="overlap"):
        prog(k("K1", ["x"], ["a"]), k("K2", ["a"], ["b"]), Write("b", "y"), pragmas=[(1, 2), (2, 2)])
    with pytest.raises(SpecError, match="range of statements"):
        prog(k("K1", ["x"], ["a"]), Write("a", "y"), pragmas=[(1, 9)])


def test_parallel_pattern_groups():
    p = prog(k("K1", ["x"], ["a"], "P"), k("K2", ["x"], ["b"], "P"), k("K3", ["a", "b"], ["c"]), Write("c", "y"))
    assert p.groups() == [(0,), (1, 2), (3,), (4,)]


# ---------------------------------------------------------------- sections and rules
def test_live_variables_are_the_data_leaving_the_section():
    p = prog(k("K1", ["x"], ["a"]), k("K2", ["a"], ["b"]), k("K3", ["a", "b"], ["c"]), Write("c", "y"))
    assert live_variables(p, 1, 2) == ("a", "b")
    assert live_variables(p, 1, 3) == ("c",)
    assert live_variables(p, 1, 1) == ("a",)


def test_automatic_placement_closes_before_a_write_of_its_own_data():
    p = prog(
        k("K1", ["x"], ["a"]), k("K2", ["a"], ["b"]), Write("b", "y1"), k("K3", ["a", "b"], ["c"]), Write("c", "y2")
    )
    sections, violations = place_sections(p, "treft")
    assert [(s.first, s.last, s.kernels, s.live) for s in sections] == [
        (1, 2, ("K1", "K2"), ("a", "b")),
        (4, 4, ("K3",), ("c",)),
    ]
    assert violations == []


def test_rule_1_write_inside_its_section():
    p = prog(k("K1", ["x"], ["a"]), Write("a", "y"), k("K2", ["a"], ["b"]), Write("b", "z"), pragmas=[(1, 3)])
    _, violations = place_sections(p, "treft")
    assert rules(violations) == [1]
    assert "inside section 1" in violations[0].message


def test_rule_2_kernel_outside_every_section_and_rule_4_with_eager_transfer():
    p = prog(k("K1", ["x"], ["a"]), k("K2", ["a"], ["b"]), Write("b", "y"), pragmas=[(2, 2)])
    assert rules(place_sections(p, "treft")[1]) == [2]
    assert rules(place_sections(p, "e1")[1]) == [2, 4]


def test_rule_3_parallel_pattern_split():
    p = prog(
        k("K1", ["x"], ["a"], "P"),
        k("K2", ["x"], ["b"], "P"),
        k("K3", ["a", "b"], ["c"]),
        Write("c", "y"),
        pragmas=[(1, 1), (2, 3)],
    )
    _, violations = place_sections(p, "treft")
    assert 3 in rules(violations)
    sections, violations = place_sections(p, "e2")  # one section per kernel, but the pattern stays whole
    assert [s.kernels for s in sections] == [("K1", "K2"), ("K3",)]
    assert rules(violations) == [5]


def test_rule_5_fine_granularity():
    p = workflow("HC", "A")
    sections, violations = place_sections(p, "e2")
    assert len(sections) == 18 and all(len(s.kernels) == 1 for s in sections)
    assert rules(violations) == [5] and len(violations) == 17
    assert "saves one OPRS/OPRFS round" in violations[0].message


def test_unknown_variant():
    with pytest.raises(SpecError, match="unknown variant"):
        place_sections(workflow("HC", "A"), "e3")


# ---------------------------------------------------------------- NGB workflows
def test_workflow_table():
    assert sorted(WORKFLOWS) == ["HC", "MB", "VP"]
    assert all(sorted(WORKFLOWS[w]) == ["A", "B"] for w in WORKFLOWS)
    for w in WORKFLOWS:
        p = workflow(w.lower(), "a")
        assert len(p.kernels) == 18 and p.name == f"{w}.A"
    with pytest.raises(SpecError, match="unknown workflow"):
        workflow("ED", "A")
    with pytest.raises(SpecError, match="unknown class"):
        workflow("HC", "C")


def test_helical_chain_is_a_chain_of_bt_sp_lu():
    p = workflow("HC", "A")
    kernels = list(p.kernels.values())
    assert [x.solver for x in kernels] == ["BT", "SP", "LU"] * 6
    assert kernels[0].inputs == ("x0",)
    assert all(x.inputs == (f"u{i}",) for i, x in enumerate(kernels[1:], start=1))
    assert p.outputs == ("y1",) and p.sizes["u1"] == 64**3 * npb.BYTES_PER_POINT["BT"]


def test_visualization_pipe_rows():
    p = workflow("VP", "B")
    kernels = p.kernels
    assert [x.solver for x in kernels.values()] == ["BT", "MG", "FT"] * 6
    assert kernels["K2"].inputs == ("u1",)  # MG0 <- BT0
    assert kernels["K5"].inputs == ("u4", "u2")  # MG1 <- BT1, MG0
    assert kernels["K6"].inputs == ("u5", "u3")  # FT1 <- MG1, FT0
    assert kernels["K10"].inputs == ("u7",)  # pass 2 BT0 <- pass 1 BT2
    assert len(p.outputs) == 6  # every FT frame is written
    assert p.sizes["u3"] == 102**3 * npb.BYTES_PER_POINT["FT"]


def test_mixed_bag_layers():
    p = workflow("MB", "A")
    kernels = p.kernels
    assert [x.solver for x in kernels.values()] == (["LU"] * 3 + ["MG"] * 3 + ["FT"] * 3) * 2
    assert kernels["K4"].inputs == ("u1", "u2")
    assert kernels["K5"].inputs == ("u1", "u2", "u3")
    assert kernels["K6"].inputs == ("u2", "u3")
    assert p.outputs == ("y1", "y2", "y3")


@pytest.mark.parametrize("name", ["HC", "VP", "MB"])
def test_treft_places_one_large_section_whose_live_data_are_the_results(name):
    p = workflow(name, "A")
    sections, violations = place_sections(p, "treft")
    assert violations == []
    assert len(sections) == 1 and len(sections[0].kernels) == 18
    written = tuple(s.var for s in p.statements if isinstance(s, Write))
    assert sections[0].live == written


def test_reference_run_is_finite_and_deterministic():
    for name in ("HC", "VP", "MB"):
        a, b = run_reference(workflow(name, "A")), run_reference(workflow(name, "A"))
        for var, value in a.items():
            assert np.isfinite(value).all() and np.array_equal(value, b[var])
