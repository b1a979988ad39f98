"""A binary matrix checked once (``CheckedBinary``) is shared by the three binary estimators of the
Binary product page without a second check: the same estimates as from the matrix itself, bad
input still refused (by the wrapper and by every estimator given a plain matrix), and the checked
arrays cannot change after the check."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from dpcore import registry
from dpcore.data.binary_rows import sample_binary_rows
from dpcore.estimators.binary_product import CheckedBinary, check_binary
from dpcore.privacy import Budget

NAMES = ("binary_pde", "binary_naive_laplace", "binary_truncated_laplace")


def _rows() -> sparse.csr_matrix:
    p = np.r_[np.full(4, 0.3), np.full(60, 0.002)]
    return sample_binary_rows(p, 20_000, rng=np.random.default_rng(1))


@pytest.mark.parametrize("name", NAMES)
def test_a_checked_matrix_gives_the_same_estimate(name):
    X = _rows()
    plain = registry.run(name, X, Budget.pure(1.0), rng=np.random.default_rng(5))
    shared = registry.run(name, CheckedBinary(X), Budget.pure(1.0), rng=np.random.default_rng(5))
    assert np.array_equal(plain.mean, shared.mean)
    assert plain.ledger.to_records() == shared.ledger.to_records()


def test_the_check_runs_once():
    X = CheckedBinary(_rows())
    assert check_binary(X) is X.matrix  # no copy, no second pass
    assert X.shape == (20_000, 64)


@pytest.mark.parametrize(
    "bad",
    [
        np.array([[0.0, 2.0], [1.0, 0.0]]),
        np.array([[np.nan, 1.0]]),
        sparse.csr_matrix(np.array([[0.5, 1.0]])),
        np.zeros((0, 3)),
    ],
)
def test_bad_input_is_refused_by_the_wrapper_and_by_each_estimator(bad):
    with pytest.raises(ValueError):
        CheckedBinary(bad)
    for name in NAMES:
        with pytest.raises(ValueError):
            registry.run(name, bad, Budget.pure(1.0), rng=np.random.default_rng(0))


def test_the_checked_matrix_cannot_change_after_the_check():
    X = CheckedBinary(_rows())
    with pytest.raises(ValueError):
        X.matrix.data[0] = 7.0
    dense = CheckedBinary(np.eye(3))
    with pytest.raises(ValueError):
        dense.matrix[0, 1] = 5.0


def test_a_repeated_entry_is_its_sum_and_a_sum_above_one_is_refused():
    """A CSR matrix may store one (row, column) twice; scipy then reads it as the sum. Two stored
    ones are a 2, not a bit: refused, and the caller's matrix is left as it was."""
    X = sparse.csr_matrix(
        (np.ones(3), np.array([0, 0, 1]), np.array([0, 2, 3])), shape=(2, 2)
    )  # row 0 stores column 0 twice
    assert not X.has_canonical_format
    with pytest.raises(ValueError, match="only 0 and 1"):
        check_binary(X)
    assert X.nnz == 3  # not summed in place
    one = sparse.csr_matrix(
        (np.array([0.5, 0.5, 1.0]), np.array([0, 0, 1]), np.array([0, 2, 3])), shape=(2, 2)
    )  # two halves make a one
    assert check_binary(one).toarray().tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_the_samplers_matrix_is_canonical_as_it_says():
    """sample_binary_rows marks its matrix canonical (no check rescans it): recomputed from its
    arrays, it is; a CSC matrix with a repeated entry is summed and refused as well."""
    X = _rows()
    fresh = sparse.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape)
    assert X.has_canonical_format and fresh.has_canonical_format
    csc = sparse.csc_matrix((np.ones(3), np.array([0, 0, 1]), np.array([0, 2, 3])), shape=(2, 2))
    with pytest.raises(ValueError, match="only 0 and 1"):
        check_binary(csc)
