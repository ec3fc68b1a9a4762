"""GF(2^8) arithmetic and linear algebra against brute force and the field axioms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vizcoll.erasure.gf import (
    MUL,
    PRIMITIVE_POLY,
    gf_in_span,
    gf_in_span_batch,
    gf_inv,
    gf_inv_matrix,
    gf_matmul,
    gf_mul,
    gf_nullspace,
    gf_pow,
    gf_rank,
    gf_rank_batch,
    gf_rref,
    gf_solve,
)

ELEMENT = st.integers(0, 255)


def slow_mul(a: int, b: int) -> int:
    """Carry-less multiplication reduced modulo the primitive polynomial, bit by bit."""
    out = 0
    while b:
        if b & 1:
            out ^= a
        b >>= 1
        a <<= 1
        if a & 0x100:
            a ^= PRIMITIVE_POLY
    return out


def test_the_multiplication_table_is_carry_less_multiplication_mod_0x11d():
    expected = np.array([[slow_mul(a, b) for b in range(256)] for a in range(256)], dtype=np.uint8)
    assert np.array_equal(MUL, expected)


def test_field_axioms_hold_for_every_element():
    a = np.arange(256, dtype=np.uint8)
    assert np.array_equal(MUL, MUL.T)  # commutative
    assert np.array_equal(MUL[1], a) and not MUL[0].any()  # 1 is the unit, 0 absorbs
    nonzero = a[1:]
    assert np.all(gf_mul(nonzero, gf_inv(nonzero)) == 1)
    assert len({int(gf_pow(2, e)) for e in range(255)}) == 255  # 2 generates the multiplicative group
    with pytest.raises(ZeroDivisionError):
        gf_inv(0)


@given(ELEMENT, ELEMENT, ELEMENT)
def test_associative_and_distributive(a, b, c):
    assert int(gf_mul(gf_mul(a, b), c)) == int(gf_mul(a, gf_mul(b, c)))
    assert int(gf_mul(a, b ^ c)) == int(gf_mul(a, b)) ^ int(gf_mul(a, c))


@given(ELEMENT, st.integers(0, 600))
def test_power_is_repeated_multiplication(a, e):
    expected = 1
    for _ in range(e % 300):
        expected = slow_mul(expected, a)
    assert int(gf_pow(a, e % 300)) == expected


def det(m: list[list[int]]) -> int:
    """Leibniz determinant (characteristic 2: no signs)."""
    n = len(m)
    total = 0
    for perm in itertools.permutations(range(n)):
        term = 1
        for i, j in enumerate(perm):
            term = slow_mul(term, m[i][j])
        total ^= term
    return total


def brute_rank(m: np.ndarray) -> int:
    rows, cols = m.shape
    for r in range(min(rows, cols), 0, -1):
        for ri in itertools.combinations(range(rows), r):
            for ci in itertools.combinations(range(cols), r):
                if det([[int(m[i, j]) for j in ci] for i in ri]):
                    return r
    return 0


MATRIX = st.tuples(st.integers(1, 3), st.integers(1, 4)).flatmap(
    lambda shape: st.lists(
        st.lists(st.sampled_from([0, 0, 1, 2, 3, 7, 29, 142, 255]), min_size=shape[1], max_size=shape[1]),
        min_size=shape[0],
        max_size=shape[0],
    )
)


@settings(max_examples=150, deadline=None)
@given(MATRIX)
def test_rank_agrees_with_the_largest_non_singular_minor(rows):
    m = np.array(rows, dtype=np.uint8)
    assert gf_rank(m) == brute_rank(m)
    assert gf_rank_batch(m[None])[0] == brute_rank(m)


@settings(max_examples=100, deadline=None)
@given(MATRIX, st.lists(ELEMENT, min_size=4, max_size=4))
def test_solve_and_span_agree_with_brute_force(rows, x):
    a = np.array(rows, dtype=np.uint8)
    b = gf_matmul(a, np.array(x[: a.shape[1]], dtype=np.uint8)[:, None])[:, 0]
    sol = gf_solve(a, b)
    assert sol is not None and np.array_equal(gf_matmul(a, sol[:, None])[:, 0], b)
    assert gf_in_span(a, b) and gf_in_span_batch(a[None], b).tolist() == [True]
    # a vector outside the span, when there is one: brute force over all combinations of the columns
    if a.shape[1] <= 2 and a.shape[0] >= 2:
        coefficients = np.array(list(itertools.product(range(256), repeat=a.shape[1])), dtype=np.uint8)
        reachable = np.bitwise_xor.reduce(MUL[coefficients[:, None, :], a[None, :, :]], axis=2)  # every combination
        for v in ([1] + [0] * (a.shape[0] - 1), [0] * (a.shape[0] - 1) + [1], [5] * a.shape[0]):
            assert gf_in_span(a, v) == bool(np.all(reachable == np.array(v, dtype=np.uint8), axis=1).any())


def test_rref_nullspace_inverse():
    rng = np.random.default_rng(1)
    h = rng.integers(0, 256, (3, 7)).astype(np.uint8)
    r, pivots = gf_rref(h)
    assert len(pivots) == gf_rank(h) == 3
    assert np.array_equal(r[:, pivots], np.eye(3, dtype=np.uint8))
    g = gf_nullspace(h)
    assert g.shape == (4, 7) and gf_rank(g) == 4 and not gf_matmul(h, g.T).any()
    m = rng.integers(1, 256, (4, 4)).astype(np.uint8)
    if gf_rank(m) == 4:
        assert np.array_equal(gf_matmul(m, gf_inv_matrix(m)), np.eye(4, dtype=np.uint8))
    with pytest.raises(ValueError, match="singular"):
        gf_inv_matrix([[1, 2], [2, 4]])


def test_batched_checks_match_one_by_one():
    rng = np.random.default_rng(7)
    stack = rng.integers(0, 4, (300, 4, 3)).astype(np.uint8)  # small entries: many dependent cases
    target = np.array([1, 2, 0, 3], dtype=np.uint8)
    assert gf_rank_batch(stack).tolist() == [gf_rank(s) for s in stack]
    assert gf_in_span_batch(stack, target).tolist() == [gf_in_span(s, target) for s in stack]


def test_bad_elements_are_refused():
    with pytest.raises(ValueError, match="0 to 255"):
        gf_rank([[256, 1]])
    with pytest.raises(ValueError, match="cannot multiply"):
        gf_matmul([[1, 2]], [[1, 2]])
