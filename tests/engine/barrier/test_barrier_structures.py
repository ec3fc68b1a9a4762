"""LCT/BST patterns, numberings, round(K), greedy grid routing and the update quantity (seed 002)."""

import json
from fractions import Fraction

import numpy as np
import pytest

from vizcoll.barrier import structures as st
from vizcoll.barrier import uq
from vizcoll.cli import main
from vizcoll.errors import SpecError

SIZES = [1, 2, 3, 5, 7, 8, 12, 16, 17, 31, 64, 100]


# ---------------------------------------------------------------- structures
@pytest.mark.parametrize("structure", ["lct", "bst"])
@pytest.mark.parametrize("n", SIZES)
def test_parents_and_children_agree_and_reach_everyone(structure, n):
    parent = st.gather_map(structure, n)
    children = st.release_map(structure, n)
    assert parent[0] == -1 and len(parent) == n == len(children)
    for x in range(n):
        assert all(parent[c] == x for c in children[x])
        assert all(0 <= c < n for c in children[x])
    assert sorted(c for kids in children for c in kids) == list(range(1, n))
    assert st.subtree(structure, 0, n) == list(range(n))
    assert all(0 <= parent[x] < x for x in range(1, n))


@pytest.mark.parametrize("n", SIZES)
def test_lct_subtrees_are_contiguous_ranges(n):
    for x in range(1, n):
        low = x & -x
        assert st.subtree("lct", x, n) == list(range(x, min(x + low, n)))


@pytest.mark.parametrize("n", SIZES)
def test_bst_subtrees_are_strided(n):
    for x in range(1, n):
        stride = 1 << x.bit_length()
        assert st.subtree("bst", x, n) == list(range(x, n, stride))


def test_paper_examples_and_release_order():
    assert st.lct_parent(6) == 4
    assert st.subtree("lct", 12, 16) == [12, 13, 14, 15]
    assert st.subtree("bst", 3, 16) == [3, 7, 11, 15]
    assert st.lct_children(0, 16) == [8, 4, 2, 1]  # Algorithm 1: largest subtree first
    assert st.lct_children(8, 16) == [12, 10, 9]
    assert st.lct_children(0, 13) == [8, 4, 2, 1] and st.lct_children(12, 13) == []
    assert st.bst_children(0, 16) == [1, 2, 4, 8] and st.bst_children(3, 16) == [7, 11]
    assert st.bst_parent(11) == 3 and st.bst_parent(0) == st.lct_parent(0) == -1
    assert set(st.STRUCTURES) == {"lct", "bst"}
    assert st.STRUCTURES["lct"] == (st.lct_parent, st.lct_children)


def test_structure_errors():
    with pytest.raises(SpecError, match="unknown structure"):
        st.gather_map("mst", 4)
    with pytest.raises(SpecError):
        st.release_map("lct", 0)
    with pytest.raises(SpecError):
        st.lct_children(5, 4)


# ---------------------------------------------------------------- numberings
def test_s_curve_matches_the_paper_formula():
    ids = st.numbering("s-curve", 4, 4)
    assert ids[3].tolist() == [15, 14, 13, 12]
    size = 4
    for x in range(size):
        for y in range(size):
            assert ids[x, y] == x * size + y + (x % 2) * (size - 1 - 2 * y)
    # LCT's subtree 12..15 on one row; BST's 3, 7, 11, 15 on four different rows
    pos = st.position_of(ids)
    assert {pos[i][0] for i in range(12, 16)} == {3}
    assert {pos[i][0] for i in (3, 7, 11, 15)} == {0, 1, 2, 3}


@pytest.mark.parametrize("kind", st.NUMBERINGS)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (8, 8), (3, 5), (6, 2)])
def test_numberings_are_permutations(kind, shape):
    ids = st.numbering(kind, *shape)
    assert ids.shape == shape
    assert sorted(ids.ravel().tolist()) == list(range(shape[0] * shape[1]))
    pos = st.position_of(ids)
    assert all(ids[pos[i]] == i for i in range(ids.size))


@pytest.mark.parametrize("kind", ["s-curve", "hilbert"])
@pytest.mark.parametrize("size", [2, 4, 8])
def test_continuous_curves_step_to_a_grid_neighbor(kind, size):
    pos = st.position_of(st.numbering(kind, size))
    steps = {abs(pos[i][0] - pos[i + 1][0]) + abs(pos[i][1] - pos[i + 1][1]) for i in range(size * size - 1)}
    assert steps == {1}


def test_z_order_and_row_major():
    assert st.numbering("z-order", 2).tolist() == [[0, 1], [2, 3]]
    assert st.numbering("z-order", 4)[2:, :2].tolist() == [[8, 9], [10, 11]]
    assert st.numbering("row-major", 2, 3).tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(SpecError, match="unknown numbering"):
        st.numbering("peano", 3)


@pytest.mark.parametrize("k", [0, 1, 5, 16, -3])
def test_adjust_is_a_bijection(k):
    ids = st.numbering("s-curve", 4)
    new = st.adjust(ids, k, 16)
    assert sorted(new.ravel().tolist()) == list(range(16))
    assert np.array_equal(st.adjust(new, -k), ids)
    assert np.array_equal(new, (ids + k) % 16)


def test_position_of_rejects_non_permutations():
    with pytest.raises(SpecError, match="exactly once"):
        st.position_of(np.array([[0, 0], [1, 2]]))


# ---------------------------------------------------------------- routing
def test_greedy_route_goes_diagonal_first_on_8_neighbors():
    route = st.greedy_route((0, 0), (3, 1), (4, 4))
    assert route.reached and route.path == ((0, 0), (1, 1), (2, 1), (3, 1))
    assert route.links == [((0, 0), (1, 1)), ((1, 1), (2, 1)), ((2, 1), (3, 1))]


def test_four_neighbor_ties_go_to_the_smallest_cell():
    assert st.greedy_route((0, 0), (1, 1), (2, 2), 4).path == ((0, 0), (0, 1), (1, 1))
    assert st.greedy_route((1, 1), (0, 0), (2, 2), 4).path == ((1, 1), (0, 1), (0, 0))


def test_broken_link_detour_and_dead_end():
    broken = {frozenset({(0, 1), (0, 0)})}
    assert st.grid_neighbors((4, 4), 8, broken)[(0, 0)] == [(1, 0), (1, 1)]
    # 8 neighbors: around the break through the diagonal
    assert st.greedy_route((0, 0), (0, 1), (4, 4), 8, broken).path == ((0, 0), (1, 1), (0, 1))
    # 4 neighbors: (0,0) -> (1,0) -> back to (0,0) (tie with (1,1)): greedy forwarding would cycle
    route = st.greedy_route((0, 0), (0, 1), (4, 4), 4, broken)
    assert not route.reached and route.reason == "loop" and route.path == ((0, 0), (1, 0), (0, 0))
    # an isolated node
    cut = [((0, 0), (0, 1)), ((0, 0), (1, 0)), ((1, 1), (0, 0))]
    assert st.greedy_route((0, 0), (3, 3), (4, 4), 8, cut).reason == "dead end"


def test_pattern_links_raise_on_a_dead_end():
    ids = st.numbering("s-curve", 4)  # ID 1 at (0,1) gathers to 0 at (0,0)
    with pytest.raises(st.GreedyDeadEnd, match="loop") as info:
        st.pattern_links("lct", ids, 4, broken=[((0, 0), (0, 1))])
    assert info.value.route.dst == (0, 0)
    with_break = st.pattern_links("lct", ids, 8, broken=[((0, 0), (0, 1))])
    assert st.link((0, 0), (0, 1)) not in with_break and st.link((0, 1), (1, 0)) in with_break


def test_pattern_links_phases_and_errors():
    ids = st.numbering("s-curve", 4)
    gather = st.pattern_links("lct", ids)
    assert gather == st.pattern_links("lct", ids, phase="gather", metric="manhattan")
    assert len(gather) == 16 and len(st.pattern_links("lct", st.adjust(ids, 1))) == 17
    both = st.pattern_links("lct", ids, phase="both")
    assert gather | st.pattern_links("lct", ids, phase="release") == both
    with pytest.raises(SpecError):
        st.pattern_links("lct", ids, 6)
    with pytest.raises(SpecError):
        st.pattern_links("lct", ids, phase="scatter")
    with pytest.raises(SpecError):
        st.pattern_links("lct", ids, metric="hamming")


# ---------------------------------------------------------------- update quantity (paper numbers)
def test_update_quantity():
    assert uq.update_quantity(set(), set()) == 0.0
    assert uq.update_quantity({1}, {1}) == 0.0
    assert uq.update_quantity({1}, {2}) == 1.0


def test_fig3_lct_round1_is_1_minus_7_over_26():
    ids = st.numbering("s-curve", 4)
    out = uq.uq_round("lct", ids, 1, 8)
    assert (out["intersection"], out["union"]) == (7, 26)
    assert out["uq"] == pytest.approx(float(1 - Fraction(7, 26)))
    assert round(100 * out["uq"], 1) == 73.1
    # the paper's example: IDs 4, 5 talk over (row 1, col 2)-(row 1, col 3), afterwards over (0, 3)-(1, 3)
    before, after = st.pattern_links("lct", ids), st.pattern_links("lct", st.adjust(ids, 1))
    assert st.link((1, 2), (1, 3)) in before
    assert st.link((0, 3), (1, 3)) in after and st.link((0, 3), (1, 3)) not in before


def test_fig3_bst_round1_is_2_over_11():
    out = uq.uq_round("bst", st.numbering("s-curve", 4), 1, 8)
    assert (out["intersection"], out["union"]) == (18, 22)
    assert Fraction(out["union"] - out["intersection"], out["union"]) == Fraction(2, 11)
    assert round(100 * out["uq"], 1) == 18.2


def test_four_neighbors_do_not_reproduce_fig3():
    out = uq.uq_round("lct", st.numbering("s-curve", 4), 1, 4)
    assert (out["intersection"], out["union"]) != (7, 26)


def test_mean_uq_over_the_256_transformations():
    # the paper reports 0.5527; this model (which reproduces Fig. 3 exactly) gives 0.5623
    matrix = uq.uq_matrix(4, "lct", 8)
    assert matrix.shape == (16, 16) and np.all(matrix[:, 0] == 0)
    assert matrix[0, 1] == pytest.approx(19 / 26)
    assert round(uq.mean_uq(4, "lct", 8), 4) == 0.5623
    assert round(float(matrix[:, 1:].mean()), 4) == 0.5998
    assert round(uq.mean_uq(4, "bst", 8), 4) == 0.4082


def test_fig5_difference_histogram():
    hist = uq.uq_difference_histogram(4, 8)
    assert len(hist["values"]) == 256 and sum(hist["counts"]) == 256
    assert (hist["positive"], hist["negative"], hist["zero"]) == (170, 70, 16)
    assert hist["mean_difference"] == pytest.approx(hist["mean_lct"] - hist["mean_bst"])
    assert hist["positive"] > 2 * hist["negative"]  # LCT changes more links in most transformations
    json.dumps(hist)


def test_uq_size_limit():
    with pytest.raises(SpecError, match="size"):
        uq.mean_uq(uq.MAX_UQ_SIZE + 1)


# ---------------------------------------------------------------- CLI
def test_cli_uq(capsys):
    assert main(["uq", "--size", "4", "--structure", "lct", "--neighbors", "8"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"mean_uq", "round1"}
    assert round(out["mean_uq"], 4) == 0.5623
    assert out["round1"]["intersection"] == 7 and out["round1"]["union"] == 26
    assert main(["uq", "--structure", "bst"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["round1"]["intersection"], out["round1"]["union"]) == (18, 22)


def test_cli_uq_bad_size(capsys):
    assert main(["uq", "--size", "40"]) == 2
    assert "size must be" in capsys.readouterr().err
