"""Code families, placements and parameter checks; the exact metrics against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vizcoll.erasure.codes import (
    Code,
    check_parameters,
    code_from_generator,
    even_placement,
    lrc,
    parse_placement,
    reed_solomon,
    replication,
)
from vizcoll.erasure.gf import gf_in_span, gf_rank
from vizcoll.erasure.metrics import (
    Budget,
    Metrics,
    RepairTimeModel,
    block_failures_tolerated,
    dc_failure,
    dc_failures_survived,
    evaluate,
    is_mds,
    repair_group,
    repair_group_aggregated,
)
from vizcoll.errors import SpecError


# ------------------------------------------------------------------ families
@pytest.mark.parametrize("construction", ["cauchy", "vandermonde"])
@pytest.mark.parametrize("n, k", [(4, 2), (6, 2), (7, 3), (9, 5), (10, 4)])
def test_reed_solomon_is_systematic_and_every_k_columns_are_independent(construction, n, k):
    code = reed_solomon(n, k, 3, construction=construction)
    g = code.generator
    assert np.array_equal(g[:, :k], np.eye(k, dtype=np.uint8))
    for cols in itertools.combinations(range(n), k):
        assert gf_rank(g[:, list(cols)]) == k, cols
    assert is_mds(g) is True and code.mds


def test_replication_lrc_and_custom_codes():
    rep = replication(6, 2, 3)
    assert rep.generator.tolist() == [[1, 0, 1, 0, 1, 0], [0, 1, 0, 1, 0, 1]]
    assert rep.placement == [0, 0, 1, 1, 2, 2] and rep.params == {"copies": 3}
    code = lrc(16, 8, 4)
    assert code.params["local_groups"] == 4 and code.params["global_parities"] == 4
    g = code.generator
    for group in range(4):
        members = [i for i, grp in enumerate(code.params["group"]) if grp == group]
        data = [i for i in members if code.kinds[i] == "data"]
        parity = [i for i in members if code.kinds[i] == "local parity"]
        assert len(parity) == 1 and len({code.placement[i] for i in members}) == 1  # a group stays together
        rows = [int(np.flatnonzero(g[:, i])[0]) for i in data]
        assert sorted(np.flatnonzero(g[:, parity[0]]).tolist()) == sorted(rows)  # XOR of its data
        assert set(g[rows, parity[0]].tolist()) == {1}
    assert is_mds(code.generator) is False
    assert sorted(np.bincount(code.placement).tolist()) == [4, 4, 4, 4]
    custom = code_from_generator([[1, 0, 1, 1], [0, 1, 1, 2]], 2)
    assert custom.data_blocks == [0, 1] and custom.kinds == ["data", "data", "parity", "parity"]
    assert custom.encode([[3], [5]]).ravel().tolist()[:2] == [3, 5]
    assert Code.from_dict(code.to_dict()).to_dict() == code.to_dict()


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: check_parameters(4, 5, 2), "k = 5 data blocks cannot exceed n = 4"),
        (lambda: check_parameters(40, 5, 2), "above the limit of 32"),
        (lambda: check_parameters(9, 5, 0), "at least 1"),
        (lambda: check_parameters(9, 5, 17), "above the limit of 16"),
        (lambda: check_parameters(9, 0, 2), "k (data blocks per stripe) must be at least 1"),
        (lambda: check_parameters(5, 5, 2), "cannot repair anything"),
        (lambda: check_parameters("nine", 5, 2), "n must be an integer"),
        (lambda: check_parameters(9.5, 5, 2), "n must be an integer"),
        (lambda: parse_placement("0,1", 3, 2), "lists 2 DC numbers"),
        (lambda: parse_placement("0,1,x", 3, 2), "one DC number per block"),
        (lambda: parse_placement([0, 1, 3], 3, 2), "numbered 0 to 1"),
        (lambda: replication(9, 5, 3), "multiple of k"),
        (lambda: lrc(9, 5, 3, local_groups=6), "1 to k = 5 local groups"),
        (lambda: lrc(7, 5, 3, local_groups=3), "needs n ≥ k + 3"),
        (lambda: reed_solomon(6, 2, 3, construction="fft"), "unknown RS construction"),
        (lambda: code_from_generator([[1, 2, 3], [2, 4, 6]], 2), "linearly dependent"),
        (lambda: code_from_generator([[1, 0, 0], [0, 1, 0]], 2), "column 2 of the generator is zero"),
        (lambda: code_from_generator([[1, 300, 1]], 2), "0 to 255"),
    ],
)
def test_absurd_inputs_get_one_clear_sentence(call, words):
    with pytest.raises(SpecError, match=None) as info:
        call()
    message = str(info.value)
    assert words in message and "\n" not in message


def test_even_placement():
    assert even_placement(9, 3) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert even_placement(3, 5) == [0, 1, 2]


# ------------------------------------------------------------------ brute force
def brute_best(code: Code, i: int, key) -> tuple[int, int] | None:
    """The smallest ``key(group)`` over every subset of the other blocks that rebuilds block i."""
    g = code.generator
    others = [j for j in range(code.n) if j != i]
    keys = [
        key(group)
        for size in range(len(others) + 1)
        for group in itertools.combinations(others, size)
        if gf_in_span(g[:, list(group)], g[:, i])
    ]
    return min(keys, default=None)


def brute_repair(code: Code, i: int) -> tuple[int, int] | None:
    """(fewest remote blocks, then fewest blocks in all)."""
    return brute_best(code, i, lambda group: (sum(code.placement[j] != code.placement[i] for j in group), len(group)))


def brute_aggregated(code: Code, i: int) -> tuple[int, int] | None:
    """(fewest remote DCs, then fewest blocks read in the block's own DC)."""
    z = code.placement[i]
    return brute_best(
        code,
        i,
        lambda group: (len({code.placement[j] for j in group} - {z}), sum(code.placement[j] == z for j in group)),
    )


def brute_dc_survived(code: Code) -> int:
    best = 0
    for f in range(1, code.dcs + 1):
        for lost in itertools.combinations(range(code.dcs), f):
            alive = [j for j in range(code.n) if code.placement[j] not in lost]
            if gf_rank(code.generator[:, alive]) < code.k:
                return best
        best = f
    return best


def brute_tolerance(code: Code) -> int:
    for t in range(1, code.n + 1):
        for lost in itertools.combinations(range(code.n), t):
            alive = [j for j in range(code.n) if j not in lost]
            if gf_rank(code.generator[:, alive]) < code.k:
                return t - 1
    return code.n


def small_codes():
    """Structured codes and random sparse ones (sparse: many dependencies, interesting repair groups)."""
    yield reed_solomon(6, 3, 3)
    yield lrc(7, 3, 2)
    yield lrc(9, 5, 3)
    yield replication(4, 2, 2)
    rng = np.random.default_rng(3)
    while True:
        k, n, dcs = int(rng.integers(2, 4)), int(rng.integers(4, 8)), int(rng.integers(1, 4))
        if n <= k:
            continue
        g = (rng.integers(0, 256, (k, n)) * (rng.random((k, n)) < 0.5)).astype(np.uint8)
        if gf_rank(g) == k and g.any(axis=0).all():
            yield code_from_generator(g, dcs, placement=rng.integers(0, dcs, n).tolist())


CODES = list(itertools.islice(small_codes(), 30))


@pytest.mark.parametrize("code", CODES, ids=lambda c: f"{c.name}-{c.n}-{c.k}-{c.dcs}")
def test_exact_metrics_agree_with_brute_force(code):
    general = Code.from_dict(code.to_dict() | {"mds": False})  # no closed forms: the enumeration itself
    for c in (code, general):
        for i in range(c.n):
            expected = brute_repair(c, i)
            got = repair_group(c, i)
            if expected is None:
                assert got["group"] is None
                continue
            assert (got["cross_dc"], got["reads"]) == expected, (c.name, i)
            assert gf_in_span(c.generator[:, got["group"]], c.generator[:, i])
            assert got["remote"] == [j for j in got["group"] if c.placement[j] != c.placement[i]]
            agg = repair_group_aggregated(c, i)
            assert (agg["cross_dc"], len(agg["local"])) == brute_aggregated(c, i), (c.name, i)
            assert gf_in_span(c.generator[:, agg["group"]], c.generator[:, i])
            assert agg["cross_dc"] == len(agg["remote_dcs"]) <= got["cross_dc"]
        assert dc_failures_survived(c) == brute_dc_survived(c)
        tolerance = block_failures_tolerated(c)
        assert tolerance["tolerated"] == brute_tolerance(c) and tolerance["exact"]


def test_known_values_and_the_repair_time_model():
    rs = evaluate(reed_solomon(9, 5, 3))
    assert rs.traffic() == [3] * 9 and rs.traffic("aggregated") == [1] * 9
    assert rs.dc_failures_survived == 1 and rs.block_tolerance["tolerated"] == 4
    lrc95 = evaluate(lrc(9, 5, 3))
    assert lrc95.traffic() == [0] * 8 + [4] and lrc95.dc_failures_survived == 0
    rep = evaluate(replication(3, 1, 3))
    assert rep.mean_traffic() == 1.0 and rep.dc_failures_survived == 2
    assert rep.repair_time() == pytest.approx(1000 / 12.1)  # one cross-DC copy, no decoding
    assert evaluate(reed_solomon(6, 2, 3)).repair_time() == pytest.approx(86.6, abs=0.1)  # Table 2's FMEL(6,2)
    assert RepairTimeModel(cross_dc_mb_s=100, intra_dc_mb_s=1000, decode_ms_per_mb=1).block_ms_per_mb(
        1, 2
    ) == pytest.approx(10 + 2 + 3)
    with pytest.raises(SpecError, match="must be a positive number"):
        RepairTimeModel(cross_dc_mb_s=0)
    assert Metrics.from_dict(rs.to_dict()).to_dict() == rs.to_dict()


def test_dc_failure_reports_lost_and_recoverable_blocks():
    code = lrc(9, 5, 3)
    out = dc_failure(code, [0])
    assert out["lost"] == [0, 1, 2] and not out["survives"]
    assert out["recoverable"] == [] and out["unrecoverable"] == [0, 1, 2] and out["rank"] == 4
    out = dc_failure(reed_solomon(9, 5, 3), [2])
    assert out["survives"] and out["recoverable"] == [6, 7, 8]
    assert dc_failure(code, [])["lost"] == [] and dc_failure(code, [0, 1, 2])["rank"] == 0


def test_an_exhausted_budget_is_reported_not_hidden():
    code = Code.from_dict(reed_solomon(12, 6, 4).to_dict() | {"mds": False})
    out = repair_group(code, 0, Budget(3))
    assert out["exact"] is False and out["lower_bound"] >= 1
    assert gf_in_span(code.generator[:, out["group"]], code.generator[:, 0])
    tolerance = block_failures_tolerated(code, Budget(10))
    assert tolerance["exact"] is False and tolerance["tolerated"] <= tolerance["upper"] == 6


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 10), st.integers(1, 9), st.integers(1, 5))
def test_any_valid_stripe_has_consistent_metrics(n, k, dcs):
    if k >= n:
        return
    m = evaluate(reed_solomon(n, k, dcs))
    local = np.bincount(m.code.placement, minlength=dcs)
    for r in m.repair:
        assert r["cross_dc"] == max(0, k - (local[r["dc"]] - 1)) and r["reads"] == k
    assert 0 <= m.dc_failures_survived < dcs or dcs == 1
    assert m.block_tolerance["tolerated"] == n - k
