"""Naive Laplace's column means (dpcore.estimators.binary_baselines._column_means): read off the
partial sums of 1/n by each column's count, they equal scipy's ``X.mean(axis=0)`` to the bit."""

import numpy as np
import pytest
from scipy import sparse

from dpcore.data.binary import profile
from dpcore.data.binary_rows import sample_binary_rows
from dpcore.estimators.binary_baselines import _column_means
from dpcore.estimators.binary_product import check_binary


@pytest.mark.parametrize(
    ("name", "d", "n"),
    [
        ("skewed", 512, 300_000),  # the page's defaults: 1/n is not a binary fraction
        ("dense", 64, 100_003),  # counts near n/2, a prime n
        ("sparse", 16, 7),
        ("two_level", 128, 30_000),
    ],
)
def test_column_means_equal_scipys(name: str, d: int, n: int) -> None:
    X = check_binary(sample_binary_rows(profile(name, d, rng=4), n, rng=9))
    expected = np.asarray(X.mean(axis=0)).ravel()
    got = _column_means(X)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected)  # the same floats, not close ones


def test_full_empty_and_dense_columns() -> None:
    n = 1_000_003
    X = check_binary(
        sparse.csr_matrix(np.column_stack([np.ones(n), np.zeros(n), np.arange(n) % 3 == 0]))
    )
    assert np.array_equal(_column_means(X), np.asarray(X.mean(axis=0)).ravel())
    dense = np.eye(3)
    assert np.array_equal(_column_means(dense), dense.mean(axis=0))
