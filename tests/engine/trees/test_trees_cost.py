"""The cost model (eq. 2–11), the width k (Table 2), the type choice (Table 3) and ``vizcoll kopt``."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vizcoll.cli import main
from vizcoll.errors import SpecError
from vizcoll.trees.cost import (
    SUNWAY,
    TABLE2_SIZES,
    CostParams,
    choose_tree_type,
    df_dP,
    df_dS,
    f_decision,
    f_width,
    f_width_prime,
    k_star_real,
    kopt,
    recommended_k,
    selection_table,
    t_aggregate,
    t_type_one,
    t_type_two,
)

P, A, B = 512, 1.12, 0.01  # the paper's example (section 3.1)


# ---------------------------------------------------------------- parameters and eq. 2-4
def test_defaults_give_the_papers_a_and_b():
    assert SUNWAY.a == pytest.approx(1.12)
    assert SUNWAY.b == pytest.approx(0.01)
    assert (SUNWAY.P, SUNWAY.k, SUNWAY.delta) == (512, 32, 4)


def test_b_from_packet_sizes():
    p = CostParams(S=32)
    assert p.packet == p.reduced == 32
    assert p.b == pytest.approx(0.01 + 32 / 16000 + 32 * 3.75e-5)
    q = p.replace(S_prime=64, S_star=0)
    assert q.b == pytest.approx(0.01 + 64 / 16000)
    assert CostParams(beta=1000.0, gamma=0.0, S=100).b == pytest.approx(0.11)


@pytest.mark.parametrize("bad", [{"l": -1}, {"beta": 0}, {"k": 1}, {"P": 0}])
def test_bad_parameters(bad):
    with pytest.raises(SpecError):
        CostParams(**bad)


def test_eq2_eq3_eq4():
    assert t_aggregate(2, 8, 32) == pytest.approx(8 * 0.28 + 2 * 32 * 0.01)
    assert t_aggregate(3, 6) == pytest.approx(6 * 0.28 + 3 * 32 * 0.01)  # k from the parameters
    assert t_type_one() == pytest.approx(math.log(512, 32) * (1.12 + 32 * 0.01))
    assert t_type_one(P, 41) == pytest.approx(f_width(41, P, A, B))
    assert t_type_two() == pytest.approx(0.56 + 2 * 32 * 0.01)  # ⌈log_32 512⌉ = 2
    assert t_type_two(512, 8) == pytest.approx(0.56 + 3 * 8 * 0.01)  # exact power: ⌈log_8 512⌉ = 3


# ---------------------------------------------------------------- eq. 5-6 and the paper's k*
def test_paper_example_k_star_and_interval():
    res = kopt(P, A, B, eps=0.1)
    assert set(res) == {"k_star", "F_star", "kmin", "kmax"}
    assert res["k_star"] == 41
    assert res["F_star"] == pytest.approx(f_width(41, P, A, B))
    # The text says 24 <= k <= 64; the model's interval is [24, 69]: F(65..69) are still within 0.1 us.
    assert (res["kmin"], res["kmax"]) == (24, 69)
    f_star = res["F_star"]
    assert f_width(24, P, A, B) - f_star <= 0.1 < f_width(23, P, A, B) - f_star
    assert f_width(64, P, A, B) - f_star == pytest.approx(0.0698, abs=1e-4)
    assert f_width(69, P, A, B) - f_star <= 0.1 < f_width(70, P, A, B) - f_star
    # with the widths the paper uses (at most 64) it is exactly the text's interval
    assert kopt(P, A, B, eps=0.1, k_limit=64) == {**res, "kmax": 64}


def test_interval_is_inclusive():
    f_star = f_width(41, P, A, B)
    eps = f_width(24, P, A, B) - f_star  # k = 24 exactly on the boundary
    assert kopt(P, A, B, eps=eps)["kmin"] == 24
    assert kopt(P, A, B, eps=eps * (1 - 1e-9))["kmin"] == 25


def test_real_optimum_solves_the_first_order_condition():
    k = k_star_real(A, B)
    assert k == pytest.approx(41.2, abs=0.05)
    assert k * (math.log(k) - 1) == pytest.approx(A / B)
    assert f_width_prime(k, P, A, B) == pytest.approx(0, abs=1e-12)
    assert f_width_prime(41, P, A, B) < 0 < f_width_prime(42, P, A, B)
    assert k_star_real(0.0, 1.0) == pytest.approx(math.e)


@pytest.mark.parametrize("k", [2.5, 7.0, 41.0, 300.0])
def test_eq6_is_the_derivative_of_eq5(k):
    h = 1e-6
    numeric = (f_width(k + h, P, A, B) - f_width(k - h, P, A, B)) / (2 * h)
    assert f_width_prime(k, P, A, B) == pytest.approx(numeric, rel=1e-5)


@settings(max_examples=60, deadline=None)
@given(P=st.integers(2, 100_000), a=st.floats(0, 5), b=st.floats(1e-4, 1), eps=st.floats(0, 1))
def test_kopt_interval_is_exactly_the_near_optimal_widths(P, a, b, eps):
    res = kopt(P, a, b, eps)
    k_star, f_star, kmin, kmax = res["k_star"], res["F_star"], res["kmin"], res["kmax"]
    f = lambda k: f_width(k, P, a, b)
    top = max(kmax + 3, int(k_star_real(a, b)) + 3)
    assert min(range(2, top + 1), key=lambda k: (f(k), k)) == k_star
    assert 2 <= kmin <= k_star <= kmax
    assert all(abs(f(k) - f_star) <= eps for k in (kmin, (kmin + kmax) // 2, kmax))
    assert kmin == 2 or f(kmin - 1) - f_star > eps
    assert f(kmax + 1) - f_star > eps


@pytest.mark.parametrize(
    ("args", "message"),
    [((1, A, B), "2 processes"), ((P, A, 0.0), "b > 0"), ((P, A, B, -1), "eps"), ((P, A, B, 0.1, 1), "k_limit")],
)
def test_kopt_rejects_bad_input(args, message):
    with pytest.raises(SpecError, match=message):
        kopt(*args)


# ---------------------------------------------------------------- Table 2
PAPER_TABLE2 = {  # packet bytes: (kmin, kmax, recommended k)
    0: (32, 64, 32),
    32: (16, 63, 32),
    64: (15, 53, 32),
    128: (13, 40, 16),
    256: (10, 28, 16),
    512: (8, 19, 16),
    1024: (6, 12, 8),
    2048: (5, 8, 8),
}


def test_table2_reduce_rows_are_reproduced_exactly():
    from vizcoll.trees.cost import table2

    rows = {r["packet_bytes"]: r for r in table2()}
    assert list(rows) == list(TABLE2_SIZES)
    for size, (kmin, kmax, k) in PAPER_TABLE2.items():
        assert rows[size]["recommended_k"] == k
        if size:
            assert (rows[size]["kmin"], rows[size]["kmax"]) == (kmin, kmax), size
            assert rows[size]["b"] == pytest.approx(0.011 + 1e-4 * size)
    # Barrier/Bcast (b = 0.01): the model gives [20, 64] at eps 0.2, the paper prints [32, 64]
    assert rows[0]["message"] == "Barrier/Bcast"
    assert (rows[0]["kmin"], rows[0]["kmax"]) == (20, 64)


def test_recommended_k_is_the_best_power_of_two():
    assert recommended_k(P, A, B) == 32
    assert recommended_k(P, A, 0.2158) == 8
    assert recommended_k(P, A, B, widths=(8, 16)) == 16


# ---------------------------------------------------------------- eq. 7-11 and Table 3
def test_decision_function_is_t1_minus_t2():
    p = SUNWAY
    for d, k, S in [(64, 16, 100), (16, 8, 2048), (64, 32, 0)]:
        b = p.theta + S / p.beta + S * p.gamma
        t1 = f_width(k, P, p.a, b)
        t2 = p.a / 2 + d * b * math.log(P, d)
        assert f_decision(d, k, P, S) == pytest.approx(t1 - t2)
    # eq. 9 at d = 64, k = 16 vanishes at b = 1.75 a / 60
    S0 = (1.75 * p.a / 60 - p.theta) / (1 / p.beta + p.gamma)
    assert f_decision(64, 16, P, S0) == pytest.approx(0, abs=1e-12)


def test_derivatives_eq10_eq11():
    d, k, S, h = 64, 16, 200.0, 1e-3

    def f(P_, S_):
        b = SUNWAY.theta + S_ / SUNWAY.beta + S_ * SUNWAY.gamma
        return (math.log(P_, k) - 0.5) * SUNWAY.a + (k * math.log(P_, k) - d * math.log(P_, d)) * b

    assert df_dP(d, k, P, S) == pytest.approx((f(P + h, S) - f(P - h, S)) / (2 * h), rel=1e-6)
    assert df_dS(d, k, P) == pytest.approx((f(P, S + h) - f(P, S - h)) / (2 * h), rel=1e-6)
    assert df_dP(d, k, P, S, printed=True) != pytest.approx(df_dP(d, k, P, S))  # the paper's printed form


def _shape(rows):
    return [(r["d"], r["type"], r["k"]) for r in rows]


def test_selection_table_has_the_shape_of_table3():
    rows = selection_table()
    assert _shape(rows) == [
        (16, "II", 16),
        (64, "II", 64),
        (64, "I", 16),
        (64, "I", 8),
        (None, "I", 32),
        (None, "I", 16),
        (None, "I", 8),
    ]
    assert [r["range"] for r in rows] == [
        "[0, 2048]",
        "[0, 216]",
        "(216, 589]",
        "(589, 2048]",
        "[0, 123]",
        "(123, 589]",
        "(589, 2048]",
    ]


def test_selection_table_on_table2_sizes_matches_the_paper_without_type_two():
    rows = [r for r in selection_table(sizes=TABLE2_SIZES) if r["d"] is None]
    assert [(r["range"], r["k"]) for r in rows] == [("[0, 64]", 32), ("(64, 512]", 16), ("(512, 2048]", 8)]


def test_papers_323_bytes_needs_a_smaller_per_byte_cost():
    params = CostParams(gamma=7.0175e-5 - 1 / 16000)  # 1/beta + gamma = 0.022667 us / 323 B
    rows = [r for r in selection_table(params, degrees=(64,), header=0)]
    assert rows[0]["range"] == "[0, 323]" and (rows[0]["type"], rows[0]["k"]) == ("II", 64)
    assert (rows[1]["type"], rows[1]["k"]) == ("I", 16)


def test_choose_tree_type():
    assert choose_tree_type(0, 64) == ("II", 64)
    assert choose_tree_type(2048, 64) == ("I", 8)
    assert choose_tree_type(2048, 16) == ("II", 16)
    assert choose_tree_type(0, None) == ("I", 32)


# ---------------------------------------------------------------- the command
def test_kopt_command(capsys):
    assert main(["kopt", "--P", "512", "--a", "1.12", "--b", "0.01"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {k: out[k] for k in ("k_star", "kmin", "kmax")} == {"k_star": 41, "kmin": 24, "kmax": 69}
    assert out["F_star"] == pytest.approx(2.5702, abs=1e-4)
    assert main(["kopt", "--P", "512", "--a", "1.12", "--b", "0.01", "--eps", "0.1", "--k-limit", "64"]) == 0
    assert json.loads(capsys.readouterr().out)["kmax"] == 64


def test_kopt_command_error(capsys):
    assert main(["kopt", "--P", "1", "--a", "1", "--b", "0.01"]) == 2
    assert "vizcoll: error:" in capsys.readouterr().err
